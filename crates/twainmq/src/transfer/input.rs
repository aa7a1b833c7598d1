//! An import's input: a file, a FIFO or standard input, read so that a cancel
//! (SIGINT, SIGTERM, the app's Cancel) is answered within a fraction of a
//! second even while the input is silent: never blocking in the open of a
//! FIFO, and (Unix) waiting for data in short polls that look at the cancel
//! flag. A cancelled input reads as ended, so what was read is still taken
//! and written before the import stops and says so.

use std::io::{BufRead, BufReader, Read};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use crate::error::{Error, Result};

/// How long one wait for input lasts before the cancel flag is looked at again.
const WAIT: Duration = Duration::from_millis(100);

/// Where the bytes come from.
enum Source {
    Stdin(std::io::Stdin),
    File(std::fs::File),
}

/// A reader that ends when its cancel flag is set (see the module doc).
struct Interruptible {
    source: Source,
    cancel: Arc<AtomicBool>,
}

impl Read for Interruptible {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        loop {
            if self.cancel.load(Ordering::Relaxed) {
                return Ok(0);
            }
            let ready = match &self.source {
                Source::Stdin(s) => crate::sys::open::wait_readable_stdin(s, WAIT)?,
                Source::File(f) => crate::sys::open::wait_readable(f, WAIT)?,
            };
            if !ready {
                continue;
            }
            return match &mut self.source {
                Source::Stdin(s) => s.read(buf),
                Source::File(f) => f.read(buf),
            };
        }
    }
}

/// The input of an import: the file at `path`, or standard input for `-`.
/// A FIFO is opened without waiting for its writer; a folder or a missing
/// file is refused by name. Reads end (as at the end of the input) once
/// `cancel` is set, within a tenth of a second on Unix; on Windows a read
/// waiting on a silent pipe or console ends when its data or its end comes.
///
/// # Errors
/// [`Error::Io`] when the input cannot be opened.
pub fn open_input(path: &Path, cancel: Arc<AtomicBool>) -> Result<Box<dyn BufRead + Send>> {
    let source = if path == Path::new("-") {
        Source::Stdin(std::io::stdin())
    } else {
        if path.is_dir() {
            return Err(Error::io("read", path, std::io::Error::other("it is a folder: give the file to import")));
        }
        Source::File(crate::sys::open::open_input(path).map_err(|e| Error::io("open", path, e))?)
    };
    Ok(Box::new(BufReader::with_capacity(1 << 16, Interruptible { source, cancel })))
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn a_silent_fifo_neither_blocks_the_open_nor_the_cancel() {
        let dir = tempfile::tempdir().expect("tmp");
        let fifo = dir.path().join("fifo");
        assert!(std::process::Command::new("mkfifo").arg(&fifo).status().expect("mkfifo").success());
        let cancel = Arc::new(AtomicBool::new(false));
        let started = std::time::Instant::now();
        let mut input = open_input(&fifo, Arc::clone(&cancel)).expect("opened without a writer");
        let c = Arc::clone(&cancel);
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(300));
            c.store(true, Ordering::Relaxed);
        });
        let mut line = String::new();
        assert_eq!(input.read_line(&mut line).expect("read"), 0, "ends once cancelled");
        assert!(started.elapsed() < Duration::from_secs(2), "{:?}", started.elapsed());
        // A writer's lines come through, and its end is the input's end.
        let writer = std::thread::spawn({
            let fifo = fifo.clone();
            move || std::fs::write(fifo, b"one\ntwo\n").expect("write")
        });
        let mut input = open_input(&fifo, Arc::new(AtomicBool::new(false))).expect("open");
        let mut all = String::new();
        input.read_to_string(&mut all).expect("read");
        writer.join().expect("writer");
        assert_eq!(all, "one\ntwo\n");
    }
}
