//! Opening beyond the plain open: making a store on request.

use tauri::{AppHandle, WebviewWindow};

use crate::commands::show_store;
use crate::session::Session;
use crate::transport::{ErrorCode, ErrorDto, StoreInfo};

/// Make a new, empty store at `path` (the folder too when missing) and open it: the explicit
/// action behind "Create a store here". A folder that holds other files is refused (a store
/// is made only where nothing would be mixed with it); an existing store just opens.
#[tauri::command]
#[specta::specta]
pub async fn create_store(app: AppHandle, window: WebviewWindow, state: Session, path: String) -> Result<StoreInfo, ErrorDto> {
    tauri::async_runtime::spawn_blocking(move || {
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
    .map_err(|e| ErrorDto::new(ErrorCode::Internal, format!("the task failed: {e}")))?
}
