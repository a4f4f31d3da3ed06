// `break` with a value of a type the macro cannot tell before the loop (not a float, not a
// variable declared before the loop, not a literal) is rejected; the error says to bind it
// with a type annotation first.
use revad::reverse;

#[reverse]
fn f(x: &[f64], t: f64) -> f64 {
    let mut i = 0;
    let k = loop {
        if x[i] > t {
            break i + 1; //~ ERROR cannot tell the type of this `break` value
        }
        i += 1;
    };
    x[k - 1] * t
}

fn main() {}
