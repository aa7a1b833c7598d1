//! A cluster's consumer groups, read-only: every group with its state, members
//! and total lag (the overview), and one group whole: its members with what
//! each is assigned, and every partition it has committed or is assigned with
//! the committed offset, the end and the lag.
//!
//! Lag is the end (high watermark) minus the committed offset, never below 0.
//! A partition assigned but never committed has no lag to tell (`None`): it is
//! shown as such, never as 0, which would hide a consumer that reads nothing.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use krafka::admin::{
    ConsumerGroupDescription, DescribeConsumerGroupsOptions, ListConsumerGroupOffsetsOptions, ListConsumerGroupsOptions,
    ListOffsetsOptions, OffsetSpec,
};
use krafka::consumer::TopicPartition;
use krafka::error::ErrorCode;
use krafka::KrafkaError;

use super::{u64_of, Browser};
use crate::error::Result;

/// A group as the overview lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GroupSummary {
    /// The group's id.
    pub id: String,
    /// Its state as the coordinator says (`Stable`, `Empty`, `PreparingRebalance`, `Dead`, ...).
    pub state: String,
    /// Its protocol type (`consumer` for Kafka consumers; empty for a group that only commits).
    pub protocol_type: String,
    /// How many members it has now.
    pub members: u32,
    /// The topics it has committed offsets for or is assigned, by name.
    pub topics: Vec<String>,
    /// The sum of the lags of its partitions that have a committed offset.
    pub lag: u64,
    /// Partitions it is assigned that have no committed offset (their lag is unknown).
    pub uncommitted: u32,
    /// What could not be read of this group (the others are still listed), in words.
    pub error: Option<String>,
}

/// A member of a group.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GroupMember {
    /// Its member id (given by the coordinator).
    pub member_id: String,
    /// The client id it connected with.
    pub client_id: String,
    /// The host it connected from, as the broker saw it.
    pub host: String,
    /// Its static membership id, when it has one.
    pub instance_id: Option<String>,
    /// What it is assigned, by topic; `None` when the broker's answer does not
    /// say (a group whose protocol is not Kafka's consumer protocol).
    pub assignment: Option<Vec<(String, Vec<u32>)>>,
}

/// One partition of a group: what it committed, the end, and who holds it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GroupPartition {
    /// The topic.
    pub topic: String,
    /// The partition.
    pub partition: u32,
    /// The committed offset (the next record the group reads); `None` when never committed.
    pub committed: Option<u64>,
    /// The partition's end (high watermark); `None` when it could not be read
    /// (the topic was deleted, say).
    pub end: Option<u64>,
    /// The partition's first offset still on the cluster.
    pub low: Option<u64>,
    /// `end - committed`, never below 0; `None` when either is unknown.
    pub lag: Option<u64>,
    /// The member it is assigned to, by member id.
    pub member: Option<String>,
    /// The commit's metadata string, when the committer left one.
    pub metadata: Option<String>,
}

impl GroupPartition {
    /// The committed offset is below the first offset still on the cluster:
    /// the records between were deleted (retention) before the group read them,
    /// and the group's next read starts wherever its reset policy says.
    pub fn behind_start(&self) -> bool {
        matches!((self.committed, self.low), (Some(c), Some(l)) if c < l)
    }

    /// The committed offset is past the end: the partition was truncated or
    /// recreated since, and the records written up to that offset will be skipped.
    pub fn past_end(&self) -> bool {
        matches!((self.committed, self.end), (Some(c), Some(e)) if c > e)
    }
}

/// A group whole.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GroupDetail {
    /// The group's id.
    pub id: String,
    /// Its state.
    pub state: String,
    /// Its protocol type.
    pub protocol_type: String,
    /// The assignor the members agreed on (`range`, `cooperative-sticky`, ...), when known.
    pub assignor: Option<String>,
    /// Its members, by member id.
    pub members: Vec<GroupMember>,
    /// Every partition it committed or is assigned, by topic then partition.
    pub partitions: Vec<GroupPartition>,
}

impl GroupDetail {
    /// The sum of the known lags.
    pub fn lag(&self) -> u64 {
        self.partitions.iter().filter_map(|p| p.lag).fold(0u64, u64::saturating_add)
    }
}

