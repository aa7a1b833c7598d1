//! The JSON reader behind `value`: one pass over the payload that validates
//! it and takes out only the fields a filter reads, without allocating for
//! numbers and for strings without escapes.
//!
//! It reads what Python's `json` reads, as typed payloads are written by
//! Python: standard JSON plus `NaN`, `Infinity` and `-Infinity`; integers of
//! any size (past 64 bits they become doubles). A lone surrogate escape
//! becomes U+FFFD. Text that is not JSON, or nests deeper than
//! [`MAX_NESTING`], makes `value` null.

use std::borrow::Cow;

use crate::query::trie::{Slot, Trie};
use crate::query::value::{Kinds, BOOL, DOUBLE, INT, LIST, MAP, NULL, NUMBER, STR, UINT, V};

/// The deepest nesting of arrays and objects read; deeper text is not JSON
/// to a filter (as to `serde_json`).
pub(crate) const MAX_NESTING: usize = 128;

/// Read `text` for the fields of `trie`: slot `i` for node `i`. Text that is
/// not JSON gives `value` null and nothing below it.
pub(crate) fn extract<'a>(text: &'a str, trie: &Trie, slots: &mut [Slot<'a>]) {
    let mut r = Reader { s: text.as_bytes(), text, i: 0 };
    let ok = r.ws().and_then(|()| r.extract(trie, 0, slots, 0)).and_then(|()| r.ws()).is_some() && r.i == r.s.len();
    if !ok {
        slots.iter_mut().for_each(|s| *s = Slot::Missing);
        slots[0] = if trie.is_whole(0) { Slot::Val(V::Null) } else { Slot::Kind(NULL) };
    }
}

/// The whole of `text` as a value: null when it is not JSON.
pub(crate) fn parse(text: &str) -> V<'_> {
    let mut r = Reader { s: text.as_bytes(), text, i: 0 };
    let v = r.ws().and_then(|()| r.value(0)).filter(|_| r.ws().is_some() && r.i == r.s.len());
    v.unwrap_or(V::Null)
}

/// The bytes that end a run of plain string content: `"`, `\\` and controls.
const SPECIAL: [bool; 256] = {
    let mut t = [false; 256];
    let mut i = 0;
    while i < 0x20 {
        t[i] = true;
        i += 1;
    }
    t[b'"' as usize] = true;
    t[b'\\' as usize] = true;
    t
};

struct Reader<'a> {
    s: &'a [u8],
    text: &'a str,
    i: usize,
}

impl<'a> Reader<'a> {
    fn peek(&self) -> Option<u8> {
        self.s.get(self.i).copied()
    }

    fn ws(&mut self) -> Option<()> {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.peek() {
            self.i += 1;
        }
        Some(())
    }

    fn eat(&mut self, b: u8) -> Option<()> {
        (self.peek() == Some(b)).then(|| self.i += 1)
    }

    fn word(&mut self, w: &[u8]) -> Option<()> {
        self.s[self.i..].starts_with(w).then(|| self.i += w.len())
    }

