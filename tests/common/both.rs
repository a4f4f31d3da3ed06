//! `both!`: one function written once, annotated for each backend.
//!
//! ```text
//! both! {
//!     /// docs and other attributes, on both
//!     [wrt(a, b)] pub fn f / f_cps(a: f64, b: f64) -> f64 { a * b }
//! }
//! // expands to
//! #[revad::reverse(wrt(a, b))] pub fn f(..) -> f64 { a * b }           // the tape backend
//! #[revad::reverse(cps, wrt(a, b))] pub fn f_cps(..) -> f64 { a * b }  // the CPS backend
//! ```
//!
//! Included with `#[path]` and `#[macro_use]` by each file that includes `workloads.rs` or
//! `wang.rs`, before them (a file included twice in one crate is clippy's `duplicate_mod`).

/// Writes a function twice: `NAME` under `#[revad::reverse(ARGS)]` and `CPS` under
/// `#[revad::reverse(cps, ARGS)]`.
macro_rules! both {
    (
        $(#[$attr:meta])*
        [$($args:tt)*] $vis:vis fn $name:ident / $cps:ident
        ($($p:ident: $t:ty),* $(,)?) -> $r:ty $body:block
    ) => {
        $(#[$attr])*
        #[::revad::reverse($($args)*)]
        $vis fn $name($($p: $t),*) -> $r $body

        $(#[$attr])*
        #[::revad::reverse(cps, $($args)*)]
        $vis fn $cps($($p: $t),*) -> $r $body
    };
}
