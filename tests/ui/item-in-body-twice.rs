// The `const` items of a body are declared once for each generated function, so two of one
// name (in different blocks) are rejected at the second.
use revad::reverse;

#[reverse]
fn f(x: f64, k: bool) -> f64 {
    if k {
        const C: f64 = 2.0;
        x * C
    } else {
        const C: f64 = 3.0; //~ ERROR declares the items of the body once
        x * C
    }
}

fn main() {}
