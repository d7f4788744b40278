//! A scope-aware walk over a loop body that records every use of a variable defined outside it
//! (a *capture*), with how it is used: read, written, indexed, asked `.len()`, updated atomically,
//! touched inside `#[omp::critical]`. Locals declared inside the body are private by construction and
//! are not recorded; immutable `let`s and inner `for` loops are remembered for the index analysis.

use proc_macro2::{Span, TokenStream, TokenTree};
use quote::ToTokens;
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::visit::{self, Visit};
use syn::{BinOp, Expr, Ident, Pat, Stmt, Token};

use crate::model::{AtomicKind, ReductionOp};
use crate::syntax::body::{self, BodyDirective};
use crate::syntax::place::{is_compound_assign, place_root, Root};

/// What an induction or local variable is, for the index analysis.
#[derive(Debug, Clone)]
pub enum Binding {
    /// Induction variable of the parallel (collapsed) loop nest, by dimension.
    Parallel(usize),
    /// Induction variable of a sequential loop inside the body, with its range expression.
    InnerLoop(Expr),
    /// `let x = init;` / `let x: T = init;` (immutable, plain name): index expressions may use it through its
    /// definition; the type, when written, is the type of its arithmetic.
    Let(Expr, Option<syn::Type>),
    /// Any other local (mutable, closure parameter, pattern binding, ...).
    Opaque,
}

/// The bindings visible at a point of the body, innermost last.
#[derive(Debug, Clone, Default)]
pub struct Env {
    bindings: Vec<(String, Binding)>,
}

impl Env {
    /// The innermost binding of `name`, if the body binds it.
    pub fn lookup(&self, name: &str) -> Option<&Binding> {
        self.position(name).map(|i| &self.bindings[i].1)
    }

    /// Position of the innermost binding of `name`.
    pub fn position(&self, name: &str) -> Option<usize> {
        self.bindings.iter().rposition(|(n, _)| n == name)
    }

    /// The names that stand for parallel loop variables here (their innermost binding is one), with the dimension.
    pub fn parallel_names(&self) -> Vec<(String, usize)> {
        let mut out: Vec<(String, usize)> = Vec::new();
        for (n, _) in &self.bindings {
            if let Some(Binding::Parallel(d)) = self.lookup(n) {
                if !out.iter().any(|(m, _)| m == n) {
                    out.push((n.clone(), *d));
                }
            }
        }
        out
    }

    /// The bindings of a loop nest's induction variables alone (for index expressions that use nothing else).
    pub fn for_dims(vars: &[Option<Ident>]) -> Env {
        let bindings = vars.iter().enumerate().filter_map(|(d, v)| v.as_ref().map(|v| (v.to_string(), Binding::Parallel(d)))).collect();
        Env { bindings }
    }

    /// Adds the variable of a sequential loop over `range`, innermost.
    pub fn bind_inner_loop(&mut self, var: &Ident, range: &Expr) {
        self.bindings.push((var.to_string(), Binding::InnerLoop(range.clone())));
    }

    /// Adds a local that index analysis cannot see through, innermost.
    pub fn bind_opaque(&mut self, var: &Ident) {
        self.bindings.push((var.to_string(), Binding::Opaque));
    }

    /// The environment as it was before binding number `n` (where a `let` initialiser was evaluated).
    pub fn before(&self, n: usize) -> Env {
        Env { bindings: self.bindings[..n].to_vec() }
    }
}

/// How a capture is used at one place.
#[derive(Debug, Clone)]
pub enum Access {
    /// Read as a value (`x`, `x + 1`, `f(x)`, `&x`).
    Read,
    /// Written as a whole: `x = e`, `x op= e`, `&mut x`, `x.field = e`, `x.push(e)`. `op` is the compound operator,
    /// if any; `method` the `&mut self` method called, if that is how.
    Write { op: Option<BinOp>, rhs: Option<Expr>, method: Option<Ident> },
    /// `x[index]` read.
    IndexRead(Expr),
    /// `x[index] = e`, `x[index] op= e`, `&mut x[index]`, `x[index].f = e`, `x[index][j] = e`.
    IndexWrite(Expr),
    /// `x.len()`.
    Len,
    /// `x.method(..)` other than `len`.
    Method(Ident),
    /// Inside a macro whose arguments could not be analysed.
    InMacro,
    /// The target of an `#[omp::atomic]` statement (`index` for `x[index]`).
    Atomic { kind: AtomicKind, index: Option<Expr> },
    /// An update of a `reduction` variable in a form of its operator (`s += e`, `m = m.max(e)`, ...).
    Reduction,
}

