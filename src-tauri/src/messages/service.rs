//! What the messages' commands do, on plain engine types (no Tauri here, so it
//! is tested directly): pages of a partition (damaged lines in place), raw
//! lines, time lookups, pages of a topic's timeline (its partitions merged by
//! timestamp), and producing a message.
//!
//! [`Messages`] is what a source of messages answers; a store folder
//! ([`Store`]) is today's only one (see `crate::source`).

use twainmq::scan;
use twainmq::{Outgoing, StartFrom, Store, TimelineStart};

use super::wire::{DamagedRow, MessageRef, MessageRow, Page, ProducePayload, Produced, RawLine, Row, TimelineAnchor, TimelinePageDto};
use crate::topics::service::{self as topics, topic_incarnation, topic_incarnation_checked};
use crate::wire::{Count, ErrorDto, Incarnation, KeyText, Offset};

/// Longest page a caller may ask for.
pub const MAX_PAGE: u32 = 2000;

/// What the messages' commands ask of a source.
pub trait Messages {
    /// Up to `limit` rows of `partition` from offset `from`.
    fn read_page(&self, topic: &str, partition: u32, from: Offset, limit: u32) -> Result<Page, ErrorDto>;
    /// The raw line at an offset, with its file and line number.
    fn raw_line(&self, topic: &str, partition: u32, offset: Offset) -> Result<Option<RawLine>, ErrorDto>;
    /// The raw lines of these messages, in their order.
    fn raw_lines(&self, topic: &str, messages: &[MessageRef]) -> Result<Vec<RawLine>, ErrorDto>;
    /// The first offset of `partition` stamped at or after `unix`.
    fn offset_at_time(&self, topic: &str, partition: u32, unix: f64) -> Result<Option<Offset>, ErrorDto>;
    /// The page of the timeline before a cut (`None`: the end).
    fn timeline_before(
        &self,
        topic: &str,
        partitions: Option<&[u32]>,
        before: Option<&[Offset]>,
        limit: u32,
    ) -> Result<TimelinePageDto, ErrorDto>;
    /// The page of the timeline from an anchor on.
    fn timeline_after(
        &self,
        topic: &str,
        partitions: Option<&[u32]>,
        start: &TimelineAnchor,
        limit: u32,
    ) -> Result<TimelinePageDto, ErrorDto>;
    /// Send one message; where it landed.
    fn produce(&self, topic: &str, key: &KeyText, payload: &ProducePayload) -> Result<Produced, ErrorDto>;
}

impl Messages for Store {
    fn read_page(&self, topic: &str, partition: u32, from: Offset, limit: u32) -> Result<Page, ErrorDto> {
        read_page(self, topic, partition, from, limit)
    }
    fn raw_line(&self, topic: &str, partition: u32, offset: Offset) -> Result<Option<RawLine>, ErrorDto> {
        raw_line(self, topic, partition, offset)
    }
    fn raw_lines(&self, topic: &str, messages: &[MessageRef]) -> Result<Vec<RawLine>, ErrorDto> {
        raw_lines(self, topic, messages)
    }
    fn offset_at_time(&self, topic: &str, partition: u32, unix: f64) -> Result<Option<Offset>, ErrorDto> {
        offset_at_time(self, topic, partition, unix)
    }
    fn timeline_before(
        &self,
        topic: &str,
        partitions: Option<&[u32]>,
        before: Option<&[Offset]>,
        limit: u32,
    ) -> Result<TimelinePageDto, ErrorDto> {
        timeline_before(self, topic, partitions, before, limit)
    }
    fn timeline_after(
        &self,
        topic: &str,
        partitions: Option<&[u32]>,
        start: &TimelineAnchor,
        limit: u32,
    ) -> Result<TimelinePageDto, ErrorDto> {
        timeline_after(self, topic, partitions, start, limit)
    }
    fn produce(&self, topic: &str, key: &KeyText, payload: &ProducePayload) -> Result<Produced, ErrorDto> {
        produce(self, topic, key, payload)
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
        return Err(topics::replaced(topic));
    }
    Ok(Page { partition, rows, next: reader.position().into(), end: end.into(), incarnation })
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

/// The raw lines of `messages` of `topic`, in their order, as stored: what Copy Raw Line puts
/// on the clipboard. A message no longer there (its file cut by retention, say) is left out.
pub fn raw_lines(store: &Store, topic: &str, messages: &[MessageRef]) -> Result<Vec<RawLine>, ErrorDto> {
    let mut out = Vec::with_capacity(messages.len());
    for m in messages {
        out.extend(raw_line(store, topic, m.partition, m.offset)?);
    }
    Ok(out)
}

pub fn offset_at_time(store: &Store, topic: &str, partition: u32, unix: f64) -> Result<Option<Offset>, ErrorDto> {
    Ok(scan::offset_at_time(store, topic, partition, unix)?.map(Offset))
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
        return Err(topics::replaced(topic));
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
