//! `bench`: the benchmark's report.

#[allow(clippy::wildcard_imports)]
use super::*;
use crate::report::BenchReport;

impl Text for BenchReport {
    fn text(&self, out: &mut dyn Write) -> io::Result<()> {
        let r = self;
        writeln!(out, "in a private store in {} (deleted since; --dir picks another disk)", r.dir.parent().unwrap_or(&r.dir).display())?;
        writeln!(out, "{} messages of {} bytes ({}-byte lines), {} partitions", r.messages, r.payload_bytes, r.line_bytes, r.partitions)?;
        writeln!(out, "produce (one per call)   {:>12.0} msg/s  ({:.2} x the floor)", r.produce_msgs_per_s, r.produce_vs_floor)?;
        writeln!(out, "{:<25}{:>12.0} msg/s", format!("produce (batches of {})", r.batch), r.produce_batched_msgs_per_s)?;
        writeln!(out, "  batched, one thread    {:>12.0} msg/s", r.produce_batched_one_thread_msgs_per_s)?;
        writeln!(out, "consume (decoded)        {:>12.0} msg/s", r.consume_msgs_per_s)?;
        writeln!(out, "floor (O_APPEND writes)  {:>12.0} msg/s", r.floor_append_msgs_per_s)?;
        writeln!(
            out,
            "write-to-read latency (a follower process) at {} msg/s: p50 {:.0} us, p99 {:.0} us, p99.9 {:.0} us ({} samples)",
            r.latency_rate_msgs_per_s, r.latency_p50_us, r.latency_p99_us, r.latency_p999_us, r.latency_samples
        )?;
        if let Some(s) = &r.seek {
            writeln!(out, "{} messages in one partition (written in {:.1} s):", s.messages, s.write_s)?;
            writeln!(out, "  describe: first {:.0} ms (builds the index), then {:.1} ms", s.describe_first_ms, s.describe_ms)?;
            writeln!(out, "  seek to an offset: avg {:.2} ms, max {:.2} ms", s.seek_avg_ms, s.seek_max_ms)?;
            writeln!(out, "  jump to a time:    avg {:.2} ms, max {:.2} ms", s.time_jump_avg_ms, s.time_jump_max_ms)?;
        }
        Ok(())
    }
}
