//! What the cluster's commands do (no Tauri here, so it is tested directly):
//! test a connection and name what failed, keep saved connections (their
//! settings in a file beside the recent stores, their passwords only in the
//! OS keychain), and [`ClusterSource`]: a Kafka cluster as a window's source
//! of topics, messages and groups (`crate::source`), read through the bridge
//! crate (`twainmq_kafka::browse`).
//!
//! What a cluster cannot do yet in this app (produce, create and delete
//! topics, timelines, raw lines, every groups call) answers
//! [`ErrorCode::NotOnCluster`] saying so; the cluster window offers none of it.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};
use twainmq_kafka::browse::{self, Browser, NewRecord, ResetRow, ResetTo};
use twainmq_kafka::{Endpoint, Sasl, SaslMechanism, Secret, Tls};

use super::wire::{
    record_row, BytesInput, ClusterGroupDetail, ClusterGroupSummary, ClusterInfo, ClusterOverviewDto, ClusterProduceRequest,
    ClusterProduced, ClusterResetPlan, ClusterResetRequest, ClusterResetRow, ClusterResetTo, ClusterTopic, CompatCheck, ConnectFailureDto,
    ConnectRequest, ConnectionSettings, ConnectionTest, SaslMechanismDto, SavedConnection,
};
use crate::groups::service::Groups;
use crate::groups::wire::{DeletedGroup, GroupDeletePreview, GroupDetail};
use crate::groups::wire_lag::{HistorySpan, LagAlertThresholds, LagCheckDto, LagHistoryDto};
use crate::groups::wire_reset::{ResetPlanDto, ResetRequest};
use crate::messages::service::{Messages, MAX_PAGE};
use crate::messages::wire::{
    KeyInput, MessageRef, Page, PayloadSlice, ProducePayload, Produced, RawLine, Row, SavedPayload, TimelineAnchor, TimelinePageDto,
};
use crate::topics::service::Topics;
use crate::topics::wire::{DeletedTopic, NewTopic, PartitionDetail, TopicDetail, TopicSummary};
use crate::wire::{Bytes, Count, ErrorCode, ErrorDto, Incarnation, Offset};

/// How long one request to a cluster may take.
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(5);

/// The keychain's service name for the app's secrets.
pub const KEYCHAIN_SERVICE: &str = "TwainMQ Desktop";

/// The error of an operation this app does not do on a cluster yet.
pub fn not_on_cluster(what: &str) -> ErrorDto {
    ErrorDto::new(
        ErrorCode::NotOnCluster,
        format!("{what} is not available for a Kafka cluster in this version of the app (a store folder has it)"),
    )
}

fn kafka_error(e: &twainmq_kafka::Error) -> ErrorDto {
    ErrorDto::new(ErrorCode::Kafka, e.to_string())
}