    /// Read the value at the cursor for `node`: whole, or only down the trie.
    fn extract(&mut self, trie: &Trie, node: usize, slots: &mut [Slot<'a>], depth: usize) -> Option<()> {
        if trie.is_whole(node) {
            slots[node] = Slot::Val(self.value(depth)?);
            return Some(());
        }
        if trie.is_leaf(node) {
            slots[node] = Slot::Kind(self.skip(depth)?);
            return Some(());
        }
        match self.peek()? {
            b'{' => {
                slots[node] = Slot::Kind(MAP);
                self.members(depth, |r, key| {
                    match trie.child_key(node, &key) {
                        Some(c) => {
                            // A repeated key: the last one counts, so forget what the earlier one held.
                            trie.clear_below(c, slots);
                            r.extract(trie, c, slots, depth + 1)
                        }
                        None => r.skip(depth + 1).map(drop),
                    }
                })
            }
            b'[' => {
                slots[node] = Slot::Kind(LIST);
                let mut i = 0;
                self.elements(depth, |r| {
                    let res = match trie.child_index(node, i) {
                        Some(c) => r.extract(trie, c, slots, depth + 1),
                        None => r.skip(depth + 1).map(drop),
                    };
                    i += 1;
                    res
                })
            }
            _ => {
                slots[node] = Slot::Kind(self.skip(depth)?);
                Some(())
            }
        }
    }

    /// Validate the value at the cursor and say its kind, keeping nothing.
    fn skip(&mut self, depth: usize) -> Option<Kinds> {
        match self.peek()? {
            b'{' => self.members(depth, |r, _| r.skip(depth + 1).map(drop)).map(|()| MAP),
            b'[' => self.elements(depth, |r| r.skip(depth + 1).map(drop)).map(|()| LIST),
            b'"' => self.string().map(|_| STR),
            b'-' | b'0'..=b'9' if !self.s[self.i..].starts_with(b"-I") => self.number_text().map(|_| NUMBER),
            _ => self.scalar().map(|v| v.kind()),
        }
    }

    /// The value at the cursor, whole.
    fn value(&mut self, depth: usize) -> Option<V<'a>> {
        match self.peek()? {
            b'{' => {
                let mut entries: Vec<(Cow<'a, str>, V<'a>)> = Vec::new();
                self.members(depth, |r, key| {
                    let v = r.value(depth + 1)?;
                    match entries.iter_mut().find(|(k, _)| *k == key) {
                        Some(e) => e.1 = v,
                        None => entries.push((key, v)),
                    }
                    Some(())
                })?;
                Some(V::Map(entries))
            }
            b'[' => {
                let mut items = Vec::new();
                self.elements(depth, |r| {
                    items.push(r.value(depth + 1)?);
                    Some(())
                })?;
                Some(V::List(items))
            }
            b'"' => self.string().map(V::Str),
            _ => self.scalar(),
        }
    }

