//! A cluster topic's search: every record between the watermarks at its start,
//! all partitions at once (`twainmq_kafka::browse::Browser::scan`), each
//! matched against text (any case), a regular expression, or a CEL filter (the
//! store's language, `docs/QUERY.md`: `key`, `value.field`, `text`,
//! `partition`, `offset`, `timestamp`, `size`); text and regular expressions
//! look in the key, the value and the headers (names and values), or one of
//! them. Progress and hits stream to the window; the first [`MAX_ROWS`] hits
//! are sent whole, the rest counted. Nothing is written.

use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use twainmq::{Filter, Key, Message, Payload};
use twainmq_kafka::browse::{Record, ScanEnd};

use super::service::ClusterSource;
use super::wire::{record_row, ClusterSearchEvent, ClusterSearchQuery, SearchMode, SearchWhere};
use crate::wire::{Count, ErrorCode, ErrorDto};

/// Hits sent whole to the window; beyond, only counted.
pub const MAX_ROWS: usize = 1000;

/// A compiled query.
pub enum Matcher {
    /// Lower-cased text, looked for in the lower-cased fields.
    Text {
        needle: String,
        place: SearchWhere,
    },
    Regex {
        re: regex::bytes::Regex,
        place: SearchWhere,
    },
    Cel(Box<Filter>),
}

impl Matcher {
    /// Compile `q`, or say what is wrong with it.
    pub fn new(q: &ClusterSearchQuery) -> Result<Matcher, ErrorDto> {
        if q.text.is_empty() {
            return Err(ErrorDto::new(ErrorCode::InvalidFilter, "type what to search for"));
        }
        Ok(match q.mode {
            SearchMode::Text => Matcher::Text { needle: q.text.to_lowercase(), place: q.place },
            SearchMode::Regex => Matcher::Regex {
                re: regex::bytes::Regex::new(&q.text)
                    .map_err(|e| ErrorDto::new(ErrorCode::InvalidRegex, format!("not a regular expression: {e}")))?,
                place: q.place,
            },
            SearchMode::Cel => {
                Matcher::Cel(Box::new(Filter::compile(&q.text).map_err(|e| ErrorDto::new(ErrorCode::InvalidFilter, e.to_string()))?))
            }
        })
    }

    /// Whether `r` of `topic` matches.
    pub fn matches(&self, topic: &Arc<str>, r: &Record) -> bool {
        match self {
            Matcher::Text { needle, place } => fields(r, *place).any(|f| lower_contains(f, needle)),
            Matcher::Regex { re, place } => fields(r, *place).any(|f| re.is_match(f)),
            Matcher::Cel(filter) => filter.matches(&message_of(topic, r)),
        }
    }
}

/// The bytes searched in, for `place`: key, value, each header as `name=value`.
fn fields(r: &Record, place: SearchWhere) -> impl Iterator<Item = &[u8]> {
    let key = matches!(place, SearchWhere::All | SearchWhere::Key).then_some(r.key.as_deref()).flatten();
    let value = matches!(place, SearchWhere::All | SearchWhere::Value).then_some(r.value.as_deref()).flatten();
    let headers = matches!(place, SearchWhere::All | SearchWhere::Headers);
    key.into_iter()
        .chain(value)
        .chain(r.headers.iter().filter(move |_| headers).flat_map(|(name, v)| std::iter::once(name.as_bytes()).chain(v.as_deref())))
}

/// Whether `hay` holds `needle` (already lower case), any case (ASCII and UTF-8 text).
fn lower_contains(hay: &[u8], needle: &str) -> bool {
    if needle.is_empty() {
        return true;
    }
    match std::str::from_utf8(hay) {
        Ok(s) if s.is_ascii() => s.as_bytes().windows(needle.len()).any(|w| w.eq_ignore_ascii_case(needle.as_bytes())),
        Ok(s) => s.to_lowercase().contains(needle),
        Err(_) => hay.windows(needle.len()).any(|w| w.eq_ignore_ascii_case(needle.as_bytes())),
    }
}

/// A record as the store's filters see a message: its key text, bytes or none;
/// its value text when UTF-8, else bytes (a tombstone: no bytes).
pub fn message_of(topic: &Arc<str>, r: &Record) -> Message {
    let key = match &r.key {
        None => Key::Null,
        Some(k) => match std::str::from_utf8(k) {
            Ok(s) => Key::Str(s.to_string()),
            Err(_) => Key::Bytes(k.clone()),
        },
    };
    let payload = match &r.value {
        None => Payload::Bytes(Vec::new()),
        Some(v) => match std::str::from_utf8(v) {
            Ok(s) => Payload::Text(s.to_string()),
            Err(_) => Payload::Bytes(v.clone()),
        },
    };
    Message { topic: topic.clone(), partition: r.partition, offset: r.offset, key, timestamp: r.timestamp_ms as f64 / 1000.0, payload }
}

