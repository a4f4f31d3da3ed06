//! Re-exports `revad` as [`math::diff`], as a framework re-exports the libraries its users
//! need. `revad-reexport-user` depends on this crate alone and differentiates through the
//! re-export with `#[..reverse(crate = revad_reexporter::math::diff)]`.

/// The framework's mathematics.
pub mod math {
    pub use revad as diff;
}
