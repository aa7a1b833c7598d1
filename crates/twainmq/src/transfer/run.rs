//! An import under way: what it is asked (format, options) and reports, and
//! the run its readers (JSON lines in `import.rs`, CSV in `csv_in.rs`) feed
//! records and bad lines to, which sends them to the topic in batches.

use super::records::Record;
use super::send::{Refused, Sender};
use crate::error::{Error, Result, TransferError};
use crate::format::config::TopicConfig;
use crate::log::producer::valid_stamp;
use crate::scan::Finish;

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

impl<'a> Run<'a> {
    /// A run of `opts` sending with `sender` into a topic of `partitions` partitions.
    pub(super) fn new(opts: &'a ImportOptions, sender: Sender, partitions: usize, on_skipped: &'a mut dyn FnMut(&SkippedLine)) -> Run<'a> {
        Run {
            opts,
            sender,
            lines_of_batch: Vec::with_capacity(super::BATCH),
            parts_of_batch: Vec::with_capacity(super::BATCH),
            report: ImportReport {
                dry_run: opts.dry_run,
                lines: 0,
                messages: 0,
                partitions: vec![0; partitions],
                bad_lines: 0,
                first_bad: None,
                messages_before_first_bad: None,
                passed_over: 0,
                finish: Finish::Done,
            },
            on_skipped,
        }
    }

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
    pub(super) fn flush(&mut self) -> Result<()> {
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
