//! The cluster's wire types: a connection's settings (never its password,
//! which goes only to the OS keychain), what a connection test found, the
//! saved connections, and what a cluster window shows of its topics and
//! consumer groups. With the conversion of a Kafka record to the messages
//! table's row.

use serde::{Deserialize, Serialize};
use specta::Type;
use twainmq_kafka::browse::{
    ClusterOverview, ConnectFailure, GroupDetail, GroupMember, GroupPartition, GroupSummary, PartitionWatermarks, Record, ResetRow,
    TopicWatermarks,
};

use crate::messages::wire::{KafkaExtras, KeyKind, MessageRow, PayloadKind, RecordHeader};
use crate::wire::{Count, KeyText, Offset};

/// A cluster's exports and imports run as the store's transfers do: the same events, ids and
/// `cancel_transfer`.
pub use crate::transfer::wire::{BadLine, ImportResume, TransferEvent, TransferId};

/// A SASL mechanism.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Type)]
pub enum SaslMechanismDto {
    #[serde(rename = "PLAIN")]
    Plain,
    #[serde(rename = "SCRAM-SHA-256")]
    ScramSha256,
    #[serde(rename = "SCRAM-SHA-512")]
    ScramSha512,
}

/// TLS: the files to use (all optional: without a CA, the usual web roots are trusted).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, Type)]
pub struct TlsSettings {
    /// A PEM file of the CA certificates to trust.
    pub ca_file: Option<String>,
    /// A client certificate (PEM), with `key_file`, for mutual TLS.
    pub cert_file: Option<String>,
    /// The client certificate's key (PEM).
    pub key_file: Option<String>,
}

/// SASL: the mechanism and the user (the password travels apart, never saved in a file).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Type)]
pub struct SaslSettings {
    pub mechanism: SaslMechanismDto,
    pub username: String,
}

/// How to reach a cluster: what is saved of a connection (no secret in it).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Type)]
pub struct ConnectionSettings {
    /// What the user calls it (the window's title); empty: the bootstrap servers.
    pub name: String,
    /// `HOST:PORT[,HOST:PORT...]`.
    pub bootstrap: String,
    pub tls: Option<TlsSettings>,
    pub sasl: Option<SaslSettings>,
    /// Safe browse: the window writes nothing to the cluster (no produce, no
    /// republish), refused by the backend, not only hidden. Saved connections
    /// from before this setting read as `false`.
    #[serde(default)]
    pub read_only: bool,
}

/// A connection to test or open: its settings, the password typed (if any), and
/// whether to save it. `saved` names a saved connection whose keychain
/// password is used when `password` is none.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Type)]
pub struct ConnectRequest {
    pub settings: ConnectionSettings,
    pub password: Option<String>,
    pub save: bool,
    pub saved: Option<String>,
}

/// A failed connection, classified.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Type)]
pub struct ConnectFailureDto {
    /// `name_not_found`, `refused`, `tls`, `authentication`, `timeout`, `closed`, `settings`, `other`.
    pub kind: String,
    /// What failed, in words.
    pub words: String,
    /// The client's or broker's own message.
    pub detail: String,
    pub broker: String,
}

impl From<&ConnectFailure> for ConnectFailureDto {
    fn from(f: &ConnectFailure) -> Self {
        ConnectFailureDto { kind: f.kind.code().into(), words: f.kind.words().into(), detail: f.detail.clone(), broker: f.broker.clone() }
    }
}

/// What a working connection showed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Type)]
pub struct ClusterOverviewDto {
    pub cluster_id: String,
    pub brokers: u32,
    pub topics: u32,
}

impl From<&ClusterOverview> for ClusterOverviewDto {
    fn from(o: &ClusterOverview) -> Self {
        ClusterOverviewDto { cluster_id: o.cluster_id.clone(), brokers: o.brokers, topics: o.topics }
    }
}

/// A connection test's answer, or a connect's: one of the two is set.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Type)]
pub struct ConnectionTest {
    pub overview: Option<ClusterOverviewDto>,
    pub failure: Option<ConnectFailureDto>,
    /// Saving was asked for but the password could not go to the keychain
    /// (none on this system): the settings were saved without it, and this says why.
    pub keychain_problem: Option<String>,
}

