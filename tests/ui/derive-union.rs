// A union has no adjoint (which field holds the value is not known): the error is at `union`.
#[derive(revad::Adjoint)]
pub union Bits { //~ ERROR does not support unions
    pub x: f64,
    pub n: u64,
}

fn main() {}
