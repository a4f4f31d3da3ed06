// Fixtures of `#[derive(revad::Adjoint)]`: each item's expansion is in `adjoint.expanded.rs`.

/// Active and inactive fields.
#[derive(Clone, revad::Adjoint)]
pub struct Particle {
    pub pos: [f64; 3],
    pub vel: [f64; 3],
    pub mass: f64,
    id: usize,
}

/// A tuple struct, renamed.
#[derive(revad::Adjoint)]
#[adjoint(name = PairGrad)]
pub(crate) struct Pair(pub f64, Vec<f32>);

/// A unit struct.
#[derive(revad::Adjoint)]
struct Marker;

/// Generic, with a lifetime and a `where` clause; `Vec<T>` is bounded once.
#[derive(revad::Adjoint)]
pub struct Layer<'a, T: Copy>
where
    T: Default,
{
    pub w: Vec<T>,
    pub b: Vec<T>,
    pub input: &'a [f64],
    pub width: usize,
}

/// Recursive through `Self`.
#[derive(revad::Adjoint)]
pub struct List {
    pub head: f64,
    pub tail: Option<Box<Self>>,
}

/// Generic and recursive: the recursive field has no bound.
#[derive(revad::Adjoint)]
pub struct Tree<T> {
    pub value: T,
    pub kids: Vec<Tree<T>>,
}

/// An enum.
#[derive(revad::Adjoint)]
pub enum Shape {
    Circle(f64),
    Rect { w: f64, h: f64 },
    Empty,
}

/// An enum with one variant: no catch-all arms.
#[derive(revad::Adjoint)]
enum One<T> {
    Only(Vec<T>),
}

/// An enum without variants.
#[derive(revad::Adjoint)]
enum Never {}
