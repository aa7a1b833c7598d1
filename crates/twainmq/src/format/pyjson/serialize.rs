//! Serialising with `serde` as Python's `json.dumps` writes: `ensure_ascii`
//! escapes and `repr` floats, with compact or `indent=0` layout.

use std::io;

use serde::Serialize;
use serde_json::ser::{CompactFormatter, Formatter, PrettyFormatter};

use super::python_float_repr;

/// Compact JSON with `(",", ":")` separators, as 0.2.3 encodes typed messages.
///
/// # Errors
/// When `value` cannot be represented as JSON (e.g. a map with non-string keys).
pub fn to_compact<T: Serialize + ?Sized>(value: &T) -> serde_json::Result<Vec<u8>> {
    let mut out = Vec::with_capacity(64);
    let mut ser = serde_json::Serializer::with_formatter(&mut out, PyFormatter(CompactFormatter));
    value.serialize(&mut ser)?;
    Ok(out)
}

/// `json.dump(value, f, indent=0)`, as 0.2.3 writes topic configs.
///
/// # Errors
/// When `value` cannot be represented as JSON.
pub fn to_indent0<T: Serialize + ?Sized>(value: &T) -> serde_json::Result<Vec<u8>> {
    let mut out = Vec::with_capacity(128);
    let mut ser = serde_json::Serializer::with_formatter(&mut out, PyFormatter(PrettyFormatter::with_indent(b"")));
    value.serialize(&mut ser)?;
    Ok(out)
}

struct PyFormatter<F>(F);

const HEX: &[u8; 16] = b"0123456789abcdef";

fn push_u16_escape(out: &mut Vec<u8>, unit: u16) {
    out.extend_from_slice(b"\\u");
    for shift in [12, 8, 4, 0] {
        out.push(HEX[usize::from((unit >> shift) & 0xF)]);
    }
}

impl<F: Formatter> Formatter for PyFormatter<F> {
    fn write_f64<W: ?Sized + io::Write>(&mut self, w: &mut W, v: f64) -> io::Result<()> {
        w.write_all(python_float_repr(v).as_bytes())
    }
    fn write_f32<W: ?Sized + io::Write>(&mut self, w: &mut W, v: f32) -> io::Result<()> {
        self.write_f64(w, f64::from(v))
    }
    fn write_string_fragment<W: ?Sized + io::Write>(&mut self, w: &mut W, fragment: &str) -> io::Result<()> {
        if fragment.bytes().all(|b| (0x20..0x7f).contains(&b)) {
            return w.write_all(fragment.as_bytes());
        }
        let mut out = Vec::with_capacity(fragment.len() + 16);
        for ch in fragment.chars() {
            if (' '..='~').contains(&ch) {
                out.push(ch as u8);
            } else {
                let mut units = [0u16; 2];
                for unit in ch.encode_utf16(&mut units) {
                    push_u16_escape(&mut out, *unit);
                }
            }
        }
        w.write_all(&out)
    }
    // Everything else as the wrapped formatter does it.
    fn begin_array<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.begin_array(w)
    }
    fn end_array<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.end_array(w)
    }
    fn begin_array_value<W: ?Sized + io::Write>(&mut self, w: &mut W, first: bool) -> io::Result<()> {
        self.0.begin_array_value(w, first)
    }
    fn end_array_value<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.end_array_value(w)
    }
    fn begin_object<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.begin_object(w)
    }
    fn end_object<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.end_object(w)
    }
    fn begin_object_key<W: ?Sized + io::Write>(&mut self, w: &mut W, first: bool) -> io::Result<()> {
        self.0.begin_object_key(w, first)
    }
    fn end_object_key<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.end_object_key(w)
    }
    fn begin_object_value<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.begin_object_value(w)
    }
    fn end_object_value<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.end_object_value(w)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ensure_ascii_escapes() {
        let v = serde_json::json!({"t": "ü日\u{7f}😀\n\"", "n": [1, -1, 18446744073709551615u64]});
        let s = String::from_utf8(to_compact(&v).expect("json")).expect("ascii");
        assert_eq!(s, r#"{"t":"\u00fc\u65e5\u007f\ud83d\ude00\n\"","n":[1,-1,18446744073709551615]}"#);
    }

    #[test]
    fn indent0_matches_json_dump() {
        let v = serde_json::json!({"key_width": 2, "partitions": 4, "message_types": {}});
        assert_eq!(to_indent0(&v).expect("json"), b"{\n\"key_width\": 2,\n\"partitions\": 4,\n\"message_types\": {}\n}");
        let v = serde_json::json!({"message_types": {"A": 0, "B": 1}});
        assert_eq!(to_indent0(&v).expect("json"), b"{\n\"message_types\": {\n\"A\": 0,\n\"B\": 1\n}\n}");
    }
}
