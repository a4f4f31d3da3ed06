//! # The forward-mode corpus
//!
//! Writes a copy of integration tests of `revad` (the files in [`FILES`], and the shared modules
//! under `tests/common/`) for `tests/corpus.rs` to include, in which:
//!
//! 1. every `#[reverse]` function that `#[revad::forward]` takes also gets `#[revad::forward]` (with
//!    the same `wrt(..)`): free functions whose parameter and result types are floats,
//!    integers, arrays, slices and `Vec`s of these (and references to them), that are not in
//!    [`SKIP`], and whose calls to other annotated functions all go to functions that get
//!    `#[revad::forward]` too (a fixpoint over the calls of each file). Methods, functions of
//!    structs or nested containers, and callers of `#[revad::derivative]` functions are left
//!    under `#[reverse]` alone. The functions that `both!` writes twice (`tests/common/both.rs`)
//!    are expanded here into the two functions, so that they are seen like the others;
//! 2. each of those functions without `&mut` parameters or type parameters gets a wrapper
//!    `NAME_grad_checked` (scalar result) and `NAME_vjp_checked` (result of floats), of the
//!    signature of `NAME_grad` / `NAME_vjp`, next to it: it calls the reverse mode, then
//!    `NAME_jvp` on three deterministic pseudo-random tangents (`revad_forward_corpus::Lcg`, seeded by the
//!    function's name) of the shapes of the active parameters, checks that the value of
//!    `NAME_jvp` is the value of the reverse mode bit for bit, and that `seed·JVP = Σ
//!    gradient·tangent` to a relative `1e-10` (`revad_forward_corpus::check`), and returns the reverse mode's
//!    result;
//! 3. every use of `NAME_grad` / `NAME_vjp` in the file (calls, paths, `use` lists, and tokens
//!    inside macro calls such as `assert_eq!`) becomes `NAME_grad_checked` /
//!    `NAME_vjp_checked`: the identity is checked at the inputs the tests themselves use, and
//!    their assertions (closed forms, finite differences, bit-for-bit comparisons) run
//!    unchanged on the same results.
//!
//! The copies are items for `include!` (no inner attributes), with `crate::` paths moved into
//! the module they are included in and `#[path = "common/.."]` pointing at the copies of the
//! shared modules. `OUT_DIR/forward/counts.rs` holds the functions that got `#[revad::forward]`
//! and those that are checked, which `tests/corpus.rs` counts.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

use proc_macro2::{Group, Ident, Span, TokenStream, TokenTree};
use quote::{format_ident, quote, ToTokens};
use syn::visit::Visit;
use syn::visit_mut::VisitMut;

/// The integration tests copied: those whose functions forward mode takes, and those with
/// structs or methods whose other functions it takes (`aggregate_loops`, `generics`).
const FILES: &[&str] = &[
    "aggregate_loops",
    "calls",
    "call_results",
    "checks",
    "closures",
    "cps",
    "custom_derivative",
    "f32",
    "generics",
    "intrinsics",
    "loops",
    "mutation",
    "recursion_depth",
    "soundness",
    "straight_line",
    "views",
    "vectors",
];

/// Functions left under `#[reverse]` alone, by file and name, with the reason.
const SKIP: &[(&str, &str, &str)] = &[
    (
        "cps",
        "carried",
        "a struct built in the body, which forward mode rejects",
    ),
    (
        "cps",
        "carried_tape",
        "a struct built in the body, which forward mode rejects",
    ),
    (
        "cps",
        "counted",
        "a struct built in the body, which forward mode rejects",
    ),
    (
        "cps",
        "counted_cps",
        "a struct built in the body, which forward mode rejects",
    ),
    (
        "generics",
        "rotation_generic",
        "a 2-D array literal, a nested container, which forward mode rejects",
    ),
    (
        "generics",
        "nested_vec_generic",
        "a nested `vec!`, which forward mode rejects",
    ),
    (
        "generics",
        "norm_of_cross_generic",
        "an array result passed on whole without its type, which forward mode takes for a float",
    ),
    (
        "call_results",
        "lent_results",
        "an array result lent whole without its type, which forward mode takes for a float",
    ),
    (
        "call_results",
        "norm_of_cross",
        "an array result passed on whole without its type, which forward mode takes for a float",
    ),
    (
        "call_results",
        "norm_of_crosses",
        "an array result passed on whole without its type, which forward mode takes for a float",
    ),
];

/// Functions under `#[revad::forward]` whose `NAME_jvp` disagrees with the reverse mode (macro
/// bugs, reproduced in `tests/known_bugs.rs`): no wrapper checks them until the bug is fixed.
const UNCHECKED: &[(&str, &str, &str)] = &[];

