//! What the groups' commands do, on plain engine types (no Tauri here, so it
//! is tested directly): describe a group, reset its offsets, open a round, its
//! lag over a past span and against alert thresholds, offsets files in
//! `twainmq groups export`'s format, and deleting a group after a preview.
//! The balancing demo's members are in `members.rs`.
//!
//! [`Groups`] is what a source of consumer groups answers; a store folder
//! ([`Store`]) is today's only one (see `crate::source`).

use std::collections::BTreeMap;
use std::io::Read;
use std::path::Path;
use std::time::Duration;

use serde::Serialize;
use twainmq::group::{self, LagThresholds, MemberStatus};
use twainmq::Store;

use super::wire::{DeletedGroup, GroupDeletePreview, GroupDetail};
use super::wire_lag::{HistorySpan, LagAlertThresholds, LagBreachDto, LagCheckDto, LagHistoryDto};
use super::wire_reset::{OffsetsFile, ResetPlanDto, ResetRequest};
use crate::wire::{Commit, Count, ErrorCode, ErrorDto, Offset};

/// What the groups' commands ask of a source.
pub trait Groups {
    /// A group as its log says now (for a 0.2.3 group several topics could be of: on `topic`).
    fn describe_group(&self, group: &str, topic: Option<&str>) -> Result<GroupDetail, ErrorDto>;
    /// Reset a group's offsets (with `dry_run`: only the plan).
    fn reset_group(&self, group: &str, request: &ResetRequest) -> Result<ResetPlanDto, ErrorDto>;
    /// Open a round from outside the group.
    fn trigger_round(&self, group: &str, window_ms: u32) -> Result<(), ErrorDto>;
    /// A group's lag over a past span, up to now.
    fn lag_history(&self, group: &str, span: HistorySpan) -> Result<LagHistoryDto, ErrorDto>;
    /// A group's lag against alert thresholds now.
    fn lag_check(&self, group: &str, thresholds: &LagAlertThresholds) -> Result<LagCheckDto, ErrorDto>;
    /// A group's committed offsets as `twainmq groups export` prints them.
    fn export_document(&self, group: &str) -> Result<Vec<u8>, ErrorDto>;
    /// What deleting a group removes; `demo_members` of this app run in it.
    fn delete_preview(&self, group: &str, demo_ids: &[u32]) -> Result<GroupDeletePreview, ErrorDto>;
    /// Delete a group once `confirm` is its name, refused while members other than this app's
    /// (`demo_ids`) look live unless `members_stopped`; `stop_demos` stops this app's members in it first.
    fn delete_group(
        &self,
        group: &str,
        confirm: &str,
        members_stopped: bool,
        demo_ids: &[u32],
        stop_demos: &mut dyn FnMut() -> u32,
    ) -> Result<DeletedGroup, ErrorDto>;
}

impl Groups for Store {
    fn describe_group(&self, group: &str, topic: Option<&str>) -> Result<GroupDetail, ErrorDto> {
        describe_group(self, group, topic)
    }
    fn reset_group(&self, group: &str, request: &ResetRequest) -> Result<ResetPlanDto, ErrorDto> {
        reset_group(self, group, request)
    }
    fn trigger_round(&self, group: &str, window_ms: u32) -> Result<(), ErrorDto> {
        trigger_round(self, group, window_ms)
    }
    fn lag_history(&self, group: &str, span: HistorySpan) -> Result<LagHistoryDto, ErrorDto> {
        lag_history(self, group, span, self.now_secs())
    }
    fn lag_check(&self, group: &str, thresholds: &LagAlertThresholds) -> Result<LagCheckDto, ErrorDto> {
        lag_check(self, group, thresholds)
    }
    fn export_document(&self, group: &str) -> Result<Vec<u8>, ErrorDto> {
        export_document(self, group)
    }
    fn delete_preview(&self, group: &str, demo_ids: &[u32]) -> Result<GroupDeletePreview, ErrorDto> {
        delete_preview(self, group, demo_ids)
    }
    fn delete_group(
        &self,
        group: &str,
        confirm: &str,
        members_stopped: bool,
        demo_ids: &[u32],
        stop_demos: &mut dyn FnMut() -> u32,
    ) -> Result<DeletedGroup, ErrorDto> {
        delete_group(self, group, confirm, members_stopped, demo_ids, stop_demos)
    }
}

