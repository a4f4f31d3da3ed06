// Programs with constructs outside the subset `#[reverse]` supports, beyond the compile-fail
// cases of `tests/ui/` (which the robustness test reads too). Each program starts at a line
// `//# NAME` and is placed in its own module after `use revad::*;`. Each must be rejected by a
// macro error at the construct or by an ordinary rustc error; none may fail in generated code.

//# unsafe-block-in-loop
#[reverse]
fn f(x: f64) -> f64 {
    let mut s = x;
    for _ in 0..3 {
        s = unsafe { s * 2.0 };
    }
    s
}

//# try-operator-on-option
#[reverse]
fn f(x: f64, o: Option<f64>) -> Option<f64> {
    let y = o?;
    Some(x * y)
}

//# async-block
#[reverse]
fn f(x: f64) -> f64 {
    let _fut = async { 1.0 };
    x * x
}

//# struct-param-field
#[derive(Clone, Copy)]
struct P {
    a: f64,
    b: f64,
}

#[reverse]
fn f(p: P, x: f64) -> f64 {
    p.a * x + p.b
}

//# struct-ref-param
struct P {
    a: f64,
}

#[reverse]
fn f(p: &P, x: f64) -> f64 {
    p.a * x
}

//# vec-push-param
#[reverse]
fn f(x: f64, v: Vec<f64>) -> f64 {
    let mut v = v;
    v.push(x);
    v[0] * x
}

//# vec-extend
#[reverse]
fn f(x: f64) -> f64 {
    let mut v = vec![0.0; 1];
    v.extend([x, x]);
    v[1] * x
}

//# mem-swap
#[reverse]
fn f(x: f64, y: f64) -> f64 {
    let mut a = x;
    let mut b = y;
    std::mem::swap(&mut a, &mut b);
    a - b
}

//# mem-replace
#[reverse]
fn f(x: f64, y: f64) -> f64 {
    let mut a = x;
    let old = std::mem::replace(&mut a, y);
    a * old
}

//# refcell
#[reverse]
fn f(x: f64) -> f64 {
    let c = std::cell::RefCell::new(x);
    *c.borrow_mut() *= 2.0;
    let y = *c.borrow();
    y * x
}

//# cell
#[reverse]
fn f(x: f64) -> f64 {
    let c = std::cell::Cell::new(x);
    c.set(c.get() * 2.0);
    c.get() * x
}

//# trait-path-call
#[reverse]
fn f(x: f64) -> f64 {
    std::ops::Add::add(x, x) * x
}

//# ufcs-trait-call
#[reverse]
fn f(x: f64) -> f64 {
    <f64 as std::ops::Mul>::mul(x, x)
}

//# fn-pointer-param
#[reverse]
fn f(x: f64, g: fn(f64) -> f64) -> f64 {
    g(x) * x
}

//# dyn-fn-param
#[reverse]
fn f(x: f64, g: &dyn Fn(f64) -> f64) -> f64 {
    g(x) + x
}

//# write-macro
#[reverse]
fn f(x: f64) -> f64 {
    use std::fmt::Write;
    let mut s = String::new();
    write!(s, "{x}").unwrap();
    x * x
}

//# format-macro
#[reverse]
fn f(x: f64) -> f64 {
    let _s = format!("{}", x);
    x * 3.0
}

//# assert-macro
#[reverse]
fn f(x: f64) -> f64 {
    assert!(x > 0.0);
    x.sqrt()
}

//# user-macro-rules
macro_rules! double {
    ($e:expr) => {
        $e * 2.0
    };
}

#[reverse]
fn f(x: f64) -> f64 {
    double!(x) + x
}

//# const-item-in-body
#[reverse]
fn f(x: f64) -> f64 {
    const K: f64 = 2.0;
    x * K
}

//# static-in-body
#[reverse]
fn f(x: f64) -> f64 {
    static K: f64 = 2.0;
    x * K
}

//# nested-fn
#[reverse]
fn f(x: f64) -> f64 {
    fn sq(t: f64) -> f64 {
        t * t
    }
    sq(x)
}

//# outer-const
const K: f64 = 3.0;

#[reverse]
fn f(x: f64) -> f64 {
    x * K
}

//# slice-range
#[reverse]
fn f(w: &[f64]) -> f64 {
    let tail = &w[1..];
    tail[0] * w[0]
}

//# match-on-float
#[reverse]
fn f(x: f64) -> f64 {
    match x {
        v if v > 0.0 => v * 2.0,
        v => -v,
    }
}

//# tuple-param
#[reverse]
fn f(t: (f64, f64)) -> f64 {
    t.0 * t.1
}

//# option-param
#[reverse]
fn f(x: f64, o: Option<f64>) -> f64 {
    x * o.unwrap_or(1.0)
}

//# option-return
#[reverse]
fn f(x: f64) -> Option<f64> {
    Some(x * x)
}

//# box-param
#[reverse]
fn f(x: Box<f64>) -> f64 {
    *x * 2.0
}

//# ref-ref-param
#[reverse]
fn f(x: &&[f64]) -> f64 {
    x[0] * x[1]
}

//# nested-vec-param
#[reverse]
fn f(m: Vec<Vec<f64>>) -> f64 {
    m[0][0] * m[1][1]
}

//# array-of-arrays-param
#[reverse]
fn f(m: [[f64; 2]; 2]) -> f64 {
    m[0][0] * m[1][1] - m[0][1] * m[1][0]
}

//# lifetime-param
#[reverse]
fn f<'a>(w: &'a [f64]) -> f64 {
    w[0] * w[0]
}

//# where-clause
#[reverse]
fn f(x: f64) -> f64
where
    f64: Copy,
{
    x * x
}

