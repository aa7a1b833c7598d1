//! What the messages' commands do, on plain engine types (no Tauri here, so it
//! is tested directly): pages of a partition (damaged lines in place), raw
//! lines, time lookups, pages of a topic's timeline (its partitions merged by
//! timestamp), and producing a message.
//!
//! [`Messages`] is what a source of messages answers; a store folder
//! ([`Store`]) is today's only one (see `crate::source`).

use std::io::Read;
use std::sync::atomic::AtomicBool;

use twainmq::scan;
use twainmq::{Key, Message, Payload, StartFrom, Store, TimelineStart};

use super::wire::{
    DamagedRow, KeyInput, MessageRef, MessageRow, Page, PartRow, PayloadSlice, ProduceKind, ProducePayload, Produced, RawLine, Row,
    SavedPayload, TimelineAnchor, TimelinePageDto,
};
use crate::topics::service::{self as topics, topic_incarnation, topic_incarnation_checked};
use crate::wire::{Bytes as WireBytes, Count, ErrorCode, ErrorDto, Incarnation, Offset};

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
    fn produce(&self, topic: &str, key: &KeyInput, payload: &ProducePayload) -> Result<Produced, ErrorDto>;
    /// A slice of the payload of the message at an offset (a payload of any size, a slice at a time).
    fn message_payload(
        &self,
        topic: &str,
        partition: u32,
        offset: Offset,
        incarnation: Option<&Incarnation>,
        from: WireBytes,
        len: u32,
    ) -> Result<PayloadSlice, ErrorDto>;
    /// Save the payload of the message at an offset to a file, whole or not at all.
    fn save_payload(
        &self,
        topic: &str,
        partition: u32,
        offset: Offset,
        incarnation: Option<&Incarnation>,
        path: &str,
    ) -> Result<SavedPayload, ErrorDto>;
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
    fn produce(&self, topic: &str, key: &KeyInput, payload: &ProducePayload) -> Result<Produced, ErrorDto> {
        produce(self, topic, key, payload)
    }
    fn message_payload(
        &self,
        topic: &str,
        partition: u32,
        offset: Offset,
        incarnation: Option<&Incarnation>,
        from: WireBytes,
        len: u32,
    ) -> Result<PayloadSlice, ErrorDto> {
        message_payload(self, topic, partition, offset, incarnation, from, len)
    }
    fn save_payload(
        &self,
        topic: &str,
        partition: u32,
        offset: Offset,
        incarnation: Option<&Incarnation>,
        path: &str,
    ) -> Result<SavedPayload, ErrorDto> {
        save_payload(self, topic, partition, offset, incarnation, path)
    }
}

/// The rows of `partition`'s offsets `from..from + limit` (at most [`MAX_PAGE`]): messages,
/// damaged lines in place, and the lines of large messages' parts (a large message is shown
/// at its last part's offset), so every offset read has its row.
///
/// The page carries the topic's incarnation; a page read while the topic was
/// deleted or made again (the incarnation changed meanwhile) could mix the old
/// topic's lines with the new one's, so it is refused with `topic_deleted`.
pub fn read_page(store: &Store, topic: &str, partition: u32, from: Offset, limit: u32) -> Result<Page, ErrorDto> {
    let limit = limit.clamp(1, MAX_PAGE) as usize;
    let incarnation = topic_incarnation_checked(store, topic)?;
    let end = store.end_offsets(topic)?.get(partition as usize).copied().unwrap_or(0);
    let mut reader = store.partition_reader(topic, partition, StartFrom::Offset(from.get()))?;
    // The offsets the page covers: a large message's parts take an offset each, so a page of
    // `limit` offsets may hold far fewer messages (and each is read whole: never more than needed).
    let first = reader.position();
    let mut bound = first.saturating_add(limit as u64);
    let mut rows = Vec::with_capacity(limit);
    let mut unseen = first;
    while unseen < bound {
        let row = match reader.poll() {
            Ok(Some(m)) => Row::Message(MessageRow::from(&m)),
            Ok(None) => break,
            Err(e) => Row::Damaged(DamagedRow::of(&e).ok_or(e)?),
        };
        let at = row.offset();
        if rows.is_empty() && at > unseen {
            // Offsets skipped before the page's first row are a large message's earlier parts,
            // or gone (before the partition's first file, after retention or a purge): those
            // have no row. Only a page that starts in such a gap pays for the listing.
            let start = store.describe_topic(topic)?.partition_details.get(partition as usize).map_or(0, |p| p.start);
            if start > unseen {
                // The page starts at the partition's first line, and covers `limit` offsets from there.
                unseen = start.min(at);
                bound = unseen.saturating_add(limit as u64);
            }
        }
        let next_message = matches!(row, Row::Message(_)).then_some(Offset(at));
        rows.extend((unseen..at.min(bound)).map(|o| Row::Part(PartRow { partition, offset: Offset(o), next_message })));
        if at >= bound {
            // A large message ending past the page: the row of a later page.
            unseen = bound;
            break;
        }
        rows.push(row);
        unseen = unseen.max(at + 1);
    }
    // Lines read past at the end: parts of a message not ended (being written, or torn by a crash).
    let read = reader.position().min(bound);
    if read > unseen {
        rows.extend((unseen..read).map(|o| Row::Part(PartRow { partition, offset: Offset(o), next_message: None })));
        unseen = read;
    }
    if topic_incarnation(store, topic) != incarnation {
        return Err(topics::replaced(topic));
    }
    Ok(Page { partition, rows, next: unseen.into(), end: end.into(), incarnation })
}

