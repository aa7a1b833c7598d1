//! `twainmq-dev bench-transfer` (for `make bench`): one step a process
//! (fill a topic, export it to JSONL, import that file, copy the topic), so
//! each step's peak memory is its own; one JSON line a step.

use std::io::{BufReader, BufWriter};
use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::time::Instant;

use anyhow::{bail, Result};
use serde::Serialize;
use twainmq::transfer::{self, CopyOptions, ExportFormat, ImportFormat, ImportOptions, Selection};
use twainmq::{Key, KeyType, Outgoing, Store, TopicSpec};

const SOURCE: &str = "bench-transfer";

#[derive(Serialize)]
struct StepReport {
    step: String,
    messages: u64,
    secs: f64,
    msgs_per_s: f64,
    /// This process's peak resident memory (VmHWM), in MB.
    peak_rss_mb: f64,
}

/// VmHWM of this process from /proc (0 where there is none).
fn peak_rss_mb() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let kb = status.lines().find_map(|l| l.strip_prefix("VmHWM:")).and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok());
    kb.unwrap_or(0.0) / 1024.0
}

/// Make the step's topic. One already there is refused, never replaced: it may be the user's
/// (only `--step clean` deletes the bench's topics, and only when asked).
fn fresh(store: &Store, topic: &str, partitions: u32) -> Result<()> {
    if store.topic_exists(topic)? {
        bail!("topic {topic} is already in the store: nothing deleted. Run `--step clean` to delete the bench's topics, or use an empty store");
    }
    store.create_topic(topic, &TopicSpec::new(KeyType::U32, partitions))?;
    Ok(())
}

pub(crate) fn command(store: &Store, messages: u64, partitions: u32, step: &str, file: &Path) -> Result<()> {
    let stop = AtomicBool::new(false);
    let t = Instant::now();
    let n = match step {
        "produce" => {
            fresh(store, SOURCE, partitions)?;
            let mut p = store.producer(SOURCE)?;
            let text = "x".repeat(100);
            let mut batch = Vec::with_capacity(10_000);
            let mut sent = 0u64;
            while sent < messages {
                batch.clear();
                let k = (messages - sent).min(10_000);
                batch.extend((0..k).map(|i| (Key::Int((sent + i) % 100_000), Outgoing::Text(text.clone()))));
                sent += p.send_batch(&batch)? as u64;
            }
            sent
        }
        "export" => {
            let mut out = BufWriter::with_capacity(1 << 20, std::fs::File::create(file)?);
            transfer::export(store, &Selection::topic(SOURCE), ExportFormat::Jsonl, &mut out, &stop, &mut |_| {})?.messages
        }
        "import" => {
            fresh(store, "bench-transfer-in", partitions)?;
            let mut input = BufReader::with_capacity(1 << 20, std::fs::File::open(file)?);
            let opts = ImportOptions { format: ImportFormat::Jsonl, dry_run: false, keep_timestamps: true, skip_bad: false, resume: None };
            transfer::import(store, "bench-transfer-in", &mut input, &opts, &stop, &mut |_| {}, &mut |_| {})?.messages
        }
        "copy" => {
            fresh(store, "bench-transfer-copy", partitions)?;
            let opts = CopyOptions { keep_timestamps: true, rate: None };
            transfer::copy(store, &Selection::topic(SOURCE), store, "bench-transfer-copy", &opts, &stop, &mut |_| {})?.messages
        }
        "clean" => {
            for t in [SOURCE, "bench-transfer-in", "bench-transfer-copy"] {
                if store.topic_exists(t)? {
                    store.delete_topic(t)?;
                }
            }
            let _ = std::fs::remove_file(file);
            0
        }
        other => bail!("--step is produce, export, import, copy or clean, not {other:?}"),
    };
    let secs = t.elapsed().as_secs_f64().max(1e-9);
    let r = StepReport { step: step.to_string(), messages: n, secs, msgs_per_s: n as f64 / secs, peak_rss_mb: peak_rss_mb() };
    println!("{}", serde_json::to_string(&r)?);
    Ok(())
}
