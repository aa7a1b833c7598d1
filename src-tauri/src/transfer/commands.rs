//! The commands of export, import, copy and retention: each a few lines over
//! `service.rs`. Long runs go on a thread of their own and stream
//! `TransferEvent`s on a channel; `cancel_transfer` stops them within a batch.
//! While a store is open the app looks at its topics' retention on open and
//! hourly (`start_auto_retention`) and does what the store's setting says:
//! nothing, ask (the default), or delete and log what went.

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use tauri::ipc::Channel;
use tauri::{AppHandle, Manager, State};
use tauri_specta::Event;

use super::service;
use super::wire::{
    CopyRequest, ExportRequest, ImportRequest, RetentionApplied, RetentionDto, RetentionDue, RetentionLog, RetentionMode, RetentionPlanDto,
    RetentionTrigger, SelectionDto, TransferEvent, TransferId,
};
use crate::ipc::{blocking, spawn_transfer as spawn, Transfers};
use crate::session::{AppState, Session, Sessions};
use crate::wire::{ErrorCode, ErrorDto};

/// How often the app looks at retention while a store stays open.
const AUTO_RETENTION_EVERY: Duration = Duration::from_secs(3600);

/// The engine's selection; a search's hits (kept in the app's state) become picked messages.
fn selection(state: &AppState, topic: &str, sel: &SelectionDto) -> Result<twainmq::transfer::Selection, ErrorDto> {
    if let SelectionDto::Search { id } = sel {
        let session = state.searches.session(id.0)?;
        let hits = session.settled_hits();
        return service::hits_selection(topic, &hits);
    }
    service::selection(topic, sel)
}

/// A native save dialog: the path chosen, or None when cancelled.
#[tauri::command]
#[specta::specta]
pub async fn pick_save_file(
    app: AppHandle,
    title: String,
    default_name: String,
    extensions: Vec<String>,
) -> Result<Option<String>, ErrorDto> {
    use tauri_plugin_dialog::DialogExt;
    blocking(move || {
        let mut d = app.dialog().file().set_title(title).set_file_name(default_name);
        if !extensions.is_empty() {
            let exts: Vec<&str> = extensions.iter().map(String::as_str).collect();
            d = d.add_filter(exts.join(", "), &exts);
        }
        Ok(d.blocking_save_file().map(|p| p.to_string()))
    })
    .await
}

/// A native open dialog for one file: the path chosen, or None when cancelled.
#[tauri::command]
#[specta::specta]
pub async fn pick_open_file(app: AppHandle, title: String, extensions: Vec<String>) -> Result<Option<String>, ErrorDto> {
    use tauri_plugin_dialog::DialogExt;
    blocking(move || {
        let mut d = app.dialog().file().set_title(title);
        if !extensions.is_empty() {
            let exts: Vec<&str> = extensions.iter().map(String::as_str).collect();
            d = d.add_filter(exts.join(", "), &exts);
        }
        Ok(d.blocking_pick_file().map(|p| p.to_string()))
    })
    .await
}

/// Export a selection to a file or a new store; progress, then done or failed, on `on_event`.
#[tauri::command]
#[specta::specta]
pub async fn export_messages(
    app: AppHandle,
    webview: tauri::Webview,
    state: Session,
    request: ExportRequest,
    on_event: Channel<TransferEvent>,
) -> Result<TransferId, ErrorDto> {
    let store = state.store()?;
    store.topic_config(&request.topic)?;
    let sel = selection(&state, &request.topic, &request.selection)?;
    spawn(&app, webview.label(), "export", on_event, move |cancel, send| service::export(&store, &request, &sel, cancel, send))
}

/// Import a JSONL or CSV file into a topic (or only check it: `dry_run`).
#[tauri::command]
#[specta::specta]
pub async fn import_file(
    app: AppHandle,
    webview: tauri::Webview,
    state: Session,
    request: ImportRequest,
    on_event: Channel<TransferEvent>,
) -> Result<TransferId, ErrorDto> {
    let store = state.store()?;
    service::check_import(&store, &request)?;
    spawn(&app, webview.label(), "import", on_event, move |cancel, send| service::import(&store, &request, cancel, send))
}

/// The header row of a CSV file, for the column pickers.
#[tauri::command]
#[specta::specta]
pub async fn csv_columns(path: String) -> Result<Vec<String>, ErrorDto> {
    blocking(move || service::csv_columns(&path)).await
}

