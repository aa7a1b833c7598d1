//! What the store's commands do, on plain engine types (no Tauri here): opening
//! a store (its line index kept between runs), the recent-stores list, where
//! a folder picker starts, and what a window shows of the open store.

use std::path::{Path, PathBuf};

use twainmq::{Store, StoreWatcher};

use super::wire::StoreInfo;
use crate::wire::ErrorDto;

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

/// The store as a window first shows it: every topic's and group's summary.
pub fn store_info(store: &Store) -> Result<StoreInfo, ErrorDto> {
    let topics = store.topic_summaries(true)?.into_iter().map(Into::into).collect();
    let groups = store.group_summaries()?.into_iter().map(Into::into).collect();
    Ok(StoreInfo { root: store.root().display().to_string(), topics, groups, watching: false, read_only: store.write_denied() })
}
