//! Locks between our processes: around the UTC day rollover of a partition
//! (see `Producer` and docs/FORMAT.md) and around each append on network file
//! systems. 0.2.3 takes none of them, so they order our writers only.
//!
//! Unix: `flock` on the whole file (advisory: it stops no read or write).
//! Windows: `LockFileEx` on one byte far past any data (2^63): Windows locks
//! are mandatory for the bytes they cover, so a lock over data would fail
//! 0.2.3's reads and appends; a byte no one reads or writes stops no one.

use std::fs::File;
use std::path::Path;

use super::imp;

/// Shared or exclusive.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    Shared,
    Exclusive,
}

/// A held lock, released when dropped (closing the file also releases it).
pub(crate) struct Held<'a> {
    file: &'a File,
}

impl Drop for Held<'_> {
    fn drop(&mut self) {
        imp::unlock(self.file);
    }
}

/// Block until `file` is locked in `mode`. On Windows the handle must have
/// read or write access (an append-only handle has neither: `open_regular`
/// opens appends with read access too).
///
/// # Errors
/// The system's error (e.g. a file system without locks).
pub(crate) fn lock(file: &File, mode: Mode) -> std::io::Result<Held<'_>> {
    imp::lock(file, mode)?;
    Ok(Held { file })
}

/// A lock that owns its file (released when dropped, with the file).
#[must_use]
pub(crate) struct HeldFile {
    _file: File,
}

impl Drop for HeldFile {
    fn drop(&mut self) {
        // Closing the file releases its lock; nothing else to do.
    }
}

/// Block until `file` is locked in `mode`; the lock lives as long as the result.
///
/// # Errors
/// As [`lock`].
pub(crate) fn lock_owned(file: File, mode: Mode) -> std::io::Result<HeldFile> {
    imp::lock(&file, mode)?;
    // Closing the file releases the lock.
    Ok(HeldFile { _file: file })
}

/// Lock `file` in `mode` if no other process (or handle) holds it; `None`
/// when one does. The lock lives as long as the result.
///
/// # Errors
/// As [`lock`].
pub(crate) fn try_lock_owned(file: File, mode: Mode) -> std::io::Result<Option<HeldFile>> {
    Ok(imp::try_lock(&file, mode)?.then_some(HeldFile { _file: file }))
}

/// Block until the topic folder `dir` is locked exclusively (between our
/// producers making a partition's next file). Unix locks the folder itself;
/// Windows cannot lock a folder, so it locks a byte of `stand_in`, the
/// topic's config (a settings change that replaces the config while the lock
/// is held lets a second producer in: docs/PLATFORMS.md).
///
/// # Errors
/// The system's error.
pub(crate) fn lock_folder(dir: &Path, stand_in: &Path) -> std::io::Result<HeldFile> {
    Ok(HeldFile { _file: imp::lock_folder(dir, stand_in)? })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn try_exclusive_elsewhere(path: &Path) -> bool {
        // Another open file description: a lock held through the first one
        // stops this one, as another process's would.
        let path = path.to_path_buf();
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let f = crate::sys::open::open_regular(&path, true).expect("open");
            let held = lock(&f, Mode::Exclusive).is_ok();
            let _ = tx.send(held);
        });
        rx.recv_timeout(std::time::Duration::from_millis(300)).is_ok()
    }

    #[test]
    fn an_exclusive_lock_stops_another_and_lets_go_when_dropped() {
        let dir = tempfile::tempdir().expect("tmp");
        let path = dir.path().join("0-20261203_0.tmf");
        let f = crate::sys::open::open_regular(&path, true).expect("open");
        let held = lock(&f, Mode::Exclusive).expect("lock");
        assert!(!try_exclusive_elsewhere(&path), "a second exclusive lock waits");
        drop(held);
        assert!(try_exclusive_elsewhere(&path), "released");
    }

    #[test]
    fn shared_locks_share_and_stop_an_exclusive_one() {
        let dir = tempfile::tempdir().expect("tmp");
        let path = dir.path().join("f.tmf");
        let a = crate::sys::open::open_regular(&path, true).expect("open");
        let b = crate::sys::open::open_regular(&path, true).expect("open");
        let _ha = lock(&a, Mode::Shared).expect("shared");
        let _hb = lock(&b, Mode::Shared).expect("shared too");
        assert!(!try_exclusive_elsewhere(&path));
    }

    /// A lock never stands in the way of 0.2.3, which reads and appends
    /// through handles of its own and takes no lock (on Windows, where locks
    /// are mandatory, this is the byte far past any data at work).
    #[test]
    fn a_held_lock_stops_no_read_and_no_append() {
        let dir = tempfile::tempdir().expect("tmp");
        let path = dir.path().join("f.tmf");
        let f = crate::sys::open::open_regular(&path, true).expect("open");
        std::io::Write::write_all(&mut &f, b"ours\n").expect("write");
        let _held = lock(&f, Mode::Exclusive).expect("lock");
        let mut other = std::fs::OpenOptions::new().append(true).open(&path).expect("append elsewhere");
        std::io::Write::write_all(&mut other, b"theirs\n").expect("an append under our lock");
        assert_eq!(std::fs::read(&path).expect("read under our lock"), b"ours\ntheirs\n");
    }

    #[test]
    fn the_folder_lock_is_exclusive() {
        let dir = tempfile::tempdir().expect("tmp");
        let topic = dir.path().join("t");
        std::fs::create_dir(&topic).expect("folder");
        let config = dir.path().join("t.twc");
        std::fs::write(&config, b"{}").expect("config");
        let held = lock_folder(&topic, &config).expect("lock");
        let (tx, rx) = std::sync::mpsc::channel();
        let (t2, c2) = (topic.clone(), config.clone());
        let waiter = std::thread::spawn(move || {
            let again = lock_folder(&t2, &c2).expect("lock again");
            let _ = tx.send(());
            drop(again);
        });
        assert!(rx.recv_timeout(std::time::Duration::from_millis(300)).is_err(), "a second folder lock waits");
        drop(held);
        assert!(rx.recv_timeout(std::time::Duration::from_secs(5)).is_ok(), "and gets it once released");
        waiter.join().expect("waiter");
        // The config stays readable while its byte is locked.
        let _held = lock_folder(&topic, &config).expect("lock");
        assert_eq!(std::fs::read(&config).expect("read"), b"{}");
    }
}
