//! One clause: `name` or `name(arguments)`. The simple clauses are parsed here; `map`/`to`/`from` and
//! `reduction` have files of their own.

use syn::ext::IdentExt;
use syn::parse::discouraged::Speculative;
use syn::parse::{ParseStream, Parser};
use syn::punctuated::Punctuated;
use syn::{Expr, Ident, LitInt, Token};

use super::{clause_at, did_you_mean, map, reduction};
use crate::model::{AtomicKind, Clause, ClauseName, ClauseValue, Construct, DefaultKind, DependKind, Schedule, ScheduleKind};
use crate::syntax::keyword;

/// Parses the next clause. `Ok(None)` never happens today but keeps room for clauses that are accepted and dropped.
pub(super) fn parse_one(input: ParseStream, construct: &Construct) -> syn::Result<Option<Clause>> {
    if !input.peek(Ident::peek_any) {
        return Err(input.error(format!("expected a clause name; clauses allowed on `{}`: {}", construct.name, construct.allowed_list())));
    }
    let ident = Ident::parse_any(input)?;
    let text = ident.to_string();
    let Some(name) = keyword::clause(&text) else {
        if keyword::UNSUPPORTED_CLAUSES.contains(&text.as_str()) {
            return Err(syn::Error::new(
                ident.span(),
                format!(
                    "the OpenMP clause `{text}` is not supported by omp-rs yet; clauses allowed on `{}`: {}",
                    construct.name,
                    construct.allowed_list()
                ),
            ));
        }
        let names = construct.allowed_clauses();
        let suggestion = did_you_mean(&text, names.iter().map(|c| c.as_str()));
        return Err(syn::Error::new(
            ident.span(),
            format!("unknown clause `{text}`{suggestion}; clauses allowed on `{}`: {}", construct.name, construct.allowed_list()),
        ));
    };
    let args = if input.peek(syn::token::Paren) {
        let content;
        syn::parenthesized!(content in input);
        Some(content.parse::<proc_macro2::TokenStream>()?)
    } else {
        None
    };
    let value = parse_value(name, &ident, args)?;
    Ok(Some(clause_at(name, ident.span(), value)))
}

fn needs_args(ident: &Ident, args: Option<proc_macro2::TokenStream>, example: &str) -> syn::Result<proc_macro2::TokenStream> {
    match args {
        Some(a) if !a.is_empty() => Ok(a),
        _ => Err(syn::Error::new(ident.span(), format!("`{ident}` needs an argument, e.g. `{example}`"))),
    }
}

fn no_args(ident: &Ident, args: Option<proc_macro2::TokenStream>) -> syn::Result<()> {
    match args {
        None => Ok(()),
        Some(a) => Err(syn::Error::new_spanned(a, format!("`{ident}` takes no arguments"))),
    }
}

fn var_list(input: ParseStream) -> syn::Result<Vec<Ident>> {
    let list = Punctuated::<Ident, Token![,]>::parse_terminated(input)?;
    if list.is_empty() {
        return Err(input.error("expected a list of variables"));
    }
    Ok(list.into_iter().collect())
}

