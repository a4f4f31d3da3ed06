//! The macro's view of the intrinsic table, [`revad_runtime::rules::INTRINSICS`].
//!
//! The runtime owns the one table: for each float intrinsic, its arity, which primal values
//! its partials read (so the planner knows what the reverse sweep needs), and the names of the
//! runtime functions that compute them. The generated code calls those functions, so the
//! derivative conventions live in one place, the runtime. This crate depends on `revad-runtime`
//! (an ordinary crate, built for the host as a dependency of this proc-macro crate) to read
//! that table; `revad-runtime` depends on nothing, so data flows one way, runtime to macro.
//! Adding an intrinsic touches only the runtime.

pub(crate) use revad_runtime::rules::{Intrinsic as Rule, Partial};

/// The rule for a method or associated function named `name`, if it is an intrinsic.
pub(crate) fn lookup(name: &str) -> Option<&'static Rule> {
    revad_runtime::rules::INTRINSICS
        .iter()
        .find(|rule| rule.name == name)
}

/// Names the user can write, for error messages.
pub(crate) fn names() -> String {
    revad_runtime::rules::INTRINSICS
        .iter()
        .map(|r| r.name)
        .collect::<Vec<_>>()
        .join(" ")
}

/// Whether `name` is a method that a float has besides the intrinsics (`to_bits`,
/// `is_finite`, `total_cmp`, `clone`, ..): a method of another name called on a value is not
/// a float's (`(a.pos - b.pos).norm()` is of a struct).
pub(crate) fn is_float_method(name: &str) -> bool {
    lookup(name).is_some()
        || KILLING_METHODS.contains(&name)
        || ["to_", "is_", "as_", "from_", "try_"]
            .iter()
            .any(|p| name.starts_with(p))
        || matches!(
            name,
            "clone"
                | "into"
                | "classify"
                | "cmp"
                | "fmt"
                | "div_euclid"
                | "round_ties_even"
                | "sin_cos"
                | "midpoint"
                | "minimum"
                | "maximum"
                | "next_up"
                | "next_down"
                | "abs_sub"
                | "hash"
                | "sum"
                | "product"
                | "unwrap"
        )
}

/// Methods whose result carries no derivative, whatever they are called on.
pub(crate) const KILLING_METHODS: &[&str] = &[
    "len",
    "is_empty",
    "is_nan",
    "is_finite",
    "is_infinite",
    "is_sign_positive",
    "is_sign_negative",
    "is_normal",
    "to_bits",
    "partial_cmp",
    "total_cmp",
    "eq",
    "ne",
    "lt",
    "le",
    "gt",
    "ge",
];
