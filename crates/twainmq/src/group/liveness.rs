//! Member status and group state, inferred from the group log.
//!
//! 0.2.3 has no heartbeat record: a member writes only when it joins, in
//! rounds (an offer, a confirm, perhaps the `ENDREBAL`) and when it commits.
//! So liveness is inferred from what the log shows, relative to a clock
//! reading `now` (the store's clock), and said to be inferred. The rules are
//! written down in `docs/FORMAT.md` ("Member liveness and group state").

use std::collections::BTreeMap;

use serde::Serialize;

use super::records::{is_our_tag, ClientInfo};
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
/// A member that commits to a rhythm is stale once it has not committed for
/// this many of its usual intervals while messages wait in its partitions...
const RHYTHM_INTERVALS: f64 = 10.0;
/// ... and never sooner than this (a busy machine, a long message).
const MIN_RHYTHM_SECS: f64 = 10.0;
/// Rounds replaced in a row before their end, with none ended for longer than
/// a window, that make a group's rounds "churning".
const CHURN_ROUNDS: usize = 3;

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

/// What waits to be read in a group's partitions: for each partition with
/// messages after its commit, when the oldest of them was written (UNIX
/// seconds). From the partitions' files, which the group log does not know.
pub type Waiting = BTreeMap<u32, f64>;

