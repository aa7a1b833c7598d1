//! The commands that tests and `make run` use (`assign-stdin`, `seed-demo`).

use std::io::{self, BufRead, Write};
use std::path::Path;

use anyhow::{Context, Result};
use twainmq::Store;

/// `seed-demo`: create the demo store in `root` (made if missing); a store
/// already seeded is left as it is.
pub(crate) fn seed_demo(root: &Path) -> Result<()> {
    let store = Store::open_or_create(root)?;
    if twainmq::demo::seed(&store)? {
        eprintln!("seeded the demo store in {}", root.display());
    }
    Ok(())
}

/// `assign-stdin`: read offer sets `[[id, {"own": [..], "partitions": [..]}], ..]`,
/// one a line, and print each assignment `{"<id>": [partitions]}`.
pub(crate) fn assign_stdin() -> Result<()> {
    #[derive(serde::Deserialize)]
    struct OfferJson {
        own: Vec<u32>,
        partitions: Vec<u32>,
    }
    let mut out = io::BufWriter::new(io::stdout().lock());
    for line in io::stdin().lock().lines() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        let offers: Vec<(u32, OfferJson)> = serde_json::from_str(&line).context("an offer set")?;
        let offers: Vec<(u32, twainmq::internals::Offer)> =
            offers.into_iter().map(|(id, o)| (id, twainmq::internals::Offer { own: o.own, partitions: o.partitions })).collect();
        let result: std::collections::BTreeMap<String, Vec<u32>> =
            twainmq::internals::assign(&offers).into_iter().map(|(k, v)| (k.to_string(), v)).collect();
        serde_json::to_writer(&mut out, &result)?;
        writeln!(out)?;
    }
    out.flush()?;
    Ok(())
}
