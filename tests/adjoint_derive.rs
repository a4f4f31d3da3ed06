//! `#[derive(revad::Adjoint)]` on user types: the generated adjoint types (their names, fields
//! and field types, checked by the compiler through type ascriptions), zeros of the value's
//! shape, accumulation, and its panics on mismatched lengths and variants.
#![deny(missing_docs)]

use std::marker::PhantomData;

use revad::{Adjoint, Zero};

/// Asserts, at compile time, that `value` has the type `T`.
fn is<T>(value: T) -> T {
    value
}

// ---- a struct with active and inactive fields ------------------------------------------------

/// A point mass; `id` is inactive.
#[derive(Clone, Debug, revad::Adjoint)]
pub struct Particle {
    /// Position.
    pub pos: [f64; 3],
    /// Velocity.
    pub vel: [f64; 3],
    /// Mass.
    pub mass: f64,
    /// An inactive label.
    pub id: usize,
}

fn particle(k: f64) -> Particle {
    Particle {
        pos: [k, 2.0 * k, 3.0 * k],
        vel: [-k; 3],
        mass: k * k,
        id: k as usize,
    }
}

#[test]
fn particle_adjoint_has_the_same_fields_with_adjoint_types() {
    let p = particle(1.0);
    let grad = p.zero_adjoint();
    // The field types, checked by the compiler.
    let ParticleAdjoint { pos, vel, mass, id } = grad.clone();
    let _: ([f64; 3], [f64; 3], f64, Zero) = (pos, vel, mass, id);
    assert_eq!(
        grad,
        ParticleAdjoint {
            pos: [0.0; 3],
            vel: [0.0; 3],
            mass: 0.0,
            id: Zero
        }
    );
    // The inactive field costs nothing.
    assert_eq!(std::mem::size_of::<ParticleAdjoint>(), 7 * 8);
    assert_eq!(
        format!("{grad:?}"),
        "ParticleAdjoint { pos: [0.0, 0.0, 0.0], vel: [0.0, 0.0, 0.0], mass: 0.0, id: Zero }"
    );
}

#[test]
fn particle_accumulate_adds_field_by_field() {
    let mut acc = particle(1.0).zero_adjoint();
    let step = ParticleAdjoint {
        pos: [1.0, 2.0, 3.0],
        vel: [0.5; 3],
        mass: -1.0,
        id: Zero,
    };
    Particle::accumulate(&mut acc, &step);
    Particle::accumulate(&mut acc, &step);
    assert_eq!(acc.pos, [2.0, 4.0, 6.0]);
    assert_eq!(acc.vel, [1.0; 3]);
    assert_eq!(acc.mass, -2.0);
    assert_ne!(acc, step);
}

// ---- nested structs, and a Vec of them --------------------------------------------------------

/// A set of particles with a shared parameter.
#[derive(Clone, revad::Adjoint)]
pub struct System {
    /// The particles.
    pub particles: Vec<Particle>,
    /// One particle singled out.
    pub probe: Particle,
    /// A coupling constant.
    pub coupling: f64,
    /// An inactive name.
    pub name: String,
    /// Inactive flags, one per particle.
    pub fixed: Vec<bool>,
}

fn system() -> System {
    System {
        particles: vec![particle(1.0), particle(2.0), particle(3.0)],
        probe: particle(4.0),
        coupling: 0.5,
        name: "three".into(),
        fixed: vec![true, false, false],
    }
}

#[test]
fn nested_adjoints_have_the_lengths_of_the_value() {
    let s = system();
    let grad = is::<SystemAdjoint>(s.zero_adjoint());
    let _: &Vec<ParticleAdjoint> = &grad.particles;
    let _: &ParticleAdjoint = &grad.probe;
    let _: (&f64, &Zero, &Vec<Zero>) = (&grad.coupling, &grad.name, &grad.fixed);
    assert_eq!(grad.particles.len(), 3);
    assert_eq!(grad.fixed.len(), 3);
    assert!(grad
        .particles
        .iter()
        .all(|p| *p == particle(0.0).zero_adjoint()));
    assert_eq!(grad.probe, particle(9.0).zero_adjoint());

    let mut empty = s.clone();
    empty.particles.clear();
    assert!(empty.zero_adjoint().particles.is_empty());
}

