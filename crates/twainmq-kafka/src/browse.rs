//! Browsing a cluster from the app: test a connection (and say in words what
//! failed), list topics with their partitions' watermarks, read a partition's
//! records from an offset, find the first offset at a time, list consumer
//! groups with their members and lag (`groups`), and write one record
//! (`produce`: what the app's produce and republish do).
//!
//! A [`Browser`] is synchronous: it owns a small tokio runtime of its own, so
//! its callers (the app's services, which run on plain threads) need no async.
//! Only [`Browser::produce`] writes to the cluster.

use std::collections::HashMap;
use std::fmt;
use std::time::Duration;

use krafka::admin::{DescribeTopicsOptions, ListOffsetsOptions, ListTopicsOptions, OffsetSpec};
use krafka::consumer::{Consumer, TopicPartition};
use krafka::error::ErrorCode;
use krafka::{Kafka, KrafkaError};

use crate::cluster::{Cluster, Endpoint};
use crate::error::{Error, Result};

mod compat;
mod demo;
mod group_admin;
mod groups;
mod jsonl;
mod produce;
mod scan;
pub use compat::{Check, Outcome};
pub use demo::{DemoMember, DemoState, DEMO_RECORDS_PER_SECOND};
pub use group_admin::{ResetRow, ResetTo};
pub use groups::{GroupDetail, GroupMember, GroupPartition, GroupSummary};
pub use jsonl::{check_import, parse_line, record_line, ImportCheck, ImportOptions, ImportReport, LineRecord, Resume, MAX_LINE_BYTES};
pub use produce::{NewRecord, Written};
pub use scan::{ScanEnd, ScanProgress};

/// What went wrong while connecting, in the words the connect dialog shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum FailureKind {
    /// A broker's host name is not known to the name service (DNS).
    NameNotFound,
    /// Nothing listens at the address (the connection was refused).
    Refused,
    /// The TLS handshake failed: a certificate not trusted or not valid, or
    /// TLS spoken to a listener that does not speak it (or the other way round).
    Tls,
    /// The broker refused the credentials (SASL), or asked for others.
    Authentication,
    /// No answer in time.
    Timeout,
    /// The broker closed the connection without saying why (it may want TLS or SASL).
    Closed,
    /// A setting that cannot be used (a file that cannot be read, an address of the wrong form).
    Settings,
    /// Anything else the client or broker said.
    Other,
}

impl FailureKind {
    /// The failure in a few words, for the dialog's first line.
    pub fn words(self) -> &'static str {
        match self {
            FailureKind::NameNotFound => "the broker's host name was not found (DNS)",
            FailureKind::Refused => "the connection was refused: nothing listens at that address and port",
            FailureKind::Tls => "the TLS handshake failed (certificate, or TLS on one side only)",
            FailureKind::Authentication => "authentication failed: the broker refused the SASL user, password or mechanism",
            FailureKind::Timeout => "the broker did not answer in time",
            FailureKind::Closed => "the broker closed the connection (does it want TLS, or SASL?)",
            FailureKind::Settings => "a setting cannot be used",
            FailureKind::Other => "the cluster answered with an error",
        }
    }

    /// A stable name for the wire (`name_not_found`, `refused`, ...).
    pub fn code(self) -> &'static str {
        match self {
            FailureKind::NameNotFound => "name_not_found",
            FailureKind::Refused => "refused",
            FailureKind::Tls => "tls",
            FailureKind::Authentication => "authentication",
            FailureKind::Timeout => "timeout",
            FailureKind::Closed => "closed",
            FailureKind::Settings => "settings",
            FailureKind::Other => "other",
        }
    }
}

/// A connection that did not work: what kind of failure, and the client's own words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConnectFailure {
    /// What kind of failure.
    pub kind: FailureKind,
    /// The bootstrap address tried.
    pub broker: String,
    /// The client's or broker's message.
    pub detail: String,
}

impl fmt::Display for ConnectFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Kafka at {}: {} ({})", self.broker, self.kind.words(), self.detail)
    }
}

impl std::error::Error for ConnectFailure {}

