//! What the store's commands do, on plain engine types (no Tauri here): opening
//! a store (its line index kept between runs), the recent-stores list, where
//! a folder picker starts, and what a window shows of the open store.

use std::path::{Path, PathBuf};

use twainmq::{Store, StoreWatcher};

use super::wire::{PresenceState, StoreCheck, StoreInfo, StorePresence};
use crate::topics::wire::{ProblemDto, ShrinkDto};
use crate::wire::{ErrorCode, ErrorDto};

/// A window's open store and its file watcher (none when the folder cannot be watched).
pub struct OpenStore {
    pub store: Store,
    pub watcher: Option<StoreWatcher>,
}

/// The store at `path`, its line index kept in `cache` between runs when there is one.
/// A folder holding no store is refused (`empty_folder`, `not_a_store`).
pub fn open_existing(path: &str, cache: Option<&Path>) -> Result<Store, ErrorDto> {
    Ok(with_cache(Store::open_existing(path)?, cache))
}

/// A new store at `path` (the folder made if missing), or the one there.
pub fn open_or_create(path: &str, cache: Option<&Path>) -> Result<Store, ErrorDto> {
    Ok(with_cache(Store::open_or_create(path)?, cache))
}

fn with_cache(store: Store, cache: Option<&Path>) -> Store {
    match cache {
        Some(dir) => store.with_index_cache(dir),
        None => store,
    }
}

/// Keep what `store`'s line index knows for the next run. A failure costs the next run a
/// rescan, nothing more: logged, not shown.
pub fn save_index(store: &Store) {
    if let Err(e) = store.save_index() {
        tracing::warn!(error = %e, "could not keep the line index for the next run");
    }
}

/// The recent stores kept in `file`, newest first (none when there is no file or it is unreadable).
pub fn recent(file: Option<&Path>) -> Vec<String> {
    file.and_then(|f| std::fs::read(f).ok()).and_then(|b| serde_json::from_slice::<Vec<String>>(&b).ok()).unwrap_or_default()
}

/// Put `root` first in the recent stores kept in `file` (ten at most).
pub fn remember(file: &Path, root: &str) {
    let mut list = recent(Some(file));
    list.retain(|r| r != root);
    list.insert(0, root.to_string());
    list.truncate(10);
    if let Some(dir) = file.parent() {
        let _ = std::fs::create_dir_all(dir);
    }
    if let Ok(bytes) = serde_json::to_vec_pretty(&list) {
        let _ = std::fs::write(file, bytes);
    }
}

/// The folder a folder picker opens in: the one holding the window's store `current` (so that
/// store and those beside it show), else the one holding the most recent store; `None` when
/// neither is there (GTK then shows its "Recent" view, empty for folders).
pub fn picker_start(current: Option<PathBuf>, recent: &[String]) -> Option<PathBuf> {
    let recent = recent.first().map(PathBuf::from);
    current.into_iter().chain(recent).filter_map(|root| root.parent().map(Path::to_path_buf)).find(|dir| dir.is_dir())
}

/// The store as a window first shows it: every topic's and group's summary, the files
/// found cut short, and the names Windows cannot hold.
pub fn store_info(store: &Store) -> Result<StoreInfo, ErrorDto> {
    let topics = store.topic_summaries(true)?.into_iter().map(Into::into).collect();
    let groups = store.group_summaries()?.into_iter().map(Into::into).collect();
    let shrunk = store.shrunk_files().iter().filter_map(|s| ShrinkDto::of(store.root(), s)).collect();
    let name_problems = twainmq::check::check_names(store)?.iter().map(ProblemDto::from).collect();
    Ok(StoreInfo {
        root: store.root().display().to_string(),
        topics,
        groups,
        watching: false,
        shrunk,
        name_problems,
        read_only: store.write_denied(),
    })
}

/// Everything `twainmq check` finds in the store: every topic's and group's files and lines.
pub fn check_store(store: &Store) -> Result<StoreCheck, ErrorDto> {
    let problems = twainmq::check::check_store(store)?.iter().map(ProblemDto::from).collect();
    Ok(StoreCheck { problems, checked_at: now_secs() })
}

fn now_secs() -> f64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0.0, |d| d.as_secs_f64())
}

// ---- is the store still there ---------------------------------------------------

