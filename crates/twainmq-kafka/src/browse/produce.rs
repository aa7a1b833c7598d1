//! Writing one record to a cluster from the app (produce, republish): to a
//! topic that exists (never made by the write), to the partition asked or to
//! the one Kafka's Java client would choose for its key (murmur2, krafka's
//! default), idempotent with `acks=all`, so a record is reported written only
//! once every in-sync replica has it.

use std::time::Duration;

use krafka::producer::{Acks, Producer};

use super::Browser;
use crate::error::{Error, Result};

/// A record to write.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewRecord {
    /// The topic (it must exist).
    pub topic: String,
    /// The partition; `None`: the key's (murmur2), or any for a null key.
    pub partition: Option<u32>,
    /// The key; `None` is Kafka's null key.
    pub key: Option<Vec<u8>>,
    /// The value; `None` is a tombstone.
    pub value: Option<Vec<u8>>,
    /// Headers in order, duplicates and null values kept.
    pub headers: Vec<(String, Option<Vec<u8>>)>,
    /// Milliseconds since the epoch; `None`: the producer's clock (or the
    /// broker's, on a topic with log-append time).
    pub timestamp_ms: Option<i64>,
}

/// Where a record landed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Written {
    /// Its partition.
    pub partition: u32,
    /// Its offset; `None` when the broker answered that an earlier attempt of
    /// the same idempotent batch was already written (the record is there once,
    /// its offset no longer told).
    pub offset: Option<u64>,
}

impl Browser {
    async fn producer(&self) -> Result<tokio::sync::MappedMutexGuard<'_, Producer>> {
        let c = &self.cluster;
        let mut guard = self.writer.lock().await;
        if guard.is_none() {
            let p = c
                .kafka
                .producer()
                .idempotent(true)
                .acks(Acks::All)
                .linger(Duration::from_millis(0))
                .delivery_timeout(c.timeout * 3)
                .build()
                .await
                .map_err(|e| c.error("make a producer", &e))?;
            *guard = Some(p);
        }
        tokio::sync::MutexGuard::try_map(guard, Option::as_mut)
            .map_err(|_| Error::Config { what: "the producer".into(), problem: "it could not be made".into() })
    }

    /// Write `record` and wait for the cluster to have it.
    ///
    /// # Errors
    /// [`Error::TopicMissing`] for a topic the cluster does not have;
    /// [`Error::Config`] for a partition it does not have; [`Error::Kafka`]
    /// naming the broker and the call when the write fails (then nothing was
    /// reported written: the record may or may not be there, as with any Kafka
    /// client whose delivery timed out).
    pub fn produce(&self, record: &NewRecord) -> Result<Written> {
        self.block_on(async {
            let c = &self.cluster;
            let topic = record.topic.as_str();
            let partitions = c
                .partitions(topic)
                .await?
                .ok_or_else(|| Error::TopicMissing { place: format!("Kafka at {}", c.broker), topic: topic.to_string() })?;
            if let Some(p) = record.partition {
                if p >= partitions {
                    return Err(Error::Config {
                        what: format!("partition {p} of {topic}"),
                        problem: format!("the topic has {partitions} partitions (0 to {})", partitions.saturating_sub(1)),
                    });
                }
            }
            let mut r = krafka::Record::new(topic, record.value.clone().unwrap_or_default());
            if record.value.is_none() {
                r = r.without_value();
            }
            r = match &record.key {
                Some(k) => r.key(k.clone()),
                None => r.without_key(),
            };
            if let Some(p) = record.partition {
                r = r.partition(p as i32);
            }
            if let Some(ms) = record.timestamp_ms {
                r = r.timestamp(ms);
            }
            for (name, v) in &record.headers {
                r = match v {
                    Some(v) => r.header(name.clone(), v.clone()),
                    None => r.null_header(name.clone()),
                };
            }
            let op = format!("write a record to {topic}");
            let producer = self.producer().await?;
            let meta = producer.send(r).await.map_err(|e| c.error(op.clone(), &e))?;
            let partition = u32::try_from(meta.partition).map_err(|_| Error::Kafka {
                broker: c.broker.clone(),
                op: op.clone(),
                cause: "no partition in the answer".into(),
                retriable: false,
                hint: None,
            })?;
            if !meta.is_persisted() {
                return Err(Error::Kafka {
                    broker: c.broker.clone(),
                    op,
                    cause: format!("the broker did not confirm the record ({:?})", meta.delivery),
                    retriable: true,
                    hint: None,
                });
            }
            Ok(Written { partition, offset: u64::try_from(meta.offset).ok().filter(|_| meta.is_success()) })
        })
    }
}
