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
}

impl Ctxt {
    /// A new, empty collector.
    pub fn new() -> Self {
        Self::default()
    }

    /// A collector whose errors are dropped: for looking ahead at code that another pass reports on (e.g. the
    /// build script's outliner, which leaves regions with errors to the macros).
    pub fn scratch() -> Self {
        Ctxt { errors: RefCell::default(), scratch: true }
    }

    /// Records an error spanning the tokens of `obj`.
    pub fn error_spanned_by<T: ToTokens, M: Display>(&self, obj: T, msg: M) {
        self.errors.borrow_mut().push(syn::Error::new_spanned(obj, user_terms(msg)));
    }

    /// Records an error at `span`.
    pub fn error_at<M: Display>(&self, span: Span, msg: M) {
        self.errors.borrow_mut().push(syn::Error::new(span, user_terms(msg)));
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

/// A message with the names the rewrites made (SPMD thread numbers, ndarray flat indices) written as the user did.
fn user_terms(msg: impl Display) -> String {
    crate::ndarrays::in_user_terms(crate::spmd::in_user_terms(msg.to_string()))
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
}
