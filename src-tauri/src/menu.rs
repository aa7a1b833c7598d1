//! The native menu bar. Every item of ours has a [`MenuId`]; choosing one
//! sends a [`MenuAction`] to the focused window, whose UI runs the same action
//! as its keyboard shortcut (the UI takes the accelerators from the bindings'
//! `MENU_ACCELERATORS`, so both routes stay one). Window-level items (New
//! Window, Close, Quit) are done here.

use std::sync::Mutex;

use serde::{Deserialize, Serialize};
use specta::Type;
use tauri::menu::{CheckMenuItem, Menu, MenuBuilder, MenuEvent, MenuItem, PredefinedMenuItem, Submenu, SubmenuBuilder};
use tauri::{AppHandle, Manager, Runtime};
use tauri_specta::Event;

/// The menu items the UI acts on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Type)]
#[serde(rename_all = "kebab-case")]
pub enum MenuId {
    OpenStore,
    OpenRecent,
    NewTopic,
    Import,
    Export,
    Settings,
    CopyMessage,
    CopyJson,
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

/// Our items: id, label, accelerator (Tauri's syntax; `CmdOrCtrl` is Cmd on
/// macOS, Ctrl elsewhere). No item has a bare-key accelerator: a native one
/// would take the key from text fields (`/`, `?`, `G` are the UI's own).
pub const ITEMS: &[(MenuId, &str, Option<&str>)] = &[
    (MenuId::OpenStore, "Open Store…", Some("CmdOrCtrl+O")),
    (MenuId::NewTopic, "New Topic…", Some("CmdOrCtrl+Shift+N")),
    (MenuId::Import, "Import…", Some("CmdOrCtrl+I")),
    (MenuId::Export, "Export…", Some("CmdOrCtrl+E")),
    (MenuId::Settings, "Settings…", Some("CmdOrCtrl+Comma")),
    (MenuId::CopyMessage, "Copy Message", Some("CmdOrCtrl+Shift+C")),
    (MenuId::CopyJson, "Copy as JSON", Some("CmdOrCtrl+Shift+J")),
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

const NEW_WINDOW: &str = "new-window";
const CLOSE_WINDOW: &str = "close-window";
const QUIT: &str = "quit";
const RECENT_PREFIX: &str = "recent:";
const NO_RECENT: &str = "recent-none";

fn id_str(id: MenuId) -> String {
    serde_json::to_value(id).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default()
}

fn id_of(s: &str) -> Option<MenuId> {
    serde_json::from_value(serde_json::Value::String(s.to_string())).ok()
}

/// The accelerators the UI's key handler matches, by item id.
pub fn accelerators() -> serde_json::Value {
    ITEMS.iter().filter_map(|(id, _, acc)| acc.map(|a| (id_str(*id), serde_json::Value::from(a)))).collect::<serde_json::Map<_, _>>().into()
}

fn item<R: Runtime>(app: &AppHandle<R>, id: MenuId) -> tauri::Result<MenuItem<R>> {
    let (_, label, acc) = ITEMS.iter().find(|(i, _, _)| *i == id).copied().unwrap_or((id, "", None));
    MenuItem::with_id(app, id_str(id), label, true, acc)
}

/// The View menu's toggles: shown with a check mark, kept in step with the focused window by
/// [`set_checks`] (the UI reports its state; a click toggles the mark and the UI's state alike).
pub const CHECK_ITEMS: [MenuId; 3] = [MenuId::TimeZone, MenuId::FollowTail, MenuId::DetailPane];

fn check_item<R: Runtime>(app: &AppHandle<R>, id: MenuId) -> tauri::Result<CheckMenuItem<R>> {
    let (_, label, acc) = ITEMS.iter().find(|(i, _, _)| *i == id).copied().unwrap_or((id, "", None));
    // Follow Tail and Detail Pane need a topic's Messages tab: off until the UI says it shows one.
    CheckMenuItem::with_id(app, id_str(id), label, id == MenuId::TimeZone, id == MenuId::TimeZone, acc)
}

/// A View toggle's state in a window: `None` when it does not apply there (no topic shown).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Type)]
pub struct MenuChecks {
    pub utc: bool,
    pub follow_tail: Option<bool>,
    pub detail_pane: Option<bool>,
}

/// Show `checks` in the menu bar (the focused window's state).
pub fn set_checks<R: Runtime>(app: &AppHandle<R>, checks: MenuChecks) {
    let Some(menu) = app.menu() else { return };
    for (id, state) in
        [(MenuId::TimeZone, Some(checks.utc)), (MenuId::FollowTail, checks.follow_tail), (MenuId::DetailPane, checks.detail_pane)]
    {
        if let Some(item) = menu.get(&id_str(id)).and_then(|i| i.as_check_menuitem().cloned()) {
            let _ = item.set_enabled(state.is_some());
            let _ = item.set_checked(state.unwrap_or(false));
        }
    }
}

/// The Open Recent submenu of the stores in `recent` (newest first).
fn recent_menu<R: Runtime>(app: &AppHandle<R>, recent: &[String]) -> tauri::Result<Submenu<R>> {
    let mut b = SubmenuBuilder::with_id(app, id_str(MenuId::OpenRecent), "Open Recent");
    if recent.is_empty() {
        b = b.item(&MenuItem::with_id(app, NO_RECENT, "No Recent Stores", false, None::<&str>)?);
    }
    for (i, path) in recent.iter().enumerate() {
        b = b.item(&MenuItem::with_id(app, format!("{RECENT_PREFIX}{i}"), path, true, None::<&str>)?);
    }
    b.build()
}

/// The whole menu bar.
pub fn build<R: Runtime>(app: &AppHandle<R>, recent: &[String]) -> tauri::Result<Menu<R>> {
    let file = SubmenuBuilder::new(app, "File")
        .item(&item(app, MenuId::OpenStore)?)
        .item(&recent_menu(app, recent)?)
        .item(&MenuItem::with_id(app, NEW_WINDOW, "New Window", true, Some("CmdOrCtrl+N"))?)
        .item(&MenuItem::with_id(app, CLOSE_WINDOW, "Close Window", true, Some("CmdOrCtrl+W"))?)
        .separator()
        .item(&item(app, MenuId::NewTopic)?)
        .item(&item(app, MenuId::Import)?)
        .item(&item(app, MenuId::Export)?)
        .separator()
        .item(&item(app, MenuId::Settings)?)
        .separator()
        .item(&MenuItem::with_id(app, QUIT, "Quit", true, Some("CmdOrCtrl+Q"))?)
        .build()?;
    // Cut, copy, paste and select all are the platform's (text fields need them).
    let edit = SubmenuBuilder::new(app, "Edit")
        .item(&PredefinedMenuItem::cut(app, None)?)
        .item(&PredefinedMenuItem::copy(app, None)?)
        .item(&PredefinedMenuItem::paste(app, None)?)
        .item(&PredefinedMenuItem::select_all(app, None)?)
        .separator()
        .item(&item(app, MenuId::CopyMessage)?)
        .item(&item(app, MenuId::CopyJson)?)
        .separator()
        .item(&item(app, MenuId::Find)?)
        .build()?;
    let view = SubmenuBuilder::new(app, "View")
        .item(&item(app, MenuId::Theme)?)
        .item(&check_item(app, MenuId::TimeZone)?)
        .separator()
        .item(&check_item(app, MenuId::FollowTail)?)
        .item(&check_item(app, MenuId::DetailPane)?)
        .build()?;
    let go = SubmenuBuilder::new(app, "Go")
        .item(&item(app, MenuId::TopicList)?)
        .item(&item(app, MenuId::JumpOffset)?)
        .item(&item(app, MenuId::JumpTime)?)
        .build()?;
    let help =
        SubmenuBuilder::new(app, "Help").item(&item(app, MenuId::Shortcuts)?).separator().item(&item(app, MenuId::About)?).build()?;
    MenuBuilder::new(app).items(&[&file, &edit, &view, &go, &help]).build()
}

/// The label of the window that last had the focus (menu events name no window).
#[derive(Default)]
pub struct Focus(pub Mutex<Option<String>>);

impl Focus {
    pub fn set(&self, label: &str) {
        *self.0.lock().unwrap_or_else(|p| p.into_inner()) = Some(label.to_string());
    }

    fn target<R: Runtime>(&self, app: &AppHandle<R>) -> Option<String> {
        let last = self.0.lock().unwrap_or_else(|p| p.into_inner()).clone();
        last.filter(|l| app.get_webview_window(l).is_some()).or_else(|| app.webview_windows().into_keys().next())
    }
}

/// A window's look and View toggles, from its UI: its theme (GTK's, which draws the native menu
/// bar, follows the app's dark or light: a white bar over a dark window was issue 24's), and,
/// when it is the focused window, the View menu's check marks.
#[tauri::command]
#[specta::specta]
pub async fn view_state(
    app: AppHandle,
    window: tauri::WebviewWindow,
    dark: bool,
    checks: MenuChecks,
) -> Result<(), crate::transport::ErrorDto> {
    let theme = if dark { tauri::Theme::Dark } else { tauri::Theme::Light };
    if let Err(e) = window.set_theme(Some(theme)) {
        tracing::debug!(error = %e, "could not set the window's theme");
    }
    let focused = app.state::<Focus>().target(&app);
    if focused.as_deref().is_none_or(|l| l == window.label()) {
        set_checks(&app, checks);
    }
    Ok(())
}

/// Keep Open Recent in step with the recent-stores list.
pub fn refresh_recent(app: &AppHandle, recent: &[String]) {
    let Some(menu) = app.menu() else { return };
    let Some(old) = menu.get(&id_str(MenuId::OpenRecent)) else { return };
    let Some(file) = menu.items().ok().and_then(|items| items.into_iter().find_map(|i| i.as_submenu().cloned())) else { return };
    let (Some(old), Ok(new)) = (old.as_submenu().cloned(), recent_menu(app, recent)) else { return };
    let pos = file.items().ok().and_then(|items| items.iter().position(|i| i.id() == old.id()));
    if let Some(pos) = pos {
        let _ = file.remove(&old);
        let _ = file.insert(&new, pos);
    }
}

/// A menu item was chosen.
pub fn on_event(app: &AppHandle, event: MenuEvent) {
    let id = event.id().as_ref();
    let target = app.state::<Focus>().target(app);
    match id {
        NEW_WINDOW => {
            let handle = app.clone();
            std::thread::spawn(move || {
                if let Err(e) = crate::windows::open_window(&handle, None) {
                    tracing::error!(error = %e.message, "could not open a new window");
                }
            });
        }
        CLOSE_WINDOW => {
            if let Some(w) = target.and_then(|l| app.get_webview_window(&l)) {
                let _ = w.close();
            }
        }
        QUIT => app.exit(0),
        _ => {
            let (menu_id, path) = if let Some(i) = id.strip_prefix(RECENT_PREFIX) {
                let recent = app.state::<crate::session::Sessions>().get(target.as_deref().unwrap_or("main")).recent();
                (Some(MenuId::OpenRecent), i.parse::<usize>().ok().and_then(|i| recent.get(i).cloned()))
            } else {
                (id_of(id), None)
            };
            if let (Some(id), Some(label)) = (menu_id, target) {
                if let Err(e) = (MenuAction { id, path }).emit_to(app, label.as_str()) {
                    tracing::warn!(error = %e, "could not send a menu action to the window");
                }
            }
        }
    }
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
