// Methods are not supported; the error points at the `self` receiver.
use ad::reverse;

struct S;

impl S {
    #[reverse]
    fn f(&self, x: f64) -> f64 { //~ ERROR methods are not supported
        x * x
    }
}

fn main() {}
