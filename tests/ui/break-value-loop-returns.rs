// A `loop` whose value is used may not also `return`: the error says to bind the value
// inside it instead. (As the function's result, or as a statement, it may.)
use revad::reverse;

#[reverse]
fn f(x: f64) -> f64 {
    let mut s = x;
    let y = loop {
        //~^ ERROR `return`, `break` or `continue` inside an expression whose value is used
        s *= x;
        if s < 0.0 {
            return 0.0;
        }
        if s > 10.0 {
            break s;
        }
    };
    y * 2.0
}

fn main() {}
