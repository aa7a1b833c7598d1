//! Export, import, copy and retention on plain engine types (no Tauri here,
//! so it is tested directly): the request turned into the engine's terms, the
//! engine's progress into events, its report into the wire's.

use std::fs::File;
use std::io::BufReader;
use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use twainmq::scan::{self, Finish};
use twainmq::transfer::{self, CopyOptions, ExportFormat, ImportFormat, ImportOptions, PayloadColumn, Progress, Selection};
use twainmq::{RetentionPlan, Store};

use super::wire::{
    BadLine, CopyRequest, CsvPayloadKind, ExportFormatDto, ExportRequest, ImportFormatDto, ImportReportDto, ImportRequest, RetentionDto,
    RetentionLog, RetentionLogEntry, RetentionMode, RetentionPlanDto, RetentionTrigger, SelectionDto, TransferDone, TransferEvent,
};
use crate::messages::wire::MessageRef;
use crate::wire::{Count, ErrorCode, ErrorDto};

/// Skipped lines sent one by one; past this many only their count is reported
/// (an import of millions of bad lines would otherwise flood the window).
pub const MAX_SKIPPED_EVENTS: u64 = 200;

/// The engine's selection for a request. A search's hits are resolved by the
/// caller (they live in the app's state) into `Picked`.
pub fn selection(topic: &str, sel: &SelectionDto) -> Result<Selection, ErrorDto> {
    let mut s = Selection::topic(topic);
    match sel {
        SelectionDto::All { partitions } => s.query.partitions = partitions.clone(),
        SelectionDto::Query { query } => s.query = scan::Query::try_from(query)?,
        SelectionDto::Search { .. } => {
            return Err(ErrorDto::new(ErrorCode::Internal, "a search's hits must be resolved before the selection is made"));
        }
        SelectionDto::Picked { messages } => {
            if messages.is_empty() {
                return Err(ErrorDto::new(ErrorCode::EmptySelection, "no messages are picked: pick rows in the table first"));
            }
            s.picked = Some(messages.iter().map(|m| (m.partition, m.offset.get())).collect());
        }
    }
    Ok(s)
}

/// The engine's selection of a search's hits (the caller takes them from the window's
/// session), in the order the search lists them.
pub fn hits_selection(topic: &str, hits: &[scan::HitRef]) -> Result<Selection, ErrorDto> {
    let messages = hits.iter().map(|h| MessageRef { partition: h.partition, offset: h.offset.into() }).collect();
    selection(topic, &SelectionDto::Picked { messages })
}

/// Progress events at most every 100 ms (and the first at once).
struct Throttle {
    last: Option<Instant>,
}

impl Throttle {
    fn new() -> Self {
        Throttle { last: None }
    }
    fn due(&mut self) -> bool {
        let due = self.last.is_none_or(|t| t.elapsed() >= Duration::from_millis(100));
        if due {
            self.last = Some(Instant::now());
        }
        due
    }
}

fn progress_event(p: Progress) -> TransferEvent {
    TransferEvent::Progress { done: p.done.into(), total: p.total.map(Count) }
}

