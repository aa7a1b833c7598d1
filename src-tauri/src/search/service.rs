//! What the search's commands do, on plain engine types (no Tauri here, so it
//! is tested directly): a window's search sessions, a search run to its end
//! with throttled progress, the rows of its hits, filter checks, and the field
//! names the filter box completes.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use twainmq::scan;
use twainmq::Store;

use super::wire::{FilterCheck, MissingField, SearchEvent, SearchQuery, SearchRows};
use crate::engine;
use crate::messages::service::MAX_PAGE;
use crate::messages::wire::MessageRow;
use crate::wire::{Count, ErrorCode, ErrorDto};

/// A search and what it found: kept until a newer search replaces it or the
/// store closes, so its hits can be read by index ranges (and exported).
pub struct SearchSession {
    pub topic: String,
    pub query: SearchQuery,
    pub cancel: AtomicBool,
    /// The hits in timeline order, as they settle while the scan runs (a
    /// prefix of the final list, never reordered), all of them once it ends.
    pub hits: Mutex<Vec<scan::HitRef>>,
}

impl SearchSession {
    /// The hits settled so far.
    pub fn settled_hits(&self) -> MutexGuard<'_, Vec<scan::HitRef>> {
        lock(&self.hits)
    }

    /// The references of hits `from..from + limit` (at most [`MAX_PAGE`]) settled so far, and
    /// how many have settled: a copy, so the lock is not held while their rows are read.
    pub fn page(&self, from: Count, limit: u32) -> (Vec<scan::HitRef>, u64) {
        let hits = self.settled_hits();
        let a = usize::try_from(from.get()).unwrap_or(usize::MAX).min(hits.len());
        let b = a.saturating_add(limit.clamp(1, MAX_PAGE) as usize).min(hits.len());
        (hits[a..b].to_vec(), hits.len() as u64)
    }
}

