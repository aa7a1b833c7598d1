//! The shell's wire types: the app's versions (About), a launch's error, the
//! line-index cache (Settings), and the menu bar's items and actions.

use serde::{Deserialize, Serialize};
use specta::Type;
use tauri_specta::Event;

use crate::wire::{Bytes, ErrorDto};

/// The app's version, the engine's, and the Python `twainmq` release whose
/// stores and groups both share. The app and the `twainmq` command are built
/// from one workspace, so `app_version` is also the CLI's.
#[derive(Debug, Clone, Serialize, Deserialize, Type, PartialEq, Eq)]
pub struct About {
    /// `twainmq-desktop`'s version, as `twainmq-desktop --version` prints it.
    pub app_version: String,
    /// The `twainmq` engine crate's version.
    pub engine_version: String,
    /// The `twainmq` (Python) release whose format and group protocol are implemented, e.g. `0.2.3`.
    pub compat: String,
}

/// A store given at launch (the command line, or a second launch) that did not open.
#[derive(Debug, Clone, Serialize, Deserialize, Type, PartialEq)]
pub struct LaunchError {
    pub path: String,
    pub error: ErrorDto,
}

/// The app's line-index cache (outside every store): where, and how big.
#[derive(Debug, Clone, Serialize, Deserialize, Type, PartialEq)]
pub struct IndexCacheInfo {
    /// The folder, or `None` when this platform gave the app no cache folder.
    pub path: Option<String>,
    /// Stores with a kept index.
    pub files: u32,
    pub bytes: Bytes,
}

/// The menu items the UI acts on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Type)]
#[serde(rename_all = "kebab-case")]
pub enum MenuId {
    OpenStore,
    OpenRecent,
    ConnectKafka,
    NewTopic,
    Import,
    Export,
    Settings,
    CopyMessage,
    CopyJson,
    CopyRawLine,
    Find,
    Theme,
    TimeZone,
    FollowTail,
    DetailPane,
    TopicList,
    JumpOffset,
    JumpTime,
    Shortcuts,
    About,
}

/// A menu item chosen, for the focused window (`path`: the store of an Open Recent item).
#[derive(Clone, Debug, Serialize, Deserialize, Type, Event)]
pub struct MenuAction {
    pub id: MenuId,
    pub path: Option<String>,
}

/// A View toggle's state in a window: `None` when it does not apply there (no topic shown).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Type)]
pub struct MenuChecks {
    pub utc: bool,
    pub follow_tail: Option<bool>,
    pub detail_pane: Option<bool>,
}

/// Our items: id, label, accelerator (Tauri's syntax; `CmdOrCtrl` is Cmd on
/// macOS, Ctrl elsewhere). No item has a bare-key accelerator: a native one
/// would take the key from text fields (`/`, `?`, `G` are the UI's own).
pub const ITEMS: &[(MenuId, &str, Option<&str>)] = &[
    (MenuId::OpenStore, "Open Store…", Some("CmdOrCtrl+O")),
    (MenuId::ConnectKafka, "Connect to Kafka…", None),
    (MenuId::NewTopic, "New Topic…", Some("CmdOrCtrl+Shift+N")),
    (MenuId::Import, "Import…", Some("CmdOrCtrl+I")),
    (MenuId::Export, "Export…", Some("CmdOrCtrl+E")),
    (MenuId::Settings, "Settings…", Some("CmdOrCtrl+Comma")),
    (MenuId::CopyMessage, "Copy Message", Some("CmdOrCtrl+Shift+C")),
    (MenuId::CopyJson, "Copy as JSON", Some("CmdOrCtrl+Shift+J")),
    (MenuId::CopyRawLine, "Copy Raw Line", Some("CmdOrCtrl+Shift+L")),
    (MenuId::Find, "Find…", Some("CmdOrCtrl+F")),
    (MenuId::Theme, "Switch Theme", Some("CmdOrCtrl+Shift+T")),
    (MenuId::TimeZone, "Times in UTC", Some("CmdOrCtrl+Shift+U")),
    (MenuId::FollowTail, "Follow Tail", Some("CmdOrCtrl+Shift+F")),
    (MenuId::DetailPane, "Detail Pane", Some("CmdOrCtrl+D")),
    (MenuId::TopicList, "Topic List", Some("CmdOrCtrl+L")),
    (MenuId::JumpOffset, "Jump to Offset…", Some("CmdOrCtrl+G")),
    (MenuId::JumpTime, "Jump to Time…", Some("CmdOrCtrl+Shift+G")),
    (MenuId::Shortcuts, "Keyboard Shortcuts", Some("F1")),
    (MenuId::About, "About TwainMQ Desktop", None),
];

/// An item's id as the wire and the native menu name it (`open-store`).
pub fn id_str(id: MenuId) -> String {
    serde_json::to_value(id).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default()
}

/// The item of a wire name, if it is one of ours.
pub fn id_of(s: &str) -> Option<MenuId> {
    serde_json::from_value(serde_json::Value::String(s.to_string())).ok()
}

/// The accelerators the UI's key handler matches, by item id (the bindings' `MENU_ACCELERATORS`).
pub fn accelerators() -> serde_json::Value {
    ITEMS.iter().filter_map(|(id, _, acc)| acc.map(|a| (id_str(*id), serde_json::Value::from(a)))).collect::<serde_json::Map<_, _>>().into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_item_has_a_distinct_modified_accelerator_and_a_wire_name() {
        let mut seen = std::collections::HashSet::new();
        for (id, label, acc) in ITEMS {
            assert!(!label.is_empty());
            assert_eq!(id_of(&id_str(*id)), Some(*id), "{id:?} round-trips by name");
            if let Some(a) = acc {
                assert!(seen.insert(*a), "{a} is given twice");
                assert!(a.contains('+') || a.starts_with('F'), "{a}: a bare key would be taken from text fields");
            }
        }
        for reserved in ["CmdOrCtrl+N", "CmdOrCtrl+W", "CmdOrCtrl+Q", "CmdOrCtrl+C", "CmdOrCtrl+V", "CmdOrCtrl+X", "CmdOrCtrl+A"] {
            assert!(!seen.contains(reserved), "{reserved} is the window's or the platform's");
        }
        assert_eq!(accelerators()["open-store"], "CmdOrCtrl+O");
    }
}
