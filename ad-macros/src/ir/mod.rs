//! The intermediate representation: a function body in A-normal form.
//!
//! Lowering (`lower`) turns the `syn` body into a [`Body`]: every float operation gets its
//! own `let` of a fresh local, user variables become [`Var`]s with unique names, control flow
//! stays structured ([`StmtKind::If`], [`StmtKind::Loop`]), and `break`, `continue` and
//! `return` become flags and guards, so that every block runs to its end.
//!
//! ```text
//! // Before
//! let z = x * y + x.sin();
//! // After
//! let __t0 = x * y;  let __t1 = x.sin();  let z = __t0 + __t1;
//! ```
//!
//! The analyses (`activity`, `snapshot`, `plan`) annotate it; codegen reads it and never looks
//! at the `syn` body again.
//!
//! To see it: `AD_IR=path/to/file.rs cargo test -p revad-macros ir_file -- --nocapture` prints
//! the IR of every `#[reverse]` function of a file (`print` documents the format), and
//! `ad-macros/tests/expand/NAME.ir` holds the IR of the fixtures (snapshot tests).
//!
//! # Contract
//!
//! What `lower` guarantees, every later pass may rely on, and every pass that changes the IR
//! must keep. `print::contract` checks rules 2 to 4 and 6 on every `#[reverse]` function of
//! the workspace's tests and examples, after `types::resolve` and after `snapshot::insert`.
//!
//! 1. **A-normal form.** Every float operation (arithmetic, negation, an intrinsic, a cast to
//!    a float type, an array read, a call of a function with a derivative, building a float
//!    array) is the [`Rhs`] of its own [`StmtKind::Let`], which defines a variable of its
//!    own. Its operands are [`Operand`]s: a variable, or a constant that reads no variable of
//!    the function (a literal, `PI`, `-1.0`, `N - 1`), emitted as written; never a nested
//!    operation. The right-hand side of an assignment is an operand too. Only `=`, `+=` and
//!    `-=` ([`AssignOp`]) remain: `x *= y` is `let t = x * y; x = t;`. Sub-expressions keep
//!    their evaluation order.
//! 2. **One definition, before the uses.** Every variable is a parameter or has exactly one
//!    definition: a `Let`, a [`Phi`] of an `If`, or a loop (the variable of a `for` over a
//!    range, and its trip counter [`Loop::trips`]). The definition comes first in program
//!    order; the operands of a phi are read at the end of their arm. Each user binding,
//!    shadowing ones included, is a variable of its own, and [`Var::name`] is unique in the
//!    function (the backends name adjoints and cells from it).
//! 3. **Mutability.** [`Var::mutable`] means "declared `let mut`": only such a variable is
//!    written after its definition (by `Assign`, `IndexAssign`, [`StmtKind::VecOp`], a `Let`
//!    of [`Rhs::Pop`] or [`Rhs::Remove`] (which writes the `Vec` it takes from), a `Let` of
//!    a [`Rhs::Call`] that passes it by `&mut` ([`Call::by_mut`]), or the `writes` of an
//!    opaque statement), so the value of any other variable is the one its definition gave
//!    it. A `mut` variable need not be written; `snapshot::Clobbers` knows where it is. A
//!    by-value `mut` or `&mut` float or array parameter is itself never written: the body
//!    works on a copy, `let mut x = x;`, and for `&mut` that copy is written back on return
//!    ([`Body::writebacks`], outputs like [`Body::output`]). A call's tuple result is never
//!    read but by the [`Rhs::Part`]s that follow the call. (This holds for code rustc
//!    accepts; the IR does not check that the user assigns only `mut` variables.)
//! 4. **Structured control; blocks run to their end.** There are no jumps. [`Block`]s nest
//!    in `If` and `Loop`; every block runs to its last statement. `break`, `continue` and
//!    `return` set `bool` flags (`__brk0 = true;`, an opaque statement); the flags are `mut`
//!    variables defined by `let .. = false` before the loop (or at the top of the body for
//!    `return`), and the statements after a jump run under a guard, `if !(flags) { .. }`. A
//!    loop stops after an iteration that set one of its [`Loop::exits`], and its
//!    [`Loop::cont`] flag is reset at the start of each iteration (codegen emits both). In a
//!    function with `return`, the result goes to the slot `__ret`, which is the [`Output`].
//!    Block ids are unique and below [`Body::blocks`]; the body is block 0.
//! 5. **Opaque code carries no derivative.** An [`Opaque`] expression (a `Let` of
//!    [`Rhs::Opaque`], a `while` condition, a range) and an opaque statement
//!    ([`StmtKind::Opaque`]) are emitted as written, with user variables renamed to their IR
//!    names; they list the variables they read (`reads`). Their results carry no derivative:
//!    once `activity` has reported no error, no opaque result is active. `flows` lists the
//!    variables whose derivative they would drop (a comparison, a cast to an integer or
//!    `.len()` drops nothing); `activity` reports `if_active` when an active value flows into
//!    an opaque expression whose value is used or that is not `cheap`, or into an opaque
//!    statement. A `cheap` expression is pure, so the reverse sweep may evaluate it again.
//!    Conditions, `while` conditions and ranges have no `flows`.
//! 6. **Types.** `lower` sets [`Var::ty`] as far as the code says (the signature, type
//!    annotations, literal suffixes, the operation); `types::resolve` settles it: after it,
//!    no variable is [`Ty::Float`]`(None)` or an array without an element type, and the
//!    variables used as indices and lengths, `powi` exponents and `if` conditions are
//!    [`Ty::Usize`], [`Ty::I32`] and [`Ty::Bool`] unless typed otherwise. [`Ty::Unknown`] may
//!    remain on inactive values. The `ty` of a `Let` is the user's annotation, emitted as
//!    written.
//! 7. **Who changes what.** `lower` builds the body. `types::resolve` changes only
//!    [`Var::ty`]. `activity` reads it and returns an [`activity::Activity`] per signature
//!    (activity is not stored in the IR). `snapshot::insert` adds variables (immutable
//!    copies, `let __x_old5 = x;`) and their `Let`s, and redirects operands of active
//!    statements to them. `plan` and codegen only read. Analyses report errors to
//!    `crate::error::Errors` at the spans of the IR ([`Var::span`], [`Stmt::span`],
//!    [`Callee::span`], `if_active`).
//! 8. **Growing vectors.** A float `Vec` whose length the body changes (or that starts empty,
//!    or is a `to_vec()`, or copies such a `Vec`) has the shape [`Shape::Len`] of a `usize`
//!    variable bound by the last statement of its defining block (`let __len4 = v.len();`),
//!    its length there; every operation that changes its length is a [`StmtKind::VecOp`] or a
//!    `Let` of [`Rhs::Pop`] / [`Rhs::Remove`], and one whose reverse must restore a length
//!    names the `usize` variable that holds it before the operation (`old`). Opaque code
//!    never changes the length of a float array (lowering rejects a mutating method there).

