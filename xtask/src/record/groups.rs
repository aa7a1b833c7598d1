//! What the UI asks of consumer groups: resets of every mode, lag histories and
//! checks, deletions, and the balancing demo's scenes.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::{json, Map, Value};
use twainmq::group::GroupMember;
use twainmq::{StartFrom, Store};
use twainmq_desktop::groups::service as groups;
use twainmq_desktop::groups::wire::GroupDetail;
use twainmq_desktop::groups::wire_lag::{HistorySpan, LagAlertThresholds};
use twainmq_desktop::groups::wire_reset::{ResetRequest, ResetTarget};
use twainmq_desktop::wire::{Commit, Count, Delta, Offset};

use super::scene::{answer, build, consume, dto, err, member_options, Res, Scene, NOW};
use super::text::Normalizer;
use super::ROOT;

/// The reset modes beyond earliest, latest, offset and time: dry runs on `billing` by a shift, by a duration, to another group's offsets, to offsets from a file.
pub(crate) fn admin_resets() -> Vec<(&'static str, ResetRequest)> {
    let mut shift = reset(ResetTarget::Shift, None, None, None, true);
    shift.shift = Some(Delta(-5));
    let mut ago = reset(ResetTarget::Ago, None, None, None, true);
    ago.ago_secs = Some(3600.0);
    let mut other = reset(ResetTarget::Group, None, None, None, true);
    other.other_group = Some("idle".into());
    let mut file = reset(ResetTarget::Offsets, None, None, None, true);
    file.offsets = Some(BTreeMap::from([("0".to_string(), Commit(5)), ("1".to_string(), Commit(-1))]));
    // As the dialog sends a file `groups export` wrote from billing.
    file.file_group = Some("billing".into());
    file.file_topic = Some("orders".into());
    vec![("billing", shift), ("billing", ago), ("billing", other), ("billing", file)]
}

pub(crate) fn reset(to: ResetTarget, offset: Option<u64>, time: Option<f64>, partitions: Option<Vec<u32>>, dry_run: bool) -> ResetRequest {
    ResetRequest {
        to,
        offset: offset.map(Offset),
        time,
        shift: None,
        ago_secs: None,
        other_group: None,
        offsets: None,
        file_group: None,
        file_topic: None,
        partitions,
        dry_run,
        topic: None,
    }
}

/// The groups' lag and administration: lag histories of every group over every span, lag
/// checks, delete previews (on `store`, which they leave as it is) and a
/// deletion of `idle` on a store of its own.
pub(crate) fn record_group_admin(store: &Store, fixture: &Path, norm: &mut Normalizer, out: &mut Map<String, Value>) -> Res<()> {
    let groups = store.list_groups().map_err(err("list groups"))?;
    let spans = [HistorySpan::Hour, HistorySpan::Day, HistorySpan::Week, HistorySpan::All];
    let mut histories = Vec::new();
    for g in &groups {
        for span in spans {
            histories.push(json!({"group": g, "span": span, "answer": answer(&groups::lag_history(store, g, span, NOW))}));
        }
    }
    out.insert("lag_histories".into(), histories.into());
    let checks: Vec<Value> = [
        LagAlertThresholds { max_lag: Some(Count(10)), max_age_secs: None },
        LagAlertThresholds { max_lag: None, max_age_secs: Some(600.0) },
    ]
    .into_iter()
    .map(|t| json!({"group": "billing", "thresholds": t, "answer": answer(&groups::lag_check(store, "billing", &t))}))
    .collect();
    out.insert("lag_checks".into(), checks.into());
    let previews: Map<String, Value> = groups.iter().map(|g| (g.clone(), answer(&groups::delete_preview(store, g, &[])))).collect();
    out.insert("delete_previews".into(), Value::Object(previews));
    let s = build(fixture)?;
    norm.root(&s.root, ROOT);
    let deleted: Vec<Value> = ["Idle", "idle"]
        .into_iter()
        .map(|confirm| json!({"group": "idle", "confirm": confirm, "answer": answer(&groups::delete_group(&s.store, "idle", confirm, false, &[], || 0))}))
        .collect();
    out.insert("delete_group".into(), deleted.into());
    Ok(())
}

