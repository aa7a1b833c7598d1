//! The heads (key and timestamp) of a file's lines, noted block by block of
//! [`STRIDE`] lines as a read passes them: what the line index counts with
//! and the time index (`timeindex.rs`) is made of. No I/O here.

use crate::format::line::{decode_timestamp, TS_CHARS};

/// A mark every this many lines.
pub const STRIDE: u64 = 1024;

/// The timestamp of a whole line (without its newline), whose key takes `kc` characters.
pub(crate) fn line_timestamp(line: &[u8], kc: usize) -> Option<f64> {
    decode_timestamp(line.get(kc..kc + TS_CHARS)?).ok()
}

/// Note line `n`'s timestamp (`None`: unreadable) in its block.
pub(crate) fn note(ts: Option<f64>, n: u64, block_max: &mut Vec<f64>, block_min: &mut Vec<f64>) {
    let k = usize::try_from(n / STRIDE).unwrap_or(usize::MAX);
    if block_max.len() <= k {
        block_max.resize(k + 1, f64::NEG_INFINITY);
        block_min.resize(k + 1, f64::INFINITY);
    }
    if let Some(ts) = ts {
        if ts > block_max[k] {
            block_max[k] = ts;
        }
        if ts < block_min[k] {
            block_min[k] = ts;
        }
    }
}

/// The heads (key and timestamp) of the lines a read passes, to time them:
/// a head may start in one read and end in the next. The line count uses it
/// to time lines as it counts them, `LineIndex::times` (`timeindex.rs`) for lines counted
/// before.
pub(crate) struct Heads {
    /// The key's characters, when timing.
    kc: Option<usize>,
    head: Vec<u8>,
    /// The current line crossed a hole of a sparse file before its head was whole.
    broken: bool,
}

impl Heads {
    pub(crate) fn new(kc: Option<usize>) -> Heads {
        Heads { kc, head: Vec::with_capacity(kc.map_or(0, |k| k + TS_CHARS)), broken: false }
    }

    fn want(&self) -> usize {
        self.kc.map_or(0, |k| k + TS_CHARS)
    }

    /// Bytes of the current line (up to its head's length are kept).
    pub(crate) fn take(&mut self, bytes: &[u8]) {
        let want = self.want();
        if self.head.len() < want {
            let n = (want - self.head.len()).min(bytes.len());
            self.head.extend_from_slice(&bytes[..n]);
        }
    }

    pub(crate) fn broken(&mut self) {
        if self.head.len() < self.want() {
            self.broken = true;
        }
    }

    /// Line `n` ends after `rest`: note its timestamp in its block.
    pub(crate) fn line_ends(&mut self, rest: &[u8], n: u64, block_max: &mut Vec<f64>, block_min: &mut Vec<f64>) {
        let Some(kc) = self.kc else { return };
        // Most lines lie whole in one read: their head is read where it is, not copied.
        if self.head.is_empty() && !self.broken {
            note(line_timestamp(rest, kc), n, block_max, block_min);
            return;
        }
        self.take(rest);
        let ts = if self.broken { None } else { line_timestamp(&self.head, kc) };
        note(ts, n, block_max, block_min);
        self.head.clear();
        self.broken = false;
    }
}
