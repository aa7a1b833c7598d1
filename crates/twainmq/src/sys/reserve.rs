//! Reserving space at a file's end before an append.

use std::fs::File;

/// Reserve `len` bytes at the end of `file` (at `end` when known), so that
/// the write after it cannot run out of space half-way: a full disk fails the
/// reservation, with nothing written. Linux only (`fallocate`); elsewhere, and
/// on file systems without reservations (NTFS through FUSE, network shares),
/// the write alone decides.
pub(crate) fn reserve(file: &File, end: Option<u64>, len: usize) -> std::io::Result<()> {
    super::imp::reserve(file, end, len)
}
