// An `Option` of a differentiated value built in a branch is not modelled: one error, at the
// `Some`, and none at the `match` that takes it apart (a follow-on of the first).
#[revad::reverse]
fn pick(x: f64, y: f64) -> f64 {
    let o = if x > 0.0 { Some(x * y) } else { None }; //~ ERROR does not differentiate through `Some(..)`
    match o {
        Some(v) => v * 2.0,
        None => y,
    }
}

fn main() {}
