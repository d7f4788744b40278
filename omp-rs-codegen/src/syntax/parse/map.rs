//! `map([always,] [close,] [present,] kind: items)`, and the item lists of `to(...)`/`from(...)`.
//! Array sections use Rust range syntax: `x[a..b]`, `x[..n]`, `x[a..=b]`, `x[..]`.

use syn::ext::IdentExt;
use syn::parse::discouraged::Speculative;
use syn::parse::ParseStream;
use syn::{Expr, Ident, RangeLimits, Token};

use crate::model::{Map, MapItem, MapKind, MapModifiers, Section};

pub(super) fn parse_map(input: ParseStream) -> syn::Result<Map> {
    let mut modifiers = MapModifiers::default();
    let mut kind = MapKind::ToFrom;
    // Does a `... :` prefix (modifiers and a map type) come first?
    let fork = input.fork();
    let mut words = Vec::new();
    let mut has_prefix = false;
    while fork.peek(Ident::peek_any) {
        words.push(Ident::parse_any(&fork)?);
        if fork.peek(Token![:]) && !fork.peek(Token![::]) {
            let _: Token![:] = fork.parse()?;
            has_prefix = true;
            break;
        }
        if fork.parse::<Option<Token![,]>>()?.is_none() && !fork.peek(Ident::peek_any) {
            break;
        }
    }
    if has_prefix {
        input.advance_to(&fork);
        let (last, mods) = words.split_last().ok_or_else(|| input.error("expected a map type"))?;
        for m in mods {
            match m.to_string().as_str() {
                "always" => modifiers.always = true,
                "close" => modifiers.close = true,
                "present" => modifiers.present = true,
                other => {
                    return Err(syn::Error::new(
                        m.span(),
                        format!("unknown map-type modifier `{other}`; expected `always`, `close` or `present`"),
                    ))
                }
            }
        }
        kind = match last.to_string().as_str() {
            "to" => MapKind::To,
            "from" => MapKind::From,
            "tofrom" => MapKind::ToFrom,
            "alloc" => MapKind::Alloc,
            "release" => MapKind::Release,
            "delete" => MapKind::Delete,
            "always" | "close" | "present" => {
                // `map(present: x)` — modifier with the default map type.
                match last.to_string().as_str() {
                    "always" => modifiers.always = true,
                    "close" => modifiers.close = true,
                    _ => modifiers.present = true,
                }
                MapKind::ToFrom
            }
            other => {
                return Err(syn::Error::new(
                    last.span(),
                    format!("unknown map type `{other}`; expected `to`, `from`, `tofrom`, `alloc`, `release` or `delete`"),
                ))
            }
        };
    }
    let items = parse_map_items(input)?;
    Ok(Map { kind, modifiers, items })
}

/// A comma-separated list of variables with optional sections.
pub(super) fn parse_map_items(input: ParseStream) -> syn::Result<Vec<MapItem>> {
    let mut items = Vec::new();
    while !input.is_empty() {
        let var: Ident = input.parse().map_err(|e| syn::Error::new(e.span(), "expected a variable name to map"))?;
        let section = if input.peek(syn::token::Bracket) {
            let content;
            let bracket = syn::bracketed!(content in input);
            Some(parse_section(&content, &var, bracket.span.join())?)
        } else {
            None
        };
        if input.peek(Token![.]) {
            return Err(input.error("map a variable, not a field or method result: bind it first (`let xs = &s.xs;`) and map `xs`"));
        }
        items.push(MapItem { var, section });
        if input.is_empty() {
            break;
        }
        let _: Token![,] = input.parse()?;
    }
    if items.is_empty() {
        return Err(input.error("expected at least one variable to map"));
    }
    Ok(items)
}

fn parse_section(content: ParseStream, var: &Ident, span: proc_macro2::Span) -> syn::Result<Section> {
    let tokens: proc_macro2::TokenStream = content.parse()?;
    // C-style `x[start:length]` is the most likely mistake when porting; say what to write instead.
    let text = tokens.to_string();
    if text.contains(':') && !text.contains("::") {
        return Err(syn::Error::new(
            span,
            format!("array sections use Rust range syntax: write `{var}[start..start + length]` instead of `{var}[start:length]`"),
        ));
    }
    let expr: Expr = syn::parse2(tokens).map_err(|_| syn::Error::new(span, "expected a range such as `a..b`, `..n` or `..`"))?;
    match expr {
        Expr::Range(r) => {
            Ok(Section { start: r.start.map(|e| *e), end: r.end.map(|e| *e), inclusive: matches!(r.limits, RangeLimits::Closed(_)) })
        }
        other => Err(syn::Error::new_spanned(other, format!("an array section is a range: `{var}[a..b]`, `{var}[..n]` or `{var}[..]`"))),
    }
}