/// One use of a capture.
#[derive(Debug, Clone)]
pub struct Use {
    /// The name as written at this place (its span points here).
    pub ident: Ident,
    /// How it is used.
    pub access: Access,
    /// Name of the enclosing `#[omp::critical]` block (`""` for an unnamed one).
    pub critical: Option<String>,
    /// Bindings visible here (for index analysis).
    pub env: Env,
    /// Whether the use is inside an index expression (`n` in `a[i * n]`).
    pub in_index: bool,
}

/// Control flow that leaves the loop body: not allowed in a parallel loop.
#[derive(Debug, Clone)]
pub struct Escape {
    /// Where.
    pub span: Span,
    /// `break`, `return`, `?`, labelled `continue`.
    pub what: &'static str,
}

/// Result of walking a body.
#[derive(Debug, Default)]
pub struct Walk {
    /// Every use of a capture, in source order.
    pub uses: Vec<Use>,
    /// Escapes from the body.
    pub escapes: Vec<Escape>,
    /// Statement directives found in the body (`atomic`, `critical`), with their errors already reported.
    pub directives: Vec<BodyDirective>,
    /// Errors found while walking (malformed statement directives).
    pub errors: Vec<syn::Error>,
    /// Identifiers named inside macros other than the standard formatting/assertion ones: such a macro may
    /// assign or shadow them, so index analysis cannot rely on what they mean.
    pub macro_idents: Vec<Ident>,
    /// Items (`const`, `static`, `fn`, ...) declared in the body.
    pub items: Vec<Ident>,
}

/// Walks `block`, the body of a loop whose parallel induction variables are `parallel_vars`; `reductions` are
/// the loop's reduction variables with their operators (their updates are recognised as such).
pub fn walk_body(block: &syn::Block, parallel_vars: &[Option<Ident>], reductions: &[(Ident, ReductionOp)]) -> Walk {
    let mut w = Walker { reductions: reductions.to_vec(), ..Walker::default() };
    for (dim, v) in parallel_vars.iter().enumerate() {
        if let Some(v) = v {
            w.env.bindings.push((v.to_string(), Binding::Parallel(dim)));
        }
    }
    w.visit_block(block);
    w.out
}

/// Free identifiers of an expression that the walk would record (for loop bounds and clause expressions).
pub fn free_idents(expr: &Expr) -> Vec<Ident> {
    let mut w = Walker::default();
    w.visit_expr(expr);
    w.out.uses.into_iter().map(|u| u.ident).collect()
}

#[derive(Default)]
struct Walker {
    out: Walk,
    reductions: Vec<(Ident, ReductionOp)>,
    env: Env,
    /// Length of `env.bindings` at each open scope.
    scopes: Vec<usize>,
    critical: Option<String>,
    /// Names of all enclosing critical blocks, innermost last.
    critical_names: Vec<String>,
    /// Depth of loops inside the body (a `break` there is fine), within the innermost closure.
    loop_depth: usize,
    /// Labels of loops and blocks inside the body that enclose the current point, within the innermost closure:
    /// `break 'l` / `continue 'l` to one of them stays in the iteration.
    labels: Vec<String>,
    /// Depth of closures inside the body: a `return` or `?` there leaves the closure, not the iteration.
    closure_depth: usize,
    /// Depth of index expressions being visited.
    index_depth: usize,
}

impl Walker {
    /// Visits a loop body (`label`: the loop's label, if any).
    fn visit_loop_body(&mut self, label: Option<&syn::Label>, body: &syn::Block) {
        self.labels.extend(label.map(|l| l.name.ident.to_string()));
        self.loop_depth += 1;
        self.visit_block(body);
        self.loop_depth -= 1;
        if label.is_some() {
            self.labels.pop();
        }
    }

