//! The groups' wire types: a group's summary (the sidebar's row), its
//! description (members, partitions, rounds), the app's demo members, and
//! what deleting a group removes. Each with the conversion from the engine's
//! type beside it. A group's lag over time is in `wire_lag`, resets and
//! offsets files in `wire_reset`.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use specta::Type;
use twainmq::group;

use crate::wire::{count32, Commit, Count, Handle, Offset};

#[derive(Debug, Clone, Serialize, Deserialize, Type, PartialEq)]
pub struct GroupSummary {
    pub name: String,
    pub topic: Option<String>,
    /// Members placed in the group by the log's records, live or not.
    pub members: u32,
    /// Those of them live (inferred from the log: 0.2.3 has no heartbeat).
    pub live_members: u32,
    pub state: GroupPhaseDto,
    pub lag: Count,
}

impl From<&group::GroupDescription> for GroupSummary {
    fn from(d: &group::GroupDescription) -> Self {
        GroupSummary {
            name: d.group.clone(),
            topic: d.topic.clone(),
            members: count32(d.members.len()),
            live_members: count32(d.live_members),
            state: d.state.into(),
            lag: d.partitions.iter().map(|p| p.lag).sum::<u64>().into(),
        }
    }
}

impl From<twainmq::GroupSummary> for GroupSummary {
    fn from(g: twainmq::GroupSummary) -> Self {
        match g.state {
            Ok(s) => GroupSummary {
                name: g.name,
                topic: s.topic,
                members: count32(s.members),
                live_members: count32(s.live_members),
                state: s.phase.into(),
                lag: Count(s.lag),
            },
            Err(_) => GroupSummary::unreadable(&g.name),
        }
    }
}

impl GroupSummary {
    /// A group that cannot be described.
    pub fn unreadable(name: &str) -> Self {
        GroupSummary { name: name.to_string(), topic: None, members: 0, live_members: 0, state: GroupPhaseDto::Unknown, lag: Count(0) }
    }
}

/// A group's state, inferred from its log (docs/FORMAT.md, "Member liveness and group state").
#[derive(Debug, Clone, Copy, Serialize, Deserialize, Type, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum GroupPhaseDto {
    Stable,
    Rebalancing,
    Stuck,
    Empty,
    /// The group log could not be read.
    Unknown,
}