//# impl-trait-return
#[reverse]
fn f(x: f64) -> impl Copy {
    x * x
}

//# never-return
#[reverse]
fn f(x: f64) -> ! {
    panic!("{x}")
}

//# const-fn
#[reverse]
const fn f(x: f64) -> f64 {
    x
}

//# extern-c-abi
#[reverse]
extern "C" fn f(x: f64) -> f64 {
    x * x
}

//# method-in-impl
struct S;

impl S {
    #[reverse]
    fn f(&self, x: f64) -> f64 {
        x * x
    }
}

//# attribute-on-struct
#[reverse]
struct S {
    x: f64,
}

//# attribute-on-impl
struct S;

#[reverse]
impl S {}

//# attribute-on-const
#[reverse]
const K: f64 = 1.0;

//# attribute-on-mod
#[reverse]
mod inner {}

//# wrt-equals
#[reverse(wrt = x)]
fn f(x: f64) -> f64 {
    x * x
}

//# wrt-twice
#[reverse(wrt(x), wrt(y))]
fn f(x: f64, y: f64) -> f64 {
    x * y
}

//# wrt-literal
#[reverse(wrt(1))]
fn f(x: f64) -> f64 {
    x * x
}

//# attribute-garbage
#[reverse(+ - *)]
fn f(x: f64) -> f64 {
    x * x
}

//# derivative-no-args
#[revad::derivative]
fn f(x: f64) -> f64 {
    x * x
}

//# derivative-missing-pullback
#[revad::derivative(vjp = no_such_pullback)]
fn f(x: f64) -> f64 {
    x * x
}

//# derivative-pullback-wrong-return
#[revad::derivative(vjp = p)]
fn f(x: f64, y: f64) -> f64 {
    x * y
}

fn p(_x: f64, _y: f64, _out: f64, seed: f64) -> f64 {
    seed
}

//# derivative-pullback-wrong-arity
#[revad::derivative(vjp = p)]
fn f(x: f64) -> f64 {
    x * x
}

fn p(x: f64, seed: f64) -> f64 {
    2.0 * x * seed
}

//# derivative-on-reverse
#[revad::derivative(vjp = p)]
#[reverse]
fn f(x: f64) -> f64 {
    x * x
}

fn p(x: f64, _out: f64, seed: f64) -> f64 {
    2.0 * x * seed
}

//# reverse-twice
#[reverse]
#[reverse]
fn f(x: f64) -> f64 {
    x * x
}

//# call-closure-param-fn
fn apply(g: impl Fn(f64) -> f64, x: f64) -> f64 {
    g(x)
}

#[reverse]
fn f(x: f64) -> f64 {
    apply(|t| t * x, x)
}

//# iterator-max-by
#[reverse]
fn f(xs: &[f64]) -> f64 {
    xs.iter().copied().fold(f64::MIN, f64::max)
}

//# iterator-sum-of-squares-by-ref
#[reverse]
fn f(xs: &[f64]) -> f64 {
    xs.iter().map(|x| x * x).rev().sum()
}

//# sin-cos
#[reverse]
fn f(x: f64) -> f64 {
    let (s, c) = x.sin_cos();
    s * c
}

//# float-consts
#[reverse]
fn f(x: f64) -> f64 {
    x * std::f64::consts::PI + f64::EPSILON
}

//# to-vec
#[reverse]
fn f(w: &[f64]) -> f64 {
    let v = w.to_vec();
    v[0] * v[1]
}

//# clone-vec
#[reverse]
fn f(w: Vec<f64>) -> f64 {
    let v = w.clone();
    v[0] * w[1]
}

//# index-assign-param
#[reverse]
fn f(w: [f64; 2], x: f64) -> f64 {
    let mut w = w;
    w[0] = x;
    w[0] * w[1]
}

//# string-param
#[reverse]
fn f(x: f64, name: &str) -> f64 {
    x * name.len() as f64
}

//# char-and-bool
#[reverse]
fn f(x: f64, c: char, b: bool) -> f64 {
    if b && c == 'a' {
        x * x
    } else {
        x
    }
}

//# loop-with-label-value
#[reverse]
fn f(x: f64) -> f64 {
    let y = 'outer: loop {
        break 'outer x * 2.0;
    };
    y
}

//# return-in-block-expression
#[reverse]
fn f(x: f64) -> f64 {
    let y = {
        if x > 0.0 {
            return x;
        }
        x * x
    };
    y + 1.0
}

//# let-tuple-from-call
#[reverse]
fn g(x: f64) -> f64 {
    x * x
}

#[reverse]
fn f(x: f64) -> f64 {
    let (a, b) = (g(x), g(2.0 * x));
    a * b
}

//# shadowed-intrinsic-name
fn sin(x: f64) -> f64 {
    x
}

#[reverse]
fn f(x: f64) -> f64 {
    sin(x) * x
}

//# method-on-user-type
struct W(f64);

impl W {
    fn scale(&self, x: f64) -> f64 {
        self.0 * x
    }
}

#[reverse]
fn f(x: f64) -> f64 {
    let w = W(2.0);
    w.scale(x)
}

//# integer-return-of-float
#[reverse]
fn f(x: f64) -> i64 {
    x as i64
}

//# usize-only-params
#[reverse]
fn f(n: usize) -> f64 {
    n as f64
}

//# raw-pointer
#[reverse]
fn f(x: f64) -> f64 {
    let p = &x as *const f64;
    x * 2.0 + p.is_null() as u8 as f64
}

//# generic-const-param
#[reverse]
fn f<const N: usize>(w: [f64; N]) -> f64 {
    w[0]
}
