//! The Kafka side: one connection to a cluster (krafka), and what the mirror
//! asks of it. Every error names the broker and the operation, and says
//! whether trying again may help.

use std::collections::HashMap;
use std::path::PathBuf;
use std::time::Duration;

use krafka::admin::{
    AdminClient, AlterConsumerGroupOffsetsOptions, CreateTopicsOptions, DescribeClusterOptions, DescribeConsumerGroupsOptions,
    DescribeTopicsOptions, ListConsumerGroupOffsetsOptions, ListConsumerGroupsOptions, ListOffsetsOptions, NewTopic, OffsetSpec,
};
use krafka::auth::{AuthConfig, TlsConfig};
use krafka::consumer::{Consumer, TopicPartition};
use krafka::error::ErrorCode;
use krafka::{ConsumerRecord, Kafka, KrafkaError};

use crate::error::{Error, Result};

/// A SASL mechanism.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SaslMechanism {
    /// `PLAIN`.
    Plain,
    /// `SCRAM-SHA-256`.
    ScramSha256,
    /// `SCRAM-SHA-512`.
    ScramSha512,
}

impl SaslMechanism {
    /// Parse `PLAIN`, `SCRAM-SHA-256` or `SCRAM-SHA-512` (any case).
    pub fn parse(text: &str) -> Option<SaslMechanism> {
        match text.to_ascii_uppercase().as_str() {
            "PLAIN" => Some(SaslMechanism::Plain),
            "SCRAM-SHA-256" => Some(SaslMechanism::ScramSha256),
            "SCRAM-SHA-512" => Some(SaslMechanism::ScramSha512),
            _ => None,
        }
    }
}

/// Where a secret is read from: never the command line.
#[derive(Clone, PartialEq, Eq)]
pub enum Secret {
    /// The first line of a file.
    File(PathBuf),
    /// An environment variable.
    Env(String),
    /// The secret itself, held in memory only (the app's, read from the OS keychain).
    /// Its `Debug` shows no character of it.
    Text(String),
}

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Secret::File(p) => f.debug_tuple("File").field(p).finish(),
            Secret::Env(v) => f.debug_tuple("Env").field(v).finish(),
            Secret::Text(_) => f.write_str("Text(<hidden>)"),
        }
    }
}

impl Secret {
    fn read(&self) -> Result<String> {
        match self {
            Secret::File(path) => std::fs::read_to_string(path)
                .map(|s| s.lines().next().unwrap_or("").to_string())
                .map_err(|e| Error::Config { what: format!("the secret file {}", path.display()), problem: e.to_string() }),
            Secret::Env(name) => std::env::var(name).map_err(|_| Error::Config {
                what: format!("the environment variable {name}"),
                problem: "it is not set (or not UTF-8): it should hold the secret".into(),
            }),
            Secret::Text(s) => Ok(s.clone()),
        }
    }
}

/// SASL settings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sasl {
    /// The mechanism.
    pub mechanism: SaslMechanism,
    /// The user name.
    pub username: String,
    /// Where the password is.
    pub password: Secret,
}

/// TLS settings.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Tls {
    /// A PEM file of the CA certificates to trust (else the built-in web roots).
    pub ca: Option<PathBuf>,
    /// A client certificate (PEM) and its key (PEM), for mutual TLS.
    pub client: Option<(PathBuf, PathBuf)>,
}

/// A cluster's address and how to talk to it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Endpoint {
    /// `HOST:PORT[,HOST:PORT...]`.
    pub bootstrap: String,
    /// TLS, when set.
    pub tls: Option<Tls>,
    /// SASL, when set.
    pub sasl: Option<Sasl>,
    /// How long a request may take before it counts as failed (a one-shot
    /// mirror's errors come within a few of these).
    pub request_timeout: Duration,
}

