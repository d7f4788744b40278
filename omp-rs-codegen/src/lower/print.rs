//! Prints generated kernel code so that the tokens copied from the user's loop body keep the line and column they
//! have in the user's file. Compiled with `--remap-path-prefix <kernel file>=<user file>`, a panic in the body (an
//! index out of bounds) then reports the user's own `file:line:col`.
//!
//! Positions come from proc-macro2's `span-locations` (the build script parses the files itself). Tokens without a
//! real position (generated ones have the call-site span, on line 1, where short strings parsed on the side also land) are
//! printed inline; the printer never moves backwards, so a token whose place was already passed is printed inline
//! too: the code stays valid, only that location is approximate.

use proc_macro2::{Delimiter, Spacing, Span, TokenStream, TokenTree};

/// Printer state: the output and the current position (1-based line, 0-based column).
struct Printer {
    out: String,
    line: usize,
    col: usize,
    /// The previous token was a joint punctuation (`+` of `+=`): the next one must follow without a space.
    joint: bool,
}

impl Printer {
    fn place(&mut self, span: Span) {
        if std::mem::take(&mut self.joint) {
            return;
        }
        let start = span.start();
        let located = start.line >= 2;
        if located && (start.line, start.column) > (self.line, self.col) {
            if start.line > self.line {
                self.out.extend(std::iter::repeat_n('\n', start.line - self.line));
                self.line = start.line;
                self.col = 0;
            }
            self.out.extend(std::iter::repeat_n(' ', start.column - self.col));
            self.col = start.column;
        } else if !self.out.ends_with(['\n', ' ']) && !self.out.is_empty() {
            self.write(" ");
        }
    }

    fn write(&mut self, text: &str) {
        self.out.push_str(text);
        match text.rfind('\n') {
            Some(i) => {
                self.line += text.matches('\n').count();
                self.col = text.len() - i - 1;
            }
            None => self.col += text.chars().count(),
        }
    }

    fn stream(&mut self, ts: TokenStream) {
        for tt in ts {
            match tt {
                TokenTree::Group(g) => {
                    let (open, close) = match g.delimiter() {
                        Delimiter::Parenthesis => ("(", ")"),
                        Delimiter::Brace => ("{", "}"),
                        Delimiter::Bracket => ("[", "]"),
                        Delimiter::None => ("", ""),
                    };
                    self.place(g.span_open());
                    self.write(open);
                    self.stream(g.stream());
                    self.place(g.span_close());
                    self.write(close);
                }
                TokenTree::Ident(i) => {
                    self.place(i.span());
                    self.write(&i.to_string());
                }
                TokenTree::Literal(l) => {
                    self.place(l.span());
                    self.write(&l.to_string());
                }
                TokenTree::Punct(p) => {
                    self.place(p.span());
                    self.write(&p.as_char().to_string());
                    self.joint = p.spacing() == Spacing::Joint;
                }
            }
        }
    }
}

/// `prefix` on line 1, then `tokens` with the user's tokens at their original positions.
pub(crate) fn positioned(prefix: &str, tokens: TokenStream) -> String {
    let mut p = Printer { out: String::new(), line: 1, col: 0, joint: false };
    p.write(prefix);
    p.stream(tokens);
    p.out.push('\n');
    p.out
}

/// The same tokens with every span replaced by the call site (so they print inline).
pub(crate) fn unlocated(ts: TokenStream) -> TokenStream {
    ts.into_iter()
        .map(|mut tt| {
            if let TokenTree::Group(g) = &tt {
                let mut ng = proc_macro2::Group::new(g.delimiter(), unlocated(g.stream()));
                ng.set_span(Span::call_site());
                tt = TokenTree::Group(ng);
            } else {
                tt.set_span(Span::call_site());
            }
            tt
        })
        .collect()
}
