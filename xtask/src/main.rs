//! `cargo xtask bindings [PATH]` and `cargo xtask ui-fixture [OUT.json [FIXTURE]]`
//! (the Makefile's `bindings` and `ui-fixture`).

use std::path::PathBuf;
use std::process::ExitCode;

const USAGE: &str = "Usage: cargo xtask COMMAND

Commands:
  bindings [PATH]                 write the TypeScript bindings (default: ui/src/backend/bindings.ts)
  ui-fixture [OUT.json [FIXTURE]] record the UI's test backend (default: ui/fixtures/recorded-store.json,
                                  from a copy of tests/fixtures/twainmq-0.2.3/store)";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let arg = |i: usize, default: &str| args.get(i).map_or_else(|| xtask::root().join(default), PathBuf::from);
    let result = match args.first().map(String::as_str) {
        Some("bindings") if args.len() <= 2 => xtask::export_bindings(&arg(1, xtask::BINDINGS)),
        Some("ui-fixture") if args.len() <= 3 => {
            let fixture = args.get(2).map_or_else(xtask::record::default_fixture, PathBuf::from);
            xtask::record::record_to(&fixture, &arg(1, xtask::RECORDING))
        }
        Some("-h" | "--help") => {
            println!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        _ => {
            eprintln!("{USAGE}");
            return ExitCode::from(2);
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