#[test]
fn nested_accumulate_adds_every_particle() {
    let s = system();
    let mut acc = s.zero_adjoint();
    let mut step = s.zero_adjoint();
    step.particles[1].pos[2] = 1.5;
    step.particles[2].mass = 2.0;
    step.probe.vel = [1.0, 2.0, 3.0];
    step.coupling = -4.0;
    System::accumulate(&mut acc, &step);
    System::accumulate(&mut acc, &step);
    assert_eq!(acc.particles[0], particle(0.0).zero_adjoint());
    assert_eq!(acc.particles[1].pos, [0.0, 0.0, 3.0]);
    assert_eq!(acc.particles[2].mass, 4.0);
    assert_eq!(acc.probe.vel, [2.0, 4.0, 6.0]);
    assert_eq!(acc.coupling, -8.0);
}

#[test]
fn a_vec_of_particles_has_a_vec_of_adjoints() {
    let ps = vec![particle(1.0), particle(2.0)];
    let mut acc = is::<Vec<ParticleAdjoint>>(ps.zero_adjoint());
    let one = particle(5.0).zero_adjoint();
    let mut step = vec![one.clone(), one];
    step[0].mass = 1.0;
    Vec::<Particle>::accumulate(&mut acc, &step);
    assert_eq!(acc[0].mass, 1.0);
    assert_eq!(acc[1].mass, 0.0);
    // `zeros_like`, which generated code calls, gives the same.
    assert_eq!(revad::__private::zeros_like(&ps[..]), ps.zero_adjoint());
}

#[test]
#[should_panic(expected = "revad: cannot accumulate an adjoint of length 2 into one of length 3")]
fn accumulate_panics_on_different_lengths() {
    let s = system();
    let mut acc = s.zero_adjoint();
    let mut short = s.clone();
    short.particles.pop();
    System::accumulate(&mut acc, &short.zero_adjoint());
}

// ---- tuple, unit and renamed structs ----------------------------------------------------------

/// A pair of a scalar and a vector.
#[derive(revad::Adjoint)]
pub struct Pair(pub f64, pub Vec<f32>, u8);

#[test]
fn tuple_struct_adjoint_is_a_tuple_struct() {
    let pair = Pair(1.0, vec![1.0, 2.0], 3);
    let PairAdjoint(a, b, c) = pair.zero_adjoint();
    let _: (f64, Vec<f32>, Zero) = (a, b.clone(), c);
    assert_eq!(b.len(), 2);
    let mut acc = pair.zero_adjoint();
    Pair::accumulate(&mut acc, &PairAdjoint(2.0, vec![1.0, -1.0], Zero));
    assert_eq!(acc, PairAdjoint(2.0, vec![1.0, -1.0], Zero));
    assert_eq!(format!("{acc:?}"), "PairAdjoint(2.0, [1.0, -1.0], Zero)");
    assert_eq!(pair.2, 3);
}

/// A marker without data.
#[derive(revad::Adjoint)]
pub struct Marker;

#[test]
fn unit_struct_adjoint_is_a_unit_struct() {
    let mut acc = is::<MarkerAdjoint>(Marker.zero_adjoint());
    Marker::accumulate(&mut acc, &MarkerAdjoint);
    assert_eq!(acc, MarkerAdjoint);
    assert_eq!(format!("{acc:?}"), "MarkerAdjoint");
    assert_eq!(std::mem::size_of::<MarkerAdjoint>(), 0);
}

