use revad::reverse;

// (A function parameter, `g: fn(f64) -> f64`, is a function argument: tests/function_args.rs.
// A local variable holding a function pointer is not.)
#[reverse]
fn through_pointer(x: f64) -> f64 {
    let g: fn(f64) -> f64 = f64::sin;
    g(x) * x
}

#[reverse]
fn trait_path(x: f64) -> f64 {
    std::ops::Add::add(x, x)
}

fn main() {}
