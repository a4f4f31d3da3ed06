#[reverse]
fn fit<M: Model>(m: &M, x: f64) -> f64 {
    m.loss(x, 1.0)
}

#[reverse]
trait Model {
    #[reverse]
    fn eval(&self, x: f64) -> f64;

    #[reverse]
    fn loss(&self, x: f64, y: f64) -> f64 {
        let e = self.eval(x) - y;
        e * e
    }
}

#[reverse]
impl Model for Linear {
    #[reverse]
    fn eval(&self, x: f64) -> f64 {
        self.w * x + self.b
    }
}
