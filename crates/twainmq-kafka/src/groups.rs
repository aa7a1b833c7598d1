//! Consumer groups' committed offsets, translated through the records'
//! origins (as MirrorMaker 2 does: at least once for the group). A commit
//! `c` (the next offset to read) on the source becomes, on the target, the
//! offset just after the last mirrored record whose source offset is below
//! `c`: never past where the group truly is, so a consumer moving to the
//! target reads at most some records again and skips none. A commit is
//! written only to a group with no live member on the target, and only when
//! it moves the group forward. Groups of the same name on both sides.

use std::collections::BTreeMap;

use twainmq::group::ResetTo;
use twainmq::{StartFrom, Store};

use crate::cluster::Cluster;
use crate::error::Result;
use crate::journal::Writer;
use crate::lease;
use crate::mapping::{self, Origin};
use crate::report::GroupSync;

/// Store groups reading `source` -> Kafka groups on `target`.
pub(crate) async fn store_to_kafka(
    store: &Store,
    cluster: &Cluster,
    store_id: &str,
    source: &str,
    target: &str,
    n: u32,
) -> Result<Vec<GroupSync>> {
    let mut out = Vec::new();
    let groups = store.groups_reading(source)?;
    if groups.is_empty() {
        return Ok(out);
    }
    let marks = cluster.watermarks(target, n).await?;
    let reader = cluster.reader().await?;
    for g in groups {
        let desc = store.describe_group_on(&g, Some(source))?;
        let members = cluster.group_members(&g).await?;
        if !members.is_empty() {
            out.push(GroupSync {
                group: g,
                written: Vec::new(),
                note: Some(format!("the Kafka group has live members ({}): its offsets are theirs", members.join(", "))),
            });
            continue;
        }
        let existing = cluster.group_offsets(&g, target).await?;
        let ends = store.end_offsets(source)?;
        let mut written = Vec::new();
        let mut offsets = Vec::new();
        for (p, c) in &desc.committed {
            let Ok(p) = p.parse::<u32>() else { continue };
            if p >= n {
                continue;
            }
            // -1: the end when the partition is taken.
            let c = if *c < 0 { ends[p as usize] } else { *c as u64 };
            let Some(t) = kafka_after_origin_below(cluster, &reader, target, p, marks[p as usize], store_id, source, c).await? else {
                continue;
            };
            if existing.get(&p).is_some_and(|e| *e >= t) {
                continue;
            }
            offsets.push((p, t));
            written.push((p, c as i64, t));
        }
        if !offsets.is_empty() {
            cluster.commit_group(&g, target, &offsets).await?;
        }
        out.push(GroupSync { group: g, written, note: None });
    }
    let _ = reader.close().await;
    Ok(out)
}

/// The Kafka offset just after the last record of `target`/`p` whose origin is
/// `store_id`/`source`/`p` at an offset below `c`; `None` when there is none.
/// Reads the partition backwards from its end in growing windows.
#[allow(clippy::too_many_arguments)]
async fn kafka_after_origin_below(
    cluster: &Cluster,
    reader: &krafka::consumer::Consumer,
    target: &str,
    p: u32,
    (low, high): (i64, i64),
    store_id: &str,
    source: &str,
    c: u64,
) -> Result<Option<i64>> {
    let mut window = 256i64;
    let mut to = high;
    while to > low {
        let from = (to - window).max(low);
        let recs = cluster.read_range(reader, target, p, from, to).await?;
        for r in recs.iter().rev() {
            let Some(o) = r.header(mapping::ORIGIN).and_then(|v| v.and_then(|b| Origin::decode(b))) else { continue };
            if o.source == store_id && o.topic == source && o.partition == p && o.offset < c {
                return Ok(Some(r.offset + 1));
            }
        }
        to = from;
        window = window.saturating_mul(4);
    }
    Ok(None)
}

/// Kafka groups with commits on `source` -> store groups on `target`.
pub(crate) async fn kafka_to_store(
    store: &Store,
    cluster: &Cluster,
    writer: &Writer,
    source: &str,
    target: &str,
) -> Result<Vec<GroupSync>> {
    let mut out = Vec::new();
    for g in cluster.groups().await? {
        if g.starts_with(&lease::group_of("")) {
            continue;
        }
        let commits = cluster.group_offsets(&g, source).await?;
        if commits.is_empty() {
            continue;
        }
        if let Err(e) = twainmq::names::validate_group(&g) {
            out.push(GroupSync { group: g, written: Vec::new(), note: Some(format!("not a TwainMQ group name: {e}")) });
            continue;
        }
        let existing: BTreeMap<u32, i64> = match store.describe_group_on(&g, Some(target)) {
            Ok(d) if d.live_members > 0 => {
                out.push(GroupSync {
                    group: g,
                    written: Vec::new(),
                    note: Some(format!("the store group has {} live member(s): its offsets are theirs", d.live_members)),
                });
                continue;
            }
            Ok(d) => d.committed.iter().filter_map(|(p, c)| Some((p.parse().ok()?, *c))).collect(),
            Err(twainmq::Error::GroupNotFound { .. }) => BTreeMap::new(),
            Err(e) => return Err(e.into()),
        };
        let mut offsets = BTreeMap::new();
        let mut written = Vec::new();
        for (p, c) in commits {
            let Some(state) = writer.state(p) else { continue };
            let Some(t) = state.target_after_source_below(c as u64) else { continue };
            if existing.get(&p).is_some_and(|e| *e < 0 || *e as u64 >= t) {
                continue;
            }
            offsets.insert(p, t as i64);
            written.push((p, c, t as i64));
        }
        if !offsets.is_empty() {
            store.ensure_group(target, &g, StartFrom::Start)?;
            store.reset_group_on(&g, Some(target), ResetTo::Offsets(offsets), None, false)?;
        }
        written.sort_unstable();
        out.push(GroupSync { group: g, written, note: None });
    }
    Ok(out)
}
