//! `twainmq`: the command-line tool over the TwainMQ engine.

use std::io::{self, BufRead, Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

mod bench;
mod flags;

use anyhow::{anyhow, bail, Context, Result};
use clap::{Args, Parser, Subcommand};
use twainmq::group::{self, GroupMember, GroupOptions, ResetTo};
use twainmq::name;
use twainmq::{Error as EngineError, Key, KeyType, Message, Outgoing, Payload, StartFrom, Store, TopicSpec};

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
    /// Read messages from a topic (alone, or as a member of a consumer group).
    Consume(ConsumeArgs),
    /// Inspect consumer groups and reset their offsets.
    #[command(subcommand)]
    Groups(GroupsCmd),
    /// Check a store (or one topic) for damaged lines, torn tails, offset gaps and overlaps,
    /// stray files and corrupt configs. Exits 1 when it finds any.
    Check {
        topic: Option<String>,
        #[arg(long)]
        json: bool,
    },
    /// Measure produce, batched produce, consume and follow latency in a temporary topic.
    Bench(BenchArgs),
    /// For `bench`: follow TOPIC from now in this separate process, print
    /// `ready`, then the write-to-read latency percentiles of COUNT messages as JSON.
    #[command(hide = true)]
    BenchFollow {
        #[arg(long)]
        topic: String,
        #[arg(long)]
        count: usize,
    },
    /// For tests: read offer sets `[[id, {"own": [..], "partitions": [..]}], ..]`, one a line
    /// on stdin, and print each assignment `{"<id>": [partitions]}`.
    #[command(hide = true)]
    AssignStdin,
    /// Create the demo store (topics with text, bytes and typed messages, a group) in --store.
    #[command(hide = true)]
    SeedDemo,
}

#[derive(Subcommand, Debug)]
enum GroupsCmd {
    /// List the store's consumer groups.
    List {
        #[arg(long)]
        json: bool,
    },
    /// Members, assignment, committed offsets, lag and rounds of a group.
    Describe {
        group: String,
        #[arg(long)]
        json: bool,
    },
    /// Move committed offsets (0.2.3 members honour them when they next take a partition).
    Reset {
        group: String,
        /// earliest, latest, offset:N or time:RFC3339.
        #[arg(long)]
        to: String,
        /// Only this partition (repeatable).
        #[arg(long)]
        partition: Vec<u32>,
        /// Show the before/after table without writing.
        #[arg(long)]
        dry_run: bool,
        #[arg(long)]
        json: bool,
    },
    /// Open a round: live members re-split the partitions; dead members' partitions move.
    Rebalance {
        group: String,
        /// How long the round stays open for offers, in seconds (more than 0, at most a day).
        #[arg(long, value_name = "SECONDS", default_value = "60", value_parser = flags::window_secs, allow_negative_numbers = true)]
        window: Duration,
    },
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
    /// Delete a topic, all its messages and the consumer groups that read it.
    /// Without --yes, says what would be deleted and deletes nothing.
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
    #[arg(long, required_unless_present_any = ["jsonl", "batch"], conflicts_with = "jsonl")]
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
    /// With --jsonl: send the lines already read in as one batch (a write per
    /// partition, not per message), several times faster from a fast pipe.
    /// Without it, each message is in the file before the next line is read,
    /// so a killed producer leaves exactly a prefix of its input; with it, the
    /// batch in flight may be written in some partitions and not in others
    /// (each partition still holds a prefix of what it was given).
    #[arg(long, conflicts_with_all = ["json", "key", "message", "bytes_hex"])]
    batch: bool,
    /// The message text (or hex with --bytes-hex).
    #[arg(required_unless_present_any = ["jsonl", "batch"], conflicts_with = "jsonl")]
    message: Option<String>,
}

