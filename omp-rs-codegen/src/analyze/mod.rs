//! Data-sharing and race analysis of a parallel loop body, and the analyses it and the later stages use: the capture
//! walk (`walk`), affine index forms (`affine`), reduction combining (`combine`), types (`types`), name
//! resolution (`resolve`).
//!
//! Every variable the body uses from outside gets one `Class`. The host and device lowerings give each class
//! its race-free implementation: shared read-only references, per-iteration views of arrays whose writes are
//! provably disjoint, private reduction copies, atomics, or a named lock. Anything the analysis cannot prove
//! race-free is a compile error that names the variable and the clause to add. Memory safety does not rest on
//! this analysis: a `Disjoint` array's affine index form only proposes which elements each iteration owns; the
//! runtime verifies that ownership disjoint and checks every access against it (docs/ARCHITECTURE.md,
//! "Soundness"). A wrong analysis costs a compile error or a run-time panic, never a race.

pub mod affine;
pub(crate) mod combine;
pub mod resolve;
pub(crate) mod token_use;
pub(crate) mod types;
pub mod walk;

use std::collections::BTreeMap;

use proc_macro2::Span;
use quote::ToTokens;
use syn::{BinOp, Expr, Ident};

use crate::ctxt::Ctxt;
use crate::model::{Directive, ReductionOp};
use crate::syntax::body::BodyDirective;
use crate::syntax::loops::LoopNest;
use affine::{affine, Poly, Unreliable};
use walk::{Access, Use, Walk};

/// How a captured variable is shared by the iterations of a parallel loop.
#[derive(Debug, Clone)]
pub enum Class {
    /// Only read: shared by reference.
    Shared,
    /// An array written at one affine index that differs between iterations.
    Disjoint(DisjointArray),
    /// A `reduction` variable.
    Reduction(ReductionOp),
    /// `private`: each thread has its own copy (initialised from the original).
    Private,
    /// `firstprivate`: each thread has its own copy initialised from the original.
    Firstprivate,
    /// Only accessed by `#[omp::atomic]` statements (`indexed`: an array `x[i]`).
    Atomic {
        /// Whether the accesses index an array.
        indexed: bool,
    },
    /// Written inside `#[omp::critical(name)]` blocks and only accessed there.
    Critical {
        /// The critical section's name (`""` when unnamed).
        name: String,
    },
    /// Listed in `unsafe(disjoint(..))`: its elements are reached unchecked (the user asserts no conflict).
    Unchecked {
        /// The user's `unsafe` keyword (the expansion's unsafe block carries it).
        unsafe_token: syn::token::Unsafe,
    },
}

impl Class {
    /// Whether the loop writes the variable (through a view, an atomic or a lock).
    pub fn writes(&self) -> bool {
        matches!(self, Class::Disjoint(_) | Class::Atomic { .. } | Class::Critical { .. } | Class::Unchecked { .. })
    }
}

/// The proof obligation for an array written by every iteration.
#[derive(Debug, Clone)]
pub struct DisjointArray {
    /// The index, as an affine form.
    pub form: Poly,
    /// Other accesses of one iteration at loop-invariant offsets from `form` (`y[2 * i + 1]` beside `y[2 * i]`,
    /// `f[ID_UMOM * plane + i]` beside `f[ID_DENS * plane + i]`): constant forms, the run time owns them all.
    pub offsets: Vec<Poly>,
    /// The index as first written (for messages).
    pub index: Expr,
    /// The loop has one iteration (`for _ in 0..1`, the serial `target` region's form): that iteration owns the
    /// whole array and may read and write it anywhere (`form` is then the constant 0).
    pub whole: bool,
}

/// A variable used by the loop body and defined outside it.
#[derive(Debug, Clone)]
pub struct Capture {
    /// Its name (spanned at the first use).
    pub name: Ident,
    /// How it is shared.
    pub class: Class,
    /// Whether any use reads it as a whole value (not only indexed or `.len()`).
    pub whole_value_use: bool,
    /// Whether the body assigns to it as a whole (`x = e`, `x op= e`).
    pub written: bool,
    /// Whether the body indexes it (`x[i]`).
    pub indexed: bool,
    /// Whether the body writes an element of it (`x[i] = e`).
    pub index_written: bool,
    /// Whether it appears inside an index expression (`n` in `a[i * n + j]`).
    pub index_operand: bool,
}

