//! JSON written the way Python's `json.dumps` writes it, so that typed
//! messages and configs we write are byte-identical to 0.2.3's:
//! `ensure_ascii` escapes (every character outside space..`~` as `\uXXXX`,
//! lowercase hex, surrogate pairs above U+FFFF) and `repr`-style floats.

use std::io;

use serde::Serialize;
use serde_json::ser::{CompactFormatter, Formatter, PrettyFormatter};

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

/// Python's `repr(float)`: the shortest round-trip digits, fixed notation for
/// decimal exponents -4..16, otherwise `d.ddde+XX`.
pub fn python_float_repr(v: f64) -> String {
    if !v.is_finite() {
        return if v.is_nan() {
            "NaN".into()
        } else if v > 0.0 {
            "Infinity".into()
        } else {
            "-Infinity".into()
        };
    }
    // `{:e}` gives the shortest round-trip digits as d.ddde<exp>.
    let sci = format!("{v:e}");
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let (sign, mantissa) = mantissa.strip_prefix('-').map_or(("", mantissa), |m| ("-", m));
    let digits: String = mantissa.chars().filter(|c| *c != '.').collect();
    if (-4..16).contains(&exp) {
        // Digits before the decimal point: -3 to 16.
        let point = exp + 1;
        let body = match usize::try_from(point) {
            Err(_) | Ok(0) => format!("0.{}{}", "0".repeat(point.unsigned_abs() as usize), digits),
            Ok(point) if point >= digits.len() => format!("{}{}.0", digits, "0".repeat(point - digits.len())),
            Ok(point) => format!("{}.{}", &digits[..point], &digits[point..]),
        };
        format!("{sign}{body}")
    } else {
        let frac = if digits.len() > 1 { format!("{}.{}", &digits[..1], &digits[1..]) } else { digits };
        format!("{sign}{frac}e{}{:02}", if exp < 0 { '-' } else { '+' }, exp.abs())
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
    fn float_repr_matches_python() {
        for (v, py) in [
            (1.25, "1.25"),
            (1.0, "1.0"),
            (0.0, "0.0"),
            (-0.5, "-0.5"),
            (1e16, "1e+16"),
            (1.5e-7, "1.5e-07"),
            (0.0001, "0.0001"),
            (123456789012345.6, "123456789012345.6"),
            (1796016483.803225, "1796016483.803225"),
            (1e100, "1e+100"),
            (2.5e-300, "2.5e-300"),
            (1234567890123456.0, "1234567890123456.0"),
        ] {
            assert_eq!(python_float_repr(v), py, "{v}");
        }
    }

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

/// Validate JSON in the dialect Python's `json.loads` accepts (standard JSON
/// plus `NaN`, `Infinity`, `-Infinity`, unbounded integers and lone surrogate
/// escapes) and return it compact, with `ensure_ascii` escapes, numbers kept
/// exactly as written. This is how typed payloads travel without losing
/// anything 0.2.3 can write.
///
/// # Errors
/// A description of the first syntax error and its byte position.
pub fn python_compact(text: &str) -> Result<String, String> {
    scan(text, false)
}

/// The same dialect, indented two spaces a level, with `\uXXXX` escapes shown
/// as the characters they stand for: for people to read. Numbers stay exact.
///
/// # Errors
/// A description of the first syntax error and its byte position.
pub fn python_pretty(text: &str) -> Result<String, String> {
    scan(text, true)
}

fn scan(text: &str, pretty: bool) -> Result<String, String> {
    let mut p = Scanner { s: text.as_bytes(), i: 0, out: String::with_capacity(text.len()), depth: 0, pretty };
    p.ws();
    p.value()?;
    p.ws();
    if p.i != p.s.len() {
        return Err(format!("unexpected {:?} at byte {}", p.s[p.i] as char, p.i));
    }
    Ok(p.out)
}

struct Scanner<'a> {
    s: &'a [u8],
    i: usize,
    out: String,
    depth: usize,
    pretty: bool,
}

impl Scanner<'_> {
    fn newline(&mut self, level: usize) {
        if self.pretty {
            self.out.push('\n');
            for _ in 0..level {
                self.out.push_str("  ");
            }
        }
    }

    /// Opening bracket, then a line break if the container is not empty.
    fn open(&mut self, open: char, close: u8) -> bool {
        self.i += 1;
        self.out.push(open);
        self.ws();
        if self.s.get(self.i) == Some(&close) {
            self.i += 1;
            self.out.push(close as char);
            return true;
        }
        self.newline(self.depth);
        false
    }

    fn sep(&mut self, close: u8) -> Result<bool, String> {
        match self.s.get(self.i) {
            Some(b',') => {
                self.i += 1;
                self.out.push(',');
                self.newline(self.depth);
                Ok(false)
            }
            Some(&c) if c == close => {
                self.i += 1;
                self.newline(self.depth - 1);
                self.out.push(close as char);
                Ok(true)
            }
            _ => self.err(if close == b'}' { "expected ',' or '}'" } else { "expected ',' or ']'" }),
        }
    }

    fn ws(&mut self) {
        while self.i < self.s.len() && matches!(self.s[self.i], b' ' | b'\t' | b'\n' | b'\r') {
            self.i += 1;
        }
    }

    fn err<T>(&self, what: &str) -> Result<T, String> {
        Err(format!("{what} at byte {}", self.i))
    }

    fn lit(&mut self, word: &str) -> bool {
        if self.s[self.i..].starts_with(word.as_bytes()) {
            self.i += word.len();
            self.out.push_str(word);
            true
        } else {
            false
        }
    }

    fn value(&mut self) -> Result<(), String> {
        self.depth += 1;
        if self.depth > 512 {
            return self.err("nested too deeply");
        }
        let r = match self.s.get(self.i) {
            None => self.err("unexpected end"),
            Some(b'{') => self.object(),
            Some(b'[') => self.array(),
            Some(b'"') => self.string(),
            Some(b't') if self.lit("true") => Ok(()),
            Some(b'f') if self.lit("false") => Ok(()),
            Some(b'n') if self.lit("null") => Ok(()),
            Some(b'N') if self.lit("NaN") => Ok(()),
            Some(b'I') if self.lit("Infinity") => Ok(()),
            Some(b'-') if self.s[self.i..].starts_with(b"-Infinity") => {
                self.lit("-Infinity");
                Ok(())
            }
            Some(b'-' | b'0'..=b'9') => self.number(),
            Some(_) => self.err("unexpected character"),
        };
        self.depth -= 1;
        r
    }

    fn object(&mut self) -> Result<(), String> {
        if self.open('{', b'}') {
            return Ok(());
        }
        loop {
            self.ws();
            if self.s.get(self.i) != Some(&b'"') {
                return self.err("expected a string key");
            }
            self.string()?;
            self.ws();
            if self.s.get(self.i) != Some(&b':') {
                return self.err("expected ':'");
            }
            self.i += 1;
            self.out.push_str(if self.pretty { ": " } else { ":" });
            self.ws();
            self.value()?;
            self.ws();
            if self.sep(b'}')? {
                return Ok(());
            }
        }
    }

    fn array(&mut self) -> Result<(), String> {
        if self.open('[', b']') {
            return Ok(());
        }
        loop {
            self.ws();
            self.value()?;
            self.ws();
            if self.sep(b']')? {
                return Ok(());
            }
        }
    }

    fn hex4(&self, at: usize) -> Option<u16> {
        let h = self.s.get(at..at + 4)?;
        // Exactly four hex digits (`from_str_radix` alone would take "+041").
        if !h.iter().all(u8::is_ascii_hexdigit) {
            return None;
        }
        u16::from_str_radix(std::str::from_utf8(h).ok()?, 16).ok()
    }

    fn low_surrogate(&self, at: usize) -> Option<u16> {
        if self.s.get(at..at + 2) != Some(b"\\u") {
            return None;
        }
        self.hex4(at + 2).filter(|u| (0xDC00..0xE000).contains(u))
    }

    fn number(&mut self) -> Result<(), String> {
        let start = self.i;
        if self.s[self.i] == b'-' {
            self.i += 1;
        }
        let digits = |sc: &mut Self| {
            let d = sc.i;
            while sc.i < sc.s.len() && sc.s[sc.i].is_ascii_digit() {
                sc.i += 1;
            }
            sc.i - d
        };
        match self.s.get(self.i) {
            Some(b'0') => self.i += 1,
            Some(b'1'..=b'9') => {
                digits(self);
            }
            _ => return self.err("bad number"),
        }
        if self.s.get(self.i) == Some(&b'.') {
            self.i += 1;
            if digits(self) == 0 {
                return self.err("bad number");
            }
        }
        if matches!(self.s.get(self.i), Some(b'e' | b'E')) {
            self.i += 1;
            if matches!(self.s.get(self.i), Some(b'+' | b'-')) {
                self.i += 1;
            }
            if digits(self) == 0 {
                return self.err("bad number");
            }
        }
        // The slice is ASCII digits and signs.
        self.out.push_str(std::str::from_utf8(&self.s[start..self.i]).unwrap_or("0"));
        Ok(())
    }

    fn string(&mut self) -> Result<(), String> {
        self.i += 1;
        self.out.push('"');
        loop {
            let Some(&b) = self.s.get(self.i) else { return self.err("unterminated string") };
            match b {
                b'"' => {
                    self.i += 1;
                    self.out.push('"');
                    return Ok(());
                }
                b'\\' => {
                    let Some(&e) = self.s.get(self.i + 1) else { return self.err("unterminated escape") };
                    match e {
                        b'/' => {
                            // json.dumps never escapes a slash.
                            self.out.push('/');
                            self.i += 2;
                        }
                        b'"' | b'\\' | b'b' | b'f' | b'n' | b'r' | b't' => {
                            self.out.push('\\');
                            self.out.push(e as char);
                            self.i += 2;
                        }
                        b'u' => {
                            let Some(unit) = self.hex4(self.i + 2) else { return self.err("bad \\u escape") };
                            // Pretty output shows the character; a lone surrogate stays escaped.
                            let low = if (0xD800..0xDC00).contains(&unit) { self.low_surrogate(self.i + 6) } else { None };
                            let ch = match low {
                                Some(lo) => char::from_u32(0x10000 + ((u32::from(unit) - 0xD800) << 10) + (u32::from(lo) - 0xDC00)),
                                None => char::from_u32(u32::from(unit)),
                            };
                            // Written as Python's `json.dumps` would write the character:
                            // printable ASCII as itself, the short escapes, other controls
                            // and (compact only) non-ASCII as \\u escapes.
                            match ch {
                                Some(c @ ('"' | '\\')) => {
                                    self.out.push('\\');
                                    self.out.push(c);
                                    self.i += 6;
                                }
                                Some(c) if (' '..='~').contains(&c) => {
                                    self.out.push(c);
                                    self.i += 6;
                                }
                                Some(c @ ('\u{8}' | '\u{c}' | '\n' | '\r' | '\t')) => {
                                    self.out.push_str(match c {
                                        '\u{8}' => "\\b",
                                        '\u{c}' => "\\f",
                                        '\n' => "\\n",
                                        '\r' => "\\r",
                                        _ => "\\t",
                                    });
                                    self.i += 6;
                                }
                                Some(c) if self.pretty && !c.is_control() => {
                                    self.out.push(c);
                                    self.i += if low.is_some() { 12 } else { 6 };
                                }
                                _ => {
                                    self.out.push_str(&format!("\\u{unit:04x}"));
                                    self.i += 6;
                                }
                            }
                        }
                        _ => return self.err("bad escape"),
                    }
                }
                0..=0x1f => return self.err("control character in string"),
                0x20..=0x7e => {
                    self.out.push(b as char);
                    self.i += 1;
                }
                _ if self.pretty => {
                    let rest =
                        std::str::from_utf8(&self.s[self.i..]).or_else(|e| std::str::from_utf8(&self.s[self.i..self.i + e.valid_up_to()]));
                    let Some(ch) = rest.ok().and_then(|r| r.chars().next()) else { return self.err("invalid UTF-8") };
                    self.out.push(ch);
                    self.i += ch.len_utf8();
                }
                _ => {
                    // Non-ASCII (or DEL): escape as UTF-16 units, as ensure_ascii does.
                    let rest =
                        std::str::from_utf8(&self.s[self.i..]).or_else(|e| std::str::from_utf8(&self.s[self.i..self.i + e.valid_up_to()]));
                    let Some(ch) = rest.ok().and_then(|r| r.chars().next()) else { return self.err("invalid UTF-8") };
                    let mut units = [0u16; 2];
                    for u in ch.encode_utf16(&mut units) {
                        self.out.push_str(&format!("\\u{u:04x}"));
                    }
                    self.i += ch.len_utf8();
                }
            }
        }
    }
}

