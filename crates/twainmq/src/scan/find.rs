//! Finding every hit of a query, on every core: the partitions (and ranges
//! of big ones) are tasks that worker threads take in turn; each keeps the
//! offsets and timestamps of its hits, so results are references that cost
//! 16 bytes a hit and are never capped.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Duration;

use super::hits::{HitRef, Hits, Task, TaskHits};
use super::settle::Settle;
use super::{Finish, Matcher, Progress, Query};
use crate::error::{Error, Result};
use crate::format::key::{Key, KeyType};
use crate::format::message::Message;
use crate::log::cursor::StartFrom;
use crate::log::reader::Scanned;
use crate::log::timeindex::line_timestamp;
use crate::store::Store;

/// A partition's range to read: (partition, from, to).
type Range = (u32, u64, u64);

/// What every task shares.
struct Shared<'a> {
    store: &'a Store,
    topic: &'a str,
    key_type: KeyType,
    key: Option<Key>,
    since: Option<f64>,
    until: Option<f64>,
    matcher: Matcher,
    filter: Option<crate::query::Filter>,
    cancel: &'a AtomicBool,
    /// Set on the first error, so the other workers stop too.
    failed: AtomicBool,
    /// Keep each hit (else only count them).
    keep: bool,
    scanned: AtomicU64,
    hits: AtomicU64,
}

/// Lines between two hits that [`read_hits`] reads on over rather than seeking.
const READ_ON: u64 = 2048;
/// Lines a worker reads between looks at the cancel flag.
const BUDGET: u32 = 4096;
/// Smallest range a partition is cut into for another worker.
const MIN_RANGE: u64 = 1 << 16;

/// Find every message of `topic` that `query` matches, on every core.
/// `on_progress` is called on this thread every 20 ms or so, and at the end.
///
/// # Errors
/// [`Error::InvalidRegex`] (before anything is read), topic and I/O errors.
pub fn find(store: &Store, topic: &str, query: &Query, cancel: &AtomicBool, on_progress: impl FnMut(Progress)) -> Result<(Finish, Hits)> {
    find_streaming(store, topic, query, cancel, on_progress, |_| {})
}

/// As [`find`], also handing over the hits as they settle: `on_settled` is
/// called on this thread with the next hits in timeline order, once nothing
/// still to be read can come before them. The slices it is given, end to
/// end, are [`Hits::ordered`] of the result, whether the search ran to its
/// end or was cancelled (then the ranges never read are missing from both).
///
/// So that the first hits settle early, every partition is read from its
/// start in ranges that grow (4 Ki lines, then doubling), taken round the
/// partitions in turn: the timeline is swept from its beginning on all
/// partitions together.
///
/// # Errors
/// As [`find`].
pub fn find_streaming(
    store: &Store,
    topic: &str,
    query: &Query,
    cancel: &AtomicBool,
    on_progress: impl FnMut(Progress),
    on_settled: impl FnMut(&[HitRef]),
) -> Result<(Finish, Hits)> {
    scan(store, topic, query, cancel, on_progress, on_settled, true)
}

/// How many messages `query` matches, as [`find`] finds them, keeping none:
/// memory independent of the count.
///
/// # Errors
/// As [`find`].
pub fn count(
    store: &Store,
    topic: &str,
    query: &Query,
    cancel: &AtomicBool,
    mut on_progress: impl FnMut(Progress),
) -> Result<(Finish, u64)> {
    let mut hits = 0;
    let (finish, _) = scan(
        store,
        topic,
        query,
        cancel,
        |p| {
            hits = p.hits;
            on_progress(p);
        },
        |_| {},
        false,
    )?;
    Ok((finish, hits))
}

