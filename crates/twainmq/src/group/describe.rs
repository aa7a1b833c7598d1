//! A group as inspection shows it: members, assignment, commits, lag, rounds.

use std::collections::BTreeMap;

use serde::Serialize;

use super::cache::{read_log, Groups};
use super::liveness::{GroupPhase, MemberLiveness, MemberStatus, RoundChurn, Thresholds, Waiting};
use super::open::group_topic_reader;
use super::records::{ClientInfo, Record};
use super::setup::group_topic_of;
use super::state::RoundView;
use crate::error::Result;
use crate::format::name;
use crate::log::cursor::{Cursor, Next};
use crate::log::files;
use crate::log::timeindex::line_timestamp;

/// A member as inspection shows it.
#[derive(Debug, Clone, Serialize)]
pub struct MemberView {
    /// The member's id (its key in the group log).
    pub id: u32,
    /// What the last completed round gave it, sorted; empty for a member that
    /// joined since.
    pub partitions: Vec<u32>,
    /// When it joined (UNIX seconds), if its `JOINED` is in the log.
    pub joined_at: Option<f64>,
    /// When it last wrote a record (offers, confirms, commits).
    pub last_seen_at: Option<f64>,
    /// Live, stale or gone: inferred from the group log (0.2.3 has no
    /// heartbeat record), relative to the store's clock.
    pub status: MemberStatus,
    /// Why it has that status.
    pub status_reason: String,
    /// It is one of our members (its `JOINED` carries our mark): it moves to a
    /// reset of a partition it holds. 0.2.3 members keep their own position and
    /// overwrite the reset with their next commit.
    pub follows_resets: bool,
    /// Which program it is and where it runs, as its `JOINED` record says (our
    /// members write it; 0.2.3 members write a tag alone).
    pub client: Option<ClientInfo>,
}

impl MemberView {
    /// The kind of client, in a few words: `twainmq 0.2.3` for a member
    /// without our mark (0.2.3, or another program speaking its protocol),
    /// else the program its `JOINED` names, with its version, host and pid.
    pub fn client_label(&self) -> String {
        match (&self.client, self.follows_resets) {
            (Some(c), _) => {
                let name = match c.program.as_str() {
                    "twainmq-cli" => "twainmq CLI".to_string(),
                    "twainmq-rs" => "twainmq-rs (Python)".to_string(),
                    "twainmq-desktop" => "TwainMQ Desktop demo".to_string(),
                    "twainmq-rust" => "Rust (twainmq crate)".to_string(),
                    other => other.to_string(),
                };
                let version = if c.version.is_empty() { String::new() } else { format!(" {}", c.version) };
                let place = match (&c.host, c.pid) {
                    (Some(h), Some(p)) => format!(" on {h}, pid {p}"),
                    (Some(h), None) => format!(" on {h}"),
                    (None, Some(p)) => format!(", pid {p}"),
                    (None, None) => String::new(),
                };
                format!("{name}{version}{place}")
            }
            (None, true) => "TwainMQ (an older build: program not recorded)".to_string(),
            (None, false) => "twainmq 0.2.3".to_string(),
        }
    }
}

/// Per-partition progress.
#[derive(Debug, Clone, Serialize)]
pub struct PartitionProgress {
    /// The partition.
    pub partition: u32,
    /// Latest commit (-1: "the end when taken"), if any.
    pub committed: Option<i64>,
    /// The partition's end: the offset its next message will get.
    pub end: u64,
    /// Messages a member would read: from the committed offset (or the
    /// partition's first offset still on disk, when retention deleted the
    /// ones before it) to `end`; all of them without a commit, none for -1.
    pub lag: u64,
    /// Timestamp of the oldest message not yet committed, if any.
    pub oldest_unconsumed_at: Option<f64>,
    /// How far the commit is past `end`, when it is: the partition shrank under
    /// it (a file truncated, deleted by hand, a topic made again), and a member
    /// taking the partition starts at the commit, so the next this many messages
    /// written there will be skipped. `lag` is then 0, which hides it.
    pub past_end: Option<u64>,
    /// The member that holds it by the last completed round, if any.
    pub owner: Option<u32>,
}

