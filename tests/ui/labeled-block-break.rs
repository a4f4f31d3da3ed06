// A labeled block is rejected at its label, and a `break` out of it at the `break`'s label:
// labeled `loop`, `while` and `for` loops are supported, labeled blocks are not.
use revad::reverse;

#[reverse]
fn f(x: f64) -> f64 {
    let mut s = x;
    'done: {
        //~^ ERROR labeled blocks are not supported
        if s > 1.0 {
            break 'done; //~ ERROR `break 'done` leaves no loop labeled `'done`
        }
        s *= x;
    }
    s
}

fn main() {}
