// A `mut` vector of structs iterated by value: the items would be bound to the elements
// themselves, which the body may change; the error asks for `&qs` or `qs.iter()`.
use revad::reverse;

#[derive(Clone)]
struct P {
    m: f64,
}

#[derive(Clone, Debug, PartialEq)]
struct PAdj {
    m: f64,
}

impl revad::Adjoint for P {
    type Adj = PAdj;
    fn zero_adjoint(&self) -> PAdj {
        PAdj { m: 0.0 }
    }
    fn accumulate(acc: &mut PAdj, o: &PAdj) {
        acc.m += o.m;
    }
}

impl revad::__private::Accumulate for PAdj {
    fn accumulate(&mut self, o: &Self) {
        self.m += o.m;
    }
}

#[reverse]
fn f(ps: &[P]) -> f64 {
    let mut qs = ps.to_vec();
    qs[0].m *= 2.0;
    let mut s = 0.0;
    for q in qs { //~ ERROR iterates over a `mut` aggregate by reference
        s += q.m;
    }
    s
}

fn main() {}
