//! The messages of the `#[diagnostic::on_unimplemented]` traits that generated code declares
//! itself, because they name the user's item: `{name}` stands for it (a function or method as
//! the user wrote it), filled in by [`fill`]. Like the runtime's own messages, they are the
//! errors the macro reports on purpose (`tests/robustness` reads the templates of this file).

/// A call of a function without a derivative, from `#[reverse]` code (`codegen::require`).
pub(crate) const NO_DERIVATIVE: &str = "`{name}` has no derivative: annotate it with \
     `#[revad::reverse]`, or give it `#[revad::derivative]`";

/// A call of a function's generated derivative (`{name}` is `f_grad`, `f_vjp` or `f_jvp`,
/// `{ret}` is `f`) without a derivative, from `#[reverse]` or `#[revad::forward]` code.
pub(crate) const NO_NESTED_DERIVATIVE: &str = "`{name}` has no derivative: a derivative of \
     `{ret}` is differentiated when `{ret}` has `#[revad::reverse(hessian)]` (and \
     `#[revad::forward]` beside it for `{ret}_jvp`)";

/// A call of a function without a forward derivative, from `#[revad::forward]` code.
pub(crate) const NO_FORWARD_DERIVATIVE: &str = "`{name}` has no forward derivative: annotate \
     it with `#[revad::forward]`, or give `#[revad::derivative]` a forward rule, `jvp = ...`";

/// A call of a method or an associated function without a derivative
/// (`codegen::method_fallbacks`): `#[revad::derivative]` does not take methods.
pub(crate) const NO_METHOD_DERIVATIVE: &str =
    "`{name}` has no derivative: annotate it with `#[revad::reverse]`";

/// A method of a `#[revad::reverse]` trait without `#[reverse]` (`{name}`, of the trait
/// `{ret}`), called from differentiated code through a generic bound
/// (`driver::traits::unmarked_stand_ins`).
pub(crate) const UNMARKED_TRAIT_METHOD: &str = "`{name}` has no derivative: put #[reverse] on \
     `{name}` in the trait `{ret}` and in its impl blocks";

/// `k * v` (a float on the left of an operator on a struct of the user's) where the float's
/// impl of the operator has no derivative (`codegen::method_fallbacks`): `{name}` is the
/// operator's symbol, `{ret}` its trait.
pub(crate) const NO_LEFT_OPERATOR_DERIVATIVE: &str = "`{name}` with a struct on the right has \
     no derivative: annotate its `impl {ret}<..> for f64` with `#[revad::reverse]`";

/// A call of `NAME_grad` of a function that does not return one float (`codegen::no_grad`).
pub(crate) const NO_GRAD: &str = "`{name}_grad` does not exist: `{name}` returns `{ret}`, \
     not one float";

/// The function whose derivative `name` is (`f` of `f_grad`, `f_vjp`, `f_jvp`), if it is
/// one by its name.
pub(crate) fn derivative_of(name: &str) -> Option<&str> {
    ["_grad", "_vjp", "_jvp"]
        .iter()
        .find_map(|suffix| name.strip_suffix(suffix))
        .filter(|f| !f.is_empty() && !f.ends_with(':'))
}

/// `template` with `{name}` (and `{ret}`) replaced, and the braces of the values escaped for
/// `on_unimplemented`, which reads `{..}` as a parameter.
pub(crate) fn fill(template: &str, name: &str, ret: &str) -> String {
    let escape = |s: &str| s.replace('{', "{{").replace('}', "}}");
    template
        .replace("{name}", &escape(name))
        .replace("{ret}", &escape(ret))
}
