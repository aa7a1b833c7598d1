//! `twainmq retention show|set|apply` and `topics purge`: the plan is always
//! printed (what goes, what stays for which group), then applied unless a dry run.

use std::io;

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
            let days = days.filter(|d| *d > 0);
            let bytes = bytes.filter(|b| *b > 0);
            let r = (days.is_some() || bytes.is_some()).then_some(Retention { days, bytes_per_partition: bytes });
            store.set_retention(&topic, r)?;
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
