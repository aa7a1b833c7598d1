//! Consumer groups: 0.2.3's protocol, group inspection from the log, offset resets.
//!
//! A group `g` is the topic `--group--g` (u32 keys, one partition, the seven
//! record types). Our engine also records the group's topic as an extra
//! `"topic"` key in its config, which 0.2.3 ignores.

mod assign;
mod member;
mod records;
mod state;

use std::collections::BTreeMap;

use serde::Serialize;

pub use assign::{assign, Offer};
pub use member::{GroupMember, GroupOptions};
pub use records::{Record, TYPES};
pub use state::{Event, GroupLog, OfferView, RoundView};

use crate::consumer::StartFrom;
use crate::error::{Error, Result};
use crate::files;
use crate::key::KeyType;
use crate::name;
use crate::reader::PartitionReader;
use crate::store::{Store, TopicSpec};

/// Group-specific failures.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum GroupError {
    #[error("group {group:?} belongs to topic {recorded:?}, not {requested:?}: use another group name for {requested:?}")]
    TopicMismatch { group: String, recorded: String, requested: String },
    #[error("group {group:?} covers {group_partitions} partitions but topic {topic:?} has {topic_partitions}: it was made for another topic; use another group name")]
    PartitionMismatch { group: String, topic: String, group_partitions: u32, topic_partitions: u32 },
    #[error("topic {topic:?} is not a consumer group log (its message types are not the seven group records)")]
    NotAGroup { topic: String },
    #[error("could not join group {group:?} after {attempts} attempts (other members kept taking the same id): retry")]
    JoinFailed { group: String, attempts: u32 },
    #[error("group {group:?} is not bound to a topic and no topic matches its {partitions} partitions: pass the topic explicitly")]
    UnknownTopic { group: String, partitions: u32 },
    #[error("partition {partition} is not in group {group:?}'s topic {topic:?}, which has {partitions}")]
    NoSuchPartition { group: String, topic: String, partition: u32, partitions: u32 },
}

/// Where a reset moves committed offsets to.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ResetTo {
    Earliest,
    Latest,
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

pub(crate) fn group_topic_reader(store: &Store, group: &str) -> Result<PartitionReader> {
    let gtopic = name::group_topic(group);
    let config = crate::config::TopicConfig::load(&gtopic, &store.config_path(&gtopic)).map_err(|e| match e {
        Error::TopicNotFound { path, .. } => Error::GroupNotFound { group: group.to_string(), path },
        e => e,
    })?;
    if config.type_id(records::COMMIT).is_none() || config.type_id(records::BEGINREBAL).is_none() {
        return Err(GroupError::NotAGroup { topic: gtopic }.into());
    }
    PartitionReader::open(store, &gtopic, &config, 0, StartFrom::Start)
}

/// Create the group for `topic` if it does not exist; check it fits `topic` if it does.
pub(crate) fn ensure_group(store: &Store, topic: &str, group: &str, partitions: u32, start: StartFrom) -> Result<()> {
    name::validate_group(group)?;
    let gtopic = name::group_topic(group);
    match crate::config::TopicConfig::load(&gtopic, &store.config_path(&gtopic)) {
        Ok(config) => {
            if let Some(recorded) = config.extra.get("topic").and_then(|v| v.as_str()) {
                if recorded != topic {
                    return Err(
                        GroupError::TopicMismatch { group: group.into(), recorded: recorded.into(), requested: topic.into() }.into()
                    );
                }
            }
            Ok(())
        }
        Err(Error::TopicNotFound { .. }) => {
            name::validate_new_group(group)?;
            let spec = TopicSpec::new(KeyType::U32, 1).with_types(TYPES);
            let mut extra = serde_json::Map::new();
            extra.insert("topic".into(), topic.into());
            match store.create_topic_unchecked(&gtopic, &spec, extra) {
                Ok(_) => {
                    let init = if start == StartFrom::Now { -1 } else { 0 };
                    let offsets = (0..partitions).map(|p| (p, init)).collect();
                    let mut w = store.producer_unchecked(&gtopic)?;
                    w.send(&crate::Key::Int(0), &Record::Commit { offsets }.to_outgoing())?;
                    Ok(())
                }
                // Another process is creating it: wait until its config is in place.
                Err(Error::TopicExists { .. }) => {
                    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
                    loop {
                        match crate::config::TopicConfig::load(&gtopic, &store.config_path(&gtopic)) {
                            Ok(_) => return Ok(()),
                            Err(Error::TopicNotFound { .. }) if std::time::Instant::now() < deadline => {
                                std::thread::sleep(std::time::Duration::from_millis(5));
                            }
                            Err(e) => return Err(e),
                        }
                    }
                }
                Err(e) => Err(e),
            }
        }
        Err(e) => Err(e),
    }
}

