//! The app's versions: `twainmq-desktop --version` and the About dialog's
//! `about` command say the same thing, from the same constants.

use twainmq::version;

use super::wire::About;

/// This app's version: the workspace's, so it is also `twainmq --version`'s.
pub const APP_VERSION: &str = env!("CARGO_PKG_VERSION");

/// The versions the About dialog shows.
pub fn about_info() -> About {
    About { app_version: APP_VERSION.into(), engine_version: version::ENGINE.into(), compat: version::COMPATIBLE.into() }
}

/// What `twainmq-desktop --version` prints:
/// `twainmq-desktop 0.1.0 (engine 0.1.0, reads and writes twainmq 0.2.3 stores)`.
pub fn version_line() -> String {
    format!("twainmq-desktop {}", version::describe(APP_VERSION))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn repo_file(path: &str) -> String {
        std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(path)).expect(path)
    }

    #[test]
    fn the_version_line_names_app_engine_and_compatibility() {
        assert_eq!(
            version_line(),
            format!("twainmq-desktop {APP_VERSION} (engine {}, reads and writes twainmq 0.2.3 stores)", version::ENGINE)
        );
    }

    #[test]
    fn about_says_what_the_version_line_says() {
        let a = about_info();
        assert_eq!(a.compat, "0.2.3");
        assert_eq!(
            version_line(),
            format!("twainmq-desktop {} (engine {}, reads and writes twainmq {} stores)", a.app_version, a.engine_version, a.compat)
        );
    }

    #[test]
    fn the_bundle_carries_the_workspace_version() {
        // tauri.conf.json names the version the .deb, .msi and .dmg are built
        // with; a package saying 0.1.0 around a 0.2.0 binary would be untrue.
        let conf: serde_json::Value = serde_json::from_str(&repo_file("src-tauri/tauri.conf.json")).expect("tauri.conf.json is JSON");
        assert_eq!(conf["version"].as_str(), Some(APP_VERSION));
        assert_eq!(version::ENGINE, APP_VERSION, "one workspace version for the engine, the app and the CLI");
    }
}
