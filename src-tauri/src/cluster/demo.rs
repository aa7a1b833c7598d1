//! The balancing demo on a cluster's group: members this window starts (`browse::DemoMember`:
//! consumers of the group reading a topic slowly and committing what they read), listed with the
//! partitions the group gave each, stopped one by one, all gone when the window closes.

use std::sync::atomic::Ordering;
use std::time::Duration;

use twainmq_kafka::browse::DemoMember;

use super::service::ClusterSource;
use super::wire::ClusterDemoMember;
use crate::wire::{Count, ErrorCode, ErrorDto};

/// The most demo members a window runs.
pub const MAX_DEMO_MEMBERS: usize = 8;

impl ClusterSource {
    /// Start a demo member of `group` reading `topic` (refused read-only: it joins the group and
    /// commits); its id.
    pub fn start_demo_member(&self, group: &str, topic: &str) -> Result<u32, ErrorDto> {
        self.writable()?;
        if group.trim().is_empty() {
            return Err(ErrorDto::new(ErrorCode::InvalidGroupName, "name the group the demo's members join"));
        }
        if self.browser().topic(topic).map_err(|e| ErrorDto::new(ErrorCode::Kafka, e.to_string()))?.is_none() {
            return Err(ErrorDto::new(ErrorCode::TopicNotFound, format!("the cluster has no topic {topic:?}")));
        }
        let mut members = self.demo.members.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        members.retain(|(_, m)| !m.state().left || m.state().error.is_some());
        if members.len() >= MAX_DEMO_MEMBERS {
            return Err(ErrorDto::new(ErrorCode::DemoLimit, format!("the demo runs at most {MAX_DEMO_MEMBERS} members: stop one first")));
        }
        let id = self.demo.next.fetch_add(1, Ordering::Relaxed) + 1;
        members.push((id, DemoMember::start(self.endpoint(), group.trim(), topic, &format!("twainmq-demo-{id}"))));
        Ok(id)
    }

    /// Stop demo member `id`: it leaves the group (waited for a few seconds).
    pub fn stop_demo_member(&self, id: u32) -> Result<(), ErrorDto> {
        let member = {
            let mut members = self.demo.members.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            let at = members
                .iter()
                .position(|(i, _)| *i == id)
                .ok_or_else(|| ErrorDto::new(ErrorCode::NoSuchMember, format!("no demo member {id}")))?;
            members.remove(at).1
        };
        member.stop(Duration::from_secs(10));
        Ok(())
    }

    /// The demo's members, with what each holds and has read.
    pub fn demo_members(&self) -> Vec<ClusterDemoMember> {
        let members = self.demo.members.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        members
            .iter()
            .map(|(id, m)| {
                let s = m.state();
                ClusterDemoMember {
                    id: *id,
                    client_id: s.client_id,
                    group: s.group,
                    topic: s.topic,
                    partitions: s.partitions,
                    consumed: Count(s.consumed),
                    joined: s.joined,
                    left: s.left,
                    error: s.error,
                }
            })
            .collect()
    }
}
