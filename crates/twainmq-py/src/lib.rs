//! `twainmq_rs._native`: the engine's producers, consumers and group members
//! as Python objects, behind the pure-Python modules of the `twainmq_rs`
//! package (`python/twainmq_rs`), which give them 0.2.3's API.
//!
//! Invariants every object here keeps:
//! - No engine call that can wait (a write, a poll with a timeout, a join)
//!   runs while holding the GIL (`Python::detach`): other Python threads run
//!   meanwhile, and a blocking poll waits in slices, checking for signals
//!   (Ctrl-C) between them. A non-blocking `poll()` is the exception, when
//!   it can take its reader at once: it is a copy out of a buffer, shorter
//!   than giving the GIL away and back (0.2.3 holds the GIL there too).
//! - Each object's engine state is behind a mutex that is waited for only
//!   with the GIL released (with the GIL held it is only tried), so an object
//!   shared between Python threads is used by one at a time and never
//!   deadlocks against the GIL.
//! - Every engine error becomes a Python exception (`errors.rs`), 0.2.3's
//!   class where 0.2.3 has one; nothing panics across the boundary.
//! - A message is handed to Python only when it could be made a Python value;
//!   one that could not (its dataclass is not registered) is put back, so no
//!   commit covers it.

mod consumer;
mod convert;
mod errors;
mod message;
mod producer;
mod store;

use pyo3::prelude::*;

/// The compiled half of the `twainmq_rs` package.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<store::NativeStore>()?;
    m.add_class::<producer::TwainMQProducer>()?;
    m.add_class::<consumer::TwainMQConsumer>()?;
    m.add_class::<message::Message>()?;
    m.add_function(wrap_pyfunction!(convert::utc_datetime, m)?)?;
    m.add("ENGINE_VERSION", twainmq::version::ENGINE)?;
    m.add("COMPATIBLE", twainmq::version::COMPATIBLE)?;
    m.add("MAX_MESSAGE_SIZE", twainmq::limits::MAX_LINE_BYTES)?;
    Ok(())
}
