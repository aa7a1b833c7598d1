//! `TwainMQConsumer`: 0.2.3's consumer over the engine's consumer, or over
//! its group member when a group is given.

use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use pyo3::prelude::*;
use pyo3::types::PyDict;
use twainmq::group::{ClientInfo, GroupMember, GroupOptions};
use twainmq::{Consumer, KeyType, StartFrom};

use crate::convert::{message_to_py, NotDelivered};
use crate::errors::{self, IntoPy};
use crate::message::Message;
use crate::store::NativeStore;

/// How long a blocking poll waits with the GIL released before it looks for
/// signals (Ctrl-C) again.
const SIGNAL_CHECK: Duration = Duration::from_millis(100);

enum Reader {
    Plain(Consumer),
    Group(Box<GroupMember>),
}

impl Reader {
    /// One message, waiting up to `wait` (not at all for `None`).
    fn poll(&mut self, wait: Option<Duration>) -> twainmq::Result<Option<twainmq::Message>> {
        match (self, wait) {
            (Reader::Plain(c), None) => c.poll(),
            (Reader::Plain(c), Some(w)) => c.poll_timeout(w),
            (Reader::Group(m), None) => m.poll(),
            (Reader::Group(m), Some(w)) => m.poll_timeout(w),
        }
    }

    /// Up to `n` messages more, without waiting; on an error, those polled
    /// before it are put back (the engine keeps them for the next call).
    fn poll_more(&mut self, n: usize, out: &mut Vec<twainmq::Message>) -> twainmq::Result<()> {
        match self {
            Reader::Plain(c) => {
                out.extend(c.poll_many(n)?);
                Ok(())
            }
            Reader::Group(m) => {
                let start = out.len();
                while out.len() - start < n {
                    match m.poll() {
                        Ok(Some(msg)) => out.push(msg),
                        Ok(None) => break,
                        Err(e) => {
                            for msg in out.drain(start..).rev() {
                                m.put_back(msg);
                            }
                            return Err(e);
                        }
                    }
                }
                Ok(())
            }
        }
    }

    fn put_back(&mut self, message: twainmq::Message) {
        match self {
            Reader::Plain(c) => c.put_back(message),
            Reader::Group(m) => m.put_back(message),
        }
    }

    fn partitions(&self) -> Vec<u32> {
        match self {
            Reader::Plain(c) => c.partitions(),
            Reader::Group(m) => m.assignment().to_vec(),
        }
    }

