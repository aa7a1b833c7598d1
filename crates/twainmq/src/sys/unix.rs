//! The platform layer on Unix (Linux, macOS): the system calls behind `sys`'s
//! interface, through `rustix`. Where Linux and macOS differ, the arm for
//! each is here, side by side.

use std::fs::{File, OpenOptions};
use std::io;
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

use super::kind::FsKind;
use super::lock::Mode;

// ---------------------------------------------------------------- identity

/// A file's identity: device and inode, with the creation time beside them
/// where the file system keeps one (statx on Linux, APFS): a file system often
/// hands a freed inode to the next file made, and the creation time tells the
/// new file from the old. Where there is no creation time, only the inode speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub(crate) struct Identity {
    dev_ino: (u64, u64),
    created: Option<std::time::SystemTime>,
}

impl std::fmt::Display for Identity {
    /// `dev.ino.created-nanos` (`-` where unknown): stable for a file's life.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}.{}.", self.dev_ino.0, self.dev_ino.1)?;
        match self.created.and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok()) {
            Some(d) => write!(f, "{}", d.as_nanos()),
            None => write!(f, "-"),
        }
    }
}

fn identity_of_meta(meta: &std::fs::Metadata) -> Identity {
    use std::os::unix::fs::MetadataExt;
    Identity { dev_ino: (meta.dev(), meta.ino()), created: meta.created().ok() }
}

pub(crate) fn identity_of(file: &File) -> io::Result<Identity> {
    Ok(identity_of_meta(&file.metadata()?))
}

pub(crate) fn identity_at(path: &Path) -> io::Result<Identity> {
    Ok(identity_of_meta(&std::fs::symlink_metadata(path)?))
}

// ---------------------------------------------------------------- open

/// Options for opening a store file: `O_NOFOLLOW` (a link fails the open with
/// `ELOOP`) and `O_NONBLOCK` (a FIFO or device never blocks the open; regular
/// files ignore it, and `after_open` clears it).
pub(crate) fn open_options(access: super::open::Access) -> OpenOptions {
    let mut opts = OpenOptions::new();
    match access {
        super::open::Access::Read => opts.read(true),
        super::open::Access::Append => opts.append(true).create(true),
        super::open::Access::Overwrite => opts.read(true).write(true),
    };
    opts.custom_flags(rustix::fs::OFlags::NOFOLLOW.bits() as i32 | rustix::fs::OFlags::NONBLOCK.bits() as i32);
    opts
}

/// An open's error, as it is.
pub(crate) fn map_open_error(e: io::Error) -> io::Error {
    e
}

/// `O_NOFOLLOW` refuses a link in the open itself: no look at the path first.
pub(crate) const CHECK_LINK_BY_PATH: bool = false;

/// `O_NOFOLLOW` refused links already; an opened handle is never one.
pub(crate) fn is_link(meta: &std::fs::Metadata) -> bool {
    meta.file_type().is_symlink()
}

/// Unix has no reparse points.
pub(crate) fn needs_reopen(_meta: &std::fs::Metadata) -> bool {
    false
}

pub(crate) fn reopen_options(access: super::open::Access) -> OpenOptions {
    open_options(access)
}

/// Back to blocking reads (regular files never block, but a handle passed on
/// should behave as an ordinary one).
pub(crate) fn after_open(file: &File) {
    use std::os::fd::AsFd;
    if let Ok(flags) = rustix::fs::fcntl_getfl(file.as_fd()) {
        let _ = rustix::fs::fcntl_setfl(file.as_fd(), flags - rustix::fs::OFlags::NONBLOCK);
    }
}

pub(crate) fn read_at(file: &File, buf: &mut [u8], pos: u64) -> io::Result<usize> {
    std::os::unix::fs::FileExt::read_at(file, buf, pos)
}

pub(crate) fn write_at(file: &File, buf: &[u8], pos: u64) -> io::Result<usize> {
    std::os::unix::fs::FileExt::write_at(file, buf, pos)
}

/// Open for writing without blocking: `Ok(None)` for a FIFO with no reader
/// (ENXIO); the handle is made blocking again once open.
pub(crate) fn open_write_nonblocking(path: &Path) -> io::Result<Option<File>> {
    match OpenOptions::new().write(true).custom_flags(rustix::fs::OFlags::NONBLOCK.bits() as i32).open(path) {
        Ok(f) => {
            after_open(&f);
            Ok(Some(f))
        }
        Err(e) if e.raw_os_error() == Some(rustix::io::Errno::NXIO.raw_os_error()) => Ok(None),
        Err(e) => Err(e),
    }
}

/// Open for reading without blocking in the open (a FIFO with no writer yet).
pub(crate) fn open_input(path: &Path) -> io::Result<File> {
    let f = OpenOptions::new().read(true).custom_flags(rustix::fs::OFlags::NONBLOCK.bits() as i32).open(path)?;
    after_open(&f);
    Ok(f)
}

