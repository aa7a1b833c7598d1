//! A small, allocation-free raw DEFLATE encoder for message-sized inputs.
//!
//! zlib spends most of a 100-byte message's time clearing its 64 KiB hash
//! table on every reset. This encoder keys its table by a generation number
//! instead, so nothing is cleared per message: greedy LZ77 with one candidate
//! per 4-byte hash, emitted as one fixed-Huffman block, or a stored block when
//! that is smaller. Any inflater decodes it (0.2.3 uses zlib's); it is not
//! byte-identical to zlib's level 6, which [`crate::line::Codec`] still uses
//! when asked for 0.2.3's exact bytes or when this output would not fit a line.

const HASH_BITS: u32 = 12;
const MIN_MATCH: usize = 4;
const MAX_MATCH: usize = 258;
const MAX_DIST: usize = 32768;
/// Inputs longer than this go to zlib (positions are kept in 16 bits).
pub const MAX_INPUT: usize = 65535;

/// Reusable encoder state.
pub struct FastDeflate {
    table: Box<[u32; 1 << HASH_BITS]>,
    generation: u32,
}

impl Default for FastDeflate {
    fn default() -> Self {
        FastDeflate { table: Box::new([0; 1 << HASH_BITS]), generation: 0 }
    }
}

struct Bits<'a> {
    out: &'a mut Vec<u8>,
    acc: u64,
    n: u32,
}

impl Bits<'_> {
    #[inline]
    fn put(&mut self, value: u32, bits: u32) {
        self.acc |= u64::from(value) << self.n;
        self.n += bits;
        while self.n >= 8 {
            self.out.push(self.acc as u8);
            self.acc >>= 8;
            self.n -= 8;
        }
    }
    /// A Huffman code, which DEFLATE stores most significant bit first.
    #[inline]
    fn code(&mut self, code: u32, bits: u32) {
        self.put(code.reverse_bits() >> (32 - bits), bits);
    }
    fn finish(mut self) {
        if self.n > 0 {
            self.out.push(self.acc as u8);
            self.n = 0;
        }
    }
}

#[inline]
fn literal(b: &mut Bits, lit: u8) {
    match lit {
        0..=143 => b.code(0x30 + u32::from(lit), 8),
        _ => b.code(0x190 + u32::from(lit) - 144, 9),
    }
}

#[inline]
fn symbol(b: &mut Bits, sym: u32) {
    match sym {
        256..=279 => b.code(sym - 256, 7),
        _ => b.code(0xC0 + sym - 280, 8),
    }
}

const LEN_BASE: [u16; 29] =
    [3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258];
const LEN_EXTRA: [u8; 29] = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0];
const DIST_BASE: [u16; 30] = [
    1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385,
    24577,
];
const DIST_EXTRA: [u8; 30] = [0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13];

#[inline]
fn matched(b: &mut Bits, len: usize, dist: usize) {
    let li = LEN_BASE.partition_point(|&x| usize::from(x) <= len) - 1;
    symbol(b, 257 + li as u32);
    b.put((len - usize::from(LEN_BASE[li])) as u32, u32::from(LEN_EXTRA[li]));
    let di = DIST_BASE.partition_point(|&x| usize::from(x) <= dist) - 1;
    b.code(di as u32, 5);
    b.put((dist - usize::from(DIST_BASE[di])) as u32, u32::from(DIST_EXTRA[di]));
}

#[inline]
fn hash(v: u32) -> usize {
    (v.wrapping_mul(2_654_435_761) >> (32 - HASH_BITS)) as usize
}

impl FastDeflate {
    /// Append a complete raw DEFLATE stream of `data` to `out`.
    /// `data` must be at most [`MAX_INPUT`] bytes (longer input is stored uncompressed in several blocks).
    pub fn compress(&mut self, data: &[u8], out: &mut Vec<u8>) {
        let start = out.len();
        if data.len() <= MAX_INPUT {
            self.fixed_block(data, out);
            // Compressing never pays for incompressible data: a stored block costs 5 bytes.
            if out.len() - start <= data.len() + 5 {
                return;
            }
            out.truncate(start);
        }
        stored(data, out);
    }

    fn fixed_block(&mut self, data: &[u8], out: &mut Vec<u8>) {
        self.generation = self.generation.wrapping_add(1) & 0xFFFF;
        if self.generation == 0 {
            self.table.fill(0);
            self.generation = 1;
        }
        let gen = self.generation << 16;
        out.reserve(data.len() + data.len() / 8 + 8);
        let mut b = Bits { out, acc: 0, n: 0 };
        b.put(1, 1); // BFINAL
        b.put(1, 2); // BTYPE = fixed Huffman
        let mut i = 0;
        let end = data.len();
        while i + MIN_MATCH <= end {
            let v = u32::from_le_bytes([data[i], data[i + 1], data[i + 2], data[i + 3]]);
            let h = hash(v);
            let entry = self.table[h];
            self.table[h] = gen | i as u32;
            if entry & 0xFFFF_0000 == gen {
                let cand = (entry & 0xFFFF) as usize;
                let dist = i - cand;
                if dist <= MAX_DIST && data[cand..cand + 4] == data[i..i + 4] {
                    let max = (end - i).min(MAX_MATCH);
                    let mut len = 4;
                    while len < max && data[cand + len] == data[i + len] {
                        len += 1;
                    }
                    matched(&mut b, len, dist);
                    // Index a few positions inside the match for later matches.
                    let stop = (i + len).min(end.saturating_sub(MIN_MATCH - 1));
                    let mut j = i + 1;
                    while j < stop && j < i + 8 {
                        let v = u32::from_le_bytes([data[j], data[j + 1], data[j + 2], data[j + 3]]);
                        self.table[hash(v)] = gen | j as u32;
                        j += 1;
                    }
                    i += len;
                    continue;
                }
            }
            literal(&mut b, data[i]);
            i += 1;
        }
        while i < end {
            literal(&mut b, data[i]);
            i += 1;
        }
        symbol(&mut b, 256);
        b.finish();
    }
}

/// Stored (uncompressed) blocks.
fn stored(data: &[u8], out: &mut Vec<u8>) {
    let mut chunks = data.chunks(65535).peekable();
    if chunks.peek().is_none() {
        out.extend_from_slice(&[1, 0, 0, 0xFF, 0xFF]);
        return;
    }
    while let Some(c) = chunks.next() {
        out.push(u8::from(chunks.peek().is_none()));
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
            let before = d.total_in() as usize;
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
    fn generations_wrap_without_stale_matches() {
        let mut e = FastDeflate::default();
        let mut out = Vec::new();
        for i in 0..70_000u32 {
            let data = format!("payload {i} payload {}", i % 7);
            out.clear();
            e.compress(data.as_bytes(), &mut out);
            // Check around the wrap, and a sample elsewhere (inflating every one is slow in debug builds).
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
