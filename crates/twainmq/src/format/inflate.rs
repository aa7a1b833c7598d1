//! A fast path for inflating message-sized raw DEFLATE streams made of fixed
//! Huffman and stored blocks: what our encoder writes, and what zlib writes
//! for most short messages. zlib's `inflate` costs more to set up per call
//! than decoding a 100-byte message takes, and consumers call it per message.
//!
//! The fast path declines (returns `None`) anything it does not fully decode:
//! dynamic Huffman blocks, invalid codes, distances before the start, running
//! past the input, bytes left over after the final block, or output over the
//! limit. The caller then inflates with zlib, so zlib alone decides what is
//! corrupt; for a stream the fast path accepts, DEFLATE is deterministic and
//! zlib would produce the same bytes (a property test checks this).

use crate::format::deflate::{fixed_code, reversed, DIST_BASE, DIST_EXTRA, LEN_BASE, LEN_EXTRA};

/// The fixed literal/length code by its next 9 input bits: (symbol, code length).
// Symbols are below 288 and lengths at most 9 (`try_from` is not const).
#[allow(clippy::cast_possible_truncation)]
const fn fixed_litlen_table() -> [(u16, u8); 512] {
    let mut t = [(0u16, 0u8); 512];
    let mut s = 0u32;
    while s < 288 {
        let (code, len) = fixed_code(s);
        let r = reversed(code, len) as usize;
        let mut fill = 0;
        while fill < 1 << (9 - len) {
            t[r | (fill << len)] = (s as u16, len as u8);
            fill += 1;
        }
        s += 1;
    }
    t
}

/// The fixed distance code (5 bits, reversed) to its symbol.
// c < 32 (`try_from` is not const).
#[allow(clippy::cast_possible_truncation)]
const fn fixed_dist_table() -> [u8; 32] {
    let mut t = [0u8; 32];
    let mut c = 0;
    while c < 32 {
        t[reversed(c, 5) as usize] = c as u8;
        c += 1;
    }
    t
}

/// Zero bytes callers append after the stream: refills read 8 bytes and may
/// run up to 7 bytes past the bits consumed.
pub const PADDING: usize = 16;

static LITLEN: [(u16, u8); 512] = fixed_litlen_table();
static DIST: [u8; 32] = fixed_dist_table();

/// Not an 8-bit literal (in [`LIT8`]): 255 is a 9-bit literal, never in that table.
const NOT_LIT8: u8 = 255;

/// The 8-bit literal (0 to 143) whose code is these 8 input bits, or [`NOT_LIT8`]
/// (the bits begin a 7-bit, 9-bit or 8-bit length code).
// Literals are below 144 (`try_from` is not const).
#[allow(clippy::cast_possible_truncation)]
const fn lit8_table() -> [u8; 256] {
    let mut t = [NOT_LIT8; 256];
    let mut s = 0u32;
    while s < 144 {
        let (code, len) = fixed_code(s);
        t[reversed(code, len) as usize] = s as u8;
        s += 1;
    }
    t
}

static LIT8: [u8; 256] = lit8_table();

/// A bit reader that keeps 56 to 63 bits ready and refills without a branch
/// per byte (libdeflate's scheme): re-reading bits it already holds is
/// harmless, because they are the same bits.
struct Bits<'a> {
    input: &'a [u8],
    /// The next byte not yet counted in `n`.
    p: usize,
    buf: u64,
    n: u32,
}

