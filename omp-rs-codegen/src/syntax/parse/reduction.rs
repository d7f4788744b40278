//! `reduction(op: vars)` with OpenMP's operators or the name of a user-defined reduction.

use syn::ext::IdentExt;
use syn::parse::ParseStream;
use syn::punctuated::Punctuated;
use syn::{Ident, Token};

use crate::model::{Reduction, ReductionOp};
use crate::syntax::keyword::REDUCTION_OPERATORS;

pub(super) fn parse(input: ParseStream) -> syn::Result<Reduction> {
    let op = parse_op(input)?;
    input
        .parse::<Token![:]>()
        .map_err(|e| syn::Error::new(e.span(), "expected `:` after the reduction operator, e.g. `reduction(+: sum)`"))?;
    if input.peek(Ident) && input.peek2(syn::token::Bracket) {
        return Err(
            input.error("a reduction on array elements (`d[0]`, `beta[..3]`) stands on a loop statement inside a `#[omp::directives]` fn")
        );
    }
    let vars = Punctuated::<Ident, Token![,]>::parse_terminated(input)?;
    if vars.is_empty() {
        return Err(input.error("expected the reduced variables after `:`"));
    }
    Ok(Reduction { op, vars: vars.into_iter().collect() })
}

/// `inscan, op: vars` (the clause of a scan's loop, `desugar::scan`).
pub(crate) fn parse_inscan(input: ParseStream) -> syn::Result<Reduction> {
    let m = Ident::parse_any(input)?;
    if m != "inscan" {
        return Err(syn::Error::new(m.span(), "expected `inscan`"));
    }
    input.parse::<Token![,]>()?;
    parse(input)
}

/// A reduction operator (`+`, `max`, `&&`, ...).
pub(crate) fn parse_op(input: ParseStream) -> syn::Result<ReductionOp> {
    let bad = |span: proc_macro2::Span, what: &str| {
        syn::Error::new(span, format!("unknown reduction operator `{what}`; expected one of {REDUCTION_OPERATORS}"))
    };
    // `reduction(inscan, +: x)` is a scan, which `desugar::scan` takes apart before directives are parsed: here it is on
    // a directive that is no loop statement of a `#[omp::directives]` fn. Other modifiers are not supported.
    if input.peek(Ident::peek_any) && input.peek2(Token![,]) {
        let m = Ident::parse_any(input)?;
        let msg = if m == "inscan" {
            "`reduction(inscan, ..)` is a scan: put the directive on a `for` loop statement in a `#[omp::directives]` fn, its \
             body split by `omp::scan!(inclusive(v))` or `omp::scan!(exclusive(v))`"
                .to_string()
        } else {
            format!("the reduction modifier `{m}` is not supported by omp-rs yet")
        };
        return Err(syn::Error::new(m.span(), msg));
    }
    if input.peek(Token![&&]) {
        input.parse::<Token![&&]>()?;
        return Ok(ReductionOp::LogAnd);
    }
    if input.peek(Token![||]) {
        input.parse::<Token![||]>()?;
        return Ok(ReductionOp::LogOr);
    }
    if input.peek(Token![+]) {
        input.parse::<Token![+]>()?;
        return Ok(ReductionOp::Add);
    }
    if input.peek(Token![-]) {
        // OpenMP < 5.2 allowed `-`, which has always meant `+`.
        input.parse::<Token![-]>()?;
        return Ok(ReductionOp::Add);
    }
    if input.peek(Token![*]) {
        input.parse::<Token![*]>()?;
        return Ok(ReductionOp::Mul);
    }
    if input.peek(Token![&]) {
        input.parse::<Token![&]>()?;
        return Ok(ReductionOp::BitAnd);
    }
    if input.peek(Token![|]) {
        input.parse::<Token![|]>()?;
        return Ok(ReductionOp::BitOr);
    }
    if input.peek(Token![^]) {
        input.parse::<Token![^]>()?;
        return Ok(ReductionOp::BitXor);
    }
    if input.peek(Ident::peek_any) {
        let id = Ident::parse_any(input)?;
        return match id.to_string().as_str() {
            "min" => Ok(ReductionOp::Min),
            "max" => Ok(ReductionOp::Max),
            // OpenMP's reduction identifier of a `declare reduction`: a `#[omp::declare_reduction]` fn in scope.
            _ if input.peek(Token![::]) => {
                Err(syn::Error::new(id.span(), "a user-defined reduction is named by one identifier: bring it into scope with `use`"))
            }
            _ => Ok(ReductionOp::User(id)),
        };
    }
    let tt: proc_macro2::TokenTree = input.parse()?;
    Err(bad(tt.span(), &tt.to_string()))
}
