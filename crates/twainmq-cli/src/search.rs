//! `twainmq search`: every partition on every core, matches printed in
//! timeline order (as the topic's timeline reads them), never capped.

use std::io::{self, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use anyhow::{bail, Result};
use twainmq::scan::{self, Finish, Query};
use twainmq::Store;

use crate::args::{SearchArgs, SelectArgs};
use crate::render;

/// Matches read back and printed this many at a time (flat memory whatever the count).
const READ_BATCH: usize = 4096;

/// The query `a` names on `topic`: refused before anything is read when the
/// times are swapped, the filter does not compile (with its position) or a
/// partition is not the topic's. Shared by `search`, `export` and `copy`.
pub(crate) fn query(store: &Store, topic: &str, a: &SelectArgs) -> Result<Query> {
    if let (Some(s), Some(u)) = (a.since, a.until) {
        if s > u {
            bail!("--since is after --until: nothing can match; swap them");
        }
    }
    let filter = a.filter.as_deref().map(twainmq::Filter::compile).transpose()?;
    let config = store.topic_config(topic)?;
    if let Some(&p) = a.partitions.iter().find(|p| **p >= config.partitions) {
        return Err(twainmq::Error::PartitionOutOfRange { topic: topic.to_string(), partition: p, partitions: config.partitions }.into());
    }
    Ok(Query {
        filter,
        key: a.key.clone(),
        text: a.regex.clone().or_else(|| a.text.clone()),
        regex: a.regex.is_some(),
        case_sensitive: a.case_sensitive,
        partitions: (!a.partitions.is_empty()).then(|| a.partitions.clone()),
        since: a.since,
        until: a.until,
    })
}

pub(crate) fn run(store: &Store, args: &SearchArgs) -> Result<()> {
    let query = query(store, &args.topic, &args.select)?;
    let stop = Arc::new(AtomicBool::new(false));
    let s = stop.clone();
    let _ = ctrlc::set_handler(move || s.store(true, Ordering::SeqCst));
    let stdout = io::stdout();
    let mut out = io::BufWriter::with_capacity(1 << 16, stdout.lock());
    if args.count {
        // Counted, none kept: memory does not grow with the hits.
        let (finish, n) = scan::count(store, &args.topic, &query, &stop, |_| {})?;
        if finish == Finish::Cancelled {
            bail!("search interrupted: nothing printed");
        }
        writeln!(out, "{n}")?;
        out.flush()?;
        return Ok(());
    }
    // With --limit, the scan stops once that many hits have settled in
    // timeline order (the first ones): it neither reads nor keeps the rest.
    let limit = args.limit.map(|l| usize::try_from(l).unwrap_or(usize::MAX));
    let mut first: Vec<scan::HitRef> = Vec::new();
    let enough = AtomicBool::new(false);
    let (finish, hits) = scan::find_streaming(
        store,
        &args.topic,
        &query,
        &stop,
        |_| {},
        |settled| {
            if let Some(l) = limit {
                let room = l.saturating_sub(first.len());
                first.extend_from_slice(&settled[..settled.len().min(room)]);
                if first.len() >= l && !enough.swap(true, Ordering::SeqCst) {
                    stop.store(true, Ordering::SeqCst);
                }
            }
        },
    )?;
    if finish == Finish::Cancelled && !enough.load(Ordering::SeqCst) {
        bail!("search interrupted: nothing printed");
    }
    if enough.load(Ordering::SeqCst) {
        // The limit stopped the scan, not a signal: the hits found are printed.
        stop.store(false, Ordering::SeqCst);
    }
    let ordered = if limit.is_some() { first } else { hits.ordered() };
    for batch in ordered.chunks(READ_BATCH) {
        if stop.load(Ordering::SeqCst) {
            break;
        }
        for m in scan::read_hits(store, &args.topic, batch)? {
            render::message(&mut out, &m, args.json)?;
        }
    }
    out.flush()?;
    Ok(())
}