/// UNIX seconds now, by the wall clock.
pub fn now() -> f64 {
    chrono::Utc::now().timestamp_micros() as f64 / 1e6
}

pub fn describe_group(store: &Store, name: &str, topic: Option<&str>) -> Result<GroupDetail, ErrorDto> {
    describe_group_at(store, name, topic, now())
}

/// [`describe_group`] with the backend's clock reading `now` (UNIX seconds).
pub fn describe_group_at(store: &Store, name: &str, topic: Option<&str>, now: f64) -> Result<GroupDetail, ErrorDto> {
    Ok(GroupDetail::new(&store.describe_group_on(name, topic)?, now))
}

pub fn reset_group(store: &Store, name: &str, req: &ResetRequest) -> Result<ResetPlanDto, ErrorDto> {
    let to = group::ResetTo::try_from(req)?;
    // The offset the request names per partition: the engine keeps every target within the
    // partition's start..end, and a row says when that moved what was asked for.
    let asked = |p: u32| -> Option<u64> {
        let named = match &to {
            group::ResetTo::Offset(o) => return Some(*o),
            group::ResetTo::Offsets(m) => m.get(&p),
            group::ResetTo::File(f) => f.offsets.get(&p),
            _ => None,
        };
        named.and_then(|o| u64::try_from(*o).ok())
    };
    let plan = store.reset_group_on(name, req.topic.as_deref(), to.clone(), req.partitions.as_deref(), req.dry_run)?;
    let clamped: Vec<Option<u64>> = plan.rows.iter().map(|r| asked(r.partition).filter(|&o| o != r.after)).collect();
    let mut dto = ResetPlanDto::from(plan);
    for (row, from) in dto.rows.iter_mut().zip(clamped) {
        row.clamped_from = from.map(Offset);
    }
    Ok(dto)
}

pub fn trigger_round(store: &Store, name: &str, window_ms: u32) -> Result<(), ErrorDto> {
    Ok(store.trigger_round(name, Duration::from_millis(u64::from(window_ms)))?)
}

/// Points per history line: a few per pixel of the chart at most.
pub const HISTORY_BUCKETS: u32 = 240;
/// Largest offsets file read: an export of the most partitions a topic can
/// have is far smaller (the CLI's limit too).
pub const MAX_OFFSETS_FILE: u64 = 16 << 20;

/// When the group's first activity (a `JOINED` or a round) is in its log, if any.
fn first_activity(log: &group::GroupLog) -> Option<f64> {
    let first = log.joins.values().map(|j| j.1).chain(log.rounds.iter().map(|r| r.started_at)).fold(f64::INFINITY, f64::min);
    first.is_finite().then_some(first)
}

/// The span's start, for `span` ending at `now`: the group's first activity for `All`.
fn span_start(span: HistorySpan, since: Option<f64>, last_record_at: Option<f64>, now: f64) -> f64 {
    match span {
        HistorySpan::Hour => now - 3600.0,
        HistorySpan::Day => now - 86_400.0,
        HistorySpan::Week => now - 604_800.0,
        // A group with no join or round (made by a reset or `ensure`) shows the
        // hour before its last record; a span needs some width: at least the last minute.
        HistorySpan::All => since.unwrap_or(last_record_at.unwrap_or(now) - 3600.0).min(now - 60.0),
    }
}

/// The lag of every partition of `group` over `span` up to `now` (the store's clock).
pub fn lag_history(store: &Store, group: &str, span: HistorySpan, now: f64) -> Result<LagHistoryDto, ErrorDto> {
    let log = store.group_log(group)?;
    let since = first_activity(&log);
    let from = span_start(span, since, log.last_record_at, now);
    let mut dto = LagHistoryDto::new(store.lag_history(group, from, now, HISTORY_BUCKETS)?, span);
    dto.since = since;
    Ok(dto)
}

