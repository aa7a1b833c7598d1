//! `make kafka-bench`: the mirror's throughput each way beside the same client
//! (krafka) producing or consuming the same records directly, and the
//! `--follow` latency from a write in the store to the record readable in Kafka.

use std::sync::atomic::{AtomicBool, Ordering};
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
    /// `--follow`: write in the store to readable in Kafka, microseconds: p50, p99, max.
    pub follow_latency_us: (u64, u64, u64),
    /// The same, krafka producing each record directly (one at a time, awaiting
    /// nothing) and the same reader: the broker's own produce-to-readable time.
    pub direct_latency_us: (u64, u64, u64),
    /// Messages the latency was measured over, and the rate they were written at.
    pub follow_messages: u64,
    /// Their rate, messages/s.
    pub follow_rate: u64,
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
    let (follow_latency_us, follow_messages, follow_rate) = follow_latency(store, endpoint, prefix, &rt)?;
    let direct_latency_us = direct_latency(endpoint, prefix, &rt)?;
    Ok(BenchReport {
        messages,
        partitions,
        payload_bytes,
        produce_direct,
        mirror_to_kafka,
        consume_direct,
        mirror_from_kafka,
        follow_latency_us,
        direct_latency_us,
        follow_messages,
        follow_rate,
    })
}

