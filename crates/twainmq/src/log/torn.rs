//! Lines torn by a crashed writer: a file that ends inside a line is ended
//! before we append to it, so our next message is not glued to the fragment.

use std::fs::File;
use std::io::Write;
use std::path::Path;
use std::time::Instant;

use crate::error::{Error, Result};
use crate::format::newline;

/// How long a file must have been still before an unfinished last line is
/// taken for a crash's torn tail rather than a write in progress.
const TORN_QUIET: std::time::Duration = std::time::Duration::from_secs(1);

/// The byte at `pos`, read through `r`. A read can come back short while
/// other processes append (seen on ntfs-3g: the size is known before the
/// bytes can be read), so a short read is retried for up to a second before
/// it counts as an error; `None` when the file is shorter than `pos + 1`.
pub(crate) fn byte_at_retrying(r: &File, pos: u64) -> std::io::Result<Option<u8>> {
    let mut b = [0u8; 1];
    let started = Instant::now();
    let mut pause = std::time::Duration::from_micros(100);
    loop {
        match crate::sys::open::read_at(r, &mut b, pos) {
            Ok(1) => return Ok(Some(b[0])),
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        }
        if r.metadata()?.len() <= pos {
            return Ok(None);
        }
        if started.elapsed() >= std::time::Duration::from_secs(1) {
            return Err(std::io::Error::new(
                std::io::ErrorKind::UnexpectedEof,
                format!("byte {pos} stayed unreadable for a second although the file is longer"),
            ));
        }
        std::thread::sleep(pause);
        pause = (pause * 2).min(std::time::Duration::from_millis(20));
    }
}

/// If the file ends inside a line left by a crashed writer, end that line, so
/// that our next message is not glued to it (and lost with it). Readers skip
/// the terminated fragment as a damaged line. Best effort: when the tail
/// cannot be read, the check after each write still catches a glued line.
pub(crate) fn terminate_torn_tail(file: &mut File, path: &Path) -> Result<()> {
    let last_byte = |path: &Path| -> Result<Option<(u64, u8)>> {
        let r = match crate::sys::open::open_regular(path, false) {
            Ok(r) => r,
            Err(Error::Io { cause, .. }) if cause.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(e),
        };
        let len = r.metadata().map_err(|e| Error::io("read", path, e))?.len();
        if len == 0 {
            return Ok(None);
        }
        match byte_at_retrying(&r, len - 1) {
            Ok(b) => Ok(b.map(|b| (len, b))),
            Err(e) => {
                tracing::debug!(file = %path.display(), error = %e, "the file's last byte could not be read; the check after the write covers a torn tail");
                Ok(None)
            }
        }
    };
    let Some((len, b)) = last_byte(path)? else { return Ok(()) };
    // A last `\r` ends a line too (a file whose line ends are `\r\n` or `\r`,
    // cut after one: `format/newline.rs`): our line after it is a line of its own.
    if newline::is_line_end(b) {
        return Ok(());
    }
    // A write in progress finishes within microseconds; a torn tail stays. Wait for quiet.
    let started = std::time::Instant::now();
    loop {
        let age = std::fs::metadata(path).and_then(|m| m.modified()).ok().and_then(|m| m.elapsed().ok());
        if age.is_none_or(|a| a >= TORN_QUIET) || started.elapsed() >= TORN_QUIET * 2 {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    match last_byte(path)? {
        Some((now_len, b)) if now_len == len && !newline::is_line_end(b) => {
            tracing::warn!(file = %path.display(), "the file ends inside a line torn by a crash; ending that line so new messages are not lost with it");
            file.write_all(b"\n").map_err(|e| Error::io("append to", path, e))
        }
        _ => Ok(()),
    }
}
