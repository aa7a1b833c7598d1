//! The cluster's commands: test a connection, connect (the cluster opens in a
//! window of its own, as a store does), saved connections, and what a cluster
//! window shows. Each a few lines over `service.rs`. The topics and messages
//! of a cluster window come through the usual commands, from the window's
//! source (`crate::source`).

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;

use tauri::{AppHandle, Manager, WebviewUrl, WebviewWindowBuilder};

use super::search::Matcher;
use super::service::{self, OsKeychain};
use super::wire::{
    ClusterDemoMember, ClusterExportRequest, ClusterImportCheck, ClusterImportRequest, ClusterMirrorEvent, ClusterMirrorRequest,
    TransferEvent, TransferId,
};
use super::wire::{
    ClusterGroupDetail, ClusterGroupSummary, ClusterInfo, ClusterProduceRequest, ClusterProduced, ClusterResetPlan, ClusterResetRequest,
    ClusterResetRow, ClusterSearchEvent, ClusterSearchQuery, CompatCheck, ConnectRequest, ConnectionTest, SavedConnection,
};
use crate::ipc::blocking;
use crate::ipc::spawn_transfer;
use crate::session::{Session, Sessions};
use crate::wire::{ErrorCode, ErrorDto};

/// Labels of cluster windows: `store-cluster-1`, ... (under the capability's `store-*`, so a
/// cluster window may call the same commands as a store's).
pub const CLUSTER_PREFIX: &str = "store-cluster-";

static NEXT: AtomicU32 = AtomicU32::new(1);

/// Try the connection: the cluster's overview, or what failed, in words.
#[tauri::command]
#[specta::specta]
pub async fn test_connection(request: ConnectRequest) -> Result<ConnectionTest, ErrorDto> {
    blocking(move || service::test(&request, &OsKeychain)).await
}

/// Connect, and open the cluster in a new window. Saved first when asked (the
/// password only in the OS keychain). A connection that fails opens nothing
/// and answers what failed.
#[tauri::command]
#[specta::specta]
pub async fn connect_cluster(app: AppHandle, state: Session, request: ConnectRequest) -> Result<ConnectionTest, ErrorDto> {
    let file = state.connections_file.clone();
    blocking(move || {
        let (source, overview) = match service::connect(&request, &OsKeychain)? {
            Ok(s) => s,
            Err(failed) => return Ok(failed),
        };
        let mut keychain_problem = None;
        if let (true, Some(file)) = (request.save, file.as_deref()) {
            let password = service::password_for(&request, &OsKeychain)?;
            keychain_problem = service::save(file, &OsKeychain, &request.settings, password.as_deref())?.1;
        }
        let title = format!("{} — Kafka — TwainMQ Desktop", source.name);
        let label = loop {
            let l = format!("{CLUSTER_PREFIX}{}", NEXT.fetch_add(1, Ordering::Relaxed));
            if app.get_webview_window(&l).is_none() {
                break l;
            }
        };
        app.state::<Sessions>().get(&label).set_cluster(Arc::new(source));
        WebviewWindowBuilder::new(&app, &label, WebviewUrl::App("index.html#cluster".into()))
            .title(title)
            .inner_size(1280.0, 800.0)
            .min_inner_size(900.0, 560.0)
            .build()
            .map_err(|e| ErrorDto::new(ErrorCode::Internal, format!("could not open the cluster's window: {e}")))?;
        Ok(ConnectionTest { overview: Some(overview), failure: None, keychain_problem })
    })
    .await
}

/// The saved connections, newest first.
#[tauri::command]
#[specta::specta]
pub async fn saved_connections(state: Session) -> Result<Vec<SavedConnection>, ErrorDto> {
    Ok(service::saved(state.connections_file.as_deref()))
}

/// Forget a saved connection and its keychain password.
#[tauri::command]
#[specta::specta]
pub async fn forget_connection(state: Session, id: String) -> Result<Vec<SavedConnection>, ErrorDto> {
    let file = state.connections_file.clone().ok_or_else(|| ErrorDto::new(ErrorCode::Io, "no place for saved connections"))?;
    blocking(move || {
        service::forget(&file, &OsKeychain, &id)?;
        Ok(service::saved(Some(&file)))
    })
    .await
}

/// The cluster this window shows, with its topics and their watermarks.
#[tauri::command]
#[specta::specta]
pub async fn cluster_info(state: Session) -> Result<ClusterInfo, ErrorDto> {
    let cluster = state.cluster()?;
    blocking(move || cluster.info()).await
}

/// The cluster's consumer groups, with state, members and total lag.
#[tauri::command]
#[specta::specta]
pub async fn cluster_groups(state: Session) -> Result<Vec<ClusterGroupSummary>, ErrorDto> {
    let cluster = state.cluster()?;
    blocking(move || cluster.groups()).await
}

/// One of the cluster's consumer groups: members, assignments, commits and lag.
#[tauri::command]
#[specta::specta]
pub async fn cluster_group(state: Session, id: String) -> Result<ClusterGroupDetail, ErrorDto> {
    let cluster = state.cluster()?;
    blocking(move || cluster.group(&id)).await
}

/// Write one record to the cluster (produce, republish); refused on a read-only connection.
#[tauri::command]
#[specta::specta]
pub async fn cluster_produce(state: Session, request: ClusterProduceRequest) -> Result<ClusterProduced, ErrorDto> {
    let cluster = state.cluster()?;
    blocking(move || cluster.produce_record(&request)).await
}

/// What resetting a cluster group's commits would do, partition by partition; nothing written.
#[tauri::command]
#[specta::specta]
pub async fn cluster_reset_plan(state: Session, id: String, request: ClusterResetRequest) -> Result<ClusterResetPlan, ErrorDto> {
    let cluster = state.cluster()?;
    blocking(move || cluster.plan_reset(&id, &request)).await
}

