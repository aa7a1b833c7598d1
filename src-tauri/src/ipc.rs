//! The IPC between the webview and the backend: the one [`blocking`] every
//! command runs its work in, and the [`builder`] of the command set the app
//! registers and the TypeScript bindings are generated from (its commands come
//! from build.rs's `COMMANDS` list: `lib.rs` passes them in).

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Arc, Mutex};

use tauri::ipc::Channel;
use tauri::{AppHandle, Manager};

use tauri_specta::{collect_events, Builder, Commands};
use twainmq::KeyType;

use crate::engine::{
    DEFAULT_KEY_TYPE, DEFAULT_MAX_MESSAGE_BYTES, DEFAULT_PARTITIONS, GROUP_PREFIX, MAX_CHAR_WIDTH, MAX_FREE_KEY_BYTES, MAX_GROUP_NAME,
    MAX_LINE_BYTES, MAX_MESSAGE_BYTES_LIMIT, MAX_PARTITIONS, MAX_TOPIC_NAME,
};
use crate::messages::service::MAX_PAGE;
use crate::messages::wire::{MAX_PAYLOAD_SLICE, PAYLOAD_PREVIEW_BYTES, ROW_WHOLE_BYTES};
use crate::shell::wire::{accelerators, MenuAction};
use crate::store::wire::{StoreChanged, StorePresence};
use crate::transfer::wire::{RetentionApplied, RetentionDue, TransferId};
use crate::wire::{ErrorCode, ErrorDto};

/// Run `f` off the async runtime (reading files, waiting for threads): every command's work.
pub async fn blocking<T: Send + 'static>(f: impl FnOnce() -> Result<T, ErrorDto> + Send + 'static) -> Result<T, ErrorDto> {
    tauri::async_runtime::spawn_blocking(f).await.map_err(|e| ErrorDto::new(ErrorCode::Internal, format!("the task failed: {e}")))?
}

/// The running transfers' (exports, imports, copies, mirrors: of a store or a cluster) cancel
/// flags, by id, with the window each runs for: `cancel_transfer` stops any of them, and a
/// window that closes stops its own (a following mirror never runs on unseen).
#[derive(Default)]
pub struct Transfers {
    next: AtomicU32,
    running: Mutex<HashMap<u32, (String, Arc<AtomicBool>)>>,
}

impl Transfers {
    fn start(&self, window: &str) -> (u32, Arc<AtomicBool>) {
        let id = self.next.fetch_add(1, Ordering::Relaxed) + 1;
        let flag = Arc::new(AtomicBool::new(false));
        self.running.lock().unwrap_or_else(|p| p.into_inner()).insert(id, (window.to_string(), flag.clone()));
        (id, flag)
    }
    /// Stop every transfer running for `window` (it closed).
    pub fn cancel_window(&self, window: &str) {
        for (w, f) in self.running.lock().unwrap_or_else(|p| p.into_inner()).values() {
            if w == window {
                f.store(true, Ordering::Relaxed);
            }
        }
    }
    fn end(&self, id: u32) {
        self.running.lock().unwrap_or_else(|p| p.into_inner()).remove(&id);
    }
    /// Ask transfer `id` to stop (it does after its current batch); nothing when it has ended.
    pub fn cancel(&self, id: u32) {
        if let Some((_, f)) = self.running.lock().unwrap_or_else(|p| p.into_inner()).get(&id) {
            f.store(true, Ordering::Relaxed);
        }
    }
}

/// Run `work` on a thread of its own as a new transfer for `window`, its events on `channel`;
/// its id, for `cancel_transfer`.
pub fn spawn_transfer<E: tauri::ipc::IpcResponse + Send + 'static>(
    app: &AppHandle,
    window: &str,
    kind: &str,
    channel: Channel<E>,
    work: impl FnOnce(&AtomicBool, &mut dyn FnMut(E)) + Send + 'static,
) -> Result<TransferId, ErrorDto> {
    let (id, cancel) = app.state::<Transfers>().start(window);
    let handle = app.clone();
    std::thread::Builder::new()
        .name(format!("{kind}-{id}"))
        .spawn(move || {
            work(&cancel, &mut |ev| {
                let _ = channel.send(ev);
            });
            handle.state::<Transfers>().end(id);
        })
        .map_err(|e| ErrorDto::new(ErrorCode::Internal, format!("could not start the {kind}: {e}")))?;
    Ok(TransferId(id))
}