/// Result of analysing one parallel loop.
#[derive(Debug, Clone, Default)]
pub struct Analysis {
    /// Captures in order of first use, followed by clause variables the body does not use.
    pub captures: Vec<Capture>,
    /// Statement directives of the body.
    pub directives: Vec<BodyDirective>,
    /// How each reduction variable's partial values combine, where not with its operator (`combine`; filled by
    /// [`Analysis::settle_combines`]).
    pub combines: Vec<(String, combine::Combine)>,
}

impl Analysis {
    /// The capture named `name`.
    pub fn get(&self, name: &str) -> Option<&Capture> {
        self.captures.iter().find(|c| c.name == name)
    }

    /// How reduction variable `name` combines.
    pub fn combine_of(&self, name: &str) -> combine::Combine {
        self.combines.iter().find(|(n, _)| n == name).map_or(combine::Combine::Op, |(_, c)| c.clone())
    }

    /// Decides how each reduction variable combines from the body's form of its updates (`ty`: the variable's
    /// declared scalar type, when known), reporting forms whose meaning the combination cannot keep.
    pub fn settle_combines(&mut self, nest: &LoopNest, ty: impl Fn(&str) -> Option<String>, cx: &Ctxt) {
        for c in &self.captures {
            if let Class::Reduction(op) = &c.class {
                let t = ty(&c.name.to_string());
                let how = combine::combine(&nest.body, &c.name, op, t.as_deref(), &nest.dims, cx);
                self.combines.push((c.name.to_string(), how));
            }
        }
    }
}

/// Analyses the body of a parallel loop nest for the given directive.
pub fn parallel_loop(d: &Directive, nest: &LoopNest, cx: &Ctxt) -> Analysis {
    let vars: Vec<Option<Ident>> = nest.dims.iter().map(|dim| dim.var.clone()).collect();
    let reductions: Vec<(Ident, ReductionOp)> = d.settings.reduced().map(|(v, op)| (v.clone(), op)).collect();
    let walk = walk::walk_body(&nest.body, &vars, &reductions);
    classify(d, nest, walk, cx)
}

/// The names a written index cannot treat as loop-invariant, each with the reason.
fn unreliable(d: &Directive, walk: &Walk) -> Unreliable {
    let mut u = Unreliable::default();
    for v in d.settings.private.iter().chain(&d.settings.firstprivate) {
        u.add(
            &v.to_string(),
            format!("`{v}` is private: every thread has its own copy, which the body may change, so it cannot place a write"),
        );
    }
    for (v, _) in d.settings.reduced() {
        u.add(&v.to_string(), format!("`{v}` is a reduction variable: inside the loop it holds a partial result"));
    }
    for i in &walk.macro_idents {
        u.add(
            &i.to_string(),
            format!("`{i}` is named inside a macro of the loop body, which may assign or shadow it; move it out of the macro"),
        );
    }
    for i in &walk.items {
        u.add(&i.to_string(), format!("`{i}` is an item declared inside the loop body; declare it before the loop"));
    }
    for use_ in &walk.uses {
        if matches!(use_.access, Access::Write { .. }) {
            let i = &use_.ident;
            u.add(&i.to_string(), format!("`{i}` is assigned inside the loop body"));
        }
    }
    u
}

