#[reverse]
impl Foo {
    #[reverse]
    fn sq(x: f64) -> f64 {
        x * x
    }

    #[reverse]
    fn sin_sq(x: f64) -> f64 {
        Self::sq(x).sin()
    }

    fn plain() {}
}

#[reverse]
fn user(x: f64) -> f64 {
    Foo::sq(x) + 1.0
}