/// Copy a selection into another topic (of this store or another).
#[tauri::command]
#[specta::specta]
pub async fn copy_messages(
    app: AppHandle,
    webview: tauri::Webview,
    state: Session,
    request: CopyRequest,
    on_event: Channel<TransferEvent>,
) -> Result<TransferId, ErrorDto> {
    let store = state.store()?;
    store.topic_config(&request.topic)?;
    let target = service::copy_target(&store, &request)?;
    let sel = selection(&state, &request.topic, &request.selection)?;
    spawn(&app, webview.label(), "copy", on_event, move |cancel, send| service::copy(&store, &target, &request, &sel, cancel, send))
}

/// Stop a running export, import or copy (after its current batch).
#[tauri::command]
#[specta::specta]
pub async fn cancel_transfer(transfers: State<'_, Transfers>, id: TransferId) -> Result<(), ErrorDto> {
    transfers.cancel(id.0);
    Ok(())
}

#[tauri::command]
#[specta::specta]
pub async fn topic_retention(state: Session, topic: String) -> Result<Option<RetentionDto>, ErrorDto> {
    let store = state.store()?;
    blocking(move || service::topic_retention(&store, &topic)).await
}

/// Save (or with None remove) a topic's retention; nothing is deleted here.
#[tauri::command]
#[specta::specta]
pub async fn set_retention(state: Session, topic: String, retention: Option<RetentionDto>) -> Result<Option<RetentionDto>, ErrorDto> {
    let store = state.store()?;
    blocking(move || service::set_retention(&store, &topic, retention)).await
}

/// What a retention (the topic's own when None) would delete now; deletes nothing.
#[tauri::command]
#[specta::specta]
pub async fn retention_preview(
    state: Session,
    topic: String,
    retention: Option<RetentionDto>,
    force: bool,
) -> Result<RetentionPlanDto, ErrorDto> {
    let store = state.store()?;
    blocking(move || service::retention_preview(&store, &topic, retention, force)).await
}

/// Apply the topic's saved retention now; `force` also deletes files groups have not consumed.
/// What went is added to the retention log (asked).
#[tauri::command]
#[specta::specta]
pub async fn apply_retention(state: Session, topic: String, force: bool) -> Result<RetentionPlanDto, ErrorDto> {
    let store = state.store()?;
    let log = state.retention_log_file.clone();
    blocking(move || {
        let plan = service::apply_retention(&store, &topic, force)?;
        if let Some(file) = &log {
            service::log_retention(
                file,
                &store.root().display().to_string(),
                std::slice::from_ref(&plan),
                RetentionTrigger::Asked,
                now_secs(),
            );
        }
        Ok(plan)
    })
    .await
}

fn now_secs() -> f64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0.0, |d| d.as_secs_f64())
}

/// When the app applies retention in the open store on its own (its setting for the store).
#[tauri::command]
#[specta::specta]
pub async fn retention_mode(state: Session) -> Result<RetentionMode, ErrorDto> {
    let root = state.store()?.root().display().to_string();
    Ok(service::retention_mode(state.settings_file.as_deref(), &root))
}

/// Set when the app applies retention in the open store on its own. Nothing is deleted
/// here: a store set to "automatically" applies it at the next look (within a moment).
#[tauri::command]
#[specta::specta]
pub async fn set_retention_mode(
    app: AppHandle,
    window: tauri::WebviewWindow,
    state: Session,
    mode: RetentionMode,
) -> Result<RetentionMode, ErrorDto> {
    let root = state.store()?.root().display().to_string();
    let file = state.settings_file.clone().ok_or_else(|| ErrorDto::new(ErrorCode::Internal, "the app has no folder for its settings"))?;
    let mode = blocking(move || service::set_retention_mode(&file, &root, mode)).await?;
    // A question pending under the old setting no longer stands; the next look follows the new one.
    state.retention_due.lock().unwrap_or_else(|p| p.into_inner()).clear();
    start_auto_retention(&app, window.label());
    Ok(mode)
}

/// What retention would delete in the open store, asked about (a store set to "ask") and
/// not answered yet; emptied by asking.
#[tauri::command]
#[specta::specta]
pub async fn take_retention_due(state: Session) -> Result<Vec<RetentionPlanDto>, ErrorDto> {
    Ok(std::mem::take(&mut *state.retention_due.lock().unwrap_or_else(|p| p.into_inner())))
}