/// The kind of a client error met while connecting. krafka wraps the last
/// socket error of a connection attempt in its message ("could not connect to
/// any of [...]; last error: ..."), so the words are read as well as the kinds.
fn classify(e: &KrafkaError) -> FailureKind {
    let text = e.to_string().to_ascii_lowercase();
    let has = |words: &[&str]| words.iter().any(|w| text.contains(w));
    let tls = has(&["certificate", "tls", "handshake failed", "ssl", "unknownissuer", "invalid peer", "corrupt message"])
        // A Kafka answer's length read from a TLS record (0x15 0x03 0x03 ...: an alert):
        // plaintext spoken to a TLS listener.
        || has(&["pre-authentication response length"]);
    let dns = has(&[
        "lookup address",
        "name or service not known",
        "nodename nor servname",
        "no such host",
        "name resolution",
        "no address associated",
        "dns resolution",
        // Windows: WSAHOST_NOT_FOUND ("No such host is known.", Wine: "Host not
        // found.") and WSANO_DATA, by number as the words are translated.
        "host not found",
        "os error 11001",
        "os error 11004",
    ]);
    // Windows' WSAECONNREFUSED ("...the target machine actively refused it") and WSAETIMEDOUT.
    let refused = has(&["connection refused", "actively refused", "os error 10061"]);
    let timed_out = has(&["timed out", "os error 10060"]);
    let io_kind = match e {
        KrafkaError::Network(io) => Some(io.kind()),
        _ => None,
    };
    match e {
        KrafkaError::Broker {
            code: ErrorCode::SaslAuthenticationFailed | ErrorCode::IllegalSaslState | ErrorCode::UnsupportedSaslMechanism,
            ..
        } => FailureKind::Authentication,
        KrafkaError::Auth { .. } if tls && !has(&["sasl", "scram"]) => FailureKind::Tls,
        KrafkaError::Auth { .. } => FailureKind::Authentication,
        KrafkaError::Config { .. } => FailureKind::Settings,
        _ if dns => FailureKind::NameNotFound,
        _ if io_kind == Some(std::io::ErrorKind::ConnectionRefused) || refused => FailureKind::Refused,
        _ if tls => FailureKind::Tls,
        KrafkaError::Timeout { .. } => FailureKind::Timeout,
        _ if io_kind == Some(std::io::ErrorKind::TimedOut) || timed_out => FailureKind::Timeout,
        _ if has(&["connection reset", "broken pipe", "unexpected eof", "early eof", "connection aborted", "closed"]) => {
            FailureKind::Closed
        }
        _ if io_kind == Some(std::io::ErrorKind::InvalidData) => FailureKind::Tls,
        _ if has(&["sasl"]) => FailureKind::Authentication,
        _ => FailureKind::Other,
    }
}

/// What a successful connection test learned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClusterOverview {
    /// The cluster's id.
    pub cluster_id: String,
    /// How many brokers it has.
    pub brokers: u32,
    /// How many topics the user may see (internal ones left out).
    pub topics: u32,
}

/// One partition of a topic: its first offset still there and its end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PartitionWatermarks {
    /// The partition.
    pub partition: u32,
    /// The first offset still on the cluster (log start).
    pub low: u64,
    /// The end: the offset the next record will get (high watermark).
    pub high: u64,
}

impl PartitionWatermarks {
    /// Records between the watermarks: on a compacted topic, or one with
    /// transaction markers, fewer may be read (the offsets are not dense).
    pub fn messages(&self) -> u64 {
        self.high.saturating_sub(self.low)
    }
}

/// A topic and its partitions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TopicWatermarks {
    /// The topic.
    pub name: String,
    /// Its partitions, by index.
    pub partitions: Vec<PartitionWatermarks>,
}

impl TopicWatermarks {
    /// The sum of its partitions' [`PartitionWatermarks::messages`].
    pub fn messages(&self) -> u64 {
        self.partitions.iter().map(PartitionWatermarks::messages).sum()
    }
}

