//! Member status and group state, inferred from the group log.
//!
//! 0.2.3 has no heartbeat record: a member writes only when it joins, in
//! rounds (an offer, a confirm, perhaps the `ENDREBAL`) and when it commits.
//! So liveness is inferred from what the log shows, relative to a clock
//! reading `now` (the store's clock), and said to be inferred. The rules are
//! written down in `docs/FORMAT.md` ("Member liveness and group state").

use serde::Serialize;

use super::records::is_our_tag;
use super::state::{GroupLog, RoundView};

/// The window assumed when the log shows no round with one (0.2.3's 60 s).
const DEFAULT_WINDOW: f64 = 60.0;
/// A member is live while its latest record is at most this many windows old...
const LIVE_WINDOWS: f64 = 3.0;
/// ... and never less than this (short windows would make every pause stale).
const MIN_LIVE_SECS: f64 = 30.0;
/// A member silent for more than this many windows is gone...
const GONE_WINDOWS: f64 = 10.0;
/// ... and never sooner than this.
const MIN_GONE_SECS: f64 = 600.0;
/// A live member ends a round at its first heartbeat past the round's end; a
/// round still open this long after its end has no live member to end it.
/// Also how long a round's starter may take to write its offer.
pub const ROUND_GRACE_SECS: f64 = 10.0;
/// Most members that are no longer in the group listed in a description.
const MAX_FORMER: usize = 50;

/// A member's status, inferred from the group log.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum MemberStatus {
    /// It wrote a record within the last few windows (and, in a round past
    /// its end, after that end).
    Live,
    /// No record for longer, or it owes the open round an offer or its end.
    Stale,
    /// It left, lost all its partitions in a later round, or has been silent
    /// for many windows.
    Gone,
}

/// A group's state, inferred from the group log.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum GroupPhase {
    /// No round open, and at least one member is live.
    Stable,
    /// A round is open within its window (plus [`ROUND_GRACE_SECS`]).
    Rebalancing,
    /// A round is open past its window and no live member ended it: the next
    /// member to join starts a new round.
    Stuck,
    /// No round open and no live member.
    Empty,
}

impl GroupPhase {
    /// The state's name: `stable`, `rebalancing`, `stuck` or `empty`.
    pub fn as_str(self) -> &'static str {
        match self {
            GroupPhase::Stable => "stable",
            GroupPhase::Rebalancing => "rebalancing",
            GroupPhase::Stuck => "stuck",
            GroupPhase::Empty => "empty",
        }
    }
}

impl MemberStatus {
    /// The status's name: `live`, `stale` or `gone`.
    pub fn as_str(self) -> &'static str {
        match self {
            MemberStatus::Live => "live",
            MemberStatus::Stale => "stale",
            MemberStatus::Gone => "gone",
        }
    }
}

/// The thresholds the inference used, from the group's window.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Thresholds {
    /// The group's rebalance window in seconds: the latest round's (its end
    /// minus its start), else 60.
    pub window_secs: f64,
    /// Live while the latest record is at most this old (seconds).
    pub live_secs: f64,
    /// Gone once silent for more than this (seconds).
    pub gone_secs: f64,
}

impl Thresholds {
    /// The thresholds for `log`'s window.
    pub(crate) fn of(log: &GroupLog) -> Thresholds {
        // The last member to leave opens a round of no window (ended at once): skip those.
        let window = log
            .rounds
            .iter()
            .rev()
            .map(|r| r.ends_at - r.started_at)
            .find(|w| w.is_finite() && *w > 0.0)
            .map_or(DEFAULT_WINDOW, |w| w.clamp(0.1, 86_400.0));
        Thresholds {
            window_secs: window,
            live_secs: (window * LIVE_WINDOWS).max(MIN_LIVE_SECS),
            gone_secs: (window * GONE_WINDOWS).max(MIN_GONE_SECS),
        }
    }
}

/// A member's inferred status and why.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Judgement {
    pub(crate) status: MemberStatus,
    pub(crate) reason: String,
    /// Its `JOINED` carries our mark: it moves to an admin commit (a reset).
    pub(crate) follows_resets: bool,
}

