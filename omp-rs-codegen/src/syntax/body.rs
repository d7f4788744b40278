//! Statement directives that live inside a loop body: `#[omp::atomic]` and `#[omp::critical]`.
//! They are recognised by path (`omp::atomic`), parsed into typed forms here, and lowered by the host and
//! device lowerings.

use proc_macro2::TokenStream;
use syn::{Attribute, BinOp, Expr, Ident, Meta, Pat, Stmt};

use crate::ctxt::Ctxt;
use crate::model::{AtomicKind, ClauseValue, ConstructKind, Directive};
use crate::syntax::parse;

/// `#[omp::name(args)]` found on a statement or item.
#[derive(Debug, Clone)]
pub struct OmpAttr {
    /// The directive name (`atomic`, `target_data`, ...).
    pub name: Ident,
    /// Tokens inside the parentheses (empty when there are none).
    pub args: TokenStream,
    /// Index of the attribute in its list.
    pub index: usize,
}

/// A method as a free function (same attributes, signature and body): how the walks see an `impl`'s methods.
pub fn method_as_fn(m: &syn::ImplItemFn) -> syn::ItemFn {
    syn::ItemFn { attrs: m.attrs.clone(), vis: m.vis.clone(), sig: m.sig.clone(), block: Box::new(m.block.clone()) }
}

