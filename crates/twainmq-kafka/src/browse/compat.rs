//! A cluster's compatibility check: which of the Kafka APIs the app and the
//! bridge use it answers, and whether its answers are right, each check named
//! with the APIs it exercises and what was seen. What no Kafka UI shows: a
//! Kafka-protocol broker (Redpanda, WarpStream, a young one like nisshi) may
//! answer a call yet answer it wrong, and a mirror or a reset built on that
//! answer would be wrong too.
//!
//! The reading checks touch nothing. The writing ones (asked for, on a
//! writable connection) work in a scratch topic `twainmq.compat.<ms>` made for
//! them and a scratch group of the same name, both deleted at the end.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use krafka::admin::DeleteTopicsOptions;
use krafka::producer::Acks;

use super::Browser;
use crate::error::{Error, Result};

/// How a check came out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// The broker answered, and rightly.
    Right,
    /// The broker answered, wrongly: `seen` says how.
    Wrong,
    /// The broker did not answer, or refused.
    Failed,
    /// Not run: `seen` says why (nothing to check it on, a read-only connection).
    Skipped,
}

/// One check.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Check {
    /// What is checked, in a few words.
    pub name: String,
    /// The Kafka APIs it exercises.
    pub apis: Vec<&'static str>,
    /// How it came out.
    pub outcome: Outcome,
    /// What was seen (the error, the wrong answer, the right one).
    pub seen: String,
    /// What relies on it in this app.
    pub used_by: &'static str,
    /// How long it took, in milliseconds.
    pub millis: u64,
}