/// A window's search sessions, by id.
#[derive(Default)]
pub struct Searches {
    sessions: Mutex<HashMap<u32, Arc<SearchSession>>>,
    next: AtomicU32,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // A panic while holding the lock leaves the data usable for our purposes.
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl Searches {
    /// Start a session, cancelling and dropping every other one (a new search replaces the old).
    pub fn start(&self, topic: &str, query: &SearchQuery) -> (u32, Arc<SearchSession>) {
        let id = self.next.fetch_add(1, Ordering::Relaxed) + 1;
        let session = Arc::new(SearchSession {
            topic: topic.to_string(),
            query: query.clone(),
            cancel: AtomicBool::new(false),
            hits: Mutex::new(Vec::new()),
        });
        let mut all = lock(&self.sessions);
        for (_, old) in all.drain() {
            old.cancel.store(true, Ordering::Relaxed);
        }
        all.insert(id, session.clone());
        (id, session)
    }

    /// The session `id`, while it is kept.
    pub fn session(&self, id: u32) -> Result<Arc<SearchSession>, ErrorDto> {
        lock(&self.sessions).get(&id).cloned().ok_or_else(|| {
            ErrorDto::new(ErrorCode::NoSearch, "that search is gone: a newer one replaced it, or the store was closed; search again")
        })
    }

    /// Stop session `id` if it runs; what it found so far stays readable.
    pub fn cancel(&self, id: u32) {
        if let Some(s) = lock(&self.sessions).get(&id) {
            s.cancel.store(true, Ordering::Relaxed);
        }
    }

    /// Forget session `id` (cancelling it if it runs).
    pub fn forget(&self, id: u32) {
        if let Some(s) = lock(&self.sessions).remove(&id) {
            s.cancel.store(true, Ordering::Relaxed);
        }
    }

    /// Cancel and forget every session (the store closes or changes).
    pub fn drop_all(&self) {
        for (_, s) in lock(&self.sessions).drain() {
            s.cancel.store(true, Ordering::Relaxed);
        }
    }
}

/// Run a search to its end (or its cancel), sending progress at most every
/// 50 ms and then `done` or `failed`. The hits are handed to `on_settled` in
/// timeline order as they settle (the session keeps them, never capped), so
/// the first are readable within milliseconds. Returns whether it ran (not failed).
pub fn search(
    store: &Store,
    topic: &str,
    q: &SearchQuery,
    cancel: &AtomicBool,
    send: &mut dyn FnMut(SearchEvent),
    on_settled: &mut dyn FnMut(&[scan::HitRef]),
) -> bool {
    let query = match scan::Query::try_from(q) {
        Ok(query) => query,
        Err(error) => {
            send(SearchEvent::Failed { error });
            return false;
        }
    };
    let last = Cell::new(Instant::now());
    let latest = Cell::new(scan::Progress::default());
    let settled = Cell::new(0u64);
    let sender = RefCell::new(send);
    let on_progress = |p: scan::Progress| {
        latest.set(p);
        if last.get().elapsed() >= Duration::from_millis(50) {
            last.set(Instant::now());
            (sender.borrow_mut())(SearchEvent::from((p, settled.get())));
        }
    };
    let hand_over = |h: &[scan::HitRef]| {
        on_settled(h);
        settled.set(settled.get() + h.len() as u64);
        // The first hits are shown at once, not at the next 50 ms tick.
        if settled.get() == h.len() as u64 {
            (sender.borrow_mut())(SearchEvent::from((latest.get(), settled.get())));
        }
    };
    let result = scan::find_streaming(store, topic, &query, cancel, on_progress, hand_over);
    let send = sender.into_inner();
    match result {
        Ok((finish, _)) => {
            send(SearchEvent::from((finish, latest.get(), settled.get())));
            true
        }
        Err(e) => {
            send(SearchEvent::Failed { error: e.into() });
            false
        }
    }
}

/// The rows of `page` (the session's hits from `from` on), of `settled` hits readable in all.
pub fn search_rows(store: &Store, topic: &str, page: &[scan::HitRef], from: Count, settled: u64) -> Result<SearchRows, ErrorDto> {
    let rows = scan::read_hits(store, topic, page)?.iter().map(MessageRow::from).collect();
    Ok(SearchRows { from, rows, hits: Count(settled) })
}

/// The `value` fields `query`'s filter reads that are in none of the messages the search looks
/// at (its partitions, time range and key, every other condition aside), each with the near
/// names among the topic's newest messages' fields: why a filter on `value.contry` finds
/// nothing. Each field is a scan for `has(field)` that stops at its first hit; `cancel` (the
/// search session's) stops them all, with what was found so far.
pub fn missing_fields(store: &Store, topic: &str, query: &SearchQuery, cancel: &AtomicBool) -> Result<Vec<MissingField>, ErrorDto> {
    let Some(expr) = query.filter.as_deref().map(str::trim).filter(|f| !f.is_empty()) else { return Ok(Vec::new()) };
    let fields = twainmq::Filter::compile(expr)?.value_fields();
    let mut seen = std::collections::BTreeSet::new();
    let mut missing = Vec::new();
    for f in fields {
        // Paths `has()` can test: names after dots (an index or a quoted name is left alone).
        let plain = f.split('.').all(|n| {
            n.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
                && n.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        });
        if !plain || !seen.insert(f.clone()) {
            continue;
        }
        let has = SearchQuery { text: None, regex: false, filter: Some(format!("has(value.{f})")), ..query.clone() };
        let stop = AtomicBool::new(false);
        let mut found = false;
        scan::find_streaming(
            store,
            topic,
            &scan::Query::try_from(&has)?,
            &stop,
            |_| {
                if cancel.load(Ordering::Relaxed) {
                    stop.store(true, Ordering::Relaxed);
                }
            },
            |h| {
                if !h.is_empty() {
                    found = true;
                    stop.store(true, Ordering::Relaxed);
                }
            },
        )?;
        if cancel.load(Ordering::Relaxed) {
            break;
        }
        if !found {
            let field = format!("value.{f}");
            missing.push(MissingField { near: near_names(&field, &topic_fields(store, topic)?), field });
        }
    }
    Ok(missing)
}

/// The names of `known` near `name` (by edit distance, transpositions counting one), nearest first.
fn near_names(name: &str, known: &[String]) -> Vec<String> {
    let mut scored: Vec<(usize, &String)> = known
        .iter()
        .filter(|k| k.as_str() != name)
        .map(|k| (strsim::damerau_levenshtein(name, k), k))
        // A third of the name's own length, at least 1 and at most 3: typos, not other words.
        .filter(|(d, _)| *d <= (name.len().saturating_sub("value.".len()) / 3).clamp(1, 3))
        .collect();
    scored.sort();
    scored.into_iter().take(3).map(|(_, k)| k.clone()).collect()
}

/// Whether a CEL filter compiles (for the filter box, as it is typed).
pub fn check_filter(expr: &str) -> FilterCheck {
    twainmq::Filter::compile(expr).into()
}

/// Messages the field list samples, newest first.
pub const FIELD_SAMPLE: usize = 200;
/// Field paths the list gives at most.
const MAX_FIELDS: usize = 300;

/// The JSON field paths seen in the newest messages of a topic (a text
/// payload that is JSON, a typed message's fields), as the filter names them:
/// `value.country`, `value.items`, `value.user.name`; sorted.
pub fn topic_fields(store: &Store, topic: &str) -> Result<Vec<String>, ErrorDto> {
    engine::validate_topic(topic)?;
    let page = store.timeline_page_before(topic, None, None, FIELD_SAMPLE)?;
    let mut out = std::collections::BTreeSet::new();
    for m in &page.messages {
        let value = match &m.payload {
            twainmq::Payload::Text(s) if s.trim_start().starts_with('{') => serde_json::from_str::<serde_json::Value>(s).ok(),
            twainmq::Payload::Typed(t) => t.fields().or_else(|| serde_json::from_str(&t.json).ok()),
            _ => None,
        };
        if let Some(v) = value {
            field_paths(&v, "value", 0, &mut out);
        }
        if out.len() >= MAX_FIELDS {
            break;
        }
    }
    Ok(out.into_iter().take(MAX_FIELDS).collect())
}

fn field_paths(v: &serde_json::Value, path: &str, depth: usize, out: &mut std::collections::BTreeSet<String>) {
    let serde_json::Value::Object(o) = v else { return };
    for (k, x) in o {
        // Names CEL can write after a dot; others need value["..."], not offered.
        let plain = k.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        if !plain {
            continue;
        }
        let p = format!("{path}.{k}");
        if depth < 3 {
            field_paths(x, &p, depth + 1, out);
        }
        out.insert(p);
    }
}
