//! A cluster topic's records as JSON lines, and back: the app's export and
//! import of a Kafka topic. Lossless: every key, value and header value is
//! kept byte for byte (text when its bytes are UTF-8, `{"hex": ..}` when not,
//! `null` for Kafka's null), headers in order with repeated names, the
//! timestamp in milliseconds, and where the record was.
//!
//! ```text
//! {"partition":0,"offset":41,"timestamp_ms":1733600000123,"key":"user-7","value":"{\"n\":1}","headers":[["trace",{"hex":"00ff"}],["gone",null]]}
//! ```
//!
//! An import writes the lines in order, idempotent with `acks=all`, a window
//! at a time; it reports exactly which lines the cluster confirmed, so that a
//! stopped import can be resumed without writing a record twice.

use std::io::{BufRead, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use krafka::producer::{Acks, DeliveryHandle};
use serde::{Deserialize, Serialize};

use super::{Browser, Record, ScanEnd, ScanProgress};
use crate::error::{Error, Result};

/// The longest line an import reads (a record of Kafka's default 1 MB limit
/// takes at most about 2 MB as hex, its headers aside).
pub const MAX_LINE_BYTES: usize = 64 << 20;

/// Records sent before their confirmations are awaited.
const WINDOW: usize = 2_000;

/// Bytes as JSON: text when they are UTF-8, else hex.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
enum JsonBytes {
    Text(String),
    Hex {
        /// Two hex digits a byte.
        hex: String,
    },
}

impl JsonBytes {
    fn of(b: &[u8]) -> JsonBytes {
        match std::str::from_utf8(b) {
            Ok(s) => JsonBytes::Text(s.to_string()),
            Err(_) => JsonBytes::Hex { hex: hex::encode(b) },
        }
    }

    fn into_bytes(self, what: &str) -> std::result::Result<Vec<u8>, String> {
        match self {
            JsonBytes::Text(s) => Ok(s.into_bytes()),
            JsonBytes::Hex { hex } => hex::decode(&hex).map_err(|e| format!("{what}'s hex is not hex ({e})")),
        }
    }
}

/// One line, as written and as read.
#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Line {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    partition: Option<u32>,
    /// Where the record was; read and left (the target gives its own).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    offset: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    timestamp_ms: Option<i64>,
    #[serde(default)]
    key: Option<JsonBytes>,
    #[serde(default)]
    value: Option<JsonBytes>,
    #[serde(default)]
    headers: Vec<(String, Option<JsonBytes>)>,
}

/// A record read from a line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LineRecord {
    /// The partition it was in, when the line says.
    pub partition: Option<u32>,
    /// Its time, when the line says.
    pub timestamp_ms: Option<i64>,
    /// The key; `None` is Kafka's null key.
    pub key: Option<Vec<u8>>,
    /// The value; `None` is a tombstone.
    pub value: Option<Vec<u8>>,
    /// Headers in order.
    pub headers: Vec<(String, Option<Vec<u8>>)>,
}

/// `record` as one JSON line (without its newline).
pub fn record_line(record: &Record) -> String {
    let line = Line {
        partition: Some(record.partition),
        offset: Some(record.offset),
        timestamp_ms: Some(record.timestamp_ms),
        key: record.key.as_deref().map(JsonBytes::of),
        value: record.value.as_deref().map(JsonBytes::of),
        headers: record.headers.iter().map(|(k, v)| (k.clone(), v.as_deref().map(JsonBytes::of))).collect(),
    };
    // A struct of strings and numbers always serialises.
    serde_json::to_string(&line).unwrap_or_default()
}

