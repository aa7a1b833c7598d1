//! Which kind of file system a store is on. O_APPEND is atomic between
//! processes on local file systems (ext4, XFS, NTFS, APFS, tmpfs); on network
//! file systems (NFS, SMB/CIFS) each client computes the end of the file from
//! its own cache, so concurrent appends from different machines can overwrite
//! each other. There our producers take an exclusive lock around each append.

/// What kind of file system a path is on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum FsKind {
    Local,
    /// A network file system, by name (`nfs`, `smb`, ...).
    Network(&'static str),
    /// Could not be told.
    Unknown,
}

impl FsKind {
    pub fn is_network(self) -> bool {
        matches!(self, FsKind::Network(_))
    }
}

/// The file system `path` is on.
pub fn filesystem_kind(path: &std::path::Path) -> FsKind {
    #[cfg(target_os = "linux")]
    {
        match rustix::fs::statfs(path) {
            // `f_type`'s integer type differs between architectures.
            #[allow(clippy::unnecessary_cast)]
            Ok(s) => kind_of_magic(s.f_type as i64),
            Err(_) => FsKind::Unknown,
        }
    }
    #[cfg(windows)]
    {
        if path.to_string_lossy().starts_with(r"\\") {
            FsKind::Network("smb")
        } else {
            FsKind::Local
        }
    }
    #[cfg(not(any(target_os = "linux", windows)))]
    {
        let _ = path;
        FsKind::Unknown
    }
}

/// Linux `statfs` magic numbers of network and cluster file systems.
pub fn kind_of_magic(magic: i64) -> FsKind {
    match magic as u32 {
        0x6969 => FsKind::Network("nfs"),
        0xFF53_4D42 => FsKind::Network("cifs"),
        0xFE53_4D42 => FsKind::Network("smb2"),
        0x517B => FsKind::Network("smb"),
        0x0102_1997 => FsKind::Network("9p"),
        0x00C3_6400 => FsKind::Network("ceph"),
        0x1983_0326 => FsKind::Network("beegfs"),
        0x0BD0_0BD0 => FsKind::Network("lustre"),
        0x4750_4653 => FsKind::Network("gpfs"),
        0x6573_5546 => FsKind::Network("fuse (sshfs and others)"),
        _ => FsKind::Local,
    }
}

/// Take an exclusive lock on an append handle for one write (network file systems).
#[cfg(unix)]
pub(crate) fn lock_exclusive(file: &std::fs::File) -> std::io::Result<()> {
    rustix::fs::flock(file, rustix::fs::FlockOperation::LockExclusive).map_err(std::io::Error::from)
}

#[cfg(unix)]
pub(crate) fn unlock(file: &std::fs::File) -> std::io::Result<()> {
    rustix::fs::flock(file, rustix::fs::FlockOperation::Unlock).map_err(std::io::Error::from)
}

#[cfg(not(unix))]
pub(crate) fn lock_exclusive(_file: &std::fs::File) -> std::io::Result<()> {
    Ok(())
}

#[cfg(not(unix))]
pub(crate) fn unlock(_file: &std::fs::File) -> std::io::Result<()> {
    Ok(())
}

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

impl FileIdentity {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn magic_numbers() {
        assert_eq!(kind_of_magic(0x6969), FsKind::Network("nfs"));
        assert_eq!(kind_of_magic(0xFF53_4D42), FsKind::Network("cifs"));
        assert_eq!(kind_of_magic(0xEF53), FsKind::Local); // ext4
        #[cfg(target_os = "linux")]
        assert!(!filesystem_kind(std::path::Path::new("/tmp")).is_network());
    }
}
