//! TwainMQ Desktop's backend: thin Tauri commands over the `twainmq` engine,
//! by domain (docs/ARCHITECTURE.md draws it).
//!
//! Each domain is a folder of three layers: `wire.rs` (the types that cross to
//! the webview, with their conversions from the engine's), `service.rs` (what
//! the commands do, on plain engine types: no Tauri, tested directly) and
//! `commands.rs` (each command a few lines over the service). Domains import
//! only from those below them, and commands name only their own domain's wire
//! types (`tests/layers.rs` checks both). Below the domains: `wire` (errors,
//! u64 as strings) and `engine`; between their services and their commands:
//! `source` (the seam for a second kind of source), `session` (each window's
//! state) and `ipc` (`blocking`, the command set). The shell (windows, menu,
//! About, Settings) frames it all; this file starts the app.

pub mod engine;
pub mod ipc;
pub mod session;
pub mod source;
pub mod wire;

/// The topics of a store: describe, create, delete.
pub mod topics {
    pub mod commands;
    pub mod service;
    pub mod wire;
}

/// A topic's messages: pages of a partition or of the timeline, raw lines, produce.
pub mod messages {
    pub mod commands;
    pub mod service;
    pub mod wire;
}

/// Searches over a topic's whole log, and the filter box's checks and completion.
pub mod search {
    pub mod commands;
    pub mod service;
    pub mod wire;
}

/// Consumer groups: members, rounds, offsets and resets, lag, the balancing demo.
pub mod groups {
    pub mod commands;
    pub mod members;
    pub mod service;
    pub mod wire;
    pub mod wire_lag;
    pub mod wire_reset;
}

/// Data in and out: export, import, copy; and out for good: retention and purge.
pub mod transfer {
    pub mod commands;
    pub mod service;
    pub mod wire;
}

/// The store a window shows: open, create, close, recent stores.
pub mod store {
    pub mod commands;
    pub mod service;
    pub mod wire;
}

/// A Kafka cluster in a window: connect, saved connections, the cluster as a source.
pub mod cluster {
    pub mod commands;
    pub mod demo;
    pub mod mirror;
    pub mod search;
    pub mod service;
    pub mod transfer;
    pub mod wire;
}

/// The app's frame: windows, the menu bar, About and Settings.
pub mod shell {
    pub mod about;
    pub mod commands;
    pub mod menu;
    pub mod settings;
    pub mod windows;
    pub mod wire;
}

use tauri::Manager;

// `COMMANDS` and `commands()`, from build.rs's list.
include!(concat!(env!("OUT_DIR"), "/commands.rs"));

/// The command and event set, shared by the app and the bindings' generator (`cargo xtask bindings`).
pub fn specta_builder() -> tauri_specta::Builder<tauri::Wry> {
    ipc::builder(commands())
}

/// Run the app. `store_arg` (the first command-line argument) opens that store directly.
///
/// # Errors
/// When Tauri cannot start.
pub fn run(store_arg: Option<String>) -> Result<(), tauri::Error> {
    let builder = specta_builder();
    tauri::Builder::default()
        // First: a second launch hands its command line over and exits before anything else starts.
        .plugin(tauri_plugin_single_instance::init(shell::windows::on_second_launch))
        // The main window's size, position and maximised state come back; windows made at run
        // time open at the platform's default place (restoring them all to one spot would stack them).
        .plugin(tauri_plugin_window_state::Builder::default().with_filter(|label| label == "main").build())
        .plugin(tauri_plugin_dialog::init())
        .plugin(tauri_plugin_notification::init())
        .invoke_handler(builder.invoke_handler())
        .menu(|app| shell::menu::build(app, &[]))
        .on_menu_event(shell::menu::on_event)
        .setup(move |app| {
            builder.mount_events(app);
            let places = session::Places {
                recent_file: app.path().app_config_dir().ok().map(|d| d.join("recent-stores.json")),
                // Local, not roaming, app data: on Windows a roaming profile is copied to every
                // machine the user signs in to, and the demo store is made again on demand.
                demo_dir: app.path().app_local_data_dir().ok().map(|d| d.join("demo-store")),
                index_cache_dir: app.path().app_cache_dir().ok().map(|d| d.join("line-index")),
                settings_file: app.path().app_config_dir().ok().map(|d| d.join("store-settings.json")),
                retention_log_file: app.path().app_local_data_dir().ok().map(|d| d.join("retention-log.jsonl")),
                connections_file: app.path().app_config_dir().ok().map(|d| d.join("kafka-connections.json")),
            };
            // When a window's store opens: the menu's Open Recent follows, and the app applies
            // that store's retention.
            let store_opened: session::StoreOpened = Box::new(|app, label, recent| {
                shell::menu::refresh_recent(app, recent);
                transfer::commands::start_auto_retention(app, label);
            });
            app.manage(session::Sessions::new(places, store_opened));
            app.manage(shell::menu::Focus::default());
            app.manage(ipc::Transfers::default());
            let main = app.state::<session::Sessions>().get("main");
            shell::menu::refresh_recent(app.handle(), &main.recent());
            if let Some(path) = store_arg.clone() {
                if let Err(e) = store::commands::open_path(app.handle(), &main, "main", &path) {
                    tracing::error!(path, error = %e.message, "could not open the store given on the command line");
                    main.set_launch_error(&path, e);
                }
            }
            Ok(())
        })
        .on_window_event(|window, event| match event {
            tauri::WindowEvent::Focused(true) => window.state::<shell::menu::Focus>().set(window.label()),
            // The window's store closes with it (its transfers stop, its demo members leave, its index is kept), and
            // the main window's place is written now, not only at a clean exit.
            tauri::WindowEvent::Destroyed => {
                window.state::<ipc::Transfers>().cancel_window(window.label());
                window.state::<session::Sessions>().end(window.label());
                if window.label() == "main" {
                    use tauri_plugin_window_state::{AppHandleExt, StateFlags};
                    if let Err(e) = window.app_handle().save_window_state(StateFlags::all()) {
                        tracing::warn!(error = %e, "could not keep the window's size and place");
                    }
                }
            }
            _ => {}
        })
        .build(tauri::generate_context!())?
        .run(|app, event| {
            if let tauri::RunEvent::Exit = event {
                // Demo members commit and leave their groups; the line indexes are kept.
                app.state::<session::Sessions>().end_all();
            }
        });
    Ok(())
}
