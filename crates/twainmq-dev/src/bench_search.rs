//! `twainmq-dev bench-search` (for `make bench`): search speed on a topic
//! of 100-byte JSON messages, beside a single-threaded `consume --json` of the
//! same topic in the same run, and the timeline's first page and time jumps.

use std::sync::atomic::AtomicBool;
use std::time::Instant;

use anyhow::Result;
use serde::Serialize;
use twainmq::scan::{self, Query};
use twainmq::{Clock, Filter, Key, KeyType, Outgoing, StartFrom, Store, TimelineStart, TopicSpec};

#[derive(Debug, Serialize)]
pub struct SearchReport {
    pub messages: u64,
    pub partitions: u32,
    pub threads: usize,
    pub write_s: f64,
    /// Single-threaded read and JSON rendering of every message (what `consume --json` does).
    pub consume_json_msgs_per_s: f64,
    /// `value.country == "DE" && value.amount > 100` over the whole topic.
    pub field_filter_msgs_per_s: f64,
    pub field_filter_hits: u64,
    /// `key in [1, 2, 3]`: decided from each line's head, nothing inflated.
    pub key_filter_lines_per_s: f64,
    pub key_filter_hits: u64,
    /// A 10% time window (`since`/`until`) the first time: the time index
    /// is built (every line's timestamp read) and then skips to the window.
    pub time_window_cold_ms: f64,
    /// The same again, the time index built: it skips to the window, heads decide the rest.
    pub time_window_ms: f64,
    pub time_window_hits: u64,
    /// The same window as a CEL filter (`timestamp >= timestamp(..) && timestamp <= timestamp(..)`).
    pub time_filter_ms: f64,
    pub time_filter_hits: u64,
    /// The topic's lines over the warm window's time: what a time-bounded filter answers for.
    pub time_filter_lines_per_s: f64,
    /// A text search (every payload inflated).
    pub text_msgs_per_s: f64,
    /// A search whose every message matches: the first hits handed over (settled, in order).
    pub first_hits_ms: f64,
    /// The newest 100 messages of the topic (the timeline's End), index warm.
    pub timeline_end_page_ms: f64,
    /// The same from a store opened afresh without an index cache: every file
    /// counted and the time index built (the files in the OS's cache).
    pub timeline_end_page_cold_ms: f64,
    /// 100 messages from a time in the middle of the topic, index warm.
    pub timeline_jump_ms: f64,
}

