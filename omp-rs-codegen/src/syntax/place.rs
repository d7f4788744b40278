//! Place expressions (`x`, `x[i]`, `x[i][j]`, `x.f`, `(*x)[i]`): the variable they are rooted at, and which
//! operators write them. Syntax helpers shared by the body-directive parser, the capture analysis, the loop-nest
//! reader and both lowerings (a leaf module: it uses nothing of the crate).

use syn::{BinOp, Expr, Ident};

/// The variable a place expression is rooted at, and the index applied directly to it.
pub(crate) struct Root<'a> {
    /// The variable.
    pub ident: &'a Ident,
    /// `x[index]...`: the index applied to `x` itself.
    pub first_index: Option<&'a Expr>,
    /// Whether a field access comes between the variable and the first index.
    pub through_field: bool,
}

/// Finds the variable at the root of a place expression (`x`, `x[i]`, `x[i][j]`, `x.f`, `(*x)[i]`).
pub(crate) fn place_root(e: &Expr) -> Option<Root<'_>> {
    match e {
        Expr::Path(p) if p.qself.is_none() => p.path.get_ident().map(|ident| Root { ident, first_index: None, through_field: false }),
        Expr::Paren(p) => place_root(&p.expr),
        Expr::Group(g) => place_root(&g.expr),
        Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => place_root(&u.expr),
        Expr::Field(f) => place_root(&f.base).map(|r| Root { through_field: true, ..r }),
        Expr::Index(ix) => {
            let base = place_root(&ix.expr)?;
            if base.first_index.is_none() && !base.through_field {
                Some(Root { first_index: Some(&ix.index), ..base })
            } else {
                Some(base)
            }
        }
        _ => None,
    }
}

/// Whether `op` is a compound assignment (`+=`, `<<=`, ...).
pub(crate) fn is_compound_assign(op: &BinOp) -> bool {
    matches!(
        op,
        BinOp::AddAssign(_)
            | BinOp::SubAssign(_)
            | BinOp::MulAssign(_)
            | BinOp::DivAssign(_)
            | BinOp::RemAssign(_)
            | BinOp::BitXorAssign(_)
            | BinOp::BitAndAssign(_)
            | BinOp::BitOrAssign(_)
            | BinOp::ShlAssign(_)
            | BinOp::ShrAssign(_)
    )
}