/// Run an export to its end, its cancel or its failure, sending progress and then done or failed.
pub fn export(store: &Store, req: &ExportRequest, sel: &Selection, cancel: &AtomicBool, send: &mut dyn FnMut(TransferEvent)) {
    let mut throttle = Throttle::new();
    let mut on_progress = |p: Progress| {
        if throttle.due() {
            send(progress_event(p));
        }
    };
    let path = Path::new(&req.path);
    let result = match req.format {
        ExportFormatDto::Store => {
            let name = req.store_topic.as_deref().map(str::trim).filter(|t| !t.is_empty()).unwrap_or(&req.topic).to_string();
            transfer::export_to_store(store, sel, path, &name, cancel, &mut on_progress)
                .map(|r| (r.messages, r.finish, format!("topic {name} of the store {}", path.display())))
        }
        // A folder there is the engine's to refuse (bad_export_target): it is never replaced.
        ExportFormatDto::Jsonl | ExportFormatDto::Csv if !req.overwrite && std::fs::symlink_metadata(path).is_ok_and(|m| !m.is_dir()) => {
            send(TransferEvent::refused(target_exists(path)));
            return;
        }
        ExportFormatDto::Jsonl | ExportFormatDto::Csv => {
            let format = if req.format == ExportFormatDto::Csv { ExportFormat::Csv } else { ExportFormat::Jsonl };
            transfer::export_file(store, sel, format, path, cancel, &mut on_progress)
                .map(|r| (r.messages, r.finish, path.display().to_string()))
        }
    };
    send(match result {
        Ok((messages, finish, target)) => TransferEvent::Done {
            done: TransferDone { messages: messages.into(), cancelled: finish == Finish::Cancelled, target, import: None },
        },
        Err(e) => TransferEvent::failed(e),
    });
}

/// An export's file is already there and replacing it was not confirmed.
pub fn target_exists(path: &Path) -> ErrorDto {
    ErrorDto::new(
        ErrorCode::TargetExists,
        format!("{} is already there: nothing was written; replace it, or choose another name", path.display()),
    )
}

fn import_format(f: &ImportFormatDto) -> Result<ImportFormat, ErrorDto> {
    Ok(match f {
        ImportFormatDto::Jsonl => ImportFormat::Jsonl,
        ImportFormatDto::Csv { key, payload, kind, class, timestamp } => {
            let kind = match kind {
                CsvPayloadKind::Auto => PayloadColumn::Auto,
                CsvPayloadKind::Text => PayloadColumn::Text,
                CsvPayloadKind::Json => PayloadColumn::Json,
                CsvPayloadKind::Hex => PayloadColumn::Hex,
                CsvPayloadKind::Typed => match class.as_deref().filter(|c| !c.is_empty()) {
                    Some(c) => PayloadColumn::Typed(c.to_string()),
                    None => return Err(ErrorDto::new(ErrorCode::MissingClass, "pick the message type the payload column holds")),
                },
            };
            ImportFormat::Csv { key: key.clone(), payload: payload.clone(), kind, timestamp: timestamp.clone() }
        }
    })
}

/// The file to import, refused clearly when it is a folder or cannot be opened.
pub(crate) fn open_input(path: &str) -> Result<BufReader<File>, ErrorDto> {
    let p = Path::new(path);
    if p.is_dir() {
        return Err(ErrorDto::new(ErrorCode::NotAFile, format!("{path} is a folder: choose the file to import")));
    }
    // A FIFO or a device would block the open (and the read) with nothing to cancel it by: the
    // app's imports take regular files (the CLI's `import` reads pipes).
    if std::fs::metadata(p).is_ok_and(|m| !m.is_file()) {
        return Err(ErrorDto::new(
            ErrorCode::NotAFile,
            format!(
                "{path} is not a regular file (a pipe or a device): choose a file, or import from a pipe with the CLI's `twainmq import`"
            ),
        ));
    }
    let f = File::open(p).map_err(|e| ErrorDto::new(ErrorCode::Io, format!("could not open {path}: {e}")))?;
    Ok(BufReader::with_capacity(1 << 16, f))
}

/// Check an import request before a thread is started for it (the topic, the file, the format).
pub fn check_import(store: &Store, req: &ImportRequest) -> Result<(), ErrorDto> {
    store.topic_config(&req.topic)?;
    import_format(&req.format)?;
    open_input(&req.path).map(drop)
}

