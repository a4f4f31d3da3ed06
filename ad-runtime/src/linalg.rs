//! Derivative rules of vector and matrix operations, for generated code.
//!
//! `#[reverse]` lowers an arithmetic operator with an aggregate operand (`a + b`, `s * v`,
//! `m * v`) and the methods `.dot(..)`, `.cross(..)`, `.norm()`, `.norm_squared()` and
//! `.transpose()` of an aggregate to a call of the function of the same name here (and a
//! matrix's constructor from its entries to [`Entries`]), through its split companions (`__ad_fwd_mul`, `__ad_rev_mul`), as it calls any function with a
//! derivative:
//!
//! ```text
//! // Before                         // After
//! let c = m * v;                    let c = ::revad::__private::linalg::__ad_fwd_mul(m, v, stack);
//!                                   // reverse sweep:
//!                                   ::revad::__private::linalg::__ad_rev_mul(
//!                                       m, v, __adj_c, stack, &mut __adj_m, &mut __adj_v);
//! ```
//!
//! The companions are generic: what an operation computes and what its adjoints are is the
//! implementation of [`Binary`] or [`Unary`] for the operand types. This module has no
//! implementation of its own; the feature `nalgebra` adds those of `nalgebra`'s fixed-size
//! matrices and vectors (see the module `nalgebra` of this crate). An operation without one (two
//! user structs added, a product of vectors) is a compile error at the operation, never a
//! derivative the macro made up.

use crate::call::ScalarSink;
use crate::Float;

/// The operation markers of [`Binary`] and [`Unary`].
pub mod op {
    /// `a + b`.
    #[derive(Debug)]
    pub enum Add {}
    /// `a - b`.
    #[derive(Debug)]
    pub enum Sub {}
    /// `a * b`: a matrix product, or a product with a scalar.
    #[derive(Debug)]
    pub enum Mul {}
    /// `a / s` with a scalar `s`.
    #[derive(Debug)]
    pub enum Div {}
    /// `a.dot(&b)`.
    #[derive(Debug)]
    pub enum Dot {}
    /// `a.cross(&b)`.
    #[derive(Debug)]
    pub enum Cross {}
    /// `-a`.
    #[derive(Debug)]
    pub enum Neg {}
    /// `a.norm()`.
    #[derive(Debug)]
    pub enum Norm {}
    /// `a.norm_squared()`.
    #[derive(Debug)]
    pub enum NormSquared {}
    /// `a.transpose()`.
    #[derive(Debug)]
    pub enum Transpose {}
}

/// The constructor of the matrix type `M` from its entries, row by row (`Vector3::new(x, y,
/// z)`, `Matrix2::new(a, b, c, d)`): `#[reverse]` lowers such a call to
/// `Entries::<Vector3<_>>::new(x, y, z)` through its split companions (`__ad_fwd_new`,
/// `__ad_rev_new`), whose reverse sweep adds entry `k` of the result's adjoint, in the same
/// order, to the adjoint of argument `k`. The feature `nalgebra` implements it for
/// `nalgebra`'s matrices of 1 to 6 rows and columns; without an implementation, the call does
/// not compile.
#[derive(Debug)]
pub struct Entries<M>(core::marker::PhantomData<M>);

/// An operand as generated code passes it: the value, or a reference to it (a `&Vector3<f64>`
/// parameter).
#[diagnostic::on_unimplemented(
    message = "#[reverse] has no arithmetic rule for `{Self}`",
    label = "an operand of an operator on a type #[reverse] does not differentiate through",
    note = "#[reverse] differentiates operators on floats and on `nalgebra` vectors and \
            matrices; for a type of your own (`impl Add for V2`), write the arithmetic on its \
            fields, or call a method annotated with #[reverse] (`a.plus(&b)`)"
)]
pub trait Arg {
    /// The value.
    type Value;
    /// The value, copied.
    fn value(self) -> Self::Value;
}

macro_rules! scalar_args {
    ($($t:ty),*) => {$(
        impl Arg for $t {
            type Value = $t;
            #[inline]
            fn value(self) -> $t {
                self
            }
        }

        impl Arg for &$t {
            type Value = $t;
            #[inline]
            fn value(self) -> $t {
                *self
            }
        }
    )*};
}

scalar_args!(f32, f64);

/// Where the reverse sweep adds the adjoint of an operand of type `V`: a scalar's
/// [`ScalarSink`], or `&mut` a matrix's adjoint.
#[diagnostic::on_unimplemented(
    message = "#[reverse] has no arithmetic rule for this operand (its adjoint is `{V}`)",
    label = "an operand of an operator on a type #[reverse] does not differentiate through",
    note = "#[reverse] differentiates operators on floats and on `nalgebra` vectors and \
            matrices; for a type of your own (`impl Add for V2`), write the arithmetic on its \
            fields, or call a method annotated with #[reverse] (`a.plus(&b)`)"
)]
pub trait AdjSink<V> {
    /// Adds `adjoint`.
    fn add_adjoint(&mut self, adjoint: V);
}