/// One record as the cluster holds it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record {
    /// The partition.
    pub partition: u32,
    /// Its offset.
    pub offset: u64,
    /// Milliseconds since the epoch (create time or log-append time, as the topic says).
    pub timestamp_ms: i64,
    /// The key; `None` is Kafka's null key.
    pub key: Option<Vec<u8>>,
    /// The value; `None` is a tombstone.
    pub value: Option<Vec<u8>>,
    /// Headers in wire order, duplicates and null values kept.
    pub headers: Vec<(String, Option<Vec<u8>>)>,
}

/// Records read from a partition, and where the next read starts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadPage {
    /// The records, in offset order.
    pub records: Vec<Record>,
    /// The offset after the range read: the next read's `from`. Offsets need
    /// not be dense (compaction, transaction markers), so this may be past the
    /// last record's offset + 1.
    pub next: u64,
    /// The partition's watermarks as read.
    pub watermarks: PartitionWatermarks,
}

/// A connection to a cluster for browsing it.
pub struct Browser {
    // `Option` so that `Drop` can shut the runtime down without blocking (a
    // browser may be dropped on an async runtime's thread).
    rt: Option<tokio::runtime::Runtime>,
    cluster: Cluster,
    reader: tokio::sync::Mutex<Option<Consumer>>,
    /// Made on the first write (a window that only reads never has one).
    writer: tokio::sync::Mutex<Option<krafka::producer::Producer>>,
}

impl Drop for Browser {
    fn drop(&mut self) {
        if let Some(rt) = self.rt.take() {
            rt.shutdown_background();
        }
    }
}

impl fmt::Debug for Browser {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Browser").field("broker", &self.cluster.broker).finish_non_exhaustive()
    }
}

fn runtime() -> std::result::Result<tokio::runtime::Runtime, std::io::Error> {
    tokio::runtime::Builder::new_multi_thread().worker_threads(1).thread_name("twainmq-kafka-browse").enable_all().build()
}

/// Connect as the app does, and learn the cluster's id and brokers: every
/// failure classified.
async fn connect(ep: &Endpoint) -> std::result::Result<(Cluster, ClusterOverview), ConnectFailure> {
    let fail = |kind: FailureKind, detail: String| ConnectFailure { kind, broker: ep.bootstrap.clone(), detail };
    let auth = ep.auth().map_err(|e| fail(FailureKind::Settings, e.to_string()))?;
    let builder = Kafka::builder(ep.bootstrap.clone())
        .client_id("twainmq-desktop")
        .security(auth)
        .request_timeout(ep.request_timeout)
        .connect_timeout(ep.request_timeout.min(Duration::from_secs(5)))
        .allow_auto_create_topics(false)
        .connect();
    let overall = ep.request_timeout * 2;
    let kafka = match tokio::time::timeout(overall, builder).await {
        Ok(Ok(k)) => k,
        Ok(Err(e)) => return Err(fail(classify(&e), e.to_string())),
        Err(_) => return Err(fail(FailureKind::Timeout, format!("no answer within {overall:?}"))),
    };
    let admin = kafka.admin();
    let cluster = Cluster { kafka, admin, broker: ep.bootstrap.clone(), id: String::new(), timeout: ep.request_timeout };
    let described = tokio::time::timeout(
        overall,
        cluster.admin.describe_cluster(krafka::admin::DescribeClusterOptions::default().timeout(ep.request_timeout)),
    )
    .await;
    let desc = match described {
        Ok(Ok(d)) => d,
        Ok(Err(e)) => return Err(fail(classify(&e), e.to_string())),
        Err(_) => return Err(fail(FailureKind::Timeout, format!("no answer within {overall:?}"))),
    };
    let topics = cluster
        .admin
        .list_topics(ListTopicsOptions::default().timeout(ep.request_timeout))
        .await
        .map_err(|e| fail(classify(&e), e.to_string()))?;
    let overview = ClusterOverview {
        cluster_id: desc.cluster_id.clone(),
        brokers: u32::try_from(desc.brokers.len()).unwrap_or(u32::MAX),
        topics: u32::try_from(topics.len()).unwrap_or(u32::MAX),
    };
    let cluster = Cluster { id: format!("kafka-{}", desc.cluster_id), ..cluster };
    Ok((cluster, overview))
}