/// The scan behind [`find_streaming`] and [`count`]: with `keep`, the hits
/// are kept (and settled); without, only counted.
#[allow(clippy::too_many_arguments)]
fn scan(
    store: &Store,
    topic: &str,
    query: &Query,
    cancel: &AtomicBool,
    mut on_progress: impl FnMut(Progress),
    mut on_settled: impl FnMut(&[HitRef]),
    keep: bool,
) -> Result<(Finish, Hits)> {
    // A filter's own time bounds (`timestamp >= T && ...`) narrow the query's:
    // the time index then skips what they exclude (the filter still tests the rest).
    let (fsince, funtil) = query.filter.as_ref().map_or((None, None), crate::query::Filter::time_bounds);
    let tighter = |a: Option<f64>, b: Option<f64>, pick: fn(f64, f64) -> f64| match (a, b) {
        (Some(a), Some(b)) => Some(pick(a, b)),
        (a, b) => a.or(b),
    };
    let query = &Query { since: tighter(query.since, fsince, f64::max), until: tighter(query.until, funtil, f64::min), ..query.clone() };
    let config = store.topic_config(topic)?;
    // The topic searched: if another process deletes (or makes again) the topic
    // under the scan, its hits are of files no longer there, and the search fails.
    let incarnation = store.topic_incarnation(topic)?;
    let deleted = || Error::TopicDeleted { topic: topic.to_string(), path: store.topic_dir(topic) };
    let matcher = Matcher::new(query)?;
    let mut key = query.key.as_ref().map(|k| Key::parse(k, config.key_type).unwrap_or(Key::Str(k.clone())));
    if config.key_type.is_free() {
        // Lines hold a free key's id: look for the id (none: a key never sent, no hit).
        if let Some(k) = key.take() {
            let id = match config.key_type.accept(k) {
                Ok(k) => crate::log::keys::KeyTable::new(&store.topic_dir(topic)).find(&k)?,
                Err(_) => None,
            };
            key = Some(id.map_or(Key::Null, Key::Int));
        }
    }
    let partitions: Vec<u32> = match &query.partitions {
        Some(ps) => ps.iter().copied().filter(|p| *p < config.partitions).collect(),
        None => (0..config.partitions).collect(),
    };
    // Any failure once the topic has changed is its deletion (a file or the config gone), said so.
    let changed = || store.topic_incarnation(topic).ok() != Some(incarnation);
    let setup = || -> Result<(Vec<Range>, Vec<u64>)> {
        // Every file counted (and timed, for time bounds) on every core before the ranges are cut.
        crate::log::seek::warm(store.log(), topic, &partitions, query.since.is_some() || query.until.is_some())?;
        let listing = crate::log::files::list_topic_dir(&store.topic_dir(topic), config.partitions)?;
        let mut ranges = Vec::with_capacity(partitions.len());
        let mut firsts = Vec::with_capacity(partitions.len());
        for &p in &partitions {
            let files = listing.partitions.get(p as usize).map_or(&[][..], Vec::as_slice);
            let mut from = files.first().map_or(0, |f| f.first);
            firsts.push(from);
            let mut to = store.log().partition_end(files)?;
            if let Some(since) = query.since {
                from = from.max(crate::log::seek::offset_at_time(store.log(), topic, p, since)?.unwrap_or(to));
            }
            if let Some(until) = query.until {
                to = to.min(crate::log::seek::end_for_until(store.log(), topic, p, until)?);
            }
            ranges.push((p, from, to.max(from)));
        }
        Ok((ranges, firsts))
    };
    let (ranges, firsts) = setup().map_err(|e| if changed() { deleted() } else { e })?;
    let workers = std::thread::available_parallelism().map_or(1, std::num::NonZero::get);
    let tasks = cut(&ranges, workers);
    let total: u64 = ranges.iter().map(|(_, f, t)| t - f).sum();
    let shared = Shared {
        store,
        topic,
        key_type: config.key_type,
        key,
        since: query.since,
        until: query.until,
        matcher,
        filter: query.filter.clone(),
        cancel,
        failed: AtomicBool::new(false),
        scanned: AtomicU64::new(0),
        hits: AtomicU64::new(0),
        keep,
    };
    let results: Mutex<Vec<Option<TaskHits>>> = Mutex::new(vec![None; tasks.len()]);
    let error: Mutex<Option<Error>> = Mutex::new(None);
    let next = AtomicUsize::new(0);
    let done = AtomicUsize::new(0);
    let progress = |s: &Shared<'_>| Progress { scanned: s.scanned.load(Ordering::Relaxed), total, hits: s.hits.load(Ordering::Relaxed) };
    let mut settle = Settle::new(store, topic, &partitions, &firsts, &tasks);
    let mut failure = None;
    // Workers wake this thread as each task ends, so the end (or a cancel) is seen at once.
    let this = std::thread::current();
    // Workers run at the search thread's priority (`in_background`): Windows
    // threads do not inherit it, so each takes it on.
    let lowered = crate::sys::priority::is_lowered();
    std::thread::scope(|scope| {
        for _ in 0..workers.min(tasks.len()) {
            scope.spawn(|| {
                crate::sys::priority::follow(lowered);
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(task) = tasks.get(i) else { break };
                    match scan_task(&shared, task) {
                        Ok(r) => results.lock().unwrap_or_else(|p| p.into_inner())[i] = Some(r),
                        Err(e) => {
                            shared.failed.store(true, Ordering::Relaxed);
                            error.lock().unwrap_or_else(|p| p.into_inner()).get_or_insert(e);
                        }
                    }
                    done.fetch_add(1, Ordering::Release);
                    this.unpark();
                }
            });
        }
        while done.load(Ordering::Acquire) < tasks.len() && !shared.failed.load(Ordering::Relaxed) {
            std::thread::park_timeout(Duration::from_millis(20));
            if failure.is_none() && changed() {
                shared.failed.store(true, Ordering::Relaxed);
                failure = Some(deleted());
            }
            if failure.is_none() {
                if let Err(e) = settle.take(&results, false, &mut on_settled) {
                    // Stop the workers: the search has failed.
                    shared.failed.store(true, Ordering::Relaxed);
                    failure = Some(e);
                }
            }
            on_progress(progress(&shared));
        }
    });
    if let Some(e) = error.into_inner().unwrap_or_else(|p| p.into_inner()).or(failure) {
        return Err(if changed() { deleted() } else { e });
    }
    if changed() {
        return Err(deleted());
    }
    // Every task has ended: what was not run (a cancel) is passed over.
    settle.take(&results, true, &mut on_settled)?;
    let end = progress(&shared);
    on_progress(end);
    let finish = if cancel.load(Ordering::Relaxed) { Finish::Cancelled } else { Finish::Done };
    Ok((finish, Hits { parts: settle.parts }))
}

