//! The variables a filter sees, taken from one message: what each is, when
//! it is known (before or after the payload is decoded), and its value for
//! the plan and for the interpreter.

use std::borrow::Cow;
use std::cell::OnceCell;
use std::sync::Arc;

use crate::format::key::Key;
use crate::format::payload::Payload;
use crate::query::json::JSON_KINDS;
use crate::query::value::{Kinds, INT, NULL, STR, TS, UINT, V};

/// A filter's variables.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Var {
    Key,
    Partition,
    Offset,
    Timestamp,
    Kind,
    Class,
    Text,
    Value,
    Size,
}

/// Variables as a bit set.
pub(crate) type Vars = u16;

impl Var {
    pub(crate) const ALL: [Var; 9] =
        [Var::Key, Var::Partition, Var::Offset, Var::Timestamp, Var::Kind, Var::Class, Var::Text, Var::Value, Var::Size];

    /// The variables known before the payload is decoded.
    pub(crate) const HEAD: Vars = Var::Key.bit() | Var::Partition.bit() | Var::Offset.bit() | Var::Timestamp.bit();

    pub(crate) fn from_name(name: &str) -> Option<Var> {
        Var::ALL.into_iter().find(|v| v.name() == name)
    }

    pub(crate) const fn name(self) -> &'static str {
        match self {
            Var::Key => "key",
            Var::Partition => "partition",
            Var::Offset => "offset",
            Var::Timestamp => "timestamp",
            Var::Kind => "kind",
            Var::Class => "class",
            Var::Text => "text",
            Var::Value => "value",
            Var::Size => "size",
        }
    }

    pub(crate) const fn bit(self) -> Vars {
        1 << self as u16
    }

    /// What the variable may hold.
    pub(crate) fn kinds(self) -> Kinds {
        match self {
            Var::Key => INT | UINT | STR,
            Var::Partition | Var::Size => INT,
            Var::Offset => INT | UINT,
            Var::Timestamp => TS | NULL,
            Var::Kind | Var::Text => STR,
            Var::Class => STR | NULL,
            Var::Value => JSON_KINDS,
        }
    }
}

/// What is known of a message before its payload is decoded.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Head<'m> {
    pub(crate) partition: u32,
    pub(crate) offset: u64,
    pub(crate) key: &'m Key,
    pub(crate) timestamp: f64,
}

/// One message as a filter reads it: its head, its payload when decoded,
/// and what is worked out from the payload at most once (the hex of bytes,
/// the interpreter's `value`).
pub(crate) struct Msg<'m> {
    pub(crate) head: Head<'m>,
    pub(crate) payload: Option<&'m Payload>,
    hex: OnceCell<String>,
    /// A typed message's JSON with its strings' escapes resolved (for `text`).
    typed_text: OnceCell<String>,
    cel_value: OnceCell<cel::Value>,
}

impl<'m> Msg<'m> {
    pub(crate) fn new(head: Head<'m>, payload: Option<&'m Payload>) -> Msg<'m> {
        Msg { head, payload, hex: OnceCell::new(), typed_text: OnceCell::new(), cel_value: OnceCell::new() }
    }

    /// The JSON text `value` is read from: a text payload or a typed
    /// message's fields (`None` for bytes, or before the payload is known).
    #[inline]
    pub(crate) fn doc(&self) -> Option<&'m str> {
        match self.payload? {
            Payload::Text(s) => Some(s),
            Payload::Typed(t) => Some(&t.json),
            Payload::Bytes(_) => None,
        }
    }

    /// A variable other than `value` (which the plan reads by path); `None`
    /// when it needs the payload and that is not known.
    #[inline]
    pub(crate) fn var(&self, var: Var) -> Option<V<'_>> {
        Some(match var {
            Var::Key => match self.head.key {
                Key::Int(i) => V::from_u64(*i),
                Key::Str(s) => V::Str(Cow::Borrowed(s)),
                Key::Bytes(b) => V::Bytes(Cow::Borrowed(b)),
                Key::Null => V::Null,
            },
            Var::Partition => V::Int(i64::from(self.head.partition)),
            Var::Offset => V::from_u64(self.head.offset),
            Var::Timestamp => timestamp(self.head.timestamp).map_or(V::Null, V::Ts),
            Var::Kind => V::Str(Cow::Borrowed(self.payload?.kind())),
            Var::Class => match self.payload? {
                Payload::Typed(t) => t.class.as_deref().map_or(V::Null, |c| V::Str(Cow::Borrowed(c))),
                _ => V::Null,
            },
            Var::Text => V::Str(Cow::Borrowed(self.text()?)),
            Var::Size => V::from_u64(
                u64::try_from(match self.payload? {
                    Payload::Text(s) => s.len(),
                    Payload::Bytes(b) => b.len(),
                    Payload::Typed(t) => t.json.len(),
                })
                .unwrap_or(u64::MAX),
            ),
            Var::Value => return None,
        })
    }

    /// The payload as text: the text, the bytes in lower-case hex, a typed
    /// message's JSON with its strings' escapes resolved (`\u65e5` is 日),
    /// so what the user sees is what `text` holds.
    #[inline]
    pub(crate) fn text(&self) -> Option<&str> {
        match self.payload? {
            Payload::Text(s) => Some(s),
            Payload::Typed(t) => Some(self.typed_text.get_or_init(|| crate::format::pyjson::searchable(&t.json).into_owned())),
            Payload::Bytes(b) => Some(self.hex.get_or_init(|| hex::encode(b))),
        }
    }

    /// A variable as the interpreter's value; `None` when it needs the payload
    /// and that is not known.
    pub(crate) fn cel_var(&self, var: Var) -> Option<cel::Value> {
        if var == Var::Value {
            self.payload?;
            return Some(
                self.cel_value.get_or_init(|| self.doc().map_or(cel::Value::Null, |d| crate::query::json::parse(d).to_cel())).clone(),
            );
        }
        // Strings are copied into the interpreter's `Arc`s here: this is its slow path.
        Some(match self.var(var)? {
            V::Str(s) => cel::Value::String(Arc::new(s.into_owned())),
            other => other.to_cel(),
        })
    }
}

/// UNIX seconds as a UTC timestamp, to the microsecond as
/// [`crate::format::message::Message::time`] rounds (`None` out of range).
pub(crate) fn timestamp(secs: f64) -> Option<chrono::DateTime<chrono::FixedOffset>> {
    let micros = (secs * 1e6).round();
    if !micros.is_finite() || micros.abs() > 9.0e18 {
        return None;
    }
    // Whole (rounded) and at most 9.0e18 < 2^63 in magnitude: converts exactly.
    #[allow(clippy::cast_possible_truncation)]
    let micros = micros as i64;
    chrono::DateTime::from_timestamp_micros(micros).map(|t| t.fixed_offset())
}