/// Try a connection: connect, describe the cluster, list its topics, and
/// close again. What failed is classified ([`FailureKind`]).
///
/// # Errors
/// The [`ConnectFailure`].
pub fn test_connection(ep: &Endpoint) -> std::result::Result<ClusterOverview, ConnectFailure> {
    let rt = runtime().map_err(|e| ConnectFailure { kind: FailureKind::Other, broker: ep.bootstrap.clone(), detail: e.to_string() })?;
    let r = rt.block_on(async { connect(ep).await.map(|(_, o)| o) });
    rt.shutdown_background();
    r
}

fn u64_of(v: i64) -> u64 {
    u64::try_from(v).unwrap_or(0)
}

fn i64_of(v: u64) -> i64 {
    i64::try_from(v).unwrap_or(i64::MAX)
}

impl Browser {
    /// Connect to the cluster (see [`test_connection`]).
    ///
    /// # Errors
    /// The [`ConnectFailure`], classified.
    pub fn connect(ep: &Endpoint) -> std::result::Result<(Browser, ClusterOverview), ConnectFailure> {
        let rt = runtime().map_err(|e| ConnectFailure { kind: FailureKind::Other, broker: ep.bootstrap.clone(), detail: e.to_string() })?;
        let (cluster, overview) = rt.block_on(connect(ep))?;
        Ok((Browser { rt: Some(rt), cluster, reader: tokio::sync::Mutex::new(None), writer: tokio::sync::Mutex::new(None) }, overview))
    }

    /// The bootstrap address.
    pub fn broker(&self) -> &str {
        &self.cluster.broker
    }

    fn block_on<T>(&self, f: impl std::future::Future<Output = Result<T>>) -> Result<T> {
        match &self.rt {
            Some(rt) => rt.block_on(f),
            None => Err(Error::Config { what: "the connection".into(), problem: "it is closed".into() }),
        }
    }

    /// The topics the user may see (internal ones left out), by name, with
    /// each partition's watermarks.
    ///
    /// # Errors
    /// [`Error::Kafka`] naming the broker and the call.
    pub fn topics(&self) -> Result<Vec<TopicWatermarks>> {
        self.block_on(async {
            let c = &self.cluster;
            let names =
                c.admin.list_topics(ListTopicsOptions::default().timeout(c.timeout)).await.map_err(|e| c.error("list topics", &e))?;
            self.watermarks_of(&names).await
        })
    }

    /// One topic's partitions and watermarks; `None` when the cluster has no such topic.
    ///
    /// # Errors
    /// [`Error::Kafka`] naming the broker and the call.
    pub fn topic(&self, topic: &str) -> Result<Option<TopicWatermarks>> {
        self.block_on(async {
            let c = &self.cluster;
            if c.partitions(topic).await?.is_none() {
                return Ok(None);
            }
            Ok(self.watermarks_of(&[topic.to_string()]).await?.pop())
        })
    }

    async fn watermarks_of(&self, names: &[String]) -> Result<Vec<TopicWatermarks>> {
        let c = &self.cluster;
        if names.is_empty() {
            return Ok(Vec::new());
        }
        let described = c
            .admin
            .describe_topics(names.iter().map(String::as_str), DescribeTopicsOptions::default().timeout(c.timeout))
            .await
            .map_err(|e| c.error("describe topics", &e))?;
        let mut counts: Vec<(String, Vec<u32>)> = Vec::new();
        for name in names {
            match described.get(name) {
                Some(Ok(d)) => {
                    let mut ps: Vec<u32> = d.partitions.iter().filter_map(|p| u32::try_from(p.partition).ok()).collect();
                    ps.sort_unstable();
                    counts.push((name.clone(), ps));
                }
                // Deleted between the listing and now: not shown.
                Some(Err(KrafkaError::Broker { code: ErrorCode::UnknownTopicOrPartition, .. })) | None => {}
                Some(Err(e)) => return Err(c.error(format!("describe topic {name}"), e)),
            }
        }
        let tps: Vec<TopicPartition> =
            counts.iter().flat_map(|(t, ps)| ps.iter().map(move |p| TopicPartition::new(t.as_str(), *p as i32))).collect();
        let list = |spec: OffsetSpec| {
            c.admin.list_offsets(tps.iter().map(move |tp| (tp.clone(), spec)), ListOffsetsOptions::default().timeout(c.timeout))
        };
        let mut low = list(OffsetSpec::Earliest).await.map_err(|e| c.error("list offsets", &e))?;
        let mut high = list(OffsetSpec::Latest).await.map_err(|e| c.error("list offsets", &e))?;
        let mut out = Vec::with_capacity(counts.len());
        for (name, ps) in counts {
            let mut partitions = Vec::with_capacity(ps.len());
            for p in ps {
                let tp = TopicPartition::new(name.as_str(), p as i32);
                let get = |m: &mut HashMap<TopicPartition, krafka::Result<krafka::admin::ListedOffset>>| -> Result<u64> {
                    match m.remove(&tp) {
                        Some(Ok(o)) => Ok(u64_of(o.offset)),
                        Some(Err(e)) => Err(c.error(format!("list offsets of {name}/{p}"), &e)),
                        None => Err(Error::Kafka {
                            broker: c.broker.clone(),
                            op: format!("list offsets of {name}/{p}"),
                            cause: "no answer for the partition".into(),
                            retriable: true,
                            hint: None,
                        }),
                    }
                };
                let (l, h) = (get(&mut low)?, get(&mut high)?);
                partitions.push(PartitionWatermarks { partition: p, low: l, high: h.max(l) });
            }
            out.push(TopicWatermarks { name, partitions });
        }
        Ok(out)
    }