fn classify(d: &Directive, nest: &LoopNest, walk: Walk, cx: &Ctxt) -> Analysis {
    let unreliable = unreliable(d, &walk);
    for e in walk.errors {
        cx.syn_error(e);
    }
    for esc in &walk.escapes {
        cx.error_at(
            esc.span,
            format!(
                "{} cannot leave the body of the parallel loop `{}`: every iteration must run to its end \
                 (use `continue` to skip the rest of an iteration)",
                esc.what, d.construct.name
            ),
        );
    }

    let mut reductions: BTreeMap<String, ReductionOp> = BTreeMap::new();
    for (v, op) in d.settings.reduced() {
        reductions.insert(v.to_string(), op);
    }
    let privates: Vec<String> = d.settings.private.iter().map(|i| i.to_string()).collect();
    let firstprivates: Vec<String> = d.settings.firstprivate.iter().map(|i| i.to_string()).collect();
    let unchecked: BTreeMap<String, syn::token::Unsafe> = d.settings.disjoint.iter().map(|(t, v)| (v.to_string(), *t)).collect();

    // Group uses by variable, in order of first use.
    let mut order: Vec<String> = Vec::new();
    let mut by_var: BTreeMap<String, Vec<Use>> = BTreeMap::new();
    for u in walk.uses {
        let k = u.ident.to_string();
        if !by_var.contains_key(&k) {
            order.push(k.clone());
        }
        by_var.entry(k).or_default().push(u);
    }
    // Clause variables the body never names still need their copies (e.g. a reduction over no iteration).
    let clause_vars = d.settings.reduced().map(|(v, _)| v).chain(&d.settings.private).chain(&d.settings.firstprivate);
    let mut unused: Vec<Ident> = Vec::new();
    for v in clause_vars {
        if !by_var.contains_key(&v.to_string()) && !unused.iter().any(|u| u == v) {
            unused.push(v.clone());
        }
    }

    let mut captures = Vec::new();
    for name in order {
        let uses = &by_var[&name];
        let first = uses[0].ident.clone();
        let whole_value_use = uses.iter().any(|u| matches!(u.access, Access::Read | Access::Method(_) | Access::Write { .. }));
        let written = uses.iter().any(|u| matches!(u.access, Access::Write { .. }));
        let indexed = uses.iter().any(|u| matches!(u.access, Access::IndexRead(_) | Access::IndexWrite(_)));
        let index_written = uses.iter().any(|u| matches!(u.access, Access::IndexWrite(_)));
        let index_operand = uses.iter().any(|u| u.in_index);
        let whole_value_use = whole_value_use || uses.iter().any(|u| matches!(u.access, Access::InMacro));
        let class = if let Some(op) = reductions.get(&name) {
            reduction_uses(&name, op, uses, cx);
            Class::Reduction(op.clone())
        } else if privates.contains(&name) {
            private_uses(&name, uses, cx);
            Class::Private
        } else if firstprivates.contains(&name) {
            Class::Firstprivate
        } else if let Some(t) = unchecked.get(&name) {
            unchecked_uses(&name, uses, cx);
            Class::Unchecked { unsafe_token: *t }
        } else {
            classify_shared(&name, uses, d, nest, &unreliable, cx)
        };
        captures.push(Capture { name: first, class, whole_value_use, written, indexed, index_written, index_operand });
    }
    for v in unused {
        let name = v.to_string();
        let class = if let Some(op) = reductions.get(&name) {
            Class::Reduction(op.clone())
        } else if privates.contains(&name) {
            Class::Private
        } else {
            Class::Firstprivate
        };
        captures.push(Capture {
            name: v,
            class,
            whole_value_use: false,
            written: false,
            indexed: false,
            index_written: false,
            index_operand: false,
        });
    }
    Analysis { captures, directives: walk.directives, combines: Vec::new() }
}

/// A `private` variable is each iteration's own, starting from its value before the loop: code that reads it
/// before the iteration assigns it expects the previous iteration's value (a running value), which it never
/// sees. Refused when the first use in the body is such a read; the copies keep the meaning deterministic either
/// way, this only catches the likely mistake.
fn private_uses(name: &str, uses: &[Use], cx: &Ctxt) {
    let Some(first) = uses.first() else { return };
    let read = match &first.access {
        Access::Read | Access::IndexRead(_) => "reads",
        Access::Write { op: Some(_), .. } => "updates",
        _ => return,
    };
    cx.error_at(
        first.ident.span(),
        format!(
            "`{name}` is `private`: each iteration starts from its value before the loop, so this {read} it before the \
             iteration assigns it and would not see earlier iterations' values. Assign it first in the body; for a \
             running total use `reduction(+: {name})`"
        ),
    );
}

/// An `unsafe(disjoint(..))` array is reached element by element (`u[i]`, `u[i][j]`, `u.len()`): the clause
/// covers its elements, not the variable as a whole, nor accesses omp-rs cannot see.
fn unchecked_uses(name: &str, uses: &[Use], cx: &Ctxt) {
    for u in uses {
        let what = match &u.access {
            Access::IndexRead(_) | Access::IndexWrite(_) | Access::Len => continue,
            Access::Write { .. } => "this writes the variable as a whole",
            Access::Read | Access::Method(_) | Access::Reduction => {
                "this uses the variable as a whole (only `u[..]` and `u.len()` reach its elements)"
            }
            Access::Atomic { .. } => "`#[omp::atomic]` on it is not needed: the clause already asserts the accesses do not conflict",
            Access::InMacro => "it is named inside a macro, whose use of it omp-rs cannot see",
        };
        cx.error_spanned_by(&u.ident, format!("`{name}` is listed in `unsafe(disjoint(..))`, which covers its elements: {what}"));
    }
}

