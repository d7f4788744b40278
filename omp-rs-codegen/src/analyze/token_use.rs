//! Host code inside a `#[omp::target_data]` block sees each mapped variable as the block's mapping token
//! (`omp::MappedMut` / `MappedRef`), which offers `len()`, `is_empty()`, `host()` and `host_mut()` (and the
//! token's own `var()`, `owner_device()`, `as_mapped_ref()`). A slice method called on it (`recv.copy_from_slice(..)`)
//! would be rustc's "no method named ..." on a type the user never wrote: [`refuse_slice_methods`] says instead
//! which host view to go through.

use std::collections::BTreeSet;

use syn::visit::{self, Visit};
use syn::{Expr, Ident};

use crate::ctxt::Ctxt;
use crate::syntax::body::find_omp_attr;

/// The methods of a mapping token.
const TOKEN_METHODS: &[&str] = &["len", "is_empty", "host", "host_mut", "var", "owner_device", "as_mapped_ref"];

/// Reports every method call on one of `mapped` in `block`'s host code (outside its directives) that a token does
/// not have, naming the host view to call it on.
pub(crate) fn refuse_slice_methods(block: &syn::Block, mapped: &[Ident], cx: &Ctxt) {
    let names = mapped.iter().map(Ident::to_string).collect();
    MethodCalls { names, cx }.visit_block(block);
}

struct MethodCalls<'a> {
    /// The mapped names still meaning the token (a `let` of the same name ends that).
    names: BTreeSet<String>,
    cx: &'a Ctxt,
}

impl<'ast> Visit<'ast> for MethodCalls<'_> {
    fn visit_stmt(&mut self, s: &'ast syn::Stmt) {
        // Directives (regions, nested blocks with their own rules) see arrays, not tokens.
        if find_omp_attr(crate::syntax::body::stmt_attrs(s)).is_some() {
            return;
        }
        visit::visit_stmt(self, s);
        if let syn::Stmt::Local(l) = s {
            let mut bound = Vec::new();
            crate::analyze::walk::pat_idents(&l.pat, &mut bound);
            for b in bound {
                self.names.remove(&b.to_string());
            }
        }
    }

    fn visit_expr(&mut self, e: &'ast Expr) {
        if let Expr::MethodCall(m) = e {
            if let Expr::Path(p) = &*m.receiver {
                let method = m.method.to_string();
                if let Some(v) = p.path.get_ident().map(Ident::to_string).filter(|v| self.names.contains(v)) {
                    if !TOKEN_METHODS.contains(&method.as_str()) {
                        self.cx.error_spanned_by(
                            m,
                            format!(
                                "inside this `target_data` block `{v}` is the block's mapping token, which has no `{method}`: \
                                 call it on the host copy, `{v}.host().{method}(..)` to read it (after \
                                 `omp::target_update!(from: {v})` for the device's values) or `{v}.host_mut().{method}(..)` \
                                 to change it (then `omp::target_update!(to: {v})`)"
                            ),
                        );
                    }
                }
            }
        }
        visit::visit_expr(self, e);
    }

    fn visit_item(&mut self, _: &'ast syn::Item) {}
}
