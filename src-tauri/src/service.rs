//! What the commands do, on plain engine types (no Tauri here, so it is tested directly).

use std::cell::{Cell, RefCell};
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use twainmq::group;
use twainmq::scan;
use twainmq::{KeyType, Outgoing, StartFrom, Store, TimelineStart, TopicSpec};

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

/// Run a search to its end (or its cancel), sending progress at most every
/// 50 ms and then `done` or `failed`. The hits are handed to `on_settled` in
/// timeline order as they settle (the session keeps them, never capped), so
/// the first are readable within milliseconds. Returns whether it ran (not failed).
pub fn search(
    store: &Store,
    topic: &str,
    q: &SearchQuery,
    cancel: &AtomicBool,
    send: &mut dyn FnMut(SearchEvent),
    on_settled: &mut dyn FnMut(&[scan::HitRef]),
) -> bool {
    let query = match scan::Query::try_from(q) {
        Ok(query) => query,
        Err(error) => {
            send(SearchEvent::Failed { error });
            return false;
        }
    };
    let last = Cell::new(Instant::now());
    let latest = Cell::new(scan::Progress::default());
    let settled = Cell::new(0u64);
    let sender = RefCell::new(send);
    let on_progress = |p: scan::Progress| {
        latest.set(p);
        if last.get().elapsed() >= Duration::from_millis(50) {
            last.set(Instant::now());
            (sender.borrow_mut())(SearchEvent::from((p, settled.get())));
        }
    };
    let hand_over = |h: &[scan::HitRef]| {
        on_settled(h);
        settled.set(settled.get() + h.len() as u64);
        // The first hits are shown at once, not at the next 50 ms tick.
        if settled.get() == h.len() as u64 {
            (sender.borrow_mut())(SearchEvent::from((latest.get(), settled.get())));
        }
    };
    let result = scan::find_streaming(store, topic, &query, cancel, on_progress, hand_over);
    let send = sender.into_inner();
    match result {
        Ok((finish, _)) => {
            send(SearchEvent::from((finish, latest.get(), settled.get())));
            true
        }
        Err(e) => {
            send(SearchEvent::Failed { error: e.into() });
            false
        }
    }
}

/// The rows of `page` (the session's hits from `from` on), of `settled` hits readable in all.
pub fn search_rows(store: &Store, topic: &str, page: &[scan::HitRef], from: Count, settled: u64) -> Result<SearchRows, ErrorDto> {
    let rows = scan::read_hits(store, topic, page)?.iter().map(MessageRow::from).collect();
    Ok(SearchRows { from, rows, hits: Count(settled) })
}

/// Whether a CEL filter compiles (for the filter box, as it is typed).
pub fn check_filter(expr: &str) -> FilterCheck {
    twainmq::Filter::compile(expr).into()
}

/// Messages the field list samples, newest first.
pub const FIELD_SAMPLE: usize = 200;
/// Field paths the list gives at most.
const MAX_FIELDS: usize = 300;

/// The JSON field paths seen in the newest messages of a topic (a text
/// payload that is JSON, a typed message's fields), as the filter names them:
/// `value.country`, `value.items`, `value.user.name`; sorted.
pub fn topic_fields(store: &Store, topic: &str) -> Result<Vec<String>, ErrorDto> {
    engine::validate_topic(topic)?;
    let page = store.timeline_page_before(topic, None, None, FIELD_SAMPLE)?;
    let mut out = std::collections::BTreeSet::new();
    for m in &page.messages {
        let value = match &m.payload {
            twainmq::Payload::Text(s) if s.trim_start().starts_with('{') => serde_json::from_str::<serde_json::Value>(s).ok(),
            twainmq::Payload::Typed(t) => t.fields().or_else(|| serde_json::from_str(&t.json).ok()),
            _ => None,
        };
        if let Some(v) = value {
            field_paths(&v, "value", 0, &mut out);
        }
        if out.len() >= MAX_FIELDS {
            break;
        }
    }
    Ok(out.into_iter().take(MAX_FIELDS).collect())
}

fn field_paths(v: &serde_json::Value, path: &str, depth: usize, out: &mut std::collections::BTreeSet<String>) {
    let serde_json::Value::Object(o) = v else { return };
    for (k, x) in o {
        // Names CEL can write after a dot; others need value["..."], not offered.
        let plain = k.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        if !plain {
            continue;
        }
        let p = format!("{path}.{k}");
        if depth < 3 {
            field_paths(x, &p, depth + 1, out);
        }
        out.insert(p);
    }
}

/// Lines from each partition's first to its end, summed: the timeline's length.
fn span(first: &[u64], ends: &[u64]) -> u64 {
    first.iter().zip(ends).map(|(f, e)| e.saturating_sub(*f)).sum()
}

