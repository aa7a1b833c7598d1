//! CSV input for [`super::import`]: a header naming the columns, then one
//! message a row, cells read as bytes (a cell that is not UTF-8 is a bad line).
//!
//! The input is read through [`Guard`], which follows CSV's quoting as the
//! bytes go by: a row may be at most [`MAX_RECORD`] bytes (as a JSONL line:
//! an endless field, /dev/zero, stops there, in bounded memory), and a quote
//! left open at the end of the input (which would swallow every row after it
//! into one cell) is a bad line where the quote opened.

use std::io::{BufRead, Read};
use std::sync::atomic::{AtomicBool, Ordering};

use super::records::{self, Record};
use super::run::{ImportFormat, PayloadColumn, Run};
use super::Progress;
use crate::error::{Error, Result, TransferError};
use crate::format::config::TopicConfig;
use crate::format::payload::Outgoing;
use crate::scan::Finish;

pub(super) fn read_csv(
    run: &mut Run<'_>,
    config: &TopicConfig,
    input: &mut dyn BufRead,
    cancel: &AtomicBool,
    on_progress: &mut dyn FnMut(Progress),
) -> Result<Finish> {
    let ImportFormat::Csv { key, payload, kind, timestamp } = &run.opts.format else { return Ok(Finish::Done) };
    let mut reader = csv::ReaderBuilder::new().has_headers(true).flexible(true).from_reader(Guard::new(
        input,
        cancel,
        MAX_RECORD.max(super::run::max_input_line(config) as u64),
    ));
    let headers = reader.byte_headers().map_err(|e| csv_error(&e))?.clone();
    reader.get_mut().record_done();
    run.report.lines = 1;
    let column = |name: &str| headers.iter().position(|h| h == name.as_bytes());
    let need = |name: &str, what: &str| {
        column(name).ok_or_else(|| {
            let have: Vec<String> = headers.iter().map(|h| String::from_utf8_lossy(h).into_owned()).collect();
            Error::from(TransferError::BadLine {
                line: 1,
                problem: format!(
                    "the header has no {what} column {name:?} (it has: {}); name the {what} column with --{what}-column",
                    have.join(", ")
                ),
            })
        })
    };
    let cols = CsvColumns {
        cells: headers.len(),
        key: need(key, "key")?,
        payload: need(payload, "payload")?,
        kind: if *kind == PayloadColumn::Auto { column("kind") } else { None },
        class: column("class"),
        timestamp: if run.opts.keep_timestamps { Some(need(timestamp, "timestamp")?) } else { None },
    };
    let mut row = csv::ByteRecord::new();
    loop {
        if cancel.load(Ordering::Relaxed) {
            return Ok(Finish::Cancelled);
        }
        let at = reader.position().line();
        let read = reader.read_byte_record(&mut row);
        if let Some(opened) = reader.get_ref().unclosed_quote() {
            // The rows after an unclosed quote were read as the text of its cell.
            run.report.lines = reader.get_ref().lines();
            run.bad(opened, format!("a quoted cell opened on line {opened} is never closed: every row after it was read as its text. Close the quote (a quote inside a quoted cell is written \"\")"))?;
            return Ok(if cancel.load(Ordering::Relaxed) { Finish::Cancelled } else { Finish::Done });
        }
        reader.get_mut().record_done();
        match read {
            Ok(false) => return Ok(if cancel.load(Ordering::Relaxed) { Finish::Cancelled } else { Finish::Done }),
            Ok(true) => {}
            Err(e) if matches!(e.kind(), csv::ErrorKind::Io(_)) => {
                // Over the record limit, or the input failed: nothing more can be read.
                let csv::ErrorKind::Io(cause) = e.into_kind() else { return Ok(Finish::Done) };
                let problem = format!("the input stopped being CSV: {cause}");
                run.bad(at, problem)?;
                return Ok(Finish::Done);
            }
            Err(e) => {
                // A broken row (bad quoting): the reader goes on after it.
                run.report.lines = reader.position().line();
                run.bad(at, format!("not a CSV row: {e}"))?;
                continue;
            }
        }
        run.report.lines = reader.position().line().saturating_sub(1).max(at);
        match csv_record(&row, &cols, kind, config) {
            Ok(rec) => run.take(at, rec)?,
            Err(problem) => run.bad(at, problem)?,
        }
        if at.is_multiple_of(super::BATCH as u64) {
            on_progress(Progress { done: run.sender.sent.max(run.report.messages), total: None });
        }
    }
}

