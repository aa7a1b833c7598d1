//! One session per window: each window has its own store, watcher, searches
//! and demo members, so two stores can be compared side by side.
//!
//! Commands take a [`Session`] argument in place of `State<AppState>`: it is
//! the calling window's [`AppState`], looked up by the window's label, made on
//! first use.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, MutexGuard};

use tauri::ipc::{CommandArg, CommandItem, InvokeError};
use tauri::{Manager, Runtime};

use crate::state::AppState;

/// Where every session keeps what outlives it (the same for all windows).
#[derive(Clone, Default)]
pub struct Places {
    pub recent_file: Option<PathBuf>,
    pub demo_dir: Option<PathBuf>,
    pub index_cache_dir: Option<PathBuf>,
}

/// The sessions of the open windows, by window label.
#[derive(Default)]
pub struct Sessions {
    places: Places,
    by_label: Mutex<HashMap<String, Arc<AppState>>>,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // A panic while holding the lock leaves the map usable.
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl Sessions {
    pub fn new(places: Places) -> Self {
        Sessions { places, by_label: Mutex::new(HashMap::new()) }
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
                    ..Default::default()
                })
            })
            .clone()
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