fn json_payload(i: u64) -> String {
    const COUNTRIES: [&str; 5] = ["DE", "FR", "US", "GB", "JP"];
    let c = COUNTRIES[usize::try_from(i % 5).unwrap_or(0)];
    // About 100 bytes, like the issue's benchmark messages.
    format!(r#"{{"id":{i},"country":"{c}","amount":{},"note":"{}","ok":true}}"#, (i * 7919) % 500, "n".repeat(40))
}

fn secs(t: Instant) -> f64 {
    t.elapsed().as_secs_f64().max(1e-9)
}

/// Run it and print the report as one JSON line.
pub(crate) fn command(store: &Store, messages: u64, partitions: u32) -> Result<()> {
    let report = run(store, messages.max(1), partitions.max(1))?;
    println!("{}", serde_json::to_string(&report)?);
    Ok(())
}

fn run(store: &Store, messages: u64, partitions: u32) -> Result<SearchReport> {
    let topic = format!("bench-search-{}", std::process::id());
    store.create_topic(&topic, &TopicSpec::new(KeyType::U32, partitions))?;
    let t = Instant::now();
    let mut p = store.producer(&topic)?;
    let mut batch = Vec::with_capacity(10_000);
    let (mut lo, mut hi) = (0.0, 0.0);
    let mut i = 0u64;
    let now = || twainmq::SystemClock.now_micros() as f64 / 1e6;
    while i < messages {
        batch.clear();
        let first = i;
        for _ in 0..10_000.min(messages - i) {
            batch.push((Key::Int(i % 1000), Outgoing::Text(json_payload(i))));
            i += 1;
        }
        // The window: from the batch holding the 45% mark to the one holding the 55% mark
        // (a batch's messages are stamped with the time of its call).
        let before = now();
        p.send_batch(&batch)?;
        if (first..i).contains(&(messages * 45 / 100)) {
            lo = before;
        }
        if (first..i).contains(&(messages * 55 / 100)) {
            hi = now();
        }
    }
    drop(p);
    let write_s = secs(t);
    let stop = AtomicBool::new(false);
    // Count every file once, so the runs below compare reading, not first counting
    // (with a condition that keeps no hits: a match-all would keep 10M references).
    scan::find(store, &topic, &Query { key: Some("1000000".into()), ..Query::default() }, &stop, |_| {})?;

    let t = Instant::now();
    let mut c = store.consumer(&topic, StartFrom::Start)?;
    let mut out = Vec::with_capacity(1 << 16);
    let mut n = 0u64;
    while let Some(m) = c.poll()? {
        serde_json::to_writer(&mut out, &m.to_json())?;
        out.push(b'\n');
        if out.len() > 1 << 16 {
            out.clear();
        }
        n += 1;
    }
    let consume_json_msgs_per_s = n as f64 / secs(t);

    let q = |expr: &str| -> Result<Query> { Ok(Query { filter: Some(Filter::compile(expr)?), ..Query::default() }) };
    let t = Instant::now();
    let (_, hits) = scan::find(store, &topic, &q(r#"value.country == "DE" && value.amount > 100"#)?, &stop, |_| {})?;
    let field = (messages as f64 / secs(t), hits.len());
    let t = Instant::now();
    let (_, hits) = scan::find(store, &topic, &q("key in [1, 2, 3]")?, &stop, |_| {})?;
    let key = (messages as f64 / secs(t), hits.len());
    let window_query = Query { since: Some(lo), until: Some(hi), ..Query::default() };
    let t = Instant::now();
    scan::find(store, &topic, &window_query, &stop, |_| {})?;
    let time_window_cold_ms = secs(t) * 1e3;
    let t = Instant::now();
    let (_, hits) = scan::find(store, &topic, &window_query, &stop, |_| {})?;
    let window = (secs(t) * 1e3, hits.len());
    let rfc = |x: f64| {
        // Microseconds: the timestamps' own precision (in range: `lo`/`hi` are now).
        #[allow(clippy::cast_possible_truncation)]
        let micros = (x * 1e6).round() as i64;
        chrono::DateTime::from_timestamp_micros(micros).map(|d| d.to_rfc3339_opts(chrono::SecondsFormat::Micros, true)).unwrap_or_default()
    };
    let t = Instant::now();
    let (_, hits) = scan::find(
        store,
        &topic,
        &q(&format!(r#"timestamp >= timestamp("{}") && timestamp <= timestamp("{}")"#, rfc(lo), rfc(hi)))?,
        &stop,
        |_| {},
    )?;
    let time_filter = (secs(t) * 1e3, hits.len());
    let t = Instant::now();
    scan::find(store, &topic, &Query { text: Some("\"country\":\"jp\"".into()), ..Query::default() }, &stop, |_| {})?;
    let text_msgs_per_s = messages as f64 / secs(t);

    let t = Instant::now();
    let mut first_hits_ms = None;
    let cancel = AtomicBool::new(false);
    scan::find_streaming(
        store,
        &topic,
        &Query { text: Some("country".into()), ..Query::default() },
        &cancel,
        |_| {},
        |_| {
            // The first hand-over is what a screen shows first; the rest is not waited for.
            first_hits_ms.get_or_insert(secs(t) * 1e3);
            cancel.store(true, std::sync::atomic::Ordering::Relaxed);
        },
    )?;
    let first_hits_ms = first_hits_ms.unwrap_or(f64::NAN);
    let t = Instant::now();
    let page = store.timeline_page_before(&topic, None, None, 100)?;
    let timeline_end_page_ms = secs(t) * 1e3;
    anyhow::ensure!(page.messages.len() == 100.min(usize::try_from(messages).unwrap_or(usize::MAX)), "short end page");
    let t = Instant::now();
    store.timeline_page_after(&topic, None, &TimelineStart::Time((lo + hi) / 2.0), 100)?;
    let timeline_jump_ms = secs(t) * 1e3;
    let cold = Store::open(store.root())?;
    let t = Instant::now();
    cold.timeline_page_before(&topic, None, None, 100)?;
    let timeline_end_page_cold_ms = secs(t) * 1e3;
    store.delete_topic(&topic)?;
    Ok(SearchReport {
        messages,
        partitions,
        threads: std::thread::available_parallelism().map_or(1, std::num::NonZero::get),
        write_s,
        consume_json_msgs_per_s,
        field_filter_msgs_per_s: field.0,
        field_filter_hits: field.1,
        key_filter_lines_per_s: key.0,
        key_filter_hits: key.1,
        time_window_cold_ms,
        time_window_ms: window.0,
        time_window_hits: window.1,
        time_filter_ms: time_filter.0,
        time_filter_hits: time_filter.1,
        time_filter_lines_per_s: messages as f64 / (time_filter.0 / 1e3),
        text_msgs_per_s,
        first_hits_ms,
        timeline_end_page_ms,
        timeline_end_page_cold_ms,
        timeline_jump_ms,
    })
}
