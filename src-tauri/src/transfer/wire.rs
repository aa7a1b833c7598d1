//! The wire types of export, import, copy and retention, each with its
//! conversion from the engine's type beside it. Counts, offsets and sizes
//! travel as decimal strings, as everywhere on the wire.

use serde::{Deserialize, Serialize};
use specta::Type;
use twainmq::transfer::{ImportReport, SkippedLine};
use twainmq::{PlannedFile, Retention, RetentionPlan, TransferError};

use crate::messages::wire::MessageRef;
use crate::search::wire::{SearchId, SearchQuery};
use crate::wire::{Bytes, Count, ErrorDto, Offset};

/// Where an import of the same file stopped: the lines it dealt with are passed over.
#[derive(Debug, Clone, Serialize, Deserialize, Type, PartialEq)]
pub struct ImportResume {
    /// Every line before this one (of the file, from 1) is passed over.
    pub line: Count,
    /// Lines from `line` on that landed anyway: passed over too.
    pub landed_after: Vec<Count>,
}

impl From<&ImportResume> for twainmq::transfer::Resume {
    fn from(r: &ImportResume) -> Self {
        twainmq::transfer::Resume { line: r.line.0, landed_after: r.landed_after.iter().map(|l| l.0).collect() }
    }
}

/// Where an import stopped, exactly (the engine's `ImportStopped`): every line before `line`
/// is in the topic, and of the lines from `line` on, `landed_after`.
#[derive(Debug, Clone, Serialize, Deserialize, Type, PartialEq)]
pub struct ImportStop {
    pub line: Count,
    pub landed_after: Vec<Count>,
    /// Messages of this run in the topic, by partition.
    pub partitions: Vec<Count>,
}

/// Which messages an export or copy takes.
#[derive(Debug, Clone, Serialize, Deserialize, Type, PartialEq)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum SelectionDto {
    /// Every message of the topic (of these partitions, when given).
    All { partitions: Option<Vec<u32>> },
    /// The messages a query matches (its time range, key, text, filter, partitions).
    Query { query: SearchQuery },
    /// The hits of a search session, in the order it lists them.
    Search { id: SearchId },
    /// Exactly these messages, in this order (the rows picked in the table).
    Picked { messages: Vec<MessageRef> },
}

/// What an export writes.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, Type, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum ExportFormatDto {
    /// One JSON object a line, as `consume --json` prints them.
    Jsonl,
    /// A header row, then a row a message.
    Csv,
    /// A new TwainMQ store (a folder) holding one topic.
    Store,
}

#[derive(Debug, Clone, Serialize, Deserialize, Type, PartialEq)]
pub struct ExportRequest {
    pub topic: String,
    pub selection: SelectionDto,
    pub format: ExportFormatDto,
    /// The file written (`jsonl`, `csv`), or the folder of the new store (`store`).
    pub path: String,
    /// The topic's name in the new store (`store` only; default: the topic's own).
    pub store_topic: Option<String>,
    /// Replace a file already at `path` (`jsonl`, `csv`): the user said so. Without it, an
    /// existing file is refused (`target_exists`) and nothing is written: an export never
    /// replaces a file unasked.
    pub overwrite: bool,
}

/// What a CSV payload cell holds.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, Type, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum CsvPayloadKind {
    /// As `export` writes it: the `kind` column says (text when there is none).
    Auto,
    Text,
    /// JSON, checked, sent as text.
    Json,
    /// Bytes as hex.
    Hex,
    /// A typed message's fields (a JSON object) of the request's `class`.
    Typed,
}

#[derive(Debug, Clone, Serialize, Deserialize, Type, PartialEq)]
#[serde(tag = "format", rename_all = "snake_case")]
pub enum ImportFormatDto {
    Jsonl,
    Csv { key: String, payload: String, kind: CsvPayloadKind, class: Option<String>, timestamp: String },
}