/// Finds the first `#[omp::…]` attribute (also `#[::omp::…]`).
pub fn find_omp_attr(attrs: &[Attribute]) -> Option<OmpAttr> {
    attrs.iter().enumerate().find_map(|(index, a)| {
        let path = a.path();
        let segs: Vec<&syn::PathSegment> = path.segments.iter().collect();
        if segs.len() != 2 || segs[0].ident != "omp" {
            return None;
        }
        let args = match &a.meta {
            Meta::Path(_) => TokenStream::new(),
            Meta::List(l) => l.tokens.clone(),
            Meta::NameValue(nv) => quote::quote!(= #nv),
        };
        Some(OmpAttr { name: segs[1].ident.clone(), args, index })
    })
}

/// The macro a statement invokes (`m!(...);`), if it is one.
pub fn statement_macro(stmt: &Stmt) -> Option<&syn::Macro> {
    match stmt {
        Stmt::Macro(m) => Some(&m.mac),
        Stmt::Expr(syn::Expr::Macro(m), _) => Some(&m.mac),
        _ => None,
    }
}

/// Whether a macro call is omp's `name!` (`omp::name!(..)` or, imported, `name!(..)`): the marker macros the
/// directives replace (`barrier`, `scan`).
pub fn omp_macro(m: &syn::Macro, name: &str) -> bool {
    let segs: Vec<String> = m.path.segments.iter().map(|s| s.ident.to_string()).collect();
    segs == ["omp", name] || segs == [name]
}

/// The attributes of a statement, wherever syn keeps them. For an expression statement, an outer attribute
/// written before it ends up on its leftmost operand (`#[a] x[i] += 1;` puts it on `x[i]`, as rustc does), so
/// the leftmost chain is searched.
pub fn stmt_attrs(stmt: &Stmt) -> &[Attribute] {
    match stmt {
        Stmt::Local(l) => &l.attrs,
        Stmt::Macro(m) => &m.attrs,
        Stmt::Expr(e, _) => leftmost_with_attrs(e),
        Stmt::Item(_) => &[],
    }
}

fn leftmost_with_attrs(e: &Expr) -> &[Attribute] {
    let own = expr_attrs(e);
    if !own.is_empty() {
        return own;
    }
    match leftmost_operand(e) {
        Some(inner) => leftmost_with_attrs(inner),
        None => own,
    }
}

fn leftmost_operand(e: &Expr) -> Option<&Expr> {
    Some(match e {
        Expr::Assign(x) => &x.left,
        Expr::Binary(x) => &x.left,
        Expr::Index(x) => &x.expr,
        Expr::Field(x) => &x.base,
        Expr::MethodCall(x) => &x.receiver,
        Expr::Cast(x) => &x.expr,
        Expr::Call(x) => &x.func,
        Expr::Try(x) => &x.expr,
        Expr::Await(x) => &x.base,
        Expr::Range(x) => x.start.as_deref()?,
        _ => return None,
    })
}

fn leftmost_operand_mut(e: &mut Expr) -> Option<&mut Expr> {
    Some(match e {
        Expr::Assign(x) => &mut x.left,
        Expr::Binary(x) => &mut x.left,
        Expr::Index(x) => &mut x.expr,
        Expr::Field(x) => &mut x.base,
        Expr::MethodCall(x) => &mut x.receiver,
        Expr::Cast(x) => &mut x.expr,
        Expr::Call(x) => &mut x.func,
        Expr::Try(x) => &mut x.expr,
        Expr::Await(x) => &mut x.base,
        Expr::Range(x) => x.start.as_deref_mut()?,
        _ => return None,
    })
}

/// Removes the statement's first `#[omp::…]` attribute (wherever [`stmt_attrs`] found it).
pub fn remove_omp_attr(stmt: &mut Stmt) {
    fn from_expr(e: &mut Expr) -> bool {
        if let Some(attrs) = expr_attrs_mut(e) {
            if let Some(a) = find_omp_attr(attrs) {
                attrs.remove(a.index);
                return true;
            }
        }
        match leftmost_operand_mut(e) {
            Some(inner) => from_expr(inner),
            None => false,
        }
    }
    let attrs = match stmt {
        Stmt::Local(l) => &mut l.attrs,
        Stmt::Macro(m) => &mut m.attrs,
        Stmt::Expr(e, _) => {
            from_expr(e);
            return;
        }
        Stmt::Item(_) => return,
    };
    if let Some(a) = find_omp_attr(attrs) {
        attrs.remove(a.index);
    }
}

/// The outer attributes of an expression (empty for kinds that cannot carry any).
pub fn expr_attrs(e: &Expr) -> &[Attribute] {
    match e {
        Expr::Array(x) => &x.attrs,
        Expr::Assign(x) => &x.attrs,
        Expr::Async(x) => &x.attrs,
        Expr::Await(x) => &x.attrs,
        Expr::Binary(x) => &x.attrs,
        Expr::Block(x) => &x.attrs,
        Expr::Break(x) => &x.attrs,
        Expr::Call(x) => &x.attrs,
        Expr::Cast(x) => &x.attrs,
        Expr::Closure(x) => &x.attrs,
        Expr::Const(x) => &x.attrs,
        Expr::Continue(x) => &x.attrs,
        Expr::Field(x) => &x.attrs,
        Expr::ForLoop(x) => &x.attrs,
        Expr::Group(x) => &x.attrs,
        Expr::If(x) => &x.attrs,
        Expr::Index(x) => &x.attrs,
        Expr::Let(x) => &x.attrs,
        Expr::Lit(x) => &x.attrs,
        Expr::Loop(x) => &x.attrs,
        Expr::Macro(x) => &x.attrs,
        Expr::Match(x) => &x.attrs,
        Expr::MethodCall(x) => &x.attrs,
        Expr::Paren(x) => &x.attrs,
        Expr::Path(x) => &x.attrs,
        Expr::Range(x) => &x.attrs,
        Expr::Reference(x) => &x.attrs,
        Expr::Repeat(x) => &x.attrs,
        Expr::Return(x) => &x.attrs,
        Expr::Struct(x) => &x.attrs,
        Expr::Try(x) => &x.attrs,
        Expr::TryBlock(x) => &x.attrs,
        Expr::Tuple(x) => &x.attrs,
        Expr::Unary(x) => &x.attrs,
        Expr::Unsafe(x) => &x.attrs,
        Expr::While(x) => &x.attrs,
        Expr::Yield(x) => &x.attrs,
        _ => &[],
    }
}

/// Mutable access to the outer attributes of an expression.
pub fn expr_attrs_mut(e: &mut Expr) -> Option<&mut Vec<Attribute>> {
    Some(match e {
        Expr::Array(x) => &mut x.attrs,
        Expr::Assign(x) => &mut x.attrs,
        Expr::Async(x) => &mut x.attrs,
        Expr::Await(x) => &mut x.attrs,
        Expr::Binary(x) => &mut x.attrs,
        Expr::Block(x) => &mut x.attrs,
        Expr::Break(x) => &mut x.attrs,
        Expr::Call(x) => &mut x.attrs,
        Expr::Cast(x) => &mut x.attrs,
        Expr::Closure(x) => &mut x.attrs,
        Expr::Const(x) => &mut x.attrs,
        Expr::Continue(x) => &mut x.attrs,
        Expr::Field(x) => &mut x.attrs,
        Expr::ForLoop(x) => &mut x.attrs,
        Expr::Group(x) => &mut x.attrs,
        Expr::If(x) => &mut x.attrs,
        Expr::Index(x) => &mut x.attrs,
        Expr::Let(x) => &mut x.attrs,
        Expr::Lit(x) => &mut x.attrs,
        Expr::Loop(x) => &mut x.attrs,
        Expr::Macro(x) => &mut x.attrs,
        Expr::Match(x) => &mut x.attrs,
        Expr::MethodCall(x) => &mut x.attrs,
        Expr::Paren(x) => &mut x.attrs,
        Expr::Path(x) => &mut x.attrs,
        Expr::Range(x) => &mut x.attrs,
        Expr::Reference(x) => &mut x.attrs,
        Expr::Repeat(x) => &mut x.attrs,
        Expr::Return(x) => &mut x.attrs,
        Expr::Struct(x) => &mut x.attrs,
        Expr::Try(x) => &mut x.attrs,
        Expr::TryBlock(x) => &mut x.attrs,
        Expr::Tuple(x) => &mut x.attrs,
        Expr::Unary(x) => &mut x.attrs,
        Expr::Unsafe(x) => &mut x.attrs,
        Expr::While(x) => &mut x.attrs,
        Expr::Yield(x) => &mut x.attrs,
        _ => return None,
    })
}

/// The operator of an atomic update.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AtomicOp {
    /// `+=`
    Add,
    /// `-=`
    Sub,
    /// `*=`
    Mul,
    /// `/=`
    Div,
    /// `&=`
    BitAnd,
    /// `|=`
    BitOr,
    /// `^=`
    BitXor,
    /// `x = x.min(e)`
    Min,
    /// `x = x.max(e)`
    Max,
    /// `if x < e { x = e; }` (`atomic compare`; exactly that comparison, NaN included)
    IfLess,
    /// `if x > e { x = e; }`
    IfGreater,
}

