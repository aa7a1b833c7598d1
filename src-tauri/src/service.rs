//! What the commands do, on plain engine types (no Tauri here, so it is tested directly).

use std::cell::{Cell, RefCell};
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use twainmq::group;
use twainmq::scan::{self, Finish, Query};
use twainmq::{Error, KeyType, Outgoing, StartFrom, Store, TopicSpec};

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
/// a freed inode to the next folder made. `None` when neither exists.
/// The caller has validated `topic` (the engine refuses names that escape).
pub fn topic_incarnation(store: &Store, topic: &str) -> Option<String> {
    // The engine's token (identity of the topic's folder and config); an
    // invalid name has no incarnation.
    store.topic_incarnation(topic).ok().flatten().map(|i| i.to_string())
}

pub fn describe_topic(store: &Store, topic: &str) -> Result<TopicDetail, ErrorDto> {
    // The description is of one incarnation: read again (a few times at most)
    // when the topic was deleted and made again while it was described.
    let mut tries = 0;
    loop {
        tries += 1;
        let before = topic_incarnation_checked(store, topic)?;
        let detail = describe_once(store, topic, before.clone())?;
        if topic_incarnation(store, topic) == before || tries >= 3 {
            return Ok(detail);
        }
    }
}

fn describe_once(store: &Store, topic: &str, incarnation: Option<String>) -> Result<TopicDetail, ErrorDto> {
    let d = store.describe_topic(topic)?;
    let summary = topic_summary(store, topic);
    let partitions = d
        .partition_details
        .iter()
        .map(|p| PartitionDetail {
            partition: p.partition,
            start: p.start.to_string(),
            end: p.end.to_string(),
            bytes: p.bytes.to_string(),
            files: p
                .files
                .iter()
                .map(|f| FileDetail {
                    name: f.name.clone(),
                    day: f.day.clone(),
                    first: f.first.to_string(),
                    lines: f.lines.to_string(),
                    partial_bytes: f.partial_bytes.to_string(),
                    bytes: f.bytes.to_string(),
                    modified: f.modified,
                })
                .collect(),
        })
        .collect();
    Ok(TopicDetail { summary, partitions, unknown_files: d.unknown_files, incarnation })
}

pub fn parse_offset(text: &str) -> Result<u64, ErrorDto> {
    text.trim().parse().map_err(|_| ErrorDto::new("invalid_offset", format!("{text:?} is not an offset: give a whole number of 0 or more")))
}

/// Up to `limit` rows of `partition` from offset `from`: messages, and damaged lines in place.
///
/// The page carries the topic's incarnation; a page read while the topic was
/// deleted or made again (the incarnation changed meanwhile) could mix the old
/// topic's lines with the new one's, so it is refused with `topic_deleted`.
pub fn read_page(store: &Store, topic: &str, partition: u32, from: &str, limit: u32) -> Result<Page, ErrorDto> {
    let from = parse_offset(from)?;
    let limit = limit.clamp(1, MAX_PAGE) as usize;
    let incarnation = topic_incarnation_checked(store, topic)?;
    let end = store.end_offsets(topic)?.get(partition as usize).copied().unwrap_or(0);
    let mut reader = store.partition_reader(topic, partition, StartFrom::Offset(from))?;
    let mut rows = Vec::with_capacity(limit);
    while rows.len() < limit {
        match reader.poll() {
            Ok(Some(m)) => rows.push(Row::Message(MessageRow::from(&m))),
            Ok(None) => break,
            Err(Error::CorruptLine { partition, offset, path, line, problem, .. }) => rows.push(Row::Damaged(DamagedRow {
                partition,
                offset: offset.to_string(),
                file: path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default(),
                line: line.to_string(),
                problem: problem.to_string(),
            })),
            Err(e) => return Err(e.into()),
        }
    }
    if topic_incarnation(store, topic) != incarnation {
        return Err(replaced(topic));
    }
    Ok(Page { partition, rows, next: reader.position().to_string(), end: end.to_string(), incarnation })
}

/// The incarnation of `topic`, once its name is known not to escape the store:
/// a user topic's name, or a group's (`--group--G`), as the engine reads them.
pub fn topic_incarnation_checked(store: &Store, topic: &str) -> Result<Option<String>, ErrorDto> {
    match topic.strip_prefix(twainmq::limits::GROUP_PREFIX) {
        Some(g) => twainmq::names::validate_group(g)?,
        None => twainmq::names::validate_topic(topic)?,
    }
    Ok(topic_incarnation(store, topic))
}

fn replaced(topic: &str) -> ErrorDto {
    ErrorDto::new(
        "topic_deleted",
        format!("topic {topic:?} was deleted or made again by another process while it was read: what was read is dropped; read it again to see the topic as it is now"),
    )
}

