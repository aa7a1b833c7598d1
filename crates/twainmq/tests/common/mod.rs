//! Shared helpers for the engine's integration tests.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

pub fn fixture_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/twainmq-0.2.3")
}

pub fn load_json(name: &str) -> serde_json::Value {
    let text = std::fs::read(fixture_dir().join(name)).expect("fixture file");
    serde_json::from_slice(&text).expect("fixture JSON")
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for e in std::fs::read_dir(from).expect("read fixture") {
        let e = e.expect("entry");
        let dest = to.join(e.file_name());
        if e.file_type().expect("type").is_dir() {
            copy_dir(&e.path(), &dest);
        } else {
            std::fs::copy(e.path(), &dest).expect("copy");
        }
    }
}

/// A private copy of the fixture store (tests never touch the original), with
/// the empty topic folders git cannot keep recreated.
pub fn fixture_store() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().expect("tmp");
    copy_dir(&fixture_dir().join("store"), tmp.path());
    let expected = load_json("expected.json");
    for t in expected["topics"].as_object().expect("topics").keys() {
        std::fs::create_dir_all(tmp.path().join(t)).expect("mkdir");
    }
    tmp
}