/// Run an import (or its dry run), sending progress, skipped lines, then done or failed.
pub fn import(store: &Store, req: &ImportRequest, cancel: &AtomicBool, send: &mut dyn FnMut(TransferEvent)) {
    let setup = import_format(&req.format).and_then(|format| Ok((format, open_input(&req.path)?)));
    let (format, mut input) = match setup {
        Ok(s) => s,
        Err(error) => return send(TransferEvent::refused(error)),
    };
    let opts = ImportOptions {
        format,
        dry_run: req.dry_run,
        keep_timestamps: req.keep_timestamps,
        skip_bad: req.skip_bad,
        resume: req.resume.as_ref().map(Into::into),
    };
    let sender = std::cell::RefCell::new(send);
    let mut throttle = Throttle::new();
    let mut skipped = 0u64;
    let result = transfer::import(
        store,
        &req.topic,
        &mut input,
        &opts,
        cancel,
        &mut |p| {
            if throttle.due() {
                (sender.borrow_mut())(progress_event(p));
            }
        },
        &mut |s| {
            skipped += 1;
            if skipped <= MAX_SKIPPED_EVENTS {
                (sender.borrow_mut())(TransferEvent::Skipped { bad: BadLine::from(s) });
            }
        },
    );
    let send = sender.into_inner();
    send(match result {
        Ok(r) => TransferEvent::Done {
            done: TransferDone {
                messages: r.messages.into(),
                cancelled: r.finish == Finish::Cancelled,
                target: req.topic.clone(),
                import: Some(ImportReportDto::from(&r)),
            },
        },
        Err(e) => TransferEvent::failed(e),
    });
}

/// The header row of a CSV file: the columns to pick the key and payload from.
pub fn csv_columns(path: &str) -> Result<Vec<String>, ErrorDto> {
    let mut input = open_input(path)?;
    Ok(transfer::csv_columns(&mut input)?)
}

/// The store a copy writes into: this one, or the one at `target_store`.
pub fn copy_target(store: &Store, req: &CopyRequest) -> Result<Store, ErrorDto> {
    match req.target_store.as_deref().map(str::trim).filter(|s| !s.is_empty()) {
        None => Ok(store.clone()),
        Some(root) => Ok(Store::open(root)?),
    }
}

/// Run a copy, sending progress and then done or failed.
pub fn copy(store: &Store, target: &Store, req: &CopyRequest, sel: &Selection, cancel: &AtomicBool, send: &mut dyn FnMut(TransferEvent)) {
    let opts = CopyOptions { keep_timestamps: req.keep_timestamps, rate: req.rate.map(|r| r.get()).filter(|r| *r > 0) };
    let mut throttle = Throttle::new();
    let result = transfer::copy(store, sel, target, &req.target_topic, &opts, cancel, &mut |p| {
        if throttle.due() {
            send(progress_event(p));
        }
    });
    let where_to = match req.target_store.as_deref().map(str::trim).filter(|s| !s.is_empty()) {
        Some(root) => format!("topic {} of the store {root}", req.target_topic),
        None => format!("topic {}", req.target_topic),
    };
    send(match result {
        Ok(r) => TransferEvent::Done {
            done: TransferDone { messages: r.messages.into(), cancelled: r.finish == Finish::Cancelled, target: where_to, import: None },
        },
        Err(e) => TransferEvent::failed(e),
    });
}

// ---- retention ---------------------------------------------------------------

/// The plan on the wire, with where each touched partition starts afterwards.
///
/// `files` is the partitions' file list (name, first offset) as it was when
/// the plan was made: the first file a partition keeps is its first not
/// deleted; with none kept (a purge of everything) it is the new empty file,
/// whose first offset is the partition's end.
fn plan_dto(plan: &RetentionPlan, described: &twainmq::TopicDescription) -> RetentionPlanDto {
    RetentionPlanDto::new(plan, |p| {
        let part = described.partition_details.iter().find(|d| d.partition == p)?;
        let gone = |name: &str| plan.files.iter().any(|f| f.partition == p && f.deleted && f.name == name);
        Some(part.files.iter().find(|f| !gone(&f.name)).map_or(part.end, |f| f.first))
    })
}

pub fn topic_retention(store: &Store, topic: &str) -> Result<Option<RetentionDto>, ErrorDto> {
    Ok(store.retention(topic)?.map(RetentionDto::from))
}

