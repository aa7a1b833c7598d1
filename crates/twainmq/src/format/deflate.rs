//! A small, allocation-free raw DEFLATE encoder for message-sized inputs.
//!
//! zlib spends most of a 100-byte message's time clearing its 64 KiB hash
//! table on every reset. This encoder never clears its table: an entry left by
//! an earlier message is only a candidate position, used when it is behind the
//! current one and its bytes match, so a stale entry costs one comparison and
//! can never produce a wrong match. Greedy LZ77 with one candidate per 4-byte
//! hash, emitted as one fixed-Huffman block, or a stored block when that is
//! smaller. Any inflater decodes it (0.2.3 uses zlib's); it is not
//! byte-identical to zlib's level 6, which [`crate::format::line::Codec`] still uses
//! when asked for 0.2.3's exact bytes or when this output would not fit a line.

const HASH_BITS: u32 = 12;
const MIN_MATCH: usize = 4;
const MAX_MATCH: usize = 258;
const MAX_DIST: usize = 32768;
/// Inputs longer than this go to zlib (positions are kept in 16 bits).
pub const MAX_INPUT: usize = 65535;

/// Reusable encoder state.
pub struct FastDeflate {
    /// Last position seen per hash, possibly from an earlier input.
    table: Box<[u16; 1 << HASH_BITS]>,
}

impl Default for FastDeflate {
    fn default() -> Self {
        FastDeflate { table: Box::new([0; 1 << HASH_BITS]) }
    }
}

/// A bit writer over a buffer sized for the worst case up front, so there is
/// no capacity check on the hot path. It stores whole 32-bit words at
/// 4-aligned positions: base85 then reads the output in 4-byte hunks, and a
/// load that matches exactly one earlier store is forwarded from it instead of
/// stalling until the stores retire.
struct Bits<'a> {
    buf: &'a mut [u8],
    pos: usize,
    acc: u64,
    n: u32,
}

impl Bits<'_> {
    /// Queue `bits` bits (LSB first). Callers keep fewer than 32 queued
    /// between symbols (`word`), so up to 32 more always fit.
    #[inline(always)]
    fn put(&mut self, value: u32, bits: u32) {
        self.acc |= u64::from(value) << self.n;
        self.n += bits;
    }
    /// Store a full word, if one is queued.
    #[inline(always)]
    fn word(&mut self) {
        if self.n >= 32 {
            self.buf[self.pos..self.pos + 4].copy_from_slice(&self.acc.to_le_bytes()[..4]);
            self.pos += 4;
            self.acc >>= 32;
            self.n -= 32;
        }
    }
    /// Bytes used, counting a last partial byte.
    fn finish(mut self) -> usize {
        self.word();
        let tail = self.n.div_ceil(8) as usize;
        self.buf[self.pos..self.pos + tail].copy_from_slice(&self.acc.to_le_bytes()[..tail]);
        self.pos + tail
    }
}

/// A Huffman code as DEFLATE stores it: most significant bit first.
pub(crate) const fn reversed(code: u32, bits: u32) -> u32 {
    code.reverse_bits() >> (32 - bits)
}

/// The fixed Huffman code of a literal/length symbol (RFC 1951 3.2.6), most
/// significant bit first, and its length. Shared with [`crate::format::inflate`].
pub(crate) const fn fixed_code(sym: u32) -> (u32, u32) {
    match sym {
        0..=143 => (0x30 + sym, 8),
        144..=255 => (0x190 + sym - 144, 9),
        256..=279 => (sym - 256, 7),
        _ => (0xC0 + sym - 280, 8),
    }
}

/// The fixed Huffman code of each literal/length symbol, reversed, and its length.
// Codes are at most 9 bits and lengths at most 9, so both fit (`try_from` is not const).
#[allow(clippy::cast_possible_truncation)]
const fn fixed_litlen() -> ([u16; 288], [u8; 288]) {
    let mut code = [0u16; 288];
    let mut len = [0u8; 288];
    let mut s = 0;
    while s < 288 {
        let (c, l) = fixed_code(s);
        code[s as usize] = reversed(c, l) as u16;
        len[s as usize] = l as u8;
        s += 1;
    }
    (code, len)
}

const LITLEN: ([u16; 288], [u8; 288]) = fixed_litlen();

/// Length and distance bases and extra bits (RFC 1951 3.2.5), shared with [`crate::format::inflate`].
pub(crate) const LEN_BASE: [u16; 29] =
    [3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258];
