//! Demo members: real engine group members running on their own threads inside
//! the app, so people can watch partitions move as members come and go.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use twainmq::group::{ClientInfo, GroupMember, GroupOptions};
use twainmq::{StartFrom, Store};

use super::wire::{DemoMember, MemberStatus};
use crate::engine;
use crate::topics::service::topic_incarnation as incarnation_of;
use crate::wire::{Count, ErrorCode, ErrorDto, Handle, Incarnation};

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
    status: Arc<Mutex<Status>>,
    thread: Option<JoinHandle<()>>,
}

/// What a member is doing, and why it failed.
type Status = (MemberStatus, Option<String>);

/// The demo members of this app, by handle.
#[derive(Default)]
pub struct Members {
    next: AtomicU64,
    running: Mutex<BTreeMap<u64, Running>>,
    /// (group, member id) of members this app started and no longer lists (cleared after they
    /// stopped or were killed): the group log still shows them for a while, and they are ours.
    cleared: Mutex<BTreeSet<(String, u32)>>,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// What a member's thread shares with the app.
struct Shared {
    consumed: Arc<AtomicU64>,
    assigned: Arc<Mutex<Vec<u32>>>,
    per_second: Arc<Mutex<Vec<u64>>>,
    stop: Arc<AtomicBool>,
    kill: Arc<AtomicBool>,
}

/// How often a member checks that its topic and group are still the ones it
/// joined (besides before every commit).
const IDENTITY_CHECK: Duration = Duration::from_millis(300);

/// The topic and the group a member joined, as they were then.
struct Joined {
    topic: String,
    topic_incarnation: Option<Incarnation>,
    group_topic: String,
    group_incarnation: Option<Incarnation>,
}

/// Why a member must stop: its topic or group was deleted or made again by
/// another process. A commit then would be of offsets in files that are gone,
/// and would apply to whatever topic now has the name.
enum Gone {
    Topic,
    Group,
}

impl Joined {
    /// `topic_incarnation` is taken before joining: a topic replaced while the
    /// member joined is not the one it was started on.
    fn of(store: &Store, member: &GroupMember, topic_incarnation: Option<Incarnation>) -> Joined {
        let topic = member.topic().to_string();
        let group_topic = engine::group_topic(member.group());
        Joined { topic_incarnation, group_incarnation: incarnation_of(store, &group_topic), topic, group_topic }
    }

