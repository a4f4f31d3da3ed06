//! The macro's view of the intrinsic rule table in `ad_runtime::rules`.
//!
//! For each float intrinsic this says how many float arguments it takes, which primal values
//! its partials read (so the planner knows what the reverse sweep needs), and which runtime
//! function computes them. The generated code calls that function, so the derivative
//! conventions live in one place, the runtime; `tests/intrinsics.rs` checks that every entry
//! here has a runtime rule and agrees with its closed form.

/// One float intrinsic.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Rule {
    /// Method name: `x.sin()`, `f64::sin(x)`.
    pub name: &'static str,
    /// Float arguments, the receiver first (`powi` has 1: its exponent is an `i32`).
    pub arity: usize,
    /// Takes an `i32` exponent after the float arguments (`powi`).
    pub int_exponent: bool,
    /// The arguments (by position; the exponent of `powi` is position 1) that the partials
    /// read, in the order the runtime function takes them.
    pub reads_args: &'static [usize],
    /// The partials also read the output (passed after the arguments).
    pub reads_output: bool,
    /// How the partials are computed.
    pub partial: Partial,
    /// `ad::rules::NAME(x) -> (value, partial)`, for a reverse sweep that evaluates the
    /// intrinsic again and needs its partial too (`sin_cos` for `sin`).
    pub fused: Option<&'static str>,
}

/// How the partials of a [`Rule`] are computed.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Partial {
    /// `ad::rules::NAME(..)` returns the one partial.
    One(&'static str),
    /// `ad::rules::NAME(..)` returns a tuple with one partial per float argument.
    Each(&'static str),
    /// The derivative is zero everywhere it exists (`floor`, `signum`): no adjoint flows.
    Zero,
}

macro_rules! rule {
    ($name:literal, $arity:literal, [$($arg:literal),*], out: $out:literal, $partial:expr) => {
        Rule {
            name: $name,
            arity: $arity,
            int_exponent: false,
            reads_args: &[$($arg),*],
            reads_output: $out,
            partial: $partial,
            fused: None,
        }
    };
}

use Partial::{Each, One, Zero};

/// Every intrinsic the macro differentiates (the same list as `ad_runtime::rules::INTRINSICS`).
pub(crate) static RULES: &[Rule] = &[
    Rule {
        fused: Some("sin_and_d"),
        ..rule!("sin", 1, [0], out: false, One("d_sin"))
    },
    Rule {
        fused: Some("cos_and_d"),
        ..rule!("cos", 1, [0], out: false, One("d_cos"))
    },
    rule!("tan", 1, [], out: true, One("d_tan")),
    rule!("asin", 1, [0], out: false, One("d_asin")),
    rule!("acos", 1, [0], out: false, One("d_acos")),
    rule!("atan", 1, [0], out: false, One("d_atan")),
    rule!("atan2", 2, [0, 1], out: false, Each("d_atan2")),
    rule!("sinh", 1, [0], out: false, One("d_sinh")),
    rule!("cosh", 1, [0], out: false, One("d_cosh")),
    rule!("tanh", 1, [], out: true, One("d_tanh")),
    rule!("asinh", 1, [0], out: false, One("d_asinh")),
    rule!("acosh", 1, [0], out: false, One("d_acosh")),
    rule!("atanh", 1, [0], out: false, One("d_atanh")),
    rule!("exp", 1, [], out: true, One("d_exp")),
    rule!("exp2", 1, [], out: true, One("d_exp2")),
    rule!("exp_m1", 1, [], out: true, One("d_exp_m1")),
    rule!("ln", 1, [0], out: false, One("d_ln")),
    rule!("ln_1p", 1, [0], out: false, One("d_ln_1p")),
    rule!("log", 2, [0, 1], out: false, Each("d_log")),
    rule!("log2", 1, [0], out: false, One("d_log2")),
    rule!("log10", 1, [0], out: false, One("d_log10")),
    rule!("sqrt", 1, [], out: true, One("d_sqrt")),
    rule!("cbrt", 1, [], out: true, One("d_cbrt")),
    Rule {
        name: "powi",
        arity: 1,
        int_exponent: true,
        reads_args: &[0, 1],
        reads_output: false,
        partial: One("d_powi"),
        fused: None,
    },
    rule!("powf", 2, [0, 1], out: true, Each("d_powf")),
    rule!("abs", 1, [0], out: false, One("d_abs")),
    rule!("hypot", 2, [0, 1], out: true, Each("d_hypot")),
    rule!("max", 2, [0, 1], out: false, Each("d_max")),
    rule!("min", 2, [0, 1], out: false, Each("d_min")),
    rule!("mul_add", 3, [0, 1], out: false, Each("d_mul_add")),
    rule!("recip", 1, [], out: true, One("d_recip")),
    rule!("signum", 1, [], out: false, Zero),
    rule!("floor", 1, [], out: false, Zero),
    rule!("ceil", 1, [], out: false, Zero),
    rule!("round", 1, [], out: false, Zero),
    rule!("trunc", 1, [], out: false, Zero),
];

/// The rule for a method or associated function named `name`, if it is an intrinsic.
pub(crate) fn lookup(name: &str) -> Option<&'static Rule> {
    RULES.iter().find(|rule| rule.name == name)
}

/// Names the user can write, for error messages.
pub(crate) fn names() -> String {
    RULES.iter().map(|r| r.name).collect::<Vec<_>>().join(" ")
}
