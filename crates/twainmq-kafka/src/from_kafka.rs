//! Kafka -> store: one topic's partitions, each to the same partition of the
//! target store topic. A store line has no headers, so where each record went
//! is kept in the store's mirror journal (`journal.rs`): that is where a
//! restarted mirror resumes from.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use twainmq::{Key, Outgoing, Store, TopicConfig, TopicSpec};

use crate::cluster::Cluster;
use crate::error::{Error, Result};
use crate::journal::{self, Writer};
use crate::mapping::{self, fingerprint, FingerprintPayload, InRecord};
use crate::report::{Progress, TopicReport};
use crate::{MirrorSpec, CONFIG_TOPIC};

/// The config a mirror to Kafka published for `topic` in [`CONFIG_TOPIC`], if any.
async fn published_config(cluster: &Cluster, topic: &str) -> Result<Option<TopicConfig>> {
    if cluster.partitions(CONFIG_TOPIC).await?.is_none() {
        return Ok(None);
    }
    let marks = cluster.watermarks(CONFIG_TOPIC, 1).await?;
    let reader = cluster.reader().await?;
    let recs = cluster.read_range(&reader, CONFIG_TOPIC, 0, marks[0].0, marks[0].1).await?;
    let _ = reader.close().await;
    let found = recs.iter().rev().find(|r| r.key.as_deref() == Some(topic.as_bytes())).and_then(|r| r.value.clone());
    Ok(found.and_then(|v| TopicConfig::parse(&v).ok()))
}

/// Make the store topic for a Kafka topic of `n` partitions: as the published
/// config says, else as the options say.
async fn create_target(store: &Store, cluster: &Cluster, source: &str, target: &str, n: u32, spec: &MirrorSpec) -> Result<()> {
    let (key_type, types, max) = match (spec.key_type, published_config(cluster, source).await?) {
        (Some(kt), _) => (kt, spec.message_types.clone(), spec.max_message_bytes),
        (None, Some(c)) => {
            let mut types = c.message_types.clone();
            types.sort_by_key(|(_, id)| *id);
            (c.key_type, types.into_iter().map(|(n, _)| n).collect(), spec.max_message_bytes.or(c.max_message_bytes))
        }
        (None, None) => {
            return Err(Error::Config {
                what: format!("making store topic {target} for Kafka topic {source}"),
                problem: format!(
                    "no TwainMQ config was published for it (in {CONFIG_TOPIC}): say its key type with --key-type (any takes every Kafka key, the null key included; or u8, u16, u32, u64, charN, text, bytes), its typed messages' names with --message-types, and --large-messages for values over 4 KB"
                ),
            })
        }
    };
    let mut topic = TopicSpec::new(key_type, n).with_types(types);
    if let Some(max) = max {
        topic = topic.with_large_messages(max);
    }
    store.create_topic(target, &topic)?;
    Ok(())
}

/// Why a record does not fit, in the producer's words, with what would take it.
fn unfit_from_store(e: &twainmq::Error) -> Option<String> {
    use twainmq::Error as E;
    match e {
        E::MessageTooLong { .. } => Some(format!(
            "{e}: mirror into a new topic that takes large messages (--as NAME --large-messages, or --max-message-bytes BYTES)"
        )),
        E::KeyOutOfRange { .. } | E::KeyTooLong { .. } | E::KeyWrongKind { .. } => Some(format!(
            "{e}: mirror into a new topic whose key type takes it (--as NAME --key-type any takes every key, the null key included)"
        )),
        E::UnknownMessageType { .. } => Some(format!("{e}: add the type to the store topic, or mirror into a new one (--as NAME)")),
        _ => None,
    }
}

