//! Export to a named file: a regular file is written as `NAME.partial` beside
//! it and renamed over `NAME` only once the whole selection is in it (synced),
//! so an interrupted, cancelled or failed export never leaves a half-written
//! file under the name asked for; a FIFO or device (`/dev/stdout`) is written
//! as it is. The CLI's `--output` and the app's save dialog both go here.

use std::fs::File;
use std::io::BufWriter;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

use super::{export, ExportFormat, ExportReport, Progress, Selection};
use crate::error::{Error, Result, TransferError};
use crate::scan::Finish;
use crate::store::Store;

/// Export `sel` to the file `path` in `format` (see the module doc). On
/// cancel the partial file is removed and the report says `Cancelled` with
/// the count that had been written (none of it is kept).
///
/// # Errors
/// [`TransferError::BadTarget`] for a folder or a path that names no file;
/// then as [`export`], the partial file removed.
pub fn export_file(
    store: &Store,
    sel: &Selection,
    format: ExportFormat,
    path: &Path,
    cancel: &AtomicBool,
    on_progress: &mut dyn FnMut(Progress),
) -> Result<ExportReport> {
    let (mut out, partial) = open_output(path)?;
    let result = export(store, sel, format, &mut out, cancel, on_progress);
    let report = match result {
        Ok(r) if r.finish == Finish::Done => r,
        other => {
            drop(out);
            if let Some(p) = &partial {
                let _ = std::fs::remove_file(p);
            }
            return other;
        }
    };
    let finished = out.into_inner().map_err(|e| Error::io("write", partial.as_deref().unwrap_or(path), e.into_error()));
    let file = match finished {
        Ok(f) => f,
        Err(e) => {
            if let Some(p) = &partial {
                let _ = std::fs::remove_file(p);
            }
            return Err(e);
        }
    };
    if let Some(p) = partial {
        let done = file.sync_all().map_err(|e| Error::io("write", &p, e)).and_then(|()| {
            drop(file);
            std::fs::rename(&p, path).map_err(|e| Error::io("rename the finished export to", path, e))
        });
        if let Err(e) = done {
            let _ = std::fs::remove_file(&p);
            return Err(e);
        }
    }
    Ok(report)
}

/// The writer for `path`, and the partial file it writes when that is not `path` itself.
fn open_output(path: &Path) -> Result<(BufWriter<File>, Option<PathBuf>)> {
    let bad = |problem: &str| Error::from(TransferError::BadTarget { path: path.to_path_buf(), problem: problem.to_string() });
    let meta = std::fs::metadata(path).ok();
    if meta.as_ref().is_some_and(std::fs::Metadata::is_dir) {
        return Err(bad("it is a folder: give a file name"));
    }
    if meta.as_ref().is_some_and(|m| !m.is_file()) {
        let f = std::fs::OpenOptions::new().write(true).open(path).map_err(|e| Error::io("open", path, e))?;
        return Ok((BufWriter::with_capacity(1 << 16, f), None));
    }
    let Some(name) = path.file_name() else { return Err(bad("it names no file: give a file name")) };
    let mut name = name.to_os_string();
    name.push(".partial");
    let partial = path.with_file_name(name);
    let f = File::create(&partial).map_err(|e| Error::io("create", &partial, e))?;
    Ok((BufWriter::with_capacity(1 << 16, f), Some(partial)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::payload::Outgoing;
    use crate::log::dir::TopicSpec;
    use crate::KeyType;

    fn store_with(n: u64) -> (tempfile::TempDir, Store) {
        let dir = tempfile::tempdir().expect("tmp");
        let store = Store::open_or_create(dir.path()).expect("store");
        store.create_topic("t", &TopicSpec::new(KeyType::U32, 2)).expect("create");
        let mut p = store.producer("t").expect("producer");
        for i in 0..n {
            p.send(&crate::Key::Int(i), &Outgoing::Text(format!("m{i}"))).expect("send");
        }
        (dir, store)
    }

    #[test]
    fn the_file_appears_whole_and_no_partial_is_left() {
        let (dir, store) = store_with(10);
        let out = dir.path().join("out.jsonl");
        let r =
            export_file(&store, &Selection::topic("t"), ExportFormat::Jsonl, &out, &AtomicBool::new(false), &mut |_| {}).expect("export");
        assert_eq!(r.messages, 10);
        assert_eq!(std::fs::read_to_string(&out).expect("read").lines().count(), 10);
        assert!(!dir.path().join("out.jsonl.partial").exists());
    }

    #[test]
    fn a_cancelled_export_leaves_nothing_and_keeps_an_old_file() {
        let (dir, store) = store_with(10);
        let out = dir.path().join("out.csv");
        std::fs::write(&out, "old").expect("write");
        let r = export_file(&store, &Selection::topic("t"), ExportFormat::Csv, &out, &AtomicBool::new(true), &mut |_| {}).expect("export");
        assert_eq!(r.finish, Finish::Cancelled);
        assert_eq!(std::fs::read_to_string(&out).expect("read"), "old");
        assert!(!dir.path().join("out.csv.partial").exists());
    }

    #[test]
    fn a_folder_is_refused_with_what_to_do() {
        let (dir, store) = store_with(1);
        let e = export_file(&store, &Selection::topic("t"), ExportFormat::Jsonl, dir.path(), &AtomicBool::new(false), &mut |_| {})
            .expect_err("a folder");
        assert_eq!(e.code(), "bad_export_target");
        assert!(e.to_string().contains("folder"), "{e}");
    }
}
