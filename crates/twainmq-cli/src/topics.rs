//! `twainmq topics`: list, create, describe and delete.

use std::io;

use anyhow::{bail, Result};
use twainmq::names as name;
use twainmq::{Error as EngineError, KeyType, Store, TopicSpec};

use crate::args::TopicsCmd;
use crate::render::{self, Created, Deleted, TopicList, TopicRow, TopicView};

pub(crate) fn run(store: &Store, cmd: TopicsCmd) -> Result<()> {
    let mut out = io::stdout().lock();
    match cmd {
        TopicsCmd::List { json } => render::emit(&mut out, &list(store)?, json),
        TopicsCmd::Create { name, key_type, partitions, message_types, large_messages, max_message_bytes } => {
            let kt =
                KeyType::parse(&key_type).ok_or(EngineError::InvalidKeyType { key_type, max_char: twainmq::limits::MAX_CHAR_WIDTH })?;
            let partitions = u32::try_from(partitions)
                .map_err(|_| EngineError::InvalidPartitionCount { partitions, max: twainmq::limits::MAX_PARTITIONS })?;
            let mut spec = TopicSpec::new(kt, partitions).with_types(message_types);
            if large_messages || max_message_bytes.is_some() {
                spec = spec.with_large_messages(max_message_bytes.unwrap_or(twainmq::limits::DEFAULT_MAX_MESSAGE_BYTES));
            }
            let config = store.create_topic(&name, &spec)?;
            render::emit_text(&mut out, &Created { name, key_type: kt, partitions, max_message_bytes: config.max_message_bytes })
        }
        TopicsCmd::Describe { name, json } => render::emit(&mut out, &TopicView(store.describe_topic(&name)?), json),
        TopicsCmd::Purge { name, before, all: _, force, yes } => crate::retention::purge(store, &name, before, force, yes),
        TopicsCmd::Delete { name: topic, yes } => {
            let deleted = delete(store, topic, yes)?;
            render::emit_text(&mut out, &deleted)
        }
    }
}

/// Every topic with its config; a config that cannot be read is a row (and a
/// warning), not the end of the listing.
fn list(store: &Store) -> Result<TopicList> {
    let mut rows = Vec::new();
    for summary in store.topic_summaries(false)? {
        let name = summary.name;
        match summary.config {
            Ok(c) => rows.push(TopicRow::Topic {
                name,
                key_type: c.key_type.to_string(),
                partitions: c.partitions,
                message_types: c.message_types.iter().map(|(n, _)| n.clone()).collect(),
                max_message_bytes: c.max_message_bytes,
            }),
            Err(error) => {
                eprintln!("warning: {error}");
                rows.push(TopicRow::Unreadable { name, error });
            }
        }
    }
    Ok(TopicList(rows))
}

/// Delete `topic` and the groups that read it; without `yes`, an error that
/// says what would go, and nothing deleted.
fn delete(store: &Store, topic: String, yes: bool) -> Result<Deleted> {
    name::validate_topic(&topic)?;
    // What goes with the topic, counted before anything is removed.
    // A topic whose files cannot be counted can still be deleted.
    let messages = match store.describe_topic(&topic) {
        Ok(d) => format!("{} messages in {} partitions", d.messages, d.partitions),
        Err(e @ EngineError::TopicNotFound { .. }) => return Err(e.into()),
        Err(e) => format!("messages not counted: {e}"),
    };
    if !yes {
        let groups = store.groups_reading(&topic)?;
        let groups = if groups.is_empty() {
            "no consumer group reads it".to_string()
        } else {
            format!("the consumer groups that read it go too, with their committed offsets: {}", groups.join(", "))
        };
        bail!(
            "nothing deleted: `topics delete {topic}` would delete topic {topic:?} ({messages}); {groups}. \
             To confirm, run again with --yes: twainmq topics delete {topic} --yes"
        );
    }
    let groups = store.delete_topic(&topic)?;
    Ok(Deleted { topic, messages, groups })
}
