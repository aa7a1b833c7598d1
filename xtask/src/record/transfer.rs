//! The recording of export, import, copy and retention (see the parent
//! module): each request the UI's tests make, with the events or answer the
//! real service gave. Paths are in a temporary folder shown as [`EXPORTS`].
//! Progress events depend on timing and are left out; the mock streams a
//! few of its own between the start and the recorded end.

use std::sync::atomic::AtomicBool;

use serde_json::{json, Value};

use twainmq_desktop::transfer::service;
use twainmq_desktop::transfer::wire::{
    ExportFormatDto, ExportRequest, ImportFormatDto, ImportRequest, ImportResume, RetentionDto, SelectionDto, TransferEvent,
};
use twainmq_desktop::wire::Count;

use super::scene::{answer, build, err, Res, TempDir};
use super::text::Normalizer;
use super::ROOT;

/// Where the recorded exports say they are.
pub const EXPORTS: &str = "/home/you/exports";

fn events(f: impl FnOnce(&mut dyn FnMut(TransferEvent))) -> Vec<TransferEvent> {
    let mut out = Vec::new();
    f(&mut |e| {
        if !matches!(e, TransferEvent::Progress { .. }) {
            out.push(e);
        }
    });
    out
}

fn days(d: u64) -> Option<RetentionDto> {
    Some(RetentionDto { days: Some(Count(d)), bytes_per_partition: None })
}

pub(super) fn record(fixture: &std::path::Path, norm: &mut Normalizer) -> Res<Value> {
    let scene = build(fixture)?;
    norm.root(&scene.root, ROOT);
    let store = &scene.store;
    let dir = TempDir::new("exports")?;
    norm.root(&dir.0, EXPORTS);
    let no = AtomicBool::new(false);

    let mut exports = Vec::new();
    for (format, name) in [(ExportFormatDto::Jsonl, "events.jsonl"), (ExportFormatDto::Csv, "events.csv")] {
        let request = ExportRequest {
            topic: "events".into(),
            selection: SelectionDto::All { partitions: None },
            format,
            path: dir.0.join(name).display().to_string(),
            store_topic: None,
            overwrite: false,
        };
        let sel = service::selection("events", &request.selection).map_err(|e| e.message)?;
        let evs = events(|send| service::export(store, &request, &sel, &no, send));
        exports.push(json!({"request": request, "events": evs}));
    }
    // The JSONL export again, to the file it wrote: refused unconfirmed (nothing written), then
    // replaced when confirmed (the dialog's "Replace", or its native save dialog's own question).
    for overwrite in [false, true] {
        let request = ExportRequest {
            topic: "events".into(),
            selection: SelectionDto::All { partitions: None },
            format: ExportFormatDto::Jsonl,
            path: dir.0.join("events.jsonl").display().to_string(),
            store_topic: None,
            overwrite,
        };
        let sel = service::selection("events", &request.selection).map_err(|e| e.message)?;
        let evs = events(|send| service::export(store, &request, &sel, &no, send));
        exports.push(json!({"request": request, "events": evs}));
    }
    // A folder chosen as the file.
    let folder = ExportRequest {
        topic: "events".into(),
        selection: SelectionDto::All { partitions: None },
        format: ExportFormatDto::Jsonl,
        path: dir.0.display().to_string(),
        store_topic: None,
        overwrite: false,
    };
    let sel = service::selection("events", &folder.selection).map_err(|e| e.message)?;
    let evs = events(|send| service::export(store, &folder, &sel, &no, send));
    exports.push(json!({"request": folder, "events": evs}));

    // A file with a bad line, beside the export.
    let bad = dir.0.join("bad.jsonl");
    std::fs::write(&bad, "{\"key\": 1, \"payload\": \"a\"}\n{\"key\": \"x\", \"payload\": \"b\"}\n{\"key\": 3, \"payload\": \"c\"}\n")
        .map_err(err("write a bad file"))?;
    let jsonl = dir.0.join("events.jsonl");
    let csv = dir.0.join("events.csv");
    let mut imports = Vec::new();
    // The last two go on from where the stopped import (line 2) left off, as the dialog's retry does.
    let resume = || Some(ImportResume { line: Count(2), landed_after: Vec::new() });
    for (path, dry_run, skip_bad, resume) in [
        (&jsonl, true, false, None),
        (&jsonl, false, false, None),
        (&bad, true, false, None),
        (&bad, false, false, None),
        (&bad, false, true, None),
        (&bad, true, true, resume()),
        (&bad, false, true, resume()),
    ] {
        let format = ImportFormatDto::Jsonl;
        let request = ImportRequest {
            topic: "empty".into(),
            path: path.display().to_string(),
            format,
            dry_run,
            keep_timestamps: false,
            skip_bad,
            resume,
        };
        let evs = events(|send| service::import(store, &request, &no, send));
        imports.push(json!({"request": request, "events": evs}));
    }
    let columns = json!([{"path": csv.display().to_string(), "answer": answer(&service::csv_columns(&csv.display().to_string()))}]);

    let mut previews = Vec::new();
    for topic in ["events", "orders", "tiny"] {
        for (retention, force) in [(days(1), false), (days(1), true), (days(2), false), (days(7), false)] {
            let a = answer(&service::retention_preview(store, topic, retention, force));
            previews.push(json!({"topic": topic, "retention": retention, "force": force, "answer": a}));
        }
    }
    let mut saved = serde_json::Map::new();
    for topic in store.list_topics().map_err(err("list topics"))? {
        saved.insert(topic.clone(), answer(&service::topic_retention(store, &topic)));
    }
    let purges: Vec<Value> = [("events", None, false), ("events", None, true), ("tiny", None, false)]
        .into_iter()
        .map(|(topic, before, force): (&str, Option<f64>, bool)| {
            json!({"topic": topic, "before": before, "force": force, "answer": answer(&service::purge_topic(store, topic, before, false, force, ""))})
        })
        .collect();
    drop(dir);
    Ok(json!({
        "exports": exports,
        "imports": imports,
        "csv_columns": columns,
        "retention": saved,
        "previews": previews,
        "purges": purges,
    }))
}