impl Check {
    fn of(name: &str, apis: &[&'static str], used_by: &'static str, r: std::result::Result<(Outcome, String), Error>) -> Check {
        let (outcome, seen) = r.unwrap_or_else(|e| (Outcome::Failed, e.to_string()));
        Check { name: name.to_string(), apis: apis.to_vec(), outcome, seen, used_by, millis: 0 }
    }
}

/// Run `check`, timed.
fn timed(check: impl FnOnce() -> Check) -> Check {
    let started = std::time::Instant::now();
    let mut c = check();
    c.millis = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
    c
}

fn right(seen: impl Into<String>) -> std::result::Result<(Outcome, String), Error> {
    Ok((Outcome::Right, seen.into()))
}

fn wrong(seen: impl Into<String>) -> std::result::Result<(Outcome, String), Error> {
    Ok((Outcome::Wrong, seen.into()))
}

fn skipped(seen: impl Into<String>) -> std::result::Result<(Outcome, String), Error> {
    Ok((Outcome::Skipped, seen.into()))
}

/// Records the writing checks write, in one batch, with these times.
const BATCH: u32 = 5;

impl Browser {
    /// Run the checks (see the module doc); the writing ones only when `write`.
    /// Never fails as a whole: each check says its own failure.
    pub fn compatibility(&self, write: bool) -> Vec<Check> {
        let mut out = Vec::new();
        let started = std::time::Instant::now();
        let topics = self.topics();
        let listed = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
        out.push(timed(|| {
            Check::of(
                "Topics and their partitions' watermarks are listed",
                &["Metadata", "ListOffsets"],
                "the topics list, every count",
                match &topics {
                    Ok(t) => {
                        let bad: Vec<String> = t
                            .iter()
                            .flat_map(|t| {
                                t.partitions.iter().filter(|p| p.low > p.high).map(move |p| format!("{}/{}", t.name, p.partition))
                            })
                            .collect();
                        if bad.is_empty() {
                            right(format!(
                                "{} topic{}; every first offset at or below its end",
                                t.len(),
                                if t.len() == 1 { "" } else { "s" }
                            ))
                        } else {
                            wrong(format!("a first offset past the end in {}", bad.join(", ")))
                        }
                    }
                    Err(e) => Err(Error::Config { what: "the topics".into(), problem: e.to_string() }),
                },
            )
        }));
        if let Some(first) = out.last_mut() {
            first.millis += listed;
        }
        // A partition with records, to read from and ask times of.
        let sample = topics.as_ref().ok().and_then(|ts| {
            ts.iter()
                .filter(|t| !t.name.starts_with("twainmq.compat."))
                .find_map(|t| t.partitions.iter().find(|p| p.high > p.low).map(|p| (t.name.clone(), p.partition, p.low, p.high)))
        });
        out.push(timed(|| {
            Check::of(
                "The last record of a partition is at its end - 1",
                &["Fetch"],
                "reading a page, follow, search, mirrors' resume",
                match &sample {
                    None => skipped("no topic has a record"),
                    Some((topic, p, low, high)) => {
                        let from = high.saturating_sub(1).max(*low);
                        self.read(topic, *p, from, 1).and_then(|page| match page.records.last() {
                            Some(r) if r.offset + 1 == *high => right(format!("{topic}/{p}: the record at {} ends it", r.offset)),
                            // Compaction or a transaction marker may end a partition without a record.
                            Some(r) => right(format!(
                                "{topic}/{p}: the last record is at {}, the end {high} (compaction or a transaction marker)",
                                r.offset
                            )),
                            None => wrong(format!("{topic}/{p}: nothing read from {from} though the end is {high}")),
                        })
                    }
                },
            )
        }));
        out.push(timed(|| {
            Check::of(
                "The offset for a time is the first record at or after it",
                &["ListOffsets (timestamp)"],
                "jump to a time, reset a group to a time",
                match &sample {
                    None => skipped("no topic has a record"),
                    Some((topic, p, low, high)) => (|| {
                        let first = self.read(topic, *p, *low, 1)?;
                        let Some(r) = first.records.first() else { return wrong(format!("{topic}/{p}: no record read at {low}")) };
                        let at_first = self.offset_for_time(topic, *p, r.timestamp_ms)?;
                        let past = self.offset_for_time(topic, *p, r.timestamp_ms.max(0).saturating_add(100 * 365 * 86_400_000))?;
                        match (at_first, past) {
                            (Some(o), None) if o <= r.offset => right(format!(
                                "{topic}/{p}: the first record's time gives {o}; a time past the last gives none (the end, {high})"
                            )),
                            (a, b) => wrong(format!(
                                "{topic}/{p}: the first record's time ({}) gave {a:?}, a time past the last gave {b:?}",
                                r.timestamp_ms
                            )),
                        }
                    })(),
                },
            )
        }));
        out.push(timed(|| {
            Check::of(
                "Consumer groups are listed and described",
                &["ListGroups", "DescribeGroups", "OffsetFetch"],
                "the Consumer groups tab",
                self.groups().and_then(|gs| {
                    let described = gs.iter().find(|g| g.members > 0).map(|g| self.group(&g.id)).transpose()?.flatten();
                    match described {
                        Some(d) if d.members.iter().any(|m| m.client_id.is_empty() && m.host.is_empty()) => {
                            wrong(format!("{} groups; {}'s members come without client id or host", gs.len(), d.id))
                        }
                        Some(d) => right(format!("{} groups; {} described with its {} members", gs.len(), d.id, d.members.len())),
                        None => right(format!("{} groups (none with members to describe)", gs.len())),
                    }
                }),
            )
        }));
        if write {
            out.extend(self.writing_checks());
        } else {
            for name in
                ["A batch of records is counted record by record", "A group's commit reads back", "A scratch topic and group are deleted"]
            {
                out.push(timed(|| Check::of(name, &[], "writes", skipped("writing checks not asked for (or a read-only connection)"))));
            }
        }
        out
    }

