//! Engine errors as Python exceptions, of the classes in
//! `python/twainmq_rs/errors.py`.
//!
//! Each is 0.2.3's class where 0.2.3 has one for the case; where 0.2.3 let a
//! built-in escape (`ValueError` for an existing topic, `KeyError` for an
//! undeclared dataclass, `AttributeError` for a key of the wrong kind), ours
//! is a `TwainMQError` subclass that is also that built-in, so `except`
//! clauses written for 0.2.3 still catch it. File-system failures are the
//! built-in `OSError` subclass their errno selects, as 0.2.3's are. Every
//! exception of ours carries `code` (the engine's stable error code) and,
//! where the error names them, `topic`, `group`, `partition`, `offset` and
//! `path`.

use std::path::Path;

use pyo3::prelude::*;
use twainmq::{Error, GroupError};

/// An exception of class `class` from `twainmq_rs.errors` with `message`
/// and attributes `attrs`. Should the module itself fail to load, the
/// failure is what is raised (never a panic).
pub(crate) fn new_error(py: Python<'_>, class: &str, message: String, attrs: &[(&str, Bound<'_, PyAny>)]) -> PyErr {
    let made = (|| -> PyResult<PyErr> {
        let cls = py.import("twainmq_rs.errors")?.getattr(class)?;
        let exc = cls.call1((message,))?;
        for (name, value) in attrs {
            exc.setattr(*name, value)?;
        }
        Ok(PyErr::from_value(exc))
    })();
    made.unwrap_or_else(|e| e)
}

fn py_str<'py>(py: Python<'py>, s: &str) -> Bound<'py, PyAny> {
    pyo3::types::PyString::new(py, s).into_any()
}

fn py_int<'py>(py: Python<'py>, v: u64) -> Bound<'py, PyAny> {
    match v.into_pyobject(py) {
        Ok(i) => i.into_any(),
        Err(never) => match never {},
    }
}

fn py_path<'py>(py: Python<'py>, p: &Path) -> Bound<'py, PyAny> {
    py_str(py, &p.to_string_lossy())
}

/// An `OSError` (the subclass its errno selects: `FileNotFoundError`,
/// `PermissionError`, ...) with the engine's message and the path.
fn os_error(py: Python<'_>, message: String, path: &Path, cause: &std::io::Error) -> PyErr {
    let made = (|| -> PyResult<PyErr> {
        let builtins = py.import("builtins")?;
        let os_error = builtins.getattr("OSError")?;
        let path = path.to_string_lossy().into_owned();
        let exc = match cause.raw_os_error() {
            // Windows codes go in as `winerror`, which Python maps to the errno.
            #[cfg(windows)]
            Some(code) => os_error.call1((0, message, path, code))?,
            #[cfg(not(windows))]
            Some(code) => os_error.call1((code, message, path))?,
            // An error the engine made itself (no OS code): the errno of its
            // kind, so `except FileNotFoundError` works for it too.
            None => {
                let errno = kind_errno(cause.kind()).map(|name| py.import("errno")?.getattr(name)).transpose()?;
                match errno {
                    Some(e) => os_error.call1((e, message, path))?,
                    None => os_error.call1((message, path))?,
                }
            }
        };
        Ok(PyErr::from_value(exc))
    })();
    made.unwrap_or_else(|e| e)
}

/// The name, in Python's `errno` module, of the errno an I/O error kind
/// stands for (the kinds stable in the workspace's rust-version).
fn kind_errno(kind: std::io::ErrorKind) -> Option<&'static str> {
    use std::io::ErrorKind as K;
    Some(match kind {
        K::NotFound => "ENOENT",
        K::PermissionDenied => "EACCES",
        K::AlreadyExists => "EEXIST",
        K::WouldBlock => "EAGAIN",
        K::Interrupted => "EINTR",
        K::BrokenPipe => "EPIPE",
        K::TimedOut => "ETIMEDOUT",
        _ => return None,
    })
}