fn member_of(m: &krafka::admin::ConsumerGroupMember) -> GroupMember {
    GroupMember {
        member_id: m.member_id.clone(),
        client_id: m.client_id.clone(),
        host: m.client_host.trim_start_matches('/').to_string(),
        instance_id: m.instance_id.clone(),
        assignment: m.assignment.as_ref().map(|a| {
            let mut by_topic: BTreeMap<String, BTreeSet<u32>> = BTreeMap::new();
            for t in a {
                by_topic.entry(t.topic_name.clone()).or_default().extend(t.partitions.iter().filter_map(|p| u32::try_from(*p).ok()));
            }
            by_topic.into_iter().map(|(t, ps)| (t, ps.into_iter().collect())).collect()
        }),
    }
}

/// A group's commits: (topic, partition) -> (next offset, metadata); `None`
/// where the coordinator answered "no commit".
type Committed = BTreeMap<(String, u32), (Option<u64>, Option<String>)>;

/// The partitions that are the group's: those it committed, and those its members are assigned.
fn group_partitions(committed: &Committed, members: &[GroupMember]) -> BTreeSet<(String, u32)> {
    let mut out: BTreeSet<(String, u32)> = committed.iter().filter(|(_, (o, _))| o.is_some()).map(|(k, _)| k.clone()).collect();
    for m in members {
        for (t, ps) in m.assignment.iter().flatten() {
            out.extend(ps.iter().map(|p| (t.clone(), *p)));
        }
    }
    out
}

/// The group's partitions from its commits, its members' assignments and the
/// partitions' watermarks (`marks`: (low, end)). Kafka answers a commit of -1
/// ("none") for partitions the group never committed: such a partition is the
/// group's only when a member is assigned it.
fn merge(committed: Committed, members: &[GroupMember], marks: &HashMap<(String, u32), (u64, u64)>) -> Vec<GroupPartition> {
    let mut holder: HashMap<(String, u32), &str> = HashMap::new();
    for m in members {
        for (t, ps) in m.assignment.iter().flatten() {
            for p in ps {
                holder.insert((t.clone(), *p), m.member_id.as_str());
            }
        }
    }
    let mut all = committed;
    all.retain(|k, (o, _)| o.is_some() || holder.contains_key(k));
    for k in holder.keys() {
        all.entry(k.clone()).or_insert((None, None));
    }
    all.into_iter()
        .map(|((topic, partition), (committed, metadata))| {
            let key = (topic, partition);
            let (low, end) = marks.get(&key).copied().map_or((None, None), |(l, h)| (Some(l), Some(h)));
            let lag = match (committed, end) {
                (Some(o), Some(e)) => Some(e.saturating_sub(o)),
                _ => None,
            };
            let member = holder.get(&key).map(|m| (*m).to_string());
            let (topic, partition) = key;
            GroupPartition { topic, partition, committed, end, low, lag, member, metadata }
        })
        .collect()
}

impl Browser {
    /// Every consumer group on the cluster with its state, members and total
    /// lag, by id. A group that cannot be read is listed with its error.
    ///
    /// # Errors
    /// [`Error::Kafka`] when the groups cannot be listed at all.
    pub fn groups(&self) -> Result<Vec<GroupSummary>> {
        self.block_on(async {
            let c = &self.cluster;
            let listed = c
                .admin
                .list_consumer_groups(ListConsumerGroupsOptions::default().timeout(c.timeout))
                .await
                .map_err(|e| c.error("list consumer groups", &e))?;
            let mut ids: BTreeMap<String, (String, Option<String>)> = BTreeMap::new();
            for (_, listing) in listed {
                for g in listing.map_err(|e| c.error("list consumer groups", &e))? {
                    ids.insert(g.group_id, (g.protocol_type, g.state));
                }
            }
            if ids.is_empty() {
                return Ok(Vec::new());
            }
            let mut described = c
                .admin
                .describe_consumer_groups(ids.keys(), DescribeConsumerGroupsOptions::default().timeout(c.timeout))
                .await
                .map_err(|e| c.error("describe consumer groups", &e))?;
            let mut out = Vec::with_capacity(ids.len());
            for (id, (protocol_type, listed_state)) in ids {
                let mut summary = GroupSummary {
                    id: id.clone(),
                    state: listed_state.unwrap_or_default(),
                    protocol_type,
                    members: 0,
                    topics: Vec::new(),
                    lag: 0,
                    uncommitted: 0,
                    error: None,
                };
                let description = match described.remove(&id) {
                    Some(Ok(d)) => Some(d),
                    Some(Err(KrafkaError::Broker { code: ErrorCode::GroupIdNotFound, .. })) | None => None,
                    Some(Err(e)) => {
                        summary.error = Some(c.error(format!("describe consumer group {id}"), &e).to_string());
                        None
                    }
                };
                match self.detail_of(&id, description).await {
                    Ok(d) => {
                        summary.state = d.state.clone();
                        summary.members = u32::try_from(d.members.len()).unwrap_or(u32::MAX);
                        summary.lag = d.lag();
                        summary.uncommitted =
                            u32::try_from(d.partitions.iter().filter(|p| p.committed.is_none()).count()).unwrap_or(u32::MAX);
                        let topics: BTreeSet<&str> = d.partitions.iter().map(|p| p.topic.as_str()).collect();
                        summary.topics = topics.into_iter().map(str::to_string).collect();
                    }
                    Err(e) => summary.error = Some(e.to_string()),
                }
                out.push(summary);
            }
            Ok(out)
        })
    }

