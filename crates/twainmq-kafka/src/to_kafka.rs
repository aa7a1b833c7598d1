//! Store -> Kafka: one topic's partitions, each to the same partition of the
//! target. Where to resume is read from the target: the last record there
//! whose origin is this store's topic and partition.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use krafka::consumer::Consumer as KConsumer;
use krafka::producer::{Acks, DeliveryHandle};
use krafka::Record;
use twainmq::{Message, StartFrom, Store};

use crate::cluster::Cluster;
use crate::error::{Error, Result};
use crate::journal::{self, SourceState};
use crate::lease::Lease;
use crate::mapping::{self, fingerprint, FingerprintPayload, Origin};
use crate::report::{Progress, TopicReport};
use crate::{MirrorSpec, CONFIG_TOPIC};

/// The most records sent and not yet acknowledged.
const IN_FLIGHT: usize = 20_000;

/// Awaits the delivery of each record sent, in order, on a task of its own; the
/// first failure ends it, and is what the mirror stops with.
struct Acker {
    tx: Option<tokio::sync::mpsc::Sender<DeliveryHandle>>,
    task: Option<tokio::task::JoinHandle<Result<()>>>,
}

impl Acker {
    fn start(broker: String, target: String) -> Acker {
        let (tx, mut rx) = tokio::sync::mpsc::channel::<DeliveryHandle>(IN_FLIGHT);
        let task = tokio::spawn(async move {
            while let Some(h) = rx.recv().await {
                let p = h.partition();
                let _ = h.await.map_err(|e| crate::cluster::kafka_error(&broker, format!("produce to {target}/{p}"), &e))?;
            }
            Ok(())
        });
        Acker { tx: Some(tx), task: Some(task) }
    }

    /// Hand over a record's delivery (waits while [`IN_FLIGHT`] are unacknowledged).
    async fn send(&mut self, h: DeliveryHandle) -> Result<()> {
        let sent = match &self.tx {
            Some(tx) => tx.send(h).await.is_ok(),
            None => false,
        };
        if sent {
            Ok(())
        } else {
            // The task ended: a delivery failed.
            self.finish().await
        }
    }

    /// The failure of a delivery, as soon as there is one.
    async fn check(&mut self) -> Result<()> {
        if self.task.as_ref().is_some_and(tokio::task::JoinHandle::is_finished) {
            return self.finish().await;
        }
        Ok(())
    }

    /// Wait for every delivery handed over.
    async fn finish(&mut self) -> Result<()> {
        self.tx = None;
        match self.task.take() {
            Some(t) => t.await.map_err(|e| Error::Config { what: "the mirror's delivery task".into(), problem: e.to_string() })?,
            None => Ok(()),
        }
    }
}

/// Where the source partition `p` of `topic` in store `store_id` resumes: just
/// after the last record in the target partition that came from it, found by
/// reading the target's tail backwards in growing windows.
pub(crate) async fn resume_point(
    cluster: &Cluster,
    reader: &KConsumer,
    target: &str,
    p: u32,
    (low, high): (i64, i64),
    store_id: &str,
    topic: &str,
) -> Result<Option<u64>> {
    let mut window = 256i64;
    let mut to = high;
    while to > low {
        let from = (to - window).max(low);
        let recs = cluster.read_range(reader, target, p, from, to).await?;
        for r in recs.iter().rev() {
            let Some(o) = r.header(mapping::ORIGIN).and_then(|v| v.and_then(|b| Origin::decode(b))) else { continue };
            if o.source == store_id && o.topic == topic && o.partition == p {
                return Ok(Some(o.offset + 1));
            }
        }
        to = from;
        window = window.saturating_mul(4);
    }
    Ok(None)
}

/// Which store lines came from the target cluster (mirrored in by a mirror
/// the other way, as its journal says): those never go back.
struct FromTarget {
    cluster: String,
    states: BTreeMap<u32, Vec<SourceState>>,
    pending: BTreeMap<u32, std::collections::HashSet<String>>,
    len: u64,
    path: std::path::PathBuf,
}

impl FromTarget {
    fn load(store: &Store, topic: &str, cluster: &str) -> Result<FromTarget> {
        let mut f = FromTarget {
            cluster: cluster.to_string(),
            states: BTreeMap::new(),
            pending: BTreeMap::new(),
            len: u64::MAX,
            path: store.root().join(journal::DIR).join(format!("{topic}.journal")),
        };
        f.refresh(store, topic)?;
        Ok(f)
    }

