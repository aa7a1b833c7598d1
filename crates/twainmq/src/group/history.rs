//! A group's lag at past moments, from the files: commit timestamps from the
//! group log, message timestamps from the partitions' time indexes.
//!
//! The lag of partition p at time t is `end(p, t) - committed(p, t)` (0 when
//! negative), where `end(p, t)` is the partition's first offset on disk plus
//! the number of its messages stamped before t (counted through the time
//! index, reading only blocks whose times straddle t, never decoding a
//! payload: `log::seek::StampCounter`), so one message stamped far from its
//! neighbours (a clock a year off) moves it by one rather than ending the
//! partition there, and `committed(p, t)` is the latest commit of p written
//! before or at t (0 when none; a `-1` commit is the partition's end at its
//! time).
//! The group log (small next to the partitions) is read whole for its commits.

use std::collections::BTreeMap;

use serde::Serialize;

use super::cache::Groups;
use super::open::group_topic_reader;
use super::records::Record;
use super::setup::{checked_topic, group_topic_of};
use super::state::GroupLog;
use super::GroupError;
use crate::error::Result;
use crate::log::seek::StampCounter;

/// One point of a partition's lag.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct LagPoint {
    /// The moment, UNIX seconds.
    pub at: f64,
    /// Messages not yet committed then.
    pub lag: u64,
}

/// A partition's lag over time.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PartitionLag {
    /// The partition.
    pub partition: u32,
    /// One point per bucket end, oldest first.
    pub points: Vec<LagPoint>,
}

/// A moment to mark on the time axis.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LagMark {
    /// When, UNIX seconds (the record's timestamp).
    pub at: f64,
    /// `round` (a `BEGINREBAL`) or `reset` (a `COMMIT` under key 0 after the group's first record).
    pub kind: &'static str,
    /// The record's offset in the group log.
    pub offset: u64,
}

/// A group's lag history.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LagHistory {
    /// The group.
    pub group: String,
    /// Its topic.
    pub topic: String,
    /// The span, UNIX seconds.
    pub from: f64,
    /// The span's end, UNIX seconds.
    pub to: f64,
    /// Each partition's points.
    pub partitions: Vec<PartitionLag>,
    /// Rounds and resets within the span, in log order.
    pub marks: Vec<LagMark>,
}

/// Most points per partition in a history.
pub const MAX_BUCKETS: u32 = 10_000;

/// The bucket ends of `[from, to]` in `buckets` steps: `from + (i+1)·step`.
pub(crate) fn bucket_times(from: f64, to: f64, buckets: u32) -> Vec<f64> {
    let n = buckets.max(1);
    let step = (to - from) / f64::from(n);
    (1..=n).map(|i| from + step * f64::from(i)).collect()
}

/// Every commit of the group log per partition, `(record time, offset)` in
/// log order, and the marks within `[from, to]`.
type Commits = BTreeMap<u32, Vec<(f64, i64)>>;

fn read_commits(g: &Groups, group: &str, from: f64, to: f64) -> Result<(Commits, Vec<LagMark>)> {
    let mut reader = group_topic_reader(&g.log, group)?;
    let (mut commits, mut marks): (Commits, Vec<LagMark>) = (BTreeMap::new(), Vec::new());
    let mut first = true;
    // Damaged lines are skipped (as the fold does); other errors end the read.
    loop {
        let m = match reader.poll() {
            Ok(Some(m)) => m,
            Ok(None) => break,
            Err(crate::error::Error::CorruptLine { .. }) => continue,
            Err(e) => return Err(e),
        };
        let is_first = std::mem::replace(&mut first, false);
        let in_span = m.timestamp >= from && m.timestamp <= to;
        match Record::from_message(&m) {
            Some(Record::Commit { offsets }) => {
                // (An offset below -1 is no position: passed over, as the fold does.)
                for (p, o) in offsets.into_iter().filter(|(_, o)| *o >= -1) {
                    commits.entry(p).or_default().push((m.timestamp, o));
                }
                if in_span && !is_first && m.key == crate::format::key::Key::Int(0) {
                    marks.push(LagMark { at: m.timestamp, kind: "reset", offset: m.offset });
                }
            }
            Some(Record::BeginRound { .. }) if in_span => marks.push(LagMark { at: m.timestamp, kind: "round", offset: m.offset }),
            _ => {}
        }
    }
    Ok((commits, marks))
}

/// The lag of every partition of `group`'s topic at `buckets` moments
/// evenly spread over `[from, to]` (UNIX seconds; each point at its bucket's
/// end), with rounds and resets marked.
///
/// # Errors
/// [`GroupError::InvalidSpan`], [`crate::Error::GroupNotFound`],
/// [`GroupError::UnknownTopic`], I/O errors.
pub(crate) fn lag_history(g: &Groups, group: &str, log: &GroupLog, from: f64, to: f64, buckets: u32) -> Result<LagHistory> {
    if !(from.is_finite() && to.is_finite() && from < to && (1..=MAX_BUCKETS).contains(&buckets)) {
        return Err(GroupError::InvalidSpan { from, to, buckets, max: MAX_BUCKETS }.into());
    }
    let (found, _) = group_topic_of(g, group, log)?;
    let Some(topic) = found else {
        return Err(GroupError::UnknownTopic { group: group.into(), partitions: log.partitions_hint.unwrap_or(0) }.into());
    };
    let topic = checked_topic(group, topic)?;
    let config = g.log.topic_config(&topic)?;
    let ends = g.log.end_offsets(&topic)?;
    let (commits, marks) = read_commits(g, group, from, to)?;
    let times = bucket_times(from, to, buckets);
    let starts: Vec<u64> = g.log.start_offsets(&topic)?;
    // One listing of the topic's folder for every partition's counter (each listing it for
    // itself made a history of P partitions read P × P × days folder entries).
    let listing = crate::log::files::list_topic_dir(&g.log.topic_dir(&topic), config.partitions)?;
    let kc = config.key_type.encoded_len();
    let mut partitions = Vec::new();
    for (p, pfiles) in (0..config.partitions).zip(listing.partitions) {
        let mut counter = StampCounter::of_files(&g.log, kc, pfiles)?;
        let now_end = ends.get(p as usize).copied().unwrap_or(0);
        let start = starts.get(p as usize).copied().unwrap_or(0);
        let mut end_at = |_: u32, t: f64| -> Result<u64> { Ok(start.saturating_add(counter.stamped_before(t)?).min(now_end)) };
        let list = commits.get(&p).map_or(&[][..], Vec::as_slice);
        let mut points = Vec::with_capacity(times.len());
        for &t in &times {
            let end = end_at(p, t)?;
            // The latest commit written at or before t (commits are in log order).
            let committed = match list.iter().rev().find(|(at, _)| *at <= t) {
                None => 0,
                Some(&(at, o)) => u64::try_from(o).or_else(|_| end_at(p, at))?,
            };
            // As in describe: offsets deleted since (before the first file now) are not read.
            points.push(LagPoint { at: t, lag: end.saturating_sub(committed.max(start)) });
        }
        partitions.push(PartitionLag { partition: p, points });
    }
    Ok(LagHistory { group: group.to_string(), topic, from, to, partitions, marks })
}