/// The first range of each partition: small, so that the first hits settle
/// within milliseconds.
const FIRST_RANGE: u64 = 1 << 12;

/// Cut the partitions' ranges into tasks: from each partition's start,
/// ranges of [`FIRST_RANGE`] lines doubling up to an even share of the work
/// (or [`MIN_RANGE`], whichever is larger), then ranges of that size; taken
/// round the partitions, the n-th range of every partition before any's n+1-th.
fn cut(ranges: &[(u32, u64, u64)], workers: usize) -> Vec<Task> {
    let total: u64 = ranges.iter().map(|(_, f, t)| t - f).sum();
    let pieces = (workers as u64).saturating_mul(4).max(1);
    let size = (total / pieces).max(MIN_RANGE);
    let mut per: Vec<Vec<Task>> = Vec::with_capacity(ranges.len());
    for (part, &(partition, from, to)) in ranges.iter().enumerate() {
        let mut mine = Vec::new();
        let mut a = from;
        let mut step = FIRST_RANGE.min(size);
        loop {
            let b = if to - a > step + step / 2 { a + step } else { to };
            mine.push(Task { part, partition, from: a, to: b });
            if b >= to {
                break;
            }
            a = b;
            step = (step * 2).min(size);
        }
        per.push(mine);
    }
    let longest = per.iter().map(Vec::len).max().unwrap_or(0);
    let mut tasks = Vec::with_capacity(per.iter().map(Vec::len).sum());
    for n in 0..longest {
        for mine in &per {
            if let Some(t) = mine.get(n) {
                tasks.push(*t);
            }
        }
    }
    tasks
}

