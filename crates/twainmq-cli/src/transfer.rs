//! `twainmq export`, `import` and `copy`: thin over `twainmq::transfer`,
//! with the selection flags turned into a query and reports on stderr.

use std::fs::File;
use std::io::{self, BufReader, Write};
use std::path::{Path, PathBuf};
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
    let (mut file, partial) = open_output(path)?;
    let result = transfer::export(store, &sel, format, &mut file, &stop, &mut |_| {});
    let done = match result {
        Ok(r) if r.finish == Finish::Done => r,
        other => {
            // Nothing half-written is left under the name asked for.
            if let Some(p) = &partial {
                let _ = std::fs::remove_file(p);
            }
            return match other {
                Ok(r) => bail!("export interrupted after {} messages: {} not written", r.messages, path.display()),
                Err(e) if closed_pipe(&e) => Ok(()),
                Err(e) => Err(e.into()),
            };
        }
    };
    file.flush()?;
    if let Some(p) = partial {
        file.get_ref().sync_all().with_context(|| format!("writing {}", p.display()))?;
        std::fs::rename(&p, path).with_context(|| format!("renaming {} to {}", p.display(), path.display()))?;
    }
    eprintln!("exported {} messages to {}", done.messages, path.display());
    Ok(())
}

/// The output file: a regular file is written as `NAME.partial` beside it and
/// renamed at the end; a FIFO or device (`/dev/stdout`) is written as it is.
fn open_output(path: &Path) -> Result<(io::BufWriter<File>, Option<PathBuf>)> {
    let meta = std::fs::metadata(path).ok();
    if meta.as_ref().is_some_and(std::fs::Metadata::is_dir) {
        bail!("--output {} is a folder: give a file name", path.display());
    }
    if meta.as_ref().is_some_and(|m| !m.is_file()) {
        let f = std::fs::OpenOptions::new().write(true).open(path).with_context(|| format!("opening {}", path.display()))?;
        return Ok((io::BufWriter::with_capacity(1 << 16, f), None));
    }
    let mut name = path.file_name().ok_or_else(|| anyhow!("--output {} names no file", path.display()))?.to_os_string();
    name.push(".partial");
    let partial = path.with_file_name(name);
    let f = File::create(&partial).with_context(|| format!("creating {}", partial.display()))?;
    Ok((io::BufWriter::with_capacity(1 << 16, f), Some(partial)))
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
    let opts = ImportOptions { format, dry_run: args.dry_run, keep_timestamps: args.keep_timestamps, skip_bad: args.skip_bad };
    // The topic is checked before the file is opened.
    store.topic_config(&args.topic)?;
    let mut input: Box<dyn io::BufRead> = if args.file == Path::new("-") {
        Box::new(BufReader::with_capacity(1 << 16, io::stdin().lock()))
    } else {
        if args.file.is_dir() {
            bail!("{} is a folder: give the file to import", args.file.display());
        }
        let f = File::open(&args.file).with_context(|| format!("opening {}", args.file.display()))?;
        Box::new(BufReader::with_capacity(1 << 16, f))
    };
    let stop = stop_flag();
    let label = if args.dry_run { "bad line" } else { "skipped line" };
    let report = transfer::import(store, &args.topic, &mut input, &opts, &stop, &mut |_| {}, &mut |s| {
        eprintln!("{label} {}: {}", s.line, s.problem);
    })?;
    let mut out = io::stdout().lock();
    render::emit(&mut out, &render::Imported(report.clone()), args.json)?;
    if report.finish == Finish::Cancelled {
        bail!("import interrupted after {} messages", report.messages);
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
