//! Reading a whole topic from the app (its search): every record between each
//! partition's watermarks as they are when the scan starts, every partition
//! fetched at once by one consumer of no group, handed over batch by batch
//! with the progress, stoppable between batches.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use super::{i64_of, u64_of, Browser, Record};
use crate::error::{Error, Result};

/// How far a scan has got.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ScanProgress {
    /// Records read so far.
    pub scanned: u64,
    /// Records between the watermarks when the scan started (offsets, so a
    /// compacted topic ends with `scanned` below it).
    pub total: u64,
}

/// How a scan ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScanEnd {
    /// Every record up to the ends read.
    Complete(ScanProgress),
    /// Stopped by the cancel flag or by the caller.
    Stopped(ScanProgress),
}

impl Browser {
    /// Read every record of `topic` up to each partition's end as it is now,
    /// calling `each` with every batch and the progress; `each` returning
    /// `false`, or `cancel` set, stops the scan between batches.
    ///
    /// # Errors
    /// [`Error::TopicMissing`]; [`Error::Kafka`] naming the broker and the call
    /// (a partition that stops advancing for three request timeouts).
    pub fn scan(&self, topic: &str, cancel: &AtomicBool, each: &mut dyn FnMut(&[Record], ScanProgress) -> bool) -> Result<ScanEnd> {
        self.scan_partitions(topic, None, cancel, each)
    }

    /// [`Browser::scan`] of `partitions` only (all when `None`); a partition
    /// the topic does not have is an error.
    ///
    /// # Errors
    /// As [`Browser::scan`]; [`Error::Config`] for a partition the topic lacks.
    pub fn scan_partitions(
        &self,
        topic: &str,
        partitions: Option<&[u32]>,
        cancel: &AtomicBool,
        each: &mut dyn FnMut(&[Record], ScanProgress) -> bool,
    ) -> Result<ScanEnd> {
        self.block_on(async {
            let c = &self.cluster;
            let marks = self
                .watermarks_of(&[topic.to_string()])
                .await?
                .pop()
                .ok_or_else(|| Error::TopicMissing { place: format!("Kafka at {}", c.broker), topic: topic.to_string() })?;
            let mut marks = marks;
            if let Some(only) = partitions {
                let count = marks.partitions.len();
                if let Some(p) = only.iter().find(|p| **p as usize >= count) {
                    return Err(Error::Config {
                        what: format!("partition {p} of {topic}"),
                        problem: format!("the topic has {count} partitions (0 to {})", count.saturating_sub(1)),
                    });
                }
                marks.partitions.retain(|w| only.contains(&w.partition));
            }
            let mut progress = ScanProgress { scanned: 0, total: marks.messages() };
            // Where each partition with records left is, and where it ends.
            let mut left: HashMap<i32, (u64, u64)> =
                marks.partitions.iter().filter(|p| p.high > p.low).map(|p| (p.partition as i32, (p.low, p.high))).collect();
            if left.is_empty() {
                each(&[], progress);
                return Ok(ScanEnd::Complete(progress));
            }
            let consumer = c.scanner().await?;
            let op = || format!("read all of {topic}");
            consumer.assign(topic, left.keys().copied().collect()).await.map_err(|e| c.error(op(), &e))?;
            for (p, (from, _)) in &left {
                consumer.seek(topic, *p, i64_of(*from)).await.map_err(|e| c.error(op(), &e))?;
            }
            let stall = c.timeout * 3;
            let mut last_progress = tokio::time::Instant::now();
            let end = loop {
                if cancel.load(Ordering::Relaxed) {
                    break ScanEnd::Stopped(progress);
                }
                let batch = consumer.poll(Duration::from_millis(200)).await.map_err(|e| c.error(op(), &e))?;
                let mut records = Vec::with_capacity(batch.len());
                for r in batch {
                    let Some((pos, high)) = left.get_mut(&r.partition) else { continue };
                    let offset = u64_of(r.offset);
                    if offset < *pos || offset >= *high {
                        continue;
                    }
                    *pos = offset + 1;
                    records.push(Record {
                        partition: r.partition as u32,
                        offset,
                        timestamp_ms: r.timestamp,
                        key: r.key.map(|b| b.to_vec()),
                        value: r.value.map(|b| b.to_vec()),
                        headers: r.headers.into_iter().map(|(k, v)| (k, v.map(|b| b.to_vec()))).collect(),
                    });
                }
                // A partition is done at its end, or when what is left of it holds no record
                // (compaction, transaction markers): its position then jumps, as `read` allows.
                let positions: Vec<(i32, Option<i64>)> = {
                    let mut v = Vec::with_capacity(left.len());
                    for p in left.keys() {
                        v.push((*p, consumer.position(topic, *p).await));
                    }
                    v
                };
                for (p, at) in positions {
                    if let (Some(at), Some((pos, _))) = (at, left.get_mut(&p)) {
                        *pos = (*pos).max(u64_of(at));
                    }
                }
                left.retain(|_, (pos, high)| pos < high);
                if !records.is_empty() {
                    progress.scanned += records.len() as u64;
                    last_progress = tokio::time::Instant::now();
                    if !each(&records, progress) {
                        break ScanEnd::Stopped(progress);
                    }
                }
                if left.is_empty() {
                    break ScanEnd::Complete(progress);
                }
                if last_progress.elapsed() > stall {
                    let stuck: Vec<String> = left.iter().map(|(p, (pos, high))| format!("{topic}/{p} at {pos} of {high}")).collect();
                    return Err(Error::Kafka {
                        broker: c.broker.clone(),
                        op: op(),
                        cause: format!("no record arrived within {stall:?} ({})", stuck.join(", ")),
                        retriable: true,
                        hint: None,
                    });
                }
            };
            let _ = consumer.close().await;
            Ok(end)
        })
    }
}
