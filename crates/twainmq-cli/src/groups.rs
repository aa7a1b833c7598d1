//! `twainmq groups`: list, describe, reset and rebalance consumer groups.

use std::io;

use anyhow::{anyhow, Result};
use twainmq::group::ResetTo;
use twainmq::Store;

use crate::args::GroupsCmd;
use crate::render::{self, GroupList, GroupRow, GroupView, ResetView, RoundOpened};

pub(crate) fn run(store: &Store, cmd: GroupsCmd) -> Result<()> {
    let mut out = io::stdout().lock();
    match cmd {
        GroupsCmd::List { json } => render::emit(&mut out, &list(store)?, json),
        GroupsCmd::Describe { group: g, json } => render::emit(&mut out, &GroupView(store.describe_group(&g)?), json),
        GroupsCmd::Reset { group: g, to, partition, dry_run, json } => {
            let target = ResetTo::parse(&to).map_err(|e| anyhow!(e))?;
            let parts = (!partition.is_empty()).then_some(partition.as_slice());
            let plan = store.reset_group(&g, target, parts, dry_run)?;
            let live = plan.live_members.clone();
            render::emit(&mut out, &ResetView(plan), json)?;
            if !live.is_empty() {
                eprintln!(
                    "warning: members {live:?} hold partitions of {g}: their next commit overrides this reset, and they only read commits when they take a partition. Stop them first, or reset while the group is idle"
                );
            }
            Ok(())
        }
        GroupsCmd::Rebalance { group: g, window } => {
            store.trigger_round(&g, window)?;
            render::emit_text(&mut out, &RoundOpened { group: g, window })
        }
    }
}

/// Every group with its topic and members; a group whose log cannot be read
/// is a row saying why, not the end of the listing.
fn list(store: &Store) -> Result<GroupList> {
    let rows = store
        .group_summaries()?
        .into_iter()
        .map(|g| match g.state {
            Ok(s) => GroupRow::Group { group: g.name, topic: s.topic, members: s.members, round_open: s.round_open },
            Err(error) => GroupRow::Unreadable { group: g.name, error },
        })
        .collect();
    Ok(GroupList(rows))
}
