// A vector of rows (`Vec<Vec<f64>>`, `Vec<[f64; N]>`) does not grow or shrink under
// #[reverse]: one error at the method, which says to make it at full size and assign rows.
use revad::reverse;

#[reverse]
fn points(x: &[f64]) -> f64 {
    let mut pts: Vec<[f64; 2]> = Vec::new();
    for i in 0..x.len() {
        pts.push([x[i], x[i] * x[i]]); //~ ERROR does not change the length of a vector of rows
    }
    pts[0][1]
}

#[reverse]
fn layers(x: &[f64]) -> f64 {
    let mut rows = vec![vec![0.0; 2]; 2];
    rows.push(x.to_vec()); //~ ERROR does not change the length of a vector of rows
    rows.truncate(1); //~ ERROR does not change the length of a vector of rows
    rows[0][0] * x[1]
}

fn main() {}
