//! `twainmq`: the command-line tool over the TwainMQ engine.

use std::io::{self, BufRead, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{anyhow, bail, Context, Result};
use clap::{Args, Parser, Subcommand};
use twainmq::{Error as EngineError, Key, KeyType, Message, Outgoing, Payload, PayloadJson, StartFrom, Store, TopicSpec};

#[derive(Parser, Debug)]
#[command(name = "twainmq", version, about = "Inspect and use TwainMQ stores (compatible with twainmq 0.2.3)")]
struct Cli {
    /// The store folder (default: $TWAINMQ_STORE).
    #[arg(long, global = true, env = "TWAINMQ_STORE", value_name = "DIR")]
    store: Option<PathBuf>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// List, create, describe and delete topics.
    #[command(subcommand)]
    Topics(TopicsCmd),
    /// Write messages to a topic.
    Produce(ProduceArgs),
    /// Read messages from a topic.
    Consume(ConsumeArgs),
}

#[derive(Subcommand, Debug)]
enum TopicsCmd {
    /// List the store's topics.
    List {
        #[arg(long)]
        json: bool,
    },
    /// Create a topic.
    Create {
        name: String,
        /// u8, u16, u32, u64 or charN.
        #[arg(long, default_value = "u16")]
        key_type: String,
        #[arg(long, default_value_t = 1)]
        partitions: u64,
        /// Comma-separated names of typed messages (ids 0, 1, ... in this order).
        #[arg(long, value_delimiter = ',')]
        message_types: Vec<String>,
    },
    /// Show a topic's partitions, files and offsets.
    Describe {
        name: String,
        #[arg(long)]
        json: bool,
    },
    /// Delete a topic and all its messages.
    Delete {
        name: String,
        /// Confirm the deletion.
        #[arg(long)]
        yes: bool,
    },
}

#[derive(Args, Debug)]
struct ProduceArgs {
    topic: String,
    /// The message key (an integer for uN topics, a string for charN topics).
    #[arg(long, required_unless_present = "jsonl", conflicts_with = "jsonl")]
    key: Option<String>,
    /// MESSAGE is hex, sent as a bytes message.
    #[arg(long, conflicts_with = "jsonl")]
    bytes_hex: bool,
    /// Read `{"key": K, "payload": P}` objects from standard input, one a line.
    #[arg(long)]
    jsonl: bool,
    /// Print where each message landed as JSON.
    #[arg(long)]
    json: bool,
    /// The message text (or hex with --bytes-hex).
    #[arg(required_unless_present = "jsonl", conflicts_with = "jsonl")]
    message: Option<String>,
}

#[derive(Args, Debug)]
struct ConsumeArgs {
    topic: String,
    /// start, now, or an offset.
    #[arg(long, default_value = "start")]
    from: String,
    /// Only this partition.
    #[arg(long)]
    partition: Option<u32>,
    /// Stop after this many messages.
    #[arg(long)]
    max: Option<u64>,
    /// Keep waiting for new messages instead of stopping at the end of the log.
    #[arg(long)]
    follow: bool,
    /// Stop after this many seconds.
    #[arg(long = "for", value_name = "SECONDS")]
    for_secs: Option<f64>,
    /// One JSON object a line.
    #[arg(long)]
    json: bool,
}

fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::try_from_env("TWAINMQ_LOG").unwrap_or_else(|_| "warn".into()))
        .with_writer(io::stderr)
        .with_target(false)
        .init();
    match run(Cli::parse()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            if e.downcast_ref::<io::Error>().is_some_and(|e| e.kind() == io::ErrorKind::BrokenPipe) {
                return ExitCode::SUCCESS;
            }
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

fn run(cli: Cli) -> Result<()> {
    let root = cli.store.ok_or_else(|| anyhow!("no store given: pass --store DIR or set TWAINMQ_STORE"))?;
    let store = Store::open(&root)?;
    match cli.command {
        Command::Topics(cmd) => topics(&store, cmd),
        Command::Produce(args) => produce(&store, args),
        Command::Consume(args) => consume(&store, args),
    }
}

fn topics(store: &Store, cmd: TopicsCmd) -> Result<()> {
    let mut out = io::stdout().lock();
    match cmd {
        TopicsCmd::List { json } => {
            let mut rows = Vec::new();
            for name in store.list_topics()? {
                match store.topic_config(&name) {
                    Ok(c) => rows.push(serde_json::json!({
                        "name": name,
                        "key_type": c.key_type.to_string(),
                        "partitions": c.partitions,
                        "message_types": c.message_types.iter().map(|(n, _)| n.clone()).collect::<Vec<_>>(),
                    })),
                    Err(e) => {
                        eprintln!("warning: {e}");
                        rows.push(serde_json::json!({"name": name, "error": e.to_string()}));
                    }
                }
            }
            if json {
                serde_json::to_writer(&mut out, &rows)?;
                writeln!(out)?;
            } else {
                for r in &rows {
                    let name = r["name"].as_str().unwrap_or_default();
                    match r.get("error") {
                        Some(_) => writeln!(out, "{name}\t(unreadable config)")?,
                        None => writeln!(out, "{name}\t{}\t{} partitions", r["key_type"].as_str().unwrap_or_default(), r["partitions"])?,
                    }
                }
            }
        }
        TopicsCmd::Create { name, key_type, partitions, message_types } => {
            let kt = KeyType::parse(&key_type).ok_or(EngineError::InvalidKeyType { key_type, max_char: twainmq::key::MAX_CHAR_WIDTH })?;
            let partitions = u32::try_from(partitions)
                .map_err(|_| EngineError::InvalidPartitionCount { partitions, max: twainmq::config::MAX_PARTITIONS })?;
            let spec = TopicSpec::new(kt, partitions).with_types(message_types);
            store.create_topic(&name, &spec)?;
            writeln!(out, "created topic {name} ({kt}, {partitions} partitions)")?;
        }
        TopicsCmd::Describe { name, json } => {
            let d = store.describe_topic(&name)?;
            if json {
                serde_json::to_writer(&mut out, &d)?;
                writeln!(out)?;
            } else {
                writeln!(
                    out,
                    "topic {}: {} keys, {} partitions, {} messages, {} bytes",
                    d.name, d.key_type, d.partitions, d.messages, d.bytes
                )?;
                if !d.message_types.is_empty() {
                    let types: Vec<String> = d.message_types.iter().map(|(n, i)| format!("{n}={i}")).collect();
                    writeln!(out, "message types: {}", types.join(", "))?;
                }
                for p in &d.partition_details {
                    writeln!(out, "partition {}: offsets {}..{} ({} bytes)", p.partition, p.start, p.end, p.bytes)?;
                    for f in &p.files {
                        let torn = if f.partial_bytes > 0 { format!(" + {} bytes unfinished", f.partial_bytes) } else { String::new() };
                        writeln!(out, "  {}  day {}  first {}  {} lines{}  {} bytes", f.name, f.day, f.first, f.lines, torn, f.bytes)?;
                    }
                }
                for u in &d.unknown_files {
                    writeln!(out, "warning: {u} in the topic folder is not a partition file")?;
                }
            }
        }
        TopicsCmd::Delete { name, yes } => {
            if !yes {
                bail!("deleting topic {name} removes all its messages: add --yes to confirm");
            }
            store.delete_topic(&name)?;
            writeln!(out, "deleted topic {name}")?;
        }
    }
    Ok(())
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct JsonlRecord {
    key: serde_json::Value,
    payload: serde_json::Value,
}

fn key_from_json(v: &serde_json::Value) -> Result<String> {
    match v {
        serde_json::Value::Number(n) => Ok(n.to_string()),
        serde_json::Value::String(s) => Ok(s.clone()),
        other => bail!("\"key\" must be a number or a string, not {other}"),
    }
}

fn payload_from_json(v: serde_json::Value) -> Result<Outgoing> {
    if let serde_json::Value::String(s) = v {
        return Ok(Outgoing::Text(s));
    }
    let p: PayloadJson = serde_json::from_value(v).context(
        "\"payload\" must be {\"type\":\"str\",\"value\":..}, {\"type\":\"bytes\",\"hex\":..} or {\"type\":\"dataclass\",\"class\":..,\"fields\":{..}}",
    )?;
    Outgoing::try_from(p).map_err(|e| anyhow!(e))
}

fn produce(store: &Store, args: ProduceArgs) -> Result<()> {
    let mut producer = store.producer(&args.topic)?;
    let mut out = io::stdout().lock();
    if !args.jsonl {
        let key = producer.parse_key(args.key.as_deref().unwrap_or_default())?;
        let message = args.message.unwrap_or_default();
        let payload = if args.bytes_hex {
            Outgoing::Bytes(hex::decode(message.trim()).context("MESSAGE is not valid hex (with --bytes-hex)")?)
        } else {
            Outgoing::Text(message)
        };
        let d = producer.send(&key, &payload)?;
        let offset = producer.resolve_offset(&d).ok();
        if args.json {
            serde_json::to_writer(&mut out, &serde_json::json!({"partition": d.partition, "offset": offset}))?;
            writeln!(out)?;
        } else {
            match offset {
                Some(o) => writeln!(out, "sent to partition {} at offset {o}", d.partition)?,
                None => writeln!(out, "sent to partition {}", d.partition)?,
            }
        }
        return Ok(());
    }
    let stdin = io::stdin().lock();
    let mut sent = 0u64;
    for (i, line) in stdin.lines().enumerate() {
        let line = line.context("reading standard input")?;
        if line.trim().is_empty() {
            continue;
        }
        let n = i + 1;
        let result = (|| -> Result<()> {
            let rec: JsonlRecord = serde_json::from_str(&line).context("not a {\"key\": K, \"payload\": P} object")?;
            let key = producer.parse_key(&key_from_json(&rec.key)?)?;
            let payload = payload_from_json(rec.payload)?;
            let d = producer.send(&key, &payload)?;
            if args.json {
                let offset = producer.resolve_offset(&d).ok();
                serde_json::to_writer(&mut out, &serde_json::json!({"partition": d.partition, "offset": offset}))?;
                writeln!(out)?;
            }
            Ok(())
        })();
        if let Err(e) = result {
            return Err(e.context(format!("input line {n} (messages before it were sent: {sent})")));
        }
        sent += 1;
    }
    out.flush()?;
    eprintln!("sent {sent} messages to {}", args.topic);
    Ok(())
}

fn parse_from(text: &str) -> Result<StartFrom> {
    match text {
        "start" | "earliest" => Ok(StartFrom::Start),
        "now" | "end" | "latest" => Ok(StartFrom::Now),
        t => t.parse().map(StartFrom::Offset).map_err(|_| anyhow!("--from must be start, now or an offset (a whole number), not {t:?}")),
    }
}

fn consume(store: &Store, args: ConsumeArgs) -> Result<()> {
    let from = parse_from(&args.from)?;
    let mut consumer = match args.partition {
        Some(p) => store.consumer_of(&args.topic, &[p], from)?,
        None => store.consumer(&args.topic, from)?,
    };
    let stop = Arc::new(AtomicBool::new(false));
    {
        let stop = stop.clone();
        // Without a handler we would be killed mid-line; with it we finish the line and flush.
        let _ = ctrlc::set_handler(move || stop.store(true, Ordering::SeqCst));
    }
    let deadline = args.for_secs.map(|s| Instant::now() + Duration::from_secs_f64(s.max(0.0)));
    let stdout = io::stdout();
    let mut out = io::BufWriter::with_capacity(1 << 16, stdout.lock());
    let mut count = 0u64;
    let mut corrupt = 0u64;
    loop {
        if stop.load(Ordering::SeqCst) || args.max.is_some_and(|m| count >= m) || deadline.is_some_and(|d| Instant::now() >= d) {
            break;
        }
        let polled = if args.follow {
            let wait = deadline
                .map_or(Duration::from_millis(100), |d| d.saturating_duration_since(Instant::now()).min(Duration::from_millis(100)));
            consumer.poll_timeout(wait)
        } else {
            consumer.poll()
        };
        match polled {
            Ok(Some(m)) => {
                count += 1;
                write_message(&mut out, &m, args.json)?;
            }
            Ok(None) => {
                out.flush()?;
                if !args.follow {
                    break;
                }
            }
            Err(e @ EngineError::CorruptLine { .. }) => {
                corrupt += 1;
                out.flush()?;
                eprintln!("warning: {e}");
            }
            Err(e) => return Err(e.into()),
        }
    }
    out.flush()?;
    if corrupt > 0 {
        eprintln!("warning: skipped {corrupt} damaged lines");
    }
    Ok(())
}

fn write_message(out: &mut impl Write, m: &Message, json: bool) -> Result<()> {
    if json {
        serde_json::to_writer(&mut *out, &m.to_json())?;
        writeln!(out)?;
        return Ok(());
    }
    let time = m.time().map_or_else(|| format!("{}", m.timestamp), |t| t.format("%Y-%m-%dT%H:%M:%S%.6fZ").to_string());
    let key = match &m.key {
        Key::Int(v) => v.to_string(),
        Key::Str(s) => format!("{s:?}"),
    };
    let body = match &m.payload {
        Payload::Text(s) => s.escape_debug().to_string(),
        Payload::Bytes(b) => format!("bytes {}", hex::encode(b)),
        Payload::Typed(t) => format!("{} {}", t.class.as_deref().unwrap_or("<unknown type>"), t.fields),
    };
    writeln!(out, "{}/{}\t{}\t{}\t{}", m.partition, m.offset, key, time, body)?;
    Ok(())
}
