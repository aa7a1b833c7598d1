//! `twainmq bench`: produce, batched produce, consume and write-to-read latency
//! in a private temporary store, beside the floor of raw O_APPEND writes of
//! the same lines.
//!
//! Nothing of it is ever in the user's store: a topic there (the way it ran
//! before) was left behind by Ctrl-C, and listed by `topics list` and 0.2.3.
//! The private store is a scratch folder in `--dir` (default: the system's
//! temporary folder), deleted at the end, on an error, and on Ctrl-C or
//! SIGTERM (a handler deletes it before the exit); a run killed outright
//! (SIGKILL) leaves it, locked no more, and the next run deletes it.

use std::fs::OpenOptions;
use std::io::Write;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use serde::Serialize;
use twainmq::{Key, KeyType, Outgoing, StartFrom, Store, TopicSpec};

use crate::report::{BenchReport, SeekReport};

/// Names of the private stores, in their parent folder.
const SCRATCH_PREFIX: &str = "twainmq-bench-";

/// `twainmq bench`: run it in a private temporary store and print the report
/// (text or `--json`). `user_store` is the store given, if any: never written.
pub(crate) fn command(user_store: Option<&std::path::Path>, a: &crate::args::BenchArgs) -> Result<()> {
    let parent = a.dir.clone().unwrap_or_else(std::env::temp_dir);
    if let Some(user) = user_store.and_then(|u| Store::open(u).ok()) {
        anyhow::ensure!(
            !user.contains_path(&parent),
            "--dir {} is inside the store {}: bench makes its private store outside any store; give another folder",
            parent.display(),
            user.root().display()
        );
    }
    let (scratch, swept) = twainmq::internals::ScratchDir::new(&parent, SCRATCH_PREFIX)
        .with_context(|| format!("making bench's private store in {} (choose another with --dir)", parent.display()))?;
    if swept > 0 {
        eprintln!("deleted {swept} private store(s) left in {} by bench runs that were killed", parent.display());
    }
    // Ctrl-C, SIGTERM, SIGHUP: the private store goes before the exit (the
    // follower process, reading it, stops when it is gone).
    let path = scratch.path().to_path_buf();
    let _ = ctrlc::set_handler(move || {
        for _ in 0..50 {
            // (Files being made meanwhile can make one pass fail: try again.)
            if std::fs::remove_dir_all(&path).is_ok() || !path.exists() {
                break;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        eprintln!("bench interrupted: its private store was deleted");
        std::process::exit(130);
    });
    let store = Store::open(scratch.path())?;
    let r = run(&store, a.messages.max(1), a.payload_bytes, a.partitions.max(1), a.batch.max(1), a.latency_rate, a.seek_messages)?;
    drop(store);
    drop(scratch);
    crate::render::emit(&mut std::io::stdout().lock(), &r, a.json)
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

pub fn run(
    store: &Store,
    messages: u64,
    payload_bytes: usize,
    partitions: u32,
    batch_size: usize,
    latency_rate: u64,
    seek_messages: u64,
) -> Result<BenchReport> {
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
        (0..batch_size as u64).map(|i| (Key::Int(i % 100_000), Outgoing::Text(texts[(i % texts.len() as u64) as usize].clone()))).collect();
    let t = Instant::now();
    let mut sent = 0u64;
    while sent < messages {
        sent += producer.send_batch(&batch)? as u64;
    }
    let batched = rate(sent, t.elapsed());
    let mut one_thread = store.producer(&topic)?.with_parallel_batches(false);
    let t = Instant::now();
    let mut sent_one = 0u64;
    while sent_one < messages {
        sent_one += one_thread.send_batch(&batch)? as u64;
    }
    let batched_one_thread = rate(sent_one, t.elapsed());
    let sent = sent + sent_one;

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
    let mut codec = twainmq::internals::line::Codec::default();
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

    // Write-to-read latency: a follower process, this one writing at a steady rate.
    let lat = latency(store, &topic, latency_rate, payload_bytes)?;
    drop(guard);
    let seek = if seek_messages > 0 { Some(seeks(store, seek_messages, payload_bytes)?) } else { None };
    Ok(BenchReport {
        dir: store.root().to_path_buf(),
        messages,
        payload_bytes,
        partitions,
        batch: batch_size,
        line_bytes: line.len(),
        produce_msgs_per_s: produce,
        produce_batched_msgs_per_s: batched,
        produce_batched_one_thread_msgs_per_s: batched_one_thread,
        consume_msgs_per_s: consume,
        floor_append_msgs_per_s: floor,
        produce_vs_floor: produce / floor,
        latency_rate_msgs_per_s: latency_rate,
        latency_samples: lat.samples,
        latency_p50_us: lat.p50_us,
        latency_p99_us: lat.p99_us,
        latency_p999_us: lat.p999_us,
        seek,
    })
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// Seeks and time jumps in one partition of `n` messages, on a fresh store handle (cold index).
fn seeks(store: &Store, n: u64, payload_bytes: usize) -> Result<SeekReport> {
    let topic = format!("bench-seek-{}", std::process::id());
    store.create_topic(&topic, &TopicSpec::new(KeyType::U32, 1))?;
    let _guard = TopicGuard { store, topic: topic.clone() };
    let t = Instant::now();
    {
        let mut p = store.producer(&topic)?;
        let body = payload(0, payload_bytes);
        let mut sent = 0u64;
        while sent < n {
            let batch: Vec<(Key, Outgoing)> = (0..(n - sent).min(10_000)).map(|i| (Key::Int(i), Outgoing::Text(body.clone()))).collect();
            sent += p.send_batch(&batch)? as u64;
        }
    }
    let write_s = t.elapsed().as_secs_f64();
    let fresh = Store::open(store.root())?;
    let t = Instant::now();
    let d = fresh.describe_topic(&topic)?;
    let describe_first_ms = ms(t.elapsed());
    anyhow::ensure!(d.messages == n, "describe counted {} of {n}", d.messages);
    let t = Instant::now();
    fresh.describe_topic(&topic)?;
    let describe_ms = ms(t.elapsed());
    // A cheap generator for spread-out offsets.
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let (mut total, mut max) = (Duration::ZERO, Duration::ZERO);
    let mut stamps = Vec::new();
    for _ in 0..100 {
        let o = next() % n;
        let t = Instant::now();
        let mut r = fresh.partition_reader(&topic, 0, StartFrom::Offset(o))?;
        let m = r.poll()?.context("a message at the offset")?;
        let d = t.elapsed();
        anyhow::ensure!(m.offset == o, "seek to {o} read {}", m.offset);
        stamps.push((o, m.timestamp));
        total += d;
        max = max.max(d);
    }
    let (seek_avg_ms, seek_max_ms) = (ms(total) / 100.0, ms(max));
    let (mut total, mut max) = (Duration::ZERO, Duration::ZERO);
    for (o, ts) in stamps.iter().take(20) {
        let t = Instant::now();
        let found = twainmq::scan::offset_at_time(&fresh, &topic, 0, *ts)?;
        let d = t.elapsed();
        // Batches share timestamps: the first message of that instant is at or before o.
        anyhow::ensure!(found.is_some_and(|f| f <= *o), "time jump for offset {o} found {found:?}");
        total += d;
        max = max.max(d);
    }
    Ok(SeekReport {
        messages: n,
        write_s,
        describe_first_ms,
        describe_ms,
        seek_avg_ms,
        seek_max_ms,
        time_jump_avg_ms: ms(total) / 20.0,
        time_jump_max_ms: ms(max),
    })
}

/// Write-to-read latency as another process sees it: a follower process
/// (`bench-follow`, the engine's blocking poll woken by file notifications)
/// reads what this one produces at a steady rate.
fn latency(store: &Store, topic: &str, per_sec: u64, payload_bytes: usize) -> Result<LatencyReport> {
    use std::io::{BufRead, BufReader};
    let count = per_sec.clamp(100, 20_000);
    let exe = std::env::current_exe().context("locating this program to start the follower")?;
    let mut child = std::process::Command::new(exe)
        .arg("--store")
        .arg(store.root())
        .args(["bench-follow", "--topic", topic, "--count", &count.to_string()])
        // Its store is gone after the run: nothing of it is kept in the user's index cache.
        .env("TWAINMQ_INDEX_CACHE", "off")
        .stdout(std::process::Stdio::piped())
        .spawn()
        .context("starting the follower process")?;
    let mut lines = BufReader::new(child.stdout.take().context("the follower's output")?).lines();
    let ready = lines.next().transpose()?;
    anyhow::ensure!(ready.as_deref() == Some("ready"), "the follower did not start: {ready:?}");
    let mut producer = store.producer(topic)?;
    let body = payload(0, payload_bytes);
    let gap = Duration::from_secs_f64(1.0 / per_sec.max(1) as f64);
    let start = Instant::now();
    for i in 0..count {
        // Sleep rather than spin, so the follower has a core (latency counts
        // from each message's own timestamp, so a late wake-up costs nothing).
        let due = start + gap * i as u32;
        if let Some(wait) = due.checked_duration_since(Instant::now()) {
            std::thread::sleep(wait);
        }
        producer.send_text(Key::Int(i), &body)?;
    }
    let report = lines.next().transpose()?.context("the follower printed no result")?;
    let status = child.wait()?;
    anyhow::ensure!(status.success(), "the follower failed: {status}");
    Ok(serde_json::from_str(&report)?)
}

#[derive(Debug, Serialize, serde::Deserialize)]
struct LatencyReport {
    samples: usize,
    p50_us: f64,
    p99_us: f64,
    p999_us: f64,
}

/// The follower's side of [`latency`].
pub fn follow(store: &Store, topic: &str, count: usize) -> Result<()> {
    let mut follower = store.consumer(topic, StartFrom::Now)?;
    let mut out = std::io::stdout().lock();
    writeln!(out, "ready")?;
    out.flush()?;
    let mut lat = Vec::with_capacity(count);
    let deadline = Instant::now() + Duration::from_secs(30);
    while lat.len() < count && Instant::now() < deadline {
        if let Some(m) = follower.poll_timeout(Duration::from_millis(100))? {
            // The engine's clock, which stamped the message.
            lat.push(twainmq::Clock::now_micros(&twainmq::SystemClock) as f64 - m.timestamp * 1e6);
        }
    }
    lat.sort_by(f64::total_cmp);
    let report = LatencyReport {
        samples: lat.len(),
        p50_us: percentile(&lat, 0.5),
        p99_us: percentile(&lat, 0.99),
        p999_us: percentile(&lat, 0.999),
    };
    serde_json::to_writer(&mut out, &report)?;
    writeln!(out)?;
    Ok(())
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