impl<T: Float, S: ScalarSink<T>> AdjSink<T> for S {
    #[inline]
    fn add_adjoint(&mut self, adjoint: T) {
        self.add(adjoint);
    }
}

/// A binary operation `Op` between `Self` and `B` that has a derivative rule.
#[diagnostic::on_unimplemented(
    message = "#[reverse] has no derivative rule for `{Op}` of `{Self}` and `{B}`",
    label = "no derivative rule for this operation",
    note = "with the feature `nalgebra`, #[reverse] differentiates `+`, `-`, `*`, `/`, `.dot`, \
            `.cross`, `.norm`, `.norm_squared` and `.transpose` of `nalgebra`'s fixed-size \
            matrices and vectors (`SMatrix`, `Vector3`, `Matrix3`, ..) and floats; for a type \
            of your own, write the operation as a function with `#[reverse]`"
)]
pub trait Binary<Op, B>: Sized {
    /// The result.
    type Output;
    /// The result of `self Op b`.
    fn value(self, b: B) -> Self::Output;
    /// The adjoints of `self` and `b` for the adjoint `seed` of the result.
    fn adjoints(self, b: B, seed: Self::Output) -> (Self, B);
}

/// A unary operation `Op` of `Self` that has a derivative rule.
#[diagnostic::on_unimplemented(
    message = "#[reverse] has no derivative rule for `{Op}` of `{Self}`",
    label = "no derivative rule for this operation",
    note = "with the feature `nalgebra`, #[reverse] differentiates `-`, `.norm`, \
            `.norm_squared` and `.transpose` of `nalgebra`'s fixed-size matrices and vectors"
)]
pub trait Unary<Op>: Sized {
    /// The result.
    type Output;
    /// The result of `Op self`.
    fn value(self) -> Self::Output;
    /// The adjoint of `self` for the adjoint `seed` of the result.
    fn adjoint(self, seed: Self::Output) -> Self;
}

/// The output of the binary operation `Op` on the arguments `A` and `B`.
pub type BinaryOutput<Op, A, B> = <<A as Arg>::Value as Binary<Op, <B as Arg>::Value>>::Output;

/// The output of the unary operation `Op` on the argument `A`.
pub type UnaryOutput<Op, A> = <<A as Arg>::Value as Unary<Op>>::Output;

macro_rules! binary {
    ($($op:ident $name:ident $fwd:ident $rev:ident;)*) => {$(
        #[doc = concat!("`", stringify!($name), "`: the primal operation.")]
        #[inline]
        pub fn $name<A: Arg, B: Arg>(a: A, b: B) -> BinaryOutput<op::$op, A, B>
        where
            A::Value: Binary<op::$op, B::Value>,
        {
            Binary::<op::$op, _>::value(a.value(), b.value())
        }

        #[doc = concat!("The forward companion of [`", stringify!($name), "`]: nothing to record.")]
        #[inline]
        pub fn $fwd<A: Arg, B: Arg, S>(a: A, b: B, _stack: S) -> BinaryOutput<op::$op, A, B>
        where
            A::Value: Binary<op::$op, B::Value>,
        {
            Binary::<op::$op, _>::value(a.value(), b.value())
        }

        #[doc = concat!("The reverse companion of [`", stringify!($name), "`]: adds the adjoints of the operands into their sinks.")]
        #[inline]
        pub fn $rev<A: Arg, B: Arg, S, SA, SB>(
            a: A,
            b: B,
            seed: BinaryOutput<op::$op, A, B>,
            _stack: S,
            mut sink_a: SA,
            mut sink_b: SB,
        ) where
            A::Value: Binary<op::$op, B::Value>,
            SA: AdjSink<A::Value>,
            SB: AdjSink<B::Value>,
        {
            let (da, db) = Binary::<op::$op, _>::adjoints(a.value(), b.value(), seed);
            sink_a.add_adjoint(da);
            sink_b.add_adjoint(db);
        }
    )*};
}

macro_rules! unary {
    ($($op:ident $name:ident $fwd:ident $rev:ident;)*) => {$(
        #[doc = concat!("`", stringify!($name), "`: the primal operation.")]
        #[inline]
        pub fn $name<A: Arg>(a: A) -> UnaryOutput<op::$op, A>
        where
            A::Value: Unary<op::$op>,
        {
            Unary::<op::$op>::value(a.value())
        }

        #[doc = concat!("The forward companion of [`", stringify!($name), "`]: nothing to record.")]
        #[inline]
        pub fn $fwd<A: Arg, S>(a: A, _stack: S) -> UnaryOutput<op::$op, A>
        where
            A::Value: Unary<op::$op>,
        {
            Unary::<op::$op>::value(a.value())
        }

        #[doc = concat!("The reverse companion of [`", stringify!($name), "`]: adds the adjoint of the operand into its sink.")]
        #[inline]
        pub fn $rev<A: Arg, S, SA>(a: A, seed: UnaryOutput<op::$op, A>, _stack: S, mut sink_a: SA)
        where
            A::Value: Unary<op::$op>,
            SA: AdjSink<A::Value>,
        {
            sink_a.add_adjoint(Unary::<op::$op>::adjoint(a.value(), seed));
        }
    )*};
}

