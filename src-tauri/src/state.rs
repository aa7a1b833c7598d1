//! The app's state: the open store, its watcher, running searches, recent stores.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::Ordering;
use std::sync::atomic::{AtomicBool, AtomicU32};
use std::sync::{Arc, Mutex, MutexGuard};

use twainmq::Store;
use twainmq::StoreWatcher;

use crate::transport::{ErrorCode, ErrorDto, LaunchError, SearchQuery};

/// A search and what it found: kept until a newer search replaces it or the
/// store closes, so its hits can be read by index ranges (and exported).
pub struct SearchSession {
    pub topic: String,
    pub query: SearchQuery,
    pub cancel: AtomicBool,
    /// The hits in timeline order, as they settle while the scan runs (a
    /// prefix of the final list, never reordered), all of them once it ends.
    pub hits: Mutex<Vec<twainmq::scan::HitRef>>,
}

pub struct OpenStore {
    pub store: Store,
    pub watcher: Option<StoreWatcher>,
}

#[derive(Default)]
pub struct AppState {
    pub open: Mutex<Option<OpenStore>>,
    pub searches: Mutex<HashMap<u32, Arc<SearchSession>>>,
    pub next_search: AtomicU32,
    /// Where the recent-stores list is kept (None in tests).
    pub recent_file: Option<PathBuf>,
    /// Where the demo store is seeded.
    pub demo_dir: Option<PathBuf>,
    /// Where line indexes of opened stores are kept between runs (None: in memory only).
    pub index_cache_dir: Option<PathBuf>,
    /// Group members running inside the app for the balancing demo.
    pub members: Arc<crate::members::Members>,
    /// Bumped at each store this window opens: its retention applier of an earlier opening stops.
    pub retention_opening: std::sync::atomic::AtomicU64,
    /// What the app's retention removed that the window has not taken yet.
    pub retention_notices: Mutex<Vec<crate::transport::RetentionPlanDto>>,
    /// Why the store this window was started with did not open (taken once by its page).
    pub launch_error: Mutex<Option<LaunchError>>,
}

/// A failure here costs the next run a rescan, nothing more: logged, not shown.
fn save_index(store: &Store) {
    if let Err(e) = store.save_index() {
        tracing::warn!(error = %e, "could not keep the line index for the next run");
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // A panic while holding the lock leaves the data usable for our purposes.
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl AppState {
    pub fn store(&self) -> Result<Store, ErrorDto> {
        lock(&self.open)
            .as_ref()
            .map(|o| o.store.clone())
            .ok_or_else(|| ErrorDto::new(ErrorCode::NoStore, "no store is open: open a folder first"))
    }

    /// The store at `path`, with its line index kept between runs when there is a place for it.
    /// A folder holding no store is refused (`empty_folder`, `not_a_store`): a folder opened by
    /// mistake must not look like a live, empty store; [`AppState::create_store`] makes one.
    pub fn open_store(&self, path: &str) -> Result<Store, ErrorDto> {
        self.with_cache(Store::open_existing(path)?)
    }

    /// A new store at `path` (the folder made if missing), on the user's explicit request.
    /// Nothing is written into the folder: an empty folder is an empty store.
    pub fn create_store(&self, path: &str) -> Result<Store, ErrorDto> {
        self.with_cache(Store::open_or_create(path)?)
    }

    fn with_cache(&self, store: Store) -> Result<Store, ErrorDto> {
        Ok(match &self.index_cache_dir {
            Some(dir) => store.with_index_cache(dir),
            None => store,
        })
    }

    pub fn set_store(&self, open: OpenStore) {
        self.drop_searches();
        // Members of the previous store's groups stop with it.
        self.members.stop_all();
        self.members.clear_stopped();
        if let Some(old) = lock(&self.open).replace(open) {
            save_index(&old.store);
        }
    }

    /// Keep what the open store's line index knows for the next run.
    pub fn save_index(&self) {
        let store = lock(&self.open).as_ref().map(|o| o.store.clone());
        if let Some(store) = store {
            save_index(&store);
        }
    }

    pub fn watching(&self) -> bool {
        lock(&self.open).as_ref().is_some_and(|o| o.watcher.as_ref().is_some_and(StoreWatcher::is_live))
    }

    pub fn close(&self) {
        self.drop_searches();
        self.members.stop_all();
        self.members.clear_stopped();
        if let Some(old) = lock(&self.open).take() {
            save_index(&old.store);
        }
    }

    pub fn set_launch_error(&self, path: &str, error: ErrorDto) {
        *lock(&self.launch_error) = Some(LaunchError { path: path.to_string(), error });
    }

    /// The launch error, once.
    pub fn take_launch_error(&self) -> Option<LaunchError> {
        lock(&self.launch_error).take()
    }

    /// The hits of a session settled so far.
    pub fn settled_hits(session: &SearchSession) -> MutexGuard<'_, Vec<twainmq::scan::HitRef>> {
        lock(&session.hits)
    }

    pub fn searches(&self) -> MutexGuard<'_, HashMap<u32, Arc<SearchSession>>> {
        lock(&self.searches)
    }

    /// Start a session, cancelling and dropping every other one (a new search replaces the old).
    pub fn new_search(&self, topic: &str, query: &SearchQuery) -> (u32, Arc<SearchSession>) {
        let id = self.next_search.fetch_add(1, Ordering::Relaxed) + 1;
        let session = Arc::new(SearchSession {
            topic: topic.to_string(),
            query: query.clone(),
            cancel: AtomicBool::new(false),
            hits: Mutex::new(Vec::new()),
        });
        let mut all = self.searches();
        for (_, old) in all.drain() {
            old.cancel.store(true, Ordering::Relaxed);
        }
        all.insert(id, session.clone());
        (id, session)
    }

    /// The session `id`, while it is kept.
    pub fn search_session(&self, id: u32) -> Result<Arc<SearchSession>, ErrorDto> {
        self.searches().get(&id).cloned().ok_or_else(|| {
            ErrorDto::new(ErrorCode::NoSearch, "that search is gone: a newer one replaced it, or the store was closed; search again")
        })
    }

    /// Cancel and forget every search (the store closes or changes).
    pub fn drop_searches(&self) {
        for (_, s) in self.searches().drain() {
            s.cancel.store(true, Ordering::Relaxed);
        }
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