/// The bridge's endpoint for these settings and password.
pub fn endpoint(settings: &ConnectionSettings, password: Option<&str>) -> Result<Endpoint, ErrorDto> {
    let bad = |m: String| ErrorDto::new(ErrorCode::InvalidConnection, m);
    let bootstrap: Vec<&str> = settings.bootstrap.split(',').map(str::trim).filter(|s| !s.is_empty()).collect();
    if bootstrap.is_empty() {
        return Err(bad("give the bootstrap servers: HOST:PORT, several separated by commas".into()));
    }
    for hp in &bootstrap {
        let ok = hp.rsplit_once(':').is_some_and(|(h, p)| !h.is_empty() && p.parse::<u16>().is_ok_and(|p| p != 0));
        if !ok {
            return Err(bad(format!("{hp:?} is not HOST:PORT (the port a number from 1 to 65535)")));
        }
    }
    let file = |f: &Option<String>| f.as_deref().map(str::trim).filter(|s| !s.is_empty()).map(PathBuf::from);
    let tls = match &settings.tls {
        None => None,
        Some(t) => {
            let client = match (file(&t.cert_file), file(&t.key_file)) {
                (Some(c), Some(k)) => Some((c, k)),
                (None, None) => None,
                _ => return Err(bad("a client certificate needs both its certificate file and its key file".into())),
            };
            Some(Tls { ca: file(&t.ca_file), client })
        }
    };
    let sasl = match &settings.sasl {
        None => None,
        Some(s) => {
            if s.username.trim().is_empty() {
                return Err(bad("SASL needs a user name".into()));
            }
            let password = password.ok_or_else(|| bad("SASL needs the user's password".into()))?;
            let mechanism = match s.mechanism {
                SaslMechanismDto::Plain => SaslMechanism::Plain,
                SaslMechanismDto::ScramSha256 => SaslMechanism::ScramSha256,
                SaslMechanismDto::ScramSha512 => SaslMechanism::ScramSha512,
            };
            Some(Sasl { mechanism, username: s.username.trim().to_string(), password: Secret::Text(password.to_string()) })
        }
    };
    Ok(Endpoint { bootstrap: bootstrap.join(","), tls, sasl, request_timeout: REQUEST_TIMEOUT })
}

/// Where passwords go: the OS keychain in the app, another store in tests.
pub trait Secrets: Send + Sync {
    /// Keep `secret` under `account`.
    ///
    /// # Errors
    /// Why it could not (no keychain on this system, access refused): said to the user.
    fn set(&self, account: &str, secret: &str) -> Result<(), String>;
    /// The secret under `account`, `None` when there is none.
    ///
    /// # Errors
    /// Why it could not be read.
    fn get(&self, account: &str) -> Result<Option<String>, String>;
    /// Remove the secret under `account` (none there is fine).
    ///
    /// # Errors
    /// Why it could not.
    fn delete(&self, account: &str) -> Result<(), String>;
}

/// The OS keychain, through the `keyring` crate: macOS Keychain, Windows
/// Credential Manager, the Secret Service (GNOME Keyring, KWallet) on Linux.
pub struct OsKeychain;

fn keyring_problem(e: &keyring::Error) -> String {
    match e {
        keyring::Error::PlatformFailure(_) | keyring::Error::NoStorageAccess(_) => {
            format!("no keychain is available on this system ({e}): the password was not saved, and is asked for at each connection")
        }
        other => format!("the keychain refused: {other}"),
    }
}

impl Secrets for OsKeychain {
    fn set(&self, account: &str, secret: &str) -> Result<(), String> {
        let entry = keyring::Entry::new(KEYCHAIN_SERVICE, account).map_err(|e| keyring_problem(&e))?;
        entry.set_password(secret).map_err(|e| keyring_problem(&e))
    }
    fn get(&self, account: &str) -> Result<Option<String>, String> {
        let entry = keyring::Entry::new(KEYCHAIN_SERVICE, account).map_err(|e| keyring_problem(&e))?;
        match entry.get_password() {
            Ok(p) => Ok(Some(p)),
            Err(keyring::Error::NoEntry) => Ok(None),
            Err(e) => Err(keyring_problem(&e)),
        }
    }
    fn delete(&self, account: &str) -> Result<(), String> {
        let entry = keyring::Entry::new(KEYCHAIN_SERVICE, account).map_err(|e| keyring_problem(&e))?;
        match entry.delete_credential() {
            Ok(()) | Err(keyring::Error::NoEntry) => Ok(()),
            Err(e) => Err(keyring_problem(&e)),
        }
    }
}

/// The keychain account of a saved connection.
pub fn account(id: &str) -> String {
    format!("connection-{id}")
}

/// The saved connections' file: settings only (`SavedConnection` has no secret field).
#[derive(Debug, Default, Serialize, Deserialize)]
struct SavedFile {
    connections: Vec<SavedConnection>,
}

