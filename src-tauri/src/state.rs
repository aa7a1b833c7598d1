//! The app's state: the open store, its watcher, running searches, recent stores.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU32};
use std::sync::{Arc, Mutex, MutexGuard};

use twainmq::watch::StoreWatcher;
use twainmq::Store;

use crate::transport::ErrorDto;

pub struct OpenStore {
    pub store: Store,
    pub _watcher: Option<StoreWatcher>,
}

#[derive(Default)]
pub struct AppState {
    pub open: Mutex<Option<OpenStore>>,
    pub searches: Mutex<HashMap<u32, Arc<AtomicBool>>>,
    pub next_search: AtomicU32,
    /// Where the recent-stores list is kept (None in tests).
    pub recent_file: Option<PathBuf>,
    /// Where the demo store is seeded.
    pub demo_dir: Option<PathBuf>,
    /// Group members running inside the app for the balancing demo.
    pub members: Arc<crate::members::Members>,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // A panic while holding the lock leaves the data usable for our purposes.
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl AppState {
    pub fn store(&self) -> Result<Store, ErrorDto> {
        lock(&self.open).as_ref().map(|o| o.store.clone()).ok_or_else(|| ErrorDto::new("no_store", "no store is open: open a folder first"))
    }

    pub fn set_store(&self, open: OpenStore) {
        // Members of the previous store's groups stop with it.
        self.members.stop_all();
        self.members.clear_stopped();
        *lock(&self.open) = Some(open);
    }

    pub fn watching(&self) -> bool {
        lock(&self.open).as_ref().is_some_and(|o| o._watcher.is_some())
    }

    pub fn close(&self) {
        self.members.stop_all();
        self.members.clear_stopped();
        *lock(&self.open) = None;
    }

    pub fn searches(&self) -> MutexGuard<'_, HashMap<u32, Arc<AtomicBool>>> {
        lock(&self.searches)
    }

    pub fn recent(&self) -> Vec<String> {
        self.recent_file
            .as_ref()
            .and_then(|f| std::fs::read(f).ok())
            .and_then(|b| serde_json::from_slice::<Vec<String>>(&b).ok())
            .unwrap_or_default()
    }

    pub fn remember(&self, root: &str) {
        let Some(file) = &self.recent_file else { return };
        let mut list = self.recent();
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
}
