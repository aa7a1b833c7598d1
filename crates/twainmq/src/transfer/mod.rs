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
mod export;
mod import;
mod records;
mod send;

use std::sync::atomic::{AtomicBool, Ordering};

pub use copy::{copy, CopyOptions, CopyReport};
pub use export::{export, export_to_store, ExportFormat, ExportReport};
pub use import::{import, ImportFormat, ImportOptions, ImportReport, PayloadColumn, SkippedLine};
pub use records::{csv_header, message_csv_row, Record};

use crate::error::Result;
use crate::format::message::Message;
use crate::log::timeline::TimelineStart;
use crate::scan::{self, Finish, HitRef, Query};
use crate::store::Store;

/// Messages read, written or sent per batch.
pub(crate) const BATCH: usize = 4096;

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
pub(crate) type Sink<'a> = dyn FnMut(&[Message], Option<u64>) -> Result<()> + 'a;

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
    for chunk in refs.chunks(BATCH) {
        if cancel.load(Ordering::Relaxed) {
            return Ok(Finish::Cancelled);
        }
        sink(&scan::read_hits(store, topic, chunk)?, total)?;
    }
    Ok(Finish::Done)
}

/// Every message of the selection's partitions, in timeline order, up to the
/// end each partition had at the start.
fn read_timeline(store: &Store, sel: &Selection, cancel: &AtomicBool, sink: &mut Sink<'_>) -> Result<Finish> {
    let config = store.topic_config(&sel.topic)?;
    let partitions: Vec<u32> = sel.query.partitions.clone().unwrap_or_else(|| (0..config.partitions).collect());
    // Taken before the readers open: what is appended after this is not read.
    let ends = store.end_offsets(&sel.topic)?;
    let mut timeline = store.timeline(&sel.topic, Some(&partitions), &TimelineStart::Start)?;
    let firsts: Vec<u64> = timeline.positions().iter().map(|(_, o)| *o).collect();
    let end_of = |p: u32| ends.get(p as usize).copied().unwrap_or(0);
    let total = Some(partitions.iter().zip(&firsts).map(|(p, f)| end_of(*p).saturating_sub(*f)).sum());
    // A partition is done once a message at or past its end was read (or the timeline ran dry).
    let mut open: Vec<u32> = partitions.iter().zip(&firsts).filter(|(p, f)| **f < end_of(**p)).map(|(p, _)| *p).collect();
    let mut batch = Vec::with_capacity(BATCH);
    while !open.is_empty() {
        if cancel.load(Ordering::Relaxed) {
            return Ok(Finish::Cancelled);
        }
        let Some(m) = timeline.poll()? else { break };
        let end = end_of(m.partition);
        if m.offset + 1 >= end {
            open.retain(|p| *p != m.partition);
        }
        if m.offset < end {
            batch.push(m);
        }
        if batch.len() >= BATCH {
            sink(&batch, total)?;
            batch.clear();
        }
    }
    if !batch.is_empty() {
        sink(&batch, total)?;
    }
    Ok(Finish::Done)
}
