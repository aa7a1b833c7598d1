//! The messages' commands: each a few lines over [`super::service::Messages`].

use super::wire::{
    KeyInput, MessageRef, Page, PayloadSlice, ProducePayload, Produced, RawLine, SavedPayload, TimelineAnchor, TimelinePageDto,
};
use crate::ipc::blocking;
use crate::session::Session;
use crate::wire::{Bytes, ErrorDto, Incarnation, Offset};

/// The raw line at an offset, with its file and line number.
#[tauri::command]
#[specta::specta]
pub async fn raw_line(state: Session, topic: String, partition: u32, offset: Offset) -> Result<Option<RawLine>, ErrorDto> {
    let source = state.source()?;
    blocking(move || source.raw_line(&topic, partition, offset)).await
}

/// The raw lines of these messages as stored, in this order (one no longer there is left out).
#[tauri::command]
#[specta::specta]
pub async fn raw_lines(state: Session, topic: String, messages: Vec<MessageRef>) -> Result<Vec<RawLine>, ErrorDto> {
    let source = state.source()?;
    blocking(move || source.raw_lines(&topic, &messages)).await
}

#[tauri::command]
#[specta::specta]
pub async fn read_page(state: Session, topic: String, partition: u32, from: Offset, limit: u32) -> Result<Page, ErrorDto> {
    let source = state.source()?;
    blocking(move || source.read_page(&topic, partition, from, limit)).await
}

#[tauri::command]
#[specta::specta]
pub async fn offset_at_time(state: Session, topic: String, partition: u32, unix: f64) -> Result<Option<Offset>, ErrorDto> {
    let source = state.source()?;
    blocking(move || source.offset_at_time(&topic, partition, unix)).await
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
    let source = state.source()?;
    blocking(move || source.timeline_before(&topic, partitions.as_deref(), before.as_deref(), limit)).await
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
    let source = state.source()?;
    blocking(move || source.timeline_after(&topic, partitions.as_deref(), &start, limit)).await
}

#[tauri::command]
#[specta::specta]
pub async fn produce(state: Session, topic: String, key: KeyInput, payload: ProducePayload) -> Result<Produced, ErrorDto> {
    let source = state.source()?;
    blocking(move || source.produce(&topic, &key, &payload)).await
}

/// Bytes `from..from + len` of the payload of the message at an offset (of the topic's
/// incarnation `incarnation`, the one its row came from): a payload of any size, a slice at a time.
#[tauri::command]
#[specta::specta]
#[allow(clippy::too_many_arguments)]
pub async fn message_payload(
    state: Session,
    topic: String,
    partition: u32,
    offset: Offset,
    incarnation: Option<Incarnation>,
    from: Bytes,
    len: u32,
) -> Result<PayloadSlice, ErrorDto> {
    let source = state.source()?;
    blocking(move || source.message_payload(&topic, partition, offset, incarnation.as_ref(), from, len)).await
}

/// Save the payload of the message at an offset to the file `path` (its own bytes), whole or not at all.
#[tauri::command]
#[specta::specta]
pub async fn save_payload(
    state: Session,
    topic: String,
    partition: u32,
    offset: Offset,
    incarnation: Option<Incarnation>,
    path: String,
) -> Result<SavedPayload, ErrorDto> {
    let source = state.source()?;
    blocking(move || source.save_payload(&topic, partition, offset, incarnation.as_ref(), &path)).await
}