/// Read a group's whole log.
///
/// # Errors
/// [`Error::GroupNotFound`], [`GroupError::NotAGroup`], I/O errors.
pub fn read_log(store: &Store, group: &str) -> Result<GroupLog> {
    name::validate_group(group)?;
    // Folded incrementally: the store keeps each group's reader and state, so a
    // refresh reads only the records written since the last one.
    let cache = store.group_logs();
    let mut map = cache.lock().unwrap_or_else(|p| p.into_inner());
    let config = std::fs::metadata(store.config_path(&name::group_topic(group))).ok();
    let identity = config.as_ref().map(crate::fsinfo::FileIdentity::of);
    let (mut reader, mut log) = match map.remove(group) {
        Some((reader, log, seen)) if Some(seen) == identity => (reader, log),
        _ => (group_topic_reader(store, group)?, GroupLog::default()),
    };
    member::read_all(&mut reader, &mut log, |_, _| {})?;
    let out = log.clone();
    if let Some(identity) = identity {
        map.insert(group.to_string(), (reader, log, identity));
    }
    Ok(out)
}

/// Create `group` for `topic` if it does not exist (as a first member would), or
/// check that an existing one fits the topic.
///
/// # Errors
/// Invalid names, a group bound to another topic, I/O errors.
pub fn ensure(store: &Store, topic: &str, group: &str, start: StartFrom) -> Result<()> {
    let config = store.topic_config(topic)?;
    ensure_group(store, topic, group, config.partitions, start)
}

/// A member as inspection shows it.
#[derive(Debug, Clone, Serialize)]
pub struct MemberView {
    pub id: u32,
    pub partitions: Vec<u32>,
    /// When it joined (UNIX seconds), if its `JOINED` is in the log.
    pub joined_at: Option<f64>,
    /// When it last wrote a record (offers, confirms, commits).
    pub last_seen_at: Option<f64>,
}

/// Per-partition progress.
#[derive(Debug, Clone, Serialize)]
pub struct PartitionProgress {
    pub partition: u32,
    /// Latest commit (-1: "the end when taken"), if any.
    pub committed: Option<i64>,
    pub end: u64,
    pub lag: u64,
    /// Timestamp of the oldest message not yet committed, if any.
    pub oldest_unconsumed_at: Option<f64>,
    pub owner: Option<u32>,
}

/// Everything inspection knows about a group.
#[derive(Debug, Clone, Serialize)]
pub struct GroupDescription {
    pub group: String,
    /// The topic recorded in the group's config, or the only candidate.
    pub topic: Option<String>,
    /// Topics whose partition count matches (for groups 0.2.3 created).
    pub topic_candidates: Vec<String>,
    pub members: Vec<MemberView>,
    /// `"<partition>": offset`.
    pub committed: BTreeMap<String, i64>,
    /// `"<partition>": messages not yet committed`.
    pub lag: BTreeMap<String, u64>,
    pub partitions: Vec<PartitionProgress>,
    pub open_round: Option<RoundView>,
    pub rounds: Vec<RoundView>,
    pub records: u64,
    pub unreadable_records: u64,
    pub last_record_at: Option<f64>,
}