use proc_macro2::{Span, TokenStream};
use syn::Ident;

pub(crate) mod activity;
pub(crate) mod linear;
pub(crate) mod lower;
pub(crate) mod names;
pub(crate) mod needs;
pub(crate) mod plan;
#[cfg(test)]
pub(crate) mod print;
pub(crate) mod snapshot;
pub(crate) mod types;
pub(crate) mod visit;

/// Index of a [`Var`] in [`Body::vars`].
pub(crate) type VarId = usize;

/// Index of a [`Block`] (see [`Block::id`]).
pub(crate) type BlockId = usize;

/// Precision of a float value: a primitive, or a type parameter of the function bounded by
/// `revad::Float` (`fn f<T: Float>(x: T)`), which rustc instantiates with either.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FloatTy {
    F32,
    F64,
    /// The type parameter of this name. The name is interned (see [`FloatTy::generic`]), so
    /// that `FloatTy` stays `Copy` and every pass reads it like the primitives.
    Generic(&'static str),
}

impl FloatTy {
    /// The type parameter `name` of the function being expanded.
    ///
    /// The name is leaked once per distinct name for the life of the proc-macro server (in
    /// practice one: `T`), through a table of the names seen so far. Keeping it in the
    /// `Signature` instead would mean a lifetime on `FloatTy`, or a lookup, in every pass
    /// and type of the IR that carries a precision; a `&'static str` costs a few bytes once.
    pub(crate) fn generic(name: &str) -> FloatTy {
        use std::cell::RefCell;
        use std::collections::HashSet;
        thread_local! {
            static NAMES: RefCell<HashSet<&'static str>> = RefCell::new(HashSet::new());
        }
        NAMES.with(|names| {
            let mut names = names.borrow_mut();
            let interned = match names.get(name) {
                Some(interned) => *interned,
                None => {
                    let leaked: &'static str = Box::leak(name.to_owned().into_boxed_str());
                    names.insert(leaked);
                    leaked
                }
            };
            FloatTy::Generic(interned)
        })
    }

    /// `f32`, `f64` or `T`, as a type token. (At the call site, where the user's `T` is in
    /// scope.)
    pub(crate) fn ident(self) -> Ident {
        let name = match self {
            FloatTy::F32 => "f32",
            FloatTy::F64 => "f64",
            FloatTy::Generic(name) => name,
        };
        Ident::new(name, Span::call_site())
    }

    /// The type as the qualifier of an associated function: `f64` (`f64::powf(2.0, x)`), or
    /// `<T as ::revad::Float>` (`<T as ::revad::Float>::powf(c, x)`), which names the trait's
    /// method even where another bound of `T` has a method of the same name.
    pub(crate) fn qualifier(self) -> TokenStream {
        let ident = self.ident();
        match self {
            FloatTy::F32 | FloatTy::F64 => quote::quote!(#ident),
            FloatTy::Generic(_) => quote::quote!(<#ident as ::revad::Float>),
        }
    }

    /// Whether this is a type parameter: its constants are `<T as ::revad::Float>::ZERO` and
    /// the like, never literals.
    pub(crate) fn is_generic(self) -> bool {
        matches!(self, FloatTy::Generic(_))
    }
}

/// What the macro knows about the type of a variable.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Ty {
    /// A float scalar; the precision is settled by `types` (None until then).
    Float(Option<FloatTy>),
    /// An array, slice or `Vec` of floats.
    Array(ArrayInfo),
    /// A `usize`: array indices, lengths, trip counts.
    Usize,
    /// An `i32`: exponents of `powi`.
    I32,
    /// A `bool`: branch decisions and flags.
    Bool,
    /// Known not to be a float (an integer, a user type): inactive, emitted as written.
    Other,
    /// Not known: an integer literal, a constant, the result of a call. Settled by use.
    Unknown,
}

impl Ty {
    pub(crate) fn is_float(&self) -> bool {
        matches!(self, Ty::Float(_))
    }

