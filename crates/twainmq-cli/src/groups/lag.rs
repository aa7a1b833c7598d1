//! `groups lag`: lag per partition against thresholds (exit 1 when over, for
//! scripts and cron), and `--history`, the lag over a past span from the files.

use std::io::Write;
use std::process::ExitCode;

use anyhow::Result;
use twainmq::group::LagThresholds;
use twainmq::Store;

use super::view::{HistoryView, LagReport, LagRow};
use crate::render;

/// The thresholds of `groups lag`.
pub(super) struct Limits {
    pub(super) max_lag: Option<u64>,
    /// Seconds.
    pub(super) max_age: Option<f64>,
}

fn now(store: &Store) -> f64 {
    store.now_secs()
}

pub(super) fn lag(store: &Store, out: &mut dyn Write, group: &str, limits: Limits, json: bool) -> Result<ExitCode> {
    let d = store.describe_group(group)?;
    let now = now(store);
    let thresholds = LagThresholds { max_lag: limits.max_lag, max_age_secs: limits.max_age };
    let judged = d.lag_against(&thresholds, now);
    let over_parts: Vec<u32> = judged.iter().filter(|b| !b.over.is_empty()).map(|b| b.partition).collect();
    let partitions: Vec<LagRow> = d
        .partitions
        .iter()
        .zip(judged)
        .map(|(p, b)| LagRow {
            partition: p.partition,
            committed: p.committed,
            end: p.end,
            lag: p.lag,
            oldest_unconsumed_at: p.oldest_unconsumed_at,
            age_secs: b.age_secs,
            over: b.over,
        })
        .collect();
    let report = LagReport {
        group: d.group,
        topic: d.topic,
        state: d.state.as_str(),
        max_lag: limits.max_lag,
        max_age_secs: limits.max_age,
        total_lag: partitions.iter().map(|p| p.lag).sum(),
        partitions,
        over: over_parts,
    };
    render::emit(out, &report, json)?;
    if report.over.is_empty() {
        return Ok(ExitCode::SUCCESS);
    }
    eprintln!("over a threshold: partitions {:?} of group {group}", report.over);
    Ok(ExitCode::FAILURE)
}

pub(super) fn history(store: &Store, out: &mut dyn Write, group: &str, span: f64, buckets: u32, json: bool) -> Result<()> {
    let to = now(store);
    let h = store.lag_history(group, to - span, to, buckets)?;
    render::emit(out, &HistoryView(h), json)
}