/// `group` against `t` now, by the same rule as `twainmq groups lag`.
pub fn lag_check(store: &Store, group: &str, t: &LagAlertThresholds) -> Result<LagCheckDto, ErrorDto> {
    if t.max_age_secs.is_some_and(|a| !a.is_finite() || a < 0.0) {
        return Err(ErrorDto::new(ErrorCode::InvalidThreshold, "the age threshold must be zero seconds or more"));
    }
    let d = store.describe_group(group)?;
    let now = store.now_secs();
    let thresholds = LagThresholds { max_lag: t.max_lag.map(Count::get), max_age_secs: t.max_age_secs };
    let judged = d.lag_against(&thresholds, now);
    let oldest_age_secs = judged.iter().filter_map(|b| b.age_secs).fold(None, |m: Option<f64>, a| Some(m.map_or(a, |m| m.max(a))));
    let over = d
        .partitions
        .iter()
        .zip(judged)
        .filter(|(_, b)| !b.over.is_empty())
        .map(|(p, b)| LagBreachDto {
            partition: p.partition,
            lag: p.lag.into(),
            age_secs: b.age_secs,
            over: b.over.iter().map(|s| s.to_string()).collect(),
        })
        .collect();
    Ok(LagCheckDto {
        group: d.group,
        state: d.state.into(),
        total_lag: d.partitions.iter().fold(0u64, |s, p| s.saturating_add(p.lag)).into(),
        oldest_age_secs,
        over,
        at: now,
    })
}

/// `twainmq groups export`'s document: the same fields in the same order.
#[derive(Serialize)]
struct Exported {
    group: String,
    topic: Option<String>,
    offsets: BTreeMap<String, i64>,
}

/// The bytes `twainmq groups export G` prints for `group` (one line of JSON).
pub fn export_document(store: &Store, group: &str) -> Result<Vec<u8>, ErrorDto> {
    let d = store.describe_group(group)?;
    let mut doc = serde_json::to_vec(&Exported { group: d.group, topic: d.topic, offsets: d.committed })
        .map_err(|e| ErrorDto::new(ErrorCode::Internal, format!("could not write the offsets as JSON: {e}")))?;
    doc.push(b'\n');
    Ok(doc)
}

/// Write `group`'s offsets to `path` (a new file next to it first, then
/// renamed over: a failed write never leaves half a file under the name).
pub fn export_to(source: &(impl Groups + ?Sized), group: &str, path: &Path) -> Result<(), ErrorDto> {
    let doc = source.export_document(group)?;
    let io = |what: &str, e: std::io::Error| ErrorDto::new(ErrorCode::Io, format!("could not {what} {}: {e}", path.display()));
    let name = path.file_name().ok_or_else(|| ErrorDto::new(ErrorCode::NotAFile, format!("{} names no file", path.display())))?;
    let tmp = path.with_file_name(format!(".{}.part", name.to_string_lossy()));
    std::fs::write(&tmp, &doc).map_err(|e| io("write", e))?;
    std::fs::rename(&tmp, path).map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        io("write", e)
    })
}

