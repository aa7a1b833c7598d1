//! TwainMQ engine: reads and writes TwainMQ stores byte-compatibly with the
//! Python package `twainmq` 0.2.3, so that Python programs and Rust programs
//! can share one store.
//!
//! A store is a folder; a topic is a config file `<topic>.twc` and a folder of
//! day files `<partition>-<YYYYMMDD>_<first offset>.tmf`, one message a line.
//! See `docs/FORMAT.md` in the repository for the contract.
//!
//! # Examples
//! ```
//! use twainmq::{Store, TopicSpec, KeyType, StartFrom};
//! let dir = tempfile::tempdir()?;
//! let store = Store::open(dir.path())?;
//! store.create_topic("sensors", &TopicSpec::new(KeyType::U64, 3))?;
//! let mut producer = store.producer("sensors")?;
//! let sent = producer.send_bytes(7u64, b"\x00\x01")?;
//! let mut consumer = store.consumer("sensors", StartFrom::Start)?;
//! let msg = consumer.poll()?.expect("a message");
//! assert_eq!((msg.partition, msg.offset), (sent.partition, 0));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod b85;
pub mod check;
pub mod clock;
pub mod config;
pub mod consumer;
pub mod deflate;
pub mod demo;
pub mod error;
pub mod files;
mod flock;
pub mod fsinfo;
pub mod group;
pub mod index;
pub mod inflate;
pub mod key;
pub mod line;
pub mod message;
pub mod name;
pub mod partitioner;
pub mod payload;
pub mod producer;
pub mod pyjson;
pub mod reader;
pub mod scan;
pub mod store;
mod wake;
pub mod watch;

pub use clock::{Clock, ManualClock, OffsetClock, SystemClock};
pub use config::TopicConfig;
pub use consumer::{Consumer, StartFrom};
pub use error::{Error, NameProblem, Result};
pub use key::{Key, KeyType};
pub use message::{Message, MessageJson};
pub use partitioner::partition_for;
pub use payload::{Outgoing, Payload, PayloadJson, TypedMessage, TypedPayload};
pub use producer::{Delivery, Producer};
pub use reader::PartitionReader;
pub use store::{FileInfo, PartitionInfo, Store, TopicDescription, TopicIncarnation, TopicSpec};
