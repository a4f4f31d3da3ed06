// Errors in the signature do not hide errors in the body: all are reported at once.
use revad::reverse;

#[reverse(wtr(x))] //~ ERROR unknown argument `wtr`
fn f(x: f64, out: &mut f64) -> f64 { //~ ERROR `&mut` parameters are not supported
    let y = unsafe { x * 2.0 }; //~ ERROR `unsafe` blocks are not supported
    'outer: { //~ ERROR labeled blocks are not supported
        break 'outer; // (no second error: the block is the one)
    }
    *out = y;
    y
}

fn main() {}
