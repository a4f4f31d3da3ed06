// A labeled block is rejected at its label, once (a `break` out of it is no second error):
// labeled `loop`, `while` and `for` loops are supported, labeled blocks are not.
use revad::reverse;

#[reverse]
fn f(x: f64) -> f64 {
    let mut s = x;
    'done: {
        //~^ ERROR labeled blocks are not supported
        if s > 1.0 {
            break 'done; // (no second error: the block is the one)
        }
        s *= x;
    }
    s
}

fn main() {}
