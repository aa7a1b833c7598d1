//! A group's state folded from its log, record by record, in log order.
//!
//! A round's offers are exactly those between its `BEGINREBAL` and the first
//! `ENDREBAL` after it. Every member that folds the log this way computes the
//! same assignment, whoever wrote the `ENDREBAL` (0.2.3's writer of `ENDREBAL`
//! can disagree when an offer lands just before it; we never do).

use std::collections::{BTreeMap, VecDeque};

use serde::Serialize;

use super::assign::{assign, Offer};
use super::records::{ClientInfo, Record};

/// Most rounds kept in a fold's history (a long-lived group has many).
const MAX_HISTORY: usize = 200;

/// One member's offer in a round, with when it was written.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OfferView {
    /// The member's id (the record's key).
    pub id: u32,
    /// Partitions it held when it offered.
    pub own: Vec<u32>,
    /// Partitions it is willing to take.
    pub partitions: Vec<u32>,
    /// When it was written, UNIX seconds by the writer's clock.
    pub at: f64,
    /// Its offset in the group log.
    pub offset: u64,
}

/// A round of rebalancing as the log tells it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RoundView {
    /// Offset of its `BEGINREBAL` in the group log.
    pub begin_offset: u64,
    /// Who wrote the `BEGINREBAL`: a member's id, or 0 for a round opened
    /// from outside the group ([`crate::Store::trigger_round`]).
    pub started_by: u32,
    /// When the `BEGINREBAL` was written, UNIX seconds.
    pub started_at: f64,
    /// When the round ends (UNIX seconds), by the starter's clock.
    pub ends_at: f64,
    /// The offers that count, one per member (its latest), in the order written.
    pub offers: Vec<OfferView>,
    /// `None` while open.
    pub ended_at: Option<f64>,
    /// Who wrote the `ENDREBAL` that ended it; `None` while open.
    pub ended_by: Option<u32>,
    /// A later `BEGINREBAL` replaced this round before it ended.
    pub superseded: bool,
    /// The assignment computed at its end.
    pub assignment: BTreeMap<u32, Vec<u32>>,
    /// What each member confirmed (0.2.3 members can disagree with `assignment` in its race).
    pub confirms: BTreeMap<u32, Vec<u32>>,
}

/// What a record changed, for a live member to react to.
#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    /// A `BEGINREBAL` opened a round.
    RoundBegan {
        /// When the round ends, UNIX seconds by its writer's clock.
        ends_at: f64,
    },
    /// The open round's first `ENDREBAL`.
    RoundEnded {
        /// What every member computes from the round's offers: member id to
        /// its partitions, sorted.
        assignment: BTreeMap<u32, Vec<u32>>,
    },
    /// A `JOINED` record.
    Joined {
        /// The id claimed (the record's key).
        id: u32,
        /// The claimant's tag.
        tag: u64,
    },
    /// A `COMMIT` record.
    Committed {
        /// `(partition, next offset)` pairs, as written (-1: the end when taken).
        offsets: Vec<(u32, i64)>,
    },
    /// Anything else: offers, confirms, `ABORTJOIN`, an `ENDREBAL` with no round open.
    Other,
}

/// What one key (a member, or 0 for tools) last wrote, for inferring liveness.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(crate) struct Activity {
    /// Its latest `BEGINREBAL`: (offset, time written).
    pub(crate) began: Option<(u64, f64)>,
    /// It wrote something other than an `ENDREBAL` after that `BEGINREBAL`
    /// (a leaving member of ours writes nothing but, as the last one, the end).
    pub(crate) wrote_since_began: bool,
}

/// Commits kept per member for its rhythm (the intervals between them).
const RHYTHM_COMMITS: usize = 9;

/// At most this many lines to mend are kept between a read of the log and
/// the mending (only a member of ours mends; a read-only fold keeps a few).
pub(crate) const MAX_TORN_KEPT: usize = 64;

/// A line of a group log 0.2.3 cannot read, found by the fold.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum TornLine {
    /// A whole line (ended by a newline) at byte `pos` of `path`.
    Line {
        /// The group log file.
        path: std::path::PathBuf,
        /// Where the line starts.
        pos: u64,
        /// Its bytes, without the newline.
        bytes: Vec<u8>,
        /// The timestamp of the last record read before it (the stand-in's,
        /// when the line's own cannot be read).
        fallback_ts: f64,
    },
    /// The unfinished last line of a file that has a later file (never
    /// completed: a crash or a full disk), `len` bytes long.
    Tail {
        /// The group log file.
        path: std::path::PathBuf,
        /// Its length.
        len: u64,
    },
}

/// A commit of an offset below -1, passed over by the fold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BadCommit {
    /// The key (member id) it was written under.
    pub key: u32,
    /// The partition.
    pub partition: u32,
    /// The offset it names.
    pub offset: i64,
    /// Where the record is in the group log.
    pub at: u64,
}

