//! Issue 15's group commands: lag history and lag checks, export and import
//! of offsets through native file dialogs, and deleting a group. Each is a
//! few lines over `group_ops`; the dialogs run here (they need the app).

use std::path::PathBuf;

use tauri::AppHandle;

use crate::group_ops;
use crate::members::Members;
use crate::session::Session;
use crate::transport::*;

async fn blocking<T: Send + 'static>(f: impl FnOnce() -> Result<T, ErrorDto> + Send + 'static) -> Result<T, ErrorDto> {
    tauri::async_runtime::spawn_blocking(f).await.map_err(|e| ErrorDto::new(ErrorCode::Internal, format!("the task failed: {e}")))?
}

/// The demo members of this app running in `group`.
fn demos_in(members: &Members, group: &str) -> Vec<Handle> {
    members
        .list()
        .into_iter()
        .filter(|d| d.group == group && matches!(d.status, MemberStatus::Joining | MemberStatus::Running))
        .map(|d| d.handle)
        .collect()
}

/// A group's lag over the last hour, day, week or its whole life, from the files.
#[tauri::command]
#[specta::specta]
pub async fn lag_history(state: Session, group: String, span: HistorySpan) -> Result<LagHistoryDto, ErrorDto> {
    let store = state.store()?;
    blocking(move || group_ops::lag_history(&store, &group, span, store.now_secs())).await
}

/// A group's lag against alert thresholds now.
#[tauri::command]
#[specta::specta]
pub async fn lag_check(state: Session, group: String, thresholds: LagAlertThresholds) -> Result<LagCheckDto, ErrorDto> {
    let store = state.store()?;
    blocking(move || group_ops::lag_check(&store, &group, &thresholds)).await
}

/// Save a group's committed offsets (`twainmq groups export`'s JSON) where the
/// user picks in a native save dialog; the path written, or null if cancelled.
#[tauri::command]
#[specta::specta]
pub async fn export_group_offsets(app: AppHandle, state: Session, group: String) -> Result<Option<String>, ErrorDto> {
    use tauri_plugin_dialog::DialogExt;
    let store = state.store()?;
    blocking(move || {
        // Read first: a group that cannot be described offers no dialog.
        group_ops::export_document(&store, &group)?;
        let picked = app
            .dialog()
            .file()
            .set_title(format!("Export the offsets of {group}"))
            .set_file_name(format!("{group}-offsets.json"))
            .add_filter("Offsets (JSON)", &["json"])
            .blocking_save_file();
        let Some(path) = picked.and_then(|p| p.into_path().ok()) else { return Ok(None) };
        group_ops::export_to(&store, &group, &path)?;
        Ok(Some(path.display().to_string()))
    })
    .await
}

/// Pick an offsets file in a native open dialog and read it (checked, not
/// applied: the reset dialog's dry run comes next); null if cancelled.
#[tauri::command]
#[specta::specta]
pub async fn pick_offsets_file(app: AppHandle) -> Result<Option<OffsetsFile>, ErrorDto> {
    use tauri_plugin_dialog::DialogExt;
    blocking(move || {
        let picked = app
            .dialog()
            .file()
            .set_title("Import offsets (a file twainmq groups export wrote)")
            .add_filter("Offsets (JSON)", &["json"])
            .blocking_pick_file();
        let Some(path): Option<PathBuf> = picked.and_then(|p| p.into_path().ok()) else { return Ok(None) };
        group_ops::read_offsets_file(&path).map(Some)
    })
    .await
}

/// What deleting a group removes, for the confirmation.
#[tauri::command]
#[specta::specta]
pub async fn group_delete_preview(state: Session, group: String) -> Result<GroupDeletePreview, ErrorDto> {
    let store = state.store()?;
    let demos = u32::try_from(demos_in(&state.members, &group).len()).unwrap_or(u32::MAX);
    blocking(move || group_ops::delete_preview(&store, &group, demos)).await
}

/// Delete a group (its log and committed offsets) once `confirm` is its name;
/// this app's members in it are stopped first.
#[tauri::command]
#[specta::specta]
pub async fn delete_group(state: Session, group: String, confirm: String) -> Result<DeletedGroup, ErrorDto> {
    let store = state.store()?;
    let members = state.members.clone();
    blocking(move || {
        group_ops::delete_group(&store, &group, &confirm, || {
            let handles = demos_in(&members, &group);
            // Killed, not stopped: a graceful stop would commit into the log about to go.
            handles.iter().filter(|h| members.stop(**h, true).is_ok()).count().try_into().unwrap_or(u32::MAX)
        })
    })
    .await
}