fn poll_in(fd: std::os::fd::BorrowedFd<'_>, timeout: std::time::Duration) -> io::Result<bool> {
    use rustix::event::{poll, PollFd, PollFlags};
    let mut fds = [PollFd::new(&fd, PollFlags::IN)];
    let timeout = rustix::event::Timespec::try_from(timeout).map_err(io::Error::other)?;
    match poll(&mut fds, Some(&timeout)) {
        Ok(n) => Ok(n > 0),
        Err(rustix::io::Errno::INTR) => Ok(false),
        Err(e) => Err(e.into()),
    }
}

/// `poll` for data, its end, or an error on the file.
pub(crate) fn wait_readable(file: &File, timeout: std::time::Duration) -> io::Result<bool> {
    use std::os::fd::AsFd;
    poll_in(file.as_fd(), timeout)
}

pub(crate) fn wait_readable_stdin(stdin: &std::io::Stdin, timeout: std::time::Duration) -> io::Result<bool> {
    use std::os::fd::AsFd;
    poll_in(stdin.as_fd(), timeout)
}

/// Links and size of an open file. Linux: a `statx` asking for those two
/// only. Asking for nothing else matters: since Linux 6.13 a look at a file's
/// change time (which `fstat` always takes) marks it, and the next write must
/// then stamp the inode anew, which made a send with an `fstat` after its
/// write nearly twice as slow. Elsewhere a bare `fstat`.
pub(crate) fn file_state(file: &File) -> io::Result<(bool, u64)> {
    #[cfg(target_os = "linux")]
    {
        use rustix::fs::{AtFlags, StatxFlags};
        match rustix::fs::statx(file, "", AtFlags::EMPTY_PATH, StatxFlags::NLINK | StatxFlags::SIZE) {
            Ok(st) => return Ok((st.stx_nlink > 0, st.stx_size)),
            // Kernels before 4.11 have no statx.
            Err(rustix::io::Errno::NOSYS) => {}
            Err(e) => return Err(e.into()),
        }
    }
    let st = rustix::fs::fstat(file)?;
    Ok((st.st_nlink > 0, u64::try_from(st.st_size).unwrap_or(0)))
}

/// Where the next data is at or after `pos` (`SEEK_DATA`, skipping a sparse
/// file's holes); `None` when only a hole follows. macOS: `pos` itself (holes
/// are read and counted as zeros: the same counts, only slower).
pub(crate) fn next_data(file: &File, pos: u64) -> Option<u64> {
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

/// FIFOs, sockets and devices, by name.
pub(crate) fn special_kind(t: &std::fs::FileType) -> Option<&'static str> {
    use std::os::unix::fs::FileTypeExt;
    if t.is_fifo() {
        Some("a FIFO")
    } else if t.is_socket() {
        Some("a socket")
    } else if t.is_block_device() || t.is_char_device() {
        Some("a device")
    } else {
        None
    }
}

/// `CON`, `NUL`, ... are ordinary names on Unix.
pub(crate) const DEVICE_NAMES_ARE_DEVICES: bool = false;

// ---------------------------------------------------------------- locks

/// `flock` the whole file, blocking until it is ours.
pub(crate) fn lock(file: &File, mode: Mode) -> io::Result<()> {
    let op = match mode {
        Mode::Shared => rustix::fs::FlockOperation::LockShared,
        Mode::Exclusive => rustix::fs::FlockOperation::LockExclusive,
    };
    loop {
        match rustix::fs::flock(file, op) {
            Ok(()) => return Ok(()),
            Err(rustix::io::Errno::INTR) => continue,
            Err(e) => return Err(e.into()),
        }
    }
}

/// `flock` the whole file if no one else holds it: `false` when another does.
pub(crate) fn try_lock(file: &File, mode: Mode) -> io::Result<bool> {
    let op = match mode {
        Mode::Shared => rustix::fs::FlockOperation::NonBlockingLockShared,
        Mode::Exclusive => rustix::fs::FlockOperation::NonBlockingLockExclusive,
    };
    loop {
        match rustix::fs::flock(file, op) {
            Ok(()) => return Ok(true),
            Err(rustix::io::Errno::INTR) => continue,
            Err(rustix::io::Errno::WOULDBLOCK) => return Ok(false),
            Err(e) => return Err(e.into()),
        }
    }
}

pub(crate) fn unlock(file: &File) {
    let _ = rustix::fs::flock(file, rustix::fs::FlockOperation::Unlock);
}

/// The lock of a topic's folder: `flock` on the folder itself.
pub(crate) fn lock_folder(dir: &Path, _stand_in: &Path) -> io::Result<File> {
    let file = File::open(dir)?;
    lock(&file, Mode::Exclusive)?;
    Ok(file)
}

/// Nothing holds a file against others on Unix (no mandatory share modes).
pub(crate) fn is_in_use(_e: &io::Error) -> bool {
    false
}

