//! What the domains' tests share: a copy of the 0.2.3 fixture store, and short names for wire values.

use twainmq::Store;
use twainmq_desktop::messages::wire::{KeyInput, ProduceKind, ProducePayload};
use twainmq_desktop::wire::{KeyText, Offset};

pub fn fixture() -> (tempfile::TempDir, Store) {
    let tmp = tempfile::tempdir().expect("tmp");
    let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/twainmq-0.2.3/store");
    copy(&src, tmp.path());
    for t in ["empty", "events", "names", "sensors", "tiny", "typed", "bigmsgs"] {
        std::fs::create_dir_all(tmp.path().join(t)).expect("mkdir");
    }
    let store = Store::open(tmp.path()).expect("open");
    (tmp, store)
}

pub fn copy(from: &std::path::Path, to: &std::path::Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for e in std::fs::read_dir(from).expect("dir") {
        let e = e.expect("entry");
        if e.file_type().expect("type").is_dir() {
            copy(&e.path(), &to.join(e.file_name()));
        } else {
            std::fs::copy(e.path(), to.join(e.file_name())).expect("copy");
        }
    }
}

pub fn text(p: &str) -> ProducePayload {
    ProducePayload { kind: ProduceKind::Text, body: p.into(), class: None, file: None }
}

pub fn key(k: &str) -> KeyText {
    KeyText(k.into())
}

/// A key typed as text in the Produce tab.
pub fn key_text(k: &str) -> KeyInput {
    KeyInput::Text { text: k.into() }
}

pub fn at(o: u64) -> Offset {
    Offset(o)
}
