//! Cross-clause rules that need the whole directive: clause allowed on this construct, duplicates,
//! `if` modifiers, a variable in two data-sharing clauses.

use std::collections::HashMap;

use crate::ctxt::Ctxt;
use crate::model::{Clause, ClauseName, ClauseValue, Construct, Leaves};

/// Keeps the clauses that are valid on `construct`, reporting every one that is not.
pub(crate) fn clauses(construct: &Construct, clauses: Vec<Clause>, cx: &Ctxt) -> Vec<Clause> {
    let allowed = construct.allowed_clauses();
    let mut seen: HashMap<ClauseName, proc_macro2::Span> = HashMap::new();
    let mut out = Vec::new();
    for c in clauses {
        if !allowed.contains(&c.name) {
            cx.error_at(
                c.name_span,
                format!("clause `{}` is not allowed on `{}`; allowed: {}", c.name.as_str(), construct.name, construct.allowed_list()),
            );
            continue;
        }
        if !c.name.repeatable() {
            if let Some(first) = seen.get(&c.name) {
                cx.error_at(c.name_span, format!("duplicate `{}` clause: it may appear only once", c.name.as_str()));
                cx.error_at(*first, format!("first `{}` clause here", c.name.as_str()));
                continue;
            }
            seen.insert(c.name, c.name_span);
        }
        if let ClauseValue::If { modifier: Some(m), .. } = &c.value {
            let leaf = match m.to_string().as_str() {
                "target" => Some(Leaves::TARGET),
                "teams" => Some(Leaves::TEAMS),
                "parallel" => Some(Leaves::PARALLEL),
                "simd" => Some(Leaves::SIMD),
                _ => None,
            };
            let ok = match (construct.leaves(), leaf) {
                (leaves, Some(l)) if leaves.contains(l) => true,
                // `target data`/`update`/`enter`/`exit` take the modifier of their own name.
                (_, _) if !construct.is_loop() && !construct.is_target() => {
                    let n = m.to_string();
                    construct.name.starts_with("target") && (n == "target_data" || n == construct.name || n == "target")
                }
                _ => false,
            };
            if !ok {
                cx.error_spanned_by(m, format!("`if({m}: ...)` names a construct that `{}` does not contain", construct.name));
                continue;
            }
        }
        out.push(c);
    }
    check_data_sharing(&out, cx);
    out
}

/// A variable may appear in at most one of private/firstprivate/shared/reduction.
fn check_data_sharing(clauses: &[Clause], cx: &Ctxt) {
    let mut owner: HashMap<String, &'static str> = HashMap::new();
    for c in clauses {
        let (what, vars): (&'static str, Vec<&syn::Ident>) = match &c.value {
            ClauseValue::Private(v) => ("private", v.iter().collect()),
            ClauseValue::Firstprivate(v) => ("firstprivate", v.iter().collect()),
            ClauseValue::Shared(v) => ("shared", v.iter().collect()),
            ClauseValue::Reduction(r) => ("reduction", r.vars.iter().collect()),
            ClauseValue::UnsafeDisjoint { vars, .. } => ("unsafe(disjoint)", vars.iter().collect()),
            _ => continue,
        };
        for v in vars {
            if let Some(prev) = owner.insert(v.to_string(), what) {
                cx.error_spanned_by(v, format!("`{v}` is already listed in a `{prev}` clause; a variable has one data-sharing attribute"));
            }
        }
    }
}