pub(crate) const LEN_EXTRA: [u8; 29] = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0];
pub(crate) const DIST_BASE: [u16; 30] = [
    1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385,
    24577,
];
pub(crate) const DIST_EXTRA: [u8; 30] = [0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13];

/// For each match length 0..=258: its symbol's code followed by its extra
/// bits, as one value, and the total bit count (lengths below 3 are unused).
// A code of at most 8 bits below at most 5 extra bits is under 2^13, and
// len - base < 32: all fit (`try_from` is not const).
#[allow(clippy::cast_possible_truncation)]
const fn length_codes() -> ([u16; 259], [u8; 259]) {
    let mut value = [0u16; 259];
    let mut bits = [0u8; 259];
    let mut li = 0;
    while li < 29 {
        let sym = 257 + li;
        let (code, clen) = (LITLEN.0[sym] as u32, LITLEN.1[sym] as u32);
        let mut len = LEN_BASE[li] as usize;
        let last = if li == 28 { 258 } else { LEN_BASE[li + 1] as usize - 1 };
        while len <= last {
            value[len] = (code | (((len - LEN_BASE[li] as usize) as u32) << clen)) as u16;
            bits[len] = (clen + LEN_EXTRA[li] as u32) as u8;
            len += 1;
        }
        li += 1;
    }
    (value, bits)
}

const LENGTHS: ([u16; 259], [u8; 259]) = length_codes();

#[inline(always)]
fn literal(b: &mut Bits, lit: u8) {
    b.put(u32::from(LITLEN.0[usize::from(lit)]), u32::from(LITLEN.1[usize::from(lit)]));
    b.word();
}

#[inline(always)]
fn matched(b: &mut Bits, len: usize, dist: usize) {
    // Fewer than 32 queued, plus at most 31 for the match.
    b.put(u32::from(LENGTHS.0[len]), u32::from(LENGTHS.1[len]));
    // Distance codes: 0-3 for 1-4, then two codes per power of two.
    // 1 <= dist <= MAX_DIST (32768), checked by the caller.
    #[allow(clippy::cast_possible_truncation)]
    let d = (dist - 1) as u32;
    let (code, extra_bits, extra) = if d < 4 {
        (d, 0, 0)
    } else {
        let l = 31 - d.leading_zeros();
        (2 * l + ((d >> (l - 1)) & 1), l - 1, d & ((1 << (l - 1)) - 1))
    };
    b.put(reversed(code, 5), 5);
    b.put(extra, extra_bits);
    b.word();
}

#[inline]
fn hash(v: u32) -> usize {
    (v.wrapping_mul(2_654_435_761) >> (32 - HASH_BITS)) as usize
}

#[inline(always)]
fn load32(data: &[u8], i: usize) -> u32 {
    // One bounds check and one load (the slice is always 4 long).
    u32::from_le_bytes(data[i..i + 4].try_into().unwrap_or([0; 4]))
}

/// How many bytes from `a` and `b` on agree, up to `max` (8 at a time).
#[inline(always)]
fn match_len(data: &[u8], a: usize, b: usize, mut len: usize, max: usize) -> usize {
    while len + 8 <= max {
        let x = u64::from_le_bytes(data[a + len..a + len + 8].try_into().unwrap_or([0; 8]))
            ^ u64::from_le_bytes(data[b + len..b + len + 8].try_into().unwrap_or([0; 8]));
        if x != 0 {
            return len + (x.trailing_zeros() / 8) as usize;
        }
        len += 8;
    }
    while len < max && data[a + len] == data[b + len] {
        len += 1;
    }
    len
}

impl FastDeflate {
    /// Append a complete raw DEFLATE stream of `data` to `out`.
    /// `data` must be at most [`MAX_INPUT`] bytes (longer input is stored uncompressed in several blocks).
    pub fn compress(&mut self, data: &[u8], out: &mut Vec<u8>) {
        let start = out.len();
        if data.len() <= MAX_INPUT {
            // Worst case: 9 bits per literal, the header and end code, and 8 bytes of slack for the last flush.
            out.resize(start + data.len() + data.len() / 8 + 16, 0);
            let used = self.fixed_block(data, &mut out[start..]);
            out.truncate(start + used);
            // Compressing never pays for incompressible data: a stored block costs 5 bytes.
            if used <= data.len() + 5 {
                return;
            }
            out.truncate(start);
        }
        append_stored(data, out);
    }

