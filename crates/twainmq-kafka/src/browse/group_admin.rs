//! Changing a cluster's consumer group from the app: a reset of its committed
//! offsets, planned first (what each partition's commit becomes, nothing
//! written) and applied as planned; and deleting the group. Kafka lets both be
//! done only to a group with no member (a live consumer would overwrite the
//! reset with its next commit): that is checked first and said in words.

use std::collections::BTreeSet;

use krafka::admin::{AlterConsumerGroupOffsetsOptions, DeleteConsumerGroupsOptions, ListOffsetsOptions, OffsetSpec};
use krafka::consumer::TopicPartition;
use krafka::error::ErrorCode;
use krafka::KrafkaError;

use super::Browser;
use crate::error::{Error, Result};

/// Where a reset moves a group's commits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ResetTo {
    /// The first offset still on the cluster: everything there is read again.
    Earliest,
    /// The end: nothing written so far is read.
    Latest,
    /// The first record at or after these milliseconds (the end when none is that new).
    Time(i64),
    /// This offset, in every partition (kept within each partition's first offset and end).
    Offset(u64),
    /// The current commit moved by this many (back when negative), kept within the partition.
    Shift(i64),
}

/// One partition of a reset plan.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResetRow {
    /// The topic.
    pub topic: String,
    /// The partition.
    pub partition: u32,
    /// The commit now; `None` when the group never committed there.
    pub current: Option<u64>,
    /// The commit after the reset.
    pub new: u64,
    /// The partition's first offset still on the cluster.
    pub low: u64,
    /// Its end.
    pub end: u64,
}

fn group_busy(group: &str, members: usize) -> Error {
    Error::GroupBusy { group: group.to_string(), members }
}

impl Browser {
    /// What resetting `group`'s commits on `topics` to `to` would make of each
    /// partition: every partition of those topics (a group may be given
    /// commits on a topic it never read). Nothing is written.
    ///
    /// # Errors
    /// [`Error::TopicMissing`] for a topic the cluster does not have;
    /// [`Error::Kafka`] naming the broker and the call.
    pub fn plan_reset(&self, group: &str, topics: &[String], to: ResetTo) -> Result<Vec<ResetRow>> {
        let wanted: BTreeSet<&str> = topics.iter().map(String::as_str).collect();
        let marks = self.block_on(self.watermarks_of(topics))?;
        for t in &wanted {
            if !marks.iter().any(|m| m.name == *t) {
                return Err(Error::TopicMissing { place: format!("Kafka at {}", self.cluster.broker), topic: (*t).to_string() });
            }
        }
        let detail = self.group(group)?;
        let committed = |topic: &str, p: u32| -> Option<u64> {
            detail.as_ref()?.partitions.iter().find(|x| x.topic == topic && x.partition == p)?.committed
        };
        let times = match to {
            ResetTo::Time(ms) => Some(self.block_on(self.offsets_at(
                &marks.iter().map(|m| (m.name.clone(), m.partitions.iter().map(|p| p.partition).collect())).collect::<Vec<_>>(),
                ms,
            ))?),
            _ => None,
        };
        let mut rows = Vec::new();
        for m in &marks {
            for p in &m.partitions {
                let current = committed(&m.name, p.partition);
                let clamp = |o: u64| o.clamp(p.low, p.high);
                let new = match to {
                    ResetTo::Earliest => p.low,
                    ResetTo::Latest => p.high,
                    ResetTo::Offset(o) => clamp(o),
                    // A partition never committed is shifted from its end (where a new consumer starts by default).
                    ResetTo::Shift(n) => shifted(current.unwrap_or(p.high), n, p.low, p.high),
                    ResetTo::Time(_) => {
                        let at = times
                            .as_ref()
                            .and_then(|t| t.iter().find(|(tp, _)| tp.topic == m.name && tp.partition == p.partition as i32))
                            .and_then(|(_, o)| *o);
                        clamp(at.unwrap_or(p.high))
                    }
                };
                rows.push(ResetRow { topic: m.name.clone(), partition: p.partition, current, new, low: p.low, end: p.high });
            }
        }
        Ok(rows)
    }