/// The fold.
#[derive(Debug, Clone, Default)]
pub struct GroupLog {
    /// Latest committed offset per partition (-1: "the end when taken").
    pub commits: BTreeMap<u32, i64>,
    /// Largest key seen (new members take this + 1).
    pub max_key: Option<u32>,
    /// First `JOINED` per id: (tag, time, offset).
    pub joins: BTreeMap<u32, (u64, f64, u64)>,
    /// What the first `JOINED` of an id says of its program, where it has it (our members').
    pub clients: BTreeMap<u32, ClientInfo>,
    /// When each member's last few commits were written (the latest last):
    /// its rhythm, against which a silence is judged.
    pub(crate) commit_times: BTreeMap<u32, VecDeque<f64>>,
    /// Rounds in log order: the last 200 (older ones are dropped).
    pub rounds: Vec<RoundView>,
    open: Option<usize>,
    /// The last round that ended, kept apart from the bounded history: its
    /// assignment stands however many rounds are opened and superseded after it.
    last_done: Option<RoundView>,
    offers: Vec<(u32, Offer)>,
    /// Partition count the group was created for (from its first commit), if known.
    pub partitions_hint: Option<u32>,
    /// Records folded.
    pub records: u64,
    /// When the latest record was written, UNIX seconds.
    pub last_record_at: Option<f64>,
    /// Lines of the group log skipped: damaged, or not one of the seven records.
    pub unreadable: u64,
    /// Of those, lines 0.2.3 cannot read either: every 0.2.3 member dies
    /// joining the group while one is in its log (it reads the whole log).
    /// Our members mend them ([`crate::group::GroupMember`]); lines shorter
    /// than 18 bytes cannot be mended.
    pub breaking_023: u64,
    /// Torn records mended by a member of ours: lines 0.2.3 reads and passes
    /// over, in place of records it could not read (not counted as unreadable).
    pub mended: u64,
    /// Commits of offsets below -1 passed over (another program's: no
    /// position; 0.2.3 raises on them), the first 200.
    pub bad_commits: Vec<BadCommit>,
    /// Lines found that 0.2.3 cannot read, not mended yet (at most
    /// [`MAX_TORN_KEPT`]).
    pub(crate) torn: Vec<TornLine>,
    /// Time of the last record written under each key (a live member writes
    /// at least in every round and on every commit).
    pub last_seen: BTreeMap<u32, f64>,
    /// What each key last wrote (see [`Activity`]).
    pub(crate) activity: BTreeMap<u32, Activity>,
}

impl GroupLog {
    /// The open round, if any.
    pub fn open_round(&self) -> Option<&RoundView> {
        self.open.and_then(|i| self.rounds.get(i))
    }

    /// The last round that ended.
    pub fn last_completed(&self) -> Option<&RoundView> {
        self.last_done.as_ref()
    }

