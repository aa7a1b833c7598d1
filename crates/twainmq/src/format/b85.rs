//! Base85 with RFC 1924's alphabet and Python `base64.b85encode` padding.
//!
//! We keep our own codec rather than the `base85` crate because decoding
//! untrusted lines must reject, not overflow on, a hunk whose value exceeds
//! `u32::MAX` (that crate's arithmetic overflows there), and because the hot
//! paths encode into and decode from caller-owned buffers without allocating.
//! A property test checks that we encode exactly like `base85` 2.

const ALPHABET: &[u8; 85] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz!#$%&()*+-;<=>?@^_`{|}~";

const INVALID: u8 = 0xFF;

// i < 85 fits a u8 (`u8::try_from` is not const).
#[allow(clippy::cast_possible_truncation)]
const fn reverse_table() -> [u8; 256] {
    let mut t = [INVALID; 256];
    let mut i = 0;
    while i < 85 {
        t[ALPHABET[i] as usize] = i as u8;
        i += 1;
    }
    t
}

static REVERSE: [u8; 256] = reverse_table();

/// Why a base85 string could not be decoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum B85Error {
    /// A byte outside the alphabet.
    BadChar {
        /// Its position in the text, from 0.
        index: usize,
        /// The byte.
        byte: u8,
    },
    /// A 5-character hunk encodes more than 32 bits.
    Overflow {
        /// Position of the hunk's first character, from 0.
        index: usize,
    },
    /// The length leaves one dangling character, which no input encodes to
    /// (or, decoding into a fixed buffer, the text decodes to more bytes than
    /// it holds, or to other than the 8 bytes of a timestamp).
    BadLength {
        /// The text's length in characters.
        len: usize,
    },
}

impl std::fmt::Display for B85Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            B85Error::BadChar { index, byte } => {
                write!(f, "byte 0x{byte:02x} at {index} is not a base85 character")
            }
            B85Error::Overflow { index } => write!(f, "base85 hunk at {index} overflows 32 bits"),
            B85Error::BadLength { len } => write!(f, "{len} base85 characters cannot be decoded"),
        }
    }
}

/// Number of characters `n` input bytes encode to: `ceil(5n/4)`.
pub const fn encoded_len(n: usize) -> usize {
    (n * 5).div_ceil(4)
}

/// Append the encoding of `data` to `out`.
pub fn encode_into(data: &[u8], out: &mut Vec<u8>) {
    let start = out.len();
    let full = data.len() / 4;
    // Size the output once and fill it in place: no capacity check per hunk.
    out.resize(start + full * 5, 0);
    for (c, o) in data.chunks_exact(4).zip(out[start..].chunks_exact_mut(5)) {
        let v = u32::from_be_bytes([c[0], c[1], c[2], c[3]]);
        let (hi, lo) = (v / 7225, (v % 7225) as usize);
        o[0] = ALPHABET[(hi / 7225) as usize];
        o[1..3].copy_from_slice(&PAIRS[(hi % 7225) as usize]);
        o[3..5].copy_from_slice(&PAIRS[lo]);
    }
    let rem = &data[full * 4..];
    if !rem.is_empty() {
        let mut buf = [0u8; 4];
        buf[..rem.len()].copy_from_slice(rem);
        out.extend_from_slice(&hunk_digits(u32::from_be_bytes(buf))[..rem.len() + 1]);
    }
}

/// Every pair of digits, so a hunk takes two divisions by 7225 instead of four by 85.
const fn digit_pairs() -> [[u8; 2]; 7225] {
    let mut t = [[0u8; 2]; 7225];
    let mut i = 0;
    while i < 7225 {
        t[i] = [ALPHABET[i / 85], ALPHABET[i % 85]];
        i += 1;
    }
    t
}

static PAIRS: [[u8; 2]; 7225] = digit_pairs();

#[inline(always)]
fn hunk_digits(v: u32) -> [u8; 5] {
    let (hi, lo) = (v / 7225, (v % 7225) as usize);
    let (top, mid) = ((hi / 7225) as usize, (hi % 7225) as usize);
    // top <= u32::MAX / 85^4 = 82.
    let [a, b] = PAIRS[mid];
    let [c, d] = PAIRS[lo];
    [ALPHABET[top], a, b, c, d]
}

/// Encode `data` to a `String`.
pub fn encode(data: &[u8]) -> String {
    let mut out = Vec::with_capacity(encoded_len(data.len()));
    encode_into(data, &mut out);
    // The alphabet is ASCII, so the bytes are valid UTF-8.
    out.into_iter().map(char::from).collect()
}

/// Append the decoding of `text` to `out`.
///
/// # Errors
/// [`B85Error`] when `text` is not a valid padded base85 string; `out` may then
/// hold a partial result, which callers discard.
pub fn decode_into(text: &[u8], out: &mut Vec<u8>) -> Result<(), B85Error> {
    if text.len() % 5 == 1 {
        return Err(B85Error::BadLength { len: text.len() });
    }
    let start = out.len();
    let full = text.len() / 5;
    out.resize(start + full * 4, 0);
    for (h, (c, o)) in text.chunks_exact(5).zip(out[start..].chunks_exact_mut(4)).enumerate() {
        let v = decode_hunk(c, h * 5)?;
        o.copy_from_slice(&v.to_be_bytes());
    }
    let rem = &text[full * 5..];
    if !rem.is_empty() {
        // Python pads a short final hunk with the highest digit.
        let mut hunk = [b'~'; 5];
        hunk[..rem.len()].copy_from_slice(rem);
        let v = decode_hunk(&hunk, full * 5)?;
        out.extend_from_slice(&v.to_be_bytes()[..rem.len() - 1]);
    }
    Ok(())
}