/// The saved connections in `file` (none when it is missing or unreadable).
pub fn saved(file: Option<&Path>) -> Vec<SavedConnection> {
    file.and_then(|f| std::fs::read(f).ok())
        .and_then(|b| serde_json::from_slice::<SavedFile>(&b).ok())
        .map(|s| s.connections)
        .unwrap_or_default()
}

fn write_saved(file: &Path, connections: Vec<SavedConnection>) -> Result<(), ErrorDto> {
    let io = |e: std::io::Error| ErrorDto::new(ErrorCode::Io, format!("could not save the connections in {}: {e}", file.display()));
    if let Some(dir) = file.parent() {
        std::fs::create_dir_all(dir).map_err(io)?;
    }
    let text = serde_json::to_vec_pretty(&SavedFile { connections })
        .map_err(|e| ErrorDto::new(ErrorCode::Internal, format!("could not write the connections: {e}")))?;
    // Written beside, then renamed over: a crash leaves the old list or the new one.
    let tmp = file.with_extension("json.tmp");
    std::fs::write(&tmp, text).map_err(io)?;
    std::fs::rename(&tmp, file).map_err(io)
}

/// Save `settings` (a connection of the same bootstrap servers and user is
/// replaced, keeping its id) and, when given, its password in the keychain.
/// Returns the saved connection and, when the password could not go to the
/// keychain, why (the settings are saved without it).
///
/// # Errors
/// The file could not be written.
pub fn save(
    file: &Path,
    secrets: &dyn Secrets,
    settings: &ConnectionSettings,
    password: Option<&str>,
) -> Result<(SavedConnection, Option<String>), ErrorDto> {
    let mut all = saved(Some(file));
    let user = |s: &ConnectionSettings| s.sasl.as_ref().map(|x| x.username.clone());
    let same = all.iter().position(|c| c.settings.bootstrap == settings.bootstrap && user(&c.settings) == user(settings));
    let id = match same {
        Some(i) => all[i].id.clone(),
        None => format!("{:016x}", rand::random::<u64>()),
    };
    let mut problem = None;
    let mut password_saved = same.is_some_and(|i| all[i].password_saved) && settings.sasl.is_some();
    match (password, settings.sasl.is_some()) {
        (Some(p), true) => match secrets.set(&account(&id), p) {
            Ok(()) => password_saved = true,
            Err(why) => {
                password_saved = false;
                problem = Some(why);
            }
        },
        (_, false) => {
            // No SASL: no password is kept for it.
            let _ = secrets.delete(&account(&id));
            password_saved = false;
        }
        (None, true) => {}
    }
    let conn = SavedConnection { id, settings: settings.clone(), password_saved };
    match same {
        Some(i) => all[i] = conn.clone(),
        None => all.insert(0, conn.clone()),
    }
    write_saved(file, all)?;
    Ok((conn, problem))
}

/// Forget a saved connection and its keychain password.
///
/// # Errors
/// The file could not be written (the password is removed first).
pub fn forget(file: &Path, secrets: &dyn Secrets, id: &str) -> Result<Option<String>, ErrorDto> {
    let problem = secrets.delete(&account(id)).err();
    let all: Vec<SavedConnection> = saved(Some(file)).into_iter().filter(|c| c.id != id).collect();
    write_saved(file, all)?;
    Ok(problem)
}

/// The password to connect with: the one typed, else the saved connection's from the keychain.
pub fn password_for(request: &ConnectRequest, secrets: &dyn Secrets) -> Result<Option<String>, ErrorDto> {
    if let Some(p) = request.password.as_deref().filter(|p| !p.is_empty()) {
        return Ok(Some(p.to_string()));
    }
    match &request.saved {
        Some(id) if request.settings.sasl.is_some() => {
            secrets.get(&account(id)).map_err(|why| ErrorDto::new(ErrorCode::InvalidConnection, format!("{why}: type the password")))
        }
        _ => Ok(None),
    }
}

