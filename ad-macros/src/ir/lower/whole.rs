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
//! is another variable, which cannot alias the one assigned); rustc has checked on the
//! primal that both sides have the same type, so the same length.

use proc_macro2::Span;
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
        let tokens = if other_var {
            quote_spanned! {span=>
                for #k in 0..#name.len() {
                    #name[#k] = #right[#k];
                }
            }
        } else {
            let tmp = syn::Ident::new("__ad_whole", Span::mixed_site().located_at(span));
            quote_spanned! {span=>
                {
                    let #tmp = #right;
                    for #k in 0..#name.len() {
                        #name[#k] = #tmp[#k];
                    }
                }
            }
        };
        let Ok(copy) = syn::parse2::<syn::Expr>(tokens) else {
            return false;
        };
        self.lower_expr_jumps(&copy, out, false);
        true
    }
}