/// A saved connection.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Type)]
pub struct SavedConnection {
    /// Its id (the keychain entry's user name is `connection-<id>`).
    pub id: String,
    pub settings: ConnectionSettings,
    /// A password for it is in the OS keychain.
    pub password_saved: bool,
}

/// One partition of a cluster's topic.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Type)]
pub struct ClusterPartition {
    pub partition: u32,
    /// The first offset still on the cluster.
    pub low: Offset,
    /// The end: the offset the next record gets (high watermark).
    pub high: Offset,
    /// `high - low`: records between the watermarks (fewer on a compacted topic).
    pub messages: Count,
}

impl From<&PartitionWatermarks> for ClusterPartition {
    fn from(p: &PartitionWatermarks) -> Self {
        ClusterPartition { partition: p.partition, low: Offset(p.low), high: Offset(p.high), messages: Count(p.messages()) }
    }
}

/// A cluster's topic, as the cluster window's list shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Type)]
pub struct ClusterTopic {
    pub name: String,
    pub partitions: Vec<ClusterPartition>,
    pub messages: Count,
}

impl From<&TopicWatermarks> for ClusterTopic {
    fn from(t: &TopicWatermarks) -> Self {
        ClusterTopic {
            name: t.name.clone(),
            partitions: t.partitions.iter().map(ClusterPartition::from).collect(),
            messages: Count(t.messages()),
        }
    }
}

/// What a cluster window shows: the cluster and its topics.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Type)]
pub struct ClusterInfo {
    /// The connection's name (or its bootstrap servers).
    pub name: String,
    pub bootstrap: String,
    pub cluster_id: String,
    pub topics: Vec<ClusterTopic>,
    /// Opened read-only (safe browse): nothing is offered that writes.
    pub read_only: bool,
}

/// Bytes as the user typed them, or as a record held them: UTF-8 text or hex.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Type)]
#[serde(tag = "encoding", rename_all = "snake_case")]
pub enum BytesInput {
    Text {
        text: String,
    },
    /// Hex digits; spaces and a leading `0x` are allowed.
    Hex {
        hex: String,
    },
}

/// A header to write: its name and value (`None`: a null value).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Type)]
pub struct HeaderInput {
    pub name: String,
    pub value: Option<BytesInput>,
}

/// A record to write to the cluster (produce, or republish a record read).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Type)]
pub struct ClusterProduceRequest {
    pub topic: String,
    /// `None`: the key's partition (murmur2, as Kafka's Java client), any for a null key.
    pub partition: Option<u32>,
    /// `None`: Kafka's null key.
    pub key: Option<BytesInput>,
    /// `None`: a tombstone.
    pub value: Option<BytesInput>,
    pub headers: Vec<HeaderInput>,
    /// Milliseconds since the epoch, a whole number; `None`: now.
    pub timestamp_ms: Option<f64>,
}

/// Where a written record landed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Type)]
pub struct ClusterProduced {
    pub topic: String,
    pub partition: u32,
    /// `None` when the broker told only that an earlier attempt already wrote it (once).
    pub offset: Option<Offset>,
}

/// A consumer group as the cluster's groups overview lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Type)]
pub struct ClusterGroupSummary {
    pub id: String,
    /// The coordinator's word for its state: `Stable`, `Empty`, `PreparingRebalance`,
    /// `CompletingRebalance`, `Dead`; empty when it did not say.
    pub state: String,
    /// `consumer` for Kafka consumers; empty for a group that only commits offsets.
    pub protocol_type: String,
    pub members: u32,
    /// The topics it committed offsets for or is assigned.
    pub topics: Vec<String>,
    /// The sum of the lags of its committed partitions.
    pub lag: Count,
    /// Partitions it is assigned that it never committed: their lag is unknown, not 0.
    pub uncommitted: u32,
    /// What could not be read of it, in words (the group is still listed).
    pub error: Option<String>,
    /// The bridge's own lease group of a mirror (`twainmq-mirror.<topic>`): the mirror
    /// holds it while it runs, and commits nothing there.
    pub mirror_lease: bool,
}