impl AtomicOp {
    /// Name of the operation's marker type in `omp::__private::atomic` / `omp_device::atomic` (`Add`, ...).
    pub fn type_name(self) -> &'static str {
        match self {
            AtomicOp::Add => "Add",
            AtomicOp::Sub => "Sub",
            AtomicOp::Mul => "Mul",
            AtomicOp::Div => "Div",
            AtomicOp::BitAnd => "BitAnd",
            AtomicOp::BitOr => "BitOr",
            AtomicOp::BitXor => "BitXor",
            AtomicOp::Min => "Min",
            AtomicOp::Max => "Max",
            AtomicOp::IfLess => "IfLess",
            AtomicOp::IfGreater => "IfGreater",
        }
    }

    fn from_compound(op: &BinOp) -> Option<AtomicOp> {
        Some(match op {
            BinOp::AddAssign(_) => AtomicOp::Add,
            BinOp::SubAssign(_) => AtomicOp::Sub,
            BinOp::MulAssign(_) => AtomicOp::Mul,
            BinOp::DivAssign(_) => AtomicOp::Div,
            BinOp::BitAndAssign(_) => AtomicOp::BitAnd,
            BinOp::BitOrAssign(_) => AtomicOp::BitOr,
            BinOp::BitXorAssign(_) => AtomicOp::BitXor,
            _ => return None,
        })
    }

    fn from_binary(op: &BinOp) -> Option<(AtomicOp, bool)> {
        // (op, commutative)
        Some(match op {
            BinOp::Add(_) => (AtomicOp::Add, true),
            BinOp::Sub(_) => (AtomicOp::Sub, false),
            BinOp::Mul(_) => (AtomicOp::Mul, true),
            BinOp::Div(_) => (AtomicOp::Div, false),
            BinOp::BitAnd(_) => (AtomicOp::BitAnd, true),
            BinOp::BitOr(_) => (AtomicOp::BitOr, true),
            BinOp::BitXor(_) => (AtomicOp::BitXor, true),
            _ => return None,
        })
    }
}

/// A parsed `#[omp::atomic]` statement.
#[derive(Debug, Clone)]
pub struct AtomicStmt {
    /// read / write / update / capture.
    pub kind: AtomicKind,
    /// The shared location: `x` or `x[i]`.
    pub target: Expr,
    /// The update operator (update, capture).
    pub op: Option<AtomicOp>,
    /// The operand (update, write, capture).
    pub value: Option<Expr>,
    /// Where a read/capture stores its result: `v` of `v = x` / `let v = ...`.
    pub capture_into: Option<Expr>,
    /// The pattern of `let v = ...` (read/capture into a new local).
    pub let_pat: Option<Pat>,
    /// Whether the statement declares `v` with `let`.
    pub declares_local: bool,
    /// Capture: `v` gets the value before the update (`{ v = x; x += e; }`) rather than after it.
    pub capture_old: bool,
}