/// Which folder is at a path: tells the store's folder from another one made at its path.
/// Its creation time is part of it where the file system keeps one: a folder deleted and
/// made again often gets the same inode number back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FolderId(u64, u64, Option<std::time::SystemTime>);

impl FolderId {
    #[cfg(unix)]
    fn of(meta: &std::fs::Metadata) -> FolderId {
        use std::os::unix::fs::MetadataExt;
        FolderId(meta.dev(), meta.ino(), meta.created().ok())
    }

    /// Windows keeps no inode std can read: the creation time tells a folder made again.
    #[cfg(windows)]
    fn of(meta: &std::fs::Metadata) -> FolderId {
        use std::os::windows::fs::MetadataExt;
        FolderId(meta.creation_time(), 0, None)
    }
}

/// What a look at the store's path found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Look {
    /// A folder, this one.
    Folder(FolderId),
    /// Nothing there (or a file, not a folder).
    Missing,
    /// The path cannot be looked at: why.
    Unreachable(String),
}

/// Look at `root` (one `stat`; the caller bounds its time on a share that hangs).
pub fn look(root: &Path) -> Look {
    match std::fs::metadata(root) {
        Ok(m) if m.is_dir() => Look::Folder(FolderId::of(&m)),
        Ok(_) => Look::Missing,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Look::Missing,
        Err(e) => Look::Unreachable(e.to_string()),
    }
}

/// What the window is told of a change, and whether the store is to be opened again.
#[derive(Debug, Clone, PartialEq)]
pub enum PresenceStep {
    /// As before.
    Same,
    /// Gone or unreachable now (or still, for another reason): tell the window.
    Changed(StorePresence),
    /// Back: its folder (or a store made again at its path). Open it again.
    Back,
}

/// Follows whether a window's store is at its path, a look at a time.
#[derive(Debug)]
pub struct PresenceWatch {
    root: PathBuf,
    /// The folder opened.
    opened: Option<FolderId>,
    shown: StorePresence,
}

impl PresenceWatch {
    /// The store at `root`, present now.
    pub fn new(root: &Path) -> PresenceWatch {
        let opened = match look(root) {
            Look::Folder(id) => Some(id),
            _ => None,
        };
        PresenceWatch { root: root.to_path_buf(), opened, shown: present(root) }
    }

    /// What the window shows now.
    pub fn current(&self) -> StorePresence {
        self.shown.clone()
    }

    /// Take one look's result.
    pub fn step(&mut self, look: &Look) -> PresenceStep {
        let root = self.root.display().to_string();
        let (state, message) = match look {
            Look::Folder(id) if Some(*id) == self.opened => (PresenceState::Present, String::new()),
            Look::Folder(_) if Store::open_existing(&self.root).is_ok() => {
                // Another folder, holding a store: made again there, or put back from a copy.
                return self.back();
            }
            Look::Folder(_) => (
                PresenceState::Gone,
                format!("The store's folder {root} is gone: a folder is at its path again, but it holds no store. Waiting for the store to come back, or close it."),
            ),
            Look::Missing => (
                PresenceState::Gone,
                format!("The store's folder {root} is gone: deleted, renamed or moved, or on a drive or share that is no longer there. Nothing of it is shown. Waiting for it to come back, or close it."),
            ),
            Look::Unreachable(why) => (
                PresenceState::Unreachable,
                format!("The store's folder {root} cannot be reached ({why}): a network share that dropped, or a permission taken away. Nothing of it is shown. It opens again by itself when it comes back, or close it."),
            ),
        };
        if state == PresenceState::Present {
            return if self.shown.state == PresenceState::Present { PresenceStep::Same } else { self.back() };
        }
        if state == self.shown.state && message == self.shown.message {
            return PresenceStep::Same;
        }
        self.shown = StorePresence { root, state, message, since: now_secs() };
        PresenceStep::Changed(self.shown.clone())
    }

    fn back(&mut self) -> PresenceStep {
        self.shown = present(&self.root);
        PresenceStep::Back
    }
}

fn present(root: &Path) -> StorePresence {
    StorePresence { root: root.display().to_string(), state: PresenceState::Present, message: String::new(), since: now_secs() }
}

/// The error of a command asking for a store that is not there now.
pub fn gone_error(p: &StorePresence) -> ErrorDto {
    ErrorDto::new(ErrorCode::StoreGone, p.message.clone())
}
