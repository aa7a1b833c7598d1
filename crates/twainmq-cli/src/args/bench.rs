//! The arguments of `bench`.

#[allow(clippy::wildcard_imports)]
use super::*;

#[derive(Args, Debug)]
pub(crate) struct BenchArgs {
    #[arg(long, default_value_t = 200_000)]
    pub(crate) messages: u64,
    #[arg(long, default_value_t = 100)]
    pub(crate) payload_bytes: usize,
    #[arg(long, default_value_t = 4)]
    pub(crate) partitions: u32,
    /// Messages per send_batch call for the batched produce run.
    #[arg(long, default_value_t = 1000)]
    pub(crate) batch: usize,
    /// Messages per second for the write-to-read latency run.
    #[arg(long, default_value_t = 10_000)]
    pub(crate) latency_rate: u64,
    /// Also time seeks, time jumps and describe in a one-partition topic of this many messages.
    #[arg(long, default_value_t = 0)]
    pub(crate) seek_messages: u64,
    /// Where the private temporary store is made (default: the system's
    /// temporary folder); pick a folder on the disk to measure. Never the store.
    #[arg(long, value_name = "DIR")]
    pub(crate) dir: Option<PathBuf>,
    #[arg(long)]
    pub(crate) json: bool,
}
