//! The platform layer: what the operating system tells about files and file
//! systems, and what it lets us do safely. Knows nothing of the TwainMQ format.
//!
//! One interface, the modules below, over one implementation per platform, as
//! std's `sys` is built: `unix.rs` (Linux and macOS, through `rustix`) and
//! `windows.rs` (through `windows-sys`). Every function has an arm on each;
//! where a platform cannot keep a promise, the function's documentation says
//! so, and docs/PLATFORMS.md lists it.
//!
//! - `identity`: which file is at a path (survives appends, changes when
//!   another file takes the path);
//! - `open`: opening regular files only, never through a link; whether an
//!   open file is still in its folder;
//! - `lock`: locks between our processes (the day rollover, network appends);
//! - `remove`: deletes and replacements that another process may refuse
//!   (Windows), all-or-nothing, retried with back-off;
//! - `kind`: local or network file system;
//! - `priority`: background threads; `reserve`: space before a write;
//! - `scratch`: private folders deleted after use, or by the next user when its process died.

#[cfg(unix)]
#[path = "unix.rs"]
mod imp;
#[cfg(windows)]
#[path = "windows.rs"]
mod imp;
#[cfg(not(any(unix, windows)))]
compile_error!(
    "the TwainMQ engine runs on Unix (Linux, macOS) and Windows: its locks, file identity and delete checks have no implementation for this platform"
);

pub(crate) mod identity;
pub(crate) mod kind;
pub(crate) mod lock;
pub(crate) mod open;
pub(crate) mod priority;
pub(crate) mod remove;
pub(crate) mod reserve;
pub(crate) mod scratch;

/// Whether this is a Windows program running under Wine, which differs from
/// Windows where tests must say so (it reports no pending deletes, its file
/// ids are inode numbers, its creation times move with every append).
pub(crate) fn under_wine() -> bool {
    imp::under_wine()
}

/// Whether this process may make and delete files in the folder `dir`,
/// asked without writing anything (Unix: `access(2)`; Windows: the folder's
/// ACL and the volume, never the read-only attribute: see `windows.rs`).
pub(crate) fn dir_writable(dir: &std::path::Path) -> std::io::Result<()> {
    imp::dir_writable(dir)
}

/// Whether this platform opens a file named `CON`, `NUL`, `COM1`, ... (with
/// any extension) as a device wherever it is (Windows): such store entries
/// are reported, never opened.
pub(crate) const DEVICE_NAMES_ARE_DEVICES: bool = imp::DEVICE_NAMES_ARE_DEVICES;
