// A check or diagnostic only reads: an argument that changes a variable is rejected where it
// does so.
use revad::reverse;

#[reverse]
fn f(x: f64) -> f64 {
    let mut v = vec![0.0; 3];
    v[0] = x;
    println!("{:?}", v.pop()); //~ ERROR `.pop(..)` may change a container
    let mut y = x;
    assert!({ y *= 2.0; y > 0.0 }); //~ ERROR the arguments of a check or diagnostic
    assert!(v.iter().all(|e| { y += e; true })); //~ ERROR the arguments of a check or diagnostic
    v[0] * y
}

fn main() {}