/// A state whose adjoint has a name of its own.
#[derive(revad::Adjoint)]
#[adjoint(name = StateGrad)]
pub struct State {
    /// The values.
    pub x: Vec<f64>,
}

#[test]
fn the_adjoint_type_can_be_renamed() {
    let grad = is::<StateGrad>(State { x: vec![1.0; 4] }.zero_adjoint());
    assert_eq!(grad.x, vec![0.0; 4]);
}

// ---- generic structs, at f32 and f64; lifetimes ----------------------------------------------

/// A dense layer, generic in its scalar.
#[derive(Clone, revad::Adjoint)]
pub struct Layer<T> {
    /// Weights.
    pub w: Vec<T>,
    /// Biases.
    pub b: Vec<T>,
    /// Inactive: the input width.
    pub inputs: usize,
}

/// The adjoint of a generic layer is generic in the same parameter: `Vec<T::Adj>`.
fn zero_layer<T: Adjoint>(layer: &Layer<T>) -> LayerAdjoint<T> {
    layer.zero_adjoint()
}

#[test]
fn generic_struct_at_f64_and_f32() {
    let l64 = Layer {
        w: vec![1.0_f64; 6],
        b: vec![0.5; 2],
        inputs: 3,
    };
    let mut g64 = zero_layer(&l64);
    let _: (&Vec<f64>, &Vec<f64>, &Zero) = (&g64.w, &g64.b, &g64.inputs);
    assert_eq!((g64.w.len(), g64.b.len()), (6, 2));
    Layer::<f64>::accumulate(&mut g64, &l64.zero_adjoint());
    let step = LayerAdjoint::<f64> {
        w: vec![1.0; 6],
        b: vec![2.0, 3.0],
        inputs: Zero,
    };
    Layer::<f64>::accumulate(&mut g64, &step);
    assert_eq!(g64, step);

    let l32 = Layer {
        w: vec![1.0_f32; 2],
        b: vec![0.5_f32],
        inputs: 2,
    };
    let mut g32 = l32.zero_adjoint();
    let _: &Vec<f32> = &g32.w;
    Layer::<f32>::accumulate(
        &mut g32,
        &LayerAdjoint {
            w: vec![0.25, 0.5],
            b: vec![1.0],
            inputs: Zero,
        },
    );
    assert_eq!(g32.w, [0.25_f32, 0.5]);
    assert_eq!(g32.b, [1.0_f32]);
}

/// A generic struct whose parameter is a nested user type and is not `Clone`: the adjoint is
/// `Clone` all the same, since only adjoints are stored in it.
#[derive(revad::Adjoint)]
pub struct Boxed<M> {
    /// The model.
    pub model: Box<M>,
    /// Models of the same kind, maybe absent.
    pub spare: Option<M>,
    /// No data.
    pub marker: PhantomData<M>,
}

/// Not `Clone`, not `Debug`, not `PartialEq`.
#[derive(revad::Adjoint)]
pub struct Opaque {
    /// A value.
    pub v: f64,
}

#[test]
fn generic_struct_over_a_user_type_that_is_not_clone() {
    let b = Boxed {
        model: Box::new(Opaque { v: 1.0 }),
        spare: None,
        marker: PhantomData,
    };
    let grad = is::<BoxedAdjoint<Opaque>>(b.zero_adjoint());
    let _: (Box<OpaqueAdjoint>, Option<OpaqueAdjoint>, Zero) =
        (grad.model.clone(), grad.spare.clone(), grad.marker);
    let mut acc = grad.clone();
    let step = BoxedAdjoint {
        model: Box::new(OpaqueAdjoint { v: 2.0 }),
        spare: Some(OpaqueAdjoint { v: 3.0 }),
        marker: Zero,
    };
    Boxed::<Opaque>::accumulate(&mut acc, &step);
    Boxed::<Opaque>::accumulate(&mut acc, &step);
    assert_eq!(acc.model.v, 4.0);
    // `None + x = x`, then `Some + Some` adds.
    assert_eq!(acc.spare, Some(OpaqueAdjoint { v: 6.0 }));
    assert!(b.spare.is_none() && b.model.v == 1.0);
}

