//! Generic kernels: `fn triad<T: ...>(a: &mut [T], b: &[T], scalar: T)` with a target region (BabelStream's
//! `--float`, C++ templates).
//!
//! The device crate is compiled before the user's crate, so it cannot know which types a generic function will be
//! called with. Each kernel whose values are typed with the function's type parameters is compiled once per
//! instance of those parameters among [`INSTANCES`] (`f32`, `f64`: the element types of scientific codes), as
//! `<kernel>_f32`, `<kernel>_f64`, each in a module of the device crate where the parameter is a type alias
//! (`type T = f32;`). The launch picks the instance whose types are the call's (`TypeId`), so a kernel always
//! decodes its arguments as the types the host encoded; another instance (`triad::<i32>`) runs on the host, as a
//! region without an image does. The macro adds the bounds the launch needs to the function's `where` clause
//! (`T: omp::DeviceScalar`, and `Add: Reducer<T>` for a `reduction(+: s)` on a `T`).

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use crate::plan::abi::INSTANCES;
use crate::plan::kernel::KernelPlan;

/// Every assignment of [`INSTANCES`] to `params` (their cartesian product, in order).
pub(crate) fn instances(params: &[String]) -> Vec<Vec<(String, String)>> {
    let mut out: Vec<Vec<(String, String)>> = vec![Vec::new()];
    for p in params {
        out = out
            .into_iter()
            .flat_map(|prefix| INSTANCES.iter().map(move |t| [prefix.clone(), vec![(p.clone(), t.to_string())]].concat()))
            .collect();
    }
    out
}

/// The kernel name of one instance: `omp_triad_0_1a2b3c4d_f32`.
pub(crate) fn instance_name(base: &str, instance: &[(String, String)]) -> String {
    let mut name = base.to_string();
    for (_, t) in instance {
        name.push('_');
        name.push_str(t);
    }
    name
}

/// Methods a generic region may call and still compile for every instance: the device library's `Float` methods
/// (which `f32` and `f64` both have there) and slice lengths.
const DEVICE_METHODS: &[&str] = &[
    "abs",
    "acos",
    "asin",
    "atan",
    "atan2",
    "cbrt",
    "ceil",
    "cos",
    "cosh",
    "exp",
    "exp2",
    "floor",
    "fma",
    "hypot",
    "ln",
    "log10",
    "log2",
    "max",
    "min",
    "mul_add",
    "pow",
    "powf",
    "powi",
    "round",
    "sin",
    "sinh",
    "sqrt",
    "tan",
    "tanh",
    "trunc",
    "len",
    "is_empty",
    "exp_m1",
    "ln_1p",
    "asinh",
    "acosh",
    "atanh",
    "round_ties_even",
    "rem_euclid",
    "div_euclid",
    "fract",
];

/// Why a generic region's body may not compile for every instance in the device crate, as far as the body shows
/// (`None`: it compiles). Allowed: operators, [`DEVICE_METHODS`], and `T::from(2.5f32)` on a literal whose suffix
/// both instances convert from (`f32`, `i8`, `u8`, `i16`, `u16`: core's `From`, the same value there as here).
/// Anything else that names a function -- a call of a helper, a path through a type parameter (`T::zero()`,
/// `T::from_f32(x)`), a method of a trait the device crate does not have -- gets no kernel: the region runs on the
/// host (a slower region, never a failed build), the build says so in a warning and `OMP_TARGET_OFFLOAD=MANDATORY`
/// quotes the reason.
pub(crate) fn host_only_reason(plan: &KernelPlan) -> Option<String> {
    use syn::visit::Visit;
    struct Check<'a> {
        generics: &'a [String],
        why: Option<String>,
    }
    impl Check<'_> {
        fn refuse(&mut self, what: String) {
            self.why.get_or_insert(what);
        }
        /// `T::from(2.5f32)`: core's `From::from` of a literal every instance converts from exactly. (An argument of
        /// another type may convert into one instance and not the other: `f32: From<f64>` does not hold.)
        fn is_literal_from(&self, c: &syn::ExprCall) -> bool {
            let syn::Expr::Path(p) = &*c.func else { return false };
            let segments: Vec<String> = p.path.segments.iter().map(|s| s.ident.to_string()).collect();
            let lossless = |e: &syn::Expr| match e {
                syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Float(f), .. }) => f.suffix() == "f32",
                syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Int(i), .. }) => ["i8", "u8", "i16", "u16"].contains(&i.suffix()),
                _ => false,
            };
            p.qself.is_none()
                && matches!(segments.as_slice(), [t, f] if f == "from" && self.generics.contains(t))
                && c.args.len() == 1
                && c.args.first().is_some_and(lossless)
        }
    }
    impl<'ast> Visit<'ast> for Check<'_> {
        fn visit_expr_call(&mut self, c: &'ast syn::ExprCall) {
            if self.is_literal_from(c) {
                return;
            }
            let call = compact(c);
            self.refuse(format!("calls `{call}`"));
            syn::visit::visit_expr_call(self, c);
        }
        fn visit_expr_method_call(&mut self, m: &'ast syn::ExprMethodCall) {
            let name = m.method.to_string();
            if !DEVICE_METHODS.contains(&name.as_str()) {
                self.refuse(format!("calls the method `{name}`"));
            }
            syn::visit::visit_expr_method_call(self, m);
        }
        fn visit_path(&mut self, p: &'ast syn::Path) {
            if p.segments.len() > 1 && self.generics.iter().any(|g| p.segments[0].ident == g) {
                let path = compact(p);
                self.refuse(format!("names `{path}`"));
            }
            syn::visit::visit_path(self, p);
        }
    }
    let mut c = Check { generics: &plan.generics, why: None };
    c.visit_block(&plan.nest.body);
    c.why.map(|why| {
        format!(
            "this generic target region {why}, which its kernels (compiled for {} before the crate, without the \
             crate's dependencies and traits) may not compile, or not to the host's value: make the function \
             non-generic, or compute the value before the region and pass it in",
            INSTANCES.join(" and ")
        )
    })
}