/// The round that `id` opened last, if it wrote nothing after it (but an
/// `ENDREBAL`) and the round is over or its starter had time to offer: what a
/// leaving member of ours writes (0.2.3 members just stop).
fn left_at(log: &GroupLog, id: u32, now: f64) -> Option<u64> {
    let a = log.activity.get(&id)?;
    let (began, at) = a.began?;
    let still_open = log.open_round().is_some_and(|r| r.begin_offset == began);
    (!a.wrote_since_began && (!still_open || now - at > ROUND_GRACE_SECS)).then_some(began)
}

/// The open round, if it is past its end plus the grace.
fn overdue_round(log: &GroupLog, now: f64) -> Option<&RoundView> {
    log.open_round().filter(|r| now > r.ends_at + ROUND_GRACE_SECS)
}

/// Judge a member that the log places in the group.
pub(crate) fn judge(log: &GroupLog, id: u32, now: f64, t: &Thresholds) -> Judgement {
    let follows_resets = log.joins.get(&id).is_some_and(|j| is_our_tag(j.0));
    let j = |status, reason: String| Judgement { status, reason, follows_resets };
    if let Some(began) = left_at(log, id, now) {
        return j(MemberStatus::Gone, format!("left: its last record opened the round at offset {began} and it made no offer in it, as a leaving member of ours does (or it stopped right then)"));
    }
    let Some(&last) = log.last_seen.get(&id) else {
        return j(MemberStatus::Gone, "no record of it in the group log".into());
    };
    // A record stamped ahead of `now` (a skewed clock) counts as just written.
    let silent = (now - last).max(0.0);
    if silent > t.gone_secs {
        return j(
            MemberStatus::Gone,
            format!("no record for more than {} s, {} windows of {} s", secs(t.gone_secs), GONE_WINDOWS, secs(t.window_secs)),
        );
    }
    if let Some(r) = overdue_round(log, now) {
        if last <= r.ends_at {
            return j(
                MemberStatus::Stale,
                format!("the round at offset {} passed its end and it has written nothing since, so it did not end it", r.begin_offset),
            );
        }
    }
    if let Some(r) = log.open_round() {
        let offered = r.offers.iter().any(|o| o.id == id);
        if !offered && now - r.started_at > ROUND_GRACE_SECS {
            return j(
                MemberStatus::Stale,
                format!("made no offer in the round open since offset {}: it loses its partitions when the round ends", r.begin_offset),
            );
        }
    }
    if silent > t.live_secs {
        return j(
            MemberStatus::Stale,
            format!(
                "no record for more than {} s; 0.2.3 has no heartbeat, so a member that neither commits nor takes part in a round looks the same",
                secs(t.live_secs)
            ),
        );
    }
    j(MemberStatus::Live, format!("wrote a record within the last {} s", secs(t.live_secs)))
}

/// Seconds for people: whole from 10 on, one decimal below (179.99996 is
/// "180", 0.34 is "0.3"), never a float's every digit.
pub(crate) fn secs(s: f64) -> String {
    if !s.is_finite() {
        return s.to_string();
    }
    if s.abs() >= 10.0 {
        format!("{s:.0}")
    } else {
        let t = format!("{s:.1}");
        t.strip_suffix(".0").map_or(t.clone(), str::to_string)
    }
}

/// Members the log shows that are no longer in the group (each gone, and
/// why), most recently seen first, at most 50.
pub(crate) fn former(log: &GroupLog, now: f64) -> Vec<(u32, Judgement)> {
    let current = log.members();
    let mut out: Vec<(u32, f64)> =
        log.last_seen.iter().filter(|(id, _)| **id != 0 && !current.contains_key(id)).map(|(id, at)| (*id, *at)).collect();
    out.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    out.truncate(MAX_FORMER);
    out.into_iter()
        .map(|(id, _)| {
            let follows_resets = log.joins.get(&id).is_some_and(|j| is_our_tag(j.0));
            let reason = match (left_at(log, id, now), log.last_completed()) {
                (Some(began), _) => format!("left: its last record opened the round at offset {began} and it made no offer in it, as a leaving member of ours does (or it stopped right then)"),
                (None, Some(r)) => format!("the round at offset {} gave it no partition: it made no offer in it", r.begin_offset),
                (None, None) => "not in the group".into(),
            };
            (id, Judgement { status: MemberStatus::Gone, reason, follows_resets })
        })
        .collect()
}

