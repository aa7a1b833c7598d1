//! The cluster's wire types: a connection's settings (never its password,
//! which goes only to the OS keychain), what a connection test found, the
//! saved connections, and what a cluster window shows of its topics. With the
//! conversion of a Kafka record to the messages table's row.

use serde::{Deserialize, Serialize};
use specta::Type;
use twainmq_kafka::browse::{ClusterOverview, ConnectFailure, PartitionWatermarks, Record, TopicWatermarks};

use crate::messages::wire::{KafkaExtras, KeyKind, MessageRow, PayloadKind, RecordHeader};
use crate::wire::{Count, KeyText, Offset};

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