/// The app's retention log for the open store: what its retention deleted, newest first.
#[tauri::command]
#[specta::specta]
pub async fn retention_log(state: Session) -> Result<RetentionLog, ErrorDto> {
    let root = state.store()?.root().display().to_string();
    let file = state.retention_log_file.clone();
    blocking(move || Ok(service::read_retention_log(file.as_deref(), &root, 500))).await
}

/// Purge a topic's messages (before a time, or all); a preview unless `apply`
/// (which needs the topic's name typed as `confirm`).
#[tauri::command]
#[specta::specta]
pub async fn purge_topic(
    state: Session,
    topic: String,
    before: Option<f64>,
    apply: bool,
    force: bool,
    confirm: String,
) -> Result<RetentionPlanDto, ErrorDto> {
    let store = state.store()?;
    blocking(move || service::purge_topic(&store, &topic, before, apply, force, &confirm)).await
}

/// What the app's retention removed since the window last asked (emptied by asking).
#[tauri::command]
#[specta::specta]
pub async fn take_retention_notices(state: Session) -> Result<Vec<RetentionPlanDto>, ErrorDto> {
    Ok(std::mem::take(&mut *state.retention_notices.lock().unwrap_or_else(|p| p.into_inner())))
}

/// Look at the retention of window `label`'s store now and then hourly, never
/// forced, while this opening of it lasts (the window open, its store not
/// replaced, its setting not changed), and do what the store's setting says:
/// nothing; ask (`RetentionDue`: what would go); or apply it, log it, and push
/// what went (`RetentionApplied`).
pub fn start_auto_retention(app: &AppHandle, label: &str) {
    let Some(session) = app.state::<Sessions>().find(label) else { return };
    let opening = session.retention_opening.fetch_add(1, Ordering::SeqCst) + 1;
    let handle = app.clone();
    let label = label.to_string();
    // The session is looked up each time, not held: a closed window's ends the thread.
    let current = {
        let (handle, label) = (handle.clone(), label.clone());
        move || handle.state::<Sessions>().find(&label).is_some_and(|s| s.retention_opening.load(Ordering::SeqCst) == opening)
    };
    // Asleep in short steps, so a closed or replaced store ends the thread soon; false when it did.
    let current = Arc::new(current);
    let still = current.clone();
    let sleep = move |total: Duration| {
        let mut slept = Duration::ZERO;
        while slept < total {
            std::thread::sleep(Duration::from_millis(500));
            slept += Duration::from_millis(500);
            if !still() {
                return false;
            }
        }
        true
    };
    let spawned = std::thread::Builder::new().name("retention".into()).spawn(move || loop {
        // A moment first, so the window's "Opened …" does not cover what this says.
        if !sleep(Duration::from_millis(1500)) {
            return;
        }
        let Some(session) = handle.state::<Sessions>().find(&label) else { return };
        let Ok(store) = session.store() else { return };
        if !current() {
            return;
        }
        let root = store.root().display().to_string();
        match service::retention_mode(session.settings_file.as_deref(), &root) {
            RetentionMode::Never => {}
            RetentionMode::Ask => {
                let plans = service::due_retention(&store);
                if !plans.is_empty() && current() {
                    *session.retention_due.lock().unwrap_or_else(|p| p.into_inner()) = plans.clone();
                    if let Err(e) = (RetentionDue { plans }).emit_to(&handle, label.as_str()) {
                        tracing::warn!(error = %e, "could not ask the window about retention");
                    }
                }
            }
            RetentionMode::Automatically => {
                let plans = service::auto_retention(&store);
                if !plans.is_empty() {
                    if let Some(file) = &session.retention_log_file {
                        service::log_retention(file, &root, &plans, RetentionTrigger::Automatically, now_secs());
                    }
                    session.retention_notices.lock().unwrap_or_else(|p| p.into_inner()).extend(plans.iter().cloned());
                    if let Err(e) = (RetentionApplied { plans }).emit_to(&handle, label.as_str()) {
                        tracing::warn!(error = %e, "could not tell the window what retention removed");
                    }
                }
            }
        }
        if !sleep(AUTO_RETENTION_EVERY.saturating_sub(Duration::from_millis(1500))) {
            return;
        }
    });
    if let Err(e) = spawned {
        tracing::warn!(error = %e, "retention is not applied by the app: its thread did not start");
    }
}
