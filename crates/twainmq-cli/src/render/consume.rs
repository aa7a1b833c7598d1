//! `consume`: one message a line, or one JSON object a line.

#[allow(clippy::wildcard_imports)]
use super::*;
use twainmq::{Key, Message, Payload};

/// One consumed message, as a JSON object or a text line
/// `partition/offset<TAB>key<TAB>time<TAB>payload`.
///
/// Not through [`emit`]: this runs per message, so it writes piece by piece,
/// without a String per field (`consume` into a pipe should run near the
/// engine's speed), and every failure is an `io::Error`, so a closed pipe is
/// told apart from other failures.
pub(crate) fn message(out: &mut impl Write, m: &Message, json: bool) -> io::Result<()> {
    if json {
        serde_json::to_writer(&mut *out, &m.to_json()).map_err(io::Error::from)?;
        return out.write_all(b"\n");
    }
    write!(out, "{}/{}\t", m.partition, m.offset)?;
    match &m.key {
        Key::Int(v) => write!(out, "{v}\t")?,
        Key::Str(s) => write!(out, "{s:?}\t")?,
        Key::Bytes(b) => write!(out, "0x{}\t", hex::encode(b))?,
        Key::Null => out.write_all(b"null\t")?,
    }
    match m.time() {
        Some(t) => write_time(out, &t)?,
        None => write!(out, "{}", m.timestamp)?,
    }
    out.write_all(b"\t")?;
    match &m.payload {
        Payload::Text(s) => write_escaped(out, s)?,
        Payload::Bytes(b) => write!(out, "bytes {}", hex::encode(b))?,
        Payload::Typed(t) => write!(
            out,
            "{} {}",
            t.class.as_deref().unwrap_or("<unknown type>"),
            t.fields().map_or_else(|| t.json.clone(), |v| v.to_string())
        )?,
    }
    out.write_all(b"\n")
}

/// `%Y-%m-%dT%H:%M:%S%.6fZ`, without chrono parsing its format string per message.
fn write_time(out: &mut impl Write, t: &chrono::DateTime<chrono::Utc>) -> io::Result<()> {
    use chrono::{Datelike, Timelike};
    let us = t.nanosecond() / 1000;
    write!(
        out,
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:06}Z",
        t.year(),
        t.month(),
        t.day(),
        t.hour(),
        t.minute(),
        t.second(),
        us.min(999_999)
    )
}

/// Text as `str::escape_debug` shows it; plain printable ASCII is copied as is.
fn write_escaped(out: &mut impl Write, s: &str) -> io::Result<()> {
    if s.bytes().all(|b| (0x20..0x7f).contains(&b) && b != b'\\' && b != b'"' && b != b'\'') {
        out.write_all(s.as_bytes())
    } else {
        write!(out, "{}", s.escape_debug())
    }
}
