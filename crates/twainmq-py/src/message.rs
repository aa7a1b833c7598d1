//! `Message`: what a consumer returns, as 0.2.3's frozen dataclass is seen
//! from Python (fields, equality, hash, repr, `dataclasses.fields`,
//! `asdict`, `replace`, pickling), built in Rust because a poll makes one per
//! message and a Python dataclass's `__init__` costs more than the read.

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};

/// A single message returned by a TwainMQ consumer: `offset`, `key`,
/// `timestamp` (a UTC `datetime`) and `message` (`str`, `bytes` or a
/// registered dataclass instance). Immutable, as 0.2.3's is.
#[pyclass(module = "twainmq_rs.encoding", name = "Message", frozen, weakref)]
pub struct Message {
    /// The zero-based offset of the message within its partition.
    #[pyo3(get)]
    pub offset: u64,
    /// The key, of the topic's key type (`int` or `str`).
    #[pyo3(get)]
    pub key: Py<PyAny>,
    /// When the message was appended, a UTC `datetime`.
    #[pyo3(get)]
    pub timestamp: Py<PyAny>,
    /// The payload.
    #[pyo3(get)]
    pub message: Py<PyAny>,
}

/// `dataclasses.FrozenInstanceError(message)`.
fn frozen(py: Python<'_>, message: String) -> PyErr {
    match py.import("dataclasses").and_then(|dc| dc.getattr("FrozenInstanceError")) {
        Ok(class) => match class.call1((message,)) {
            Ok(e) => PyErr::from_value(e),
            Err(e) => e,
        },
        Err(e) => e,
    }
}

impl Message {
    fn fields<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(
            py,
            [
                self.offset.into_pyobject(py)?.into_any(),
                self.key.bind(py).clone(),
                self.timestamp.bind(py).clone(),
                self.message.bind(py).clone(),
            ],
        )
    }
}

#[pymethods]
impl Message {
    #[new]
    #[pyo3(signature = (offset, key, timestamp, message), text_signature = "(offset, key, timestamp, message)")]
    fn new(offset: u64, key: Py<PyAny>, timestamp: Py<PyAny>, message: Py<PyAny>) -> Self {
        Message { offset, key, timestamp, message }
    }

    /// A frozen dataclass refuses every assignment with
    /// `dataclasses.FrozenInstanceError` (an `AttributeError`), as 0.2.3's does.
    fn __setattr__(&self, py: Python<'_>, name: &str, _value: &Bound<'_, PyAny>) -> PyResult<()> {
        Err(frozen(py, format!("cannot assign to field '{name}'")))
    }

    /// ... and every deletion.
    fn __delattr__(&self, py: Python<'_>, name: &str) -> PyResult<()> {
        Err(frozen(py, format!("cannot delete field '{name}'")))
    }

    /// As a dataclass's repr: `Message(offset=0, key=1, timestamp=..., message='...')`.
    fn __repr__(slf: &Bound<'_, Self>) -> PyResult<String> {
        let me = slf.get();
        let py = slf.py();
        Ok(format!(
            "{}(offset={}, key={}, timestamp={}, message={})",
            slf.get_type().qualname()?,
            me.offset,
            me.key.bind(py).repr()?,
            me.timestamp.bind(py).repr()?,
            me.message.bind(py).repr()?
        ))
    }

    /// Equal when the other is a `Message` with equal fields (a dataclass's `__eq__`).
    fn __eq__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        match other.cast::<Message>() {
            Ok(o) => Ok(self.fields(py)?.eq(o.get().fields(py)?)?.into_pyobject(py)?.to_owned().into_any().unbind()),
            Err(_) => Ok(py.NotImplemented()),
        }
    }

    /// The hash of the fields' tuple (a frozen dataclass's `__hash__`): a
    /// `TypeError` when the payload is an unhashable dataclass.
    fn __hash__(&self, py: Python<'_>) -> PyResult<isize> {
        self.fields(py)?.hash()
    }

    /// Pickling and `copy`: the class and its four fields.
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyTuple>)> {
        Ok((slf.get_type().into_any(), slf.get().fields(slf.py())?))
    }

    /// For `match msg: case Message(offset, key, ...)`.
    #[classattr]
    fn __match_args__(py: Python<'_>) -> PyResult<Py<PyTuple>> {
        Ok(PyTuple::new(py, ["offset", "key", "timestamp", "message"])?.unbind())
    }

    /// The dataclass fields of 0.2.3's `Message`, so `dataclasses.fields`,
    /// `asdict`, `astuple`, `replace` and `is_dataclass` work on ours.
    #[classattr]
    fn __dataclass_fields__(py: Python<'_>) -> PyResult<Py<PyDict>> {
        let dc = py.import("dataclasses")?;
        let typing = py.import("typing")?;
        let datetime = py.import("datetime")?.getattr("datetime")?;
        let any = typing.getattr("Any")?;
        let int = py.get_type::<pyo3::types::PyInt>();
        let spec = [("offset", int.into_any()), ("key", any.clone()), ("timestamp", datetime), ("message", any)];
        let fields: Vec<Bound<'_, PyTuple>> =
            spec.into_iter().map(|(n, t)| PyTuple::new(py, [n.into_pyobject(py)?.into_any(), t])).collect::<PyResult<_>>()?;
        let kwargs = PyDict::new(py);
        kwargs.set_item("frozen", true)?;
        let made = dc.call_method("make_dataclass", ("Message", fields), Some(&kwargs))?;
        Ok(made.getattr("__dataclass_fields__")?.cast_into::<PyDict>()?.unbind())
    }
}