fn timeline_dto(
    store: &Store,
    topic: &str,
    page: twainmq::TimelinePage,
    incarnation: Option<Incarnation>,
) -> Result<TimelinePageDto, ErrorDto> {
    let ends = store.end_offsets(topic)?;
    let ends: Vec<u64> = page.partitions.iter().map(|p| ends.get(*p as usize).copied().unwrap_or(0)).collect();
    let offsets = |v: &[u64]| v.iter().copied().map(Offset).collect::<Vec<_>>();
    Ok(TimelinePageDto {
        base: Count(span(&page.first, &page.begin)),
        total: Count(span(&page.first, &ends)),
        rows: page.messages.iter().map(MessageRow::from).collect(),
        begin: offsets(&page.begin),
        end: offsets(&page.end),
        first: offsets(&page.first),
        partitions: page.partitions,
        incarnation,
    })
}

/// The `limit` messages of the timeline before the cut `before` (`None`: the end, so the newest).
pub fn timeline_before(
    store: &Store,
    topic: &str,
    partitions: Option<&[u32]>,
    before: Option<&[Offset]>,
    limit: u32,
) -> Result<TimelinePageDto, ErrorDto> {
    let incarnation = topic_incarnation_checked(store, topic)?;
    let before: Option<Vec<u64>> = before.map(|b| b.iter().map(|o| o.get()).collect());
    let page = store.timeline_page_before(topic, partitions, before.as_deref(), limit.clamp(1, MAX_PAGE) as usize)?;
    checked(store, topic, incarnation, page)
}

/// The `limit` messages of the timeline from `start` on.
pub fn timeline_after(
    store: &Store,
    topic: &str,
    partitions: Option<&[u32]>,
    start: &TimelineAnchor,
    limit: u32,
) -> Result<TimelinePageDto, ErrorDto> {
    let incarnation = topic_incarnation_checked(store, topic)?;
    let start = match start {
        TimelineAnchor::Start => TimelineStart::Start,
        TimelineAnchor::End => TimelineStart::End,
        TimelineAnchor::Time { unix } => TimelineStart::Time(*unix),
        TimelineAnchor::At { offsets } => TimelineStart::At(offsets.iter().map(|o| o.get()).collect()),
        TimelineAnchor::Index { index } => cut_near(store, topic, partitions, index.get())?,
    };
    let page = store.timeline_page_after(topic, partitions, &start, limit.min(MAX_PAGE) as usize)?;
    checked(store, topic, incarnation, page)
}

fn checked(store: &Store, topic: &str, incarnation: Option<Incarnation>, page: twainmq::TimelinePage) -> Result<TimelinePageDto, ErrorDto> {
    if topic_incarnation(store, topic) != incarnation {
        return Err(replaced(topic));
    }
    timeline_dto(store, topic, page, incarnation)
}

/// A cut of the timeline with about `index` lines before it: the time whose
/// cut has that many, by bisection between the oldest and newest timestamps
/// (each step a time-index lookup per partition, O(log n)).
fn cut_near(store: &Store, topic: &str, partitions: Option<&[u32]>, index: u64) -> Result<TimelineStart, ErrorDto> {
    if index == 0 {
        return Ok(TimelineStart::Start);
    }
    let oldest = store.timeline_page_after(topic, partitions, &TimelineStart::Start, 1)?;
    let newest = store.timeline_page_before(topic, partitions, None, 1)?;
    let (Some(a), Some(b)) = (oldest.messages.first(), newest.messages.first()) else { return Ok(TimelineStart::Start) };
    if index >= span(&newest.first, &newest.end) {
        return Ok(TimelineStart::At(newest.begin));
    }
    let (mut lo, mut hi) = (a.timestamp, b.timestamp);
    let mut best = oldest.begin;
    for _ in 0..48 {
        if hi - lo < 1e-6 {
            break;
        }
        let mid = lo + (hi - lo) / 2.0;
        let cut = store.timeline_page_after(topic, partitions, &TimelineStart::Time(mid), 0)?.begin;
        let before = span(&oldest.first, &cut);
        if before <= index {
            best = cut;
            lo = mid;
        } else {
            hi = mid;
        }
        if before == index {
            break;
        }
    }
    Ok(TimelineStart::At(best))
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
    // The offset the request names per partition: the engine keeps every target within the
    // partition's start..end, and a row says when that moved what was asked for.
    let asked = |p: u32| -> Option<u64> {
        let named = match &to {
            group::ResetTo::Offset(o) => return Some(*o),
            group::ResetTo::Offsets(m) => m.get(&p),
            group::ResetTo::File(f) => f.offsets.get(&p),
            _ => None,
        };
        named.and_then(|o| u64::try_from(*o).ok())
    };
    let plan = store.reset_group_on(name, req.topic.as_deref(), to.clone(), req.partitions.as_deref(), req.dry_run)?;
    let clamped: Vec<Option<u64>> = plan.rows.iter().map(|r| asked(r.partition).filter(|&o| o != r.after)).collect();
    let mut dto = ResetPlanDto::from(plan);
    for (row, from) in dto.rows.iter_mut().zip(clamped) {
        row.clamped_from = from.map(Offset);
    }
    Ok(dto)
}

pub fn trigger_round(store: &Store, name: &str, window_ms: u32) -> Result<(), ErrorDto> {
    Ok(store.trigger_round(name, Duration::from_millis(u64::from(window_ms)))?)
}
