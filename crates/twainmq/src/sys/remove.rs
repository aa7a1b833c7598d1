//! Deleting and replacing store files when another process may hold them.
//!
//! Unix lets no process stop a delete or a rename (a file unlinked while open
//! lives on for whoever holds it). Windows does: a file opened without
//! `FILE_SHARE_DELETE` (0.2.3 opens every file so, as Python's `open()` does)
//! can be neither deleted nor renamed over while it is open, and a delete that
//! half-happens leaves a topic that neither we nor 0.2.3 can use. So deletes
//! go in two steps:
//! 1. [`claim`] every file first: on Windows each is opened with `DELETE`
//!    access, which fails while another process holds it without sharing
//!    delete; retried with back-off for [`RETRY_FOR`]; if one stays held,
//!    every claim is let go and nothing has changed;
//! 2. then [`Claims::delete`] deletes them through those handles, which
//!    nobody can refuse any more (0.2.3 cannot open a claimed file either).
//!
//! A file whose delete is pending (a classic delete on FAT, SMB or under
//! Wine, while another handle holds it) counts as gone.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use super::imp;
use crate::error::{Error, Result};

/// A number that differs between calls of one process (for temporary names).
pub(crate) fn unique_number() -> u64 {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let now =
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| u64::try_from(d.as_nanos()).unwrap_or(u64::MAX));
    now.wrapping_add(NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed))
}

/// How long a refused claim or replacement is retried before it fails: a
/// 0.2.3 consumer moves on from a file within its poll interval, a reader of
/// a config closes it at once.
pub(crate) const RETRY_FOR: Duration = Duration::from_secs(2);

/// The pauses between tries: 10 ms, doubling to 250 ms.
fn backoff(tries: u32) -> Duration {
    Duration::from_millis(10u64.saturating_mul(1 << tries.min(5))).min(Duration::from_millis(250))
}

/// Run `f` until it succeeds, fails for another reason than a file in use,
/// or [`RETRY_FOR`] has passed.
fn retrying<T>(mut f: impl FnMut() -> std::io::Result<T>) -> std::io::Result<T> {
    let start = Instant::now();
    let mut tries = 0;
    loop {
        match f() {
            Err(e) if imp::is_in_use(&e) && start.elapsed() < RETRY_FOR => {
                std::thread::sleep(backoff(tries));
                tries += 1;
            }
            other => return other,
        }
    }
}

/// The error for a file another process keeps: what, where, and what to do.
fn in_use(op: &'static str, path: &Path, cause: std::io::Error) -> Error {
    if imp::is_in_use(&cause) {
        Error::FileInUse { op, path: path.to_path_buf() }
    } else {
        Error::io(op, path, cause)
    }
}

/// Files and folders claimed for deletion, in the order given.
pub(crate) struct Claims {
    held: Vec<(PathBuf, imp::Claimed)>,
}

/// Claim `paths` for deletion, all or nothing: each is claimed (retried while
/// another process holds it); when one cannot be, every claim is let go and
/// the error names that file. Paths already gone are skipped. Links are
/// claimed (and later deleted) as themselves, never followed.
///
/// # Errors
/// [`Error::FileInUse`] naming the file another process holds;
/// [`Error::Io`] for other failures.
pub(crate) fn claim(op: &'static str, paths: &[PathBuf]) -> Result<Claims> {
    let mut held = Vec::with_capacity(paths.len());
    for path in paths {
        match retrying(|| imp::claim(path)) {
            Ok(Some(c)) => held.push((path.clone(), c)),
            Ok(None) => {}
            // `held` is dropped with the error: every claim let go, nothing changed.
            Err(e) => return Err(in_use(op, path, e)),
        }
    }
    Ok(Claims { held })
}

impl Claims {
    /// Delete what was claimed, in the order claimed (files before the folders
    /// holding them). A failure stops there, with the rest still claimed and
    /// then let go; on Windows it can only be a system failure, no other
    /// process's doing.
    ///
    /// # Errors
    /// [`Error::Io`] naming the file.
    pub(crate) fn delete(self, op: &'static str) -> Result<()> {
        for (path, c) in self.held {
            c.delete().map_err(|e| Error::io(op, path, e))?;
        }
        Ok(())
    }

    /// The number of paths claimed.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.held.len()
    }
}

/// Remove the empty folder `dir`. Entries whose delete is still pending (held
/// open by others, on file systems without POSIX deletes) keep it from going:
/// retried for `wait` while they close. `Ok(false)` when it stayed.
///
/// # Errors
/// [`Error::Io`] for other failures.
pub(crate) fn remove_empty_dir(dir: &Path, wait: Duration) -> Result<bool> {
    let start = Instant::now();
    let mut tries = 0;
    loop {
        match std::fs::remove_dir(dir) {
            Ok(()) => return Ok(true),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(true),
            Err(e) if imp::is_not_empty(&e) || imp::is_in_use(&e) => {
                if start.elapsed() >= wait {
                    return Ok(false);
                }
                std::thread::sleep(backoff(tries));
                tries += 1;
            }
            Err(e) => return Err(Error::io("delete", dir, e)),
        }
    }
}

