// The CPS backend's output, one function per construct.

// Straight-line code: one continuation block, back parts last first.
#[reverse(cps)]
fn f(x: f64, y: f64) -> f64 {
    let z = x * y + x.sin();
    z * z
}

// An assignment shadows the variable: a new block, a new cell.
#[reverse(cps)]
fn assign(x: f64) -> f64 {
    let mut s = x * 2.0;
    s += x.exp();
    s * s
}

// IF: the rest is one continuation closure, called from both arms.
#[reverse(cps)]
fn piecewise(x: f64) -> f64 {
    let y = if x > 0.0 { x * x } else { -x };
    y * 3.0
}

// A loop: a local recursive function, one level per iteration.
#[reverse(cps)]
fn recurrence(x0: f64, a: f64, n: usize) -> f64 {
    let mut x = x0;
    for _ in 0..n {
        x = x.sin() * a + x;
    }
    x
}

// Arrays: a cell per element; indexing reads the element's cell.
#[reverse(cps)]
fn dot(w: &[f64], v: [f64; 3]) -> f64 {
    let mut s = 0.0;
    for i in 0..3 {
        s += w[i] * v[i];
    }
    s
}

// A call: through the callee's split companions, adding into the argument's cell.
#[reverse]
fn square(x: f64) -> f64 {
    x * x
}

#[reverse(cps)]
fn calls(x: f64) -> f64 {
    square(x) + x
}
