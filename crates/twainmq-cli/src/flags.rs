//! Parsers for the numeric flags, used as clap value parsers: every value out
//! of range is refused when the command line is read, with a message naming
//! the value and the accepted range (clap adds the flag's name), before
//! anything is opened or written.
//!
//! Why bounds: `Duration::from_secs_f64` panics on infinity, NaN and values
//! past `u64::MAX` seconds, and negative or NaN values silently became 0. A
//! zero round window with a zero auto-round interval made a member open rounds
//! back to back (thousands of group records a second).

use std::time::Duration;

/// Longest `--for`: 10 years of 365 days, in seconds. Anything longer is
/// surely a typo; a deadline this far off still fits every clock.
pub const MAX_FOR_SECS: f64 = 10.0 * 365.0 * 86_400.0;
/// Longest round window and auto-round interval: a day (0.2.3's window is 60 s).
pub const MAX_ROUND_SECS: f64 = 86_400.0;
/// Shortest auto-round interval: a round every 100 ms is already more than any
/// group needs; below that a member would spend its time writing group records.
pub const MIN_AUTO_ROUND_SECS: f64 = 0.1;

/// `text` as a number of seconds in `[min, max]` (or `(0, max]` when
/// `min_exclusive`), as a `Duration`.
fn seconds(text: &str, min: f64, min_exclusive: bool, max: f64) -> Result<Duration, String> {
    let low = if min_exclusive { format!("more than {min}") } else { format!("{min} or more") };
    let range = format!("a number of seconds, {low} and at most {max}");
    let value: f64 = text.trim().parse().map_err(|_| format!("{text:?} is not a number: use {range}"))?;
    // NaN fails every comparison, so it is refused by the first test.
    if !(value.is_finite() && value >= min && value <= max) || (min_exclusive && value <= min) {
        return Err(format!("{text} is out of range: use {range}"));
    }
    Duration::try_from_secs_f64(value).map_err(|e| format!("{text}: {e}: use {range}"))
}

/// `mirror --timeout` and `--lease-timeout`: from 0.1 s to an hour.
pub fn kafka_timeout_secs(text: &str) -> Result<Duration, String> {
    seconds(text, 0.1, false, 3600.0)
}

/// `--for SECONDS`: finite, from 0 to [`MAX_FOR_SECS`].
pub fn for_secs(text: &str) -> Result<Duration, String> {
    seconds(text, 0.0, false, MAX_FOR_SECS).map_err(|e| format!("{e} (10 years)"))
}

/// `--rebalance-window` / `groups rebalance --window`: more than 0, at most a day.
pub fn window_secs(text: &str) -> Result<Duration, String> {
    seconds(text, 0.0, true, MAX_ROUND_SECS).map_err(|e| format!("{e} (a day; 0.2.3 uses 60)"))
}

/// `--auto-round`: from [`MIN_AUTO_ROUND_SECS`] to a day.
pub fn auto_round_secs(text: &str) -> Result<Duration, String> {
    seconds(text, MIN_AUTO_ROUND_SECS, false, MAX_ROUND_SECS).map_err(|e| format!("{e} (a day)"))
}

/// `--commit-every N`: a whole number, 1 or more (0 used to be taken as 1 silently).
pub fn commit_every(text: &str) -> Result<u64, String> {
    match text.trim().parse::<u64>() {
        Ok(n) if n >= 1 => Ok(n),
        _ => Err(format!("{text} is not a whole number of messages of 1 or more: use 1 to commit after every message, or more")),
    }
}

/// A duration such as `30s`, `10m`, `2h`, `1d`, `1h30m`, in seconds (more than 0).
pub fn duration(text: &str) -> Result<f64, String> {
    match twainmq::group::parse_duration_secs(text)? {
        s if s > 0.0 => Ok(s),
        _ => Err(format!("{text} is no time at all: use more than 0, e.g. 30s or 10m")),
    }
}

/// UNIX seconds of a parsed RFC 3339 time (microsecond precision, as timestamps are stored).
pub fn unix_secs(d: &chrono::DateTime<chrono::FixedOffset>) -> f64 {
    d.timestamp_micros() as f64 / 1e6
}

/// An RFC 3339 time (`2026-11-30T12:00:00Z`, `2026-11-30T13:00:00+01:00`) as UNIX seconds.
pub fn rfc3339(text: &str) -> Result<f64, String> {
    chrono::DateTime::parse_from_rfc3339(text.trim())
        .map(|d| unix_secs(&d))
        .map_err(|e| format!("{text:?} is not an RFC 3339 time like 2026-11-30T12:00:00Z ({e})"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn for_accepts_zero_to_ten_years() {
        assert_eq!(for_secs("0"), Ok(Duration::ZERO));
        assert_eq!(for_secs("1.5"), Ok(Duration::from_millis(1500)));
        assert_eq!(for_secs("315360000"), Ok(Duration::from_secs(315_360_000)));
        for bad in ["inf", "-inf", "infinity", "nan", "NaN", "1e300", "-1", "-0.001", "315360001", "", "abc", "1s"] {
            let e = for_secs(bad).expect_err(bad);
            assert!(e.contains("0 or more") && e.contains("315360000"), "{bad}: {e}");
        }
    }

    #[test]
    fn window_is_positive_and_at_most_a_day() {
        assert_eq!(window_secs("60"), Ok(Duration::from_secs(60)));
        assert_eq!(window_secs("0.001"), Ok(Duration::from_millis(1)));
        assert_eq!(window_secs("86400"), Ok(Duration::from_secs(86_400)));
        for bad in ["0", "-0", "-1", "nan", "inf", "86400.5", "1e300"] {
            let e = window_secs(bad).expect_err(bad);
            assert!(e.contains("more than 0") && e.contains("86400"), "{bad}: {e}");
        }
    }

    #[test]
    fn auto_round_is_at_least_a_tenth_of_a_second() {
        assert_eq!(auto_round_secs("0.1"), Ok(Duration::from_millis(100)));
        assert_eq!(auto_round_secs("5"), Ok(Duration::from_secs(5)));
        for bad in ["0", "0.05", "-1", "nan", "inf", "86401"] {
            let e = auto_round_secs(bad).expect_err(bad);
            assert!(e.contains("0.1 or more"), "{bad}: {e}");
        }
    }

    #[test]
    fn commit_every_is_one_or_more() {
        assert_eq!(commit_every("1"), Ok(1));
        assert_eq!(commit_every("100000"), Ok(100_000));
        for bad in ["0", "-1", "1.5", "", "x", "18446744073709551616"] {
            assert!(commit_every(bad).expect_err(bad).contains("1 or more"), "{bad}");
        }
    }
}
