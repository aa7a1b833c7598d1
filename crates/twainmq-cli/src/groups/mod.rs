//! `twainmq groups`: list, describe, reset (every mode), export, import,
//! delete, lag and rebalance consumer groups. One module per concern:
//! `reset` (reset, import, export, delete), `lag` (thresholds and history),
//! `view` (their typed outputs, rendered by `render`).

mod lag;
mod reset;
mod view;

use std::io;
use std::process::ExitCode;

use anyhow::Result;
use twainmq::Store;

use crate::args::GroupsCmd;
use crate::render::{self, GroupList, GroupRow, GroupView, RoundOpened};

pub(crate) fn run(store: &Store, cmd: GroupsCmd) -> Result<ExitCode> {
    let mut out = io::stdout().lock();
    let ok = |r: Result<()>| r.map(|()| ExitCode::SUCCESS);
    match cmd {
        GroupsCmd::List { json } => ok(render::emit(&mut out, &list(store)?, json)),
        GroupsCmd::Describe { group: g, json } => ok(render::emit(&mut out, &GroupView(store.describe_group(&g)?), json)),
        GroupsCmd::Reset { group, to, partition, dry_run, json } => {
            ok(reset::reset(store, &mut out, &group, &to, &partition, dry_run, json))
        }
        GroupsCmd::Import { group, file, partition, dry_run, json } => {
            ok(reset::import(store, &mut out, &group, &file, &partition, dry_run, json))
        }
        GroupsCmd::Export { group, json: _ } => ok(reset::export(store, &mut out, &group)),
        GroupsCmd::Delete { group, yes, members_stopped, json } => ok(reset::delete(store, &mut out, &group, yes, members_stopped, json)),
        GroupsCmd::Lag { group, max_lag, max_age, history, buckets, json } => {
            let limits = lag::Limits { max_lag, max_age };
            match history {
                Some(span) => ok(lag::history(store, &mut out, &group, span, buckets, json)),
                None => lag::lag(store, &mut out, &group, limits, json),
            }
        }
        GroupsCmd::Rebalance { group: g, window, json } => {
            store.trigger_round(&g, window)?;
            ok(render::emit(&mut out, &RoundOpened { group: g, window }, json))
        }
    }
}

/// Every group with its topic, state and members; a group whose log cannot
/// be read is a row saying why, not the end of the listing.
fn list(store: &Store) -> Result<GroupList> {
    let rows = store
        .group_summaries()?
        .into_iter()
        .map(|g| match g.state {
            Ok(s) => GroupRow::Group {
                group: g.name,
                topic: s.topic,
                members: s.members,
                round_open: s.round_open,
                state: s.phase.as_str(),
                live_members: s.live_members,
            },
            Err(error) => GroupRow::Unreadable { group: g.name, error },
        })
        .collect();
    Ok(GroupList(rows))
}
