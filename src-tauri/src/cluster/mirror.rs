//! A mirror between the window's cluster and a store folder, run from the app with the
//! bridge (`twainmq_kafka::mirror`): either way, once or following, consumer groups' commits
//! too when asked; its positions streamed as `ClusterMirrorEvent`s, stopped by
//! `cancel_transfer`. Resumable by design: a mirror starts each partition just after the last
//! record the target holds from it, so a stopped or failed one is simply started again.

use std::path::Path;
use std::sync::atomic::AtomicBool;

use twainmq::Store;
use twainmq_kafka::{Direction, MirrorSpec, Progress};

use super::service::ClusterSource;
use super::wire::{ClusterMirrorEvent, ClusterMirrorRequest, MirrorWay};
use crate::wire::{Count, ErrorCode, ErrorDto, Offset};

/// The store a mirror works with: an existing one; into a store, a new or empty folder is made one.
fn store_for(req: &ClusterMirrorRequest) -> Result<Store, ErrorDto> {
    let path = req.store.trim();
    if path.is_empty() {
        return Err(ErrorDto::new(ErrorCode::StoreNotFound, "choose the store's folder"));
    }
    match Store::open_existing(Path::new(path)) {
        Ok(s) => Ok(s),
        Err(e) if req.way == MirrorWay::ClusterToStore && matches!(e.code(), "store_not_found" | "empty_folder") => {
            Ok(Store::open_or_create(Path::new(path))?)
        }
        Err(e) => Err(e.into()),
    }
}

/// The key type asked for a store topic the mirror makes.
fn key_type_of(req: &ClusterMirrorRequest) -> Result<Option<twainmq::KeyType>, ErrorDto> {
    match req.key_type.as_deref().map(str::trim).filter(|k| !k.is_empty()) {
        None => Ok(None),
        Some(k) => twainmq::KeyType::parse(k).map(Some).ok_or_else(|| {
            ErrorDto::new(
                ErrorCode::InvalidKeyType,
                format!("{k:?} is not a key type: use any, text, bytes, u8, u16, u32, u64 or charN (N from 1 to 3257)"),
            )
        }),
    }
}

/// The bridge's advice names the CLI's flags; the dialog has them as choices.
fn in_the_dialogs_words(message: &str) -> String {
    message
        .replace("--drop-headers", "ticking “Drop headers”")
        .replace("--large-messages", "ticking “Let it hold records over 4 KB”")
        .replace("--key-type", "the key type")
}

impl ClusterSource {
    /// Check a mirror's request before it starts: refused on a read-only connection (a mirror
    /// holds a lease group on the cluster, and one into it writes records), without topics, or
    /// without a usable store.
    pub fn check_mirror(&self, req: &ClusterMirrorRequest) -> Result<Store, ErrorDto> {
        self.writable()?;
        for (what, name) in [("the store's topic", &req.store_topic), ("the cluster's topic", &req.cluster_topic)] {
            if name.trim().is_empty() {
                return Err(ErrorDto::new(ErrorCode::InvalidTopicName, format!("name {what}")));
            }
        }
        key_type_of(req)?;
        let store = store_for(req)?;
        if req.way == MirrorWay::StoreToCluster {
            store.topic_config(&req.store_topic)?;
        }
        Ok(store)
    }

    /// Run the mirror (see the module doc) until done, stopped or failed, its news on `send`.
    pub fn mirror(&self, store: &Store, req: &ClusterMirrorRequest, stop: &AtomicBool, send: &mut dyn FnMut(ClusterMirrorEvent)) {
        let (direction, pair) = match req.way {
            MirrorWay::ClusterToStore => (Direction::FromKafka, (req.cluster_topic.clone(), req.store_topic.clone())),
            MirrorWay::StoreToCluster => (Direction::ToKafka, (req.store_topic.clone(), req.cluster_topic.clone())),
        };
        let mut spec = MirrorSpec::new(self.endpoint().clone(), vec![pair]);
        spec.follow = req.follow;
        spec.groups = req.groups;
        // Checked by `check_mirror`.
        spec.key_type = key_type_of(req).ok().flatten();
        spec.foreign.drop_headers = req.drop_headers;
        if req.large_messages {
            spec.max_message_bytes = Some(twainmq::limits::DEFAULT_MAX_MESSAGE_BYTES);
        }
        let r = twainmq_kafka::mirror(store, direction, &spec, stop, &mut |p| {
            send(match p {
                Progress::Started { from, created, .. } => {
                    ClusterMirrorEvent::Started { from: from.into_iter().map(Offset).collect(), created }
                }
                Progress::Mirrored { mirrored, left, .. } => {
                    ClusterMirrorEvent::Progress { mirrored: Count(mirrored), left: left.map(Count) }
                }
                Progress::Retrying { reason, after_secs, .. } => ClusterMirrorEvent::Retrying { reason, after_secs },
                Progress::Waiting { reason, .. } => ClusterMirrorEvent::Waiting { reason },
                _ => return,
            });
        });
        send(match r {
            Ok(summary) => {
                let t = summary.topics.into_iter().next().unwrap_or_default();
                ClusterMirrorEvent::Done {
                    mirrored: Count(t.mirrored),
                    stopped: summary.interrupted,
                    seconds: summary.seconds,
                    created: t.created,
                    from: t.resumed_from.into_iter().map(Offset).collect(),
                    groups: t.groups.into_iter().map(|g| g.group).collect(),
                    retries: Count(t.retries),
                }
            }
            Err(e) => ClusterMirrorEvent::Failed {
                error: match e {
                    twainmq_kafka::Error::Store(e) => e.into(),
                    twainmq_kafka::Error::TopicMissing { .. } => ErrorDto::new(ErrorCode::TopicNotFound, e.to_string()),
                    e @ twainmq_kafka::Error::Unfit { .. } => {
                        ErrorDto::new(ErrorCode::UncopyableMessage, in_the_dialogs_words(&e.to_string()))
                    }
                    e => ErrorDto::new(ErrorCode::Kafka, e.to_string()),
                },
            },
        });
    }
}
