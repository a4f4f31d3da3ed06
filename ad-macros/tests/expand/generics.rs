// Generic functions over `revad::Float`: `T` where the other fixtures say `f64`.

// A loop over a slice, constants from the trait, an intrinsic as a method.
#[reverse]
fn poly<T: Float>(x: T, w: &[T]) -> T {
    let mut acc = T::ZERO;
    for i in 0..w.len() {
        acc = acc * x + w[i];
    }
    acc.sin() * T::from_f64(0.5)
}

// A branch, `powi`, and an integer converted by `T::from_i32`.
#[reverse]
fn branch<T>(x: T, k: i32) -> T
where
    T: revad::Float,
{
    let y = if x > T::ONE { x.powi(k) } else { x * T::from_i32(k) };
    y.max(T::ZERO)
}

// A `&mut [T]` output and an array return.
#[reverse]
fn scale<T: Float>(p: [T; 2], out: &mut [T]) -> [T; 2] {
    for i in 0..out.len() {
        out[i] = out[i] * p[0];
    }
    [p[1] * p[0], p[0]]
}

// Calls of a generic function, with its type inferred and named.
#[reverse]
fn twice<T: Float>(x: T, w: &[T]) -> T {
    let a = poly(x, w);
    poly::<T>(a, w) + a
}