/// The most bytes one CSV row (a record, with every line a quoted cell spans)
/// may have on a topic of 0.2.3's format: as a JSONL line's limit, far past
/// anything a message can be (a topic with large messages: its JSONL limit).
pub(super) const MAX_RECORD: u64 = 64 << 20;

/// Reads the input for the CSV reader, following its quoting (see the module
/// doc): knows where rows end, a quote that stays open, and each row's size.
struct Guard<'a> {
    inner: &'a mut dyn BufRead,
    cancel: &'a AtomicBool,
    /// Inside a quoted cell.
    quoted: bool,
    /// At the start of a cell (where a quote opens one).
    cell_start: bool,
    /// The last byte was a quote inside a quoted cell (closing it, or the
    /// first of a doubled quote).
    quote_pending: bool,
    /// Lines seen (newlines, plus one), and the line the open quote is on.
    line: u64,
    opened_on: u64,
    /// The input ended inside a quoted cell.
    ended_open: bool,
    /// Bytes handed over since the last row was taken.
    since_record: u64,
    /// The most a row may have.
    max_record: u64,
}

impl<'a> Guard<'a> {
    fn new(inner: &'a mut dyn BufRead, cancel: &'a AtomicBool, max_record: u64) -> Self {
        Guard {
            max_record,
            inner,
            cancel,
            quoted: false,
            cell_start: true,
            quote_pending: false,
            line: 1,
            opened_on: 0,
            ended_open: false,
            since_record: 0,
        }
    }

    /// A row was taken: the next one starts its count.
    fn record_done(&mut self) {
        self.since_record = 0;
    }

    /// The line an unclosed quote opened on, once the input ended inside it.
    fn unclosed_quote(&self) -> Option<u64> {
        self.ended_open.then_some(self.opened_on)
    }

    fn lines(&self) -> u64 {
        self.line
    }

    fn follow(&mut self, bytes: &[u8]) {
        for &b in bytes {
            if self.quoted {
                if self.quote_pending {
                    self.quote_pending = false;
                    if b == b'"' {
                        continue; // a doubled quote: still inside
                    }
                    self.quoted = false; // the quote closed the cell; `b` follows it
                } else if b == b'"' {
                    self.quote_pending = true;
                    continue;
                } else {
                    if b == b'\n' {
                        self.line += 1;
                    }
                    continue;
                }
            }
            match b {
                b'"' if self.cell_start => {
                    self.quoted = true;
                    self.opened_on = self.line;
                    self.cell_start = false;
                }
                b',' => self.cell_start = true,
                b'\n' => {
                    self.line += 1;
                    self.cell_start = true;
                }
                b'\r' => {}
                _ => self.cell_start = false,
            }
        }
    }
}

impl Read for Guard<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.cancel.load(Ordering::Relaxed) {
            return Ok(0);
        }
        if self.since_record > self.max_record {
            let fits = if self.max_record > MAX_RECORD { "the topic's largest message" } else { "the 4096-byte line limit" };
            return Err(std::io::Error::other(format!(
                "a row is over {} MiB long: no message that long fits {fits}",
                self.max_record >> 20
            )));
        }
        let n = self.inner.read(buf)?;
        if n == 0 {
            // A quote still open at the end (and not just closed by the last byte).
            self.ended_open = self.quoted && !self.quote_pending;
            return Ok(0);
        }
        self.follow(&buf[..n]);
        self.since_record += n as u64;
        Ok(n)
    }
}

/// The column names of a CSV file's header row (the first row), for picking
/// the key and payload columns before an import. Names that are not UTF-8
/// are shown with U+FFFD in place of their bad bytes.
///
/// # Errors
/// [`TransferError::BadLine`] when the first row is not CSV.
pub fn csv_columns(input: &mut dyn BufRead) -> Result<Vec<String>> {
    let mut reader = csv::ReaderBuilder::new().has_headers(true).flexible(true).from_reader(input);
    let headers = reader.byte_headers().map_err(|e| csv_error(&e))?;
    Ok(headers.iter().map(|h| String::from_utf8_lossy(h).into_owned()).collect())
}

