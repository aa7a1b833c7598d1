//! Mirror TwainMQ topics to a Kafka cluster and back: every message's key,
//! payload kind, bytes and exact timestamp; nothing lost and nothing twice
//! across crashes and restarts, without transactions; consumer groups'
//! offsets translated both ways; two-way mirroring that does not loop.
//! `docs/KAFKA.md` in the repository is the contract: the mapping, how a
//! mirror resumes, and the client library chosen (krafka) and why.
//!
//! The engine (`twainmq`) knows nothing of Kafka; this crate uses its public
//! API only, plus a folder of its own in the store ([`journal::DIR`]).
//!
//! # Layers
//! ```text
//!   lib (mirror)                   one thread per topic, retries in --follow
//!      |
//!   to_kafka, from_kafka, groups   the two directions, group offsets
//!      |
//!   lease, journal, browse         one mirror per target; where each record went; the app's reads
//!      |
//!   cluster                        the client
//!      |
//!   mapping, error, report         pure: message <-> record; errors; progress and summary
//! ```

#![deny(missing_docs)]

pub mod bench;
pub mod browse;
mod cluster;
mod error;
mod from_kafka;
mod groups;
pub mod journal;
mod lease;
pub mod mapping;
mod report;
#[cfg(feature = "testing")]
pub mod testing;
mod to_kafka;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

pub use cluster::{Endpoint, Sasl, SaslMechanism, Secret, Tls};
pub use error::{Error, Result};
pub use lease::group_of as lease_group;
pub use mapping::{ForeignValues, InOptions};
pub use report::{Direction, GroupSync, Progress, Summary, TopicReport};

use twainmq::{KeyType, Store};

/// The compacted topic where a mirror to Kafka publishes each topic's TwainMQ
/// config (keyed by the Kafka topic's name), so that a mirror back into a new
/// store makes the topic with the same key type and message types.
pub const CONFIG_TOPIC: &str = "twainmq.topics";

/// What to mirror and how.
#[derive(Debug, Clone)]
pub struct MirrorSpec {
    /// The cluster.
    pub endpoint: Endpoint,
    /// `(source topic, target topic)` pairs.
    pub topics: Vec<(String, String)>,
    /// Keep going: new messages go across as they are written.
    pub follow: bool,
    /// Translate consumer groups' committed offsets.
    pub groups: bool,
    /// How records other Kafka producers wrote are taken (Kafka -> store).
    pub foreign: InOptions,
    /// The key type of store topics made for Kafka topics that carry no
    /// published config (Kafka -> store).
    pub key_type: Option<KeyType>,
    /// Their typed messages' names.
    pub message_types: Vec<String>,
    /// Their largest message, in bytes, when records over one 4,096-byte
    /// line are to fit (large messages, the format's next version); `None`:
    /// as the published config says, else lines of 0.2.3's size.
    pub max_message_bytes: Option<u64>,
    /// The session timeout of the Kafka-side lease (`lease_group`): how long a
    /// crashed mirror's successor waits at most.
    pub lease_timeout: Duration,
}

impl MirrorSpec {
    /// A spec with the defaults: once, no groups, 10 s lease.
    pub fn new(endpoint: Endpoint, topics: Vec<(String, String)>) -> MirrorSpec {
        MirrorSpec {
            endpoint,
            topics,
            follow: false,
            groups: false,
            foreign: InOptions::default(),
            key_type: None,
            message_types: Vec::new(),
            max_message_bytes: None,
            lease_timeout: Duration::from_secs(10),
        }
    }
}

/// The longest pause between tries in `--follow`.
const MAX_BACKOFF: Duration = Duration::from_secs(30);