#[derive(Debug, Clone, Serialize, Deserialize, Type, PartialEq)]
pub struct ImportRequest {
    pub topic: String,
    pub path: String,
    pub format: ImportFormatDto,
    /// Read and check everything, write nothing.
    pub dry_run: bool,
    pub keep_timestamps: bool,
    pub skip_bad: bool,
    /// Go on from where an import of this file stopped, writing nothing twice.
    pub resume: Option<ImportResume>,
}

#[derive(Debug, Clone, Serialize, Deserialize, Type, PartialEq)]
pub struct CopyRequest {
    pub topic: String,
    pub selection: SelectionDto,
    /// Another store's folder (none: this store).
    pub target_store: Option<String>,
    pub target_topic: String,
    pub keep_timestamps: bool,
    /// At most this many messages a second.
    pub rate: Option<Count>,
}

/// A running export, import or copy, for `cancel_transfer`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Type)]
#[serde(transparent)]
pub struct TransferId(pub u32);

/// A bad input line of an import: its number (from 1) and what is wrong.
#[derive(Debug, Clone, Serialize, Deserialize, Type, PartialEq)]
pub struct BadLine {
    pub line: Count,
    pub problem: String,
}

impl From<&SkippedLine> for BadLine {
    fn from(s: &SkippedLine) -> Self {
        BadLine { line: s.line.into(), problem: s.problem.clone() }
    }
}

/// What an import did, or in a dry run would do.
#[derive(Debug, Clone, Serialize, Deserialize, Type, PartialEq)]
pub struct ImportReportDto {
    pub dry_run: bool,
    /// Input lines read (blank lines and a CSV header included).
    pub lines: Count,
    /// Messages written (a dry run: that would be).
    pub messages: Count,
    /// Of those, how many each partition gets, by partition.
    pub partitions: Vec<Count>,
    pub bad_lines: Count,
    pub first_bad: Option<BadLine>,
    /// A dry run: the messages before the first bad line, which an import that does not
    /// skip bad lines writes before it stops there.
    pub messages_before_first_bad: Option<Count>,
    /// Lines passed over because the import this resumes dealt with them.
    pub passed_over: Count,
}

impl From<&ImportReport> for ImportReportDto {
    fn from(r: &ImportReport) -> Self {
        ImportReportDto {
            dry_run: r.dry_run,
            lines: r.lines.into(),
            messages: r.messages.into(),
            partitions: r.partitions.iter().map(|&n| n.into()).collect(),
            bad_lines: r.bad_lines.into(),
            first_bad: r.first_bad.as_ref().map(BadLine::from),
            messages_before_first_bad: r.messages_before_first_bad.map(Count),
            passed_over: r.passed_over.into(),
        }
    }
}

/// How a transfer ended.
#[derive(Debug, Clone, Serialize, Deserialize, Type, PartialEq)]
pub struct TransferDone {
    /// Messages written out (export), into the topic (import, copy); a dry run: that would be.
    pub messages: Count,
    /// Stopped on request. A cancelled export leaves no file; a cancelled
    /// import or copy keeps what it had written (`messages`).
    pub cancelled: bool,
    /// Where they went: the file, the store folder and topic, or the topic.
    pub target: String,
    /// An import's report.
    pub import: Option<ImportReportDto>,
}

/// What a running transfer says: progress (at most every 100 ms), skipped
/// lines (an import with skip_bad, a dry run), then done or failed.
#[derive(Debug, Clone, Serialize, Deserialize, Type, PartialEq)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum TransferEvent {
    Progress {
        done: Count,
        /// None when not known ahead (an import's lines are not counted first).
        total: Option<Count>,
    },
    Skipped {
        bad: BadLine,
    },
    Done {
        done: TransferDone,
    },
    Failed {
        error: ErrorDto,
        /// Messages in the target when it stopped (an import or copy), when the engine says.
        written: Option<Count>,
        /// An import that stopped: exactly which lines are in the topic (to resume from).
        stopped: Option<ImportStop>,
    },
}

