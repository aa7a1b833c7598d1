// No console window on Windows release builds.
#![cfg_attr(all(not(debug_assertions), target_os = "windows"), windows_subsystem = "windows")]

use std::process::ExitCode;

/// WebKitGTK composites the page with OpenGL. Without a GPU (no DRM render node: virtual
/// machines, remote desktops, Xvfb) that GL is Mesa's llvmpipe, a second renderer on the CPU:
/// about 80 MB more in the web process and half its CPU while the table follows a busy log
/// (`make bench-app`). There, compositing is turned off; the table does not need it.
/// `TWAINMQ_GPU=1` keeps it on, `TWAINMQ_GPU=0` turns it off anyway, and a
/// `WEBKIT_DISABLE_COMPOSITING_MODE` the user set is left alone. Called first, before any
/// thread exists; WebKit's processes inherit the variable.
#[cfg(target_os = "linux")]
fn webkit_rendering_defaults() {
    if std::env::var_os("WEBKIT_DISABLE_COMPOSITING_MODE").is_some() {
        return;
    }
    let software_gl = std::env::var("LIBGL_ALWAYS_SOFTWARE").is_ok_and(|v| !v.is_empty() && v != "0") || !has_render_node();
    let off = match std::env::var("TWAINMQ_GPU").as_deref() {
        Ok("1") => false,
        Ok("0") => true,
        _ => software_gl,
    };
    if off {
        std::env::set_var("WEBKIT_DISABLE_COMPOSITING_MODE", "1");
    }
}

/// Whether the kernel offers a GPU for rendering (`/dev/dri/renderD*`).
#[cfg(target_os = "linux")]
fn has_render_node() -> bool {
    std::fs::read_dir("/dev/dri").is_ok_and(|d| d.flatten().any(|e| e.file_name().to_string_lossy().starts_with("renderD")))
}

fn main() -> ExitCode {
    #[cfg(target_os = "linux")]
    webkit_rendering_defaults();
    tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::try_from_env("TWAINMQ_LOG").unwrap_or_else(|_| "warn".into()))
        .init();
    // `twainmq-desktop --export-bindings PATH` regenerates the TypeScript bindings.
    let mut args = std::env::args().skip(1);
    let first = args.next();
    if first.as_deref() == Some("--export-bindings") {
        let path = args.next().unwrap_or_else(|| "ui/src/lib/bindings.ts".into());
        return match twainmq_desktop::export_bindings(std::path::Path::new(&path)) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("error: {e}");
                ExitCode::FAILURE
            }
        };
    }
    // `twainmq-desktop --record-ui-fixture OUT.json [FIXTURE_STORE]` records the UI's test backend.
    if first.as_deref() == Some("--record-ui-fixture") {
        let out = args.next().unwrap_or_else(|| "ui/src/lib/recorded/store.json".into());
        let fixture = args.next().map_or_else(twainmq_desktop::record::default_fixture, std::path::PathBuf::from);
        return match twainmq_desktop::record::record_to(&fixture, std::path::Path::new(&out)) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("error: {e}");
                ExitCode::FAILURE
            }
        };
    }
    match twainmq_desktop::run(first) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