    /// Whether a `break`/`continue` to `label` (none: the innermost loop) leaves the iteration.
    fn escapes_iteration(&self, label: Option<&syn::Lifetime>) -> bool {
        match label {
            Some(l) => !self.labels.contains(&l.ident.to_string()),
            None => self.loop_depth == 0,
        }
    }

    fn push_scope(&mut self) {
        self.scopes.push(self.env.bindings.len());
    }

    fn pop_scope(&mut self) {
        if let Some(n) = self.scopes.pop() {
            self.env.bindings.truncate(n);
        }
    }

    fn bind(&mut self, name: &Ident, b: Binding) {
        self.env.bindings.push((name.to_string(), b));
    }

    fn bind_pat(&mut self, pat: &Pat) {
        let mut names = Vec::new();
        pat_idents(pat, &mut names);
        for n in names {
            self.bind(&n, Binding::Opaque);
        }
    }

    fn is_local(&self, ident: &Ident) -> bool {
        self.env.lookup(&ident.to_string()).is_some()
    }

    fn record(&mut self, ident: &Ident, access: Access) {
        if self.is_local(ident) {
            return;
        }
        self.out.uses.push(Use {
            ident: ident.clone(),
            access,
            critical: self.critical.clone(),
            env: self.env.clone(),
            in_index: self.index_depth > 0,
        });
    }

    /// A place expression being written (`lhs = ..`, `&mut lhs`).
    fn visit_place_write(&mut self, place: &Expr, op: Option<BinOp>, rhs: Option<&Expr>) {
        match place_root(place) {
            Some(Root { ident, first_index, through_field }) => {
                // Walk the index expressions and anything else inside the place as reads.
                self.visit_place_inner(place);
                let access = match (first_index, through_field) {
                    (Some(idx), _) => Access::IndexWrite(idx.clone()),
                    (None, _) => Access::Write { op, rhs: rhs.cloned(), method: None },
                };
                self.record(ident, access);
            }
            None => self.visit_expr(place),
        }
    }

    /// Visits the sub-expressions of a place (indices, receivers) without recording the root itself.
    fn visit_place_inner(&mut self, place: &Expr) {
        match place {
            Expr::Index(ix) => {
                self.visit_place_inner(&ix.expr);
                self.visit_index(&ix.index);
            }
            Expr::Field(f) => self.visit_place_inner(&f.base),
            Expr::Paren(p) => self.visit_place_inner(&p.expr),
            Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => self.visit_place_inner(&u.expr),
            Expr::Path(_) => {}
            other => self.visit_expr(other),
        }
    }

    fn visit_index(&mut self, index: &Expr) {
        self.index_depth += 1;
        self.visit_expr(index);
        self.index_depth -= 1;
    }

    fn visit_macro_tokens(&mut self, mac: &syn::Macro) {
        // Most macros in loop bodies are format-like (`println!`, `assert!`, `debug_assert_eq!`): their arguments
        // are expressions. Anything else is opaque: every capture named in it is recorded as such, and every name
        // in it (capture or local) is one the macro may assign or shadow.
        let name = mac.path.segments.last().map(|s| s.ident.to_string()).unwrap_or_default();
        let standard = FORMAT_MACROS.contains(&name.as_str());
        let parsed = mac.parse_body_with(Punctuated::<Expr, Token![,]>::parse_terminated);
        match parsed {
            Ok(args) if standard => {
                for a in &args {
                    self.visit_expr(a);
                }
                // Inline format arguments (`"{x}"`) of the format string read captures too (other string literals
                // are values).
                if let Some(Expr::Lit(syn::ExprLit { lit: syn::Lit::Str(s), .. })) = args.iter().nth(format_string_position(&name)) {
                    {
                        for name in inline_format_args(&s.value()) {
                            if let Ok(mut ident) = syn::parse_str::<Ident>(&name) {
                                ident.set_span(s.span());
                                self.record(&ident, Access::Read);
                            }
                        }
                    }
                }
            }
            // `vec!`, `matches!`, ...: standard macros that bind nothing outside themselves, but whose arguments are
            // not all expressions: their names are opaque uses, yet still mean what they meant before.
            _ => self.record_idents_in(mac.tokens.clone(), !NON_BINDING_MACROS.contains(&name.as_str())),
        }
    }

