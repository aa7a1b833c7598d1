//! Which file is at a path: an identity that survives appends and changes
//! when another file takes the path.

/// Tells a file from another that took its path (deleted and made again by
/// another process, or renamed over it), so caches keyed by path can notice.
/// The inode alone is not enough: a file system often hands a freed inode to
/// the next file made. With the creation time beside it (statx on Linux, NTFS,
/// APFS) a new file differs; where the file system keeps no creation time, only
/// the inode speaks. Appends change neither.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub(crate) struct FileIdentity {
    #[cfg(unix)]
    dev_ino: (u64, u64),
    created: Option<std::time::SystemTime>,
}

impl std::fmt::Display for FileIdentity {
    /// `dev.ino.created-nanos` (`-` where unknown): stable for a file's life.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        #[cfg(unix)]
        write!(f, "{}.{}.", self.dev_ino.0, self.dev_ino.1)?;
        match self.created.and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok()) {
            Some(d) => write!(f, "{}", d.as_nanos()),
            None => write!(f, "-"),
        }
    }
}

impl FileIdentity {
    /// The identity of the file or folder at `path`, never following a link.
    pub(crate) fn at(path: &std::path::Path) -> Option<Self> {
        std::fs::symlink_metadata(path).ok().map(|m| FileIdentity::of(&m))
    }

    pub(crate) fn of(meta: &std::fs::Metadata) -> Self {
        #[cfg(unix)]
        use std::os::unix::fs::MetadataExt;
        FileIdentity {
            #[cfg(unix)]
            dev_ino: (meta.dev(), meta.ino()),
            created: meta.created().ok(),
        }
    }
}
