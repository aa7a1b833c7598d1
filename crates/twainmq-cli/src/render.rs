//! The one renderer: every command's standard output is a typed value,
//! written as JSON (its `Serialize` form, one document and a newline) or as
//! text (its [`Text`] form). Commands never format their output themselves;
//! status lines and warnings go to standard error from the commands.
//!
//! The text forms are what the golden test (`tests/interop/test_golden_cli.py`)
//! pins byte for byte; change one only on purpose, and regenerate the golden files.

use std::io::{self, Write};

use anyhow::Result;
use serde::Serialize;
use twainmq::check::Problem;
use twainmq::group::{GroupDescription, ResetPlan};
use twainmq::TopicDescription;
use twainmq::{Key, Message, Payload};

use crate::report::BenchReport;

/// A value's text form, as `twainmq` prints it without `--json`.
pub(crate) trait Text {
    /// Write the text form, newline-terminated lines.
    fn text(&self, out: &mut dyn Write) -> io::Result<()>;
}

/// Write `value` to `out` as JSON (one document and a newline) or as text.
///
/// The JSON is built first and written with one `write_all`, so a closed pipe
/// (`| head`) is the `io::Error` it is and `is_broken_pipe` ends the command
/// quietly, as it does for text (serde_json's writer wrapped it in its own error).
pub(crate) fn emit<T: Serialize + Text + ?Sized>(out: &mut dyn Write, value: &T, json: bool) -> Result<()> {
    if json {
        let mut doc = serde_json::to_vec(value)?;
        doc.push(b'\n');
        out.write_all(&doc)?;
    } else {
        value.text(out)?;
    }
    Ok(())
}

/// Write a text-only value (a confirmation of what a command did).
pub(crate) fn emit_text<T: Text + ?Sized>(out: &mut dyn Write, value: &T) -> Result<()> {
    value.text(out)?;
    Ok(())
}

// ---- topics ----------------------------------------------------------------

/// A row of `topics list`: the topic's config, or why it cannot be read.
#[derive(Serialize)]
#[serde(untagged)]
pub(crate) enum TopicRow {
    Topic {
        name: String,
        key_type: String,
        partitions: u32,
        message_types: Vec<String>,
        /// Large messages: the topic's largest (the format's next version).
        #[serde(skip_serializing_if = "Option::is_none")]
        max_message_bytes: Option<u64>,
    },
    Unreadable {
        name: String,
        error: String,
    },
}

/// `topics list`.
#[derive(Serialize)]
#[serde(transparent)]
pub(crate) struct TopicList(pub(crate) Vec<TopicRow>);

impl Text for TopicList {
    fn text(&self, out: &mut dyn Write) -> io::Result<()> {
        for row in &self.0 {
            match row {
                TopicRow::Topic { name, key_type, partitions, max_message_bytes, .. } => {
                    writeln!(out, "{name}\t{key_type}\t{partitions} partitions{}", large_note(*max_message_bytes))?;
                }
                TopicRow::Unreadable { name, .. } => writeln!(out, "{name}\t(unreadable config)")?,
            }
        }
        Ok(())
    }
}

/// `topics describe`.
#[derive(Serialize)]
#[serde(transparent)]
pub(crate) struct TopicView(pub(crate) TopicDescription);

impl Text for TopicView {
    fn text(&self, out: &mut dyn Write) -> io::Result<()> {
        let d = &self.0;
        if d.max_message_bytes.is_some() {
            // Offsets count lines: a large message takes several (its offset is its last line's).
            writeln!(
                out,
                "topic {}: {} keys, {} partitions, {} lines, {} bytes{}",
                d.name,
                d.key_type,
                d.partitions,
                d.messages,
                d.bytes,
                large_note(d.max_message_bytes)
            )?;
        } else {
            writeln!(
                out,
                "topic {}: {} keys, {} partitions, {} messages, {} bytes",
                d.name, d.key_type, d.partitions, d.messages, d.bytes
            )?;
        }
        if d.key_type.is_free() || d.max_message_bytes.is_some() {
            writeln!(out, "format: the next version (key_width 0): twainmq 0.2.3 refuses to open this topic")?;
        }
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
        // (On standard output, in the text form only, as it always was.)
        for u in &d.unknown_files {
            writeln!(out, "warning: {u} in the topic folder is not a partition file")?;
        }
        Ok(())
    }
}

