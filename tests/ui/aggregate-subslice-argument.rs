// A slice of an array inside a struct passed to an annotated function: the macro passes a
// part of an aggregate whole; the error says so.
use revad::reverse;

#[derive(Clone)]
struct L {
    w: Vec<f64>,
}

#[derive(Clone, Debug, PartialEq)]
struct LAdj {
    w: Vec<f64>,
}

impl revad::Adjoint for L {
    type Adj = LAdj;
    fn zero_adjoint(&self) -> LAdj {
        LAdj { w: vec![0.0; self.w.len()] }
    }
    fn accumulate(acc: &mut LAdj, o: &LAdj) {
        revad::__private::Accumulate::accumulate(acc, o)
    }
}

impl revad::__private::Accumulate for LAdj {
    fn accumulate(&mut self, o: &Self) {
        for (a, b) in self.w.iter_mut().zip(&o.w) {
            *a += b;
        }
    }
}

#[reverse]
fn total(xs: &[f64]) -> f64 {
    xs.iter().sum()
}

#[reverse]
fn f(l: &L) -> f64 {
    total(&l.w[1..]) //~ ERROR passes a part of an aggregate to an annotated function whole
}

fn main() {}
