//! The platform layer on Windows: the system calls behind `sys`'s interface.
//!
//! Every call here is a Win32 call through `windows-sys` on a handle std
//! opened (std owns and closes every handle: nothing here leaks or double
//! closes one). The `unsafe` blocks pass a live handle and a buffer of the
//! size the call is told; nothing else.
#![allow(unsafe_code)]

use std::fs::{File, OpenOptions};
use std::io;
use std::os::windows::ffi::OsStrExt;
use std::os::windows::fs::OpenOptionsExt;
use std::os::windows::io::AsRawHandle;
use std::path::{Path, PathBuf};

use windows_sys::Win32::Foundation::{ERROR_LOCK_VIOLATION, ERROR_SHARING_VIOLATION, HANDLE};
use windows_sys::Win32::Storage::FileSystem as fs;
use windows_sys::Win32::System::IO::OVERLAPPED;

use super::kind::FsKind;
use super::lock::Mode;

// `RtlGetLastNtStatus` tells a delete-pending file (STATUS_DELETE_PENDING)
// from one we may not open: both fail a CreateFile with ERROR_ACCESS_DENIED.
// ntdll has exported it since Windows XP (and Wine has it); windows-sys does
// not declare it.
windows_link::link!("ntdll.dll" "system" fn RtlGetLastNtStatus() -> i32);

/// `STATUS_DELETE_PENDING`: the name belongs to a file deleted while another
/// handle keeps it open (classic, non-POSIX deletes: FAT, SMB shares, older
/// Windows); it goes when that handle closes, and nothing can open it meanwhile.
const STATUS_DELETE_PENDING: i32 = 0xC000_0056_u32 as i32;
/// The `DELETE` access right (winnt.h), which renaming and deleting through a handle need.
const DELETE: u32 = 0x0001_0000;
/// Share everything: others may read, write, delete and rename what we hold open.
const SHARE_ALL: u32 = fs::FILE_SHARE_READ | fs::FILE_SHARE_WRITE | fs::FILE_SHARE_DELETE;
/// The byte our locks take: far past any data (a partition file or config
/// of 8 EiB is not a thing), so never a byte 0.2.3 reads or writes. Windows
/// byte-range locks are mandatory: a lock over data would fail 0.2.3's reads.
const LOCK_BYTE: u64 = 1 << 63;
/// The byte of a topic's config that stands in for its folder's lock
/// (folders cannot be locked on Windows): another byte than a file lock's,
/// so a producer holding its file's lock can take it.
const FOLDER_LOCK_BYTE: u64 = LOCK_BYTE + 1;

fn handle(f: &File) -> HANDLE {
    f.as_raw_handle() as HANDLE
}

fn wide(path: &Path) -> Vec<u16> {
    path.as_os_str().encode_wide().chain(std::iter::once(0)).collect()
}

/// Whether the last failed call met a delete-pending file.
fn last_was_delete_pending() -> bool {
    // SAFETY: reads the calling thread's last NTSTATUS; no arguments.
    unsafe { RtlGetLastNtStatus() == STATUS_DELETE_PENDING }
}

/// A failed open: a delete-pending name reads as not found (it is gone for
/// everyone but the handles that hold it).
fn open_error(e: io::Error) -> io::Error {
    if e.raw_os_error() == Some(windows_sys::Win32::Foundation::ERROR_ACCESS_DENIED as i32) && last_was_delete_pending() {
        return io::Error::new(io::ErrorKind::NotFound, "the file is being deleted (delete pending): another process still has it open");
    }
    e
}

// ---------------------------------------------------------------- identity

/// A file's identity: its volume's serial number and its 128-bit file id
/// (`FILE_ID_INFO`). NTFS ids hold a sequence number, so a file made again
/// under a name (even one NTFS "tunnels" the old creation time to) has
/// another; ReFS ids are 128-bit. Creation times are not used: NTFS tunnels
/// them, and Wine moves them on every append.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub(crate) struct Identity {
    volume: u64,
    id: (u64, u64),
}

impl std::fmt::Display for Identity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:x}.{:x}{:016x}", self.volume, self.id.0, self.id.1)
    }
}

