//! One session per window: each window has its own store, watcher, searches
//! and demo members, so two stores can be compared side by side.
//!
//! Commands take a [`Session`] argument in place of `State<AppState>`: it is
//! the calling window's [`AppState`], looked up by the window's label, made on
//! first use. The state is made of each domain's own part (the search
//! sessions, the demo members, the retention notices): this layer sits above
//! the domains' services and below their commands.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Mutex, MutexGuard};

use tauri::ipc::{CommandArg, CommandItem, InvokeError};
use tauri::{AppHandle, Manager, Runtime};
use twainmq::{Store, StoreWatcher};

use crate::cluster::service::ClusterSource;
use crate::groups::members::Members;
use crate::search::service::Searches;
use crate::shell::wire::LaunchError;
use crate::source::Source;
use crate::store::service::{self as store_service, OpenStore};
use crate::store::wire::StorePresence;
use crate::transfer::wire::RetentionPlanDto;
use crate::wire::{ErrorCode, ErrorDto};

/// A window's state: its open store and what runs on it.
#[derive(Default)]
pub struct AppState {
    pub open: Mutex<Option<OpenStore>>,
    /// The window's search sessions (a newer search replaces the older).
    pub searches: Searches,
    /// Where the recent-stores list is kept (None in tests).
    pub recent_file: Option<PathBuf>,
    /// Where the demo store is seeded.
    pub demo_dir: Option<PathBuf>,
    /// Where line indexes of opened stores are kept between runs (None: in memory only).
    pub index_cache_dir: Option<PathBuf>,
    /// Where the app keeps its settings for each store (when it applies retention).
    pub settings_file: Option<PathBuf>,
    /// Where the app logs what its retention deleted (every store's, one line a topic run).
    pub retention_log_file: Option<PathBuf>,
    /// Group members running inside the app for the balancing demo.
    pub members: Arc<Members>,
    /// Bumped at each store this window opens: its retention applier of an earlier opening stops.
    pub retention_opening: AtomicU64,
    /// Bumped at each store this window opens or closes: the look-out for its folder of an
    /// earlier opening stops.
    pub store_opening: AtomicU64,
    /// The open store's folder is not there now (None: it is): what the window is told.
    pub presence: Mutex<Option<StorePresence>>,
    /// What the app's retention removed that the window has not taken yet.
    pub retention_notices: Mutex<Vec<RetentionPlanDto>>,
    /// What retention would delete, asked about and not answered yet (a store set to "ask").
    pub retention_due: Mutex<Vec<RetentionPlanDto>>,
    /// Why the store this window was started with did not open (taken once by its page).
    pub launch_error: Mutex<Option<LaunchError>>,
    /// The Kafka cluster this window shows, instead of a store.
    pub cluster: Mutex<Option<Arc<ClusterSource>>>,
    /// Where the saved Kafka connections are kept (None in tests).
    pub connections_file: Option<PathBuf>,
}