/// Scan one range; returns its hits, with places counted from the range's start.
fn scan_task(s: &Shared<'_>, task: &Task) -> Result<TaskHits> {
    let mut out = TaskHits { max: f64::NEG_INFINITY, ..TaskHits::default() };
    if task.from >= task.to {
        return Ok(out);
    }
    let mut r = s.store.partition_reader(s.topic, task.partition, StartFrom::Offset(task.from))?;
    let kc = s.key_type.encoded_len();
    // Whether a line the head conditions (and the filter's head tests) let
    // through still needs its payload: the text matcher always does; a filter
    // whose `on_head` answered needs no more.
    let needs_payload = !s.matcher.is_any();
    // The filter, when its head tests can decide anything (else `on_head` is
    // always `None` and the key need not be decoded for it).
    // (A free key's line holds its id, not the key: the filter then sees the message.)
    let head_filter = s.filter.as_ref().filter(|f| f.reads_head() && !s.key_type.is_free());
    // A filter the head cannot decide needs the payload of every line let through.
    let needs_payload = needs_payload || (s.filter.is_some() && head_filter.is_none());
    let mut lowered = Vec::new();
    // Counts are added to the shared totals in runs, not per message: two
    // workers adding to one cache line per message spent a tenth of a
    // field filter's time passing that line between the cores.
    let mut seen = 0u64;
    let mut found = 0u64;
    let flush = |seen: &mut u64, found: &mut u64| {
        s.scanned.fetch_add(std::mem::take(seen), Ordering::Relaxed);
        s.hits.fetch_add(std::mem::take(found), Ordering::Relaxed);
    };
    loop {
        if seen >= u64::from(BUDGET) {
            flush(&mut seen, &mut found);
        }
        if s.cancel.load(Ordering::Relaxed) || s.failed.load(Ordering::Relaxed) {
            break;
        }
        let polled = {
            let mut pre = |offset: u64, line: &[u8]| -> bool {
                seen += 1;
                // A line without a readable head is decoded, to be reported and skipped.
                let Some(ts) = line_timestamp(line, kc) else { return true };
                // Every line moves the place, hit or not.
                if ts > out.max {
                    out.max = ts;
                }
                if s.since.is_some_and(|t| ts < t) || s.until.is_some_and(|t| ts > t) {
                    return false;
                }
                if s.key.is_some() || head_filter.is_some() {
                    let Some(key) = line.get(..kc).and_then(|k| s.key_type.decode(k).ok()) else { return true };
                    if s.key.as_ref().is_some_and(|want| *want != key) {
                        return false;
                    }
                    if let Some(f) = head_filter {
                        match f.on_head(task.partition, offset, &key, ts) {
                            Some(false) => return false,
                            Some(true) => {}
                            // The filter needs the payload.
                            None => return true,
                        }
                    }
                }
                if needs_payload {
                    return true;
                }
                // Decided by the head alone: a hit without inflating the payload.
                if s.keep {
                    out.offsets.push(offset);
                    out.times.push(ts);
                    out.places.push(out.max);
                }
                found += 1;
                false
            };
            r.poll_scan(task.to, &mut pre, BUDGET)
        };
        match polled {
            Ok(Scanned::Message(m)) => {
                if s.matcher.is_match(&m.payload, &mut lowered) && s.filter.as_ref().is_none_or(|f| f.matches(&m)) {
                    if s.keep {
                        out.offsets.push(m.offset);
                        out.times.push(m.timestamp);
                        out.places.push(out.max);
                    }
                    found += 1;
                }
            }
            Ok(Scanned::Skipped) => {}
            Ok(Scanned::End) => break,
            Err(Error::CorruptLine { .. }) => {}
            Err(e) => return Err(e),
        }
    }
    flush(&mut seen, &mut found);
    Ok(out)
}

/// The messages `hits` refer to, in the order given (a hit given twice comes
/// once, where first given). A hit whose line is no longer there (the topic
/// was cut or replaced since) or is damaged is left out. Only the hits'
/// lines are decoded: the lines between near hits are passed over.
///
/// # Errors
/// Topic and I/O errors.
pub fn read_hits(store: &Store, topic: &str, hits: &[HitRef]) -> Result<Vec<Message>> {
    let mut by_partition: HashMap<u32, Vec<u64>> = HashMap::new();
    for h in hits {
        by_partition.entry(h.partition).or_default().push(h.offset);
    }
    let mut found: HashMap<(u32, u64), Message> = HashMap::with_capacity(hits.len());
    for (p, mut offsets) in by_partition {
        offsets.sort_unstable();
        offsets.dedup();
        let mut r = store.partition_reader(topic, p, StartFrom::Offset(offsets[0]))?;
        let mut i = 0;
        while let Some(&o) = offsets.get(i) {
            // Close hits are read on to (the lines between are passed over
            // undecoded, a newline search each); far ones are sought through the line index.
            if o < r.position() || o - r.position() > READ_ON {
                r.seek_to(StartFrom::Offset(o))?;
            }
            let mut only = |offset: u64, _: &[u8]| offset == o;
            match r.poll_scan(o + 1, &mut only, BUDGET) {
                Ok(Scanned::Message(m)) if m.offset == o => {
                    found.insert((p, o), m);
                    i += 1;
                }
                // Not there (the topic was cut or replaced since), or damaged: left out.
                Ok(Scanned::End) => i += 1,
                Ok(Scanned::Message(_) | Scanned::Skipped) | Err(Error::CorruptLine { .. }) => {
                    if r.position() > o {
                        i += 1;
                    }
                }
                Err(e) => return Err(e),
            }
        }
    }
    Ok(hits.iter().filter_map(|h| found.remove(&(h.partition, h.offset))).collect())
}