binary! {
    Add add __ad_fwd_add __ad_rev_add;
    Sub sub __ad_fwd_sub __ad_rev_sub;
    Mul mul __ad_fwd_mul __ad_rev_mul;
    Div div __ad_fwd_div __ad_rev_div;
    Dot dot __ad_fwd_dot __ad_rev_dot;
    Cross cross __ad_fwd_cross __ad_rev_cross;
}

unary! {
    Neg neg __ad_fwd_neg __ad_rev_neg;
    Norm norm __ad_fwd_norm __ad_rev_norm;
    NormSquared norm_squared __ad_fwd_norm_squared __ad_rev_norm_squared;
    Transpose transpose __ad_fwd_transpose __ad_rev_transpose;
}

/// A matrix or vector type with the rules above: the methods of [`DotMethod`] and the other
/// method traits are implemented for it (the feature `nalgebra` implements it for `nalgebra`'s
/// fixed-size matrices).
pub trait Linalg: Copy {}

/// The methods `.dot(..)`, `.cross(..)`, `.norm()`, `.norm_squared()` and `.transpose()` of
/// a [`Linalg`] value, as `#[reverse]` calls the methods of a value whose type it cannot see
/// (`self.pos.norm()`): through their companions (`(&v).__ad_fwd_norm(stack)`,
/// `(&v).__ad_rev_norm(seed, stack, sink)`), which rustc finds on a type of the user's
/// (its own annotated method, an inherent one, comes first) or here on a matrix. The generated
/// code imports the traits it needs.
macro_rules! unary_methods {
    ($($trait:ident $op:ident $fwd:ident $rev:ident;)*) => {$(
        #[doc = concat!("`.", stringify!($op), "` of a [`Linalg`] value as a method (see [`DotMethod`]).")]
        pub trait $trait: Linalg + Unary<op::$op> {
            #[doc = concat!("The forward companion of the method: its value.")]
            #[inline]
            fn $fwd<S>(&self, _stack: S) -> <Self as Unary<op::$op>>::Output {
                Unary::<op::$op>::value(*self)
            }

            #[doc = concat!("The reverse companion of the method: adds the receiver's adjoint into its sink.")]
            #[inline]
            fn $rev<S, SA: AdjSink<Self>>(
                &self,
                seed: <Self as Unary<op::$op>>::Output,
                _stack: S,
                mut sink: SA,
            ) {
                sink.add_adjoint(Unary::<op::$op>::adjoint(*self, seed));
            }
        }

        impl<M: Linalg + Unary<op::$op>> $trait for M {}
    )*};
}

macro_rules! binary_methods {
    ($($trait:ident $op:ident $fwd:ident $rev:ident;)*) => {$(
        #[doc = concat!("`.", stringify!($op), "(b)` of a [`Linalg`] value as a method (see [`DotMethod`]).")]
        pub trait $trait: Linalg {
            #[doc = concat!("The forward companion of the method: its value.")]
            #[inline]
            fn $fwd<B: Arg, S>(&self, b: B, _stack: S) -> <Self as Binary<op::$op, B::Value>>::Output
            where
                Self: Binary<op::$op, B::Value>,
            {
                Binary::<op::$op, _>::value(*self, b.value())
            }

            #[doc = concat!("The reverse companion of the method: adds the adjoints of the receiver and the argument into their sinks.")]
            #[inline]
            fn $rev<B: Arg, S, SA: AdjSink<Self>, SB: AdjSink<B::Value>>(
                &self,
                b: B,
                seed: <Self as Binary<op::$op, B::Value>>::Output,
                _stack: S,
                mut sink_a: SA,
                mut sink_b: SB,
            ) where
                Self: Binary<op::$op, B::Value>,
            {
                let (da, db) = Binary::<op::$op, _>::adjoints(*self, b.value(), seed);
                sink_a.add_adjoint(da);
                sink_b.add_adjoint(db);
            }
        }

        impl<M: Linalg> $trait for M {}
    )*};
}

binary_methods! {
    DotMethod Dot __ad_fwd_dot __ad_rev_dot;
    CrossMethod Cross __ad_fwd_cross __ad_rev_cross;
}

unary_methods! {
    NormMethod Norm __ad_fwd_norm __ad_rev_norm;
    NormSquaredMethod NormSquared __ad_fwd_norm_squared __ad_rev_norm_squared;
    TransposeMethod Transpose __ad_fwd_transpose __ad_rev_transpose;
}

/// The method traits above by the name of their method, for the generated code's imports.
pub const METHOD_TRAITS: &[(&str, &str)] = &[
    ("dot", "DotMethod"),
    ("cross", "CrossMethod"),
    ("norm", "NormMethod"),
    ("norm_squared", "NormSquaredMethod"),
    ("transpose", "TransposeMethod"),
];