impl From<group::GroupPhase> for GroupPhaseDto {
    fn from(p: group::GroupPhase) -> Self {
        match p {
            group::GroupPhase::Stable => GroupPhaseDto::Stable,
            group::GroupPhase::Rebalancing => GroupPhaseDto::Rebalancing,
            group::GroupPhase::Stuck => GroupPhaseDto::Stuck,
            group::GroupPhase::Empty => GroupPhaseDto::Empty,
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize, Type, PartialEq)]
pub struct MemberDto {
    pub id: u32,
    pub partitions: Vec<u32>,
    pub joined_at: Option<f64>,
    /// When it last wrote a record: members write in every round and on every commit.
    pub last_seen_at: Option<f64>,
    /// Live, stale or gone: inferred from the group log (0.2.3 has no heartbeat).
    pub status: MemberStatusDto,
    /// Why, in words.
    pub status_reason: String,
    /// One of ours (TwainMQ Desktop or CLI): it moves to an admin reset; a 0.2.3 member overwrites it.
    pub follows_resets: bool,
    /// The kind of client in a few words ("twainmq 0.2.3", "twainmq CLI 0.1.0 on host, pid 42"),
    /// as its JOINED record says (our members write their program, host and pid; 0.2.3 writes none).
    pub client: String,
}

impl From<&group::MemberView> for MemberDto {
    fn from(m: &group::MemberView) -> Self {
        MemberDto {
            id: m.id,
            partitions: m.partitions.clone(),
            joined_at: m.joined_at,
            last_seen_at: m.last_seen_at,
            status: m.status.into(),
            status_reason: m.status_reason.clone(),
            follows_resets: m.follows_resets,
            client: m.client_label(),
        }
    }
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize, Type, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum MemberStatusDto {
    Live,
    Stale,
    Gone,
}

impl From<group::MemberStatus> for MemberStatusDto {
    fn from(s: group::MemberStatus) -> Self {
        match s {
            group::MemberStatus::Live => MemberStatusDto::Live,
            group::MemberStatus::Stale => MemberStatusDto::Stale,
            group::MemberStatus::Gone => MemberStatusDto::Gone,
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize, Type, PartialEq)]
pub struct PartitionProgressDto {
    pub partition: u32,
    /// Latest commit ("-1": the end when taken), if any.
    pub committed: Option<Commit>,
    pub end: Offset,
    pub lag: Count,
    /// UNIX seconds of the oldest message not yet committed.
    pub oldest_unconsumed_at: Option<f64>,
    pub owner: Option<u32>,
    /// The commit is past `end` by this many: the next this many messages written to the
    /// partition will be skipped by the group (its lag of 0 says nothing of it).
    pub past_end: Option<Count>,
}

impl From<&group::PartitionProgress> for PartitionProgressDto {
    fn from(p: &group::PartitionProgress) -> Self {
        PartitionProgressDto {
            partition: p.partition,
            committed: p.committed.map(Commit),
            end: p.end.into(),
            lag: p.lag.into(),
            oldest_unconsumed_at: p.oldest_unconsumed_at,
            owner: p.owner,
            past_end: p.past_end.map(Count),
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize, Type, PartialEq)]
pub struct OfferDto {
    pub id: u32,
    pub own: Vec<u32>,
    pub partitions: Vec<u32>,
    pub at: f64,
}

#[derive(Debug, Clone, Serialize, Deserialize, Type, PartialEq)]
pub struct RoundDto {
    /// Where the round's record is in the group's log.
    pub begin_offset: Offset,
    pub started_by: u32,
    pub started_at: f64,
    pub ends_at: f64,
    pub offers: Vec<OfferDto>,
    pub ended_at: Option<f64>,
    pub ended_by: Option<u32>,
    pub superseded: bool,
    /// Member id (as text) to partitions.
    pub assignment: BTreeMap<String, Vec<u32>>,
    pub confirms: BTreeMap<String, Vec<u32>>,
}

impl From<&group::RoundView> for RoundDto {
    fn from(r: &group::RoundView) -> Self {
        let by_member = |m: &BTreeMap<u32, Vec<u32>>| m.iter().map(|(k, v)| (k.to_string(), v.clone())).collect();
        RoundDto {
            begin_offset: r.begin_offset.into(),
            started_by: r.started_by,
            started_at: r.started_at,
            ends_at: r.ends_at,
            offers: r
                .offers
                .iter()
                .map(|o| OfferDto { id: o.id, own: o.own.clone(), partitions: o.partitions.clone(), at: o.at })
                .collect(),
            ended_at: r.ended_at,
            ended_by: r.ended_by,
            superseded: r.superseded,
            assignment: by_member(&r.assignment),
            confirms: by_member(&r.confirms),
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize, Type, PartialEq)]
pub struct GroupDetail {
    pub name: String,
    pub topic: Option<String>,
    pub topic_candidates: Vec<String>,
    /// Stable, rebalancing, stuck or empty, inferred from the log at `now`.
    pub state: GroupPhaseDto,
    pub state_reason: String,
    /// How many of `members` are live.
    pub live_members: u32,
    pub members: Vec<MemberDto>,
    /// Members the log shows that have left or are gone, most recently seen first.
    pub former_members: Vec<MemberDto>,
    pub partitions: Vec<PartitionProgressDto>,
    pub open_round: Option<RoundDto>,
    /// Rounds opened faster than their window lets them end (nothing is assigned): what
    /// happens and what to do, in words. Its open round's countdown means nothing then.
    pub round_churn: Option<String>,
    /// Newest first.
    pub rounds: Vec<RoundDto>,
    pub records: Count,
    pub last_record_at: Option<f64>,
    /// UNIX seconds now, by the backend's clock (for countdowns).
    pub now: f64,
}

impl GroupDetail {
    /// The group as described at `now` (UNIX seconds).
    pub fn new(d: &group::GroupDescription, now: f64) -> Self {
        GroupDetail {
            name: d.group.clone(),
            topic: d.topic.clone(),
            topic_candidates: d.topic_candidates.clone(),
            state: d.state.into(),
            state_reason: d.state_reason.clone(),
            live_members: count32(d.live_members),
            members: d.members.iter().map(MemberDto::from).collect(),
            former_members: d.former_members.iter().map(MemberDto::from).collect(),
            partitions: d.partitions.iter().map(PartitionProgressDto::from).collect(),
            open_round: d.open_round.as_ref().map(RoundDto::from),
            round_churn: d.round_churn.as_ref().map(|c| c.diagnosis.clone()),
            rounds: d.rounds.iter().rev().map(RoundDto::from).collect(),
            records: d.records.into(),
            last_record_at: d.last_record_at,
            now,
        }
    }
}

/// What a demo member is doing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Type)]
#[serde(rename_all = "snake_case")]
pub enum MemberStatus {
    Joining,
    Running,
    /// Stopped on request: committed and left the group.
    Stopped,
    /// Killed on request: gone without a commit or a goodbye.
    Killed,
    /// Stopped by itself; the member's `problem` says why.
    Failed,
}

/// A member running inside the app for the balancing demo.
#[derive(Debug, Clone, Serialize, Deserialize, Type, PartialEq)]
pub struct DemoMember {
    pub handle: Handle,
    /// Its id in the group (0 until it has joined).
    pub member_id: u32,
    pub topic: String,
    pub group: String,
    pub window_ms: u32,
    /// Messages a second it processes at most (0: no limit).
    pub rate: u32,
    pub status: MemberStatus,
    /// Why a `failed` member stopped.
    pub problem: Option<String>,
    pub partitions: Vec<u32>,
    pub consumed: Count,
    /// Messages consumed in each of the last seconds, oldest first.
    pub per_second: Vec<u32>,
}

/// What deleting a group removes, counted before (shown before the typed confirmation).
#[derive(Debug, Clone, Serialize, Deserialize, Type, PartialEq)]
pub struct GroupDeletePreview {
    pub group: String,
    pub topic: Option<String>,
    /// Records in its log (members, rounds, commits): all removed.
    pub records: Count,
    /// Its committed offsets, all removed.
    pub committed: BTreeMap<String, Commit>,
    pub members: Vec<u32>,
    /// Members that look live (a record within `live_secs`): the deletion is refused while
    /// there are any, unless the person says they are stopped. A running 0.2.3 member crashes
    /// (FileNotFoundError on the group's log) when its group is deleted; ours stop with an error.
    pub live_members: Vec<u32>,
    /// Of those, the members that are twainmq's (the rest speak 0.2.3's protocol).
    pub live_twainmq_members: Vec<u32>,
    /// How recent a member's last record must be for it to look live, in seconds.
    pub live_secs: f64,
    /// Demo members of this app in the group, stopped before the deletion.
    pub demo_members: u32,
}

/// What a deletion removed.
#[derive(Debug, Clone, Serialize, Deserialize, Type, PartialEq)]
pub struct DeletedGroup {
    pub group: String,
    pub records: Count,
    pub partitions: u32,
    /// Demo members of this app that were stopped first.
    pub stopped_demo_members: u32,
}
