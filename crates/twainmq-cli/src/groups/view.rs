//! The typed outputs of `groups export`, `delete` and `lag`, written as text
//! or JSON by `render::emit` like every other command's.

use std::collections::BTreeMap;
use std::io::{self, Write};

use serde::Serialize;
use twainmq::group::{GroupDescription, MemberStatus};

use crate::render::{fmt_time, Text};

/// `groups export`: what `groups import` reads back.
#[derive(Serialize)]
pub(crate) struct Exported {
    pub(crate) group: String,
    pub(crate) topic: Option<String>,
    /// `"<partition>": offset` (-1: the end when taken), as `describe --json` shows them.
    pub(crate) offsets: BTreeMap<String, i64>,
}

impl Text for Exported {
    fn text(&self, out: &mut dyn Write) -> io::Result<()> {
        for (p, o) in &self.offsets {
            writeln!(out, "{p}\t{o}")?;
        }
        Ok(())
    }
}

/// `groups delete --yes`: what was deleted, as counted before.
#[derive(Serialize)]
pub(crate) struct Deleted {
    pub(crate) group: String,
    pub(crate) topic: Option<String>,
    pub(crate) records: u64,
    pub(crate) committed: BTreeMap<String, i64>,
    pub(crate) members: Vec<u32>,
    pub(crate) live_members: Vec<u32>,
}

impl Deleted {
    pub(crate) fn of(d: &GroupDescription) -> Deleted {
        Deleted {
            group: d.group.clone(),
            topic: d.topic.clone(),
            records: d.records,
            committed: d.committed.clone(),
            members: d.members.iter().map(|m| m.id).collect(),
            live_members: d.members.iter().filter(|m| m.status == MemberStatus::Live).map(|m| m.id).collect(),
        }
    }

    /// One sentence: the group, its records, offsets and members.
    pub(crate) fn summary(&self) -> String {
        let mut s = format!(
            "group {:?} (topic {}): its log of {} records, the committed offsets of {} partitions and {} members",
            self.group,
            self.topic.as_deref().unwrap_or("?"),
            self.records,
            self.committed.len(),
            self.members.len()
        );
        if !self.live_members.is_empty() {
            s += &format!(
                "; members {:?} look live: a 0.2.3 member still running crashes (FileNotFoundError) when its group is deleted, and ours stop with an error, so the delete is refused until they are stopped (--members-stopped once they are)",
                self.live_members
            );
        }
        s
    }
}

impl Text for Deleted {
    fn text(&self, out: &mut dyn Write) -> io::Result<()> {
        writeln!(out, "deleted {}", self.summary())
    }
}

/// One partition of `groups lag`.
#[derive(Serialize)]
pub(crate) struct LagRow {
    pub(crate) partition: u32,
    pub(crate) committed: Option<i64>,
    pub(crate) end: u64,
    pub(crate) lag: u64,
    pub(crate) oldest_unconsumed_at: Option<f64>,
    /// Seconds from the oldest message not yet committed to now (store clock).
    pub(crate) age_secs: Option<f64>,
    /// Which thresholds it is over: `max_lag`, `max_age`.
    pub(crate) over: Vec<&'static str>,
}

/// `groups lag`.
#[derive(Serialize)]
pub(crate) struct LagReport {
    pub(crate) group: String,
    pub(crate) topic: Option<String>,
    pub(crate) state: &'static str,
    pub(crate) max_lag: Option<u64>,
    pub(crate) max_age_secs: Option<f64>,
    pub(crate) total_lag: u64,
    pub(crate) partitions: Vec<LagRow>,
    /// The partitions over a threshold (the command then exits 1).
    pub(crate) over: Vec<u32>,
}

impl Text for LagReport {
    fn text(&self, out: &mut dyn Write) -> io::Result<()> {
        writeln!(
            out,
            "group {} on topic {} ({}): {} messages not yet committed",
            self.group,
            self.topic.as_deref().unwrap_or("?"),
            self.state,
            self.total_lag
        )?;
        writeln!(out, "partition  lag  oldest unconsumed  over")?;
        for r in &self.partitions {
            let oldest = r.oldest_unconsumed_at.map_or("-".to_string(), fmt_time);
            let age = r.age_secs.map_or(String::new(), |a| format!(" ({a:.0} s ago)"));
            writeln!(out, "{:>9}  {:>3}  {oldest}{age}  {}", r.partition, r.lag, r.over.join(","))?;
        }
        if self.over.is_empty() {
            writeln!(out, "ok: no partition over the thresholds")
        } else {
            writeln!(out, "over: partitions {:?}", self.over)
        }
    }
}

/// `groups lag --history`.
#[derive(Serialize)]
#[serde(transparent)]
pub(crate) struct HistoryView(pub(crate) twainmq::group::LagHistory);

impl Text for HistoryView {
    fn text(&self, out: &mut dyn Write) -> io::Result<()> {
        let h = &self.0;
        writeln!(out, "lag of group {} from {} to {}", h.group, fmt_time(h.from), fmt_time(h.to))?;
        for p in &h.partitions {
            let pts: Vec<String> = p.points.iter().map(|pt| pt.lag.to_string()).collect();
            writeln!(out, "partition {}: {}", p.partition, pts.join(" "))?;
        }
        for m in &h.marks {
            writeln!(out, "{} {} (offset {})", fmt_time(m.at), m.kind, m.offset)?;
        }
        Ok(())
    }
}
