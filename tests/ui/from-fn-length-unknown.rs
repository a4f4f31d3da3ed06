// `std::array::from_fn` is taken where the array's length is a literal (a `let` with its type,
// or the function's result): of a const generic length it is one error at the call.
use revad::reverse;

#[reverse]
pub fn scaled<const N: usize>(s: [f64; N], k: f64) -> [f64; N] {
    std::array::from_fn(|i| s[i] * k) //~ ERROR takes `std::array::from_fn(|i| ..)`
}

fn main() {}
