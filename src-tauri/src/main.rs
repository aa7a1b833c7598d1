// No console window on Windows release builds.
#![cfg_attr(all(not(debug_assertions), target_os = "windows"), windows_subsystem = "windows")]

use std::process::ExitCode;

/// WebKitGTK composites the page with OpenGL. Without a GPU (no DRM render node: virtual
/// machines, remote desktops, Xvfb) that GL is Mesa's llvmpipe, a second renderer on the CPU:
/// about 80 MB more in the web process and half its CPU while the table follows a busy log
/// (`make bench-app`). There, compositing is turned off; the table does not need it.
/// `TWAINMQ_GPU=1` keeps it on, `TWAINMQ_GPU=0` turns it off anyway, and a
/// `WEBKIT_DISABLE_COMPOSITING_MODE` the user set is left alone. Called first, before any
/// thread exists; WebKit's processes inherit the variable.
#[cfg(target_os = "linux")]
fn webkit_rendering_defaults() {
    if std::env::var_os("WEBKIT_DISABLE_COMPOSITING_MODE").is_some() {
        return;
    }
    let software_gl = std::env::var("LIBGL_ALWAYS_SOFTWARE").is_ok_and(|v| !v.is_empty() && v != "0") || !has_render_node();
    let off = match std::env::var("TWAINMQ_GPU").as_deref() {
        Ok("1") => false,
        Ok("0") => true,
        _ => software_gl,
    };
    if off {
        std::env::set_var("WEBKIT_DISABLE_COMPOSITING_MODE", "1");
    }
}

/// Whether the kernel offers a GPU for rendering (`/dev/dri/renderD*`).
#[cfg(target_os = "linux")]
fn has_render_node() -> bool {
    std::fs::read_dir("/dev/dri").is_ok_and(|d| d.flatten().any(|e| e.file_name().to_string_lossy().starts_with("renderD")))
}

const USAGE: &str = "Usage: twainmq-desktop [STORE]

Opens the TwainMQ store in the folder STORE, or the start screen without one.

Options:
  -V, --version   print the app's, the engine's and the twainmq 0.2.3 compatibility's versions
  -h, --help      print this help
  --              the next argument is STORE, even if it starts with '-'";

/// What the command line asks for. Only the first argument decides: the app
/// takes one store, and a file manager's "Open with" passes one folder.
#[derive(Debug, PartialEq)]
enum Invocation {
    Run(Option<String>),
    Version,
    Help,
    /// A mistake on the command line: said on stderr, exit status 2, no window.
    Usage(String),
}

fn parse(args: impl IntoIterator<Item = std::ffi::OsString>) -> Invocation {
    // A path that is not UTF-8 cannot reach the webview, which shows and
    // passes paths as strings: refused by name rather than mangled.
    let mut args = args.into_iter().map(|a| a.into_string().map_err(|a| a.to_string_lossy().into_owned()));
    let first = match args.next() {
        None => return Invocation::Run(None),
        Some(Ok(a)) => a,
        Some(Err(lossy)) => {
            return Invocation::Usage(format!(
                "the path {lossy:?} is not valid UTF-8, which the app cannot show or pass on; rename the folder (or the folders above it)"
            ))
        }
    };
    let mut next = || match args.next() {
        Some(Ok(a)) => Ok(Some(a)),
        Some(Err(lossy)) => Err(Invocation::Usage(format!("{lossy:?} is not valid UTF-8"))),
        None => Ok(None),
    };
    match first.as_str() {
        "-V" | "--version" => Invocation::Version,
        "-h" | "--help" => Invocation::Help,
        "--" => match next() {
            Ok(store) => Invocation::Run(store),
            Err(e) => e,
        },
        // macOS (before 10.9) gave apps started from the Finder a process serial number.
        a if cfg!(target_os = "macos") && a.starts_with("-psn_") => Invocation::Run(None),
        a if a.starts_with('-') && a.len() > 1 => {
            Invocation::Usage(format!("unknown option {a:?} (a folder whose name starts with '-' goes after --)"))
        }
        _ => Invocation::Run(Some(first)),
    }
}

