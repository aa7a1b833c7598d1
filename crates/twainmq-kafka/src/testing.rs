//! For tests (feature `testing`, never in the product): a real broker, nisshi,
//! started on a free port of 127.0.0.1 with SQLite storage in a folder of its
//! own (as `tests/kafka/conftest.py` starts it), and a way to write records
//! into it. The binary comes from `NISSHI`, else the cache `scripts/nisshi.sh`
//! builds it into.

use std::net::TcpListener;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use krafka::producer::Acks;
use krafka::Kafka;

use crate::cluster::{Cluster, Endpoint};

/// Where nisshi is, if it is built.
pub fn nisshi_binary() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("NISSHI").map(PathBuf::from).filter(|p| p.is_file()) {
        return Some(p);
    }
    // The cache holds the Linux build: a Windows test (under Wine, which sees the
    // Linux folders and inherits HOME and TWAINMQ_DEV_CACHE) has no broker it can
    // start but one named by NISSHI.
    if cfg!(windows) {
        return None;
    }
    let cache = std::env::var_os("TWAINMQ_DEV_CACHE").map(PathBuf::from).or_else(|| {
        std::env::var_os("XDG_CACHE_HOME")
            .map(PathBuf::from)
            .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
            .map(|c| c.join("twainmq-dev"))
    })?;
    Some(cache.join("nisshi-0.8.1/bin/nisshi")).filter(|p| p.is_file())
}

/// A free TCP port of 127.0.0.1 (nothing listens there once this returns).
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0").and_then(|l| l.local_addr()).map(|a| a.port()).unwrap_or(0)
}

/// A running broker; killed when dropped.
pub struct Broker {
    child: Child,
    /// Its folder (its database and log).
    pub dir: PathBuf,
    /// Its port on 127.0.0.1.
    pub port: u16,
}

impl Broker {
    /// Start a broker in `dir` (made if missing) with `extra` arguments
    /// (`--cert`, `--key`, `--authentication`), and wait until it listens.
    /// `None`, with the reason printed, when nisshi is not built.
    ///
    /// # Panics
    /// When the broker does not start (a test failure).
    pub fn start(dir: &std::path::Path, extra: &[&str]) -> Option<Broker> {
        Broker::start_on(dir, free_port(), extra)
    }