    /// An object's members, each handed to `f` with the cursor on its value.
    fn members(&mut self, depth: usize, mut f: impl FnMut(&mut Self, Cow<'a, str>) -> Option<()>) -> Option<()> {
        if depth >= MAX_NESTING {
            return None;
        }
        self.eat(b'{')?;
        self.ws()?;
        if self.eat(b'}').is_some() {
            return Some(());
        }
        loop {
            if self.peek()? != b'"' {
                return None;
            }
            let key = self.string()?;
            self.ws()?;
            self.eat(b':')?;
            self.ws()?;
            f(self, key)?;
            self.ws()?;
            match self.peek()? {
                b',' => {
                    self.i += 1;
                    self.ws()?;
                }
                b'}' => {
                    self.i += 1;
                    return Some(());
                }
                _ => return None,
            }
        }
    }

    /// An array's elements, each handed to `f` with the cursor on it.
    fn elements(&mut self, depth: usize, mut f: impl FnMut(&mut Self) -> Option<()>) -> Option<()> {
        if depth >= MAX_NESTING {
            return None;
        }
        self.eat(b'[')?;
        self.ws()?;
        if self.eat(b']').is_some() {
            return Some(());
        }
        loop {
            f(self)?;
            self.ws()?;
            match self.peek()? {
                b',' => {
                    self.i += 1;
                    self.ws()?;
                }
                b']' => {
                    self.i += 1;
                    return Some(());
                }
                _ => return None,
            }
        }
    }

    /// The index of the first `"`, `\\` or control character from `from`.
    fn special(&self, from: usize) -> Option<usize> {
        // Strings in messages are short: a plain loop beats a vectorised search's set-up.
        self.s[from..].iter().position(|&b| SPECIAL[usize::from(b)]).map(|i| from + i)
    }

    /// A string at the cursor (on its opening quote): borrowed when it has no escapes.
    fn string(&mut self) -> Option<Cow<'a, str>> {
        self.eat(b'"')?;
        let start = self.i;
        let end = self.special(start)?;
        match self.s[end] {
            b'"' => {
                self.i = end + 1;
                // Both ends are ASCII, so this is a whole-character slice.
                return Some(Cow::Borrowed(&self.text[start..end]));
            }
            b'\\' => {}
            _ => return None,
        }
        let mut out = String::with_capacity(end - start + 16);
        out.push_str(&self.text[start..end]);
        self.i = end;
        loop {
            let end = self.special(self.i)?;
            out.push_str(&self.text[self.i..end]);
            self.i = end + 1;
            match self.s[end] {
                b'"' => return Some(Cow::Owned(out)),
                b'\\' => {}
                _ => return None,
            }
            let esc = self.peek()?;
            self.i += 1;
            match esc {
                b'"' => out.push('"'),
                b'\\' => out.push('\\'),
                b'/' => out.push('/'),
                b'b' => out.push('\u{8}'),
                b'f' => out.push('\u{c}'),
                b'n' => out.push('\n'),
                b'r' => out.push('\r'),
                b't' => out.push('\t'),
                b'u' => {
                    let hi = self.hex4()?;
                    let c = if (0xD800..0xDC00).contains(&hi) && self.s[self.i..].starts_with(b"\\u") {
                        let save = self.i;
                        self.i += 2;
                        let lo = self.hex4()?;
                        if (0xDC00..0xE000).contains(&lo) {
                            char::from_u32(0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00))
                        } else {
                            self.i = save;
                            None
                        }
                    } else {
                        char::from_u32(hi)
                    };
                    out.push(c.unwrap_or('\u{FFFD}'));
                }
                _ => return None,
            }
        }
    }

    fn hex4(&mut self) -> Option<u32> {
        let digits = self.s.get(self.i..self.i + 4)?;
        let mut v = 0;
        for &d in digits {
            v = v * 16 + char::from(d).to_digit(16)?;
        }
        self.i += 4;
        Some(v)
    }

    /// A number, `true`, `false`, `null`, `NaN`, `Infinity` or `-Infinity`.
    fn scalar(&mut self) -> Option<V<'a>> {
        match self.peek()? {
            b't' => self.word(b"true").map(|()| V::Bool(true)),
            b'f' => self.word(b"false").map(|()| V::Bool(false)),
            b'n' => self.word(b"null").map(|()| V::Null),
            b'N' => self.word(b"NaN").map(|()| V::Double(f64::NAN)),
            b'I' => self.word(b"Infinity").map(|()| V::Double(f64::INFINITY)),
            b'-' if self.s[self.i..].starts_with(b"-Infinity") => {
                self.i += "-Infinity".len();
                Some(V::Double(f64::NEG_INFINITY))
            }
            _ => self.number(),
        }
    }

    fn digits(&mut self) -> usize {
        let start = self.i;
        while self.peek().is_some_and(|b| b.is_ascii_digit()) {
            self.i += 1;
        }
        self.i - start
    }

    /// The text of the number at the cursor, and whether it has a fraction
    /// or an exponent.
    fn number_text(&mut self) -> Option<(&'a str, bool)> {
        let start = self.i;
        self.eat(b'-');
        let int_start = self.i;
        match self.digits() {
            0 => return None,
            n if n > 1 && self.s[int_start] == b'0' => return None,
            _ => {}
        }
        let mut float = false;
        if self.eat(b'.').is_some() {
            float = true;
            if self.digits() == 0 {
                return None;
            }
        }
        if let Some(b'e' | b'E') = self.peek() {
            float = true;
            self.i += 1;
            if let Some(b'+' | b'-') = self.peek() {
                self.i += 1;
            }
            if self.digits() == 0 {
                return None;
            }
        }
        Some((&self.text[start..self.i], float))
    }

    fn number(&mut self) -> Option<V<'a>> {
        let (text, float) = self.number_text()?;
        if !float {
            if text.starts_with('-') {
                if let Ok(i) = text.parse::<i64>() {
                    return Some(V::Int(i));
                }
            } else if let Ok(u) = text.parse::<u64>() {
                return Some(V::from_u64(u));
            }
        }
        text.parse::<f64>().ok().map(V::Double)
    }
}

