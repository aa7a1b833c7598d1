//! The platform layer: what the operating system tells about files and file
//! systems, and what it lets us do safely. Knows nothing of the TwainMQ format.
//!
//! `kind` (local or network file system), `identity` (which file is at a
//! path), `lock` (advisory `flock` between our processes), `open` (opening
//! regular files only, never through a link), `priority` (background threads).

pub(crate) mod identity;
pub(crate) mod kind;
pub(crate) mod lock;
pub(crate) mod open;
pub(crate) mod priority;
pub(crate) mod reserve;