    pub(crate) fn is_array(&self) -> bool {
        matches!(self, Ty::Array(_))
    }
}

/// The element type and shape of a float array, as far as the adjoint needs it.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct ArrayInfo {
    pub elem: Option<FloatTy>,
    pub shape: Shape,
    /// An aggregate: a user struct, a nested container, a tuple (a parameter of
    /// [`crate::parse::ParamKind::Aggregate`], a struct literal, a call's result). Its floats
    /// are reached by [`Path`]s whose types rustc knows and the macro does not (`elem` is
    /// `None`); its adjoint is `<T as revad::Adjoint>::Adj`, built by `zeros_like` and added
    /// with `Adjoint::accumulate`.
    pub agg: bool,
}

/// How to build an array of zeros of the same shape (the array's adjoint).
#[derive(Clone, Debug)]
pub(crate) enum Shape {
    /// `[T; N]` with `N` as written (a literal or a constant).
    Fixed(TokenStream),
    /// A `Vec` whose length is this operand (a `usize`).
    Len(Operand),
    /// The same shape as the value of this variable, which is available in the reverse sweep
    /// (a parameter): `zeros_like(&v)`.
    Like(VarId),
    /// The same shape as the part `path` of the aggregate variable: `zeros_like(&v.pos)`.
    /// (A part of an aggregate keeps its shape while the aggregate lives: the macro changes
    /// no length inside one.)
    Place(VarId, Path),
}

impl PartialEq for Shape {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (Shape::Fixed(a), Shape::Fixed(b)) => a.to_string() == b.to_string(),
            (Shape::Len(a), Shape::Len(b)) => a == b,
            (Shape::Like(a), Shape::Like(b)) => a == b,
            (Shape::Place(a, p), Shape::Place(b, q)) => a == b && p == q,
            _ => false,
        }
    }
}

/// A variable of the IR: a parameter, a user binding or a generated temporary.
#[derive(Clone, Debug)]
pub(crate) struct Var {
    /// The name it has in the generated code (unique in the function).
    pub name: Ident,
    pub ty: Ty,
    /// Assigned after its definition (`let mut`, or a flag).
    pub mutable: bool,
    /// A parameter of the function (index into the signature's parameters).
    pub param: Option<usize>,
    /// The user wrote `*v` for this variable (it came from `for v in xs.iter()`), and the
    /// generated code binds it to the value, not a reference.
    pub deref: bool,
    /// Where the variable is introduced (for errors).
    pub span: Span,
    /// A temporary made by lowering (a `let` may give it the user's name instead).
    pub temp: bool,
}

/// An operand of an operation.
#[derive(Clone, Debug)]
pub(crate) enum Operand {
    /// The value of a variable.
    Var(VarId),
    /// A constant: a literal or a path that is not a local (`2.0`, `PI`, `N`).
    Lit(TokenStream, LitKind),
}

impl PartialEq for Operand {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (Operand::Var(a), Operand::Var(b)) => a == b,
            (Operand::Lit(a, ka), Operand::Lit(b, kb)) => {
                ka == kb && a.to_string() == b.to_string()
            }
            _ => false,
        }
    }
}

impl Eq for Operand {}

impl Operand {
    pub(crate) fn var(&self) -> Option<VarId> {
        match self {
            Operand::Var(v) => Some(*v),
            Operand::Lit(..) => None,
        }
    }
}

/// What a literal operand is known to be.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum LitKind {
    /// A float literal (`2.0`, `1e-3`, `3f32`).
    Float(Option<FloatTy>),
    /// An integer literal.
    Int,
    /// A path or other constant expression of unknown type.
    Unknown,
    /// `true` or `false`: the flags lowering makes for `break`, `continue` and `return`.
    Bool,
}

/// A binary float operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
}

/// How an assignment combines with the old value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum AssignOp {
    /// `=`
    Set,
    /// `+=`
    Add,
    /// `-=`
    Sub,
}

