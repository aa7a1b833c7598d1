//! The store's wire types: what a window shows of the open store, and the
//! change events its file watcher pushes.

use serde::{Deserialize, Serialize};
use specta::Type;

use crate::groups::wire::GroupSummary;
use crate::topics::wire::TopicSummary;

#[derive(Debug, Clone, Serialize, Deserialize, Type, PartialEq)]
pub struct StoreInfo {
    pub root: String,
    pub topics: Vec<TopicSummary>,
    pub groups: Vec<GroupSummary>,
    /// File watching is on: changes appear without refreshing.
    pub watching: bool,
    /// Why this user cannot write to the store, when it cannot (its folder is read-only to
    /// it): the UI then offers no Produce, Import or Delete, and says this instead.
    pub read_only: Option<String>,
}

/// Pushed when files in the open store change (from the file watcher).
#[derive(Debug, Clone, Serialize, Deserialize, Type, PartialEq, tauri_specta::Event)]
pub struct StoreChanged {
    pub topics: Vec<String>,
    pub groups: Vec<String>,
    pub structure: bool,
}