/// Kinds a JSON value can have, for the checks.
pub(crate) const JSON_KINDS: Kinds = NULL | BOOL | INT | UINT | DOUBLE | STR | LIST | MAP;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::query::trie::Seg;
    use proptest::prelude::*;

    fn s(x: &str) -> V<'_> {
        V::Str(Cow::Borrowed(x))
    }

    #[test]
    fn parses_standard_and_python_json() {
        assert_eq!(parse(r#" {"a": [1, -2, 3.5, "x\u00fcy", true, null]} "#), {
            V::Map(vec![(Cow::Borrowed("a"), V::List(vec![V::Int(1), V::Int(-2), V::Double(3.5), s("xüy"), V::Bool(true), V::Null]))])
        });
        assert_eq!(parse("18446744073709551615"), V::UInt(u64::MAX));
        assert_eq!(parse("123456789012345678901234567890"), V::Double(1.2345678901234568e29));
        assert_eq!(parse("-9223372036854775809"), V::Double(-9223372036854775809.0));
        assert!(matches!(parse("NaN"), V::Double(d) if d.is_nan()));
        assert_eq!(parse("[Infinity,-Infinity]"), V::List(vec![V::Double(f64::INFINITY), V::Double(f64::NEG_INFINITY)]));
        assert_eq!(parse(r#""\ud83d\ude80 \ud800x""#), s("🚀 \u{FFFD}x"));
        assert_eq!(parse(r#"{"a":1,"a":2}"#), V::Map(vec![(Cow::Borrowed("a"), V::Int(2))]));
        assert_eq!(parse("1.0"), V::Double(1.0));
        assert_eq!(parse("-0"), V::Int(0));
    }

    #[test]
    fn anything_else_is_null() {
        for bad in ["", "hello", "{", r#"{"a":}"#, "[1,]", "01", "1.", "1e", "\"a\nb\"", r#""\x""#, "[1] 2", "tru", "{\"a\" 1}", "-"] {
            assert_eq!(parse(bad), V::Null, "{bad:?}");
        }
        let deep = format!("{}{}", "[".repeat(MAX_NESTING + 1), "]".repeat(MAX_NESTING + 1));
        assert_eq!(parse(&deep), V::Null);
        let ok = format!("{}{}", "[".repeat(MAX_NESTING), "]".repeat(MAX_NESTING));
        assert_ne!(parse(&ok), V::Null);
    }

    #[test]
    fn borrows_plain_strings() {
        assert!(matches!(parse(r#""plain""#), V::Str(Cow::Borrowed("plain"))));
        assert!(matches!(parse(r#""a\"b""#), V::Str(Cow::Owned(ref o)) if o == "a\"b"));
    }

    fn json() -> impl Strategy<Value = serde_json::Value> {
        let leaf = prop_oneof![
            Just(serde_json::Value::Null),
            any::<bool>().prop_map(serde_json::Value::from),
            any::<i64>().prop_map(serde_json::Value::from),
            any::<u64>().prop_map(serde_json::Value::from),
            (-1e6f64..1e6).prop_map(serde_json::Value::from),
            "[a-c\\\\\"\u{e9}\u{1F680}\n]{0,4}".prop_map(serde_json::Value::from),
        ];
        leaf.prop_recursive(4, 32, 4, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..4).prop_map(serde_json::Value::Array),
                prop::collection::vec(("[a-c]{1,2}", inner), 0..4).prop_map(|kv| serde_json::Value::Object(kv.into_iter().collect())),
            ]
        })
    }

    fn from_serde(v: &serde_json::Value) -> V<'static> {
        match v {
            serde_json::Value::Null => V::Null,
            serde_json::Value::Bool(b) => V::Bool(*b),
            serde_json::Value::Number(n) => {
                n.as_i64().map(V::Int).or_else(|| n.as_u64().map(V::UInt)).unwrap_or_else(|| V::Double(n.as_f64().unwrap_or_default()))
            }
            serde_json::Value::String(s) => V::Str(Cow::Owned(s.clone())),
            serde_json::Value::Array(a) => V::List(a.iter().map(from_serde).collect()),
            serde_json::Value::Object(o) => V::Map(o.iter().map(|(k, v)| (Cow::Owned(k.clone()), from_serde(v))).collect()),
        }
    }

    proptest! {
        #[test]
        fn agrees_with_serde_json(v in json(), pretty in any::<bool>()) {
            let text = if pretty { serde_json::to_string_pretty(&v) } else { serde_json::to_string(&v) }.expect("json");
            prop_assert_eq!(parse(&text), from_serde(&v));
        }

        #[test]
        fn never_panics(text in "[\\[\\]{}\",:0-9a-z\\\\. -]{0,40}") {
            let _ = parse(&text);
            let mut t = Trie::new();
            t.insert(&[Seg::Key("a".into()), Seg::Index(0)], true);
            t.insert(&[Seg::Key("b".into())], false);
            let mut slots = vec![Slot::Missing; t.len()];
            extract(&text, &t, &mut slots);
        }
    }
}