/// A reduction variable may only be updated with its operator's statements: any other use would see (or change)
/// one thread's partial result instead of the sequential value.
fn reduction_uses(name: &str, op: &ReductionOp, uses: &[Use], cx: &Ctxt) {
    let sym = op.spelling();
    if op.is_user() {
        // OpenMP's `declare reduction`: the body works on its private copy, which starts at the reducer's identity, as
        // on any variable; the copies are joined with the reducer's `combine`. Only a use omp-rs lowers as a shared
        // location would escape the copy.
        for u in uses.iter().filter(|u| matches!(u.access, Access::Atomic { .. })) {
            cx.error_spanned_by(
                &u.ident,
                format!("`{name}` is a `reduction({sym})` variable: each thread updates its own copy, which needs no `#[omp::atomic]`"),
            );
        }
        return;
    }
    let form = match op {
        ReductionOp::Add => format!("`{name} += e;` or `{name} -= e;`"),
        ReductionOp::Mul => format!("`{name} *= e;`"),
        ReductionOp::Min => format!("`{name} = {name}.min(e);`"),
        ReductionOp::Max => format!("`{name} = {name}.max(e);`"),
        ReductionOp::BitAnd => format!("`{name} &= e;`"),
        ReductionOp::BitOr => format!("`{name} |= e;`"),
        ReductionOp::BitXor => format!("`{name} ^= e;`"),
        ReductionOp::LogAnd => format!("`{name} = {name} && e;`"),
        ReductionOp::LogOr => format!("`{name} = {name} || e;`"),
        ReductionOp::User(_) => return,
    };
    for u in uses {
        let what = match &u.access {
            Access::Reduction => continue,
            Access::IndexWrite(_) | Access::IndexRead(_) | Access::Atomic { .. } => {
                "reductions over array elements are not supported".to_string()
            }
            Access::Write { .. } => format!("this update is not a `reduction({sym})` statement, so it would combine wrongly"),
            Access::InMacro => "it is named inside a macro, whose use of it omp-rs cannot check".to_string(),
            Access::Read | Access::Len | Access::Method(_) => {
                "inside the loop it holds only this thread's partial result, so reading it here gives a different value \
                 than the sequential loop"
                    .to_string()
            }
        };
        cx.error_spanned_by(
            &u.ident,
            format!(
                "`{name}` is a `reduction({sym})` variable: {what}. Inside the loop, only update it with {form} \
                 (where `e` does not use `{name}`), and read it after the loop"
            ),
        );
    }
}