    /// The records of `topic`'s `partition` in the `max` offsets from `from`
    /// (an offset below the first still there reads from that one), in order,
    /// up to the end (fewer when the end is reached, or offsets are missing).
    ///
    /// # Errors
    /// [`Error::Kafka`] naming the broker and the call; [`Error::TopicMissing`].
    pub fn read(&self, topic: &str, partition: u32, from: u64, max: usize) -> Result<ReadPage> {
        self.block_on(async {
            let c = &self.cluster;
            let marks = self
                .watermarks_of(&[topic.to_string()])
                .await?
                .pop()
                .ok_or_else(|| Error::TopicMissing { place: format!("Kafka at {}", c.broker), topic: topic.to_string() })?;
            let pm = marks.partitions.iter().find(|p| p.partition == partition).copied().ok_or_else(|| Error::Config {
                what: format!("partition {partition} of {topic}"),
                problem: format!("the topic has {} partitions (0 to {})", marks.partitions.len(), marks.partitions.len().saturating_sub(1)),
            })?;
            let start = from.max(pm.low);
            if start >= pm.high || max == 0 {
                return Ok(ReadPage { records: Vec::new(), next: start, watermarks: pm });
            }
            let to = pm.high.min(start.saturating_add(max as u64));
            let mut guard = self.reader.lock().await;
            if guard.is_none() {
                *guard = Some(c.reader().await?);
            }
            let consumer = guard.as_ref().ok_or_else(|| Error::Config { what: "the reader".into(), problem: "not made".into() })?;
            let got = c.read_range(consumer, topic, partition, i64_of(start), i64_of(to)).await;
            // The next read may be of another partition: this one is let go.
            let _ = consumer.assign(topic, Vec::new()).await;
            let records = got?
                .into_iter()
                .take(max)
                .map(|r| Record {
                    partition,
                    offset: u64_of(r.offset),
                    timestamp_ms: r.timestamp,
                    key: r.key.map(|b| b.to_vec()),
                    value: r.value.map(|b| b.to_vec()),
                    headers: r.headers.into_iter().map(|(k, v)| (k, v.map(|b| b.to_vec()))).collect(),
                })
                .collect();
            Ok(ReadPage { records, next: to, watermarks: pm })
        })
    }

