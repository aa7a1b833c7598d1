//! Python values to engine keys and payloads, and engine messages to Python
//! `Message`s, as 0.2.3 makes and reads them.

use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBytes, PyDateTime, PyInt, PyString, PyTuple, PyTzInfo};
use twainmq::{Key, KeyType, Outgoing, Payload};

use crate::errors;
use crate::message::Message;

/// A key for a topic of `key_type`: an `int` for `uN` topics, a `str` for `charN`.
///
/// 0.2.3 raises `InvalidMessageKeyError` for an integer that does not fit
/// (negative, or too large) and an `AttributeError` for a key of the wrong
/// kind; ours raises `KeyKindError`, which is both an
/// `InvalidMessageKeyError` and an `AttributeError`.
pub(crate) fn key_from_py(topic: &str, key_type: KeyType, key: &Bound<'_, PyAny>) -> PyResult<Key> {
    if key_type.is_free() {
        // Free keys (the format's next version): str for text, bytes for
        // bytes, None for no key; the engine checks the kind and length.
        let kind_error = |what: &str| -> PyResult<Key> {
            Err(errors::new_error(
                key.py(),
                "KeyKindError",
                format!("topic {topic:?} has {key_type} keys: give {what}, not {} {}", key.get_type().name()?, key.repr()?),
                &[("topic", topic.into_pyobject(key.py())?.into_any())],
            ))
        };
        if key.is_none() {
            return Ok(Key::Null);
        }
        if let Ok(s) = key.cast::<PyString>() {
            return Ok(Key::Str(s.to_str()?.to_owned()));
        }
        if let Ok(b) = key.cast::<PyBytes>() {
            return Ok(Key::Bytes(b.as_bytes().to_vec()));
        }
        return kind_error(match key_type {
            KeyType::Text => "a str",
            KeyType::Bytes => "bytes (or a str, taken as its UTF-8)",
            _ => "a str, bytes or None",
        });
    }
    if key_type.is_int() {
        if !key.is_instance_of::<PyInt>() {
            return Err(errors::new_error(
                key.py(),
                "KeyKindError",
                format!("topic {topic:?} has integer keys ({key_type}): give an int, not {} {}", key.get_type().name()?, key.repr()?),
                &[("topic", topic.into_pyobject(key.py())?.into_any())],
            ));
        }
        match key.extract::<u64>() {
            Ok(v) => Ok(Key::Int(v)),
            Err(_) => Err(errors::new_error(
                key.py(),
                "InvalidMessageKeyError",
                format!(
                    "Integer key too large for {} bytes: {} does not fit key type {key_type} of topic {topic:?} (keys are 0 to {})",
                    key_type.byte_len(),
                    key.repr()?,
                    key_type.max_int().unwrap_or(u64::MAX)
                ),
                &[("topic", topic.into_pyobject(key.py())?.into_any())],
            )),
        }
    } else {
        match key.cast::<PyString>() {
            Ok(s) => Ok(Key::Str(s.to_str()?.to_owned())),
            Err(_) => Err(errors::new_error(
                key.py(),
                "KeyKindError",
                format!("topic {topic:?} has string keys ({key_type}): give a str, not {} {}", key.get_type().name()?, key.repr()?),
                &[("topic", topic.into_pyobject(key.py())?.into_any())],
            )),
        }
    }
}

/// The Python key of an engine key.
fn key_to_py(py: Python<'_>, key: &Key) -> PyResult<Py<PyAny>> {
    Ok(match key {
        Key::Int(v) => v.into_pyobject(py)?.into_any().unbind(),
        Key::Str(s) => PyString::new(py, s).into_any().unbind(),
        Key::Bytes(b) => PyBytes::new(py, b).into_any().unbind(),
        Key::Null => py.None(),
    })
}

static CLASSIFY: PyOnceLock<Py<PyAny>> = PyOnceLock::new();

/// A payload as 0.2.3's `encode_message` takes it: a dataclass instance
/// (typed), `bytes`, or `str`, in that order of checks. `str` and `bytes`
/// themselves take a fast path; anything else asks
/// `twainmq_rs.producer._classify`, which also encodes dataclasses exactly
/// as 0.2.3 does (`json.dumps(asdict(m), separators=(",", ":"))`).
pub(crate) fn outgoing_from_py(message: &Bound<'_, PyAny>) -> PyResult<Outgoing> {
    if let Ok(s) = message.cast_exact::<PyString>() {
        return Ok(Outgoing::Text(s.to_str()?.to_owned()));
    }
    if let Ok(b) = message.cast_exact::<PyBytes>() {
        return Ok(Outgoing::Bytes(b.as_bytes().to_vec()));
    }
    let py = message.py();
    let classify = CLASSIFY.import(py, "twainmq_rs.producer", "_classify")?;
    let got = classify.call1((message,))?;
    let got = got.cast::<PyTuple>()?;
    let kind: u8 = got.get_item(0)?.extract()?;
    Ok(match kind {
        0 => Outgoing::Text(got.get_item(1)?.extract()?),
        1 => Outgoing::Bytes(got.get_item(1)?.extract()?),
        _ => Outgoing::Typed { class: got.get_item(1)?.extract()?, json: got.get_item(2)?.extract()? },
    })
}

