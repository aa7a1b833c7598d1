//! A topic as one timeline: its partitions merged by message timestamp.
//!
//! Timestamps are producers' clocks, so within a partition they need not
//! grow with offsets. The merge keeps each partition's own order and, among
//! the partitions' next messages, takes the one with the earliest timestamp
//! (ties: the lower partition). That order is also the topic sorted by each
//! message's *place*: the largest timestamp of its partition up to it, then
//! its partition, then its offset. When timestamps grow, the place is the
//! timestamp; after a clock jumps back, the partition's messages keep the
//! place of its latest one until time catches up. Because a place depends
//! only on the message's own partition, paging backward, searching and
//! reading forward all agree (docs/FORMAT.md, "The timeline").

use std::cmp::Ordering;
use std::collections::VecDeque;
use std::time::{Duration, Instant};

use crate::error::{Error, Result};
use crate::format::message::Message;
use crate::log::cursor::StartFrom;
use crate::log::dir::LogDir;
use crate::log::reader::PartitionReader;
use crate::log::watch::Wake;

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
    /// When each partition's head was read, or when it was last found at its end.
    looked_at: Vec<Instant>,
    /// The topic's folder, watched once a wait needs it.
    dir: std::path::PathBuf,
    wake: Option<Wake>,
}

/// How often partitions that were at their end are asked again while others stream.
const IDLE_RECHECK: Duration = Duration::from_millis(50);

/// A message stamped this recently (by the wall clock) is live: see [`Timeline::poll`].
const LIVE_SECS: f64 = 5.0;

/// UNIX seconds now, by the wall clock.
fn wall_secs() -> f64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0.0, |d| d.as_secs_f64())
}

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
        Ok(Timeline {
            readers,
            heads: vec![None; n],
            idle: vec![false; n],
            idle_checked: Instant::now(),
            looked_at: vec![Instant::now(); n],
            dir: log.topic_dir(topic),
            wake: None,
        })
    }

    /// Read partition `i`'s next message into its head, skipping damaged
    /// lines; true when a partition that was at its end has a new message.
    fn fill(&mut self, i: usize) -> Result<bool> {
        loop {
            match self.readers[i].poll() {
                Ok(m) => {
                    let fresh = self.idle[i] && m.is_some();
                    self.idle[i] = m.is_none();
                    self.heads[i] = m;
                    self.looked_at[i] = Instant::now();
                    return Ok(fresh);
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
        let mut fresh = false;
        if self.heads.iter().all(Option::is_none) || self.idle_checked.elapsed() >= IDLE_RECHECK {
            self.idle_checked = Instant::now();
            for i in 0..self.readers.len() {
                if self.heads[i].is_none() {
                    fresh |= self.fill(i)?;
                }
            }
        }
        if fresh {
            // A partition at its end has a new message: one written to another
            // partition before it may have landed after that partition was
            // asked. Ask the others again, so the live merge keeps the order
            // the messages were written in.
            for i in 0..self.readers.len() {
                if self.heads[i].is_none() {
                    self.fill(i)?;
                }
            }
        }
        let Some(mut next) = self.earliest() else { return Ok(None) };
        // A live message (stamped within the last few seconds): a partition
        // found at its end before it was read may hold one written before it
        // (the partitions are read one after another). Ask those again first,
        // so a follower keeps the order messages were written in. Older
        // messages (a backlog) leave idle partitions to the periodic recheck,
        // which keeps a long read from asking them once a message.
        let live = self.heads[next].as_ref().is_some_and(|m| m.timestamp > wall_secs() - LIVE_SECS);
        if live {
            let read_at = self.looked_at[next];
            let stale: Vec<usize> = (0..self.readers.len()).filter(|&j| self.heads[j].is_none() && self.looked_at[j] < read_at).collect();
            if !stale.is_empty() {
                for j in stale {
                    self.fill(j)?;
                }
                next = self.earliest().unwrap_or(next);
            }
        }
        Ok(self.heads[next].take())
    }

    /// The partition whose head comes first in the timeline.
    fn earliest(&self) -> Option<usize> {
        self.heads
            .iter()
            .enumerate()
            .filter_map(|(i, h)| h.as_ref().map(|m| (i, m)))
            .min_by(|a, b| timeline_order(a.1, b.1))
            .map(|(i, _)| i)
    }

    /// The next message, waiting up to `timeout` for one to be written.
    ///
    /// # Errors
    /// As [`Timeline::poll`].
    pub fn poll_timeout(&mut self, timeout: Duration) -> Result<Option<Message>> {
        let mut wake = self.wake.take();
        let dir = self.dir.clone();
        let got = crate::log::watch::poll_until(&mut wake, &dir, crate::log::watch::deadline_after(timeout), |woke| {
            if woke {
                // Something changed: every partition may have news.
                self.idle.iter_mut().for_each(|i| *i = false);
            }
            self.poll()
        });
        self.wake = wake;
        got
    }

    /// Where the timeline stands in each partition: the offset of the next
    /// message it returns from it.
    pub fn positions(&self) -> Vec<(u32, u64)> {
        self.readers.iter().zip(&self.heads).map(|(r, h)| (r.partition(), h.as_ref().map_or(r.position(), |m| m.offset))).collect()
    }
}

/// Up to `n` messages of the timeline just before `before` (one offset per
/// partition of `partitions`), oldest first, and the offsets where they begin
/// (the `before` of the page before them). A partition's messages are read
/// backward in chunks, so a page of a topic of many partitions reads little
/// more than the page; each chunk's places start from the time index's
/// maximum before it.
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
    // Per partition: (place, message) read and not yet taken, oldest first, and where they begin.
    let mut tails: Vec<VecDeque<(f64, Message)>> = vec![VecDeque::new(); partitions.len()];
    let mut begin: Vec<u64> = partitions.iter().enumerate().map(|(i, _)| before.get(i).copied().unwrap_or(0)).collect();
    let mut cursor = begin.clone();
    let mut out = Vec::with_capacity(n);
    while out.len() < n {
        for i in 0..partitions.len() {
            let start = starts.get(i).copied().unwrap_or(0);
            if tails[i].is_empty() && begin[i] > start {
                let from = begin[i].saturating_sub(chunk).max(start);
                let mut place =
                    if from > start { crate::log::seek::max_before(log, topic, partitions[i], from)? } else { f64::NEG_INFINITY };
                tails[i] = read_range(log, topic, partitions[i], from, begin[i])?
                    .into_iter()
                    .map(|m| {
                        place = place.max(m.timestamp);
                        (place, m)
                    })
                    .collect();
                begin[i] = from;
            }
        }
        let newest = tails
            .iter()
            .enumerate()
            .filter_map(|(i, t)| t.back().map(|(place, m)| (i, *place, m)))
            .max_by(|a, b| a.1.total_cmp(&b.1).then(a.2.partition.cmp(&b.2.partition)).then(a.2.offset.cmp(&b.2.offset)))
            .map(|(i, _, _)| i);
        let Some(i) = newest else { break };
        let Some((_, m)) = tails[i].pop_back() else { break };
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