/// A variable without a data-sharing clause: read-only, disjoint array, atomic, critical, or an error.
fn classify_shared(name: &str, uses: &[Use], d: &Directive, nest: &LoopNest, unreliable: &Unreliable, cx: &Ctxt) -> Class {
    let is_write = |a: &Access| matches!(a, Access::Write { .. } | Access::IndexWrite(_));
    let has_atomic = uses.iter().any(|u| matches!(u.access, Access::Atomic { .. }));
    let critical_write = uses.iter().find(|u| u.critical.is_some() && is_write(&u.access));
    let writes_outside = uses.iter().any(|u| u.critical.is_none() && is_write(&u.access));

    if has_atomic || critical_write.is_some() || writes_outside {
        if let Some(u) = uses.iter().find(|u| matches!(u.access, Access::InMacro)) {
            cx.error_spanned_by(
                &u.ident,
                format!("`{name}` is written by this parallel loop, and omp-rs cannot see how this macro uses it; move the access out of the macro"),
            );
            return Class::Shared;
        }
    }

    if has_atomic {
        let indexed = uses.iter().any(|u| matches!(&u.access, Access::Atomic { index: Some(_), .. }));
        for u in uses {
            match &u.access {
                Access::Atomic { index, .. } => {
                    if index.is_some() != indexed {
                        cx.error_spanned_by(&u.ident, format!("`{name}` is accessed atomically both as a whole and by index"));
                    }
                }
                Access::Len if indexed => {}
                _ => cx.error_spanned_by(
                    &u.ident,
                    format!(
                        "`{name}` is updated by `#[omp::atomic]` in this loop, so every access to it must be atomic; \
                         this plain access races with those updates (use `#[omp::atomic(read)] let v = {name}...;`)"
                    ),
                ),
            }
        }
        return Class::Atomic { indexed };
    }

    if let Some(cw) = critical_write {
        let cname = cw.critical.clone().unwrap_or_default();
        for u in uses {
            match &u.critical {
                Some(n) if *n == cname => {}
                Some(other) => cx.error_spanned_by(
                    &u.ident,
                    format!("`{name}` is written in `critical({cname})` and accessed in `critical({other})`; use one critical name for it"),
                ),
                None => cx.error_spanned_by(
                    &u.ident,
                    format!("`{name}` is written inside `#[omp::critical]`, so it may only be accessed inside critical blocks; this access races with those writes"),
                ),
            }
        }
        return Class::Critical { name: cname };
    }

    if let Some(u) = uses.iter().find(|u| matches!(u.access, Access::Write { .. })) {
        if let Access::Write { method: Some(m), .. } = &u.access {
            cx.error_spanned_by(
                &u.ident,
                format!(
                    "`{name}.{m}(..)` changes `{name}` in every iteration of this parallel loop (a data race): put it in \
                     `#[omp::critical] {{ ... }}` (one thread at a time, in no fixed order), or collect per-iteration \
                     results into an array indexed by the loop variable"
                ),
            );
            return Class::Shared;
        }
        let op = match &u.access {
            Access::Write { op, rhs, .. } => suggested_op(name, op.as_ref(), rhs.as_ref()),
            _ => None,
        };
        if single_iteration(nest) {
            cx.error_spanned_by(
                &u.ident,
                format!(
                    "`{name}` is written by this single-iteration region, which runs on a copy of it (a region's scalars \
                     are firstprivate): the write would not reach the code after the region. Add `reduction(+: {name})` \
                     (or the operator it accumulates with) to the directive, or store the result into a mapped array"
                ),
            );
            return Class::Shared;
        }
        let reduction = op.map(|o| format!("add `reduction({o}: {name})` to the directive, ")).unwrap_or_else(|| {
            format!("if it accumulates a result add `reduction(+: {name})` (or `*`, `min`, `max`, ...) to the directive, ")
        });
        cx.error_spanned_by(
            &u.ident,
            format!(
                "`{name}` is written by every iteration of this parallel loop (a data race): {reduction}\
                 make the update `#[omp::atomic]`, or declare `{name}` inside the loop body if each iteration needs its own"
            ),
        );
        return Class::Shared;
    }

    if uses.iter().any(|u| matches!(u.access, Access::IndexWrite(_))) {
        return disjoint(name, uses, d, nest, unreliable, cx).map(Class::Disjoint).unwrap_or(Class::Shared);
    }
    Class::Shared
}

/// The reduction operator an update suggests (`s += e` → `+`, `m = m.max(e)` → `max`).
fn suggested_op(name: &str, op: Option<&BinOp>, rhs: Option<&Expr>) -> Option<&'static str> {
    match op {
        Some(BinOp::AddAssign(_)) | Some(BinOp::SubAssign(_)) => Some("+"),
        Some(BinOp::MulAssign(_)) => Some("*"),
        Some(BinOp::BitAndAssign(_)) => Some("&"),
        Some(BinOp::BitOrAssign(_)) => Some("|"),
        Some(BinOp::BitXorAssign(_)) => Some("^"),
        Some(_) => None,
        None => match rhs {
            Some(Expr::MethodCall(m)) if m.receiver.to_token_stream().to_string() == name => match m.method.to_string().as_str() {
                "max" => Some("max"),
                "min" => Some("min"),
                _ => None,
            },
            Some(Expr::Binary(b)) if b.left.to_token_stream().to_string() == name => match b.op {
                BinOp::Add(_) | BinOp::Sub(_) => Some("+"),
                BinOp::Mul(_) => Some("*"),
                BinOp::And(_) => Some("&&"),
                BinOp::Or(_) => Some("||"),
                _ => None,
            },
            _ => None,
        },
    }
}

