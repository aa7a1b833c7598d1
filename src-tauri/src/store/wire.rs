//! The store's wire types: what a window shows of the open store, and the
//! change events its file watcher pushes.

use serde::{Deserialize, Serialize};
use specta::Type;

use crate::groups::wire::GroupSummary;
use crate::topics::wire::{ProblemDto, ShrinkDto, TopicSummary};

#[derive(Debug, Clone, Serialize, Deserialize, Type, PartialEq)]
pub struct StoreInfo {
    pub root: String,
    pub topics: Vec<TopicSummary>,
    pub groups: Vec<GroupSummary>,
    /// File watching is on: changes appear without refreshing.
    pub watching: bool,
    /// Partition files found cut short since the store opened (or since last counted).
    pub shrunk: Vec<ShrinkDto>,
    /// Names in the store that Windows cannot hold, and names equal but for case
    /// (`twainmq check`'s `windows_name`, `case_twin`): read from a listing, at each refresh.
    pub name_problems: Vec<ProblemDto>,
    /// Why this user cannot write to the store, when it cannot (its folder is read-only to
    /// it): the UI then offers no Produce, Import or Delete, and says this instead.
    pub read_only: Option<String>,
}

/// Whether the open store's folder is still there.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, Type, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum PresenceState {
    /// The folder opened is there.
    Present,
    /// No store at its path: deleted, renamed or moved, on a drive that was removed, or
    /// a folder made again there that holds no store.
    Gone,
    /// The path cannot be looked at (a network share that dropped, a permission taken away).
    Unreachable,
}

/// Pushed when the open store's folder goes or comes back: what the window shows of it.
/// While it is not present the window shows no topic, count or "live" of it, and offers to
/// close it or wait; when the folder comes back (or a store is made again at its path) the
/// app opens it again by itself and says so.
#[derive(Debug, Clone, Serialize, Deserialize, Type, PartialEq, tauri_specta::Event)]
pub struct StorePresence {
    pub root: String,
    pub state: PresenceState,
    /// What happened and what the app does, for people.
    pub message: String,
    /// UNIX seconds since when it is so.
    pub since: f64,
}

/// Everything `twainmq check` finds in the store, every line read.
#[derive(Debug, Clone, Serialize, Deserialize, Type, PartialEq)]
pub struct StoreCheck {
    pub problems: Vec<ProblemDto>,
    /// UNIX seconds when the check ended.
    pub checked_at: f64,
}

/// Pushed when files in the open store change (from the file watcher).
#[derive(Debug, Clone, Serialize, Deserialize, Type, PartialEq, tauri_specta::Event)]
pub struct StoreChanged {
    pub topics: Vec<String>,
    pub groups: Vec<String>,
    pub structure: bool,
}
