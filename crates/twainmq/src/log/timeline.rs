//! A topic as one timeline: its partitions merged by message timestamp.
//!
//! Timestamps are producers' clocks, so within a partition they need not
//! grow with offsets. The merge keeps each partition's own order (offsets
//! only ever move forward, or backward when paging back) and, among the
//! partitions' next messages, takes the one with the earliest timestamp
//! (ties: the lower partition, then the lower offset). When every partition's
//! timestamps grow, this is the topic sorted by time; when a clock jumps,
//! the partition's later messages wait behind its out-of-order one rather
//! than being reordered (docs/FORMAT.md, "The timeline").

use std::cmp::Ordering;
use std::collections::VecDeque;
use std::time::{Duration, Instant};

use crate::error::{Error, Result};
use crate::format::message::Message;
use crate::log::consumer::StartFrom;
use crate::log::dir::LogDir;
use crate::log::reader::PartitionReader;

/// Where a timeline starts.
#[derive(Debug, Clone, PartialEq)]
pub enum TimelineStart {
    /// The oldest message still on disk in each partition.
    Start,
    /// The current end of each partition: only messages written from now on.
    End,
    /// In each partition, the first message at or after this UNIX time (seconds).
    Time(f64),
    /// At these offsets, one per partition of the timeline, in its order.
    At(Vec<u64>),
}

/// The merge order: earlier timestamp first, then lower partition, then lower offset.
pub(crate) fn timeline_order(a: &Message, b: &Message) -> Ordering {
    a.timestamp.total_cmp(&b.timestamp).then(a.partition.cmp(&b.partition)).then(a.offset.cmp(&b.offset))
}

/// Reads a topic's partitions merged into one timeline, forward.
#[derive(Debug)]
pub struct Timeline {
    readers: Vec<PartitionReader>,
    /// Each reader's next message, once read.
    heads: Vec<Option<Message>>,
    /// Readers that had nothing when last asked: asked again when no other
    /// partition has a message, or after [`IDLE_RECHECK`], so a long merge does
    /// not list the folders of idle partitions on every message, and a
    /// follower still shows a quiet partition's new message while a busy one
    /// streams.
    idle: Vec<bool>,
    idle_checked: Instant,
}

/// How often partitions that were at their end are asked again while others stream.
const IDLE_RECHECK: Duration = Duration::from_millis(50);

impl Timeline {
    pub(crate) fn open(log: &LogDir, topic: &str, partitions: &[u32], start: &TimelineStart) -> Result<Timeline> {
        let mut readers = Vec::with_capacity(partitions.len());
        for (i, &p) in partitions.iter().enumerate() {
            let from = match start {
                TimelineStart::Start => StartFrom::Start,
                TimelineStart::End => StartFrom::Now,
                TimelineStart::Time(t) => match crate::log::seek::offset_at_time(log, topic, p, *t)? {
                    Some(o) => StartFrom::Offset(o),
                    None => StartFrom::Now,
                },
                TimelineStart::At(offsets) => StartFrom::Offset(offsets.get(i).copied().unwrap_or(0)),
            };
            readers.push(log.partition_reader(topic, p, from)?);
        }
        let n = readers.len();
        Ok(Timeline { readers, heads: vec![None; n], idle: vec![false; n], idle_checked: Instant::now() })
    }

    /// Read partition `i`'s next message into its head, skipping damaged lines.
    fn fill(&mut self, i: usize) -> Result<()> {
        loop {
            match self.readers[i].poll() {
                Ok(m) => {
                    self.idle[i] = m.is_none();
                    self.heads[i] = m;
                    return Ok(());
                }
                Err(Error::CorruptLine { .. }) => continue,
                Err(e) => return Err(e),
            }
        }
    }

    /// The next message of the timeline, or `None` when no partition has one yet.
    ///
    /// # Errors
    /// [`Error::TopicDeleted`], I/O errors.
    pub fn poll(&mut self) -> Result<Option<Message>> {
        for i in 0..self.readers.len() {
            if self.heads[i].is_none() && !self.idle[i] {
                self.fill(i)?;
            }
        }
        if self.heads.iter().all(Option::is_none) || self.idle_checked.elapsed() >= IDLE_RECHECK {
            self.idle_checked = Instant::now();
            for i in 0..self.readers.len() {
                if self.heads[i].is_none() {
                    self.fill(i)?;
                }
            }
        }
        let next = self
            .heads
            .iter()
            .enumerate()
            .filter_map(|(i, h)| h.as_ref().map(|m| (i, m)))
            .min_by(|a, b| timeline_order(a.1, b.1))
            .map(|(i, _)| i);
        Ok(next.and_then(|i| self.heads[i].take()))
    }

    /// Where the timeline stands in each partition: the offset of the next
    /// message it returns from it.
    pub fn positions(&self) -> Vec<(u32, u64)> {
        self.readers.iter().zip(&self.heads).map(|(r, h)| (r.partition(), h.as_ref().map_or(r.position(), |m| m.offset))).collect()
    }
}

/// Up to `n` messages of the timeline just before `before` (one offset per
/// partition of `partitions`), newest last, and the offsets where they begin
/// (the `before` of the page before them). A partition's messages are read
/// backward in chunks, so a page of a topic of many partitions reads little
/// more than the page.
pub(crate) fn page_before(
    log: &LogDir,
    topic: &str,
    partitions: &[u32],
    starts: &[u64],
    before: &[u64],
    n: usize,
) -> Result<(Vec<Message>, Vec<u64>)> {
    let k = partitions.len().max(1);
    let chunk = u64::try_from((2 * n / k).max(16)).unwrap_or(u64::MAX);
    // Per partition: messages read and not yet taken (oldest first), and where they begin.
    let mut tails: Vec<VecDeque<Message>> = vec![VecDeque::new(); partitions.len()];
    let mut begin: Vec<u64> = partitions.iter().enumerate().map(|(i, _)| before.get(i).copied().unwrap_or(0)).collect();
    let mut cursor = begin.clone();
    let mut out = Vec::with_capacity(n);
    while out.len() < n {
        for i in 0..partitions.len() {
            let start = starts.get(i).copied().unwrap_or(0);
            if tails[i].is_empty() && begin[i] > start {
                let from = begin[i].saturating_sub(chunk).max(start);
                tails[i] = read_range(log, topic, partitions[i], from, begin[i])?.into();
                begin[i] = from;
            }
        }
        let newest =
            tails.iter().enumerate().filter_map(|(i, t)| t.back().map(|m| (i, m))).max_by(|a, b| timeline_order(a.1, b.1)).map(|(i, _)| i);
        let Some(i) = newest else { break };
        let Some(m) = tails[i].pop_back() else { break };
        cursor[i] = m.offset;
        out.push(m);
    }
    out.reverse();
    Ok((out, cursor))
}

/// The messages of one partition in offsets `[from, to)`, damaged lines skipped.
fn read_range(log: &LogDir, topic: &str, partition: u32, from: u64, to: u64) -> Result<Vec<Message>> {
    let mut r = log.partition_reader(topic, partition, StartFrom::Offset(from))?;
    let mut out = Vec::new();
    while r.position() < to {
        match r.poll() {
            Ok(Some(m)) if m.offset < to => out.push(m),
            Ok(_) => break,
            Err(Error::CorruptLine { .. }) => continue,
            Err(e) => return Err(e),
        }
    }
    Ok(out)
}