    /// Read the journal again when it has grown.
    fn refresh(&mut self, store: &Store, topic: &str) -> Result<()> {
        let len = std::fs::metadata(&self.path).map(|m| m.len()).unwrap_or(0);
        if len == self.len {
            return Ok(());
        }
        let j = journal::read(store, topic)?;
        self.states.clear();
        self.pending.clear();
        for ((from, _, p), s) in j.sources {
            if from != self.cluster {
                continue;
            }
            self.pending.entry(p).or_default().extend(s.pending_fingerprints().map(str::to_string));
            self.states.entry(p).or_default().push(s);
        }
        self.len = len;
        Ok(())
    }

    fn holds(&self, m: &Message) -> bool {
        if self.states.get(&m.partition).is_some_and(|v| v.iter().any(|s| s.holds_target(m.offset))) {
            return true;
        }
        match self.pending.get(&m.partition) {
            Some(set) if !set.is_empty() => {
                let f = format!("{:016x}", fingerprint(&m.key, m.timestamp, FingerprintPayload::stored(&m.payload)));
                set.contains(&f)
            }
            _ => false,
        }
    }
}

/// Publish the topic's config to [`CONFIG_TOPIC`] (keyed by the target's
/// name), so a mirror back into a new store makes the topic as it was.
async fn publish_config(
    cluster: &Cluster,
    producer: &krafka::producer::Producer,
    target: &str,
    config: &twainmq::TopicConfig,
    origin: &str,
) -> Result<()> {
    if cluster.partitions(CONFIG_TOPIC).await?.is_none() {
        cluster.create_topic(CONFIG_TOPIC, 1, &[("cleanup.policy", "compact")]).await?;
    }
    let rec = Record::new(CONFIG_TOPIC, config.to_bytes())
        .key(target.as_bytes().to_vec())
        .partition(0)
        .header(mapping::ORIGIN, origin.as_bytes().to_vec());
    let _ = producer.send(rec).await.map_err(|e| cluster.error(format!("write the topic config of {target} to {CONFIG_TOPIC}"), &e))?;
    Ok(())
}

/// What a record adds to its value at most: the largest free key, our headers
/// and the record batch's own bytes, with room to spare.
const RECORD_OVERHEAD_BYTES: u64 = twainmq::limits::MAX_FREE_KEY_BYTES as u64 + 64 * 1024;

pub(crate) async fn run(
    store: &Store,
    source: &str,
    target: &str,
    spec: &MirrorSpec,
    stop: &AtomicBool,
    progress: &mut dyn FnMut(Progress),
) -> Result<TopicReport> {
    let config = store.topic_config(source).map_err(|e| match e {
        twainmq::Error::TopicNotFound { .. } => {
            Error::TopicMissing { place: format!("the store {}", store.root().display()), topic: source.to_string() }
        }
        e => e.into(),
    })?;
    let n = config.partitions;
    let cluster = Cluster::connect(&spec.endpoint).await?;
    let mut report = TopicReport { source: source.into(), target: target.into(), partitions: n, ..TopicReport::default() };
    match cluster.partitions(target).await? {
        None => {
            // A topic of large messages gets room for its largest record: Kafka's default
            // (max.message.bytes 1,048,588) holds a 1 MiB value but not its key and headers.
            let room = config.max_message_bytes.map(|max| (max + RECORD_OVERHEAD_BYTES).to_string());
            let configs: Vec<(&str, &str)> = room.iter().map(|r| ("max.message.bytes", r.as_str())).collect();
            cluster.create_topic(target, n, &configs).await?;
            report.created = true;
        }
        Some(m) if m != n => {
            return Err(Error::PartitionMismatch {
                source_name: format!("store topic {source}"),
                source_partitions: n,
                target_name: format!("Kafka topic {target} at {}", cluster.broker),
                target_partitions: m,
            })
        }
        Some(_) => {}
    }
    let store_id = journal::store_id(store)?;
    // The lease's consumer on a connection of its own: a broker answers a connection's requests
    // in order, so its group requests must not queue the records behind them.
    let lease_cluster = Cluster::connect(&spec.endpoint).await?;
    let lease = Lease::acquire(&lease_cluster, target, spec.lease_timeout, progress).await?;
    let result = mirror(store, &cluster, &store_id, source, target, &config, spec, stop, progress, &mut report).await;
    lease.release().await;
    result.map(|()| report)
}