    fn fixed_block(&mut self, data: &[u8], buf: &mut [u8]) -> usize {
        let mut b = Bits { buf, pos: 0, acc: 0, n: 0 };
        b.put(0b011, 3); // BFINAL, then BTYPE = 01: fixed Huffman
        let mut i = 0;
        let end = data.len();
        while i + MIN_MATCH <= end {
            let here = load32(data, i);
            let h = hash(here);
            let cand = usize::from(self.table[h]);
            // i < data.len() <= MAX_INPUT = u16::MAX: `compress` sends only such inputs here.
            #[allow(clippy::cast_possible_truncation)]
            let pos = i as u16;
            self.table[h] = pos;
            // A candidate at or after `i` is stale (left by an earlier input).
            if cand < i && i - cand <= MAX_DIST && load32(data, cand) == here {
                let dist = i - cand;
                let len = match_len(data, cand, i, 4, (end - i).min(MAX_MATCH));
                matched(&mut b, len, dist);
                // Index a few positions inside the match for later matches.
                let stop = (i + len).min(end.saturating_sub(MIN_MATCH - 1));
                let mut j = i + 1;
                while j < stop && j < i + 8 {
                    // j < stop <= data.len() <= u16::MAX, as for `pos`.
                    #[allow(clippy::cast_possible_truncation)]
                    let pos = j as u16;
                    self.table[hash(load32(data, j))] = pos;
                    j += 1;
                }
                i += len;
                continue;
            }
            literal(&mut b, data[i]);
            i += 1;
        }
        while i < end {
            literal(&mut b, data[i]);
            i += 1;
        }
        b.put(u32::from(LITLEN.0[256]), u32::from(LITLEN.1[256]));
        b.finish()
    }
}

/// `data` as a raw deflate stream of stored blocks (what a part line's blob holds).
pub fn stored(data: &[u8], out: &mut Vec<u8>) {
    out.clear();
    append_stored(data, out);
}

/// Stored (uncompressed) blocks.
fn append_stored(data: &[u8], out: &mut Vec<u8>) {
    let mut chunks = data.chunks(65535).peekable();
    if chunks.peek().is_none() {
        out.extend_from_slice(&[1, 0, 0, 0xFF, 0xFF]);
        return;
    }
    while let Some(c) = chunks.next() {
        out.push(u8::from(chunks.peek().is_none()));
        // Chunks of at most 65535 bytes.
        #[allow(clippy::cast_possible_truncation)]
        let len = c.len() as u16;
        out.extend_from_slice(&len.to_le_bytes());
        out.extend_from_slice(&(!len).to_le_bytes());
        out.extend_from_slice(c);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn inflate(data: &[u8]) -> Vec<u8> {
        let mut d = flate2::Decompress::new(false);
        let mut out = Vec::with_capacity(data.len() * 8 + 1024);
        loop {
            let before = usize::try_from(d.total_in()).expect("within the input");
            match d.decompress_vec(&data[before..], &mut out, flate2::FlushDecompress::Finish).expect("valid deflate") {
                flate2::Status::StreamEnd => return out,
                _ => out.reserve(out.capacity()),
            }
        }
    }

    fn roundtrip(enc: &mut FastDeflate, data: &[u8]) {
        let mut out = Vec::new();
        enc.compress(data, &mut out);
        assert_eq!(inflate(&out), data);
    }

    #[test]
    fn known_inputs() {
        let mut e = FastDeflate::default();
        for d in [&b""[..], b"a", b"aaaa", b"abcabcabcabcabcabc", &[0u8; 70_000], &[7u8; 300], b"message 1 message 2 message 3"] {
            roundtrip(&mut e, d);
        }
        let mut out = Vec::new();
        e.compress(&[b'x'; 1000], &mut out);
        assert!(out.len() < 20, "runs compress: {}", out.len());
    }

    #[test]
    fn entries_left_by_earlier_inputs_never_corrupt_output() {
        let mut e = FastDeflate::default();
        let mut out = Vec::new();
        for i in 0..70_000u32 {
            let data = format!("payload {i} payload {}", i % 7);
            out.clear();
            e.compress(data.as_bytes(), &mut out);
            // A sample (inflating every one is slow in debug builds).
            if i % 101 == 0 || (65_530..65_545).contains(&i) {
                assert_eq!(inflate(&out), data.as_bytes());
            }
        }
    }

    proptest! {
        #[test]
        fn round_trips(data in proptest::collection::vec(prop_oneof![Just(b'a'), Just(b'b'), any::<u8>()], 0..3000)) {
            let mut e = FastDeflate::default();
            roundtrip(&mut e, &data);
            roundtrip(&mut e, &data);
        }
    }
}