/// Short code in a message: `T::from(2.0)`, not `T :: from (2.0)`.
fn compact(t: &impl quote::ToTokens) -> String {
    t.to_token_stream().to_string().replace(' ', "")
}

/// Traits whose methods mean for `f32` and `f64` what the floats' own methods mean: the device crate, which has no
/// user traits, compiles a generic region's method calls as the instance's own (`a.max(b)` is `f64::max`). A bound on
/// any other trait (the user's `trait Combine { fn max(..) }`) may give a method call another meaning on the host.
const TRANSPARENT_BOUNDS: &[&str] = &[
    "Copy",
    "Clone",
    "Send",
    "Sync",
    "Sized",
    "Default",
    "Debug",
    "Display",
    "PartialEq",
    "PartialOrd",
    "Add",
    "Sub",
    "Mul",
    "Div",
    "Rem",
    "Neg",
    "AddAssign",
    "SubAssign",
    "MulAssign",
    "DivAssign",
    "RemAssign",
    "Sum",
    "Product",
    "Float",
    "Real",
    "FloatCore",
    "Num",
    "NumCast",
    "Zero",
    "One",
    "Signed",
    "FloatConst",
    "FromPrimitive",
    "ToPrimitive",
    "NumOps",
    "NumAssign",
    "NumAssignOps",
    "DeviceScalar",
    "Pod",
    "Zeroable",
    "Into",
    "From",
];

/// Refusals for a generic region whose type parameters carry bounds outside [`TRANSPARENT_BOUNDS`] (`generics`: the
/// function's and, for a method of a `#[omp::directives]` impl, the impl's).
pub(crate) fn unknown_bounds(plan: &KernelPlan, generics: &[&syn::Generics]) -> Vec<crate::plan::manifest::Refusal> {
    let mut out = Vec::new();
    // Operators on a float cannot be the user's (no impl of `Add` for `f64` but std's): only method calls can.
    struct Methods(bool);
    impl<'ast> syn::visit::Visit<'ast> for Methods {
        fn visit_expr_method_call(&mut self, m: &'ast syn::ExprMethodCall) {
            self.0 |= !matches!(m.method.to_string().as_str(), "len" | "is_empty");
            syn::visit::visit_expr_method_call(self, m);
        }
    }
    let mut methods = Methods(false);
    syn::visit::Visit::visit_block(&mut methods, &plan.nest.body);
    if plan.generics.is_empty() || !methods.0 {
        return out;
    }
    for g in generics {
        let mut bounds: Vec<(String, &syn::TypeParamBound)> = Vec::new();
        for p in g.type_params() {
            bounds.extend(p.bounds.iter().map(|b| (p.ident.to_string(), b)));
        }
        if let Some(w) = &g.where_clause {
            for pred in &w.predicates {
                if let syn::WherePredicate::Type(t) = pred {
                    let ty = quote::ToTokens::to_token_stream(&t.bounded_ty).to_string();
                    bounds.extend(t.bounds.iter().map(|b| (ty.clone(), b)));
                }
            }
        }
        for (param, bound) in bounds {
            if !plan.generics.contains(&param) {
                continue;
            }
            let syn::TypeParamBound::Trait(t) = bound else { continue };
            let Some(last) = t.path.segments.last() else { continue };
            let name = last.ident.to_string();
            if TRANSPARENT_BOUNDS.contains(&name.as_str()) {
                continue;
            }
            let message = format!(
                "this generic target region is compiled for `{param}` = f32 and f64 in a device crate where the trait \
                 `{name}` does not exist, so a method it calls on a `{param}` could mean the float's own method there \
                 and `{name}`'s here: bound `{param}` by std or num-traits traits only (`num_traits::Float`), or make \
                 the function non-generic"
            );
            if !out.iter().any(|r: &crate::plan::manifest::Refusal| r.message == message) {
                out.push(crate::plan::manifest::Refusal { kernel: plan.name.clone(), name: None, message });
            }
        }
    }
    out
}

