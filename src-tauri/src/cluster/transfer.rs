//! A cluster topic's export to a JSON lines file and a file's import into a
//! cluster topic (`twainmq_kafka::browse`'s lossless lines), as the store's
//! transfers run: on a thread of their own, `TransferEvent`s on a channel,
//! stopped by `cancel_transfer`. An export is written beside its target and
//! put in its place only once whole (never inside a store); an import says
//! exactly which lines the cluster confirmed, and a retry passes them over.

use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use twainmq_kafka::browse::{check_import, ImportOptions, Resume, ScanEnd};

use super::service::ClusterSource;
use super::wire::{ClusterExportRequest, ClusterImportCheck, ClusterImportRequest};
use crate::transfer::wire::{BadLine, ImportReportDto, ImportStop, TransferDone, TransferEvent};
use crate::wire::{Count, ErrorCode, ErrorDto};

/// The least time between two progress events.
const PROGRESS_EVERY: Duration = Duration::from_millis(100);

/// The bridge's error; `config` the code of its settings errors (a bad line, a partition the topic lacks).
fn transfer_error(e: &twainmq_kafka::Error, config: ErrorCode) -> ErrorDto {
    match e {
        twainmq_kafka::Error::TopicMissing { .. } => ErrorDto::new(ErrorCode::TopicNotFound, e.to_string()),
        twainmq_kafka::Error::Config { .. } => ErrorDto::new(config, e.to_string()),
        _ => ErrorDto::new(ErrorCode::Kafka, e.to_string()),
    }
}

fn open(path: &str) -> Result<impl std::io::BufRead, ErrorDto> {
    if path.trim().is_empty() {
        return Err(ErrorDto::new(ErrorCode::NotAFile, "pick the file to import"));
    }
    crate::transfer::service::open_input(path)
}

impl ClusterSource {
    /// Check a file to import into `topic`: its records, the partitions its
    /// lines name against the topic's, its first bad line. Nothing written.
    pub fn check_import(&self, topic: &str, path: &str) -> Result<ClusterImportCheck, ErrorDto> {
        let partitions = self
            .browser()
            .topic(topic)
            .map_err(|e| transfer_error(&e, ErrorCode::Kafka))?
            .ok_or_else(|| ErrorDto::new(ErrorCode::TopicNotFound, format!("the cluster has no topic {topic:?}")))?
            .partitions
            .len();
        let mut input = open(path)?;
        let c = check_import(&mut input, &AtomicBool::new(false)).map_err(|e| transfer_error(&e, ErrorCode::Io))?;
        Ok(ClusterImportCheck {
            records: Count(c.records),
            with_partition: Count(c.with_partition),
            highest_partition: c.highest_partition,
            partitions: u32::try_from(partitions).unwrap_or(u32::MAX),
            bad: Count(c.bad),
            first_bad: c.first_bad.map(|(line, problem)| BadLine { line: Count(line), problem }),
        })
    }

    /// Export the request's records to its file; progress, then done or failed, on `send`.
    /// A stopped export leaves no file (and an old one at the path as it was).
    pub fn export(&self, req: &ClusterExportRequest, cancel: &AtomicBool, send: &mut dyn FnMut(TransferEvent)) {
        let path = Path::new(&req.path);
        // A folder there is the engine's to refuse (bad_export_target): it is never replaced.
        if !req.overwrite && std::fs::symlink_metadata(path).is_ok_and(|m| !m.is_dir()) {
            return send(TransferEvent::refused(crate::transfer::service::target_exists(path)));
        }
        if req.path.trim().is_empty() {
            return send(TransferEvent::refused(ErrorDto::new(ErrorCode::BadExportTarget, "choose the file to write")));
        }
        let mut ended: Option<Result<ScanEnd, twainmq_kafka::Error>> = None;
        let mut last = Instant::now();
        let placed = twainmq::transfer::write_file_outside_stores(path, cancel, &mut |out| {
            let r = self.browser().export_jsonl(&req.topic, req.partitions.as_deref(), out, cancel, &mut |p| {
                if last.elapsed() >= PROGRESS_EVERY {
                    last = Instant::now();
                    send(TransferEvent::Progress { done: Count(p.scanned), total: Some(Count(p.total)) });
                }
            });
            let whole = matches!(r, Ok(ScanEnd::Complete(_)));
            ended = Some(r);
            if whole {
                Ok(())
            } else {
                // Not whole: the partial file is removed, nothing takes the path.
                Err(twainmq::Error::Io { op: "write", path: path.to_path_buf(), cause: std::io::Error::other("the export did not finish") })
            }
        });
        let done = |messages: u64, cancelled: bool| TransferEvent::Done {
            done: TransferDone { messages: Count(messages), cancelled, target: req.path.clone(), import: None },
        };
        send(match (placed, ended) {
            (Ok(true), Some(Ok(ScanEnd::Complete(p)))) => done(p.scanned, false),
            (Ok(_), _) => done(0, true),
            (Err(_), Some(Ok(ScanEnd::Stopped(p)))) => done(p.scanned, true),
            (Err(_), Some(Err(e))) => TransferEvent::refused(transfer_error(&e, ErrorCode::PartitionOutOfRange)),
            (Err(e), _) => TransferEvent::refused(e.into()),
        });
    }

    /// Import the request's file into its topic (refused read-only); progress, then
    /// done or failed, on `send`. A failure says exactly which lines are in the topic.
    pub fn import(&self, req: &ClusterImportRequest, cancel: &AtomicBool, send: &mut dyn FnMut(TransferEvent)) {
        if let Err(e) = self.writable() {
            return send(TransferEvent::refused(e));
        }
        let total = match self.check_import(&req.topic, &req.path) {
            Ok(c) => c.records,
            Err(e) => return send(TransferEvent::refused(e)),
        };
        let mut input = match open(&req.path) {
            Ok(i) => i,
            Err(e) => return send(TransferEvent::refused(e)),
        };
        let options = ImportOptions {
            keep_partitions: req.keep_partitions,
            keep_timestamps: req.keep_timestamps,
            resume: req.resume.as_ref().map(|r| Resume { line: r.line.0, landed_after: r.landed_after.iter().map(|c| c.0).collect() }),
        };
        let mut last = Instant::now();
        let (report, error) = self.browser().import_jsonl(&req.topic, &mut input, options, cancel, &mut |written| {
            if last.elapsed() >= PROGRESS_EVERY {
                last = Instant::now();
                send(TransferEvent::Progress { done: Count(written), total: Some(total) });
            }
        });
        let partitions: Vec<Count> = report.partitions.iter().map(|&n| Count(n)).collect();
        send(match error {
            None => TransferEvent::Done {
                done: TransferDone {
                    messages: Count(report.written),
                    cancelled: report.stopped,
                    target: req.topic.clone(),
                    import: Some(ImportReportDto {
                        dry_run: false,
                        lines: Count(report.lines),
                        messages: Count(report.written),
                        partitions,
                        bad_lines: Count(0),
                        first_bad: None,
                        messages_before_first_bad: None,
                        passed_over: Count(report.passed_over),
                    }),
                },
            },
            Some(e) => TransferEvent::Failed {
                error: transfer_error(&e, ErrorCode::BadInputLine),
                written: Some(Count(report.written)),
                stopped: report.resume_line.map(|line| ImportStop {
                    line: Count(line),
                    landed_after: report.landed_after.iter().map(|&l| Count(l)).collect(),
                    partitions,
                }),
            },
        });
    }
}