/// The record a line holds.
///
/// # Errors
/// What is wrong with it, in words.
pub fn parse_line(line: &str) -> std::result::Result<LineRecord, String> {
    let l: Line = serde_json::from_str(line).map_err(|e| {
        let e = e.to_string();
        if e.contains("did not match any variant") {
            "a key, value or header value must be a string, {\"hex\": \"..\"} or null".to_string()
        } else {
            e
        }
    })?;
    let headers = l
        .headers
        .into_iter()
        .map(|(k, v)| Ok((k.clone(), v.map(|v| v.into_bytes(&format!("header {k:?}"))).transpose()?)))
        .collect::<std::result::Result<Vec<_>, String>>()?;
    Ok(LineRecord {
        partition: l.partition,
        timestamp_ms: l.timestamp_ms,
        key: l.key.map(|k| k.into_bytes("the key")).transpose()?,
        value: l.value.map(|v| v.into_bytes("the value")).transpose()?,
        headers,
    })
}

/// How an import places and times its records.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ImportOptions {
    /// Write each record to the partition its line names (else the key's, as
    /// Kafka's Java client picks it).
    pub keep_partitions: bool,
    /// Keep each line's timestamp (else the time of the write).
    pub keep_timestamps: bool,
    /// Go on from where an import of the same input stopped: the lines it
    /// wrote (its report's `resume_line` and `landed_after`) are passed over.
    pub resume: Option<Resume>,
}

/// Where an earlier import of the same input stopped.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Resume {
    /// The first line it did not write: the lines before it are passed over.
    pub line: u64,
    /// Lines after it that it wrote anyway: passed over too.
    pub landed_after: Vec<u64>,
}

impl Resume {
    fn passes_over(&self, line: u64) -> bool {
        line < self.line || self.landed_after.binary_search(&line).is_ok()
    }
}

/// What a check of an import's input found.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ImportCheck {
    /// Records (non-blank lines).
    pub records: u64,
    /// Lines that name a partition.
    pub with_partition: u64,
    /// The highest partition a line names.
    pub highest_partition: Option<u32>,
    /// The first bad line: its number (from 1) and what is wrong.
    pub first_bad: Option<(u64, String)>,
    /// Bad lines in all.
    pub bad: u64,
}

/// How an import ended.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ImportReport {
    /// Records the cluster confirmed.
    pub written: u64,
    /// Of them, per partition.
    pub partitions: Vec<u64>,
    /// Whether it was stopped (cancel) before the input's end.
    pub stopped: bool,
    /// The first line not confirmed (from 1), when the import did not end:
    /// every record line before it is in the topic.
    pub resume_line: Option<u64>,
    /// Lines after `resume_line` that the cluster confirmed anyway (other
    /// partitions' records of the window in flight): skip them on a resume.
    pub landed_after: Vec<u64>,
    /// Lines read (blank ones too).
    pub lines: u64,
    /// Record lines passed over because the import this resumes wrote them.
    pub passed_over: u64,
}

/// Read the next line into `buf` (without its end), at most [`MAX_LINE_BYTES`].
/// `Ok(false)` at the end of the input.
fn next_line(input: &mut dyn BufRead, buf: &mut Vec<u8>, number: u64) -> std::result::Result<bool, String> {
    buf.clear();
    let mut limited = std::io::Read::take(&mut *input, MAX_LINE_BYTES as u64 + 1);
    let n = limited.read_until(b'\n', buf).map_err(|e| format!("the input could not be read at line {number}: {e}"))?;
    if n == 0 {
        return Ok(false);
    }
    if buf.len() > MAX_LINE_BYTES {
        return Err(format!("line {number} is longer than {} MB: not a record's line", MAX_LINE_BYTES >> 20));
    }
    while buf.last().is_some_and(|b| *b == b'\n' || *b == b'\r') {
        buf.pop();
    }
    Ok(true)
}