/// A `--follow` mirror in a thread; messages written one at a time at 500 a
/// second, each carrying its write time; a reader of the target notes when
/// each becomes readable.
fn follow_latency(store: &Store, endpoint: &Endpoint, prefix: &str, rt: &tokio::runtime::Runtime) -> Result<((u64, u64, u64), u64, u64)> {
    const N: u64 = 2_000;
    const RATE: u64 = 500;
    let topic = format!("{prefix}-follow");
    store.create_topic(&topic, &TopicSpec::new(KeyType::U64, 1))?;
    let stop = AtomicBool::new(false);
    let epoch = Instant::now();
    let mut spec = MirrorSpec::new(endpoint.clone(), vec![(topic.clone(), topic.clone())]);
    spec.follow = true;
    std::thread::scope(|s| {
        let mirror_thread = s.spawn(|| mirror(store, Direction::ToKafka, &spec, &stop, &mut quiet));
        let result = rt.block_on(async {
            let cluster = Cluster::connect(endpoint).await?;
            // The mirror has made the topic when it exists on the cluster.
            while cluster.partitions(&topic).await?.is_none() {
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            // A reader that asks again every 5 ms: what is measured is when a record can be read,
            // not how long a fetch waits on a quiet partition before it answers empty.
            let reader = cluster
                .kafka
                .consumer_without_group()
                .fetch_max_wait(Duration::from_millis(5))
                .build()
                .await
                .map_err(|e| cluster.error("make a consumer", &e))?;
            reader.assign(&topic, vec![0]).await.map_err(|e| cluster.error("assign", &e))?;
            reader.seek(&topic, 0, 0).await.map_err(|e| cluster.error("seek", &e))?;
            // Let the mirror take its lease and start following before measuring.
            tokio::time::sleep(Duration::from_secs(2)).await;
            let mut producer = store.producer(&topic)?;
            let writer = tokio::task::spawn_blocking(move || -> Result<()> {
                for i in 0..N {
                    let due = Duration::from_micros(i * 1_000_000 / RATE);
                    let now = epoch.elapsed();
                    if due > now {
                        std::thread::sleep(due - now);
                    }
                    let sent = epoch.elapsed().as_micros().to_string();
                    producer.send_text(i, &sent)?;
                }
                Ok(())
            });
            let mut lat = Vec::with_capacity(N as usize);
            let deadline = Instant::now() + Duration::from_secs(120);
            while (lat.len() as u64) < N && Instant::now() < deadline {
                for r in reader.poll(Duration::from_millis(50)).await.map_err(|e| cluster.error("read", &e))? {
                    let now = epoch.elapsed().as_micros() as u64;
                    if let Some(sent) = r.value.as_deref().and_then(|v| std::str::from_utf8(v).ok()).and_then(|s| s.parse::<u64>().ok()) {
                        lat.push(now.saturating_sub(sent));
                    }
                }
            }
            writer.await.map_err(|e| Error::Config { what: "bench writer".into(), problem: e.to_string() })??;
            lat.sort_unstable();
            let at = |q: f64| lat.get(((lat.len() as f64 - 1.0) * q).round() as usize).copied().unwrap_or(0);
            Ok::<_, Error>(((at(0.5), at(0.99), lat.last().copied().unwrap_or(0)), lat.len() as u64, RATE))
        });
        stop.store(true, Ordering::SeqCst);
        let mirrored = mirror_thread.join();
        match mirrored {
            Ok(Err(e)) => return Err(e),
            Err(_) => return Err(Error::Config { what: "bench".into(), problem: "the mirror thread panicked".into() }),
            Ok(Ok(_)) => {}
        }
        result
    })
}

/// A reader that asks again every 5 ms, from the start of `topic`'s partition 0.
async fn fast_reader(cluster: &Cluster, topic: &str) -> Result<krafka::consumer::Consumer> {
    let reader = cluster
        .kafka
        .consumer_without_group()
        .fetch_max_wait(Duration::from_millis(5))
        .build()
        .await
        .map_err(|e| cluster.error("make a consumer", &e))?;
    reader.assign(topic, vec![0]).await.map_err(|e| cluster.error("assign", &e))?;
    reader.seek(topic, 0, 0).await.map_err(|e| cluster.error("seek", &e))?;
    Ok(reader)
}

fn percentiles(mut lat: Vec<u64>) -> (u64, u64, u64) {
    lat.sort_unstable();
    let at = |q: f64| lat.get(((lat.len() as f64 - 1.0) * q).round() as usize).copied().unwrap_or(0);
    (at(0.5), at(0.99), lat.last().copied().unwrap_or(0))
}

/// The floor for [`follow_latency`]: krafka producing the same kind of record
/// straight to the broker at the same rate, read by the same kind of reader.
fn direct_latency(endpoint: &Endpoint, prefix: &str, rt: &tokio::runtime::Runtime) -> Result<(u64, u64, u64)> {
    const N: u64 = 2_000;
    const RATE: u64 = 500;
    let topic = format!("{prefix}-direct-latency");
    rt.block_on(async {
        let cluster = Cluster::connect(endpoint).await?;
        cluster.create_topic(&topic, 1, &[]).await?;
        let reader = fast_reader(&cluster, &topic).await?;
        let producer = cluster
            .kafka
            .producer()
            .idempotent(true)
            .acks(Acks::All)
            .linger(Duration::from_millis(2))
            .build()
            .await
            .map_err(|e| cluster.error("make a producer", &e))?;
        let epoch = Instant::now();
        let t = topic.clone();
        let sender = tokio::spawn(async move {
            let mut handles = Vec::with_capacity(N as usize);
            for i in 0..N {
                let due = Duration::from_micros(i * 1_000_000 / RATE);
                let now = epoch.elapsed();
                if due > now {
                    tokio::time::sleep(due - now).await;
                }
                let sent = epoch.elapsed().as_micros().to_string();
                if let Ok(h) = producer.enqueue(Record::new(t.as_str(), sent.into_bytes()).key(i.to_be_bytes().to_vec()).partition(0)).await
                {
                    handles.push(h);
                }
            }
            for h in handles {
                let _ = h.await;
            }
            let _ = producer.close().await;
        });
        let mut lat = Vec::with_capacity(N as usize);
        let deadline = Instant::now() + Duration::from_secs(120);
        while (lat.len() as u64) < N && Instant::now() < deadline {
            for r in reader.poll(Duration::from_millis(50)).await.map_err(|e| cluster.error("read", &e))? {
                let now = epoch.elapsed().as_micros() as u64;
                if let Some(sent) = r.value.as_deref().and_then(|v| std::str::from_utf8(v).ok()).and_then(|s| s.parse::<u64>().ok()) {
                    lat.push(now.saturating_sub(sent));
                }
            }
        }
        let _ = sender.await;
        Ok(percentiles(lat))
    })
}