#[cfg(test)]
mod dialect_tests {
    use super::*;

    #[test]
    fn keeps_what_python_writes() {
        for (input, want) in [
            (r#"{"value":18446744073709551616}"#, r#"{"value":18446744073709551616}"#),
            (r#"{"v": NaN, "w": [Infinity, -Infinity]}"#, r#"{"v":NaN,"w":[Infinity,-Infinity]}"#),
            (r#"{"s":"\udcff"}"#, r#"{"s":"\udcff"}"#),
            ("{ \"t\" : \"ü日😀\" }", r#"{"t":"\u00fc\u65e5\ud83d\ude00"}"#),
            (r#"[1.5e-7, -0, 0.25E+3]"#, r#"[1.5e-7,-0,0.25E+3]"#),
            ("{}", "{}"),
        ] {
            assert_eq!(python_compact(input).expect(input), want);
        }
    }

    #[test]
    fn pretty_prints_for_people() {
        let p = python_pretty(r#"{"a":[1,18446744073709551616,{}],"s":"\u00fc\ud83d\ude00\udcff\"","e":[]}"#).expect("valid");
        assert_eq!(p, "{\n  \"a\": [\n    1,\n    18446744073709551616,\n    {}\n  ],\n  \"s\": \"ü😀\\udcff\\\"\",\n  \"e\": []\n}");
        assert_eq!(python_compact(&p).expect("valid"), r#"{"a":[1,18446744073709551616,{}],"s":"\u00fc\ud83d\ude00\udcff\"","e":[]}"#);
    }

    #[test]
    fn rejects_what_python_rejects() {
        for bad in ["", "{", "{\"a\" 1}", "[1,]", "01", "1.", "\"a", "{'a': 1}", "nan", "[1] x", "\"\\x\"", "\"a\u{1}\""] {
            assert!(python_compact(bad).is_err(), "{bad:?}");
        }
        assert!(python_compact(&"[".repeat(10_000)).is_err());
    }
}