/// Read an offsets file `twainmq groups export` wrote (or a bare
/// `{"<partition>": offset}` object): only a regular file, at most
/// [`MAX_OFFSETS_FILE`] bytes.
pub fn read_offsets_file(path: &Path) -> Result<OffsetsFile, ErrorDto> {
    let shown = path.display();
    let bad = |m: String| ErrorDto::new(ErrorCode::InvalidOffsets, m);
    let meta = std::fs::metadata(path).map_err(|e| ErrorDto::new(ErrorCode::Io, format!("could not read {shown}: {e}")))?;
    if !meta.is_file() {
        return Err(ErrorDto::new(
            ErrorCode::NotAFile,
            format!("{shown} is not a regular file: open the file `twainmq groups export` wrote"),
        ));
    }
    let mut bytes = Vec::new();
    std::fs::File::open(path)
        .and_then(|f| f.take(MAX_OFFSETS_FILE + 1).read_to_end(&mut bytes))
        .map_err(|e| ErrorDto::new(ErrorCode::Io, format!("could not read {shown}: {e}")))?;
    if bytes.len() as u64 > MAX_OFFSETS_FILE {
        return Err(bad(format!(
            "{shown} is larger than {MAX_OFFSETS_FILE} bytes: it is not an offsets file `twainmq groups export` wrote"
        )));
    }
    let offsets = group::parse_offsets(&bytes).map_err(|e| bad(format!("{shown}: {e}")))?;
    // parse_offsets read it as JSON already; the names are optional context.
    let doc: serde_json::Value = serde_json::from_slice(&bytes).unwrap_or_default();
    let text = |k: &str| doc.get(k).and_then(|v| v.as_str()).map(str::to_string);
    Ok(OffsetsFile {
        path: shown.to_string(),
        group: text("group"),
        topic: text("topic"),
        offsets: offsets.into_iter().map(|(p, o)| (p.to_string(), Commit(o))).collect(),
    })
}

/// What deleting `group` removes; this app's demo members `demo_ids` run in it (they are
/// stopped first, so they are not among the live members that hold the deletion back).
pub fn delete_preview(store: &Store, group: &str, demo_ids: &[u32]) -> Result<GroupDeletePreview, ErrorDto> {
    let d = store.describe_group(group)?;
    let live = |m: &&twainmq::group::MemberView| m.status == MemberStatus::Live && !demo_ids.contains(&m.id);
    Ok(GroupDeletePreview {
        group: d.group,
        topic: d.topic,
        records: d.records.into(),
        committed: d.committed.into_iter().map(|(p, o)| (p, Commit(o))).collect(),
        members: d.members.iter().map(|m| m.id).collect(),
        live_members: d.members.iter().filter(live).map(|m| m.id).collect(),
        live_twainmq_members: d.members.iter().filter(live).filter(|m| m.follows_resets).map(|m| m.id).collect(),
        live_secs: d.thresholds.live_secs,
        demo_members: u32::try_from(demo_ids.len()).unwrap_or(u32::MAX),
    })
}

/// Delete `group` if `confirm` is its name, and refused while its log shows live members
/// other than this app's `demo_ids` (a running 0.2.3 member crashes when its group goes),
/// unless the person says they are stopped (`members_stopped`), as Kafka refuses to delete
/// a group that is not empty. `stop_demos` stops this app's members in it first (and says
/// how many) so none writes to a deleted log.
pub fn delete_group(
    store: &Store,
    group: &str,
    confirm: &str,
    members_stopped: bool,
    demo_ids: &[u32],
    stop_demos: impl FnOnce() -> u32,
) -> Result<DeletedGroup, ErrorDto> {
    if confirm != group {
        return Err(ErrorDto::new(ErrorCode::ConfirmationMismatch, format!("type the group's name, {group:?}, to confirm the deletion")));
    }
    let d = store.describe_group(group)?;
    let live: Vec<String> =
        d.members.iter().filter(|m| m.status == MemberStatus::Live && !demo_ids.contains(&m.id)).map(|m| m.id.to_string()).collect();
    if !live.is_empty() && !members_stopped {
        return Err(ErrorDto::new(
            ErrorCode::MembersLive,
            format!(
                "nothing deleted: members {} of {group} look live (a record within the last {:.0} s). A 0.2.3 member still running crashes (FileNotFoundError on the group's log) when its group is deleted, and a twainmq member stops with an error. Stop them first; if they are stopped already, say so and delete again",
                live.join(", "),
                d.thresholds.live_secs
            ),
        ));
    }
    let stopped_demo_members = stop_demos();
    store.delete_group(group)?;
    Ok(DeletedGroup {
        group: d.group,
        records: d.records.into(),
        partitions: u32::try_from(d.committed.len()).unwrap_or(u32::MAX),
        stopped_demo_members,
    })
}