#[derive(Args, Debug)]
struct BenchArgs {
    #[arg(long, default_value_t = 200_000)]
    messages: u64,
    #[arg(long, default_value_t = 100)]
    payload_bytes: usize,
    #[arg(long, default_value_t = 4)]
    partitions: u32,
    /// Messages per send_batch call for the batched produce run.
    #[arg(long, default_value_t = 1000)]
    batch: usize,
    /// Messages per second for the write-to-read latency run.
    #[arg(long, default_value_t = 10_000)]
    latency_rate: u64,
    /// Also time seeks, time jumps and describe in a one-partition topic of this many messages.
    #[arg(long, default_value_t = 0)]
    seek_messages: u64,
    #[arg(long)]
    json: bool,
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
    /// Stop after this many seconds (0 to 10 years).
    #[arg(long = "for", value_name = "SECONDS", value_parser = flags::for_secs, allow_negative_numbers = true)]
    for_secs: Option<Duration>,
    /// One JSON object a line.
    #[arg(long)]
    json: bool,
    /// Join this consumer group: read only the partitions assigned to this member, commit progress.
    #[arg(long)]
    group: Option<String>,
    /// Seconds a rebalance round stays open (with --group; more than 0, at most a day; 0.2.3 uses 60).
    #[arg(long, value_name = "SECONDS", default_value = "60", value_parser = flags::window_secs, allow_negative_numbers = true)]
    rebalance_window: Duration,
    /// Commit after every N messages written out (with --group; 1 or more). Also on a
    /// clean exit (end of log, --max, --for, SIGINT, SIGTERM), never after a failed write.
    #[arg(long, value_name = "N", default_value = "100", value_parser = flags::commit_every, allow_negative_numbers = true)]
    commit_every: u64,
    /// Start a round every SECONDS so dead members' partitions move (with --group; 0.1 to a day).
    #[arg(long, value_name = "SECONDS", value_parser = flags::auto_round_secs, allow_negative_numbers = true)]
    auto_round: Option<Duration>,
}

fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::try_from_env("TWAINMQ_LOG").unwrap_or_else(|_| "warn".into()))
        .with_writer(io::stderr)
        .with_ansi(io::IsTerminal::is_terminal(&io::stderr()))
        .with_target(false)
        .init();
    match run(Cli::parse()) {
        Ok(code) => code,
        Err(e) => {
            // A reader that went away (`| head`) ends us quietly, as it does `cat`.
            if is_broken_pipe(&e) {
                return ExitCode::SUCCESS;
            }
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

/// Whether `e` is, or was caused by, a write to a pipe whose reader is gone.
fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| c.downcast_ref::<io::Error>().is_some_and(|e| e.kind() == io::ErrorKind::BrokenPipe))
}

fn run(cli: Cli) -> Result<ExitCode> {
    if let Command::AssignStdin = cli.command {
        return assign_stdin().map(|()| ExitCode::SUCCESS);
    }
    let root = cli.store.ok_or_else(|| anyhow!("no store given: pass --store DIR or set TWAINMQ_STORE"))?;
    if let Command::SeedDemo = cli.command {
        let store = Store::open_or_create(&root)?;
        if twainmq::demo::seed(&store)? {
            eprintln!("seeded the demo store in {}", root.display());
        }
        return Ok(ExitCode::SUCCESS);
    }
    let mut store = Store::open(&root)?;
    if let Some(dir) = index_cache_dir() {
        store = store.with_index_cache(dir);
    }
    // Test seam: shift this process's clock (to cross UTC midnight in torture tests).
    if let Some(offset) = std::env::var("TWAINMQ_CLOCK_OFFSET_SECS").ok().and_then(|v| v.trim().parse::<f64>().ok()) {
        store = store.with_clock(std::sync::Arc::new(twainmq::OffsetClock((offset * 1e6) as i64)));
    }
    // Every command returns here, its exit code included (none calls
    // `process::exit`), so what it counted is saved below whatever the outcome.
    let result = command(&store, cli.command);
    // What was counted this run (files of a large store) is kept for the next.
    if store.index_scanned_bytes() > 0 {
        if let Err(e) = store.save_index() {
            tracing::warn!(error = %e, "could not keep the line index for the next run");
        }
    }
    result
}

