//! The arguments of `topics`: list, create, describe, delete.

#[allow(clippy::wildcard_imports)]
use super::*;

#[derive(Subcommand, Debug)]
pub(crate) enum TopicsCmd {
    /// List the store's topics.
    List {
        #[arg(long)]
        json: bool,
    },
    /// Create a topic.
    Create {
        name: String,
        /// u8, u16, u32, u64 or charN (0.2.3's); or free keys: text (any string), bytes, or
        /// any (text, bytes or none): the format's next version, which 0.2.3 refuses to open.
        #[arg(long, default_value = twainmq::limits::DEFAULT_KEY_TYPE)]
        key_type: String,
        #[arg(long, default_value_t = u64::from(twainmq::limits::DEFAULT_PARTITIONS))]
        partitions: u64,
        /// Comma-separated names of typed messages (ids 0, 1, ... in this order).
        #[arg(long, value_delimiter = ',')]
        message_types: Vec<String>,
        /// Allow messages larger than one 4,096-byte line (up to 1 MiB each unless
        /// --max-message-bytes says): the format's next version, which 0.2.3 refuses to open.
        #[arg(long)]
        large_messages: bool,
        /// The largest message, in bytes (1 to 67108864, 64 MiB; implies --large-messages).
        #[arg(long, value_name = "BYTES")]
        max_message_bytes: Option<u64>,
    },
    /// Show a topic's partitions, files and offsets.
    Describe {
        name: String,
        #[arg(long)]
        json: bool,
    },
    /// Empty a topic without deleting it: its day files go (all, or those whose messages are
    /// all before --before), the newest file of each partition is emptied in place of going.
    /// Without --yes, says what would go and deletes nothing.
    Purge {
        name: String,
        /// Only files whose last message is before this RFC 3339 time.
        #[arg(long, value_parser = flags::rfc3339, conflicts_with = "all", required_unless_present = "all")]
        before: Option<f64>,
        /// Every message.
        #[arg(long)]
        all: bool,
        /// Also when groups have not consumed them.
        #[arg(long)]
        force: bool,
        /// Confirm.
        #[arg(long)]
        yes: bool,
    },
    /// Delete a topic, all its messages and the consumer groups that read it.
    /// Without --yes, says what would be deleted and deletes nothing.
    Delete {
        name: String,
        /// Confirm the deletion.
        #[arg(long)]
        yes: bool,
    },
}