    /// Records every identifier of a macro's tokens as an opaque use; `may_rebind`: the macro may assign or shadow
    /// them (any macro but the standard ones).
    fn record_idents_in(&mut self, tokens: TokenStream, may_rebind: bool) {
        for tt in tokens {
            match tt {
                TokenTree::Ident(i) if !is_keyword(&i) => {
                    if may_rebind {
                        self.out.macro_idents.push(i.clone());
                    }
                    self.record(&i, Access::InMacro);
                }
                TokenTree::Group(g) => self.record_idents_in(g.stream(), may_rebind),
                _ => {}
            }
        }
    }

    /// `s op= e`, `s = s op e`, `s = e op s` (commutative), `s = s.max(e)` / `.min(e)` for a reduction variable
    /// `s` whose operator is `op`: the operand is visited as an ordinary read (so `s` inside it is an error later).
    fn reduction_update(&mut self, place: &Expr, op: Option<&BinOp>, rhs: &Expr) -> bool {
        let Some((var, rop)) = self.reduction_target(place) else { return false };
        let same = |e: &Expr| matches!(strip(e), Expr::Path(p) if p.path.is_ident(&var));
        let operand = match op {
            Some(op) => compound_matches(op, &rop).then_some(rhs),
            None => match strip(rhs) {
                Expr::Binary(b) if binary_matches(&b.op, &rop) => {
                    if same(&b.left) {
                        Some(&*b.right)
                    } else if same(&b.right) && !matches!(b.op, BinOp::Sub(_)) {
                        Some(&*b.left)
                    } else {
                        None
                    }
                }
                Expr::MethodCall(m) if m.args.len() == 1 && method_matches(&m.method, &rop) => {
                    if same(&m.receiver) {
                        Some(&m.args[0])
                    } else if same(&m.args[0]) {
                        Some(&*m.receiver)
                    } else {
                        None
                    }
                }
                _ => None,
            },
        };
        let Some(operand) = operand else { return false };
        self.visit_expr(operand);
        if let Some(id) = place_root(place).map(|r| r.ident.clone()) {
            self.record(&id, Access::Reduction);
        }
        true
    }

    /// `if e > s { s = e; }` (and `<`, `>=`, `<=`, either side) for a `max`/`min` reduction variable `s`.
    fn reduction_if(&mut self, i: &syn::ExprIf) -> bool {
        if i.else_branch.is_some() || i.then_branch.stmts.len() != 1 {
            return false;
        }
        let assign = match &i.then_branch.stmts[0] {
            Stmt::Expr(Expr::Assign(a), _) => a,
            _ => return false,
        };
        let Some((var, rop)) = self.reduction_target(&assign.left) else { return false };
        let Expr::Binary(cmp) = strip(&i.cond) else { return false };
        let is_var = |e: &Expr| matches!(strip(e), Expr::Path(p) if p.path.is_ident(&var));
        let text = |e: &Expr| e.to_token_stream().to_string();
        // Normalise to `candidate (>|<) s`.
        let (candidate, greater) = match cmp.op {
            BinOp::Gt(_) | BinOp::Ge(_) if is_var(&cmp.right) => (&*cmp.left, true),
            BinOp::Lt(_) | BinOp::Le(_) if is_var(&cmp.right) => (&*cmp.left, false),
            BinOp::Lt(_) | BinOp::Le(_) if is_var(&cmp.left) => (&*cmp.right, true),
            BinOp::Gt(_) | BinOp::Ge(_) if is_var(&cmp.left) => (&*cmp.right, false),
            _ => return false,
        };
        let wanted = if greater { ReductionOp::Max } else { ReductionOp::Min };
        if rop != wanted || text(strip(candidate)) != text(strip(&assign.right)) {
            return false;
        }
        self.visit_expr(candidate);
        self.record(&var, Access::Reduction);
        true
    }

    /// The reduction variable a place names, if it is one (not shadowed by a local).
    fn reduction_target(&self, place: &Expr) -> Option<(Ident, ReductionOp)> {
        let Expr::Path(p) = strip(place) else { return None };
        let id = p.path.get_ident()?;
        if self.is_local(id) {
            return None;
        }
        self.reductions.iter().find(|(v, _)| v == id).map(|(_, op)| (id.clone(), op.clone()))
    }

