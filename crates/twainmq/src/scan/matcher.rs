//! What a search matches in a payload: plain text (case folded or not), a
//! regular expression, or anything.

use crate::error::{Error, Result};
use crate::format::payload::Payload;

use super::{searchable_text, Query};

/// The payload condition of a query, built once.
pub(crate) enum Matcher {
    Any,
    /// The needle (lower-cased unless case-sensitive) and its searcher, built once.
    Plain {
        needle: String,
        finder: Box<memchr::memmem::Finder<'static>>,
        case_sensitive: bool,
    },
    Regex(regex::Regex),
}

impl Matcher {
    /// The matcher for `query`'s text.
    ///
    /// # Errors
    /// [`Error::InvalidRegex`] for a bad pattern.
    pub(crate) fn new(query: &Query) -> Result<Matcher> {
        Ok(match &query.text {
            None => Matcher::Any,
            Some(t) if t.is_empty() => Matcher::Any,
            Some(t) if query.regex => Matcher::Regex(
                regex::RegexBuilder::new(t)
                    .case_insensitive(!query.case_sensitive)
                    .size_limit(1 << 22)
                    .build()
                    .map_err(|e| Error::InvalidRegex { pattern: t.clone(), reason: e.to_string() })?,
            ),
            Some(t) => {
                let needle = if query.case_sensitive { t.clone() } else { t.to_lowercase() };
                let finder = Box::new(memchr::memmem::Finder::new(needle.as_bytes()).into_owned());
                Matcher::Plain { needle, finder, case_sensitive: query.case_sensitive }
            }
        })
    }

    /// Whether the matcher needs the payload at all.
    pub(crate) fn is_any(&self) -> bool {
        matches!(self, Matcher::Any)
    }

    /// Whether `payload` matches; `lowered` is scratch space kept between calls.
    pub(crate) fn is_match(&self, payload: &Payload, lowered: &mut Vec<u8>) -> bool {
        match self {
            Matcher::Any => true,
            Matcher::Plain { needle, finder, case_sensitive } => {
                let text = searchable_text(payload);
                if *case_sensitive {
                    finder.find(text.as_bytes()).is_some()
                } else if text.is_ascii() {
                    // ASCII lower-cases byte for byte, into a buffer kept between messages.
                    lowered.clear();
                    lowered.extend(text.bytes().map(|b| b.to_ascii_lowercase()));
                    finder.find(lowered).is_some()
                } else {
                    text.to_lowercase().contains(needle.as_str())
                }
            }
            Matcher::Regex(re) => re.is_match(&searchable_text(payload)),
        }
    }
}
