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
            attribute: Some(attribute),
            ..Errors::default()
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
    pub(crate) fn check(self) -> syn::Result<()> {
        let mut errors = self.errors.into_inner().into_iter();
        let Some(mut combined) = errors.next() else {
            return Ok(());
        };
        for err in errors {
            combined.combine(err);
        }
        Err(combined)
    }
}
