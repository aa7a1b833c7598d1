//! Export: a selection written out as JSONL or CSV, or into a new store.

use std::io::Write;
use std::path::Path;
use std::sync::atomic::AtomicBool;

use super::{read_selection, Progress, Selection};
use crate::error::{Error, Result, TransferError};
use crate::format::message::Message;
use crate::log::dir::TopicSpec;
use crate::scan::Finish;
use crate::store::Store;

/// The file formats of [`export`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExportFormat {
    /// One JSON object a line, as `consume --json` prints them:
    /// `{"partition","offset","key","timestamp","payload"}`, lossless (u64
    /// keys exact, bytes as hex, typed fields verbatim as stored).
    Jsonl,
    /// A header row, then one row a message (see [`super::message_csv_row`]),
    /// quoted by the `csv` crate (commas, quotes and newlines in payloads).
    Csv,
}

/// What an export did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ExportReport {
    /// Messages written out.
    pub messages: u64,
    /// Whether it read the whole selection or was cancelled.
    pub finish: Finish,
}

/// Write the messages of `sel` to `out` in `format`, in timeline order, in
/// batches (memory stays flat), calling `on_progress` after each batch.
/// `out` is flushed at the end (not on error).
///
/// # Errors
/// Topic and read errors; [`Error::Io`] for a failed write to `out` (a
/// closed pipe among them: its `cause` is `BrokenPipe`).
pub fn export(
    store: &Store,
    sel: &Selection,
    format: ExportFormat,
    out: &mut dyn Write,
    cancel: &AtomicBool,
    on_progress: &mut dyn FnMut(Progress),
) -> Result<ExportReport> {
    let place = Path::new("the export's output");
    let io = |e: std::io::Error| Error::io("write to", place, e);
    let mut done = 0u64;
    let finish = match format {
        ExportFormat::Jsonl => {
            let mut buf = Vec::with_capacity(1 << 20);
            read_selection(store, sel, cancel, &mut |batch: &[Message], total| {
                buf.clear();
                for m in batch {
                    // A map of plain values and verbatim JSON always serialises.
                    serde_json::to_writer(&mut buf, &m.to_json()).map_err(|e| io(e.into()))?;
                    buf.push(b'\n');
                }
                out.write_all(&buf).map_err(io)?;
                done += batch.len() as u64;
                on_progress(Progress { done, total });
                Ok(())
            })?
        }
        ExportFormat::Csv => {
            let mut w = csv::WriterBuilder::new().buffer_capacity(1 << 16).from_writer(&mut *out);
            w.write_record(super::csv_header()).map_err(|e| io(e.into()))?;
            let finish = read_selection(store, sel, cancel, &mut |batch: &[Message], total| {
                for m in batch {
                    w.write_record(super::message_csv_row(m)).map_err(|e| io(e.into()))?;
                }
                done += batch.len() as u64;
                on_progress(Progress { done, total });
                Ok(())
            })?;
            w.flush().map_err(io)?;
            finish
        }
    };
    out.flush().map_err(io)?;
    Ok(ExportReport { messages: done, finish })
}

/// Export `sel` as a store: the folder `root` (made if missing) gets a topic
/// `topic` with the source's key type, partition count and message types,
/// holding the selected messages with their keys and timestamps, each in the
/// partition 0.2.3's partitioner picks for its key (the partition it was in,
/// for messages 0.2.3 or we wrote with the default partitioner). Any reader,
/// 0.2.3 included, opens it.
///
/// # Errors
/// [`TransferError::BadTarget`] when `root` already has `topic`; then as [`super::copy`].
pub fn export_to_store(
    store: &Store,
    sel: &Selection,
    root: &Path,
    topic: &str,
    cancel: &AtomicBool,
    on_progress: &mut dyn FnMut(Progress),
) -> Result<super::CopyReport> {
    let config = store.topic_config(&sel.topic)?;
    let target = Store::open_or_create(root)?;
    if target.topic_exists(topic)? {
        return Err(TransferError::BadTarget {
            path: root.to_path_buf(),
            problem: format!("the store there already has a topic {topic:?}: export to a new folder, or use `copy` to add to it"),
        }
        .into());
    }
    let types: Vec<String> = config.message_types.iter().map(|(n, _)| n.clone()).collect();
    // Typed messages go by class name: ids are numbered afresh, as 0.2.3 numbers them.
    let spec = TopicSpec::new(config.key_type, config.partitions).with_types(types);
    target.create_topic(topic, &spec)?;
    let opts = super::CopyOptions { keep_timestamps: true, rate: None };
    super::copy(store, sel, &target, topic, &opts, cancel, on_progress)
}