fn parse_value(name: ClauseName, ident: &Ident, args: Option<proc_macro2::TokenStream>) -> syn::Result<ClauseValue> {
    use ClauseName as N;
    Ok(match name {
        N::Collapse => {
            let a = needs_args(ident, args, "collapse(2)")?;
            let lit: LitInt = syn::parse2(a.clone())
                .map_err(|_| syn::Error::new_spanned(&a, "`collapse` takes a positive integer literal, e.g. `collapse(2)`"))?;
            let n: u32 = lit.base10_parse()?;
            if n == 0 {
                return Err(syn::Error::new_spanned(lit, "`collapse` must be at least 1"));
            }
            ClauseValue::Collapse(n)
        }
        N::Reduction => ClauseValue::Reduction(reduction::parse.parse2(needs_args(ident, args, "reduction(+: sum)")?)?),
        N::Map => ClauseValue::Map(map::parse_map.parse2(needs_args(ident, args, "map(to: x)")?)?),
        N::To => ClauseValue::To(map::parse_map_items.parse2(needs_args(ident, args, "to(x)")?)?),
        N::From => ClauseValue::From(map::parse_map_items.parse2(needs_args(ident, args, "from(x)")?)?),
        N::Schedule => ClauseValue::Schedule(parse_schedule.parse2(needs_args(ident, args, "schedule(dynamic, 4)")?)?),
        N::DistSchedule => {
            let a = needs_args(ident, args, "dist_schedule(static)")?;
            let parser = |input: ParseStream| -> syn::Result<Option<Expr>> {
                let kind = Ident::parse_any(input)?;
                if kind != "static" {
                    return Err(syn::Error::new(kind.span(), "`dist_schedule` takes `static` or `static, chunk`"));
                }
                if input.parse::<Option<Token![,]>>()?.is_some() {
                    return Ok(Some(input.parse()?));
                }
                Ok(None)
            };
            ClauseValue::DistSchedule(parser.parse2(a)?)
        }
        N::NumThreads => ClauseValue::NumThreads(syn::parse2(needs_args(ident, args, "num_threads(4)")?)?),
        N::NumTeams => ClauseValue::NumTeams(syn::parse2(needs_args(ident, args, "num_teams(128)")?)?),
        N::ThreadLimit => ClauseValue::ThreadLimit(syn::parse2(needs_args(ident, args, "thread_limit(256)")?)?),
        N::Device => ClauseValue::Device(syn::parse2(needs_args(ident, args, "device(0)")?)?),
        N::Simdlen => ClauseValue::Simdlen(syn::parse2(needs_args(ident, args, "simdlen(8)")?)?),
        N::Safelen => ClauseValue::Safelen(syn::parse2(needs_args(ident, args, "safelen(8)")?)?),
        N::Hint => ClauseValue::Hint(syn::parse2(needs_args(ident, args, "hint(0)")?)?),
        N::UnsafeDisjoint => {
            let a = needs_args(ident, args, "unsafe(disjoint(u))")?;
            let parser = |input: ParseStream| -> syn::Result<Vec<Ident>> {
                let kind = Ident::parse_any(input)?;
                if kind != "disjoint" {
                    return Err(syn::Error::new(
                        kind.span(),
                        format!("`unsafe({kind})` is not an omp-rs clause; the escape hatch is `unsafe(disjoint(arrays))`"),
                    ));
                }
                let content;
                syn::parenthesized!(content in input);
                var_list(&content)
            };
            ClauseValue::UnsafeDisjoint { unsafe_token: syn::token::Unsafe(ident.span()), vars: parser.parse2(a)? }
        }
        N::If => {
            let a = needs_args(ident, args, "if(n > 1000)")?;
            let parser = |input: ParseStream| -> syn::Result<ClauseValue> {
                // `if(target: cond)` / `if(parallel: cond)`: a directive-name modifier.
                let modifier = if input.peek(Ident::peek_any) && input.peek2(Token![:]) && !input.peek2(Token![::]) {
                    let m = Ident::parse_any(input)?;
                    let _: Token![:] = input.parse()?;
                    Some(m)
                } else {
                    None
                };
                Ok(ClauseValue::If { modifier, cond: input.parse()? })
            };
            parser.parse2(a)?
        }
        N::Nowait => {
            no_args(ident, args)?;
            ClauseValue::Nowait
        }
        N::Depend => {
            let a = needs_args(ident, args, "depend(inout: x)")?;
            let parser = |input: ParseStream| -> syn::Result<ClauseValue> {
                let k = Ident::parse_any(input)?;
                let kind = match k.to_string().as_str() {
                    "in" => DependKind::In,
                    "out" => DependKind::Out,
                    "inout" => DependKind::InOut,
                    other => {
                        return Err(syn::Error::new(
                            k.span(),
                            format!("unknown dependence type `{other}`; expected `in`, `out` or `inout`"),
                        ))
                    }
                };
                let _: Token![:] = input.parse()?;
                Ok(ClauseValue::Depend { kind, vars: var_list(input)? })
            };
            parser.parse2(a)?
        }
        N::IsDevicePtr => ClauseValue::IsDevicePtr(var_list.parse2(needs_args(ident, args, "is_device_ptr(buf)")?)?),
        N::Private => ClauseValue::Private(var_list.parse2(needs_args(ident, args, "private(tmp)")?)?),
        N::Firstprivate => ClauseValue::Firstprivate(var_list.parse2(needs_args(ident, args, "firstprivate(x)")?)?),
        N::Shared => ClauseValue::Shared(var_list.parse2(needs_args(ident, args, "shared(x)")?)?),
        N::Default => {
            let a = needs_args(ident, args, "default(shared)")?;
            let k: Ident = Ident::parse_any.parse2(a)?;
            ClauseValue::Default(match k.to_string().as_str() {
                "shared" => DefaultKind::Shared,
                "none" => DefaultKind::None,
                "firstprivate" => DefaultKind::Firstprivate,
                "private" => DefaultKind::Private,
                other => {
                    return Err(syn::Error::new(
                        k.span(),
                        format!("unknown `default` kind `{other}`; expected `shared`, `none`, `firstprivate` or `private`"),
                    ))
                }
            })
        }
        N::ProcBind => {
            let k: Ident = Ident::parse_any.parse2(needs_args(ident, args, "proc_bind(spread)")?)?;
            if !["primary", "master", "close", "spread"].contains(&k.to_string().as_str()) {
                return Err(syn::Error::new(k.span(), "expected `primary`, `close` or `spread`"));
            }
            ClauseValue::ProcBind(k)
        }
        N::Order => {
            let k: Ident = Ident::parse_any.parse2(needs_args(ident, args, "order(concurrent)")?)?;
            if k != "concurrent" {
                return Err(syn::Error::new(k.span(), "expected `order(concurrent)`"));
            }
            ClauseValue::Order(k)
        }
        N::Read | N::Write | N::Update | N::Capture | N::Compare => {
            no_args(ident, args)?;
            ClauseValue::Atomic(match name {
                N::Read => AtomicKind::Read,
                N::Write => AtomicKind::Write,
                N::Capture => AtomicKind::Capture,
                N::Compare => AtomicKind::Compare,
                _ => AtomicKind::Update,
            })
        }
        N::SeqCst | N::AcqRel | N::Acquire | N::Release | N::Relaxed => {
            no_args(ident, args)?;
            ClauseValue::MemoryOrder(ident.clone())
        }
    })
}