impl Endpoint {
    /// Parse `kafka://HOST:PORT[,HOST:PORT...]`.
    ///
    /// # Errors
    /// [`Error::Config`] saying what form is expected.
    pub fn parse(url: &str) -> Result<Endpoint> {
        let bad = |problem: &str| Error::Config { what: format!("the address {url:?}"), problem: problem.into() };
        let rest =
            url.strip_prefix("kafka://").ok_or_else(|| bad("use kafka://HOST:PORT (several brokers: kafka://HOST:PORT,HOST:PORT)"))?;
        let rest = rest.trim_end_matches('/');
        if rest.is_empty() {
            return Err(bad("no broker: use kafka://HOST:PORT"));
        }
        for hp in rest.split(',') {
            let (host, port) = hp.rsplit_once(':').ok_or_else(|| bad("each broker needs a port: HOST:PORT"))?;
            if host.is_empty() || port.parse::<u16>().map_or(true, |p| p == 0) {
                return Err(bad("each broker is HOST:PORT, the port a number from 1 to 65535"));
            }
        }
        Ok(Endpoint { bootstrap: rest.to_string(), tls: None, sasl: None, request_timeout: Duration::from_secs(10) })
    }

    pub(crate) fn auth(&self) -> Result<AuthConfig> {
        let tls = self.tls.as_ref().map(|t| {
            let mut c = TlsConfig::new();
            if let Some(ca) = &t.ca {
                c = c.with_ca_cert(ca.to_string_lossy().into_owned());
            }
            if let Some((cert, key)) = &t.client {
                c = c.with_client_cert(cert.to_string_lossy().into_owned(), key.to_string_lossy().into_owned());
            }
            c
        });
        let mut auth = match &self.sasl {
            None => AuthConfig::plaintext(),
            Some(s) => {
                let password = s.password.read()?;
                match s.mechanism {
                    SaslMechanism::Plain => AuthConfig::sasl_plain(&s.username, password),
                    SaslMechanism::ScramSha256 => AuthConfig::sasl_scram_sha256(&s.username, password),
                    SaslMechanism::ScramSha512 => AuthConfig::sasl_scram_sha512(&s.username, password),
                }
            }
        };
        if let Some(t) = tls {
            auth = auth.with_tls(t);
        }
        Ok(auth)
    }
}

/// A connected cluster.
pub(crate) struct Cluster {
    pub(crate) kafka: Kafka,
    pub(crate) admin: AdminClient,
    /// The bootstrap address, for messages.
    pub(crate) broker: String,
    /// `kafka-<cluster id>`: what origins name it by.
    pub(crate) id: String,
    pub(crate) timeout: Duration,
}

/// What a broker's error code means for the user.
fn hint_for(e: &KrafkaError) -> Option<&'static str> {
    match e {
        KrafkaError::Auth { .. } => Some("check the SASL user, password and mechanism, and the TLS settings"),
        KrafkaError::Broker { code, .. } => match code {
            ErrorCode::SaslAuthenticationFailed | ErrorCode::IllegalSaslState | ErrorCode::UnsupportedSaslMechanism => {
                Some("check the SASL user, password and mechanism")
            }
            ErrorCode::TopicAuthorizationFailed | ErrorCode::GroupAuthorizationFailed | ErrorCode::ClusterAuthorizationFailed => {
                Some("the user is not allowed this: ask for the ACL")
            }
            ErrorCode::MessageTooLarge | ErrorCode::RecordListTooLarge => Some("raise the topic's max.message.bytes"),
            ErrorCode::UnknownTopicOrPartition => Some("the topic is missing on the cluster"),
            _ => None,
        },
        KrafkaError::Network(_) | KrafkaError::Timeout { .. } => {
            Some("is the broker running and reachable at that address? A broker that closes the connection may want TLS (--tls) or SASL (--sasl-mechanism)")
        }
        _ => None,
    }
}

impl Cluster {
    pub(crate) fn error(&self, op: impl Into<String>, e: &KrafkaError) -> Error {
        kafka_error(&self.broker, op, e)
    }