/// Test a connection: the cluster's overview, or what failed in words.
pub fn test(request: &ConnectRequest, secrets: &dyn Secrets) -> Result<ConnectionTest, ErrorDto> {
    let password = password_for(request, secrets)?;
    let ep = endpoint(&request.settings, password.as_deref())?;
    Ok(match browse::test_connection(&ep) {
        Ok(o) => ConnectionTest { overview: Some(ClusterOverviewDto::from(&o)), failure: None, keychain_problem: None },
        Err(f) => ConnectionTest { overview: None, failure: Some(ConnectFailureDto::from(&f)), keychain_problem: None },
    })
}

/// A window's balancing-demo members, by id (`demo.rs` starts and stops them).
#[derive(Default)]
pub struct DemoMembers {
    pub(crate) next: std::sync::atomic::AtomicU32,
    pub(crate) members: std::sync::Mutex<Vec<(u32, twainmq_kafka::browse::DemoMember)>>,
}

impl std::fmt::Debug for DemoMembers {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DemoMembers").finish_non_exhaustive()
    }
}

/// A Kafka cluster as a window's source.
pub struct ClusterSource {
    browser: Browser,
    /// How it was reached (its secret in memory only): what a mirror from the window uses.
    endpoint: Endpoint,
    /// The balancing demo's members this window started (they leave when it closes).
    pub(crate) demo: DemoMembers,
    /// The running search's stop flag: a new search stops the one before.
    search: std::sync::Mutex<Option<std::sync::Arc<std::sync::atomic::AtomicBool>>>,
    /// The connection's name, for the window.
    pub name: String,
    pub cluster_id: String,
    /// Opened read-only (safe browse): every write is refused here.
    pub read_only: bool,
}

impl std::fmt::Debug for ClusterSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClusterSource").field("name", &self.name).field("broker", &self.browser.broker()).finish_non_exhaustive()
    }
}

/// A connect's outcome: the source and what the connection showed, or (as a test's answer) what failed.
pub type Connected = Result<(ClusterSource, ClusterOverviewDto), ConnectionTest>;

/// Connect as `request` says.
pub fn connect(request: &ConnectRequest, secrets: &dyn Secrets) -> Result<Connected, ErrorDto> {
    let password = password_for(request, secrets)?;
    let ep = endpoint(&request.settings, password.as_deref())?;
    Ok(match Browser::connect(&ep) {
        Ok((browser, overview)) => {
            let name = match request.settings.name.trim() {
                "" => ep.bootstrap.clone(),
                n => n.to_string(),
            };
            let dto = ClusterOverviewDto::from(&overview);
            Ok((
                ClusterSource {
                    browser,
                    endpoint: ep.clone(),
                    demo: DemoMembers::default(),
                    search: std::sync::Mutex::new(None),
                    name,
                    cluster_id: overview.cluster_id,
                    read_only: request.settings.read_only,
                },
                dto,
            ))
        }
        Err(f) => Err(ConnectionTest { overview: None, failure: Some(ConnectFailureDto::from(&f)), keychain_problem: None }),
    })
}

impl ClusterSource {
    /// The connection, for this domain's other modules.
    pub(crate) fn browser(&self) -> &Browser {
        &self.browser
    }

    /// Where and how the cluster was reached, for this domain's other modules.
    pub(crate) fn endpoint(&self) -> &Endpoint {
        &self.endpoint
    }

    /// A stop flag for a new search; the one before is stopped.
    pub fn new_search(&self) -> std::sync::Arc<std::sync::atomic::AtomicBool> {
        let flag = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let mut slot = self.search.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(old) = slot.replace(flag.clone()) {
            old.store(true, std::sync::atomic::Ordering::Relaxed);
        }
        flag
    }

    /// Stop the running search, if any (what it found stays shown).
    pub fn cancel_search(&self) {
        if let Some(f) = self.search.lock().unwrap_or_else(std::sync::PoisonError::into_inner).as_ref() {
            f.store(true, std::sync::atomic::Ordering::Relaxed);
        }
    }