/// `GetFileInformationByHandleEx` of an open file, for one information class.
///
/// # Safety
/// `T` must be the structure Windows fills for `class` (plain old data, for
/// which all zeros is a valid value).
unsafe fn info_by_handle<T>(file: &File, class: fs::FILE_INFO_BY_HANDLE_CLASS) -> io::Result<T> {
    // SAFETY: plain old data, by the caller's promise.
    let mut info: T = unsafe { std::mem::zeroed() };
    // SAFETY: a live handle, and a buffer of the size given.
    let ok = unsafe { fs::GetFileInformationByHandleEx(handle(file), class, (&raw mut info).cast(), std::mem::size_of::<T>() as u32) };
    if ok == 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(info)
}

pub(crate) fn identity_of(file: &File) -> io::Result<Identity> {
    // SAFETY: FILE_ID_INFO is FileIdInfo's structure.
    if let Ok(info) = unsafe { info_by_handle::<fs::FILE_ID_INFO>(file, fs::FileIdInfo) } {
        let b = info.FileId.Identifier;
        let hi = u64::from_le_bytes([b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]]);
        let lo = u64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]);
        return Ok(Identity { volume: info.VolumeSerialNumber, id: (hi, lo) });
    }
    // FAT and some network redirectors have no FileIdInfo: the 64-bit file
    // index of BY_HANDLE_FILE_INFORMATION (on FAT, the entry's position: a
    // file made again in the same place may get it back).
    // SAFETY: as above.
    let mut old: fs::BY_HANDLE_FILE_INFORMATION = unsafe { std::mem::zeroed() };
    // SAFETY: a live handle and a buffer of that type.
    if unsafe { fs::GetFileInformationByHandle(handle(file), &raw mut old) } == 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(Identity {
        volume: u64::from(old.dwVolumeSerialNumber),
        id: (0, (u64::from(old.nFileIndexHigh) << 32) | u64::from(old.nFileIndexLow)),
    })
}

/// Open `path` (a file or folder) for its attributes only, never through a
/// link (the link itself is opened), sharing everything.
fn open_attributes(path: &Path) -> io::Result<File> {
    OpenOptions::new()
        .access_mode(fs::FILE_READ_ATTRIBUTES)
        .share_mode(SHARE_ALL)
        .custom_flags(fs::FILE_FLAG_BACKUP_SEMANTICS | fs::FILE_FLAG_OPEN_REPARSE_POINT)
        .open(path)
        .map_err(open_error)
}

pub(crate) fn identity_at(path: &Path) -> io::Result<Identity> {
    identity_of(&open_attributes(path)?)
}

// ---------------------------------------------------------------- open

/// Options for opening a store file: reads share everything (0.2.3 and
/// others may append, and anyone may delete the file: our producers and
/// readers notice); appends also read, because `LockFileEx` needs read or
/// write access and an append-only handle has neither. The open does not
/// follow a link (`FILE_FLAG_OPEN_REPARSE_POINT`): the caller refuses one.
pub(crate) fn open_options(access: super::open::Access) -> OpenOptions {
    let mut opts = reopen_options(access);
    opts.custom_flags(fs::FILE_FLAG_OPEN_REPARSE_POINT);
    opts
}

/// Map an open's error (a delete-pending file reads as not found).
pub(crate) fn map_open_error(e: io::Error) -> io::Error {
    open_error(e)
}

/// The path is looked at before the open as well as the handle after it:
/// Wine follows a link even with `FILE_FLAG_OPEN_REPARSE_POINT` (its links are
/// Unix symbolic links), and the look costs one query per open, not per write.
pub(crate) const CHECK_LINK_BY_PATH: bool = true;

/// Whether an opened handle is a link (symbolic link or junction: a name
/// surrogate), which `open_options` opened as itself rather than following.
pub(crate) fn is_link(meta: &std::fs::Metadata) -> bool {
    meta.file_type().is_symlink()
}