/// A view of borrowed data: the adjoint owns its data.
#[derive(revad::Adjoint)]
pub struct View<'a> {
    /// Borrowed values.
    pub xs: &'a [f64],
    /// A borrowed scalar.
    pub scale: &'a f64,
}

#[test]
fn struct_with_a_lifetime() {
    let data = [1.0, 2.0, 3.0];
    let scale = 2.0;
    let view = View {
        xs: &data[1..],
        scale: &scale,
    };
    let grad = view.zero_adjoint();
    let ViewAdjoint { xs, scale: s } = grad;
    let _: (Vec<f64>, f64) = (xs.clone(), s);
    assert_eq!(xs, [0.0, 0.0]);
}

/// A const-generic polynomial, with a default scalar type.
#[derive(revad::Adjoint)]
pub struct Poly<const N: usize, T = f64> {
    /// Coefficients.
    pub c: [T; N],
}

#[test]
fn const_generic_struct() {
    let p: Poly<4> = Poly { c: [1.0; 4] };
    let grad = is::<PolyAdjoint<4>>(p.zero_adjoint());
    assert_eq!(grad.c, [0.0; 4]);
}

/// A recursive list: `Box` keeps the adjoint sized.
#[derive(revad::Adjoint)]
pub struct List {
    /// The head.
    pub head: f64,
    /// The tail.
    pub tail: Option<Box<Self>>,
}

#[test]
fn recursive_struct() {
    let list = List {
        head: 1.0,
        tail: Some(Box::new(List {
            head: 2.0,
            tail: None,
        })),
    };
    let mut acc = is::<ListAdjoint>(list.zero_adjoint());
    assert_eq!(acc.tail.as_ref().map(|t| t.head), Some(0.0));
    let step = ListAdjoint {
        head: 1.0,
        tail: Some(Box::new(ListAdjoint {
            head: 5.0,
            tail: None,
        })),
    };
    List::accumulate(&mut acc, &step);
    assert_eq!(acc, step);
}

/// A generic tree: the recursive field gets no bound of its own (it would be a cycle).
#[derive(revad::Adjoint)]
pub struct Tree<T> {
    /// The value at the node.
    pub value: T,
    /// The subtrees.
    pub kids: Vec<Tree<T>>,
}

#[test]
fn generic_recursive_struct() {
    let leaf = |v| Tree {
        value: v,
        kids: vec![],
    };
    let tree = Tree {
        value: [1.0_f32, 2.0],
        kids: vec![leaf([3.0, 4.0]), leaf([5.0, 6.0])],
    };
    let mut acc = is::<TreeAdjoint<[f32; 2]>>(tree.zero_adjoint());
    assert_eq!(acc.kids.len(), 2);
    let mut step = tree.zero_adjoint();
    step.kids[1].value = [1.0, -1.0];
    Tree::<[f32; 2]>::accumulate(&mut acc, &step);
    assert_eq!(acc.kids[1].value, [1.0, -1.0]);
    assert_eq!(acc.value, [0.0; 2]);
}

// ---- enums -------------------------------------------------------------------------------------

/// A shape: the variants carry different data.
#[derive(Clone, Debug, revad::Adjoint)]
pub enum Shape {
    /// A circle of this radius.
    Circle(f64),
    /// A rectangle.
    Rect {
        /// Width.
        w: f64,
        /// Height.
        h: f64,
        /// Inactive: how many copies.
        copies: u32,
    },
    /// Nothing.
    Empty,
}