    /// What the window shows: the cluster and its topics with their watermarks.
    pub fn info(&self) -> Result<ClusterInfo, ErrorDto> {
        let topics = self.browser.topics().map_err(|e| kafka_error(&e))?;
        Ok(ClusterInfo {
            name: self.name.clone(),
            bootstrap: self.browser.broker().to_string(),
            cluster_id: self.cluster_id.clone(),
            topics: topics.iter().map(ClusterTopic::from).collect(),
            read_only: self.read_only,
        })
    }

    /// Refused on a read-only connection, saying so.
    pub(crate) fn writable(&self) -> Result<(), ErrorDto> {
        if self.read_only {
            return Err(ErrorDto::new(
                ErrorCode::ReadOnlyConnection,
                format!("{} is open read-only (safe browse): nothing is written to it from this window. Connect again without \"Read-only\" to write.", self.name),
            ));
        }
        Ok(())
    }

    /// What a reset of `group` would do, partition by partition; nothing written.
    pub fn plan_reset(&self, group: &str, request: &ClusterResetRequest) -> Result<ClusterResetPlan, ErrorDto> {
        if request.topics.is_empty() {
            return Err(ErrorDto::new(ErrorCode::InvalidReset, "pick the topics whose commits to reset"));
        }
        let to = match &request.to {
            ClusterResetTo::Earliest => ResetTo::Earliest,
            ClusterResetTo::Latest => ResetTo::Latest,
            ClusterResetTo::Time { unix_ms } if unix_ms.is_finite() && unix_ms.fract() == 0.0 && *unix_ms >= 0.0 && *unix_ms < 9.0e15 => {
                ResetTo::Time(*unix_ms as i64)
            }
            ClusterResetTo::Time { unix_ms } => {
                return Err(ErrorDto::new(
                    ErrorCode::BadTimestamp,
                    format!("{unix_ms} is not a time: milliseconds since 1970, a whole number of 0 or more"),
                ))
            }
            ClusterResetTo::Offset { offset } => ResetTo::Offset(offset.0),
            ClusterResetTo::Shift { by } => ResetTo::Shift(by.trim().parse::<i64>().map_err(|_| {
                ErrorDto::new(ErrorCode::InvalidReset, format!("{by:?} is not a number of records to move by (like -100 or 250)"))
            })?),
        };
        let rows = self.browser.plan_reset(group, &request.topics, to).map_err(|e| match &e {
            twainmq_kafka::Error::TopicMissing { .. } => ErrorDto::new(ErrorCode::TopicNotFound, e.to_string()),
            _ => kafka_error(&e),
        })?;
        let members = self.browser.group(group).map_err(|e| kafka_error(&e))?.map_or(0, |g| g.members.len());
        let (mut reread, mut skipped) = (0u64, 0u64);
        for r in &rows {
            if let Some(c) = r.current {
                if r.new < c {
                    reread = reread.saturating_add(c - r.new);
                } else {
                    skipped = skipped.saturating_add(r.new - c);
                }
            }
        }
        Ok(ClusterResetPlan {
            group: group.to_string(),
            rows: rows.iter().map(ClusterResetRow::from).collect(),
            members: u32::try_from(members).unwrap_or(u32::MAX),
            reread: Count(reread),
            skipped: Count(skipped),
        })
    }

    /// Apply a plan as it was shown (refused on a read-only connection, or while the group has members).
    pub fn apply_reset(&self, group: &str, rows: &[ClusterResetRow]) -> Result<ClusterGroupDetail, ErrorDto> {
        self.writable()?;
        if rows.is_empty() {
            return Err(ErrorDto::new(ErrorCode::InvalidReset, "the plan has no partition: make a plan first"));
        }
        let rows: Vec<ResetRow> = rows
            .iter()
            .map(|r| ResetRow {
                topic: r.topic.clone(),
                partition: r.partition,
                current: r.current.map(|o| o.0),
                new: r.new.0,
                low: r.low.0,
                end: r.end.0,
            })
            .collect();
        self.browser.apply_reset(group, &rows).map_err(|e| group_admin_error(&e))?;
        self.group(group)
    }

