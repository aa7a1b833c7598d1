//! The balancing demo on a cluster: consumers the app starts in a group of
//! the cluster, each reading a topic at a pace a person can follow and
//! committing what it read, so that the group's partitions can be seen moving
//! between members as they join and leave (and its lag going down). Each
//! member says what the group gave it: Kafka's DescribeGroups need not (nisshi
//! answers it without assignments).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use krafka::Kafka;

use crate::cluster::Endpoint;

/// How a demo member stands, as it last said.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct DemoState {
    /// Its client id (`twainmq-demo-N`).
    pub client_id: String,
    /// The group.
    pub group: String,
    /// The topic it reads.
    pub topic: String,
    /// The partitions the group gave it now, in order.
    pub partitions: Vec<u32>,
    /// Records it read (and committed).
    pub consumed: u64,
    /// Whether it has been given a place in the group at least once.
    pub joined: bool,
    /// What went wrong, when it stopped on its own.
    pub error: Option<String>,
    /// Whether it has left the group (stopped, or failed).
    pub left: bool,
}

/// A running demo member; it leaves the group when stopped or dropped.
pub struct DemoMember {
    stop: Arc<AtomicBool>,
    state: Arc<Mutex<DemoState>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl std::fmt::Debug for DemoMember {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DemoMember").field("state", &self.state()).finish_non_exhaustive()
    }
}

/// The most records a member reads a second: slow enough to watch.
pub const DEMO_RECORDS_PER_SECOND: i32 = 20;

fn set(state: &Mutex<DemoState>, f: impl FnOnce(&mut DemoState)) {
    f(&mut state.lock().unwrap_or_else(std::sync::PoisonError::into_inner));
}

impl DemoMember {
    /// Start a member of `group` reading `topic` at `ep` as `client_id`; it
    /// joins in the background (see [`DemoMember::state`]).
    pub fn start(ep: &Endpoint, group: &str, topic: &str, client_id: &str) -> DemoMember {
        let stop = Arc::new(AtomicBool::new(false));
        let state = Arc::new(Mutex::new(DemoState {
            client_id: client_id.to_string(),
            group: group.to_string(),
            topic: topic.to_string(),
            ..DemoState::default()
        }));
        let (ep, group, topic, client, flag, st) =
            (ep.clone(), group.to_string(), topic.to_string(), client_id.to_string(), stop.clone(), state.clone());
        let thread = std::thread::Builder::new().name(format!("demo-{client}")).spawn(move || {
            let rt = match tokio::runtime::Builder::new_current_thread().enable_all().build() {
                Ok(rt) => rt,
                Err(e) => return set(&st, |s| (s.error, s.left) = (Some(e.to_string()), true)),
            };
            let r: Result<(), String> = rt.block_on(async {
                let auth = ep.auth().map_err(|e| e.to_string())?;
                let kafka = Kafka::builder(ep.bootstrap.clone())
                    .client_id(client)
                    .security(auth)
                    .request_timeout(ep.request_timeout)
                    .connect_timeout(ep.request_timeout.min(Duration::from_secs(5)))
                    .connect()
                    .await
                    .map_err(|e| e.to_string())?;
                let consumer = kafka
                    .consumer(group)
                    .session_timeout(Duration::from_secs(10))
                    .heartbeat_interval(Duration::from_secs(2))
                    .enable_auto_commit(false)
                    // A new group reads from the start (what it has committed, when it has).
                    .auto_offset_reset(krafka::consumer::AutoOffsetReset::Earliest)
                    .max_poll_records(DEMO_RECORDS_PER_SECOND / 4)
                    .build()
                    .await
                    .map_err(|e| e.to_string())?;
                consumer.subscribe([topic.as_str()]).await.map_err(|e| e.to_string())?;
                while !flag.load(Ordering::Relaxed) {
                    let batch = consumer.poll(Duration::from_millis(250)).await.map_err(|e| e.to_string())?;
                    let n = batch.len() as u64;
                    if n > 0 {
                        // What was read is committed: the group's lag follows the members.
                        consumer.commit().await.map_err(|e| e.to_string())?;
                    }
                    let mut held: Vec<u32> = consumer
                        .assignment()
                        .await
                        .into_iter()
                        .filter(|(t, _)| *t == topic)
                        .flat_map(|(_, ps)| ps.into_iter().filter_map(|p| u32::try_from(p).ok()))
                        .collect();
                    held.sort_unstable();
                    set(&st, |s| {
                        s.consumed += n;
                        s.joined |= !held.is_empty();
                        s.partitions = held;
                    });
                    if n > 0 {
                        // The pace a person can follow: a quarter second a quarter of the records.
                        tokio::time::sleep(Duration::from_millis(250)).await;
                    }
                }
                let _ = tokio::time::timeout(Duration::from_secs(5), consumer.close()).await;
                Ok(())
            });
            set(&st, |s| {
                s.partitions.clear();
                s.left = true;
                s.error = r.err();
            });
        });
        let thread = match thread {
            Ok(t) => Some(t),
            Err(e) => {
                set(&state, |s| (s.error, s.left) = (Some(format!("could not start: {e}")), true));
                None
            }
        };
        DemoMember { stop, state, thread }
    }

    /// How it stands now.
    pub fn state(&self) -> DemoState {
        self.state.lock().unwrap_or_else(std::sync::PoisonError::into_inner).clone()
    }

    /// Leave the group (after its current poll) and wait for it, at most
    /// `within`; a member that does not end by then ends on its own.
    pub fn stop(mut self, within: Duration) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let deadline = std::time::Instant::now() + within;
            while !t.is_finished() && std::time::Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(20));
            }
            if t.is_finished() {
                let _ = t.join();
            }
        }
    }
}

impl Drop for DemoMember {
    fn drop(&mut self) {
        // Told to leave; not waited for (a window closing does not hang on a broker).
        self.stop.store(true, Ordering::Relaxed);
    }
}
