//! A group's commits: damaged, or for offsets and partitions its topic does not have.

#[allow(clippy::wildcard_imports)]
use super::*;

/// Commits past a partition's end: left by a topic deleted and made again
/// under the same name (before deletes took their groups along), or written
/// by hand. Members taking such a partition would skip every message up to
/// the committed offset.
pub(super) fn check_commits(store: &Store, group: &str, out: &mut Vec<Problem>) {
    let Ok(log) = store.group_log(group) else { return };
    let gtopic = crate::format::name::group_topic(group);
    let mut push = |partition: Option<u32>, offset: Option<u64>, kind: &'static str, message: String| {
        out.push(Problem { topic: gtopic.clone(), partition, file: None, line: None, offset, kind, message });
    };
    if log.unreadable > 0 {
        push(
            None,
            None,
            "unreadable_group_records",
            format!("{} records of group {group:?} are damaged or of an unknown shape and were skipped (twainmq check lists damaged lines above; other shapes were written by another tool)", log.unreadable),
        );
    }
    for b in &log.bad_commits {
        push(
            Some(b.partition),
            Some(b.at),
            "bad_commit",
            format!(
                "group {group:?} has a commit of offset {} for partition {} (under key {}): no offset (-1 is the only negative one the protocol has). 0.2.3 members raise taking the partition; ours keep the commit before it. Commit a real position: twainmq groups reset {group} --to offset:N --partition {}",
                b.offset, b.partition, b.key, b.partition
            ),
        );
    }
    let Ok((Some(topic), _)) = store.group_topic_of(group, &log) else { return };
    let Ok(ends) = store.end_offsets(&topic) else { return };
    for (&p, &committed) in &log.commits {
        let end = ends.get(p as usize).copied();
        if end.is_none() {
            push(
                Some(p),
                None,
                "commit_unknown_partition",
                format!("group {group:?} has a commit for partition {p}, which topic {topic:?} does not have ({} partitions)", ends.len()),
            );
            continue;
        }
        if committed < -1 {
            push(Some(p), None, "commit_out_of_range", format!("group {group:?} committed offset {committed} for partition {p}: offsets are 0 or more (-1 means the end): reset the group"));
            continue;
        }
        let past = match (end, u64::try_from(committed)) {
            (Some(end), Ok(c)) => c > end,
            _ => false,
        };
        if past {
            push(
                Some(p),
                u64::try_from(committed).ok(),
                "commit_past_end",
                format!(
                    "group {group:?} committed offset {committed} for partition {p} of topic {topic:?}, which ends at {}: a member taking it would skip the messages written until then. Reset the group (twainmq groups reset {group} --to earliest) or delete it",
                    end.unwrap_or(0)
                ),
            );
        }
    }
}