    /// Delete `group` once `confirm` repeats its name (refused read-only, or while it has members).
    pub fn delete_group(&self, group: &str, confirm: &str) -> Result<(), ErrorDto> {
        self.writable()?;
        if confirm != group {
            return Err(ErrorDto::new(ErrorCode::ConfirmationMismatch, format!("type the group's name, {group}, to delete it")));
        }
        self.browser.delete_group(group).map_err(|e| group_admin_error(&e))
    }

    /// Write one record (produce, republish), and say where it landed: only once the cluster has it.
    pub fn produce_record(&self, request: &ClusterProduceRequest) -> Result<ClusterProduced, ErrorDto> {
        self.writable()?;
        let record = new_record(request)?;
        let w = self.browser.produce(&record).map_err(|e| match &e {
            twainmq_kafka::Error::TopicMissing { .. } => {
                ErrorDto::new(ErrorCode::TopicNotFound, format!("{e} (a write never makes a topic)"))
            }
            twainmq_kafka::Error::Config { .. } => ErrorDto::new(ErrorCode::PartitionOutOfRange, e.to_string()),
            _ => kafka_error(&e),
        })?;
        Ok(ClusterProduced { topic: request.topic.clone(), partition: w.partition, offset: w.offset.map(Offset) })
    }

    /// The cluster's compatibility checks; the writing ones (a scratch topic and group, deleted
    /// after) only when `write`, refused on a read-only connection.
    pub fn compatibility(&self, write: bool) -> Result<Vec<CompatCheck>, ErrorDto> {
        if write {
            self.writable()?;
        }
        Ok(self.browser.compatibility(write).iter().map(CompatCheck::from).collect())
    }

    /// Every consumer group of the cluster, by id, with state, members and total lag.
    pub fn groups(&self) -> Result<Vec<ClusterGroupSummary>, ErrorDto> {
        Ok(self.browser.groups().map_err(|e| kafka_error(&e))?.iter().map(ClusterGroupSummary::from).collect())
    }

    /// One consumer group whole.
    pub fn group(&self, id: &str) -> Result<ClusterGroupDetail, ErrorDto> {
        let g = self.browser.group(id).map_err(|e| kafka_error(&e))?.ok_or_else(|| {
            ErrorDto::new(ErrorCode::GroupNotFound, format!("the cluster has no consumer group {id:?} (no member, no committed offset)"))
        })?;
        Ok(ClusterGroupDetail::from(&g))
    }
}

/// A group reset's or delete's refusal: a group with members is `members_live`, no such group `group_not_found`.
fn group_admin_error(e: &twainmq_kafka::Error) -> ErrorDto {
    match e {
        twainmq_kafka::Error::GroupBusy { .. } => ErrorDto::new(ErrorCode::MembersLive, e.to_string()),
        twainmq_kafka::Error::GroupMissing { .. } => ErrorDto::new(ErrorCode::GroupNotFound, e.to_string()),
        _ => kafka_error(e),
    }
}

/// The bytes `input` stands for; `what` names it in the error ("the key", "header trace").
pub fn bytes_of(input: &BytesInput, what: &str) -> Result<Vec<u8>, ErrorDto> {
    match input {
        BytesInput::Text { text } => Ok(text.as_bytes().to_vec()),
        BytesInput::Hex { hex } => {
            let digits: String = hex.trim().trim_start_matches("0x").chars().filter(|c| !c.is_whitespace()).collect();
            ::hex::decode(&digits).map_err(|e| {
                ErrorDto::new(
                    ErrorCode::InvalidHex,
                    format!("{what} is not hex ({e}): give pairs of digits 0-9 and a-f, like 7b 0a or 0x7b0a"),
                )
            })
        }
    }
}

