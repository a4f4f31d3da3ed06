// Calls of annotated functions give scalars to #[reverse] code; an array result is one clear
// error, whether returned or indexed.
use ad::reverse;

#[reverse]
fn double(v: [f64; 3]) -> [f64; 3] {
    [v[0] * 2.0, v[1], v[2]]
}

#[reverse]
fn returned(v: [f64; 3]) -> [f64; 3] {
    let out = double(v);
    out
}

#[reverse]
fn indexed(v: [f64; 3]) -> f64 {
    let out = double(v);
    out[0] + out[1]
}

fn main() {}
