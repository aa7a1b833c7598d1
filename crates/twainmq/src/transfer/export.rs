//! Export: a selection written out as JSONL or CSV, or into a new store.

use std::io::Write;
use std::path::{Path, PathBuf};
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
    // Reading (inflating, merging) on one thread, formatting and writing on
    // this one, a few batches apart: on two cores, about twice as fast as one
    // thread doing both. The reader stops when this side stops taking batches.
    let (tx, rx) = std::sync::mpsc::sync_channel::<(Vec<Message>, Option<u64>)>(2);
    let free_keys = store.topic_config(&sel.topic)?.key_type.is_free();
    std::thread::scope(|scope| {
        let reader = scope.spawn(move || {
            read_selection(store, sel, cancel, &mut |batch, total| {
                tx.send((batch, total))
                    .map_err(|_| Error::io("hand on a batch of", "the export", std::io::Error::other("the writer stopped")))
            })
        });
        let written = write_batches(format, free_keys, out, rx, on_progress);
        let read = reader
            .join()
            .unwrap_or_else(|_| Err(Error::io("read", "the export's selection", std::io::Error::other("the reading thread panicked"))));
        // A write error explains a reader stopped by it; else the reader's error, else the count.
        let done = written?;
        let finish = read?;
        Ok(ExportReport { messages: done, finish })
    })
}

/// Write the batches `rx` brings to `out` in `format`, flushing at the end.
fn write_batches(
    format: ExportFormat,
    free_keys: bool,
    out: &mut dyn Write,
    rx: std::sync::mpsc::Receiver<(Vec<Message>, Option<u64>)>,
    on_progress: &mut dyn FnMut(Progress),
) -> Result<u64> {
    let place = Path::new("the export's output");
    let io = |e: std::io::Error| Error::io("write to", place, e);
    let mut done = 0u64;
    match format {
        ExportFormat::Jsonl => {
            let mut buf = Vec::with_capacity(1 << 20);
            for (batch, total) in rx {
                buf.clear();
                for m in &batch {
                    // Plain values and verbatim JSON: serialising into a Vec cannot fail but for memory.
                    serde_json::to_writer(&mut buf, &JsonLine(m)).map_err(|e| io(e.into()))?;
                    buf.push(b'\n');
                }
                out.write_all(&buf).map_err(io)?;
                done += batch.len() as u64;
                on_progress(Progress { done, total });
            }
        }
        ExportFormat::Csv => {
            // The writer's own I/O error, with its kind (a closed pipe ends an
            // export quietly, as for JSONL): not wrapped as "other".
            let csv_io = |e: csv::Error| match e.into_kind() {
                csv::ErrorKind::Io(e) => io(e),
                other => io(std::io::Error::other(format!("{other:?}"))),
            };
            let mut w = csv::WriterBuilder::new().buffer_capacity(1 << 16).from_writer(&mut *out);
            w.write_record(super::csv_header()).map_err(csv_io)?;
            for (batch, total) in rx {
                for m in &batch {
                    w.write_record(super::records::csv_row(m, free_keys)).map_err(csv_io)?;
                }
                done += batch.len() as u64;
                on_progress(Progress { done, total });
            }
            w.flush().map_err(io)?;
        }
    }
    out.flush().map_err(io)?;
    Ok(done)
}

/// A message serialised exactly as [`Message::to_json`] is (the line of
/// `consume --json`), borrowing its text and fields instead of copying them.
struct JsonLine<'a>(&'a Message);

/// JSON text written verbatim (typed fields: big integers, `NaN`), as `RawJson` does.
struct Raw<'a>(&'a str);

impl serde::Serialize for Raw<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        // serde_json's name for the struct it writes verbatim (its `RawValue`).
        const RAW_TOKEN: &str = "$serde_json::private::RawValue";
        let mut st = s.serialize_struct(RAW_TOKEN, 1)?;
        st.serialize_field(RAW_TOKEN, self.0)?;
        st.end()
    }
}

struct PayloadView<'a>(&'a crate::format::payload::Payload);