    fn visit_stmt_with_directive(&mut self, dir: BodyDirective) {
        match &dir {
            BodyDirective::Atomic(a) => {
                // The operand is an ordinary read; the shared location is recorded as atomic.
                if let Some(v) = &a.value {
                    self.visit_expr(v);
                }
                if let Some(root) = place_root(&a.target) {
                    self.visit_place_inner(&a.target);
                    let (ident, index) = (root.ident.clone(), root.first_index.cloned());
                    self.record(&ident, Access::Atomic { kind: a.kind, index });
                }
                match (&a.capture_into, &a.let_pat) {
                    (_, Some(pat)) => self.bind_pat(pat),
                    (Some(into), None) => self.visit_place_write(into, None, None),
                    _ => {}
                }
            }
            BodyDirective::Critical(c) => {
                let name = c.name.clone().unwrap_or_default();
                if self.critical_names.contains(&name) {
                    let shown =
                        if name.is_empty() { "the unnamed critical section".to_string() } else { format!("critical section `{name}`") };
                    self.out.errors.push(syn::Error::new(
                        c.block.brace_token.span.join(),
                        format!(
                            "this `#[omp::critical]` block is inside {shown} already: it could never enter (a \
                             deadlock). Give the inner block another name (`#[omp::critical(name)]`) or drop it"
                        ),
                    ));
                }
                self.critical_names.push(name.clone());
                let saved = self.critical.replace(name);
                self.visit_block(&c.block);
                self.critical = saved;
                self.critical_names.pop();
            }
            // A sequential loop of the body like any other (`body::NestedLoop`).
            BodyDirective::NestedLoop(l) => {
                for e in &l.clause_exprs {
                    self.visit_expr(e);
                }
                self.visit_stmt(&l.stmt);
            }
        }
        self.out.directives.push(dir);
    }
}

/// Methods of `Vec`, slices, `String` and the collections that take `&mut self`: called on an element
/// (`v[i].push(x)`), they write it.
pub(crate) const MUTATING_METHODS: &[&str] = &[
    "push",
    "push_str",
    "push_back",
    "push_front",
    "pop",
    "pop_back",
    "pop_front",
    "insert",
    "remove",
    "swap_remove",
    "clear",
    "extend",
    "extend_from_slice",
    "truncate",
    "resize",
    "retain",
    "dedup",
    "drain",
    "append",
    "sort",
    "sort_unstable",
    "sort_by",
    "sort_by_key",
    "sort_unstable_by",
    "reverse",
    "fill",
    "swap",
    "iter_mut",
    "get_mut",
    "first_mut",
    "last_mut",
    "as_mut_slice",
    "copy_from_slice",
    "clone_from_slice",
    "rotate_left",
    "rotate_right",
    "reserve",
    "shrink_to_fit",
];

impl<'ast> Visit<'ast> for Walker {
    fn visit_block(&mut self, b: &'ast syn::Block) {
        self.push_scope();
        for stmt in &b.stmts {
            self.visit_stmt(stmt);
        }
        self.pop_scope();
    }

    fn visit_stmt(&mut self, stmt: &'ast Stmt) {
        match body::statement_directive(stmt) {
            Ok(Some(dir)) => return self.visit_stmt_with_directive(dir),
            Ok(None) => {}
            Err(e) => {
                self.out.errors.push(e);
                return;
            }
        }
        match stmt {
            Stmt::Local(local) => {
                if let Some(init) = &local.init {
                    self.visit_expr(&init.expr);
                    if let Some((_, diverge)) = &init.diverge {
                        self.visit_expr(diverge);
                    }
                }
                // `let x = e;` (immutable plain name) keeps its definition for index analysis.
                let plain = match &local.pat {
                    Pat::Ident(p) if p.mutability.is_none() && p.by_ref.is_none() && p.subpat.is_none() => Some((&p.ident, None)),
                    Pat::Type(t) => match &*t.pat {
                        Pat::Ident(p) if p.mutability.is_none() && p.by_ref.is_none() && p.subpat.is_none() => {
                            Some((&p.ident, Some((*t.ty).clone())))
                        }
                        _ => None,
                    },
                    _ => None,
                };
                match (plain, &local.init) {
                    (Some((id, ty)), Some(init)) if init.diverge.is_none() => self.bind(id, Binding::Let((*init.expr).clone(), ty)),
                    _ => self.bind_pat(&local.pat),
                }
            }
            // Nested items cannot capture locals, but their names are visible in the whole block.
            Stmt::Item(item) => {
                if let Some(id) = item_ident(item) {
                    self.out.items.push(id.clone());
                }
            }
            Stmt::Macro(m) => self.visit_macro_tokens(&m.mac),
            Stmt::Expr(e, _) => self.visit_expr(e),
        }
    }

