//! `twainmq retention show|set|apply` and `topics purge`: the plan is always
//! printed (what goes, what stays for which group), then applied unless a dry run.

use std::io::{self, Write};

use anyhow::{bail, Result};
use twainmq::{Retention, RetentionPlan, Store};

use crate::args::RetentionCmd;
use crate::render;

pub(crate) fn run(store: &Store, cmd: RetentionCmd) -> Result<()> {
    let mut out = io::stdout().lock();
    match cmd {
        RetentionCmd::Show { topic, json } => {
            let r = store.retention(&topic)?;
            render::emit(&mut out, &render::RetentionView { topic, retention: r }, json)
        }
        RetentionCmd::Set { topic, days, bytes } => {
            if days.is_none() && bytes.is_none() {
                bail!("nothing to set: give --days N and/or --bytes N (a limit not given stays as it is; 0 removes it). To see the setting: twainmq retention show {topic}");
            }
            // A limit not given keeps its value; 0 removes that limit.
            let old = store.retention(&topic)?.unwrap_or_default();
            let merged = Retention {
                days: days.map_or(old.days, |d| (d > 0).then_some(d)),
                bytes_per_partition: bytes.map_or(old.bytes_per_partition, |b| (b > 0).then_some(b)),
            };
            let r = (merged.days.is_some() || merged.bytes_per_partition.is_some()).then_some(merged);
            store.set_retention(&topic, r)?;
            if r.is_none() {
                writeln!(out, "topic {topic}: retention setting removed (every file is kept)")?;
                return Ok(());
            }
            render::emit_text(&mut out, &render::RetentionView { topic, retention: r })
        }
        RetentionCmd::Apply { topic, dry_run, force, json } => {
            let topics = match topic {
                Some(t) => {
                    if store.retention(&t)?.is_none() {
                        bail!("topic {t} has no retention setting: set one with `twainmq retention set {t} --days N`");
                    }
                    vec![t]
                }
                None => store.list_topics()?,
            };
            let mut plans = Vec::new();
            for t in topics {
                // (Topics without a setting, and configs that cannot be read, are passed over.)
                if store.retention(&t).ok().flatten().is_some() {
                    plans.push(store.apply_retention(&t, dry_run, force)?);
                }
            }
            render::emit(&mut out, &render::Plans(plans), json)
        }
    }
}

/// `topics purge`.
pub(crate) fn purge(store: &Store, topic: &str, before: Option<f64>, force: bool, yes: bool) -> Result<()> {
    let plan: RetentionPlan = store.purge_topic(topic, before, !yes, force)?;
    let mut out = io::stdout().lock();
    render::emit(&mut out, &render::Plans(vec![plan]), false)?;
    if !yes {
        eprintln!("nothing deleted: add --yes to purge");
    }
    Ok(())
}