impl From<&GroupSummary> for ClusterGroupSummary {
    fn from(g: &GroupSummary) -> Self {
        ClusterGroupSummary {
            id: g.id.clone(),
            state: g.state.clone(),
            protocol_type: g.protocol_type.clone(),
            members: g.members,
            topics: g.topics.clone(),
            lag: Count(g.lag),
            uncommitted: g.uncommitted,
            error: g.error.clone(),
            mirror_lease: g.id.starts_with(&twainmq_kafka::lease_group("")),
        }
    }
}

/// One topic's partitions assigned to a member.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Type)]
pub struct AssignedTopic {
    pub topic: String,
    pub partitions: Vec<u32>,
}

/// A member of a cluster's consumer group.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Type)]
pub struct ClusterGroupMember {
    pub member_id: String,
    /// Empty when the broker does not say.
    pub client_id: String,
    /// The host it connected from; empty when the broker does not say.
    pub host: String,
    /// Its static membership id.
    pub instance_id: Option<String>,
    /// What it holds, by topic; `None` when the broker's answer does not tell.
    pub assignment: Option<Vec<AssignedTopic>>,
}

impl From<&GroupMember> for ClusterGroupMember {
    fn from(m: &GroupMember) -> Self {
        ClusterGroupMember {
            member_id: m.member_id.clone(),
            client_id: m.client_id.clone(),
            host: m.host.clone(),
            instance_id: m.instance_id.clone(),
            assignment: m
                .assignment
                .as_ref()
                .map(|a| a.iter().map(|(t, ps)| AssignedTopic { topic: t.clone(), partitions: ps.clone() }).collect()),
        }
    }
}

/// What a group's commit on a partition means, beyond its lag.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Type)]
#[serde(rename_all = "snake_case")]
pub enum CommitStanding {
    /// Between the partition's first offset and its end: the lag is what is left to read.
    Within,
    /// Never committed (assigned only): where it starts is its reset policy's choice.
    None,
    /// Below the first offset still on the cluster: the records between were deleted
    /// before the group read them.
    BehindStart,
    /// Past the end: the partition was truncated or made again since, and the records
    /// written up to the commit will be skipped.
    PastEnd,
    /// The partition's offsets could not be read (its topic deleted, say).
    Unknown,
}

/// One partition of a cluster's consumer group.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Type)]
pub struct ClusterGroupPartition {
    pub topic: String,
    pub partition: u32,
    /// The next offset the group reads; `None` when never committed.
    pub committed: Option<Offset>,
    pub low: Option<Offset>,
    pub end: Option<Offset>,
    /// `end - committed`, never below 0; `None` when either is unknown.
    pub lag: Option<Count>,
    pub standing: CommitStanding,
    /// The member holding it, by member id.
    pub member: Option<String>,
    /// The commit's metadata, when the committer left one.
    pub metadata: Option<String>,
}

impl From<&GroupPartition> for ClusterGroupPartition {
    fn from(p: &GroupPartition) -> Self {
        let standing = if p.committed.is_none() {
            CommitStanding::None
        } else if p.end.is_none() {
            CommitStanding::Unknown
        } else if p.past_end() {
            CommitStanding::PastEnd
        } else if p.behind_start() {
            CommitStanding::BehindStart
        } else {
            CommitStanding::Within
        };
        ClusterGroupPartition {
            topic: p.topic.clone(),
            partition: p.partition,
            committed: p.committed.map(Offset),
            low: p.low.map(Offset),
            end: p.end.map(Offset),
            lag: p.lag.map(Count),
            standing,
            member: p.member.clone(),
            metadata: p.metadata.clone(),
        }
    }
}

/// A cluster's consumer group whole.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Type)]
pub struct ClusterGroupDetail {
    pub id: String,
    pub state: String,
    pub protocol_type: String,
    /// The assignor its members agreed on, when the broker says.
    pub assignor: Option<String>,
    pub members: Vec<ClusterGroupMember>,
    pub partitions: Vec<ClusterGroupPartition>,
    pub lag: Count,
    pub mirror_lease: bool,
}