/// Windows release builds are GUI programs (`windows_subsystem` above): started from cmd or
/// PowerShell, they have no standard output or error, and what they print is lost. Before printing
/// the version, the help or an error, they attach to the console of the program that started them,
/// if it has one. The shell does not wait for a GUI program, so the text comes after its next
/// prompt, as with any GUI program that prints. Handles the process already has (output redirected
/// to a file or a pipe, or a console program: debug builds) are kept, since `AttachConsole` would
/// replace them with the console's. Elsewhere, nothing to do.
#[cfg(windows)]
#[allow(unsafe_code, reason = "Win32 calls with no safe wrapper in windows-sys; the only unsafe code in the app")]
fn attach_parent_console() {
    use windows_sys::Win32::System::Console::{
        AttachConsole, GetStdHandle, SetStdHandle, ATTACH_PARENT_PROCESS, STD_ERROR_HANDLE, STD_INPUT_HANDLE, STD_OUTPUT_HANDLE,
    };
    let ids = [STD_INPUT_HANDLE, STD_OUTPUT_HANDLE, STD_ERROR_HANDLE];
    // SAFETY: the three functions take plain values (handle ids, a process-id constant, and
    // handles GetStdHandle returned, put back unchanged) and no pointers, so they cannot touch
    // our memory; they read and set this process's standard handle table, which Rust's std
    // reads again on every write. A call that fails leaves the table as it was.
    unsafe {
        let before = ids.map(|id| GetStdHandle(id));
        if before.iter().all(|h| !h.is_null()) || AttachConsole(ATTACH_PARENT_PROCESS) == 0 {
            return;
        }
        for (id, handle) in ids.into_iter().zip(before) {
            if !handle.is_null() {
                SetStdHandle(id, handle);
            }
        }
    }
}

#[cfg(not(windows))]
fn attach_parent_console() {}

fn main() -> ExitCode {
    let invocation = parse(std::env::args_os().skip(1));
    if matches!(invocation, Invocation::Version | Invocation::Help | Invocation::Usage(_)) {
        attach_parent_console();
    }
    match &invocation {
        Invocation::Version => {
            println!("{}", twainmq_desktop::shell::about::version_line());
            return ExitCode::SUCCESS;
        }
        Invocation::Help => {
            println!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        Invocation::Usage(problem) => {
            eprintln!("error: {problem}\n\n{USAGE}");
            return ExitCode::from(2);
        }
        _ => {}
    }
    #[cfg(target_os = "linux")]
    webkit_rendering_defaults();
    // Colour codes only on a terminal: in a log file or a journal they are noise.
    tracing_subscriber::fmt()
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .with_env_filter(tracing_subscriber::EnvFilter::try_from_env("TWAINMQ_LOG").unwrap_or_else(|_| "warn".into()))
        .init();
    let result = match invocation {
        Invocation::Run(store) => twainmq_desktop::run(store).map_err(|e| e.to_string()),
        Invocation::Version | Invocation::Help | Invocation::Usage(_) => Ok(()),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            attach_parent_console();
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests {
    use std::ffi::OsString;

    use super::{parse, Invocation};

    fn p(args: &[&str]) -> Invocation {
        parse(args.iter().map(OsString::from))
    }

    #[test]
    fn a_store_path_or_none_starts_the_app() {
        assert_eq!(p(&[]), Invocation::Run(None));
        assert_eq!(p(&["/data/store"]), Invocation::Run(Some("/data/store".into())));
        assert_eq!(p(&["relative dir"]), Invocation::Run(Some("relative dir".into())));
        assert_eq!(p(&["-"]), Invocation::Run(Some("-".into())));
        assert_eq!(p(&["--", "-odd-name"]), Invocation::Run(Some("-odd-name".into())));
        assert_eq!(p(&["--"]), Invocation::Run(None));
    }

    #[test]
    fn version_and_help_do_not_start_the_app() {
        assert_eq!(p(&["--version"]), Invocation::Version);
        assert_eq!(p(&["-V"]), Invocation::Version);
        assert_eq!(p(&["--help"]), Invocation::Help);
        assert_eq!(p(&["-h", "/data/store"]), Invocation::Help);
    }

    #[test]
    fn developer_options_are_not_the_apps() {
        // The bindings' generator and the UI fixture's recorder are `cargo xtask`'s, not in the product.
        for dev in ["--export-bindings", "--record-ui-fixture"] {
            let Invocation::Usage(m) = p(&[dev]) else { panic!("{dev} is taken") };
            assert!(m.contains(dev), "{m}");
        }
    }

    #[test]
    fn an_unknown_option_is_refused_not_opened_as_a_store() {
        let Invocation::Usage(m) = p(&["--verison"]) else { panic!("not refused") };
        assert!(m.contains("--verison") && m.contains("--"), "{m}");
    }

    #[cfg(unix)]
    #[test]
    fn a_path_that_is_not_utf8_is_refused_by_name() {
        use std::os::unix::ffi::OsStringExt;
        let Invocation::Usage(m) = parse([OsString::from_vec(b"/data/st\xffre".to_vec())]) else { panic!("not refused") };
        assert!(m.contains("not valid UTF-8") && m.contains("/data/st"), "{m}");
    }
}
