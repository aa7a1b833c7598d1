//! The plan's values and the CEL semantics of the operations the plan runs
//! itself: equality, ordering, `in`, `size`. Each mirrors what `cel` 0.15
//! does on the same values (the property tests compare the two), and the
//! conversions to and from `cel::Value` let the interpreter take over.

use std::borrow::Cow;
use std::cmp::Ordering;
use std::collections::HashMap;
use std::sync::Arc;

use chrono::{DateTime, FixedOffset};

/// A CEL value as the plan sees it: JSON-shaped, borrowing strings from the
/// payload where it can. A map's keys are strings (JSON objects have no
/// others) and unique; a constant map with other keys stays with the
/// interpreter.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum V<'a> {
    Null,
    Bool(bool),
    Int(i64),
    UInt(u64),
    Double(f64),
    Str(Cow<'a, str>),
    Bytes(Cow<'a, [u8]>),
    Ts(DateTime<FixedOffset>),
    List(Vec<V<'a>>),
    Map(Vec<(Cow<'a, str>, V<'a>)>),
}

/// Kinds of values, as a bit set: what a variable or literal may be, for the
/// compile-time checks.
pub(crate) type Kinds = u16;
pub(crate) const NULL: Kinds = 1;
pub(crate) const BOOL: Kinds = 1 << 1;
pub(crate) const INT: Kinds = 1 << 2;
pub(crate) const UINT: Kinds = 1 << 3;
pub(crate) const DOUBLE: Kinds = 1 << 4;
pub(crate) const STR: Kinds = 1 << 5;
pub(crate) const BYTES: Kinds = 1 << 6;
pub(crate) const TS: Kinds = 1 << 7;
pub(crate) const LIST: Kinds = 1 << 8;
pub(crate) const MAP: Kinds = 1 << 9;
/// Durations, types and whatever else only the interpreter makes.
pub(crate) const OTHER: Kinds = 1 << 10;
pub(crate) const NUMBER: Kinds = INT | UINT | DOUBLE;

/// The CEL type names of a set of kinds, for error messages.
pub(crate) fn kind_names(k: Kinds) -> String {
    const NAMES: [(Kinds, &str); 11] = [
        (NULL, "null"),
        (BOOL, "bool"),
        (INT, "int"),
        (UINT, "uint"),
        (DOUBLE, "double"),
        (STR, "string"),
        (BYTES, "bytes"),
        (TS, "timestamp"),
        (LIST, "list"),
        (MAP, "map"),
        (OTHER, "other"),
    ];
    let names: Vec<&str> = NAMES.iter().filter(|(bit, _)| k & bit != 0).map(|(_, n)| *n).collect();
    match names.as_slice() {
        [] => "nothing".into(),
        [one] => format!("a {one}"),
        many => format!("a {}", many.join(" or ")),
    }
}

/// Whether a value of kind in `a` may equal one of kind in `b`.
pub(crate) fn may_equal(a: Kinds, b: Kinds) -> bool {
    ((a & NUMBER != 0) && (b & NUMBER != 0)) || (a & b & !NUMBER != 0)
}

/// Whether a value of kind in `a` may be ordered against one of kind in `b`.
pub(crate) fn may_order(a: Kinds, b: Kinds) -> bool {
    const ORDERED: Kinds = STR | BOOL | BYTES | TS | OTHER;
    ((a & NUMBER != 0) && (b & NUMBER != 0)) || (a & b & ORDERED != 0)
}

impl<'a> V<'a> {
    #[inline]
    pub(crate) fn kind(&self) -> Kinds {
        match self {
            V::Null => NULL,
            V::Bool(_) => BOOL,
            V::Int(_) => INT,
            V::UInt(_) => UINT,
            V::Double(_) => DOUBLE,
            V::Str(_) => STR,
            V::Bytes(_) => BYTES,
            V::Ts(_) => TS,
            V::List(_) => LIST,
            V::Map(_) => MAP,
        }
    }

    #[inline]
    pub(crate) fn as_str(&self) -> Option<&str> {
        match self {
            V::Str(s) => Some(s),
            _ => None,
        }
    }

    /// The value of `key` in a map.
    #[inline]
    pub(crate) fn get(&self, key: &str) -> Option<&V<'a>> {
        match self {
            V::Map(entries) => entries.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    /// An integer key: `Int` while it fits, `UInt` past `i64::MAX` (CEL's
    /// `int` and `uint` compare and test equal across the two).
    #[inline]
    pub(crate) fn from_u64(v: u64) -> V<'a> {
        i64::try_from(v).map_or(V::UInt(v), V::Int)
    }

    /// `self == other`, as CEL: numbers across int, uint and double (NaN
    /// equals nothing), lists element-wise, maps key by key, other kinds only
    /// with their own kind; never an error.
    #[inline]
    pub(crate) fn equals(&self, other: &V<'_>) -> bool {
        match (self, other) {
            (V::Null, V::Null) => true,
            (V::Bool(a), V::Bool(b)) => a == b,
            (V::Str(a), V::Str(b)) => a == b,
            (V::Bytes(a), V::Bytes(b)) => a == b,
            (V::Ts(a), V::Ts(b)) => a == b,
            (V::List(a), V::List(b)) => a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.equals(y)),
            (V::Map(a), V::Map(b)) => a.len() == b.len() && a.iter().all(|(k, v)| other.get(k).is_some_and(|w| v.equals(w))),
            _ => num_cmp(self, other) == Some(Ordering::Equal),
        }
    }

    /// `self < other` and friends, as CEL: `None` is an error (kinds that do
    /// not order, NaN, null, lists and maps).
    #[inline]
    pub(crate) fn order(&self, other: &V<'_>) -> Option<Ordering> {
        match (self, other) {
            (V::Bool(a), V::Bool(b)) => Some(a.cmp(b)),
            (V::Str(a), V::Str(b)) => Some(a.cmp(b)),
            (V::Bytes(a), V::Bytes(b)) => Some(a.cmp(b)),
            (V::Ts(a), V::Ts(b)) => Some(a.cmp(b)),
            _ => num_cmp(self, other),
        }
    }

    /// `item in self`: a list holds an equal element; a map has the key (only
    /// strings can be keys here, so other numbers and bools are never found).
    /// `None` is an error: not a container, or a map asked about a null, list...
    #[inline]
    pub(crate) fn holds(&self, item: &V<'_>) -> Option<bool> {
        match self {
            V::List(items) => Some(items.iter().any(|i| i.equals(item))),
            V::Map(_) => match item {
                V::Str(s) => Some(self.get(s).is_some()),
                V::Int(_) | V::UInt(_) | V::Double(_) | V::Bool(_) => Some(false),
                _ => None,
            },
            _ => None,
        }
    }

    /// `size(self)`: characters of a string, bytes, elements, entries.
    #[inline]
    pub(crate) fn size(&self) -> Option<i64> {
        let n = match self {
            V::Str(s) => s.chars().count(),
            V::Bytes(b) => b.len(),
            V::List(l) => l.len(),
            V::Map(m) => m.len(),
            _ => return None,
        };
        i64::try_from(n).ok()
    }

    /// The value for the interpreter.
    pub(crate) fn to_cel(&self) -> cel::Value {
        match self {
            V::Null => cel::Value::Null,
            V::Bool(b) => cel::Value::Bool(*b),
            V::Int(i) => cel::Value::Int(*i),
            V::UInt(u) => cel::Value::UInt(*u),
            V::Double(d) => cel::Value::Float(*d),
            V::Str(s) => cel::Value::String(Arc::new(s.to_string())),
            V::Bytes(b) => cel::Value::Bytes(Arc::new(b.to_vec())),
            V::Ts(t) => cel::Value::Timestamp(*t),
            V::List(l) => cel::Value::List(Arc::new(l.iter().map(V::to_cel).collect())),
            V::Map(m) => {
                let map: HashMap<cel::objects::Key, cel::Value> =
                    m.iter().map(|(k, v)| (cel::objects::Key::String(Arc::new(k.to_string())), v.to_cel())).collect();
                cel::Value::Map(map.into())
            }
        }
    }

    /// An interpreter's value as a plan value, when the plan can represent it.
    pub(crate) fn from_cel(v: &cel::Value) -> Option<V<'static>> {
        Some(match v {
            cel::Value::Null => V::Null,
            cel::Value::Bool(b) => V::Bool(*b),
            cel::Value::Int(i) => V::Int(*i),
            cel::Value::UInt(u) => V::UInt(*u),
            cel::Value::Float(d) => V::Double(*d),
            cel::Value::String(s) => V::Str(Cow::Owned(s.to_string())),
            cel::Value::Bytes(b) => V::Bytes(Cow::Owned(b.to_vec())),
            cel::Value::Timestamp(t) => V::Ts(*t),
            cel::Value::List(l) => V::List(l.iter().map(V::from_cel).collect::<Option<_>>()?),
            cel::Value::Map(m) => {
                let mut entries = Vec::with_capacity(m.map.len());
                for (k, v) in m.map.iter() {
                    let cel::objects::Key::String(k) = k else { return None };
                    entries.push((Cow::Owned(k.to_string()), V::from_cel(v)?));
                }
                V::Map(entries)
            }
            _ => return None,
        })
    }
}