impl From<&GroupDetail> for ClusterGroupDetail {
    fn from(g: &GroupDetail) -> Self {
        ClusterGroupDetail {
            id: g.id.clone(),
            state: g.state.clone(),
            protocol_type: g.protocol_type.clone(),
            assignor: g.assignor.clone(),
            members: g.members.iter().map(ClusterGroupMember::from).collect(),
            partitions: g.partitions.iter().map(ClusterGroupPartition::from).collect(),
            lag: Count(g.lag()),
            mirror_lease: g.id.starts_with(&twainmq_kafka::lease_group("")),
        }
    }
}

/// Where a reset moves a cluster group's commits.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Type)]
#[serde(tag = "mode", rename_all = "snake_case")]
pub enum ClusterResetTo {
    /// The first offset still on the cluster.
    Earliest,
    /// The end.
    Latest,
    /// The first record at or after this time (milliseconds since the epoch, whole).
    Time { unix_ms: f64 },
    /// This offset in every partition (kept within each).
    Offset { offset: Offset },
    /// The current commit moved by this many (a decimal integer, back when negative).
    Shift { by: String },
}

/// A reset to plan: of these topics' partitions, to there.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Type)]
pub struct ClusterResetRequest {
    /// The topics (each with all its partitions).
    pub topics: Vec<String>,
    pub to: ClusterResetTo,
}

/// One partition of a reset plan: the commit now and after, and the lag each leaves.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Type)]
pub struct ClusterResetRow {
    pub topic: String,
    pub partition: u32,
    /// `None`: never committed there.
    pub current: Option<Offset>,
    pub new: Offset,
    pub low: Offset,
    pub end: Offset,
    /// `end - current`; `None` when never committed.
    pub lag_before: Option<Count>,
    pub lag_after: Count,
}

impl From<&ResetRow> for ClusterResetRow {
    fn from(r: &ResetRow) -> Self {
        ClusterResetRow {
            topic: r.topic.clone(),
            partition: r.partition,
            current: r.current.map(Offset),
            new: Offset(r.new),
            low: Offset(r.low),
            end: Offset(r.end),
            lag_before: r.current.map(|c| Count(r.end.saturating_sub(c))),
            lag_after: Count(r.end.saturating_sub(r.new)),
        }
    }
}

/// A reset's plan: nothing written yet.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Type)]
pub struct ClusterResetPlan {
    pub group: String,
    pub rows: Vec<ClusterResetRow>,
    /// The group's members now: Kafka applies a reset only when there are none.
    pub members: u32,
    /// Records the group will read again (commits moved back), summed.
    pub reread: Count,
    /// Records it will skip (commits moved forward), summed.
    pub skipped: Count,
}

/// How a cluster search reads what is typed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Type)]
#[serde(rename_all = "snake_case")]
pub enum SearchMode {
    /// Text, any case.
    Text,
    /// A regular expression (Rust's syntax), on the bytes.
    Regex,
    /// A CEL filter, the store's language (`docs/QUERY.md`).
    Cel,
}

/// Where text and regular expressions look.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Type)]
#[serde(rename_all = "snake_case")]
pub enum SearchWhere {
    All,
    Key,
    Value,
    /// Header names and values.
    Headers,
}

/// A cluster topic's search.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Type)]
pub struct ClusterSearchQuery {
    pub mode: SearchMode,
    pub place: SearchWhere,
    pub text: String,
}

