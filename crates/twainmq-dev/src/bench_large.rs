//! `twainmq-dev bench-large` (for `make bench`): large messages (the
//! format's next version) of one size, one step a process (produce, the
//! floor, consume, clean) so each step's peak memory is its own; one JSON line
//! a step. The floor writes the very bytes the produce step wrote, each
//! message's lines with one `O_APPEND` write.

use std::io::Write;
use std::time::Instant;

use anyhow::{bail, Context, Result};
use serde::Serialize;
use twainmq::{Key, KeyType, StartFrom, Store, TopicSpec};

const TOPIC: &str = "bench-large";

#[derive(Serialize)]
struct StepReport {
    step: String,
    size: usize,
    messages: u64,
    secs: f64,
    msgs_per_s: f64,
    /// Payload megabytes (10^6 bytes) a second.
    payload_mb_per_s: f64,
    /// Bytes in the topic's files (the produce step).
    file_bytes: u64,
    /// Lines in the topic's files: a large message takes several.
    lines: u64,
    /// This process's peak resident memory (VmHWM), in MB.
    peak_rss_mb: f64,
}

/// VmHWM of this process from /proc (0 where there is none).
fn peak_rss_mb() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let kb = status.lines().find_map(|l| l.strip_prefix("VmHWM:")).and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok());
    kb.unwrap_or(0.0) / 1024.0
}

/// JSON-like text of `size` bytes for message `i` (deflate takes it to about a
/// quarter): records of ids, names, numbers and words, from a place of the
/// base text that `i` picks.
fn payload(base: &str, i: u64, size: usize) -> String {
    let head = format!("{{\"message\":{i},\"records\":[");
    let start = (i as usize * 7919) % (base.len() / 2);
    let mut s = String::with_capacity(size + 8);
    s.push_str(&head);
    s.push_str(&base[start..start + size.saturating_sub(head.len()).min(base.len() - start)]);
    while s.len() < size {
        s.push(' ');
    }
    s.truncate(size);
    s
}

fn base_text(len: usize) -> String {
    let words = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet"];
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut s = String::with_capacity(len + 200);
    let mut id = 0u64;
    while s.len() < len {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        id += 1;
        s.push_str(&format!(
            "{{\"id\":{id},\"name\":\"{}-{}\",\"amount\":{}.{:02},\"country\":\"{}\",\"tags\":[\"{}\",\"{}\"]}},",
            words[(x % 10) as usize],
            x % 100_000,
            x % 10_000,
            x % 100,
            ["DE", "FR", "US", "JP"][(x >> 8) as usize % 4],
            words[(x >> 16) as usize % 10],
            words[(x >> 24) as usize % 10]
        ));
    }
    s
}

fn topic_files(store: &Store) -> Result<Vec<std::path::PathBuf>> {
    let mut files: Vec<_> = std::fs::read_dir(store.root().join(TOPIC))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "tmf"))
        .collect();
    files.sort();
    Ok(files)
}

pub(crate) fn command(store: &Store, messages: u64, size: usize, step: &str) -> Result<()> {
    let t = Instant::now();
    let (mut file_bytes, mut lines) = (0u64, 0u64);
    let n = match step {
        "produce" => {
            // One already there is refused, never replaced: it may be the user's.
            if store.topic_exists(TOPIC)? {
                bail!("topic {TOPIC} is already in the store: nothing deleted. Run `--step clean` to delete it, or use an empty store");
            }
            let max = (size as u64).max(twainmq::limits::DEFAULT_MAX_MESSAGE_BYTES);
            store.create_topic(TOPIC, &TopicSpec::new(KeyType::U32, 1).with_large_messages(max))?;
            let base = base_text(size * 2 + 4096);
            let bodies: Vec<String> = (0..messages.min(16)).map(|i| payload(&base, i, size)).collect();
            let mut p = store.producer(TOPIC)?;
            let t = Instant::now();
            for i in 0..messages {
                p.send_text(Key::Int(i % 1000), &bodies[(i % 16) as usize])?;
            }
            p.flush()?;
            let secs = t.elapsed().as_secs_f64();
            // Counted a block at a time: this step's peak memory is the producer's.
            for f in topic_files(store)? {
                let mut file = std::fs::File::open(&f)?;
                let mut buf = vec![0u8; 1 << 20];
                loop {
                    let n = std::io::Read::read(&mut file, &mut buf)?;
                    if n == 0 {
                        break;
                    }
                    file_bytes += n as u64;
                    lines += memchr_count(&buf[..n]);
                }
            }
            return report(step, size, messages, secs, file_bytes, lines);
        }
        "floor" => {
            // The same bytes, each message's lines in one O_APPEND write (message
            // boundaries: the file cut into `messages` pieces at line ends).
            let mut data = Vec::new();
            for f in topic_files(store)? {
                data.extend_from_slice(&std::fs::read(&f)?);
            }
            if data.is_empty() {
                bail!("run --step produce first");
            }
            let mut cuts = vec![0usize];
            for k in 1..messages {
                let want = (data.len() as u128 * u128::from(k) / u128::from(messages)) as usize;
                let at = data[want..].iter().position(|b| *b == b'\n').map_or(data.len(), |i| want + i + 1);
                cuts.push(at.max(*cuts.last().unwrap_or(&0)));
            }
            cuts.push(data.len());
            let path = store.root().join("bench-large-floor.bin");
            let mut f = std::fs::OpenOptions::new().create(true).append(true).open(&path).context("the floor's file")?;
            let t = Instant::now();
            for w in cuts.windows(2) {
                f.write_all(&data[w[0]..w[1]])?;
            }
            let secs = t.elapsed().as_secs_f64();
            drop(f);
            std::fs::remove_file(&path)?;
            return report(step, size, messages, secs, data.len() as u64, memchr_count(&data));
        }
        "consume" => {
            let mut c = store.consumer(TOPIC, StartFrom::Start)?;
            let mut n = 0u64;
            while let Some(m) = c.poll()? {
                if m.text().map_or(0, str::len) != size {
                    bail!("message at offset {} is not {size} bytes of text", m.offset);
                }
                n += 1;
            }
            n
        }
        "clean" => {
            if store.topic_exists(TOPIC)? {
                store.delete_topic(TOPIC)?;
            }
            0
        }
        other => bail!("--step is produce, floor, consume or clean, not {other:?}"),
    };
    report(step, size, n, t.elapsed().as_secs_f64(), file_bytes, lines)
}

fn memchr_count(data: &[u8]) -> u64 {
    data.iter().filter(|b| **b == b'\n').count() as u64
}

fn report(step: &str, size: usize, n: u64, secs: f64, file_bytes: u64, lines: u64) -> Result<()> {
    let secs = secs.max(1e-9);
    let r = StepReport {
        step: step.to_string(),
        size,
        messages: n,
        secs,
        msgs_per_s: n as f64 / secs,
        payload_mb_per_s: n as f64 * size as f64 / 1e6 / secs,
        file_bytes,
        lines,
        peak_rss_mb: peak_rss_mb(),
    };
    println!("{}", serde_json::to_string(&r)?);
    Ok(())
}