/// Why a message could not be handed to Python.
pub(crate) enum NotDelivered {
    /// Its dataclass is not registered with the `Twain`: put it back, so the
    /// caller can register the class and poll it again.
    PutBack(PyErr),
    /// It cannot be a Python value at all (a timestamp no `datetime` holds,
    /// fields that are not JSON): skipped, as the engine skips damaged lines.
    Skip(PyErr),
}

impl From<NotDelivered> for PyErr {
    fn from(n: NotDelivered) -> PyErr {
        match n {
            NotDelivered::PutBack(e) | NotDelivered::Skip(e) => e,
        }
    }
}

static UNREGISTERED: PyOnceLock<Py<PyAny>> = PyOnceLock::new();

/// The Python `Message` of an engine message; `decode` turns a typed
/// payload's `(class name or None, type id, JSON text)` into its dataclass.
pub(crate) fn message_to_py(py: Python<'_>, m: &twainmq::Message, decode: &Bound<'_, PyAny>) -> Result<Py<Message>, NotDelivered> {
    let skip = NotDelivered::Skip;
    let key = key_to_py(py, &m.key).map_err(skip)?;
    let timestamp = utc_datetime(py, m.timestamp).map_err(|e| {
        NotDelivered::Skip(errors::corrupt_message(
            py,
            m,
            format!(
                "its timestamp {} is not a date Python can hold ({e}); the message is skipped, run `twainmq check` to list damaged lines",
                m.timestamp
            ),
        ))
    })?;
    let message = match &m.payload {
        Payload::Text(s) => PyString::new(py, s).into_any().unbind(),
        Payload::Bytes(b) => PyBytes::new(py, b).into_any().unbind(),
        Payload::Typed(t) => match decode.call1((t.class.as_deref(), t.type_id, t.json.as_str())) {
            Ok(v) => v.unbind(),
            Err(e) => {
                let unregistered = UNREGISTERED.import(py, "twainmq_rs.errors", "UnregisteredMessageTypeError").map_err(skip)?;
                let put_back = e.is_instance(py, unregistered);
                errors::locate(py, &e, m);
                return Err(if put_back { NotDelivered::PutBack(e) } else { NotDelivered::Skip(e) });
            }
        },
    };
    Py::new(py, Message { offset: m.offset, key, timestamp: timestamp.into_any().unbind(), message }).map_err(skip)
}

/// `datetime.fromtimestamp(ts, tz=timezone.utc)`, equal to it in every
/// field and error (the tests compare the two over many values).
#[pyfunction]
#[pyo3(name = "_utc_datetime")]
pub(crate) fn utc_datetime(py: Python<'_>, ts: f64) -> PyResult<Bound<'_, PyDateTime>> {
    let utc = PyTzInfo::utc(py)?;
    match utc_fields(ts).map(|f| PyDateTime::new(py, f.year, f.month, f.day, f.hour, f.minute, f.second, f.micro, Some(&utc))) {
        Some(Ok(dt)) => Ok(dt),
        // Outside the range the fields are computed for (or refused by
        // `datetime` itself): Python's own conversion, and its error.
        _ => PyDateTime::from_timestamp(py, ts, Some(&utc)),
    }
}

/// A UTC date and time's fields, to the microsecond.
#[derive(Debug, PartialEq, Eq)]
struct UtcFields {
    year: i32,
    month: u8,
    day: u8,
    hour: u8,
    minute: u8,
    second: u8,
    micro: u32,
}

/// The fields of `datetime.fromtimestamp(ts, tz=timezone.utc)`, computed here
/// because Python's own path (a call through `datetime.fromtimestamp`, `gmtime`
/// and `tzinfo.fromutc`) costs more than the rest of a poll. The rounding is
/// CPython's (`_PyTime_ObjectToTimeval`, half to even on the microseconds);
/// `None` outside 1970..=9999, where the caller uses Python's conversion.
fn utc_fields(ts: f64) -> Option<UtcFields> {
    // 253402300800 is 10000-01-01T00:00:00Z.
    if !(0.0..253_402_300_800.0).contains(&ts) {
        return None;
    }
    let mut whole = ts.trunc();
    let mut micro = (ts - whole) * 1e6;
    let rounded = micro.round();
    micro = if (micro - rounded).abs() == 0.5 { 2.0 * (micro / 2.0).round() } else { rounded };
    if micro >= 1e6 {
        micro -= 1e6;
        whole += 1.0;
    }
    // In range and non-negative: both convert exactly.
    let secs = whole as i64;
    let micro = micro as u32;
    let days = secs.div_euclid(86_400);
    let of_day = secs.rem_euclid(86_400);
    // Howard Hinnant's civil_from_days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    if year > 9999 {
        return None;
    }
    Some(UtcFields {
        year: year as i32,
        month: month as u8,
        day: day as u8,
        hour: (of_day / 3600) as u8,
        minute: (of_day / 60 % 60) as u8,
        second: (of_day % 60) as u8,
        micro,
    })
}
