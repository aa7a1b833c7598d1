//! JSON written the way Python's `json.dumps` writes it, so that typed
//! messages and configs we write are byte-identical to 0.2.3's:
//! `ensure_ascii` escapes (every character outside space..`~` as `\uXXXX`,
//! lowercase hex, surrogate pairs above U+FFFF) and `repr`-style floats.
//!
//! `serialize` writes Rust values that way (`float` is Python's float
//! `repr`); `dialect` validates and rewrites JSON text in the dialect Python
//! reads, keeping what `serde_json` cannot (integers past 64 bits, `NaN`).

mod dialect;
mod float;
mod search;
mod serialize;

pub use dialect::{python_compact, python_pretty};
pub use float::python_float_repr;
pub use search::searchable;
pub use serialize::{to_compact, to_indent0};