#[test]
fn enum_zero_keeps_the_variant() {
    assert_eq!(Shape::Circle(2.0).zero_adjoint(), ShapeAdjoint::Circle(0.0));
    let rect = Shape::Rect {
        w: 1.0,
        h: 2.0,
        copies: 3,
    };
    assert_eq!(
        rect.zero_adjoint(),
        ShapeAdjoint::Rect {
            w: 0.0,
            h: 0.0,
            copies: Zero
        }
    );
    assert_eq!(Shape::Empty.zero_adjoint(), ShapeAdjoint::Empty);
    assert_ne!(ShapeAdjoint::Circle(0.0), ShapeAdjoint::Empty);
    assert_eq!(
        format!("{:?}", rect.zero_adjoint()),
        "Rect { w: 0.0, h: 0.0, copies: Zero }"
    );
}

#[test]
fn enum_accumulate_adds_within_a_variant() {
    let mut acc = Shape::Rect {
        w: 1.0,
        h: 2.0,
        copies: 3,
    }
    .zero_adjoint();
    let step = ShapeAdjoint::Rect {
        w: 0.5,
        h: -1.0,
        copies: Zero,
    };
    Shape::accumulate(&mut acc, &step);
    Shape::accumulate(&mut acc, &step);
    assert_eq!(
        acc,
        ShapeAdjoint::Rect {
            w: 1.0,
            h: -2.0,
            copies: Zero
        }
    );
    let mut circle = ShapeAdjoint::Circle(1.0);
    Shape::accumulate(&mut circle, &ShapeAdjoint::Circle(2.0));
    assert_eq!(circle, ShapeAdjoint::Circle(3.0));
    let mut empty = ShapeAdjoint::Empty;
    Shape::accumulate(&mut empty, &ShapeAdjoint::Empty);
    assert_eq!(empty, ShapeAdjoint::Empty);
}

#[test]
#[should_panic(
    expected = "revad: cannot accumulate an adjoint of variant `Empty` of `Shape` into one of variant `Circle`"
)]
fn enum_accumulate_panics_on_different_variants() {
    let mut acc = ShapeAdjoint::Circle(1.0);
    Shape::accumulate(&mut acc, &ShapeAdjoint::Empty);
}

/// A generic enum with one variant, and an enum without variants: no catch-all arms.
#[derive(revad::Adjoint)]
pub enum Only<T> {
    /// The one variant.
    One {
        /// The values.
        xs: Vec<T>,
    },
}

/// No values at all.
#[derive(revad::Adjoint)]
pub enum Never {}

#[test]
fn enums_with_one_and_no_variants() {
    let only = Only::One {
        xs: vec![1.0_f32; 3],
    };
    let mut acc = is::<OnlyAdjoint<f32>>(only.zero_adjoint());
    Only::<f32>::accumulate(&mut acc, &OnlyAdjoint::One { xs: vec![1.0; 3] });
    assert_eq!(acc, OnlyAdjoint::One { xs: vec![1.0; 3] });
    let _: Option<NeverAdjoint> = None;
}

// ---- private types, raw identifiers ------------------------------------------------------------

mod private {
    /// A private type with private, oddly named fields: its adjoint is private too, and the
    /// expansion must not warn (the test crate denies warnings under clippy).
    #[derive(revad::Adjoint)]
    #[allow(non_snake_case)]
    pub(super) struct Inner {
        pub(super) r#type: f64,
        xY: [f32; 2],
    }

    pub(super) fn inner() -> (Inner, InnerAdjoint) {
        let inner = Inner {
            r#type: 1.0,
            xY: [2.0; 2],
        };
        let grad = revad::Adjoint::zero_adjoint(&inner);
        assert_eq!(grad.xY, [0.0; 2]);
        (inner, grad)
    }
}

#[test]
fn private_type_with_raw_field_names() {
    let (inner, grad) = private::inner();
    assert_eq!(inner.r#type, 1.0);
    assert_eq!(grad.r#type, 0.0);
    assert!(format!("{grad:?}").starts_with("InnerAdjoint { type: 0.0, xY: [0.0, 0.0] }"));
}
