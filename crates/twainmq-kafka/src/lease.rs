//! One mirror per Kafka target topic: the mirror holds a membership in the
//! consumer group `twainmq-mirror.<target topic>` while it writes (heartbeats
//! keep it; a mirror that dies loses it after the session timeout). A second
//! mirror finds a member there and is refused; a mirror restarted after a
//! crash waits up to one session timeout for the dead one's membership to
//! lapse, so nothing the dead one sent can still be in flight when the new
//! one reads the target's tail (docs/KAFKA.md, "Two mirrors").

use std::time::Duration;

use krafka::consumer::{AutoOffsetReset, Consumer};

use crate::cluster::Cluster;
use crate::error::{Error, Result};
use crate::report::Progress;

/// The group a mirror into `topic` is a member of.
pub fn group_of(topic: &str) -> String {
    format!("twainmq-mirror.{topic}")
}

/// A held lease; let go when dropped (or closed).
pub(crate) struct Lease {
    consumer: std::sync::Arc<Consumer>,
    keeper: tokio::task::JoinHandle<()>,
}

impl Lease {
    pub(crate) async fn acquire(cluster: &Cluster, topic: &str, session: Duration, progress: &mut dyn FnMut(Progress)) -> Result<Lease> {
        let group = group_of(topic);
        let target = format!("Kafka topic {topic} at {}", cluster.broker);
        let deadline = tokio::time::Instant::now() + session + session / 2;
        let mut told = false;
        loop {
            let members = cluster.group_members(&group).await?;
            if members.is_empty() {
                break;
            }
            if tokio::time::Instant::now() > deadline {
                return Err(Error::TargetBusy { target, how: format!("consumer group {group} has the member {}", members.join(", ")) });
            }
            if !told {
                progress(Progress::Waiting {
                    target: target.clone(),
                    reason: format!("consumer group {group} still has a member: a mirror that stopped lets go within {session:?}"),
                });
                told = true;
            }
            tokio::time::sleep(Duration::from_millis(500)).await;
        }
        let consumer = cluster
            .kafka
            .consumer(group.clone())
            .session_timeout(session)
            .heartbeat_interval(session / 4)
            .max_poll_interval(Duration::from_secs(24 * 3600))
            .auto_offset_reset(AutoOffsetReset::Latest)
            .enable_auto_commit(false)
            .build()
            .await
            .map_err(|e| cluster.error(format!("join consumer group {group}"), &e))?;
        consumer.subscribe([topic]).await.map_err(|e| cluster.error(format!("join consumer group {group}"), &e))?;
        let consumer = std::sync::Arc::new(consumer);
        // Joining happens in poll; wait until the group has us.
        let joined_by = tokio::time::Instant::now() + session * 3;
        loop {
            let _ =
                consumer.poll(Duration::from_millis(200)).await.map_err(|e| cluster.error(format!("join consumer group {group}"), &e))?;
            let assigned = consumer.assignment().await;
            if let Some(parts) = assigned.get(topic) {
                consumer.pause(topic, parts).await;
            }
            if !assigned.is_empty() {
                break;
            }
            if tokio::time::Instant::now() > joined_by {
                return Err(Error::Kafka {
                    broker: cluster.broker.clone(),
                    op: format!("join consumer group {group}"),
                    cause: format!("not given a place in the group within {:?}", session * 3),
                    retriable: true,
                    hint: None,
                });
            }
        }
        let members = cluster.group_members(&group).await?;
        if members.len() > 1 {
            let _ = consumer.close().await;
            return Err(Error::TargetBusy {
                target,
                how: format!("consumer group {group} has {} members: {}", members.len(), members.join(", ")),
            });
        }
        let c = consumer.clone();
        let t = topic.to_string();
        let keeper = tokio::spawn(async move {
            loop {
                if c.poll(Duration::from_millis(500)).await.is_err() {
                    tokio::time::sleep(Duration::from_millis(500)).await;
                }
                // A rebalance hands partitions back unpaused.
                if let Some(parts) = c.assignment().await.get(&t) {
                    c.pause(&t, parts).await;
                }
            }
        });
        Ok(Lease { consumer, keeper })
    }

    /// Leave the group at once (the next mirror need not wait).
    pub(crate) async fn release(self) {
        self.keeper.abort();
        // A cluster that is down cannot be told: the membership then lapses by itself.
        let _ = tokio::time::timeout(Duration::from_secs(2), self.consumer.close()).await;
    }
}