fn parse_schedule(input: ParseStream) -> syn::Result<Schedule> {
    // Optional modifiers: `schedule(monotonic: dynamic, 4)`, `schedule(nonmonotonic, simd: guided)`.
    let fork = input.fork();
    let mut has_modifiers = false;
    while fork.peek(Ident::peek_any) {
        let m = Ident::parse_any(&fork)?;
        if !["monotonic", "nonmonotonic", "simd"].contains(&m.to_string().as_str()) {
            break;
        }
        if fork.peek(Token![:]) {
            let _: Token![:] = fork.parse()?;
            has_modifiers = true;
            break;
        }
        if fork.parse::<Option<Token![,]>>()?.is_none() {
            break;
        }
    }
    if has_modifiers {
        input.advance_to(&fork);
    }
    let kind_ident = Ident::parse_any(input)?;
    let kind = match kind_ident.to_string().as_str() {
        "static" => ScheduleKind::Static,
        "dynamic" => ScheduleKind::Dynamic,
        "guided" => ScheduleKind::Guided,
        "auto" => ScheduleKind::Auto,
        "runtime" => ScheduleKind::Runtime,
        other => {
            return Err(syn::Error::new(
                kind_ident.span(),
                format!("unknown schedule kind `{other}`; expected `static`, `dynamic`, `guided`, `auto` or `runtime`"),
            ))
        }
    };
    let chunk = if input.parse::<Option<Token![,]>>()?.is_some() { Some(input.parse::<Expr>()?) } else { None };
    if chunk.is_some() && matches!(kind, ScheduleKind::Auto | ScheduleKind::Runtime) {
        return Err(syn::Error::new(kind_ident.span(), format!("`schedule({kind_ident})` takes no chunk size")));
    }
    if !input.is_empty() {
        return Err(input.error("unexpected tokens after the chunk size"));
    }
    Ok(Schedule { kind, chunk })
}