pub fn set_retention(store: &Store, topic: &str, retention: Option<RetentionDto>) -> Result<Option<RetentionDto>, ErrorDto> {
    store.set_retention(topic, retention.map(Into::into))?;
    topic_retention(store, topic)
}

/// What `retention` (the topic's own when none is given) would delete now.
pub fn retention_preview(store: &Store, topic: &str, retention: Option<RetentionDto>, force: bool) -> Result<RetentionPlanDto, ErrorDto> {
    let described = store.describe_topic(topic)?;
    let plan = match retention {
        Some(r) => store.preview_retention(topic, r.into(), force)?,
        None => store.apply_retention(topic, true, force)?,
    };
    Ok(plan_dto(&plan, &described))
}

/// Apply the topic's saved retention now (forced: also files groups have not consumed).
pub fn apply_retention(store: &Store, topic: &str, force: bool) -> Result<RetentionPlanDto, ErrorDto> {
    if store.retention(topic)?.is_none() {
        return Err(ErrorDto::new(ErrorCode::InvalidRetention, format!("topic {topic} has no retention setting: set days or bytes first")));
    }
    let described = store.describe_topic(topic)?;
    let plan = store.apply_retention(topic, false, force)?;
    Ok(plan_dto(&plan, &described))
}

/// Purge a topic (files stamped before `before`, or all): a preview unless
/// `apply`, and applied only when `confirm` is the topic's name.
pub fn purge_topic(
    store: &Store,
    topic: &str,
    before: Option<f64>,
    apply: bool,
    force: bool,
    confirm: &str,
) -> Result<RetentionPlanDto, ErrorDto> {
    if apply && confirm.trim() != topic {
        return Err(ErrorDto::new(
            ErrorCode::ConfirmationMismatch,
            format!("type the topic's name, {topic}, to purge it (you typed {:?})", confirm.trim()),
        ));
    }
    let described = store.describe_topic(topic)?;
    let plan = store.purge_topic(topic, before, !apply, force)?;
    Ok(plan_dto(&plan, &described))
}

/// Every topic's retention, never forced, applied (`apply`) or only planned: the plans
/// that delete (or would delete) something. A topic that cannot be read or planned is
/// passed over (logged): the next run tries again.
fn each_retention(store: &Store, apply: bool) -> Vec<RetentionPlanDto> {
    let Ok(topics) = store.list_topics() else { return Vec::new() };
    let mut out = Vec::new();
    for t in topics {
        if !matches!(store.retention(&t), Ok(Some(_))) {
            continue;
        }
        let plan = if apply { apply_retention(store, &t, false) } else { retention_preview(store, &t, None, false) };
        match plan {
            Ok(plan) if plan.files_gone > 0 => out.push(plan),
            Ok(_) => {}
            Err(e) => tracing::warn!(topic = t, error = %e.message, "could not plan the topic's retention"),
        }
    }
    out
}

/// Apply every topic's retention, never forced: what the app does on its own in a store
/// set to "automatically". The plans that deleted something.
pub fn auto_retention(store: &Store) -> Vec<RetentionPlanDto> {
    each_retention(store, true)
}

/// What every topic's retention would delete now, never forced: what the app asks about
/// in a store set to "ask". Deletes nothing.
pub fn due_retention(store: &Store) -> Vec<RetentionPlanDto> {
    each_retention(store, false)
}

// ---- the store's retention setting, and the retention log ---------------------

/// The app's settings for each store, by the store's folder (kept by the app, not in the store).
#[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
struct StoreSettingsFile {
    #[serde(default)]
    stores: std::collections::BTreeMap<String, StoreSettings>,
}

#[derive(Debug, Default, Clone, Copy, serde::Serialize, serde::Deserialize)]
struct StoreSettings {
    #[serde(default)]
    retention: RetentionMode,
}

fn read_settings(file: &Path) -> StoreSettingsFile {
    std::fs::read(file).ok().and_then(|b| serde_json::from_slice(&b).ok()).unwrap_or_default()
}

