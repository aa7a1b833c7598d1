//! The versions the engine names: they must agree with what the repository
//! tests against, or `--version` and the About dialog say something untrue.

use std::path::Path;

use twainmq::version;

fn repo() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
}

#[test]
fn the_compatible_release_is_the_interop_peer() {
    // The interop suites run against exactly this Python release: the constant
    // follows the pin, never the other way round.
    let requirements = std::fs::read_to_string(repo().join("tests/requirements.txt")).expect("tests/requirements.txt");
    let pin = requirements.lines().find_map(|l| l.trim().strip_prefix("twainmq==")).expect("a twainmq== pin");
    assert_eq!(pin, version::COMPATIBLE);
    assert!(repo().join(format!("tests/fixtures/twainmq-{}/store", version::COMPATIBLE)).is_dir(), "the fixture store of that release");
}

#[test]
fn the_engine_carries_the_workspace_version() {
    let manifest = std::fs::read_to_string(repo().join("Cargo.toml")).expect("Cargo.toml");
    let workspace = manifest.split("[workspace.package]").nth(1).expect("[workspace.package]");
    let line = workspace.lines().find(|l| l.trim_start().starts_with("version")).expect("a workspace version");
    let v = line.split('"').nth(1).expect("a quoted version");
    assert_eq!(v, version::ENGINE);
}

#[test]
fn describe_names_program_engine_and_compatibility() {
    assert_eq!(version::describe("9.8.7"), format!("9.8.7 (engine {}, reads and writes twainmq 0.2.3 stores)", version::ENGINE));
}
