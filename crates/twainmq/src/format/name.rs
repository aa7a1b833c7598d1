//! Topic and group names: 0.2.3's `^[A-Za-z0-9_.-]+$`, minus the names that
//! escape the store (`.`, `..`) or collide with groups (`--group--*`).
//!
//! Two levels: [`validate_topic`] / [`validate_group`] accept every name that
//! may be *used* (read, written, deleted), including those 0.2.3 made that we
//! would not make; [`validate_new_topic`] / [`validate_new_group`] add the
//! rules for names we *create*, which refuse names whose files would be taken
//! for something else in the store's root:
//! - a name ending in `.twc` (any case: NTFS and APFS match names without
//!   case, and 0.2.3's listing on Windows too): topic `x.twc` makes a folder
//!   `x.twc` that every listing takes for the config of a topic `x`;
//! - a name starting with `.` and containing `.twc.tmp` (any case): the form
//!   of the temporary file `.{topic}.twc.tmp-{pid}` a config is written to
//!   before its rename. Other names starting with `.` (`...`, `.events`) stay
//!   valid: 0.2.3 accepts and lists them, and nothing of ours uses them;
//! - names Windows cannot hold ([`windows_problem`]): device names (`CON`,
//!   `nul.events`) and trailing dots, on every platform, because stores move
//!   between machines on NTFS disks. A name equal to an existing one but for
//!   case is refused where the store's listing is at hand (`LogDir::create_topic`).

use crate::error::{Error, NameProblem};

/// Longest topic name, in bytes (well under every file system's 255-byte limit
/// once `.twc` or a partition file name is added).
pub const MAX_TOPIC_NAME: usize = 200;
/// Prefix that turns a group name into the name of its topic.
pub const GROUP_PREFIX: &str = "--group--";
/// Longest group name, so that its topic name stays within [`MAX_TOPIC_NAME`].
pub const MAX_GROUP_NAME: usize = MAX_TOPIC_NAME - GROUP_PREFIX.len();

fn check_chars(name: &str, max: usize) -> Result<(), NameProblem> {
    if name.is_empty() {
        return Err(NameProblem::Empty);
    }
    if let Some((index, ch)) = name.chars().enumerate().find(|(_, c)| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-'))) {
        return Err(NameProblem::BadChar { ch, index });
    }
    if name.len() > max {
        return Err(NameProblem::TooLong { len: name.len(), max });
    }
    if name == "." || name == ".." {
        return Err(NameProblem::DotName);
    }
    Ok(())
}

/// Check a user topic name.
///
/// # Errors
/// [`Error::InvalidTopicName`] saying what is wrong.
pub fn validate_topic(name: &str) -> Result<(), Error> {
    check_chars(name, MAX_TOPIC_NAME)
        .and_then(|()| if name.starts_with(GROUP_PREFIX) { Err(NameProblem::GroupPrefix) } else { Ok(()) })
        .map_err(|problem| Error::InvalidTopicName { name: name.to_string(), problem })
}

/// Check a consumer group name.
///
/// # Errors
/// [`Error::InvalidGroupName`] saying what is wrong.
pub fn validate_group(name: &str) -> Result<(), Error> {
    check_chars(name, MAX_GROUP_NAME).map_err(|problem| Error::InvalidGroupName { name: name.to_string(), problem })
}

/// Names that may be read: user topics and group logs (`--group--` and a valid
/// group name), nothing that escapes the store.
///
/// # Errors
/// [`Error::InvalidTopicName`] for a name no topic or group log can have.
pub fn validate_readable(topic: &str) -> Result<(), Error> {
    match validate_topic(topic) {
        Err(Error::InvalidTopicName { problem: NameProblem::GroupPrefix, .. }) => validate_group(&topic[GROUP_PREFIX.len()..])
            .map_err(|_| Error::InvalidTopicName { name: topic.to_string(), problem: NameProblem::GroupPrefix }),
        other => other,
    }
}

/// Whether `name` ends in `.twc`, in any case.
fn has_config_suffix(name: &str) -> bool {
    let suffix = ".twc";
    name.len() >= suffix.len()
        && name.is_char_boundary(name.len() - suffix.len())
        && name[name.len() - suffix.len()..].eq_ignore_ascii_case(suffix)
}

