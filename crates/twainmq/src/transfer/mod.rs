//! Messages in and out of a store: [`export`] a selection (a topic, a time
//! range, a search's result, picked messages) to JSONL, CSV or another
//! store; [`import`] JSONL or CSV into a topic (a dry run first); [`copy`] a
//! selection into another topic, of this store or another. Every one streams
//! in batches (flat memory whatever the count), reports progress and stops
//! when its cancel flag is set.
//!
//! A selection is read in timeline order (the partitions merged by
//! timestamp, as the app and `consume --by-time` show them), up to the end
//! each partition had when the operation began: a producer appending meanwhile
//! neither makes it run forever nor gets half its messages taken.

mod copy;
mod csv_in;
mod export;
mod import;
mod input;
mod output;
mod records;
mod run;
mod send;

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::sync::atomic::{AtomicBool, Ordering};

pub use copy::{copy, CopyOptions, CopyReport};
pub use csv_in::csv_columns;
pub use export::{export, export_to_store, ExportFormat, ExportReport};
pub use import::import;
pub use input::open_input;
pub use output::{export_file, write_file, write_file_outside_stores};
pub use records::{csv_header, message_csv_row, Record};
pub use run::{ImportFormat, ImportOptions, ImportReport, PayloadColumn, Resume, SkippedLine};

use crate::error::Result;
use crate::format::message::Message;
use crate::log::cursor::StartFrom;
use crate::log::reader::PartitionReader;
use crate::scan::{self, Finish, Head, HitRef, Query};
use crate::store::Store;

/// Messages read, written or sent per batch.
pub(crate) const BATCH: usize = 4096;

/// Payload bytes a batch holds at most (past one message): a topic of large
/// messages is moved a few messages at a time, so memory stays flat.
pub(crate) const BATCH_BYTES: usize = 16 << 20;

/// The payload bytes of a message (what batches count).
pub(crate) fn payload_len(p: &crate::format::payload::Payload) -> usize {
    match p {
        crate::format::payload::Payload::Text(s) => s.len(),
        crate::format::payload::Payload::Bytes(b) => b.len(),
        crate::format::payload::Payload::Typed(t) => t.json.len(),
    }
}

/// What to export or copy: the messages of `topic` that `query` matches
/// (every message for the default query), or exactly the `picked` ones.
#[derive(Debug, Clone, Default)]
pub struct Selection {
    /// The topic read.
    pub topic: String,
    /// The conditions (partitions, time range, key, text, filter); all must hold.
    pub query: Query,
    /// Exactly these messages `(partition, offset)` (the rows picked in a
    /// table), in this order; `query` is then not used.
    pub picked: Option<Vec<(u32, u64)>>,
}

impl Selection {
    /// Every message of `topic`.
    pub fn topic(topic: impl Into<String>) -> Selection {
        Selection { topic: topic.into(), ..Selection::default() }
    }

    /// Whether the query asks for more than a set of partitions, so that a
    /// search must find the messages (else the timeline reads them all).
    fn needs_search(&self) -> bool {
        let q = &self.query;
        q.key.is_some() || q.text.is_some() || q.since.is_some() || q.until.is_some() || q.filter.is_some()
    }
}

/// Progress of an export, import or copy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Progress {
    /// Messages done so far (written out, or sent).
    pub done: u64,
    /// Messages there are in all, when known (a search's hits, a selection's
    /// partitions from their first offset to their end; an import's lines
    /// are not counted ahead).
    pub total: Option<u64>,
}

/// What a reader hands on: a batch, and how many messages the selection has
/// in all (when known).
pub(crate) type Sink<'a> = dyn FnMut(Vec<Message>, Option<u64>) -> Result<()> + 'a;

/// Read `sel` in timeline order, handing `sink` batches of at most [`BATCH`]
/// messages, until the end, a `sink` error or `cancel`.
pub(crate) fn read_selection(store: &Store, sel: &Selection, cancel: &AtomicBool, sink: &mut Sink<'_>) -> Result<Finish> {
    if let Some(picked) = &sel.picked {
        let refs: Vec<HitRef> = picked.iter().map(|&(partition, offset)| HitRef { partition, offset, timestamp: 0.0 }).collect();
        return read_refs(store, &sel.topic, &refs, cancel, sink);
    }
    if sel.needs_search() {
        let (finish, hits) = scan::find(store, &sel.topic, &sel.query, cancel, |_| {})?;
        if finish == Finish::Cancelled {
            return Ok(Finish::Cancelled);
        }
        return read_refs(store, &sel.topic, &hits.ordered(), cancel, sink);
    }
    read_timeline(store, sel, cancel, sink)
}