fn main() {
    let manifest = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").unwrap());
    let tests = manifest.join("../../tests");
    let out = PathBuf::from(std::env::var_os("OUT_DIR").unwrap()).join("forward");
    fs::create_dir_all(out.join("common")).unwrap();
    println!("cargo::rerun-if-changed=build.rs");
    println!("cargo::rerun-if-changed=../../tests");

    let mut corpus = Corpus::default();
    let mut common: Vec<_> = fs::read_dir(tests.join("common"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "rs"))
        .collect();
    common.sort();
    // The shared modules first: the tests call their functions.
    let common: Vec<_> = common
        .iter()
        .map(|path| {
            let name = path.file_stem().unwrap().to_str().unwrap().to_string();
            (path.clone(), corpus.load(path, &format!("common/{name}")))
        })
        .collect();
    let files: Vec<_> = FILES
        .iter()
        .map(|name| {
            let path = tests.join(format!("{name}.rs"));
            (name, corpus.load(&path, name))
        })
        .collect();
    corpus.decide();
    for (path, file) in common {
        let to = out.join("common").join(path.file_name().unwrap());
        let key = format!("common/{}", path.file_stem().unwrap().to_str().unwrap());
        corpus.write(file, &key, &to, "", &out);
    }
    for (name, file) in files {
        corpus.write(file, name, &out.join(format!("{name}.rs")), name, &out);
    }
    let forward: Vec<_> = corpus.forward.iter().collect();
    let checked: Vec<_> = corpus.checked.iter().collect();
    let counts = quote! {
        /// `file::function` of each function that got `#[revad::forward]`.
        pub const FORWARD: &[&str] = &[#(#forward),*];
        /// `file::function` of each function whose gradient (or VJP) is checked against its JVP.
        pub const CHECKED: &[&str] = &[#(#checked),*];
    };
    fs::write(out.join("counts.rs"), counts.to_string()).unwrap();
    // Why each function that forward mode does not take is left out.
    let report: String = corpus
        .funcs
        .iter()
        .map(|f| match &f.not {
            Some(why) => format!("{}::{}: not under forward mode: {why}\n", f.file, f.name),
            None if !f.grad_checked() && !f.vjp_checked() => {
                format!("{}::{}: under forward mode, not checked\n", f.file, f.name)
            }
            None => String::new(),
        })
        .collect();
    fs::write(out.join("report.txt"), report).unwrap();
}

/// What the parameters and results are made of.
#[derive(Clone, Debug)]
enum Shape {
    /// `f64`, `f32`, or a type parameter (`generic`).
    Float { generic: bool },
    /// Integers, `bool`, `char`, `str`.
    Inactive,
    /// `[T; N]`, `[T]`, `Vec<T>` of a scalar `T`.
    Array(Box<Shape>, Container),
    /// `&T` or `&mut T`.
    Ref(Box<Shape>, bool),
    /// `()` or a tuple (results only).
    Tuple(Vec<Shape>),
}

#[derive(Clone, Debug, PartialEq)]
enum Container {
    Array,
    Slice,
    Vec,
}

impl Shape {
    fn of(ty: &syn::Type, generics: &[String]) -> Option<Shape> {
        match ty {
            syn::Type::Paren(p) => Shape::of(&p.elem, generics),
            syn::Type::Group(g) => Shape::of(&g.elem, generics),
            syn::Type::Path(p) if p.qself.is_none() => {
                let seg = p.path.segments.last()?;
                let name = seg.ident.to_string();
                match &seg.arguments {
                    syn::PathArguments::None if p.path.segments.len() == 1 => match name.as_str() {
                        "f64" | "f32" => Some(Shape::Float { generic: false }),
                        "i8" | "i16" | "i32" | "i64" | "i128" | "isize" | "u8" | "u16" | "u32"
                        | "u64" | "u128" | "usize" | "bool" | "char" | "str" => {
                            Some(Shape::Inactive)
                        }
                        _ if generics.contains(&name) => Some(Shape::Float { generic: true }),
                        _ => None,
                    },
                    syn::PathArguments::AngleBracketed(args) if name == "Vec" => {
                        let [syn::GenericArgument::Type(elem)] =
                            args.args.iter().collect::<Vec<_>>()[..]
                        else {
                            return None;
                        };
                        Shape::scalar(elem, generics)
                            .map(|e| Shape::Array(Box::new(e), Container::Vec))
                    }
                    _ => None,
                }
            }
            syn::Type::Array(a) => Shape::scalar(&a.elem, generics)
                .map(|e| Shape::Array(Box::new(e), Container::Array)),
            syn::Type::Slice(s) => Shape::scalar(&s.elem, generics)
                .map(|e| Shape::Array(Box::new(e), Container::Slice)),
            syn::Type::Reference(r) => match Shape::of(&r.elem, generics)? {
                Shape::Ref(..) | Shape::Tuple(_) => None,
                inner => Some(Shape::Ref(Box::new(inner), r.mutability.is_some())),
            },
            syn::Type::Tuple(t) => t
                .elems
                .iter()
                .map(|e| match Shape::of(e, generics)? {
                    Shape::Tuple(_) | Shape::Ref(..) => None,
                    s => Some(s),
                })
                .collect::<Option<Vec<_>>>()
                .map(Shape::Tuple),
            _ => None,
        }
    }

    /// A float or an inactive scalar.
    fn scalar(ty: &syn::Type, generics: &[String]) -> Option<Shape> {
        Shape::of(ty, generics).filter(|s| matches!(s, Shape::Float { .. } | Shape::Inactive))
    }

    /// Whether the value holds floats.
    fn active(&self) -> bool {
        match self {
            Shape::Float { .. } => true,
            Shape::Inactive => false,
            Shape::Array(e, _) | Shape::Ref(e, _) => e.active(),
            Shape::Tuple(es) => es.iter().any(Shape::active),
        }
    }

    fn generic(&self) -> bool {
        match self {
            Shape::Float { generic } => *generic,
            Shape::Inactive => false,
            Shape::Array(e, _) | Shape::Ref(e, _) => e.generic(),
            Shape::Tuple(es) => es.iter().any(Shape::generic),
        }
    }

    fn mutable(&self) -> bool {
        matches!(self, Shape::Ref(_, true))
    }
}

/// An annotated free function of the corpus.
struct Func {
    file: String,
    name: String,
    /// The `wrt(..)` of its `#[reverse]`, if any.
    wrt: Option<Vec<String>>,
    /// The `(..)` arguments of `#[reverse(..)]` without `cps`.
    args: Vec<TokenStream>,
    /// Why forward mode does not take it, if it does not.
    not: Option<String>,
    /// Its calls (last segment of the path) and method calls.
    calls: BTreeSet<String>,
    methods: BTreeSet<String>,
    params: Vec<(syn::Type, Option<Shape>, String)>,
    ret: Option<Shape>,
    generic: bool,
}

#[derive(Default)]
struct Corpus {
    funcs: Vec<Func>,
    /// Names of `#[revad::derivative]` functions and of annotated methods.
    derivative: BTreeSet<(String, String)>,
    methods: BTreeSet<(String, String)>,
    /// `file::name` of the functions that get `#[revad::forward]`, and of the checked ones.
    forward: BTreeSet<String>,
    checked: BTreeSet<String>,
}

fn attr_named(attr: &syn::Attribute, name: &str) -> bool {
    attr.path().segments.last().is_some_and(|s| s.ident == name)
}

impl Corpus {
    /// Parses `path` (expanding `both!`) and records its annotated functions.
    fn load(&mut self, path: &Path, file: &str) -> syn::File {
        println!("cargo::rerun-if-changed={}", path.display());
        let source = fs::read_to_string(path).unwrap();
        let mut ast = syn::parse_file(&source).unwrap_or_else(|e| panic!("{path:?}: {e}"));
        ExpandBoth.visit_file_mut(&mut ast);
        let mut collect = Collect {
            corpus: self,
            file,
            in_impl: 0,
        };
        collect.visit_file(&ast);
        ast
    }

    /// Which functions get `#[revad::forward]`: a fixpoint over the calls.
    fn decide(&mut self) {
        let mut seen = BTreeMap::new();
        for f in &self.funcs {
            *seen.entry((f.file.clone(), f.name.clone())).or_insert(0) += 1;
        }
        for f in &mut self.funcs {
            if seen[&(f.file.clone(), f.name.clone())] > 1 {
                f.not = Some("its name is defined twice in its file".to_string());
            }
        }
        loop {
            // Callees by file: a function of the caller's file, else one of `common/`.
            let not: BTreeSet<(String, String)> = self
                .funcs
                .iter()
                .filter(|f| f.not.is_some())
                .map(|f| (f.file.clone(), f.name.clone()))
                .chain(self.derivative.iter().cloned())
                .collect();
            let defined: BTreeSet<(String, String)> = self
                .funcs
                .iter()
                .map(|f| (f.file.clone(), f.name.clone()))
                .chain(self.derivative.iter().cloned())
                .collect();
            let refused = |file: &str, callee: &str| {
                let here = (file.to_string(), callee.to_string());
                match defined.contains(&here) {
                    true => not.contains(&here),
                    false => not
                        .iter()
                        .any(|(f, n)| f.starts_with("common/") && n == callee),
                }
            };
            let mut changed = false;
            for f in self.funcs.iter_mut().filter(|f| f.not.is_none()) {
                if let Some(callee) = f.calls.iter().find(|c| refused(&f.file, c)) {
                    f.not = Some(format!(
                        "calls `{callee}`, which forward mode does not take"
                    ));
                    changed = true;
                } else if let Some(m) = f
                    .methods
                    .iter()
                    .find(|m| self.methods.contains(&(f.file.clone(), m.to_string())))
                {
                    f.not = Some(format!("calls the method `{m}`"));
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        for f in &self.funcs {
            if f.not.is_none() {
                self.forward.insert(format!("{}::{}", f.file, f.name));
            }
        }
    }

    fn func(&self, file: &str, name: &str) -> Option<&Func> {
        self.funcs.iter().find(|f| f.file == file && f.name == name)
    }

    /// Names whose uses are rewritten in `file`: `NAME_grad` (`NAME_vjp`) of each function
    /// with a wrapper, of `file` (or of `common/` for a name `file` does not define), unless
    /// another function of the same name there has none.
    fn renames(&self, file: &str) -> BTreeMap<String, String> {
        let here = |f: &&Func| f.file == file;
        let common = |f: &&Func| f.file.starts_with("common/");
        let defined: BTreeSet<&str> = self.funcs.iter().filter(here).map(|f| &*f.name).collect();
        let mut renames = BTreeMap::new();
        let mut clash = BTreeSet::new();
        let visible = self
            .funcs
            .iter()
            .filter(|f| here(f) || (common(f) && !defined.contains(&*f.name)));
        for f in visible {
            for (kind, ok) in [("grad", f.grad_checked()), ("vjp", f.vjp_checked())] {
                let from = format!("{}_{kind}", f.name);
                if ok {
                    renames.insert(from.clone(), format!("{from}_checked"));
                } else {
                    clash.insert(from);
                }
            }
        }
        renames.retain(|k, _| !clash.contains(k));
        renames
    }

    /// Writes the copy of `file` (`key` in [`Func::file`]) to `to`, for inclusion in `module`.
    fn write(&mut self, mut file: syn::File, key: &str, to: &Path, module: &str, out: &Path) {
        file.attrs
            .retain(|a| matches!(a.style, syn::AttrStyle::Outer));
        let renames = self.renames(key);
        Rewrite {
            renames: &renames,
            module,
            out,
        }
        .visit_file_mut(&mut file);
        let mut insert = Insert {
            corpus: self,
            file: key.to_string(),
            checked: Vec::new(),
        };
        insert.visit_file_mut(&mut file);
        let checked = std::mem::take(&mut insert.checked);
        self.checked.extend(checked);
        fs::write(to, prettyplease::unparse(&file)).unwrap();
    }
}

impl Func {
    fn active(&self) -> Vec<usize> {
        self.params
            .iter()
            .enumerate()
            .filter(|(_, (_, shape, name))| {
                shape.as_ref().is_some_and(Shape::active)
                    && self.wrt.as_ref().is_none_or(|w| w.contains(name))
            })
            .map(|(k, _)| k)
            .collect()
    }

    /// Whether a wrapper can be written: no `&mut`, no type parameter, at least one active
    /// parameter.
    fn wrappable(&self) -> bool {
        self.not.is_none()
            && !UNCHECKED
                .iter()
                .any(|(file, name, _)| *file == self.file && *name == self.name)
            && !self.generic
            && self
                .params
                .iter()
                .all(|(_, s, _)| s.as_ref().is_some_and(|s| !s.mutable() && !s.generic()))
            && !self.active().is_empty()
    }

    fn grad_checked(&self) -> bool {
        self.wrappable() && matches!(self.ret, Some(Shape::Float { generic: false }))
    }

    fn vjp_checked(&self) -> bool {
        self.wrappable()
            && match &self.ret {
                Some(Shape::Tuple(es)) => !es.is_empty() && es.iter().all(Shape::active),
                Some(s) => s.active(),
                None => false,
            }
    }
}

/// Replaces each `both! { .. }` item by its two functions, as `both.rs` writes them.
struct ExpandBoth;

/// The input of `both!`.
struct Both {
    attrs: Vec<syn::Attribute>,
    args: TokenStream,
    vis: syn::Visibility,
    name: Ident,
    cps: Ident,
    params: TokenStream,
    ret: syn::Type,
    body: syn::Block,
}

impl syn::parse::Parse for Both {
    fn parse(input: syn::parse::ParseStream<'_>) -> syn::Result<Self> {
        let attrs = input.call(syn::Attribute::parse_outer)?;
        let args;
        syn::bracketed!(args in input);
        let args: TokenStream = args.parse()?;
        let vis = input.parse()?;
        input.parse::<syn::Token![fn]>()?;
        let name = input.parse()?;
        input.parse::<syn::Token![/]>()?;
        let cps = input.parse()?;
        let params;
        syn::parenthesized!(params in input);
        let params = params.parse()?;
        input.parse::<syn::Token![->]>()?;
        Ok(Both {
            attrs,
            args,
            vis,
            name,
            cps,
            params,
            ret: input.parse()?,
            body: input.parse()?,
        })
    }
}

impl ExpandBoth {
    fn items(&mut self, items: &mut Vec<syn::Item>) {
        let mut out = Vec::new();
        for item in items.drain(..) {
            match &item {
                syn::Item::Macro(m) if m.mac.path.is_ident("both") => {
                    let b: Both = m.mac.parse_body().unwrap();
                    let Both {
                        attrs,
                        args,
                        vis,
                        name,
                        cps,
                        params,
                        ret,
                        body,
                    } = b;
                    let cps_args = match args.is_empty() {
                        true => quote!(cps),
                        false => quote!(cps, #args),
                    };
                    let two: syn::File = syn::parse_quote! {
                        #(#attrs)*
                        #[::revad::reverse(#args)]
                        #vis fn #name(#params) -> #ret #body

                        #(#attrs)*
                        #[::revad::reverse(#cps_args)]
                        #vis fn #cps(#params) -> #ret #body
                    };
                    out.extend(two.items);
                }
                _ => out.push(item),
            }
        }
        *items = out;
    }
}

impl VisitMut for ExpandBoth {
    fn visit_file_mut(&mut self, f: &mut syn::File) {
        self.items(&mut f.items);
        syn::visit_mut::visit_file_mut(self, f);
    }

    fn visit_item_mod_mut(&mut self, m: &mut syn::ItemMod) {
        if let Some((_, items)) = &mut m.content {
            self.items(items);
        }
        syn::visit_mut::visit_item_mod_mut(self, m);
    }
}

/// Records the annotated functions of a file.
struct Collect<'a> {
    corpus: &'a mut Corpus,
    file: &'a str,
    in_impl: usize,
}

/// The calls and method calls of a body.
#[derive(Default)]
struct Calls {
    calls: BTreeSet<String>,
    methods: BTreeSet<String>,
}

impl<'ast> Visit<'ast> for Calls {
    fn visit_expr_call(&mut self, c: &'ast syn::ExprCall) {
        if let syn::Expr::Path(p) = &*c.func {
            if let Some(seg) = p.path.segments.last() {
                self.calls.insert(seg.ident.to_string());
            }
        }
        syn::visit::visit_expr_call(self, c);
    }

    fn visit_expr_method_call(&mut self, c: &'ast syn::ExprMethodCall) {
        self.methods.insert(c.method.to_string());
        syn::visit::visit_expr_method_call(self, c);
    }
}

impl<'ast> Visit<'ast> for Collect<'_> {
    fn visit_item_impl(&mut self, i: &'ast syn::ItemImpl) {
        self.in_impl += 1;
        syn::visit::visit_item_impl(self, i);
        self.in_impl -= 1;
    }

    fn visit_impl_item_fn(&mut self, f: &'ast syn::ImplItemFn) {
        if f.attrs
            .iter()
            .any(|a| attr_named(a, "reverse") || attr_named(a, "derivative"))
        {
            let method = (self.file.to_string(), f.sig.ident.to_string());
            self.corpus.methods.insert(method);
        }
        syn::visit::visit_impl_item_fn(self, f);
    }

    fn visit_item_fn(&mut self, f: &'ast syn::ItemFn) {
        syn::visit::visit_item_fn(self, f);
        let name = f.sig.ident.to_string();
        if f.attrs.iter().any(|a| attr_named(a, "derivative")) {
            let derivative = (self.file.to_string(), name.clone());
            self.corpus.derivative.insert(derivative);
        }
        let Some(attr) = f.attrs.iter().find(|a| attr_named(a, "reverse")) else {
            return;
        };
        let generics: Vec<String> = f
            .sig
            .generics
            .type_params()
            .map(|p| p.ident.to_string())
            .collect();
        let mut args = Vec::new();
        let mut wrt = None;
        if let syn::Meta::List(list) = &attr.meta {
            let parsed = list
                .parse_args_with(
                    syn::punctuated::Punctuated::<syn::Meta, syn::Token![,]>::parse_terminated,
                )
                .unwrap();
            for meta in parsed {
                if meta.path().is_ident("cps") {
                    continue;
                }
                if let syn::Meta::List(l) = &meta {
                    if l.path.is_ident("wrt") {
                        let names = l
                            .parse_args_with(
                                syn::punctuated::Punctuated::<Ident, syn::Token![,]>::parse_terminated,
                            )
                            .unwrap();
                        wrt = Some(names.iter().map(ToString::to_string).collect());
                    }
                }
                args.push(meta.to_token_stream());
            }
        }
        let mut not = None;
        let mut params = Vec::new();
        for input in &f.sig.inputs {
            match input {
                syn::FnArg::Receiver(_) => not = Some("a method".to_string()),
                syn::FnArg::Typed(pt) => {
                    let shape =
                        Shape::of(&pt.ty, &generics).filter(|s| !matches!(s, Shape::Tuple(_)));
                    if shape.is_none() {
                        not = Some(format!("a parameter of type `{}`", pt.ty.to_token_stream()));
                    }
                    let pname = match &*pt.pat {
                        syn::Pat::Ident(i) => i.ident.to_string(),
                        _ => String::new(),
                    };
                    params.push(((*pt.ty).clone(), shape, pname));
                }
            }
        }
        let ret = match &f.sig.output {
            syn::ReturnType::Default => Some(Shape::Tuple(Vec::new())),
            syn::ReturnType::Type(_, ty) => Shape::of(ty, &generics),
        };
        if ret.is_none() {
            not = Some(format!(
                "the result type `{}`",
                f.sig.output.to_token_stream()
            ));
        }
        if self.in_impl > 0 {
            not = Some("a method or associated function".to_string());
        }
        if let Some((_, _, why)) = SKIP
            .iter()
            .find(|(file, n, _)| *file == self.file && *n == name)
        {
            not = Some(why.to_string());
        }
        let mut calls = Calls::default();
        calls.visit_block(&f.block);
        self.corpus.funcs.push(Func {
            file: self.file.to_string(),
            name,
            wrt,
            args,
            not,
            calls: calls.calls,
            methods: calls.methods,
            params,
            ret,
            generic: f
                .sig
                .generics
                .params
                .iter()
                .any(|p| !matches!(p, syn::GenericParam::Lifetime(_))),
        });
    }
}

/// Renames the uses of `NAME_grad`, moves `crate::` paths and `#[path]`s.
struct Rewrite<'a> {
    renames: &'a BTreeMap<String, String>,
    module: &'a str,
    out: &'a Path,
}

/// Adds `#[revad::forward]` and the wrappers (after [`Rewrite`], which would rename the
/// wrappers' calls).
struct Insert<'a> {
    corpus: &'a Corpus,
    file: String,
    checked: Vec<String>,
}

impl Insert<'_> {
    /// `#[revad::forward]` on each function that gets it, and the wrappers after it.
    fn items(&mut self, items: &mut Vec<syn::Item>) {
        let mut out = Vec::new();
        for mut item in items.drain(..) {
            let mut extra = Vec::new();
            if let syn::Item::Fn(f) = &mut item {
                let name = f.sig.ident.to_string();
                if let Some(func) = self.corpus.func(&self.file, &name) {
                    if func.not.is_none() {
                        let args = &func.args;
                        let at = f
                            .attrs
                            .iter()
                            .position(|a| attr_named(a, "reverse"))
                            .unwrap();
                        f.attrs
                            .insert(at, syn::parse_quote!(#[::revad::forward(#(#args),*)]));
                        if func.grad_checked() {
                            extra.push(wrapper(func, f, false));
                        }
                        if func.vjp_checked() {
                            extra.push(wrapper(func, f, true));
                        }
                        if !extra.is_empty() {
                            self.checked.push(format!("{}::{}", func.file, func.name));
                        }
                    }
                }
            }
            out.push(item);
            out.extend(extra);
        }
        *items = out;
    }
}

/// `NAME_grad_checked` (or `NAME_vjp_checked`, `vjp`) for `func`.
fn wrapper(func: &Func, f: &syn::ItemFn, vjp: bool) -> syn::Item {
    let name = &f.sig.ident;
    let vis = &f.vis;
    let kind = if vjp { "vjp" } else { "grad" };
    let checked = format_ident!("{}_{}_checked", name, kind);
    let reverse = format_ident!("{}_{}", name, kind);
    let jvp = format_ident!("{}_jvp", name);
    let label = format!("{}::{}_{}", func.file, name, kind);
    let args: Vec<Ident> = (0..func.params.len())
        .map(|k| format_ident!("__a{}", k))
        .collect();
    let types: Vec<&syn::Type> = func.params.iter().map(|(t, _, _)| t).collect();
    let pass = |k: usize| -> TokenStream {
        let a = &args[k];
        match &func.params[k].1 {
            Some(Shape::Ref(..)) => quote!(#a),
            _ => quote!(::core::clone::Clone::clone(&#a)),
        }
    };
    let passed: Vec<TokenStream> = (0..args.len()).map(pass).collect();
    let active = func.active();
    let grad_types: Vec<TokenStream> = active
        .iter()
        .map(|&k| gradient_type(&func.params[k].0))
        .collect();
    let grads = match grad_types.len() {
        1 => grad_types[0].clone(),
        _ => quote!((#(#grad_types),*)),
    };
    let ret = match &f.sig.output {
        syn::ReturnType::Type(_, ty) => ty.to_token_stream(),
        syn::ReturnType::Default => quote!(()),
    };
    let mut draws = Vec::new();
    let mut tangents = Vec::new();
    let mut pairs = Vec::new();
    for (j, &k) in active.iter().enumerate() {
        let t = format_ident!("__t{}", k);
        let a = &args[k];
        let (shape, by_ref) = match func.params[k].1.as_ref().unwrap() {
            Shape::Ref(inner, _) => (&**inner, true),
            s => (s, false),
        };
        let elem = |ty: &syn::Type| -> TokenStream {
            let mut ty = ty;
            loop {
                match ty {
                    syn::Type::Reference(r) => ty = &r.elem,
                    syn::Type::Array(a) => return a.elem.to_token_stream(),
                    syn::Type::Slice(s) => return s.elem.to_token_stream(),
                    syn::Type::Path(p) => {
                        let seg = p.path.segments.last().unwrap();
                        if let syn::PathArguments::AngleBracketed(args) = &seg.arguments {
                            return args.args.to_token_stream();
                        }
                        return ty.to_token_stream();
                    }
                    syn::Type::Paren(p) => ty = &p.elem,
                    _ => return ty.to_token_stream(),
                }
            }
        };
        let e = elem(&func.params[k].0);
        let draw = match shape {
            Shape::Float { .. } => quote!(__rng.next() as #e),
            Shape::Array(_, Container::Array) => {
                quote!(::core::array::from_fn(|_| __rng.next() as #e))
            }
            Shape::Array(..) => quote! {
                (0..#a.len()).map(|_| __rng.next() as #e).collect::<::std::vec::Vec<#e>>()
            },
            _ => unreachable!(),
        };
        let tty = match shape {
            Shape::Array(_, Container::Slice | Container::Vec) => {
                quote!(::std::vec::Vec<#e>)
            }
            _ => gradient_type(&func.params[k].0),
        };
        draws.push(quote!(let #t: #tty = #draw;));
        tangents.push(match by_ref {
            true => quote!(&#t),
            false => quote!(::core::clone::Clone::clone(&#t)),
        });
        let g = match active.len() {
            1 => quote!(__r.1),
            _ => {
                let j = syn::Index::from(j);
                quote!(__r.1.#j)
            }
        };
        pairs.push(
            quote!((&#g as &dyn ::revad_forward_corpus::Flat, &#t as &dyn ::revad_forward_corpus::Flat)),
        );
    }
    let (seed_param, seed_arg, seed) = match vjp {
        true => (
            quote!(, __seed: #ret),
            quote!(, ::core::clone::Clone::clone(&__seed)),
            quote!(&__seed),
        ),
        false => (quote!(), quote!(), quote!(&1.0_f64)),
    };
    syn::parse_quote! {
        #[track_caller]
        #[allow(clippy::all, unused_mut, reason = "generated by the forward corpus")]
        #vis fn #checked(#(#args: #types),* #seed_param) -> (#ret, #grads) {
            let __r = #reverse(#(#passed),* #seed_arg);
            let mut __rng = ::revad_forward_corpus::Lcg::new(#label);
            for _ in 0..3 {
                #(#draws)*
                let (__v, __d) = #jvp(#(#passed,)* #(#tangents),*);
                ::revad_forward_corpus::same_value(#label, &__v, &__r.0);
                ::revad_forward_corpus::check(#label, #seed, &__d, &[#(#pairs),*]);
            }
            __r
        }
    }
}

/// The type of the gradient of a parameter of type `ty`.
fn gradient_type(ty: &syn::Type) -> TokenStream {
    match ty {
        syn::Type::Reference(r) => match &*r.elem {
            syn::Type::Slice(s) => {
                let e = &s.elem;
                quote!(::std::vec::Vec<#e>)
            }
            other => gradient_type(other),
        },
        syn::Type::Paren(p) => gradient_type(&p.elem),
        other => other.to_token_stream(),
    }
}

/// Renames `NAME_grad` in tokens (macro calls) and moves `crate::` paths into `module`.
fn rewrite_tokens(
    tokens: TokenStream,
    renames: &BTreeMap<String, String>,
    module: &str,
) -> TokenStream {
    let mut out = Vec::new();
    let trees: Vec<TokenTree> = tokens.into_iter().collect();
    for (k, tree) in trees.iter().enumerate() {
        match tree {
            TokenTree::Group(g) => {
                let mut ng = Group::new(g.delimiter(), rewrite_tokens(g.stream(), renames, module));
                ng.set_span(g.span());
                out.push(TokenTree::Group(ng));
            }
            TokenTree::Ident(i) => {
                let s = i.to_string();
                if let Some(to) = renames.get(&s) {
                    out.push(TokenTree::Ident(Ident::new(to, i.span())));
                } else {
                    out.push(tree.clone());
                    let path_follows = matches!(
                        (trees.get(k + 1), trees.get(k + 2)),
                        (Some(TokenTree::Punct(a)), Some(TokenTree::Punct(b)))
                            if a.as_char() == ':' && b.as_char() == ':'
                    );
                    if s == "crate" && !module.is_empty() && path_follows {
                        out.extend(quote!(::));
                        out.push(TokenTree::Ident(Ident::new(module, Span::call_site())));
                    }
                }
            }
            _ => out.push(tree.clone()),
        }
    }
    out.into_iter().collect()
}

impl VisitMut for Insert<'_> {
    fn visit_file_mut(&mut self, f: &mut syn::File) {
        self.items(&mut f.items);
        syn::visit_mut::visit_file_mut(self, f);
    }

    fn visit_item_mod_mut(&mut self, m: &mut syn::ItemMod) {
        if let Some((_, items)) = &mut m.content {
            self.items(items);
        }
        syn::visit_mut::visit_item_mod_mut(self, m);
    }

    fn visit_item_impl_mut(&mut self, _: &mut syn::ItemImpl) {}

    fn visit_block_mut(&mut self, b: &mut syn::Block) {
        // Functions declared inside a body.
        let mut stmts = Vec::new();
        for stmt in b.stmts.drain(..) {
            match stmt {
                syn::Stmt::Item(item) => {
                    let mut items = vec![item];
                    self.items(&mut items);
                    stmts.extend(items.into_iter().map(syn::Stmt::Item));
                }
                other => stmts.push(other),
            }
        }
        b.stmts = stmts;
        syn::visit_mut::visit_block_mut(self, b);
    }
}

impl VisitMut for Rewrite<'_> {
    fn visit_item_mod_mut(&mut self, m: &mut syn::ItemMod) {
        for attr in &mut m.attrs {
            if let syn::Meta::NameValue(nv) = &mut attr.meta {
                if nv.path.is_ident("path") {
                    if let syn::Expr::Lit(syn::ExprLit {
                        lit: syn::Lit::Str(s),
                        ..
                    }) = &nv.value
                    {
                        let to = self.out.join(s.value()).display().to_string();
                        nv.value = syn::parse_quote!(#to);
                    }
                }
            }
        }
        syn::visit_mut::visit_item_mod_mut(self, m);
    }

    fn visit_path_mut(&mut self, p: &mut syn::Path) {
        if let Some(last) = p.segments.last_mut() {
            if let Some(to) = self.renames.get(&last.ident.to_string()) {
                last.ident = Ident::new(to, last.ident.span());
            }
        }
        if !self.module.is_empty()
            && p.leading_colon.is_none()
            && p.segments.len() > 1
            && p.segments[0].ident == "crate"
        {
            let module = Ident::new(self.module, Span::call_site());
            p.segments.insert(1, syn::parse_quote!(#module));
        }
        syn::visit_mut::visit_path_mut(self, p);
    }

    fn visit_use_tree_mut(&mut self, u: &mut syn::UseTree) {
        match u {
            syn::UseTree::Name(n) => {
                let name = n.ident.to_string();
                if let Some(to) = self.renames.get(&name) {
                    n.ident = Ident::new(to, n.ident.span());
                }
            }
            syn::UseTree::Path(p) if p.ident == "crate" && !self.module.is_empty() => {
                let module = Ident::new(self.module, Span::call_site());
                let rest = (*p.tree).clone();
                *p.tree = syn::parse_quote!(#module::#rest);
            }
            _ => {}
        }
        syn::visit_mut::visit_use_tree_mut(self, u);
    }

    fn visit_macro_mut(&mut self, m: &mut syn::Macro) {
        m.tokens = rewrite_tokens(std::mem::take(&mut m.tokens), self.renames, self.module);
        syn::visit_mut::visit_macro_mut(self, m);
    }
}
