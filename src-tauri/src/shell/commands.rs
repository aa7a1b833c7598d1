//! The shell's commands: the About dialog's versions, the Settings dialog's
//! line-index cache, a launch's error, new windows, and a window's look for
//! the native parts (theme, the View menu's marks).

use tauri::{AppHandle, Manager, WebviewWindow};

use super::about::about_info;
use super::menu::{set_checks, Focus};
use super::settings::{cache_info, clear_cache};
use super::windows::open_window;
use super::wire::{About, IndexCacheInfo, LaunchError, MenuChecks};
use crate::ipc::blocking;
use crate::session::Session;
use crate::wire::ErrorDto;

/// The app's, the engine's version and the 0.2.3 compatibility (Help → About).
#[tauri::command]
#[specta::specta]
pub async fn about() -> Result<About, ErrorDto> {
    Ok(about_info())
}

/// Where the line-index cache is and how much it holds.
#[tauri::command]
#[specta::specta]
pub async fn index_cache_info(state: Session) -> Result<IndexCacheInfo, ErrorDto> {
    Ok(cache_info(state.index_cache_dir.as_deref()))
}

/// Empty the line-index cache. Open stores keep their index in memory and
/// write it again when they close.
#[tauri::command]
#[specta::specta]
pub async fn clear_index_cache(state: Session) -> Result<IndexCacheInfo, ErrorDto> {
    let dir = state.index_cache_dir.clone();
    blocking(move || clear_cache(dir.as_deref())).await
}

/// Why the store this window was started with did not open, once (then `None`).
#[tauri::command]
#[specta::specta]
pub async fn launch_error(state: Session) -> Result<Option<LaunchError>, ErrorDto> {
    Ok(state.take_launch_error())
}

/// A new window, with `path` (when given) open in it.
#[tauri::command]
#[specta::specta]
pub async fn new_window(app: AppHandle, path: Option<String>) -> Result<(), ErrorDto> {
    blocking(move || open_window(&app, path.as_deref()).map(|_| ())).await
}

/// A window's look and View toggles, from its UI: its theme (GTK's, which draws the native menu
/// bar, follows the app's dark or light: a white bar over a dark window was wrong), and, when it
/// is the focused window, the View menu's check marks.
#[tauri::command]
#[specta::specta]
pub async fn view_state(app: AppHandle, window: WebviewWindow, dark: bool, checks: MenuChecks) -> Result<(), ErrorDto> {
    let theme = if dark { tauri::Theme::Dark } else { tauri::Theme::Light };
    if let Err(e) = window.set_theme(Some(theme)) {
        tracing::debug!(error = %e, "could not set the window's theme");
    }
    let focused = app.state::<Focus>().target(&app);
    if focused.as_deref().is_none_or(|l| l == window.label()) {
        set_checks(&app, checks);
    }
    Ok(())
}