/// Check every line of `input`: the records, the partitions named, the bad lines.
///
/// # Errors
/// [`Error::Config`] when the input cannot be read.
pub fn check_import(input: &mut dyn BufRead, cancel: &AtomicBool) -> Result<ImportCheck> {
    let mut check = ImportCheck::default();
    let mut buf = Vec::new();
    let mut number = 0u64;
    loop {
        if cancel.load(Ordering::Relaxed) {
            break;
        }
        number += 1;
        match next_line(input, &mut buf, number) {
            Ok(true) => {}
            Ok(false) => break,
            Err(problem) => return Err(Error::Config { what: "the file to import".into(), problem }),
        }
        if buf.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let parsed = std::str::from_utf8(&buf).map_err(|_| "it is not UTF-8 text".to_string()).and_then(parse_line);
        match parsed {
            Ok(r) => {
                check.records += 1;
                if let Some(p) = r.partition {
                    check.with_partition += 1;
                    check.highest_partition = Some(check.highest_partition.map_or(p, |h| h.max(p)));
                }
            }
            Err(problem) => {
                check.bad += 1;
                if check.first_bad.is_none() {
                    check.first_bad = Some((number, problem));
                }
            }
        }
    }
    Ok(check)
}

impl Browser {
    /// Write every record of `topic` (of `partitions` only, when given) up to
    /// each partition's end as it is now to `out`, one [`record_line`] each;
    /// each partition's records in offset order (partitions interleaved).
    ///
    /// # Errors
    /// As [`Browser::scan`]; a failed write to `out`.
    pub fn export_jsonl(
        &self,
        topic: &str,
        partitions: Option<&[u32]>,
        out: &mut dyn Write,
        cancel: &AtomicBool,
        progress: &mut dyn FnMut(ScanProgress),
    ) -> Result<ScanEnd> {
        let mut failed: Option<std::io::Error> = None;
        let mut line = String::new();
        let end = self.scan_partitions(topic, partitions, cancel, &mut |records, p| {
            for r in records {
                line.clear();
                line.push_str(&record_line(r));
                line.push('\n');
                if let Err(e) = out.write_all(line.as_bytes()) {
                    failed = Some(e);
                    return false;
                }
            }
            progress(p);
            true
        })?;
        if let Some(e) = failed {
            return Err(Error::Config { what: "the export's file".into(), problem: format!("it could not be written: {e}") });
        }
        Ok(end)
    }

    /// Write the records of `input`'s lines to `topic`, in order, as
    /// `options` say; a bad line stops the import before it (check first with
    /// [`check_import`]). `progress` gets the records confirmed so far.
    ///
    /// Returns the report also when stopped or failed part way (a failure's
    /// error is the second element): the lines the cluster confirmed are
    /// exactly those before `resume_line` and those in `landed_after`.
    pub fn import_jsonl(
        &self,
        topic: &str,
        input: &mut dyn BufRead,
        options: ImportOptions,
        cancel: &AtomicBool,
        progress: &mut dyn FnMut(u64),
    ) -> (ImportReport, Option<Error>) {
        let mut report = ImportReport::default();
        let mut options = options;
        if let Some(r) = options.resume.as_mut() {
            r.landed_after.sort_unstable();
        }
        let r = self.block_on(self.import_inner(topic, input, &options, cancel, progress, &mut report));
        (report, r.err())
    }