pub(crate) fn may_be_in_use(_e: &io::Error) -> bool {
    false
}

// ---------------------------------------------------------------- deletes

/// A path about to be deleted. Unix lets no process refuse a delete (an
/// unlinked file lives on for those who hold it open), so there is nothing
/// to hold.
pub(crate) struct Claimed {
    path: std::path::PathBuf,
    dir: bool,
}

/// `Ok(None)` when `path` is gone already.
pub(crate) fn claim(path: &Path) -> io::Result<Option<Claimed>> {
    match std::fs::symlink_metadata(path) {
        Ok(m) => Ok(Some(Claimed { path: path.to_path_buf(), dir: m.is_dir() })),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e),
    }
}

impl Claimed {
    /// Unlink the file (a link as itself), or remove the empty folder.
    pub(crate) fn delete(self) -> io::Result<()> {
        let r = if self.dir { std::fs::remove_dir(&self.path) } else { std::fs::remove_file(&self.path) };
        match r {
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
            other => other,
        }
    }
}

pub(crate) fn is_not_empty(e: &io::Error) -> bool {
    e.kind() == io::ErrorKind::DirectoryNotEmpty
}

// ---------------------------------------------------------------- file systems

/// The kind of file system `path` is on: Linux by `statfs`'s magic number
/// (FUSE told apart by the mount table), macOS by `statfs`'s type name.
pub(crate) fn filesystem_kind(path: &Path) -> FsKind {
    #[cfg(target_os = "linux")]
    {
        super::kind::linux_kind(path)
    }
    #[cfg(target_os = "macos")]
    {
        match rustix::fs::statfs(path) {
            Ok(s) => {
                // `f_fstypename` is a NUL-terminated C string of `c_char`s.
                #[allow(clippy::unnecessary_cast)]
                let name: Vec<u8> = s.f_fstypename.iter().take_while(|&&c| c != 0).map(|&c| c as u8).collect();
                super::kind::kind_of_fstypename(&String::from_utf8_lossy(&name))
            }
            Err(_) => FsKind::Unknown,
        }
    }
    #[cfg(not(any(target_os = "linux", target_os = "macos")))]
    {
        // Other Unixes: no table of network file systems here, so the store is
        // taken as network (every append locked: slower, never wrong).
        let _ = path;
        FsKind::Network("unknown (this system's file systems are not told apart)")
    }
}

// ---------------------------------------------------------------- priority

/// The nice value a background scan runs at: below every normal thread (Linux).
#[cfg(target_os = "linux")]
const BACKGROUND_NICE: i32 = 4;

/// Lower the calling thread to nice [`BACKGROUND_NICE`] (never raise it). On
/// Linux a priority belongs to a thread, and threads it starts afterwards
/// inherit it. On macOS `setpriority` would lower the whole process (the
/// app's interactive threads too), so nothing changes there and this says so
/// by returning `false`.
pub(crate) fn lower_this_thread() -> bool {
    #[cfg(target_os = "linux")]
    {
        // `None` is "the caller": on Linux, the calling thread only.
        match rustix::process::getpriority_process(None) {
            Ok(now) if now >= BACKGROUND_NICE => true,
            Ok(_) => rustix::process::setpriority_process(None, BACKGROUND_NICE).is_ok(),
            Err(_) => false,
        }
    }
    #[cfg(not(target_os = "linux"))]
    {
        false
    }
}

pub(crate) fn is_lowered() -> bool {
    #[cfg(target_os = "linux")]
    {
        rustix::process::getpriority_process(None).is_ok_and(|n| n >= BACKGROUND_NICE)
    }
    #[cfg(not(target_os = "linux"))]
    {
        false
    }
}

#[cfg(all(test, target_os = "linux"))]
pub(crate) fn background_nice() -> i32 {
    BACKGROUND_NICE
}

/// Wine runs Windows programs only.
pub(crate) fn under_wine() -> bool {
    false
}

// ---------------------------------------------------------------- space

/// Reserve `len` bytes at the end of `file` (at `end` when known), so that the
/// write after it cannot run out of space half-way: a full disk fails the
/// reservation, with nothing written. Linux `fallocate`; file systems without
/// it (NTFS through FUSE, network shares) and macOS go on without one.
pub(crate) fn reserve(file: &File, end: Option<u64>, len: usize) -> io::Result<()> {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    {
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
    {
        let _ = (file, end, len);
        Ok(())
    }
}

/// Whether this process may make and delete files in the folder `dir`:
/// `access(2)` for write and search, which also answers `EROFS` on a
/// read-only mount. Asks, writes nothing (a probe file would wake watchers).
pub(crate) fn dir_writable(dir: &Path) -> io::Result<()> {
    rustix::fs::access(dir, rustix::fs::Access::WRITE_OK | rustix::fs::Access::EXEC_OK).map_err(io::Error::from)
}