/// Decode a short `text` into the front of `out`, returning how many bytes it
/// decoded to: the allocation-free path for keys and timestamps.
///
/// # Errors
/// [`B85Error`] as for [`decode_into`]; `BadLength` too when `out` is too small.
pub fn decode_to_slice(text: &[u8], out: &mut [u8]) -> Result<usize, B85Error> {
    if text.len() % 5 == 1 {
        return Err(B85Error::BadLength { len: text.len() });
    }
    let len = text.len() / 5 * 4 + (text.len() % 5).saturating_sub(1);
    if len > out.len() {
        return Err(B85Error::BadLength { len: text.len() });
    }
    let full = text.len() / 5;
    for (h, (c, o)) in text.chunks_exact(5).zip(out.chunks_exact_mut(4)).enumerate() {
        o.copy_from_slice(&decode_hunk(c, h * 5)?.to_be_bytes());
    }
    let rem = &text[full * 5..];
    if !rem.is_empty() {
        let mut hunk = [b'~'; 5];
        hunk[..rem.len()].copy_from_slice(rem);
        let v = decode_hunk(&hunk, full * 5)?.to_be_bytes();
        out[full * 4..len].copy_from_slice(&v[..rem.len() - 1]);
    }
    Ok(len)
}

/// Decode exactly one hunk (5 characters) to a `u32`, big-endian: a `u32`
/// key, on every line of a key filter's scan.
///
/// # Errors
/// [`B85Error`] as for [`decode_into`]; `BadLength` when `text` is not 5 characters.
#[inline]
pub fn decode_u32(text: &[u8]) -> Result<u32, B85Error> {
    match text.get(..5).filter(|_| text.len() == 5) {
        Some(t) => decode_hunk(t, 0),
        None => Err(B85Error::BadLength { len: text.len() }),
    }
}

/// Decode exactly two hunks (10 characters) to a `u64`, big-endian: the
/// timestamp of every line, read once per line by counts, time indexes and
/// scans, without the general decoder's loop.
///
/// # Errors
/// [`B85Error`] as for [`decode_into`]; `BadLength` when `text` is not 10 characters.
#[inline]
pub fn decode_u64(text: &[u8]) -> Result<u64, B85Error> {
    let Some(t) = text.get(..10).filter(|_| text.len() == 10) else { return Err(B85Error::BadLength { len: text.len() }) };
    let hi = decode_hunk(&t[..5], 0)?;
    let lo = decode_hunk(&t[5..], 5)?;
    Ok(u64::from(hi) << 32 | u64::from(lo))
}

/// One 5-character hunk. Valid digits are below 0x80 and `INVALID` is not, so
/// one test of the OR of the five looks-ups rejects any bad character.
#[inline(always)]
fn decode_hunk(c: &[u8], index: usize) -> Result<u32, B85Error> {
    let d = [REVERSE[c[0] as usize], REVERSE[c[1] as usize], REVERSE[c[2] as usize], REVERSE[c[3] as usize], REVERSE[c[4] as usize]];
    if (d[0] | d[1] | d[2] | d[3] | d[4]) & 0x80 != 0 {
        let i = d.iter().position(|&x| x == INVALID).unwrap_or(0);
        // A padding '~' is never invalid, so the index is within the text.
        return Err(B85Error::BadChar { index: index + i, byte: c[i] });
    }
    let acc = u64::from(d[0]) * 52_200_625 + u64::from(d[1]) * 614_125 + u64::from(d[2]) * 7225 + u64::from(d[3]) * 85 + u64::from(d[4]);
    u32::try_from(acc).map_err(|_| B85Error::Overflow { index })
}

/// Decode `text` into a new vector.
///
/// # Errors
/// [`B85Error`] when `text` is not valid base85.
pub fn decode(text: &[u8]) -> Result<Vec<u8>, B85Error> {
    let mut out = Vec::new();
    decode_into(text, &mut out)?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn known_values() {
        assert_eq!(encode(b""), "");
        assert_eq!(encode(b"a"), "VE");
        assert_eq!(encode(b"aaaaa"), "VPRomVE");
        assert_eq!(decode(b"VPRomVE").expect("valid"), b"aaaaa");
        assert_eq!(encode(&[0xff; 4]), "|NsC0");
    }

    #[test]
    fn rejects_bad_input() {
        assert_eq!(decode(b"V"), Err(B85Error::BadLength { len: 1 }));
        assert_eq!(decode(b"VE\"x"), Err(B85Error::BadChar { index: 2, byte: b'"' }));
        assert_eq!(decode(b"~~~~~"), Err(B85Error::Overflow { index: 0 }));
        assert!(decode(b"|NsC1").is_err());
    }

    proptest! {
        #[test]
        fn matches_base85_crate(data in proptest::collection::vec(any::<u8>(), 0..64)) {
            prop_assert_eq!(encode(&data), base85::encode(&data));
        }

        #[test]
        fn round_trips(data in proptest::collection::vec(any::<u8>(), 0..64)) {
            let text = encode(&data);
            prop_assert_eq!(text.len(), encoded_len(data.len()));
            prop_assert_eq!(decode(text.as_bytes()).expect("own encoding decodes"), data.clone());
            let mut buf = [0u8; 64];
            let n = decode_to_slice(text.as_bytes(), &mut buf).expect("own encoding decodes");
            prop_assert_eq!(&buf[..n], &data[..]);
        }

        #[test]
        fn decode_never_panics(text in proptest::collection::vec(any::<u8>(), 0..40)) {
            let whole = decode(&text);
            let mut buf = [0u8; 40];
            // Both decoders agree, error for error.
            prop_assert_eq!(decode_to_slice(&text, &mut buf).map(|n| buf[..n].to_vec()), whole);
        }
    }
}
