//! Demo members: real engine group members running on their own threads inside
//! the app, so people can watch partitions move as members come and go.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use twainmq::group::{GroupMember, GroupOptions};
use twainmq::{StartFrom, Store};

use crate::transport::{DemoMember, ErrorDto};

struct Running {
    topic: String,
    group: String,
    window_ms: u32,
    rate: u32,
    member_id: Arc<AtomicU64>,
    consumed: Arc<AtomicU64>,
    assigned: Arc<Mutex<Vec<u32>>>,
    /// Messages consumed in each of the last 60 seconds (oldest first).
    per_second: Arc<Mutex<Vec<u64>>>,
    stop: Arc<AtomicBool>,
    kill: Arc<AtomicBool>,
    status: Arc<Mutex<String>>,
    thread: Option<JoinHandle<()>>,
}

/// The demo members of this app, by handle.
#[derive(Default)]
pub struct Members {
    next: AtomicU64,
    running: Mutex<BTreeMap<u64, Running>>,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl Members {
    /// Start a member of `group` on `topic` that processes at most `rate` messages a second (0: no limit).
    pub fn start(&self, store: &Store, topic: &str, group: &str, window_ms: u32, rate: u32) -> Result<u64, ErrorDto> {
        // Check names and the topic now, so the caller gets the error, not a dead thread.
        // Create the group now, so it can be described as soon as this returns.
        twainmq::group::ensure(store, topic, group, StartFrom::Start)?;
        let handle = self.next.fetch_add(1, Ordering::Relaxed) + 1;
        let r = Running {
            topic: topic.to_string(),
            group: group.to_string(),
            window_ms,
            rate,
            member_id: Arc::new(AtomicU64::new(0)),
            consumed: Arc::new(AtomicU64::new(0)),
            assigned: Arc::new(Mutex::new(Vec::new())),
            per_second: Arc::new(Mutex::new(Vec::new())),
            stop: Arc::new(AtomicBool::new(false)),
            kill: Arc::new(AtomicBool::new(false)),
            status: Arc::new(Mutex::new("joining".into())),
            thread: None,
        };
        let (store, topic_s, group_s) = (store.clone(), topic.to_string(), group.to_string());
        let (id, consumed, assigned, per_second, stop, kill, status) = (
            r.member_id.clone(),
            r.consumed.clone(),
            r.assigned.clone(),
            r.per_second.clone(),
            r.stop.clone(),
            r.kill.clone(),
            r.status.clone(),
        );
        let thread = std::thread::Builder::new()
            .name(format!("demo-member-{handle}"))
            .spawn(move || {
                let opts = GroupOptions {
                    window: Duration::from_millis(u64::from(window_ms.max(100))),
                    start_from: StartFrom::Start,
                    // A round every ten windows (at least 5 s) moves a dead member's
                    // partitions; any member's round resets every member's timer.
                    auto_round: Some(Duration::from_millis((u64::from(window_ms.max(100)) * 10).max(5000))),
                    ..GroupOptions::default()
                };
                let mut member = match GroupMember::join(&store, &topic_s, &group_s, opts) {
                    Ok(m) => m,
                    Err(e) => {
                        *lock(&status) = format!("failed: {e}");
                        return;
                    }
                };
                id.store(u64::from(member.id()), Ordering::Relaxed);
                *lock(&status) = "running".into();
                let gap = if rate == 0 { Duration::ZERO } else { Duration::from_secs_f64(1.0 / f64::from(rate)) };
                let mut second = Instant::now();
                let mut this_second = 0u64;
                let mut since_commit = 0u32;
                loop {
                    if kill.load(Ordering::Relaxed) {
                        *lock(&status) = "killed".into();
                        lock(&assigned).clear();
                        member.abandon();
                        return;
                    }
                    if stop.load(Ordering::Relaxed) {
                        break;
                    }
                    match member.poll_timeout(Duration::from_millis(50)) {
                        Ok(Some(_)) => {
                            consumed.fetch_add(1, Ordering::Relaxed);
                            this_second += 1;
                            since_commit += 1;
                            if since_commit >= 50 {
                                let _ = member.commit();
                                since_commit = 0;
                            }
                            if !gap.is_zero() {
                                std::thread::sleep(gap);
                            }
                        }
                        Ok(None) => {
                            if since_commit > 0 {
                                let _ = member.commit();
                                since_commit = 0;
                            }
                        }
                        Err(twainmq::Error::CorruptLine { .. }) => {}
                        Err(e) => {
                            *lock(&status) = format!("failed: {e}");
                            break;
                        }
                    }
                    *lock(&assigned) = member.assignment().to_vec();
                    if second.elapsed() >= Duration::from_secs(1) {
                        let mut ps = lock(&per_second);
                        ps.push(this_second);
                        if ps.len() > 60 {
                            ps.remove(0);
                        }
                        this_second = 0;
                        second = Instant::now();
                    }
                }
                let _ = member.close();
                lock(&assigned).clear();
                let mut st = lock(&status);
                if !st.starts_with("failed") {
                    *st = "stopped".into();
                }
            })
            .map_err(|e| ErrorDto::new("internal", format!("could not start a member: {e}")))?;
        lock(&self.running).insert(handle, Running { thread: Some(thread), ..r });
        Ok(handle)
    }

    /// Stop gracefully (commit and leave), or kill (vanish without a word, as a crash would).
    pub fn stop(&self, handle: u64, kill: bool) -> Result<(), ErrorDto> {
        let mut running = lock(&self.running);
        let r = running.get_mut(&handle).ok_or_else(|| ErrorDto::new("no_such_member", format!("no demo member {handle}")))?;
        if kill {
            r.kill.store(true, Ordering::Relaxed);
        } else {
            r.stop.store(true, Ordering::Relaxed);
        }
        if let Some(t) = r.thread.take() {
            drop(running);
            let _ = t.join();
        }
        Ok(())
    }

    /// Forget stopped and killed members.
    pub fn clear_stopped(&self) {
        lock(&self.running).retain(|_, r| r.thread.as_ref().is_some_and(|t| !t.is_finished()));
    }

    pub fn list(&self) -> Vec<DemoMember> {
        lock(&self.running)
            .iter()
            .map(|(h, r)| DemoMember {
                handle: h.to_string(),
                member_id: r.member_id.load(Ordering::Relaxed) as u32,
                topic: r.topic.clone(),
                group: r.group.clone(),
                window_ms: r.window_ms,
                rate: r.rate,
                status: lock(&r.status).clone(),
                partitions: lock(&r.assigned).clone(),
                consumed: r.consumed.load(Ordering::Relaxed).to_string(),
                per_second: lock(&r.per_second).iter().map(|n| *n as u32).collect(),
            })
            .collect()
    }

    /// Stop every member (on closing the store or the app).
    pub fn stop_all(&self) {
        let handles: Vec<u64> = lock(&self.running).keys().copied().collect();
        for h in handles {
            let _ = self.stop(h, false);
        }
    }
}
