// A panic is taken as a statement, and as the value of a branch, an arm or a block beside
// branches whose value is a number (`else { panic!(..) }`, `_ => unreachable!()`); beside a
// branch whose value is an array, or as every branch of a `let`'s value, it is rejected.
use revad::reverse;

#[reverse]
fn beside_an_array(x: [f64; 2], c: bool) -> f64 {
    let v = if c { x } else { panic!("no array") };
    v[0]
}

#[reverse]
fn in_every_branch(x: f64) -> f64 {
    let y: f64 = if x > 0.0 { panic!("a") } else { todo!() };
    y
}

fn main() {}