/// The topic a group reads: recorded in its config, else the only topic whose
/// partition count matches.
///
/// # Errors
/// [`Error::GroupNotFound`], I/O errors.
pub fn group_topic_of(store: &Store, group: &str, log: &GroupLog) -> Result<(Option<String>, Vec<String>)> {
    let gtopic = name::group_topic(group);
    let config = crate::config::TopicConfig::load(&gtopic, &store.config_path(&gtopic))?;
    let recorded = config.extra.get("topic").and_then(|v| v.as_str()).map(str::to_string);
    let mut candidates = Vec::new();
    if let Some(n) = log.partitions_hint {
        for t in store.list_topics()? {
            if store.topic_config(&t).is_ok_and(|c| c.partitions == n) {
                candidates.push(t);
            }
        }
    }
    let topic = recorded.or_else(|| (candidates.len() == 1).then(|| candidates[0].clone()));
    Ok((topic, candidates))
}

/// The groups that read `topic`: those whose config records it, and those
/// 0.2.3 made (no recorded topic) for which it is the only topic of their
/// partition count. Deleting the topic deletes them too, as Kafka drops a
/// deleted topic's committed offsets: their commits would otherwise apply to
/// a topic made again under the same name. Groups that cannot be read are
/// left out.
///
/// # Errors
/// [`Error::Io`] when the store cannot be listed.
pub fn groups_reading(store: &Store, topic: &str) -> Result<Vec<String>> {
    let mut out = Vec::new();
    for g in store.list_groups()? {
        if name::validate_group(&g).is_err() {
            continue;
        }
        let gtopic = name::group_topic(&g);
        let Ok(config) = crate::config::TopicConfig::load(&gtopic, &store.config_path(&gtopic)) else { continue };
        let reads = match config.extra.get("topic").and_then(|v| v.as_str()) {
            Some(recorded) => recorded == topic,
            None => {
                read_log(store, &g).and_then(|log| group_topic_of(store, &g, &log)).is_ok_and(|(found, _)| found.as_deref() == Some(topic))
            }
        };
        if reads {
            out.push(g);
        }
    }
    Ok(out)
}

/// Describe a group from its log: members, assignment, commits, lag, rounds.
///
/// # Errors
/// [`Error::GroupNotFound`], I/O errors.
pub fn describe(store: &Store, group: &str) -> Result<GroupDescription> {
    describe_on(store, group, None)
}

/// [`describe`], reading `topic` for a group 0.2.3 created when several topics could be its own.
///
/// # Errors
/// As [`describe`].
pub fn describe_on(store: &Store, group: &str, topic: Option<&str>) -> Result<GroupDescription> {
    let log = read_log(store, group)?;
    let (found, topic_candidates) = group_topic_of(store, group, &log)?;
    let topic = topic.map(str::to_string).or(found);
    let members_map = log.members();
    let members = members_map
        .iter()
        .map(|(id, parts)| MemberView {
            id: *id,
            partitions: parts.clone(),
            joined_at: log.joins.get(id).map(|j| j.1),
            last_seen_at: log.last_seen.get(id).copied(),
        })
        .collect();
    let mut partitions = Vec::new();
    if let Some(t) = &topic {
        if let Ok(config) = store.topic_config(t) {
            let listing = files::list_topic_dir(&store.topic_dir(t), config.partitions)?;
            for (p, pfiles) in listing.partitions.iter().enumerate() {
                let p = p as u32;
                let end = store.partition_end(pfiles)?;
                let committed = log.commits.get(&p).copied();
                let from = match committed {
                    Some(o) if o >= 0 => o as u64,
                    Some(_) => end,
                    None => 0,
                };
                let lag = end.saturating_sub(from);
                let oldest_unconsumed_at = if lag > 0 { first_timestamp_from(store, t, p, from) } else { None };
                let owner = members_map.iter().find(|(_, ps)| ps.contains(&p)).map(|(id, _)| *id);
                partitions.push(PartitionProgress { partition: p, committed, end, lag, oldest_unconsumed_at, owner });
            }
        }
    }
    Ok(GroupDescription {
        group: group.to_string(),
        topic,
        topic_candidates,
        members,
        committed: log.commits.iter().map(|(p, o)| (p.to_string(), *o)).collect(),
        lag: partitions.iter().map(|p| (p.partition.to_string(), p.lag)).collect(),
        partitions,
        open_round: log.open_round().cloned(),
        rounds: log.rounds.clone(),
        records: log.records,
        unreadable_records: log.unreadable,
        last_record_at: log.last_record_at,
    })
}