/// Rename `from` over `to` (a config rewritten whole, then put in place):
/// readers see the old file or the new one, whole. Retried while another
/// process holds `to` without sharing delete (Windows).
///
/// # Errors
/// [`Error::FileInUse`] when `to` stayed held; [`Error::Io`] otherwise.
pub(crate) fn replace(from: &Path, to: &Path) -> Result<()> {
    // A rename over a file held without sharing delete fails with "access
    // denied" on Windows, as a read-only file would: a claim of the target
    // tells which (a sharing violation is another process's doing).
    let held = |e: &std::io::Error| imp::is_in_use(e) || (imp::may_be_in_use(e) && imp::claim(to).is_err_and(|c| imp::is_in_use(&c)));
    let start = Instant::now();
    let mut tries = 0;
    loop {
        match std::fs::rename(from, to) {
            Ok(()) => return Ok(()),
            Err(e) if held(&e) => {
                if start.elapsed() >= RETRY_FOR {
                    return Err(Error::FileInUse { op: "replace", path: to.to_path_buf() });
                }
                std::thread::sleep(backoff(tries));
                tries += 1;
            }
            Err(e) => return Err(Error::io("replace", to, e)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_grows_to_a_cap() {
        assert_eq!(backoff(0), Duration::from_millis(10));
        assert_eq!(backoff(1), Duration::from_millis(20));
        assert_eq!(backoff(4), Duration::from_millis(160));
        assert_eq!(backoff(5), Duration::from_millis(250));
        assert_eq!(backoff(60), Duration::from_millis(250));
    }

    #[test]
    fn claims_delete_files_then_folders_and_skip_what_is_gone() {
        let dir = tempfile::tempdir().expect("tmp");
        let t = dir.path().join("t");
        std::fs::create_dir(&t).expect("folder");
        let a = t.join("0-20261203_0.tmf");
        std::fs::write(&a, b"x\n").expect("write");
        let claims = claim("delete", &[a.clone(), t.join("gone"), t.clone()]).expect("claim");
        assert_eq!(claims.len(), 2);
        claims.delete("delete").expect("delete");
        assert!(!t.exists());
    }

    /// What 0.2.3 does to a file on Windows: hold it open without sharing
    /// delete. A claim of it and everything with it is refused, after the
    /// retries, and names the file; nothing is deleted.
    #[cfg(windows)]
    #[test]
    fn a_file_held_without_share_delete_refuses_the_whole_claim() {
        use std::os::windows::fs::OpenOptionsExt;
        let dir = tempfile::tempdir().expect("tmp");
        let (a, b) = (dir.path().join("a"), dir.path().join("b"));
        std::fs::write(&a, b"a\n").expect("write");
        std::fs::write(&b, b"b\n").expect("write");
        // FILE_SHARE_READ | FILE_SHARE_WRITE, as Python's open() does.
        let held = std::fs::OpenOptions::new().read(true).share_mode(3).open(&b).expect("hold");
        let started = Instant::now();
        let err = claim("delete", &[a.clone(), b.clone()]).err().expect("refused");
        assert!(started.elapsed() >= RETRY_FOR, "retried first");
        assert!(matches!(&err, Error::FileInUse { path, .. } if *path == b), "{err}");
        assert!(err.to_string().contains("another process"), "{err}");
        // The claim on `a` was let go: it can be deleted by anyone now.
        drop(held);
        std::fs::remove_file(&a).expect("a was not kept claimed");
        assert!(b.exists());
    }

    #[cfg(windows)]
    #[test]
    fn a_replace_over_a_held_file_waits_for_it_then_says_who_holds_it() {
        use std::os::windows::fs::OpenOptionsExt;
        let dir = tempfile::tempdir().expect("tmp");
        let (tmp, cfg) = (dir.path().join(".t.twc.tmp"), dir.path().join("t.twc"));
        std::fs::write(&cfg, b"old").expect("write");
        std::fs::write(&tmp, b"new").expect("write");
        let held = std::fs::OpenOptions::new().read(true).share_mode(3).open(&cfg).expect("hold");
        let err = replace(&tmp, &cfg).expect_err("held");
        assert!(matches!(&err, Error::FileInUse { path, .. } if *path == cfg), "{err}");
        assert_eq!(std::fs::read(&cfg).expect("read"), b"old");
        // Let go within the retries: the replace goes through.
        let release = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(300));
            drop(held);
        });
        replace(&tmp, &cfg).expect("replaced once let go");
        release.join().expect("thread");
        assert_eq!(std::fs::read(&cfg).expect("read"), b"new");
    }
}