impl Bits<'_> {
    #[inline(always)]
    fn refill(&mut self) -> Option<()> {
        let w = self.input.get(self.p..self.p + 8)?;
        self.buf |= u64::from_le_bytes(w.try_into().ok()?) << self.n;
        self.p += 7 - (self.n as usize >> 3);
        self.n |= 56;
        Some(())
    }
    /// As [`Bits::refill`], declining a stream that has run past its end:
    /// checked at refills only (not per symbol), because past the end the
    /// padding is zeros, which the fixed code reads as end-of-block (7 zero
    /// bits), and the check after the block declines a stream that ran past
    /// its end.
    #[inline(always)]
    fn refill_within(&mut self, end_bit: usize) -> Option<()> {
        self.refill()?;
        (self.position() <= end_bit + 64).then_some(())
    }
    /// The next `bits` bits, not consumed. Callers take the extra bits of a
    /// length or distance: at most 13, so the value is below 2^13.
    #[inline(always)]
    #[allow(clippy::cast_possible_truncation)]
    fn peek(&self, bits: u32) -> usize {
        (self.buf & ((1 << bits) - 1)) as usize
    }
    #[inline(always)]
    fn consume(&mut self, bits: u32) {
        self.buf >>= bits;
        self.n -= bits;
    }
    /// Bits consumed so far.
    fn position(&self) -> usize {
        self.p * 8 - self.n as usize
    }
    fn seek_byte(&mut self, at: usize) {
        self.p = at;
        self.buf = 0;
        self.n = 0;
    }
}

/// Inflate `input[..len]` (a raw DEFLATE stream) onto `out`.
///
/// `input` must have [`PADDING`] bytes after `len` (any value), so that every
/// symbol is read after one 8-byte refill. Returns `None`, with `out` as it
/// was, when the stream is not one this fast path decodes completely.
pub fn fixed_or_stored(input: &[u8], len: usize, out: &mut Vec<u8>, limit: usize) -> Option<()> {
    let start = out.len();
    // Decode into a slice sized up front (writes through a slice do not make
    // the compiler reload a Vec's length after every byte); start again with
    // more room in the rare case that it was too small.
    let mut room = (len * 4 + 64).min(limit);
    loop {
        out.resize(start + room, 0);
        match decode(input, len, &mut out[start..]) {
            Ok(n) => {
                out.truncate(start + n);
                return Some(());
            }
            Err(Fail::NoRoom) if room < limit => room = (room * 4).min(limit),
            Err(_) => {
                out.truncate(start);
                return None;
            }
        }
    }
}

/// As [`fixed_or_stored`], into the front of `buf`, returning the length
/// decoded. `buf` is grown (up to `limit`), never shrunk, so that a decoder
/// reusing it for message after message does not zero it each time; what is
/// past the returned length is left over from before.
pub fn fixed_or_stored_in(input: &[u8], len: usize, buf: &mut Vec<u8>, limit: usize) -> Option<usize> {
    let mut room = (len * 4 + 64).min(limit);
    loop {
        if buf.len() < room {
            buf.resize(room, 0);
        }
        // Never more than `limit`, whatever an earlier message left.
        let avail = buf.len().min(limit.max(room));
        match decode(input, len, &mut buf[..avail]) {
            Ok(n) => return Some(n),
            Err(Fail::NoRoom) if avail < limit => room = (avail * 4).min(limit),
            Err(_) => return None,
        }
    }
}

enum Fail {
    /// Not a stream this path decodes completely.
    Decline,
    /// The output would not fit in the buffer.
    NoRoom,
}

