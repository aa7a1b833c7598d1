//! The store's commands: open a store (or make one, or the demo store) in the
//! calling window, close it, and what the window shows of it. Each a few
//! lines over `service.rs`; opening also watches the folder (changes go to
//! that window only) and names the store in the window's title.

use std::path::PathBuf;
use std::sync::atomic::Ordering;
use std::sync::mpsc;
use std::time::Duration;

use tauri::{AppHandle, Manager, WebviewWindow};
use tauri_specta::Event;
use twainmq::{Store, StoreWatcher};

use super::service::{self, Look, OpenStore, PresenceStep, PresenceWatch};
use super::wire::{PresenceState, StoreChanged, StoreCheck, StoreInfo, StorePresence};
use crate::engine;
use crate::ipc::blocking;
use crate::session::{lock, AppState, Session, Sessions};
use crate::wire::{ErrorCode, ErrorDto};

/// Open `path` as the store of window `label` (see [`show_store`]).
pub fn open_path(app: &AppHandle, state: &AppState, label: &str, path: &str) -> Result<StoreInfo, ErrorDto> {
    show_store(app, state, label, state.open_store(path)?)
}

/// Make `store` the store of window `label`, watch it (changes go to that
/// window only), and name it in the window's title.
pub fn show_store(app: &AppHandle, state: &AppState, label: &str, store: Store) -> Result<StoreInfo, ErrorDto> {
    let mut info = service::store_info(&store)?;
    let handle = app.clone();
    let target = label.to_string();
    let watcher = StoreWatcher::new(store.root(), Duration::from_millis(60), move |c| {
        let ev = StoreChanged { topics: c.topics.into_iter().collect(), groups: c.groups.into_iter().collect(), structure: c.structure };
        if let Err(e) = ev.emit_to(&handle, target.as_str()) {
            tracing::warn!(error = %e, "could not send a store change to the window");
        }
    })
    .map_err(|e| tracing::warn!(error = %e, "live updates are off: the folder cannot be watched"))
    .ok();
    info.watching = watcher.is_some();
    let root = store.root().to_path_buf();
    state.set_store(OpenStore { store, watcher });
    start_presence(app, label, root);
    // Counting the lines of every file was the slow part of opening: kept for next time.
    state.save_index();
    state.remember(&info.root);
    // The frame's part: the menu's Open Recent, and the app's retention for this store.
    app.state::<Sessions>().store_opened(app, label, &state.recent());
    if let Some(w) = app.get_webview_window(label) {
        let _ = w.set_title(&format!("{} — TwainMQ Desktop", info.root));
    }
    Ok(info)
}

/// The folder a folder picker opens in (see [`service::picker_start`]).
fn picker_start(state: &AppState) -> Option<std::path::PathBuf> {
    service::picker_start(state.store().ok().map(|s| s.root().to_path_buf()), &state.recent())
}

#[tauri::command]
#[specta::specta]
pub async fn open_store(app: AppHandle, window: WebviewWindow, state: Session, path: String) -> Result<StoreInfo, ErrorDto> {
    // Opening counts the lines of every file: not on the async runtime.
    blocking(move || open_path(&app, &state, window.label(), &path)).await
}

/// Make a new, empty store at `path` (the folder too when missing) and open it: the explicit
/// action behind "Create a store here". A folder that holds other files is refused (a store
/// is made only where nothing would be mixed with it); an existing store just opens.
#[tauri::command]
#[specta::specta]
pub async fn create_store(app: AppHandle, window: WebviewWindow, state: Session, path: String) -> Result<StoreInfo, ErrorDto> {
    blocking(move || {
        let label = window.label();
        match state.open_store(&path) {
            Ok(store) => show_store(&app, &state, label, store),
            Err(e) if e.code == ErrorCode::EmptyFolder || e.code == ErrorCode::StoreNotFound => {
                show_store(&app, &state, label, state.create_store(&path)?)
            }
            Err(e) => Err(e),
        }
    })
    .await
}