/// `, large messages up to N bytes` for a topic that has them.
fn large_note(max: Option<u64>) -> String {
    max.map_or_else(String::new, |n| format!(", large messages up to {n} bytes"))
}

/// `topics create`.
pub(crate) struct Created {
    pub(crate) name: String,
    pub(crate) key_type: twainmq::KeyType,
    pub(crate) partitions: u32,
    pub(crate) max_message_bytes: Option<u64>,
}

impl Text for Created {
    fn text(&self, out: &mut dyn Write) -> io::Result<()> {
        writeln!(
            out,
            "created topic {} ({}, {} partitions{})",
            self.name,
            self.key_type,
            self.partitions,
            large_note(self.max_message_bytes)
        )?;
        if self.key_type.is_free() || self.max_message_bytes.is_some() {
            writeln!(out, "(the format's next version: twainmq 0.2.3 cannot open this topic; twainmq-rs and this command can)")?;
        }
        Ok(())
    }
}

/// `topics delete --yes`.
pub(crate) struct Deleted {
    pub(crate) topic: String,
    /// What went with it, as counted before: "N messages in P partitions" or why not counted.
    pub(crate) messages: String,
    pub(crate) groups: Vec<String>,
}

impl Text for Deleted {
    fn text(&self, out: &mut dyn Write) -> io::Result<()> {
        writeln!(out, "deleted topic {} ({})", self.topic, self.messages)?;
        if self.groups.is_empty() {
            writeln!(out, "no consumer group read it")
        } else {
            writeln!(out, "deleted the consumer groups that read it: {}", self.groups.join(", "))
        }
    }
}

// ---- produce ---------------------------------------------------------------

/// Where a produced message landed.
#[derive(Serialize)]
pub(crate) struct Sent {
    pub(crate) partition: u32,
    pub(crate) offset: u64,
}

impl Text for Sent {
    fn text(&self, out: &mut dyn Write) -> io::Result<()> {
        writeln!(out, "sent to partition {} at offset {}", self.partition, self.offset)
    }
}

// ---- consume ---------------------------------------------------------------