fn csv_error(e: &csv::Error) -> Error {
    let line = e.position().map_or(1, csv::Position::line);
    TransferError::BadLine { line, problem: format!("not CSV: {e}") }.into()
}

/// Where a CSV row's cells are.
struct CsvColumns {
    /// The header's cells: every row has as many.
    cells: usize,
    key: usize,
    payload: usize,
    kind: Option<usize>,
    class: Option<usize>,
    timestamp: Option<usize>,
}

/// Shown of a row that is bad as a whole: its first cells, each cut short.
const SHOWN_CELLS: usize = 8;
const SHOWN_CELL_CHARS: usize = 40;

/// A row's cells as a list for a message: `"1" | "Hello" | " world"`.
fn show_cells(row: &csv::ByteRecord) -> String {
    let mut shown: Vec<String> = row
        .iter()
        .take(SHOWN_CELLS)
        .map(|c| {
            let text = String::from_utf8_lossy(c);
            let mut cut: String = text.chars().take(SHOWN_CELL_CHARS).collect();
            if cut.len() < text.len() {
                cut.push('…');
            }
            format!("{cut:?}")
        })
        .collect();
    if row.len() > SHOWN_CELLS {
        shown.push(format!("and {} more", row.len() - SHOWN_CELLS));
    }
    shown.join(" | ")
}

fn csv_record(row: &csv::ByteRecord, cols: &CsvColumns, kind: &PayloadColumn, config: &TopicConfig) -> Result<Record, String> {
    // A row of another width than the header: an unquoted comma split a cell
    // (`1,Hello, world` would write "Hello" and drop " world"), or cells are
    // missing. Which cell is which cannot be told, so the row is bad as a whole.
    if row.len() != cols.cells {
        let plural = |n: usize| if n == 1 { "cell" } else { "cells" };
        return Err(format!(
            "the row has {} {} ({}) but the header has {}: {}",
            row.len(),
            plural(row.len()),
            show_cells(row),
            cols.cells,
            if row.len() > cols.cells {
                "a cell that holds a comma must be quoted (\"Hello, world\"), and a quote in it doubled (\"\")"
            } else {
                "give every column a cell, empty ones too (a,,c)"
            }
        ));
    }
    let cell = |i: usize, name: &str| -> Result<&str, String> {
        let bytes = row.get(i).ok_or_else(|| format!("the row has no {name} cell (it has {} cells)", row.len()))?;
        std::str::from_utf8(bytes).map_err(|e| format!("the {name} cell is not UTF-8 (byte {}): give bytes as hex", e.valid_up_to() + 1))
    };
    let key = records::key_from_text(cell(cols.key, "key")?, config.key_type)?;
    let text = cell(cols.payload, "payload")?;
    let row_kind = match cols.kind {
        Some(i) => cell(i, "kind")?.to_string(),
        None => String::new(),
    };
    let typed = |class: &str, text: &str| -> Result<Outgoing, String> {
        if config.type_id(class).is_none() {
            return Err(records::unknown_class(class, config));
        }
        Outgoing::typed_json(class, text).map_err(|e| format!("the payload is not a typed message's fields: {e}"))
    };
    let payload = match (kind, row_kind.as_str()) {
        (PayloadColumn::Text, _) | (PayloadColumn::Auto, "" | "str") => Outgoing::Text(text.to_string()),
        (PayloadColumn::Json, _) => {
            serde_json::from_str::<serde::de::IgnoredAny>(text).map_err(|e| format!("the payload is not JSON: {e}"))?;
            Outgoing::Text(text.to_string())
        }
        (PayloadColumn::Hex, _) | (PayloadColumn::Auto, "bytes") => {
            Outgoing::Bytes(hex::decode(text.trim()).map_err(|e| format!("the payload is not hex: {e}"))?)
        }
        (PayloadColumn::Typed(class), _) => typed(class, text)?,
        (PayloadColumn::Auto, "dataclass") => {
            let class = cols.class.map(|i| cell(i, "class")).transpose()?.unwrap_or_default();
            typed(class, text)?
        }
        (PayloadColumn::Auto, other) => return Err(format!("kind {other:?} is not str, bytes or dataclass")),
    };
    let timestamp = cols.timestamp.map(|i| cell(i, "timestamp").and_then(records::parse_time)).transpose()?;
    Ok(Record { key, payload, timestamp })
}
