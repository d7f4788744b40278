//! Index expressions as affine forms over the loop's iteration variables: `c + Σ coeff·v`, where each coefficient
//! is an integer times loop-invariant variables (`n`, `nx`). The run-time ownership of a written array
//! (`omp::__private::Affine`) is built from this form and verified disjoint for the actual bounds.
//!
//! The rules are conservative, and decided on what a name means where the index is written:
//! - a loop variable of the parallel nest, or of a sequential `for` of the body over an invariant range, whose
//!   pattern is a plain immutable name;
//! - an immutable `let` of the body, through its definition;
//! - a variable from outside the loop that the body never rebinds, that is not `private`, `firstprivate` or a
//!   `reduction` variable, and that no macro of the body names (a macro may assign or shadow it);
//! - integer literals, `+`, `-`, `*` (exactly, in `i128`; an overflow rejects the index), unary `-`, and casts
//!   between integer types. Arithmetic inside a cast happens in the operands' type and a cast to a narrower type
//!   may truncate: those parts are recorded ([`Poly::typed`]) and the run time checks, before the loop, that
//!   their values fit the type (else it panics), so the exact form is the value the program computes.
//!
//! Anything else (a call, a method call, a macro, another array, `/`, a cast to a non-integer type) is not
//! affine, and a written index that is not affine is a compile error. Whatever passes is still checked at run time, access by access, by the views of
//! the written arrays: this analysis decides what compiles, never what is safe.

use std::collections::{BTreeMap, HashMap};

use quote::ToTokens;
use syn::{BinOp, Expr, Type, UnOp};

use super::walk::{Binding, Env};
use crate::syntax::loops;

/// An iteration variable an index can depend on.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum IterVar {
    /// Dimension `d` of the parallel (collapsed) nest.
    Parallel(usize),
    /// A sequential loop inside the body: its variable name and range (as text, for identity).
    Inner {
        /// The loop variable.
        name: String,
        /// Its range, as text.
        range: String,
    },
}

/// A product `lit · atom₁ · atom₂ …` of loop-invariant values: variables from outside the loop, constants named
/// by a path (`u16::MAX`, `Self::N`), or a quotient, remainder or shift of such values by a literal (`(n / 2)`,
/// parenthesised), which the run time evaluates before the loop as the body does in it.
#[derive(Debug, Clone)]
pub struct Coeff {
    /// Integer factor.
    pub lit: i128,
    /// Loop-invariant values, sorted by their text.
    pub atoms: Vec<Expr>,
}

fn path_text(p: &Expr) -> String {
    p.to_token_stream().to_string()
}

fn atom(path: syn::Path) -> Expr {
    Expr::Path(syn::ExprPath { attrs: Vec::new(), qself: None, path })
}

impl Coeff {
    fn key(&self) -> String {
        self.atoms.iter().map(path_text).collect::<Vec<_>>().join("*")
    }
}

/// A polynomial of degree ≤ 1 in the iteration variables: constant part plus one coefficient per variable.
#[derive(Debug, Clone, Default)]
pub struct Poly {
    /// (variable or `None` for the constant part, atom key) → coefficient.
    terms: BTreeMap<(Option<IterVar>, String), Coeff>,
    /// Ranges of inner loop variables that appear.
    pub inner_ranges: BTreeMap<String, Expr>,
    /// Parts computed in another integer type before a widening cast (`(i * n) as usize` with `i: i32`): their
    /// values must stay inside that type's range, which the run time checks before the loop (wrapping
    /// arithmetic then gives the exact value, so the form is exact).
    pub typed: Vec<Typed>,
}

/// A sub-form computed in the type of `witness` (some variable it uses: all operands of `+ - *` share one type).
#[derive(Debug, Clone)]
pub struct Typed {
    /// The sub-form.
    pub form: Box<Poly>,
    /// A variable of the sub-form, whose type is the arithmetic's.
    pub witness: Witness,
    /// The sub-expression as written, for messages.
    pub text: String,
}

/// A variable whose type names the type of some index arithmetic.
#[derive(Debug, Clone)]
pub enum Witness {
    /// The variable of parallel dimension `d`.
    Parallel(usize),
    /// The variable of a sequential loop of the body.
    Inner(String),
    /// A variable from outside the loop (or a constant).
    Capture(syn::Path),
    /// A type written in the expression: the target of a cast, a literal's suffix, a `let`'s annotation.
    Type(syn::Type),
}

/// Why an index is not affine.
#[derive(Debug, Clone)]
pub struct NotAffine(pub String);

/// Names an index may not treat as loop-invariant, with the reason (private and reduction variables, names a
/// macro of the body mentions, items declared in the body).
#[derive(Debug, Clone, Default)]
pub struct Unreliable(pub HashMap<String, String>);

impl Unreliable {
    /// Marks `name` with `why`, keeping the first reason given.
    pub fn add(&mut self, name: &str, why: impl Into<String>) {
        self.0.entry(name.to_string()).or_insert_with(|| why.into());
    }
}

fn overflow() -> NotAffine {
    NotAffine("its constant factors overflow 128 bits".into())
}