/// Mirror `spec`'s topics `direction`, one thread per topic, until done (or,
/// with `follow`, until `stop` is set). `progress` is called on this thread.
/// A `--follow` mirror retries what [`Error::is_retriable`] (the cluster down,
/// restarting or slow) with back-off, starting each time from where the
/// target says it is; anything else ends the topic's mirror with its error.
///
/// # Errors
/// The first topic's error (the others are stopped).
pub fn mirror(
    store: &Store,
    direction: Direction,
    spec: &MirrorSpec,
    stop: &AtomicBool,
    progress: &mut dyn FnMut(Progress),
) -> Result<Summary> {
    let started = Instant::now();
    let (tx, rx) = mpsc::channel::<Progress>();
    let failed = AtomicBool::new(false);
    let results: Vec<Result<TopicReport>> = std::thread::scope(|s| {
        let handles: Vec<_> = spec
            .topics
            .iter()
            .map(|(source, target)| {
                let tx = tx.clone();
                let failed = &failed;
                s.spawn(move || {
                    let r = run_topic(store, direction, source, target, spec, stop, failed, &tx);
                    if r.is_err() {
                        failed.store(true, Ordering::SeqCst);
                    }
                    r
                })
            })
            .collect();
        drop(tx);
        for p in rx {
            progress(p);
        }
        handles
            .into_iter()
            .map(|h| {
                h.join().unwrap_or_else(|_| {
                    Err(Error::Config { what: "the mirror".into(), problem: "a topic's thread panicked (a bug: please report it)".into() })
                })
            })
            .collect()
    });
    let mut topics = Vec::new();
    for r in results {
        topics.push(r?);
    }
    Ok(Summary {
        direction,
        broker: spec.endpoint.bootstrap.clone(),
        topics,
        seconds: started.elapsed().as_secs_f64(),
        interrupted: stop.load(Ordering::SeqCst),
    })
}

#[allow(clippy::too_many_arguments)]
fn run_topic(
    store: &Store,
    direction: Direction,
    source: &str,
    target: &str,
    spec: &MirrorSpec,
    stop: &AtomicBool,
    failed: &AtomicBool,
    tx: &mpsc::Sender<Progress>,
) -> Result<TopicReport> {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .map_err(|e| Error::Config { what: "the mirror's runtime".into(), problem: e.to_string() })?;
    // Another topic's failure stops this one too.
    let halt = AtomicBool::new(false);
    let mut backoff = Duration::from_millis(500);
    let mut retries = 0;
    loop {
        let mut send = |p: Progress| {
            let _ = tx.send(p);
        };
        let attempt = std::thread::scope(|s| {
            let watcher = s.spawn(|| {
                while !halt.load(Ordering::SeqCst) {
                    if stop.load(Ordering::SeqCst) || failed.load(Ordering::SeqCst) {
                        halt.store(true, Ordering::SeqCst);
                    }
                    std::thread::sleep(Duration::from_millis(20));
                }
            });
            let r = rt.block_on(async {
                match direction {
                    Direction::ToKafka => to_kafka::run(store, source, target, spec, &halt, &mut send).await,
                    Direction::FromKafka => from_kafka::run(store, source, target, spec, &halt, &mut send).await,
                }
            });
            let interrupted = halt.swap(true, Ordering::SeqCst);
            let _ = watcher.join();
            halt.store(false, Ordering::SeqCst);
            (r, interrupted)
        });
        match attempt {
            (Ok(mut report), _) => {
                report.retries = retries;
                return Ok(report);
            }
            (Err(e), interrupted) if spec.follow && e.is_retriable() && !interrupted && !stop.load(Ordering::SeqCst) => {
                retries += 1;
                send(Progress::Retrying { topic: source.into(), reason: e.to_string(), after_secs: backoff.as_secs_f64() });
                let until = Instant::now() + backoff;
                while Instant::now() < until {
                    if stop.load(Ordering::SeqCst) || failed.load(Ordering::SeqCst) {
                        return Ok(TopicReport { source: source.into(), target: target.into(), retries, ..TopicReport::default() });
                    }
                    std::thread::sleep(Duration::from_millis(50));
                }
                backoff = (backoff * 2).min(MAX_BACKOFF);
            }
            (Err(e), _) => return Err(e),
        }
    }
}