/// One consumed message, as a JSON object or a text line
/// `partition/offset<TAB>key<TAB>time<TAB>payload`.
///
/// Not through [`emit`]: this runs per message, so it writes piece by piece,
/// without a String per field (`consume` into a pipe should run near the
/// engine's speed), and every failure is an `io::Error`, so a closed pipe is
/// told apart from other failures.
pub(crate) fn message(out: &mut impl Write, m: &Message, json: bool) -> io::Result<()> {
    if json {
        serde_json::to_writer(&mut *out, &m.to_json()).map_err(io::Error::from)?;
        return out.write_all(b"\n");
    }
    write!(out, "{}/{}\t", m.partition, m.offset)?;
    match &m.key {
        Key::Int(v) => write!(out, "{v}\t")?,
        Key::Str(s) => write!(out, "{s:?}\t")?,
        Key::Bytes(b) => write!(out, "0x{}\t", hex::encode(b))?,
        Key::Null => out.write_all(b"null\t")?,
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
    out.write_all(b"\n")
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

// ---- import ----------------------------------------------------------------

/// `import`: what was written, or in a dry run would be.
#[derive(Serialize)]
#[serde(transparent)]
pub(crate) struct Imported(pub(crate) twainmq::transfer::ImportReport);

impl Text for Imported {
    fn text(&self, out: &mut dyn Write) -> io::Result<()> {
        let r = &self.0;
        let verb = if r.dry_run { "would write" } else { "wrote" };
        writeln!(out, "{verb} {} messages from {} lines", r.messages, r.lines)?;
        let parts: Vec<String> = r.partitions.iter().enumerate().filter(|(_, n)| **n > 0).map(|(p, n)| format!("{p}: {n}")).collect();
        if !parts.is_empty() {
            writeln!(out, "partitions: {}", parts.join(", "))?;
        }
        match &r.first_bad {
            Some(b) => {
                writeln!(out, "{} bad lines; the first is line {}: {}", r.bad_lines, b.line, b.problem)?;
                // The count above is with --skip-bad: without it the first bad line ends the import.
                match r.messages_before_first_bad {
                    Some(n) => writeln!(
                        out,
                        "without --skip-bad the import writes the {n} messages before line {}, then stops there: nothing after it is written",
                        b.line
                    ),
                    None => Ok(()),
                }
            }
            None => writeln!(out, "no bad lines"),
        }
    }
}

/// An import that stopped: what is in the topic (`import`'s report on an error).
#[derive(Serialize)]
pub(crate) struct ImportStopped {
    /// Messages of the input in the topic.
    pub(crate) messages: u64,
    /// Of those, each partition's.
    pub(crate) partitions: Vec<u64>,
    pub(crate) stopped: StoppedAt,
}

/// Where an import stopped.
#[derive(Serialize)]
pub(crate) struct StoppedAt {
    /// Every input line before this one is in the topic.
    pub(crate) line: u64,
    /// Lines after it that are in the topic too.
    pub(crate) landed_after: Vec<u64>,
    /// The error's code.
    pub(crate) error: &'static str,
    pub(crate) message: String,
}

impl Text for ImportStopped {
    fn text(&self, out: &mut dyn Write) -> io::Result<()> {
        writeln!(out, "wrote {} messages before stopping", self.messages)?;
        let parts: Vec<String> = self.partitions.iter().enumerate().filter(|(_, n)| **n > 0).map(|(p, n)| format!("{p}: {n}")).collect();
        if !parts.is_empty() {
            writeln!(out, "partitions: {}", parts.join(", "))?;
        }
        let after = &self.stopped.landed_after;
        if after.is_empty() {
            writeln!(out, "in the topic: every input line before line {}, nothing from it on", self.stopped.line)
        } else {
            writeln!(
                out,
                "in the topic: every input line before line {}, and {} lines after it (--json lists them)",
                self.stopped.line,
                after.len()
            )
        }
    }
}

// ---- retention ---------------------------------------------------------------

/// `retention show` / `set`.
#[derive(Serialize)]
pub(crate) struct RetentionView {
    pub(crate) topic: String,
    pub(crate) retention: Option<twainmq::Retention>,
}

impl Text for RetentionView {
    fn text(&self, out: &mut dyn Write) -> io::Result<()> {
        match &self.retention {
            None => writeln!(out, "topic {}: no retention (every file is kept)", self.topic),
            Some(r) => {
                let days = r.days.map_or("any age".to_string(), |d| format!("{d} days"));
                let bytes = r.bytes_per_partition.map_or("any size".to_string(), |b| format!("{b} bytes a partition"));
                writeln!(out, "topic {}: keep {days}, {bytes}", self.topic)
            }
        }
    }
}

/// `retention apply`, `topics purge`: each plan's files.
#[derive(Serialize)]
#[serde(transparent)]
pub(crate) struct Plans(pub(crate) Vec<twainmq::RetentionPlan>);

impl Text for Plans {
    fn text(&self, out: &mut dyn Write) -> io::Result<()> {
        for plan in &self.0 {
            let (files, messages, bytes) = plan.totals();
            let verb = if plan.applied { "deleted" } else { "would delete" };
            writeln!(out, "topic {}: {verb} {files} files, {messages} messages, {bytes} bytes", plan.topic)?;
            for f in &plan.files {
                let what = if f.deleted {
                    if plan.applied {
                        "deleted"
                    } else {
                        "goes"
                    }
                } else {
                    "kept"
                };
                write!(out, "  {what}  {}  {} messages  {} bytes", f.name, f.messages, f.bytes)?;
                if !f.unconsumed_by.is_empty() {
                    let how = if f.deleted { "unconsumed by" } else { "not yet consumed by" };
                    write!(out, "  ({how} {})", f.unconsumed_by.join(", "))?;
                }
                writeln!(out)?;
            }
            for c in &plan.created {
                writeln!(out, "  new empty file {c} (offsets go on from there)")?;
            }
            if !plan.created.is_empty() {
                writeln!(out, "  stop 0.2.3 producers of this topic first: one running now would write on under its deleted file's name")?;
                writeln!(
                    out,
                    "  restart 0.2.3 consumers of this topic after it: one running now stays on its deleted file and sees no new message until UTC midnight"
                )?;
            }
            for u in &plan.unknown_groups {
                writeln!(
                    out,
                    "  group {}: {}, so what it consumed cannot be told: it holds every file{}",
                    u.group,
                    u.why,
                    if plan.files.iter().any(|f| f.deleted && f.unconsumed_by.contains(&u.group)) { " (forced past)" } else { "" }
                )?;
            }
            if plan.files.iter().any(|f| !f.deleted) {
                writeln!(out, "  files kept for groups go with --force")?;
            }
        }
        Ok(())
    }
}

// ---- groups ----------------------------------------------------------------

/// A row of `groups list`: the group's topic and members, or why its log cannot be read.
#[derive(Serialize)]
#[serde(untagged)]
pub(crate) enum GroupRow {
    Group { group: String, topic: Option<String>, members: usize, round_open: bool, state: &'static str, live_members: usize },
    Unreadable { group: String, error: String },
}

/// `groups list`.
#[derive(Serialize)]
#[serde(transparent)]
pub(crate) struct GroupList(pub(crate) Vec<GroupRow>);

impl Text for GroupList {
    fn text(&self, out: &mut dyn Write) -> io::Result<()> {
        for row in &self.0 {
            // An unreadable group shows `topic ?` and `null members`, as it always has.
            match row {
                GroupRow::Group { group, topic, members, state, live_members, .. } => {
                    let topic = topic.as_deref().unwrap_or("?");
                    writeln!(out, "{group}\ttopic {topic}\t{state}\t{live_members} live of {members} members")?;
                }
                GroupRow::Unreadable { group, .. } => writeln!(out, "{group}\ttopic ?\tnull members")?,
            }
        }
        Ok(())
    }
}

/// `groups describe`.
#[derive(Serialize)]
#[serde(transparent)]
pub(crate) struct GroupView(pub(crate) GroupDescription);

impl Text for GroupView {
    fn text(&self, out: &mut dyn Write) -> io::Result<()> {
        let d = &self.0;
        writeln!(out, "group {} on topic {}", d.group, d.topic.as_deref().unwrap_or("(unknown)"))?;
        if d.topic.is_none() && !d.topic_candidates.is_empty() {
            writeln!(out, "candidate topics (matching partition count): {}", d.topic_candidates.join(", "))?;
        }
        writeln!(out, "state: {}: {} (inferred from the group log)", d.state.as_str(), d.state_reason)?;
        for m in &d.members {
            writeln!(
                out,
                "member {} [{}]: partitions {:?}, {}: {}",
                m.id,
                m.client_label(),
                m.partitions,
                m.status.as_str(),
                m.status_reason
            )?;
        }
        for m in &d.former_members {
            writeln!(out, "former member {}: {}: {}", m.id, m.status.as_str(), m.status_reason)?;
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
            let past = p.past_end.map_or(String::new(), |n| format!("  PAST THE END by {n}"));
            writeln!(out, "{:>9}  {:>9}  {:>3}  {:>3}  {}{past}", p.partition, c, p.end, p.lag, o)?;
        }
        // A lag of 0 hides it: say what a commit past the end means, and the way out.
        for p in d.partitions.iter().filter(|p| p.past_end.is_some()) {
            let (n, c) = (p.past_end.unwrap_or(0), p.committed.unwrap_or(0));
            writeln!(
                out,
                "warning: partition {} has commit {c}, past its end {}: the next {n} {} written there will be skipped by this group. The partition shrank under the commit (a file truncated or deleted, the topic made again). To read from its end: twainmq groups reset {} --to latest --partition {}",
                p.partition,
                p.end,
                if n == 1 { "message" } else { "messages" },
                d.group,
                p.partition
            )?;
        }
        writeln!(out, "{} rounds in the log, {} records", d.rounds.len(), d.records)
    }
}

/// `groups reset`: the before/after table.
#[derive(Serialize)]
#[serde(transparent)]
pub(crate) struct ResetView(pub(crate) ResetPlan);

impl Text for ResetView {
    fn text(&self, out: &mut dyn Write) -> io::Result<()> {
        writeln!(out, "partition  before  after  (start..end)")?;
        for r in &self.0.rows {
            let before = r.before.map_or("-".to_string(), |b| b.to_string());
            writeln!(out, "{:>9}  {:>6}  {:>5}  ({}..{})", r.partition, before, r.after, r.start, r.end)?;
        }
        // `applied` is false exactly for a dry run.
        writeln!(out, "{}", if self.0.applied { "committed" } else { "dry run: nothing written" })
    }
}

/// `groups rebalance`.
#[derive(Serialize)]
pub(crate) struct RoundOpened {
    pub(crate) group: String,
    #[serde(rename = "window_secs", serialize_with = "secs")]
    pub(crate) window: std::time::Duration,
}

fn secs<S: serde::Serializer>(d: &std::time::Duration, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_f64(d.as_secs_f64())
}

impl Text for RoundOpened {
    fn text(&self, out: &mut dyn Write) -> io::Result<()> {
        writeln!(out, "round opened in group {}; it ends in {} s", self.group, self.window.as_secs_f64())
    }
}

/// UNIX seconds as `%Y-%m-%dT%H:%M:%S%.3fZ` (the number itself when out of chrono's range).
pub(crate) fn fmt_time(t: f64) -> String {
    // Saturating float-to-int cast: an absurd time falls out of chrono's range
    // and is shown as the number, never wraps.
    chrono::DateTime::from_timestamp_micros((t * 1e6) as i64)
        .map_or_else(|| t.to_string(), |d| d.format("%Y-%m-%dT%H:%M:%S%.3fZ").to_string())
}

// ---- check -----------------------------------------------------------------

/// `check`: one line a problem, `topic[/partition][ file[:line]][ offset N]: message (kind)`.
#[derive(Serialize)]
#[serde(transparent)]
pub(crate) struct Problems(pub(crate) Vec<Problem>);

impl Text for Problems {
    fn text(&self, out: &mut dyn Write) -> io::Result<()> {
        for p in &self.0 {
            let place = match (&p.file, p.line) {
                (Some(f), Some(l)) => format!(" {f}:{l}"),
                (Some(f), None) => format!(" {f}"),
                _ => String::new(),
            };
            let part = p.partition.map_or(String::new(), |p| format!("/{p}"));
            let off = p.offset.map_or(String::new(), |o| format!(" offset {o}"));
            writeln!(out, "{}{part}{place}{off}: {} ({})", p.topic, p.message, p.kind)?;
        }
        Ok(())
    }
}

// ---- bench -----------------------------------------------------------------

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

// ---- mirror ----------------------------------------------------------------

/// `mirror`'s summary.
#[derive(Serialize)]
#[serde(transparent)]
pub(crate) struct MirrorSummary(pub(crate) twainmq_kafka::Summary);

impl Text for MirrorSummary {
    fn text(&self, out: &mut dyn Write) -> io::Result<()> {
        let s = &self.0;
        let way = match s.direction {
            twainmq_kafka::Direction::ToKafka => "to",
            twainmq_kafka::Direction::FromKafka => "from",
        };
        let state = if s.interrupted { "interrupted" } else { "done" };
        writeln!(out, "mirror {way} kafka://{}: {state} in {:.1} s", s.broker, s.seconds)?;
        for t in &s.topics {
            let name = if t.source == t.target { t.source.clone() } else { format!("{} -> {}", t.source, t.target) };
            let created = if t.created { ", target created" } else { "" };
            let resumed: Vec<String> = t.resumed_from.iter().map(u64::to_string).collect();
            writeln!(
                out,
                "  {name}: {} mirrored ({} bytes), {} from the target left out, {} partitions from offsets {}{created}",
                t.mirrored,
                t.bytes,
                t.skipped_from_target,
                t.partitions,
                resumed.join(",")
            )?;
            if t.retries > 0 {
                writeln!(out, "    {} retries after the cluster failed", t.retries)?;
            }
            for g in &t.groups {
                let moved: Vec<String> = g.written.iter().map(|(p, from, to)| format!("{p}: {from} -> {to}")).collect();
                match &g.note {
                    Some(note) => writeln!(out, "    group {}: {note}", g.group)?,
                    None if moved.is_empty() => writeln!(out, "    group {}: already there", g.group)?,
                    None => writeln!(out, "    group {}: committed {}", g.group, moved.join(", "))?,
                }
            }
        }
        Ok(())
    }
}