/// The raw line at an offset, with its file and line number (for the detail pane).
pub fn raw_line(store: &Store, topic: &str, partition: u32, offset: &str) -> Result<Option<RawLine>, ErrorDto> {
    let offset = parse_offset(offset)?;
    let mut reader = store.partition_reader(topic, partition, StartFrom::Offset(offset))?;
    match reader.poll() {
        Ok(Some(m)) if m.offset == offset => {}
        Err(Error::CorruptLine { offset: o, .. }) if o == offset => {}
        Ok(_) | Err(Error::CorruptLine { .. }) => return Ok(None),
        Err(e) => return Err(e.into()),
    }
    Ok(reader.last_line().map(|(path, line, raw)| RawLine {
        file: path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default(),
        line: line.to_string(),
        raw: String::from_utf8_lossy(raw).into_owned(),
    }))
}

pub fn offset_at_time(store: &Store, topic: &str, partition: u32, unix: f64) -> Result<Option<String>, ErrorDto> {
    Ok(scan::offset_at_time(store, topic, partition, unix)?.map(|o| o.to_string()))
}

/// Run a search, streaming hits in batches and progress (at most every 50 ms) as it goes.
pub fn search(store: &Store, topic: &str, q: &SearchQuery, cancel: &AtomicBool, send: &mut dyn FnMut(SearchEvent)) {
    let query = Query {
        key: q.key.clone().filter(|k| !k.is_empty()),
        text: q.text.clone().filter(|t| !t.is_empty()),
        regex: q.regex,
        case_sensitive: q.case_sensitive,
        partitions: q.partitions.clone(),
    };
    let send = RefCell::new(send);
    let batch: RefCell<Vec<MessageRow>> = RefCell::new(Vec::new());
    let flush = || {
        let rows = std::mem::take(&mut *batch.borrow_mut());
        if !rows.is_empty() {
            (send.borrow_mut())(SearchEvent::Hits { rows });
        }
    };
    let last_progress = Cell::new(Instant::now());
    let result = scan::search(
        store,
        topic,
        &query,
        u64::from(q.limit.max(1)),
        cancel,
        |m| {
            let full = {
                let mut b = batch.borrow_mut();
                b.push(MessageRow::from(m));
                b.len() >= 200
            };
            if full {
                flush();
            }
        },
        |p| {
            if last_progress.get().elapsed() >= Duration::from_millis(50) {
                last_progress.set(Instant::now());
                flush();
                (send.borrow_mut())(SearchEvent::Progress {
                    scanned: p.scanned.to_string(),
                    total: p.total.to_string(),
                    hits: p.hits.to_string(),
                });
            }
        },
    );
    flush();
    let event = match result {
        Ok((finish, progress)) => {
            let finish = match finish {
                Finish::Cancelled => "cancelled",
                Finish::Limit => "limit",
                _ => "done",
            };
            SearchEvent::Done { scanned: progress.scanned.to_string(), hits: progress.hits.to_string(), finish: finish.into() }
        }
        Err(e) => SearchEvent::Failed { error: e.into() },
    };
    (send.borrow_mut())(event);
}

pub fn produce(store: &Store, topic: &str, key: &str, payload: &ProducePayload) -> Result<Produced, ErrorDto> {
    let mut producer = store.producer(topic)?.with_offsets(true);
    let key = producer.parse_key(key)?;
    let out = match payload.kind.as_str() {
        "text" => Outgoing::Text(payload.body.clone()),
        "hex" => {
            let clean: String = payload.body.chars().filter(|c| !c.is_whitespace()).collect();
            let bytes =
                hex::decode(&clean).map_err(|_| ErrorDto::new("invalid_hex", "the payload is not valid hex: use pairs of 0-9 a-f"))?;
            Outgoing::Bytes(bytes)
        }
        "json" => {
            let class = payload.class.clone().ok_or_else(|| ErrorDto::new("missing_class", "pick the message type of a typed message"))?;
            Outgoing::typed_json(class, &payload.body)
                .map_err(|e| ErrorDto::new("invalid_json", format!("the payload is not valid JSON: {e}")))?
        }
        other => return Err(ErrorDto::new("invalid_payload_kind", format!("unknown payload kind {other:?}: use text, json or hex"))),
    };
    let d = producer.send(&key, &out)?;
    let offset = producer.resolve_offset(&d).ok().map(|o| o.to_string());
    Ok(Produced { partition: d.partition, offset })
}

