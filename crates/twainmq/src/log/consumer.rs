//! A consumer over several partitions, polling them round-robin like 0.2.3.

use std::collections::VecDeque;
use std::time::Duration;

use crate::error::{Error, Result};
use crate::format::config::TopicConfig;
use crate::format::message::Message;
use crate::log::dir::LogDir;
use crate::log::reader::PartitionReader;
use crate::log::watch::Wake;

/// Where a reader starts (beside the cursor; named here too, where callers have long found it).
pub use crate::log::cursor::StartFrom;

/// Reads several partitions of one topic, rotating between them: each poll
/// starts with the partition after the one that returned last, as 0.2.3 does.
#[derive(Debug)]
pub struct Consumer {
    topic: String,
    dir: std::path::PathBuf,
    readers: Vec<PartitionReader>,
    last: usize,
    pending: VecDeque<Message>,
    /// Created on the first blocking wait.
    wake: Option<Wake>,
}

impl LogDir {
    /// A consumer of `partitions` of `topic` (a topic or group log; names not checked).
    pub(crate) fn consumer_of(&self, topic: &str, partitions: &[u32], from: StartFrom) -> Result<Consumer> {
        let config = self.topic_config(topic)?;
        Consumer::open(self, topic, &config, partitions, from)
    }
}

impl Consumer {
    pub(crate) fn open(log: &LogDir, topic: &str, config: &TopicConfig, partitions: &[u32], from: StartFrom) -> Result<Consumer> {
        let readers = partitions.iter().map(|&p| PartitionReader::open(log, topic, config, p, from)).collect::<Result<Vec<_>>>()?;
        Ok(Consumer {
            topic: topic.to_string(),
            dir: log.topic_dir(topic),
            last: readers.len().saturating_sub(1),
            readers,
            pending: VecDeque::new(),
            wake: None,
        })
    }

    /// The topic's name.
    pub fn topic(&self) -> &str {
        &self.topic
    }

    /// The partitions read, in order.
    pub fn partitions(&self) -> Vec<u32> {
        self.readers.iter().map(PartitionReader::partition).collect()
    }

    /// The next offset of each partition to hand out: the read position, or
    /// the first message polled but kept back (after an error in
    /// [`Consumer::poll_many`]), so a commit of these never covers a message
    /// the caller has not been given.
    pub fn positions(&self) -> Vec<(u32, u64)> {
        self.readers
            .iter()
            .map(|r| {
                let held = self.pending.iter().filter(|m| m.partition == r.partition()).map(|m| m.offset).min();
                (r.partition(), held.map_or(r.position(), |o| o.min(r.position())))
            })
            .collect()
    }

    /// Re-position one partition.
    ///
    /// # Errors
    /// [`Error::PartitionOutOfRange`] when this consumer does not read `partition`.
    pub fn seek(&mut self, partition: u32, from: StartFrom) -> Result<()> {
        self.pending.retain(|m| m.partition != partition);
        match self.readers.iter_mut().find(|r| r.partition() == partition) {
            Some(r) => r.seek_to(from),
            // One reader per partition of a u32 count: the saturation is never reached.
            None => Err(Error::PartitionOutOfRange {
                topic: self.topic.clone(),
                partition,
                partitions: u32::try_from(self.readers.len()).unwrap_or(u32::MAX),
            }),
        }
    }

    /// Hand `message` out again: the next poll returns it first, and until
    /// then [`Consumer::positions`] stands at or before it, so a commit
    /// never covers it. For a caller that could not deliver a message it
    /// polled (its payload would not decode into the caller's type, say).
    /// A message of a partition this consumer no longer reads is dropped.
    pub fn put_back(&mut self, message: Message) {
        if self.readers.iter().any(|r| r.partition() == message.partition) {
            self.pending.push_front(message);
        }
    }

    /// Make the next poll start with the partition after `partition` (the
    /// first one read when `partition` is the last): 0.2.3's consumer starts
    /// after partition 0, so a caller that must hand out messages in 0.2.3's
    /// order starts there too. A partition not read leaves the order as it is.
    pub fn start_after(&mut self, partition: u32) {
        if let Some(idx) = self.readers.iter().position(|r| r.partition() == partition) {
            self.last = idx;
        }
    }

    /// Add a partition reader (groups do when a partition is assigned).
    pub(crate) fn add_reader(&mut self, reader: PartitionReader) {
        self.readers.push(reader);
        self.readers.sort_by_key(PartitionReader::partition);
    }

    /// Keep only the readers of `partitions` (groups do when partitions move away).
    pub(crate) fn retain(&mut self, partitions: &[u32]) {
        self.readers.retain(|r| partitions.contains(&r.partition()));
        self.pending.retain(|m| partitions.contains(&m.partition));
        self.last = self.last.min(self.readers.len().saturating_sub(1));
    }

    /// The next message from any partition, without blocking.
    ///
    /// # Errors
    /// [`Error::CorruptLine`] (the reader has moved past the line; poll again) or I/O errors.
    pub fn poll(&mut self) -> Result<Option<Message>> {
        if let Some(m) = self.pending.pop_front() {
            return Ok(Some(m));
        }
        let n = self.readers.len();
        for i in 1..=n {
            let idx = (self.last + i) % n;
            if let Some(m) = self.readers[idx].poll()? {
                self.last = idx;
                return Ok(Some(m));
            }
        }
        Ok(None)
    }

    /// Up to `max` messages; fewer when the partitions run dry.
    ///
    /// # Errors
    /// As [`Consumer::poll`]; messages polled before the error are kept for the next call.
    pub fn poll_many(&mut self, max: usize) -> Result<Vec<Message>> {
        let mut out = Vec::with_capacity(max.min(1024));
        while out.len() < max {
            match self.poll() {
                Ok(Some(m)) => out.push(m),
                Ok(None) => break,
                Err(e) => {
                    for m in out.into_iter().rev() {
                        self.pending.push_front(m);
                    }
                    return Err(e);
                }
            }
        }
        Ok(out)
    }

    /// Wait up to `timeout` for the next message.
    ///
    /// # Errors
    /// As [`Consumer::poll`].
    /// Woken by file change events (inotify and the like), with a short
    /// periodic re-check for file systems that have none.
    pub fn poll_timeout(&mut self, timeout: Duration) -> Result<Option<Message>> {
        let mut wake = self.wake.take();
        let dir = self.dir.clone();
        let got = crate::log::watch::poll_until(&mut wake, &dir, crate::log::watch::deadline_after(timeout), |_| self.poll());
        self.wake = wake;
        got
    }
}
