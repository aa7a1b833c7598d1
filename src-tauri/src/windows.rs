//! Windows: the main one from the config, and more made at run time, each with
//! its own session (store). A second launch of the app hands its command line
//! to the running one (single instance), which opens that store in a new
//! window, or, without a path, brings a window to the front.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};

use tauri::{AppHandle, Manager, WebviewUrl, WebviewWindow, WebviewWindowBuilder};

use crate::session::Sessions;
use crate::transport::{ErrorCode, ErrorDto};

/// Labels of windows made at run time: `store-1`, `store-2`, ... (the
/// capability file grants our commands to `main` and `store-*`).
pub const EXTRA_PREFIX: &str = "store-";

static NEXT: AtomicU32 = AtomicU32::new(1);

fn next_label(app: &AppHandle) -> String {
    loop {
        let label = format!("{EXTRA_PREFIX}{}", NEXT.fetch_add(1, Ordering::Relaxed));
        if app.get_webview_window(&label).is_none() {
            return label;
        }
    }
}

/// A new window, with `store` (when given) open in it before its page loads.
/// A store that cannot be opened still gets its window, which says why on
/// its welcome screen (the error is kept for the page to ask for).
pub fn open_window(app: &AppHandle, store: Option<&str>) -> Result<WebviewWindow, ErrorDto> {
    let label = next_label(app);
    let mut title = "TwainMQ Desktop".to_string();
    if let Some(path) = store {
        let session = app.state::<Sessions>().get(&label);
        match crate::commands::open_path(app, &session, &label, path) {
            Ok(info) => title = format!("{} — TwainMQ Desktop", info.root),
            Err(e) => session.set_launch_error(path, e),
        }
    }
    // `#fresh`: a window opened empty shows the welcome screen (the last store does not reopen in it).
    let page = if store.is_some() { "index.html" } else { "index.html#fresh" };
    WebviewWindowBuilder::new(app, &label, WebviewUrl::App(page.into()))
        .title(title)
        .inner_size(1280.0, 800.0)
        .min_inner_size(900.0, 560.0)
        .build()
        .map_err(|e| ErrorDto::new(ErrorCode::Internal, format!("could not open a new window: {e}")))
}

/// The store path in a forwarded command line (`twainmq-desktop [PATH]`),
/// made absolute against the second launch's working folder.
pub fn forwarded_path(argv: &[String], cwd: &str) -> Option<PathBuf> {
    // As main.rs reads it: the first argument that is not an option, or the one after `--`.
    let mut rest = argv.iter().skip(1);
    let arg = loop {
        let a = rest.next()?;
        if a == "--" {
            break rest.next()?;
        }
        if !a.starts_with('-') {
            break a;
        }
    };
    let p = Path::new(arg);
    Some(if p.is_absolute() { p.to_path_buf() } else { Path::new(cwd).join(p) })
}

/// A second launch: its store in a new window (or, if a window already shows
/// that store, that window to the front); no path: the newest window to the front.
pub fn on_second_launch(app: &AppHandle, argv: Vec<String>, cwd: String) {
    let Some(path) = forwarded_path(&argv, &cwd) else {
        focus_any(app);
        return;
    };
    let wanted = std::fs::canonicalize(&path).unwrap_or_else(|_| path.clone());
    let showing = app.state::<Sessions>().open_roots().into_iter().find(|(_, root)| *root == wanted);
    if let Some(w) = showing.and_then(|(label, _)| app.get_webview_window(&label)) {
        let _ = w.unminimize();
        let _ = w.set_focus();
        return;
    }
    // Opening counts the lines of every file: off the event loop.
    let handle = app.clone();
    let path = path.display().to_string();
    std::thread::spawn(move || {
        if let Err(e) = open_window(&handle, Some(&path)) {
            tracing::error!(path, error = %e.message, "could not open a window for the store of a second launch");
        }
    });
}

fn focus_any(app: &AppHandle) {
    if let Some(w) = app.webview_windows().into_values().next() {
        let _ = w.unminimize();
        let _ = w.set_focus();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(a: &[&str]) -> Vec<String> {
        a.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn a_relative_path_is_taken_from_the_second_launch_folder() {
        assert_eq!(forwarded_path(&argv(&["app", "store"]), "/home/u/work"), Some(PathBuf::from("/home/u/work/store")));
        assert_eq!(forwarded_path(&argv(&["app", "/abs/s"]), "/x"), Some(PathBuf::from("/abs/s")));
        assert_eq!(forwarded_path(&argv(&["app"]), "/x"), None);
        assert_eq!(forwarded_path(&argv(&["app", "--flag", "s"]), "/x"), Some(PathBuf::from("/x/s")));
        assert_eq!(forwarded_path(&argv(&["app", "--", "-odd"]), "/x"), Some(PathBuf::from("/x/-odd")));
    }
}