/// Whether the handle is a reparse point that is not a link (a cloud-files
/// placeholder, a deduplicated file): such a file is opened again without
/// `FILE_FLAG_OPEN_REPARSE_POINT` so that its data is read, not its reparse data.
pub(crate) fn needs_reopen(meta: &std::fs::Metadata) -> bool {
    use std::os::windows::fs::MetadataExt;
    meta.file_attributes() & fs::FILE_ATTRIBUTE_REPARSE_POINT != 0 && !meta.file_type().is_symlink()
}

/// Options for opening again a reparse point that is not a link.
pub(crate) fn reopen_options(access: super::open::Access) -> OpenOptions {
    let mut opts = OpenOptions::new();
    opts.read(true).share_mode(SHARE_ALL);
    match access {
        super::open::Access::Read => {}
        super::open::Access::Append => {
            opts.append(true).create(true);
        }
        super::open::Access::Overwrite => {
            opts.write(true);
        }
    }
    opts
}

/// Nothing to undo after an open on Windows (no non-blocking flag was set).
pub(crate) fn after_open(_file: &File) {}

pub(crate) fn read_at(file: &File, buf: &mut [u8], pos: u64) -> io::Result<usize> {
    std::os::windows::fs::FileExt::seek_read(file, buf, pos)
}

pub(crate) fn write_at(file: &File, buf: &[u8], pos: u64) -> io::Result<usize> {
    std::os::windows::fs::FileExt::seek_write(file, buf, pos)
}

/// Open for writing (Windows has no FIFOs in folders; a named pipe or a
/// device opens at once or fails).
pub(crate) fn open_write_nonblocking(path: &Path) -> io::Result<Option<File>> {
    OpenOptions::new().write(true).open(path).map(Some)
}

/// Open for reading (no FIFOs in folders on Windows).
pub(crate) fn open_input(path: &Path) -> io::Result<File> {
    OpenOptions::new().read(true).share_mode(SHARE_ALL).open(path)
}

/// Windows cannot wait on any kind of handle alike (a pipe, a console, a
/// file): the read itself waits, and a cancel is seen when it returns.
pub(crate) fn wait_readable(_file: &File, _timeout: std::time::Duration) -> io::Result<bool> {
    Ok(true)
}

pub(crate) fn wait_readable_stdin(_stdin: &std::io::Stdin, _timeout: std::time::Duration) -> io::Result<bool> {
    Ok(true)
}

/// Links and size of an open file, from `FILE_STANDARD_INFO`: a file with no
/// link left, or whose delete is pending (deleted by a classic delete while
/// handles keep it open), is gone from the store.
pub(crate) fn file_state(file: &File) -> io::Result<(bool, u64)> {
    // SAFETY: FILE_STANDARD_INFO is FileStandardInfo's structure.
    let info = unsafe { info_by_handle::<fs::FILE_STANDARD_INFO>(file, fs::FileStandardInfo) }?;
    let linked = info.NumberOfLinks > 0 && !info.DeletePending;
    Ok((linked, u64::try_from(info.EndOfFile).unwrap_or(0)))
}

/// No hole skipping on Windows (sparse files are rare in stores): the data is
/// taken to start at `pos`, so holes are read and counted as zeros (the same
/// counts, only slower).
pub(crate) fn next_data(_file: &File, pos: u64) -> Option<u64> {
    Some(pos)
}

/// What a folder entry is, when it is not a regular file (Windows has no
/// FIFOs, sockets or devices in a folder).
pub(crate) fn special_kind(_t: &std::fs::FileType) -> Option<&'static str> {
    None
}

/// Windows opens `CON`, `NUL`, `COM1`, ... (with any extension) as devices,
/// whatever folder they are named in: a store file with such a name is never opened.
pub(crate) const DEVICE_NAMES_ARE_DEVICES: bool = true;

// ---------------------------------------------------------------- locks

