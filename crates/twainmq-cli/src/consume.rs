//! `twainmq consume`: read a topic alone, or as a member of a consumer group.
//!
//! Both share one loop ([`pump`]); what differs is the [`Source`]: a plain
//! consumer never commits and stops at the end of the log, a group member
//! commits every `--commit-every` messages and stops at the end of the log
//! only once a round has given it partitions.

use std::io::{self, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{anyhow, bail, Result};
use twainmq::group::{ClientInfo, GroupMember, GroupOptions};
use twainmq::{Consumer, Error as EngineError, Message, StartFrom, Store, Timeline, TimelineStart};

use crate::args::ConsumeArgs;
use crate::render;

/// The longest single wait for a message, so the stop flag and the deadline
/// are looked at at least this often.
const POLL_WAIT: Duration = Duration::from_millis(100);

pub(crate) fn run(store: &Store, args: ConsumeArgs) -> Result<()> {
    match (&args.group, args.by_time) {
        (Some(_), true) => {
            bail!("--by-time cannot be used with --group: a member reads the partitions the group assigns, in their own order")
        }
        (Some(_), false) => consume_group(store, args),
        (None, true) => consume_by_time(store, args),
        (None, false) => consume(store, args),
    }
}

/// `--from` for a timeline: start, now, or an RFC 3339 time.
fn parse_time_from(text: &str) -> Result<TimelineStart> {
    match text {
        "start" | "earliest" => Ok(TimelineStart::Start),
        "now" | "end" | "latest" => Ok(TimelineStart::End),
        t => chrono::DateTime::parse_from_rfc3339(t)
            .map(|d| TimelineStart::Time(crate::flags::unix_secs(&d)))
            .map_err(|e| anyhow!("with --by-time, --from takes start, now or an RFC 3339 time like 2026-11-30T12:00:00Z, not {t:?} ({e})")),
    }
}

pub(crate) fn parse_from(text: &str) -> Result<StartFrom> {
    match text {
        "start" | "earliest" => Ok(StartFrom::Start),
        "now" | "end" | "latest" => Ok(StartFrom::Now),
        t => t.parse().map(StartFrom::Offset).map_err(|_| anyhow!("--from must be start, now or an offset (a whole number), not {t:?}")),
    }
}

/// Why the loop stopped early.
enum Stopped {
    /// Writing or flushing the output failed (a closed pipe, a full disk):
    /// what was polled since the last commit may not have been delivered.
    Output(anyhow::Error),
    /// The engine failed (polling, committing).
    Engine(anyhow::Error),
}

impl Stopped {
    fn output(e: io::Error) -> Stopped {
        Stopped::Output(e.into())
    }

    fn engine(e: EngineError) -> Stopped {
        Stopped::Engine(e.into())
    }

    fn into_error(self) -> anyhow::Error {
        match self {
            Stopped::Output(e) | Stopped::Engine(e) => e,
        }
    }
}

/// Where the loop's messages come from.
trait Source {
    /// The next message, waiting at most `wait` for one when the source waits at all.
    fn next(&mut self, follow: bool, wait: Duration) -> twainmq::Result<Option<Message>>;
    /// At the end of what is there now: whether to stop (never with `--follow`).
    fn stop_at_end(&mut self, follow: bool) -> bool;
    /// Messages between commits, or `None` for a source that never commits.
    fn commit_every(&self) -> Option<u64>;
    /// Commit the read position (past every message polled so far).
    fn commit(&mut self) -> twainmq::Result<()>;
}

/// A plain consumer, or a timeline: reads what is there (or waits with
/// `--follow`), commits nothing. Both readers have the same `poll` and
/// `poll_timeout`, so one impl serves them.
macro_rules! plain_source {
    ($reader:ty) => {
        impl Source for $reader {
            fn next(&mut self, follow: bool, wait: Duration) -> twainmq::Result<Option<Message>> {
                if follow {
                    self.poll_timeout(wait)
                } else {
                    self.poll()
                }
            }

            fn stop_at_end(&mut self, follow: bool) -> bool {
                !follow
            }

            fn commit_every(&self) -> Option<u64> {
                None
            }

            fn commit(&mut self) -> twainmq::Result<()> {
                Ok(())
            }
        }
    };
}

plain_source!(Consumer);
plain_source!(Timeline);

/// A group member: always waits (its assignment can come in any poll).
struct Member {
    member: GroupMember,
    commit_every: u64,
    /// Whether a round has ended since we joined, so our assignment is known.
    assigned_once: bool,
}

impl Source for Member {
    fn next(&mut self, _follow: bool, wait: Duration) -> twainmq::Result<Option<Message>> {
        self.member.poll_timeout(wait)
    }

    fn stop_at_end(&mut self, follow: bool) -> bool {
        if self.member.round_open_until().is_none() {
            self.assigned_once = true;
        }
        // Without --follow: stop at the end of the log, once the first round gave us partitions.
        !follow && self.assigned_once
    }

    fn commit_every(&self) -> Option<u64> {
        Some(self.commit_every)
    }

    fn commit(&mut self) -> twainmq::Result<()> {
        self.member.commit()
    }
}

/// What the loop has done so far.
#[derive(Default)]
struct Counts {
    /// Messages written out.
    messages: u64,
    /// Damaged lines skipped (each warned about).
    damaged: u64,
}

/// The flags that shape the loop.
struct Limits {
    follow: bool,
    json: bool,
    max: Option<u64>,
    /// When `--for` ends, or `None` for never.
    deadline: Option<Instant>,
}

/// The consume loop: poll `src`, write each message to `out`, until the end of
/// the log (as `src` decides), `--max`, `--for`, SIGINT or SIGTERM.
///
/// Invariant: a commit covers only messages whose write and flush succeeded.
/// `src.commit()` commits the read position, which is past every message
/// polled; so the output is flushed just before each commit, and the first
/// failed write or flush ends the loop, so nothing is committed after it. A
/// clean stop flushes the last lines before returning, so the caller's final
/// commit covers only delivered messages too.
fn pump(src: &mut impl Source, out: &mut impl Write, limits: &Limits, stop: &AtomicBool, n: &mut Counts) -> Result<(), Stopped> {
    let mut since_commit = 0u64;
    loop {
        if stop.load(Ordering::SeqCst)
            || limits.max.is_some_and(|m| n.messages >= m)
            || limits.deadline.is_some_and(|d| Instant::now() >= d)
        {
            break;
        }
        let wait = limits.deadline.map_or(POLL_WAIT, |d| d.saturating_duration_since(Instant::now()).min(POLL_WAIT));
        match src.next(limits.follow, wait) {
            Ok(Some(m)) => {
                n.messages += 1;
                since_commit += 1;
                render::message(out, &m, limits.json).map_err(Stopped::output)?;
                if src.commit_every().is_some_and(|every| since_commit >= every) {
                    out.flush().map_err(Stopped::output)?;
                    src.commit().map_err(Stopped::engine)?;
                    since_commit = 0;
                }
            }
            Ok(None) => {
                out.flush().map_err(Stopped::output)?;
                if src.stop_at_end(limits.follow) {
                    break;
                }
            }
            Err(e @ EngineError::CorruptLine { .. }) => {
                // The warning follows the lines before it, not ahead of them.
                n.damaged += 1;
                out.flush().map_err(Stopped::output)?;
                eprintln!("warning: {e}");
            }
            Err(e) => return Err(Stopped::engine(e)),
        }
    }
    out.flush().map_err(Stopped::output)
}

/// When `--for` ends, or `None` for never (no `--for`, or a deadline past
/// what this machine's clock can hold).
fn deadline_after(for_secs: Option<Duration>) -> Option<Instant> {
    for_secs.and_then(|d| Instant::now().checked_add(d))
}

fn limits(args: &ConsumeArgs) -> Limits {
    Limits { follow: args.follow, json: args.json, max: args.max, deadline: deadline_after(args.for_secs) }
}

/// A flag that SIGINT and SIGTERM set; the loop then stops (and a member commits and leaves) cleanly.
fn stop_flag() -> Arc<AtomicBool> {
    let stop = Arc::new(AtomicBool::new(false));
    let s = stop.clone();
    let _ = ctrlc::set_handler(move || s.store(true, Ordering::SeqCst));
    stop
}

fn consume(store: &Store, args: ConsumeArgs) -> Result<()> {
    let from = parse_from(&args.from)?;
    let mut consumer = match args.partition {
        Some(p) => store.consumer_of(&args.topic, &[p], from)?,
        None => store.consumer(&args.topic, from)?,
    };
    let stop = stop_flag();
    let limits = limits(&args);
    let stdout = io::stdout();
    let mut out = io::BufWriter::with_capacity(1 << 16, stdout.lock());
    let mut n = Counts::default();
    pump(&mut consumer, &mut out, &limits, &stop, &mut n).map_err(Stopped::into_error)?;
    if n.damaged > 0 {
        eprintln!("warning: skipped {} damaged lines", n.damaged);
    }
    Ok(())
}

fn consume_by_time(store: &Store, args: ConsumeArgs) -> Result<()> {
    let start = parse_time_from(&args.from)?;
    let only = args.partition.map(|p| vec![p]);
    let mut timeline = store.timeline(&args.topic, only.as_deref(), &start)?;
    let stop = stop_flag();
    let limits = limits(&args);
    let stdout = io::stdout();
    let mut out = io::BufWriter::with_capacity(1 << 16, stdout.lock());
    let mut n = Counts::default();
    pump(&mut timeline, &mut out, &limits, &stop, &mut n).map_err(Stopped::into_error)?;
    Ok(())
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
    let opts = GroupOptions {
        window: args.rebalance_window,
        start_from,
        auto_round: args.auto_round,
        client: Some(ClientInfo::this_process("twainmq-cli", env!("CARGO_PKG_VERSION"))),
        ..GroupOptions::default()
    };
    let stop = stop_flag();
    let limits = limits(&args);
    let member = GroupMember::join(store, &args.topic, &group, opts)?;
    eprintln!("joined group {group} as member {}", member.id());
    let mut src = Member { member, commit_every: args.commit_every, assigned_once: false };
    let stdout = io::stdout();
    let mut out = io::BufWriter::with_capacity(1 << 16, stdout.lock());
    let mut n = Counts::default();
    let outcome = pump(&mut src, &mut out, &limits, &stop, &mut n);
    let (member, count) = (src.member, n.messages);
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
            let why = if crate::is_broken_pipe(&e) { "the output was closed" } else { "writing the output failed" };
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