    async fn import_inner(
        &self,
        topic: &str,
        input: &mut dyn BufRead,
        options: &ImportOptions,
        cancel: &AtomicBool,
        progress: &mut dyn FnMut(u64),
        report: &mut ImportReport,
    ) -> Result<()> {
        let c = &self.cluster;
        let count = c
            .partitions(topic)
            .await?
            .ok_or_else(|| Error::TopicMissing { place: format!("Kafka at {}", c.broker), topic: topic.to_string() })?;
        report.partitions = vec![0; count as usize];
        let producer = c
            .kafka
            .producer()
            .idempotent(true)
            .acks(Acks::All)
            .linger(Duration::from_millis(5))
            .delivery_timeout(c.timeout * 3)
            .build()
            .await
            .map_err(|e| c.error("make a producer", &e))?;
        let op = || format!("write records to {topic}");
        let mut buf = Vec::new();
        let mut number = 0u64;
        // The window in flight: each record's line and delivery.
        let mut window: Vec<(u64, DeliveryHandle)> = Vec::with_capacity(WINDOW);
        let mut result = Ok(());
        let mut ended = false;
        while !ended {
            // Fill a window.
            while window.len() < WINDOW {
                if cancel.load(Ordering::Relaxed) {
                    // The next line is the first not read.
                    report.stopped = true;
                    report.resume_line.get_or_insert(number + 1);
                    ended = true;
                    break;
                }
                number += 1;
                match next_line(input, &mut buf, number) {
                    Ok(true) => {}
                    Ok(false) => {
                        ended = true;
                        break;
                    }
                    Err(problem) => {
                        result = Err(Error::Config { what: "the file to import".into(), problem });
                        ended = true;
                        break;
                    }
                }
                report.lines = number;
                if buf.iter().all(u8::is_ascii_whitespace) {
                    continue;
                }
                if options.resume.as_ref().is_some_and(|r| r.passes_over(number)) {
                    report.passed_over += 1;
                    continue;
                }
                let parsed = std::str::from_utf8(&buf).map_err(|_| "it is not UTF-8 text".to_string()).and_then(parse_line);
                let rec = match parsed {
                    Ok(r) => r,
                    Err(problem) => {
                        result = Err(Error::Config { what: format!("line {number} of the file to import"), problem });
                        ended = true;
                        break;
                    }
                };
                let partition = if options.keep_partitions { rec.partition } else { None };
                if let Some(p) = partition.filter(|p| *p >= count) {
                    result = Err(Error::Config {
                        what: format!("line {number} of the file to import"),
                        problem: format!(
                            "it names partition {p}, and {topic} has {count} partitions: import it letting the key pick the partition, or into a topic with more"
                        ),
                    });
                    ended = true;
                    break;
                }
                let mut r = krafka::Record::new(topic, rec.value.clone().unwrap_or_default());
                if rec.value.is_none() {
                    r = r.without_value();
                }
                r = match rec.key {
                    Some(k) => r.key(k),
                    None => r.without_key(),
                };
                if let Some(p) = partition {
                    r = r.partition(p as i32);
                }
                if options.keep_timestamps {
                    if let Some(ms) = rec.timestamp_ms {
                        r = r.timestamp(ms);
                    }
                }
                for (name, v) in rec.headers {
                    r = match v {
                        Some(v) => r.header(name, v),
                        None => r.null_header(name),
                    };
                }
                match producer.enqueue(r).await {
                    Ok(h) => window.push((number, h)),
                    Err(e) => {
                        // Not sent: this line is the first not written.
                        result = Err(c.error(op(), &e));
                        report.resume_line = Some(number);
                        ended = true;
                        break;
                    }
                }
            }
            // Await the window's confirmations, in order.
            for (line, h) in window.drain(..) {
                match h.await {
                    Ok(meta) if meta.is_persisted() => {
                        report.written += 1;
                        if let Some(n) = usize::try_from(meta.partition).ok().and_then(|p| report.partitions.get_mut(p)) {
                            *n += 1;
                        }
                        if report.resume_line.is_some_and(|first| line > first) {
                            report.landed_after.push(line);
                        }
                    }
                    other => {
                        if report.resume_line.is_none_or(|first| line < first) {
                            report.resume_line = Some(line);
                        }
                        if result.is_ok() {
                            result = Err(match other {
                                Err(e) => c.error(op(), &e),
                                Ok(meta) => Error::Kafka {
                                    broker: c.broker.clone(),
                                    op: op(),
                                    cause: format!("the broker did not confirm the record of line {line} ({:?})", meta.delivery),
                                    retriable: true,
                                    hint: None,
                                },
                            });
                        }
                        ended = true;
                    }
                }
            }
            progress(report.written);
        }
        // A bad or unreadable line: a resume starts there.
        if report.resume_line.is_none() && result.is_err() {
            report.resume_line = Some(number);
        }
        report.landed_after.retain(|l| report.resume_line.is_some_and(|first| *l > first));
        let _ = producer.close().await;
        result
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(key: Option<&[u8]>, value: Option<&[u8]>, headers: Vec<(&str, Option<&[u8]>)>) -> Record {
        Record {
            partition: 3,
            offset: 41,
            timestamp_ms: -5,
            key: key.map(<[u8]>::to_vec),
            value: value.map(<[u8]>::to_vec),
            headers: headers.into_iter().map(|(k, v)| (k.to_string(), v.map(<[u8]>::to_vec))).collect(),
        }
    }

    #[test]
    fn every_byte_kind_and_null_goes_round_unchanged() {
        let cases = [
            record(Some(b"user-7"), Some(b"{\"n\":1}"), vec![("trace", Some(&[0u8, 0xff][..])), ("gone", None), ("trace", Some(b""))]),
            record(None, None, vec![]),
            record(Some(b""), Some(&[0xc3, 0x28][..]), vec![]),
            record(Some("\u{1F600}\n\"\\".as_bytes()), Some(&[0u8; 3][..]), vec![("", Some(b"x"))]),
        ];
        for r in cases {
            let line = record_line(&r);
            assert!(!line.contains('\n'), "{line}");
            let back = parse_line(&line).expect("parse");
            assert_eq!(back.partition, Some(r.partition));
            assert_eq!(back.timestamp_ms, Some(r.timestamp_ms));
            assert_eq!(back.key, r.key, "{line}");
            assert_eq!(back.value, r.value, "{line}");
            assert_eq!(back.headers, r.headers, "{line}");
        }
    }

    #[test]
    fn bytes_are_text_when_utf8_and_hex_when_not() {
        let line = record_line(&record(Some(b"k"), Some(&[0xff, 0x00][..]), vec![("h", None)]));
        assert_eq!(line, r#"{"partition":3,"offset":41,"timestamp_ms":-5,"key":"k","value":{"hex":"ff00"},"headers":[["h",null]]}"#);
    }

    #[test]
    fn a_bare_key_and_value_is_a_record_and_bad_lines_say_why() {
        let r = parse_line(r#"{"key":null,"value":"v"}"#).expect("parse");
        assert_eq!((r.partition, r.timestamp_ms, r.key, r.value), (None, None, None, Some(b"v".to_vec())));
        for (line, words) in [
            (r#"{"value":{"hex":"zz"}}"#, "the value's hex is not hex"),
            (r#"{"value":5}"#, "must be a string"),
            (r#"{"value":"v","payload":"p"}"#, "unknown field `payload`"),
            (r#"{"headers":[["h",{"hex":"0"}]]}"#, "header \"h\"'s hex"),
            ("not json", "expected"),
        ] {
            let e = parse_line(line).expect_err(line);
            assert!(e.contains(words), "{line}: {e}");
        }
    }

    #[test]
    fn a_check_counts_records_and_names_the_first_bad_line() {
        let input = "{\"partition\":2,\"value\":\"a\"}\n\n{\"value\":\"b\"}\r\nbad\n{\"partition\":5}\n{\"x\":1}\n";
        let c = check_import(&mut input.as_bytes(), &AtomicBool::new(false)).expect("check");
        assert_eq!(c.records, 3);
        assert_eq!(c.with_partition, 2);
        assert_eq!(c.highest_partition, Some(5));
        assert_eq!(c.bad, 2);
        assert_eq!(c.first_bad.as_ref().map(|b| b.0), Some(4));
    }

    #[test]
    fn a_line_over_the_limit_is_refused_without_reading_it_all() {
        let mut input = std::io::Read::chain(std::io::Read::take(std::io::repeat(b'x'), MAX_LINE_BYTES as u64 + 10), &b"\n"[..]);
        let mut r = std::io::BufReader::new(&mut input);
        let e = check_import(&mut r, &AtomicBool::new(false)).expect_err("too long");
        assert!(e.to_string().contains("longer than 64 MB"), "{e}");
    }
}
