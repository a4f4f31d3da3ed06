//! Nothing but the tests under `tests/`: `revad`'s feature `nalgebra`, with `nalgebra` as a
//! dependency.
