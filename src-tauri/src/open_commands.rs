//! Opening beyond the plain open: making a store on request, and telling the
//! window why the store named on the command line did not open.

use tauri::{AppHandle, Manager};

use crate::commands::show_store;
use crate::state::AppState;
use crate::transport::{ErrorCode, ErrorDto, LaunchError, StoreInfo};

/// Keep why the command line's store did not open, for the window to show.
pub fn keep_launch_error(state: &AppState, path: &str, error: ErrorDto) {
    *state.launch_error.lock().unwrap_or_else(|p| p.into_inner()) = Some(LaunchError { path: path.to_string(), error });
}

/// Why the store named on the command line did not open; given once (then None).
#[tauri::command]
#[specta::specta]
pub async fn launch_error(app: AppHandle) -> Result<Option<LaunchError>, ErrorDto> {
    Ok(app.state::<AppState>().launch_error.lock().unwrap_or_else(|p| p.into_inner()).take())
}

/// Make a new, empty store at `path` (the folder too when missing) and open it: the explicit
/// action behind "Create a store here". A folder that holds other files is refused (a store
/// is made only where nothing would be mixed with it); an existing store just opens.
#[tauri::command]
#[specta::specta]
pub async fn create_store(app: AppHandle, path: String) -> Result<StoreInfo, ErrorDto> {
    tauri::async_runtime::spawn_blocking(move || {
        let state = app.state::<AppState>();
        match state.open_store(&path) {
            Ok(store) => show_store(&app, &state, store),
            Err(e) if e.code == ErrorCode::EmptyFolder || e.code == ErrorCode::StoreNotFound => {
                show_store(&app, &state, state.create_store(&path)?)
            }
            Err(e) => Err(e),
        }
    })
    .await
    .map_err(|e| ErrorDto::new(ErrorCode::Internal, format!("the task failed: {e}")))?
}