/// What a running cluster search tells the window.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Type)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum ClusterSearchEvent {
    /// Records read of those between the watermarks at the start, and hits so far.
    Progress {
        scanned: Count,
        total: Count,
        hits: Count,
    },
    /// More hits, whole (the first ones only: see `Done::rows_cut`).
    Hits {
        rows: Vec<MessageRow>,
    },
    /// The end: everything read, or stopped.
    Done {
        scanned: Count,
        total: Count,
        hits: Count,
        /// Cancelled before the end.
        stopped: bool,
        /// More hits than were sent whole: the rest were counted only.
        rows_cut: bool,
    },
    Failed {
        error: crate::wire::ErrorDto,
    },
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// A Kafka record as the messages table's row: text when its bytes are UTF-8,
/// else hex; the null key, a tombstone and the headers said in `kafka`.
pub fn record_row(r: &Record) -> MessageRow {
    let key_text = r.key.as_deref().map(|k| std::str::from_utf8(k).map(str::to_string).map_err(|_| hex(k)));
    let key = match &key_text {
        None => String::new(),
        Some(Ok(s)) => s.clone(),
        Some(Err(h)) => format!("0x{h}"),
    };
    let (kind, text, hexed, size) = match r.value.as_deref() {
        None => (PayloadKind::Bytes, None, None, 0),
        Some(v) => match std::str::from_utf8(v) {
            Ok(s) => (PayloadKind::Str, Some(s.to_string()), None, v.len()),
            Err(_) => (PayloadKind::Bytes, None, Some(hex(v)), v.len()),
        },
    };
    let headers = r
        .headers
        .iter()
        .map(|(name, v)| RecordHeader {
            name: name.clone(),
            text: v.as_deref().and_then(|b| std::str::from_utf8(b).ok()).map(str::to_string),
            hex: v.as_deref().map(hex),
            null: v.is_none(),
        })
        .collect();
    MessageRow {
        partition: r.partition,
        offset: Offset(r.offset),
        key: KeyText(key),
        key_kind: KeyKind::Str,
        timestamp: r.timestamp_ms as f64 / 1000.0,
        kind,
        text,
        hex: hexed,
        class: None,
        type_id: None,
        fields_json: None,
        fields_pretty: None,
        size: u32::try_from(size).unwrap_or(u32::MAX),
        // Whole: the cluster window shows the value as it came, with no "show all" to complete a preview.
        truncated: false,
        kafka: Some(KafkaExtras {
            key_null: r.key.is_none(),
            key_binary: matches!(key_text, Some(Err(_))),
            key_size: r.key.as_ref().map_or(0, |k| u32::try_from(k.len()).unwrap_or(u32::MAX)),
            value_null: r.value.is_none(),
            headers,
        }),
    }
}

/// A cluster topic's records to export to a JSON lines file (lossless: see docs/KAFKA.md).
#[derive(Debug, Clone, Serialize, Deserialize, Type, PartialEq, Eq)]
pub struct ClusterExportRequest {
    pub topic: String,
    /// These partitions only (all when none).
    pub partitions: Option<Vec<u32>>,
    /// The file to write (put in place only once whole; never inside a store).
    pub path: String,
    /// Replace a file already at `path` (else refused: `target_exists`).
    pub overwrite: bool,
}

/// A JSON lines file to import into a cluster topic.
#[derive(Debug, Clone, Serialize, Deserialize, Type, PartialEq)]
pub struct ClusterImportRequest {
    pub topic: String,
    pub path: String,
    /// Each record to the partition its line names (else its key's, as Kafka's Java client picks).
    pub keep_partitions: bool,
    /// Each record with its line's time (else the time of the write).
    pub keep_timestamps: bool,
    /// Go on from where an import of this file stopped: the lines it wrote are passed over.
    pub resume: Option<ImportResume>,
}

/// What a check of a file to import found; nothing written.
#[derive(Debug, Clone, Serialize, Deserialize, Type, PartialEq)]
pub struct ClusterImportCheck {
    /// Good record lines (blank ones and bad ones not counted).
    pub records: Count,
    /// Lines naming the partition their record was in.
    pub with_partition: Count,
    pub highest_partition: Option<u32>,
    /// The topic's partitions.
    pub partitions: u32,
    pub bad: Count,
    pub first_bad: Option<BadLine>,
}

/// Which way a mirror started from a cluster window goes.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, Type, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum MirrorWay {
    /// From this cluster's topic into a store's.
    ClusterToStore,
    /// From a store's topic into this cluster's.
    StoreToCluster,
}

