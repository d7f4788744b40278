//! The names of an ndarray rewrite (`desugar::ndarrays`): its per-axis check `below(i, n)` and the flat slices
//! `a_flat`, which the affine reader reads through and messages show as the user's `a[[i, j]]`.

use quote::ToTokens;
use syn::visit::Visit;
use syn::Expr;

/// The path of the per-axis check, as the host expansion spells it (the device lowering maps it to `omp_device`).
pub(crate) const BELOW: &str = ":: omp :: __private :: nd :: below";

/// Whether a call's function is the per-axis check (`analyze::affine` reads `below(i, n)` as `i`).
pub(crate) fn is_below(func: &Expr) -> bool {
    matches!(func, Expr::Path(p) if p.qself.is_none() && p.path.to_token_stream().to_string() == BELOW)
}

/// An access as the user wrote it, for run-time messages: `v_flat[below(i, v_n0) * v_n1 + below(j, v_n1)]` reads
/// `v[[i, j]]` (the array's name and the index inside the outer brackets); other accesses as they are.
pub(crate) fn user_text(array: &str, index: &Expr) -> (String, String) {
    struct Axes(Vec<String>);
    impl<'ast> Visit<'ast> for Axes {
        fn visit_expr_call(&mut self, c: &'ast syn::ExprCall) {
            if is_below(&c.func) {
                if let Some(i) = c.args.first() {
                    self.0.push(i.to_token_stream().to_string());
                }
                return;
            }
            syn::visit::visit_expr_call(self, c);
        }
    }
    let mut axes = Axes(Vec::new());
    axes.visit_expr(index);
    match array.trim_end_matches('_').strip_suffix("_flat") {
        Some(var) if !axes.0.is_empty() => (var.to_string(), format!("[{}]", axes.0.join(", "))),
        _ => (array.to_string(), index.to_token_stream().to_string()),
    }
}

/// A compile-time message with each quoted access of a rewritten array (`` `v_flat[below(i, v_n0) * v_n1 + ..]` ``)
/// shown as written (`` `v[[i, j]]` ``).
pub(crate) fn in_user_terms(msg: String) -> String {
    if !msg.contains("_flat[") {
        return msg;
    }
    let parts: Vec<String> = msg
        .split('`')
        .enumerate()
        .map(|(k, part)| {
            let access = (k % 2 == 1).then(|| syn::parse_str::<Expr>(part).ok()).flatten();
            match access {
                Some(Expr::Index(ix)) => match &*ix.expr {
                    Expr::Path(p) if p.path.get_ident().is_some() => {
                        let (array, index) = user_text(&p.path.to_token_stream().to_string(), &ix.index);
                        format!("{array}[{index}]")
                    }
                    _ => part.to_string(),
                },
                _ => part.to_string(),
            }
        })
        .collect();
    parts.join("`")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_show_the_index_as_written() {
        let index: Expr = syn::parse_str(&format!("({BELOW}(i, v_n0)) * v_n1 + {BELOW}(j + 1, v_n1)")).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(user_text("v_flat", &index), ("v".to_string(), "[i, j + 1]".to_string()));
        let plain: Expr = syn::parse_str("2 * i + 1").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(user_text("y", &plain), ("y".to_string(), "2 * i + 1".to_string()));
        let msg = format!("writes `b_flat[({BELOW}(0, b_n0)) * b_n1 + {BELOW}(j, b_n1)]` (a data race) and `y[i]`");
        assert_eq!(in_user_terms(msg), "writes `b[[0, j]]` (a data race) and `y[i]`");
    }
}
