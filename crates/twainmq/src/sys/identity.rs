//! Which file is at a path: an identity that survives appends and changes
//! when another file takes the path.

use std::fs::File;
use std::path::Path;

use super::imp;

/// Tells a file from another that took its path (deleted and made again by
/// another process, or renamed over it), so caches keyed by path can notice.
/// Unix: device, inode and (where kept) creation time; Windows: volume serial
/// number and 128-bit file id. Appends change neither.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(transparent)]
pub(crate) struct FileIdentity(imp::Identity);

impl std::fmt::Display for FileIdentity {
    /// An opaque token, stable for a file's life.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

/// Whether `path` (which need not exist yet) is `root` or lies inside it,
/// whatever the spelling: its deepest existing ancestor is made canonical
/// (links and `..` resolved), and each folder up from there is compared with
/// `root` by identity, so a bind mount, another drive letter, a junction or
/// another case of the same folder is caught too.
pub(crate) fn is_within(path: &Path, root: &Path) -> bool {
    let Some(root) = std::fs::canonicalize(root).ok().and_then(|r| FileIdentity::at(&r)) else { return false };
    let mut existing = path;
    while std::fs::symlink_metadata(existing).is_err() {
        match existing.parent() {
            Some(p) if !p.as_os_str().is_empty() => existing = p,
            _ => {
                existing = Path::new(".");
                break;
            }
        }
    }
    let Ok(real) = std::fs::canonicalize(existing) else { return false };
    real.ancestors().any(|a| FileIdentity::at(a) == Some(root))
}

impl FileIdentity {
    /// The identity of the file or folder at `path`, never following a link;
    /// `None` when there is none (or it cannot be read).
    pub(crate) fn at(path: &Path) -> Option<Self> {
        imp::identity_at(path).ok().map(FileIdentity)
    }

    /// The identity of an open file.
    pub(crate) fn of(file: &File) -> Option<Self> {
        imp::identity_of(file).ok().map(FileIdentity)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn within_by_identity_whatever_the_spelling() {
        let dir = tempfile::tempdir().expect("tmp");
        let store = dir.path().join("store");
        std::fs::create_dir_all(store.join("t")).expect("folders");
        assert!(is_within(&store, &store));
        assert!(is_within(&store.join("t"), &store));
        assert!(is_within(&store.join("not/yet/made.json"), &store));
        assert!(is_within(&store.join("t/../x"), &store));
        assert!(!is_within(&dir.path().join("other/x"), &store));
        assert!(!is_within(&store.join("../storex"), &store));
        assert!(!is_within(dir.path(), &store));
        let canonical = std::fs::canonicalize(&store).expect("canonical");
        assert!(is_within(&canonical.join("new"), &store));
        #[cfg(unix)]
        {
            let link = dir.path().join("link");
            std::os::unix::fs::symlink(&store, &link).expect("link");
            assert!(is_within(&link.join("cache"), &store), "through a link");
        }
    }
}
