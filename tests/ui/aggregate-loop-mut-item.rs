// The items of a loop over structs are the elements themselves, not copies: `mut` on the
// item is rejected, and the error suggests an explicit copy.
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
    let mut s = 0.0;
    #[allow(unused_mut)]
    for mut p in ps.iter() { //~ ERROR binds the items of this loop to the elements themselves
        s += p.m;
    }
    s
}

fn main() {}