    /// [`Broker::start`] on a given port (a broker restarted on its database keeps its port).
    ///
    /// # Panics
    /// When the broker does not start (a test failure).
    pub fn start_on(dir: &std::path::Path, port: u16, extra: &[&str]) -> Option<Broker> {
        let Some(bin) = nisshi_binary() else {
            eprintln!("SKIPPED: nisshi is not built (scripts/nisshi.sh start builds it; or set NISSHI to its path)");
            return None;
        };
        std::fs::create_dir_all(dir).expect("the broker's folder");
        let addr = format!("tcp://127.0.0.1:{port}");
        let log = std::fs::OpenOptions::new().create(true).append(true).open(dir.join("broker.log")).expect("the broker's log");
        let child = Command::new(bin)
            .args(["broker", "--storage-engine", "sqlite://broker.db", "--listener-url", &addr, "--advertised-listener-url", &addr])
            .args(["--cluster-id", "twainmq-test", "--group-initial-rebalance-delay", "0s"])
            .args(extra)
            .current_dir(dir)
            .env("RUST_LOG", "warn")
            .stdin(Stdio::null())
            .stdout(log.try_clone().expect("log"))
            .stderr(log)
            .spawn()
            .expect("nisshi starts");
        let mut b = Broker { child, dir: dir.to_path_buf(), port };
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            if let Ok(Some(status)) = b.child.try_wait() {
                panic!("nisshi exited with {status}: {}", std::fs::read_to_string(dir.join("broker.log")).unwrap_or_default());
            }
            if std::net::TcpStream::connect_timeout(&([127, 0, 0, 1], port).into(), Duration::from_millis(500)).is_ok() {
                return Some(b);
            }
            assert!(Instant::now() < deadline, "nisshi did not listen on {port} within 30 s");
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// `127.0.0.1:PORT`.
    pub fn address(&self) -> String {
        format!("127.0.0.1:{}", self.port)
    }

    /// A plaintext endpoint of it, with a short request timeout.
    pub fn endpoint(&self) -> Endpoint {
        Endpoint { bootstrap: self.address(), tls: None, sasl: None, request_timeout: Duration::from_secs(5) }
    }
}

impl Drop for Broker {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A record to write: partition, key, value, headers, milliseconds.
#[derive(Debug, Clone, Default)]
pub struct TestRecord {
    /// The partition.
    pub partition: u32,
    /// The key (`None`: null).
    pub key: Option<Vec<u8>>,
    /// The value (`None`: a tombstone).
    pub value: Option<Vec<u8>>,
    /// Headers.
    pub headers: Vec<(String, Vec<u8>)>,
    /// The timestamp in milliseconds.
    pub timestamp_ms: i64,
}

/// Make `topic` with `partitions` partitions at `ep` and write `records` (idempotent, acks=all).
///
/// # Panics
/// On any failure (a test's).
pub fn produce(ep: &Endpoint, topic: &str, partitions: u32, records: &[TestRecord]) {
    write(ep, topic, Some(partitions), records);
}

/// Write `records` to `topic`, which exists at `ep` (idempotent, acks=all).
///
/// # Panics
/// On any failure (a test's).
pub fn append(ep: &Endpoint, topic: &str, records: &[TestRecord]) {
    write(ep, topic, None, records);
}

fn write(ep: &Endpoint, topic: &str, create: Option<u32>, records: &[TestRecord]) {
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
    rt.block_on(async {
        let c = Cluster::connect(ep).await.expect("connect");
        if let Some(partitions) = create {
            c.create_topic(topic, partitions, &[]).await.expect("create topic");
        }
        let kafka: &Kafka = &c.kafka;
        let producer = kafka.producer().idempotent(true).acks(Acks::All).build().await.expect("producer");
        for r in records {
            let mut rec =
                krafka::Record::new(topic, r.value.clone().unwrap_or_default()).partition(r.partition as i32).timestamp(r.timestamp_ms);
            if r.value.is_none() {
                rec = rec.without_value();
            }
            if let Some(k) = &r.key {
                rec = rec.key(k.clone());
            }
            for (k, v) in &r.headers {
                rec = rec.header(k.clone(), v.clone());
            }
            let _delivered = producer.send(rec).await.expect("send");
        }
        producer.flush().await.expect("flush");
        let _ = producer.close().await;
    });
}

/// Commit `offsets` (partition, next offset) of `topic` for consumer group
/// `group` at `ep`, as a consumer that stopped would have left them (the group
/// has no members after).
///
/// # Panics
/// On any failure (a test's).
pub fn commit(ep: &Endpoint, group: &str, topic: &str, offsets: &[(u32, i64)]) {
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
    rt.block_on(async {
        let c = Cluster::connect(ep).await.expect("connect");
        c.commit_group(group, topic, offsets).await.expect("commit");
    });
}

/// A live member of a consumer group, subscribed to one topic, until dropped.
pub struct Member {
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Member {
    /// Join `group` at `ep` subscribed to `topic` (client id `client`), and
    /// return once the group has given it its partitions. It commits nothing.
    ///
    /// # Panics
    /// When it is not given a place within 30 s (a test's failure).
    pub fn join(ep: &Endpoint, group: &str, topic: &str, client: &str) -> Member {
        use std::sync::atomic::{AtomicBool, Ordering};
        let stop = std::sync::Arc::new(AtomicBool::new(false));
        let (ready_tx, ready_rx) = std::sync::mpsc::channel::<()>();
        let (ep, group, topic, client, flag) = (ep.clone(), group.to_string(), topic.to_string(), client.to_string(), stop.clone());
        let thread = std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
            rt.block_on(async {
                let auth = ep.auth().expect("auth");
                let kafka = Kafka::builder(ep.bootstrap.clone()).client_id(client).security(auth).connect().await.expect("connect");
                // A short session: nisshi's first join takes about half of it.
                let consumer = kafka
                    .consumer(group)
                    .session_timeout(Duration::from_secs(6))
                    .heartbeat_interval(Duration::from_millis(1500))
                    .enable_auto_commit(false)
                    .build()
                    .await
                    .expect("consumer");
                consumer.subscribe([topic.as_str()]).await.expect("subscribe");
                let mut told = false;
                while !flag.load(Ordering::Relaxed) {
                    let _ = consumer.poll(Duration::from_millis(200)).await;
                    if !told && !consumer.assignment().await.is_empty() {
                        let _ = ready_tx.send(());
                        told = true;
                    }
                }
                let _ = tokio::time::timeout(Duration::from_secs(3), consumer.close()).await;
            });
        });
        ready_rx.recv_timeout(Duration::from_secs(30)).expect("the member was given its partitions");
        Member { stop, thread: Some(thread) }
    }
}

impl Drop for Member {
    fn drop(&mut self) {
        self.stop.store(true, std::sync::atomic::Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}
