//! The groups' commands: each a few lines over [`super::service::Groups`] (the
//! demo members over `members.rs`); the file dialogs of offsets files run here
//! (they need the app).

use std::path::PathBuf;

use tauri::AppHandle;
use tauri_plugin_dialog::DialogExt;

use super::members::Members;
use super::service;
use super::wire::{DeletedGroup, DemoMember, GroupDeletePreview, GroupDetail, MemberStatus};
use super::wire_lag::{HistorySpan, LagAlertThresholds, LagCheckDto, LagHistoryDto};
use super::wire_reset::{OffsetsFile, ResetPlanDto, ResetRequest};
use crate::ipc::blocking;
use crate::session::Session;
use crate::wire::{ErrorDto, Handle};

/// The demo members of this app running in `group`.
fn demos_in(members: &Members, group: &str) -> Vec<Handle> {
    members
        .list()
        .into_iter()
        .filter(|d| d.group == group && matches!(d.status, MemberStatus::Joining | MemberStatus::Running))
        .map(|d| d.handle)
        .collect()
}

/// The ids in `group` of this app's demo members there.
fn demo_ids_in(members: &Members, group: &str) -> Vec<u32> {
    members.list().into_iter().filter(|d| d.group == group && d.member_id > 0).map(|d| d.member_id).collect()
}

#[tauri::command]
#[specta::specta]
pub async fn describe_group(state: Session, group: String, topic: Option<String>) -> Result<GroupDetail, ErrorDto> {
    let source = state.source()?;
    blocking(move || source.describe_group(&group, topic.as_deref())).await
}

/// Reset a group's offsets; with `dry_run` only computes the before/after table.
#[tauri::command]
#[specta::specta]
pub async fn reset_group(state: Session, group: String, request: ResetRequest) -> Result<ResetPlanDto, ErrorDto> {
    let source = state.source()?;
    blocking(move || source.reset_group(&group, &request)).await
}

#[tauri::command]
#[specta::specta]
pub async fn trigger_round(state: Session, group: String, window_ms: u32) -> Result<(), ErrorDto> {
    let source = state.source()?;
    blocking(move || source.trigger_round(&group, window_ms)).await
}

#[tauri::command]
#[specta::specta]
/// Start a demo member. A group with members this app did not start is refused (`group_in_use`,
/// saying what the demo would do to them) unless `join_live` says the user agreed.
pub async fn demo_start_member(
    state: Session,
    topic: String,
    group: String,
    window_ms: u32,
    rate: u32,
    join_live: bool,
) -> Result<Handle, ErrorDto> {
    let store = state.store()?;
    let members = state.members.clone();
    blocking(move || {
        if !join_live {
            members.check_group_free(&store, &group)?;
        }
        members.start(&store, &topic, &group, window_ms, rate)
    })
    .await
}

/// Stop a demo member gracefully (commit and leave) or kill it (no commit, no goodbye).
#[tauri::command]
#[specta::specta]
pub async fn demo_stop_member(state: Session, handle: Handle, kill: bool) -> Result<(), ErrorDto> {
    let members = state.members.clone();
    blocking(move || members.stop(handle, kill)).await
}

#[tauri::command]
#[specta::specta]
pub async fn demo_members(state: Session) -> Result<Vec<DemoMember>, ErrorDto> {
    Ok(state.members.list())
}

/// Forget demo members that have stopped or been killed.
#[tauri::command]
#[specta::specta]
pub async fn demo_clear_stopped(state: Session) -> Result<(), ErrorDto> {
    state.members.clear_stopped();
    Ok(())
}

/// A group's lag over the last hour, day, week or its whole life, from the files.
#[tauri::command]
#[specta::specta]
pub async fn lag_history(state: Session, group: String, span: HistorySpan) -> Result<LagHistoryDto, ErrorDto> {
    let source = state.source()?;
    blocking(move || source.lag_history(&group, span)).await
}

/// A group's lag against alert thresholds now.
#[tauri::command]
#[specta::specta]
pub async fn lag_check(state: Session, group: String, thresholds: LagAlertThresholds) -> Result<LagCheckDto, ErrorDto> {
    let source = state.source()?;
    blocking(move || source.lag_check(&group, &thresholds)).await
}

/// Save a group's committed offsets (`twainmq groups export`'s JSON) where the
/// user picks in a native save dialog; the path written, or null if cancelled.
#[tauri::command]
#[specta::specta]
pub async fn export_group_offsets(app: AppHandle, state: Session, group: String) -> Result<Option<String>, ErrorDto> {
    let source = state.source()?;
    blocking(move || {
        // Read first: a group that cannot be described offers no dialog.
        source.export_document(&group)?;
        let picked = app
            .dialog()
            .file()
            .set_title(format!("Export the offsets of {group}"))
            .set_file_name(format!("{group}-offsets.json"))
            .add_filter("Offsets (JSON)", &["json"])
            .blocking_save_file();
        let Some(path) = picked.and_then(|p| p.into_path().ok()) else { return Ok(None) };
        service::export_to(source.as_ref(), &group, &path)?;
        Ok(Some(path.display().to_string()))
    })
    .await
}

/// Pick an offsets file in a native open dialog and read it (checked, not
/// applied: the reset dialog's dry run comes next); null if cancelled.
#[tauri::command]
#[specta::specta]
pub async fn pick_offsets_file(app: AppHandle) -> Result<Option<OffsetsFile>, ErrorDto> {
    blocking(move || {
        let picked = app
            .dialog()
            .file()
            .set_title("Import offsets (a file twainmq groups export wrote)")
            .add_filter("Offsets (JSON)", &["json"])
            .blocking_pick_file();
        let Some(path): Option<PathBuf> = picked.and_then(|p| p.into_path().ok()) else { return Ok(None) };
        service::read_offsets_file(&path).map(Some)
    })
    .await
}

/// What deleting a group removes, for the confirmation.
#[tauri::command]
#[specta::specta]
pub async fn group_delete_preview(state: Session, group: String) -> Result<GroupDeletePreview, ErrorDto> {
    let source = state.source()?;
    let demos = demo_ids_in(&state.members, &group);
    blocking(move || source.delete_preview(&group, &demos)).await
}

/// Delete a group (its log and committed offsets) once `confirm` is its name, never while
/// members other than this app's look live unless `members_stopped` (the person says they
/// are); this app's members in it are stopped first.
#[tauri::command]
#[specta::specta]
pub async fn delete_group(state: Session, group: String, confirm: String, members_stopped: bool) -> Result<DeletedGroup, ErrorDto> {
    let source = state.source()?;
    let members = state.members.clone();
    let demos = demo_ids_in(&members, &group);
    blocking(move || {
        source.delete_group(&group, &confirm, members_stopped, &demos, &mut || {
            let handles = demos_in(&members, &group);
            // Killed, not stopped: a graceful stop would commit into the log about to go.
            handles.iter().filter(|h| members.stop(**h, true).is_ok()).count().try_into().unwrap_or(u32::MAX)
        })
    })
    .await
}
