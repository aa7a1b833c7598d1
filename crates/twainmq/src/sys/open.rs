//! Opening store files safely: regular files only, never through a link, never
//! blocking on a FIFO; and the facts of an open file (still linked, size, data holes).

use std::fs;
use std::path::Path;

use super::imp;
use crate::error::{Error, Result};

/// Where the next bytes of data are at or after `pos`, skipping a hole of a
/// sparse file (holes hold zeros, never a newline, so skipping them changes no
/// line count); `None` when only a hole (or nothing) follows. Where the system
/// cannot tell (macOS, Windows), `pos` itself. Moves the file's position.
pub(crate) fn next_data(file: &fs::File, pos: u64) -> Option<u64> {
    imp::next_data(file, pos)
}

/// Read into `buf` from byte `pos` of `file` (Unix: `pread`, which leaves the
/// file's position; Windows: `seek_read`, which moves it).
pub(crate) fn read_at(file: &fs::File, buf: &mut [u8], pos: u64) -> std::io::Result<usize> {
    imp::read_at(file, buf, pos)
}

/// Open `path`, a FIFO or device, for writing as it is: never blocking in the
/// open (a FIFO with no reader yet is tried again every 50 ms until one comes
/// or `cancelled` says to stop: then `None`).
///
/// # Errors
/// The open's error.
pub(crate) fn open_for_writing_as_is(path: &Path, cancelled: &dyn Fn() -> bool) -> std::io::Result<Option<fs::File>> {
    loop {
        match imp::open_write_nonblocking(path) {
            Ok(Some(f)) => return Ok(Some(f)),
            Ok(None) if cancelled() => return Ok(None),
            Ok(None) => std::thread::sleep(std::time::Duration::from_millis(50)),
            Err(e) => return Err(e),
        }
    }
}

/// Open `path` for reading as an input (an import's file or FIFO): a FIFO is
/// opened without waiting for a writer (Unix: `O_NONBLOCK`, cleared once open).
///
/// # Errors
/// The open's error.
pub(crate) fn open_input(path: &Path) -> std::io::Result<fs::File> {
    imp::open_input(path)
}

/// Wait up to `timeout` for `file` to have data (or its end); `false` when
/// the time ran out. Where the system cannot wait on a file (Windows), at once `true`.
///
/// # Errors
/// The wait's error.
pub(crate) fn wait_readable(file: &fs::File, timeout: std::time::Duration) -> std::io::Result<bool> {
    imp::wait_readable(file, timeout)
}

/// [`wait_readable`] for standard input.
///
/// # Errors
/// The wait's error.
pub(crate) fn wait_readable_stdin(stdin: &std::io::Stdin, timeout: std::time::Duration) -> std::io::Result<bool> {
    imp::wait_readable_stdin(stdin, timeout)
}

/// What an open file's handle says of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct FileState {
    /// Still in a folder: not deleted (Unix: a link is left; Windows: a link is
    /// left and no delete is pending). Where the handle cannot tell, true.
    pub(crate) linked: bool,
    /// Its size in bytes, when known.
    pub(crate) size: Option<u64>,
}

/// Whether a file we hold open is still in a folder, and its size, in one
/// call (Unix: a bare `fstat`; Windows: `FILE_STANDARD_INFO`): this runs after
/// every write. Under Wine a delete-pending file still reads as linked (Wine
/// does not report pending deletes): there the periodic look at the topic
/// catches a deleted topic.
pub(crate) fn file_state(file: &fs::File) -> FileState {
    match imp::file_state(file) {
        Ok((linked, size)) => FileState { linked, size: Some(size) },
        Err(_) => FileState { linked: true, size: None },
    }
}

/// What a folder entry is, when it is not a regular file.
pub(crate) fn kind_name(t: &fs::FileType) -> &'static str {
    if let Some(special) = imp::special_kind(t) {
        return special;
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
/// if it is a regular file: never through a symbolic link or junction (a link
/// could lead out of the store), and never a FIFO, socket, device or folder (a
/// FIFO would block the open or the read forever). The open itself does not
/// block (Unix: `O_NONBLOCK`, which regular files ignore) and the type is
/// checked on the opened handle, so a file swapped in between is caught too.
/// On Windows a file whose delete is pending reads as not found.
///
/// # Errors
/// [`Error::SymlinkRefused`], [`Error::NotAFile`], or [`Error::Io`] (a
/// missing file keeps its `NotFound` kind).
pub(crate) fn open_regular(path: &Path, append: bool) -> Result<fs::File> {
    open_checked(path, if append { Access::Append } else { Access::Read })
}

/// How a store file is opened.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Access {
    /// Reading.
    Read,
    /// Appending, made if missing.
    Append,
    /// Reading, and writing bytes in place (never made, never grown by it).
    Overwrite,
}

