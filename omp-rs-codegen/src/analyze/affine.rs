//! Index expressions as affine forms over the loop's iteration variables:
//! `c + Σ coeff·v`, where each coefficient is an integer times loop-invariant factors (`n`, `nx - 2`, `x.len()`).
//! Two iterations of a parallel loop can only write the same element if their affine indices collide;
//! [`Poly::injectivity_terms`] gives what the run-time check needs to rule that out.

use std::collections::BTreeMap;

use quote::ToTokens;
use syn::{BinOp, Expr, Type, UnOp};

use super::walk::{free_idents, Binding, Env};
use crate::loops;

/// An iteration variable an index can depend on.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum IterVar {
    /// Dimension `d` of the parallel (collapsed) nest.
    Parallel(usize),
    /// A sequential loop inside the body: its variable name and range (as text, for identity).
    Inner { name: String, range: String },
}

/// A product `lit · atom₁ · atom₂ …` of loop-invariant factors.
#[derive(Debug, Clone)]
pub struct Coeff {
    /// Integer factor.
    pub lit: i128,
    /// Loop-invariant factors, sorted by their text.
    pub atoms: Vec<(String, Expr)>,
}

impl Coeff {
    fn key(&self) -> String {
        self.atoms.iter().map(|(k, _)| k.as_str()).collect::<Vec<_>>().join("*")
    }
}

/// A polynomial of degree ≤ 1 in the iteration variables: constant part plus one coefficient per variable.
#[derive(Debug, Clone, Default)]
pub struct Poly {
    /// (variable or `None` for the constant part, atom key) → coefficient.
    terms: BTreeMap<(Option<IterVar>, String), Coeff>,
    /// Ranges of inner loop variables that appear.
    pub inner_ranges: BTreeMap<String, Expr>,
}

/// Why an index is not affine.
#[derive(Debug, Clone)]
pub struct NotAffine(pub String);

impl Poly {
    fn constant(c: Coeff) -> Poly {
        let mut p = Poly::default();
        p.add_term(None, c);
        p
    }

    fn var(v: IterVar) -> Poly {
        let mut p = Poly::default();
        p.add_term(Some(v), Coeff { lit: 1, atoms: Vec::new() });
        p
    }

    fn add_term(&mut self, v: Option<IterVar>, c: Coeff) {
        let key = (v, c.key());
        match self.terms.get_mut(&key) {
            Some(existing) => existing.lit += c.lit,
            None => {
                self.terms.insert(key.clone(), c);
            }
        }
        if self.terms.get(&key).is_some_and(|c| c.lit == 0) {
            self.terms.remove(&key);
        }
    }

    fn add(mut self, other: Poly, sign: i128) -> Poly {
        for ((v, _), mut c) in other.terms {
            c.lit *= sign;
            self.add_term(v, c);
        }
        self.inner_ranges.extend(other.inner_ranges);
        self
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
                atoms.sort_by(|a, b| a.0.cmp(&b.0));
                out.add_term(va.clone().or_else(|| vb.clone()), Coeff { lit: ca.lit * cb.lit, atoms });
            }
        }
        out.inner_ranges = self.inner_ranges;
        out.inner_ranges.extend(other.inner_ranges);
        Ok(out)
    }

    /// A canonical text: two indices with the same key address the same element in every iteration.
    pub fn key(&self) -> String {
        self.terms
            .iter()
            .map(|((v, atoms), c)| format!("{}·{}·{:?}", c.lit, atoms, v))
            .collect::<Vec<_>>()
            .join(" + ")
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

    /// The coefficients of the constant part (no variable).
    pub fn constant_terms(&self) -> Vec<&Coeff> {
        self.terms.iter().filter_map(|((v, _), c)| v.is_none().then_some(c)).collect()
    }

    /// Whether injectivity is evident without run-time values: exactly one variable, a literal non-zero coefficient.
    pub fn trivially_injective(&self) -> bool {
        let terms = self.var_terms();
        terms.len() == 1 && terms[0].1.atoms.is_empty() && terms[0].1.lit != 0
    }
}

