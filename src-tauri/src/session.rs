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

    /// The session of window `label`, if it has one (never makes one).
    pub fn find(&self, label: &str) -> Option<Arc<AppState>> {
        lock(&self.by_label).get(label).cloned()
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