    /// The writing checks, in a scratch topic and group deleted at the end.
    fn writing_checks(&self) -> Vec<Check> {
        let now = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_millis());
        let scratch = format!("twainmq.compat.{now}");
        let t0 = i64::try_from(now).unwrap_or(0) - 60_000;
        let mut out = Vec::new();
        out.push(timed(|| {
            let made = self.block_on(self.cluster.create_topic(&scratch, 1, &[]));
            let batch = made.and_then(|()| {
                self.block_on(async {
                    let c = &self.cluster;
                    let producer = c
                        .kafka
                        .producer()
                        .idempotent(true)
                        .acks(Acks::All)
                        .linger(Duration::from_millis(50))
                        .build()
                        .await
                        .map_err(|e| c.error("make a producer", &e))?;
                    let mut handles = Vec::new();
                    for i in 0..BATCH {
                        let r = krafka::Record::new(&scratch, format!("record {i}").into_bytes())
                            .partition(0)
                            .timestamp(t0 + i64::from(i) * 1000);
                        handles.push(producer.enqueue(r).await.map_err(|e| c.error(format!("write to {scratch}"), &e))?);
                    }
                    let mut offsets = Vec::new();
                    for h in handles {
                        let meta = h.await.map_err(|e| c.error(format!("write to {scratch}"), &e))?;
                        offsets.push(meta.offset);
                    }
                    let _ = producer.close().await;
                    Ok(offsets)
                })
            });
            Check::of(
                "A batch of records is counted record by record",
                &["CreateTopics", "InitProducerId", "Produce", "ListOffsets"],
                "every count and lag, mirrors' resume, reset plans",
                batch.and_then(|offsets| {
                    let high = self.topic(&scratch)?.and_then(|t| t.partitions.first().map(|p| p.high));
                    let times: Vec<Option<u64>> =
                        (0..BATCH).map(|i| self.offset_for_time(&scratch, 0, t0 + i64::from(i) * 1000)).collect::<Result<_>>()?;
                    let want: Vec<Option<u64>> = (0..u64::from(BATCH)).map(Some).collect();
                    if high != Some(u64::from(BATCH)) {
                        wrong(format!("{BATCH} records written in one batch (offsets {offsets:?}); the end is {high:?}, not {BATCH}"))
                    } else if times != want {
                        wrong(format!("{BATCH} records one second apart: their times give offsets {times:?}, not 0 to {}", BATCH - 1))
                    } else {
                        right(format!("{BATCH} records in one batch: the end is {BATCH}, and each record's time gives its own offset"))
                    }
                }),
            )
        }));
        let group = scratch.clone();
        out.push(timed(|| {
            Check::of(
                "A group's commit reads back",
                &["FindCoordinator", "OffsetCommit", "OffsetFetch"],
                "reset offsets, mirrors' groups",
                self.block_on(self.cluster.commit_group(&group, &scratch, &[(0, 3)]))
                    .and_then(|()| self.block_on(self.cluster.group_offsets(&group, &scratch)))
                    .and_then(|got| match got.get(&0) {
                        Some(3) => right("committed 3, read 3"),
                        other => wrong(format!("committed 3, read {other:?}")),
                    }),
            )
        }));
        let delete = || {
            self.delete_group(&group).and_then(|()| {
                self.block_on(async {
                    let c = &self.cluster;
                    let r = c
                        .admin
                        .delete_topics([scratch.as_str()], DeleteTopicsOptions::default().timeout(c.timeout))
                        .await
                        .map_err(|e| c.error(format!("delete {scratch}"), &e))?;
                    match r.get(scratch.as_str()) {
                        Some(Err(e)) => Err(c.error(format!("delete {scratch}"), e)),
                        _ => Ok(()),
                    }
                })
            })
        };
        out.push(timed(|| {
            Check::of(
                "A scratch topic and group are deleted",
                &["DeleteGroups", "DeleteTopics"],
                "Delete group; this check's own cleanup",
                delete().and_then(|()| match self.topic(&scratch)? {
                    None => right(format!("{scratch} and its group are gone")),
                    Some(_) => wrong(format!("{scratch} is still listed after it was deleted")),
                }),
            )
        }));
        out
    }
}
