//! Error collector: every problem in a directive becomes one spanned `syn::Error`, and the user sees all of
//! them at once (serde's `Ctxt`). Errors turn into tokens only at the macro entry point.

use std::cell::RefCell;
use std::fmt::Display;

use proc_macro2::Span;
use quote::ToTokens;

/// Collects errors while a directive is parsed, checked and lowered. Like serde's, it must end in [`check`]
/// (which turns the errors into the one compile error the user sees): dropped with errors unreported, it panics, so
/// that a code path that would swallow a user's error shows up in the tests as a macro panic instead of as a
/// silently accepted directive. Look-ahead passes whose errors the real pass reports use [`scratch`].
///
/// [`check`]: Ctxt::check
/// [`scratch`]: Ctxt::scratch
#[derive(Debug, Default)]
pub struct Ctxt {
    errors: RefCell<Vec<syn::Error>>,
    /// Errors may be dropped unreported.
    scratch: bool,
    /// Locals the rewrites made for what the user wrote otherwise (`self_v` for `self.v`), as messages show them.
    shown: RefCell<Vec<(String, String)>>,
}

impl Ctxt {
    /// A new, empty collector.
    pub fn new() -> Self {
        Self::default()
    }

    /// A collector whose errors are dropped: for looking ahead at code that another pass reports on (e.g. the
    /// build script's outliner, which leaves regions with errors to the macros).
    pub fn scratch() -> Self {
        Ctxt { errors: RefCell::default(), scratch: true, shown: RefCell::default() }
    }

    /// Records an error spanning the tokens of `obj`.
    pub fn error_spanned_by<T: ToTokens, M: Display>(&self, obj: T, msg: M) {
        let msg = self.user_terms(msg);
        self.errors.borrow_mut().push(syn::Error::new_spanned(obj, msg));
    }

    /// Records an error at `span`.
    pub fn error_at<M: Display>(&self, span: Span, msg: M) {
        let msg = self.user_terms(msg);
        self.errors.borrow_mut().push(syn::Error::new(span, msg));
    }

    /// Messages name the rewrite's local `local` as `shown` (a hoisted field: `self_v` as `self.v`). The local's
    /// name is one the region does not use otherwise, so every whole-word occurrence in a message is it.
    pub fn show_as(&self, local: &str, shown: &str) {
        self.shown.borrow_mut().push((local.to_string(), shown.to_string()));
    }

    /// A message with the names the rewrites made (hoisted fields, SPMD thread numbers, ndarray flat indices)
    /// written as the user did.
    fn user_terms(&self, msg: impl Display) -> String {
        let mut msg = crate::names::nd::in_user_terms(crate::names::spmd::in_user_terms(msg.to_string()));
        for (local, shown) in self.shown.borrow().iter() {
            msg = replace_word(&msg, local, shown);
        }
        msg
    }

    /// Records an error produced by syn.
    pub fn syn_error(&self, err: syn::Error) {
        self.errors.borrow_mut().push(err);
    }

    /// Whether any error was recorded so far.
    pub fn has_errors(&self) -> bool {
        !self.errors.borrow().is_empty()
    }

    /// Combines all errors into one (`None` if there were none).
    pub fn check(self) -> Result<(), syn::Error> {
        let mut errors = std::mem::take(&mut *self.errors.borrow_mut()).into_iter();
        let Some(mut combined) = errors.next() else { return Ok(()) };
        for rest in errors {
            combined.combine(rest);
        }
        Err(combined)
    }
}

impl Drop for Ctxt {
    // Deliberate: only a bug of omp-rs gets here, and a macro panic is the loud failure the tests should see.
    #[allow(clippy::panic)]
    fn drop(&mut self) {
        let errors = self.errors.get_mut();
        if !self.scratch && !errors.is_empty() && !std::thread::panicking() {
            panic!("omp-rs: {} error(s) collected and never reported (first: {}); this is a bug of omp-rs", errors.len(), errors[0]);
        }
    }
}

/// `text` with every whole-word occurrence of `word` (not inside a longer identifier) replaced by `with`.
fn replace_word(text: &str, word: &str, with: &str) -> String {
    let is_ident = |c: char| c.is_alphanumeric() || c == '_';
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(word) {
        let before = rest[..at].chars().next_back();
        let after = rest[at + word.len()..].chars().next();
        out.push_str(&rest[..at]);
        if before.is_some_and(is_ident) || after.is_some_and(is_ident) {
            out.push_str(word);
        } else {
            out.push_str(with);
        }
        rest = &rest[at + word.len()..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_must_be_checked_unless_scratch() {
        let cx = Ctxt::new();
        cx.error_at(Span::call_site(), "bad clause");
        assert!(cx.check().is_err());
        let scratch = Ctxt::scratch();
        scratch.error_at(Span::call_site(), "seen again by the real pass");
        drop(scratch);
        let forgotten = std::panic::catch_unwind(|| {
            let cx = Ctxt::new();
            cx.error_at(Span::call_site(), "swallowed");
        });
        assert!(forgotten.is_err(), "a Ctxt dropped with unreported errors must panic");
    }

    #[test]
    fn hoisted_locals_are_named_as_written() {
        let cx = Ctxt::scratch();
        cx.show_as("self_v", "self.v");
        assert_eq!(
            cx.user_terms("`self_v` at `self_v[i + 1]`, not `self_vx` or `my_self_v`"),
            "`self.v` at `self.v[i + 1]`, not `self_vx` or `my_self_v`"
        );
    }
}
