//! A closure called where it runs only sometimes (on the right of `&&` / `||`, in a match
//! guard) cannot be inlined before the condition: the macro would run it when Rust does not.

#[revad::reverse]
fn right_of_and(x: f64, flag: bool) -> f64 {
    let f = |c: f64| c * x;
    if flag && f(x) > 0.0 {
        x
    } else {
        -x
    }
}

#[revad::reverse]
fn right_of_or_in_while(x: f64, n: usize) -> f64 {
    let f = |c: f64| c * x;
    let mut y = x;
    let mut k = 0;
    while k < n || f(y) < 1.0 {
        y *= 1.5;
        k += 1;
    }
    y
}

#[revad::reverse]
fn in_a_match_guard(x: f64, k: usize) -> f64 {
    let f = |c: f64| c * x;
    match k {
        0 if f(x) > 1.0 => x,
        _ => -x,
    }
}

fn main() {}
