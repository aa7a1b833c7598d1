//! Tauri commands: each locks nothing longer than it needs, runs the work off
//! the UI thread, and maps to transport types.

use std::sync::atomic::Ordering;
use std::time::Duration;

use tauri::ipc::Channel;
use tauri::{AppHandle, Manager, WebviewWindow};
use tauri_specta::Event;
use twainmq::Store;
use twainmq::StoreWatcher;

use crate::service;
use crate::session::Session;
use crate::state::{AppState, OpenStore};
use crate::transport::*;

async fn blocking<T: Send + 'static>(f: impl FnOnce() -> Result<T, ErrorDto> + Send + 'static) -> Result<T, ErrorDto> {
    tauri::async_runtime::spawn_blocking(f).await.map_err(|e| ErrorDto::new(ErrorCode::Internal, format!("the task failed: {e}")))?
}

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
    state.set_store(OpenStore { store, watcher });
    // Counting the lines of every file was the slow part of opening: kept for next time.
    state.save_index();
    state.remember(&info.root);
    crate::menu::refresh_recent(app, &state.recent());
    crate::transfer_commands::start_auto_retention(app, label);
    if let Some(w) = app.get_webview_window(label) {
        let _ = w.set_title(&format!("{} — TwainMQ Desktop", info.root));
    }
    Ok(info)
}

#[tauri::command]
#[specta::specta]
pub async fn open_store(app: AppHandle, window: WebviewWindow, state: Session, path: String) -> Result<StoreInfo, ErrorDto> {
    // Opening counts the lines of every file: not on the async runtime.
    blocking(move || open_path(&app, &state, window.label(), &path)).await
}

/// The folder a folder picker opens in: the one holding this window's store (so that store and
/// those beside it show), else the one holding the most recent store; `None` when neither is
/// there (GTK then shows its "Recent" view, empty for folders).
pub fn picker_start(state: &AppState) -> Option<std::path::PathBuf> {
    let current = state.store().ok().map(|s| s.root().to_path_buf());
    let recent = state.recent().into_iter().next().map(std::path::PathBuf::from);
    current.into_iter().chain(recent).filter_map(|root| root.parent().map(std::path::Path::to_path_buf)).find(|dir| dir.is_dir())
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
        crate::engine::seed_demo(&store)?;
        open_path(&app, &state, window.label(), &dir.display().to_string())
    })
    .await
}