    fn visit_item(&mut self, _: &'ast syn::Item) {}

    fn visit_expr(&mut self, e: &'ast Expr) {
        match e {
            Expr::Path(p) => {
                if p.qself.is_none() {
                    if let Some(id) = p.path.get_ident() {
                        self.record(id, Access::Read);
                    }
                }
            }
            Expr::Assign(a) => {
                if !self.reduction_update(&a.left, None, &a.right) {
                    self.visit_expr(&a.right);
                    self.visit_place_write(&a.left, None, Some(&a.right));
                }
            }
            Expr::Binary(b) if is_compound_assign(&b.op) => {
                if !self.reduction_update(&b.left, Some(&b.op), &b.right) {
                    self.visit_expr(&b.right);
                    self.visit_place_write(&b.left, Some(b.op), Some(&b.right));
                }
            }
            Expr::Reference(r) if r.mutability.is_some() => self.visit_place_write(&r.expr, None, None),
            Expr::Index(ix) => match place_root(e) {
                Some(Root { ident, first_index: Some(idx), through_field: false }) => {
                    self.visit_place_inner(e);
                    self.record(ident, Access::IndexRead(idx.clone()));
                }
                _ => {
                    self.visit_expr(&ix.expr);
                    self.visit_index(&ix.index);
                }
            },
            Expr::MethodCall(m) => {
                match &*m.receiver {
                    // `v[i].push(x)`: a std method that takes `&mut self` writes the element (a method not in the
                    // list counts as a read; if it needs `&mut self`, rustc refuses the shared element: no race).
                    Expr::Index(_) if MUTATING_METHODS.contains(&m.method.to_string().as_str()) => {
                        self.visit_place_write(&m.receiver, None, None)
                    }
                    // `s.log.push(x)`: writes the field, so its variable, as a whole.
                    Expr::Field(_) if MUTATING_METHODS.contains(&m.method.to_string().as_str()) => {
                        self.visit_place_write(&m.receiver, None, None)
                    }
                    Expr::Path(p) if p.qself.is_none() && p.path.get_ident().is_some() => {
                        let id = p.path.get_ident().cloned();
                        if let Some(id) = id {
                            let access = if m.method == "len" && m.args.is_empty() {
                                Access::Len
                            } else if MUTATING_METHODS.contains(&m.method.to_string().as_str()) {
                                // `out.push(x)`: a write of `out` as a whole (inside `#[omp::critical]` that
                                // makes it a critical variable; elsewhere a race to report).
                                Access::Write { op: None, rhs: None, method: Some(m.method.clone()) }
                            } else {
                                Access::Method(m.method.clone())
                            };
                            self.record(&id, access);
                        }
                    }
                    other => self.visit_expr(other),
                }
                for a in &m.args {
                    self.visit_expr(a);
                }
            }
            Expr::Closure(c) => {
                self.push_scope();
                for input in &c.inputs {
                    self.bind_pat(input);
                }
                // control flow in a closure stays in it
                let loops = std::mem::take(&mut self.loop_depth);
                let labels = std::mem::take(&mut self.labels);
                self.closure_depth += 1;
                self.visit_expr(&c.body);
                self.closure_depth -= 1;
                (self.loop_depth, self.labels) = (loops, labels);
                self.pop_scope();
            }
            Expr::ForLoop(f) => {
                self.visit_expr(&f.expr);
                self.push_scope();
                match &*f.pat {
                    Pat::Ident(p) if p.subpat.is_none() && p.mutability.is_none() && p.by_ref.is_none() => {
                        self.bind(&p.ident, Binding::InnerLoop((*f.expr).clone()))
                    }
                    other => self.bind_pat(other),
                }
                self.visit_loop_body(f.label.as_ref(), &f.body);
                self.pop_scope();
            }
            Expr::While(w) => {
                self.push_scope();
                self.visit_expr(&w.cond);
                self.visit_loop_body(w.label.as_ref(), &w.body);
                self.pop_scope();
            }
            Expr::Loop(l) => self.visit_loop_body(l.label.as_ref(), &l.body),
            Expr::Block(b) if b.label.is_some() => {
                self.labels.extend(b.label.as_ref().map(|l| l.name.ident.to_string()));
                self.visit_block(&b.block);
                self.labels.pop();
            }
            Expr::If(i) if self.reduction_if(i) => {}
            Expr::If(i) => {
                self.push_scope();
                self.visit_expr(&i.cond);
                self.visit_block(&i.then_branch);
                self.pop_scope();
                if let Some((_, els)) = &i.else_branch {
                    self.visit_expr(els);
                }
            }
            Expr::Let(l) => {
                self.visit_expr(&l.expr);
                self.bind_pat(&l.pat);
            }
            Expr::Match(m) => {
                self.visit_expr(&m.expr);
                for arm in &m.arms {
                    self.push_scope();
                    self.bind_pat(&arm.pat);
                    if let Some((_, g)) = &arm.guard {
                        self.visit_expr(g);
                    }
                    self.visit_expr(&arm.body);
                    self.pop_scope();
                }
            }
            Expr::Macro(m) => self.visit_macro_tokens(&m.mac),
            Expr::Break(b) => {
                if self.escapes_iteration(b.label.as_ref()) {
                    self.out.escapes.push(Escape { span: b.span(), what: "`break`" });
                }
                if let Some(v) = &b.expr {
                    self.visit_expr(v);
                }
            }
            Expr::Continue(c) => {
                if c.label.is_some() && self.escapes_iteration(c.label.as_ref()) {
                    self.out.escapes.push(Escape { span: c.span(), what: "a labelled `continue`" });
                }
            }
            Expr::Return(r) => {
                if self.closure_depth == 0 {
                    self.out.escapes.push(Escape { span: r.span(), what: "`return`" });
                }
                if let Some(v) = &r.expr {
                    self.visit_expr(v);
                }
            }
            Expr::Try(t) => {
                if self.closure_depth == 0 {
                    self.out.escapes.push(Escape { span: t.question_token.span(), what: "the `?` operator" });
                }
                self.visit_expr(&t.expr);
            }
            Expr::Async(_) => {}
            other => visit::visit_expr(self, other),
        }
    }
}

/// Names bound by a pattern.
pub fn pat_idents(pat: &Pat, out: &mut Vec<Ident>) {
    match pat {
        Pat::Ident(p) => {
            out.push(p.ident.clone());
            if let Some((_, sub)) = &p.subpat {
                pat_idents(sub, out);
            }
        }
        Pat::Tuple(t) => t.elems.iter().for_each(|p| pat_idents(p, out)),
        Pat::TupleStruct(t) => t.elems.iter().for_each(|p| pat_idents(p, out)),
        Pat::Struct(s) => s.fields.iter().for_each(|f| pat_idents(&f.pat, out)),
        Pat::Slice(s) => s.elems.iter().for_each(|p| pat_idents(p, out)),
        Pat::Reference(r) => pat_idents(&r.pat, out),
        Pat::Or(o) => o.cases.iter().for_each(|p| pat_idents(p, out)),
        Pat::Type(t) => pat_idents(&t.pat, out),
        Pat::Paren(p) => pat_idents(&p.pat, out),
        _ => {}
    }
}

fn inline_format_args(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '{' {
            if chars.peek() == Some(&'{') {
                chars.next();
                continue;
            }
            let mut name = String::new();
            while let Some(&d) = chars.peek() {
                if d.is_alphanumeric() || d == '_' {
                    name.push(d);
                    chars.next();
                } else {
                    break;
                }
            }
            if name.chars().next().is_some_and(|c| c.is_alphabetic() || c == '_') {
                out.push(name);
            }
        }
    }
    out
}