/// A mirror (the bridge's: nothing lost, nothing twice, resumed where the target says) between
/// this cluster and a store folder.
#[derive(Debug, Clone, Serialize, Deserialize, Type, PartialEq, Eq)]
pub struct ClusterMirrorRequest {
    pub way: MirrorWay,
    /// The store's folder: an existing store, or (cluster to store) a new or empty folder.
    pub store: String,
    pub store_topic: String,
    pub cluster_topic: String,
    /// Keep going: new records go across as they are written, until stopped.
    pub follow: bool,
    /// Carry consumer groups' committed offsets across too.
    pub groups: bool,
    /// Cluster to store, when the store's topic must be made and the cluster published no
    /// TwainMQ config for it: its key type (`any` takes every Kafka key, null included).
    pub key_type: Option<String>,
    /// And whether its messages may be larger than one 4,096-byte line (the format's
    /// extension: 0.2.3 cannot read those messages).
    pub large_messages: bool,
    /// Cluster to store: records with headers go across without them (a TwainMQ message has
    /// none); else such a record stops the mirror, saying so.
    pub drop_headers: bool,
}

/// A running mirror's news.
#[derive(Debug, Clone, Serialize, Deserialize, Type, PartialEq)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum ClusterMirrorEvent {
    /// Started: where each source partition resumes (found from the target), and whether the
    /// target topic was made.
    Started {
        from: Vec<Offset>,
        created: bool,
    },
    /// Records written this run, and how many the source had left when last looked (none while following).
    Progress {
        mirrored: Count,
        left: Option<Count>,
    },
    /// The cluster failed; the mirror starts again after a pause (following only).
    Retrying {
        reason: String,
        after_secs: f64,
    },
    /// Waiting for another mirror of the target to let go of it.
    Waiting {
        reason: String,
    },
    /// Ended: done, or stopped on request (a later mirror goes on from where this one got to).
    Done {
        mirrored: Count,
        stopped: bool,
        seconds: f64,
        created: bool,
        from: Vec<Offset>,
        groups: Vec<String>,
        retries: Count,
    },
    Failed {
        error: crate::wire::ErrorDto,
    },
}

/// How a compatibility check came out.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, Type, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum CompatOutcome {
    /// Answered, rightly.
    Right,
    /// Answered, wrongly (`seen` says how).
    Wrong,
    /// Not answered, or refused.
    Failed,
    /// Not run (`seen` says why).
    Skipped,
}

/// One check of the cluster's compatibility (docs/KAFKA.md).
#[derive(Debug, Clone, Serialize, Deserialize, Type, PartialEq, Eq)]
pub struct CompatCheck {
    pub name: String,
    /// The Kafka APIs it exercises.
    pub apis: Vec<String>,
    pub outcome: CompatOutcome,
    /// What was seen: the answer, the wrong answer, the error.
    pub seen: String,
    /// What in this app relies on it.
    pub used_by: String,
    /// How long it took, in milliseconds.
    pub millis: Count,
}

impl From<&twainmq_kafka::browse::Check> for CompatCheck {
    fn from(c: &twainmq_kafka::browse::Check) -> Self {
        use twainmq_kafka::browse::Outcome;
        CompatCheck {
            name: c.name.clone(),
            apis: c.apis.iter().map(|a| (*a).to_string()).collect(),
            outcome: match c.outcome {
                Outcome::Right => CompatOutcome::Right,
                Outcome::Wrong => CompatOutcome::Wrong,
                Outcome::Failed => CompatOutcome::Failed,
                Outcome::Skipped => CompatOutcome::Skipped,
            },
            seen: c.seen.clone(),
            used_by: c.used_by.to_string(),
            millis: Count(c.millis),
        }
    }
}

/// A member of the balancing demo this window started.
#[derive(Debug, Clone, Serialize, Deserialize, Type, PartialEq, Eq)]
pub struct ClusterDemoMember {
    pub id: u32,
    pub client_id: String,
    pub group: String,
    pub topic: String,
    /// The partitions the group gave it now.
    pub partitions: Vec<u32>,
    /// Records it read and committed.
    pub consumed: Count,
    /// Given a place in the group at least once.
    pub joined: bool,
    /// Left the group (stopped, or failed: `error` says why).
    pub left: bool,
    pub error: Option<String>,
}