impl TransferEvent {
    /// The failure of a transfer, with the count that landed when the error carries one.
    pub fn failed(e: twainmq::Error) -> Self {
        let written = match &e {
            twainmq::Error::Transfer(TransferError::ImportStopped { written, .. } | TransferError::CopyStopped { written, .. }) => {
                Some(Count(*written))
            }
            _ => None,
        };
        let stopped = match &e {
            twainmq::Error::Transfer(TransferError::ImportStopped { line, landed_after, partitions, .. }) => Some(ImportStop {
                line: Count(*line),
                landed_after: landed_after.iter().map(|&l| Count(l)).collect(),
                partitions: partitions.iter().map(|&n| Count(n)).collect(),
            }),
            _ => None,
        };
        TransferEvent::Failed { error: e.into(), written, stopped }
    }

    /// A failure before anything was written.
    pub fn refused(error: ErrorDto) -> Self {
        TransferEvent::Failed { error, written: None, stopped: None }
    }
}

/// A topic's retention: either limit or both.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, Type, PartialEq, Eq)]
pub struct RetentionDto {
    /// Keep the files of the last this many UTC days.
    pub days: Option<Count>,
    /// Keep at most this many bytes in each partition (never less than its newest file).
    pub bytes_per_partition: Option<Bytes>,
}

impl From<Retention> for RetentionDto {
    fn from(r: Retention) -> Self {
        RetentionDto { days: r.days.map(Count), bytes_per_partition: r.bytes_per_partition.map(Bytes) }
    }
}

impl From<RetentionDto> for Retention {
    fn from(r: RetentionDto) -> Self {
        Retention { days: r.days.map(|d| d.0), bytes_per_partition: r.bytes_per_partition.map(|b| b.0) }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize, Type, PartialEq)]
pub struct PlannedFileDto {
    pub partition: u32,
    pub name: String,
    pub first: Offset,
    pub messages: Count,
    pub bytes: Bytes,
    /// Groups that have not committed past its last message.
    pub unconsumed_by: Vec<String>,
    /// Whether it goes (false: a group holds it and the plan is not forced).
    pub deleted: bool,
}

impl From<&PlannedFile> for PlannedFileDto {
    fn from(f: &PlannedFile) -> Self {
        PlannedFileDto {
            partition: f.partition,
            name: f.name.clone(),
            first: f.first.into(),
            messages: f.messages.into(),
            bytes: f.bytes.into(),
            unconsumed_by: f.unconsumed_by.clone(),
            deleted: f.deleted,
        }
    }
}

/// Where a partition starts once a plan has run, when that is not offset 0:
/// 0.2.3 readers asked for an earlier offset start there.
#[derive(Debug, Clone, Serialize, Deserialize, Type, PartialEq)]
pub struct NewStart {
    pub partition: u32,
    pub first: Offset,
}

/// A retention or purge plan: what goes (or went), what stays for which group.
#[derive(Debug, Clone, Serialize, Deserialize, Type, PartialEq)]
pub struct RetentionPlanDto {
    pub topic: String,
    /// Whether the files marked deleted were deleted (false: a preview).
    pub applied: bool,
    /// The files the rule reaches, oldest first per partition.
    pub files: Vec<PlannedFileDto>,
    /// Empty files made first (a purge of everything), so offsets go on where they were.
    pub created: Vec<String>,
    pub files_gone: u32,
    pub messages_gone: Count,
    pub bytes_gone: Bytes,
    /// Groups whose unconsumed messages go (a forced plan).
    pub groups_losing: Vec<String>,
    /// Groups whose unconsumed messages keep files (they go only when forced).
    pub groups_holding: Vec<String>,
    /// Partitions whose first file, after the plan, is not at offset 0.
    pub new_starts: Vec<NewStart>,
    /// Groups whose log is here but whose config is missing or damaged: what they consumed
    /// cannot be told, so they hold every file (unless forced), and the user is told why.
    pub unknown_groups: Vec<UnknownGroupDto>,
}

/// A group whose state cannot be read, and why (e.g. `its config is missing`).
#[derive(Debug, Clone, Serialize, Deserialize, Type, PartialEq)]
pub struct UnknownGroupDto {
    pub group: String,
    pub why: String,
}

