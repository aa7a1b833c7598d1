//! The format layer: pure bytes, no I/O. How 0.2.3 writes a line (key,
//! timestamp, payload), base85, its raw deflate and our inflate, Python's
//! JSON, keys and their encoding, payloads, the partitioner, names and the
//! topic config file's contents. Everything here is a function of its input,
//! so it is what the fuzz targets and property tests exercise.
//!
//! See `docs/FORMAT.md` for the contract these modules implement.

pub mod b85;
pub(crate) mod config;
pub mod deflate;
pub mod inflate;
pub(crate) mod key;
pub(crate) mod keytable;
pub mod line;
pub(crate) mod mend;
pub(crate) mod message;
pub(crate) mod multipart;
pub(crate) mod name;
pub(crate) mod newline;
pub(crate) mod partitioner;
pub(crate) mod payload;
pub mod pyjson;
