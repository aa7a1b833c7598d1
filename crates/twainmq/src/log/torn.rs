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

/// What a group log's torn tail is ended with: 18 characters (so that the
/// ended line is long enough to mend: [`crate::format::mend::MIN_STAND_IN`]),
/// then the newline.
pub(crate) const GROUP_TAIL_END: &[u8] = b"000000000000000000\n";

/// Overwrite the line of the group log `path` that starts at byte `pos` and
/// holds `line` (without its newline) with a line of the same length that
/// 0.2.3 reads and passes over ([`crate::format::mend::stand_in`]), if the
/// bytes there are still `line` and a newline and 0.2.3 cannot read them.
/// `Ok(false)` when nothing was written (the line changed, is readable, or is
/// too short to mend). Nothing moves: every line keeps its offset.
///
/// # Errors
/// Opening, reading or writing the file.
pub(crate) fn mend_line(path: &Path, pos: u64, line: &[u8], fallback_ts: f64) -> Result<bool> {
    if crate::format::mend::python_reads_group_line(line) {
        return Ok(false);
    }
    let Some(stand_in) = crate::format::mend::stand_in(line, fallback_ts) else { return Ok(false) };
    let file = crate::sys::open::open_regular_to_overwrite(path)?;
    let mut there = vec![0u8; line.len() + 1];
    if !read_exact_at(&file, &mut there, pos).map_err(|e| Error::io("read", path, e))?
        || there[..line.len()] != *line
        || !newline::is_line_end(there[line.len()])
    {
        return Ok(false);
    }
    crate::sys::open::write_at(&file, &stand_in, pos).map_err(|e| Error::io("mend a torn record in", path, e))?;
    tracing::info!(file = %path.display(), pos, len = line.len(), "a torn group record was made readable to 0.2.3 members (a record they pass over, at the same length)");
    Ok(true)
}