    /// Connect, and learn the cluster's id.
    pub(crate) async fn connect(ep: &Endpoint) -> Result<Cluster> {
        let auth = ep.auth()?;
        let connect = Kafka::builder(ep.bootstrap.clone())
            .client_id("twainmq-mirror")
            .security(auth)
            .request_timeout(ep.request_timeout)
            .connect_timeout(ep.request_timeout.min(Duration::from_secs(5)))
            .allow_auto_create_topics(false)
            .connect();
        let kafka = match tokio::time::timeout(ep.request_timeout * 2, connect).await {
            Ok(Ok(k)) => k,
            Ok(Err(e)) => return Err(kafka_error(&ep.bootstrap, "connect", &e)),
            Err(_) => {
                return Err(Error::Kafka {
                    broker: ep.bootstrap.clone(),
                    op: "connect".into(),
                    cause: format!("no answer within {:?}", ep.request_timeout * 2),
                    retriable: true,
                    hint: Some("is the broker running and reachable at that address?"),
                })
            }
        };
        let admin = kafka.admin();
        let mut c = Cluster { kafka, admin, broker: ep.bootstrap.clone(), id: String::new(), timeout: ep.request_timeout };
        let desc = c
            .admin
            .describe_cluster(DescribeClusterOptions::default().timeout(c.timeout))
            .await
            .map_err(|e| c.error("describe the cluster", &e))?;
        c.id = format!("kafka-{}", desc.cluster_id);
        Ok(c)
    }

    /// A topic's partition count, `None` when it does not exist.
    pub(crate) async fn partitions(&self, topic: &str) -> Result<Option<u32>> {
        let mut r = self
            .admin
            .describe_topics([topic], DescribeTopicsOptions::default().timeout(self.timeout))
            .await
            .map_err(|e| self.error(format!("describe topic {topic}"), &e))?;
        match r.remove(topic) {
            Some(Ok(d)) => Ok(Some(u32::try_from(d.partitions.len()).unwrap_or(u32::MAX))),
            Some(Err(KrafkaError::Broker { code: ErrorCode::UnknownTopicOrPartition, .. })) | None => Ok(None),
            Some(Err(e)) => Err(self.error(format!("describe topic {topic}"), &e)),
        }
    }

    /// Create a topic of `partitions` partitions (the broker's replication factor).
    pub(crate) async fn create_topic(&self, topic: &str, partitions: u32, configs: &[(&str, &str)]) -> Result<()> {
        let op = format!("create topic {topic} with {partitions} partitions");
        let n = i32::try_from(partitions).map_err(|_| Error::Config { what: op.clone(), problem: "too many partitions".into() })?;
        let mut t = NewTopic::new(topic, n, -1).map_err(|e| self.error(op.clone(), &e))?;
        for (k, v) in configs {
            t = t.with_config(*k, *v);
        }
        let mut r = self
            .admin
            .create_topics([t], CreateTopicsOptions::default().timeout(self.timeout))
            .await
            .map_err(|e| self.error(op.clone(), &e))?;
        match r.remove(topic) {
            Some(Ok(())) | None => Ok(()),
            Some(Err(KrafkaError::Broker { code: ErrorCode::TopicAlreadyExists, .. })) => Ok(()),
            Some(Err(e)) => Err(self.error(op, &e)),
        }
    }