/// Everything inspection knows about a group.
#[derive(Debug, Clone, Serialize)]
pub struct GroupDescription {
    /// The group's name.
    pub group: String,
    /// The topic recorded in the group's config, or the only candidate.
    pub topic: Option<String>,
    /// Topics whose partition count matches (for groups 0.2.3 created).
    pub topic_candidates: Vec<String>,
    /// Stable, rebalancing, stuck or empty: inferred from the group log,
    /// relative to the store's clock.
    pub state: GroupPhase,
    /// Why the group is in that state.
    pub state_reason: String,
    /// How many of `members` are live.
    pub live_members: usize,
    /// Members now: the last completed round's, and those who joined since it began.
    pub members: Vec<MemberView>,
    /// Members the log shows that are no longer in the group (all gone),
    /// most recently seen first, at most 50.
    pub former_members: Vec<MemberView>,
    /// `"<partition>": offset`.
    pub committed: BTreeMap<String, i64>,
    /// `"<partition>": messages not yet committed`.
    pub lag: BTreeMap<String, u64>,
    /// Each partition of `topic`, in order; empty when the topic is not known.
    pub partitions: Vec<PartitionProgress>,
    /// The round open now, if any.
    pub open_round: Option<RoundView>,
    /// Rounds in log order: the last 200.
    pub rounds: Vec<RoundView>,
    /// Records in the group log.
    pub records: u64,
    /// Lines of the group log skipped: damaged, or not one of the seven records.
    pub unreadable_records: u64,
    /// When the latest record was written, UNIX seconds.
    pub last_record_at: Option<f64>,
    /// The thresholds the statuses were inferred with.
    pub thresholds: Thresholds,
    /// Rounds opened faster than they can end (nothing is assigned), if they are.
    pub round_churn: Option<RoundChurn>,
}

/// Lag thresholds for alerts (`groups lag`, the app's badge): a partition is
/// over when more than `max_lag` messages are not yet committed, or when its
/// oldest such message is older than `max_age_secs`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct LagThresholds {
    /// Most messages not yet committed before a partition is over.
    pub max_lag: Option<u64>,
    /// Oldest age (seconds) of a message not yet committed before a partition is over.
    pub max_age_secs: Option<f64>,
}

/// A partition over a threshold, and which.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LagBreach {
    /// The partition.
    pub partition: u32,
    /// Its oldest message not yet committed, seconds before `now` (0 for one
    /// stamped ahead of now by a skewed clock), if it has one.
    pub age_secs: Option<f64>,
    /// `max_lag` and/or `max_age`; empty when within both.
    pub over: Vec<&'static str>,
}

impl GroupDescription {
    /// Each partition against `t` at `now` (UNIX seconds, e.g. [`crate::Store::now_secs`]), in partition order.
    pub fn lag_against(&self, t: &LagThresholds, now: f64) -> Vec<LagBreach> {
        self.partitions
            .iter()
            .map(|p| {
                let age_secs = p.oldest_unconsumed_at.map(|at| (now - at).max(0.0));
                let mut over = Vec::new();
                if t.max_lag.is_some_and(|m| p.lag > m) {
                    over.push("max_lag");
                }
                if t.max_age_secs.zip(age_secs).is_some_and(|(m, a)| a > m) {
                    over.push("max_age");
                }
                LagBreach { partition: p.partition, age_secs, over }
            })
            .collect()
    }
}

