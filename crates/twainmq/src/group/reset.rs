//! Resetting a group's committed offsets.

use serde::Serialize;

use super::cache::{read_log, Groups};
use super::records::Record;
use super::setup::group_topic_of;
use super::GroupError;
use crate::error::Result;
use crate::format::name;
use crate::log::files;

/// Where a reset moves committed offsets to.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ResetTo {
    /// The partition's first offset still on disk.
    Earliest,
    /// The partition's end: nothing left to consume.
    Latest,
    /// This offset, clamped to the partition's first offset on disk and its end.
    Offset(u64),
    /// The first message at or after this UNIX time (the end if none).
    Time(f64),
}

impl ResetTo {
    /// Parse `earliest`, `latest`, `offset:N` or `time:RFC3339`.
    ///
    /// # Errors
    /// A message saying which forms are accepted.
    pub fn parse(text: &str) -> std::result::Result<ResetTo, String> {
        match text {
            "earliest" | "start" => Ok(ResetTo::Earliest),
            "latest" | "end" => Ok(ResetTo::Latest),
            t => {
                if let Some(n) = t.strip_prefix("offset:") {
                    return n.trim().parse().map(ResetTo::Offset).map_err(|_| format!("{n:?} is not an offset (a whole number)"));
                }
                if let Some(ts) = t.strip_prefix("time:") {
                    return chrono::DateTime::parse_from_rfc3339(ts.trim())
                        .map(|d| ResetTo::Time(d.timestamp_micros() as f64 / 1e6))
                        .map_err(|e| format!("{ts:?} is not an RFC 3339 time like 2026-11-29T12:00:00Z ({e})"));
                }
                Err(format!("{t:?} is not a reset target: use earliest, latest, offset:N or time:RFC3339"))
            }
        }
    }
}

/// One partition's row in a reset plan.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ResetRow {
    /// The partition.
    pub partition: u32,
    /// Its committed offset before the reset (-1: "the end when taken"),
    /// `None` if it had none.
    pub before: Option<i64>,
    /// The offset the reset commits.
    pub after: u64,
    /// The partition's first offset on disk.
    pub start: u64,
    /// The partition's end: the offset its next message will get.
    pub end: u64,
}

/// What a reset does (or did).
#[derive(Debug, Clone, Serialize)]
pub struct ResetPlan {
    /// The group's name.
    pub group: String,
    /// The group's topic.
    pub topic: String,
    /// One row per partition reset, in partition order.
    pub rows: Vec<ResetRow>,
    /// Members holding partitions now: their next commit overrides the reset.
    pub live_members: Vec<u32>,
    /// Whether the `COMMIT` was written: `false` for a dry run.
    pub applied: bool,
}

/// Reset committed offsets by writing a `COMMIT` record 0.2.3 members honour
/// when they next take a partition (with `dry_run`, only the plan); `topic`
/// names the topic for a group 0.2.3 created when several could be its own.
///
/// # Errors
/// [`Error::GroupNotFound`], [`GroupError`], I/O errors.
pub(crate) fn reset_on(
    g: &Groups,
    group: &str,
    topic: Option<&str>,
    to: ResetTo,
    partitions: Option<&[u32]>,
    dry_run: bool,
) -> Result<ResetPlan> {
    let log = read_log(g, group)?;
    let (found, _) = group_topic_of(g, group, &log)?;
    let topic = topic.map(str::to_string).or(found);
    let Some(topic) = topic else {
        return Err(GroupError::UnknownTopic { group: group.into(), partitions: log.partitions_hint.unwrap_or(0) }.into());
    };
    let config = g.log.topic_config(&topic)?;
    let chosen: Vec<u32> = match partitions {
        Some(ps) => {
            for &p in ps {
                if p >= config.partitions {
                    return Err(
                        GroupError::NoSuchPartition { group: group.into(), topic, partition: p, partitions: config.partitions }.into()
                    );
                }
            }
            let mut ps = ps.to_vec();
            ps.sort_unstable();
            ps.dedup();
            ps
        }
        None => (0..config.partitions).collect(),
    };
    let listing = files::list_topic_dir(&g.log.topic_dir(&topic), config.partitions)?;
    let mut rows = Vec::new();
    for p in chosen {
        let pfiles = &listing.partitions[p as usize];
        let start = pfiles.first().map_or(0, |f| f.first);
        let end = g.log.partition_end(pfiles)?;
        let after = match to {
            ResetTo::Earliest => start,
            ResetTo::Latest => end,
            ResetTo::Offset(o) => o.clamp(start, end),
            ResetTo::Time(t) => crate::log::seek::offset_at_time(&g.log, &topic, p, t)?.unwrap_or(end),
        };
        rows.push(ResetRow { partition: p, before: log.commits.get(&p).copied(), after, start, end });
    }
    let live_members: Vec<u32> = log.members().iter().filter(|(_, ps)| !ps.is_empty()).map(|(id, _)| *id).collect();
    if !dry_run && !rows.is_empty() {
        let offsets = rows.iter().map(|r| (r.partition, i64::try_from(r.after).unwrap_or(i64::MAX))).collect();
        let mut w = g.log.producer(&name::group_topic(group))?;
        w.send(&crate::format::key::Key::Int(0), &Record::Commit { offsets }.to_outgoing())?;
    }
    Ok(ResetPlan { group: group.into(), topic, rows, live_members, applied: !dry_run })
}
