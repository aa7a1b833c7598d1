//! `groups reset`, `import`, `export` and `delete`: what changes a group's
//! committed offsets or removes it, each showing what it does first.

use std::io::{Read, Write};
use std::path::Path;

use anyhow::{anyhow, bail, Context, Result};
use twainmq::group::{parse_offsets_file, OffsetsFile, ResetTo};
use twainmq::Store;

use super::view::{Deleted, Exported};
use crate::render::{self, ResetView};

/// Largest offsets file read: an export of the most partitions a topic can
/// have is far smaller; anything bigger is not one.
const MAX_OFFSETS_FILE: u64 = 16 << 20;

pub(super) fn reset(store: &Store, out: &mut dyn Write, group: &str, to: &str, parts: &[u32], dry_run: bool, json: bool) -> Result<()> {
    let target = match to.strip_prefix("file:") {
        Some(path) => ResetTo::File(read_offsets(Path::new(path))?),
        None => ResetTo::parse(to).map_err(|e| anyhow!(e))?,
    };
    apply(store, out, group, target, parts, dry_run, json)
}

pub(super) fn import(store: &Store, out: &mut dyn Write, group: &str, file: &Path, parts: &[u32], dry_run: bool, json: bool) -> Result<()> {
    let offsets = read_offsets(file)?;
    // A group deleted to give it a clean log is made again on the file's topic.
    if let (false, Some(topic)) = (dry_run || store.list_groups()?.iter().any(|g| g == group), offsets.topic.as_deref()) {
        store.ensure_group(topic, group, twainmq::StartFrom::Start)?;
        eprintln!("made group {group} on topic {topic}, from the offsets in {}", file.display());
    }
    apply(store, out, group, ResetTo::File(offsets), parts, dry_run, json)
}

fn apply(store: &Store, out: &mut dyn Write, group: &str, target: ResetTo, parts: &[u32], dry_run: bool, json: bool) -> Result<()> {
    let parts = (!parts.is_empty()).then_some(parts);
    let plan = store.reset_group(group, target, parts, dry_run)?;
    let (following, overwriting, live) = (plan.following.clone(), plan.overwriting.clone(), plan.live_holders.clone());
    if let Some(other) = &plan.from_group {
        eprintln!("note: these are the offsets of group {other} (of the same topic, {}), applied to {group}", plan.topic);
    }
    render::emit(out, &ResetView(plan), json)?;
    let will = if dry_run { "would" } else { "will" };
    if !overwriting.is_empty() {
        let (running, silent): (Vec<u32>, Vec<u32>) = overwriting.iter().partition(|id| live.contains(id));
        eprintln!(
            "warning: members {overwriting:?} (0.2.3's protocol; live by the log: {running:?}, not live: {silent:?}) hold partitions of {group}: if still running they {will} overwrite this reset with their next commit, as 0.2.3 reads commits only when it takes a partition. To make it stick: stop them, run `twainmq groups rebalance {group}` and let the round end, then reset"
        );
    }
    if !following.is_empty() {
        eprintln!("note: members {following:?} (twainmq-rs) hold partitions of {group} and {will} move to this reset when they next read the group log");
    }
    Ok(())
}

/// The offsets in a file `groups export` wrote (`-`: standard input). Only a
/// regular file is opened (a FIFO would block, a folder cannot be read), and
/// at most [`MAX_OFFSETS_FILE`] bytes of it are read.
fn read_offsets(path: &Path) -> Result<OffsetsFile> {
    let mut bytes = Vec::new();
    let shown = path.display();
    if path == Path::new("-") {
        std::io::stdin()
            .lock()
            .take(MAX_OFFSETS_FILE + 1)
            .read_to_end(&mut bytes)
            .context("could not read the offsets from standard input")?;
    } else {
        let meta = std::fs::metadata(path).with_context(|| format!("could not read the offsets file {shown}"))?;
        if !meta.is_file() {
            bail!("{shown} is not a regular file: pass the file `twainmq groups export` wrote (or - for standard input)");
        }
        std::fs::File::open(path)
            .and_then(|f| f.take(MAX_OFFSETS_FILE + 1).read_to_end(&mut bytes))
            .with_context(|| format!("could not read the offsets file {shown}"))?;
    }
    if bytes.len() as u64 > MAX_OFFSETS_FILE {
        bail!("{shown} is larger than {MAX_OFFSETS_FILE} bytes: it is not an offsets file `twainmq groups export` wrote");
    }
    parse_offsets_file(&bytes).with_context(|| format!("in {shown}"))
}

pub(super) fn export(store: &Store, out: &mut dyn Write, group: &str) -> Result<()> {
    let d = store.describe_group(group)?;
    render::emit(out, &Exported { group: d.group, topic: d.topic, offsets: d.committed }, true)
}

/// Delete a group, once confirmed, and never under members the log shows live unless the
/// user says they are stopped: a 0.2.3 member running when its group goes crashes on the
/// group's log (FileNotFoundError at its next commit; `tests/interop/test_groups_delete.py`),
/// and ours stop with an error. As Kafka refuses to delete a group that is not empty.
pub(super) fn delete(store: &Store, out: &mut dyn Write, group: &str, yes: bool, members_stopped: bool, json: bool) -> Result<()> {
    let d = store.describe_group(group)?;
    let what = Deleted::of(&d);
    if !yes {
        bail!(
            "nothing deleted: `groups delete {group}` would delete {}. To confirm, run again with --yes: twainmq groups delete {group} --yes",
            what.summary()
        );
    }
    if !what.live_members.is_empty() && !members_stopped {
        bail!(
            "nothing deleted: members {} of group {group} look live (a record within the last {} s). A 0.2.3 member still running crashes (FileNotFoundError on the group's log) when its group is deleted, and a twainmq member stops with an error. Stop them first, then delete; if they are stopped already (a member stopped a moment ago still looks live), run again with --members-stopped: twainmq groups delete {group} --yes --members-stopped",
            join_ids(&what.live_members),
            d.thresholds.live_secs.round()
        );
    }
    store.delete_group(group)?;
    render::emit(out, &what, json)
}

/// `1, 2 and 3`.
fn join_ids(ids: &[u32]) -> String {
    let text: Vec<String> = ids.iter().map(u32::to_string).collect();
    match text.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
        _ => text.join(""),
    }
}