/// Numbers ordered across int, uint and double as CEL orders them.
#[inline]
fn num_cmp(a: &V<'_>, b: &V<'_>) -> Option<Ordering> {
    // CEL compares an int or uint with a double by converting it to double.
    #[allow(clippy::cast_precision_loss)]
    match (a, b) {
        (V::Int(x), V::Int(y)) => Some(x.cmp(y)),
        (V::UInt(x), V::UInt(y)) => Some(x.cmp(y)),
        (V::Int(x), V::UInt(y)) => Some(u64::try_from(*x).map_or(Ordering::Less, |x| x.cmp(y))),
        (V::UInt(x), V::Int(y)) => Some(i64::try_from(*x).map_or(Ordering::Greater, |x| x.cmp(y))),
        (V::Double(x), V::Double(y)) => x.partial_cmp(y),
        (V::Int(x), V::Double(y)) => (*x as f64).partial_cmp(y),
        (V::UInt(x), V::Double(y)) => (*x as f64).partial_cmp(y),
        (V::Double(x), V::Int(y)) => x.partial_cmp(&(*y as f64)),
        (V::Double(x), V::UInt(y)) => x.partial_cmp(&(*y as f64)),
        _ => None,
    }
}

/// A tip for comparing a time with a string.
pub(crate) fn hint(a: Kinds, b: Kinds) -> &'static str {
    if (a & TS != 0 && b & STR != 0) || (b & TS != 0 && a & STR != 0) {
        ". Write a time as timestamp(\"2026-11-30T00:00:00Z\")"
    } else {
        ""
    }
}

