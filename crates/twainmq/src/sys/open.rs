//! Opening store files safely: regular files only, never through a link, never
//! blocking on a FIFO; and the facts of an open file (links, size, data holes).

use std::fs;
use std::path::Path;

use crate::error::{Error, Result};

/// Where the next bytes of data are at or after `pos`, skipping a hole of a
/// sparse file (holes hold zeros, never a newline, so skipping them changes no
/// line count); `None` when only a hole (or nothing) follows. Where the system
/// cannot tell, `pos` itself. Moves the file's position.
pub(crate) fn next_data(file: &fs::File, pos: u64) -> Option<u64> {
    #[cfg(any(target_os = "linux", target_os = "android", target_os = "freebsd"))]
    {
        match rustix::fs::seek(file, rustix::fs::SeekFrom::Data(pos)) {
            Ok(d) => Some(d.max(pos)),
            Err(rustix::io::Errno::NXIO) => None,
            Err(_) => Some(pos),
        }
    }
    #[cfg(not(any(target_os = "linux", target_os = "android", target_os = "freebsd")))]
    {
        let _ = file;
        Some(pos)
    }
}

/// Whether a file we hold open is still in a folder (not deleted), and its
/// size, in one bare `fstat` (std's metadata is a statx with more to fill in:
/// this runs after every write). Where the platform cannot tell, the file is
/// taken to be linked and the size is unknown.
pub(crate) fn link_and_size(file: &fs::File) -> (bool, Option<u64>) {
    #[cfg(unix)]
    {
        match rustix::fs::fstat(file) {
            Ok(st) => (st.st_nlink > 0, u64::try_from(st.st_size).ok()),
            Err(_) => (true, None),
        }
    }
    #[cfg(not(unix))]
    {
        let _ = file;
        (true, None)
    }
}

/// What a folder entry is, when it is not a regular file.
pub(crate) fn kind_name(t: &fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return "a FIFO";
        }
        if t.is_socket() {
            return "a socket";
        }
        if t.is_block_device() || t.is_char_device() {
            return "a device";
        }
    }
    if t.is_dir() {
        "a folder"
    } else if t.is_symlink() {
        "a symbolic link"
    } else if t.is_file() {
        "a regular file"
    } else {
        "not a regular file"
    }
}

/// Open `path` for reading, or for appending (creating it) with `append`, only
/// if it is a regular file: never through a symbolic link (a link could lead
/// out of the store), and never a FIFO, socket, device or folder (a FIFO would
/// block the open or the read forever). The open itself does not block
/// (`O_NONBLOCK`, which regular files ignore) and the type is checked on the
/// opened handle, so a file swapped in between is caught too.
///
/// # Errors
/// [`Error::SymlinkRefused`], [`Error::NotAFile`], or [`Error::Io`] (a
/// missing file keeps its `NotFound` kind).
pub(crate) fn open_regular(path: &Path, append: bool) -> Result<fs::File> {
    let mut opts = fs::OpenOptions::new();
    if append {
        opts.append(true).create(true);
    } else {
        opts.read(true);
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        opts.custom_flags(rustix::fs::OFlags::NOFOLLOW.bits() as i32 | rustix::fs::OFlags::NONBLOCK.bits() as i32);
    }
    let op = if append { "open for append" } else { "open" };
    let file = match opts.open(path) {
        Ok(f) => f,
        Err(e) => {
            // ELOOP from O_NOFOLLOW: the last component is a link.
            if fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink()) {
                return Err(Error::SymlinkRefused { path: path.to_path_buf() });
            }
            if let Ok(m) = fs::symlink_metadata(path) {
                if !m.file_type().is_file() {
                    return Err(Error::NotAFile { path: path.to_path_buf(), kind: kind_name(&m.file_type()) });
                }
            }
            return Err(Error::io(op, path, e));
        }
    };
    let meta = file.metadata().map_err(|e| Error::io(op, path, e))?;
    if !meta.file_type().is_file() {
        return Err(Error::NotAFile { path: path.to_path_buf(), kind: kind_name(&meta.file_type()) });
    }
    #[cfg(unix)]
    {
        // Back to blocking reads (regular files never block, but a handle
        // passed on should behave as an ordinary one).
        use std::os::fd::AsFd;
        if let Ok(flags) = rustix::fs::fcntl_getfl(file.as_fd()) {
            let _ = rustix::fs::fcntl_setfl(file.as_fd(), flags - rustix::fs::OFlags::NONBLOCK);
        }
    }
    Ok(file)
}