/// A parsed `#[omp::critical]` block.
#[derive(Debug, Clone)]
pub struct CriticalBlock {
    /// `critical(name)`.
    pub name: Option<String>,
    /// The block.
    pub block: syn::Block,
}

/// A loop directive on a `for` loop inside a parallel loop's body (`#[omp::parallel_for(reduction(+: s))]` over a
/// row's columns inside `#[omp::target_teams_distribute]` over the rows).
///
/// Its loop runs sequentially on the thread that runs the enclosing iteration: OpenMP's nested parallel region
/// when nesting is inactive (a team of one thread, libgomp's and libomp's default on the host). Its reduction
/// variables accumulate in place, in iteration order, which equals the sequential loop; `num_threads`, `schedule`,
/// `simd` and the like change nothing then. The enclosing loop's analysis treats it as any sequential loop of its
/// body (writes owned per enclosing iteration, reads anywhere).
#[derive(Debug, Clone)]
pub struct NestedLoop {
    /// The loop, its directive removed.
    pub stmt: Stmt,
    /// The clauses' expressions (`num_threads`, `if`), evaluated where the loop starts, as OpenMP evaluates them
    /// when the region is encountered.
    pub clause_exprs: Vec<Expr>,
}

impl NestedLoop {
    /// The statement that replaces the directive's: its clauses' expressions, then the loop.
    pub fn lowered(&self) -> Stmt {
        let (exprs, stmt) = (&self.clause_exprs, &self.stmt);
        if exprs.is_empty() {
            return stmt.clone();
        }
        syn::parse_quote!({ #(let _ = #exprs;)* #stmt })
    }
}

/// A statement directive inside a loop body.
#[derive(Debug, Clone)]
pub enum BodyDirective {
    /// `#[omp::atomic]`
    Atomic(AtomicStmt),
    /// `#[omp::critical]`
    Critical(CriticalBlock),
    /// A loop directive without `target`, `teams` or `distribute`.
    NestedLoop(NestedLoop),
}

/// Parses the omp directive on a statement of a loop body, if it carries one.
pub fn statement_directive(stmt: &Stmt) -> syn::Result<Option<BodyDirective>> {
    let Some(attr) = find_omp_attr(stmt_attrs(stmt)) else { return Ok(None) };
    let cx = Ctxt::new();
    let Some(construct) = parse::construct(&attr.name, &cx) else {
        cx.check()?;
        return Ok(None);
    };
    let directive = parse::directive(construct, attr.args.clone(), &cx);
    cx.check()?;
    match directive.construct.kind {
        ConstructKind::Atomic => Ok(Some(BodyDirective::Atomic(atomic(stmt, &directive)?))),
        ConstructKind::Critical => match stmt {
            Stmt::Expr(Expr::Block(b), _) if b.label.is_none() => Ok(Some(BodyDirective::Critical(CriticalBlock {
                // Unraw: `critical(r#type)` names the lock `type` (the same identifier); the name is spliced into
                // generated identifiers (`__omp_cs_<name>`), where `r#` would make `Ident::new` panic.
                name: directive.critical_name.as_ref().map(|n| syn::ext::IdentExt::unraw(n).to_string()),
                block: b.block.clone(),
            }))),
            _ => Err(syn::Error::new(attr.name.span(), "`#[omp::critical]` goes on a block: `#[omp::critical] { ... }`")),
        },
        ConstructKind::Executable(leaves) if nestable(leaves) => {
            nested_loop(stmt, &attr, &directive).map(|l| Some(BodyDirective::NestedLoop(l)))
        }
        // A `parallel` region inside a parallel loop's iteration (logprob's `#pragma omp parallel reduction(max: m)`
        // over a `for`): nested, so inactive, a team of one thread that runs the statement once, as the loop
        // directives above run their loops.
        ConstructKind::Executable(leaves) if leaves == crate::model::Leaves::PARALLEL => {
            nested_parallel(stmt, &attr, &directive).map(|l| Some(BodyDirective::NestedLoop(l)))
        }
        _ => Err(syn::Error::new(
            attr.name.span(),
            format!(
                "`{}` cannot be nested inside a parallel loop; its body may hold `atomic`, `critical`, `parallel` and \
                 loop directives without `target`, `teams` or `distribute` (`parallel_for`, `parallel_for_simd`, \
                 `simd`), which run their statement in the enclosing iteration",
                directive.construct.name
            ),
        )),
    }
}

/// Whether the directive `name` (`parallel_for`) may be written on a loop inside a parallel loop's body.
pub fn nests_in_a_parallel_loop(name: &str) -> bool {
    matches!(crate::syntax::keyword::construct(name), Some(ConstructKind::Executable(leaves)) if nestable(leaves))
}

/// Loop constructs a parallel loop's body may hold: `parallel_for`, `parallel_for_simd`, `parallel_loop`, `simd`
/// (`target` and `teams` cannot be nested in a parallel region, `distribute` binds to a `teams` region).
fn nestable(leaves: crate::model::Leaves) -> bool {
    use crate::model::Leaves;
    (leaves.contains(Leaves::FOR) || leaves.contains(Leaves::SIMD) || leaves.contains(Leaves::LOOP))
        && !leaves.contains(Leaves::TARGET)
        && !leaves.contains(Leaves::TEAMS)
        && !leaves.contains(Leaves::DISTRIBUTE)
}

fn nested_loop(stmt: &Stmt, attr: &OmpAttr, d: &Directive) -> syn::Result<NestedLoop> {
    let name = d.construct.name;
    if !matches!(stmt, Stmt::Expr(Expr::ForLoop(_), _)) {
        return Err(syn::Error::new(attr.name.span(), format!("`#[omp::{name}]` goes on a `for` loop")));
    }
    nested(stmt, d)
}

/// The statement of a directive nested in a parallel loop's body, run by the enclosing iteration's thread.
fn nested(stmt: &Stmt, d: &Directive) -> syn::Result<NestedLoop> {
    let name = d.construct.name;
    for c in &d.clauses {
        if let ClauseValue::Private(v) | ClauseValue::Firstprivate(v) = &c.value {
            let vars = v.iter().map(|v| format!("`{v}`")).collect::<Vec<_>>().join(", ");
            return Err(syn::Error::new(
                c.span,
                format!(
                    "a `{name}` inside a parallel loop runs its statement on the enclosing iteration's thread, so its \
                     private copies would be one per enclosing iteration: declare {vars} inside the loop's body \
                     (`let mut t = ..;`, a copy per iteration) or before the loop (`let mut t = t;`, one copy)"
                ),
            ));
        }
    }
    let mut stmt = stmt.clone();
    remove_omp_attr(&mut stmt);
    let clause_exprs = d.settings.num_threads.iter().chain(&d.settings.if_cond).cloned().collect();
    Ok(NestedLoop { stmt, clause_exprs })
}

/// `#[omp::parallel]` on a statement (a `for` loop or a block) of a parallel loop's body: the nested region's one
/// thread runs it, so it is a [`NestedLoop`] with the same clause rules. What would tell a team of one from the
/// enclosing thread (`omp::get_thread_num()`, `omp::get_num_threads()`, `omp::barrier!()`) is refused.
fn nested_parallel(stmt: &Stmt, attr: &OmpAttr, d: &Directive) -> syn::Result<NestedLoop> {
    if !matches!(stmt, Stmt::Expr(Expr::ForLoop(_) | Expr::Block(_), _)) {
        return Err(syn::Error::new(attr.name.span(), "`#[omp::parallel]` inside a parallel loop goes on a `for` loop or a block"));
    }
    let team_words = ["get_thread_num", "get_num_threads", "barrier"];
    if let Some(w) =
        crate::syntax::tokens::ident_tokens(quote::ToTokens::to_token_stream(stmt)).into_iter().find(|i| team_words.iter().any(|w| i == w))
    {
        return Err(syn::Error::new(
            w.span(),
            format!(
                "`{w}` inside a `parallel` nested in a parallel loop: the nested region is inactive (a team of one \
                 thread, as OpenMP runs nested regions by default), so it would answer for that team; write the \
                 enclosing iteration's code without it, or make the region an SPMD `target_teams` + `parallel`"
            ),
        ));
    }
    nested(stmt, d)
}

fn atomic(stmt: &Stmt, d: &Directive) -> syn::Result<AtomicStmt> {
    let kind = d.settings.atomic;
    let form_help = match kind {
        AtomicKind::Update => "`x op= e;` (op one of + - * / & | ^), `x = x op e;`, `x = x.max(e);` or `x = x.min(e);`",
        AtomicKind::Read => "`let v = x;` or `v = x;`",
        AtomicKind::Write => "`x = e;`",
        AtomicKind::Capture => {
            "`let v = (x op= e);` or `{ x op= e; v = x; }` (v gets the new value), or `{ v = x; x op= e; }` (the old one)"
        }
        AtomicKind::Compare => "`if x < e { x = e; }` or `if x > e { x = e; }` (`e < x` and `e > x` too), no `else`",
    };
    let bad = |span: &dyn quote::ToTokens| {
        syn::Error::new_spanned(span, format!("this `#[omp::atomic]` statement must have the form {form_help}"))
    };
    // `#[omp::atomic] x = x.max(e);` puts the attribute on the first `x`: without it both spell the same place.
    let mut stmt = stmt.clone();
    remove_omp_attr(&mut stmt);
    if kind == AtomicKind::Compare {
        return compare_form(&stmt).ok_or_else(|| bad(&stmt));
    }
    // OpenMP's structured capture: `{ v = x; x op= e; }` (the old value) or `{ x op= e; v = x; }` (the new one).
    if let (AtomicKind::Capture, Stmt::Expr(Expr::Block(b), _)) = (kind, &stmt) {
        return structured_capture(&b.block).ok_or_else(|| bad(&b.block));
    }
    // Normalise `let v = e;` and `v = e;` into (destination, value expression).
    let (dest, let_pat, expr): (Option<Expr>, Option<Pat>, &Expr) = match &stmt {
        Stmt::Local(l) => {
            let init = l.init.as_ref().ok_or_else(|| bad(&l.pat))?;
            let name = match &l.pat {
                Pat::Ident(p) => p.ident.clone(),
                Pat::Type(t) => match &*t.pat {
                    Pat::Ident(p) => p.ident.clone(),
                    _ => return Err(bad(&l.pat)),
                },
                _ => return Err(bad(&l.pat)),
            };
            (Some(syn::parse_quote!(#name)), Some(l.pat.clone()), &init.expr)
        }
        Stmt::Expr(e, _) => (None, None, e),
        other => return Err(bad(other)),
    };
    let declares_local = let_pat.is_some();
    let strip = |e: &Expr| -> Expr {
        match e {
            Expr::Paren(p) => (*p.expr).clone(),
            other => other.clone(),
        }
    };
    match kind {
        AtomicKind::Read => {
            let (into, source) = match (dest, expr) {
                (Some(d), src) => (d, strip(src)),
                (None, Expr::Assign(a)) => ((*a.left).clone(), strip(&a.right)),
                (None, other) => return Err(bad(other)),
            };
            if crate::syntax::place::place_root(&source).is_none() {
                return Err(bad(&source));
            }
            Ok(AtomicStmt {
                kind,
                target: source,
                op: None,
                value: None,
                capture_into: Some(into),
                let_pat,
                declares_local,
                capture_old: false,
            })
        }
        AtomicKind::Write => match (dest, expr) {
            (None, Expr::Assign(a)) => Ok(AtomicStmt {
                kind,
                target: (*a.left).clone(),
                op: None,
                value: Some((*a.right).clone()),
                capture_into: None,
                let_pat,
                declares_local,
                capture_old: false,
            }),
            (_, other) => Err(bad(other)),
        },
        // `Compare` returned its own statement above.
        AtomicKind::Update | AtomicKind::Capture | AtomicKind::Compare => {
            let (into, update) = match kind {
                AtomicKind::Capture => match (dest, expr) {
                    (Some(d), e) => (Some(d), strip(e)),
                    (None, Expr::Assign(a)) => (Some((*a.left).clone()), strip(&a.right)),
                    (None, other) => return Err(bad(other)),
                },
                _ => {
                    if dest.is_some() {
                        return Err(bad(expr));
                    }
                    (None, expr.clone())
                }
            };
            let (target, op, value) = update_form(&update).ok_or_else(|| bad(&update))?;
            Ok(AtomicStmt {
                kind,
                target,
                op: Some(op),
                value: Some(value),
                capture_into: into,
                let_pat,
                declares_local,
                capture_old: false,
            })
        }
    }
}

/// Whether two expressions are written alike (one place of an atomic statement: `x[k]` and `x[k]`).
fn same_place(a: &Expr, b: &Expr) -> bool {
    quote::quote!(#a).to_string() == quote::quote!(#b).to_string()
}

/// `{ v = x; x op= e; }` or `{ x op= e; v = x; }`: two statements on one place `x`, `v` a variable declared before.
fn structured_capture(block: &syn::Block) -> Option<AtomicStmt> {
    let [Stmt::Expr(first, Some(_)), Stmt::Expr(second, _)] = block.stmts.as_slice() else { return None };
    let read = |e: &Expr| match e {
        Expr::Assign(a) if crate::syntax::place::place_root(&a.right).is_some() && matches!(&*a.left, Expr::Path(_)) => {
            Some(((*a.left).clone(), (*a.right).clone()))
        }
        _ => None,
    };
    let (old, (into, source), update) = match (read(first), read(second)) {
        (Some(r), _) if update_form(second).is_some() => (true, r, second),
        (_, Some(r)) if update_form(first).is_some() => (false, r, first),
        _ => return None,
    };
    let (target, op, value) = update_form(update)?;
    if !same_place(&target, &source) || same_place(&into, &target) {
        return None;
    }
    Some(AtomicStmt {
        kind: AtomicKind::Capture,
        target,
        op: Some(op),
        value: Some(value),
        capture_into: Some(into),
        let_pat: None,
        declares_local: false,
        capture_old: old,
    })
}

/// `atomic compare`'s min / max forms: `if x < e { x = e; }` (and `if e > x`), an update that stores `e` where the
/// comparison holds, or `if x > e { x = e; }` (and `if e < x`). The comparison is kept as written (a NaN compares
/// false), so the update is no `max`.
fn compare_form(stmt: &Stmt) -> Option<AtomicStmt> {
    let Stmt::Expr(Expr::If(i), _) = stmt else { return None };
    if i.else_branch.is_some() {
        return None;
    }
    let [Stmt::Expr(Expr::Assign(a), _)] = i.then_branch.stmts.as_slice() else { return None };
    let Expr::Binary(c) = &*i.cond else { return None };
    let (x, e) = (&*a.left, &*a.right);
    let op = match &c.op {
        BinOp::Lt(_) if same_place(&c.left, x) && same_place(&c.right, e) => AtomicOp::IfLess,
        BinOp::Gt(_) if same_place(&c.right, x) && same_place(&c.left, e) => AtomicOp::IfLess,
        BinOp::Gt(_) if same_place(&c.left, x) && same_place(&c.right, e) => AtomicOp::IfGreater,
        BinOp::Lt(_) if same_place(&c.right, x) && same_place(&c.left, e) => AtomicOp::IfGreater,
        _ => return None,
    };
    crate::syntax::place::place_root(x)?;
    Some(AtomicStmt {
        kind: AtomicKind::Update,
        target: x.clone(),
        op: Some(op),
        value: Some(e.clone()),
        capture_into: None,
        let_pat: None,
        declares_local: false,
        capture_old: false,
    })
}

/// `x op= e`, `x = x op e`, `x = e op x` (commutative op), `x = x.max(e)` / `x = x.min(e)`.
fn update_form(e: &Expr) -> Option<(Expr, AtomicOp, Expr)> {
    match e {
        Expr::Binary(b) => {
            let op = AtomicOp::from_compound(&b.op)?;
            Some(((*b.left).clone(), op, (*b.right).clone()))
        }
        Expr::Assign(a) => {
            let x = &*a.left;
            match &*a.right {
                Expr::Binary(b) => {
                    let (op, commutative) = AtomicOp::from_binary(&b.op)?;
                    if same_place(&b.left, x) {
                        Some((x.clone(), op, (*b.right).clone()))
                    } else if commutative && same_place(&b.right, x) {
                        Some((x.clone(), op, (*b.left).clone()))
                    } else {
                        None
                    }
                }
                Expr::MethodCall(m) if m.args.len() == 1 && same_place(&m.receiver, x) => {
                    let op = match m.method.to_string().as_str() {
                        "max" => AtomicOp::Max,
                        "min" => AtomicOp::Min,
                        _ => return None,
                    };
                    Some((x.clone(), op, m.args[0].clone()))
                }
                _ => None,
            }
        }
        _ => None,
    }
}

/// The exits of a statement that leave it: `return`, `?`, and `break`/`continue` not inside a loop of the
/// statement, or naming one of `labels` (the enclosing loops they would leave). Each with its span and keyword.
pub(crate) struct Exits<'a> {
    labels: &'a [String],
    depth: usize,
    pub(crate) found: Vec<(proc_macro2::Span, &'static str)>,
}

impl<'a> Exits<'a> {
    pub(crate) fn new(labels: &'a [String]) -> Self {
        Exits { labels, depth: 0, found: Vec::new() }
    }

    fn leaves(&self, label: Option<&syn::Lifetime>) -> bool {
        match label {
            Some(l) => self.labels.contains(&l.ident.to_string()) || self.depth == 0,
            None => self.depth == 0,
        }
    }
}

impl<'ast> syn::visit::Visit<'ast> for Exits<'_> {
    fn visit_expr_return(&mut self, r: &'ast syn::ExprReturn) {
        self.found.push((syn::spanned::Spanned::span(r), "return"));
    }
    fn visit_expr_try(&mut self, t: &'ast syn::ExprTry) {
        self.found.push((syn::spanned::Spanned::span(&t.question_token), "?"));
        syn::visit::visit_expr_try(self, t);
    }
    fn visit_expr_break(&mut self, b: &'ast syn::ExprBreak) {
        if self.leaves(b.label.as_ref()) {
            self.found.push((syn::spanned::Spanned::span(b), "break"));
        }
        syn::visit::visit_expr_break(self, b);
    }
    fn visit_expr_continue(&mut self, c: &'ast syn::ExprContinue) {
        if self.leaves(c.label.as_ref()) {
            self.found.push((syn::spanned::Spanned::span(c), "continue"));
        }
    }
    fn visit_expr_for_loop(&mut self, f: &'ast syn::ExprForLoop) {
        self.visit_expr(&f.expr);
        self.depth += 1;
        self.visit_block(&f.body);
        self.depth -= 1;
    }
    fn visit_expr_while(&mut self, w: &'ast syn::ExprWhile) {
        self.visit_expr(&w.cond);
        self.depth += 1;
        self.visit_block(&w.body);
        self.depth -= 1;
    }
    fn visit_expr_loop(&mut self, l: &'ast syn::ExprLoop) {
        self.depth += 1;
        self.visit_block(&l.body);
        self.depth -= 1;
    }
    fn visit_expr_closure(&mut self, _: &'ast syn::ExprClosure) {}
    fn visit_item(&mut self, _: &'ast syn::Item) {}
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Loop directives without `target`, `teams` or `distribute` nest in a loop body (their directive dropped from
    /// the loop they keep); the others, and private copies, are refused at the directive.
    #[test]
    fn nested_loop_directives() {
        let stmt: Stmt = syn::parse_quote!(
            #[omp::parallel_for(reduction(+: t), num_threads(4), schedule(static))]
            for j in 0..n {
                t += x[j];
            }
        );
        match statement_directive(&stmt) {
            Ok(Some(BodyDirective::NestedLoop(l))) => assert!(stmt_attrs(&l.stmt).is_empty(), "the directive stays: {:?}", l.stmt),
            other => panic!("expected a nested loop, got {other:?}"),
        }
        for name in ["parallel_for", "parallel_for_simd", "parallel_loop", "simd"] {
            assert!(nests_in_a_parallel_loop(name), "{name}");
        }
        for name in ["target_teams_distribute_parallel_for", "teams_distribute", "distribute_parallel_for", "target", "atomic"] {
            assert!(!nests_in_a_parallel_loop(name), "{name}");
        }
        let refused = |stmt: Stmt| statement_directive(&stmt).expect_err("refused").to_string();
        let e = refused(syn::parse_quote!(
            #[omp::teams_distribute]
            for j in 0..n {
                y[j] = 0.0;
            }
        ));
        assert!(e.contains("`teams_distribute` cannot be nested"), "{e}");
        let e = refused(syn::parse_quote!(
            #[omp::parallel_for(firstprivate(t))]
            for j in 0..n {
                y[j] = t;
            }
        ));
        assert!(e.contains("declare `t` inside the loop's body"), "{e}");
        let e = refused(syn::parse_quote!(
            #[omp::parallel_for]
            {
                y[0] = 1.0;
            }
        ));
        assert!(e.contains("goes on a `for` loop"), "{e}");
    }

    /// A raw critical name is stored without `r#` (it becomes part of generated identifiers).
    #[test]
    fn critical_name_is_unraw() {
        let stmt: Stmt = syn::parse_quote!(
            #[omp::critical(r#type)]
            {
                s += 1.0;
            }
        );
        let parsed = statement_directive(&stmt);
        assert!(
            matches!(&parsed, Ok(Some(BodyDirective::Critical(c))) if c.name.as_deref() == Some("type")),
            "expected a critical block named `type`, got {parsed:?}"
        );
    }
}