    /// One group whole; `None` when the cluster has no such group (neither
    /// members nor committed offsets).
    ///
    /// # Errors
    /// [`Error::Kafka`] naming the broker and the call.
    pub fn group(&self, id: &str) -> Result<Option<GroupDetail>> {
        self.block_on(async {
            let c = &self.cluster;
            let op = format!("describe consumer group {id}");
            let mut r = c
                .admin
                .describe_consumer_groups([id], DescribeConsumerGroupsOptions::default().timeout(c.timeout))
                .await
                .map_err(|e| c.error(op.clone(), &e))?;
            let description = match r.remove(id) {
                Some(Ok(d)) => Some(d),
                Some(Err(KrafkaError::Broker { code: ErrorCode::GroupIdNotFound, .. })) | None => None,
                Some(Err(e)) => return Err(c.error(op, &e)),
            };
            let d = self.detail_of(id, description).await?;
            let dead = d.members.is_empty() && d.partitions.is_empty() && matches!(d.state.as_str(), "Dead" | "" | "Unknown");
            Ok((!dead).then_some(d))
        })
    }

    /// A group's detail from its description (if any), its committed offsets
    /// and the watermarks of every partition they and its members name.
    async fn detail_of(&self, id: &str, description: Option<ConsumerGroupDescription>) -> Result<GroupDetail> {
        let c = &self.cluster;
        let op = format!("list the offsets of consumer group {id}");
        let fetched = c
            .admin
            .list_consumer_group_offsets(id, ListConsumerGroupOffsetsOptions::default().timeout(c.timeout))
            .await
            .map_err(|e| c.error(op.clone(), &e))?;
        let mut committed: Committed = BTreeMap::new();
        for (tp, o) in fetched {
            let Ok(p) = u32::try_from(tp.partition) else { continue };
            match o {
                Ok(g) => {
                    committed.insert((tp.topic, p), (g.offset.and_then(|o| u64::try_from(o).ok()), g.metadata.filter(|m| !m.is_empty())));
                }
                // A partition deleted since the commit: its commit is still the group's.
                Err(KrafkaError::Broker { code: ErrorCode::UnknownTopicOrPartition, .. }) => {
                    committed.insert((tp.topic, p), (None, None));
                }
                Err(e) => return Err(c.error(op, &e)),
            }
        }
        let members: Vec<GroupMember> = description.as_ref().map(|d| d.members.iter().map(member_of).collect()).unwrap_or_default();
        let wanted = group_partitions(&committed, &members);
        let marks = self.ends_of(wanted.iter()).await?;
        let partitions = merge(committed, &members, &marks);
        let (state, protocol_type, assignor) = match description {
            Some(d) => (d.state, d.protocol_type.unwrap_or_default(), d.assignor.filter(|a| !a.is_empty())),
            None => (String::new(), String::new(), None),
        };
        Ok(GroupDetail { id: id.to_string(), state, protocol_type, assignor, members, partitions })
    }