fn decode(input: &[u8], len: usize, buf: &mut [u8]) -> Result<usize, Fail> {
    let end_bit = len * 8;
    let mut b = Bits { input, p: 0, buf: 0, n: 0 };
    let mut o = 0usize;
    loop {
        b.refill().ok_or(Fail::Decline)?;
        if b.position() + 3 > end_bit {
            return Err(Fail::Decline);
        }
        let header = b.buf;
        b.consume(3);
        match (header >> 1) & 3 {
            0 => {
                // Stored: LEN and its complement at the next byte boundary, then the bytes.
                let at = b.position().div_ceil(8);
                let head = input.get(at..at + 4).filter(|_| at + 4 <= len).ok_or(Fail::Decline)?;
                let n = usize::from(u16::from_le_bytes([head[0], head[1]]));
                if n != usize::from(!u16::from_le_bytes([head[2], head[3]])) || at + 4 + n > len {
                    return Err(Fail::Decline);
                }
                let dest = buf.get_mut(o..o + n).ok_or(Fail::NoRoom)?;
                dest.copy_from_slice(&input[at + 4..at + 4 + n]);
                o += n;
                b.seek_byte(at + 4 + n);
            }
            1 => loop {
                // Up to 63 bits are kept ready: a run of 8-bit literals below
                // reads 7 bytes of them, a whole symbol takes at most
                // 9 + 5 + 5 + 13 = 32.
                if b.n < 56 {
                    b.refill_within(end_bit).ok_or(Fail::Decline)?;
                }
                // Text is mostly 8-bit literals (every byte below 144, so all
                // of ASCII), and each of those is the next 8 bits: up to seven
                // are read with lookups independent of each other, not one
                // after another as a symbol's length decides where the next is.
                if let Some(dst) = buf.get_mut(o..o + 8) {
                    let w = b.buf;
                    let mut k = 0u32;
                    while k < 7 {
                        let c = LIT8[((w >> (8 * k)) & 255) as usize];
                        if c == NOT_LIT8 {
                            break;
                        }
                        dst[k as usize] = c;
                        k += 1;
                    }
                    o += k as usize;
                    // k <= 7, so 8k bits <= 56 <= the bits held.
                    b.consume(8 * k);
                    if k == 7 {
                        continue;
                    }
                    if b.n < 32 {
                        b.refill_within(end_bit).ok_or(Fail::Decline)?;
                    }
                }
                let (sym, clen) = LITLEN[(b.buf & 511) as usize];
                b.consume(u32::from(clen));
                // Symbols below 256 are literals.
                if let Ok(lit) = u8::try_from(sym) {
                    // Text is mostly literals: take a second one without a
                    // refill (at least 32 - 9 = 23 bits are left, and a
                    // literal takes at most 9), one loop turn for two bytes.
                    let (sym2, clen2) = LITLEN[(b.buf & 511) as usize];
                    match (u8::try_from(sym2), buf.get_mut(o..o + 2)) {
                        (Ok(lit2), Some(two)) => {
                            two.copy_from_slice(&[lit, lit2]);
                            b.consume(u32::from(clen2));
                            o += 2;
                        }
                        _ => {
                            *buf.get_mut(o).ok_or(Fail::NoRoom)? = lit;
                            o += 1;
                        }
                    }
                    continue;
                }
                if sym == 256 {
                    break;
                }
                let li = usize::from(sym - 257);
                if li >= 29 {
                    return Err(Fail::Decline);
                }
                let eb = u32::from(LEN_EXTRA[li]);
                let n = usize::from(LEN_BASE[li]) + b.peek(eb);
                b.consume(eb);
                let di = usize::from(DIST[(b.buf & 31) as usize]);
                if di >= 30 {
                    return Err(Fail::Decline);
                }
                b.consume(5);
                let deb = u32::from(DIST_EXTRA[di]);
                let dist = usize::from(DIST_BASE[di]) + b.peek(deb);
                b.consume(deb);
                if dist > o {
                    return Err(Fail::Decline);
                }
                if o + n > buf.len() {
                    return Err(Fail::NoRoom);
                }
                let from = o - dist;
                if dist >= 8 && o + n + 8 <= buf.len() {
                    // Eight bytes at a time, each read from bytes already
                    // written (dist >= 8), running up to 7 bytes past the
                    // match's end into room that later output overwrites:
                    // short matches are most, and a call to memmove for each
                    // cost more than the copy.
                    let mut i = 0;
                    while i < n {
                        let mut chunk = [0u8; 8];
                        chunk.copy_from_slice(&buf[from + i..from + i + 8]);
                        buf[o + i..o + i + 8].copy_from_slice(&chunk);
                        i += 8;
                    }
                } else if dist == 1 {
                    let byte = buf[from];
                    buf[o..o + n].fill(byte);
                } else if dist >= n {
                    buf.copy_within(from..from + n, o);
                } else {
                    // An overlapping copy repeats the last `dist` bytes: copy
                    // whole periods, doubling each time (`done` stays a multiple of `dist`).
                    let mut done = 0;
                    while done < n {
                        let k = (o + done - from).min(n - done);
                        buf.copy_within(from..from + k, o + done);
                        done += k;
                    }
                }
                o += n;
            },
            _ => return Err(Fail::Decline),
        }
        if b.position() > end_bit {
            return Err(Fail::Decline);
        }
        if header & 1 == 1 {
            break;
        }
    }
    // Bytes after the final block: let zlib judge the stream.
    if b.position().div_ceil(8) == len {
        Ok(o)
    } else {
        Err(Fail::Decline)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use flate2::{Compress, Compression, Decompress, FlushCompress, FlushDecompress, Status};
    use proptest::prelude::*;

    fn fast(data: &[u8]) -> Option<Vec<u8>> {
        let mut input = data.to_vec();
        input.extend_from_slice(&[0; PADDING]);
        let mut out = Vec::new();
        fixed_or_stored(&input, data.len(), &mut out, 1 << 20).map(|()| out)
    }

    /// zlib's verdict: the output when the stream ends, or None.
    fn zlib(data: &[u8]) -> Option<Vec<u8>> {
        let mut d = Decompress::new(false);
        let mut out = Vec::with_capacity(1 << 21);
        match d.decompress_vec(data, &mut out, FlushDecompress::Finish) {
            Ok(Status::StreamEnd) => Some(out),
            _ => None,
        }
    }

    fn zlib_deflate(data: &[u8], level: u32) -> Vec<u8> {
        let mut c = Compress::new(Compression::new(level), false);
        let mut out = Vec::with_capacity(data.len() * 2 + 64);
        let status = c.compress_vec(data, &mut out, FlushCompress::Finish).expect("zlib compresses");
        assert_eq!(status, Status::StreamEnd);
        out
    }

    #[test]
    fn decodes_our_encoder_and_zlibs_fixed_blocks() {
        let mut enc = crate::format::deflate::FastDeflate::default();
        for data in [&b""[..], b"a", b"message 1 message 2 message 3", &[0u8; 5000], &[7u8; 300]] {
            let mut z = Vec::new();
            enc.compress(data, &mut z);
            assert_eq!(fast(&z).as_deref(), Some(data));
        }
        // zlib picks fixed codes for short text; level 0 stores.
        for level in [0, 1, 6, 9] {
            let z = zlib_deflate(b"hello hello hello, a short message", level);
            assert_eq!(fast(&z).as_deref(), Some(&b"hello hello hello, a short message"[..]));
        }
    }

    #[test]
    fn declines_what_it_does_not_fully_decode() {
        let mut z = zlib_deflate(b"some text", 6);
        z.push(0); // a byte after the final block
        assert_eq!(fast(&z), None);
        z.pop();
        z.pop(); // cut short
        assert_eq!(fast(&z), None);
        assert_eq!(fast(&[0b101]), None); // dynamic block header
        assert_eq!(fast(&[]), None);
        // A match (length 3, distance 1) before any output: final fixed block,
        // symbol 257 (7 bits), distance code 0 (5 bits), end of block (7 bits).
        let bits: u32 = 0b011 | reversed(1, 7) << 3;
        let bytes = bits.to_le_bytes();
        assert_eq!(fast(&bytes[..3]), None);
        assert_eq!(zlib(&bytes[..3]), None);
    }

    #[test]
    fn the_reusing_form_decodes_as_the_appending_form_whatever_the_buffer_held() {
        let mut enc = crate::format::deflate::FastDeflate::default();
        let mut buf = vec![0xAA; 10];
        for data in [&b"a much longer message, a much longer message, with more in it"[..], b"short", b"", &[9u8; 3000]] {
            let mut z = Vec::new();
            enc.compress(data, &mut z);
            z.extend_from_slice(&[0; PADDING]);
            let n = fixed_or_stored_in(&z, z.len() - PADDING, &mut buf, 1 << 20).expect("decodes");
            assert_eq!(&buf[..n], data);
        }
        // The limit holds even when the buffer is already larger.
        let mut z = Vec::new();
        enc.compress(&[1u8; 2000], &mut z);
        z.extend_from_slice(&[0; PADDING]);
        assert_eq!(fixed_or_stored_in(&z, z.len() - PADDING, &mut buf, 1000), None);
    }

    proptest! {
        #[test]
        fn agrees_with_zlib_on_encoder_output(data in proptest::collection::vec(prop_oneof![Just(b'a'), Just(b'b'), any::<u8>()], 0..2000), level in 0u32..10) {
            let mut enc = crate::format::deflate::FastDeflate::default();
            let mut z = Vec::new();
            enc.compress(&data, &mut z);
            prop_assert_eq!(fast(&z), Some(data.clone()));
            let z = zlib_deflate(&data, level);
            if let Some(out) = fast(&z) {
                prop_assert_eq!(out, data);
            }
        }

        /// Text: runs of 8-bit literals longer and shorter than the seven
        /// read at once, 9-bit literals (`é`), and matches at distances 1,
        /// under 8 and over 8, decoded with room to spare and with a buffer
        /// of exactly the output's size (where copies cannot run past a
        /// match's end and runs cannot be read 8 bytes at a time).
        #[test]
        fn text_decodes_as_written_with_or_without_room_to_spare(
            words in proptest::collection::vec(proptest::sample::select(vec![
                "the ", "DE", "\"country\":\"", "nnnnnnnnnnnnnnnnnnnnnnnnnnnnnnn", "{\"id\":", "é", "abab", "0123456789abcdef0123", "\n",
            ]), 0..120),
            level in 0u32..10,
        ) {
            let data: Vec<u8> = words.concat().into_bytes();
            let mut enc = crate::format::deflate::FastDeflate::default();
            let mut z = Vec::new();
            enc.compress(&data, &mut z);
            let zl = zlib_deflate(&data, level);
            for stream in [z, zl] {
                let mut input = stream.clone();
                input.extend_from_slice(&[0; PADDING]);
                for limit in [1 << 20, data.len()] {
                    let mut out = Vec::new();
                    if fixed_or_stored(&input, stream.len(), &mut out, limit).is_some() {
                        prop_assert_eq!(&out, &data);
                    } else {
                        // Declined only for a dynamic block (zlib's choice for longer text), never for ours.
                        prop_assert_eq!(zlib(&stream), Some(data.clone()));
                    }
                }
            }
            let mut z = Vec::new();
            enc.compress(&data, &mut z);
            prop_assert_eq!(fast(&z), Some(data));
        }

        #[test]
        fn damaged_streams_decode_as_zlib_decodes_them(data in proptest::collection::vec(prop_oneof![Just(b'x'), any::<u8>()], 1..300), at in any::<usize>(), flip in 1u8..=255) {
            let mut enc = crate::format::deflate::FastDeflate::default();
            let mut z = Vec::new();
            enc.compress(&data, &mut z);
            let i = at % z.len();
            z[i] ^= flip;
            if let Some(out) = fast(&z) {
                prop_assert_eq!(Some(out), zlib(&z));
            }
        }

        #[test]
        fn accepts_garbage_only_where_zlib_agrees(data in proptest::collection::vec(any::<u8>(), 0..64)) {
            if let Some(out) = fast(&data) {
                prop_assert_eq!(Some(out), zlib(&data));
            }
        }
    }
}