    fn check(&self, store: &Store) -> Option<Gone> {
        if incarnation_of(store, &self.group_topic) != self.group_incarnation {
            Some(Gone::Group)
        } else if incarnation_of(store, &self.topic) != self.topic_incarnation {
            Some(Gone::Topic)
        } else {
            None
        }
    }
}

/// How a member's loop ended.
enum End {
    /// Asked to stop: commit what was delivered and leave.
    Stop,
    /// Killed: vanish without a word, as a crash would.
    Kill,
    /// Its output (here: a commit) or its input failed: leave without committing,
    /// so what was polled since the last commit is read again, never skipped.
    /// With what happened.
    Failed(String),
    /// Its topic or group is no longer the one joined: leave without committing;
    /// when the group itself went, without writing to it either.
    Gone(Gone, String),
}

fn gone_status(gone: &Gone, topic: &str, group: &str, cause: Option<&twainmq::Error>) -> String {
    let what = match gone {
        Gone::Topic => format!("topic {topic:?} was deleted or made again by another process"),
        Gone::Group => format!("group {group:?} was deleted or made again by another process (deleting a topic deletes its groups)"),
    };
    let cause = cause.map(|e| format!(" ({e})")).unwrap_or_default();
    format!("{what}{cause}: this member stopped without committing. Start a new member to read the topic as it is now")
}

/// Run a joined member until it is stopped, killed or fails; leave the group
/// as the end requires and return the status to show.
///
/// A message counts as delivered when it is polled (the demo does nothing else
/// with it), so a commit covers exactly what was polled. Commits are written
/// only while the topic and group are still the ones joined.
fn run_member(store: &Store, mut member: GroupMember, topic_incarnation: Option<Incarnation>, rate: u32, shared: &Shared) -> Status {
    let joined = Joined::of(store, &member, topic_incarnation);
    let (topic, group) = (member.topic().to_string(), member.group().to_string());
    let gap = if rate == 0 { Duration::ZERO } else { Duration::from_secs_f64(1.0 / f64::from(rate)) };
    let mut second = Instant::now();
    let mut checked = Instant::now();
    let mut this_second = 0u64;
    let mut since_commit = 0u32;
    // Commit what was polled, unless the topic or group went meanwhile.
    let commit = |member: &mut GroupMember| -> Result<(), End> {
        if let Some(g) = joined.check(store) {
            let status = gone_status(&g, &topic, &group, None);
            return Err(End::Gone(g, status));
        }
        member.commit().map_err(|e| failure(&joined, store, &topic, &group, &e))
    };
    let end = loop {
        if shared.kill.load(Ordering::Relaxed) {
            break End::Kill;
        }
        if shared.stop.load(Ordering::Relaxed) {
            break End::Stop;
        }
        if checked.elapsed() >= IDENTITY_CHECK {
            checked = Instant::now();
            if let Some(g) = joined.check(store) {
                let status = gone_status(&g, &topic, &group, None);
                break End::Gone(g, status);
            }
        }
        match member.poll_timeout(Duration::from_millis(50)) {
            Ok(Some(_)) => {
                shared.consumed.fetch_add(1, Ordering::Relaxed);
                this_second += 1;
                since_commit += 1;
                if since_commit >= 50 {
                    if let Err(e) = commit(&mut member) {
                        break e;
                    }
                    since_commit = 0;
                }
                if !gap.is_zero() {
                    std::thread::sleep(gap);
                }
            }
            Ok(None) => {
                if since_commit > 0 {
                    if let Err(e) = commit(&mut member) {
                        break e;
                    }
                    since_commit = 0;
                }
            }
            // Skipped with a warning by the engine; the next poll reads on.
            Err(twainmq::Error::CorruptLine { .. }) => {}
            Err(e) => break failure(&joined, store, &topic, &group, &e),
        }
        *lock(&shared.assigned) = member.assignment().to_vec();
        if second.elapsed() >= Duration::from_secs(1) {
            let mut ps = lock(&shared.per_second);
            ps.push(this_second);
            if ps.len() > 60 {
                ps.remove(0);
            }
            this_second = 0;
            second = Instant::now();
        }
    };
    match end {
        End::Stop => match member.close() {
            Ok(()) => (MemberStatus::Stopped, None),
            Err(e) => (MemberStatus::Failed, Some(format!("could not commit and leave the group: {e}"))),
        },
        End::Kill => {
            member.abandon();
            (MemberStatus::Killed, None)
        }
        End::Gone(Gone::Group, problem) => {
            // Nothing to tell a group that is gone, and nothing may be written
            // into one made again under its name.
            member.abandon();
            (MemberStatus::Failed, Some(problem))
        }
        End::Gone(Gone::Topic, problem) | End::Failed(problem) => {
            if let Err(e) = member.close_without_commit() {
                tracing::warn!(group, error = %e, "a failed demo member could not leave its group cleanly");
            }
            (MemberStatus::Failed, Some(problem))
        }
    }
}

/// The end an engine error means: its topic or group gone (the engine says
/// `TopicDeleted`, or the files say so), or another failure.
fn failure(joined: &Joined, store: &Store, topic: &str, group: &str, e: &twainmq::Error) -> End {
    match (joined.check(store), e) {
        (Some(g), _) => {
            let status = gone_status(&g, topic, group, Some(e));
            End::Gone(g, status)
        }
        (None, twainmq::Error::TopicDeleted { topic: t, .. }) => {
            let g = if t == topic { Gone::Topic } else { Gone::Group };
            let status = gone_status(&g, topic, group, Some(e));
            End::Gone(g, status)
        }
        (None, _) => End::Failed(format!("{e}: this member stopped without committing what it read since its last commit")),
    }
}

impl Members {
    /// Start a member of `group` on `topic` that processes at most `rate` messages a second (0: no limit).
    pub fn start(&self, store: &Store, topic: &str, group: &str, window_ms: u32, rate: u32) -> Result<Handle, ErrorDto> {
        // Check names and the topic now, so the caller gets the error, not a dead thread.
        // Create the group now, so it can be described as soon as this returns.
        store.ensure_group(topic, group, StartFrom::Start)?;
        let topic_incarnation = incarnation_of(store, topic);
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
            status: Arc::new(Mutex::new((MemberStatus::Joining, None))),
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
                    client: Some(ClientInfo::this_process("twainmq-desktop", env!("CARGO_PKG_VERSION"))),
                    ..GroupOptions::default()
                };
                let member = match GroupMember::join(&store, &topic_s, &group_s, opts) {
                    Ok(m) => m,
                    Err(e) => {
                        *lock(&status) = (MemberStatus::Failed, Some(e.to_string()));
                        return;
                    }
                };
                id.store(u64::from(member.id()), Ordering::Relaxed);
                *lock(&status) = (MemberStatus::Running, None);
                let shared = Shared { consumed, assigned: assigned.clone(), per_second, stop, kill };
                let end = run_member(&store, member, topic_incarnation, rate, &shared);
                lock(&assigned).clear();
                *lock(&status) = end;
            })
            .map_err(|e| ErrorDto::new(ErrorCode::Internal, format!("could not start a member: {e}")))?;
        lock(&self.running).insert(handle, Running { thread: Some(thread), ..r });
        Ok(Handle(handle))
    }

    /// Stop gracefully (commit and leave), or kill (vanish without a word, as a crash would).
    pub fn stop(&self, handle: Handle, kill: bool) -> Result<(), ErrorDto> {
        let mut running = lock(&self.running);
        let r = running.get_mut(&handle.get()).ok_or_else(|| ErrorDto::new(ErrorCode::NoSuchMember, format!("no demo member {handle}")))?;
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
        let mut cleared = lock(&self.cleared);
        lock(&self.running).retain(|_, r| {
            let keep = r.thread.as_ref().is_some_and(|t| !t.is_finished());
            if !keep {
                cleared.insert((r.group.clone(), r.member_id.load(Ordering::Relaxed) as u32));
            }
            keep
        });
    }

    pub fn list(&self) -> Vec<DemoMember> {
        lock(&self.running)
            .iter()
            .map(|(h, r)| {
                let (status, problem) = lock(&r.status).clone();
                DemoMember {
                    handle: Handle(*h),
                    member_id: r.member_id.load(Ordering::Relaxed) as u32,
                    topic: r.topic.clone(),
                    group: r.group.clone(),
                    window_ms: r.window_ms,
                    rate: r.rate,
                    status,
                    problem,
                    partitions: lock(&r.assigned).clone(),
                    consumed: Count(r.consumed.load(Ordering::Relaxed)),
                    per_second: lock(&r.per_second).iter().map(|n| u32::try_from(*n).unwrap_or(u32::MAX)).collect(),
                }
            })
            .collect()
    }

    /// Refuse to add a demo member to `group` while members this app did not start are in it
    /// (live or stale: a 0.2.3 member that is idle looks silent): the demo member would take
    /// some of their partitions in the next round and commit what it reads, so they would never
    /// process those messages. The user is asked first (`join_live`), told exactly that.
    /// Every member this app started is ours, stopped or killed too (the log shows a killed one
    /// as stale until its silence makes it gone). Our own members still joining (their id not
    /// known yet) may be the unknown ones: counted as ours (the first of them was refused or
    /// confirmed already).
    pub fn check_group_free(&self, store: &Store, group: &str) -> Result<(), ErrorDto> {
        let d = match store.describe_group(group) {
            Ok(d) => d,
            Err(twainmq::Error::GroupNotFound { .. }) => return Ok(()),
            Err(e) => return Err(e.into()),
        };
        let listed: Vec<DemoMember> = self.list().into_iter().filter(|m| m.group == group).collect();
        let cleared = lock(&self.cleared);
        let ours = |id: u32| listed.iter().any(|o| o.member_id == id) || cleared.contains(&(group.to_string(), id));
        let joining = listed
            .iter()
            .filter(|m| m.member_id == 0 && !matches!(m.status, MemberStatus::Stopped | MemberStatus::Killed | MemberStatus::Failed))
            .count();
        let others: Vec<u32> =
            d.members.iter().filter(|m| m.status != twainmq::group::MemberStatus::Gone && !ours(m.id)).map(|m| m.id).collect();
        drop(cleared);
        if others.len() <= joining {
            return Ok(());
        }
        let names = others.iter().map(|id| format!("m{id}")).collect::<Vec<_>>().join(", ");
        let n = others.len();
        Err(ErrorDto::new(
            ErrorCode::GroupInUse,
            format!(
                "group {group} has {n} member{s} this app did not start ({names}): a demo member would join it, take some of {their} partitions at the next round and commit what it reads, so {they} would never process those messages. Try the demo in a group of its own, or join anyway",
                s = if n == 1 { "" } else { "s" },
                their = if n == 1 { "its" } else { "their" },
                they = if n == 1 { "it" } else { "they" },
            ),
        ))
    }

    /// Stop every member (on closing the store or the app).
    pub fn stop_all(&self) {
        let handles: Vec<u64> = lock(&self.running).keys().copied().collect();
        for h in handles {
            let _ = self.stop(Handle(h), false);
        }
    }
}
