//! Checks and diagnostics in a body: `assert!` and its variants, `panic!`, `unreachable!`,
//! `todo!`, `unimplemented!`, `print!`/`println!`/`eprint!`/`eprintln!`.
//!
//! They produce no value a derivative could flow through, so they are inactive statements,
//! kept as written (with variables renamed) and run by the forward sweep only:
//!
//! ```text
//! // Before                               // After (an opaque statement, no writes, no flows)
//! let y = x * 2.0;                        let y = x * 2.0;
//! let y = y + 0.5;                        let __y_2 = y + 0.5;
//! assert!(y > 0.0, "y = {y}");            assert!(__y_2 > 0.0, "y = {y}", y = __y_2);
//! ```
//!
//! A format string names variables inline (`{y}`); the user's `y` may be a shadowing binding
//! with another name in the generated code, so each inline name that is a renamed variable is
//! passed again as a named argument of the same name.

use proc_macro2::TokenStream;
use quote::quote;
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;

use super::{Binding, Lowerer};
use crate::ir::{Stmt, StmtKind};

/// The macros that check or report and produce no value.
const CHECKS: &[&str] = &[
    "assert",
    "assert_eq",
    "assert_ne",
    "debug_assert",
    "debug_assert_eq",
    "debug_assert_ne",
    "panic",
    "unreachable",
    "todo",
    "unimplemented",
    "print",
    "println",
    "eprint",
    "eprintln",
];

/// Whether `mac` is one of the checks and diagnostics kept as written.
pub(super) fn is_check(mac: &syn::Macro) -> bool {
    mac.path.segments.last().is_some_and(|s| {
        let name = s.ident.to_string();
        CHECKS.contains(&name.as_str())
            && (mac.path.segments.len() == 1
                || mac
                    .path
                    .segments
                    .first()
                    .is_some_and(|f| f.ident == "std" || f.ident == "core"))
    })
}

/// Whether the check `mac` always panics: `panic!`, `unreachable!`, `todo!`,
/// `unimplemented!`.
pub(super) fn panics(mac: &syn::Macro) -> bool {
    mac.path.segments.last().is_some_and(|s| {
        matches!(
            s.ident.to_string().as_str(),
            "panic" | "unreachable" | "todo" | "unimplemented"
        )
    })
}

impl Lowerer<'_> {
    /// Lowers a check or diagnostic macro in statement position to an inactive statement.
    pub(super) fn lower_check(&mut self, mac: &syn::Macro, out: &mut Vec<Stmt>) {
        let args: Punctuated<syn::Expr, syn::Token![,]> =
            match mac.parse_body_with(Punctuated::parse_terminated) {
                Ok(args) => args,
                Err(err) => {
                    self.cx.push(err);
                    return;
                }
            };
        let mut renamed: Vec<TokenStream> = Vec::new();
        let mut captures: Vec<TokenStream> = Vec::new();
        for arg in &args {
            // A check only reads: an argument that could change a variable would do it where
            // the macro does not look.
            if let Some((at, message)) = effect(arg) {
                self.cx.error_at(at, message);
                return;
            }
            if let syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(format),
                ..
            }) = arg
            {
                captures.extend(self.inline_captures(&format.value()));
            }
            renamed.push(self.opaque(arg).expr);
        }
        let path = &mac.path;
        let bang = &mac.bang_token;
        let tokens = quote!(#path #bang (#(#renamed,)* #(#captures,)*););
        out.push(Stmt {
            kind: StmtKind::Opaque {
                tokens,
                writes: Vec::new(),
                flows: Vec::new(),
                if_active: (mac.span(), String::new()),
            },
            span: mac.span(),
        });
    }

    /// `name = renamed` for each variable a format string names inline (`{name}`,
    /// `{name:>8}`) whose name in the generated code is another.
    fn inline_captures(&self, format: &str) -> Vec<TokenStream> {
        let mut out: Vec<TokenStream> = Vec::new();
        let mut seen: Vec<String> = Vec::new();
        let mut rest = format;
        while let Some(open) = rest.find('{') {
            rest = &rest[open + 1..];
            if let Some(after) = rest.strip_prefix('{') {
                rest = after; // `{{` is a literal brace
                continue;
            }
            let end = rest.find(['}', ':']).unwrap_or(rest.len());
            let name = rest[..end].trim();
            rest = &rest[end..];
            let is_ident = name
                .chars()
                .next()
                .is_some_and(|c| c.is_alphabetic() || c == '_')
                && name.chars().all(|c| c.is_alphanumeric() || c == '_');
            if !is_ident || seen.iter().any(|s| s == name) {
                continue;
            }
            seen.push(name.to_string());
            if let Some(Binding::Var(v)) = self.lookup(name) {
                let renamed = &self.vars[*v].name;
                if *renamed != name {
                    let ident = syn::Ident::new(name, renamed.span());
                    out.push(quote!(#ident = #renamed));
                }
            }
        }
        out
    }
}

/// Where `expr` could change a variable (an assignment, a `&mut` borrow, a method that changes
/// its receiver, a block, which may hold anything, or these in a closure's body), with the
/// message.
fn effect(expr: &syn::Expr) -> Option<(proc_macro2::Span, String)> {
    use syn::visit::Visit;
    struct Finder(Option<(proc_macro2::Span, String)>);
    const MESSAGE: &str = "the arguments of a check or diagnostic in a #[reverse] function only \
                           read values; compute what changes a variable in a statement before it";
    impl<'ast> Visit<'ast> for Finder {
        fn visit_expr(&mut self, e: &'ast syn::Expr) {
            if self.0.is_some() {
                return;
            }
            match e {
                syn::Expr::Assign(_)
                | syn::Expr::Block(_)
                | syn::Expr::Unsafe(_)
                | syn::Expr::Loop(_)
                | syn::Expr::While(_)
                | syn::Expr::ForLoop(_) => self.0 = Some((e.span(), MESSAGE.to_string())),
                // `debug_assert!(xs.iter().all(|&v| v >= 0.0))`: a closure whose body only
                // reads (its parameters are its own).
                syn::Expr::Closure(c) => self.visit_expr(&c.body),
                syn::Expr::Binary(b) if super::is_compound_assign(&b.op) => {
                    self.0 = Some((e.span(), MESSAGE.to_string()))
                }
                syn::Expr::Reference(r) if r.mutability.is_some() => {
                    self.0 = Some((e.span(), MESSAGE.to_string()))
                }
                syn::Expr::MethodCall(call)
                    if super::rename::MUTATING_METHODS
                        .contains(&call.method.to_string().as_str()) =>
                {
                    let name = call.method.to_string();
                    self.0 = Some((call.method.span(), super::rename::mutation_message(&name)))
                }
                _ => syn::visit::visit_expr(self, e),
            }
        }
    }
    let mut finder = Finder(None);
    finder.visit_expr(expr);
    finder.0
}