/// The right-hand side of a [`StmtKind::Let`].
#[derive(Clone, Debug)]
pub(crate) enum Rhs {
    /// `let v = a;`
    Copy(Operand),
    /// `let v = -a;`
    Neg(Operand),
    /// `let v = a op b;`
    Binary(BinOp, Operand, Operand),
    /// `let v = a.name(b, ..);` for a float intrinsic (see `crate::rules`). For `powi` the
    /// last operand is the integer exponent.
    Intrinsic(&'static crate::rules::Rule, Vec<Operand>),
    /// `let v = a as f64;`
    Cast(Operand, FloatTy),
    /// `let v = a[i];` on a float array, or `let v = p.pos[i];`, `let v = m[i][j];` on an
    /// aggregate (a struct, a nested container): the [`Path`] from the variable to the float.
    Index(VarId, Path),
    /// `let v = [a, b, c];`
    ArrayLit(Vec<Operand>),
    /// `let v = [a; N];`
    ArrayRepeat(Operand, TokenStream),
    /// `let v = vec![a; n];`
    VecRepeat(Operand, Operand),
    /// `let v = Vec::new();`, or `Vec::with_capacity(n)` with the capacity: an empty float
    /// `Vec` (see `grow`).
    VecNew(Option<Operand>),
    /// `let v = vec![a, b, c];`
    VecLit(Vec<Operand>),
    /// `let v = Particle { pos: a, mass: b };`: an aggregate built from its fields' values
    /// (floats, float arrays, aggregates, inactive values). Its adjoint's fields flow back
    /// into theirs.
    StructLit(StructLit),
    /// `let v = w.to_vec();`: a copy of the float array, slice or `Vec` operand as a `Vec`
    /// (its adjoint flows back like that of a copy).
    ToVec(Operand),
    /// `let v = w.pop().unwrap();` (or `.expect(..)`): writes `w`, the float `Vec` variable.
    Pop(VarId),
    /// `let v = w.remove(i);`: writes `w`.
    Remove(VarId, Operand),
    /// `let v = g(a, b);` where `g` has a derivative (`#[reverse]` or `#[revad::derivative]`).
    /// `v` is a scalar, an array, or (for a call destructured by `let (a, b) = g(..)`) the
    /// tuple whose parts are the [`Rhs::Part`]s listed in [`Call::parts`].
    Call(Call),
    /// `let a = t.k;`: part `k` of the tuple `t` a call returned. No derivative of its own:
    /// the call's reverse reads the parts' adjoints as its seed.
    Part(VarId, usize),
    /// An inactive expression, emitted as written (with variables renamed).
    Opaque(Opaque),
    /// `let g = !(f1 || f2 || ..);`: the guard lowering puts around the statements after a
    /// `break`, `continue` or `return` that may have run; true when none of the flags is set.
    Guard(Vec<VarId>),
}

/// The way from an array or aggregate variable to one float inside it: `[i]`, `.pos[i]`,
/// `[i][j]`, `.layers[l].w[k]`. A float array's paths are one index.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Path(pub Vec<Step>);

/// One step of a [`Path`].
#[derive(Clone)]
pub(crate) enum Step {
    /// `[i]` with a `usize` operand.
    Index(Operand),
    /// `.name` or `.0`.
    Field(syn::Member),
    /// The field `field` of the enum variant `variant`, which the value at this point must
    /// have (an arm of a `match` on it chose it, or the value was built with it). Rendered
    /// as a `match` that binds the field (see [`Variant::place`]).
    Variant(Variant),
}

/// A field of an enum variant, as a [`Step`] or the variant of a [`StructLit`].
///
/// ```text
/// // Before
/// match s { Shape::Circle(r) => 3.0 * r, .. }
/// // After: a read of `r`, and its adjoint's contribution
/// let __t0 = (*match &s { Shape::Circle(__v, ..) => __v, _ => ::core::unreachable!() });
/// (*match &mut __adj_s { __AdjShape::Circle(__v, ..) => __v, _ => ::core::unreachable!() }) += ..;
/// ```
#[derive(Clone)]
pub(crate) struct Variant {
    /// The enum, as the user wrote it before the variant's name (`Shape`, `geo::Shape`).
    pub enum_ty: TokenStream,
    /// The variant's name (`Circle`).
    pub variant: Ident,
    /// The field (`0`, `w`).
    pub field: syn::Member,
    /// The local alias of the enum's adjoint type (`type __AdjShape = <Shape as
    /// ::revad::Adjoint>::Adj;`, declared by codegen from [`Body::enums`]): a pattern cannot
    /// name a variant through a projection. `None` for `Option`, whose adjoint is an `Option`
    /// (`Some(x)` has the adjoint `Some(dx)`): its patterns name the same variant.
    pub alias: Option<Ident>,
}

impl Variant {
    /// `Shape::Circle(_, __v, ..)` or `Shape::Rect { w: __v, .. }` (on the adjoint:
    /// `__AdjShape::Circle(..)`), binding the field to `bind`.
    pub(crate) fn pattern(&self, adjoint: bool, bind: &Ident) -> TokenStream {
        let variant = &self.variant;
        let path = match adjoint {
            true if self.alias.is_some() => {
                let alias = &self.alias;
                quote::quote!(#alias::#variant)
            }
            _ => {
                let ty = &self.enum_ty;
                quote::quote!(#ty::#variant)
            }
        };
        match &self.field {
            syn::Member::Unnamed(i) => {
                let skip = (0..i.index).map(|_| quote::quote!(_,));
                quote::quote!(#path(#(#skip)* #bind, ..))
            }
            syn::Member::Named(name) => quote::quote!(#path { #name: #bind, .. }),
        }
    }

    /// The field of the value at the place `base` as a place expression:
    /// `(*match &base { Shape::Circle(__v, ..) => __v, _ => ::core::unreachable!() })`
    /// (`&mut` when `mutable`; the adjoint's variant when `adjoint`).
    pub(crate) fn place(&self, base: TokenStream, mutable: bool, adjoint: bool) -> TokenStream {
        let bind = Ident::new("__v", Span::mixed_site());
        let pat = self.pattern(adjoint, &bind);
        let borrow = match mutable {
            true => quote::quote!(&mut),
            false => quote::quote!(&),
        };
        quote::quote!((*match #borrow #base { #pat => #bind, _ => ::core::unreachable!() }))
    }
}

impl PartialEq for Variant {
    fn eq(&self, other: &Self) -> bool {
        self.enum_ty.to_string() == other.enum_ty.to_string()
            && self.variant == other.variant
            && self.field == other.field
    }
}

impl std::fmt::Debug for Variant {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Variant({}::{}.", self.enum_ty, self.variant)?;
        write!(f, "{})", quote::ToTokens::to_token_stream(&self.field))
    }
}

/// The adjoint type alias of an enum the body matches on or builds (see [`Variant::alias`]).
#[derive(Clone, Debug)]
pub(crate) struct EnumAlias {
    pub alias: Ident,
    pub enum_ty: TokenStream,
}

impl Path {
    /// `base` followed by the steps, as an expression (a place): `p.pos[i]`, or for a
    /// [`Step::Variant`] the `match` that reaches the field (see [`Variant::place`]).
    /// `render` writes an index operand; `mutable` and `adjoint` are as for
    /// [`Variant::place`].
    pub(crate) fn place(
        &self,
        base: TokenStream,
        mutable: bool,
        adjoint: bool,
        mut render: impl FnMut(&Operand) -> TokenStream,
    ) -> TokenStream {
        let mut out = base;
        for step in &self.0 {
            out = match step {
                Step::Index(i) => {
                    let i = render(i);
                    quote::quote!(#out[#i])
                }
                Step::Field(m) => quote::quote!(#out.#m),
                Step::Variant(v) => v.place(out, mutable, adjoint),
            };
        }
        out
    }
}

impl std::fmt::Debug for Step {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Step::Index(i) => f.debug_tuple("Index").field(i).finish(),
            Step::Field(m) => write!(f, "Field({})", quote::ToTokens::to_token_stream(m)),
            Step::Variant(v) => v.fmt(f),
        }
    }
}

impl PartialEq for Step {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (Step::Index(a), Step::Index(b)) => a == b,
            (Step::Field(a), Step::Field(b)) => a == b,
            (Step::Variant(a), Step::Variant(b)) => a == b,
            _ => false,
        }
    }
}

impl Path {
    /// The path `[index]` of an element of a float array.
    pub(crate) fn index(index: Operand) -> Path {
        Path(vec![Step::Index(index)])
    }

    /// The index operands, in order.
    pub(crate) fn operands(&self) -> Vec<&Operand> {
        self.0
            .iter()
            .filter_map(|s| match s {
                Step::Index(i) => Some(i),
                Step::Field(_) | Step::Variant(_) => None,
            })
            .collect()
    }

    /// The index operands, mutably, in the order of `operands`.
    pub(crate) fn operands_mut(&mut self) -> Vec<&mut Operand> {
        self.0
            .iter_mut()
            .filter_map(|s| match s {
                Step::Index(i) => Some(i),
                Step::Field(_) | Step::Variant(_) => None,
            })
            .collect()
    }

    /// The single index of a float array's element, if this is such a path.
    pub(crate) fn single(&self) -> Option<&Operand> {
        match self.0.as_slice() {
            [Step::Index(i)] => Some(i),
            _ => None,
        }
    }
}

/// A struct expression: the path as written and each field's value.
#[derive(Clone, Debug)]
pub(crate) struct StructLit {
    pub path: TokenStream,
    pub fields: Vec<(TokenStream, Operand)>,
    /// A tuple struct's constructor, `Pair(a, b)` (the fields are `0`, `1`, ..).
    pub tuple: bool,
    /// For an enum variant (`Shape::Circle(a)`, `Shape::Rect { w: a, h: b }`): the enum and
    /// its adjoint's alias (the `field` of the [`Variant`] is unused). `path` is the
    /// variant's path, as written.
    pub variant: Option<Variant>,
}

/// A call of a function with a derivative, through its split companions `g::fwd` and
/// `g::rev`.
#[derive(Clone, Debug)]
pub(crate) struct Call {
    /// Index into [`Body::callees`].
    pub callee: usize,
    /// The arguments: scalars, float arrays (by variable), inactive values.
    pub args: Vec<Operand>,
    /// Which arguments are passed by reference (`&h` for a local array).
    pub by_ref: Vec<bool>,
    /// For a tuple result destructured by `let (a, b) = g(..)`: the variables of its parts, in
    /// order (each defined by a [`Rhs::Part`] right after the call). Empty otherwise.
    pub parts: Vec<VarId>,
    /// Which arguments are passed by `&mut` (`&mut h`, `&mut x`): variables the call writes.
    /// Their adjoints are in-out: the callee's reverse sweep reads the adjoint of the value
    /// after the call and replaces it with that of the value before.
    pub by_mut: Vec<bool>,
    /// For an argument that is a part of an aggregate (`&ps[i]`, `&self.layers[k]`,
    /// `p.mass`): the path from the argument's variable (the aggregate) to it. The callee's
    /// reverse sweep adds into the same path of the aggregate's adjoint.
    pub paths: Vec<Option<Path>>,
    /// A method call: the first argument is the receiver, which the reverse sweep passes
    /// again (by `&`, to find the method) even when it passed it by `&mut`.
    pub method: bool,
    /// The closures passed to the callee, lifted into hidden functions ([`Hoisted`]): the
    /// arguments above leave them out and end with the variables they capture.
    pub closures: Vec<ClosureArg>,
    /// For a method whose receiver is passed by `&mut` and written again before the reverse
    /// sweep: a copy of the receiver taken before the call (`snapshot`), which the callee's
    /// reverse sweep reads in its place. (The caller cannot tell `&self` from `&mut self`: a
    /// `&self` method's reverse reads its receiver as it was at the call; a `&mut self`
    /// method's pops its own copy and ignores this one.) The copy carries no adjoint: the
    /// callee adds into the receiver's. The last operand of the call when present.
    pub receiver_old: Option<Operand>,
}

/// A closure literal passed to a function with a derivative (`integrate(|x| c * x, a, b)`),
/// or an annotated function passed by name (`integrate(cube, a, b)`).
#[derive(Clone, Debug)]
pub(crate) struct ClosureArg {
    /// Where the closure stands among the arguments as written.
    pub position: usize,
    /// Passed by reference (`&f`).
    pub by_ref: bool,
    /// Index into [`Body::hoisted`]; unused for a function passed by name.
    pub hoisted: usize,
    /// A function passed by name: its path, whose marker struct implements the runtime's
    /// function traits (no captures).
    pub item: Option<TokenStream>,
    /// The arguments of the [`Call`] that are its captured variables.
    pub captures: std::ops::Range<usize>,
}

/// A closure lifted into a hidden annotated function whose last parameters are the
/// variables it captures, with a struct that holds their values and adjoints and implements
/// the runtime's function traits (`codegen::closures`).
#[derive(Clone, Debug)]
pub(crate) struct Hoisted {
    /// The hidden function (`__ad_closure_outer_0`).
    pub function: Ident,
    /// The struct passed for the closure (`__AdClosure_outer_0`).
    pub object: Ident,
    /// The closure's parameters and their types.
    pub params: Vec<(Ident, TokenStream)>,
    /// The closure's body, as written.
    pub body: TokenStream,
    /// The captured variables, by their names in the closure.
    pub captures: Vec<Capture>,
    /// The float type of the closure's arguments and result.
    pub float: FloatTy,
    /// The closure.
    pub span: Span,
}

/// A variable a lifted closure captures.
#[derive(Clone, Debug)]
pub(crate) struct Capture {
    pub ident: Ident,
    pub kind: CaptureKind,
}

/// How a captured variable is passed to the lifted closure.
#[derive(Clone, Debug)]
pub(crate) enum CaptureKind {
    /// A float of this type, with an adjoint and a tangent.
    Scalar(FloatTy),
    /// A float array, as a slice of this element type, with adjoints and tangents.
    Array(FloatTy),
    /// Anything else, by value, of this type: no derivative.
    Other(TokenStream),
}

impl Call {
    /// The variables passed by `&mut`, which the call writes.
    pub(crate) fn writes(&self) -> impl Iterator<Item = VarId> + '_ {
        self.args
            .iter()
            .zip(&self.by_mut)
            .filter(|(_, &m)| m)
            .filter_map(|(a, _)| a.var())
    }

    /// The index operands of the argument paths, in order, then the receiver's copy.
    pub(crate) fn path_operands(&self) -> Vec<&Operand> {
        self.paths
            .iter()
            .flatten()
            .flat_map(Path::operands)
            .chain(&self.receiver_old)
            .collect()
    }
}

/// A function called from the body.
#[derive(Clone, Debug)]
pub(crate) struct Callee {
    /// The path as the user wrote it (`g`, `m::g`, `other_crate::g`).
    pub path: TokenStream,
    /// The span of the path (errors about the callee point here).
    pub span: Span,
    /// The local alias its companions are reached through (`__callee0`).
    pub alias: Ident,
    /// The number of arguments (the receiver of a method included).
    pub arity: usize,
    /// How the companions are reached.
    pub kind: CalleeKind,
    /// A function or method of the user's, called by its name (not a function argument's
    /// `call`, not a rule of the runtime): one without companions gets a fallback whose use is
    /// the error that says so (`codegen::method_fallbacks`).
    pub user: bool,
    /// For a rule of the runtime (`linalg::mul` for `m * v`), the marker type of the rule
    /// (`Mul`), by which the backends name the type of its result.
    pub rule: Option<Ident>,
}

/// How a callee's companions are named and called.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum CalleeKind {
    /// A function: its marker struct, imported as the alias (`__callee0::fwd(..)`).
    Function,
    /// A method called as `recv.name(..)`: the receiver is the first argument, and the
    /// companions are methods beside it (`recv.__ad_fwd_name(..)`), found by rustc from the
    /// receiver's type.
    Method(Ident),
    /// An associated function called as `Type::name(..)`: the companions are associated
    /// functions beside it (`Type::__ad_fwd_name(..)`); `path` is `Type::name`.
    Associated,
}

/// An expression the macro does not differentiate: integer arithmetic, comparisons, casts to
/// integers, calls that do not involve active values.
#[derive(Clone, Debug)]
pub(crate) struct Opaque {
    /// The expression with user variables renamed to their IR names.
    pub expr: TokenStream,
    /// The variables it reads.
    pub reads: Vec<VarId>,
    /// Pure and cheap (arithmetic, comparisons, casts, literals, `.len()`, indexing), so the
    /// reverse sweep may evaluate it again instead of storing its value.
    pub cheap: bool,
    /// The variables whose values flow into the result without passing through a construct
    /// that carries no derivative (a comparison, a cast to an integer, `.len()`).
    pub flows: Vec<VarId>,
    /// The error to report if one of `flows` is active: the macro does not know the
    /// derivative of this expression (a call of an unknown function, arithmetic it did not
    /// recognise as float arithmetic), and ignoring it would silently drop a derivative.
    pub if_active: (Span, String),
}

impl Opaque {
    /// A generated expression (flags, guards) from which no derivative can flow.
    pub(crate) fn generated(expr: TokenStream, reads: Vec<VarId>) -> Opaque {
        Opaque {
            expr,
            reads,
            cheap: true,
            flows: Vec::new(),
            if_active: (Span::call_site(), String::new()),
        }
    }
}

/// A statement of the IR.
#[derive(Clone, Debug)]
pub(crate) struct Stmt {
    pub kind: StmtKind,
    /// The user code it came from.
    pub span: Span,
}

/// The kinds of [`Stmt`].
#[derive(Clone, Debug)]
pub(crate) enum StmtKind {
    /// `let [mut] var = rhs;`
    Let {
        var: VarId,
        rhs: Rhs,
        ty: Option<TokenStream>,
    },
    /// `var = value;`, `var += value;`, `var -= value;` on a mutable variable.
    Assign {
        var: VarId,
        op: AssignOp,
        value: Operand,
    },
    /// `array[index] = value;` (or `+=`, `-=`), or `p.pos[i] = value;` on an aggregate.
    IndexAssign {
        array: VarId,
        index: Path,
        op: AssignOp,
        value: Operand,
    },
    /// `if cond { then } else { els }`; the `phis` are the values of an `if` expression.
    If {
        cond: Operand,
        then: Block,
        els: Block,
        phis: Vec<Phi>,
    },
    /// A loop.
    Loop(Box<Loop>),
    /// An operation that changes the length or the order of the float `Vec` (or array, for
    /// `swap`) `vec`: `push`, `insert`, `extend_from_slice`, `resize`, `truncate`, `clear`,
    /// `pop` as a statement, `swap` (see `grow`).
    VecOp { vec: VarId, op: VecOp },
    /// An inactive statement emitted as written (`k += 1;` on an integer, `flag = true;`).
    /// `flows` are the variables whose values it reads outside a construct that kills
    /// derivatives: a statement has effects the macro does not see, so a differentiated value
    /// among them is the error `if_active` (see `activity`).
    Opaque {
        tokens: TokenStream,
        writes: Vec<VarId>,
        flows: Vec<VarId>,
        if_active: (Span, String),
    },
}

/// The operations of [`StmtKind::VecOp`]. The reverse sweep keeps the adjoint of a `Vec` as
/// long as the `Vec` at each point: `old` is the length before the operation (a `usize`
/// variable defined just before it), where the reverse needs it to restore the adjoint's
/// length.
#[derive(Clone, Debug)]
pub(crate) enum VecOp {
    /// `v.push(x)`: the reverse pops the adjoint into `x`'s.
    Push(Operand),
    /// `v.insert(i, x)`: the reverse removes the adjoint at `i` into `x`'s.
    Insert(Operand, Operand),
    /// `v.extend_from_slice(&w)` for the float array variable `w`.
    Extend { src: VarId, old: VarId },
    /// `v.resize(n, x)`: the new elements' adjoints go to `x`.
    Resize {
        len: Operand,
        value: Operand,
        old: VarId,
    },
    /// `v.truncate(n)`, `v.clear()`, `v.pop();`: the reverse pads the adjoint with zeros.
    Shrink { how: Shrink, old: VarId },
    /// `v.swap(i, j)`, also on fixed-size arrays.
    Swap(Operand, Operand),
}

/// How [`VecOp::Shrink`] shrinks.
#[derive(Clone, Debug)]
pub(crate) enum Shrink {
    Truncate(Operand),
    Clear,
    /// `v.pop();` with its value dropped (nothing happens on an empty `Vec`).
    Pop,
}

impl VecOp {
    /// The operands the operation reads (indices, values, lengths), in a fixed order.
    pub(crate) fn operands(&self) -> Vec<&Operand> {
        match self {
            VecOp::Push(a) => vec![a],
            VecOp::Insert(i, a) | VecOp::Swap(i, a) => vec![i, a],
            VecOp::Resize { len, value, .. } => vec![len, value],
            VecOp::Shrink {
                how: Shrink::Truncate(n),
                ..
            } => vec![n],
            VecOp::Extend { .. } | VecOp::Shrink { .. } => Vec::new(),
        }
    }

    /// Every variable it reads besides the `Vec` itself (operands, the source, the old length).
    #[cfg(test)]
    pub(crate) fn reads(&self) -> Vec<VarId> {
        let mut reads: Vec<VarId> = self
            .operands()
            .into_iter()
            .filter_map(Operand::var)
            .collect();
        match self {
            VecOp::Extend { src, old } => reads.extend([*src, *old]),
            VecOp::Resize { old, .. } | VecOp::Shrink { old, .. } => reads.push(*old),
            _ => {}
        }
        reads
    }

    /// The value whose adjoint the new elements' adjoints flow into (`push`, `insert`,
    /// `resize`), if any.
    pub(crate) fn value(&self) -> Option<&Operand> {
        match self {
            VecOp::Push(a) | VecOp::Insert(_, a) | VecOp::Resize { value: a, .. } => Some(a),
            _ => None,
        }
    }
}

/// `let var = if c { .. then } else { .. els };`
#[derive(Clone, Debug)]
pub(crate) struct Phi {
    pub var: VarId,
    pub then: Operand,
    pub els: Operand,
}

/// A block of statements (an arm of an `if`, the body of a loop, the function body).
#[derive(Clone, Debug)]
pub(crate) struct Block {
    pub id: BlockId,
    pub stmts: Vec<Stmt>,
}

/// A loop. Its body always runs to its end: `break` and `continue` are flags (see `lower`).
#[derive(Clone, Debug)]
pub(crate) struct Loop {
    pub kind: LoopKind,
    pub body: Block,
    /// Flags that end the loop when set at the end of an iteration (`break`, `return`).
    pub exits: Vec<VarId>,
    /// A flag reset at the start of each iteration (`continue`).
    pub cont: Option<VarId>,
    /// The number of iterations run (a `usize` counted when the reverse sweep needs it).
    pub trips: VarId,
    /// `#[revad::checkpoint]` on the loop (a `for` over a plain range that does not jump, a
    /// statement of the function's body: lowering checks).
    pub checkpoint: Option<Checkpoint>,
}

/// `#[revad::checkpoint(snapshots = k)]` on a loop: `NAME_vjp` (of either backend) keeps at
/// most `k` states of the loop (the mutable variables it may read) and recomputes the others
/// in the reverse sweep (`codegen::sweep::checkpoint`); other backends run the loop as any.
#[derive(Clone, Debug)]
pub(crate) struct Checkpoint {
    /// The budget `k` (at least 1); `None`: the runtime's default.
    pub snapshots: Option<usize>,
    /// Where the attribute starts.
    pub span: Span,
    /// The attribute, which errors underline.
    pub tokens: TokenStream,
}

/// How a loop iterates.
#[derive(Clone, Debug)]
pub(crate) enum LoopKind {
    /// `while cond { .. }`
    While { cond: Opaque },
    /// `loop { .. }`
    Infinite,
    /// `for var in range { .. }` over integers.
    Range(RangeLoop),
}

/// `for var in range`, where `range` is `a..b` or `a..=b`, possibly followed by `.rev()` and
/// `.step_by(k)`.
#[derive(Clone, Debug)]
pub(crate) struct RangeLoop {
    /// The loop variable (`None` for `_`).
    pub var: Option<VarId>,
    /// The range expression, renamed.
    pub range: Opaque,
    /// The direction of the walk over a plain range.
    pub walk: Walk,
}

/// How a range loop walks its range: a fact about the range, which a backend can use to walk
/// it the other way (the tape's reverse sweep does).
#[derive(Clone, Debug)]
pub(crate) enum Walk {
    /// The range is the plain range `base` (`a..b`, `a..=b`), walked upwards.
    Up(TokenStream),
    /// The range is `(base).rev()` for the plain range `base`.
    Down(TokenStream),
    /// Anything else (`step_by`).
    Other,
}

/// The output of the function, shaped like its return type.
#[derive(Clone, Debug)]
pub(crate) enum Output {
    Scalar(Operand),
    /// An array variable (`[f64; N]` or `Vec<f64>`).
    ArrayVar(VarId),
    Tuple(Vec<Output>),
    /// A value without derivatives returned beside `&mut` float outputs
    /// (`RetTy::Inactive`): returned as is, never seeded.
    Inactive(Operand),
}

/// A `&mut` float parameter's value on return: the variable `var` (the body's copy of
/// parameter `param`) is written back through the reference at the end of the forward sweep.
/// It is an output of the function like [`Body::output`].
#[derive(Clone, Copy, Debug)]
pub(crate) struct Writeback {
    pub param: usize,
    pub var: VarId,
}

/// A lowered function body.
#[derive(Clone, Debug)]
pub(crate) struct Body {
    pub vars: Vec<Var>,
    pub block: Block,
    /// The return value (`Output::Tuple(vec![])` for `()`).
    pub output: Output,
    /// The other outputs: the `&mut` float parameters, in order.
    pub writebacks: Vec<Writeback>,
    /// Number of blocks (block ids are `0..blocks`).
    pub blocks: usize,
    /// The functions with derivatives that the body calls.
    pub callees: Vec<Callee>,
    /// The enums whose variants the body reaches or builds: codegen declares their adjoint
    /// aliases once per generated function.
    pub enums: Vec<EnumAlias>,
    /// The closures passed to functions, lifted into hidden functions.
    pub hoisted: Vec<Hoisted>,
    /// The `const`, `static` and `use` items of the body, as written: codegen declares them
    /// again at the top of every generated function (an item is visible in its whole block).
    pub items: Vec<proc_macro2::TokenStream>,
    /// Nested containers built from constants with lengths read from variables
    /// (`vec![vec![0.0; n]; m]`): for each, an empty value of its type
    /// (`vec![vec![0.0; 0]; 0]`, as a call), which names it where the value is not in scope.
    pub witnesses: Vec<(VarId, proc_macro2::TokenStream)>,
    /// Matrices copied from a part of an aggregate by a `let` with their type
    /// (`let v: Vector3<f64> = self.vel;`): the type, which names the results of the rules
    /// that read them.
    pub declared: Vec<(VarId, proc_macro2::TokenStream)>,
}

impl Body {
    /// The type a `let` gave the matrix `var` (see `declared`).
    pub(crate) fn declared_type(&self, var: VarId) -> Option<&proc_macro2::TokenStream> {
        self.declared
            .iter()
            .find(|(v, _)| *v == var)
            .map(|(_, t)| t)
    }

    /// The empty value that names the type of `var` (see `witnesses`).
    pub(crate) fn witness(&self, var: VarId) -> Option<&proc_macro2::TokenStream> {
        self.witnesses
            .iter()
            .find(|(v, _)| *v == var)
            .map(|(_, w)| w)
    }
}
