//! A typed message's JSON as text to search in: its strings with their
//! escapes resolved (`\u65e5\u672c` is 日本, `\"` is `"`), the rest as it
//! is. 0.2.3 writes `json.dumps`'s escapes (every non-ASCII character as
//! `\uXXXX`); a search for what a user sees must find them, in messages of
//! Python's dialect too (NaN, Infinity), which no JSON parser takes.

/// `json` with every string's escapes resolved; anything that is not a
/// complete escape is kept as written. The result is for searching, not JSON.
pub fn searchable(json: &str) -> std::borrow::Cow<'_, str> {
    if !json.contains('\\') {
        return std::borrow::Cow::Borrowed(json);
    }
    let mut out = String::with_capacity(json.len());
    let mut chars = json.char_indices().peekable();
    let mut in_string = false;
    while let Some((i, c)) = chars.next() {
        if !in_string {
            in_string = c == '"';
            out.push(c);
            continue;
        }
        match c {
            '"' => {
                in_string = false;
                out.push(c);
            }
            '\\' => {
                let Some(&(_, e)) = chars.peek() else {
                    out.push(c);
                    continue;
                };
                chars.next();
                match e {
                    '"' | '\\' | '/' => out.push(e),
                    'n' => out.push('\n'),
                    't' => out.push('\t'),
                    'r' => out.push('\r'),
                    'b' => out.push('\u{8}'),
                    'f' => out.push('\u{c}'),
                    'u' => match unicode_escape(json, i) {
                        Some((ch, len)) => {
                            out.push(ch);
                            // `len` bytes from the backslash: `\u` is already consumed.
                            for _ in 0..len - 2 {
                                chars.next();
                            }
                        }
                        None => {
                            out.push('\\');
                            out.push('u');
                        }
                    },
                    other => {
                        out.push('\\');
                        out.push(other);
                    }
                }
            }
            c => out.push(c),
        }
    }
    std::borrow::Cow::Owned(out)
}

/// The character of the `\uXXXX` escape (or surrogate pair `\uD83D\uDE00`)
/// at byte `at` of `json`, and how many bytes it spans; `None` when it is not
/// a whole one (a lone surrogate gives U+FFFD, as a JSON decoder would).
fn unicode_escape(json: &str, at: usize) -> Option<(char, usize)> {
    let hex = |from: usize| -> Option<u32> {
        let digits = json.get(from..from + 4)?;
        u32::from_str_radix(digits, 16).ok().filter(|_| digits.bytes().all(|b| b.is_ascii_hexdigit()))
    };
    let first = hex(at + 2)?;
    if (0xD800..0xDC00).contains(&first) {
        if json.get(at + 6..at + 8) == Some("\\u") {
            if let Some(second) = hex(at + 8).filter(|s| (0xDC00..0xE000).contains(s)) {
                let c = 0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00);
                return Some((char::from_u32(c).unwrap_or('\u{fffd}'), 12));
            }
        }
        return Some(('\u{fffd}', 6));
    }
    Some((char::from_u32(first).unwrap_or('\u{fffd}'), 6))
}

#[cfg(test)]
mod tests {
    use super::searchable;

    #[test]
    fn escapes_in_strings_are_resolved_and_the_rest_kept() {
        assert_eq!(searchable(r#"{"name":"\u65e5\u672c"}"#), r#"{"name":"日本"}"#);
        assert_eq!(searchable(r#"{"s":"say \"hi\"","p":"a\\b","q":"x\/y"}"#), r#"{"s":"say "hi"","p":"a\b","q":"x/y"}"#);
        assert_eq!(searchable(r#"{"e":"\ud83d\ude00","n":NaN,"i":-Infinity}"#), r#"{"e":"😀","n":NaN,"i":-Infinity}"#);
        assert_eq!(searchable(r#"{"lone":"\ud83d!","bad":"\uZZZZ","end":"\"#), r#"{"lone":"�!","bad":"\uZZZZ","end":"\"#);
        assert_eq!(searchable(r#"{"plain":"日本"}"#), r#"{"plain":"日本"}"#);
        assert_eq!(searchable(r#"{"t":"a\tb\nc"}"#), "{\"t\":\"a\tb\nc\"}");
    }
}