fn lock_byte(file: &File, byte: u64, mode: Mode) -> io::Result<()> {
    let flags = match mode {
        Mode::Shared => 0,
        Mode::Exclusive => fs::LOCKFILE_EXCLUSIVE_LOCK,
    };
    // SAFETY: plain old data; the offset is set below.
    let mut ov: OVERLAPPED = unsafe { std::mem::zeroed() };
    ov.Anonymous.Anonymous.Offset = byte as u32;
    ov.Anonymous.Anonymous.OffsetHigh = (byte >> 32) as u32;
    // SAFETY: a live synchronous handle (std opens without OVERLAPPED), so the
    // call returns once the lock is held; `ov` outlives it.
    if unsafe { fs::LockFileEx(handle(file), flags, 0, 1, 0, &raw mut ov) } == 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// [`lock_byte`] without waiting: `false` when another handle holds it.
fn try_lock_byte(file: &File, byte: u64, mode: Mode) -> io::Result<bool> {
    let flags = match mode {
        Mode::Shared => 0,
        Mode::Exclusive => fs::LOCKFILE_EXCLUSIVE_LOCK,
    } | fs::LOCKFILE_FAIL_IMMEDIATELY;
    // SAFETY: plain old data; the offset is set below.
    let mut ov: OVERLAPPED = unsafe { std::mem::zeroed() };
    ov.Anonymous.Anonymous.Offset = byte as u32;
    ov.Anonymous.Anonymous.OffsetHigh = (byte >> 32) as u32;
    // SAFETY: as in `lock_byte`; with LOCKFILE_FAIL_IMMEDIATELY the call never waits.
    if unsafe { fs::LockFileEx(handle(file), flags, 0, 1, 0, &raw mut ov) } == 0 {
        let e = io::Error::last_os_error();
        if e.raw_os_error() == Some(ERROR_LOCK_VIOLATION as i32) {
            return Ok(false);
        }
        return Err(e);
    }
    Ok(true)
}

fn unlock_byte(file: &File, byte: u64) {
    // SAFETY: as in `lock_byte`.
    let mut ov: OVERLAPPED = unsafe { std::mem::zeroed() };
    ov.Anonymous.Anonymous.Offset = byte as u32;
    ov.Anonymous.Anonymous.OffsetHigh = (byte >> 32) as u32;
    // SAFETY: a live handle; unlocking a range not locked only fails.
    unsafe { fs::UnlockFileEx(handle(file), 0, 1, 0, &raw mut ov) };
}

/// Lock [`LOCK_BYTE`] of `file`, blocking until it is ours.
pub(crate) fn lock(file: &File, mode: Mode) -> io::Result<()> {
    lock_byte(file, LOCK_BYTE, mode)
}

/// Lock [`LOCK_BYTE`] of `file` if no one else holds it: `false` when another does.
pub(crate) fn try_lock(file: &File, mode: Mode) -> io::Result<bool> {
    try_lock_byte(file, LOCK_BYTE, mode)
}

pub(crate) fn unlock(file: &File) {
    unlock_byte(file, LOCK_BYTE);
}

/// The lock of a topic's folder: Windows locks no folder (LockFileEx on a
/// folder handle fails), so it is a byte of `stand_in`, the topic's config,
/// which lives as long as the folder. A config replaced (a settings change)
/// while a producer holds this lock lets a second producer lock the new file;
/// the lock guards the making of a partition's first file of a day, so the
/// two would have to do that in the same instant (docs/PLATFORMS.md).
pub(crate) fn lock_folder(_dir: &Path, stand_in: &Path) -> io::Result<File> {
    let file = OpenOptions::new().read(true).share_mode(SHARE_ALL).custom_flags(fs::FILE_FLAG_OPEN_REPARSE_POINT).open(stand_in)?;
    lock_byte(&file, FOLDER_LOCK_BYTE, Mode::Exclusive)?;
    Ok(file)
}

/// Whether a lock or open failed because another process holds the file (a
/// sharing or lock violation): worth retrying.
pub(crate) fn is_in_use(e: &io::Error) -> bool {
    matches!(e.raw_os_error(), Some(c) if c == ERROR_SHARING_VIOLATION as i32 || c == ERROR_LOCK_VIOLATION as i32)
}

/// Whether a rename over a file failed in a way a holder could cause
/// ("access denied": Windows' answer to a rename over a file open without
/// sharing delete).
pub(crate) fn may_be_in_use(e: &io::Error) -> bool {
    e.raw_os_error() == Some(windows_sys::Win32::Foundation::ERROR_ACCESS_DENIED as i32)
}

// ---------------------------------------------------------------- deletes

/// A file or folder held open with `DELETE` access: nobody who does not share
/// delete (0.2.3) can open it now, and deleting it through this handle cannot
/// be refused.
pub(crate) struct Claimed {
    file: File,
}

/// Claim `path` for deletion (never following a link: a link is claimed as
/// itself). `Ok(None)` when it is gone already or delete-pending.
///
/// # Errors
/// The open's error: [`is_in_use`] tells a file another process holds
/// without sharing delete.
pub(crate) fn claim(path: &Path) -> io::Result<Option<Claimed>> {
    let opened = OpenOptions::new()
        .access_mode(DELETE | fs::FILE_READ_ATTRIBUTES)
        .share_mode(SHARE_ALL)
        .custom_flags(fs::FILE_FLAG_BACKUP_SEMANTICS | fs::FILE_FLAG_OPEN_REPARSE_POINT)
        .open(path)
        .map_err(open_error);
    match opened {
        Ok(file) => Ok(Some(Claimed { file })),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e),
    }
}

