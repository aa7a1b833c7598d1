//! Import: JSONL or CSV lines into a topic, a dry run first if asked; each
//! bad line stops the import (everything before it written) or, with
//! `skip_bad`, is reported and passed over.

use std::io::{BufRead, Read};
use std::sync::atomic::{AtomicBool, Ordering};

use super::records::{self, Record};
use super::send::{Refused, Sender};
use super::Progress;
use crate::error::{Error, Result, TransferError};
use crate::format::config::TopicConfig;
use crate::log::producer::valid_stamp;
use crate::scan::Finish;
use crate::store::Store;

/// Longest input line read, in bytes, for a topic of 0.2.3's format: no
/// longer line holds a message that fits the 4,096-byte line limit (deflate
/// shrinks at most about 1,032 times, and JSON spends at most 6 bytes on a
/// payload byte); reading stops there, so an endless line cannot fill memory.
/// A topic with large messages takes lines of its largest message as hex
/// ([`max_input_line`]).
const MAX_INPUT_LINE: usize = 64 << 20;

/// The longest input line (or CSV row) an import into a topic of `config`
/// reads: [`MAX_INPUT_LINE`], or for large messages a bytes message of the
/// topic's largest size as hex, with room for its key and fields.
pub(crate) fn max_input_line(config: &TopicConfig) -> usize {
    let large = config.max_message_bytes.map_or(0, |m| usize::try_from(m).unwrap_or(usize::MAX).saturating_mul(2).saturating_add(1 << 20));
    MAX_INPUT_LINE.max(large)
}

/// What the payload cell of a CSV row holds.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum PayloadColumn {
    /// As `export` writes it: the `kind` column says (`str`, `bytes` as hex,
    /// `dataclass` with the `class` column); text when there is no `kind` column.
    #[default]
    Auto,
    /// Text, as it is.
    Text,
    /// JSON, checked to be JSON and sent as text.
    Json,
    /// Bytes in hex.
    Hex,
    /// The fields (a JSON object) of a typed message of this class of the topic.
    Typed(String),
}

/// The input's format.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ImportFormat {
    /// One object a line: `{"key","payload"}`, or a line of `export` /
    /// `consume --json` (its `timestamp` kept with `keep_timestamps`).
    Jsonl,
    /// A header row naming the columns, then one message a row.
    Csv {
        /// The key's column (by header name).
        key: String,
        /// The payload's column.
        payload: String,
        /// What the payload column holds.
        kind: PayloadColumn,
        /// The timestamp's column (RFC 3339 or UNIX seconds), for `keep_timestamps`.
        timestamp: String,
    },
}

impl ImportFormat {
    /// CSV with `export`'s columns.
    pub fn csv() -> ImportFormat {
        ImportFormat::Csv { key: "key".into(), payload: "payload".into(), kind: PayloadColumn::Auto, timestamp: "timestamp".into() }
    }
}

/// How to import.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImportOptions {
    /// The input's format.
    pub format: ImportFormat,
    /// Read and check everything, write nothing.
    pub dry_run: bool,
    /// Keep the input's timestamps (each line must have one), else stamp now.
    pub keep_timestamps: bool,
    /// Report and pass over bad lines instead of stopping at the first.
    pub skip_bad: bool,
    /// Go on from where an import of this input stopped: the lines it wrote
    /// are passed over, so nothing lands twice.
    pub resume: Option<Resume>,
}

/// Where an import of the same input stopped ([`TransferError::ImportStopped`]'s
/// `line` and `landed_after`): what is in the topic already, to pass over.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Resume {
    /// Every input line before this one is passed over (written by the earlier
    /// run, or a bad line it skipped).
    pub line: u64,
    /// Lines from `line` on whose messages landed anyway: passed over too.
    pub landed_after: Vec<u64>,
}

impl Resume {
    /// Whether input line `line` was dealt with by the run this resumes.
    fn passes_over(&self, line: u64) -> bool {
        line < self.line || self.landed_after.binary_search(&line).is_ok()
    }

    /// The lines of `landed_after` after `line`: a run that stops there again must
    /// hand them on, or the next resume would write them twice.
    fn landed_beyond(&self, line: u64) -> impl Iterator<Item = u64> + '_ {
        self.landed_after.iter().copied().filter(move |&l| l > line)
    }
}

/// A bad input line: its number (from 1) and what is wrong with it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct SkippedLine {
    /// The line's number, from 1 (a CSV row's first line).
    pub line: u64,
    /// What is wrong with it.
    pub problem: String,
}