    /// Apply one record written under `key` at `offset`/`at`.
    pub fn apply(&mut self, key: u32, offset: u64, at: f64, record: &Record) -> Event {
        self.records += 1;
        self.max_key = Some(self.max_key.map_or(key, |m| m.max(key)));
        self.last_record_at = Some(at);
        self.last_seen.insert(key, at);
        let activity = self.activity.entry(key).or_default();
        match record {
            Record::BeginRound { .. } => {
                activity.began = Some((offset, at));
                activity.wrote_since_began = false;
            }
            Record::EndRound => {}
            _ => activity.wrote_since_began = true,
        }
        match record {
            Record::Joined { tag, client } => {
                if let std::collections::btree_map::Entry::Vacant(e) = self.joins.entry(key) {
                    e.insert((*tag, at, offset));
                    if let Some(c) = client {
                        self.clients.insert(key, c.clone());
                    }
                }
                Event::Joined { id: key, tag: *tag }
            }
            Record::AbortJoin { .. } => Event::Other,
            Record::BeginRound { ends_at } => {
                if let Some(i) = self.open {
                    self.rounds[i].superseded = true;
                }
                self.rounds.push(RoundView {
                    begin_offset: offset,
                    started_by: key,
                    started_at: at,
                    ends_at: *ends_at,
                    offers: Vec::new(),
                    ended_at: None,
                    ended_by: None,
                    superseded: false,
                    assignment: BTreeMap::new(),
                    confirms: BTreeMap::new(),
                });
                if self.rounds.len() > MAX_HISTORY {
                    self.rounds.remove(0);
                }
                self.open = Some(self.rounds.len() - 1);
                self.offers.clear();
                Event::RoundBegan { ends_at: *ends_at }
            }
            Record::Offer { own, partitions } => {
                if let Some(i) = self.open {
                    let offer = Offer { own: own.clone(), partitions: partitions.clone() };
                    // A later offer from the same member replaces the earlier one in place, as in a Python dict.
                    match self.offers.iter_mut().find(|(id, _)| *id == key) {
                        Some(slot) => slot.1 = offer,
                        None => self.offers.push((key, offer)),
                    }
                    let round = &mut self.rounds[i];
                    round.offers.retain(|o| o.id != key);
                    round.offers.push(OfferView { id: key, own: own.clone(), partitions: partitions.clone(), at, offset });
                    if let Some(n) = partitions.iter().max() {
                        self.partitions_hint = Some(self.partitions_hint.unwrap_or(0).max(n.saturating_add(1)));
                    }
                }
                Event::Other
            }
            Record::EndRound => match self.open.take() {
                Some(i) => {
                    let assignment = assign(&self.offers);
                    let round = &mut self.rounds[i];
                    round.ended_at = Some(at);
                    round.ended_by = Some(key);
                    round.assignment = assignment.clone();
                    self.last_done = Some(round.clone());
                    self.offers.clear();
                    Event::RoundEnded { assignment }
                }
                None => Event::Other,
            },
            Record::Confirm { partitions } => {
                if let Some(r) = self.rounds.iter_mut().rev().find(|r| r.ended_at.is_some()) {
                    r.confirms.insert(key, partitions.clone());
                }
                if let Some(r) = &mut self.last_done {
                    r.confirms.insert(key, partitions.clone());
                }
                Event::Other
            }
            Record::Commit { offsets } => {
                if self.records == 1 && key == 0 {
                    self.partitions_hint = offsets.iter().map(|(p, _)| p.saturating_add(1)).max();
                }
                // -1 is the protocol's one negative offset ("the end when taken"): a
                // lower one (another program's) is no position. 0.2.3 raises taking
                // the partition; read as the end it would skip every message after
                // the commit before it. Passed over, so that commit stands.
                let good: Vec<(u32, i64)> = offsets.iter().copied().filter(|(_, o)| *o >= -1).collect();
                let bad = offsets.iter().copied().filter(|(_, o)| *o < -1);
                for (p, o) in &good {
                    self.commits.insert(*p, *o);
                }
                // Key 0 is tools' (the group's first commit, resets): no member's rhythm.
                if key != 0 {
                    let times = self.commit_times.entry(key).or_default();
                    if times.len() == RHYTHM_COMMITS {
                        times.pop_front();
                    }
                    times.push_back(at);
                }
                for (p, o) in bad {
                    tracing::warn!(
                        key,
                        partition = p,
                        committed = o,
                        group_offset = offset,
                        "a commit of an offset below -1 is no position: passed over"
                    );
                    if self.bad_commits.len() < MAX_HISTORY {
                        self.bad_commits.push(BadCommit { key, partition: p, offset: o, at: offset });
                    }
                }
                Event::Committed { offsets: good }
            }
        }
    }

    /// When `id` last committed, and how often it committed before that: the
    /// median of the intervals between its last commits (at least 3 of them),
    /// in seconds. `None` for a member with fewer commits.
    pub fn commit_rhythm(&self, id: u32) -> Option<(f64, f64)> {
        let times = self.commit_times.get(&id)?;
        let last = *times.back()?;
        let mut gaps: Vec<f64> = times.iter().zip(times.iter().skip(1)).map(|(a, b)| (b - a).max(0.0)).collect();
        if gaps.len() < 3 {
            return None;
        }
        gaps.sort_by(f64::total_cmp);
        Some((last, gaps[gaps.len() / 2]))
    }

    /// Members now: those in the last completed round's assignment (with their
    /// partitions), and those who joined after it began (holding nothing yet).
    pub fn members(&self) -> BTreeMap<u32, Vec<u32>> {
        let mut out = BTreeMap::new();
        let since = match self.last_completed() {
            Some(r) => {
                for (id, parts) in &r.assignment {
                    out.insert(*id, parts.clone());
                }
                r.begin_offset
            }
            None => 0,
        };
        for (id, (_, _, offset)) in &self.joins {
            if *offset >= since && *id != 0 {
                out.entry(*id).or_default();
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_late_offer_after_end_does_not_count() {
        let mut log = GroupLog::default();
        let parts = vec![0, 1, 2, 3];
        log.apply(0, 0, 0.0, &Record::Commit { offsets: vec![(0, 0), (1, 0), (2, 0), (3, 0)] });
        log.apply(1, 1, 1.0, &Record::Joined { tag: 5, client: None });
        log.apply(1, 2, 1.0, &Record::BeginRound { ends_at: 2.0 });
        log.apply(1, 3, 1.0, &Record::Offer { own: vec![], partitions: parts.clone() });
        let ev = log.apply(1, 4, 2.0, &Record::EndRound);
        assert_eq!(ev, Event::RoundEnded { assignment: BTreeMap::from([(1, parts.clone())]) });
        // Member 2's offer lands after the end: it is not part of that round.
        log.apply(2, 5, 2.0, &Record::Offer { own: vec![], partitions: parts.clone() });
        assert_eq!(log.apply(2, 6, 2.0, &Record::EndRound), Event::Other);
        assert_eq!(log.members(), BTreeMap::from([(1, parts)]));
        assert_eq!(log.partitions_hint, Some(4));
    }
}
