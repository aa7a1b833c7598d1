//! Private scratch folders for tools that must leave nothing behind (`twainmq
//! bench`): made under a parent folder, locked while in use, deleted when
//! done; one whose process died without deleting it (SIGKILL, a power cut)
//! has its lock freed by the system, and the next one made under the same
//! parent deletes it.

use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

/// The lock file inside a scratch folder: marks it as one (only such folders
/// are ever deleted as leftovers) and holds its lock.
const LOCK_NAME: &str = ".twainmq-scratch-lock";

/// A scratch folder, deleted when dropped.
pub struct ScratchDir {
    path: PathBuf,
    /// The folder's lock, held while it is in use (dropped before the delete).
    lock: Option<super::lock::HeldFile>,
}

impl ScratchDir {
    /// Make a scratch folder `<prefix><pid>-<n>` in `parent`, first deleting
    /// the leftovers of earlier ones there (folders named `<prefix>*` holding
    /// a free scratch lock). Returns how many leftovers were deleted, too.
    ///
    /// # Errors
    /// Making the folder or its lock file.
    pub fn new(parent: &Path, prefix: &str) -> Result<(ScratchDir, usize)> {
        let swept = sweep(parent, prefix);
        for attempt in 0u64..100 {
            let n = super::remove::unique_number().wrapping_add(attempt);
            let path = parent.join(format!("{prefix}{}-{n:x}", std::process::id()));
            match std::fs::create_dir(&path) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(Error::io("create", path, e)),
            }
            let lock_path = path.join(LOCK_NAME);
            let locked = super::open::open_regular(&lock_path, true)
                .and_then(|f| super::lock::lock_owned(f, super::lock::Mode::Exclusive).map_err(|e| Error::io("lock", &lock_path, e)));
            return match locked {
                Ok(lock) => Ok((ScratchDir { path, lock: Some(lock) }, swept)),
                Err(e) => {
                    let _ = std::fs::remove_dir_all(&path);
                    Err(e)
                }
            };
        }
        Err(Error::io("create", parent, std::io::Error::other("no free scratch folder name after 100 tries")))
    }

    /// The folder.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl std::fmt::Debug for ScratchDir {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ScratchDir").field("path", &self.path).finish_non_exhaustive()
    }
}

impl Drop for ScratchDir {
    fn drop(&mut self) {
        self.lock = None;
        let _ = std::fs::remove_dir_all(&self.path);
    }
}

/// Delete the scratch folders in `parent` named `<prefix>*` whose lock no
/// process holds; how many went. Anything else is left alone.
fn sweep(parent: &Path, prefix: &str) -> usize {
    let Ok(entries) = std::fs::read_dir(parent) else { return 0 };
    let mut gone = 0;
    for e in entries.flatten() {
        let is_ours = e.file_name().to_str().is_some_and(|n| n.starts_with(prefix)) && e.file_type().is_ok_and(|t| t.is_dir());
        if !is_ours {
            continue;
        }
        let lock_path = e.path().join(LOCK_NAME);
        let Ok(file) = super::open::open_regular(&lock_path, false) else { continue };
        // A lock we can take is one no process holds: the folder is a dead
        // one's. It is let go before the delete, as Windows deletes no folder
        // holding an open file (folders are never reused: each is made new, so
        // nobody takes this one for theirs in between).
        let free = matches!(super::lock::try_lock_owned(file, super::lock::Mode::Exclusive), Ok(Some(_)));
        if free && std::fs::remove_dir_all(e.path()).is_ok() {
            gone += 1;
        }
    }
    gone
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_scratch_folder_goes_when_dropped_and_a_dead_one_at_the_next() {
        let parent = tempfile::tempdir().expect("tmp");
        let (a, swept) = ScratchDir::new(parent.path(), "s-").expect("a");
        assert_eq!(swept, 0);
        std::fs::write(a.path().join("data"), b"x").expect("write");
        // A live one is left alone by the next.
        let (b, swept) = ScratchDir::new(parent.path(), "s-").expect("b");
        assert_eq!(swept, 0);
        assert!(a.path().exists());
        let (pa, pb) = (a.path().to_path_buf(), b.path().to_path_buf());
        drop(a);
        assert!(!pa.exists(), "deleted when dropped");
        // One whose process died: its lock is free (here: forgotten, as a killed process's is let go).
        let dead = parent.path().join("s-dead");
        std::fs::create_dir(&dead).expect("dir");
        std::fs::write(dead.join(LOCK_NAME), b"").expect("lock file");
        std::fs::write(dead.join("data"), b"x").expect("write");
        // Not a scratch folder (no lock file): never touched.
        let other = parent.path().join("s-other");
        std::fs::create_dir(&other).expect("dir");
        let (c, swept) = ScratchDir::new(parent.path(), "s-").expect("c");
        assert_eq!(swept, 1);
        assert!(!dead.exists() && other.exists() && pb.exists());
        drop((b, c));
        assert!(!pb.exists());
    }
}