/// What an import did (or, in a dry run, would do).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct ImportReport {
    /// Whether this was a dry run (nothing written).
    pub dry_run: bool,
    /// Input lines read (blank lines and a CSV header included).
    pub lines: u64,
    /// Messages written, or in a dry run, that would be.
    pub messages: u64,
    /// Of those, how many each partition gets, by partition.
    pub partitions: Vec<u64>,
    /// Bad lines found (skipped with `skip_bad`; in a dry run, all of them).
    pub bad_lines: u64,
    /// The first bad line.
    pub first_bad: Option<SkippedLine>,
    /// In a dry run: the messages of the lines before the first bad line, which
    /// an import that does not skip bad lines writes before it stops there.
    pub messages_before_first_bad: Option<u64>,
    /// Input lines passed over because the run this resumes dealt with them
    /// ([`ImportOptions::resume`]): neither written nor checked again.
    pub passed_over: u64,
    /// Whether the input was read to its end or the import cancelled.
    #[serde(skip)]
    pub finish: Finish,
}

/// Import `input` into `topic` as `opts` says. `on_skipped` is told each bad
/// line passed over (with `skip_bad`, or in a dry run).
///
/// # Errors
/// Topic errors before anything is read; [`TransferError::ImportStopped`]
/// naming the line and the count written for a bad line (without
/// `skip_bad`) or a failed write (a full disk: the count is what landed).
pub fn import(
    store: &Store,
    topic: &str,
    input: &mut dyn BufRead,
    opts: &ImportOptions,
    cancel: &AtomicBool,
    on_progress: &mut dyn FnMut(Progress),
    on_skipped: &mut dyn FnMut(&SkippedLine),
) -> Result<ImportReport> {
    let config = store.topic_config(topic)?;
    // The resume's lines sorted, to be looked up.
    let mut owned = opts.clone();
    if let Some(r) = owned.resume.as_mut() {
        r.landed_after.sort_unstable();
        r.landed_after.dedup();
    }
    let opts = &owned;
    let mut run = Run {
        opts,
        sender: Sender::new(store.producer(topic)?),
        lines_of_batch: Vec::with_capacity(super::BATCH),
        parts_of_batch: Vec::with_capacity(super::BATCH),
        report: ImportReport {
            dry_run: opts.dry_run,
            lines: 0,
            messages: 0,
            partitions: vec![0; config.partitions as usize],
            bad_lines: 0,
            first_bad: None,
            messages_before_first_bad: None,
            passed_over: 0,
            finish: Finish::Done,
        },
        on_skipped,
    };
    let finish = match &opts.format {
        ImportFormat::Jsonl => read_jsonl(&mut run, &config, input, cancel, on_progress)?,
        ImportFormat::Csv { .. } => super::csv_in::read_csv(&mut run, &config, input, cancel, on_progress)?,
    };
    run.flush()?;
    run.report.finish = finish;
    if !opts.dry_run {
        run.report.messages = run.sender.sent;
    }
    Ok(run.report)
}

/// An import under way.
pub(super) struct Run<'a> {
    pub(super) opts: &'a ImportOptions,
    pub(super) sender: Sender,
    /// The input line of each message of the batch, and its partition.
    lines_of_batch: Vec<u64>,
    parts_of_batch: Vec<u32>,
    pub(super) report: ImportReport,
    on_skipped: &'a mut dyn FnMut(&SkippedLine),
}

