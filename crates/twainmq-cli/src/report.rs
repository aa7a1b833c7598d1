//! The CLI's own typed outputs (every other output is an engine type):
//! made by their commands, turned into text or JSON by `render.rs`.

use serde::Serialize;

/// What `twainmq bench` measured.
#[derive(Debug, Serialize)]
pub struct BenchReport {
    /// The private store it ran in (deleted since).
    pub dir: std::path::PathBuf,
    pub messages: u64,
    pub payload_bytes: usize,
    pub partitions: u32,
    /// Messages per `send_batch` call.
    pub batch: usize,
    pub line_bytes: usize,
    pub produce_msgs_per_s: f64,
    pub produce_batched_msgs_per_s: f64,
    /// The same batches encoded on the calling thread only.
    pub produce_batched_one_thread_msgs_per_s: f64,
    pub consume_msgs_per_s: f64,
    pub floor_append_msgs_per_s: f64,
    pub produce_vs_floor: f64,
    pub latency_rate_msgs_per_s: u64,
    pub latency_samples: usize,
    pub latency_p50_us: f64,
    pub latency_p99_us: f64,
    pub latency_p999_us: f64,
    /// Present with --seek-messages: a one-partition topic of that many messages.
    pub seek: Option<SeekReport>,
}

#[derive(Debug, Serialize)]
pub struct SeekReport {
    pub messages: u64,
    pub write_s: f64,
    /// First describe: builds the in-memory index by scanning with memchr.
    pub describe_first_ms: f64,
    /// Later describes reuse the index.
    pub describe_ms: f64,
    pub seek_avg_ms: f64,
    pub seek_max_ms: f64,
    pub time_jump_avg_ms: f64,
    pub time_jump_max_ms: f64,
}