/// Apply a reset plan as shown; the group afterwards.
#[tauri::command]
#[specta::specta]
pub async fn cluster_reset_apply(state: Session, id: String, rows: Vec<ClusterResetRow>) -> Result<ClusterGroupDetail, ErrorDto> {
    let cluster = state.cluster()?;
    blocking(move || cluster.apply_reset(&id, &rows)).await
}

/// Delete a cluster's consumer group, its name typed again as `confirm`.
#[tauri::command]
#[specta::specta]
pub async fn cluster_delete_group(state: Session, id: String, confirm: String) -> Result<(), ErrorDto> {
    let cluster = state.cluster()?;
    blocking(move || cluster.delete_group(&id, &confirm)).await
}

/// Search a cluster topic: progress and hits stream on `on_event` until done,
/// failed or cancelled; a new search stops the one before. A query that
/// cannot run is refused here, before anything is read.
#[tauri::command]
#[specta::specta]
pub async fn cluster_search(
    state: Session,
    topic: String,
    query: ClusterSearchQuery,
    on_event: tauri::ipc::Channel<ClusterSearchEvent>,
) -> Result<(), ErrorDto> {
    let cluster = state.cluster()?;
    let matcher = Matcher::new(&query)?;
    let cancel = cluster.new_search();
    std::thread::Builder::new()
        .name("cluster-search".into())
        .spawn(move || {
            cluster.search(&topic, &matcher, &cancel, &mut |ev| {
                let _ = on_event.send(ev);
            });
        })
        .map_err(|e| ErrorDto::new(ErrorCode::Internal, format!("could not start the search: {e}")))?;
    Ok(())
}

/// Stop the window's running cluster search (what it found stays shown).
#[tauri::command]
#[specta::specta]
pub async fn cluster_cancel_search(state: Session) -> Result<(), ErrorDto> {
    state.cluster()?.cancel_search();
    Ok(())
}

/// Export a cluster topic's records (of some partitions) to a JSON lines file; progress, then
/// done or failed, on `on_event`; stopped by `cancel_transfer`.
#[tauri::command]
#[specta::specta]
pub async fn cluster_export(
    app: AppHandle,
    webview: tauri::Webview,
    state: Session,
    request: ClusterExportRequest,
    on_event: tauri::ipc::Channel<TransferEvent>,
) -> Result<TransferId, ErrorDto> {
    let cluster = state.cluster()?;
    spawn_transfer(&app, webview.label(), "cluster-export", on_event, move |cancel, send| cluster.export(&request, cancel, send))
}

/// Check a JSON lines file to import into a cluster topic; nothing written.
#[tauri::command]
#[specta::specta]
pub async fn cluster_import_check(state: Session, topic: String, path: String) -> Result<ClusterImportCheck, ErrorDto> {
    let cluster = state.cluster()?;
    blocking(move || cluster.check_import(&topic, &path)).await
}

/// Import a JSON lines file into a cluster topic (refused read-only); progress, then done or
/// failed (saying which lines are in the topic), on `on_event`.
#[tauri::command]
#[specta::specta]
pub async fn cluster_import(
    app: AppHandle,
    webview: tauri::Webview,
    state: Session,
    request: ClusterImportRequest,
    on_event: tauri::ipc::Channel<TransferEvent>,
) -> Result<TransferId, ErrorDto> {
    let cluster = state.cluster()?;
    cluster.writable()?;
    spawn_transfer(&app, webview.label(), "cluster-import", on_event, move |cancel, send| cluster.import(&request, cancel, send))
}

/// Mirror a topic between this cluster and a store folder, either way, once or following;
/// its news on `on_event`; stopped by `cancel_transfer` (started again, it goes on from where
/// the target is). Refused on a read-only connection.
#[tauri::command]
#[specta::specta]
pub async fn cluster_mirror(
    app: AppHandle,
    webview: tauri::Webview,
    state: Session,
    request: ClusterMirrorRequest,
    on_event: tauri::ipc::Channel<ClusterMirrorEvent>,
) -> Result<TransferId, ErrorDto> {
    let cluster = state.cluster()?;
    let store = {
        let (c, r) = (cluster.clone(), request.clone());
        blocking(move || c.check_mirror(&r)).await?
    };
    spawn_transfer(&app, webview.label(), "cluster-mirror", on_event, move |stop, send| cluster.mirror(&store, &request, stop, send))
}

/// Check what the cluster answers, and whether rightly; `write` adds the checks that write (a
/// scratch topic and group, deleted after; refused read-only).
#[tauri::command]
#[specta::specta]
pub async fn cluster_compatibility(state: Session, write: bool) -> Result<Vec<CompatCheck>, ErrorDto> {
    let cluster = state.cluster()?;
    blocking(move || cluster.compatibility(write)).await
}

/// Start a member of the balancing demo in a group of the cluster, reading `topic`; its id.
#[tauri::command]
#[specta::specta]
pub async fn cluster_demo_start(state: Session, group: String, topic: String) -> Result<u32, ErrorDto> {
    let cluster = state.cluster()?;
    blocking(move || cluster.start_demo_member(&group, &topic)).await
}

/// Stop a member of the balancing demo: it leaves its group.
#[tauri::command]
#[specta::specta]
pub async fn cluster_demo_stop(state: Session, id: u32) -> Result<(), ErrorDto> {
    let cluster = state.cluster()?;
    blocking(move || cluster.stop_demo_member(id)).await
}

/// The balancing demo's members: what each holds and has read.
#[tauri::command]
#[specta::specta]
pub async fn cluster_demo_members(state: Session) -> Result<Vec<ClusterDemoMember>, ErrorDto> {
    Ok(state.cluster()?.demo_members())
}