fn first_timestamp_from(store: &Store, topic: &str, partition: u32, offset: u64) -> Option<f64> {
    let mut r = store.partition_reader(topic, partition, StartFrom::Offset(offset)).ok()?;
    for _ in 0..16 {
        match r.poll() {
            Ok(Some(m)) => return Some(m.timestamp),
            Ok(None) => return None,
            Err(_) => continue,
        }
    }
    None
}

/// Open a round in a group from outside it (as key 0), so that the members
/// re-assign partitions; members that died take no part and lose theirs.
///
/// # Errors
/// [`Error::GroupNotFound`], I/O errors.
pub fn trigger_round(store: &Store, group: &str, window: std::time::Duration) -> Result<()> {
    name::validate_group(group)?;
    group_topic_reader(store, group)?;
    let ends_at = store.clock().now_micros() as f64 / 1e6 + window.as_secs_f64();
    let mut w = store.producer_unchecked(&name::group_topic(group))?;
    w.send(&crate::Key::Int(0), &Record::BeginRound { ends_at }.to_outgoing()).map(|_| ())
}

/// One partition's row in a reset plan.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ResetRow {
    pub partition: u32,
    pub before: Option<i64>,
    pub after: u64,
    pub start: u64,
    pub end: u64,
}

/// What a reset does (or did).
#[derive(Debug, Clone, Serialize)]
pub struct ResetPlan {
    pub group: String,
    pub topic: String,
    pub rows: Vec<ResetRow>,
    /// Members holding partitions now: their next commit overrides the reset.
    pub live_members: Vec<u32>,
    pub applied: bool,
}

/// Reset committed offsets by writing a `COMMIT` record 0.2.3 members honour
/// when they next take a partition. With `dry_run`, only computes the plan.
///
/// # Errors
/// [`Error::GroupNotFound`], [`GroupError`], I/O errors.
pub fn reset(store: &Store, group: &str, to: ResetTo, partitions: Option<&[u32]>, dry_run: bool) -> Result<ResetPlan> {
    reset_on(store, group, None, to, partitions, dry_run)
}

/// [`reset`], for a group 0.2.3 created when several topics could be its own.
///
/// # Errors
/// As [`reset`].
pub fn reset_on(
    store: &Store,
    group: &str,
    topic: Option<&str>,
    to: ResetTo,
    partitions: Option<&[u32]>,
    dry_run: bool,
) -> Result<ResetPlan> {
    let log = read_log(store, group)?;
    let (found, _) = group_topic_of(store, group, &log)?;
    let topic = topic.map(str::to_string).or(found);
    let Some(topic) = topic else {
        return Err(GroupError::UnknownTopic { group: group.into(), partitions: log.partitions_hint.unwrap_or(0) }.into());
    };
    let config = store.topic_config(&topic)?;
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
    let listing = files::list_topic_dir(&store.topic_dir(&topic), config.partitions)?;
    let mut rows = Vec::new();
    for p in chosen {
        let pfiles = &listing.partitions[p as usize];
        let start = pfiles.first().map_or(0, |f| f.first);
        let end = store.partition_end(pfiles)?;
        let after = match to {
            ResetTo::Earliest => start,
            ResetTo::Latest => end,
            ResetTo::Offset(o) => o.clamp(start, end),
            ResetTo::Time(t) => crate::scan::offset_at_time(store, &topic, p, t)?.unwrap_or(end),
        };
        rows.push(ResetRow { partition: p, before: log.commits.get(&p).copied(), after, start, end });
    }
    let live_members: Vec<u32> = log.members().iter().filter(|(_, ps)| !ps.is_empty()).map(|(id, _)| *id).collect();
    if !dry_run && !rows.is_empty() {
        let offsets = rows.iter().map(|r| (r.partition, i64::try_from(r.after).unwrap_or(i64::MAX))).collect();
        let mut w = store.producer_unchecked(&name::group_topic(group))?;
        w.send(&crate::Key::Int(0), &Record::Commit { offsets }.to_outgoing())?;
    }
    Ok(ResetPlan { group: group.into(), topic, rows, live_members, applied: !dry_run })
}