    /// The first and end offsets of these partitions; a partition whose
    /// offsets the cluster does not answer (deleted topic) is left out.
    async fn ends_of<'a>(&self, tps: impl Iterator<Item = &'a (String, u32)>) -> Result<HashMap<(String, u32), (u64, u64)>> {
        let c = &self.cluster;
        let tps: Vec<TopicPartition> = tps.map(|(t, p)| TopicPartition::new(t.as_str(), *p as i32)).collect();
        if tps.is_empty() {
            return Ok(HashMap::new());
        }
        let list = |spec: OffsetSpec| {
            c.admin.list_offsets(tps.iter().map(move |tp| (tp.clone(), spec)), ListOffsetsOptions::default().timeout(c.timeout))
        };
        let low = list(OffsetSpec::Earliest).await.map_err(|e| c.error("list offsets", &e))?;
        let high = list(OffsetSpec::Latest).await.map_err(|e| c.error("list offsets", &e))?;
        let mut out = HashMap::with_capacity(tps.len());
        for tp in tps {
            let (Some(Ok(l)), Some(Ok(h))) = (low.get(&tp), high.get(&tp)) else { continue };
            let Ok(p) = u32::try_from(tp.partition) else { continue };
            let (l, h) = (u64_of(l.offset), u64_of(h.offset));
            out.insert((tp.topic, p), (l, h.max(l)));
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn part(committed: Option<u64>, low: Option<u64>, end: Option<u64>) -> GroupPartition {
        GroupPartition { topic: "t".into(), partition: 0, committed, end, low, lag: None, member: None, metadata: None }
    }

    #[test]
    fn a_commit_outside_the_watermarks_is_named() {
        assert!(part(Some(3), Some(10), Some(20)).behind_start());
        assert!(!part(Some(10), Some(10), Some(20)).behind_start());
        assert!(part(Some(21), Some(0), Some(20)).past_end());
        assert!(!part(Some(20), Some(0), Some(20)).past_end());
        assert!(!part(None, Some(10), Some(20)).behind_start() && !part(None, Some(10), Some(20)).past_end());
        assert!(!part(Some(5), None, None).behind_start() && !part(Some(5), None, None).past_end());
    }

    fn member(id: &str, assignment: Option<Vec<(&str, Vec<u32>)>>) -> GroupMember {
        GroupMember {
            member_id: id.into(),
            client_id: "c".into(),
            host: "h".into(),
            instance_id: None,
            assignment: assignment.map(|a| a.into_iter().map(|(t, ps)| (t.to_string(), ps)).collect()),
        }
    }

    #[test]
    fn a_groups_partitions_are_its_commits_and_its_members_assignments() {
        let mut committed: Committed = BTreeMap::new();
        committed.insert(("orders".into(), 0), (Some(7), Some("meta".into())));
        committed.insert(("orders".into(), 1), (None, None)); // "no commit", assigned: the group's
        committed.insert(("other".into(), 0), (None, None)); // "no commit", nobody's: not the group's
        committed.insert(("gone".into(), 0), (Some(3), None)); // committed, its topic deleted since
        let members =
            vec![member("m1", Some(vec![("orders", vec![0, 1])])), member("m2", Some(vec![("orders", vec![2])])), member("m3", None)];
        let wanted = group_partitions(&committed, &members);
        let keys: Vec<(&str, u32)> = wanted.iter().map(|(t, p)| (t.as_str(), *p)).collect();
        assert_eq!(keys, vec![("gone", 0), ("orders", 0), ("orders", 1), ("orders", 2)]);
        let marks: HashMap<(String, u32), (u64, u64)> =
            [(("orders".to_string(), 0), (0, 10)), (("orders".to_string(), 1), (2, 5)), (("orders".to_string(), 2), (0, 0))]
                .into_iter()
                .collect();
        let parts = merge(committed, &members, &marks);
        let rows: Vec<String> = parts
            .iter()
            .map(|p| format!("{}/{} committed {:?} lag {:?} member {:?}", p.topic, p.partition, p.committed, p.lag, p.member))
            .collect();
        assert_eq!(
            rows,
            vec![
                "gone/0 committed Some(3) lag None member None",
                "orders/0 committed Some(7) lag Some(3) member Some(\"m1\")",
                "orders/1 committed None lag None member Some(\"m1\")",
                "orders/2 committed None lag None member Some(\"m2\")",
            ],
            "a deleted topic's commit has no lag to tell; an assigned partition never committed neither"
        );
        assert_eq!(parts[1].metadata.as_deref(), Some("meta"));
    }

    #[test]
    fn a_groups_lag_sums_the_known_ones_only() {
        let mut a = part(Some(5), Some(0), Some(10));
        a.lag = Some(5);
        let b = part(None, Some(0), Some(7));
        let mut huge = part(Some(0), Some(0), Some(u64::MAX));
        huge.lag = Some(u64::MAX);
        let d = GroupDetail {
            id: "g".into(),
            state: "Stable".into(),
            protocol_type: "consumer".into(),
            assignor: None,
            members: Vec::new(),
            partitions: vec![a.clone(), b],
        };
        assert_eq!(d.lag(), 5);
        let d = GroupDetail { partitions: vec![a, huge], ..d };
        assert_eq!(d.lag(), u64::MAX, "saturates, never wraps");
    }
}