pub(crate) fn describe(scene: &Scene, name: &str) -> Res<GroupDetail> {
    groups::describe_group_at(&scene.store, name, None, scene.now()).map_err(dto("describe a group"))
}

/// The balancing demo's scenes: members started in the app, as the group log
/// shows them after each step. The mock steps through them as the demo panel
/// starts, kills and stops members.
pub(crate) fn record_demos(fixture: &Path, norm: &mut Normalizer) -> Res<Value> {
    let mut demos = Map::new();

    // Two members on a new group, the second killed, the first stopped.
    let s = build(fixture)?;
    norm.root(&s.root, ROOT);
    let window = 150;
    s.advance(1.0);
    s.store.ensure_group("orders", "pair", StartFrom::Start).map_err(err("ensure"))?;
    let mut a = GroupMember::join(&s.store, "orders", "pair", member_options(window)).map_err(err("join"))?;
    s.advance(0.2);
    a.heartbeat().map_err(err("heartbeat"))?;
    consume(&mut a, 40)?;
    let one = describe(&s, "pair")?;
    s.advance(1.0);
    let mut b = GroupMember::join(&s.store, "orders", "pair", member_options(window)).map_err(err("join"))?;
    a.heartbeat().map_err(err("heartbeat"))?;
    s.advance(0.2);
    a.heartbeat().map_err(err("heartbeat"))?;
    b.heartbeat().map_err(err("heartbeat"))?;
    consume(&mut a, 20)?;
    consume(&mut b, 20)?;
    let two = describe(&s, "pair")?;
    s.advance(1.0);
    b.abandon();
    let killed = describe(&s, "pair")?;
    s.advance(0.8);
    a.trigger_round().map_err(err("round"))?;
    s.advance(0.2);
    a.heartbeat().map_err(err("heartbeat"))?;
    let survivor = describe(&s, "pair")?;
    s.advance(1.0);
    a.close().map_err(err("close"))?;
    let stopped = describe(&s, "pair")?;
    demos.insert(
        "pair".into(),
        json!({
            "topic": "orders",
            "group": "pair",
            "window_ms": window,
            "steps": [
                {"do": "start", "handle": "1", "member_id": 1, "detail": one},
                {"do": "start", "handle": "2", "member_id": 2, "detail": two},
                {"do": "kill", "handle": "2", "detail": killed, "then": survivor},
                {"do": "stop", "handle": "1", "detail": stopped},
            ],
        }),
    );

    // A third member joins billing's two (external) ones.
    let mut s = build(fixture)?;
    norm.root(&s.root, ROOT);
    s.advance(1.0);
    let mut c = GroupMember::join(&s.store, "orders", "billing", member_options(120)).map_err(err("join"))?;
    s.heartbeat()?;
    s.advance(0.2);
    s.heartbeat()?;
    c.heartbeat().map_err(err("heartbeat"))?;
    consume(&mut c, 30)?;
    let three = describe(&s, "billing")?;
    s.advance(1.0);
    c.close().map_err(err("close"))?;
    s.heartbeat()?;
    let left = describe(&s, "billing")?;
    demos.insert(
        "billing".into(),
        json!({
            "topic": "orders",
            "group": "billing",
            "window_ms": 120,
            "steps": [
                {"do": "start", "handle": "1", "member_id": newest_member(&three), "detail": three},
                {"do": "stop", "handle": "1", "detail": left},
            ],
        }),
    );
    Ok(Value::Object(demos))
}

/// The newest member of a described group.
pub(crate) fn newest_member(d: &GroupDetail) -> u32 {
    d.members.iter().map(|m| m.id).max().unwrap_or(0)
}