/// A constant as CEL writes it, for error messages.
pub(crate) fn literal(v: &V<'_>) -> String {
    match v {
        V::Null => "null".into(),
        V::Bool(b) => b.to_string(),
        V::Int(i) => i.to_string(),
        V::UInt(u) => format!("{u}u"),
        V::Double(d) => format!("{d:?}"),
        V::Str(s) => format!("{s:?}"),
        V::Bytes(b) => format!("b{:?}", String::from_utf8_lossy(b)),
        V::Ts(t) => format!("timestamp(\"{}\")", t.to_rfc3339()),
        V::List(_) => "the list".into(),
        V::Map(_) => "the map".into(),
    }
}

pub(crate) fn cel_kind(v: &cel::Value) -> Kinds {
    V::from_cel(v).map_or(OTHER, |v| v.kind())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(x: &str) -> V<'_> {
        V::Str(Cow::Borrowed(x))
    }

    #[test]
    fn numbers_compare_across_kinds() {
        assert!(V::Int(1).equals(&V::UInt(1)));
        assert!(V::Int(1).equals(&V::Double(1.0)));
        assert!(!V::Int(-1).equals(&V::UInt(u64::MAX)));
        assert!(!V::Double(f64::NAN).equals(&V::Double(f64::NAN)));
        assert_eq!(V::Int(-1).order(&V::UInt(0)), Some(Ordering::Less));
        assert_eq!(V::UInt(u64::MAX).order(&V::Int(i64::MAX)), Some(Ordering::Greater));
        assert_eq!(V::Double(f64::NAN).order(&V::Int(1)), None);
        assert_eq!(V::Null.order(&V::Null), None);
        assert!(!V::Int(1).equals(&s("1")));
    }

    #[test]
    fn containers() {
        let m = V::Map(vec![(Cow::Borrowed("a"), V::Int(1))]);
        assert_eq!(m.holds(&s("a")), Some(true));
        assert_eq!(m.holds(&V::Int(1)), Some(false));
        assert_eq!(m.holds(&V::Null), None);
        assert_eq!(s("abc").holds(&s("a")), None);
        let l = V::List(vec![V::Int(1), s("x")]);
        assert_eq!(l.holds(&V::Double(1.0)), Some(true));
        assert_eq!(l.size(), Some(2));
        assert_eq!(s("ü").size(), Some(1));
        assert_eq!(V::Null.size(), None);
        assert!(m.equals(&V::Map(vec![(Cow::Borrowed("a"), V::Double(1.0))])));
    }

    #[test]
    fn round_trips_through_cel() {
        let v = V::Map(vec![(Cow::Borrowed("a"), V::List(vec![V::Int(1), V::Null, s("x"), V::Bytes(Cow::Borrowed(b"\x00"))]))]);
        assert_eq!(V::from_cel(&v.to_cel()), Some(v));
    }

    #[test]
    fn kinds_for_checks() {
        assert!(may_equal(INT, DOUBLE));
        assert!(!may_equal(INT, STR));
        assert!(may_equal(STR | NULL, NULL));
        assert!(!may_order(TS, STR));
        assert!(may_order(OTHER | STR, STR));
        assert_eq!(kind_names(STR | NULL), "a null or string");
    }
}