/// The build's kernels of one plan: the plan itself, or one copy per instance of its generic parameters (none when
/// its body may not compile for them: [`host_only_reason`]).
pub(crate) fn instantiate(plan: KernelPlan) -> Vec<KernelPlan> {
    if plan.generics.is_empty() {
        return vec![plan];
    }
    if host_only_reason(&plan).is_some() {
        return Vec::new();
    }
    instances(&plan.generics)
        .into_iter()
        .map(|instance| {
            let mut k = plan.clone();
            k.name = instance_name(&plan.name, &instance);
            // Scalars of a parameter's type are that instance's type (the manifest's slot kinds say `float32`).
            for a in &mut k.args {
                if let crate::plan::kernel::KernelArg::Scalar { ty, .. } = a {
                    if let Some((_, t)) = instance.iter().find(|(p, _)| p == ty) {
                        *ty = t.clone();
                    }
                }
            }
            k.instance = instance;
            k
        })
        .collect()
}

/// Wraps an instance's kernel in its own module, where each generic parameter names its type.
pub(crate) fn in_instance_module(plan: &KernelPlan, kernel: TokenStream) -> TokenStream {
    if plan.instance.is_empty() {
        return kernel;
    }
    let module = format_ident!("__omp_instance_{}", plan.name);
    let aliases = plan.instance.iter().map(|(p, t)| {
        let (p, t) = (format_ident!("{}", p), format_ident!("{}", t));
        quote!(type #p = #t;)
    });
    quote! {
        #[allow(non_snake_case, non_camel_case_types, unused_imports)]
        mod #module {
            use super::*;
            #(#aliases)*
            #kernel
        }
    }
}

/// The `where` predicates a function's target regions need for its generic parameters.
pub(crate) fn bounds(plans: &[KernelPlan]) -> Vec<syn::WherePredicate> {
    let mut out: Vec<syn::WherePredicate> = Vec::new();
    let mut push = |p: syn::WherePredicate| {
        if !out.iter().any(|q| quote!(#q).to_string() == quote!(#p).to_string()) {
            out.push(p);
        }
    };
    for plan in plans {
        for g in &plan.generics {
            let g = format_ident!("{}", g);
            push(syn::parse_quote!(#g: ::omp::DeviceScalar));
        }
        for r in plan.reductions.iter().filter(|r| plan.generics.contains(&r.ty)) {
            let (t, op) = (format_ident!("{}", r.ty), r.op.reducer(quote!(::omp::__private::reduce)));
            push(syn::parse_quote!(#op: ::omp::__private::reduce::Reducer<#t>));
        }
    }
    out
}

/// Adds [`bounds`] to a function's `where` clause.
pub(crate) fn add_bounds(f: &mut syn::ItemFn, plans: &[KernelPlan]) {
    let preds = bounds(plans);
    if preds.is_empty() {
        return;
    }
    f.sig.generics.make_where_clause().predicates.extend(preds);
}

#[cfg(test)]
mod test {
    use super::*;

    #[test]
    fn instances_are_the_product() {
        let two = instances(&["T".into(), "U".into()]);
        assert_eq!(two.len(), 4);
        assert_eq!(instance_name("k", &two[1]), "k_f32_f64");
        assert_eq!(instances(&[]), vec![Vec::<(String, String)>::new()]);
    }
}