/// Describe a group from its log: members, assignment, commits, lag, rounds;
/// `topic` names the topic for a group 0.2.3 created when several could be its own.
///
/// # Errors
/// [`Error::GroupNotFound`], I/O errors.
pub(crate) fn describe_on(g: &Groups, group: &str, topic: Option<&str>) -> Result<GroupDescription> {
    let log = read_log(g, group)?;
    let (found, topic_candidates) = group_topic_of(g, group, &log)?;
    let topic = topic.map(str::to_string).or(found);
    let members_map = log.members();
    let now = g.log.clock().now_micros() as f64 / 1e6;
    let mut partitions = Vec::new();
    if let Some(t) = &topic {
        if let Ok(config) = g.log.topic_config(t) {
            // One listing of the topic's folder serves every partition, the oldest unconsumed
            // times below too (a reader per partition listed the folder for itself: P listings of
            // P × days entries, seconds for 1,000 partitions; issue 24 item 15).
            let listing = files::list_topic_dir(&g.log.topic_dir(t), config.partitions)?;
            let kc = config.key_type.encoded_len();
            // The listing has one entry per partition, 0 to config.partitions - 1.
            for (p, pfiles) in (0..config.partitions).zip(&listing.partitions) {
                let end = g.log.partition_end(pfiles)?;
                let committed = log.commits.get(&p).copied();
                // A negative commit (-1) means the end when taken.
                let from = match committed {
                    Some(o) => u64::try_from(o).unwrap_or(end),
                    None => 0,
                };
                // Lag is what a member would read: offsets that retention or a purge deleted
                // (before the partition's first file) are not read, so they are not counted, and
                // the oldest unconsumed message is looked for where reading would start.
                let start = pfiles.first().map_or(end, |f| f.first).min(end);
                let from = from.max(start);
                let lag = end.saturating_sub(from);
                let oldest_unconsumed_at = if lag > 0 { first_timestamp(g, pfiles, from, kc) } else { None };
                let owner = members_map.iter().find(|(_, ps)| ps.contains(&p)).map(|(id, _)| *id);
                let past_end = committed.and_then(|c| u64::try_from(c).ok()).and_then(|c| c.checked_sub(end)).filter(|&n| n > 0);
                partitions.push(PartitionProgress { partition: p, committed, end, lag, oldest_unconsumed_at, owner, past_end });
            }
        }
    }
    // What waits in each partition lets a member's own commit rhythm say it stopped.
    let inferred = if topic.is_some() && !partitions.is_empty() {
        let waiting: Waiting = partitions.iter().filter_map(|p| p.oldest_unconsumed_at.map(|at| (p.partition, at))).collect();
        log.liveness_with_waiting(now, &waiting)
    } else {
        log.liveness(now)
    };
    let view = |m: MemberLiveness| MemberView {
        id: m.id,
        partitions: m.partitions,
        joined_at: log.joins.get(&m.id).map(|j| j.1),
        last_seen_at: log.last_seen.get(&m.id).copied(),
        status: m.status,
        status_reason: m.reason,
        follows_resets: m.follows_resets,
        client: m.client,
    };
    let live_members = inferred.live_count();
    let (state, state_reason, thresholds, round_churn) = (inferred.state, inferred.reason, inferred.thresholds, inferred.round_churn);
    let members: Vec<MemberView> = inferred.members.into_iter().map(view).collect();
    let former_members = inferred.former.into_iter().map(view).collect();
    Ok(GroupDescription {
        group: group.to_string(),
        topic,
        topic_candidates,
        state,
        state_reason,
        live_members,
        members,
        former_members,
        committed: log.commits.iter().map(|(p, o)| (p.to_string(), *o)).collect(),
        lag: partitions.iter().map(|p| (p.partition.to_string(), p.lag)).collect(),
        partitions,
        open_round: log.open_round().cloned(),
        rounds: log.rounds.clone(),
        records: log.records,
        unreadable_records: log.unreadable,
        last_record_at: log.last_record_at,
        thresholds,
        round_churn,
    })
}

