//! `TwainMQProducer`: 0.2.3's producer over the engine's.

use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyString};
use twainmq::{Key, KeyType, Outgoing, Producer};

use crate::convert::{key_from_py, outgoing_from_py};
use crate::errors::{self, IntoPy};
use crate::store::NativeStore;

/// Partitions a custom (Python) partitioner chose for the messages being
/// sent, in order: the engine's partitioner hook takes them one per message.
/// The hook runs on the sending thread, inside the call that filled this.
#[derive(Default)]
struct Chosen {
    parts: Vec<u32>,
    next: usize,
}

/// A producer for writing messages to a TwainMQ topic.
///
/// As 0.2.3's: `write_message(key, message)` with `str`, `bytes` or a
/// dataclass instance; `close()`; usable as a context manager. Ours keeps
/// each partition's file open for the day, and a message is reported
/// written only when it is in the store (see the package's README).
#[pyclass(module = "twainmq_rs.producer", name = "TwainMQProducer", subclass, frozen)]
pub struct TwainMQProducer {
    /// `None` once closed.
    inner: Mutex<Option<Producer>>,
    topic: String,
    key_type: KeyType,
    partitions: u32,
    /// The Python partitioner `(key, n_partitions) -> partition`, if given.
    partitioner: Option<Py<PyAny>>,
    chosen: Arc<Mutex<Chosen>>,
    twain: Py<PyAny>,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // A panic while holding the lock cannot leave the engine's producer half
    // changed in a way its next call does not check again; go on.
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl TwainMQProducer {
    fn closed(&self, py: Python<'_>) -> PyErr {
        errors::closed(py, "ProducerClosedError", "producer", &self.topic)
    }

    /// Run the custom partitioner (if any) for `keys`, in order.
    fn choose(&self, py: Python<'_>, keys: &[Bound<'_, PyAny>]) -> PyResult<()> {
        let Some(f) = &self.partitioner else { return Ok(()) };
        let mut parts = Vec::with_capacity(keys.len());
        for key in keys {
            let p = f.bind(py).call1((key, self.partitions))?;
            let p: i64 = p.extract()?;
            match u32::try_from(p) {
                Ok(p) if p < self.partitions => parts.push(p),
                _ => {
                    return Err(errors::new_error(
                        py,
                        "PartitionOutOfRangeError",
                        format!(
                            "the partitioner chose partition {p} for key {}, but topic {:?} has {} (0 to {})",
                            key.repr()?,
                            self.topic,
                            self.partitions,
                            self.partitions - 1
                        ),
                        &[("topic", PyString::new(py, &self.topic).into_any())],
                    ))
                }
            }
        }
        *lock(&self.chosen) = Chosen { parts, next: 0 };
        Ok(())
    }
}

#[pymethods]
impl TwainMQProducer {
    /// `TwainMQProducer(twain, topic, partitioner=None)`, as 0.2.3's.
    #[new]
    #[pyo3(signature = (twain, topic, partitioner = None))]
    fn new(py: Python<'_>, twain: Py<PyAny>, topic: String, partitioner: Option<Py<PyAny>>) -> PyResult<Self> {
        let store = twain.bind(py).call_method0("_native_store")?;
        let store = store.cast::<NativeStore>()?.get().store.clone();
        let chosen = Arc::new(Mutex::new(Chosen::default()));
        let producer = py.detach(|| store.producer(&topic)).py_err(py)?;
        let (key_type, partitions) = (producer.config().key_type, producer.config().partitions);
        let producer = match &partitioner {
            None => producer,
            Some(_) => {
                let chosen = Arc::clone(&chosen);
                producer.with_partitioner(move |_, _| {
                    let mut c = lock(&chosen);
                    // Filled by `choose` for exactly the messages being sent;
                    // past its end (never, by that invariant) the engine's
                    // range check refuses the message.
                    let p = c.parts.get(c.next).copied().unwrap_or(u32::MAX);
                    c.next += 1;
                    p
                })
            }
        };
        Ok(TwainMQProducer { inner: Mutex::new(Some(producer)), topic, key_type, partitions, partitioner, chosen, twain })
    }

