//! Why a topic or group name was refused: the detail of
//! [`Error::InvalidTopicName`](crate::Error::InvalidTopicName) and
//! [`Error::InvalidGroupName`](crate::Error::InvalidGroupName).

/// Why a topic or group name was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum NameProblem {
    /// The name is empty.
    Empty,
    /// The name is longer than the limit (in bytes).
    TooLong {
        /// The name's length in bytes.
        len: usize,
        /// The limit: [`crate::limits::MAX_TOPIC_NAME`] or [`crate::limits::MAX_GROUP_NAME`].
        max: usize,
    },
    /// A character outside `A-Z a-z 0-9 _ . -`.
    BadChar {
        /// The first character refused.
        ch: char,
        /// Its position, in characters from 0 (not bytes).
        index: usize,
    },
    /// `.` or `..`, which would escape the store folder.
    DotName,
    /// A topic name starting with `--group--`, reserved for consumer groups.
    GroupPrefix,
    /// A new name ending in `.twc` (in any case): its folder would be taken
    /// for the config of the topic named without the suffix.
    ConfigSuffix,
    /// A new name of the form `.NAME.twc.tmp-N`, the store's temporary config files.
    TempName,
    /// A name Windows opens as a device (`CON`, `PRN`, `AUX`, `NUL`,
    /// `COM0`-`COM9`, `LPT0`-`LPT9`), alone or before a dot, in any case:
    /// refused for new names everywhere (stores move between machines on
    /// NTFS disks); on Windows a store's topic of that name is not opened.
    WindowsDevice {
        /// The device it names, upper-cased (`NUL`).
        device: String,
    },
    /// A name ending in a dot: Windows drops trailing dots from file names, so
    /// topic `a.` would use the folder of topic `a`.
    TrailingDot,
    /// A new name equal to an existing topic's or group's but for case: one
    /// folder on a disk that ignores case (NTFS, APFS), two topics elsewhere.
    CaseTwin {
        /// The existing name.
        existing: String,
    },
}

impl std::fmt::Display for NameProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NameProblem::Empty => write!(f, "it is empty"),
            NameProblem::TooLong { len, max } => write!(f, "it is {len} bytes long, over the limit of {max}"),
            NameProblem::BadChar { ch, index } => write!(f, "character {ch:?} at position {index} is not allowed"),
            NameProblem::DotName => write!(f, "\".\" and \"..\" name folders outside the topic"),
            NameProblem::GroupPrefix => write!(f, "names starting with \"--group--\" are reserved for consumer groups"),
            NameProblem::ConfigSuffix => write!(
                f,
                "a new name may not end in \".twc\" (in any case): its folder would look like the config file of the topic named without it. Drop or change the suffix"
            ),
            NameProblem::TempName => write!(
                f,
                "names starting with \".\" and containing \".twc.tmp\" are the store's temporary files. Pick another name"
            ),
            NameProblem::WindowsDevice { device } => write!(
                f,
                "{device} (alone or before a dot, in any case) is a device name on Windows, where such a file cannot be made or opened; stores move between machines, so pick another name"
            ),
            NameProblem::TrailingDot => {
                write!(f, "Windows drops a name's trailing dots, so the topic would share another's folder there; drop the dot")
            }
            NameProblem::CaseTwin { existing } => write!(
                f,
                "the store has {existing:?}, the same name but for case: on disks that ignore case (NTFS, macOS) both would be one folder. Use {existing:?} or another name"
            ),
        }
    }
}
