//! Reading a partition file in chunks of whole lines, for the count and the
//! time index alike.

#[allow(clippy::wildcard_imports)]
use super::*;

/// Bytes read at a time to count lines.
pub(super) const CHUNK: usize = 1 << 18;

/// Read the next bytes of `f` into `buf` (up to all but its last byte), made
/// whole for splitting into lines (`format/newline.rs`): when they end in a
/// `\r` and the file's next byte is its `\n`, that byte is read too, so a last
/// `\r` ends a line on its own (or the file, for now). 0 at the end of the file.
///
/// # Errors
/// Read errors (interrupted reads are retried).
pub(crate) fn read_chunk(f: &mut File, buf: &mut [u8]) -> std::io::Result<usize> {
    let Some(room) = buf.len().checked_sub(1) else { return Ok(0) };
    let n = loop {
        match f.read(&mut buf[..room]) {
            Ok(n) => break n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        }
    };
    if n == 0 || buf[n - 1] != b'\r' {
        return Ok(n);
    }
    loop {
        match f.read(&mut buf[n..=n]) {
            Ok(1) if buf[n] == b'\n' => return Ok(n + 1),
            // Another byte (read again with the next chunk: the caller seeks to where it goes on), or the end.
            Ok(_) => return Ok(n),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        }
    }
}
