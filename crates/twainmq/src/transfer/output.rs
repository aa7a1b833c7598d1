//! Export to a named file: a regular file is written to a temporary file of
//! its own beside it (`NAME.partial-PID-N`, made exclusively: never an
//! existing file, never through a link) and renamed over `NAME` only once the
//! whole selection is in it (synced), so an interrupted, cancelled or failed
//! export never leaves a half-written file under the name asked for, and
//! never touches another file. A FIFO or device (`/dev/stdout`) is written as
//! it is; a FIFO is opened without blocking (waiting for its reader while the
//! export can still be cancelled). Nothing is written inside a store. The
//! CLI's `--output` and the app's save dialog both go here.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

use super::{export, ExportFormat, ExportReport, Progress, Selection};
use crate::error::{Error, Result, TransferError};
use crate::scan::Finish;
use crate::store::Store;
use crate::sys::identity::FileIdentity;

/// Export `sel` to the file `path` in `format` (see the module doc). On
/// cancel the partial file is removed and the report says `Cancelled` with
/// the count that had been written (none of it is kept).
///
/// # Errors
/// [`TransferError::BadTarget`] for a folder, a path that names no file, or
/// one inside a store; [`TransferError::ExportNotPlaced`] when the finished
/// export could not take the target's place (held by another program, or
/// written by another while this export ran): it is kept, and the error says
/// where; then as [`export`], the partial file removed.
pub fn export_file(
    store: &Store,
    sel: &Selection,
    format: ExportFormat,
    path: &Path,
    cancel: &AtomicBool,
    on_progress: &mut dyn FnMut(Progress),
) -> Result<ExportReport> {
    let Some(mut out) = open_output(Some(store), path, cancel)? else {
        // Cancelled while waiting for a FIFO's reader: nothing was written.
        return Ok(ExportReport { messages: 0, finish: Finish::Cancelled });
    };
    match export(store, sel, format, &mut out.writer, cancel, on_progress) {
        Ok(r) if r.finish == Finish::Done => out.place(path).map(|()| r),
        other => {
            out.discard();
            other
        }
    }
}

/// Write the file `path` as an export does (see the module doc: a temporary
/// file beside it, renamed over it once whole; never inside a store; a FIFO
/// or device written as it is), its bytes given by `write`: one message's
/// payload saved by the app, say. Returns `false`, having written nothing,
/// when cancelled while waiting for a FIFO's reader.
///
/// # Errors
/// As [`export_file`] for the target; an error of `write` leaves nothing
/// under `path` (the temporary file is removed) and is returned.
pub fn write_file(store: &Store, path: &Path, cancel: &AtomicBool, write: &mut dyn FnMut(&mut dyn Write) -> Result<()>) -> Result<bool> {
    let Some(mut out) = open_output(Some(store), path, cancel)? else { return Ok(false) };
    match write(&mut out.writer) {
        Ok(()) => out.place(path).map(|()| true),
        Err(e) => {
            out.discard();
            Err(e)
        }
    }
}

/// Where an export writes.
struct Output {
    writer: BufWriter<File>,
    /// The temporary file, when the target is a regular file (or none yet).
    partial: Option<PathBuf>,
    /// The target's identity when the export began (none: no file there).
    target_was: Option<FileIdentity>,
}