/// Where line indexes are kept between runs: `$TWAINMQ_INDEX_CACHE` (`off`
/// for nowhere), else the user's cache folder.
fn index_cache_dir() -> Option<PathBuf> {
    match std::env::var_os("TWAINMQ_INDEX_CACHE") {
        Some(v) if v == "off" || v.is_empty() => None,
        Some(v) => Some(PathBuf::from(v)),
        // The platform's cache folder ($XDG_CACHE_HOME or ~/.cache, ~/Library/Caches, %LOCALAPPDATA%).
        None => dirs::cache_dir().map(|d| d.join("twainmq").join("line-index")),
    }
}

fn command(store: &Store, command: Command) -> Result<ExitCode> {
    let done = |r: Result<()>| r.map(|()| ExitCode::SUCCESS);
    match command {
        Command::Topics(cmd) => done(topics(store, cmd)),
        Command::Produce(args) => done(produce(store, args)),
        Command::Consume(args) if args.group.is_some() => done(consume_group(store, args)),
        Command::Consume(args) => done(consume(store, args)),
        Command::Groups(cmd) => done(groups(store, cmd)),
        Command::Check { topic, json } => {
            let problems = match &topic {
                Some(t) => twainmq::check::check_topic(store, t)?,
                None => twainmq::check::check_store(store)?,
            };
            let mut out = io::stdout().lock();
            if json {
                serde_json::to_writer(&mut out, &problems)?;
                writeln!(out)?;
            } else {
                for p in &problems {
                    let place = match (&p.file, p.line) {
                        (Some(f), Some(l)) => format!(" {f}:{l}"),
                        (Some(f), None) => format!(" {f}"),
                        _ => String::new(),
                    };
                    let part = p.partition.map_or(String::new(), |p| format!("/{p}"));
                    let off = p.offset.map_or(String::new(), |o| format!(" offset {o}"));
                    writeln!(out, "{}{part}{place}{off}: {} ({})", p.topic, p.message, p.kind)?;
                }
            }
            out.flush()?;
            if problems.is_empty() {
                eprintln!("no problems found");
                Ok(ExitCode::SUCCESS)
            } else {
                eprintln!("{} problems found", problems.len());
                Ok(ExitCode::from(1))
            }
        }
        Command::Bench(a) => {
            let r = bench::run(
                store,
                a.messages.max(1),
                a.payload_bytes,
                a.partitions.max(1),
                a.batch.max(1),
                a.latency_rate,
                a.seek_messages,
            )?;
            let mut out = io::stdout().lock();
            if a.json {
                serde_json::to_writer(&mut out, &r)?;
                writeln!(out)?;
            } else {
                writeln!(
                    out,
                    "{} messages of {} bytes ({}-byte lines), {} partitions",
                    r.messages, r.payload_bytes, r.line_bytes, r.partitions
                )?;
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
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::BenchFollow { topic, count } => done(bench::follow(store, &topic, count)),
        Command::AssignStdin => done(assign_stdin()),
        Command::SeedDemo => Ok(ExitCode::SUCCESS),
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
        TopicsCmd::Delete { name: topic, yes } => {
            name::validate_topic(&topic)?;
            // What goes with the topic, counted before anything is removed.
            // A topic whose files cannot be counted can still be deleted.
            let messages = match store.describe_topic(&topic) {
                Ok(d) => format!("{} messages in {} partitions", d.messages, d.partitions),
                Err(e @ EngineError::TopicNotFound { .. }) => return Err(e.into()),
                Err(e) => format!("messages not counted: {e}"),
            };
            if !yes {
                let groups = group::groups_reading(store, &topic)?;
                let groups = if groups.is_empty() {
                    "no consumer group reads it".to_string()
                } else {
                    format!("the consumer groups that read it go too, with their committed offsets: {}", groups.join(", "))
                };
                bail!(
                    "nothing deleted: `topics delete {topic}` would delete topic {topic:?} ({messages}); {groups}. \
                     To confirm, run again with --yes: twainmq topics delete {topic} --yes"
                );
            }
            let groups = store.delete_topic(&topic)?;
            writeln!(out, "deleted topic {topic} ({messages})")?;
            if groups.is_empty() {
                writeln!(out, "no consumer group read it")?;
            } else {
                writeln!(out, "deleted the consumer groups that read it: {}", groups.join(", "))?;
            }
        }
    }
    Ok(())
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct JsonlRecord {
    key: Box<serde_json::value::RawValue>,
    payload: Box<serde_json::value::RawValue>,
}

/// A key from JSON, as written: a number's digits (so 2^64 is refused as such, not rounded) or a string.
fn key_from_json(raw: &serde_json::value::RawValue) -> Result<String> {
    let text = raw.get().trim();
    if let Ok(s) = serde_json::from_str::<String>(text) {
        return Ok(s);
    }
    if text.starts_with(|c: char| c == '-' || c.is_ascii_digit()) {
        return Ok(text.to_string());
    }
    bail!("\"key\" must be a number or a string, not {text}")
}

/// Longest input line `produce --jsonl` reads, in bytes. No longer line holds
/// a message that fits the 4096-byte line limit (deflate shrinks at most about
/// 1032 times, so a line's ~3,300 deflated bytes hold under 3.4 MB, and JSON
/// spends at most 6 bytes on a payload byte), and reading stops there, so an
/// endless line cannot fill memory.
const MAX_INPUT_LINE: usize = 64 << 20;

/// One input line of `produce --jsonl` as a message, or `None` for a blank
/// line. Every way a line can be bad is an error here, before anything of it
/// is sent, so the caller sends everything before it and names it.
fn parse_input_line(producer: &twainmq::Producer, bytes: &[u8]) -> Result<Option<(Key, Outgoing)>> {
    if bytes.len() > MAX_INPUT_LINE {
        bail!(
            "the line is over {} MiB long (reading stopped there): no message that long fits the 4096-byte line limit",
            MAX_INPUT_LINE >> 20
        );
    }
    let text = std::str::from_utf8(bytes).map_err(|e| {
        let at = e.valid_up_to();
        let byte = bytes.get(at).map_or(String::new(), |b| format!(" (0x{b:02x})"));
        anyhow!(
            "the line is not UTF-8 text: byte {}{byte} is not valid UTF-8. JSON lines must be UTF-8; send binary payloads as {{\"type\": \"bytes\", \"hex\": ...}}",
            at + 1
        )
    })?;
    if text.trim().is_empty() {
        return Ok(None);
    }
    let rec: JsonlRecord = serde_json::from_str(text).context("not a {\"key\": K, \"payload\": P} object")?;
    let key = producer.parse_key(&key_from_json(&rec.key)?)?;
    let payload = Outgoing::from_json(rec.payload.get()).map_err(|e| anyhow!(e))?;
    Ok(Some((key, payload)))
}

/// The offset of a message just sent. A message is reported as written only
/// once it is found in the store: when it cannot be (its file was deleted or
/// replaced since), this is an error, never a `null` offset.
fn offset_of(producer: &mut twainmq::Producer, d: &twainmq::Delivery) -> Result<u64> {
    producer.resolve_offset(d).map_err(|e| {
        anyhow::Error::new(e).context(format!(
            "the message was written to partition {} ({}) but could not be found there afterwards, so it may not be in the topic",
            d.partition,
            d.path.display()
        ))
    })
}

fn produce(store: &Store, args: ProduceArgs) -> Result<()> {
    if args.batch && !args.jsonl {
        bail!("--batch sends lines of standard input in batches: use it with --jsonl");
    }
    let mut producer = store.producer(&args.topic)?.with_offsets(true);
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
        let offset = offset_of(&mut producer, &d)?;
        if args.json {
            serde_json::to_writer(&mut out, &serde_json::json!({"partition": d.partition, "offset": offset}))?;
            writeln!(out)?;
        } else {
            writeln!(out, "sent to partition {} at offset {offset}", d.partition)?;
        }
        return Ok(());
    }
    // With --batch, lines already read in are sent as one batch (whole lines
    // per write), so a fast pipe costs a write per batch, not per message;
    // before waiting for more input, whatever is pending is sent, so a slow
    // pipe adds no delay. Otherwise each message is sent alone, in input order,
    // which is what keeps "a killed producer wrote a prefix of its input" true:
    // a batch spans several partition files and no write covers them all.
    // Input is read as bytes: a line that is not UTF-8 is a bad line like any
    // other (everything before it sent, the line named), not a read error.
    let mut input = io::BufReader::with_capacity(1 << 16, io::stdin().lock());
    let mut sent = 0u64;
    let mut pending: Vec<(Key, Outgoing)> = Vec::new();
    let mut pending_lines: Vec<usize> = Vec::new();
    let mut line = Vec::new();
    let mut n = 0usize;
    loop {
        let more_ready = input.buffer().contains(&b'\n');
        if !pending.is_empty() && (!more_ready || pending.len() >= 1000) {
            send_pending(&mut producer, &mut pending, &mut pending_lines, &mut sent)?;
        }
        line.clear();
        // One byte past the limit tells a line that is too long from one that just fits.
        let limit = u64::try_from(MAX_INPUT_LINE).unwrap_or(u64::MAX).saturating_add(1);
        if input.by_ref().take(limit).read_until(b'\n', &mut line).context("reading standard input")? == 0 {
            break;
        }
        n += 1;
        let (key, payload) = match parse_input_line(&producer, &line) {
            Ok(Some(m)) => m,
            Ok(None) => continue,
            Err(e) => {
                // Everything before the bad line goes out first, as if sent one by one.
                send_pending(&mut producer, &mut pending, &mut pending_lines, &mut sent)?;
                return Err(e.context(format!("input line {n} (messages before it were sent: {sent})")));
            }
        };
        if args.batch {
            pending.push((key, payload));
            pending_lines.push(n);
            continue;
        }
        let context = |sent: u64| format!("input line {n} (messages before it were sent: {sent})");
        let d = producer.send(&key, &payload).map_err(|e| anyhow::Error::new(e).context(context(sent)))?;
        if args.json {
            let offset = offset_of(&mut producer, &d).map_err(|e| e.context(context(sent)))?;
            sent += 1;
            serde_json::to_writer(&mut out, &serde_json::json!({"partition": d.partition, "offset": offset}))?;
            writeln!(out)?;
        } else {
            sent += 1;
        }
    }
    send_pending(&mut producer, &mut pending, &mut pending_lines, &mut sent)?;
    out.flush()?;
    eprintln!("sent {sent} messages to {}", args.topic);
    Ok(())
}

/// Send the pending messages (read from input lines `lines`) as one batch.
/// A batch refusing a message writes nothing: then they go one by one, so
/// every message before the bad one is sent and the error names its line.
fn send_pending(
    producer: &mut twainmq::Producer,
    pending: &mut Vec<(Key, Outgoing)>,
    lines: &mut Vec<usize>,
    sent: &mut u64,
) -> Result<()> {
    let (Some(first), Some(last)) = (lines.first().copied(), lines.last().copied()) else { return Ok(()) };
    // A lone message goes out alone: its error then names just its line.
    let batch = if pending.len() > 1 { Some(producer.send_batch(pending)) } else { None };
    match batch {
        Some(Ok(n)) => *sent += n as u64,
        Some(Err(e)) if !e.is_invalid_message() => {
            return Err(anyhow::Error::new(e).context(format!(
                "input lines {first}-{last}, sent as one batch (messages before it were sent: {sent}; of the batch, each partition \
                 holds the lines written before the failure, in order: `twainmq consume` shows which)"
            )))
        }
        _ => {
            for ((key, payload), line) in pending.iter().zip(lines.iter()) {
                producer
                    .send(key, payload)
                    .map_err(|e| anyhow::Error::new(e).context(format!("input line {line} (messages before it were sent: {sent})")))?;
                *sent += 1;
            }
        }
    }
    pending.clear();
    lines.clear();
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
    let stop = stop_flag();
    let deadline = deadline_after(args.for_secs);
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

/// When `--for` ends, or `None` for never (no `--for`, or a deadline past
/// what this machine's clock can hold).
fn deadline_after(for_secs: Option<Duration>) -> Option<Instant> {
    for_secs.and_then(|d| Instant::now().checked_add(d))
}

fn write_message(out: &mut impl Write, m: &Message, json: bool) -> Result<()> {
    if json {
        // As an io::Error, so a closed pipe is told apart from other failures.
        serde_json::to_writer(&mut *out, &m.to_json()).map_err(io::Error::from)?;
        writeln!(out)?;
        return Ok(());
    }
    // Written piece by piece, without a String per field: `consume` into a
    // pipe should run near the engine's speed.
    write!(out, "{}/{}\t", m.partition, m.offset)?;
    match &m.key {
        Key::Int(v) => write!(out, "{v}\t")?,
        Key::Str(s) => write!(out, "{s:?}\t")?,
    }
    match m.time() {
        Some(t) => write_time(out, &t)?,
        None => write!(out, "{}", m.timestamp)?,
    }
    out.write_all(b"\t")?;
    match &m.payload {
        Payload::Text(s) => write_escaped(out, s)?,
        Payload::Bytes(b) => write!(out, "bytes {}", hex::encode(b))?,
        Payload::Typed(t) => write!(
            out,
            "{} {}",
            t.class.as_deref().unwrap_or("<unknown type>"),
            t.fields().map_or_else(|| t.json.clone(), |v| v.to_string())
        )?,
    }
    out.write_all(b"\n")?;
    Ok(())
}

/// `%Y-%m-%dT%H:%M:%S%.6fZ`, without chrono parsing its format string per message.
fn write_time(out: &mut impl Write, t: &chrono::DateTime<chrono::Utc>) -> io::Result<()> {
    use chrono::{Datelike, Timelike};
    let us = t.nanosecond() / 1000;
    write!(
        out,
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:06}Z",
        t.year(),
        t.month(),
        t.day(),
        t.hour(),
        t.minute(),
        t.second(),
        us.min(999_999)
    )
}

/// Text as `str::escape_debug` shows it; plain printable ASCII is copied as is.
fn write_escaped(out: &mut impl Write, s: &str) -> io::Result<()> {
    if s.bytes().all(|b| (0x20..0x7f).contains(&b) && b != b'\\' && b != b'"' && b != b'\'') {
        out.write_all(s.as_bytes())
    } else {
        write!(out, "{}", s.escape_debug())
    }
}

fn stop_flag() -> Arc<AtomicBool> {
    let stop = Arc::new(AtomicBool::new(false));
    let s = stop.clone();
    // SIGINT and SIGTERM set the flag; the loop then commits and leaves cleanly.
    let _ = ctrlc::set_handler(move || s.store(true, Ordering::SeqCst));
    stop
}

/// Why a group member's loop stopped early.
enum Stopped {
    /// Writing or flushing the output failed (a closed pipe, a full disk):
    /// what was polled since the last commit may not have been delivered.
    Output(anyhow::Error),
    /// The engine failed (polling, committing).
    Engine(anyhow::Error),
}

fn consume_group(store: &Store, args: ConsumeArgs) -> Result<()> {
    let group = args.group.clone().unwrap_or_default();
    if args.partition.is_some() {
        bail!("--partition cannot be used with --group: the group assigns partitions");
    }
    let start_from = match parse_from(&args.from)? {
        StartFrom::Offset(_) => {
            bail!("with --group, --from is start or now (where a new group begins); use `twainmq groups reset` to move a group")
        }
        f => f,
    };
    // (A group that does not exist yet is created by the join, which refuses
    // names we never create, such as ones ending in `.twc`.)
    let opts = GroupOptions { window: args.rebalance_window, start_from, auto_round: args.auto_round, ..GroupOptions::default() };
    let stop = stop_flag();
    let deadline = deadline_after(args.for_secs);
    let mut member = GroupMember::join(store, &args.topic, &group, opts)?;
    eprintln!("joined group {group} as member {}", member.id());
    let stdout = io::stdout();
    let mut out = io::BufWriter::with_capacity(1 << 16, stdout.lock());
    let (mut count, mut since_commit) = (0u64, 0u64);
    let mut assigned_once = false;
    // Invariant: a commit covers only messages whose write and flush
    // succeeded. `member.commit()` commits the read position, which is past
    // every message polled; so the output is flushed just before each commit,
    // and once a write or flush has failed nothing more is committed.
    let outcome = (|| -> Result<(), Stopped> {
        loop {
            if stop.load(Ordering::SeqCst) || args.max.is_some_and(|m| count >= m) || deadline.is_some_and(|d| Instant::now() >= d) {
                return Ok(());
            }
            let wait = deadline
                .map_or(Duration::from_millis(100), |d| d.saturating_duration_since(Instant::now()).min(Duration::from_millis(100)));
            match member.poll_timeout(wait) {
                Ok(Some(m)) => {
                    count += 1;
                    since_commit += 1;
                    write_message(&mut out, &m, args.json).map_err(Stopped::Output)?;
                    if since_commit >= args.commit_every {
                        out.flush().map_err(|e| Stopped::Output(e.into()))?;
                        member.commit().map_err(|e| Stopped::Engine(e.into()))?;
                        since_commit = 0;
                    }
                }
                Ok(None) => {
                    out.flush().map_err(|e| Stopped::Output(e.into()))?;
                    if member.round_open_until().is_none() {
                        assigned_once = true;
                    }
                    // Without --follow: stop at the end of the log, once the first round gave us partitions.
                    if !args.follow && assigned_once {
                        return Ok(());
                    }
                }
                Err(e @ EngineError::CorruptLine { .. }) => {
                    out.flush().map_err(|e| Stopped::Output(e.into()))?;
                    eprintln!("warning: {e}");
                }
                Err(e) => return Err(Stopped::Engine(e.into())),
            }
        }
    })();
    // A clean stop (end of the log, --max, --for, SIGINT, SIGTERM) still needs
    // its last lines flushed before the final commit covers them.
    let outcome = outcome.and_then(|()| out.flush().map_err(|e| Stopped::Output(e.into())));
    let id = member.id();
    let assigned = member.assignment().to_vec();
    let topic_deleted = |e: &anyhow::Error| e.downcast_ref::<EngineError>().is_some_and(|e| matches!(e, EngineError::TopicDeleted { .. }));
    match outcome {
        Ok(()) => {
            member.close()?;
            eprintln!("member {id} left group {group} after {count} messages (partitions {assigned:?}), offsets committed");
            Ok(())
        }
        Err(Stopped::Output(e)) => {
            // What was polled since the last commit may never have reached the
            // reader: leave without committing, so it is read again (by us
            // next time, or by whoever takes the partitions), never skipped.
            let left = member.close_without_commit();
            let why = if is_broken_pipe(&e) { "the output was closed" } else { "writing the output failed" };
            eprintln!(
                "member {id} left group {group} after {count} messages: {why}, so nothing since its last commit was committed (those messages will be read again)"
            );
            if let Err(l) = left {
                eprintln!("warning: member {id} could not leave group {group} cleanly: {l}");
            }
            Err(e)
        }
        Err(Stopped::Engine(e)) if topic_deleted(&e) => {
            // The topic (and with it the group) is gone or replaced: a commit
            // of positions in the old files would mean nothing in the new ones.
            if let Err(l) = member.close_without_commit() {
                eprintln!("warning: member {id} could not leave group {group} cleanly: {l}");
            }
            Err(e.context(format!("member {id} of group {group} stopped after {count} messages")))
        }
        Err(Stopped::Engine(e)) => {
            // Everything polled was written and flushed (the output did not
            // fail): committing it spares the next reader duplicates.
            if let Err(l) = member.close() {
                eprintln!("warning: member {id} could not commit and leave group {group} cleanly: {l}");
            }
            Err(e.context(format!("member {id} of group {group} stopped after {count} messages")))
        }
    }
}

fn groups(store: &Store, cmd: GroupsCmd) -> Result<()> {
    let mut out = io::stdout().lock();
    match cmd {
        GroupsCmd::List { json } => {
            let mut rows = Vec::new();
            for g in store.list_groups()? {
                let row = match group::read_log(store, &g).and_then(|log| group::group_topic_of(store, &g, &log).map(|t| (log, t))) {
                    Ok((log, (topic, _))) => serde_json::json!({
                        "group": g, "topic": topic, "members": log.members().len(), "round_open": log.open_round().is_some(),
                    }),
                    Err(e) => serde_json::json!({"group": g, "error": e.to_string()}),
                };
                rows.push(row);
            }
            if json {
                serde_json::to_writer(&mut out, &rows)?;
                writeln!(out)?;
            } else {
                for r in rows {
                    writeln!(
                        out,
                        "{}\ttopic {}\t{} members",
                        r["group"].as_str().unwrap_or_default(),
                        r["topic"].as_str().unwrap_or("?"),
                        r["members"]
                    )?;
                }
            }
        }
        GroupsCmd::Describe { group: g, json } => {
            let d = group::describe(store, &g)?;
            if json {
                serde_json::to_writer(&mut out, &d)?;
                writeln!(out)?;
                return Ok(());
            }
            writeln!(out, "group {} on topic {}", d.group, d.topic.as_deref().unwrap_or("(unknown)"))?;
            if d.topic.is_none() && !d.topic_candidates.is_empty() {
                writeln!(out, "candidate topics (matching partition count): {}", d.topic_candidates.join(", "))?;
            }
            for m in &d.members {
                writeln!(out, "member {}: partitions {:?}", m.id, m.partitions)?;
            }
            if let Some(r) = &d.open_round {
                writeln!(
                    out,
                    "round open: started by {} at offset {}, ends at {}, {} offers",
                    r.started_by,
                    r.begin_offset,
                    fmt_time(r.ends_at),
                    r.offers.len()
                )?;
            }
            writeln!(out, "partition  committed  end  lag  owner")?;
            for p in &d.partitions {
                let c = p.committed.map_or("-".to_string(), |c| c.to_string());
                let o = p.owner.map_or("-".to_string(), |o| o.to_string());
                writeln!(out, "{:>9}  {:>9}  {:>3}  {:>3}  {}", p.partition, c, p.end, p.lag, o)?;
            }
            writeln!(out, "{} rounds in the log, {} records", d.rounds.len(), d.records)?;
        }
        GroupsCmd::Reset { group: g, to, partition, dry_run, json } => {
            let target = ResetTo::parse(&to).map_err(|e| anyhow!(e))?;
            let parts = (!partition.is_empty()).then_some(partition.as_slice());
            let plan = group::reset(store, &g, target, parts, dry_run)?;
            if json {
                serde_json::to_writer(&mut out, &plan)?;
                writeln!(out)?;
            } else {
                writeln!(out, "partition  before  after  (start..end)")?;
                for r in &plan.rows {
                    let before = r.before.map_or("-".to_string(), |b| b.to_string());
                    writeln!(out, "{:>9}  {:>6}  {:>5}  ({}..{})", r.partition, before, r.after, r.start, r.end)?;
                }
                writeln!(out, "{}", if dry_run { "dry run: nothing written" } else { "committed" })?;
            }
            if !plan.live_members.is_empty() {
                eprintln!(
                    "warning: members {:?} hold partitions of {g}: their next commit overrides this reset, and they only read commits when they take a partition. Stop them first, or reset while the group is idle",
                    plan.live_members
                );
            }
        }
        GroupsCmd::Rebalance { group: g, window } => {
            group::trigger_round(store, &g, window)?;
            writeln!(out, "round opened in group {g}; it ends in {} s", window.as_secs_f64())?;
        }
    }
    Ok(())
}

fn fmt_time(t: f64) -> String {
    chrono::DateTime::from_timestamp_micros((t * 1e6) as i64)
        .map_or_else(|| t.to_string(), |d| d.format("%Y-%m-%dT%H:%M:%S%.3fZ").to_string())
}

fn assign_stdin() -> Result<()> {
    #[derive(serde::Deserialize)]
    struct OfferJson {
        own: Vec<u32>,
        partitions: Vec<u32>,
    }
    let mut out = io::BufWriter::new(io::stdout().lock());
    for line in io::stdin().lock().lines() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        let offers: Vec<(u32, OfferJson)> = serde_json::from_str(&line).context("an offer set")?;
        let offers: Vec<(u32, group::Offer)> =
            offers.into_iter().map(|(id, o)| (id, group::Offer { own: o.own, partitions: o.partitions })).collect();
        let result: std::collections::BTreeMap<String, Vec<u32>> =
            group::assign(&offers).into_iter().map(|(k, v)| (k.to_string(), v)).collect();
        serde_json::to_writer(&mut out, &result)?;
        writeln!(out)?;
    }
    out.flush()?;
    Ok(())
}