/// The literal `step_by` of each dimension of the nest (1 without; `None` when it is not a literal).
fn literal_steps(nest: &LoopNest) -> Vec<Option<u128>> {
    nest.dims
        .iter()
        .map(|dim| {
            dim.adaptors.iter().try_fold(1u128, |acc, a| match a {
                crate::syntax::loops::Adaptor::Rev => Some(acc),
                crate::syntax::loops::Adaptor::StepBy(Expr::Lit(syn::ExprLit { lit: syn::Lit::Int(i), .. })) => {
                    i.base10_parse::<u128>().ok().and_then(|s| acc.checked_mul(s))
                }
                crate::syntax::loops::Adaptor::StepBy(_) => None,
            })
        })
        .collect()
}

/// Whether the nest runs exactly one iteration, as written: every dimension a literal `0..1` or `0..=0` (with no
/// adaptors). Its iteration cannot race with another, so it may access the arrays it writes anywhere (the run time
/// still checks that the nest has one iteration: the whole-array ownerships of two would overlap).
pub fn single_iteration(nest: &LoopNest) -> bool {
    let lit = |e: &Option<Box<Expr>>| match e.as_deref() {
        Some(Expr::Lit(syn::ExprLit { lit: syn::Lit::Int(i), .. })) => i.base10_parse::<u128>().ok(),
        _ => None,
    };
    nest.dims.iter().all(|dim| {
        let (start, end) = (lit(&dim.base.start), lit(&dim.base.end));
        let closed = matches!(dim.base.limits, syn::RangeLimits::Closed(_));
        dim.adaptors.is_empty() && start == Some(0) && end == Some(if closed { 0 } else { 1 })
    })
}