/// The timestamp of the message at `offset` among `pfiles` (one partition's files, in order),
/// or of the first one after it whose timestamp can be read (up to 16 lines on: a damaged line
/// holds an offset but may have no time); `kc` as [`line_timestamp`] takes it. Only the
/// timestamps are read, from the nearest seek mark of the line index.
fn first_timestamp(g: &Groups, pfiles: &[files::PartitionFile], offset: u64, kc: usize) -> Option<f64> {
    let i = pfiles.iter().rposition(|f| f.first <= offset)?;
    let mut tries = 0;
    for (k, f) in pfiles[i..].iter().enumerate() {
        let skip = if k == 0 { offset - f.first } else { 0 };
        let (pos, line) = if skip >= crate::log::index::STRIDE { g.log.index().locate(&f.path, skip).ok()? } else { (0, 0) };
        let mut c = Cursor::open_at(f.clone(), pos, line).ok()?;
        let mut at = line;
        loop {
            match c.next().ok()? {
                Next::Line(s, e) if at >= skip => {
                    if let Some(t) = line_timestamp(&c.buf[s..e], kc) {
                        return Some(t);
                    }
                    tries += 1;
                }
                Next::Overlong(_) if at >= skip => tries += 1,
                Next::Line(..) | Next::Overlong(_) => {}
                // On to the next file (the offset is past this one's last line).
                Next::Eof(_) => break,
            }
            if tries >= 16 {
                return None;
            }
            at += 1;
        }
    }
    None
}

/// Open a round in a group from outside it (as key 0), so that the members
/// re-assign partitions; members that died take no part and lose theirs.
///
/// # Errors
/// [`Error::GroupNotFound`], I/O errors.
pub(crate) fn trigger_round(g: &Groups, group: &str, window: std::time::Duration) -> Result<()> {
    name::validate_group(group)?;
    group_topic_reader(&g.log, group)?;
    let ends_at = g.log.clock().now_micros() as f64 / 1e6 + window.as_secs_f64();
    let mut w = g.log.producer(&name::group_topic(group))?;
    w.send(&crate::format::key::Key::Int(0), &Record::BeginRound { ends_at }.to_outgoing()).map(|_| ())
}

#[cfg(test)]
mod tests {
    use crate::log::files::LISTINGS;
    use crate::{Key, KeyType, StartFrom, Store, TopicSpec};

    /// Describing a group read the topic's folder once for every partition (each partition's
    /// reader listed it for itself), and so did its lag history: 1,000 partitions of three
    /// days' files took seconds, a 300-partition group page 39 s of a core in a debug build
    /// (issue 24 item 15). Both now list the folder a fixed number of times.
    #[test]
    fn a_group_of_many_partitions_is_described_from_a_few_listings() {
        let dir = tempfile::tempdir().expect("tmp");
        let store = Store::open(dir.path()).expect("open");
        let parts = 40;
        store.create_topic("wide", &TopicSpec::new(KeyType::U16, parts)).expect("create");
        let mut p = store.producer("wide").expect("producer");
        for k in 0..(parts * 25) {
            p.send_text(Key::Int(u64::from(k)), "x").expect("send");
        }
        store.ensure_group("wide", "g", StartFrom::Start).expect("group");
        let count = |f: &dyn Fn()| {
            let before = LISTINGS.with(std::cell::Cell::get);
            f();
            LISTINGS.with(std::cell::Cell::get) - before
        };
        let described = count(&|| {
            let d = store.describe_group("g").expect("describe");
            assert_eq!(d.partitions.len(), parts as usize);
            let lagging: Vec<_> = d.partitions.iter().filter(|p| p.lag > 0).collect();
            assert!(lagging.len() > parts as usize / 2, "most partitions have messages to read");
            assert!(lagging.iter().all(|p| p.oldest_unconsumed_at.is_some()), "each with its oldest time");
        });
        assert!(described <= 3, "describe listed the folder {described} times for {parts} partitions");
        let now = store.now_secs();
        let history = count(&|| {
            let h = store.lag_history("g", now - 3600.0, now + 1.0, 10).expect("history");
            assert_eq!(h.partitions.len(), parts as usize);
        });
        assert!(history <= 6, "the lag history listed the folder {history} times for {parts} partitions");
    }
}
