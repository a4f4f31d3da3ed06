//! `revad` with its default features, as a user's crate depends on it (see the manifest).
//! The tests are in `tests/`.