/// Proves that the writes to array `name` from different iterations touch different elements.
fn disjoint(name: &str, uses: &[Use], d: &Directive, nest: &LoopNest, unreliable: &Unreliable, cx: &Ctxt) -> Option<DisjointArray> {
    if single_iteration(nest) {
        return whole_array(name, uses, cx);
    }
    // The first index form (a write), and the other accesses' loop-invariant offsets from it (`y[2 * i + 1]`
    // beside `y[2 * i]`), each with its index as written and whether it writes, for messages.
    let mut form: Option<(Poly, Expr, Span)> = None;
    let mut offsets: Vec<(Poly, Expr, bool)> = Vec::new();
    let mut ok = true;
    // Writes first, so that messages compare a read against the written index.
    let mut ordered: Vec<&Use> = uses.iter().filter(|u| matches!(u.access, Access::IndexWrite(_))).collect();
    ordered.extend(uses.iter().filter(|u| !matches!(u.access, Access::IndexWrite(_))));
    for u in ordered {
        let (index, write) = match &u.access {
            Access::IndexWrite(i) => (i, true),
            Access::IndexRead(i) => (i, false),
            Access::Len => continue,
            _ => {
                cx.error_spanned_by(
                    &u.ident,
                    format!(
                        "`{name}` is written by this parallel loop, so the body may only index it (`{name}[..]`) or call `{name}.len()`; \
                         any other use could reach elements that other iterations write"
                    ),
                );
                ok = false;
                continue;
            }
        };
        let poly = match affine(index, &u.env, unreliable) {
            Ok(p) => p,
            Err(_) if matches!(index, Expr::Tuple(_)) => {
                // A user type's `Index<(usize, usize)>`: the element an index reaches is the impl's business.
                cx.error_spanned_by(
                    index,
                    format!(
                        "`{name}[{}]` goes through the `Index` impl of `{name}`'s type, which omp-rs cannot see into, so it \
                         cannot prove that iterations write different elements: index the storage the impl computes \
                         (`{name}.data[i * nx + j]`), or use an ndarray array (`{name}[[i, j]]`), whose layout omp-rs knows",
                        index.to_token_stream().to_string().replace(" ", "")
                    ),
                );
                ok = false;
                continue;
            }
            Err(why) => {
                let what = if write { "write to" } else { "read of" };
                cx.error_spanned_by(
                    index,
                    format!(
                        "cannot prove that iterations of this parallel loop write different elements of `{name}`: the index of this \
                         {what} `{name}[{}]` is not an affine function of the loop variables ({}). Use `#[omp::atomic]` for scattered \
                         updates, or restructure so that `{name}` is indexed by the loop variable",
                        index.to_token_stream(),
                        why.0
                    ),
                );
                ok = false;
                continue;
            }
        };
        let offset = form.as_ref().and_then(|(f, _, _)| poly.constant_difference(f));
        match (&form, offset) {
            (None, _) => form = Some((poly, index.clone(), u.ident.span())),
            // The same form shifted by a loop-invariant amount: the iteration owns both (the run time checks that
            // iterations stay apart).
            (Some(_), Some(diff)) => {
                if !diff.is_zero() && !offsets.iter().any(|(o, _, _)| o.key() == diff.key()) {
                    offsets.push((diff, index.clone(), write));
                }
            }
            (Some((_, first, _)), None) => {
                let what = if write { "written" } else { "read" };
                cx.error_spanned_by(
                    index,
                    format!(
                        "`{name}` is written at `{name}[{}]` but also {what} at `{name}[{}]` in this parallel loop: another iteration \
                         may write that element. Keep one index per array, or indices that differ by a constant \
                         (`{name}[2 * i]`, `{name}[2 * i + 1]`); read inputs from a separate array",
                        first.to_token_stream(),
                        index.to_token_stream()
                    ),
                );
                ok = false;
            }
        }
    }
    let (form, index, _) = form?;
    if !ok {
        return None;
    }
    // Literal offsets as far apart as the loop's literal step reach the next iteration's elements: a race the
    // compiler can see (others the run time checks).
    let literals: Option<Vec<i128>> = offsets.iter().map(|(o, _, _)| o.literal()).collect();
    if let (Some(lits), Some(stride)) = (literals, form.min_literal_parallel_stride(&literal_steps(nest))) {
        let (lo, hi) = lits.iter().fold((0i128, 0i128), |(lo, hi), &l| (lo.min(l), hi.max(l)));
        if !offsets.is_empty() && stride > 0 && hi.abs_diff(lo) >= stride {
            let (_, other, write) = offsets.iter().max_by_key(|(o, _, _)| o.literal().map_or(0, i128::unsigned_abs))?;
            let what = if *write { "written" } else { "read" };
            cx.error_spanned_by(
                other,
                format!(
                    "`{name}` is written at `{name}[{}]` but also {what} at `{name}[{}]` in this parallel loop: another iteration \
                     may write that element. Keep one index per array (read inputs from a separate array)",
                    index.to_token_stream(),
                    other.to_token_stream()
                ),
            );
            return None;
        }
    }
    let offsets: Vec<Poly> = offsets.into_iter().map(|(o, _, _)| o).collect();
    // Every parallel dimension must move the index, or iterations along it collide.
    let dims = form.parallel_dims();
    for (k, dim) in nest.dims.iter().enumerate() {
        if dims.contains(&k) || (dim.single_iteration() && nest.dims.len() > 1) {
            continue;
        }
        let msg = match (&dim.var, nest.dims.len()) {
            (Some(v), 1) => format!(
                "every iteration of this parallel loop writes `{name}[{}]` (a data race): the index does not depend on `{v}`. \
                 Use `#[omp::atomic]` on the update, or accumulate into a scalar with `reduction(+: ...)`",
                index.to_token_stream()
            ),
            (Some(v), _) => format!(
                "iterations that differ only in `{v}` write the same element `{name}[{}]` (a data race); \
                 include `{v}` in the index or reduce `collapse`",
                index.to_token_stream()
            ),
            (None, _) => format!("iterations of the `_` loop write the same element `{name}[{}]` (a data race)", index.to_token_stream()),
        };
        cx.error_spanned_by(&index, msg);
        return None;
    }
    let _ = d;
    Some(DisjointArray { form, offsets, index, whole: false })
}

/// The one iteration of a single-iteration nest owns all of array `name`: any index, read or written, as in the
/// sequential code (uses other than indexing and `len()` are refused as in [`disjoint`]).
fn whole_array(name: &str, uses: &[Use], cx: &Ctxt) -> Option<DisjointArray> {
    let mut index = None;
    for u in uses {
        match &u.access {
            Access::IndexWrite(i) | Access::IndexRead(i) => {
                index.get_or_insert_with(|| i.clone());
            }
            Access::Len => {}
            _ => {
                cx.error_spanned_by(
                    &u.ident,
                    format!(
                        "`{name}` is written by this loop, so the body may only index it (`{name}[..]`) or call \
                         `{name}.len()`"
                    ),
                );
                return None;
            }
        }
    }
    let index = index?;
    Some(DisjointArray { form: Poly::default(), offsets: Vec::new(), index, whole: true })
}