/// Whether `name` has the form of the store's temporary config files,
/// `.{topic}.twc.tmp-{pid}` (compared without case).
fn is_temp_name(name: &str) -> bool {
    name.starts_with('.') && name.to_ascii_lowercase().contains(".twc.tmp")
}

/// The device names Windows reserves (COM0 and LPT0 are in its documentation
/// too; the superscript forms cannot be written with our characters).
const WINDOWS_DEVICES: &[&str] = &[
    "CON", "PRN", "AUX", "NUL", "COM0", "COM1", "COM2", "COM3", "COM4", "COM5", "COM6", "COM7", "COM8", "COM9", "LPT0", "LPT1", "LPT2",
    "LPT3", "LPT4", "LPT5", "LPT6", "LPT7", "LPT8", "LPT9",
];

/// Why Windows cannot hold a file or folder named `name` (one path
/// component), if it cannot: a device name alone or before a dot (`nul`,
/// `Con.events`), in any case; a trailing dot (or space), which Windows drops.
pub fn windows_problem(name: &str) -> Option<NameProblem> {
    let base = name.split('.').next().unwrap_or(name).trim_end_matches(' ');
    if let Some(device) = WINDOWS_DEVICES.iter().find(|d| d.eq_ignore_ascii_case(base)) {
        return Some(NameProblem::WindowsDevice { device: (*device).to_string() });
    }
    if name.ends_with('.') || name.ends_with(' ') {
        return Some(NameProblem::TrailingDot);
    }
    None
}

/// The rules for a name about to be created, on top of those for any name.
fn check_new(name: &str) -> Result<(), NameProblem> {
    if has_config_suffix(name) {
        return Err(NameProblem::ConfigSuffix);
    }
    if is_temp_name(name) {
        return Err(NameProblem::TempName);
    }
    if let Some(problem) = windows_problem(name) {
        return Err(problem);
    }
    Ok(())
}

/// Check the name of a topic about to be created: [`validate_topic`], and
/// not ending in `.twc` nor of the form of a temporary file (see the module
/// documentation), nor a name Windows cannot hold ([`windows_problem`]).
/// Topics 0.2.3 made with such names can still be used (on Windows, those
/// Windows cannot hold are reported, not opened).
///
/// # Errors
/// [`Error::InvalidTopicName`] saying what is wrong.
pub fn validate_new_topic(name: &str) -> Result<(), Error> {
    validate_topic(name)?;
    check_new(name).map_err(|problem| Error::InvalidTopicName { name: name.to_string(), problem })
}

/// Check the name of a consumer group about to be created: [`validate_group`],
/// and not ending in `.twc` (its folder `--group--NAME.twc` would be taken for
/// the config of a group `NAME`) nor of the form of a temporary file, nor a
/// name Windows cannot hold (the same rules as topics', so a group and the
/// files named after it travel as topics do).
///
/// # Errors
/// [`Error::InvalidGroupName`] saying what is wrong.
pub fn validate_new_group(name: &str) -> Result<(), Error> {
    validate_group(name)?;
    check_new(name).map_err(|problem| Error::InvalidGroupName { name: name.to_string(), problem })
}

