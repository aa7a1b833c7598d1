//! What the topics' commands do, on plain engine types (no Tauri here, so it is
//! tested directly): describe a topic as one incarnation, create one, list
//! the groups reading one, delete one with its groups.
//!
//! [`Topics`] is what a source of topics answers; a store folder ([`Store`])
//! is today's only one (see `crate::source`).

use twainmq::{KeyType, Store, TopicSpec};

use super::wire::{DeletedTopic, NewTopic, TopicDetail, TopicSummary};
use crate::engine;
use crate::wire::{ErrorCode, ErrorDto, Incarnation};

/// What the topics' commands ask of a source.
pub trait Topics {
    /// A topic's partitions and files, as one incarnation of it.
    fn describe_topic(&self, topic: &str) -> Result<TopicDetail, ErrorDto>;
    /// Make a topic; its summary.
    fn create_topic(&self, topic: &NewTopic) -> Result<TopicSummary, ErrorDto>;
    /// The consumer groups that read a topic (deleting it deletes them too).
    fn topic_groups(&self, topic: &str) -> Result<Vec<String>, ErrorDto>;
    /// Delete a topic and the groups that read it, once `confirm` is its name.
    fn delete_topic(&self, topic: &str, confirm: &str) -> Result<DeletedTopic, ErrorDto>;
}

impl Topics for Store {
    fn describe_topic(&self, topic: &str) -> Result<TopicDetail, ErrorDto> {
        describe_topic(self, topic)
    }
    fn create_topic(&self, topic: &NewTopic) -> Result<TopicSummary, ErrorDto> {
        create_topic(self, topic)
    }
    fn topic_groups(&self, topic: &str) -> Result<Vec<String>, ErrorDto> {
        topic_groups(self, topic)
    }
    fn delete_topic(&self, topic: &str, confirm: &str) -> Result<DeletedTopic, ErrorDto> {
        delete_topic(self, topic, confirm)
    }
}

pub fn topic_summary(store: &Store, name: &str) -> TopicSummary {
    store.topic_summary(name, true).into()
}

/// Which topic named `topic` is in the store now: the identity (device, inode,
/// creation time) of its folder and of its config file, as an opaque token.
/// Appends change neither; deleting the topic and making it again (by this app,
/// the CLI or 0.2.3) changes at least one: a new folder, and a new config file
/// (ours is renamed into place; 0.2.3 rewrites it in place, but then its
/// folder is new). The creation time is there because a file system may hand
/// a freed inode to the next folder made. `None` when neither exists (or the
/// name is invalid). The caller has validated `topic` (the engine refuses names that escape).
pub fn topic_incarnation(store: &Store, topic: &str) -> Option<Incarnation> {
    store.topic_incarnation(topic).ok().flatten().map(|i| Incarnation(i.to_string()))
}

/// The incarnation of `topic`, once its name is known not to escape the store:
/// a user topic's name, or a group's (`--group--G`), as the engine reads them.
pub fn topic_incarnation_checked(store: &Store, topic: &str) -> Result<Option<Incarnation>, ErrorDto> {
    match topic.strip_prefix(engine::GROUP_PREFIX) {
        Some(g) => engine::validate_group(g)?,
        None => engine::validate_topic(topic)?,
    }
    Ok(topic_incarnation(store, topic))
}

/// The error of a read during which `topic` was deleted or made again.
pub fn replaced(topic: &str) -> ErrorDto {
    ErrorDto::new(
        ErrorCode::TopicDeleted,
        format!("topic {topic:?} was deleted or made again by another process while it was read: what was read is dropped; read it again to see the topic as it is now"),
    )
}

pub fn describe_topic(store: &Store, topic: &str) -> Result<TopicDetail, ErrorDto> {
    // The description is of one incarnation: read again (a few times at most)
    // when the topic was deleted and made again while it was described.
    let mut tries = 0;
    loop {
        tries += 1;
        let before = topic_incarnation_checked(store, topic)?;
        let detail = TopicDetail::new(&store.describe_topic(topic)?, before.clone());
        if topic_incarnation(store, topic) == before || tries >= 3 {
            return Ok(detail);
        }
    }
}

pub fn create_topic(store: &Store, t: &NewTopic) -> Result<TopicSummary, ErrorDto> {
    let key_type = KeyType::parse(t.key_type.trim())
        .ok_or_else(|| ErrorDto::from(twainmq::Error::InvalidKeyType { key_type: t.key_type.clone(), max_char: engine::MAX_CHAR_WIDTH }))?;
    let types: Vec<String> = t.message_types.iter().map(|s| s.trim().to_string()).filter(|s| !s.is_empty()).collect();
    let mut spec = TopicSpec::new(key_type, t.partitions).with_types(types);
    if let Some(max) = t.max_message_bytes {
        spec = spec.with_large_messages(max.get());
    }
    store.create_topic(t.name.trim(), &spec)?;
    Ok(topic_summary(store, t.name.trim()))
}

/// The consumer groups that read `topic`: deleting the topic deletes them too
/// (the delete dialog lists them first).
pub fn topic_groups(store: &Store, topic: &str) -> Result<Vec<String>, ErrorDto> {
    engine::validate_topic(topic)?;
    Ok(store.groups_reading(topic)?)
}

/// Delete a topic and the groups that read it (so their commits never apply to
/// a topic made again under the same name); says which groups went.
pub fn delete_topic(store: &Store, topic: &str, confirm: &str) -> Result<DeletedTopic, ErrorDto> {
    if confirm != topic {
        return Err(ErrorDto::new(ErrorCode::ConfirmationMismatch, format!("type the topic's name, {topic:?}, to confirm the deletion")));
    }
    let groups = store.delete_topic(topic)?;
    Ok(DeletedTopic { topic: topic.to_string(), groups })
}