    /// Each partition's first offset at or after `ms` (`None`: no record that new).
    async fn offsets_at(&self, topics: &[(String, Vec<u32>)], ms: i64) -> Result<Vec<(TopicPartition, Option<u64>)>> {
        let c = &self.cluster;
        let tps: Vec<TopicPartition> =
            topics.iter().flat_map(|(t, ps)| ps.iter().map(move |p| TopicPartition::new(t.as_str(), *p as i32))).collect();
        let mut r = c
            .admin
            .list_offsets(tps.iter().map(|tp| (tp.clone(), OffsetSpec::Timestamp(ms))), ListOffsetsOptions::default().timeout(c.timeout))
            .await
            .map_err(|e| c.error(format!("find the offsets at {ms} ms"), &e))?;
        let mut out = Vec::with_capacity(tps.len());
        for tp in tps {
            let o = match r.remove(&tp) {
                Some(Ok(o)) => u64::try_from(o.offset).ok(),
                Some(Err(KrafkaError::Broker { code: ErrorCode::OffsetNotAvailable, .. })) | None => None,
                Some(Err(e)) => return Err(c.error(format!("find the offset of {}/{} at {ms} ms", tp.topic, tp.partition), &e)),
            };
            out.push((tp, o));
        }
        Ok(out)
    }

    /// Commit `rows`' new offsets for `group` (a plan made by [`Browser::plan_reset`],
    /// applied as it was shown), once the group is seen to have no member.
    ///
    /// # Errors
    /// [`Error::GroupBusy`] while the group has members (in words: stop them first);
    /// [`Error::Kafka`] naming the broker and the call.
    pub fn apply_reset(&self, group: &str, rows: &[ResetRow]) -> Result<()> {
        if let Some(d) = self.group(group)? {
            if !d.members.is_empty() {
                return Err(group_busy(group, d.members.len()));
            }
        }
        self.block_on(async {
            let c = &self.cluster;
            let op = format!("reset the offsets of consumer group {group}");
            let offsets =
                rows.iter().map(|r| (TopicPartition::new(r.topic.as_str(), r.partition as i32), i64::try_from(r.new).unwrap_or(i64::MAX)));
            let r = c
                .admin
                .alter_consumer_group_offsets(group, offsets, AlterConsumerGroupOffsetsOptions::default().timeout(c.timeout))
                .await
                .map_err(|e| c.error(op.clone(), &e))?;
            for (tp, res) in r {
                match res {
                    Ok(()) => {}
                    Err(KrafkaError::Broker { code: ErrorCode::UnknownMemberId | ErrorCode::RebalanceInProgress, .. }) => {
                        return Err(group_busy(group, 1));
                    }
                    Err(e) => return Err(c.error(format!("{op} on {}/{}", tp.topic, tp.partition), &e)),
                }
            }
            Ok(())
        })
    }

    /// Delete `group` (its commits with it), once it is seen to have no member.
    /// A group the cluster does not have is an error, not a success.
    ///
    /// # Errors
    /// [`Error::GroupBusy`] while the group has members, [`Error::GroupMissing`] when there is none;
    /// [`Error::Kafka`] naming the broker and the call.
    pub fn delete_group(&self, group: &str) -> Result<()> {
        match self.group(group)? {
            None => return Err(Error::GroupMissing { place: format!("Kafka at {}", self.cluster.broker), group: group.to_string() }),
            Some(d) if !d.members.is_empty() => return Err(group_busy(group, d.members.len())),
            Some(_) => {}
        }
        self.block_on(async {
            let c = &self.cluster;
            let op = format!("delete consumer group {group}");
            let mut r = c
                .admin
                .delete_consumer_groups([group], DeleteConsumerGroupsOptions::default().timeout(c.timeout))
                .await
                .map_err(|e| c.error(op.clone(), &e))?;
            match r.remove(group) {
                Some(Ok(())) | None => Ok(()),
                Some(Err(KrafkaError::Broker { code: ErrorCode::NonEmptyGroup, .. })) => Err(group_busy(group, 1)),
                Some(Err(e)) => Err(c.error(op, &e)),
            }
        })
    }
}

/// `from` moved by `n` (back when negative), kept within `[low, high]`, never wrapping.
fn shifted(from: u64, n: i64, low: u64, high: u64) -> u64 {
    (if n < 0 { from.saturating_sub(n.unsigned_abs()) } else { from.saturating_add(n.unsigned_abs()) }).clamp(low, high)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_shift_stays_within_the_partition_and_never_wraps() {
        assert_eq!(shifted(10, -3, 0, 20), 7);
        assert_eq!(shifted(10, -30, 5, 20), 5);
        assert_eq!(shifted(10, 30, 0, 20), 20);
        assert_eq!(shifted(u64::MAX - 1, i64::MAX, 0, u64::MAX), u64::MAX);
        assert_eq!(shifted(0, i64::MIN, 0, 9), 0);
    }
}
