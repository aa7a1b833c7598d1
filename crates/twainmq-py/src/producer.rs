//! `TwainMQProducer`: 0.2.3's producer over the engine's.

use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyString};
use twainmq::{Key, KeyType, Outgoing, Producer, Store};

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
    /// `None` once closed: the next write opens the topic again (0.2.3's
    /// `close()` does nothing, and its producer writes on after it).
    inner: Mutex<Option<Producer>>,
    /// Where the producer writes, to open it again after `close()`.
    store: Store,
    topic: String,
    key_type: KeyType,
    partitions: u32,
    /// The Python partitioner `(key, n_partitions) -> partition`, if given.
    partitioner: Option<Py<PyAny>>,
    chosen: Arc<Mutex<Chosen>>,
    twain: Py<PyAny>,
}

/// A producer of `topic`; with `custom`, its partitions are those `choose`
/// put in `chosen` for the messages being sent.
fn open_producer(store: &Store, topic: &str, custom: bool, chosen: &Arc<Mutex<Chosen>>) -> twainmq::Result<Producer> {
    let producer = store.producer(topic)?;
    if !custom {
        return Ok(producer);
    }
    let chosen = Arc::clone(chosen);
    Ok(producer.with_partitioner(move |_, _| {
        let mut c = lock(&chosen);
        // Filled by `choose` for exactly the messages being sent; past its end
        // (never, by that invariant) the engine's range check refuses the message.
        let p = c.parts.get(c.next).copied().unwrap_or(u32::MAX);
        c.next += 1;
        p
    }))
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // A panic while holding the lock cannot leave the engine's producer half
    // changed in a way its next call does not check again; go on.
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl TwainMQProducer {
    /// The engine's producer for this topic (after `close()`, a new one),
    /// its partitioner ours when one was given.
    fn open(&self) -> twainmq::Result<Producer> {
        open_producer(&self.store, &self.topic, self.partitioner.is_some(), &self.chosen)
    }

    /// Run `f` on the producer, opened again first if it was closed.
    fn with_producer<T>(&self, f: impl FnOnce(&mut Producer) -> twainmq::Result<T>) -> twainmq::Result<T> {
        let mut inner = lock(&self.inner);
        let producer = match inner.take() {
            Some(p) => p,
            None => self.open()?,
        };
        f(inner.insert(producer))
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
    #[pyo3(signature = (twain, topic, partitioner = None), text_signature = "(twain, topic, partitioner=None)")]
    fn new(py: Python<'_>, twain: Py<PyAny>, topic: String, partitioner: Option<Py<PyAny>>) -> PyResult<Self> {
        let store = twain.bind(py).call_method0("_native_store")?;
        let store = store.cast::<NativeStore>()?.get().store.clone();
        let chosen = Arc::new(Mutex::new(Chosen::default()));
        let producer = py.detach(|| open_producer(&store, &topic, partitioner.is_some(), &chosen)).py_err(py)?;
        let (key_type, partitions) = (producer.config().key_type, producer.config().partitions);
        Ok(TwainMQProducer { inner: Mutex::new(Some(producer)), store, topic, key_type, partitions, partitioner, chosen, twain })
    }

    /// Write a message to the topic, to the partition its key selects.
    /// `message` is a `str`, `bytes` or a dataclass instance whose type the
    /// topic declares. Returns when the message is in the store. After
    /// `close()` the topic is opened again, as 0.2.3's producer writes on.
    #[pyo3(signature = (key, message))]
    fn write_message(&self, py: Python<'_>, key: &Bound<'_, PyAny>, message: &Bound<'_, PyAny>) -> PyResult<()> {
        let k = key_from_py(&self.topic, self.key_type, key)?;
        if self.partitioner.is_some() {
            self.choose(py, std::slice::from_ref(key))?;
        }
        // str and bytes are sent from Python's own buffer, without a copy
        // (immutable, and kept alive by the caller for the call).
        let sent = if let Ok(s) = message.cast_exact::<PyString>() {
            let text = s.to_str()?;
            py.detach(|| self.with_producer(|p| p.send_text(k, text).map(drop)))
        } else if let Ok(b) = message.cast_exact::<PyBytes>() {
            let bytes = b.as_bytes();
            py.detach(|| self.with_producer(|p| p.send_bytes(k, bytes).map(drop)))
        } else {
            let out = outgoing_from_py(message)?;
            py.detach(|| self.with_producer(|p| p.send(&k, &out).map(drop)))
        };
        sent.py_err(py)
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
        py.detach(|| self.with_producer(|p| p.send_batch(&batch))).py_err(py)
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
    /// the store). Closing twice is harmless; a write after it opens them
    /// again (0.2.3's `close()` does nothing, and its producer writes on).
    fn close(&self, py: Python<'_>) -> PyResult<()> {
        match py.detach(|| lock(&self.inner).take().map(Producer::close)) {
            None => Ok(()),
            Some(r) => r.py_err(py),
        }
    }

    fn __enter__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    /// 0.2.3's parameter names (`type`, `value`, `traceback`).
    #[pyo3(signature = (r#type = None, value = None, traceback = None))]
    fn __exit__(
        &self,
        py: Python<'_>,
        r#type: Option<Py<PyAny>>,
        value: Option<Py<PyAny>>,
        traceback: Option<Py<PyAny>>,
    ) -> PyResult<bool> {
        let _ = (r#type, value, traceback);
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
