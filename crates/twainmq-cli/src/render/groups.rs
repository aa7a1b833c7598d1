//! `groups`: the listing, a group described, a reset's table, a rebalance.

#[allow(clippy::wildcard_imports)]
use super::*;
use twainmq::group::{GroupDescription, ResetPlan};

/// A row of `groups list`: the group's topic and members, or why its log cannot be read.
#[derive(Serialize)]
#[serde(untagged)]
pub(crate) enum GroupRow {
    Group { group: String, topic: Option<String>, members: usize, round_open: bool, state: &'static str, live_members: usize },
    Unreadable { group: String, error: String },
}

/// `groups list`.
#[derive(Serialize)]
#[serde(transparent)]
pub(crate) struct GroupList(pub(crate) Vec<GroupRow>);

impl Text for GroupList {
    fn text(&self, out: &mut dyn Write) -> io::Result<()> {
        for row in &self.0 {
            // An unreadable group shows `topic ?` and `null members`, as it always has.
            match row {
                GroupRow::Group { group, topic, members, state, live_members, .. } => {
                    let topic = topic.as_deref().unwrap_or("?");
                    writeln!(out, "{group}\ttopic {topic}\t{state}\t{live_members} live of {members} members")?;
                }
                GroupRow::Unreadable { group, .. } => writeln!(out, "{group}\ttopic ?\tnull members")?,
            }
        }
        Ok(())
    }
}

/// `groups describe`.
#[derive(Serialize)]
#[serde(transparent)]
pub(crate) struct GroupView(pub(crate) GroupDescription);

impl Text for GroupView {
    fn text(&self, out: &mut dyn Write) -> io::Result<()> {
        let d = &self.0;
        writeln!(out, "group {} on topic {}", d.group, d.topic.as_deref().unwrap_or("(unknown)"))?;
        if d.topic.is_none() && !d.topic_candidates.is_empty() {
            writeln!(out, "candidate topics (matching partition count): {}", d.topic_candidates.join(", "))?;
        }
        writeln!(out, "state: {}: {} (inferred from the group log)", d.state.as_str(), d.state_reason)?;
        for m in &d.members {
            writeln!(
                out,
                "member {} [{}]: partitions {:?}, {}: {}",
                m.id,
                m.client_label(),
                m.partitions,
                m.status.as_str(),
                m.status_reason
            )?;
        }
        for m in &d.former_members {
            writeln!(out, "former member {}: {}: {}", m.id, m.status.as_str(), m.status_reason)?;
        }
        if let Some(r) = &d.open_round {
            writeln!(
                out,
                "round open: started by {} at offset {}, ends at {}, {} offers",
                r.started_by,
                r.begin_offset,
                fmt_time(r.ends_at),
                r.offers.len()
            )?;
        }
        writeln!(out, "partition  committed  end  lag  owner")?;
        for p in &d.partitions {
            let c = p.committed.map_or("-".to_string(), |c| c.to_string());
            let o = p.owner.map_or("-".to_string(), |o| o.to_string());
            let past = p.past_end.map_or(String::new(), |n| format!("  PAST THE END by {n}"));
            writeln!(out, "{:>9}  {:>9}  {:>3}  {:>3}  {}{past}", p.partition, c, p.end, p.lag, o)?;
        }
        // A lag of 0 hides it: say what a commit past the end means, and the way out.
        for p in d.partitions.iter().filter(|p| p.past_end.is_some()) {
            let (n, c) = (p.past_end.unwrap_or(0), p.committed.unwrap_or(0));
            writeln!(
                out,
                "warning: partition {} has commit {c}, past its end {}: the next {n} {} written there will be skipped by this group. The partition shrank under the commit (a file truncated or deleted, the topic made again). To read from its end: twainmq groups reset {} --to latest --partition {}",
                p.partition,
                p.end,
                if n == 1 { "message" } else { "messages" },
                d.group,
                p.partition
            )?;
        }
        writeln!(out, "{} rounds in the log, {} records", d.rounds.len(), d.records)
    }
}

/// `groups reset`: the before/after table.
#[derive(Serialize)]
#[serde(transparent)]
pub(crate) struct ResetView(pub(crate) ResetPlan);

impl Text for ResetView {
    fn text(&self, out: &mut dyn Write) -> io::Result<()> {
        writeln!(out, "partition  before  after  (start..end)")?;
        for r in &self.0.rows {
            let before = r.before.map_or("-".to_string(), |b| b.to_string());
            writeln!(out, "{:>9}  {:>6}  {:>5}  ({}..{})", r.partition, before, r.after, r.start, r.end)?;
        }
        // `applied` is false exactly for a dry run.
        writeln!(out, "{}", if self.0.applied { "committed" } else { "dry run: nothing written" })
    }
}

/// `groups rebalance`.
#[derive(Serialize)]
pub(crate) struct RoundOpened {
    pub(crate) group: String,
    #[serde(rename = "window_secs", serialize_with = "secs")]
    pub(crate) window: std::time::Duration,
}

fn secs<S: serde::Serializer>(d: &std::time::Duration, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_f64(d.as_secs_f64())
}

impl Text for RoundOpened {
    fn text(&self, out: &mut dyn Write) -> io::Result<()> {
        writeln!(out, "round opened in group {}; it ends in {} s", self.group, self.window.as_secs_f64())
    }
}

/// UNIX seconds as `%Y-%m-%dT%H:%M:%S%.3fZ` (the number itself when out of chrono's range).
pub(crate) fn fmt_time(t: f64) -> String {
    // Saturating float-to-int cast: an absurd time falls out of chrono's range
    // and is shown as the number, never wraps.
    chrono::DateTime::from_timestamp_micros((t * 1e6) as i64)
        .map_or_else(|| t.to_string(), |d| d.format("%Y-%m-%dT%H:%M:%S%.3fZ").to_string())
}