#[allow(clippy::too_many_arguments)]
async fn mirror(
    store: &Store,
    cluster: &Cluster,
    store_id: &str,
    source: &str,
    target: &str,
    config: &twainmq::TopicConfig,
    spec: &MirrorSpec,
    stop: &AtomicBool,
    progress: &mut dyn FnMut(Progress),
    report: &mut TopicReport,
) -> Result<()> {
    let n = config.partitions;
    let producer = cluster
        .kafka
        .producer()
        .idempotent(true)
        .acks(Acks::All)
        .linger(Duration::from_millis(2))
        .delivery_timeout(spec.endpoint.request_timeout * 3)
        .build()
        .await
        .map_err(|e| cluster.error("make a producer", &e))?;
    publish_config(cluster, &producer, target, config, store_id).await?;
    let reader = cluster.reader().await?;
    let marks = cluster.watermarks(target, n).await?;
    let mut starts = Vec::with_capacity(n as usize);
    for p in 0..n {
        starts.push(resume_point(cluster, &reader, target, p, marks[p as usize], store_id, source).await?.unwrap_or(0));
    }
    let _ = reader.close().await;
    report.resumed_from = starts.clone();
    progress(Progress::Started { topic: source.into(), from: starts.clone(), created: report.created });
    let mut from_target = FromTarget::load(store, source, &cluster.id)?;
    let mut consumer = store.consumer(source, StartFrom::Start)?;
    for (p, s) in starts.iter().enumerate() {
        consumer.seek(p as u32, StartFrom::Offset(*s))?;
    }
    // A one-shot mirror takes what the partitions held when it started.
    let ends = if spec.follow { None } else { Some(store.end_offsets(source)?) };
    let mut done: Vec<bool> = match &ends {
        Some(e) => e.iter().zip(&starts).map(|(e, s)| s >= e).collect(),
        None => vec![false; n as usize],
    };
    // Acknowledgements are awaited in order by a task of their own, so that reading the store
    // never waits for the broker: a --follow mirror sends each message as it is written.
    let mut acker = Acker::start(cluster.broker.clone(), target.to_string());
    let mut last_report = Instant::now();
    let mut last_groups = Instant::now();
    let op = |p: u32| format!("produce to {target}/{p}");
    loop {
        if stop.load(Ordering::SeqCst) {
            break;
        }
        if ends.is_some() && done.iter().all(|d| *d) {
            break;
        }
        acker.check().await?;
        let batch = if spec.follow {
            match consumer.poll_timeout(Duration::from_millis(100))? {
                Some(m) => {
                    let mut v = vec![m];
                    v.extend(consumer.poll_many(999)?);
                    v
                }
                None => Vec::new(),
            }
        } else {
            consumer.poll_many(1000)?
        };
        if batch.is_empty() {
            if ends.is_some() {
                // Nothing more to read: every partition is at its end (or short of it
                // after a purge, and nothing more will come).
                break;
            }
            from_target.refresh(store, source)?;
            if spec.groups && last_groups.elapsed() > Duration::from_secs(5) {
                report.groups = crate::groups::store_to_kafka(store, cluster, store_id, source, target, n).await?;
                last_groups = Instant::now();
            }
            continue;
        }
        from_target.refresh(store, source)?;
        for m in batch {
            let p = m.partition;
            if let Some(e) = &ends {
                if m.offset >= e[p as usize] {
                    done[p as usize] = true;
                    continue;
                }
                if m.offset + 1 >= e[p as usize] {
                    done[p as usize] = true;
                }
            }
            if from_target.holds(&m) {
                report.skipped_from_target += 1;
                continue;
            }
            let origin = Origin { source: store_id.to_string(), topic: source.to_string(), partition: p, offset: m.offset };
            let rec = match mapping::to_record(&m, config.key_type, &origin) {
                Ok(rec) => rec,
                Err(u) => {
                    // What was sent before it is acknowledged first: the mirror stops at this message.
                    acker.finish().await?;
                    return Err(Error::Unfit {
                        place: format!("the store {}", store.root().display()),
                        topic: source.into(),
                        partition: p,
                        offset: m.offset,
                        reason: u.to_string(),
                    });
                }
            };
            report.bytes += (rec.key.as_ref().map_or(0, Vec::len) + rec.value.len()) as u64;
            let mut r = Record::new(target, rec.value).partition(p as i32).timestamp(rec.timestamp_ms);
            if let Some(key) = rec.key {
                r = r.key(key);
            }
            for (k, v) in rec.headers {
                r = r.header(k, v);
            }
            let h = producer.enqueue(r).await.map_err(|e| cluster.error(op(p), &e))?;
            acker.send(h).await?;
            report.mirrored += 1;
        }
        if last_report.elapsed() > Duration::from_millis(500) {
            let left = ends.as_ref().map(|e| consumer.positions().iter().map(|(p, pos)| e[*p as usize].saturating_sub(*pos)).sum());
            progress(Progress::Mirrored { topic: source.into(), mirrored: report.mirrored, left });
            last_report = Instant::now();
        }
    }
    acker.finish().await?;
    producer.flush().await.map_err(|e| cluster.error(format!("flush to {target}"), &e))?;
    let _ = producer.close().await;
    progress(Progress::Mirrored { topic: source.into(), mirrored: report.mirrored, left: Some(0) });
    if spec.groups {
        report.groups = crate::groups::store_to_kafka(store, cluster, store_id, source, target, n).await?;
    }
    Ok(())
}
