//! The topics' commands: each a few lines over [`super::service::Topics`].

use super::wire::{DeletedTopic, NewTopic, TopicDetail, TopicSummary};
use crate::ipc::blocking;
use crate::session::Session;
use crate::wire::ErrorDto;

#[tauri::command]
#[specta::specta]
pub async fn describe_topic(state: Session, topic: String) -> Result<TopicDetail, ErrorDto> {
    let source = state.source()?;
    blocking(move || source.describe_topic(&topic)).await
}

#[tauri::command]
#[specta::specta]
pub async fn create_topic(state: Session, topic: NewTopic) -> Result<TopicSummary, ErrorDto> {
    let source = state.source()?;
    blocking(move || source.create_topic(&topic)).await
}

/// The consumer groups that read a topic (deleted with it), for the delete dialog.
#[tauri::command]
#[specta::specta]
pub async fn topic_groups(state: Session, topic: String) -> Result<Vec<String>, ErrorDto> {
    let source = state.source()?;
    blocking(move || source.topic_groups(&topic)).await
}

/// Delete a topic and the groups that read it; returns what was deleted.
#[tauri::command]
#[specta::specta]
pub async fn delete_topic(state: Session, topic: String, confirm: String) -> Result<DeletedTopic, ErrorDto> {
    let source = state.source()?;
    blocking(move || source.delete_topic(&topic, &confirm)).await
}
