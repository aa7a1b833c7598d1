//! The native menu bar. Every item of ours has a [`MenuId`] (`wire.rs` lists
//! them); choosing one sends a [`MenuAction`] to the focused window, whose UI
//! runs the same action as its keyboard shortcut (the UI takes the
//! accelerators from the bindings' `MENU_ACCELERATORS`, so both routes stay
//! one). Window-level items (New Window, Close, Quit) are done here.

use std::sync::Mutex;

use tauri::menu::{CheckMenuItem, Menu, MenuBuilder, MenuEvent, MenuItem, PredefinedMenuItem, Submenu, SubmenuBuilder};
use tauri::{AppHandle, Manager, Runtime};
use tauri_specta::Event;

use super::wire::{id_of, id_str, MenuAction, MenuChecks, MenuId, ITEMS};

const NEW_WINDOW: &str = "new-window";
const CLOSE_WINDOW: &str = "close-window";
const QUIT: &str = "quit";
const RECENT_PREFIX: &str = "recent:";
const NO_RECENT: &str = "recent-none";

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
        .item(&item(app, MenuId::ConnectKafka)?)
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
        .item(&item(app, MenuId::CopyRawLine)?)
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

    /// The window a menu item is for: the last focused one still open, else any.
    pub fn target<R: Runtime>(&self, app: &AppHandle<R>) -> Option<String> {
        let last = self.0.lock().unwrap_or_else(|p| p.into_inner()).clone();
        last.filter(|l| app.get_webview_window(l).is_some()).or_else(|| app.webview_windows().into_keys().next())
    }
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
                if let Err(e) = super::windows::open_window(&handle, None) {
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