    /// The first and end offsets of a partition.
    pub(crate) async fn watermarks(&self, topic: &str, partitions: u32) -> Result<Vec<(i64, i64)>> {
        let mut out = Vec::with_capacity(partitions as usize);
        let op = format!("list offsets of {topic}");
        let tps: Vec<TopicPartition> = (0..partitions).map(|p| TopicPartition::new(topic, p as i32)).collect();
        let mut low = self
            .admin
            .list_offsets(tps.iter().map(|tp| (tp.clone(), OffsetSpec::Earliest)), ListOffsetsOptions::default().timeout(self.timeout))
            .await
            .map_err(|e| self.error(op.clone(), &e))?;
        let mut high = self
            .admin
            .list_offsets(tps.iter().map(|tp| (tp.clone(), OffsetSpec::Latest)), ListOffsetsOptions::default().timeout(self.timeout))
            .await
            .map_err(|e| self.error(op.clone(), &e))?;
        for tp in &tps {
            let get = |m: &mut HashMap<TopicPartition, krafka::Result<krafka::admin::ListedOffset>>| -> Result<i64> {
                match m.remove(tp) {
                    Some(Ok(o)) => Ok(o.offset),
                    Some(Err(e)) => Err(self.error(format!("list offsets of {topic}/{}", tp.partition), &e)),
                    None => Err(Error::Kafka {
                        broker: self.broker.clone(),
                        op: format!("list offsets of {topic}/{}", tp.partition),
                        cause: "no answer for the partition".into(),
                        retriable: true,
                        hint: None,
                    }),
                }
            };
            out.push((get(&mut low)?, get(&mut high)?));
        }
        Ok(out)
    }

    /// A consumer of no group, for reading partitions from given offsets.
    pub(crate) async fn reader(&self) -> Result<Consumer> {
        self.kafka
            .consumer_without_group()
            // An offset no longer on the cluster (retention) starts at the first one still there.
            .auto_offset_reset(krafka::consumer::AutoOffsetReset::Earliest)
            .fetch_max_wait(Duration::from_millis(100))
            .max_partition_fetch_bytes(4 << 20)
            .fetch_max_bytes(16 << 20)
            .build()
            .await
            .map_err(|e| self.error("make a consumer", &e))
    }

    /// A consumer of no group for reading whole topics (the app's search): large
    /// polls and a deep buffer, so that fetches of every partition run ahead of
    /// the matching instead of waiting for each 500 records to be handed out.
    pub(crate) async fn scanner(&self) -> Result<Consumer> {
        self.kafka
            .consumer_without_group()
            .auto_offset_reset(krafka::consumer::AutoOffsetReset::Earliest)
            .fetch_max_wait(Duration::from_millis(100))
            .max_partition_fetch_bytes(8 << 20)
            .fetch_max_bytes(64 << 20)
            .max_poll_records(20_000)
            .max_buffered_records(200_000)
            .build()
            .await
            .map_err(|e| self.error("make a consumer", &e))
    }

    /// Read partition `p` of `topic` over `[from, to)`: every record, in order.
    /// Used for the tail scans and the group translation (short ranges).
    pub(crate) async fn read_range(&self, consumer: &Consumer, topic: &str, p: u32, from: i64, to: i64) -> Result<Vec<ConsumerRecord>> {
        let mut out = Vec::new();
        if from >= to {
            return Ok(out);
        }
        let pid = p as i32;
        let op = || format!("read {topic}/{p} from offset {from}");
        consumer.assign(topic, vec![pid]).await.map_err(|e| self.error(op(), &e))?;
        consumer.seek(topic, pid, from).await.map_err(|e| self.error(op(), &e))?;
        let deadline = tokio::time::Instant::now() + self.timeout * 3;
        loop {
            let batch = consumer.poll(Duration::from_millis(200)).await.map_err(|e| self.error(op(), &e))?;
            for r in batch {
                if r.partition == pid && r.offset >= from && r.offset < to {
                    out.push(r);
                }
            }
            let pos = consumer.position(topic, pid).await.unwrap_or(from);
            if pos >= to {
                return Ok(out);
            }
            if tokio::time::Instant::now() > deadline {
                return Err(Error::Kafka {
                    broker: self.broker.clone(),
                    op: op(),
                    cause: format!("offsets up to {to} did not arrive within {:?} (at {pos})", self.timeout * 3),
                    retriable: true,
                    hint: None,
                });
            }
        }
    }