/// The command and event set, with the constants the bindings carry: shared by the app and
/// the bindings' generator.
pub fn builder(commands: Commands<tauri::Wry>) -> Builder<tauri::Wry> {
    let builder = Builder::<tauri::Wry>::new()
        .commands(commands)
        .events(collect_events![StoreChanged, MenuAction, RetentionApplied, RetentionDue, StorePresence])
        .disable_serde_phases();
    limits().into_iter().fold(builder, |b, (name, value)| b.constant(name, value)).constant("MENU_ACCELERATORS", accelerators())
}

/// The engine's limits the bindings carry, by name, so the webview's live validation uses the
/// engine's numbers rather than copies of them. Integers beyond 2^53 (the largest u64 key)
/// are decimal strings, as everywhere on the wire.
pub fn limits() -> Vec<(&'static str, serde_json::Value)> {
    let key_int_max: BTreeMap<String, String> = [KeyType::U8, KeyType::U16, KeyType::U32, KeyType::U64]
        .into_iter()
        .filter_map(|k| k.max_int().map(|m| (k.to_string(), m.to_string())))
        .collect();
    vec![
        ("MAX_TOPIC_NAME", MAX_TOPIC_NAME.into()),
        ("MAX_GROUP_NAME", MAX_GROUP_NAME.into()),
        ("GROUP_PREFIX", GROUP_PREFIX.into()),
        ("MAX_PARTITIONS", MAX_PARTITIONS.into()),
        ("MAX_CHAR_WIDTH", MAX_CHAR_WIDTH.into()),
        ("MAX_LINE_BYTES", MAX_LINE_BYTES.into()),
        ("KEY_INT_MAX", serde_json::to_value(key_int_max).unwrap_or_default()),
        ("MAX_PAGE", MAX_PAGE.into()),
        // The format's next version: free keys, large messages (New Topic, Produce, the detail pane).
        ("MAX_FREE_KEY_BYTES", MAX_FREE_KEY_BYTES.into()),
        ("DEFAULT_MAX_MESSAGE_BYTES", DEFAULT_MAX_MESSAGE_BYTES.into()),
        ("MAX_MESSAGE_BYTES_LIMIT", MAX_MESSAGE_BYTES_LIMIT.into()),
        ("ROW_WHOLE_BYTES", ROW_WHOLE_BYTES.into()),
        ("MAX_PAYLOAD_SLICE", MAX_PAYLOAD_SLICE.into()),
        ("PAYLOAD_PREVIEW_BYTES", PAYLOAD_PREVIEW_BYTES.into()),
        // New Topic's defaults: 0.2.3's create_topic and the CLI's `topics create`.
        ("DEFAULT_KEY_TYPE", DEFAULT_KEY_TYPE.into()),
        ("DEFAULT_PARTITIONS", DEFAULT_PARTITIONS.into()),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_closed_window_stops_its_own_transfers_and_no_others() {
        let t = Transfers::default();
        let (a, fa) = t.start("store-1");
        let (_, fb) = t.start("store-cluster-2");
        let (_, fc) = t.start("store-1");
        t.cancel_window("store-1");
        assert!(fa.load(Ordering::Relaxed) && fc.load(Ordering::Relaxed));
        assert!(!fb.load(Ordering::Relaxed), "another window's transfer runs on");
        t.end(a);
        t.cancel(a);
        let (d, fd) = t.start("store-1");
        assert_ne!(d, a, "ids are not reused");
        assert!(!fd.load(Ordering::Relaxed), "a transfer started after the close is not stopped by it");
    }
}