/// A poisoned lock (a panic while it was held) leaves the data usable for our purposes.
pub fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl AppState {
    /// The open store, refused (`store_gone`) while its folder is not there.
    pub fn present_store(&self) -> Result<Store, ErrorDto> {
        let store = self.store()?;
        match lock(&self.presence).as_ref() {
            Some(p) => Err(store_service::gone_error(p)),
            None => Ok(store),
        }
    }

    pub fn store(&self) -> Result<Store, ErrorDto> {
        if lock(&self.cluster).is_some() {
            return Err(ErrorDto::new(
                ErrorCode::NotOnCluster,
                "this window shows a Kafka cluster, not a store folder: this works on a store only",
            ));
        }
        lock(&self.open)
            .as_ref()
            .map(|o| o.store.clone())
            .ok_or_else(|| ErrorDto::new(ErrorCode::NoStore, "no store is open: open a folder first"))
    }

    /// What the topics, messages and groups commands read and write: the open store today
    /// (see [`crate::source`]).
    pub fn source(&self) -> Result<Arc<dyn Source>, ErrorDto> {
        if let Some(c) = lock(&self.cluster).as_ref() {
            return Ok(c.clone());
        }
        Ok(Arc::new(self.store()?))
    }

    /// The Kafka cluster this window shows.
    pub fn cluster(&self) -> Result<Arc<ClusterSource>, ErrorDto> {
        lock(&self.cluster).clone().ok_or_else(|| ErrorDto::new(ErrorCode::NoStore, "this window shows no Kafka cluster"))
    }

    /// Show `cluster` in this window (a window made for it: it has no store).
    pub fn set_cluster(&self, cluster: Arc<ClusterSource>) {
        *lock(&self.cluster) = Some(cluster);
    }

    /// The store at `path`, with its line index kept between runs when there is a place for it.
    /// A folder holding no store is refused (`empty_folder`, `not_a_store`): a folder opened by
    /// mistake must not look like a live, empty store; [`AppState::create_store`] makes one.
    pub fn open_store(&self, path: &str) -> Result<Store, ErrorDto> {
        store_service::open_existing(path, self.index_cache_dir.as_deref())
    }

    /// A new store at `path` (the folder made if missing), on the user's explicit request.
    /// Nothing is written into the folder: an empty folder is an empty store.
    pub fn create_store(&self, path: &str) -> Result<Store, ErrorDto> {
        store_service::open_or_create(path, self.index_cache_dir.as_deref())
    }

    pub fn set_store(&self, open: OpenStore) {
        self.searches.drop_all();
        // Members of the previous store's groups stop with it.
        self.members.stop_all();
        self.members.clear_stopped();
        if let Some(old) = lock(&self.open).replace(open) {
            store_service::save_index(&old.store);
        }
    }

    /// Keep what the open store's line index knows for the next run.
    pub fn save_index(&self) {
        let store = lock(&self.open).as_ref().map(|o| o.store.clone());
        if let Some(store) = store {
            store_service::save_index(&store);
        }
    }

    pub fn watching(&self) -> bool {
        lock(&self.open).as_ref().is_some_and(|o| o.watcher.as_ref().is_some_and(StoreWatcher::is_live))
    }

    pub fn close(&self) {
        self.store_opening.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        *lock(&self.presence) = None;
        lock(&self.cluster).take();
        self.searches.drop_all();
        self.members.stop_all();
        self.members.clear_stopped();
        if let Some(old) = lock(&self.open).take() {
            store_service::save_index(&old.store);
        }
    }

    pub fn set_launch_error(&self, path: &str, error: ErrorDto) {
        *lock(&self.launch_error) = Some(LaunchError { path: path.to_string(), error });
    }

    /// The launch error, once.
    pub fn take_launch_error(&self) -> Option<LaunchError> {
        lock(&self.launch_error).take()
    }

    pub fn recent(&self) -> Vec<String> {
        store_service::recent(self.recent_file.as_deref())
    }

    pub fn remember(&self, root: &str) {
        if let Some(file) = &self.recent_file {
            store_service::remember(file, root);
        }
    }
}

/// Where every session keeps what outlives it (the same for all windows).
#[derive(Clone, Default)]
pub struct Places {
    pub recent_file: Option<PathBuf>,
    pub demo_dir: Option<PathBuf>,
    pub index_cache_dir: Option<PathBuf>,
    pub settings_file: Option<PathBuf>,
    pub retention_log_file: Option<PathBuf>,
    pub connections_file: Option<PathBuf>,
}

/// What the app's frame does when a window's store opens, given the window's label and the
/// recent stores: the menu's Open Recent follows the list, and the app's retention starts for
/// that store. `lib.rs` sets it, so that the store's commands need not know the frame.
pub type StoreOpened = Box<dyn Fn(&AppHandle, &str, &[String]) + Send + Sync>;

/// The sessions of the open windows, by window label.
#[derive(Default)]
pub struct Sessions {
    places: Places,
    by_label: Mutex<HashMap<String, Arc<AppState>>>,
    store_opened: Option<StoreOpened>,
}

