// A plain function (no attribute at all) called with a float from forward-mode code.

mod helpers {
    pub fn square(x: f64) -> f64 {
        x * x
    }
}

#[revad::forward]
fn f(x: f64) -> f64 {
    helpers::square(x) + x
}

fn main() {}
