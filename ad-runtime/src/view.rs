//! Index arithmetic for views of float arrays in generated code.
//!
//! `#[reverse]` lowers a sub-slice (`&x[a..b]`, `x.split_at(k)`, the chunks of
//! `x.chunks(k)`, the windows of `x.windows(k)`, the items of `x.iter().step_by(k)`) to a view: the base array, a start offset and
//! a length, so that `v[i]` reads `x[start + i]` and nothing is copied. These functions do the
//! index arithmetic, and panic where the slice operations of the standard library panic (a
//! range out of bounds, an index past the end of the view, a chunk size or step of zero), so that the
//! gradient of a function panics where the function does.

/// The length of the view `start..end` of a sequence of length `len`, checked like
/// `&x[start..end]`.
#[inline]
#[track_caller]
pub fn len(len: usize, start: usize, end: usize) -> usize {
    if start > end {
        panic!("slice index starts at {start} but ends at {end}");
    }
    if end > len {
        panic!("range end index {end} out of range for slice of length {len}");
    }
    end - start
}

/// The end of an inclusive range `..=end`, checked like `&x[..=end]`.
#[inline]
#[track_caller]
pub fn inclusive_end(end: usize) -> usize {
    match end.checked_add(1) {
        Some(e) => e,
        None => panic!("attempted to index slice up to maximum usize"),
    }
}

/// The position in the base array of element `i` of the view `start..start + len`, checked
/// like `v[i]`.
#[inline]
#[track_caller]
pub fn index(start: usize, len: usize, i: usize) -> usize {
    if i >= len {
        panic!("index out of bounds: the len is {len} but the index is {i}");
    }
    start + i
}

/// The number of chunks of `x.chunks(size)` for `x` of length `len`.
#[inline]
#[track_caller]
pub fn chunks(len: usize, size: usize) -> usize {
    if size == 0 {
        panic!("chunk size must be non-zero");
    }
    len.div_ceil(size)
}

/// The number of items of `it.step_by(step)` for an iterator `it` of `len` items (the first,
/// then every `step`-th).
#[inline]
#[track_caller]
pub fn step_by(len: usize, step: usize) -> usize {
    if step == 0 {
        panic!("assertion failed: step != 0");
    }
    len.div_ceil(step)
}

/// The number of chunks of `x.chunks_exact(size)` for `x` of length `len`.
#[inline]
#[track_caller]
pub fn chunks_exact(len: usize, size: usize) -> usize {
    if size == 0 {
        panic!("chunk size must be non-zero");
    }
    len / size
}

/// The length of chunk `c` of `x.chunks(size)` for `x` of length `len`.
#[inline]
pub fn chunk_len(len: usize, size: usize, c: usize) -> usize {
    (len - c * size).min(size)
}

/// The number of windows of `x.windows(size)` for `x` of length `len`.
#[inline]
#[track_caller]
pub fn windows(len: usize, size: usize) -> usize {
    if size == 0 {
        panic!("window size must be non-zero");
    }
    (len + 1).saturating_sub(size)
}

/// Checks the lengths of `dst.copy_from_slice(src)`; returns the length.
#[inline]
#[track_caller]
pub fn copy_len(dst: usize, src: usize) -> usize {
    if dst != src {
        panic!("source slice length ({src}) does not match destination slice length ({dst})");
    }
    dst
}

/// Checks `x.split_at(mid)` for `x` of length `len`; returns `mid`.
#[inline]
#[track_caller]
pub fn split(len: usize, mid: usize) -> usize {
    if mid > len {
        panic!("mid > len");
    }
    mid
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_match_the_standard_library() {
        let x = [0.0; 10];
        for size in 1..12 {
            assert_eq!(chunks(x.len(), size), x.chunks(size).len());
            assert_eq!(chunks_exact(x.len(), size), x.chunks_exact(size).len());
            assert_eq!(windows(x.len(), size), x.windows(size).len());
            assert_eq!(step_by(x.len(), size), x.iter().step_by(size).len());
            for (c, chunk) in x.chunks(size).enumerate() {
                assert_eq!(chunk_len(x.len(), size, c), chunk.len());
            }
        }
        assert_eq!(len(10, 2, 5), x[2..5].len());
    }

    #[test]
    #[should_panic(expected = "out of range")]
    fn a_range_past_the_end_panics() {
        len(3, 1, 4);
    }

    #[test]
    #[should_panic(expected = "index out of bounds")]
    fn an_index_past_the_view_panics() {
        index(2, 3, 3);
    }
}