/// Standard macros whose arguments are expressions they only read (formatting, assertions).
const FORMAT_MACROS: &[&str] = &[
    "println",
    "print",
    "eprintln",
    "eprint",
    "format",
    "format_args",
    "write",
    "writeln",
    "panic",
    "assert",
    "assert_eq",
    "assert_ne",
    "debug_assert",
    "debug_assert_eq",
    "debug_assert_ne",
    "unreachable",
    "todo",
    "unimplemented",
];

/// Which argument of a [`FORMAT_MACROS`] macro is its format string.
fn format_string_position(name: &str) -> usize {
    match name {
        "write" | "writeln" | "assert" | "debug_assert" => 1,
        "assert_eq" | "assert_ne" | "debug_assert_eq" | "debug_assert_ne" => 2,
        _ => 0,
    }
}

/// Standard macros that introduce no binding visible after them (their arguments may not be expressions).
const NON_BINDING_MACROS: &[&str] = &[
    "vec",
    "matches",
    "dbg",
    "concat",
    "stringify",
    "line",
    "column",
    "file",
    "module_path",
    "cfg",
    "env",
    "option_env",
    "include_str",
    "include_bytes",
    "debug_assert",
    "assert",
    "assert_eq",
    "assert_ne",
    "format",
    "println",
    "print",
    "eprintln",
    "eprint",
    "write",
    "writeln",
    "panic",
    "unreachable",
    "todo",
    "unimplemented",
    "format_args",
];