impl Sessions {
    pub fn new(places: Places, store_opened: StoreOpened) -> Self {
        Sessions { places, by_label: Mutex::new(HashMap::new()), store_opened: Some(store_opened) }
    }

    pub fn places(&self) -> &Places {
        &self.places
    }

    /// The session of window `label`, made empty (no store) on first use.
    pub fn get(&self, label: &str) -> Arc<AppState> {
        lock(&self.by_label)
            .entry(label.to_string())
            .or_insert_with(|| {
                Arc::new(AppState {
                    recent_file: self.places.recent_file.clone(),
                    demo_dir: self.places.demo_dir.clone(),
                    index_cache_dir: self.places.index_cache_dir.clone(),
                    settings_file: self.places.settings_file.clone(),
                    retention_log_file: self.places.retention_log_file.clone(),
                    connections_file: self.places.connections_file.clone(),
                    ..Default::default()
                })
            })
            .clone()
    }

    /// The session of window `label`, if it has one (never makes one).
    pub fn find(&self, label: &str) -> Option<Arc<AppState>> {
        lock(&self.by_label).get(label).cloned()
    }

    /// Window `label`'s store opened (see [`StoreOpened`]).
    pub fn store_opened(&self, app: &AppHandle, label: &str, recent: &[String]) {
        if let Some(f) = &self.store_opened {
            f(app, label, recent);
        }
    }

    /// The window `label` closed: its demo members stop, its index is kept, its store closes.
    pub fn end(&self, label: &str) {
        let session = lock(&self.by_label).remove(label);
        if let Some(s) = session {
            s.close();
        }
    }

    /// The app quits: every session ends.
    pub fn end_all(&self) {
        let all: Vec<_> = lock(&self.by_label).drain().map(|(_, s)| s).collect();
        for s in all {
            s.close();
        }
    }

    /// The labels of windows that have a store open, with its root.
    pub fn open_roots(&self) -> Vec<(String, PathBuf)> {
        lock(&self.by_label).iter().filter_map(|(l, s)| s.store().ok().map(|st| (l.clone(), st.root().to_path_buf()))).collect()
    }
}

/// The calling window's session, as a command argument.
#[derive(Clone)]
pub struct Session(pub Arc<AppState>);

impl std::ops::Deref for Session {
    type Target = AppState;
    fn deref(&self) -> &AppState {
        &self.0
    }
}

impl<'de, R: Runtime> CommandArg<'de, R> for Session {
    fn from_command(command: CommandItem<'de, R>) -> Result<Self, InvokeError> {
        let webview = command.message.webview();
        let sessions = webview.state::<Sessions>();
        Ok(Session(sessions.get(webview.label())))
    }
}

// Injected by Tauri, not sent by the UI: not in the generated bindings.
impl specta::function::FunctionArg for Session {
    fn to_datatype(_: &mut specta::Types) -> Option<specta::datatype::DataType> {
        None
    }
}

#[cfg(test)]
mod tests {
    /// `AppState` is not managed state (each window has its own, in
    /// `Sessions`): a command taking `State<AppState>` would fail at run time,
    /// on its first call. Commands take `Session`.
    #[test]
    fn no_command_takes_the_app_state_as_managed_state() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let mut stack = vec![dir];
        let mut offenders = Vec::new();
        while let Some(d) = stack.pop() {
            for e in std::fs::read_dir(&d).expect("src is readable").flatten() {
                let p = e.path();
                if p.is_dir() {
                    stack.push(p);
                } else if p.extension().is_some_and(|x| x == "rs") {
                    let text = std::fs::read_to_string(&p).expect("source is text");
                    let needle = ["State<'_, ", "AppState>"].concat();
                    let managed = ["state::<", "AppState>"].concat();
                    if text.contains(&needle) || text.contains(&managed) {
                        offenders.push(p.display().to_string());
                    }
                }
            }
        }
        assert!(offenders.is_empty(), "take `Session`, not the managed AppState, in {offenders:?}");
    }
}
