//! `twainmq export`, `import` and `copy`: thin over `twainmq::transfer`,
//! with the selection flags turned into a query and reports on stderr.

use std::io;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use anyhow::{anyhow, bail, Context, Result};
use twainmq::scan::Finish;
use twainmq::transfer::{self, CopyOptions, ExportFormat, ImportFormat, ImportOptions, PayloadColumn, Selection};
use twainmq::Store;

use crate::args::{CopyArgs, ExportArgs, ImportArgs, SelectArgs};
use crate::render;

/// A flag that SIGINT and SIGTERM set: the operation stops after its batch.
fn stop_flag() -> Arc<AtomicBool> {
    let stop = Arc::new(AtomicBool::new(false));
    let s = stop.clone();
    let _ = ctrlc::set_handler(move || s.store(true, Ordering::SeqCst));
    stop
}

fn selection(store: &Store, topic: &str, a: &SelectArgs) -> Result<Selection> {
    let query = crate::search::query(store, topic, a)?;
    Ok(Selection { topic: topic.to_string(), query, picked: None })
}

/// Whether `e` is a write to a pipe whose reader went away.
fn closed_pipe(e: &twainmq::Error) -> bool {
    matches!(e, twainmq::Error::Io { cause, .. } if cause.kind() == io::ErrorKind::BrokenPipe)
}

pub(crate) fn export(store: &Store, args: &ExportArgs) -> Result<()> {
    let sel = selection(store, &args.topic, &args.select)?;
    let stop = stop_flag();
    if args.format == "store" {
        let root = args.output.as_deref().ok_or_else(|| anyhow!("--format store needs --output DIR: the folder of the new store"))?;
        let name = args.as_topic.as_deref().unwrap_or(&args.topic);
        let r = transfer::export_to_store(store, &sel, root, name, &stop, &mut |_| {})?;
        if r.finish == Finish::Cancelled {
            bail!("export interrupted: {} messages are in {}, topic {name}", r.messages, root.display());
        }
        eprintln!("exported {} messages to topic {name} of the store {}", r.messages, root.display());
        return Ok(());
    }
    let format = if args.format == "csv" { ExportFormat::Csv } else { ExportFormat::Jsonl };
    let Some(path) = &args.output else {
        let stdout = io::stdout();
        let mut out = io::BufWriter::with_capacity(1 << 16, stdout.lock());
        return match transfer::export(store, &sel, format, &mut out, &stop, &mut |_| {}) {
            // A reader that went away (`| head`) ends the export quietly.
            Err(e) if closed_pipe(&e) => Ok(()),
            Err(e) => Err(e.into()),
            Ok(r) if r.finish == Finish::Cancelled => bail!("export interrupted after {} messages", r.messages),
            Ok(r) => {
                eprintln!("exported {} messages", r.messages);
                Ok(())
            }
        };
    };
    // Written beside the name asked for and renamed at the end: nothing half-written is left under it.
    match transfer::export_file(store, &sel, format, path, &stop, &mut |_| {}) {
        Err(e) if closed_pipe(&e) => Ok(()),
        Err(e) => Err(e.into()),
        Ok(r) if r.finish == Finish::Cancelled => bail!("export interrupted after {} messages: {} not written", r.messages, path.display()),
        Ok(r) => {
            eprintln!("exported {} messages to {}", r.messages, path.display());
            Ok(())
        }
    }
}

fn payload_kind(text: &str) -> Result<PayloadColumn> {
    Ok(match text {
        "auto" => PayloadColumn::Auto,
        "text" => PayloadColumn::Text,
        "json" => PayloadColumn::Json,
        "hex" => PayloadColumn::Hex,
        t => match t.strip_prefix("typed:") {
            Some(class) if !class.is_empty() => PayloadColumn::Typed(class.to_string()),
            _ => bail!("--payload-kind must be auto, text, json, hex or typed:CLASS, not {t:?}"),
        },
    })
}

pub(crate) fn import(store: &Store, args: &ImportArgs) -> Result<()> {
    let csv = match args.format.as_deref() {
        Some(f) => f == "csv",
        None => args.file.extension().is_some_and(|e| e.eq_ignore_ascii_case("csv")),
    };
    let format = if csv {
        ImportFormat::Csv {
            key: args.key_column.clone(),
            payload: args.payload_column.clone(),
            kind: payload_kind(&args.payload_kind)?,
            timestamp: args.timestamp_column.clone(),
        }
    } else {
        ImportFormat::Jsonl
    };
    let opts =
        ImportOptions { format, dry_run: args.dry_run, keep_timestamps: args.keep_timestamps, skip_bad: args.skip_bad, resume: None };
    // The topic is checked before the file is opened.
    store.topic_config(&args.topic)?;
    let stop = stop_flag();
    // A FIFO is opened without waiting for its writer, and reads answer a signal at once.
    let mut input = transfer::open_input(&args.file, Arc::clone(&stop))?;
    let label = if args.dry_run { "bad line" } else { "skipped line" };
    let report = transfer::import(store, &args.topic, &mut input, &opts, &stop, &mut |_| {}, &mut |s| {
        eprintln!("{label} {}: {}", s.line, s.problem);
    });
    let mut out = io::stdout().lock();
    let report = match report {
        Ok(r) => r,
        Err(e) => {
            // What is in the topic, exactly, on stdout too (the error says it on stderr).
            if let twainmq::Error::Transfer(twainmq::TransferError::ImportStopped { line, written, landed_after, partitions, cause }) = &e {
                let view = render::ImportStopped {
                    messages: *written,
                    partitions: partitions.clone(),
                    stopped: render::StoppedAt {
                        line: *line,
                        landed_after: landed_after.clone(),
                        error: cause.code(),
                        message: e.to_string(),
                    },
                };
                render::emit(&mut out, &view, args.json)?;
            }
            return Err(e.into());
        }
    };
    render::emit(&mut out, &render::Imported(report.clone()), args.json)?;
    if report.finish == Finish::Cancelled {
        bail!(
            "import interrupted: every line read was taken ({} lines, {} messages written); the rest of the input was not read",
            report.lines,
            report.messages
        );
    }
    Ok(())
}

/// `STORE:TOPIC` or `TOPIC` (topic names hold no `:`).
fn split_target(to: &str) -> (Option<&str>, &str) {
    match to.rsplit_once(':') {
        Some((store, topic)) if !store.is_empty() => (Some(store), topic),
        _ => (None, to),
    }
}

pub(crate) fn copy(store: &Store, args: &CopyArgs) -> Result<()> {
    let sel = selection(store, &args.topic, &args.select)?;
    let (root, topic) = split_target(&args.to);
    let target = match root {
        Some(r) => Store::open(r).with_context(|| format!("the target store {r}"))?,
        None => store.clone(),
    };
    let opts = CopyOptions { keep_timestamps: args.keep_timestamps, rate: args.rate };
    let stop = stop_flag();
    let r = transfer::copy(store, &sel, &target, topic, &opts, &stop, &mut |_| {})?;
    if r.finish == Finish::Cancelled {
        bail!("copy interrupted: {} messages were written to {topic}", r.messages);
    }
    eprintln!("copied {} messages to {}", r.messages, args.to);
    Ok(())
}
