//! Reserving space at a file's end before an append (`fallocate`).

use std::fs::File;

/// Reserve `len` bytes at the end of `file` (at `end` when known), so that
/// the write after it cannot run out of space half-way: a full disk fails the
/// reservation, with nothing written. File systems without reservations
/// (NTFS through FUSE, network shares) go on without one.
#[cfg(any(target_os = "linux", target_os = "android"))]
pub(crate) fn reserve(file: &File, end: Option<u64>, len: usize) -> std::io::Result<()> {
    use rustix::fs::FallocateFlags;
    let end = match end {
        Some(e) => e,
        None => file.metadata()?.len(),
    };
    let len = u64::try_from(len).unwrap_or(u64::MAX);
    match rustix::fs::fallocate(file, FallocateFlags::KEEP_SIZE, end, len) {
        Ok(()) => Ok(()),
        Err(e) if e == rustix::io::Errno::NOSPC || e == rustix::io::Errno::DQUOT => Err(e.into()),
        // Not supported here (EOPNOTSUPP, ENOSYS, ...): the write alone decides.
        Err(_) => Ok(()),
    }
}

#[cfg(not(any(target_os = "linux", target_os = "android")))]
pub(crate) fn reserve(_file: &File, _end: Option<u64>, _len: usize) -> std::io::Result<()> {
    Ok(())
}
