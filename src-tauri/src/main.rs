// No console window on Windows release builds.
#![cfg_attr(all(not(debug_assertions), target_os = "windows"), windows_subsystem = "windows")]

use std::process::ExitCode;

fn main() -> ExitCode {
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
    match twainmq_desktop::run(first) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