#[tauri::command]
#[specta::specta]
pub async fn pick_folder(app: AppHandle, state: Session) -> Result<Option<String>, ErrorDto> {
    use tauri_plugin_dialog::DialogExt;
    blocking(move || {
        let mut dialog = app.dialog().file().set_title("Open a TwainMQ store");
        if let Some(dir) = picker_start(&state) {
            dialog = dialog.set_directory(dir);
        }
        Ok(dialog.blocking_pick_folder().map(|p| p.to_string()))
    })
    .await
}

#[tauri::command]
#[specta::specta]
pub async fn recent_stores(state: Session) -> Result<Vec<String>, ErrorDto> {
    Ok(state.recent())
}

#[tauri::command]
#[specta::specta]
pub async fn open_demo_store(app: AppHandle, window: WebviewWindow, state: Session) -> Result<StoreInfo, ErrorDto> {
    let dir = state.demo_dir.clone().ok_or_else(|| ErrorDto::new(ErrorCode::NoDemo, "no place for a demo store"))?;
    blocking(move || {
        let store = Store::open_or_create(&dir)?;
        engine::seed_demo(&store)?;
        open_path(&app, &state, window.label(), &dir.display().to_string())
    })
    .await
}

#[tauri::command]
#[specta::specta]
pub async fn store_info(state: Session) -> Result<StoreInfo, ErrorDto> {
    // Not the counts of a folder that is gone: the window says it is gone instead.
    let store = state.present_store()?;
    let watching = state.watching();
    let mut info = blocking(move || service::store_info(&store)).await?;
    info.watching = watching;
    Ok(info)
}

/// Whether the open store's folder is there (see [`StorePresence`]).
#[tauri::command]
#[specta::specta]
pub async fn store_presence(state: Session) -> Result<StorePresence, ErrorDto> {
    let store = state.store()?;
    if let Some(p) = lock(&state.presence).clone() {
        return Ok(p);
    }
    // Not seen gone yet by the look-out (it looks each second): look now, so a window whose
    // refresh just failed is told the truth at once.
    let root = store.root().to_path_buf();
    blocking(move || {
        let mut w = PresenceWatch::new(&root);
        Ok(match w.step(&service::look(&root)) {
            PresenceStep::Changed(p) => p,
            _ => w.current(),
        })
    })
    .await
}

/// Everything `twainmq check` finds in the open store (every line read: seconds for a large store).
#[tauri::command]
#[specta::specta]
pub async fn check_store(state: Session) -> Result<StoreCheck, ErrorDto> {
    let store = state.present_store()?;
    blocking(move || service::check_store(&store)).await
}

/// How often the app looks whether a store's folder is still there, and how long one look
/// may take before the folder counts as unreachable (a network share that hangs).
const PRESENCE_EVERY: Duration = Duration::from_millis(1000);
const LOOK_TIMEOUT: Duration = Duration::from_secs(3);