    /// Write a message to the topic, to the partition its key selects.
    /// `message` is a `str`, `bytes` or a dataclass instance whose type the
    /// topic declares. Returns when the message is in the store.
    fn write_message(&self, py: Python<'_>, key: &Bound<'_, PyAny>, message: &Bound<'_, PyAny>) -> PyResult<()> {
        let k = key_from_py(&self.topic, self.key_type, key)?;
        self.choose(py, std::slice::from_ref(key))?;
        // str and bytes are sent from Python's own buffer, without a copy
        // (immutable, and kept alive by the caller for the call).
        let sent = if let Ok(s) = message.cast_exact::<PyString>() {
            let text = s.to_str()?;
            py.detach(|| lock(&self.inner).as_mut().map(|p| p.send_text(k, text)))
        } else if let Ok(b) = message.cast_exact::<PyBytes>() {
            let bytes = b.as_bytes();
            py.detach(|| lock(&self.inner).as_mut().map(|p| p.send_bytes(k, bytes)))
        } else {
            let out = outgoing_from_py(message)?;
            py.detach(|| lock(&self.inner).as_mut().map(|p| p.send(&k, &out)))
        };
        match sent {
            None => Err(self.closed(py)),
            Some(r) => r.py_err(py).map(|_| ()),
        }
    }

    /// Write many `(key, message)` pairs in one call (ours; 0.2.3 has none):
    /// each partition's lines go out in as few writes as possible. Nothing
    /// is written if any message is invalid. Returns how many were written.
    fn write_messages(&self, py: Python<'_>, messages: &Bound<'_, PyAny>) -> PyResult<usize> {
        let mut batch: Vec<(Key, Outgoing)> = Vec::new();
        let mut keys = Vec::new();
        for item in messages.try_iter()? {
            let item = item?;
            let (key, message): (Bound<'_, PyAny>, Bound<'_, PyAny>) = item.extract()?;
            batch.push((key_from_py(&self.topic, self.key_type, &key)?, outgoing_from_py(&message)?));
            if self.partitioner.is_some() {
                keys.push(key);
            }
        }
        self.choose(py, &keys)?;
        match py.detach(|| lock(&self.inner).as_mut().map(|p| p.send_batch(&batch))) {
            None => Err(self.closed(py)),
            Some(r) => r.py_err(py),
        }
    }

    /// 0.2.3's `encode_message`: the base85 text of a payload as 0.2.3
    /// writes it (zlib level 6).
    fn encode_message(&self, py: Python<'_>, message: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        let helper = py.import("twainmq_rs.producer")?.getattr("_encode_message_023")?;
        let types =
            self.twain.bind(py).call_method0("_native_store")?.cast::<NativeStore>()?.call_method1("topic_config", (&self.topic,))?;
        Ok(helper.call1((message, types.get_item("message_types")?))?.unbind())
    }

    /// Make sure every message written so far is whole in the store (ours).
    fn flush(&self, py: Python<'_>) -> PyResult<()> {
        match py.detach(|| lock(&self.inner).as_mut().map(Producer::flush)) {
            None => Ok(()),
            Some(r) => r.py_err(py),
        }
    }

    /// Close the producer's files (after making sure what was written is in
    /// the store). Closing twice is harmless; writing after it is an error.
    fn close(&self, py: Python<'_>) -> PyResult<()> {
        match py.detach(|| lock(&self.inner).take().map(Producer::close)) {
            None => Ok(()),
            Some(r) => r.py_err(py),
        }
    }

    fn __enter__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    #[pyo3(signature = (_exc_type = None, _exc = None, _tb = None))]
    fn __exit__(&self, py: Python<'_>, _exc_type: Option<Py<PyAny>>, _exc: Option<Py<PyAny>>, _tb: Option<Py<PyAny>>) -> PyResult<bool> {
        self.close(py)?;
        Ok(false)
    }

    /// The topic written to.
    #[getter]
    fn topic(&self) -> &str {
        &self.topic
    }

    /// The key's width in bytes, negative for `charN` (0.2.3's `key_width`).
    #[getter]
    fn key_width(&self) -> i64 {
        self.key_type.width()
    }

    /// The topic's partition count.
    #[getter]
    fn _n_partitions(&self) -> u32 {
        self.partitions
    }

    /// The `Twain` this producer was made from.
    #[getter]
    fn _twain(&self, py: Python<'_>) -> Py<PyAny> {
        self.twain.clone_ref(py)
    }

    /// Today's UTC date as 0.2.3 names day files (`YYYYMMDD`).
    #[getter]
    fn chunk_str_now(&self, py: Python<'_>) -> PyResult<String> {
        let store = self.twain.bind(py).call_method0("_native_store")?;
        Ok(store.cast::<NativeStore>()?.get().store.today().to_string())
    }

    fn __repr__(&self) -> String {
        format!("TwainMQProducer(topic={:?})", self.topic)
    }
}