impl ClusterSource {
    /// Search `topic`, streaming progress and hits to `emit` until done, failed or `cancel`led.
    pub fn search(&self, topic: &str, matcher: &Matcher, cancel: &AtomicBool, emit: &mut dyn FnMut(ClusterSearchEvent)) {
        let name: Arc<str> = Arc::from(topic);
        let mut hits: u64 = 0;
        let mut sent = 0usize;
        let mut last_progress = std::time::Instant::now();
        let result = self.browser().scan(topic, cancel, &mut |batch, p| {
            let mut rows = Vec::new();
            for r in batch {
                if matcher.matches(&name, r) {
                    hits += 1;
                    if sent < MAX_ROWS {
                        rows.push(record_row(r));
                        sent += 1;
                    }
                }
            }
            if !rows.is_empty() {
                emit(ClusterSearchEvent::Hits { rows });
            }
            if last_progress.elapsed().as_millis() >= 100 || p.scanned == p.total {
                last_progress = std::time::Instant::now();
                emit(ClusterSearchEvent::Progress { scanned: Count(p.scanned), total: Count(p.total), hits: Count(hits) });
            }
            true
        });
        emit(match result {
            Ok(ScanEnd::Complete(p)) => ClusterSearchEvent::Done {
                scanned: Count(p.scanned),
                total: Count(p.total),
                hits: Count(hits),
                stopped: false,
                rows_cut: hits > MAX_ROWS as u64,
            },
            Ok(ScanEnd::Stopped(p)) => ClusterSearchEvent::Done {
                scanned: Count(p.scanned),
                total: Count(p.total),
                hits: Count(hits),
                stopped: true,
                rows_cut: hits > MAX_ROWS as u64,
            },
            Err(e) => ClusterSearchEvent::Failed { error: ErrorDto::new(ErrorCode::Kafka, e.to_string()) },
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(key: Option<&[u8]>, value: Option<&[u8]>, headers: &[(&str, Option<&[u8]>)]) -> Record {
        Record {
            partition: 1,
            offset: 7,
            timestamp_ms: 1_765_000_000_000,
            key: key.map(<[u8]>::to_vec),
            value: value.map(<[u8]>::to_vec),
            headers: headers.iter().map(|(n, v)| ((*n).to_string(), v.map(<[u8]>::to_vec))).collect(),
        }
    }

    fn q(mode: SearchMode, place: SearchWhere, text: &str) -> Matcher {
        Matcher::new(&ClusterSearchQuery { mode, place, text: text.into() }).expect("compiles")
    }

    #[test]
    fn text_and_regex_look_in_the_place_asked_any_case() {
        let t: Arc<str> = Arc::from("t");
        let r = rec(Some(b"Customer-42"), Some(br#"{"country":"JP","n":5}"#), &[("trace-Id", Some(b"abc")), ("gone", None)]);
        assert!(q(SearchMode::Text, SearchWhere::All, "customer-4").matches(&t, &r));
        assert!(!q(SearchMode::Text, SearchWhere::Value, "customer").matches(&t, &r));
        assert!(q(SearchMode::Text, SearchWhere::Headers, "TRACE-id").matches(&t, &r));
        assert!(q(SearchMode::Text, SearchWhere::Headers, "abc").matches(&t, &r));
        assert!(!q(SearchMode::Text, SearchWhere::Key, "abc").matches(&t, &r));
        assert!(q(SearchMode::Regex, SearchWhere::Value, r#""n":\d+"#).matches(&t, &r));
        assert!(!q(SearchMode::Regex, SearchWhere::Key, r#"^\d"#).matches(&t, &r));
        let unicode = rec(None, Some("Élan ÜBER".as_bytes()), &[]);
        assert!(q(SearchMode::Text, SearchWhere::All, "über").matches(&t, &unicode));
        let binary = rec(Some(&[0xff, 0x41]), None, &[]);
        assert!(q(SearchMode::Text, SearchWhere::Key, "a").matches(&t, &binary), "bytes: ASCII any case");
    }

    #[test]
    fn cel_sees_a_record_as_the_store_sees_a_message() {
        let t: Arc<str> = Arc::from("t");
        let r = rec(Some(b"customer-4"), Some(br#"{"country":"JP","n":5}"#), &[]);
        assert!(q(SearchMode::Cel, SearchWhere::All, r#"value.country == "JP" && key.startsWith("customer")"#).matches(&t, &r));
        assert!(q(SearchMode::Cel, SearchWhere::All, "partition == 1 && offset == 7 && value.n > 4").matches(&t, &r));
        assert!(!q(SearchMode::Cel, SearchWhere::All, r#"value.country == "FR""#).matches(&t, &r));
        let tomb = rec(None, None, &[]);
        assert!(q(SearchMode::Cel, SearchWhere::All, "size == 0").matches(&t, &tomb));
    }

    #[test]
    fn a_query_that_cannot_run_is_refused_in_words() {
        let bad = |mode, text: &str| {
            Matcher::new(&ClusterSearchQuery { mode, place: SearchWhere::All, text: text.into() }).err().expect("refused")
        };
        assert_eq!(bad(SearchMode::Regex, "(").code, ErrorCode::InvalidRegex);
        assert_eq!(bad(SearchMode::Cel, "value.a ==").code, ErrorCode::InvalidFilter);
        assert_eq!(bad(SearchMode::Text, "").code, ErrorCode::InvalidFilter);
    }
}