/// The messages `refs` name, in their order, in batches.
fn read_refs(store: &Store, topic: &str, refs: &[HitRef], cancel: &AtomicBool, sink: &mut Sink<'_>) -> Result<Finish> {
    let total = Some(refs.len() as u64);
    // A topic of large messages is read a few messages a batch (BATCH_BYTES of the largest).
    let per = match store.topic_config(topic)?.max_message_bytes {
        Some(max) => usize::try_from(BATCH_BYTES as u64 / max.max(1)).unwrap_or(1).clamp(1, BATCH),
        None => BATCH,
    };
    for chunk in refs.chunks(per) {
        if cancel.load(Ordering::Relaxed) {
            return Ok(Finish::Cancelled);
        }
        sink(scan::read_hits(store, topic, chunk)?, total)?;
    }
    Ok(Finish::Done)
}

/// Every message of the selection's partitions, in timeline order, up to the
/// end each partition had at the start.
///
/// The merge is the timeline's (`log/timeline.rs`): among the partitions'
/// next messages, the earliest timestamp, ties to the lower partition; so a
/// partition is never reordered. It is done here on plain partition readers,
/// each stopped at its end: a snapshot needs none of a live timeline's
/// watching of idle partitions (a clock read per message).
fn read_timeline(store: &Store, sel: &Selection, cancel: &AtomicBool, sink: &mut Sink<'_>) -> Result<Finish> {
    let config = store.topic_config(&sel.topic)?;
    let partitions: Vec<u32> = sel.query.partitions.clone().unwrap_or_else(|| (0..config.partitions).collect());
    if let Some(&p) = partitions.iter().find(|p| **p >= config.partitions) {
        return Err(crate::error::Error::PartitionOutOfRange { topic: sel.topic.clone(), partition: p, partitions: config.partitions });
    }
    // Taken before the readers open: what is appended after this is not read.
    let ends = store.end_offsets(&sel.topic)?;
    let end_of = |p: u32| ends.get(p as usize).copied().unwrap_or(0);
    let mut readers = Vec::with_capacity(partitions.len());
    for &p in &partitions {
        readers.push((store.partition_reader(&sel.topic, p, StartFrom::Start)?, end_of(p)));
    }
    let total = Some(readers.iter().map(|(r, end)| end.saturating_sub(r.position())).sum());
    let mut heads: Vec<Option<Message>> = Vec::with_capacity(readers.len());
    let mut heap = BinaryHeap::with_capacity(readers.len());
    for (i, (r, end)) in readers.iter_mut().enumerate() {
        let m = next_before(r, *end)?;
        if let Some(m) = &m {
            heap.push(Reverse(Head { t: m.timestamp, partition: m.partition, i }));
        }
        heads.push(m);
    }
    let mut batch = Vec::with_capacity(BATCH);
    let mut bytes = 0usize;
    while let Some(Reverse(Head { i, .. })) = heap.pop() {
        if batch.len() % 256 == 0 && cancel.load(Ordering::Relaxed) {
            return Ok(Finish::Cancelled);
        }
        let (r, end) = &mut readers[i];
        let next = next_before(r, *end)?;
        if let Some(n) = &next {
            heap.push(Reverse(Head { t: n.timestamp, partition: n.partition, i }));
        }
        if let Some(m) = std::mem::replace(&mut heads[i], next) {
            bytes += payload_len(&m.payload);
            batch.push(m);
        }
        if batch.len() >= BATCH || bytes >= BATCH_BYTES {
            bytes = 0;
            sink(std::mem::replace(&mut batch, Vec::with_capacity(BATCH)), total)?;
        }
    }
    if !batch.is_empty() {
        sink(batch, total)?;
    }
    Ok(Finish::Done)
}

/// The reader's next message before offset `end`, damaged lines skipped.
fn next_before(r: &mut PartitionReader, end: u64) -> Result<Option<Message>> {
    loop {
        if r.position() >= end {
            return Ok(None);
        }
        match r.poll() {
            Ok(Some(m)) if m.offset < end => return Ok(Some(m)),
            Ok(_) => return Ok(None),
            Err(crate::error::Error::CorruptLine { .. }) => continue,
            Err(e) => return Err(e),
        }
    }
}