fn strip(e: &Expr) -> &Expr {
    match e {
        Expr::Paren(p) => strip(&p.expr),
        Expr::Group(g) => strip(&g.expr),
        other => other,
    }
}

/// Whether a compound assignment is an update of reduction operator `op`.
fn compound_matches(b: &BinOp, op: &ReductionOp) -> bool {
    matches!(
        (b, op),
        (BinOp::AddAssign(_) | BinOp::SubAssign(_), ReductionOp::Add)
            | (BinOp::MulAssign(_), ReductionOp::Mul)
            | (BinOp::BitAndAssign(_), ReductionOp::BitAnd)
            | (BinOp::BitOrAssign(_), ReductionOp::BitOr)
            | (BinOp::BitXorAssign(_), ReductionOp::BitXor)
    )
}

/// Whether `s = s <b> e` is an update of reduction operator `op`.
fn binary_matches(b: &BinOp, op: &ReductionOp) -> bool {
    matches!(
        (b, op),
        (BinOp::Add(_) | BinOp::Sub(_), ReductionOp::Add)
            | (BinOp::Mul(_), ReductionOp::Mul)
            | (BinOp::BitAnd(_), ReductionOp::BitAnd)
            | (BinOp::BitOr(_), ReductionOp::BitOr)
            | (BinOp::BitXor(_), ReductionOp::BitXor)
            | (BinOp::And(_), ReductionOp::LogAnd)
            | (BinOp::Or(_), ReductionOp::LogOr)
    )
}

/// Whether `s = s.<m>(e)` is an update of reduction operator `op`.
fn method_matches(m: &Ident, op: &ReductionOp) -> bool {
    (m == "max" && *op == ReductionOp::Max) || (m == "min" && *op == ReductionOp::Min)
}

/// The name an item declares.
fn item_ident(item: &syn::Item) -> Option<&Ident> {
    Some(match item {
        syn::Item::Const(i) => &i.ident,
        syn::Item::Static(i) => &i.ident,
        syn::Item::Fn(i) => &i.sig.ident,
        syn::Item::Struct(i) => &i.ident,
        syn::Item::Enum(i) => &i.ident,
        syn::Item::Type(i) => &i.ident,
        syn::Item::Macro(i) => i.ident.as_ref()?,
        _ => return None,
    })
}

fn is_keyword(i: &Ident) -> bool {
    matches!(
        i.to_string().as_str(),
        "as" | "break"
            | "const"
            | "continue"
            | "crate"
            | "else"
            | "enum"
            | "extern"
            | "false"
            | "fn"
            | "for"
            | "if"
            | "impl"
            | "in"
            | "let"
            | "loop"
            | "match"
            | "mod"
            | "move"
            | "mut"
            | "pub"
            | "ref"
            | "return"
            | "self"
            | "Self"
            | "static"
            | "struct"
            | "super"
            | "trait"
            | "true"
            | "type"
            | "unsafe"
            | "use"
            | "where"
            | "while"
    )
}
