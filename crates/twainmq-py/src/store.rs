//! The store a `Twain` opens: topics made, listed, described and deleted.

use std::path::PathBuf;

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyInt, PyString};
use twainmq::{KeyType, Store, TopicSpec};

use crate::errors::{self, IntoPy};

/// A TwainMQ store (a folder), as the engine opens it. `Twain` (Python)
/// makes one on first use.
#[pyclass(module = "twainmq_rs._native", name = "Store", frozen)]
pub struct NativeStore {
    pub(crate) store: Store,
}

#[pymethods]
impl NativeStore {
    /// Open the store in the folder `root`, which must exist.
    #[new]
    fn new(py: Python<'_>, root: PathBuf) -> PyResult<Self> {
        let store = py.detach(|| Store::open(&root)).map_err(|e| match e {
            // 0.2.3 fails on a missing root with the OSError of its first file operation.
            twainmq::Error::StoreNotFound { path } => {
                let cause = std::io::Error::from(std::io::ErrorKind::NotFound);
                errors::engine_error(py, twainmq::Error::Io { op: "open the store in", path, cause })
            }
            other => errors::engine_error(py, other),
        })?;
        Ok(NativeStore { store })
    }

    /// Create a topic: `key_type` is `u8`, `u16`, `u32`, `u64` or `charN`
    /// (0.2.3's), or `text`, `bytes` or `any` (free keys); `message_types`
    /// are numbered as 0.2.3 numbers them: by their place in the list, a name
    /// listed twice by its last place; `max_message_bytes` (not `None`) allows
    /// large messages of up to that many bytes. Free keys and large messages
    /// are the format's next version, which 0.2.3 refuses to open.
    #[pyo3(signature = (name, key_type, partitions, message_types, max_message_bytes = None))]
    fn create_topic(
        &self,
        py: Python<'_>,
        name: &str,
        key_type: &Bound<'_, PyAny>,
        partitions: &Bound<'_, PyAny>,
        message_types: Vec<Bound<'_, PyAny>>,
        max_message_bytes: Option<u64>,
    ) -> PyResult<()> {
        // The name first, as 0.2.3 checks it first (then the key type).
        twainmq::names::validate_new_topic(name).py_err(py)?;
        let given = key_type.str()?.to_string();
        let key_type = match key_type.extract::<String>().ok().as_deref().and_then(KeyType::parse) {
            Some(k) => k,
            None => {
                return Err(errors::invalid_argument(
                    py,
                    "InvalidKeyTypeError",
                    format!(
                        "{given} is not a valid key_type. Options are u8, u16, u32, u64 or charN where N is an integer from 1 to {}, or text, bytes or any (free keys, which 0.2.3 cannot read)",
                        twainmq::limits::MAX_CHAR_WIDTH
                    ),
                ))
            }
        };
        let count = if partitions.is_instance_of::<PyInt>() { partitions.extract::<u32>().ok() } else { None };
        let Some(count) = count else {
            return Err(errors::invalid_argument(
                py,
                "InvalidPartitionCountError",
                format!(
                    "invalid partition count {}: a topic needs from 1 to {} partitions, as an int",
                    partitions.repr()?,
                    twainmq::limits::MAX_PARTITIONS
                ),
            ));
        };
        let mut names = Vec::with_capacity(message_types.len());
        for t in &message_types {
            match t.cast::<PyString>() {
                Ok(name) => names.push(name.to_str()?.to_owned()),
                // 0.2.3 writes `json.dump`'s text of it ("1", "null": a name no
                // dataclass has) or fails after making the topic's folder (a tuple).
                Err(_) => {
                    return Err(errors::invalid_argument(
                        py,
                        "InvalidMessageTypeNameError",
                        format!(
                            "message type {} is a {}, not a str: a message type is named by its dataclass (the class's name or its __message_type__)",
                            t.repr()?,
                            t.get_type().name()?
                        ),
                    ))
                }
            }
        }
        // 0.2.3 numbers them `{name: i for i, name in enumerate(message_types)}`.
        let mut spec = TopicSpec::new(key_type, count).with_types_as_023_numbers_them(names);
        spec.max_message_bytes = max_message_bytes;
        py.detach(|| self.store.create_topic(name, &spec)).py_err(py).map(|_| ())
    }

    /// Delete a topic (its config, its folder, and the groups that read it);
    /// returns the groups deleted.
    fn delete_topic(&self, py: Python<'_>, name: &str) -> PyResult<Vec<String>> {
        py.detach(|| self.store.delete_topic(name)).py_err(py)
    }

    /// Topic names, sorted (groups excluded).
    fn list_topics(&self, py: Python<'_>) -> PyResult<Vec<String>> {
        py.detach(|| self.store.list_topics()).py_err(py)
    }

    /// Whether a topic's config or folder exists (`False` for a name no
    /// topic can have).
    fn topic_exists(&self, py: Python<'_>, name: &str) -> bool {
        py.detach(|| self.store.topic_exists(name)).unwrap_or(false)
    }

    /// A topic's config as 0.2.3 reads it: `{"key_width", "partitions", "message_types"}`.
    fn topic_config<'py>(&self, py: Python<'py>, name: &str) -> PyResult<Bound<'py, PyDict>> {
        let config = py.detach(|| self.store.topic_config(name)).py_err(py)?;
        let d = PyDict::new(py);
        // As on disk: 0 for a topic of the format's next version, whose key type
        // and message size limit are then given too.
        d.set_item("key_width", if config.is_extended() { 0 } else { config.key_type.width() })?;
        if config.is_extended() {
            d.set_item("key_type", config.key_type.to_string())?;
            d.set_item("max_message_bytes", config.max_message_bytes)?;
        }
        d.set_item("partitions", config.partitions)?;
        let types = PyDict::new(py);
        for (n, id) in &config.message_types {
            types.set_item(n, id)?;
        }
        d.set_item("message_types", types)?;
        Ok(d)
    }

    /// The store's folder.
    #[getter]
    fn root(&self) -> PathBuf {
        self.store.root().to_path_buf()
    }
}
