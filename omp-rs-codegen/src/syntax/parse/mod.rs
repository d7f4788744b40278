//! Parsing: attribute arguments → [`Directive`]. Clause spellings follow OpenMP 5.2; clauses may be separated by
//! commas or whitespace, and every malformed clause becomes one spanned error while parsing goes on.

pub(crate) mod clause;
mod map;
mod reduction;

use proc_macro2::{Span, TokenStream, TokenTree};
use quote::ToTokens;
use syn::ext::IdentExt;
use syn::parse::discouraged::Speculative;
use syn::parse::{ParseStream, Parser};
use syn::{Ident, Token};

use crate::ctxt::Ctxt;
use crate::model::{Clause, Construct, ConstructKind, Directive, Settings};
use crate::syntax::check;
use crate::syntax::keyword;

pub(crate) use reduction::parse_inscan as inscan_reduction;
pub(crate) use reduction::parse_op as reduction_op;

/// Resolves a directive name (`target_teams_distribute_parallel_for`) to its construct.
pub(crate) fn construct(name: &Ident, cx: &Ctxt) -> Option<Construct> {
    let s = name.to_string();
    match keyword::CONSTRUCTS.iter().find(|(n, _)| *n == s) {
        Some((n, kind)) => Some(Construct { name: n, kind: *kind, span: name.span() }),
        None => {
            let suggestion = did_you_mean(&s, keyword::construct_names());
            cx.error_spanned_by(name, format!("unknown OpenMP directive `{s}`{suggestion}"));
            None
        }
    }
}

/// Parses the arguments of a directive attribute (the tokens inside `#[omp::name(...)]`) and checks them
/// against the construct. Errors go to `cx`; the returned directive holds every clause that parsed.
pub(crate) fn directive(construct: Construct, args: TokenStream, cx: &Ctxt) -> Directive {
    let mut critical_name = None;
    let mut clauses = Vec::new();
    let is_critical = construct.kind == ConstructKind::Critical;
    let parser = |input: ParseStream| -> syn::Result<()> {
        // `critical(name)`: the name comes first and is not a clause.
        if is_critical && input.peek(Ident::peek_any) && !input.peek2(syn::token::Paren) {
            let fork = input.fork();
            let id = Ident::parse_any(&fork)?;
            if id != "hint" {
                input.advance_to(&fork);
                critical_name = Some(id);
                let _ = input.parse::<Option<Token![,]>>();
            }
        }
        while !input.is_empty() {
            match clause::parse_one(input, &construct) {
                Ok(Some(c)) => clauses.push(c),
                Ok(None) => {}
                Err(e) => {
                    cx.syn_error(e);
                    skip_to_next_clause(input);
                }
            }
            if input.peek(Token![,]) {
                let _: Token![,] = input.parse()?;
            }
        }
        Ok(())
    };
    if let Err(e) = parser.parse2(args) {
        cx.syn_error(e);
    }
    let clauses = check::clauses(&construct, clauses, cx);
    let settings = Settings::of(&clauses);
    Directive { construct, clauses, settings, critical_name }
}

/// After a malformed clause: drop tokens up to the next top-level comma so the following clauses still parse.
fn skip_to_next_clause(input: ParseStream) {
    let _ = input.step(|cursor| {
        let mut rest = *cursor;
        while let Some((tt, next)) = rest.token_tree() {
            if let TokenTree::Punct(p) = &tt {
                if p.as_char() == ',' {
                    return Ok(((), rest));
                }
            }
            rest = next;
        }
        Ok(((), rest))
    });
}

/// `" (did you mean `x`?)"` for the closest known spelling, or nothing.
pub(crate) fn did_you_mean<'a>(word: &str, candidates: impl Iterator<Item = &'a str>) -> String {
    // A prefix (`reduce` → `reduction`) counts as close; otherwise the edit distance decides.
    let best = candidates
        .map(|c| {
            let common = word.chars().zip(c.chars()).take_while(|(a, b)| a == b).count();
            let d = if common >= 4 && common + 1 >= word.len() { 1 } else { edit_distance(word, c) };
            (d, c)
        })
        .min_by_key(|(d, _)| *d);
    match best {
        Some((d, c)) if d <= 2 + word.len() / 6 => format!(" (did you mean `{c}`?)"),
        _ => String::new(),
    }
}

fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            cur[j + 1] = (prev[j] + usize::from(ca != *cb)).min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

/// Keeps `Clause` construction in one place. Errors about a clause point at its name (stable proc macros cannot
/// join spans).
fn clause_at(name: crate::model::ClauseName, name_span: Span, value: crate::model::ClauseValue) -> Clause {
    Clause { name, span: name_span, name_span, value }
}

/// A clause list cut into its clauses (`name` or `name(..)`, commas optional as in OpenMP), each with its tokens.
/// At the top level of a clause list every identifier starts a clause; other tokens stay with the clause before them
/// (the directive's parse reports what does not read as one).
pub(crate) fn clause_chunks(args: &TokenStream) -> Vec<(String, TokenStream)> {
    let mut out: Vec<(String, TokenStream)> = Vec::new();
    for tt in args.clone() {
        match &tt {
            TokenTree::Punct(p) if p.as_char() == ',' => continue,
            TokenTree::Ident(i) => {
                out.push((i.to_string(), tt.to_token_stream()));
                continue;
            }
            _ => {}
        }
        match out.last_mut() {
            Some((_, t)) => t.extend([tt]),
            None => out.push((String::new(), tt.to_token_stream())),
        }
    }
    out
}