/// The group's state and why, given its members' judgements.
pub(crate) fn phase(log: &GroupLog, members: &[(u32, Vec<u32>, Judgement)], now: f64) -> (GroupPhase, String) {
    let live: Vec<u32> = members.iter().filter(|m| m.2.status == MemberStatus::Live).map(|m| m.0).collect();
    if let Some(r) = log.open_round() {
        if now <= r.ends_at + ROUND_GRACE_SECS {
            return (
                GroupPhase::Rebalancing,
                format!("a round opened by {} at offset {} is open for offers; {} so far", r.started_by, r.begin_offset, r.offers.len()),
            );
        }
        return (
            GroupPhase::Stuck,
            format!(
                "the round at offset {} passed its end and no live member ended it: the next member to join starts a new round",
                r.begin_offset
            ),
        );
    }
    if live.is_empty() {
        let reason =
            if members.is_empty() { "no member holds or waits for partitions".to_string() } else { "no member is live".to_string() };
        return (GroupPhase::Empty, reason);
    }
    let orphaned: Vec<u32> = members.iter().filter(|m| m.2.status != MemberStatus::Live).flat_map(|m| m.1.iter().copied()).collect();
    if orphaned.is_empty() {
        (GroupPhase::Stable, format!("the last round ended and its members are live: {live:?}"))
    } else {
        (
            GroupPhase::Stable,
            format!("live members {live:?}; partitions {orphaned:?} are held by members not live: they move in the next round"),
        )
    }
}

/// A member as the inference judges it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MemberLiveness {
    /// The member's id.
    pub id: u32,
    /// What the last completed round gave it (empty for former members).
    pub partitions: Vec<u32>,
    /// Live, stale or gone.
    pub status: MemberStatus,
    /// Why.
    pub reason: String,
    /// One of our members (it moves to a reset); `false`: 0.2.3's protocol only.
    pub follows_resets: bool,
}

/// Everything inferred about a group's liveness at one moment.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Liveness {
    /// The group's state.
    pub state: GroupPhase,
    /// Why.
    pub reason: String,
    /// Members the log places in the group ([`GroupLog::members`]), each judged.
    pub members: Vec<MemberLiveness>,
    /// Members no longer in the group, most recently seen first (at most 50).
    pub former: Vec<MemberLiveness>,
    /// The thresholds used.
    pub thresholds: Thresholds,
}

impl Liveness {
    /// How many of `members` are live.
    pub fn live_count(&self) -> usize {
        self.members.iter().filter(|m| m.status == MemberStatus::Live).count()
    }
}

impl GroupLog {
    /// Member statuses and the group's state at `now` (UNIX seconds), inferred
    /// from this log (see `docs/FORMAT.md`, "Member liveness and group state").
    pub fn liveness(&self, now: f64) -> Liveness {
        let thresholds = Thresholds::of(self);
        let judged: Vec<(u32, Vec<u32>, Judgement)> =
            self.members().into_iter().map(|(id, parts)| (id, parts, judge(self, id, now, &thresholds))).collect();
        let (state, reason) = phase(self, &judged, now);
        let view = |(id, partitions, j): (u32, Vec<u32>, Judgement)| MemberLiveness {
            id,
            partitions,
            status: j.status,
            reason: j.reason,
            follows_resets: j.follows_resets,
        };
        Liveness {
            state,
            reason,
            members: judged.into_iter().map(view).collect(),
            former: former(self, now).into_iter().map(|(id, j)| view((id, Vec::new(), j))).collect(),
            thresholds,
        }
    }
}

#[cfg(test)]
mod secs_tests {
    #[test]
    fn seconds_for_people() {
        assert_eq!(super::secs(179.999_960_660_934_45), "180");
        assert_eq!(super::secs(0.34), "0.3");
        assert_eq!(super::secs(3.0), "3");
        assert_eq!(super::secs(9.96), "10.0".trim_end_matches(".0"));
        assert_eq!(super::secs(12.5), "12");
    }
}