#[tauri::command]
#[specta::specta]
pub async fn store_info(state: Session) -> Result<StoreInfo, ErrorDto> {
    let store = state.store()?;
    let watching = state.watching();
    let mut info = blocking(move || service::store_info(&store)).await?;
    info.watching = watching;
    Ok(info)
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

/// The raw line at an offset, with its file and line number.
#[tauri::command]
#[specta::specta]
pub async fn raw_line(state: Session, topic: String, partition: u32, offset: Offset) -> Result<Option<RawLine>, ErrorDto> {
    let store = state.store()?;
    blocking(move || service::raw_line(&store, &topic, partition, offset)).await
}

#[tauri::command]
#[specta::specta]
pub async fn describe_topic(state: Session, topic: String) -> Result<TopicDetail, ErrorDto> {
    let store = state.store()?;
    blocking(move || service::describe_topic(&store, &topic)).await
}

#[tauri::command]
#[specta::specta]
pub async fn read_page(state: Session, topic: String, partition: u32, from: Offset, limit: u32) -> Result<Page, ErrorDto> {
    let store = state.store()?;
    blocking(move || service::read_page(&store, &topic, partition, from, limit)).await
}

#[tauri::command]
#[specta::specta]
pub async fn offset_at_time(state: Session, topic: String, partition: u32, unix: f64) -> Result<Option<Offset>, ErrorDto> {
    let store = state.store()?;
    blocking(move || service::offset_at_time(&store, &topic, partition, unix)).await
}

/// Start a search session: progress, then done or failed, stream on
/// `on_event`; the hits stay in the backend (`search_rows`). A newer search
/// cancels and replaces this one. A filter that does not compile is refused
/// here, before anything is read.
#[tauri::command]
#[specta::specta]
pub async fn search(state: Session, topic: String, query: SearchQuery, on_event: Channel<SearchEvent>) -> Result<SearchId, ErrorDto> {
    let store = state.store()?;
    twainmq::scan::Query::try_from(&query)?;
    let (id, session) = state.new_search(&topic, &query);
    std::thread::Builder::new()
        .name(format!("search-{id}"))
        .spawn(move || {
            // The scan's workers give way to the app's event loop and the web
            // view: the first hits' page is read and drawn while the scan runs.
            twainmq::scan::in_background();
            service::search(
                &store,
                &session.topic,
                &session.query,
                &session.cancel,
                &mut |ev| {
                    let _ = on_event.send(ev);
                },
                &mut |h| AppState::settled_hits(&session).extend_from_slice(h),
            );
        })
        .map_err(|e| ErrorDto::new(ErrorCode::Internal, format!("could not start the search: {e}")))?;
    Ok(SearchId(id))
}

/// Stop a running search (within milliseconds); what it found so far stays readable.
#[tauri::command]
#[specta::specta]
pub async fn cancel_search(state: Session, id: SearchId) -> Result<(), ErrorDto> {
    if let Some(s) = state.searches().get(&id.0) {
        s.cancel.store(true, Ordering::Relaxed);
    }
    Ok(())
}

/// Forget a search session (cancelling it if it runs).
#[tauri::command]
#[specta::specta]
pub async fn drop_search(state: Session, id: SearchId) -> Result<(), ErrorDto> {
    if let Some(s) = state.searches().remove(&id.0) {
        s.cancel.store(true, Ordering::Relaxed);
    }
    Ok(())
}

/// Hits `from..from + limit` of a search, in timeline order: of those
/// settled so far while it runs, of all once it has ended.
#[tauri::command]
#[specta::specta]
pub async fn search_rows(state: Session, id: SearchId, from: Count, limit: u32) -> Result<SearchRows, ErrorDto> {
    let store = state.store()?;
    let session = state.search_session(id.0)?;
    blocking(move || {
        // A copy of the rows' references, so the lock is not held while they are read.
        let (refs, settled) = {
            let hits = AppState::settled_hits(&session);
            let a = usize::try_from(from.get()).unwrap_or(usize::MAX).min(hits.len());
            let b = a.saturating_add(limit.clamp(1, service::MAX_PAGE) as usize).min(hits.len());
            (hits[a..b].to_vec(), hits.len() as u64)
        };
        service::search_rows(&store, &session.topic, &refs, from, settled)
    })
    .await
}

/// Whether a CEL filter compiles; where and why not.
#[tauri::command]
#[specta::specta]
pub async fn check_filter(expr: String) -> Result<FilterCheck, ErrorDto> {
    blocking(move || Ok(service::check_filter(&expr))).await
}

/// The JSON field paths seen in a topic's newest messages, for completion.
#[tauri::command]
#[specta::specta]
pub async fn topic_fields(state: Session, topic: String) -> Result<Vec<String>, ErrorDto> {
    let store = state.store()?;
    blocking(move || service::topic_fields(&store, &topic)).await
}

/// The page of a topic's timeline (partitions merged by timestamp) before a cut (`None`: the end).
#[tauri::command]
#[specta::specta]
pub async fn timeline_before(
    state: Session,
    topic: String,
    partitions: Option<Vec<u32>>,
    before: Option<Vec<Offset>>,
    limit: u32,
) -> Result<TimelinePageDto, ErrorDto> {
    let store = state.store()?;
    blocking(move || service::timeline_before(&store, &topic, partitions.as_deref(), before.as_deref(), limit)).await
}

/// The page of a topic's timeline from an anchor on.
#[tauri::command]
#[specta::specta]
pub async fn timeline_after(
    state: Session,
    topic: String,
    partitions: Option<Vec<u32>>,
    start: TimelineAnchor,
    limit: u32,
) -> Result<TimelinePageDto, ErrorDto> {
    let store = state.store()?;
    blocking(move || service::timeline_after(&store, &topic, partitions.as_deref(), &start, limit)).await
}

#[tauri::command]
#[specta::specta]
pub async fn produce(state: Session, topic: String, key: KeyText, payload: ProducePayload) -> Result<Produced, ErrorDto> {
    let store = state.store()?;
    blocking(move || service::produce(&store, &topic, &key, &payload)).await
}

#[tauri::command]
#[specta::specta]
pub async fn create_topic(state: Session, topic: NewTopic) -> Result<TopicSummary, ErrorDto> {
    let store = state.store()?;
    blocking(move || service::create_topic(&store, &topic)).await
}

/// The consumer groups that read a topic (deleted with it), for the delete dialog.
#[tauri::command]
#[specta::specta]
pub async fn topic_groups(state: Session, topic: String) -> Result<Vec<String>, ErrorDto> {
    let store = state.store()?;
    blocking(move || service::topic_groups(&store, &topic)).await
}

/// Delete a topic and the groups that read it; returns what was deleted.
#[tauri::command]
#[specta::specta]
pub async fn delete_topic(state: Session, topic: String, confirm: String) -> Result<DeletedTopic, ErrorDto> {
    let store = state.store()?;
    blocking(move || service::delete_topic(&store, &topic, &confirm)).await
}

#[tauri::command]
#[specta::specta]
pub async fn describe_group(state: Session, group: String, topic: Option<String>) -> Result<GroupDetail, ErrorDto> {
    let store = state.store()?;
    blocking(move || service::describe_group(&store, &group, topic.as_deref())).await
}

/// Forget demo members that have stopped or been killed.
#[tauri::command]
#[specta::specta]
pub async fn demo_clear_stopped(state: Session) -> Result<(), ErrorDto> {
    state.members.clear_stopped();
    Ok(())
}

/// Reset a group's offsets; with `dry_run` only computes the before/after table.
#[tauri::command]
#[specta::specta]
pub async fn reset_group(state: Session, group: String, request: ResetRequest) -> Result<ResetPlanDto, ErrorDto> {
    let store = state.store()?;
    blocking(move || service::reset_group(&store, &group, &request)).await
}

#[tauri::command]
#[specta::specta]
pub async fn trigger_round(state: Session, group: String, window_ms: u32) -> Result<(), ErrorDto> {
    let store = state.store()?;
    blocking(move || service::trigger_round(&store, &group, window_ms)).await
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
    blocking(move || crate::windows::open_window(&app, path.as_deref()).map(|_| ())).await
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 24 item 13: the picker opened on GTK's empty "Recent" view; it opens beside the
    /// window's store, else beside the most recent one.
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
