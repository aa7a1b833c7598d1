//! Where lines end, as 0.2.3 reads them.
//!
//! 0.2.3 reads partition files in text mode with Python's universal newlines:
//! a line ends at `\n`, at `\r\n`, or at a `\r` followed by anything else,
//! and at the end of a file a last `\r` ends a line too. The line it hands on
//! is the text before that end. So a store whose lines were converted to CRLF
//! (git's `core.autocrlf=true`, FTP in ASCII mode, an editor) or to CR (an old
//! Mac's line ends) reads as the store it was, whole, with the same offsets;
//! every reader here splits lines by the same rule so that its offsets are
//! 0.2.3's. Writers write `\n` only.
//!
//! A `\r` that is the last byte read so far is undecided: the byte after it
//! says whether it ends a line alone or with that `\n`. A reader with more of
//! the file to read reads on; at the end of the file it is a line end (as in
//! 0.2.3). A `\r\n` written in two writes would then read as two line ends;
//! no TwainMQ writer writes one (every line is one `write` ending in `\n`).

/// Whether `b` ends a line (alone, or `\r` before a `\n`).
#[inline]
pub(crate) fn is_line_end(b: u8) -> bool {
    b == b'\n' || b == b'\r'
}

/// The end of the first line in `buf`: `(len, next)`, the line being
/// `buf[..len]` and the next one starting at `buf[next]`. `None` when `buf`
/// holds no line end yet, including a `\r` that is its last byte (undecided);
/// with `at_end` (nothing follows `buf`), that `\r` ends a line.
#[inline]
pub(crate) fn line_end(buf: &[u8], at_end: bool) -> Option<(usize, usize)> {
    let i = memchr::memchr2(b'\n', b'\r', buf)?;
    if buf[i] == b'\n' {
        return Some((i, i + 1));
    }
    match buf.get(i + 1) {
        Some(b'\n') => Some((i, i + 2)),
        Some(_) => Some((i, i + 1)),
        None if at_end => Some((i, i + 1)),
        None => None,
    }
}

/// The lines ending in bytes read from a file: `(start, end)` of each line's
/// text (without its line end). A reader of a file in chunks makes each chunk
/// decided first: when it ends in `\r`, it reads the next byte and takes it
/// into the chunk if it is `\n`; then a last `\r` ends a line (`at_end`).
pub(crate) struct ChunkLines<'a> {
    buf: &'a [u8],
    /// Every `\n` and `\r` of `buf`, in order (one search over the chunk, not one a line).
    ends: memchr::Memchr2<'a>,
    at: usize,
    at_end: bool,
}

impl<'a> ChunkLines<'a> {
    /// The lines of `buf`; with `at_end`, a last `\r` ends a line.
    pub(crate) fn new(buf: &'a [u8], at_end: bool) -> Self {
        ChunkLines { buf, ends: memchr::memchr2_iter(b'\n', b'\r', buf), at: 0, at_end }
    }

    /// Where the bytes after the last line end begin (a line not ended yet).
    pub(crate) fn rest(&self) -> usize {
        self.at
    }
}

impl Iterator for ChunkLines<'_> {
    type Item = (usize, usize);

    #[inline]
    fn next(&mut self) -> Option<(usize, usize)> {
        loop {
            let i = self.ends.next()?;
            if i < self.at {
                continue; // the `\n` of a `\r\n` already taken
            }
            let start = self.at;
            if self.buf[i] == b'\n' {
                self.at = i + 1;
                return Some((start, i));
            }
            self.at = match self.buf.get(i + 1) {
                Some(b'\n') => i + 2,
                Some(_) => i + 1,
                None if self.at_end => i + 1,
                // Undecided: the rest of the chunk waits for the byte after it.
                None => return None,
            };
            return Some((start, i));
        }
    }
}

/// Counts line ends in bytes given in pieces: every `\n` and every `\r`,
/// but a `\n` right after a `\r` (one `\r\n`). A `\r` as the last byte of the
/// last piece counts as a line end, as at the end of a file.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct LineEndCounter {
    after_cr: bool,
}

impl LineEndCounter {
    /// Line ends in `piece`, the bytes after the pieces counted before.
    pub(crate) fn count(&mut self, piece: &[u8]) -> u64 {
        let Some(&last) = piece.last() else { return 0 };
        let mut n = 0u64;
        for i in memchr::memchr2_iter(b'\n', b'\r', piece) {
            // A `\n` right after a `\r` (in this piece or at the end of the one before) is part of it.
            let after_cr = if i == 0 { self.after_cr } else { piece[i - 1] == b'\r' };
            if piece[i] == b'\r' || !after_cr {
                n += 1;
            }
        }
        self.after_cr = last == b'\r';
        n
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The model: Python's `io.TextIOWrapper(newline=None).readlines()` on the
    /// whole bytes, as (text, ended) pairs.
    fn python_lines(bytes: &[u8]) -> Vec<(Vec<u8>, bool)> {
        let mut out = Vec::new();
        let mut line = Vec::new();
        let mut i = 0;
        while i < bytes.len() {
            match bytes[i] {
                b'\n' => out.push((std::mem::take(&mut line), true)),
                b'\r' => {
                    out.push((std::mem::take(&mut line), true));
                    if bytes.get(i + 1) == Some(&b'\n') {
                        i += 1;
                    }
                }
                b => line.push(b),
            }
            i += 1;
        }
        if !line.is_empty() {
            out.push((line, false));
        }
        out
    }

    fn bytes_of(seed: u64, len: usize) -> Vec<u8> {
        let mut x = seed | 1;
        (0..len)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                [b'a', b'b', b'\n', b'\r', b'c'][usize::try_from(x % 5).expect("small")]
            })
            .collect()
    }

    #[test]
    fn lines_end_as_python_reads_them_and_line_ends_count_however_the_bytes_are_cut() {
        for seed in 0..400u64 {
            let bytes = bytes_of(seed, 1 + usize::try_from(seed % 50).expect("small"));
            let want = python_lines(&bytes);
            let mut it = ChunkLines::new(&bytes, true);
            let mut got: Vec<(Vec<u8>, bool)> = it.by_ref().map(|(s, e)| (bytes[s..e].to_vec(), true)).collect();
            if it.rest() < bytes.len() {
                got.push((bytes[it.rest()..].to_vec(), false));
            }
            assert_eq!(got, want, "{bytes:?}");
            let ended = want.iter().filter(|(_, e)| *e).count() as u64;
            for size in 1..=bytes.len() {
                let mut counter = LineEndCounter::default();
                let counted: u64 = bytes.chunks(size).map(|piece| counter.count(piece)).sum();
                assert_eq!(counted, ended, "{bytes:?} counted in pieces of {size}");
            }
        }
    }

    #[test]
    fn an_undecided_cr_waits_for_the_byte_after_it() {
        assert_eq!(line_end(b"abc\r", false), None);
        assert_eq!(line_end(b"abc\r", true), Some((3, 4)));
        assert_eq!(line_end(b"abc\r\n", false), Some((3, 5)));
        assert_eq!(line_end(b"abc\rx", false), Some((3, 4)));
        assert_eq!(line_end(b"abc\nx", false), Some((3, 4)));
        assert_eq!(line_end(b"abc", true), None);
    }
}