impl Run<'_> {
    /// A bad line: reported and passed over (with `skip_bad` or in a dry
    /// run), else the import stops with everything before it written.
    pub(super) fn bad(&mut self, line: u64, problem: String) -> Result<()> {
        if self.passes_over(line) {
            return Ok(());
        }
        let skipped = SkippedLine { line, problem };
        self.report.bad_lines += 1;
        if self.report.first_bad.is_none() {
            self.report.first_bad = Some(skipped.clone());
            if self.opts.dry_run {
                self.report.messages_before_first_bad = Some(self.report.messages);
            }
        }
        if self.opts.skip_bad || self.opts.dry_run {
            (self.on_skipped)(&skipped);
            return Ok(());
        }
        self.flush()?;
        let cause = Box::new(Error::Transfer(TransferError::BadLine { line, problem: skipped.problem }));
        Err(TransferError::ImportStopped {
            line,
            written: self.sender.sent,
            landed_after: self.opts.resume.as_ref().map_or_else(Vec::new, |r| r.landed_beyond(line).collect()),
            partitions: self.report.partitions.clone(),
            cause,
        }
        .into())
    }

    /// Whether `line` is one the run this resumes dealt with (counted as passed over).
    fn passes_over(&mut self, line: u64) -> bool {
        let passed = self.opts.resume.as_ref().is_some_and(|r| r.passes_over(line));
        if passed {
            self.report.passed_over += 1;
        }
        passed
    }

    /// A good record from input line `line`.
    pub(super) fn take(&mut self, line: u64, rec: Record) -> Result<()> {
        if self.passes_over(line) {
            return Ok(());
        }
        let stamp = match (self.opts.keep_timestamps, rec.timestamp) {
            (false, _) => None,
            (true, Some(t)) if valid_stamp(t) => Some(t),
            (true, Some(t)) => return self.bad(line, format!("the timestamp {t} is not a UNIX time from 1970 to 9999")),
            (true, None) => return self.bad(line, "the line has no timestamp to keep (--keep-timestamps)".into()),
        };
        if self.opts.dry_run {
            // Checked as a send would (key, class, the line limit), nothing written.
            return match self.sender.producer.check(&rec.key, &rec.payload) {
                Ok(p) => {
                    self.report.messages += 1;
                    if let Some(n) = self.report.partitions.get_mut(p as usize) {
                        *n += 1;
                    }
                    Ok(())
                }
                Err(e) => self.bad(line, e.to_string()),
            };
        }
        let n = u32::try_from(self.report.partitions.len()).unwrap_or(u32::MAX);
        self.parts_of_batch.push(crate::format::partitioner::partition_for(&rec.key, n));
        self.sender.push(rec.key, rec.payload, stamp);
        self.lines_of_batch.push(line);
        if self.sender.full() {
            self.flush()?;
        }
        Ok(())
    }

    /// Send the batch; a message refused in it is a bad line (those before it sent).
    fn flush(&mut self) -> Result<()> {
        loop {
            let lines = std::mem::take(&mut self.lines_of_batch);
            let parts = std::mem::take(&mut self.parts_of_batch);
            match self.sender.flush() {
                Ok(()) => {
                    self.count(&parts);
                    return Ok(());
                }
                Err(Refused::Message(i, e)) => {
                    self.count(&parts[..i]);
                    if self.opts.skip_bad {
                        // The rest of the batch (still in the sender) goes again after the bad one.
                        self.lines_of_batch = lines[i + 1..].to_vec();
                        self.parts_of_batch = parts[i + 1..].to_vec();
                    } else {
                        // The import stops here: nothing after the bad line is written.
                        self.sender.msgs.clear();
                        self.sender.stamps.clear();
                    }
                    self.bad(lines[i], e.to_string())?;
                }
                Err(Refused::Write(e)) => {
                    // Each partition holds a prefix of its messages of the batch: which
                    // input lines those are, and the first line that did not land.
                    let landed = self.sender.producer.last_batch_landed();
                    let mut taken = vec![0u64; landed.len()];
                    let (mut stop, mut after, mut written) = (None, Vec::new(), self.sender.sent);
                    for (&line, &p) in lines.iter().zip(&parts) {
                        let p = p as usize;
                        let here = taken.get(p).copied().unwrap_or(0) < landed.get(p).copied().unwrap_or(0);
                        if here {
                            taken[p] += 1;
                            written += 1;
                            if let Some(c) = self.report.partitions.get_mut(p) {
                                *c += 1;
                            }
                            if stop.is_some() {
                                after.push(line);
                            }
                        } else if stop.is_none() {
                            stop = Some(line);
                        }
                    }
                    // (Every line of the batch landed: the error came after; the next line is the one to resume from.)
                    let line = stop.unwrap_or_else(|| lines.last().map_or(self.report.lines, |l| l + 1));
                    // What the run this resumes landed beyond the stop is still there.
                    if let Some(r) = &self.opts.resume {
                        after.extend(r.landed_beyond(line));
                        after.sort_unstable();
                        after.dedup();
                    }
                    return Err(TransferError::ImportStopped {
                        line,
                        written,
                        landed_after: after,
                        partitions: self.report.partitions.clone(),
                        cause: Box::new(e),
                    }
                    .into());
                }
            }
        }
    }

    fn count(&mut self, parts: &[u32]) {
        for &p in parts {
            if let Some(c) = self.report.partitions.get_mut(p as usize) {
                *c += 1;
            }
        }
    }
}

/// A batch of raw input lines: their bytes, and each line's number and range
/// (`None` for a line over the limit, whose bytes were dropped).
#[derive(Default)]
struct RawLines {
    bytes: Vec<u8>,
    lines: Vec<(u64, Option<(usize, usize)>)>,
}

/// An input line parsed: its number and its record, nothing (blank), or what is wrong.
type Parsed = (u64, Result<Option<Record>, String>);