pub(crate) async fn run(
    store: &Store,
    source: &str,
    target: &str,
    spec: &MirrorSpec,
    stop: &AtomicBool,
    progress: &mut dyn FnMut(Progress),
) -> Result<TopicReport> {
    let cluster = Cluster::connect(&spec.endpoint).await?;
    let n = cluster
        .partitions(source)
        .await?
        .ok_or_else(|| Error::TopicMissing { place: format!("Kafka at {}", cluster.broker), topic: source.to_string() })?;
    let mut report = TopicReport { source: source.into(), target: target.into(), partitions: n, ..TopicReport::default() };
    if store.topic_exists(target)? {
        let m = store.topic_config(target)?.partitions;
        if m != n {
            return Err(Error::PartitionMismatch {
                source_name: format!("Kafka topic {source} at {}", cluster.broker),
                source_partitions: n,
                target_name: format!("store topic {target}"),
                target_partitions: m,
            });
        }
    } else {
        create_target(store, &cluster, source, target, n, spec).await?;
        report.created = true;
    }
    let config = store.topic_config(target)?;
    let store_id = journal::store_id(store)?;
    let mut writer = Writer::open(store, target, &cluster.id, source)?;
    let marks = cluster.watermarks(source, n).await?;
    let starts: Vec<u64> =
        (0..n).map(|p| writer.state(p).and_then(|s| s.next).unwrap_or(u64::try_from(marks[p as usize].0).unwrap_or(0))).collect();
    report.resumed_from = starts.clone();
    progress(Progress::Started { topic: source.into(), from: starts.clone(), created: report.created });
    let consumer = cluster.reader().await?;
    let pids: Vec<i32> = (0..n as i32).collect();
    let op = || format!("read {source}");
    consumer.assign(source, pids).await.map_err(|e| cluster.error(op(), &e))?;
    for (p, s) in starts.iter().enumerate() {
        consumer.seek(source, p as i32, *s as i64).await.map_err(|e| cluster.error(op(), &e))?;
    }
    let ends: Option<Vec<i64>> = (!spec.follow).then(|| marks.iter().map(|m| m.1).collect());
    let mut positions: Vec<u64> = starts.clone();
    let mut producers = Vec::with_capacity(n as usize);
    for p in 0..n {
        producers.push(store.producer(target)?.with_partitioner(move |_, _| p));
    }
    let mut last_report = Instant::now();
    let mut last_groups = Instant::now();
    let place = format!("Kafka at {}", cluster.broker);
    loop {
        if stop.load(Ordering::SeqCst) {
            break;
        }
        if let Some(e) = &ends {
            if positions.iter().zip(e).all(|(pos, end)| *pos as i64 >= *end) {
                break;
            }
        }
        let recs = consumer.poll(Duration::from_millis(200)).await.map_err(|e| cluster.error(op(), &e))?;
        // Per partition, in order.
        let mut by_p: Vec<Vec<krafka::ConsumerRecord>> = (0..n).map(|_| Vec::new()).collect();
        for r in recs {
            if let Ok(p) = u32::try_from(r.partition) {
                if p < n && r.offset >= 0 && r.offset as u64 >= positions[p as usize] {
                    by_p[p as usize].push(r);
                }
            }
        }
        for (p, recs) in by_p.into_iter().enumerate() {
            let p32 = p as u32;
            let Some(last) = recs.last() else { continue };
            let next = last.offset as u64 + 1;
            let mut msgs: Vec<(Key, Outgoing)> = Vec::with_capacity(recs.len());
            let mut stamps = Vec::with_capacity(recs.len());
            let mut marks = Vec::with_capacity(recs.len());
            // A record that cannot be mirrored stops the mirror there: those before it are written first.
            let mut refused = None;
            let mut next = next;
            for r in &recs {
                let headers: Vec<(String, Option<Vec<u8>>)> =
                    r.headers.iter().map(|(k, v)| (k.clone(), v.as_ref().map(|b| b.to_vec()))).collect();
                let rec = InRecord { key: r.key.as_deref(), value: r.value.as_deref(), timestamp_ms: r.timestamp, headers: &headers };
                if rec.origin().is_some_and(|o| o.source == store_id) {
                    report.skipped_from_target += 1;
                    continue;
                }
                let unfit = |reason: String| Error::Unfit {
                    place: place.clone(),
                    topic: source.into(),
                    partition: p32,
                    offset: r.offset as u64,
                    reason,
                };
                let checked =
                    mapping::from_record(&rec, config.key_type, &spec.foreign).map_err(|u| unfit(u.to_string())).and_then(|inc| {
                        if !(inc.timestamp.is_finite() && (0.0..=253_402_300_799.0).contains(&inc.timestamp)) {
                            return Err(unfit(format!("its timestamp {} is not between 1970 and the end of 9999", inc.timestamp)));
                        }
                        match producers[p].check(&inc.key, &inc.payload) {
                            Ok(_) => Ok(inc),
                            Err(e) => Err(match unfit_from_store(&e) {
                                Some(reason) => unfit(reason),
                                None => e.into(),
                            }),
                        }
                    });
                let inc = match checked {
                    Ok(inc) => inc,
                    Err(e) => {
                        next = r.offset as u64;
                        refused = Some(e);
                        break;
                    }
                };
                report.bytes += (r.key.as_ref().map_or(0, |k| k.len()) + r.value.as_ref().map_or(0, |v| v.len())) as u64;
                marks.push((r.offset as u64, fingerprint(&inc.key, inc.timestamp, FingerprintPayload::outgoing(&inc.payload))));
                stamps.push(inc.timestamp);
                msgs.push((inc.key, inc.payload));
            }
            if msgs.is_empty() {
                if next > positions[p] {
                    writer.record_landed(p32, Vec::new(), next)?;
                }
            } else {
                let end = store.end_offsets(target)?[p];
                writer.pending(p32, end, marks, next)?;
                producers[p].send_batch_stamped(&msgs, &stamps)?;
                producers[p].flush()?;
                let runs = writer.landed(store, target, p32)?;
                let landed: u64 = runs.iter().map(|r| r.count).sum();
                if landed != msgs.len() as u64 {
                    return Err(Error::TargetMoved {
                        target: format!("store topic {target} partition {p}"),
                        problem: format!("{} of the {} messages just written were not found after offset {end}: was the topic purged or replaced meanwhile?", msgs.len() as u64 - landed, msgs.len()),
                    });
                }
                report.mirrored += landed;
            }
            positions[p] = next;
            if let Some(e) = refused {
                return Err(e);
            }
        }
        if let Some(e) = &ends {
            // Offsets a partition's end moved past without a record (compaction, transaction markers).
            for p in 0..n as usize {
                if let Some(pos) = consumer.position(source, p as i32).await {
                    if pos >= e[p] && (positions[p] as i64) < pos {
                        positions[p] = pos as u64;
                    }
                }
            }
        }
        if last_report.elapsed() > Duration::from_millis(500) {
            let left = ends.as_ref().map(|e| positions.iter().zip(e).map(|(pos, end)| (*end as u64).saturating_sub(*pos)).sum());
            progress(Progress::Mirrored { topic: source.into(), mirrored: report.mirrored, left });
            last_report = Instant::now();
        }
        if spec.follow && spec.groups && last_groups.elapsed() > Duration::from_secs(5) {
            report.groups = crate::groups::kafka_to_store(store, &cluster, &writer, source, target).await?;
            last_groups = Instant::now();
        }
    }
    for p in &mut producers {
        p.flush()?;
    }
    let _ = consumer.close().await;
    progress(Progress::Mirrored { topic: source.into(), mirrored: report.mirrored, left: Some(0) });
    if spec.groups {
        report.groups = crate::groups::kafka_to_store(store, &cluster, &writer, source, target).await?;
    }
    Ok(report)
}