impl Output {
    /// The whole file is written: flush and sync it, and put it in `path`'s place. A target
    /// written by another program meanwhile, or held open (Windows), is not replaced: the
    /// finished file is kept, and the error says where.
    fn place(self, path: &Path) -> Result<()> {
        let Output { writer, partial, target_was } = self;
        let file = match writer.into_inner().map_err(|e| Error::io("write", partial.as_deref().unwrap_or(path), e.into_error())) {
            Ok(f) => f,
            Err(e) => {
                if let Some(p) = &partial {
                    let _ = std::fs::remove_file(p);
                }
                return Err(e);
            }
        };
        let Some(p) = partial else { return Ok(()) };
        if let Err(e) = file.sync_all() {
            drop(file);
            let _ = std::fs::remove_file(&p);
            return Err(Error::io("write", &p, e));
        }
        drop(file);
        // Another export (or program) that wrote the target while this one ran
        // is not overwritten unseen: this one is kept, and says so.
        if FileIdentity::at(path) != target_was {
            let cause = "another program wrote it while this export ran".to_string();
            return Err(TransferError::ExportNotPlaced { finished: p, target: path.to_path_buf(), cause }.into());
        }
        // The export is whole now: a refused rename (the target open in another
        // program; retried a while) keeps it, and says where it is.
        if let Err(e) = crate::sys::remove::replace(&p, path) {
            let cause = match e {
                Error::FileInUse { .. } => "another program has it open".to_string(),
                Error::Io { cause, .. } => cause.to_string(),
                other => other.to_string(),
            };
            return Err(TransferError::ExportNotPlaced { finished: p, target: path.to_path_buf(), cause }.into());
        }
        Ok(())
    }

    /// Nothing of it is kept: the temporary file is removed.
    fn discard(self) {
        drop(self.writer);
        if let Some(p) = &self.partial {
            let _ = std::fs::remove_file(p);
        }
    }
}

/// Write the file `path` as [`write_file`] does, for data from outside any
/// store (a Kafka topic exported by the app): the same temporary file renamed
/// once whole, and never inside a store.
///
/// # Errors
/// As [`write_file`].
pub fn write_file_outside_stores(path: &Path, cancel: &AtomicBool, write: &mut dyn FnMut(&mut dyn Write) -> Result<()>) -> Result<bool> {
    let Some(mut out) = open_output(None, path, cancel)? else { return Ok(false) };
    match write(&mut out.writer) {
        Ok(()) => out.place(path).map(|()| true),
        Err(e) => {
            out.discard();
            Err(e)
        }
    }
}