/// The bridge's record for a request, every part checked.
pub fn new_record(request: &ClusterProduceRequest) -> Result<NewRecord, ErrorDto> {
    if request.topic.trim().is_empty() {
        return Err(ErrorDto::new(ErrorCode::InvalidTopicName, "give the topic to write to"));
    }
    let timestamp_ms = match request.timestamp_ms {
        None => None,
        Some(ms) if ms.is_finite() && ms.fract() == 0.0 && (0.0..=9_007_199_254_740_991.0).contains(&ms) => Some(ms as i64),
        Some(ms) => {
            return Err(ErrorDto::new(
                ErrorCode::BadTimestamp,
                format!("{ms} is not a time for a record: milliseconds since 1970, a whole number of 0 or more"),
            ))
        }
    };
    let mut headers = Vec::with_capacity(request.headers.len());
    for h in &request.headers {
        let value = h.value.as_ref().map(|v| bytes_of(v, &format!("the value of header {:?}", h.name))).transpose()?;
        headers.push((h.name.clone(), value));
    }
    Ok(NewRecord {
        topic: request.topic.clone(),
        partition: request.partition,
        key: request.key.as_ref().map(|k| bytes_of(k, "the key")).transpose()?,
        value: request.value.as_ref().map(|v| bytes_of(v, "the value")).transpose()?,
        headers,
        timestamp_ms,
    })
}

impl Topics for ClusterSource {
    /// Partitions and watermarks; no files, sizes or key type (a cluster has no
    /// such things to show: they stay empty, and the cluster window shows none).
    fn describe_topic(&self, topic: &str) -> Result<TopicDetail, ErrorDto> {
        let t = self
            .browser
            .topic(topic)
            .map_err(|e| kafka_error(&e))?
            .ok_or_else(|| ErrorDto::new(ErrorCode::TopicNotFound, format!("the cluster has no topic {topic:?}")))?;
        let partitions = t
            .partitions
            .iter()
            .map(|p| PartitionDetail {
                partition: p.partition,
                start: Offset(p.low),
                end: Offset(p.high),
                bytes: Bytes(0),
                last_message: None,
                files: Vec::new(),
            })
            .collect();
        Ok(TopicDetail {
            summary: TopicSummary {
                name: t.name.clone(),
                key_type: String::new(),
                partitions: u32::try_from(t.partitions.len()).unwrap_or(u32::MAX),
                message_types: Vec::new(),
                messages: Count(t.messages()),
                bytes: Bytes(0),
                last_write: None,
                last_message: None,
                error: None,
                max_message_bytes: None,
            },
            partitions,
            unknown_files: Vec::new(),
            incarnation: None,
        })
    }
    fn create_topic(&self, _: &NewTopic) -> Result<TopicSummary, ErrorDto> {
        Err(not_on_cluster("Creating a topic"))
    }
    fn topic_groups(&self, _: &str) -> Result<Vec<String>, ErrorDto> {
        Err(not_on_cluster("The groups of a topic"))
    }
    fn delete_topic(&self, _: &str, _: &str) -> Result<DeletedTopic, ErrorDto> {
        Err(not_on_cluster("Deleting a topic"))
    }
}

