//! Base85 with RFC 1924's alphabet and Python `base64.b85encode` padding.
//!
//! We keep our own codec rather than the `base85` crate because decoding
//! untrusted lines must reject, not overflow on, a hunk whose value exceeds
//! `u32::MAX` (that crate's arithmetic overflows there), and because the hot
//! paths encode into and decode from caller-owned buffers without allocating.
//! A property test checks that we encode exactly like `base85` 2.

const ALPHABET: &[u8; 85] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz!#$%&()*+-;<=>?@^_`{|}~";

const INVALID: u8 = 0xFF;

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
    /// A byte outside the alphabet, at this index.
    BadChar { index: usize, byte: u8 },
    /// A 5-character hunk (starting at this index) encodes more than 32 bits.
    Overflow { index: usize },
    /// The length leaves one dangling character, which no input encodes to.
    BadLength { len: usize },
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
    out.reserve(encoded_len(data.len()));
    let mut chunks = data.chunks_exact(4);
    for c in &mut chunks {
        push_hunk(u32::from_be_bytes([c[0], c[1], c[2], c[3]]), 5, out);
    }
    let rem = chunks.remainder();
    if !rem.is_empty() {
        let mut buf = [0u8; 4];
        buf[..rem.len()].copy_from_slice(rem);
        push_hunk(u32::from_be_bytes(buf), rem.len() + 1, out);
    }
}

#[inline]
fn push_hunk(mut v: u32, keep: usize, out: &mut Vec<u8>) {
    let mut digits = [0u8; 5];
    for d in digits.iter_mut().rev() {
        *d = ALPHABET[(v % 85) as usize];
        v /= 85;
    }
    out.extend_from_slice(&digits[..keep]);
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
    out.reserve(text.len() / 5 * 4 + 4);
    let mut index = 0;
    while index < text.len() {
        let end = (index + 5).min(text.len());
        let hunk = &text[index..end];
        let mut acc: u64 = 0;
        for i in 0..5 {
            let digit = match hunk.get(i) {
                Some(&b) => {
                    let d = REVERSE[b as usize];
                    if d == INVALID {
                        return Err(B85Error::BadChar { index: index + i, byte: b });
                    }
                    d
                }
                // Python pads a short final hunk with the highest digit.
                None => 84,
            };
            acc = acc * 85 + u64::from(digit);
        }
        let acc = u32::try_from(acc).map_err(|_| B85Error::Overflow { index })?;
        let bytes = acc.to_be_bytes();
        out.extend_from_slice(&bytes[..if hunk.len() == 5 { 4 } else { hunk.len() - 1 }]);
        index = end;
    }
    Ok(())
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
            prop_assert_eq!(decode(text.as_bytes()).expect("own encoding decodes"), data);
        }

        #[test]
        fn decode_never_panics(text in proptest::collection::vec(any::<u8>(), 0..40)) {
            let _ = decode(&text);
        }
    }
}
