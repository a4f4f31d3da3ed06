//! Error collection: every error found while reading one function is reported at once, each
//! at the span of the user code it is about.

use std::cell::{Cell, RefCell};
use std::fmt::Display;

use proc_macro2::Span;
use quote::ToTokens;

/// Collects the errors of one expansion, so the user sees them all at once (serde's `Ctxt`).
#[derive(Default)]
pub(crate) struct Errors {
    errors: RefCell<Vec<syn::Error>>,
    /// The attribute being expanded, when it is not `#[reverse]`: the messages of the stages
    /// it shares with `#[reverse]` name it instead.
    attribute: Option<&'static str>,
    /// A construct was rejected that rustc rejects in the function itself (see
    /// [`Errors::rustc_reports`]).
    by_rustc: Cell<bool>,
}

impl Errors {
    pub(crate) fn new() -> Self {
        Errors::default()
    }

    /// Errors of an expansion of `attribute` (`#[revad::forward]`), whose messages name it
    /// where they would say `#[reverse]`.
    pub(crate) fn for_attribute(attribute: &'static str) -> Self {
        Errors {
            errors: RefCell::default(),
            attribute: Some(attribute),
            by_rustc: Cell::default(),
        }
    }

    fn message(&self, msg: impl Display) -> String {
        let msg = msg.to_string();
        match self.attribute {
            Some(name) => msg.replace("#[reverse]", name),
            None => msg,
        }
    }

    /// Reports `msg` under the tokens of `node` (first to last token).
    pub(crate) fn error(&self, node: impl ToTokens, msg: impl Display) {
        let msg = self.message(msg);
        self.errors
            .borrow_mut()
            .push(syn::Error::new_spanned(node.into_token_stream(), msg));
    }

    /// Reports `msg` at `span`.
    pub(crate) fn error_at(&self, span: Span, msg: impl Display) {
        let msg = self.message(msg);
        self.errors.borrow_mut().push(syn::Error::new(span, msg));
    }

    /// Records an error produced elsewhere (by syn's parser, say).
    pub(crate) fn push(&self, err: syn::Error) {
        self.errors.borrow_mut().push(err);
    }

    /// Rejects a construct that rustc rejects in the function itself (which is emitted
    /// unchanged), with an error at the user's token: the expansion fails, and reports nothing
    /// of its own, so that the mistake is one error.
    pub(crate) fn rustc_reports(&self) {
        self.by_rustc.set(true);
    }

    /// The number of errors reported so far (a rejection left to rustc counts as one).
    pub(crate) fn count(&self) -> usize {
        self.errors.borrow().len() + usize::from(self.by_rustc.get())
    }

    /// Whether any error has been reported so far, or left to rustc.
    pub(crate) fn has_errors(&self) -> bool {
        !self.errors.borrow().is_empty() || self.by_rustc.get()
    }

    /// All errors combined into one, or `Ok(())` (also when the only ones are rustc's).
    /// Every `Errors` ends here: one dropped with errors it never gave back panics (see the
    /// `Drop` impl).
    pub(crate) fn check(self) -> syn::Result<()> {
        let mut errors = std::mem::take(&mut *self.errors.borrow_mut()).into_iter();
        let Some(mut combined) = errors.next() else {
            return Ok(());
        };
        for err in errors {
            combined.combine(err);
        }
        Err(combined)
    }
}

/// The guard of serde's `Ctxt`: errors reported but never given back by [`Errors::check`]
/// would be lost, and the macro would accept what it had rejected. That is a bug of the macro,
/// so it panics (rustc shows "proc macro panicked" at the attribute: a rejection, never a
/// silent acceptance). Dropping an `Errors` that holds no error is fine.
impl Drop for Errors {
    fn drop(&mut self) {
        let lost = self.errors.get_mut().len();
        if lost > 0 && !std::thread::panicking() {
            panic!(
                "revad: {lost} error(s) were reported but never emitted; this is a bug in revad"
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Errors;

    #[test]
    fn checked_errors_come_back_once() {
        let cx = Errors::new();
        cx.error_at(proc_macro2::Span::call_site(), "one");
        cx.error_at(proc_macro2::Span::call_site(), "two");
        let err = cx.check().unwrap_err();
        assert_eq!(err.into_iter().count(), 2);
        assert!(Errors::new().check().is_ok());
    }

    #[test]
    #[should_panic(expected = "1 error(s) were reported but never emitted")]
    fn errors_dropped_unchecked_panic() {
        let cx = Errors::new();
        cx.error_at(proc_macro2::Span::call_site(), "lost");
        drop(cx);
    }

    #[test]
    fn an_empty_collection_may_be_dropped() {
        drop(Errors::new());
    }
}
