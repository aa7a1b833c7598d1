//! `twainmq bench`: produce, batched produce, consume and write-to-read latency
//! in a temporary topic, beside the floor of raw O_APPEND writes of the same lines.

use std::fs::OpenOptions;
use std::io::Write;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use serde::Serialize;
use twainmq::{Key, KeyType, Outgoing, StartFrom, Store, TopicSpec};

#[derive(Debug, Serialize)]
pub struct BenchReport {
    pub messages: u64,
    pub payload_bytes: usize,
    pub partitions: u32,
    pub line_bytes: usize,
    pub produce_msgs_per_s: f64,
    pub produce_batched_msgs_per_s: f64,
    pub consume_msgs_per_s: f64,
    pub floor_append_msgs_per_s: f64,
    pub produce_vs_floor: f64,
    pub latency_rate_msgs_per_s: u64,
    pub latency_samples: usize,
    pub latency_p50_us: f64,
    pub latency_p99_us: f64,
    pub latency_p999_us: f64,
}

fn rate(n: u64, d: Duration) -> f64 {
    n as f64 / d.as_secs_f64().max(1e-9)
}

fn payload(i: u64, bytes: usize) -> String {
    let mut s = format!("message {i} ");
    while s.len() < bytes {
        s.push((b'a' + (s.len() % 26) as u8) as char);
    }
    s.truncate(bytes);
    s
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

pub fn run(store: &Store, messages: u64, payload_bytes: usize, partitions: u32, latency_rate: u64) -> Result<BenchReport> {
    let topic = format!("bench-{}-{}", std::process::id(), Instant::now().elapsed().as_nanos());
    store.create_topic(&topic, &TopicSpec::new(KeyType::U32, partitions))?;
    let guard = TopicGuard { store, topic: topic.clone() };

    // Produce, one message per call: each in the file when the call returns.
    let mut producer = store.producer(&topic)?;
    let texts: Vec<String> = (0..messages.min(10_000)).map(|i| payload(i, payload_bytes)).collect();
    let t = Instant::now();
    for i in 0..messages {
        producer.send_text(Key::Int(i % 100_000), &texts[(i % texts.len() as u64) as usize])?;
    }
    let produce = rate(messages, t.elapsed());

    // Batched produce: many lines per write, whole lines per write.
    let batch: Vec<(Key, Outgoing)> =
        (0..1000u64).map(|i| (Key::Int(i), Outgoing::Text(texts[(i % texts.len() as u64) as usize].clone()))).collect();
    let t = Instant::now();
    let mut sent = 0u64;
    while sent < messages {
        sent += producer.send_batch(&batch)? as u64;
    }
    let batched = rate(sent, t.elapsed());

    // Consume everything (decode included).
    let mut consumer = store.consumer(&topic, StartFrom::Start)?;
    let t = Instant::now();
    let mut read = 0u64;
    while let Some(m) = consumer.poll()? {
        std::hint::black_box(&m);
        read += 1;
    }
    let consume = rate(read, t.elapsed());
    anyhow::ensure!(read == messages + sent, "read {read} messages, expected {}", messages + sent);

    // The floor: the same line bytes, one O_APPEND write each, on a file kept open.
    let mut line = Vec::new();
    let mut codec = twainmq::line::Codec::default();
    codec.encode_line(KeyType::U32, &Key::Int(1), 1.0, texts[0].as_bytes(), &mut line).map_err(|e| anyhow::anyhow!("{e:?}"))?;
    let floor_path = store.root().join(format!(".{topic}.floor"));
    let floor = {
        let mut f = OpenOptions::new().append(true).create(true).open(&floor_path).context("floor file")?;
        let t = Instant::now();
        for _ in 0..messages {
            f.write_all(&line)?;
        }
        rate(messages, t.elapsed())
    };
    let _ = std::fs::remove_file(&floor_path);

    // Write-to-read latency: a follower thread, the producer writing at a steady rate.
    let samples = latency(store, &topic, latency_rate, payload_bytes)?;
    drop(guard);
    Ok(BenchReport {
        messages,
        payload_bytes,
        partitions,
        line_bytes: line.len(),
        produce_msgs_per_s: produce,
        produce_batched_msgs_per_s: batched,
        consume_msgs_per_s: consume,
        floor_append_msgs_per_s: floor,
        produce_vs_floor: produce / floor,
        latency_rate_msgs_per_s: latency_rate,
        latency_samples: samples.len(),
        latency_p50_us: percentile(&samples, 0.5),
        latency_p99_us: percentile(&samples, 0.99),
        latency_p999_us: percentile(&samples, 0.999),
    })
}

fn latency(store: &Store, topic: &str, per_sec: u64, payload_bytes: usize) -> Result<Vec<f64>> {
    let count = per_sec.clamp(100, 20_000);
    let mut follower = store.consumer(topic, StartFrom::Now)?;
    let reader = std::thread::spawn(move || -> Result<Vec<f64>> {
        let mut lat = Vec::with_capacity(count as usize);
        let deadline = Instant::now() + Duration::from_secs(30);
        while (lat.len() as u64) < count && Instant::now() < deadline {
            if let Some(m) = follower.poll_timeout(Duration::from_millis(100))? {
                let now = chrono::Utc::now().timestamp_micros() as f64 / 1e6;
                lat.push((now - m.timestamp) * 1e6);
            }
        }
        Ok(lat)
    });
    let mut producer = store.producer(topic)?;
    let body = payload(0, payload_bytes);
    let gap = Duration::from_secs_f64(1.0 / per_sec.max(1) as f64);
    let start = Instant::now();
    for i in 0..count {
        let due = start + gap * i as u32;
        while Instant::now() < due {
            std::hint::spin_loop();
        }
        producer.send_text(Key::Int(i), &body)?;
    }
    let mut lat = reader.join().map_err(|_| anyhow::anyhow!("the latency reader panicked"))??;
    lat.sort_by(f64::total_cmp);
    Ok(lat)
}

struct TopicGuard<'a> {
    store: &'a Store,
    topic: String,
}

impl Drop for TopicGuard<'_> {
    fn drop(&mut self) {
        let _ = self.store.delete_topic(&self.topic);
    }
}