/// The topic that holds group `group`'s log.
pub fn group_topic(group: &str) -> String {
    format!("{GROUP_PREFIX}{group}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn problem(name: &str) -> Option<NameProblem> {
        match validate_topic(name) {
            Ok(()) => None,
            Err(Error::InvalidTopicName { problem, .. }) => Some(problem),
            Err(e) => panic!("unexpected {e}"),
        }
    }

    #[test]
    fn topic_names() {
        assert_eq!(problem("events"), None);
        assert_eq!(problem("a.b-c_D9"), None);
        assert_eq!(problem("..."), None);
        assert_eq!(problem(""), Some(NameProblem::Empty));
        assert_eq!(problem("."), Some(NameProblem::DotName));
        assert_eq!(problem(".."), Some(NameProblem::DotName));
        assert_eq!(problem("a/b"), Some(NameProblem::BadChar { ch: '/', index: 1 }));
        assert_eq!(problem("a\\b"), Some(NameProblem::BadChar { ch: '\\', index: 1 }));
        assert_eq!(problem("ünï"), Some(NameProblem::BadChar { ch: 'ü', index: 0 }));
        assert_eq!(problem("a b"), Some(NameProblem::BadChar { ch: ' ', index: 1 }));
        assert_eq!(problem("--group--x"), Some(NameProblem::GroupPrefix));
        assert_eq!(problem(&"x".repeat(200)), None);
        assert_eq!(problem(&"x".repeat(201)), Some(NameProblem::TooLong { len: 201, max: 200 }));
        assert!(validate_group("workers").is_ok());
        assert!(validate_group("..").is_err());
        assert!(validate_group(&"g".repeat(192)).is_err());
    }

    fn new_problem(name: &str) -> Option<NameProblem> {
        match validate_new_topic(name) {
            Ok(()) => None,
            Err(Error::InvalidTopicName { problem, .. }) => Some(problem),
            Err(e) => panic!("unexpected {e}"),
        }
    }

    #[test]
    fn new_topic_names() {
        // Names 0.2.3 users use stay valid, dots included.
        for ok in ["events", "a.b-c_D9", ".events", "-lead", "x.twcx", "twc", ".twcfoo", "a.tw", "a.twc.b", "x.tmp"] {
            assert_eq!(new_problem(ok), None, "{ok}");
            assert!(validate_new_group(ok).is_ok(), "{ok}");
        }
        for bad in ["x.twc", "x.TWC", "x.Twc", ".twc", "a.b.twc", "--x.twc"] {
            assert_eq!(new_problem(bad), Some(NameProblem::ConfigSuffix), "{bad}");
            assert!(matches!(validate_new_group(bad), Err(Error::InvalidGroupName { problem: NameProblem::ConfigSuffix, .. })), "{bad}");
            // Still usable when it exists (0.2.3 made it): reading, writing, deleting.
            assert_eq!(problem(bad), None, "{bad}");
        }
        for bad in [".x.twc.tmp-123", ".X.TWC.TMP-1", "..twc.tmp", ".--group--g.twc.tmp-7"] {
            assert_eq!(new_problem(bad), Some(NameProblem::TempName), "{bad}");
        }
        // The rules for any name come first.
        assert_eq!(new_problem(".."), Some(NameProblem::DotName));
        assert_eq!(new_problem("--group--x.twc"), Some(NameProblem::GroupPrefix));
        assert_eq!(new_problem(""), Some(NameProblem::Empty));
        assert!(NameProblem::ConfigSuffix.to_string().contains(".twc"));
        assert!(NameProblem::TempName.to_string().contains("temporary"));
    }

    #[test]
    fn names_windows_cannot_hold_are_refused_for_new_topics_and_groups_everywhere() {
        let device = |d: &str| Some(NameProblem::WindowsDevice { device: d.to_string() });
        for (name, d) in [
            ("CON", "CON"),
            ("con", "CON"),
            ("Nul", "NUL"),
            ("aux.events", "AUX"),
            ("PRN.x.y", "PRN"),
            ("com1", "COM1"),
            ("COM9.log", "COM9"),
            ("lpt5", "LPT5"),
            ("LPT0", "LPT0"),
            ("com0", "COM0"),
        ] {
            assert_eq!(new_problem(name), device(d), "{name}");
            assert!(
                matches!(validate_new_group(name), Err(Error::InvalidGroupName { problem: NameProblem::WindowsDevice { .. }, .. })),
                "{name}"
            );
            // Still a valid name to use where the file can be opened (0.2.3 on Linux may have made it).
            assert_eq!(problem(name), None, "{name}");
            assert!(NameProblem::WindowsDevice { device: d.into() }.to_string().contains("Windows"));
        }
        for fine in ["console", "nul_", "com10", "lpt", "com", "auxiliary", "x.con", "CONx", "prn-1", "events.nul"] {
            assert_eq!(new_problem(fine), None, "{fine}");
            assert!(validate_new_group(fine).is_ok(), "{fine}");
        }
        for dotted in ["a.", "events..", "...", "x.y."] {
            assert_eq!(new_problem(dotted), Some(NameProblem::TrailingDot), "{dotted}");
            assert!(matches!(validate_new_group(dotted), Err(Error::InvalidGroupName { problem: NameProblem::TrailingDot, .. })));
        }
        assert_eq!(windows_problem("a "), Some(NameProblem::TrailingDot));
        assert_eq!(windows_problem("--group--CON"), None, "a group's folder name is not a device");
        assert_eq!(windows_problem("--group--g."), Some(NameProblem::TrailingDot));
    }
}
