//! What the UI asks of topics and their messages: descriptions, every row, raw
//! lines, time lookups, timelines and searches.

use std::sync::atomic::AtomicBool;

use serde_json::{json, Map, Value};
use twainmq::Store;
use twainmq_desktop::messages::service as messages;
use twainmq_desktop::messages::wire::{Row, TimelineAnchor};
use twainmq_desktop::search::service as search;
use twainmq_desktop::search::wire::{SearchEvent, SearchQuery};
use twainmq_desktop::topics::service as topics;
use twainmq_desktop::wire::{Count, Offset};

use super::scene::{answer, dto, value, Res, T0};

/// Everything recorded of one topic: its description, every row, raw lines and time lookups.
pub(crate) fn record_topic(store: &Store, topic: &str, sample_every: usize) -> Res<Value> {
    let detail = topics::describe_topic(store, topic);
    let mut partitions = Vec::new();
    let mut raw = Map::new();
    let mut times = Vec::new();
    if let Ok(d) = &detail {
        for p in &d.partitions {
            let mut rows = Vec::new();
            let mut from = p.start;
            let (next, end) = loop {
                let page = messages::read_page(store, topic, p.partition, from, messages::MAX_PAGE).map_err(dto("read a page"))?;
                let done = page.rows.is_empty() || page.next >= page.end;
                rows.extend(page.rows);
                from = page.next;
                if done {
                    break (page.next, page.end);
                }
            };
            for (i, row) in rows.iter().enumerate() {
                let (offset, ts) = match row {
                    Row::Message(m) => (m.offset, Some(m.timestamp)),
                    Row::Damaged(d) => (d.offset, None),
                    Row::Part(p) => (p.offset, None),
                };
                // A large message's last line names it by a random id: not the same on every run.
                let sampled = (i % sample_every == 0 || i + 1 == rows.len() || i < 100) && !matches!(row, Row::Message(m) if m.truncated);
                if sampled {
                    let line = messages::raw_line(store, topic, p.partition, offset).map_err(dto("raw line"))?;
                    raw.insert(format!("{}:{}", p.partition, offset), value(&line));
                }
                if let (Some(ts), true) = (ts, i % sample_every == 0 || i + 1 == rows.len()) {
                    let o = messages::offset_at_time(store, topic, p.partition, ts).map_err(dto("offset at time"))?;
                    times.push(json!([p.partition, ts, o]));
                }
            }
            // Past the last message: no offset.
            let after = rows.iter().rev().find_map(|r| if let Row::Message(m) = r { Some(m.timestamp) } else { None }).unwrap_or(T0) + 1.0;
            let o = messages::offset_at_time(store, topic, p.partition, after).map_err(dto("offset at time"))?;
            times.push(json!([p.partition, after, o]));
            partitions.push(json!({ "partition": p.partition, "rows": rows, "next": next, "end": end }));
        }
    }
    // A topic of several partitions is also shown as one timeline.
    let timeline = match &detail {
        Ok(d) if d.partitions.len() > 1 => record_timeline(store, topic)?,
        _ => Value::Null,
    };
    Ok(json!({
        "detail": answer(&detail),
        "timeline": timeline,
        "partitions": partitions,
        "raw_lines": raw,
        "times": times,
        "groups": answer(&topics::topic_groups(store, topic)),
        "fields": answer(&search::topic_fields(store, topic)),
    }))
}

/// A search's events, without the progress ones (they come by the clock), and
/// every hit's row in the session's order.
pub(crate) fn record_search(store: &Store, topic: &str, query: &SearchQuery) -> Res<Value> {
    let mut events = Vec::new();
    let mut hits = Vec::new();
    let ran = search::search(
        store,
        topic,
        query,
        &AtomicBool::new(false),
        &mut |e| {
            if !matches!(e, SearchEvent::Progress { .. }) {
                events.push(e);
            }
        },
        &mut |h| hits.extend_from_slice(h),
    );
    let mut rows = Vec::new();
    if ran {
        for page in hits.chunks(messages::MAX_PAGE as usize) {
            let from = Count(rows.len() as u64);
            rows.extend(search::search_rows(store, topic, page, from, hits.len() as u64).map_err(dto("search rows"))?.rows);
        }
    }
    Ok(json!({ "topic": topic, "query": query, "events": events, "rows": rows }))
}

pub(crate) fn query(text: &str, regex: bool) -> SearchQuery {
    SearchQuery {
        key: None,
        text: Some(text.into()),
        regex,
        case_sensitive: false,
        partitions: None,
        since: None,
        until: None,
        filter: None,
    }
}

pub(crate) fn cel(filter: &str) -> SearchQuery {
    SearchQuery { text: None, filter: Some(filter.into()), ..query("", false) }
}

/// A topic's whole timeline, as `[partition, offset]` in order (the rows are
/// the partitions' recorded ones), the cuts' sums, and where sampled times land.
pub(crate) fn record_timeline(store: &Store, topic: &str) -> Res<Value> {
    let mut order: Vec<(u32, u64, f64)> = Vec::new();
    let mut start = TimelineAnchor::Start;
    let first = loop {
        let page = messages::timeline_after(store, topic, None, &start, messages::MAX_PAGE).map_err(dto("timeline"))?;
        order.extend(page.rows.iter().map(|r| (r.partition, r.offset.get(), r.timestamp)));
        if page.rows.is_empty() {
            break page;
        }
        start = TimelineAnchor::At { offsets: page.end.clone() };
    };
    // Where the first message at or after a time is: at every tenth message's time, and past the last
    // (the mock answers a time between with the next one sampled).
    let mut times = Vec::new();
    let mut ts: Vec<f64> = order.iter().step_by(10).map(|m| m.2).collect();
    ts.push(order.iter().map(|m| m.2).fold(T0, f64::max) + 1.0);
    for t in ts {
        let page = messages::timeline_after(store, topic, None, &TimelineAnchor::Time { unix: t }, 1).map_err(dto("timeline at a time"))?;
        times.push(json!([t, page.begin]));
    }
    // Pages the mock cuts from the order above, as the engine cuts them.
    let checks = [
        ("before", None, 7u32),
        ("after", Some(TimelineAnchor::Start), 9),
        ("after", Some(TimelineAnchor::Time { unix: order.get(order.len() / 20 * 10).map_or(T0, |m| m.2) }), 6),
        ("after", Some(TimelineAnchor::Index { index: Count(order.len() as u64 / 3) }), 5),
    ];
    let mut page_checks = Vec::new();
    for (dir, anchor, limit) in checks {
        let r = match &anchor {
            None => messages::timeline_before(store, topic, None, None, limit),
            Some(a) => messages::timeline_after(store, topic, None, a, limit),
        };
        page_checks.push(json!({"dir": dir, "anchor": anchor, "limit": limit, "answer": answer(&r)}));
        // And the page before the one just read.
        if let Ok(p) = &r {
            let before = messages::timeline_before(store, topic, None, Some(&p.begin), limit);
            page_checks.push(json!({"dir": "before", "before": p.begin, "limit": limit, "answer": answer(&before)}));
        }
    }
    Ok(json!({
        "partitions": first.partitions,
        "first": first.first,
        "order": order.iter().map(|m| json!([m.0, Offset(m.1)])).collect::<Vec<_>>(),
        "times": times,
        "checks": page_checks,
    }))
}
