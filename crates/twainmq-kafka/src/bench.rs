//! `make kafka-bench`: the mirror's throughput each way beside the same client
//! (krafka) producing or consuming the same records directly. (The `--follow`
//! latency is measured from outside, as a user meets it, with independent
//! clients: tests/bench/kafka_follow_latency.py.)

use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use krafka::producer::Acks;
use krafka::Record;
use serde::Serialize;
use twainmq::{KeyType, StartFrom, Store, TopicSpec};

use crate::cluster::Cluster;
use crate::error::{Error, Result};
use crate::mapping::{self, Origin};
use crate::report::Direction;
use crate::{mirror, Endpoint, MirrorSpec};

/// What `make kafka-bench` prints.
#[derive(Debug, Clone, Serialize)]
pub struct BenchReport {
    /// Records per run.
    pub messages: u64,
    /// Partitions.
    pub partitions: u32,
    /// Payload bytes of each record.
    pub payload_bytes: usize,
    /// krafka producing the mirror's records (keys, values, headers) directly, records/s.
    pub produce_direct: f64,
    /// `mirror --to`, records/s (reading the store included).
    pub mirror_to_kafka: f64,
    /// krafka reading the records directly, records/s.
    pub consume_direct: f64,
    /// `mirror --from` into a new store topic, records/s (writing the store and its journal included).
    pub mirror_from_kafka: f64,
}

fn rt() -> Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .map_err(|e| Error::Config { what: "the bench's runtime".into(), problem: e.to_string() })
}

fn quiet(_: crate::Progress) {}

/// Run the bench in `store` (a scratch store) against `endpoint`, with topics
/// named from `prefix`.
///
/// # Errors
/// Store and cluster errors.
pub fn run(store: &Store, endpoint: &Endpoint, prefix: &str, messages: u64, partitions: u32, payload_bytes: usize) -> Result<BenchReport> {
    let src = format!("{prefix}-src");
    store.create_topic(&src, &TopicSpec::new(KeyType::U64, partitions))?;
    let mut producer = store.producer(&src)?;
    let body = "x".repeat(payload_bytes);
    let mut batch = Vec::with_capacity(10_000);
    for i in 0..messages {
        batch.push((twainmq::Key::Int(i), twainmq::Outgoing::Text(body.clone())));
        if batch.len() == 10_000 {
            producer.send_batch(&batch)?;
            batch.clear();
        }
    }
    producer.send_batch(&batch)?;
    producer.close()?;
    let rt = rt()?;
    // The records the mirror sends, made up front: the direct producer's ceiling.
    let store_id = crate::journal::store_id(store)?;
    let mut recs = Vec::with_capacity(messages as usize);
    let mut c = store.consumer(&src, StartFrom::Start)?;
    while let Some(m) = c.poll()? {
        let o = Origin { source: store_id.clone(), topic: src.clone(), partition: m.partition, offset: m.offset };
        let r = mapping::to_record(&m, KeyType::U64, &o).map_err(|u| Error::Config { what: "bench".into(), problem: u.to_string() })?;
        recs.push((m.partition, r));
    }
    let direct_topic = format!("{prefix}-direct");
    let produce_direct = rt.block_on(async {
        let cluster = Cluster::connect(endpoint).await?;
        cluster.create_topic(&direct_topic, partitions, &[]).await?;
        let p = cluster
            .kafka
            .producer()
            .idempotent(true)
            .acks(Acks::All)
            .linger(Duration::from_millis(2))
            .batch_size(512 << 10)
            .build()
            .await
            .map_err(|e| cluster.error("make a producer", &e))?;
        let t0 = Instant::now();
        let mut inflight = std::collections::VecDeque::new();
        for (part, r) in recs {
            let mut rec = Record::new(direct_topic.as_str(), r.value).partition(part as i32).timestamp(r.timestamp_ms);
            if let Some(key) = r.key {
                rec = rec.key(key);
            }
            for (k, v) in r.headers {
                rec = rec.header(k, v);
            }
            inflight.push_back(p.enqueue(rec).await.map_err(|e| cluster.error("produce", &e))?);
            while inflight.len() > 20_000 {
                if let Some(h) = inflight.pop_front() {
                    let _ = h.await.map_err(|e| cluster.error("produce", &e))?;
                }
            }
        }
        for h in inflight {
            let _ = h.await.map_err(|e| cluster.error("produce", &e))?;
        }
        let secs = t0.elapsed().as_secs_f64();
        let _ = p.close().await;
        Ok::<f64, Error>(messages as f64 / secs)
    })?;
    let stop = AtomicBool::new(false);
    let mirrored = format!("{prefix}-mirrored");
    let t0 = Instant::now();
    mirror(store, Direction::ToKafka, &MirrorSpec::new(endpoint.clone(), vec![(src.clone(), mirrored.clone())]), &stop, &mut quiet)?;
    let mirror_to_kafka = messages as f64 / t0.elapsed().as_secs_f64();
    let consume_direct = rt.block_on(async {
        let cluster = Cluster::connect(endpoint).await?;
        let marks = cluster.watermarks(&mirrored, partitions).await?;
        let reader = cluster.reader().await?;
        reader.assign(&mirrored, (0..partitions as i32).collect()).await.map_err(|e| cluster.error("assign", &e))?;
        for p in 0..partitions as i32 {
            reader.seek(&mirrored, p, 0).await.map_err(|e| cluster.error("seek", &e))?;
        }
        let t0 = Instant::now();
        let mut n = 0u64;
        let total: i64 = marks.iter().map(|m| m.1).sum();
        while (n as i64) < total {
            n += reader.poll(Duration::from_millis(200)).await.map_err(|e| cluster.error("read", &e))?.len() as u64;
            if t0.elapsed() > Duration::from_secs(600) {
                break;
            }
        }
        Ok::<f64, Error>(n as f64 / t0.elapsed().as_secs_f64())
    })?;
    let back = format!("{prefix}-back");
    let t0 = Instant::now();
    mirror(store, Direction::FromKafka, &MirrorSpec::new(endpoint.clone(), vec![(mirrored.clone(), back)]), &stop, &mut quiet)?;
    let mirror_from_kafka = messages as f64 / t0.elapsed().as_secs_f64();
    Ok(BenchReport { messages, partitions, payload_bytes, produce_direct, mirror_to_kafka, consume_direct, mirror_from_kafka })
}