fn read_jsonl(
    run: &mut Run<'_>,
    config: &TopicConfig,
    input: &mut dyn BufRead,
    cancel: &AtomicBool,
    on_progress: &mut dyn FnMut(Progress),
) -> Result<Finish> {
    // Lines are read here and parsed on a second thread a batch ahead, while
    // this one sends the batch before: on two cores parsing JSON no longer
    // waits for encoding and writing. Every decision (take, bad line, stop)
    // is still made here, in input order.
    let max_line = max_input_line(config);
    let (raw_tx, raw_rx) = std::sync::mpsc::sync_channel::<RawLines>(1);
    let (parsed_tx, parsed_rx) = std::sync::mpsc::sync_channel::<Vec<Parsed>>(1);
    std::thread::scope(|scope| {
        scope.spawn(move || {
            for raw in raw_rx {
                let parsed = raw
                    .lines
                    .iter()
                    .map(|&(at, range)| match range {
                        Some((a, b)) => (at, records::parse_jsonl(&raw.bytes[a..b], config)),
                        None => (
                            at,
                            Err(format!(
                                "the line is over {} MiB long: no message that long fits {}",
                                max_line >> 20,
                                if config.max_message_bytes.is_some() { "the topic's largest message" } else { "the 4096-byte line limit" }
                            )),
                        ),
                    })
                    .collect();
                if parsed_tx.send(parsed).is_err() {
                    return;
                }
            }
        });
        // Owned by this closure: dropped when it returns, early or not, so the parser ends and the scope can join it.
        let (raw_tx, parsed_rx) = (raw_tx, parsed_rx);
        let mut in_flight = false;
        let mut at_end = false;
        loop {
            // Cancelled: read no more, but what was read (the batch being
            // parsed) is still taken and written before the import stops.
            if cancel.load(Ordering::Relaxed) && !at_end {
                at_end = true;
            }
            if !at_end {
                let raw = read_raw_lines(input, &mut run.report.lines, cancel, max_line)?;
                at_end = raw.lines.is_empty();
                if !at_end {
                    // (The parser ends only when this side drops its sender.)
                    raw_tx
                        .send(raw)
                        .map_err(|_| Error::io("parse", "the import's input", std::io::Error::other("the parsing thread stopped")))?;
                }
            }
            if in_flight {
                let Ok(parsed) = parsed_rx.recv() else { return Ok(Finish::Done) };
                for (at, rec) in parsed {
                    match rec {
                        Ok(Some(rec)) => run.take(at, rec)?,
                        Ok(None) => {}
                        Err(problem) => run.bad(at, problem)?,
                    }
                }
                on_progress(Progress { done: run.sender.sent.max(run.report.messages), total: None });
            }
            if at_end {
                if in_flight {
                    in_flight = false;
                    continue;
                }
                return Ok(if cancel.load(Ordering::Relaxed) { Finish::Cancelled } else { Finish::Done });
            }
            in_flight = true;
        }
    })
}

/// Up to a batch of lines from `input`, numbered on from `*lines`. A cancel
/// ends the input (`open_input`), so every line read, buffered ones too, is
/// returned to be written; a last line cut short by the cancel (no newline)
/// was never whole, and is not.
fn read_raw_lines(input: &mut dyn BufRead, lines: &mut u64, cancel: &AtomicBool, max_line: usize) -> Result<RawLines> {
    let limit = u64::try_from(max_line).unwrap_or(u64::MAX).saturating_add(1);
    let read_err = |e| Error::io("read", "the import's input", e);
    let mut raw = RawLines { bytes: Vec::with_capacity(1 << 20), lines: Vec::with_capacity(super::BATCH) };
    while raw.lines.len() < super::BATCH && raw.bytes.len() < (1 << 20) {
        let start = raw.bytes.len();
        if (&mut *input).take(limit).read_until(b'\n', &mut raw.bytes).map_err(read_err)? == 0 {
            break;
        }
        if !raw.bytes.ends_with(b"\n") && cancel.load(Ordering::Relaxed) {
            raw.bytes.truncate(start);
            break;
        }
        *lines += 1;
        if raw.bytes.len() - start > max_line {
            // Read the rest of the line and drop it, and the part read.
            raw.bytes.truncate(start);
            let mut rest = Vec::new();
            // (An endless line, /dev/zero, stops at a cancel.)
            while !rest.ends_with(b"\n") && !cancel.load(Ordering::Relaxed) {
                rest.clear();
                if (&mut *input).take(1 << 20).read_until(b'\n', &mut rest).map_err(read_err)? == 0 {
                    break;
                }
            }
            raw.lines.push((*lines, None));
            continue;
        }
        raw.lines.push((*lines, Some((start, raw.bytes.len()))));
    }
    Ok(raw)
}
