//! `cfg` as the host compilation sees it. The device crate is compiled for another target, so a `cfg` in kernel
//! code must not be evaluated there: the outliner evaluates every `#[cfg(..)]`, `#[cfg_attr(..)]` and `cfg!(..)` of
//! a kernel and of the items it copies against the host's configuration ([`CfgSet::from_build_env`], what cargo
//! tells a build script), writes the result into the kernel (`true`/`false`, the item or nothing), and records each
//! predicate with its value so that the host expansion asserts `cfg!(pred) == value` where rustc decides
//! (`HostCheck::Cfg`). A predicate the build script cannot know (`test`, a `--cfg` the package's own build script
//! emits) is [`Eval::Unknown`]: the kernel is refused rather than guessed.

use std::collections::{BTreeMap, BTreeSet};

use proc_macro2::{TokenStream, TokenTree};
use quote::ToTokens;
use syn::visit_mut::VisitMut;

/// The host's `cfg` values.
#[derive(Debug, Clone, Default)]
pub struct CfgSet {
    /// Name-only cfgs that are set (`unix`, `debug_assertions`).
    names: BTreeSet<String>,
    /// Key-value cfgs (`target_os` -> {`linux`}, `feature` -> {…}).
    values: BTreeMap<String, BTreeSet<String>>,
    /// Keys whose every value is known (absent values are false); other keys are unknown.
    known_keys: BTreeSet<String>,
    /// Whether this set was read from a build's environment (else every predicate is unknown, except what tests set).
    complete: bool,
}

/// What a predicate evaluates to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Eval {
    /// Set / not set on the host.
    Known(bool),
    /// The build script cannot know it.
    Unknown,
}

/// Name-only cfgs rustc sets outside `rustc --print cfg` (per compilation, not per target), which a build script
/// therefore never sees.
const UNKNOWABLE: &[&str] = &["test", "doc", "doctest", "miri", "rustfmt", "clippy", "proc_macro", "rust_analyzer"];

impl CfgSet {
    /// The configuration cargo describes to a build script: `CARGO_CFG_<NAME>` for the target's cfgs (with any
    /// `--cfg` of `RUSTFLAGS`), `CARGO_CFG_FEATURE` or `CARGO_FEATURE_<NAME>` for the package's features.
    pub fn from_build_env() -> CfgSet {
        Self::from_vars(std::env::vars())
    }

    /// [`CfgSet::from_build_env`] from given variables (tests).
    pub fn from_vars(vars: impl IntoIterator<Item = (String, String)>) -> CfgSet {
        let mut set = CfgSet { complete: true, ..CfgSet::default() };
        let mut features_exact: Option<BTreeSet<String>> = None;
        let mut features_env: BTreeSet<String> = BTreeSet::new();
        for (k, v) in vars {
            if let Some(name) = k.strip_prefix("CARGO_CFG_") {
                let name = name.to_ascii_lowercase();
                if name == "feature" {
                    features_exact = Some(v.split(',').filter(|s| !s.is_empty()).map(str::to_string).collect());
                } else if v.is_empty() {
                    set.names.insert(name);
                } else {
                    set.values.entry(name.clone()).or_default().extend(v.split(',').map(str::to_string));
                    set.known_keys.insert(name);
                }
            } else if let Some(f) = k.strip_prefix("CARGO_FEATURE_") {
                features_env.insert(f.to_string());
            }
        }
        // `CARGO_FEATURE_<NAME>` spells `foo-bar` and `foo_bar` alike: compare in that spelling.
        let features = features_exact.unwrap_or_else(|| features_env.into_iter().map(|f| format!("\u{0}{f}")).collect());
        set.values.insert("feature".into(), features);
        set.known_keys.insert("feature".into());
        // Keys of the target that cargo lists whenever they are set; a missing one is false, not unknown.
        for key in [
            "target_feature",
            "target_has_atomic",
            "target_os",
            "target_family",
            "target_arch",
            "target_env",
            "target_vendor",
            "target_abi",
            "panic",
            "target_endian",
            "target_pointer_width",
        ] {
            set.known_keys.insert(key.into());
        }
        set
    }

    /// A set in which `names` are on, `features` enabled and everything else known to be off (tests).
    pub fn with(names: &[&str], features: &[&str]) -> CfgSet {
        let mut set = CfgSet { complete: true, ..CfgSet::default() };
        set.names.extend(names.iter().map(|s| s.to_string()));
        set.values.insert("feature".into(), features.iter().map(|s| s.to_string()).collect());
        set.known_keys.insert("feature".into());
        set
    }

