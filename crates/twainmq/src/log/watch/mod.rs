//! Watching folders for changes: one implementation behind one type,
//! [`FolderWatch`], used by the app's store watcher ([`StoreWatcher`]) and by
//! followers and group members that wait for new lines ([`Wake`]).
//!
//! On Linux it reads inotify directly, in batches (`inotify.rs`): an append is
//! an event, and at 200k appends a second a general-purpose watcher that wakes
//! on each one cost the watching process 70% of a core. Elsewhere it is the
//! `notify` crate (`portable.rs`). Either way the backend reports [`Change`]s
//! named relative to what was watched, a batch at a time, and the consumer of
//! them (a [`Sink`]) folds them as it likes.

#[cfg(target_os = "linux")]
mod inotify;
// Compiled on Linux too for its tests (notify's inotify backend), unused there otherwise.
#[cfg(any(not(target_os = "linux"), test))]
#[cfg_attr(target_os = "linux", allow(dead_code))]
mod poll;
#[cfg(any(not(target_os = "linux"), test))]
#[cfg_attr(target_os = "linux", allow(dead_code))]
mod portable;
mod store;
mod wake;

use std::ffi::OsStr;
use std::path::PathBuf;
use std::sync::Arc;

use crate::error::Result;

pub use store::{StoreChange, StoreWatcher};
pub(crate) use wake::{deadline_after, poll_until, Wake};

/// What is watched.
#[derive(Debug, Clone)]
pub(crate) enum Scope {
    /// A store: the root folder (configs, topic and group folders) and each
    /// folder in it, including folders made later. A store is two levels deep.
    Store(PathBuf),
    /// These folders, each on its own (not what is in their subfolders).
    /// Followers' waits off Linux (`wake.rs`); on Linux they wait on inotify
    /// themselves, and only tests watch a list of folders this way.
    #[cfg_attr(all(target_os = "linux", not(test)), allow(dead_code))]
    Folders(Vec<PathBuf>),
}

/// One change, named relative to the scope.
#[derive(Debug, Clone)]
pub(crate) enum Change<'a> {
    /// An entry of the store's root was made, changed or removed.
    Entry { name: &'a OsStr, created_or_removed: bool },
    /// Something inside a watched folder changed: for a store, the folder's
    /// name (a topic's or a group's); for a list of folders, its path as text.
    InFolder(Arc<str>),
    /// Events were lost (the kernel's queue overflowed): anything may have
    /// changed. Each watched folder is reported as `InFolder` before this.
    Lost,
    /// The store's root was deleted or moved away: nothing more will come.
    RootGone,
}

/// Receives the changes a watch reports, one batch at a time, on the watch's
/// own thread. A batch is what one read of the event queue returned.
pub(crate) trait Sink: Send + Sync + 'static {
    /// Fold in one batch of changes, in the order they happened.
    fn changes(&self, batch: &[Change<'_>]);
}

/// A live watch of a [`Scope`]; stops when dropped.
pub(crate) struct FolderWatch {
    #[cfg(target_os = "linux")]
    inner: inotify::Watch,
    #[cfg(not(target_os = "linux"))]
    inner: portable::Watch,
}

impl std::fmt::Debug for FolderWatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("FolderWatch")
    }
}

impl FolderWatch {
    /// Start watching `scope`, reporting to `sink`.
    ///
    /// # Errors
    /// [`crate::Error::Io`] when the platform's watcher cannot be set up, or
    /// (for a store) its root cannot be watched. A folder of a list that cannot
    /// be watched is left out (its waiters fall back to polling).
    pub(crate) fn start(scope: Scope, sink: Arc<dyn Sink>) -> Result<FolderWatch> {
        #[cfg(target_os = "linux")]
        let inner = inotify::Watch::start(scope, sink)?;
        #[cfg(not(target_os = "linux"))]
        let inner = portable::Watch::start(scope, sink)?;
        Ok(FolderWatch { inner })
    }

    /// Whether changes are still reported: false once the watch failed or the
    /// store's root went away.
    pub(crate) fn is_live(&self) -> bool {
        self.inner.is_live()
    }
}