impl Poly {
    fn constant(c: Coeff) -> Poly {
        let mut p = Poly::default();
        p.add_term(None, c).ok();
        p
    }

    fn var(v: IterVar) -> Poly {
        let mut p = Poly::default();
        p.add_term(Some(v), Coeff { lit: 1, atoms: Vec::new() }).ok();
        p
    }

    fn add_term(&mut self, v: Option<IterVar>, c: Coeff) -> Result<(), NotAffine> {
        let key = (v, c.key());
        match self.terms.get_mut(&key) {
            Some(existing) => existing.lit = existing.lit.checked_add(c.lit).ok_or_else(overflow)?,
            None => {
                self.terms.insert(key.clone(), c);
            }
        }
        if self.terms.get(&key).is_some_and(|c| c.lit == 0) {
            self.terms.remove(&key);
        }
        Ok(())
    }

    fn add(mut self, other: Poly, sign: i128) -> Result<Poly, NotAffine> {
        for ((v, _), mut c) in other.terms {
            c.lit = c.lit.checked_mul(sign).ok_or_else(overflow)?;
            self.add_term(v, c)?;
        }
        self.inner_ranges.extend(other.inner_ranges);
        self.typed.extend(other.typed);
        Ok(self)
    }

    fn has_vars(&self) -> bool {
        self.terms.keys().any(|(v, _)| v.is_some())
    }

    fn mul(self, other: Poly) -> Result<Poly, NotAffine> {
        if self.has_vars() && other.has_vars() {
            return Err(NotAffine("it multiplies two loop variables".into()));
        }
        let mut out = Poly::default();
        for ((va, _), ca) in &self.terms {
            for ((vb, _), cb) in &other.terms {
                let mut atoms = ca.atoms.clone();
                atoms.extend(cb.atoms.iter().cloned());
                atoms.sort_by_key(path_text);
                let lit = ca.lit.checked_mul(cb.lit).ok_or_else(overflow)?;
                out.add_term(va.clone().or_else(|| vb.clone()), Coeff { lit, atoms })?;
            }
        }
        out.inner_ranges = self.inner_ranges;
        out.inner_ranges.extend(other.inner_ranges);
        out.typed = self.typed;
        out.typed.extend(other.typed);
        Ok(out)
    }

    /// A canonical text: two indices with the same key address the same element in every iteration.
    pub fn key(&self) -> String {
        self.terms.iter().map(|((v, atoms), c)| format!("{}·{}·{:?}", c.lit, atoms, v)).collect::<Vec<_>>().join(" + ")
    }

    /// The parallel dimensions the index depends on.
    pub fn parallel_dims(&self) -> Vec<usize> {
        self.terms
            .keys()
            .filter_map(|(v, _)| match v {
                Some(IterVar::Parallel(d)) => Some(*d),
                _ => None,
            })
            .collect()
    }

    /// Every (variable, coefficient) pair, constant part excluded. A variable with several coefficient
    /// monomials (`i*n + i`) appears once per monomial; the caller sums them.
    pub fn var_terms(&self) -> Vec<(&IterVar, &Coeff)> {
        self.terms.iter().filter_map(|((v, _), c)| v.as_ref().map(|v| (v, c))).collect()
    }

    /// `self - other` when it has no loop variable (the same variables, coefficients and narrow-type parts): the
    /// two indices are the same form shifted by a loop-invariant amount (`y[2 * i + 1]` against `y[2 * i]`: 1;
    /// `f[ID_UMOM * plane + i]` against `f[ID_DENS * plane + i]`: `ID_UMOM·plane - ID_DENS·plane`).
    pub fn constant_difference(&self, other: &Poly) -> Option<Poly> {
        let texts = |p: &Poly| p.typed.iter().map(|t| t.text.clone()).collect::<Vec<_>>();
        if texts(self) != texts(other) {
            return None;
        }
        let mut diff = self.clone().add(other.clone(), -1).ok()?;
        if diff.has_vars() {
            return None;
        }
        diff.inner_ranges.clear();
        diff.typed.clear();
        Some(diff)
    }

    /// Whether the form is 0.
    pub fn is_zero(&self) -> bool {
        self.terms.is_empty()
    }

    /// The form's value when it is a plain integer (no variable, no loop-invariant factor).
    pub fn literal(&self) -> Option<i128> {
        match self.terms.iter().collect::<Vec<_>>().as_slice() {
            [] => Some(0),
            [((None, atoms), c)] if atoms.is_empty() => Some(c.lit),
            _ => None,
        }
    }

    /// How far apart consecutive iterations of the closest parallel dimension put the index, when every parallel
    /// coefficient is a literal and `steps[d]` (the literal `step_by` of dimension `d`, 1 without) is known.
    pub fn min_literal_parallel_stride(&self, steps: &[Option<u128>]) -> Option<u128> {
        let mut min: Option<u128> = None;
        for ((v, _), c) in &self.terms {
            if let Some(IterVar::Parallel(d)) = v {
                if !c.atoms.is_empty() {
                    return None;
                }
                let s = c.lit.unsigned_abs().checked_mul((*steps.get(*d)?)?)?;
                min = Some(min.map_or(s, |m| m.min(s)));
            }
        }
        min
    }