impl Claimed {
    /// Delete the claimed file or (empty) folder: a POSIX delete where the
    /// file system has one (NTFS on Windows 10 1709 and later: the name goes
    /// at once, even while others hold the file open), else a classic one
    /// (the name goes when the last handle closes: FAT, SMB, older Windows, Wine).
    pub(crate) fn delete(self) -> io::Result<()> {
        let posix = fs::FILE_DISPOSITION_INFO_EX {
            Flags: fs::FILE_DISPOSITION_FLAG_DELETE
                | fs::FILE_DISPOSITION_FLAG_POSIX_SEMANTICS
                | fs::FILE_DISPOSITION_FLAG_IGNORE_READONLY_ATTRIBUTE,
        };
        // SAFETY: a live handle with DELETE access and a buffer of the size given.
        let ok = unsafe {
            fs::SetFileInformationByHandle(
                handle(&self.file),
                fs::FileDispositionInfoEx,
                (&raw const posix).cast(),
                std::mem::size_of::<fs::FILE_DISPOSITION_INFO_EX>() as u32,
            )
        };
        if ok != 0 {
            return Ok(());
        }
        let classic = fs::FILE_DISPOSITION_INFO { DeleteFile: true };
        // SAFETY: as above.
        let ok = unsafe {
            fs::SetFileInformationByHandle(
                handle(&self.file),
                fs::FileDispositionInfo,
                (&raw const classic).cast(),
                std::mem::size_of::<fs::FILE_DISPOSITION_INFO>() as u32,
            )
        };
        if ok == 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(())
    }
}

/// Whether a folder could not be removed for entries still in it.
pub(crate) fn is_not_empty(e: &io::Error) -> bool {
    e.raw_os_error() == Some(windows_sys::Win32::Foundation::ERROR_DIR_NOT_EMPTY as i32)
}

// ---------------------------------------------------------------- file systems

/// The kind of file system `path` is on: a share by its path's form (UNC),
/// else by its drive's type (`GetDriveTypeW`: a network drive mapped to a
/// letter is `DRIVE_REMOTE`). The path is made canonical first, so a store
/// reached through a junction or symbolic link to a share is known by where
/// it is.
pub(crate) fn filesystem_kind(path: &Path) -> FsKind {
    let real = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    let text = real.to_string_lossy();
    let by_form = super::kind::kind_of_windows_path(&text);
    if by_form.is_network() {
        return by_form;
    }
    // `GetVolumePathNameW` wants the drive form (`N:\...`), not the verbatim one.
    let drive_form = match text.strip_prefix(r"\\?\") {
        Some(rest) if rest.as_bytes().get(1) == Some(&b':') => PathBuf::from(rest),
        _ => real.clone(),
    };
    match drive_type(&drive_form) {
        Some(DRIVE_REMOTE) => FsKind::Network("network drive"),
        Some(_) | None => by_form,
    }
}

/// `GetDriveTypeW`'s answer for a network drive (winbase.h).
const DRIVE_REMOTE: u32 = 4;

