// A module of the user's named `revad` with its own `stop_gradient`: the macro would take
// `revad::stop_gradient(x)` for the library's, so its expansion goes through the library's
// trait by the same path, `revad::StopGradient`, which the module does not have: a compile
// error, not the derivative of the user's function dropped.
mod revad {
    pub fn stop_gradient(x: f64) -> f64 {
        2.0 * x
    }
}

#[::revad::reverse]
fn f(x: f64) -> f64 {
    x * revad::stop_gradient(x) //~ ERROR cannot find `StopGradient` in `revad`
}

fn main() {}
