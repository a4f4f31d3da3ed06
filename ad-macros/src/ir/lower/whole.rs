//! Assigning a whole float array (`a = b;`, `a = [x, y];`, `a = step(a);`): an element-wise
//! copy in a loop, which the rest of the pipeline differentiates as it would if the user
//! had written it.
//!
//! ```text
//! cur = next;                  for __ad_whole_k in 0..cur.len() {
//!                                  cur[__ad_whole_k] = next[__ad_whole_k];
//!                              }
//! cur = [cur[1], cur[0]];      {
//!                                  let __ad_whole = [cur[1], cur[0]];
//!                                  for __ad_whole_k in 0..cur.len() {
//!                                      cur[__ad_whole_k] = __ad_whole[__ad_whole_k];
//!                                  }
//!                              }
//! ```
//!
//! The right side is evaluated once, before any element is written (a temporary unless it
//! is another variable, which cannot alias the one assigned), into a temporary typed `[_; N]`
//! when the left side has a fixed size `N` (a method's result is then kept as the array it
//! is). rustc has checked on the primal that both sides have the same type, so the same
//! length when either has a fixed size; otherwise (a call's result assigned another, which
//! may be `Vec`s) the copy first asserts that the lengths are equal
//! (`::core::assert_eq!(cur.len(), next.len());`).

use proc_macro2::{Span, TokenStream};
use quote::quote_spanned;
use syn::spanned::Spanned;

use super::{Lowerer, Stmt};

impl Lowerer<'_> {
    /// `left = right;` for a fixed-size float array `left` bound to a name; false (and
    /// nothing lowered) when `left` is not a plain name.
    pub(super) fn assign_whole_array(
        &mut self,
        left: &syn::Expr,
        right: &syn::Expr,
        out: &mut Vec<Stmt>,
    ) -> bool {
        let syn::Expr::Path(path) = super::strip(left) else {
            return false;
        };
        let Some(name) = path.path.get_ident() else {
            return false;
        };
        let span = left.span();
        let k = syn::Ident::new("__ad_whole_k", Span::mixed_site().located_at(span));
        let other_var = matches!(super::strip(right), syn::Expr::Path(p)
            if p.path.get_ident().is_some_and(|i| i != name));
        // Either side of a fixed size gives both the same length; otherwise (a call's result
        // assigned another) they may be `Vec`s of different lengths, which a copy would
        // silently get wrong: the primal stops there instead.
        let len = self.fixed_size(&name.to_string());
        let same_len = len.is_some() || self.fixed_size_expr(right);
        let check = |source: &dyn quote::ToTokens| match same_len {
            true => quote::quote!(),
            false => quote_spanned! {span=>
                ::core::assert_eq!(#name.len(), #source.len());
            },
        };
        let tokens = if other_var {
            let check = check(right);
            quote_spanned! {span=>
                #check
                for #k in 0..#name.len() {
                    #name[#k] = #right[#k];
                }
            }
        } else {
            let tmp = syn::Ident::new("__ad_whole", Span::mixed_site().located_at(span));
            let check = check(&tmp);
            // The type of a fixed-size left side, for the right side: a method's result is
            // then kept (in a loop) as the array it is (see `results`).
            let annotation = len.map(|len| quote::quote!(: [_; #len]));
            quote_spanned! {span=>
                {
                    let #tmp #annotation = #right;
                    #check
                    for #k in 0..#name.len() {
                        #name[#k] = #tmp[#k];
                    }
                }
            }
        };
        let tokens = match (other_var, same_len) {
            (true, false) => quote::quote!({ #tokens }),
            _ => tokens,
        };
        let Ok(copy) = syn::parse2::<syn::Expr>(tokens) else {
            return false;
        };
        self.lower_expr_jumps(&copy, out, false);
        true
    }

    /// The length of the variable `name` when it is a float array of a fixed size
    /// (`[f64; N]`: a literal, a repeat, an array parameter).
    fn fixed_size(&self, name: &str) -> Option<TokenStream> {
        let Some(super::Binding::Var(v)) = self.lookup(name) else {
            return None;
        };
        let crate::ir::Ty::Array(info) = &self.vars[*v].ty else {
            return None;
        };
        match &info.shape {
            crate::ir::Shape::Fixed(len) => Some(len.clone()),
            crate::ir::Shape::Like(p) => match &self.sig.params[self.vars[*p].param?].kind {
                crate::parse::ParamKind::Array { len, .. } => Some(len.clone()),
                _ => None,
            },
            _ => None,
        }
    }

    /// Whether `expr` is an array of a fixed size: a literal, a repeat, or a variable
    /// [`Self::fixed_size`].
    fn fixed_size_expr(&self, expr: &syn::Expr) -> bool {
        match super::strip(expr) {
            syn::Expr::Array(_) | syn::Expr::Repeat(_) => true,
            syn::Expr::Path(p) => p
                .path
                .get_ident()
                .is_some_and(|i| self.fixed_size(&i.to_string()).is_some()),
            _ => false,
        }
    }
}
