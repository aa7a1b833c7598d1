//! CSV input for [`super::import`]: a header naming the columns, then one
//! message a row, cells read as bytes (a cell that is not UTF-8 is a bad line).

use std::io::BufRead;
use std::sync::atomic::{AtomicBool, Ordering};

use super::import::{ImportFormat, PayloadColumn, Run};
use super::records::{self, Record};
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
    let mut reader = csv::ReaderBuilder::new().has_headers(true).flexible(true).from_reader(input);
    let headers = reader.byte_headers().map_err(|e| csv_error(&e))?.clone();
    run.report.lines = 1;
    let column = |name: &str| headers.iter().position(|h| h == name.as_bytes());
    let need = |name: &str, what: &str| {
        column(name).ok_or_else(|| {
            let have: Vec<String> = headers.iter().map(|h| String::from_utf8_lossy(h).into_owned()).collect();
            Error::from(TransferError::BadLine {
                line: 1,
                problem: format!(
                    "the header has no {what} column {name:?} (it has: {}); name it with --key-column / --payload-column",
                    have.join(", ")
                ),
            })
        })
    };
    let cols = CsvColumns {
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
        match reader.read_byte_record(&mut row) {
            Ok(false) => return Ok(Finish::Done),
            Ok(true) => {}
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
    key: usize,
    payload: usize,
    kind: Option<usize>,
    class: Option<usize>,
    timestamp: Option<usize>,
}

fn csv_record(row: &csv::ByteRecord, cols: &CsvColumns, kind: &PayloadColumn, config: &TopicConfig) -> Result<Record, String> {
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