    /// Consumer groups on the cluster.
    pub(crate) async fn groups(&self) -> Result<Vec<String>> {
        let r = self
            .admin
            .list_consumer_groups(ListConsumerGroupsOptions::default().timeout(self.timeout))
            .await
            .map_err(|e| self.error("list consumer groups", &e))?;
        let mut names = Vec::new();
        for (_, listing) in r {
            match listing {
                Ok(gs) => names.extend(gs.into_iter().map(|g| g.group_id)),
                Err(e) => return Err(self.error("list consumer groups", &e)),
            }
        }
        names.sort();
        names.dedup();
        Ok(names)
    }

    /// How many members a group has now (0 for a group with none or none known).
    pub(crate) async fn group_members(&self, group: &str) -> Result<Vec<String>> {
        let op = format!("describe consumer group {group}");
        let mut r = self
            .admin
            .describe_consumer_groups([group], DescribeConsumerGroupsOptions::default().timeout(self.timeout))
            .await
            .map_err(|e| self.error(op.clone(), &e))?;
        match r.remove(group) {
            Some(Ok(d)) => Ok(d.members.iter().map(|m| format!("{} ({}, {})", m.member_id, m.client_id, m.client_host)).collect()),
            Some(Err(KrafkaError::Broker { code: ErrorCode::GroupIdNotFound, .. })) | None => Ok(Vec::new()),
            Some(Err(e)) => Err(self.error(op, &e)),
        }
    }

    /// A group's committed offsets for one topic: partition -> next offset.
    pub(crate) async fn group_offsets(&self, group: &str, topic: &str) -> Result<HashMap<u32, i64>> {
        let op = format!("list the offsets of consumer group {group}");
        let r = self
            .admin
            .list_consumer_group_offsets(group, ListConsumerGroupOffsetsOptions::default().timeout(self.timeout))
            .await
            .map_err(|e| self.error(op.clone(), &e))?;
        let mut out = HashMap::new();
        for (tp, o) in r {
            if tp.topic != topic {
                continue;
            }
            match o {
                Ok(g) => {
                    if let (Some(off), Ok(p)) = (g.offset, u32::try_from(tp.partition)) {
                        if off >= 0 {
                            out.insert(p, off);
                        }
                    }
                }
                Err(e) => return Err(self.error(op, &e)),
            }
        }
        Ok(out)
    }

    /// Set a group's committed offsets (the group must have no members).
    pub(crate) async fn commit_group(&self, group: &str, topic: &str, offsets: &[(u32, i64)]) -> Result<()> {
        let op = format!("commit offsets of consumer group {group}");
        let r = self
            .admin
            .alter_consumer_group_offsets(
                group,
                offsets.iter().map(|(p, o)| (TopicPartition::new(topic, *p as i32), *o)),
                AlterConsumerGroupOffsetsOptions::default().timeout(self.timeout),
            )
            .await
            .map_err(|e| self.error(op.clone(), &e))?;
        for (_, res) in r {
            res.map_err(|e| self.error(op.clone(), &e))?;
        }
        Ok(())
    }
}

/// A client error as ours, naming the broker and the operation.
pub(crate) fn kafka_error(broker: &str, op: impl Into<String>, e: &KrafkaError) -> Error {
    let retriable = match e {
        KrafkaError::Auth { .. } => false,
        KrafkaError::Broker { code, .. } => {
            !matches!(
                code,
                ErrorCode::SaslAuthenticationFailed
                    | ErrorCode::TopicAuthorizationFailed
                    | ErrorCode::GroupAuthorizationFailed
                    | ErrorCode::ClusterAuthorizationFailed
                    | ErrorCode::MessageTooLarge
                    | ErrorCode::RecordListTooLarge
                    | ErrorCode::UnknownTopicOrPartition
            ) && e.is_retriable()
        }
        KrafkaError::Network(_) | KrafkaError::Timeout { .. } | KrafkaError::DeliveryTimeout { .. } => true,
        other => other.is_retriable(),
    };
    Error::Kafka { broker: broker.to_string(), op: op.into(), cause: e.to_string(), retriable, hint: hint_for(e) }
}