    /// The coefficients of the constant part (no variable).
    pub fn constant_terms(&self) -> Vec<&Coeff> {
        self.terms.iter().filter_map(|((v, _), c)| v.is_none().then_some(c)).collect()
    }
}

/// Converts an index expression to an affine form, or says why it is not one. `env`: the bindings of the body
/// visible where the index is written; `unreliable`: names that cannot count as loop-invariant.
pub fn affine(e: &Expr, env: &Env, unreliable: &Unreliable) -> Result<Poly, NotAffine> {
    match e {
        Expr::Paren(p) => affine(&p.expr, env, unreliable),
        Expr::Group(g) => affine(&g.expr, env, unreliable),
        Expr::Range(r) => subslice(r, env, unreliable),
        Expr::Lit(syn::ExprLit { lit: syn::Lit::Int(i), .. }) => {
            let v: i128 = i.base10_parse().map_err(|_| NotAffine("an integer literal beyond 128 bits".into()))?;
            Ok(Poly::constant(Coeff { lit: v, atoms: Vec::new() }))
        }
        Expr::Path(p) if p.qself.is_none() && p.path.get_ident().is_some() => {
            let Some(id) = p.path.get_ident() else { return Err(NotAffine("a path".into())) };
            name(id, env, unreliable)
        }
        // `u16::MAX`, `Self::N`, `consts::N`: a constant (a longer path never names a local variable).
        Expr::Path(p) if p.qself.is_none() => Ok(Poly::constant(Coeff { lit: 1, atoms: vec![atom(p.path.clone())] })),
        // `n / 2`, `(nx + 1) % 4`, `n >> 1` of values from outside the loop: one loop-invariant value.
        Expr::Binary(b)
            if matches!(b.op, BinOp::Div(_) | BinOp::Rem(_) | BinOp::Shr(_) | BinOp::Shl(_)) && invariant_quotient(b, env, unreliable) =>
        {
            Ok(Poly::constant(Coeff { lit: 1, atoms: vec![syn::parse_quote!((#b))] }))
        }
        Expr::Binary(b) => {
            let l = || affine(&b.left, env, unreliable);
            let r = || affine(&b.right, env, unreliable);
            match b.op {
                BinOp::Add(_) => l()?.add(r()?, 1),
                BinOp::Sub(_) => l()?.add(r()?, -1),
                BinOp::Mul(_) => l()?.mul(r()?),
                _ => Err(NotAffine(format!(
                    "it uses `{}` (only `+`, `-` and `*` of loop variables keep an index affine; `/`, `%` and shifts \
                     only of values from outside the loop by a literal, such as `n / 2`)",
                    b.op.to_token_stream()
                ))),
            }
        }
        Expr::Unary(u) if matches!(u.op, UnOp::Neg(_)) => Poly::default().add(affine(&u.expr, env, unreliable)?, -1),
        Expr::Cast(c) => cast(c, env, unreliable),
        Expr::Index(_) => Err(NotAffine("it reads another array (an indirect index)".into())),
        // ndarray's per-axis check (`ndarrays`): its value is its index, or it panics.
        Expr::Call(c) if crate::names::nd::is_below(&c.func) && c.args.len() == 2 => affine(&c.args[0], env, unreliable),
        Expr::Call(_) => Err(NotAffine("it calls a function (its value may change from one iteration to the next)".into())),
        Expr::MethodCall(m) => {
            Err(NotAffine(format!("it calls `.{}()` (compute the value before the loop, e.g. `let n = x.len();`)", m.method)))
        }
        Expr::Macro(_) => Err(NotAffine("it expands a macro, whose value omp-rs cannot see".into())),
        Expr::Field(_) => Err(NotAffine("it reads a field (copy it into a local before the loop)".into())),
        _ => Err(NotAffine("it is not a sum of loop variables times loop-invariant values".into())),
    }
}

/// Whether `b` (a `/`, `%`, `>>` or `<<`) divides or shifts by a nonzero integer literal a value made of literals,
/// constants and variables from outside the loop with `+ - * / % >> <<` and casts: a value the run time can compute
/// before the loop as the body computes it (no division by zero, no name the loop binds or changes).
fn invariant_quotient(b: &syn::ExprBinary, env: &Env, unreliable: &Unreliable) -> bool {
    fn outside(e: &Expr, env: &Env, unreliable: &Unreliable) -> bool {
        match e {
            Expr::Lit(syn::ExprLit { lit: syn::Lit::Int(_), .. }) => true,
            Expr::Paren(p) => outside(&p.expr, env, unreliable),
            Expr::Cast(c) => outside(&c.expr, env, unreliable),
            Expr::Unary(u) if matches!(u.op, UnOp::Neg(_)) => outside(&u.expr, env, unreliable),
            Expr::Binary(b) => {
                matches!(
                    b.op,
                    BinOp::Add(_) | BinOp::Sub(_) | BinOp::Mul(_) | BinOp::Div(_) | BinOp::Rem(_) | BinOp::Shr(_) | BinOp::Shl(_)
                ) && outside(&b.left, env, unreliable)
                    && outside(&b.right, env, unreliable)
            }
            Expr::Path(p) if p.qself.is_none() => match p.path.get_ident() {
                Some(id) => {
                    let key = id.to_string();
                    !unreliable.0.contains_key(&key) && env.position(&key).is_none()
                }
                // A longer path names a constant.
                None => true,
            },
            _ => false,
        }
    }
    let by_literal = match &*b.right {
        Expr::Lit(syn::ExprLit { lit: syn::Lit::Int(i), .. }) => i.base10_parse::<u128>().is_ok_and(|v| v != 0),
        _ => false,
    };
    by_literal && outside(&b.left, env, unreliable)
}

/// `x[a..b]`, a subslice (`corner_forces(&mut f[8 * k..8 * k + 8])`, as LULESH passes a hexahedron's corners): the
/// elements `a + r` for `r` in `0..b - a`, an inner range over the subslice's offsets, when `a` is affine and
/// `b - a` loop-invariant. Each iteration then owns the block, checked at run time as a triangular loop's rows are.
fn subslice(r: &syn::ExprRange, env: &Env, unreliable: &Unreliable) -> Result<Poly, NotAffine> {
    let refuse = |why: &str| {
        NotAffine(format!(
            "a range index takes a subslice, which needs an affine start and a loop-invariant length (`f[8 * k..8 * k + 8]`): {why}"
        ))
    };
    let (Some(start), Some(end), syn::RangeLimits::HalfOpen(_)) = (&r.start, &r.end, &r.limits) else {
        return Err(refuse("write it `a..b` with both ends"));
    };
    let lo = affine(start, env, unreliable)?;
    let hi = affine(end, env, unreliable)?;
    let len = hi.constant_difference(&lo).ok_or_else(|| refuse("its length changes from iteration to iteration"))?;
    // The added parts first, then the subtracted ones (unsigned lengths such as `n - 1`).
    let mut parts = len.constant_terms();
    parts.sort_by_key(|c| c.lit < 0);
    let terms = parts.into_iter().map(|c| {
        let lit = proc_macro2::Literal::u128_unsuffixed(c.lit.unsigned_abs());
        let atoms = &c.atoms;
        let term = quote::quote!((#lit #(* (#atoms))*));
        if c.lit < 0 {
            quote::quote!(- #term)
        } else {
            quote::quote!(+ #term)
        }
    });
    let len: Expr = syn::parse_quote!(0 #(#terms)*);
    let range: Expr = syn::parse_quote!(0..#len);
    let text = range.to_token_stream().to_string();
    // An identifier that names exactly this range (two lengths never share an inner variable): every other
    // character as `_` and six hex digits.
    let key: String = std::iter::once("subslice_".to_string())
        .chain(text.chars().map(|c| if c.is_ascii_alphanumeric() { c.to_string() } else { format!("_{:06x}", c as u32) }))
        .collect();
    let mut offset = Poly::var(IterVar::Inner { name: key.clone(), range: text });
    offset.inner_ranges.insert(key, range);
    lo.add(offset, 1)
}

/// What a name in an index means where the index is written.
fn name(id: &syn::Ident, env: &Env, unreliable: &Unreliable) -> Result<Poly, NotAffine> {
    let key = id.to_string();
    if let Some(why) = unreliable.0.get(&key) {
        return Err(NotAffine(why.clone()));
    }
    match env.position(&key).map(|pos| (pos, env.lookup(&key))) {
        // Not bound in the body: a variable from outside the loop, evaluated once before it.
        None => Ok(Poly::constant(Coeff { lit: 1, atoms: vec![atom(syn::Path::from(id.clone()))] })),
        Some((_, Some(Binding::Parallel(d)))) => Ok(Poly::var(IterVar::Parallel(*d))),
        Some((pos, Some(Binding::InnerLoop(range)))) => {
            let outer = env.before(pos);
            let range = if invariant_range(range, &outer, unreliable) {
                range.clone()
            } else {
                widened_range(range, &outer, unreliable).ok_or_else(|| {
                    NotAffine(format!(
                        "the range of the inner loop over `{key}` may change from iteration to iteration (its bounds \
                         must be literals, variables from outside the loop that the body does not change, or sums of \
                         parallel loop variables times such values, as in `for j in 0..i`)"
                    ))
                })?
            };
            let range = &range;
            let text = range.to_token_stream().to_string();
            let mut p = Poly::var(IterVar::Inner { name: key.clone(), range: text });
            p.inner_ranges.insert(key, range.clone());
            Ok(p)
        }
        Some((pos, Some(Binding::Let(init, _)))) => affine(init, &env.before(pos), unreliable),
        Some(_) => Err(NotAffine(format!("`{key}` is a variable computed inside the loop"))),
    }
}

/// `x as T` to a 64-bit (or wider) integer: transparent. Arithmetic inside the cast happens in the source type,
/// where it may wrap: the sub-form is recorded ([`Poly::typed`]) and the run time checks, before the loop, that
/// its values fit that type. A cast to a narrower integer type (`i as i16`) is exact when `x`'s values fit `T`:
/// recorded and checked the same way (a truncating cast then panics with what to write instead).
fn cast(c: &syn::ExprCast, env: &Env, unreliable: &Unreliable) -> Result<Poly, NotAffine> {
    let narrow = narrow_int_type(&c.ty);
    if !narrow && !widening_cast(&c.ty) {
        return Err(NotAffine(format!("the cast `as {}` may truncate the index", c.ty.to_token_stream())));
    }
    let mut inner = &*c.expr;
    while let Expr::Paren(p) = inner {
        inner = &p.expr;
    }
    let mut form = affine(inner, env, unreliable)?;
    let exact = |form: &Poly| Box::new(Poly { typed: Vec::new(), ..form.clone() });
    if !matches!(inner, Expr::Path(_) | Expr::Lit(_) | Expr::Cast(_)) {
        if let Some(witness) = witness(inner, env) {
            let sub = Typed { form: exact(&form), witness, text: inner.to_token_stream().to_string() };
            form.typed.push(sub);
        }
    }
    if narrow {
        let text = c.to_token_stream().to_string();
        form.typed.push(Typed { form: exact(&form), witness: Witness::Type((*c.ty).clone()), text });
    }
    Ok(form)
}

/// `u8`, `u16`, `u32`, `i8`, `i16`, `i32`: a cast to one may truncate.
fn narrow_int_type(ty: &Type) -> bool {
    match ty {
        Type::Path(p) => p.path.get_ident().is_some_and(|i| ["u8", "u16", "u32", "i8", "i16", "i32"].contains(&i.to_string().as_str())),
        Type::Paren(p) => narrow_int_type(&p.elem),
        Type::Group(g) => narrow_int_type(&g.elem),
        _ => false,
    }
}

/// The first operand of `e`'s arithmetic whose type is known (`+ - *` and unary `-` take one type for all
/// operands): a variable, a cast's target, a suffixed literal; a `let` local stands for its annotation or its
/// definition (integers never coerce). `None` when only unsuffixed literals remain.
fn witness(e: &Expr, env: &Env) -> Option<Witness> {
    match e {
        Expr::Paren(p) => witness(&p.expr, env),
        Expr::Group(g) => witness(&g.expr, env),
        Expr::Binary(b) => witness(&b.left, env).or_else(|| witness(&b.right, env)),
        Expr::Unary(u) => witness(&u.expr, env),
        Expr::Cast(c) => Some(Witness::Type((*c.ty).clone())),
        Expr::Lit(syn::ExprLit { lit: syn::Lit::Int(i), .. }) if !i.suffix().is_empty() => {
            syn::parse_str(i.suffix()).ok().map(Witness::Type)
        }
        Expr::Path(p) if p.qself.is_none() => {
            let Some(id) = p.path.get_ident() else { return Some(Witness::Capture(p.path.clone())) };
            let key = id.to_string();
            match env.position(&key).map(|pos| (pos, env.lookup(&key))) {
                None => Some(Witness::Capture(p.path.clone())),
                Some((_, Some(Binding::Parallel(d)))) => Some(Witness::Parallel(*d)),
                Some((_, Some(Binding::InnerLoop(_)))) => Some(Witness::Inner(key)),
                Some((_, Some(Binding::Let(_, Some(ty))))) => Some(Witness::Type(ty.clone())),
                Some((pos, Some(Binding::Let(init, None)))) => witness(init, &env.before(pos)),
                Some(_) => None,
            }
        }
        _ => None,
    }
}

/// Whether a loop range (`a..b`, `a..=b`, with `.step_by(s)` / `.rev()`) is the same in every iteration.
pub fn invariant_range(e: &Expr, env: &Env, unreliable: &Unreliable) -> bool {
    match e {
        Expr::Paren(p) => invariant_range(&p.expr, env, unreliable),
        Expr::Group(g) => invariant_range(&g.expr, env, unreliable),
        Expr::Range(r) => {
            let end = |x: &Option<Box<Expr>>| x.as_deref().is_some_and(|x| invariant(x, env, unreliable));
            end(&r.start) && end(&r.end)
        }
        Expr::MethodCall(m) if m.method == "rev" && m.args.is_empty() => invariant_range(&m.receiver, env, unreliable),
        Expr::MethodCall(m) if m.method == "step_by" && m.args.len() == 1 => {
            invariant_range(&m.receiver, env, unreliable) && invariant(&m.args[0], env, unreliable)
        }
        _ => false,
    }
}

/// A loop-invariant superset of an inner loop's range whose bounds move with the parallel loop variables
/// (triangular loops: `for j in 0..i`, `for j in i + 1..n`, `(0..=i).rev()`): each bound is an affine form of
/// the parallel variables (see [`affine`]), so over the box of parallel iterations it is smallest and largest at
/// corners; the superset runs from the smallest start to the largest end, the bounds evaluated at every corner
/// (the first and last value of each parallel dimension the bound uses) at run time. `None` when a bound is not
/// such a form. The ownership built from the superset is only wider than each iteration's real one, and every
/// access is still checked against it at run time, so a superset never makes a race pass.
pub fn widened_range(e: &Expr, env: &Env, unreliable: &Unreliable) -> Option<Expr> {
    match e {
        Expr::Paren(p) => widened_range(&p.expr, env, unreliable),
        Expr::Group(g) => widened_range(&g.expr, env, unreliable),
        Expr::Range(r) => {
            let (start, end) = (r.start.as_deref()?, r.end.as_deref()?);
            let rt = crate::names::rt();
            let lo = corners(start, env, unreliable)?;
            let hi = corners(end, env, unreliable)?;
            let limits = &r.limits;
            Some(syn::parse_quote!((#rt::corner_min([#(#lo),*]) #limits #rt::corner_max([#(#hi),*]))))
        }
        Expr::MethodCall(m) if m.method == "rev" && m.args.is_empty() => widened_range(&m.receiver, env, unreliable),
        Expr::MethodCall(m) if m.method == "step_by" && m.args.len() == 1 && invariant(&m.args[0], env, unreliable) => {
            let inner = widened_range(&m.receiver, env, unreliable)?;
            let s = &m.args[0];
            Some(syn::parse_quote!(#inner.step_by(#s)))
        }
        _ => None,
    }
}

/// `bound` evaluated at every corner of the parallel dimensions it uses: copies of it with each of those
/// variables replaced by its dimension's first or last value. `None` unless `bound` is affine in parallel
/// variables and loop-invariant values only.
fn corners(bound: &Expr, env: &Env, unreliable: &Unreliable) -> Option<Vec<Expr>> {
    let form = affine(bound, env, unreliable).ok()?;
    if form.var_terms().iter().any(|(v, _)| !matches!(v, IterVar::Parallel(_))) {
        return None;
    }
    // Every name must mean the same before the loop: a parallel variable (replaced below) or a variable from
    // outside the loop. A `let` of the body (`let m = i + 1; for j in 0..m`) would not exist there.
    let mut names_ok = true;
    let mut check = |e: &Expr| {
        if let Expr::Path(p) = e {
            if let Some(id) = p.path.get_ident() {
                names_ok &= matches!(env.lookup(&id.to_string()), None | Some(Binding::Parallel(_)));
            }
        }
    };
    visit_exprs(bound, &mut check);
    if !names_ok {
        return None;
    }
    let mut dims = form.parallel_dims();
    dims.dedup();
    // The names that stand for those dimensions where the bound is written.
    let names: Vec<(String, usize)> = env.parallel_names().into_iter().filter(|(_, d)| dims.contains(d)).collect();
    let mut out = Vec::new();
    for corner in 0..(1u32 << dims.len()) {
        let mut e = bound.clone();
        let mut sub = Substitute { names: &names, dims: &dims, corner };
        syn::visit_mut::VisitMut::visit_expr_mut(&mut sub, &mut e);
        out.push(e);
    }
    Some(out)
}

/// Calls `f` on `e` and every expression inside it.
fn visit_exprs(e: &Expr, f: &mut impl FnMut(&Expr)) {
    struct V<'a, F>(&'a mut F);
    impl<'ast, F: FnMut(&Expr)> syn::visit::Visit<'ast> for V<'_, F> {
        fn visit_expr(&mut self, e: &'ast Expr) {
            (self.0)(e);
            syn::visit::visit_expr(self, e);
        }
    }
    syn::visit::Visit::visit_expr(&mut V(f), e);
}

/// Replaces parallel loop variables by their dimension's first (bit clear) or last (bit set) value.
struct Substitute<'a> {
    names: &'a [(String, usize)],
    dims: &'a [usize],
    corner: u32,
}

impl syn::visit_mut::VisitMut for Substitute<'_> {
    fn visit_expr_mut(&mut self, e: &mut Expr) {
        if let Expr::Path(p) = e {
            if let Some(id) = p.path.get_ident().filter(|_| p.qself.is_none()) {
                if let Some((_, d)) = self.names.iter().find(|(n, _)| id == n) {
                    let bit = self.dims.iter().position(|x| x == d).unwrap_or(0);
                    let dim = crate::names::dim(*d);
                    *e = if self.corner & (1 << bit) == 0 { syn::parse_quote!((#dim.first())) } else { syn::parse_quote!((#dim.last())) };
                    return;
                }
            }
        }
        syn::visit_mut::visit_expr_mut(self, e);
    }
}

/// Whether `e` (a loop bound) is the same in every iteration: literals, and variables from outside the loop
/// that are reliable, combined with `+ - *` (other operators, calls and macros are not trusted).
pub fn invariant(e: &Expr, env: &Env, unreliable: &Unreliable) -> bool {
    affine(e, env, unreliable).is_ok_and(|p| !p.has_vars())
}

fn widening_cast(ty: &Type) -> bool {
    match ty {
        Type::Path(p) => {
            p.path.get_ident().is_some_and(|i| ["usize", "isize", "u64", "i64", "u128", "i128"].contains(&i.to_string().as_str()))
        }
        Type::Paren(p) => widening_cast(&p.elem),
        Type::Group(g) => widening_cast(&g.elem),
        _ => false,
    }
}

/// Whether a loop range can be lowered (used for inner loop ranges in run-time checks).
pub fn is_canonical_range(e: &Expr) -> bool {
    let cx = crate::ctxt::Ctxt::scratch();
    let f: syn::ExprForLoop = syn::parse_quote!(for __omp_probe in #e {});
    loops::extract(&f, 1, None, "", &cx).is_some()
}

#[cfg(test)]
mod test {
    use super::*;
    use proc_macro2::Span;

    fn env_ij() -> Env {
        Env::for_dims(&[Some(syn::Ident::new("i", Span::call_site())), Some(syn::Ident::new("j", Span::call_site()))])
    }

    fn form(src: &str) -> Result<Poly, NotAffine> {
        let e: Expr = syn::parse_str(src).expect("expression");
        affine(&e, &env_ij(), &Unreliable::default())
    }

    #[test]
    fn affine_forms() {
        let p = form("i * n + j").expect("affine");
        assert_eq!(p.parallel_dims(), vec![0, 1]);
        assert!(form("(i + 1) * n - j + 3").is_ok());
        assert!(form("2 * (i as usize) + 1").is_ok());
        assert_eq!(form("i - i + j").expect("affine").parallel_dims(), vec![1]);
        // A quotient of values from outside the loop by a literal is one loop-invariant value.
        let half = form("i * n + n / 2 + (m + 1) % 4").expect("affine");
        assert_eq!(half.parallel_dims(), vec![0]);
        assert!(half.key().contains("(n / 2)"), "{}", half.key());
    }

    #[test]
    fn what_is_not_affine() {
        for (src, why) in [
            ("i * j", "two loop variables"),
            ("i + omp::get_thread_num()", "calls a function"),
            ("i + x.len()", "calls `.len()`"),
            ("i + m!(j)", "macro"),
            ("i + x[j]", "indirect"),
            ("i as f64 as usize", "may truncate"),
            ("i / 2", "`/`"),
            ("i + n / k", "`/`"),
            ("i + n / 0", "`/`"),
            ("i + s.n", "field"),
            ("i * 100000000000000000000 * 100000000000000000000", "overflow"),
            ("i + 1000000000000000000000000000000000000000000", "beyond 128 bits"),
        ] {
            match form(src) {
                Ok(_) => panic!("`{src}` was accepted"),
                Err(NotAffine(msg)) => assert!(msg.contains(why), "`{src}`: {msg}"),
            }
        }
    }

    #[test]
    fn arithmetic_inside_a_cast_is_checked_in_its_type() {
        let p = form("(2 * i + j) as usize").expect("affine");
        assert_eq!(p.typed.len(), 1);
        assert!(matches!(p.typed[0].witness, Witness::Parallel(_)));
        assert!(form("(i as usize) * 2").expect("affine").typed.is_empty());
        // the arithmetic's type is that of its operands, not of the variables under a cast
        let p = form("(i as isize + 128) as usize").expect("affine");
        assert!(matches!(&p.typed[0].witness, Witness::Type(t) if t.to_token_stream().to_string() == "isize"));
        let p = form("(1i64 + i) as usize").expect("affine");
        assert!(matches!(&p.typed[0].witness, Witness::Type(t) if t.to_token_stream().to_string() == "i64"));
        // a narrowing cast is checked to fit its type
        let p = form("i as u8 as usize").expect("affine");
        assert!(matches!(&p.typed[..], [t] if matches!(&t.witness, Witness::Type(t) if t.to_token_stream().to_string() == "u8")));
        let p = form("(n + i) as usize").expect("affine");
        assert!(matches!(&p.typed[0].witness, Witness::Capture(_)));
    }

    #[test]
    fn unreliable_names_are_refused_with_their_reason() {
        let e: Expr = syn::parse_str("i + off").expect("expression");
        let mut u = Unreliable::default();
        u.add("off", "`off` is private: each thread has its own");
        let err = affine(&e, &env_ij(), &u).expect_err("private name");
        assert!(err.0.contains("private"));
    }

    /// Random expressions over `i`, `j` (loop variables), `n`, `m` (captures) and literals with `+ - *`, unary `-`,
    /// parentheses and `/ k`, `% k` by literals: whenever `affine` accepts one, its form evaluates to the
    /// expression's exact value (a quotient's atom evaluated as Rust does, truncating).
    mod random_forms {
        use super::*;
        use proptest::prelude::*;

        #[derive(Debug, Clone)]
        enum E {
            Var(&'static str),
            Lit(i64),
            Neg(Box<E>),
            Bin(Box<E>, char, Box<E>),
            /// `(e / k)` or `(e % k)` by a positive literal.
            Quo(Box<E>, char, i64),
        }

        impl E {
            fn text(&self) -> String {
                match self {
                    E::Var(v) => v.to_string(),
                    E::Lit(l) if *l < 0 => format!("({l})"),
                    E::Lit(l) => l.to_string(),
                    E::Neg(e) => format!("-({})", e.text()),
                    E::Bin(a, op, b) => format!("({} {op} {})", a.text(), b.text()),
                    E::Quo(a, op, k) => format!("({} {op} {k})", a.text()),
                }
            }

            fn eval(&self, vals: &HashMap<&str, i128>) -> Option<i128> {
                Some(match self {
                    E::Var(v) => vals[v],
                    E::Lit(l) => i128::from(*l),
                    E::Neg(e) => e.eval(vals)?.checked_neg()?,
                    E::Bin(a, op, b) => {
                        let (a, b) = (a.eval(vals)?, b.eval(vals)?);
                        match op {
                            '+' => a.checked_add(b)?,
                            '-' => a.checked_sub(b)?,
                            _ => a.checked_mul(b)?,
                        }
                    }
                    E::Quo(a, op, k) => {
                        let (a, k) = (a.eval(vals)?, i128::from(*k));
                        if *op == '/' {
                            a / k
                        } else {
                            a % k
                        }
                    }
                })
            }
        }

        /// The value of an atom (a capture's name or a parenthesised quotient of captures), evaluated as Rust does.
        fn eval_atom(e: &Expr, vals: &HashMap<&str, i128>) -> i128 {
            match e {
                Expr::Path(p) => vals[path_text(&Expr::Path(p.clone())).as_str()],
                Expr::Paren(p) => eval_atom(&p.expr, vals),
                Expr::Lit(syn::ExprLit { lit: syn::Lit::Int(i), .. }) => i.base10_parse().unwrap_or_else(|e| panic!("{e}")),
                Expr::Unary(u) => -eval_atom(&u.expr, vals),
                Expr::Binary(b) => {
                    let (l, r) = (eval_atom(&b.left, vals), eval_atom(&b.right, vals));
                    match b.op {
                        BinOp::Add(_) => l + r,
                        BinOp::Sub(_) => l - r,
                        BinOp::Mul(_) => l * r,
                        BinOp::Div(_) => l / r,
                        BinOp::Rem(_) => l % r,
                        _ => panic!("operator in an atom: {}", e.to_token_stream()),
                    }
                }
                _ => panic!("atom: {}", e.to_token_stream()),
            }
        }

        fn expr() -> impl Strategy<Value = E> {
            let leaf = prop_oneof![proptest::sample::select(vec!["i", "j", "n", "m"]).prop_map(E::Var), (-1000i64..1000).prop_map(E::Lit),];
            leaf.prop_recursive(5, 40, 2, |inner| {
                prop_oneof![
                    inner.clone().prop_map(|e| E::Neg(Box::new(e))),
                    (inner.clone(), proptest::sample::select(vec!['/', '%']), 1i64..5).prop_map(|(a, op, k)| E::Quo(Box::new(a), op, k)),
                    (inner.clone(), proptest::sample::select(vec!['+', '-', '*']), inner).prop_map(|(a, op, b)| E::Bin(
                        Box::new(a),
                        op,
                        Box::new(b)
                    )),
                ]
            })
        }

        fn eval_form(p: &Poly, vals: &HashMap<&str, i128>) -> i128 {
            let coeff = |c: &Coeff| c.atoms.iter().fold(c.lit, |acc, a| acc * eval_atom(a, vals));
            let mut sum: i128 = p.constant_terms().into_iter().map(coeff).sum();
            for (v, c) in p.var_terms() {
                let x = match v {
                    IterVar::Parallel(0) => vals["i"],
                    IterVar::Parallel(_) => vals["j"],
                    IterVar::Inner { .. } => unreachable!("no inner loops here"),
                };
                sum += coeff(c) * x;
            }
            sum
        }

        proptest! {
            #![proptest_config(ProptestConfig {
                cases: std::env::var("OMP_RS_PROP_CASES").ok().and_then(|c| c.parse().ok()).unwrap_or(2000),
                ..ProptestConfig::default()
            })]
            #[test]
            fn accepted_forms_equal_the_expression(
                e in expr(),
                i in -50i128..50, j in -50i128..50, n in -50i128..50, m in -50i128..50,
            ) {
                let src = e.text();
                let vals: HashMap<&str, i128> = [("i", i), ("j", j), ("n", n), ("m", m)].into_iter().collect();
                let Some(want) = e.eval(&vals) else { return Ok(()) };
                match form(&src) {
                    Ok(p) => prop_assert_eq!(eval_form(&p, &vals), want, "{}", src),
                    // Only products of two loop variables, quotients of loop variables (and 128-bit overflow of
                    // constant factors) are refused.
                    Err(NotAffine(why)) => prop_assert!(
                        why.contains("two loop variables") || why.contains("overflow") || why.contains("uses `"),
                        "`{}` refused: {}", src, why
                    ),
                }
            }
        }
    }
}
