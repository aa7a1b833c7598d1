//! TwainMQ Desktop's backend: thin Tauri commands over the `twainmq` engine.

pub mod commands;
pub mod engine;
pub mod members;
pub mod open_commands;
pub mod record;
pub mod service;
pub mod state;
pub mod transport;

use tauri::Manager;
use tauri_specta::{collect_commands, collect_events, Builder};

/// The command and event set, shared by the app and the bindings export.
pub fn specta_builder() -> Builder<tauri::Wry> {
    let builder = Builder::<tauri::Wry>::new()
        .commands(collect_commands![
            commands::open_store,
            commands::pick_folder,
            commands::recent_stores,
            commands::open_demo_store,
            commands::store_info,
            commands::close_store,
            open_commands::create_store,
            open_commands::launch_error,
            commands::raw_line,
            commands::describe_topic,
            commands::read_page,
            commands::offset_at_time,
            commands::search,
            commands::cancel_search,
            commands::drop_search,
            commands::search_rows,
            commands::check_filter,
            commands::topic_fields,
            commands::timeline_before,
            commands::timeline_after,
            commands::produce,
            commands::create_topic,
            commands::topic_groups,
            commands::delete_topic,
            commands::describe_group,
            commands::reset_group,
            commands::trigger_round,
            commands::demo_start_member,
            commands::demo_stop_member,
            commands::demo_members,
            commands::demo_clear_stopped,
        ])
        .events(collect_events![transport::StoreChanged])
        .disable_serde_phases();
    engine::limits().into_iter().fold(builder, |b, (name, value)| b.constant(name, value))
}

/// Write the TypeScript bindings to `path`.
///
/// # Errors
/// When the exporter fails.
pub fn export_bindings(path: &std::path::Path) -> Result<(), String> {
    specta_builder()
        .export(
            specta_typescript::Typescript::default()
                .header("// Generated from the Rust transport types by `make bindings`. Do not edit.\n"),
            path,
        )
        .map_err(|e| e.to_string())
}

/// Run the app. `store_arg` (the first command-line argument) opens that store directly.
///
/// # Errors
/// When Tauri cannot start.
pub fn run(store_arg: Option<String>) -> Result<(), tauri::Error> {
    let builder = specta_builder();
    tauri::Builder::default()
        .plugin(tauri_plugin_dialog::init())
        .invoke_handler(builder.invoke_handler())
        .setup(move |app| {
            builder.mount_events(app);
            let data = app.path().app_data_dir().ok();
            let config = app.path().app_config_dir().ok();
            let cache = app.path().app_cache_dir().ok();
            app.manage(state::AppState {
                recent_file: config.map(|d| d.join("recent-stores.json")),
                demo_dir: data.map(|d| d.join("demo-store")),
                index_cache_dir: cache.map(|d| d.join("line-index")),
                ..Default::default()
            });
            if let Some(path) = store_arg.clone() {
                let state = app.state::<state::AppState>();
                if let Err(e) = commands::open_path(app.handle(), &state, &path) {
                    tracing::error!(path, error = %e.message, "could not open the store given on the command line");
                    open_commands::keep_launch_error(&state, &path, e);
                }
            }
            Ok(())
        })
        .build(tauri::generate_context!("../tauri.conf.json"))?
        .run(|app, event| {
            if let tauri::RunEvent::Exit = event {
                // Demo members commit and leave their groups; the line index is kept.
                let state = app.state::<state::AppState>();
                state.members.stop_all();
                state.save_index();
            }
        });
    Ok(())
}