    fn positions(&self) -> Vec<(u32, u64)> {
        match self {
            Reader::Plain(c) => c.positions(),
            Reader::Group(m) => m.positions(),
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // The engine's consumer checks its own state at every call; a panic
    // elsewhere while this was held does not leave it half changed.
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// A TwainMQ consumer of one topic: alone (all partitions, no commits) or as
/// a member of a consumer group (the partitions the group assigns it,
/// commits), as 0.2.3's.
///
/// `poll()` never blocks, as 0.2.3's; ours also takes `timeout` (seconds) to
/// wait for a message with the GIL released, answering Ctrl-C within 0.1 s.
#[pyclass(module = "twainmq_rs.consumer", name = "TwainMQConsumer", subclass, frozen)]
pub struct TwainMQConsumer {
    /// `None` once closed.
    inner: Mutex<Option<Reader>>,
    topic: String,
    group: Option<String>,
    key_type: KeyType,
    member_id: Option<u32>,
    /// `Twain._decode_typed`: a typed payload to its registered dataclass.
    decode: Py<PyAny>,
    twain: Py<PyAny>,
}

enum Failure {
    Closed,
    Engine(twainmq::Error),
}

impl TwainMQConsumer {
    fn closed(&self, py: Python<'_>) -> PyErr {
        errors::closed(py, "ConsumerClosedError", "consumer", &self.topic)
    }

    fn fail(&self, py: Python<'_>, f: Failure) -> PyErr {
        match f {
            Failure::Closed => self.closed(py),
            Failure::Engine(e) => errors::engine_error(py, e),
        }
    }

    /// Run `f` on the reader with the GIL released.
    fn with_reader<T: Send>(&self, py: Python<'_>, f: impl FnOnce(&mut Reader) -> twainmq::Result<T> + Send) -> PyResult<T> {
        py.detach(|| match lock(&self.inner).as_mut() {
            None => Err(Failure::Closed),
            Some(r) => f(r).map_err(Failure::Engine),
        })
        .map_err(|e| self.fail(py, e))
    }

    /// One message without waiting. A non-blocking poll is mostly a copy out
    /// of a buffer already read, shorter than releasing and taking back the
    /// GIL (which would cost a third of its time), so it runs with the GIL
    /// held, as 0.2.3's does, when the reader is free; when another thread
    /// has it (in a waiting poll), this waits for it with the GIL released.
    fn poll_now(&self, py: Python<'_>) -> PyResult<Option<twainmq::Message>> {
        match self.inner.try_lock() {
            Ok(mut guard) => match guard.as_mut() {
                None => Err(self.closed(py)),
                Some(r) => r.poll(None).map_err(|e| errors::engine_error(py, e)),
            },
            Err(std::sync::TryLockError::Poisoned(p)) => match p.into_inner().as_mut() {
                None => Err(self.closed(py)),
                Some(r) => r.poll(None).map_err(|e| errors::engine_error(py, e)),
            },
            Err(std::sync::TryLockError::WouldBlock) => self.with_reader(py, |r| r.poll(None)),
        }
    }

    /// Hand `m` to Python, or put it back / skip it (see [`NotDelivered`]).
    fn deliver(&self, py: Python<'_>, m: twainmq::Message) -> PyResult<Py<Message>> {
        match message_to_py(py, &m, self.decode.bind(py)) {
            Ok(msg) => Ok(msg),
            Err(NotDelivered::PutBack(e)) => {
                py.detach(|| {
                    if let Some(r) = lock(&self.inner).as_mut() {
                        r.put_back(m);
                    }
                });
                Err(e)
            }
            Err(NotDelivered::Skip(e)) => Err(e),
        }
    }

    /// Wait for one message until `deadline` (`None`: do not wait), in
    /// slices, looking for signals between them.
    fn wait_one(&self, py: Python<'_>, deadline: Option<Instant>) -> PyResult<Option<twainmq::Message>> {
        loop {
            let wait = deadline.map(|d| d.saturating_duration_since(Instant::now()).min(SIGNAL_CHECK));
            let polled = match wait {
                None => self.poll_now(py),
                Some(_) => self.with_reader(py, |r| r.poll(wait)),
            };
            if let Some(m) = polled? {
                return Ok(Some(m));
            }
            match deadline {
                Some(d) if Instant::now() < d => py.check_signals()?,
                _ => return Ok(None),
            }
        }
    }
}

fn deadline_of(py: Python<'_>, timeout: Option<f64>) -> PyResult<Option<Instant>> {
    match timeout {
        None => Ok(None),
        Some(t) if t.is_finite() && t >= 0.0 => {
            // Past a year, wait "for ever" (a year), which Instant can hold.
            let t = Duration::from_secs_f64(t.min(365.0 * 86_400.0));
            Ok(Some(Instant::now() + t))
        }
        Some(t) => Err(errors::new_error(py, "TwainMQValueError", format!("timeout must be a number of seconds from 0 on, not {t}"), &[])),
    }
}

#[pymethods]
impl TwainMQConsumer {
    /// `TwainMQConsumer(twain, topic, start_from="start", group=None)`, as 0.2.3's.
    #[new]
    /// `_partitions` (ours, for `TwainMQConsumerlet`): read only these
    /// partitions, without a group.
    #[pyo3(
        signature = (twain, topic, start_from = None, group = None, *, _partitions = None),
        text_signature = "(twain, topic, start_from='start', group=None)"
    )]
    fn new(
        py: Python<'_>,
        twain: Py<PyAny>,
        topic: String,
        start_from: Option<&Bound<'_, PyAny>>,
        group: Option<String>,
        _partitions: Option<Vec<u32>>,
    ) -> PyResult<Self> {
        let from = match start_from {
            None => StartFrom::Start,
            Some(s) => match s.extract::<String>().ok().as_deref() {
                Some("start") => StartFrom::Start,
                Some("now") => StartFrom::Now,
                _ => {
                    return Err(errors::new_error(
                        py,
                        "TwainMQValueError",
                        format!("start_from should be either \"start\" of \"now\", received: \"{}\"", s.str()?),
                        &[],
                    ))
                }
            },
        };
        let store = twain.bind(py).call_method0("_native_store")?;
        let store = store.cast::<NativeStore>()?.get().store.clone();
        let decode = twain.bind(py).getattr("_decode_typed")?.unbind();
        let config = py.detach(|| store.topic_config(&topic)).py_err(py)?;
        let (reader, member_id) = match &group {
            None if _partitions.is_some() => {
                let only = _partitions.unwrap_or_default();
                (Reader::Plain(py.detach(|| store.consumer_of(&topic, &only, from)).py_err(py)?), None)
            }
            None => {
                let mut c = py.detach(|| store.consumer(&topic, from)).py_err(py)?;
                // 0.2.3 polls partition 1 first (its last-polled starts at 0):
                // so do we, so that both hand out one store's messages in one order.
                c.start_after(0);
                (Reader::Plain(c), None)
            }
            Some(g) => {
                // 0.2.3's round length, read where 0.2.3's consumer reads it.
                let window: f64 = py.import("twainmq_rs.consumer")?.getattr("REBAL_LENGTH")?.call_method0("total_seconds")?.extract()?;
                let window = Duration::try_from_secs_f64(window).map_err(|e| {
                    errors::new_error(py, "TwainMQValueError", format!("REBAL_LENGTH must be a positive time span: {e}"), &[])
                })?;
                let opts = GroupOptions {
                    window,
                    start_from: from,
                    commit_on_close: false,
                    client: Some(ClientInfo::this_process("twainmq-rs", env!("CARGO_PKG_VERSION"))),
                    ..GroupOptions::default()
                };
                let member = py.detach(|| store.join_group(&topic, g, opts)).py_err(py)?;
                let id = member.id();
                (Reader::Group(Box::new(member)), Some(id))
            }
        };
        Ok(TwainMQConsumer { inner: Mutex::new(Some(reader)), topic, group, key_type: config.key_type, member_id, decode, twain })
    }

    /// The next message, or `None` when there is none yet. Without `timeout`
    /// it does not block (0.2.3's `poll()`); with one it waits up to that many
    /// seconds, with the GIL released.
    #[pyo3(signature = (timeout = None))]
    fn poll(&self, py: Python<'_>, timeout: Option<f64>) -> PyResult<Option<Py<Message>>> {
        let deadline = deadline_of(py, timeout)?;
        match self.wait_one(py, deadline)? {
            Some(m) => self.deliver(py, m).map(Some),
            None => Ok(None),
        }
    }

    /// Up to `n` messages (0.2.3's `poll_many`); with `timeout`, waits up to
    /// that long for the first one. A message that cannot be handed out
    /// (see `poll`) ends the list before it, and the next call raises.
    #[pyo3(signature = (n = 10, timeout = None))]
    fn poll_many(&self, py: Python<'_>, n: i64, timeout: Option<f64>) -> PyResult<Vec<Py<Message>>> {
        // 0.2.3 loops `range(n)`: none for n <= 0.
        let Ok(n @ 1..) = usize::try_from(n) else {
            return Ok(Vec::new());
        };
        let deadline = deadline_of(py, timeout)?;
        let mut got = Vec::new();
        if deadline.is_some() {
            match self.wait_one(py, deadline)? {
                Some(m) => got.push(m),
                None => return Ok(Vec::new()),
            }
        }
        let more = n - got.len();
        got = self.with_reader(py, move |r| {
            r.poll_more(more, &mut got)?;
            Ok(got)
        })?;
        let mut out = Vec::with_capacity(got.len());
        let mut rest = got.into_iter();
        while let Some(m) = rest.next() {
            match message_to_py(py, &m, self.decode.bind(py)) {
                Ok(msg) => out.push(msg),
                Err(e) => {
                    // Give back the rest, in order, and this one unless it is
                    // damaged and first (then it is skipped, and raised): none
                    // of them was handed out.
                    let skip = out.is_empty() && matches!(e, NotDelivered::Skip(_));
                    let back: Vec<_> = if skip { rest.collect() } else { std::iter::once(m).chain(rest).collect() };
                    py.detach(|| {
                        if let Some(r) = lock(&self.inner).as_mut() {
                            for m in back.into_iter().rev() {
                                r.put_back(m);
                            }
                        }
                    });
                    if out.is_empty() {
                        return Err(e.into());
                    }
                    break;
                }
            }
        }
        Ok(out)
    }

    /// Commit, for the group, the position after the last message handed out
    /// of each assigned partition (or of those in `partitions`). Does nothing
    /// for a consumer without a group, as 0.2.3's.
    #[pyo3(signature = (partitions = None))]
    fn commit(&self, py: Python<'_>, partitions: Option<Vec<u32>>) -> PyResult<()> {
        if self.group.is_none() {
            return Ok(());
        }
        self.with_reader(py, |r| match r {
            Reader::Group(m) => match &partitions {
                None => m.commit(),
                Some(p) => m.commit_partitions(p),
            },
            Reader::Plain(_) => Ok(()),
        })
    }

    /// Read the group's new records and take part in its rounds (0.2.3's
    /// `heartbeat`; `poll` does it too). Nothing for a consumer without a group.
    fn heartbeat(&self, py: Python<'_>) -> PyResult<()> {
        self.with_reader(py, |r| match r {
            Reader::Group(m) => m.heartbeat(),
            Reader::Plain(_) => Ok(()),
        })
    }

    /// Open a round of the group (0.2.3's `trigger_rebal`).
    fn trigger_rebal(&self, py: Python<'_>) -> PyResult<()> {
        if self.group.is_none() {
            return Err(errors::new_error(
                py,
                "NotInGroupError",
                format!(
                    "this consumer of topic {:?} is in no group, so it has no rebalance to trigger: pass group=... to Twain.consumer",
                    self.topic
                ),
                &[],
            ));
        }
        self.with_reader(py, |r| match r {
            Reader::Group(m) => m.trigger_round(),
            Reader::Plain(_) => Ok(()),
        })
    }

    /// Move the read position of a partition this consumer reads to `offset`
    /// (ours): to skip a message that cannot be handed out, or read again.
    fn seek(&self, py: Python<'_>, partition: u32, offset: u64) -> PyResult<()> {
        self.with_reader(py, |r| match r {
            Reader::Plain(c) => c.seek(partition, StartFrom::Offset(offset)),
            Reader::Group(m) => m.seek(partition, StartFrom::Offset(offset)),
        })
    }

    /// Leave (ours; 0.2.3 consumers just stop): a group member opens a round
    /// so the others take its partitions, committing first only with
    /// `commit=True`. Polling after it is an error.
    #[pyo3(signature = (commit = false))]
    fn close(&self, py: Python<'_>, commit: bool) -> PyResult<()> {
        let reader = py.detach(|| lock(&self.inner).take());
        match reader {
            Some(Reader::Group(mut m)) => py
                .detach(|| {
                    // The member is made with commit_on_close off (0.2.3 never
                    // commits by itself), so a commit asked for here is explicit.
                    if commit {
                        m.commit()?;
                    }
                    m.close_without_commit()
                })
                .py_err(py),
            _ => Ok(()),
        }
    }

    fn __enter__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    /// Leaves without committing: commit what was handled before the block ends.
    #[pyo3(signature = (r#type = None, value = None, traceback = None))]
    fn __exit__(
        &self,
        py: Python<'_>,
        r#type: Option<Py<PyAny>>,
        value: Option<Py<PyAny>>,
        traceback: Option<Py<PyAny>>,
    ) -> PyResult<bool> {
        let _ = (r#type, value, traceback);
        self.close(py, false)?;
        Ok(false)
    }

    /// The topic read.
    #[getter]
    fn topic(&self) -> &str {
        &self.topic
    }

    /// The group, or `None`.
    #[getter]
    fn group(&self) -> Option<&str> {
        self.group.as_deref()
    }

    /// The key's width in bytes, negative for `charN` (0.2.3's `key_width`).
    #[getter]
    fn key_width(&self) -> i64 {
        self.key_type.width()
    }

    /// The partitions this consumer reads now (0.2.3 keeps them in `_partitions`).
    #[getter]
    fn _partitions(&self, py: Python<'_>) -> Vec<u32> {
        py.detach(|| lock(&self.inner).as_ref().map(Reader::partitions).unwrap_or_default())
    }

    /// The member's id in its group (0.2.3's `_consumer_id`), or `None`.
    #[getter]
    fn _consumer_id(&self) -> Option<u32> {
        self.member_id
    }

    /// The next offset to hand out of each partition read (ours).
    #[getter]
    fn positions<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let pos = py.detach(|| lock(&self.inner).as_ref().map(Reader::positions).unwrap_or_default());
        let d = PyDict::new(py);
        for (p, o) in pos {
            d.set_item(p, o)?;
        }
        Ok(d)
    }

    /// The `Twain` this consumer was made from.
    #[getter]
    fn _twain(&self, py: Python<'_>) -> Py<PyAny> {
        self.twain.clone_ref(py)
    }

    /// Today's UTC date as 0.2.3 names day files (`YYYYMMDD`), by the store's clock.
    #[getter]
    fn chunk_str_now(&self, py: Python<'_>) -> PyResult<String> {
        let store = self.twain.bind(py).call_method0("_native_store")?;
        Ok(store.cast::<NativeStore>()?.get().store.today().to_string())
    }

    /// As 0.2.3's: `TwainMQConsumer(topic=t, group=g)`.
    fn __str__(&self) -> String {
        format!("TwainMQConsumer(topic={}, group={})", self.topic, self.group.as_deref().unwrap_or("None"))
    }
}
