//! Python's JSON dialect as text: validated and rewritten compact (as it
//! travels in typed payloads) or pretty (for people), numbers kept exact.

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
                    let Some(ch) = first_char(&self.s[self.i..]) else { return self.err("invalid UTF-8") };
                    self.out.push(ch);
                    self.i += ch.len_utf8();
                }
                _ => {
                    // Non-ASCII (or DEL): escape as UTF-16 units, as ensure_ascii does.
                    let Some(ch) = first_char(&self.s[self.i..]) else { return self.err("invalid UTF-8") };
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

/// The character `bytes` start with, if they start with one: only its (at most
/// four) bytes are looked at, so a string of many non-ASCII characters is
/// scanned in linear time (validating the whole rest at each one made a
/// 1 MiB typed message take minutes to read).
fn first_char(bytes: &[u8]) -> Option<char> {
    let head = &bytes[..bytes.len().min(4)];
    let valid = match std::str::from_utf8(head) {
        Ok(v) => v,
        Err(e) => std::str::from_utf8(&head[..e.valid_up_to()]).ok()?,
    };
    valid.chars().next()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_string_of_non_ascii_characters_is_read_in_linear_time() {
        // 200,000 non-ASCII characters (about 500 KB): linear, milliseconds even in a
        // debug build; the quadratic scan it replaced took over a minute.
        let text = format!("{{\"s\":\"{}\"}}", "ключ🔑".repeat(40_000));
        let t = std::time::Instant::now();
        let compact = python_compact(&text).expect("compact");
        let pretty = python_pretty(&text).expect("pretty");
        assert!(t.elapsed() < std::time::Duration::from_secs(5), "took {:?}", t.elapsed());
        assert!(compact.starts_with("{\"s\":\"\\u043a\\u043b\\u044e\\u0447\\ud83d\\udd11"), "{}", &compact[..60]);
        assert_eq!(pretty.matches("🔑").count(), 40_000);
    }

    #[test]
    fn first_char_takes_one_character_and_refuses_what_is_none() {
        assert_eq!(first_char("ключ".as_bytes()), Some('к'));
        assert_eq!(first_char("🔑x".as_bytes()), Some('🔑'));
        assert_eq!(first_char(&"é".as_bytes()[..1]), None, "half a character");
        assert_eq!(first_char(&[0xff, b'a']), None);
        assert_eq!(first_char(b""), None);
    }

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
