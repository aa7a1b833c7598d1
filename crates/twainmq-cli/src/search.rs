//! `twainmq search`: every partition on every core, matches printed in
//! timeline order (as the topic's timeline reads them), never capped.

use std::io::{self, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use anyhow::{bail, Result};
use twainmq::scan::{self, Finish, Query};
use twainmq::Store;

use crate::args::SearchArgs;
use crate::render;

/// Matches read back and printed this many at a time (flat memory whatever the count).
const READ_BATCH: usize = 4096;

pub(crate) fn run(store: &Store, args: &SearchArgs) -> Result<()> {
    if let (Some(s), Some(u)) = (args.since, args.until) {
        if s > u {
            bail!("--since is after --until: nothing can match; swap them");
        }
    }
    // A bad expression is refused, with its position, before anything is read.
    let filter = args.filter.as_deref().map(twainmq::Filter::compile).transpose()?;
    let query = Query {
        filter,
        key: args.key.clone(),
        text: args.regex.clone().or_else(|| args.text.clone()),
        regex: args.regex.is_some(),
        case_sensitive: args.case_sensitive,
        partitions: (!args.partitions.is_empty()).then(|| args.partitions.clone()),
        since: args.since,
        until: args.until,
    };
    let config = store.topic_config(&args.topic)?;
    if let Some(&p) = args.partitions.iter().find(|p| **p >= config.partitions) {
        return Err(twainmq::Error::PartitionOutOfRange { topic: args.topic.clone(), partition: p, partitions: config.partitions }.into());
    }
    let stop = Arc::new(AtomicBool::new(false));
    let s = stop.clone();
    let _ = ctrlc::set_handler(move || s.store(true, Ordering::SeqCst));
    let (finish, hits) = scan::find(store, &args.topic, &query, &stop, |_| {})?;
    if finish == Finish::Cancelled {
        bail!("search interrupted: nothing printed");
    }
    let stdout = io::stdout();
    let mut out = io::BufWriter::with_capacity(1 << 16, stdout.lock());
    if args.count {
        writeln!(out, "{}", hits.len())?;
        out.flush()?;
        return Ok(());
    }
    let mut ordered = hits.ordered();
    if let Some(limit) = args.limit {
        ordered.truncate(usize::try_from(limit).unwrap_or(usize::MAX));
    }
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