    /// The first offset of `topic`'s `partition` whose timestamp is at or
    /// after `unix_ms` (the broker's offset-for-time, `ListOffsets`); `None`
    /// when every record is older.
    ///
    /// # Errors
    /// [`Error::Kafka`] naming the broker and the call.
    pub fn offset_for_time(&self, topic: &str, partition: u32, unix_ms: i64) -> Result<Option<u64>> {
        self.block_on(async {
            let c = &self.cluster;
            let op = format!("find the offset of {topic}/{partition} at {unix_ms} ms");
            let tp = TopicPartition::new(topic, partition as i32);
            // Kafka answers "no offset" when no record is that new, and krafka takes that for
            // a passing error and asks again until the request's deadline: an empty partition
            // is answered from its watermarks, and the time is asked with a short deadline
            // first (an answer of "none" then costs at most that), again with the whole
            // timeout only when that one ran out for another reason (a slow broker).
            let ask = |spec: OffsetSpec, timeout: Duration| {
                let tp = tp.clone();
                async move {
                    let mut r = c.admin.list_offsets([(tp.clone(), spec)], ListOffsetsOptions::default().timeout(timeout)).await?;
                    r.remove(&tp).unwrap_or_else(|| Err(KrafkaError::broker(ErrorCode::UnknownServerError, "no answer for the partition")))
                }
            };
            let low = ask(OffsetSpec::Earliest, c.timeout).await.map_err(|e| c.error(op.clone(), &e))?;
            let high = ask(OffsetSpec::Latest, c.timeout).await.map_err(|e| c.error(op.clone(), &e))?;
            if high.offset <= low.offset {
                return Ok(None);
            }
            let mut answer = ask(OffsetSpec::Timestamp(unix_ms), c.timeout.min(NONE_WITHIN)).await;
            let none = matches!(answer, Err(KrafkaError::Broker { code: ErrorCode::OffsetNotAvailable, .. }));
            // "None" is believed when the partition's last record is older than the time (a
            // broker electing a leader also says "no offset" for a while: then the last record
            // is newer, and the time is asked again with the whole timeout).
            let believed = none && {
                let mut guard = self.reader.lock().await;
                if guard.is_none() {
                    *guard = Some(c.reader().await?);
                }
                let consumer = guard.as_ref().ok_or_else(|| Error::Config { what: "the reader".into(), problem: "not made".into() })?;
                let last = c.read_range(consumer, topic, partition, high.offset - 1, high.offset).await;
                let _ = consumer.assign(topic, Vec::new()).await;
                last?.last().is_none_or(|r| r.timestamp < unix_ms)
            };
            if answer.is_err() && !believed {
                answer = ask(OffsetSpec::Timestamp(unix_ms), c.timeout).await;
            }
            match answer {
                Ok(o) => Ok(u64::try_from(o.offset).ok()),
                Err(KrafkaError::Broker { code: ErrorCode::OffsetNotAvailable, .. }) => Ok(None),
                Err(e) => Err(c.error(op, &e)),
            }
        })
    }
}

/// How long an offset for a time is asked before "none" is taken for the answer (see
/// [`Browser::offset_for_time`]).
const NONE_WITHIN: Duration = Duration::from_millis(500);

#[cfg(test)]
mod tests {
    use super::*;

    fn network(text: &str) -> KrafkaError {
        KrafkaError::Network(std::sync::Arc::new(std::io::Error::other(text.to_string())))
    }

    /// The words each platform's socket errors come in, as krafka wraps them
    /// (Linux, macOS, Windows and Wine spell them differently; the Windows
    /// suite under Wine meets its own, the others are quoted from the systems).
    #[test]
    fn each_platforms_socket_errors_are_named() {
        let last = |e: &str| format!("could not connect to any of [b:9092]; last error: network error: {e}");
        let cases = [
            ("failed to lookup address information: Name or service not known", FailureKind::NameNotFound),
            ("failed to lookup address information: nodename nor servname provided, or not known", FailureKind::NameNotFound),
            ("No such host is known. (os error 11001)", FailureKind::NameNotFound),
            ("Host not found. (os error 11001)", FailureKind::NameNotFound),
            ("Connection refused (os error 111)", FailureKind::Refused),
            ("No connection could be made because the target machine actively refused it. (os error 10061)", FailureKind::Refused),
            (
                "A connection attempt failed because the connected party did not properly respond after a period of time (os error 10060)",
                FailureKind::Timeout,
            ),
            ("An existing connection was forcibly closed by the remote host. (os error 10054)", FailureKind::Closed),
        ];
        for (text, kind) in cases {
            assert_eq!(classify(&network(&last(text))), kind, "{text}");
        }
    }
}