/// When the app applies retention in the store at `root` on its own: the setting kept in
/// `file`, "ask" when there is none (or no file, or it cannot be read).
pub fn retention_mode(file: Option<&Path>, root: &str) -> RetentionMode {
    file.map(read_settings).and_then(|s| s.stores.get(root).map(|s| s.retention)).unwrap_or_default()
}

/// Keep `mode` as the store's setting in `file` (the whole file written, then renamed over the old).
pub fn set_retention_mode(file: &Path, root: &str, mode: RetentionMode) -> Result<RetentionMode, ErrorDto> {
    let mut all = read_settings(file);
    all.stores.entry(root.to_string()).or_default().retention = mode;
    let bytes = serde_json::to_vec_pretty(&all).map_err(|e| ErrorDto::new(ErrorCode::Internal, e.to_string()))?;
    let cannot = |e: std::io::Error| ErrorDto::new(ErrorCode::Io, format!("could not keep the setting in {}: {e}", file.display()));
    if let Some(dir) = file.parent() {
        std::fs::create_dir_all(dir).map_err(cannot)?;
    }
    let tmp = file.with_extension(format!("tmp-{}", std::process::id()));
    std::fs::write(&tmp, bytes).and_then(|()| std::fs::rename(&tmp, file)).map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        cannot(e)
    })?;
    Ok(retention_mode(Some(file), root))
}

/// The log keeps about this many bytes: past twice that, its older half goes.
const RETENTION_LOG_BYTES: u64 = 1 << 20;

/// Add what `plans` deleted in the store at `root` to the retention log `file` (one JSON
/// object a line). A log that cannot be written is said in the app's log, not shown: the
/// deletes happened either way, and the notice in the window says what went.
pub fn log_retention(file: &Path, root: &str, plans: &[RetentionPlanDto], trigger: RetentionTrigger, at: f64) {
    use std::io::Write as _;
    let mut text = String::new();
    for p in plans.iter().filter(|p| p.applied && p.files_gone > 0) {
        let entry = RetentionLogEntry {
            at,
            store: root.to_string(),
            topic: p.topic.clone(),
            trigger,
            files: p.files.iter().filter(|f| f.deleted).map(|f| format!("{}/{}", f.partition, f.name)).collect(),
            messages: p.messages_gone,
            bytes: p.bytes_gone,
        };
        if let Ok(line) = serde_json::to_string(&entry) {
            text.push_str(&line);
            text.push('\n');
        }
    }
    if text.is_empty() {
        return;
    }
    let written = (|| -> std::io::Result<()> {
        if let Some(dir) = file.parent() {
            std::fs::create_dir_all(dir)?;
        }
        if std::fs::metadata(file).is_ok_and(|m| m.len() > 2 * RETENTION_LOG_BYTES) {
            let old = std::fs::read_to_string(file)?;
            let keep = old.len().saturating_sub(usize::try_from(RETENTION_LOG_BYTES).unwrap_or(usize::MAX));
            let from = old[keep..].find('\n').map_or(old.len(), |i| keep + i + 1);
            std::fs::write(file, &old[from..])?;
        }
        std::fs::OpenOptions::new().create(true).append(true).open(file)?.write_all(text.as_bytes())
    })();
    if let Err(e) = written {
        tracing::warn!(file = %file.display(), error = %e, "could not add to the retention log");
    }
}

/// The retention log's entries for the store at `root`, newest first (at most `limit`).
pub fn read_retention_log(file: Option<&Path>, root: &str, limit: usize) -> RetentionLog {
    let text = file.and_then(|f| std::fs::read_to_string(f).ok()).unwrap_or_default();
    let mut entries: Vec<RetentionLogEntry> =
        text.lines().filter_map(|l| serde_json::from_str::<RetentionLogEntry>(l).ok()).filter(|e| e.store == root).collect();
    entries.reverse();
    entries.truncate(limit);
    RetentionLog { path: file.map(|f| f.display().to_string()), entries }
}
