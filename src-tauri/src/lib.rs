//! TwainMQ Desktop's backend: thin Tauri commands over the `twainmq` engine.

pub mod about_commands;
pub mod commands;
pub mod engine;
pub mod group_commands;
pub mod group_ops;
pub mod members;
pub mod menu;
pub mod open_commands;
pub mod record;
pub mod service;
pub mod session;
pub mod settings_commands;
pub mod state;
pub mod transfer_commands;
pub mod transfer_service;
pub mod transport;
pub mod windows;

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
            commands::launch_error,
            commands::new_window,
            settings_commands::index_cache_info,
            settings_commands::clear_index_cache,
            about_commands::about,
            group_commands::lag_history,
            group_commands::lag_check,
            group_commands::export_group_offsets,
            group_commands::pick_offsets_file,
            group_commands::group_delete_preview,
            group_commands::delete_group,
            transfer_commands::pick_save_file,
            transfer_commands::pick_open_file,
            transfer_commands::export_messages,
            transfer_commands::import_file,
            transfer_commands::csv_columns,
            transfer_commands::copy_messages,
            transfer_commands::cancel_transfer,
            transfer_commands::topic_retention,
            transfer_commands::set_retention,
            transfer_commands::retention_preview,
            transfer_commands::apply_retention,
            transfer_commands::purge_topic,
            transfer_commands::take_retention_notices,
            menu::view_state,
        ])
        .events(collect_events![transport::StoreChanged, menu::MenuAction, transport::RetentionApplied])
        .disable_serde_phases();
    engine::limits()
        .into_iter()
        .fold(builder, |b, (name, value)| b.constant(name, value))
        .constant("MENU_ACCELERATORS", menu::accelerators())
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
        // First: a second launch hands its command line over and exits before anything else starts.
        .plugin(tauri_plugin_single_instance::init(windows::on_second_launch))
        // The main window's size, position and maximised state come back; windows made at run
        // time open at the platform's default place (restoring them all to one spot would stack them).
        .plugin(tauri_plugin_window_state::Builder::default().with_filter(|label| label == "main").build())
        .plugin(tauri_plugin_dialog::init())
        .plugin(tauri_plugin_notification::init())
        .invoke_handler(builder.invoke_handler())
        .menu(|app| menu::build(app, &[]))
        .on_menu_event(menu::on_event)
        .setup(move |app| {
            builder.mount_events(app);
            let places = session::Places {
                recent_file: app.path().app_config_dir().ok().map(|d| d.join("recent-stores.json")),
                // Local, not roaming, app data: on Windows a roaming profile is copied to every
                // machine the user signs in to, and the demo store is made again on demand.
                demo_dir: app.path().app_local_data_dir().ok().map(|d| d.join("demo-store")),
                index_cache_dir: app.path().app_cache_dir().ok().map(|d| d.join("line-index")),
            };
            app.manage(session::Sessions::new(places));
            app.manage(menu::Focus::default());
            app.manage(transfer_commands::Transfers::default());
            let main = app.state::<session::Sessions>().get("main");
            menu::refresh_recent(app.handle(), &main.recent());
            if let Some(path) = store_arg.clone() {
                if let Err(e) = commands::open_path(app.handle(), &main, "main", &path) {
                    tracing::error!(path, error = %e.message, "could not open the store given on the command line");
                    main.set_launch_error(&path, e);
                }
            }
            Ok(())
        })
        .on_window_event(|window, event| match event {
            tauri::WindowEvent::Focused(true) => window.state::<menu::Focus>().set(window.label()),
            // The window's store closes with it (its demo members leave, its index is kept), and
            // the main window's place is written now, not only at a clean exit.
            tauri::WindowEvent::Destroyed => {
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