    /// Whether debug assertions are on (the profile's `debug-assertions`).
    pub fn debug_assertions(&self) -> Option<bool> {
        self.complete.then(|| self.names.contains("debug_assertions"))
    }

    /// Evaluates a predicate (`all(unix, feature = "x")`).
    pub fn eval(&self, pred: &syn::Meta) -> Eval {
        if !self.complete {
            return Eval::Unknown;
        }
        match pred {
            syn::Meta::Path(p) => match p.get_ident().map(|i| i.to_string()) {
                Some(n) if UNKNOWABLE.contains(&n.as_str()) => Eval::Unknown,
                Some(n) => Eval::Known(self.names.contains(&n)),
                None => Eval::Unknown,
            },
            syn::Meta::NameValue(nv) => {
                let (Some(key), syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Str(s), .. })) = (nv.path.get_ident(), &nv.value) else {
                    return Eval::Unknown;
                };
                let key = key.to_string();
                let Some(values) = self.values.get(&key) else {
                    return if self.known_keys.contains(&key) { Eval::Known(false) } else { Eval::Unknown };
                };
                let v = s.value();
                let env_spelling = format!("\u{0}{}", v.to_ascii_uppercase().replace('-', "_"));
                Eval::Known(values.contains(&v) || (key == "feature" && values.contains(&env_spelling)))
            }
            syn::Meta::List(l) => {
                let name = l.path.get_ident().map(|i| i.to_string()).unwrap_or_default();
                let Ok(args) = l.parse_args_with(syn::punctuated::Punctuated::<syn::Meta, syn::Token![,]>::parse_terminated) else {
                    return Eval::Unknown;
                };
                let evals: Vec<Eval> = args.iter().map(|m| self.eval(m)).collect();
                match name.as_str() {
                    "all" => combine(&evals, false),
                    "any" => combine(&evals, true),
                    "not" if evals.len() == 1 => match evals[0] {
                        Eval::Known(b) => Eval::Known(!b),
                        Eval::Unknown => Eval::Unknown,
                    },
                    _ => Eval::Unknown,
                }
            }
        }
    }
}

/// `all` (`short` = false) or `any` (`short` = true): a known short-circuit value decides even next to unknowns.
fn combine(evals: &[Eval], short: bool) -> Eval {
    if evals.contains(&Eval::Known(short)) {
        Eval::Known(short)
    } else if evals.contains(&Eval::Unknown) {
        Eval::Unknown
    } else {
        Eval::Known(!short)
    }
}

/// One evaluated predicate, in its source spelling (`feature = "x"`), with its value.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Evaluated {
    /// The predicate's tokens.
    pub pred: String,
    /// Its value on the host.
    pub value: bool,
}

/// Rewrites the `cfg`s of kernel code to their host values, recording each; a predicate that cannot be known is
/// recorded in `unknown` (the caller refuses the kernel).
pub struct Resolver<'a> {
    set: &'a CfgSet,
    /// Every predicate evaluated, with its value.
    pub evaluated: Vec<Evaluated>,
    /// Predicates that cannot be known here.
    pub unknown: Vec<String>,
}

impl<'a> Resolver<'a> {
    /// A resolver over the host's set.
    pub fn new(set: &'a CfgSet) -> Self {
        Resolver { set, evaluated: Vec::new(), unknown: Vec::new() }
    }

    /// The value of a `#[cfg]` attribute list on an item or statement: `Some(false)` when the node is compiled out.
    pub fn keep(&mut self, attrs: &[syn::Attribute]) -> Option<bool> {
        let mut keep = true;
        for a in attrs.iter().filter(|a| a.path().is_ident("cfg")) {
            match a.parse_args::<syn::Meta>().ok().map(|m| (self.eval_meta(&m), m)) {
                Some((Eval::Known(b), _)) => keep &= b,
                _ => return None,
            }
        }
        Some(keep)
    }

    fn eval_meta(&mut self, m: &syn::Meta) -> Eval {
        let e = self.set.eval(m);
        let pred = m.to_token_stream().to_string();
        match e {
            Eval::Known(value) => {
                let ev = Evaluated { pred, value };
                if !self.evaluated.contains(&ev) {
                    self.evaluated.push(ev);
                }
            }
            Eval::Unknown => {
                if !self.unknown.contains(&pred) {
                    self.unknown.push(pred);
                }
            }
        }
        e
    }