/// Judge a member that the log places in the group, holding `partitions`;
/// `waiting` (when the topic's partitions were read) lets its own commit
/// rhythm tell a stopped member from a live one long before its silence does.
pub(crate) fn judge(log: &GroupLog, id: u32, partitions: &[u32], now: f64, t: &Thresholds, waiting: Option<&Waiting>) -> Judgement {
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
    if let Some(reason) = waiting.and_then(|w| stopped_by_rhythm(log, id, partitions, now, silent, w)) {
        return j(MemberStatus::Stale, reason);
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

/// Why a member that committed to a rhythm looks stopped, if it does: no
/// record for more than [`RHYTHM_INTERVALS`] of its usual intervals between
/// commits (at least [`MIN_RHYTHM_SECS`]), while a partition it holds has had
/// messages waiting for as long. A member with nothing to read may well not
/// commit; one with work that stopped committing is killed, hung or cut off
/// from the store (0.2.3 has no heartbeat: its rhythm is the best sign there is).
fn stopped_by_rhythm(log: &GroupLog, id: u32, partitions: &[u32], now: f64, silent: f64, waiting: &Waiting) -> Option<String> {
    let (last_commit, every) = log.commit_rhythm(id)?;
    let limit = (every * RHYTHM_INTERVALS).max(MIN_RHYTHM_SECS);
    let since_commit = (now - last_commit).max(0.0);
    let waits: Vec<(u32, f64)> = partitions.iter().filter_map(|p| waiting.get(p).map(|at| (*p, (now - at).max(0.0)))).collect();
    let longest = waits.iter().map(|w| w.1).fold(0.0, f64::max);
    if silent <= limit || since_commit <= limit || longest <= limit {
        return None;
    }
    let parts: Vec<u32> = waits.iter().map(|w| w.0).collect();
    Some(format!(
        "no commit for {} s, it committed every {} s before, while messages have waited in its partitions {parts:?} for {} s: it looks stopped (killed, hung or cut off from the store); inferred from its own rhythm, as 0.2.3 writes no heartbeat",
        secs(since_commit),
        secs(every),
        secs(longest)
    ))
}

/// Rounds opened faster than they can end, as the log shows them.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RoundChurn {
    /// Rounds in a row replaced by a new round before their end (the open one not counted).
    pub superseded: u32,
    /// When the first of them was opened, UNIX seconds.
    pub since: f64,
    /// The mean time between their openings, seconds.
    pub every_secs: f64,
    /// The window of the open round, seconds.
    pub window_secs: f64,
    /// Who opened them and how many each, most first (0: from outside the group).
    pub openers: Vec<(u32, u32)>,
    /// How many were opened by a member that had just joined.
    pub by_joins: u32,
    /// What is happening and what to do, in words.
    pub diagnosis: String,
}

/// Rounds are churning when a round is open, the [`CHURN_ROUNDS`] or more
/// before it were each replaced before their end, and no round has ended for
/// longer than a window: each new `BEGINREBAL` restarts the wait, so nothing is
/// ever assigned. Members started together also replace each other's rounds,
/// but only for a moment: the last one's round then runs its window and ends.
fn round_churn(log: &GroupLog, now: f64) -> Option<RoundChurn> {
    let open = log.open_round()?;
    let replaced: Vec<&RoundView> = log.rounds.iter().rev().skip(1).take_while(|r| r.superseded && r.ended_at.is_none()).collect();
    let first = replaced.last()?;
    let window = (open.ends_at - open.started_at).max(0.0);
    let span = now - first.started_at;
    if replaced.len() < CHURN_ROUNDS || span <= window + ROUND_GRACE_SECS {
        return None;
    }
    let n = replaced.len();
    let every = (open.started_at - first.started_at).max(0.0) / n as f64;
    let mut counts: BTreeMap<u32, u32> = BTreeMap::new();
    let mut by_joins = 0u32;
    // Oldest first, with the round before each (the one it replaced).
    let chain: Vec<&RoundView> = replaced.iter().rev().copied().chain(std::iter::once(open)).collect();
    for (i, r) in chain.iter().enumerate() {
        *counts.entry(r.started_by).or_default() += 1;
        let after = if i == 0 { 0 } else { chain[i - 1].begin_offset };
        if log.joins.get(&r.started_by).is_some_and(|j| j.2 >= after && j.2 < r.begin_offset) {
            by_joins += 1;
        }
    }
    let mut openers: Vec<(u32, u32)> = counts.into_iter().collect();
    openers.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    let rounds = u32::try_from(chain.len()).unwrap_or(u32::MAX);
    let head = format!(
        "no round can end: {n} rounds in a row were replaced by a new one before their {} s window ran out (a new round every {} s; none has ended for {} s), so nothing is assigned until one runs its whole window",
        secs(window),
        secs(every),
        secs(span)
    );
    let ids = |v: &[(u32, u32)]| v.iter().take(6).map(|(id, _)| id.to_string()).collect::<Vec<_>>().join(", ");
    let cause = if by_joins * 2 >= rounds {
        format!(
            "{by_joins} of the {rounds} rounds were opened by members joining (ids {}): a program that keeps restarting (each start joins with a new id and opens a round), or members started one after another more slowly than the window. Stop the restarts, or give the group a window shorter than the time between joins",
            ids(&openers)
        )
    } else {
        let again: Vec<(u32, u32)> = openers.iter().copied().filter(|o| o.1 > 1).collect();
        format!(
            "member{} {} opened rounds again and again, more often than the window: a member that opens rounds (0.2.3's trigger_rebal, an automatic round) must do so less often than every {} s, or use a shorter window",
            if again.len() == 1 { "" } else { "s" },
            ids(if again.is_empty() { &openers } else { &again }),
            secs(window)
        )
    };
    Some(RoundChurn {
        superseded: u32::try_from(n).unwrap_or(u32::MAX),
        since: first.started_at,
        every_secs: every,
        window_secs: window,
        openers,
        by_joins,
        diagnosis: format!("{head}. {cause}"),
    })
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
pub(crate) fn phase(log: &GroupLog, members: &[(u32, Vec<u32>, Judgement)], now: f64, churn: Option<&RoundChurn>) -> (GroupPhase, String) {
    let live: Vec<u32> = members.iter().filter(|m| m.2.status == MemberStatus::Live).map(|m| m.0).collect();
    if let Some(r) = log.open_round() {
        if now <= r.ends_at + ROUND_GRACE_SECS {
            if let Some(c) = churn {
                return (GroupPhase::Rebalancing, c.diagnosis.clone());
            }
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
            format!("live members {live:?}; partitions {orphaned:?} are held by members not live, so nobody reads them: they move in the next round (0.2.3 members open none by themselves; `twainmq groups rebalance` opens one)"),
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
    /// What its `JOINED` record says of its program and where it runs (our members).
    pub client: Option<ClientInfo>,
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
    /// Rounds opened faster than they can end, if they are.
    pub round_churn: Option<RoundChurn>,
}

impl Liveness {
    /// How many of `members` are live.
    pub fn live_count(&self) -> usize {
        self.members.iter().filter(|m| m.status == MemberStatus::Live).count()
    }
}

impl GroupLog {
    /// Member statuses and the group's state at `now` (UNIX seconds), inferred
    /// from this log alone (see `docs/FORMAT.md`, "Member liveness and group state").
    pub fn liveness(&self, now: f64) -> Liveness {
        self.infer(now, None)
    }

    /// As [`GroupLog::liveness`], knowing what waits in the topic's partitions:
    /// a member that stopped committing while messages wait for it is judged
    /// by its own commit rhythm, not only by its silence.
    pub fn liveness_with_waiting(&self, now: f64, waiting: &Waiting) -> Liveness {
        self.infer(now, Some(waiting))
    }

    fn infer(&self, now: f64, waiting: Option<&Waiting>) -> Liveness {
        let thresholds = Thresholds::of(self);
        let judged: Vec<(u32, Vec<u32>, Judgement)> = self
            .members()
            .into_iter()
            .map(|(id, parts)| {
                let j = judge(self, id, &parts, now, &thresholds, waiting);
                (id, parts, j)
            })
            .collect();
        let round_churn = round_churn(self, now);
        let (state, reason) = phase(self, &judged, now, round_churn.as_ref());
        let view = |(id, partitions, j): (u32, Vec<u32>, Judgement)| MemberLiveness {
            id,
            partitions,
            status: j.status,
            reason: j.reason,
            follows_resets: j.follows_resets,
            client: self.clients.get(&id).cloned(),
        };
        Liveness {
            state,
            reason,
            members: judged.into_iter().map(view).collect(),
            former: former(self, now).into_iter().map(|(id, j)| view((id, Vec::new(), j))).collect(),
            thresholds,
            round_churn,
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