impl serde::Serialize for PayloadView<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        use crate::format::payload::Payload;
        use serde::ser::SerializeStruct;
        match self.0 {
            Payload::Text(v) => {
                let mut st = s.serialize_struct("PayloadJson", 2)?;
                st.serialize_field("type", "str")?;
                st.serialize_field("value", v)?;
                st.end()
            }
            Payload::Bytes(b) => {
                let mut st = s.serialize_struct("PayloadJson", 2)?;
                st.serialize_field("type", "bytes")?;
                st.serialize_field("hex", &hex::encode(b))?;
                st.end()
            }
            Payload::Typed(t) => {
                let mut st = s.serialize_struct("PayloadJson", 4)?;
                st.serialize_field("type", "dataclass")?;
                st.serialize_field("class", &t.class)?;
                if t.class.is_none() {
                    st.serialize_field("type_id", &t.type_id)?;
                }
                st.serialize_field("fields", &Raw(&t.json))?;
                st.end()
            }
        }
    }
}

impl serde::Serialize for JsonLine<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let m = self.0;
        let mut st = s.serialize_struct("MessageJson", 5)?;
        st.serialize_field("partition", &m.partition)?;
        st.serialize_field("offset", &m.offset)?;
        st.serialize_field("key", &m.key)?;
        st.serialize_field("timestamp", &m.timestamp)?;
        st.serialize_field("payload", &PayloadView(&m.payload))?;
        st.end()
    }
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
    refuse_store_inside_a_store(store, root)?;
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

/// A store made inside another store's folder is taken by that store for
/// topic folders and files it cannot account for (a sub-folder next to the
/// topics, or, named like a day file in a topic's folder, a partition file
/// 0.2.3 producers then stumble on): refused, as file exports there are,
/// before anything is made. The source store itself is refused too (`copy`
/// makes a topic in it). An existing store's own folder is a target.
fn refuse_store_inside_a_store(store: &Store, root: &Path) -> Result<()> {
    let bad = |problem: String| Error::from(TransferError::BadTarget { path: root.to_path_buf(), problem });
    if crate::sys::identity::is_within(root, store.root()) {
        return Err(bad(format!(
            "it is the store {} or a folder inside it: a store there would be taken for the store's own topics and files. Export to a folder outside the store (or use `copy` to make a topic in this store)",
            store.root().display()
        )));
    }
    if let Some(other) = root.parent().filter(|p| !p.as_os_str().is_empty()).and_then(store_holding) {
        return Err(bad(format!(
            "it is inside {}, a TwainMQ store (it holds .twc files): a store there would be taken for that store's topics and files. Export to a folder outside any store, or to a store's own folder",
            other.display()
        )));
    }
    Ok(())
}

/// Whether some folder from `path` up holds a `*.twc` (a store's root).
pub(super) fn store_holding(path: &Path) -> Option<PathBuf> {
    let mut existing = path;
    while std::fs::symlink_metadata(existing).is_err() {
        existing = existing.parent().filter(|p| !p.as_os_str().is_empty())?;
    }
    let real = std::fs::canonicalize(existing).ok()?;
    real.ancestors()
        .filter(|a| a.is_dir())
        .find(|a| {
            std::fs::read_dir(a).is_ok_and(|entries| {
                entries.flatten().any(|e| e.file_name().to_str().is_some_and(|n| n.ends_with(".twc")) && e.path().is_file())
            })
        })
        .map(Path::to_path_buf)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::key::Key;
    use crate::format::payload::{Payload, TypedPayload};

    #[test]
    fn a_line_is_byte_for_byte_what_consume_json_prints() {
        let typed = |class: Option<&str>| {
            Payload::Typed(TypedPayload {
                type_id: 7,
                class: class.map(String::from),
                json: r#"{"n":NaN,"b":18446744073709551616}"#.into(),
            })
        };
        for (key, payload) in [
            (Key::Int(u64::MAX), Payload::Text("tab\t \"q\" ü 😀 \u{0}".into())),
            (Key::Str("日本".into()), Payload::Bytes(vec![0, 255, 10])),
            (Key::Int(0), typed(Some("Box"))),
            (Key::Int(1), typed(None)),
        ] {
            let m = Message { topic: "t".into(), partition: 3, offset: 9, key, timestamp: 1_795_817_815.717_835, payload };
            let want = serde_json::to_string(&m.to_json()).expect("json");
            assert_eq!(serde_json::to_string(&JsonLine(&m)).expect("json"), want);
        }
    }
}