/// The Python exception for an engine error.
pub(crate) fn engine_error(py: Python<'_>, err: Error) -> PyErr {
    let message = err.to_string();
    let code = err.code();
    let mut attrs: Vec<(&str, Bound<'_, PyAny>)> = vec![("code", py_str(py, code))];
    let class = match &err {
        Error::Io { path, cause, .. } => return os_error(py, message, path, cause),
        Error::InvalidTopicName { name, .. } => {
            attrs.push(("topic", py_str(py, name)));
            "InvalidTopicNameError"
        }
        Error::InvalidGroupName { name, .. } => {
            attrs.push(("group", py_str(py, name)));
            "InvalidGroupNameError"
        }
        Error::InvalidKeyType { .. } => "InvalidKeyTypeError",
        Error::InvalidPartitionCount { .. } => "InvalidPartitionCountError",
        Error::InvalidMessageTypeName { .. } => "InvalidMessageTypeNameError",
        Error::StoreNotFound { path } => {
            attrs.push(("path", py_path(py, path)));
            "StoreNotFoundError"
        }
        Error::StoreNotAFolder { path, .. } => {
            attrs.push(("path", py_path(py, path)));
            "StoreNotAFolderError"
        }
        Error::TopicExists { topic, .. } => {
            attrs.push(("topic", py_str(py, topic)));
            "TopicExistsError"
        }
        Error::TopicNotFound { topic, .. } => {
            attrs.push(("topic", py_str(py, topic)));
            "TopicNotFoundError"
        }
        Error::CorruptConfig { topic, path, .. } => {
            attrs.push(("topic", py_str(py, topic)));
            attrs.push(("path", py_path(py, path)));
            "ConfigCorruptError"
        }
        Error::KeyOutOfRange { topic, .. } | Error::KeyTooLong { topic, .. } | Error::KeyWrongKind { topic, .. } => {
            attrs.push(("topic", py_str(py, topic)));
            "InvalidMessageKeyError"
        }
        Error::UnknownMessageType { topic, name, .. } => {
            attrs.push(("topic", py_str(py, topic)));
            attrs.push(("type_name", py_str(py, name)));
            "UnknownMessageTypeError"
        }
        Error::MessageTooLong { topic, .. } => {
            attrs.push(("topic", py_str(py, topic)));
            "MessageTooLongError"
        }
        Error::MessageTooLarge { topic, .. } => {
            attrs.push(("topic", py_str(py, topic)));
            "MessageTooLargeError"
        }
        Error::NewerFormat { topic, path, .. } => {
            attrs.push(("topic", py_str(py, topic)));
            attrs.push(("path", py_path(py, path)));
            "NewerFormatError"
        }
        Error::InvalidTopicOption { .. } => "InvalidTopicOptionError",
        Error::PartitionOutOfRange { topic, partition, .. } => {
            attrs.push(("topic", py_str(py, topic)));
            attrs.push(("partition", py_int(py, (*partition).into())));
            "PartitionOutOfRangeError"
        }
        Error::BadPartitioner { .. } => "PartitionOutOfRangeError",
        Error::CorruptLine { topic, partition, offset, path, .. } => {
            attrs.push(("topic", py_str(py, topic)));
            attrs.push(("partition", py_int(py, (*partition).into())));
            attrs.push(("offset", py_int(py, *offset)));
            attrs.push(("path", py_path(py, path)));
            "CorruptMessageError"
        }
        Error::WrongPayloadKind { .. } | Error::TypedEncode { .. } | Error::TypedDecode { .. } => "TwainSchemaError",
        Error::SymlinkRefused { path } | Error::NotAFile { path, .. } => {
            attrs.push(("path", py_path(py, path)));
            "UnsafePathError"
        }
        Error::ShortWrite { path, .. } => {
            attrs.push(("path", py_path(py, path)));
            "ShortWriteError"
        }
        Error::TopicDeleted { topic, path } => {
            attrs.push(("topic", py_str(py, topic)));
            attrs.push(("path", py_path(py, path)));
            "TopicDeletedError"
        }
        Error::FileInUse { path, .. } => {
            attrs.push(("path", py_path(py, path)));
            "FileInUseError"
        }
        Error::Group(g) => {
            match g {
                GroupError::TopicMismatch { group, .. }
                | GroupError::JoinFailed { group, .. }
                | GroupError::UnknownTopic { group, .. }
                | GroupError::OtherTopic { group, .. } => attrs.push(("group", py_str(py, group))),
                GroupError::PartitionMismatch { group, topic, .. } | GroupError::NoSuchPartition { group, topic, .. } => {
                    attrs.push(("group", py_str(py, group)));
                    attrs.push(("topic", py_str(py, topic)));
                }
                _ => {}
            }
            "GroupError"
        }
        _ => "TwainMQError",
    };
    new_error(py, class, message, &attrs)
}

/// Map an engine result's error.
pub(crate) trait IntoPy<T> {
    /// The result with its error as a Python exception.
    fn py_err(self, py: Python<'_>) -> PyResult<T>;
}

impl<T> IntoPy<T> for twainmq::Result<T> {
    fn py_err(self, py: Python<'_>) -> PyResult<T> {
        self.map_err(|e| engine_error(py, e))
    }
}

/// A `CorruptMessageError` for a message the engine read but Python cannot hold.
pub(crate) fn corrupt_message(py: Python<'_>, m: &twainmq::Message, problem: String) -> PyErr {
    let message = format!("topic {:?}, partition {}, offset {}: {problem}", &*m.topic, m.partition, m.offset);
    new_error(
        py,
        "CorruptMessageError",
        message,
        &[
            ("code", py_str(py, "corrupt_line")),
            ("topic", py_str(py, &m.topic)),
            ("partition", py_int(py, m.partition.into())),
            ("offset", py_int(py, m.offset)),
        ],
    )
}

/// Say on an exception raised while decoding a message which message it was
/// (`topic`, `partition`, `offset` attributes), so a caller can skip it.
pub(crate) fn locate(py: Python<'_>, err: &PyErr, m: &twainmq::Message) {
    let value = err.value(py);
    // Built-in exceptions without a __dict__ cannot take attributes; the
    // message still says what failed.
    let _ = value.setattr("topic", py_str(py, &m.topic));
    let _ = value.setattr("partition", py_int(py, m.partition.into()));
    let _ = value.setattr("offset", py_int(py, m.offset));
}

/// `ConsumerClosedError` (`class`): the `what` ("consumer") of `topic` was
/// closed; the message says how to get a new one. (A producer writes on
/// after `close()`, as 0.2.3's.)
pub(crate) fn closed(py: Python<'_>, class: &str, what: &str, topic: &str) -> PyErr {
    new_error(
        py,
        class,
        format!("the {what} of topic {topic:?} is closed: make a new one with Twain.{what}({topic:?})"),
        &[("topic", py_str(py, topic))],
    )
}

/// A `TypeError`-like refusal of arguments, as our own class.
pub(crate) fn invalid_argument(py: Python<'_>, class: &str, message: String) -> PyErr {
    new_error(py, class, message, &[])
}
