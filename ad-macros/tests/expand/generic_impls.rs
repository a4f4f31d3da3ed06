// A generic inherent impl block over the float type: the block's `T` is a float type of its
// functions (its generics reach their attributes), declared by the block, not by the items.
#[reverse]
impl<T> Model<T>
where
    T: Float,
{
    #[reverse]
    fn eval(&self, x: T) -> T {
        self.w[0] * x + self.w[1]
    }

    #[reverse]
    fn sq(x: T) -> T {
        x * x
    }
}
