//! The store's timeline of a topic: its partitions merged by timestamp
//! (`log/timeline.rs` says how), read forward or paged backward from the end.

use super::Store;
use crate::error::{Error, Result};
use crate::format::message::Message;
use crate::log::timeline::{self, Timeline, TimelineStart};

/// A page of a timeline and where the pages beside it begin.
#[derive(Debug, Clone)]
pub struct TimelinePage {
    /// The partitions of the timeline, in the order the offsets below follow.
    pub partitions: Vec<u32>,
    /// The messages, oldest first.
    pub messages: Vec<Message>,
    /// Per partition: the offset the page begins at (pass it as `before` for the page before).
    pub begin: Vec<u64>,
    /// Per partition: the offset after the page's last message (where the page after begins).
    pub end: Vec<u64>,
    /// Per partition: the first offset still on disk; a page whose `begin` is this everywhere is the first.
    pub first: Vec<u64>,
}

impl Store {
    /// The partitions a timeline reads: `partitions` (checked), or all of the topic's.
    fn timeline_partitions(&self, topic: &str, partitions: Option<&[u32]>) -> Result<Vec<u32>> {
        let config = self.topic_config(topic)?;
        match partitions {
            None => Ok((0..config.partitions).collect()),
            Some(ps) => {
                if let Some(&p) = ps.iter().find(|p| **p >= config.partitions) {
                    return Err(Error::PartitionOutOfRange { topic: topic.to_string(), partition: p, partitions: config.partitions });
                }
                Ok(ps.to_vec())
            }
        }
    }

    /// Read `topic` (or some of its partitions) as one timeline, forward from `start`.
    ///
    /// # Errors
    /// [`Error::TopicNotFound`], [`Error::PartitionOutOfRange`], I/O errors.
    pub fn timeline(&self, topic: &str, partitions: Option<&[u32]>, start: &TimelineStart) -> Result<Timeline> {
        let partitions = self.timeline_partitions(topic, partitions)?;
        Timeline::open(self.log(), topic, &partitions, start)
    }

    /// The `n` messages of the timeline before `before` (one offset per
    /// partition, as a page's `begin` gives; `None`: the end, so the page is the
    /// topic's newest messages).
    ///
    /// # Errors
    /// As [`Store::timeline`].
    pub fn timeline_page_before(&self, topic: &str, partitions: Option<&[u32]>, before: Option<&[u64]>, n: usize) -> Result<TimelinePage> {
        let partitions = self.timeline_partitions(topic, partitions)?;
        // The end's places need every line's timestamp: counted and timed on every core at once.
        crate::log::seek::warm(self.log(), topic, &partitions, true)?;
        let (first, ends) = self.partition_bounds(topic, &partitions)?;
        let before: Vec<u64> = match before {
            Some(b) => partitions.iter().enumerate().map(|(i, _)| b.get(i).copied().unwrap_or(0)).collect(),
            None => ends,
        };
        let (messages, begin) = timeline::page_before(self.log(), topic, &partitions, &first, &before, n)?;
        Ok(TimelinePage { partitions, messages, begin, end: before, first })
    }

    /// The `n` messages of the timeline from `start` on.
    ///
    /// # Errors
    /// As [`Store::timeline`].
    pub fn timeline_page_after(&self, topic: &str, partitions: Option<&[u32]>, start: &TimelineStart, n: usize) -> Result<TimelinePage> {
        let partitions = self.timeline_partitions(topic, partitions)?;
        // From a time or the end, every partition's time index is read: brought up to date on every core.
        crate::log::seek::warm(self.log(), topic, &partitions, !matches!(start, TimelineStart::Start | TimelineStart::At(_)))?;
        let (first, _) = self.partition_bounds(topic, &partitions)?;
        let mut t = Timeline::open(self.log(), topic, &partitions, start)?;
        // A reader not yet positioned says 0: the page begins no lower than the first offset on disk.
        let begin: Vec<u64> = t.positions().into_iter().zip(&first).map(|((_, o), f)| o.max(*f)).collect();
        let mut messages = Vec::with_capacity(n);
        while messages.len() < n {
            match t.poll()? {
                Some(m) => messages.push(m),
                None => break,
            }
        }
        let end = t.positions().into_iter().zip(&first).map(|((_, o), f)| o.max(*f)).collect();
        Ok(TimelinePage { partitions, messages, begin, end, first })
    }

    /// The first offset on disk and the end offset of each of `partitions`.
    fn partition_bounds(&self, topic: &str, partitions: &[u32]) -> Result<(Vec<u64>, Vec<u64>)> {
        let config = self.topic_config(topic)?;
        let listing = crate::log::files::list_topic_dir(&self.topic_dir(topic), config.partitions)?;
        let mut first = Vec::with_capacity(partitions.len());
        let mut ends = Vec::with_capacity(partitions.len());
        for &p in partitions {
            let files = listing.partitions.get(p as usize).map_or(&[][..], Vec::as_slice);
            first.push(files.first().map_or(0, |f| f.first));
            ends.push(self.log().partition_end(files)?);
        }
        Ok((first, ends))
    }
}
