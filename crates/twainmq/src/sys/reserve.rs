//! Reserving space at a file's end before an append.

use std::fs::File;

/// Reserve `len` bytes at the end of `file` (at `end` when known), so that
/// the write after it cannot run out of space half-way: a full disk fails the
/// reservation, with nothing written. Linux only (`fallocate`): tmpfs, ext4,
/// XFS and btrfs have it. Elsewhere, and on file systems without it (ntfs-3g
/// and other FUSE file systems, network shares), the write alone decides, and
/// a write that lands in part is cut off again by the appender while nothing
/// follows it (`log/torn.rs`, `take_back`).
pub(crate) fn reserve(file: &File, end: Option<u64>, len: usize) -> std::io::Result<()> {
    super::imp::reserve(file, end, len)
}
