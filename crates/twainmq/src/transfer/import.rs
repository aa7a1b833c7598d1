//! Import: JSONL or CSV lines into a topic, a dry run first if asked; each
//! bad line stops the import (everything before it written) or, with
//! `skip_bad`, is reported and passed over.

use std::io::{BufRead, Read};
use std::sync::atomic::{AtomicBool, Ordering};

use super::records::{self, Record};
use super::run::{max_input_line, ImportFormat, ImportOptions, ImportReport, Run, SkippedLine};
use super::send::Sender;
use super::Progress;
use crate::error::{Error, Result};
use crate::format::config::TopicConfig;
use crate::scan::Finish;
use crate::store::Store;

/// Import `input` into `topic` as `opts` says. `on_skipped` is told each bad
/// line passed over (with `skip_bad`, or in a dry run).
///
/// # Errors
/// Topic errors before anything is read; [`TransferError::ImportStopped`](crate::error::TransferError::ImportStopped)
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
    let mut run = Run::new(opts, Sender::new(store.producer(topic)?), config.partitions as usize, on_skipped);
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