/// The message at `offset` of `partition`, of the topic's incarnation `incarnation` (the one
/// its row was read from: a message of a topic made again since is not that row's).
fn message_at(store: &Store, topic: &str, partition: u32, offset: Offset, incarnation: Option<&Incarnation>) -> Result<Message, ErrorDto> {
    let now = topic_incarnation_checked(store, topic)?;
    if incarnation.is_some() && now.as_ref() != incarnation {
        return Err(topics::replaced(topic));
    }
    let mut reader = store.partition_reader(topic, partition, StartFrom::Offset(offset.get()))?;
    let found = match reader.poll() {
        Ok(Some(m)) if m.offset == offset.get() => Some(m),
        Ok(_) => None,
        Err(e) if DamagedRow::of(&e).is_some_and(|d| d.offset != offset) => None,
        Err(e) => return Err(e.into()),
    };
    if topic_incarnation(store, topic) != now {
        return Err(topics::replaced(topic));
    }
    found.ok_or_else(|| {
        ErrorDto::new(
            ErrorCode::NoMessage,
            format!("there is no message at offset {offset} of partition {partition} of {topic}: a part of a large message (shown whole at its last part's offset), or deleted since; reload the table"),
        )
    })
}

/// Bytes `from..from + len` of the payload of the message at `offset` (see [`PayloadSlice`]).
pub fn message_payload(
    store: &Store,
    topic: &str,
    partition: u32,
    offset: Offset,
    incarnation: Option<&Incarnation>,
    from: WireBytes,
    len: u32,
) -> Result<PayloadSlice, ErrorDto> {
    let m = message_at(store, topic, partition, offset, incarnation)?;
    Ok(PayloadSlice::of(&m.payload, from.get(), len))
}

/// Save the payload of the message at `offset` to the file `path`, its own bytes (text as
/// UTF-8, bytes as they are, a typed message's JSON): whole or not at all, never inside a
/// store, as exports are written (`twainmq::transfer::write_file`).
pub fn save_payload(
    store: &Store,
    topic: &str,
    partition: u32,
    offset: Offset,
    incarnation: Option<&Incarnation>,
    path: &str,
) -> Result<SavedPayload, ErrorDto> {
    let target = std::path::Path::new(path.trim());
    if !target.is_absolute() {
        return Err(ErrorDto::new(
            ErrorCode::BadExportTarget,
            format!("{path:?} is not a full path: choose the file, or type its path from the root"),
        ));
    }
    let m = message_at(store, topic, partition, offset, incarnation)?;
    let bytes: &[u8] = match &m.payload {
        Payload::Text(s) => s.as_bytes(),
        Payload::Bytes(b) => b,
        Payload::Typed(t) => t.json.as_bytes(),
    };
    let wrote = twainmq::transfer::write_file(store, target, &AtomicBool::new(false), &mut |w| {
        w.write_all(bytes).map_err(|e| twainmq::Error::Io { op: "write", path: target.to_path_buf(), cause: e })
    })?;
    if !wrote {
        return Err(ErrorDto::new(ErrorCode::Io, format!("{path} was not written")));
    }
    Ok(SavedPayload { path: target.display().to_string(), bytes: WireBytes(bytes.len() as u64) })
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

/// Send one message: its key as the person gave it (text, hex or none), its payload typed
/// or read from a file (a message of any size the topic takes).
pub fn produce(store: &Store, topic: &str, key: &KeyInput, payload: &ProducePayload) -> Result<Produced, ErrorDto> {
    let mut producer = store.producer(topic)?.with_offsets(true);
    let key = match key {
        KeyInput::Text { text } => producer.parse_key(text)?,
        KeyInput::Hex { hex } => {
            let clean: String = hex.chars().filter(|c| !c.is_whitespace()).collect();
            let bytes = hex::decode(clean.trim_start_matches("0x"))
                .map_err(|_| ErrorDto::new(ErrorCode::InvalidHex, "the key is not valid hex: use pairs of 0-9 a-f"))?;
            producer.check_key(Key::Bytes(bytes))?
        }
        KeyInput::NoKey => producer.check_key(Key::Null)?,
    };
    let content = match &payload.file {
        Some(path) => read_value_file(path, payload.kind)?,
        None => payload.body.clone().into_bytes(),
    };
    let d = producer.send(&key, &payload.outgoing(content)?)?;
    Ok(Produced { partition: d.partition, offset: producer.resolve_offset(&d).ok().map(Offset) })
}

/// The contents of a file to send as a message: a regular file of at most the largest
/// message any topic takes (twice that as hex), read as it is.
fn read_value_file(path: &str, kind: ProduceKind) -> Result<Vec<u8>, ErrorDto> {
    let p = std::path::Path::new(path.trim());
    let io = |e: std::io::Error| ErrorDto::from(twainmq::Error::Io { op: "read", path: p.to_path_buf(), cause: e });
    let meta = std::fs::metadata(p).map_err(io)?;
    if !meta.is_file() {
        let what = if meta.is_dir() { "a folder" } else { "not a regular file" };
        return Err(ErrorDto::new(ErrorCode::NotAFile, format!("{path} is {what}: pick the file whose contents are the message")));
    }
    let max = twainmq::limits::MAX_MESSAGE_BYTES_LIMIT;
    let limit = if kind == ProduceKind::Hex { 2 * max + 2 } else { max + 1 };
    let mut data = Vec::new();
    // Opened without blocking (a FIFO put there since would otherwise hang the send).
    twainmq::transfer::open_input(p, std::sync::Arc::new(AtomicBool::new(false)))?.take(limit).read_to_end(&mut data).map_err(io)?;
    if data.len() as u64 >= limit {
        return Err(ErrorDto::new(
            ErrorCode::MessageTooLong,
            format!(
                "{path} is over {max} bytes{}: no topic takes a message that large",
                if kind == ProduceKind::Hex { " as bytes" } else { "" }
            ),
        ));
    }
    Ok(data)
}