/// Converts an index expression to an affine form, or says why it is not one.
pub fn affine(e: &Expr, env: &Env) -> Result<Poly, NotAffine> {
    match e {
        Expr::Paren(p) => affine(&p.expr, env),
        Expr::Group(g) => affine(&g.expr, env),
        // `x[a..b]` is a subslice, not one element: no affine index describes it.
        Expr::Range(_) => Err(NotAffine("a range index takes a subslice, not one element".into())),
        Expr::Lit(syn::ExprLit { lit: syn::Lit::Int(i), .. }) => {
            let v: i128 = i.base10_parse().map_err(|_| NotAffine("integer literal out of range".into()))?;
            Ok(Poly::constant(Coeff { lit: v, atoms: Vec::new() }))
        }
        Expr::Path(p) if p.qself.is_none() && p.path.get_ident().is_some() => {
            let id = p.path.get_ident().map(|i| i.to_string()).unwrap_or_default();
            match env.position(&id).map(|pos| (pos, env.lookup(&id))) {
                None => Ok(atom(e)),
                Some((_, Some(Binding::Parallel(d)))) => Ok(Poly::var(IterVar::Parallel(*d))),
                Some((pos, Some(Binding::InnerLoop(range)))) => {
                    let outer = env.before(pos);
                    if depends_on_body(range, &outer) {
                        return Err(NotAffine(format!(
                            "the bounds of the inner loop over `{id}` change from iteration to iteration"
                        )));
                    }
                    let text = range.to_token_stream().to_string();
                    let mut p = Poly::var(IterVar::Inner { name: id.clone(), range: text });
                    p.inner_ranges.insert(id, range.clone());
                    Ok(p)
                }
                Some((pos, Some(Binding::Let(init)))) => affine(init, &env.before(pos)),
                Some(_) => Err(NotAffine(format!("`{id}` is a variable computed inside the loop"))),
            }
        }
        Expr::Binary(b) => {
            let l = || affine(&b.left, env);
            let r = || affine(&b.right, env);
            match b.op {
                BinOp::Add(_) => Ok(l()?.add(r()?, 1)),
                BinOp::Sub(_) => Ok(l()?.add(r()?, -1)),
                BinOp::Mul(_) => l()?.mul(r()?),
                _ if !depends_on_body(e, env) => Ok(atom(e)),
                _ => Err(NotAffine(format!("it uses `{}` on a loop variable", b.op.to_token_stream()))),
            }
        }
        Expr::Unary(u) if matches!(u.op, UnOp::Neg(_)) => Ok(Poly::default().add(affine(&u.expr, env)?, -1)),
        Expr::Cast(c) if widening_cast(&c.ty) => affine(&c.expr, env),
        other if !depends_on_body(other, env) => Ok(atom(other)),
        Expr::Index(_) => Err(NotAffine("it reads another array (an indirect index)".into())),
        Expr::Call(_) | Expr::MethodCall(_) => Err(NotAffine("it calls a function on a loop variable".into())),
        _ => Err(NotAffine("it is not a sum of loop variables times loop-invariant values".into())),
    }
}

fn atom(e: &Expr) -> Poly {
    let text = e.to_token_stream().to_string();
    Poly::constant(Coeff { lit: 1, atoms: vec![(text, e.clone())] })
}

/// Whether an expression uses anything bound inside the loop (induction or local variables).
pub fn depends_on_body(e: &Expr, env: &Env) -> bool {
    free_idents(e).iter().any(|i| env.lookup(&i.to_string()).is_some())
}

fn widening_cast(ty: &Type) -> bool {
    match ty {
        Type::Path(p) => p.path.get_ident().is_some_and(|i| ["usize", "isize", "u64", "i64", "u128", "i128"].contains(&i.to_string().as_str())),
        _ => false,
    }
}

/// Whether a loop range can be lowered (used for inner loop ranges in run-time checks).
pub fn is_canonical_range(e: &Expr) -> bool {
    let cx = crate::ctxt::Ctxt::new();
    let f: syn::ExprForLoop = syn::parse_quote!(for __omp_probe in #e {});
    loops::extract(&f, 1, None, "", &cx).is_some()
}
