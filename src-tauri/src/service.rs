//! What the commands do, on plain engine types (no Tauri here, so it is tested directly).

use std::cell::{Cell, RefCell};
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use twainmq::group;
use twainmq::scan;
use twainmq::{KeyType, Outgoing, StartFrom, Store, TopicSpec};

use crate::engine;
use crate::transport::*;

/// Longest page a caller may ask for.
pub const MAX_PAGE: u32 = 2000;

pub fn topic_summary(store: &Store, name: &str) -> TopicSummary {
    store.topic_summary(name, true).into()
}

pub fn store_info(store: &Store) -> Result<StoreInfo, ErrorDto> {
    let topics = store.topic_summaries(true)?.into_iter().map(Into::into).collect();
    let groups = store.group_summaries()?.into_iter().map(Into::into).collect();
    Ok(StoreInfo { root: store.root().display().to_string(), topics, groups, watching: false })
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

/// Up to `limit` rows of `partition` from offset `from`: messages, and damaged lines in place.
///
/// The page carries the topic's incarnation; a page read while the topic was
/// deleted or made again (the incarnation changed meanwhile) could mix the old
/// topic's lines with the new one's, so it is refused with `topic_deleted`.
pub fn read_page(store: &Store, topic: &str, partition: u32, from: Offset, limit: u32) -> Result<Page, ErrorDto> {
    let limit = limit.clamp(1, MAX_PAGE) as usize;
    let incarnation = topic_incarnation_checked(store, topic)?;
    let end = store.end_offsets(topic)?.get(partition as usize).copied().unwrap_or(0);
    let mut reader = store.partition_reader(topic, partition, StartFrom::Offset(from.get()))?;
    let mut rows = Vec::with_capacity(limit);
    while rows.len() < limit {
        match reader.poll() {
            Ok(Some(m)) => rows.push(Row::Message(MessageRow::from(&m))),
            Ok(None) => break,
            Err(e) => rows.push(Row::Damaged(DamagedRow::of(&e).ok_or(e)?)),
        }
    }
    if topic_incarnation(store, topic) != incarnation {
        return Err(replaced(topic));
    }
    Ok(Page { partition, rows, next: reader.position().into(), end: end.into(), incarnation })
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

fn replaced(topic: &str) -> ErrorDto {
    ErrorDto::new(
        ErrorCode::TopicDeleted,
        format!("topic {topic:?} was deleted or made again by another process while it was read: what was read is dropped; read it again to see the topic as it is now"),
    )
}

/// The raw line at an offset, with its file and line number (for the detail pane).
pub fn raw_line(store: &Store, topic: &str, partition: u32, offset: Offset) -> Result<Option<RawLine>, ErrorDto> {
    let mut reader = store.partition_reader(topic, partition, StartFrom::Offset(offset.get()))?;
    let at = match reader.poll() {
        Ok(Some(m)) => m.offset,
        Ok(None) => return Ok(None),
        Err(e) => DamagedRow::of(&e).ok_or(e)?.offset.get(),
    };
    Ok(if at == offset.get() { reader.last_line().map(RawLine::from) } else { None })
}

pub fn offset_at_time(store: &Store, topic: &str, partition: u32, unix: f64) -> Result<Option<Offset>, ErrorDto> {
    Ok(scan::offset_at_time(store, topic, partition, unix)?.map(Offset))
}

/// Rows in a hits event, at most.
const HITS_BATCH: usize = 200;

/// Run a search, streaming hits in batches and progress (at most every 50 ms) as it goes.
pub fn search(store: &Store, topic: &str, q: &SearchQuery, cancel: &AtomicBool, send: &mut dyn FnMut(SearchEvent)) {
    let send = RefCell::new(send);
    let batch: RefCell<Vec<MessageRow>> = RefCell::new(Vec::new());
    let flush = || {
        let rows = std::mem::take(&mut *batch.borrow_mut());
        if !rows.is_empty() {
            (send.borrow_mut())(SearchEvent::Hits { rows });
        }
    };
    let last_progress = Cell::new(Instant::now());
    let on_hit = |m: &twainmq::Message| {
        let full = {
            let mut b = batch.borrow_mut();
            b.push(MessageRow::from(m));
            b.len() >= HITS_BATCH
        };
        if full {
            flush();
        }
    };
    let on_progress = |p: scan::Progress| {
        if last_progress.get().elapsed() >= Duration::from_millis(50) {
            last_progress.set(Instant::now());
            flush();
            (send.borrow_mut())(SearchEvent::from(p));
        }
    };
    let result = scan::search(store, topic, &scan::Query::from(q), u64::from(q.limit.max(1)), cancel, on_hit, on_progress);
    flush();
    (send.borrow_mut())(result.map_or_else(|e| SearchEvent::Failed { error: e.into() }, SearchEvent::from));
}

pub fn produce(store: &Store, topic: &str, key: &KeyText, payload: &ProducePayload) -> Result<Produced, ErrorDto> {
    let mut producer = store.producer(topic)?.with_offsets(true);
    let key = producer.parse_key(key.as_str())?;
    let d = producer.send(&key, &Outgoing::try_from(payload)?)?;
    Ok(Produced { partition: d.partition, offset: producer.resolve_offset(&d).ok().map(Offset) })
}

pub fn create_topic(store: &Store, t: &NewTopic) -> Result<TopicSummary, ErrorDto> {
    let key_type = KeyType::parse(t.key_type.trim())
        .ok_or_else(|| ErrorDto::from(twainmq::Error::InvalidKeyType { key_type: t.key_type.clone(), max_char: engine::MAX_CHAR_WIDTH }))?;
    let types: Vec<String> = t.message_types.iter().map(|s| s.trim().to_string()).filter(|s| !s.is_empty()).collect();
    store.create_topic(t.name.trim(), &TopicSpec::new(key_type, t.partitions).with_types(types))?;
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

/// UNIX seconds now, by the wall clock.
pub fn now() -> f64 {
    chrono::Utc::now().timestamp_micros() as f64 / 1e6
}

pub fn describe_group(store: &Store, name: &str, topic: Option<&str>) -> Result<GroupDetail, ErrorDto> {
    describe_group_at(store, name, topic, now())
}

/// [`describe_group`] with the backend's clock reading `now` (UNIX seconds).
pub fn describe_group_at(store: &Store, name: &str, topic: Option<&str>, now: f64) -> Result<GroupDetail, ErrorDto> {
    Ok(GroupDetail::new(&store.describe_group_on(name, topic)?, now))
}

pub fn reset_group(store: &Store, name: &str, req: &ResetRequest) -> Result<ResetPlanDto, ErrorDto> {
    let to = group::ResetTo::try_from(req)?;
    Ok(store.reset_group_on(name, req.topic.as_deref(), to, req.partitions.as_deref(), req.dry_run)?.into())
}

pub fn trigger_round(store: &Store, name: &str, window_ms: u32) -> Result<(), ErrorDto> {
    Ok(store.trigger_round(name, Duration::from_millis(u64::from(window_ms)))?)
}