/// The writer for `path`; `None` when cancelled while waiting for a FIFO's reader.
fn open_output(store: Option<&Store>, path: &Path, cancel: &AtomicBool) -> Result<Option<Output>> {
    let bad = |problem: String| Error::from(TransferError::BadTarget { path: path.to_path_buf(), problem });
    let meta = std::fs::metadata(path).ok();
    if meta.as_ref().is_some_and(std::fs::Metadata::is_dir) {
        return Err(bad("it is a folder: give a file name".into()));
    }
    // Inside the store (by identity: a link, a bind mount or another spelling
    // of its folder too) or inside any store: the file would be taken for the
    // store's own (a config, a partition file), or replace one.
    if let Some(store) = store.filter(|s| crate::sys::identity::is_within(path, s.root())) {
        return Err(bad(format!(
            "it is inside the store {}: an export there could replace or be taken for the store's own files. Write it outside the store's folder",
            store.root().display()
        )));
    }
    if let Some(other) = super::export::store_holding(path) {
        return Err(bad(format!(
            "it is inside {}, a TwainMQ store (it holds .twc files): an export there could replace or be taken for that store's files. Write it outside the store's folder",
            other.display()
        )));
    }
    if meta.as_ref().is_some_and(|m| !m.is_file()) {
        // A FIFO or device: written as it is, opened without blocking.
        let Some(f) =
            crate::sys::open::open_for_writing_as_is(path, &|| cancel.load(Ordering::Relaxed)).map_err(|e| Error::io("open", path, e))?
        else {
            return Ok(None);
        };
        return Ok(Some(Output { writer: BufWriter::with_capacity(1 << 16, f), partial: None, target_was: None }));
    }
    let Some(name) = path.file_name() else { return Err(bad("it names no file: give a file name".into())) };
    let target_was = FileIdentity::at(path);
    // A name of its own: made exclusively (an existing file, or a link, fails
    // the create), so no file of anyone's is written or destroyed.
    for attempt in 0u32..100 {
        let mut tmp = name.to_os_string();
        tmp.push(format!(".partial-{}-{}", std::process::id(), crate::sys::remove::unique_number().wrapping_add(u64::from(attempt))));
        let partial = path.with_file_name(tmp);
        match std::fs::OpenOptions::new().write(true).create_new(true).open(&partial) {
            Ok(f) => return Ok(Some(Output { writer: BufWriter::with_capacity(1 << 16, f), partial: Some(partial), target_was })),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(Error::io("create", &partial, e)),
        }
    }
    Err(bad("no temporary name beside it was free after 100 tries".into()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::payload::Outgoing;
    use crate::log::dir::TopicSpec;
    use crate::KeyType;

    /// A store of `n` messages, and a folder outside it to export to.
    fn store_with(n: u64) -> (tempfile::TempDir, Store, tempfile::TempDir) {
        let dir = tempfile::tempdir().expect("tmp");
        let store = Store::open_or_create(dir.path()).expect("store");
        store.create_topic("t", &TopicSpec::new(KeyType::U32, 2)).expect("create");
        let mut p = store.producer("t").expect("producer");
        for i in 0..n {
            p.send(&crate::Key::Int(i), &Outgoing::Text(format!("m{i}"))).expect("send");
        }
        (dir, store, tempfile::tempdir().expect("out"))
    }

    fn run(store: &Store, path: &Path) -> Result<ExportReport> {
        export_file(store, &Selection::topic("t"), ExportFormat::Jsonl, path, &AtomicBool::new(false), &mut |_| {})
    }

    fn names(dir: &Path) -> Vec<String> {
        let mut v: Vec<String> =
            std::fs::read_dir(dir).expect("dir").map(|e| e.expect("entry").file_name().to_string_lossy().into_owned()).collect();
        v.sort();
        v
    }

    #[test]
    fn the_file_appears_whole_and_no_partial_is_left() {
        let (_d, store, out_dir) = store_with(10);
        let out = out_dir.path().join("out.jsonl");
        assert_eq!(run(&store, &out).expect("export").messages, 10);
        assert_eq!(std::fs::read_to_string(&out).expect("read").lines().count(), 10);
        assert_eq!(names(out_dir.path()), ["out.jsonl"]);
    }

    #[test]
    fn a_cancelled_export_leaves_nothing_and_keeps_an_old_file() {
        let (_d, store, out_dir) = store_with(10);
        let out = out_dir.path().join("out.csv");
        std::fs::write(&out, "old").expect("write");
        let r = export_file(&store, &Selection::topic("t"), ExportFormat::Csv, &out, &AtomicBool::new(true), &mut |_| {}).expect("export");
        assert_eq!(r.finish, Finish::Cancelled);
        assert_eq!(std::fs::read_to_string(&out).expect("read"), "old");
        assert_eq!(names(out_dir.path()), ["out.csv"]);
    }

    #[test]
    fn a_folder_is_refused_with_what_to_do() {
        let (_d, store, out_dir) = store_with(1);
        let e = run(&store, out_dir.path()).expect_err("a folder");
        assert_eq!(e.code(), "bad_export_target");
        assert!(e.to_string().contains("folder"), "{e}");
    }

    /// Never inside the store: not a partition file, not a config, not a new
    /// file beside them, however the path is spelt (`..`, a link); nor inside
    /// another store. Nothing is written and the store reads as before.
    #[test]
    fn an_output_inside_a_store_is_refused_and_nothing_is_touched() {
        let (d, store, out_dir) = store_with(10);
        let part = std::fs::read_dir(d.path().join("t")).expect("t").next().expect("a file").expect("entry").path();
        let before = std::fs::read(&part).expect("read");
        let config = std::fs::read(d.path().join("t.twc")).expect("read");
        let mut inside = vec![part.clone(), d.path().join("t.twc"), d.path().join("new.jsonl"), d.path().join("t/x/../new.jsonl")];
        #[cfg(not(unix))]
        let _ = &out_dir; // (links to the store are made on Unix only)
        #[cfg(unix)]
        {
            let link = out_dir.path().join("link-to-store");
            std::os::unix::fs::symlink(d.path(), &link).expect("link");
            inside.push(link.join("t.twc"));
        }
        let other = tempfile::tempdir().expect("another store");
        Store::open(other.path()).expect("open").create_topic("u", &TopicSpec::default()).expect("create");
        inside.push(other.path().join("u.twc"));
        inside.push(other.path().join("u").join("export.jsonl"));
        for path in &inside {
            let e = run(&store, path).expect_err("inside a store");
            assert_eq!(e.code(), "bad_export_target", "{}: {e}", path.display());
            assert!(e.to_string().contains("store"), "{e}");
        }
        assert_eq!(std::fs::read(&part).expect("read"), before);
        assert_eq!(std::fs::read(d.path().join("t.twc")).expect("read"), config);
        assert!(!d.path().join("new.jsonl").exists());
        assert_eq!(names(other.path()), ["u", "u.twc"]);
    }

    /// The temporary file is a new file of its own: a file of the user's named
    /// `NAME.partial` is not touched, nor a link's target.
    #[test]
    fn the_temporary_file_is_made_new_never_over_a_file_or_through_a_link() {
        let (_d, store, out_dir) = store_with(5);
        let out = out_dir.path().join("report.csv");
        let users = out_dir.path().join("report.csv.partial");
        std::fs::write(&users, "mine").expect("write");
        #[cfg(unix)]
        {
            let target = out_dir.path().join("elsewhere");
            std::fs::write(&target, "keep").expect("write");
            let pid = std::process::id();
            for n in 0..4 {
                let _ = std::os::unix::fs::symlink(&target, out_dir.path().join(format!("report.csv.partial-{pid}-{n}")));
            }
        }
        export_file(&store, &Selection::topic("t"), ExportFormat::Csv, &out, &AtomicBool::new(false), &mut |_| {}).expect("export");
        assert_eq!(std::fs::read_to_string(&users).expect("read"), "mine");
        #[cfg(unix)]
        assert_eq!(std::fs::read_to_string(out_dir.path().join("elsewhere")).expect("read"), "keep");
        assert_eq!(std::fs::read_to_string(&out).expect("read").lines().count(), 6, "header and 5 rows");
    }

    /// Two exports to one name: the one that finishes second does not silently
    /// replace what the first wrote meanwhile: it is kept, and says where.
    #[test]
    fn a_target_written_by_another_while_exporting_is_not_overwritten_unseen() {
        let (_d, store, out_dir) = store_with(2_000);
        let out = out_dir.path().join("both.jsonl");
        let mut wrote = false;
        let e = export_file(&store, &Selection::topic("t"), ExportFormat::Jsonl, &out, &AtomicBool::new(false), &mut |_| {
            if !wrote {
                std::fs::write(&out, "the other export\n").expect("write");
                wrote = true;
            }
        })
        .expect_err("the target moved under it");
        assert!(wrote, "progress was reported during the export");
        assert_eq!(e.code(), "export_not_placed", "{e}");
        let Error::Transfer(TransferError::ExportNotPlaced { finished, .. }) = &e else { panic!("{e}") };
        assert_eq!(std::fs::read_to_string(finished).expect("kept").lines().count(), 2_000);
        assert_eq!(std::fs::read_to_string(&out).expect("read"), "the other export\n");
    }

    /// A FIFO nobody reads does not hang the export: it waits for a reader
    /// while it can still be cancelled.
    #[cfg(unix)]
    #[test]
    fn a_fifo_with_no_reader_waits_cancellably() {
        let (_d, store, out_dir) = store_with(3);
        let fifo = out_dir.path().join("fifo");
        assert!(std::process::Command::new("mkfifo").arg(&fifo).status().expect("mkfifo").success());
        let cancel = std::sync::Arc::new(AtomicBool::new(false));
        let c = std::sync::Arc::clone(&cancel);
        let canceller = std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_millis(200));
            c.store(true, Ordering::Relaxed);
        });
        let started = std::time::Instant::now();
        let r = export_file(&store, &Selection::topic("t"), ExportFormat::Jsonl, &fifo, &cancel, &mut |_| {}).expect("export");
        canceller.join().expect("thread");
        assert_eq!(r.finish, Finish::Cancelled);
        assert!(started.elapsed() < std::time::Duration::from_secs(2), "stopped at the cancel");
        // With a reader, it is written.
        let reader = std::thread::spawn({
            let fifo = fifo.clone();
            move || std::fs::read_to_string(fifo).expect("read")
        });
        let r =
            export_file(&store, &Selection::topic("t"), ExportFormat::Jsonl, &fifo, &AtomicBool::new(false), &mut |_| {}).expect("export");
        assert_eq!(r.messages, 3);
        assert_eq!(reader.join().expect("reader").lines().count(), 3);
    }

    /// A file written by `write_file` appears whole under its name; a failed write leaves
    /// nothing (an old file kept), and the store's folder is refused as for exports.
    #[test]
    fn write_file_places_a_whole_file_or_nothing() {
        let (d, store, out_dir) = store_with(1);
        let out = out_dir.path().join("payload.bin");
        let body = vec![0xFFu8; 300_000];
        assert!(write_file(&store, &out, &AtomicBool::new(false), &mut |w| w.write_all(&body).map_err(|e| Error::io("write", &out, e)))
            .expect("write"));
        assert_eq!(std::fs::read(&out).expect("read"), body);
        std::fs::write(&out, "old").expect("write");
        let e = write_file(&store, &out, &AtomicBool::new(false), &mut |w| {
            w.write_all(b"half").map_err(|e| Error::io("write", &out, e))?;
            Err(Error::io("read", &out, std::io::Error::other("the source went away")))
        })
        .expect_err("failed");
        assert!(e.to_string().contains("the source went away"), "{e}");
        assert_eq!(std::fs::read_to_string(&out).expect("read"), "old");
        assert_eq!(names(out_dir.path()), ["payload.bin"]);
        let inside = d.path().join("payload.bin");
        let e = write_file(&store, &inside, &AtomicBool::new(false), &mut |_| Ok(())).expect_err("inside the store");
        assert_eq!(e.code(), "bad_export_target");
        assert!(!inside.exists());
    }

    /// A target another program holds (on Windows, a spreadsheet keeps its file
    /// open without sharing delete) cannot be replaced: the finished export is
    /// kept, and the error says where.
    #[cfg(windows)]
    #[test]
    fn a_finished_export_is_kept_when_its_target_cannot_be_replaced() {
        use std::os::windows::fs::OpenOptionsExt;
        let (_d, store, out_dir) = store_with(10);
        let out = out_dir.path().join("out.csv");
        std::fs::write(&out, "old").expect("write");
        let held = std::fs::OpenOptions::new().read(true).share_mode(3).open(&out).expect("hold");
        let e =
            export_file(&store, &Selection::topic("t"), ExportFormat::Csv, &out, &AtomicBool::new(false), &mut |_| {}).expect_err("held");
        assert_eq!(e.code(), "export_not_placed", "{e}");
        let Error::Transfer(TransferError::ExportNotPlaced { finished, .. }) = &e else { panic!("{e}") };
        assert_eq!(std::fs::read_to_string(finished).expect("kept").lines().count(), 11, "header and 10 rows");
        assert!(e.to_string().contains(&*finished.to_string_lossy()), "{e}");
        drop(held);
        assert_eq!(std::fs::read_to_string(&out).expect("read"), "old");
    }
}
