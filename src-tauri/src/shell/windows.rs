//! Windows: the main one from the config, and more made at run time, each with
//! its own session (store). A second launch of the app hands its command line
//! to the running one (single instance), which opens that store in a new
//! window, or, without a path, brings a window to the front.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};

use tauri::{AppHandle, Manager, WebviewUrl, WebviewWindow, WebviewWindowBuilder};

use crate::session::Sessions;
use crate::store::commands::open_path;
use crate::wire::{ErrorCode, ErrorDto};

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
        match open_path(app, &session, &label, path) {
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
    let showing = showing_store(app.state::<Sessions>().open_roots(), &path);
    if let Some(w) = showing.and_then(|label| app.get_webview_window(&label)) {
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

/// The label of the window, among `(label, store root)`, whose store is the folder `path`.
fn showing_store(roots: Vec<(String, PathBuf)>, path: &Path) -> Option<String> {
    let wanted = store_key(path);
    roots.into_iter().find(|(_, root)| store_key(root) == wanted).map(|(label, _)| label)
}

/// A folder's path in one form, for telling whether two paths name the same store: the real path
/// (links and `..` resolved, or, for a folder that is not there, the path made absolute), and on
/// Windows in [`windows_key`]'s form.
fn store_key(path: &Path) -> PathBuf {
    let real = std::fs::canonicalize(path).or_else(|_| std::path::absolute(path)).unwrap_or_else(|_| path.to_path_buf());
    if cfg!(windows) {
        PathBuf::from(windows_key(&real.to_string_lossy()))
    } else {
        real
    }
}

/// A Windows path as a key: `canonicalize`'s verbatim prefix dropped (`\\?\C:\Store` is
/// `C:\Store`, `\\?\UNC\server\share` is `\\server\share`), `/` read as `\`, no trailing
/// separator, and in lower case, since Windows paths are case-insensitive (`c:\store\` is
/// `C:\Store` there). Elsewhere case matters, and this is not used.
fn windows_key(path: &str) -> String {
    let path = path.replace('/', "\\");
    let path = match (path.strip_prefix(r"\\?\UNC\"), path.strip_prefix(r"\\?\")) {
        (Some(share), _) => format!(r"\\{share}"),
        (None, Some(local)) => local.to_string(),
        (None, None) => path,
    };
    path.trim_end_matches('\\').to_lowercase()
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

    #[test]
    fn windows_paths_of_one_folder_have_one_key() {
        let key = windows_key(r"C:\Store");
        for same in [r"c:\store\", r"\\?\C:\Store", r"\\?\c:\STORE\", "C:/Store/"] {
            assert_eq!(windows_key(same), key, "{same}");
        }
        assert_eq!(windows_key(r"\\?\UNC\nas\logs\Store"), windows_key(r"\\NAS\Logs\store"));
        assert_eq!(windows_key(r"C:\Ünïcode"), windows_key(r"c:\üNÏCODE"));
        for other in [r"C:\Store2", r"D:\Store", r"C:\Store\sub", r"\\nas\logs\Store"] {
            assert_ne!(windows_key(other), key, "{other}");
        }
    }

    #[test]
    fn a_second_launch_finds_the_window_of_its_store_by_any_path_to_it() -> std::io::Result<()> {
        let dir = tempfile::tempdir()?;
        let (a, b) = (dir.path().join("a"), dir.path().join("b"));
        std::fs::create_dir(&a)?;
        std::fs::create_dir(&b)?;
        let roots = || vec![("main".to_string(), a.clone()), ("store-1".to_string(), b.clone())];
        assert_eq!(showing_store(roots(), &b), Some("store-1".into()));
        assert_eq!(showing_store(roots(), &dir.path().join("a/../b/")), Some("store-1".into()));
        assert_eq!(showing_store(roots(), &dir.path().join("./a")), Some("main".into()));
        assert_eq!(showing_store(roots(), &dir.path().join("c")), None);
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(&b, dir.path().join("link"))?;
            assert_eq!(showing_store(roots(), &dir.path().join("link")), Some("store-1".into()));
            // A window's store opened by another path than the one given now.
            assert_eq!(showing_store(vec![("store-2".into(), dir.path().join("link/"))], &b), Some("store-2".into()));
        }
        // On Linux a name differing in case is another folder; on Windows, the same one.
        #[cfg(target_os = "linux")]
        assert_eq!(showing_store(roots(), &dir.path().join("B")), None);
        #[cfg(windows)]
        assert_eq!(showing_store(roots(), &dir.path().join("B")), Some("store-1".into()));
        Ok(())
    }
}