/// [`open_regular`] to overwrite bytes in place ([`write_at`]): only an
/// existing regular file, never through a link.
///
/// # Errors
/// As [`open_regular`].
pub(crate) fn open_regular_to_overwrite(path: &Path) -> Result<fs::File> {
    open_checked(path, Access::Overwrite)
}

/// Write all of `buf` at byte `pos` of `file`, opened with
/// [`open_regular_to_overwrite`] (Unix: `pwrite`; Windows: `seek_write`).
///
/// # Errors
/// The write's error.
pub(crate) fn write_at(file: &fs::File, buf: &[u8], pos: u64) -> std::io::Result<()> {
    let mut done = 0;
    while done < buf.len() {
        match imp::write_at(file, &buf[done..], pos + done as u64) {
            Ok(0) => return Err(std::io::Error::new(std::io::ErrorKind::WriteZero, "wrote nothing")),
            Ok(n) => done += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

fn open_checked(path: &Path, access: Access) -> Result<fs::File> {
    let op = match access {
        Access::Read => "open",
        Access::Append => "open for append",
        Access::Overwrite => "open for writing",
    };
    if imp::CHECK_LINK_BY_PATH && fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink()) {
        return Err(Error::SymlinkRefused { path: path.to_path_buf() });
    }
    let file = match imp::open_options(access).open(path).map_err(imp::map_open_error) {
        Ok(f) => f,
        Err(e) => {
            // Unix: ELOOP from O_NOFOLLOW, the last component is a link.
            if let Ok(m) = fs::symlink_metadata(path) {
                if m.file_type().is_symlink() {
                    return Err(Error::SymlinkRefused { path: path.to_path_buf() });
                }
                if !m.file_type().is_file() && e.kind() != std::io::ErrorKind::NotFound {
                    return Err(Error::NotAFile { path: path.to_path_buf(), kind: kind_name(&m.file_type()) });
                }
            }
            return Err(Error::io(op, path, e));
        }
    };
    let meta = file.metadata().map_err(|e| Error::io(op, path, e))?;
    if imp::is_link(&meta) {
        return Err(Error::SymlinkRefused { path: path.to_path_buf() });
    }
    let file = if imp::needs_reopen(&meta) {
        // A reparse point that is no link (a cloud placeholder): its data, not its reparse data.
        imp::reopen_options(access).open(path).map_err(|e| Error::io(op, path, imp::map_open_error(e)))?
    } else {
        file
    };
    let meta = file.metadata().map_err(|e| Error::io(op, path, e))?;
    if !meta.file_type().is_file() {
        return Err(Error::NotAFile { path: path.to_path_buf(), kind: kind_name(&meta.file_type()) });
    }
    imp::after_open(&file);
    Ok(file)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_link_is_refused_and_a_folder_is_not_a_file() {
        let dir = tempfile::tempdir().expect("tmp");
        let target = dir.path().join("target");
        fs::write(&target, b"x\n").expect("write");
        assert!(open_regular(&target, false).is_ok());
        assert!(matches!(open_regular(dir.path(), false), Err(Error::NotAFile { kind: "a folder", .. }) | Err(Error::Io { .. })));
        let missing = open_regular(&dir.path().join("missing"), false).expect_err("missing");
        assert!(matches!(&missing, Error::Io { cause, .. } if cause.kind() == std::io::ErrorKind::NotFound), "{missing}");
        let link = dir.path().join("link");
        #[cfg(unix)]
        std::os::unix::fs::symlink(&target, &link).expect("symlink");
        #[cfg(windows)]
        if std::os::windows::fs::symlink_file(&target, &link).is_err() || crate::sys::under_wine() {
            // Making links needs a privilege (or developer mode) on Windows;
            // Wine 8's CreateSymbolicLinkW makes nothing and says it succeeded.
            // The release workflow's Windows job (an administrator) runs this.
            return;
        }
        assert!(matches!(open_regular(&link, false), Err(Error::SymlinkRefused { .. })));
        assert!(matches!(open_regular(&link, true), Err(Error::SymlinkRefused { .. })));
        assert_eq!(fs::read(&target).expect("read"), b"x\n", "nothing written through the link");
    }

    #[test]
    fn a_deleted_file_is_no_longer_linked() {
        let dir = tempfile::tempdir().expect("tmp");
        let path = dir.path().join("f");
        let f = open_regular(&path, true).expect("create");
        std::io::Write::write_all(&mut &f, b"abc\n").expect("write");
        assert_eq!(file_state(&f), FileState { linked: true, size: Some(4) });
        fs::remove_file(&path).expect("rm");
        // Wine keeps a deleted file's name until its last handle closes and
        // reports no pending delete (its FILE_STANDARD_INFO leaves DeletePending
        // false): what the topic checks catch instead is tested in `log`.
        if !crate::sys::under_wine() {
            assert!(!file_state(&f).linked);
        }
    }
}
