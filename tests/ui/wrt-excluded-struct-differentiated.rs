// A struct parameter that the callee's `wrt(..)` leaves out is not differentiated by it; a
// caller that differentiates the argument is told, instead of losing its derivative.
use revad::reverse;

#[derive(revad::Adjoint)]
pub struct Table {
    pub coef: [f64; 2],
}

#[reverse(wrt(x))]
fn poly(x: f64, table: &Table) -> f64 {
    table.coef[0] * x + table.coef[1]
}

#[reverse]
fn caller(x: f64, table: &Table) -> f64 {
    poly(x, table) //~ ERROR leaves its parameter out of `wrt(..)`
}

fn main() {}