/// Read all of `buf` from `pos`; `false` when the file ends first.
fn read_exact_at(file: &File, buf: &mut [u8], pos: u64) -> std::io::Result<bool> {
    let mut done = 0;
    while done < buf.len() {
        match crate::sys::open::read_at(file, &mut buf[done..], pos + done as u64) {
            Ok(0) => return Ok(false),
            Ok(n) => done += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(true)
}

/// A file's torn last line: where it starts, its bytes (no newline), and the
/// timestamp of the line before it, if that one's can be read.
struct TornTail {
    pos: u64,
    bytes: Vec<u8>,
    prev_ts: Option<f64>,
}

/// The torn last line of `file` (whose size is `size`); `None` when the file
/// ends in a newline or the last line is longer than 64 KiB.
fn torn_tail_of(file: &File, size: u64) -> std::io::Result<Option<TornTail>> {
    const LOOK: u64 = 64 << 10;
    let from = size.saturating_sub(LOOK);
    let mut buf = vec![0u8; usize::try_from(size - from).unwrap_or(0)];
    if !read_exact_at(file, &mut buf, from)? {
        return Ok(None);
    }
    // A last `\r` ends a line too (a store converted to CR line ends reads whole in 0.2.3).
    if buf.last().is_none_or(|b| newline::is_line_end(*b)) {
        return Ok(None);
    }
    let start = match memchr::memrchr2(b'\n', b'\r', &buf) {
        Some(i) => i + 1,
        None if from == 0 => 0,
        None => return Ok(None),
    };
    let prev = buf[..start.saturating_sub(1)].rsplit(|b| newline::is_line_end(*b)).find(|l| !l.is_empty()).filter(|_| start > 0);
    let prev_ts = prev
        .and_then(|l| l.get(crate::format::mend::KEY_CHARS..crate::format::mend::KEY_CHARS + 10))
        .and_then(|t| crate::format::line::decode_timestamp(t).ok());
    Ok(Some(TornTail { pos: from + start as u64, bytes: buf[start..].to_vec(), prev_ts }))
}

/// End the torn last line of the group log `path` (bytes after its last
/// newline, left by a full disk or a crash) with [`GROUP_TAIL_END`] through
/// `appender` (an appending handle of it, or a new one), then mend the line
/// ([`mend_line`]). Nothing is done when the file ends in a newline, when the
/// tail is not `expect_len` bytes (when given), or when another write landed
/// between (the line it made is mended when a reader of ours comes to it).
///
/// # Errors
/// Opening, reading or writing the file.
pub(crate) fn end_and_mend_group_tail(path: &Path, appender: Option<&mut File>, expect_len: Option<u64>) -> Result<bool> {
    let reader = crate::sys::open::open_regular(path, false)?;
    let size = reader.metadata().map_err(|e| Error::io("read", path, e))?.len();
    let Some(TornTail { pos, bytes: tail, prev_ts }) = torn_tail_of(&reader, size).map_err(|e| Error::io("read", path, e))? else {
        return Ok(false);
    };
    if expect_len.is_some_and(|l| l != tail.len() as u64) {
        return Ok(false);
    }
    let mut own;
    let appender = match appender {
        Some(a) => a,
        None => {
            own = crate::sys::open::open_regular(path, true)?;
            &mut own
        }
    };
    tracing::warn!(file = %path.display(), "the group log ends inside a record torn by a crash or a full disk; ending it, and making it a record 0.2.3 members read and pass over");
    appender.write_all(GROUP_TAIL_END).map_err(|e| Error::io("append to", path, e))?;
    let end = std::io::Seek::stream_position(appender).map_err(|e| Error::io("append to", path, e))?;
    if end != size + GROUP_TAIL_END.len() as u64 {
        return Ok(false);
    }
    let mut line = tail;
    line.extend_from_slice(&GROUP_TAIL_END[..GROUP_TAIL_END.len() - 1]);
    // The line is ended now: a write after it is not glued to it, whatever
    // happens to the mend (it is tried again by the next reader of ours).
    mend_line(path, pos, &line, prev_ts.unwrap_or(0.0)).or_else(|e| {
        tracing::warn!(file = %path.display(), error = %e, "a torn group record was ended but could not be made readable to 0.2.3 members now");
        Ok(false)
    })
}

/// If the file ends inside a line left by a crashed writer, end that line, so
/// that our next message is not glued to it (and lost with it). Readers skip
/// the terminated fragment as a damaged line; in a group log (`group`) it is
/// also made a record 0.2.3 members read ([`end_and_mend_group_tail`]), since
/// 0.2.3 reads a group's whole log at every join and dies on a line it cannot
/// decode. Best effort: when the tail cannot be read, the check after each
/// write still catches a glued line.
pub(crate) fn terminate_torn_tail(file: &mut File, path: &Path, group: bool) -> Result<()> {
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
        Some((now_len, b)) if now_len == len && !newline::is_line_end(b) && group => {
            end_and_mend_group_tail(path, Some(file), None).map(|_| ())
        }
        Some((now_len, b)) if now_len == len && !newline::is_line_end(b) => {
            tracing::warn!(file = %path.display(), "the file ends inside a line torn by a crash; ending that line so new messages are not lost with it");
            file.write_all(b"\n").map_err(|e| Error::io("append to", path, e))
        }
        _ => Ok(()),
    }
}

/// Cut the `written` bytes of a short write off the end of `file` again, if
/// they are still its last bytes (nothing was appended after them): a half
/// line left there would be read by 0.2.3 (which takes a line without its
/// newline as a whole one) and kill it, or, in a group log, kill every 0.2.3
/// member that joins. On a full disk another writer's append fails as ours
/// did, so the window between the look at the size and the cut (a writer
/// appending then would lose its bytes) needs space freed in between. `true`
/// when cut.
pub(crate) fn take_back(file: &File, path: &Path, written: usize) -> bool {
    // With O_APPEND the descriptor stands at the end of our write.
    let Ok(end) = std::io::Seek::stream_position(&mut &*file) else { return false };
    let Some(start) = end.checked_sub(written as u64) else { return false };
    if crate::sys::open::file_state(file).size != Some(end) {
        return false;
    }
    // An append-only handle cannot set the length on Windows: a handle that can.
    let cut = file.set_len(start).or_else(|_| {
        let f = crate::sys::open::open_regular_to_overwrite(path).map_err(std::io::Error::other)?;
        if f.metadata()?.len() != end {
            return Err(std::io::Error::other("the file grew"));
        }
        f.set_len(start)
    });
    match cut {
        Ok(()) => {
            tracing::warn!(file = %path.display(), written, "a short write (a full disk?) was cut off again: nothing of it is left");
            true
        }
        Err(e) => {
            tracing::warn!(file = %path.display(), written, error = %e, "a short write (a full disk?) could not be cut off; the next write ends its half line");
            false
        }
    }
}
