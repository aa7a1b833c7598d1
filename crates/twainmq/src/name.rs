//! Topic and group names: 0.2.3's `^[A-Za-z0-9_.-]+$`, minus the names that
//! escape the store (`.`, `..`) or collide with groups (`--group--*`).

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
}
