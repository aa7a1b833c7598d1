fn main() {
    // Our commands are the only ones the webview may call: each gets an
    // `allow-<name>` permission that capabilities/default.json grants.
    let manifest = tauri_build::AppManifest::new().commands(&[
        "open_store",
        "pick_folder",
        "recent_stores",
        "open_demo_store",
        "store_info",
        "close_store",
        "create_store",
        "launch_error",
        "raw_line",
        "describe_topic",
        "read_page",
        "offset_at_time",
        "search",
        "cancel_search",
        "drop_search",
        "search_rows",
        "check_filter",
        "topic_fields",
        "timeline_before",
        "timeline_after",
        "produce",
        "create_topic",
        "topic_groups",
        "delete_topic",
        "describe_group",
        "reset_group",
        "trigger_round",
        "demo_start_member",
        "demo_stop_member",
        "demo_members",
        "demo_clear_stopped",
    ]);
    if let Err(e) = tauri_build::try_build(tauri_build::Attributes::new().config_path("../tauri.conf.json").app_manifest(manifest)) {
        eprintln!("tauri build failed: {e:#}");
        std::process::exit(1);
    }
}
