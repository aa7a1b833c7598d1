//! The search's commands: a search runs on a thread of its own and streams
//! its progress on a channel; its hits stay in the window's session, read by
//! index ranges. Each a few lines over `service.rs`.

use tauri::ipc::Channel;

use super::service;
use super::wire::{FilterCheck, MissingField, SearchEvent, SearchId, SearchQuery, SearchRows};
use crate::ipc::blocking;
use crate::session::Session;
use crate::wire::{Count, ErrorCode, ErrorDto};

/// Start a search session: progress, then done or failed, stream on
/// `on_event`; the hits stay in the backend (`search_rows`). A newer search
/// cancels and replaces this one. A filter that does not compile is refused
/// here, before anything is read.
#[tauri::command]
#[specta::specta]
pub async fn search(state: Session, topic: String, query: SearchQuery, on_event: Channel<SearchEvent>) -> Result<SearchId, ErrorDto> {
    let store = state.store()?;
    twainmq::scan::Query::try_from(&query)?;
    let (id, session) = state.searches.start(&topic, &query);
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
                &mut |h| session.settled_hits().extend_from_slice(h),
            );
        })
        .map_err(|e| ErrorDto::new(ErrorCode::Internal, format!("could not start the search: {e}")))?;
    Ok(SearchId(id))
}

/// Stop a running search (within milliseconds); what it found so far stays readable.
#[tauri::command]
#[specta::specta]
pub async fn cancel_search(state: Session, id: SearchId) -> Result<(), ErrorDto> {
    state.searches.cancel(id.0);
    Ok(())
}

/// Forget a search session (cancelling it if it runs).
#[tauri::command]
#[specta::specta]
pub async fn drop_search(state: Session, id: SearchId) -> Result<(), ErrorDto> {
    state.searches.forget(id.0);
    Ok(())
}

/// Hits `from..from + limit` of a search, in timeline order: of those
/// settled so far while it runs, of all once it has ended.
#[tauri::command]
#[specta::specta]
pub async fn search_rows(state: Session, id: SearchId, from: Count, limit: u32) -> Result<SearchRows, ErrorDto> {
    let store = state.store()?;
    let session = state.searches.session(id.0)?;
    blocking(move || {
        let (refs, settled) = session.page(from, limit);
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

/// The `value` fields a search's filter reads that none of the messages it looked at has, with
/// near names: why a filter found nothing. Stops when a newer search replaces this one.
#[tauri::command]
#[specta::specta]
pub async fn missing_fields(state: Session, id: SearchId) -> Result<Vec<MissingField>, ErrorDto> {
    let store = state.store()?;
    let session = state.searches.session(id.0)?;
    blocking(move || service::missing_fields(&store, &session.topic, &session.query, &session.cancel)).await
}
