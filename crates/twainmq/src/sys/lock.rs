//! Advisory whole-file locks (`flock`) between our processes: around the UTC
//! day rollover of a partition (see `Producer` and docs/FORMAT.md) and
//! around each append on network file systems. 0.2.3 takes none of them, so
//! they order our writers only. On platforms without `flock` they are no-ops.

use std::fs::File;

/// Shared or exclusive.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    Shared,
    Exclusive,
}

/// A held lock, released when dropped (closing the file also releases it).
pub(crate) struct Held<'a> {
    #[cfg_attr(not(unix), allow(dead_code))]
    file: &'a File,
}

impl Drop for Held<'_> {
    fn drop(&mut self) {
        #[cfg(unix)]
        {
            let _ = rustix::fs::flock(self.file, rustix::fs::FlockOperation::Unlock);
        }
    }
}

/// Block until `file` is locked in `mode`.
///
/// # Errors
/// The system's error (e.g. a file system without locks).
pub(crate) fn lock(file: &File, mode: Mode) -> std::io::Result<Held<'_>> {
    #[cfg(unix)]
    {
        let op = match mode {
            Mode::Shared => rustix::fs::FlockOperation::LockShared,
            Mode::Exclusive => rustix::fs::FlockOperation::LockExclusive,
        };
        loop {
            match rustix::fs::flock(file, op) {
                Ok(()) => break,
                Err(rustix::io::Errno::INTR) => continue,
                Err(e) => return Err(e.into()),
            }
        }
    }
    #[cfg(not(unix))]
    let _ = mode;
    Ok(Held { file })
}

/// A lock that owns its file (released when dropped, with the file).
pub(crate) struct HeldFile {
    _file: File,
}

/// Block until `file` is locked in `mode`; the lock lives as long as the result.
///
/// # Errors
/// As [`lock`].
pub(crate) fn lock_owned(file: File, mode: Mode) -> std::io::Result<HeldFile> {
    std::mem::forget(lock(&file, mode)?);
    Ok(HeldFile { _file: file })
}