/// Look every second, while this opening of window `label`'s store lasts, whether its
/// folder is still at `root`; tell the window when it goes and comes back, and open it
/// again by itself when it is back (or a store is made again there).
fn start_presence(app: &AppHandle, label: &str, root: PathBuf) {
    let Some(session) = app.state::<Sessions>().find(label) else { return };
    let opening = session.store_opening.fetch_add(1, Ordering::SeqCst) + 1;
    *lock(&session.presence) = None;
    let (handle, label) = (app.clone(), label.to_string());
    let spawned = std::thread::Builder::new().name("store-presence".into()).spawn(move || {
        let current = || handle.state::<Sessions>().find(&label).filter(|s| s.store_opening.load(Ordering::SeqCst) == opening);
        let mut watch = PresenceWatch::new(&root);
        let mut pending: Option<mpsc::Receiver<Look>> = None;
        loop {
            let mut slept = Duration::ZERO;
            while slept < PRESENCE_EVERY {
                std::thread::sleep(Duration::from_millis(250));
                slept += Duration::from_millis(250);
                if current().is_none() {
                    return;
                }
            }
            // One look at a time, and a bounded wait for it: a look that hangs (a share gone
            // hard) makes the folder unreachable, and is waited for again next time.
            let rx = pending.take().unwrap_or_else(|| {
                let (tx, rx) = mpsc::channel();
                let r = root.clone();
                let _ = std::thread::Builder::new().name("store-look".into()).spawn(move || {
                    let _ = tx.send(service::look(&r));
                });
                rx
            });
            let look = match rx.recv_timeout(LOOK_TIMEOUT) {
                Ok(l) => l,
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    pending = Some(rx);
                    Look::Unreachable(format!("no answer within {} s", LOOK_TIMEOUT.as_secs()))
                }
                Err(mpsc::RecvTimeoutError::Disconnected) => continue,
            };
            let Some(session) = current() else { return };
            let told = match watch.step(&look) {
                PresenceStep::Same => continue,
                PresenceStep::Changed(p) => p,
                PresenceStep::Back => match open_path(&handle, &session, &label, &root.display().to_string()) {
                    // The new opening looks out for it from now on.
                    Ok(_) => StorePresence {
                        root: root.display().to_string(),
                        state: PresenceState::Present,
                        message: format!("The store's folder {} is back: opened again", root.display()),
                        since: watch.current().since,
                    },
                    Err(e) => StorePresence {
                        root: root.display().to_string(),
                        state: PresenceState::Gone,
                        message: format!(
                            "The store's folder {} is back but does not open: {}. Waiting, or close it.",
                            root.display(),
                            e.message
                        ),
                        since: watch.current().since,
                    },
                },
            };
            if told.state != PresenceState::Present {
                *lock(&session.presence) = Some(told.clone());
            }
            if let Err(e) = told.clone().emit_to(&handle, label.as_str()) {
                tracing::warn!(error = %e, "could not tell the window about its store's folder");
            }
            if told.state == PresenceState::Present {
                return;
            }
        }
    });
    if let Err(e) = spawned {
        tracing::warn!(error = %e, "the app does not look out for the store's folder: its thread did not start");
    }
}

/// Close the open store (stopping its watcher and demo members): back to the welcome screen.
#[tauri::command]
#[specta::specta]
pub async fn close_store(window: WebviewWindow, state: Session) -> Result<(), ErrorDto> {
    // Stopping demo members waits for their threads: not on the async runtime.
    blocking(move || {
        state.close();
        Ok(())
    })
    .await?;
    let _ = window.set_title("TwainMQ Desktop");
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The picker opened on GTK's empty "Recent" view; it opens beside the window's store,
    /// else beside the most recent one.
    #[test]
    fn the_folder_picker_opens_beside_the_store() {
        let dir = tempfile::tempdir().expect("tmp");
        let (a, b) = (dir.path().join("parent-a/store-a"), dir.path().join("parent-b/store-b"));
        std::fs::create_dir_all(&a).expect("mkdir");
        std::fs::create_dir_all(&b).expect("mkdir");
        let state = AppState { recent_file: Some(dir.path().join("recent.json")), ..Default::default() };
        assert_eq!(picker_start(&state), None, "nothing known: the platform's default");
        state.remember(&b.display().to_string());
        assert_eq!(picker_start(&state), Some(dir.path().join("parent-b")), "beside the most recent store");
        let store = Store::open(&a).expect("store");
        state.set_store(OpenStore { store, watcher: None });
        assert_eq!(picker_start(&state), Some(dir.path().join("parent-a")), "beside this window's store");
        state.close();
        std::fs::remove_dir_all(dir.path().join("parent-b")).expect("rm");
        assert_eq!(picker_start(&state), None, "a folder that is gone is not offered");
    }
}
