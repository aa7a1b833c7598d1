//! The arguments of `produce`.

#[allow(clippy::wildcard_imports)]
use super::*;

#[derive(Args, Debug)]
pub(crate) struct ProduceArgs {
    pub(crate) topic: String,
    /// The message key (an integer for uN topics, a string for charN, text and any
    /// topics, its UTF-8 bytes for bytes topics).
    #[arg(long, required_unless_present_any = ["jsonl", "batch", "key_hex", "no_key"], conflicts_with_all = ["jsonl", "key_hex", "no_key"])]
    pub(crate) key: Option<String>,
    /// The key as hex: a bytes key (topics of key type bytes or any).
    #[arg(long, value_name = "HEX", conflicts_with_all = ["jsonl", "no_key"])]
    pub(crate) key_hex: Option<String>,
    /// No key (Kafka's null key; topics of key type any): such messages go round the partitions.
    #[arg(long, conflicts_with = "jsonl")]
    pub(crate) no_key: bool,
    /// MESSAGE (or the file) is hex, sent as a bytes message.
    #[arg(long, conflicts_with_all = ["jsonl", "bytes"])]
    pub(crate) bytes_hex: bool,
    /// Send the file's (or MESSAGE's) bytes as a bytes message, as they are.
    #[arg(long, conflicts_with = "jsonl")]
    pub(crate) bytes: bool,
    /// Take the message from this file, or from standard input with -, of any size the
    /// topic allows (a text message unless --bytes or --bytes-hex).
    #[arg(long, value_name = "PATH", conflicts_with_all = ["jsonl", "message"])]
    pub(crate) value_file: Option<PathBuf>,
    /// Read `{"key": K, "payload": P}` objects from standard input, one a line.
    #[arg(long)]
    pub(crate) jsonl: bool,
    /// Print where each message landed as JSON.
    #[arg(long)]
    pub(crate) json: bool,
    /// With --jsonl: send the lines already read in as one batch (a write per
    /// partition, not per message), several times faster from a fast pipe.
    /// Without it, each message is in the file before the next line is read,
    /// so a killed producer leaves exactly a prefix of its input; with it, the
    /// batch in flight may be written in some partitions and not in others
    /// (each partition still holds a prefix of what it was given).
    #[arg(long, conflicts_with_all = ["json", "key", "message", "bytes_hex"])]
    pub(crate) batch: bool,
    /// The message text (or hex with --bytes-hex).
    #[arg(required_unless_present_any = ["jsonl", "batch", "value_file"], conflicts_with = "jsonl")]
    pub(crate) message: Option<String>,
}