impl RetentionPlanDto {
    /// The plan, with the first offset each touched partition keeps (from
    /// the first file not deleted; for a purge of everything, the new file's).
    pub fn new(plan: &RetentionPlan, first_kept: impl Fn(u32) -> Option<u64>) -> Self {
        let (files_gone, messages, bytes) = plan.totals();
        let mut losing: Vec<String> = Vec::new();
        let mut holding: Vec<String> = Vec::new();
        let mut parts: Vec<u32> = Vec::new();
        for f in &plan.files {
            let list = if f.deleted { &mut losing } else { &mut holding };
            for g in &f.unconsumed_by {
                if !list.contains(g) {
                    list.push(g.clone());
                }
            }
            if f.deleted && !parts.contains(&f.partition) {
                parts.push(f.partition);
            }
        }
        let new_starts = parts
            .into_iter()
            .filter_map(|p| first_kept(p).filter(|&o| o > 0).map(|o| NewStart { partition: p, first: o.into() }))
            .collect();
        RetentionPlanDto {
            topic: plan.topic.clone(),
            applied: plan.applied,
            files: plan.files.iter().map(PlannedFileDto::from).collect(),
            created: plan.created.clone(),
            files_gone: u32::try_from(files_gone).unwrap_or(u32::MAX),
            messages_gone: messages.into(),
            bytes_gone: bytes.into(),
            groups_losing: losing,
            groups_holding: holding,
            new_starts,
            unknown_groups: plan.unknown_groups.iter().map(|u| UnknownGroupDto { group: u.group.clone(), why: u.why.clone() }).collect(),
        }
    }
}

/// Pushed when the app applied topics' retention on its own (on open, then
/// hourly): what it removed. Never forced: files groups hold stay. The same
/// plans wait for `take_retention_notices` (an event sent before the window
/// listens is lost).
#[derive(Debug, Clone, Serialize, Deserialize, Type, PartialEq, tauri_specta::Event)]
pub struct RetentionApplied {
    pub plans: Vec<RetentionPlanDto>,
}

/// When the app applies topics' retention in a store on its own: the store's setting,
/// kept by the app (never in the store). Retention deletes messages: by default the app
/// asks first.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, Type, PartialEq, Eq, Default)]
#[serde(rename_all = "snake_case")]
pub enum RetentionMode {
    /// Never on its own: only when asked in the Retention tab (or `twainmq retention apply`).
    Never,
    /// When files are due (on open, then hourly), say what would go and wait for a yes.
    #[default]
    Ask,
    /// Delete what is due on open and hourly, say what went, and log it.
    Automatically,
}

/// Pushed when a store set to "ask" has files due under its topics' retention: what would
/// go. Nothing is deleted until the person says so. The same plans wait for
/// `take_retention_due` (an event sent before the window listens is lost).
#[derive(Debug, Clone, Serialize, Deserialize, Type, PartialEq, tauri_specta::Event)]
pub struct RetentionDue {
    pub plans: Vec<RetentionPlanDto>,
}

/// Who decided a retention run.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, Type, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum RetentionTrigger {
    /// The app, on its own (the store's setting says "automatically").
    Automatically,
    /// The person, in the app (the Retention tab, or yes to the app's question).
    Asked,
}

/// One run of retention the app made on a topic, as its log keeps it.
#[derive(Debug, Clone, Serialize, Deserialize, Type, PartialEq)]
pub struct RetentionLogEntry {
    /// UNIX seconds.
    pub at: f64,
    pub store: String,
    pub topic: String,
    pub trigger: RetentionTrigger,
    /// The files deleted, `partition/name`.
    pub files: Vec<String>,
    pub messages: Count,
    pub bytes: Bytes,
}

/// The app's retention log for the open store: newest first, and where the file is.
#[derive(Debug, Clone, Serialize, Deserialize, Type, PartialEq)]
pub struct RetentionLog {
    /// The log file (every store's runs, one JSON object a line), when the app has one.
    pub path: Option<String>,
    pub entries: Vec<RetentionLogEntry>,
}
