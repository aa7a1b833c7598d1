//! The arguments of `mirror`.

#[allow(clippy::wildcard_imports)]
use super::*;

/// `twainmq mirror`. Secrets come from a file or an environment variable, never from the
/// command line (other users can read a process's arguments).
#[derive(Args, Debug)]
#[command(group(clap::ArgGroup::new("way").required(true).args(["to", "from"])))]
pub(crate) struct MirrorArgs {
    /// Topics to mirror; SOURCE:TARGET mirrors SOURCE into a topic named TARGET.
    #[arg(required = true, value_name = "TOPIC")]
    pub(crate) topics: Vec<String>,
    /// Mirror the store's topics to this cluster: kafka://HOST:PORT[,HOST:PORT...].
    #[arg(long, value_name = "URL")]
    pub(crate) to: Option<String>,
    /// Mirror this cluster's topics into the store: kafka://HOST:PORT[,HOST:PORT...].
    #[arg(long, value_name = "URL")]
    pub(crate) from: Option<String>,
    /// The target topic's name (one TOPIC only; SOURCE:TARGET does the same for several).
    #[arg(long = "as", value_name = "NAME")]
    pub(crate) as_name: Option<String>,
    /// Keep going: new messages go across as they are written, until Ctrl-C or SIGTERM.
    #[arg(long)]
    pub(crate) follow: bool,
    /// Also translate consumer groups' committed offsets (groups of the same name, written
    /// only while the target group has no live member, only forward).
    #[arg(long)]
    pub(crate) groups: bool,
    /// Print the summary as JSON.
    #[arg(long)]
    pub(crate) json: bool,
    /// Talk TLS to the cluster (implied by the --tls-* options).
    #[arg(long)]
    pub(crate) tls: bool,
    /// CA certificates to trust (PEM) instead of the built-in web roots.
    #[arg(long, value_name = "FILE")]
    pub(crate) tls_ca: Option<PathBuf>,
    /// A client certificate (PEM), for mutual TLS (with --tls-key).
    #[arg(long, value_name = "FILE", requires = "tls_key")]
    pub(crate) tls_cert: Option<PathBuf>,
    /// The client certificate's key (PEM).
    #[arg(long, value_name = "FILE", requires = "tls_cert")]
    pub(crate) tls_key: Option<PathBuf>,
    /// SASL mechanism: PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512.
    #[arg(long, value_name = "MECHANISM", requires = "sasl_username")]
    pub(crate) sasl_mechanism: Option<String>,
    /// SASL user name.
    #[arg(long, value_name = "NAME", requires = "sasl_mechanism")]
    pub(crate) sasl_username: Option<String>,
    /// A file whose first line is the SASL password.
    #[arg(long, value_name = "FILE", conflicts_with = "sasl_password_env")]
    pub(crate) sasl_password_file: Option<PathBuf>,
    /// An environment variable holding the SASL password.
    #[arg(long, value_name = "VAR")]
    pub(crate) sasl_password_env: Option<String>,
    /// --from: the key type of a store topic made for a Kafka topic that carries no TwainMQ
    /// config: any (every Kafka key, the null key included), text, bytes, or 0.2.3's u8, u16,
    /// u32, u64, charN (integer keys are N-byte big-endian in Kafka). text, bytes and any are
    /// the format's next version, which 0.2.3 refuses to open.
    #[arg(long, value_name = "TYPE")]
    pub(crate) key_type: Option<String>,
    /// --from: a store topic made for a Kafka topic takes values over one 4,096-byte line (up
    /// to 1 MiB, Kafka's default, unless --max-message-bytes says): the format's next version.
    #[arg(long)]
    pub(crate) large_messages: bool,
    /// --from: the largest value such a topic takes, in bytes (1 to 67108864; implies
    /// --large-messages).
    #[arg(long, value_name = "BYTES")]
    pub(crate) max_message_bytes: Option<u64>,
    /// --from: that topic's typed messages' names, comma-separated.
    #[arg(long, value_name = "A,B", value_delimiter = ',')]
    pub(crate) message_types: Vec<String>,
    /// --from: what a value other producers wrote is (no twainmq.kind header): auto (text when
    /// UTF-8, else bytes), text or bytes.
    #[arg(long, value_name = "KIND", default_value = "auto")]
    pub(crate) values: String,
    /// --from: mirror records that carry headers of their own without them (a TwainMQ message
    /// has none); without it such a record stops the mirror, named.
    #[arg(long)]
    pub(crate) drop_headers: bool,
    /// How long a request to the cluster may take before it counts as failed.
    #[arg(long, value_name = "SECONDS", default_value = "5", value_parser = flags::kafka_timeout_secs)]
    pub(crate) timeout: Duration,
    /// --to: how long a mirror that died holds the target (its membership in the consumer group
    /// twainmq-mirror.TOPIC): a restarted mirror waits at most this long.
    #[arg(long, value_name = "SECONDS", default_value = "10", value_parser = flags::kafka_timeout_secs)]
    pub(crate) lease_timeout: Duration,
}