    /// Applies `cfg_attr` and drops `cfg` attributes that hold, in one attribute list (the node itself is kept or
    /// removed by the caller through [`Resolver::keep`]).
    fn settle_attrs(&mut self, attrs: &mut Vec<syn::Attribute>) {
        let mut out = Vec::with_capacity(attrs.len());
        for a in attrs.drain(..) {
            if a.path().is_ident("cfg") {
                continue;
            }
            if a.path().is_ident("cfg_attr") {
                let parsed = a.parse_args_with(syn::punctuated::Punctuated::<syn::Meta, syn::Token![,]>::parse_terminated);
                let Ok(parts) = parsed else {
                    self.unknown.push(a.to_token_stream().to_string());
                    continue;
                };
                let mut parts = parts.into_iter();
                let Some(pred) = parts.next() else { continue };
                if let Eval::Known(true) = self.eval_meta(&pred) {
                    for m in parts {
                        out.push(syn::parse_quote!(#[#m]));
                    }
                }
                continue;
            }
            out.push(a);
        }
        *attrs = out;
    }

    /// Rewrites a block of kernel code (statements, nested items, `cfg!`), in place.
    pub fn block(&mut self, b: &mut syn::Block) {
        self.visit_block_mut(b);
    }

    /// Rewrites an item the kernel copies; `false` when the item itself is compiled out (or unknown).
    pub fn item(&mut self, item: &mut syn::Item) -> bool {
        let keep = self.keep(item_attrs(item)).unwrap_or(false);
        if keep {
            // The item's own `#[cfg]`s hold: drop them with the rest of its code's.
            self.visit_item_mut(item);
        }
        keep
    }

    /// `cfg!(pred)` in a macro's tokens (`assert!(cfg!(x) || ...)`), recursively.
    fn macro_tokens(&mut self, ts: TokenStream) -> TokenStream {
        let mut out = Vec::new();
        let tokens: Vec<TokenTree> = ts.into_iter().collect();
        let mut i = 0;
        while i < tokens.len() {
            if let (TokenTree::Ident(id), Some(TokenTree::Punct(p)), Some(TokenTree::Group(g))) =
                (&tokens[i], tokens.get(i + 1), tokens.get(i + 2))
            {
                if id == "cfg" && p.as_char() == '!' {
                    let value = match syn::parse2::<syn::Meta>(g.stream()) {
                        Ok(m) => self.eval_meta(&m),
                        Err(_) => Eval::Unknown,
                    };
                    let lit = matches!(value, Eval::Known(true));
                    out.push(TokenTree::Ident(proc_macro2::Ident::new(if lit { "true" } else { "false" }, id.span())));
                    i += 3;
                    continue;
                }
            }
            match &tokens[i] {
                TokenTree::Group(g) => {
                    let mut ng = proc_macro2::Group::new(g.delimiter(), self.macro_tokens(g.stream()));
                    ng.set_span(g.span());
                    out.push(TokenTree::Group(ng));
                }
                t => out.push(t.clone()),
            }
            i += 1;
        }
        out.into_iter().collect()
    }
}

impl VisitMut for Resolver<'_> {
    fn visit_block_mut(&mut self, b: &mut syn::Block) {
        let stmts = std::mem::take(&mut b.stmts);
        for mut s in stmts {
            let keep = match &s {
                syn::Stmt::Local(l) => self.keep(&l.attrs),
                syn::Stmt::Item(it) => self.keep(item_attrs(it)),
                syn::Stmt::Expr(e, _) => self.keep(crate::syntax::body::expr_attrs(e)),
                syn::Stmt::Macro(m) => self.keep(&m.attrs),
            };
            match keep {
                Some(true) => {
                    self.visit_stmt_mut(&mut s);
                    b.stmts.push(s);
                }
                Some(false) => {}
                // Unknown: recorded; keep the statement so the kernel still parses (the kernel is refused).
                None => b.stmts.push(s),
            }
        }
    }

    fn visit_attributes_mut(&mut self, attrs: &mut Vec<syn::Attribute>) {
        self.settle_attrs(attrs);
    }

    fn visit_expr_mut(&mut self, e: &mut syn::Expr) {
        if let syn::Expr::Macro(m) = e {
            if m.mac.path.is_ident("cfg") {
                let value = match m.mac.parse_body::<syn::Meta>() {
                    Ok(meta) => self.eval_meta(&meta),
                    Err(_) => Eval::Unknown,
                };
                let lit = matches!(value, Eval::Known(true));
                *e = syn::parse_quote!(#lit);
                return;
            }
        }
        syn::visit_mut::visit_expr_mut(self, e);
    }

    fn visit_macro_mut(&mut self, m: &mut syn::Macro) {
        m.tokens = self.macro_tokens(m.tokens.clone());
    }

    fn visit_fields_named_mut(&mut self, f: &mut syn::FieldsNamed) {
        let fields = std::mem::take(&mut f.named);
        for mut field in fields {
            if self.keep(&field.attrs).unwrap_or(true) {
                self.visit_field_mut(&mut field);
                f.named.push(field);
            }
        }
    }
}

/// The attributes of an item.
pub fn item_attrs(item: &syn::Item) -> &[syn::Attribute] {
    use syn::Item::*;
    match item {
        Const(i) => &i.attrs,
        Enum(i) => &i.attrs,
        ExternCrate(i) => &i.attrs,
        Fn(i) => &i.attrs,
        ForeignMod(i) => &i.attrs,
        Impl(i) => &i.attrs,
        Macro(i) => &i.attrs,
        Mod(i) => &i.attrs,
        Static(i) => &i.attrs,
        Struct(i) => &i.attrs,
        Trait(i) => &i.attrs,
        TraitAlias(i) => &i.attrs,
        Type(i) => &i.attrs,
        Union(i) => &i.attrs,
        Use(i) => &i.attrs,
        _ => &[],
    }
}

#[cfg(test)]
mod test {
    use super::*;

    fn meta(s: &str) -> syn::Meta {
        syn::parse_str(s).unwrap_or_else(|e| panic!("{s}: {e}"))
    }

    #[test]
    fn predicates_follow_the_build_environment() {
        let vars = [
            ("CARGO_CFG_UNIX", ""),
            ("CARGO_CFG_DEBUG_ASSERTIONS", ""),
            ("CARGO_CFG_TARGET_OS", "linux"),
            ("CARGO_CFG_TARGET_FEATURE", "fxsr,sse,sse2"),
            ("CARGO_FEATURE_MEANING_PROBE", "1"),
        ];
        let set = CfgSet::from_vars(vars.iter().map(|(k, v)| (k.to_string(), v.to_string())));
        let e = |s: &str| set.eval(&meta(s));
        assert_eq!(e("unix"), Eval::Known(true));
        assert_eq!(e("windows"), Eval::Known(false));
        assert_eq!(e("debug_assertions"), Eval::Known(true));
        assert_eq!(e("target_os = \"linux\""), Eval::Known(true));
        assert_eq!(e("target_feature = \"avx512f\""), Eval::Known(false));
        assert_eq!(e("feature = \"meaning-probe\""), Eval::Known(true));
        assert_eq!(e("feature = \"meaning_probe\""), Eval::Known(true));
        assert_eq!(e("feature = \"other\""), Eval::Known(false));
        assert_eq!(e("test"), Eval::Unknown);
        assert_eq!(e("all(unix, not(test))"), Eval::Unknown);
        assert_eq!(e("any(unix, test)"), Eval::Known(true));
        assert_eq!(e("all(windows, test)"), Eval::Known(false));
        assert_eq!(e("my_custom_key = \"x\""), Eval::Unknown);
        // Exact feature names, when cargo gives them, tell `a-b` from `a_b`.
        let exact = CfgSet::from_vars([("CARGO_CFG_FEATURE".to_string(), "a-b".to_string())]);
        assert_eq!(exact.eval(&meta("feature = \"a-b\"")), Eval::Known(true));
        assert_eq!(exact.eval(&meta("feature = \"a_b\"")), Eval::Known(false));
        // No build environment: nothing is known.
        assert_eq!(CfgSet::default().eval(&meta("unix")), Eval::Unknown);
    }

    #[test]
    fn kernel_code_is_rewritten_to_the_host_values() {
        let set = CfgSet::with(&["debug_assertions"], &["fast"]);
        let mut r = Resolver::new(&set);
        let mut b: syn::Block = syn::parse_quote!({
            #[cfg(feature = "fast")]
            let a = 1.0;
            #[cfg(not(feature = "fast"))]
            let a = 2.0;
            let d = cfg!(debug_assertions);
            assert!(cfg!(feature = "slow") || a > 0.0);
        });
        r.block(&mut b);
        let text = b.to_token_stream().to_string();
        assert_eq!(text, "{ let a = 1.0 ; let d = true ; assert ! (false || a > 0.0) ; }");
        assert_eq!(r.evaluated.len(), 4, "{:?}", r.evaluated);
        assert!(r.unknown.is_empty());
        let mut b: syn::Block = syn::parse_quote!({
            let t = cfg!(test);
        });
        r.block(&mut b);
        assert_eq!(r.unknown, ["test"]);
    }
}