impl Messages for ClusterSource {
    fn read_page(&self, topic: &str, partition: u32, from: Offset, limit: u32) -> Result<Page, ErrorDto> {
        let limit = limit.clamp(1, MAX_PAGE) as usize;
        let read = self.browser.read(topic, partition, from.get(), limit).map_err(|e| kafka_error(&e))?;
        Ok(Page {
            partition,
            rows: read.records.iter().map(|r| Row::Message(record_row(r))).collect(),
            next: Offset(read.next),
            end: Offset(read.watermarks.high),
            incarnation: None,
        })
    }
    fn raw_line(&self, _: &str, _: u32, _: Offset) -> Result<Option<RawLine>, ErrorDto> {
        Err(not_on_cluster("A raw line (a Kafka record is not a line of a file)"))
    }
    fn raw_lines(&self, _: &str, _: &[MessageRef]) -> Result<Vec<RawLine>, ErrorDto> {
        Err(not_on_cluster("Raw lines (a Kafka record is not a line of a file)"))
    }
    fn offset_at_time(&self, topic: &str, partition: u32, unix: f64) -> Result<Option<Offset>, ErrorDto> {
        if !unix.is_finite() {
            return Err(ErrorDto::new(ErrorCode::BadTimestamp, "the time is not a number"));
        }
        // A record at M ms is at M / 1000 s: at or after `unix` when M >= ceil(unix * 1000).
        let ms = (unix * 1000.0).ceil().clamp(0.0, i64::MAX as f64) as i64;
        Ok(self.browser.offset_for_time(topic, partition, ms).map_err(|e| kafka_error(&e))?.map(Offset))
    }
    fn timeline_before(&self, _: &str, _: Option<&[u32]>, _: Option<&[Offset]>, _: u32) -> Result<TimelinePageDto, ErrorDto> {
        Err(not_on_cluster("The timeline of all partitions"))
    }
    fn timeline_after(&self, _: &str, _: Option<&[u32]>, _: &TimelineAnchor, _: u32) -> Result<TimelinePageDto, ErrorDto> {
        Err(not_on_cluster("The timeline of all partitions"))
    }
    fn produce(&self, _: &str, _: &KeyInput, _: &ProducePayload) -> Result<Produced, ErrorDto> {
        Err(not_on_cluster("Producing"))
    }
    fn message_payload(&self, _: &str, _: u32, _: Offset, _: Option<&Incarnation>, _: Bytes, _: u32) -> Result<PayloadSlice, ErrorDto> {
        // A cluster window's rows carry their records whole (no preview to complete).
        Err(not_on_cluster("Reading a record's value in slices"))
    }
    fn save_payload(&self, _: &str, _: u32, _: Offset, _: Option<&Incarnation>, _: &str) -> Result<SavedPayload, ErrorDto> {
        Err(not_on_cluster("Saving a record's value to a file"))
    }
}

impl Groups for ClusterSource {
    fn describe_group(&self, _: &str, _: Option<&str>) -> Result<GroupDetail, ErrorDto> {
        Err(not_on_cluster("Consumer groups"))
    }
    fn reset_group(&self, _: &str, _: &ResetRequest) -> Result<ResetPlanDto, ErrorDto> {
        Err(not_on_cluster("Resetting a group"))
    }
    fn trigger_round(&self, _: &str, _: u32) -> Result<(), ErrorDto> {
        Err(not_on_cluster("A group's round"))
    }
    fn lag_history(&self, _: &str, _: HistorySpan) -> Result<LagHistoryDto, ErrorDto> {
        Err(not_on_cluster("Lag history"))
    }
    fn lag_check(&self, _: &str, _: &LagAlertThresholds) -> Result<LagCheckDto, ErrorDto> {
        Err(not_on_cluster("Lag alerts"))
    }
    fn export_document(&self, _: &str) -> Result<Vec<u8>, ErrorDto> {
        Err(not_on_cluster("Exporting a group's offsets"))
    }
    fn delete_preview(&self, _: &str, _: &[u32]) -> Result<GroupDeletePreview, ErrorDto> {
        Err(not_on_cluster("Deleting a group"))
    }
    fn delete_group(&self, _: &str, _: &str, _: bool, _: &[u32], _: &mut dyn FnMut() -> u32) -> Result<DeletedGroup, ErrorDto> {
        Err(not_on_cluster("Deleting a group"))
    }
}