/// `GetDriveTypeW` of the volume holding `path`.
fn drive_type(path: &Path) -> Option<u32> {
    let path = wide(path);
    let mut root = vec![0u16; 32_768];
    // SAFETY: a NUL-terminated path and a buffer of the length given.
    if unsafe { fs::GetVolumePathNameW(path.as_ptr(), root.as_mut_ptr(), root.len() as u32) } == 0 {
        return None;
    }
    // SAFETY: `root` is NUL-terminated by the call above.
    Some(unsafe { fs::GetDriveTypeW(root.as_ptr()) })
}

// ---------------------------------------------------------------- priority

/// Lower the calling thread to below-normal priority (never raise it). On
/// Windows a thread's priority is its own: threads it starts begin at normal
/// priority, so workers call this themselves (`priority::is_lowered`).
pub(crate) fn lower_this_thread() -> bool {
    use windows_sys::Win32::System::Threading as t;
    // SAFETY: the pseudo-handle of the calling thread needs no closing.
    unsafe {
        let me = t::GetCurrentThread();
        if t::GetThreadPriority(me) <= t::THREAD_PRIORITY_BELOW_NORMAL {
            return true;
        }
        t::SetThreadPriority(me, t::THREAD_PRIORITY_BELOW_NORMAL) != 0
    }
}

pub(crate) fn is_lowered() -> bool {
    use windows_sys::Win32::System::Threading as t;
    // SAFETY: as above.
    unsafe { t::GetThreadPriority(t::GetCurrentThread()) <= t::THREAD_PRIORITY_BELOW_NORMAL }
}

/// Whether this program runs under Wine (its ntdll exports `wine_get_version`).
pub(crate) fn under_wine() -> bool {
    use windows_sys::Win32::System::LibraryLoader::{GetModuleHandleW, GetProcAddress};
    let ntdll: Vec<u16> = "ntdll.dll".encode_utf16().chain(std::iter::once(0)).collect();
    // SAFETY: NUL-terminated names; ntdll is loaded in every process, and the
    // module handle needs no release.
    unsafe {
        let module = GetModuleHandleW(ntdll.as_ptr());
        !module.is_null() && GetProcAddress(module, c"wine_get_version".as_ptr().cast()).is_some()
    }
}

/// Space is not reserved before a write on Windows: the write alone decides
/// (a full disk fails it, and the next write ends a half-written line).
pub(crate) fn reserve(_file: &File, _end: Option<u64>, _len: usize) -> io::Result<()> {
    Ok(())
}

/// Whether this process may make and delete files in the folder `dir`, as
/// Windows answers without writing (a probe file would wake watchers): a
/// handle to the folder with the rights to add files and folders and to
/// delete its children is granted by the folder's ACL for this user, and the
/// volume is not read-only. The folder's read-only attribute is not asked:
/// Windows does not apply it to a folder's contents (Explorer sets it on
/// folders it customises), so such a folder is writable. (docs/PLATFORMS.md)
pub(crate) fn dir_writable(dir: &Path) -> io::Result<()> {
    // winnt.h's flag (in windows-sys behind a feature this crate needs nothing else from).
    const FILE_READ_ONLY_VOLUME: u32 = 0x0008_0000;
    let folder = OpenOptions::new()
        .access_mode(fs::FILE_ADD_FILE | fs::FILE_ADD_SUBDIRECTORY | fs::FILE_DELETE_CHILD)
        .share_mode(SHARE_ALL)
        .custom_flags(fs::FILE_FLAG_BACKUP_SEMANTICS)
        .open(dir)?;
    let mut flags = 0u32;
    // SAFETY: a handle we own; no name buffers are asked for (null, size 0);
    // `flags` outlives the call.
    let ok = unsafe {
        fs::GetVolumeInformationByHandleW(
            folder.as_raw_handle() as HANDLE,
            std::ptr::null_mut(),
            0,
            std::ptr::null_mut(),
            std::ptr::null_mut(),
            &mut flags,
            std::ptr::null_mut(),
            0,
        )
    };
    if ok != 0 && flags & FILE_READ_ONLY_VOLUME != 0 {
        return Err(io::Error::new(io::ErrorKind::PermissionDenied, "the volume is read-only"));
    }
    Ok(())
}