pub fn create_topic(store: &Store, t: &NewTopic) -> Result<TopicSummary, ErrorDto> {
    let key_type = KeyType::parse(t.key_type.trim())
        .ok_or_else(|| ErrorDto::from(Error::InvalidKeyType { key_type: t.key_type.clone(), max_char: twainmq::limits::MAX_CHAR_WIDTH }))?;
    let types: Vec<String> = t.message_types.iter().map(|s| s.trim().to_string()).filter(|s| !s.is_empty()).collect();
    store.create_topic(t.name.trim(), &TopicSpec::new(key_type, t.partitions).with_types(types))?;
    Ok(topic_summary(store, t.name.trim()))
}

/// The consumer groups that read `topic`: deleting the topic deletes them too
/// (the delete dialog lists them first).
pub fn topic_groups(store: &Store, topic: &str) -> Result<Vec<String>, ErrorDto> {
    twainmq::names::validate_topic(topic)?;
    Ok(store.groups_reading(topic)?)
}

/// Delete a topic and the groups that read it (so their commits never apply to
/// a topic made again under the same name); says which groups went.
pub fn delete_topic(store: &Store, topic: &str, confirm: &str) -> Result<DeletedTopic, ErrorDto> {
    if confirm != topic {
        return Err(ErrorDto::new("confirmation_mismatch", format!("type the topic's name, {topic:?}, to confirm the deletion")));
    }
    let groups = store.delete_topic(topic)?;
    Ok(DeletedTopic { topic: topic.to_string(), groups })
}

fn round_dto(r: &group::RoundView) -> RoundDto {
    RoundDto {
        begin_offset: r.begin_offset.to_string(),
        started_by: r.started_by,
        started_at: r.started_at,
        ends_at: r.ends_at,
        offers: r.offers.iter().map(|o| OfferDto { id: o.id, own: o.own.clone(), partitions: o.partitions.clone(), at: o.at }).collect(),
        ended_at: r.ended_at,
        ended_by: r.ended_by,
        superseded: r.superseded,
        assignment: r.assignment.iter().map(|(k, v)| (k.to_string(), v.clone())).collect(),
        confirms: r.confirms.iter().map(|(k, v)| (k.to_string(), v.clone())).collect(),
    }
}

pub fn describe_group(store: &Store, name: &str, topic: Option<&str>) -> Result<GroupDetail, ErrorDto> {
    let d = store.describe_group_on(name, topic)?;
    Ok(GroupDetail {
        name: d.group.clone(),
        topic: d.topic.clone(),
        topic_candidates: d.topic_candidates.clone(),
        members: d
            .members
            .iter()
            .map(|m| MemberDto { id: m.id, partitions: m.partitions.clone(), joined_at: m.joined_at, last_seen_at: m.last_seen_at })
            .collect(),
        partitions: d
            .partitions
            .iter()
            .map(|p| PartitionProgressDto {
                partition: p.partition,
                committed: p.committed.map(|c| c.to_string()),
                end: p.end.to_string(),
                lag: p.lag.to_string(),
                oldest_unconsumed_at: p.oldest_unconsumed_at,
                owner: p.owner,
            })
            .collect(),
        open_round: d.open_round.as_ref().map(round_dto),
        rounds: d.rounds.iter().rev().map(round_dto).collect(),
        records: d.records.to_string(),
        last_record_at: d.last_record_at,
        now: chrono::Utc::now().timestamp_micros() as f64 / 1e6,
    })
}

pub fn reset_group(store: &Store, name: &str, req: &ResetRequest) -> Result<ResetPlanDto, ErrorDto> {
    let to = match req.to.as_str() {
        "earliest" => group::ResetTo::Earliest,
        "latest" => group::ResetTo::Latest,
        "offset" => group::ResetTo::Offset(parse_offset(req.offset.as_deref().unwrap_or(""))?),
        "time" => group::ResetTo::Time(req.time.ok_or_else(|| ErrorDto::new("invalid_reset", "a reset to a time needs the time"))?),
        other => {
            return Err(ErrorDto::new("invalid_reset", format!("{other:?} is not a reset target: use earliest, latest, offset or time")))
        }
    };
    let plan = store.reset_group_on(name, req.topic.as_deref(), to, req.partitions.as_deref(), req.dry_run)?;
    Ok(ResetPlanDto {
        group: plan.group,
        topic: plan.topic,
        rows: plan
            .rows
            .iter()
            .map(|r| ResetRowDto {
                partition: r.partition,
                before: r.before.map(|b| b.to_string()),
                after: r.after.to_string(),
                start: r.start.to_string(),
                end: r.end.to_string(),
            })
            .collect(),
        live_members: plan.live_members,
        applied: plan.applied,
    })
}

pub fn trigger_round(store: &Store, name: &str, window_ms: u32) -> Result<(), ErrorDto> {
    Ok(store.trigger_round(name, std::time::Duration::from_millis(u64::from(window_ms)))?)
}
