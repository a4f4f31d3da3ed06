//! Names of the variables of the IR, all made in one place (the backends name what they add:
//! adjoints `__adj_z` in `codegen::shared`, cells `__ad_cN` in `codegen::cps`).
//!
//! | thing | name | span |
//! |---|---|---|
//! | user variable, first binding of its name | `z` | the user's |
//! | user variable that shadows an earlier one | `__z_2` | mixed-site |
//! | temporary from splitting an expression | `__t0` | mixed-site |
//! | flags, trip counts, conditions | `__brk0`, `__trips0`, `__c0` | mixed-site |
//!
//! Mixed-site spans keep generated locals invisible to the user's tokens (and the other way
//! round), so no collision is possible; the `__` prefix keeps them recognisable as generated
//! in expanded code.

use std::collections::HashSet;

use proc_macro2::Span;
use syn::Ident;

/// Hands out unique names for one function.
#[derive(Default)]
pub(crate) struct Names {
    used: HashSet<String>,
    counter: usize,
}

impl Names {
    /// The name for a user binding of `ident`: the ident itself the first time, a fresh
    /// mixed-site name when it shadows an earlier binding.
    pub(crate) fn user(&mut self, ident: &Ident) -> Ident {
        let text = ident.to_string();
        // (`self` is a keyword: a copy of the receiver gets a name of its own.)
        if text != "self" && self.used.insert(text.clone()) {
            return ident.clone();
        }
        let mut n = 2;
        loop {
            // (`r#in` gives `__in_2`: a raw identifier's name without its `r#`.)
            let plain = syn::ext::IdentExt::unraw(ident).to_string();
            let candidate = format!("__{}_{}", plain.trim_start_matches('_'), n);
            if self.used.insert(candidate.clone()) {
                return Ident::new(&candidate, Span::mixed_site());
            }
            n += 1;
        }
    }

    /// A fresh generated name `__{prefix}{n}`.
    pub(crate) fn fresh(&mut self, prefix: &str) -> Ident {
        loop {
            let candidate = format!("__{prefix}{}", self.counter);
            self.counter += 1;
            if self.used.insert(candidate.clone()) {
                return Ident::new(&candidate, Span::mixed_site());
            }
        }
    }

    /// A fixed generated name (`__ret`), made unique if taken.
    pub(crate) fn fixed(&mut self, name: &str) -> Ident {
        let candidate = format!("__{name}");
        if self.used.insert(candidate.clone()) {
            return Ident::new(&candidate, Span::mixed_site());
        }
        self.fresh(name)
    }
}

/// A generated name that needs no uniqueness bookkeeping: `__seed`, `__stack`.
pub(crate) fn generated(name: &str) -> Ident {
    Ident::new(&format!("__{name}"), Span::mixed_site())
}

/// The name of the method that `#[revad::reverse] impl Mul<V2> for f64` gives the struct for
/// `k * v` (`revad_left_mul`), which `Lowerer::user_operator` calls: `v.revad_left_mul(k)`.
/// (Snake case, as the names of its derivatives are: `__ad_fwd_revad_left_mul`.)
pub(crate) fn left_operator_method(method: &str) -> String {
    format!("revad_left_{method}")
}

/// The operator (`mul`) of a method named by [`left_operator_method`].
pub(crate) fn left_operator_of(method: &str) -> Option<&str> {
    method.strip_prefix("revad_left_")
}
