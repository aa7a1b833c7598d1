//! Python's `repr(float)`, which `json.dumps` writes floats with.

/// Python's `repr(float)`: the shortest round-trip digits, fixed notation for
/// decimal exponents -4..16, otherwise `d.ddde+XX`.
pub fn python_float_repr(v: f64) -> String {
    if !v.is_finite() {
        return if v.is_nan() {
            "NaN".into()
        } else if v > 0.0 {
            "Infinity".into()
        } else {
            "-Infinity".into()
        };
    }
    // `{:e}` gives the shortest round-trip digits as d.ddde<exp>.
    let sci = format!("{v:e}");
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let (sign, mantissa) = mantissa.strip_prefix('-').map_or(("", mantissa), |m| ("-", m));
    let digits: String = mantissa.chars().filter(|c| *c != '.').collect();
    if (-4..16).contains(&exp) {
        // Digits before the decimal point: -3 to 16.
        let point = exp + 1;
        let body = match usize::try_from(point) {
            Err(_) | Ok(0) => format!("0.{}{}", "0".repeat(point.unsigned_abs() as usize), digits),
            Ok(point) if point >= digits.len() => format!("{}{}.0", digits, "0".repeat(point - digits.len())),
            Ok(point) => format!("{}.{}", &digits[..point], &digits[point..]),
        };
        format!("{sign}{body}")
    } else {
        let frac = if digits.len() > 1 { format!("{}.{}", &digits[..1], &digits[1..]) } else { digits };
        format!("{sign}{frac}e{}{:02}", if exp < 0 { '-' } else { '+' }, exp.abs())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn float_repr_matches_python() {
        for (v, py) in [
            (1.25, "1.25"),
            (1.0, "1.0"),
            (0.0, "0.0"),
            (-0.5, "-0.5"),
            (1e16, "1e+16"),
            (1.5e-7, "1.5e-07"),
            (0.0001, "0.0001"),
            (123456789012345.6, "123456789012345.6"),
            (1796016483.803225, "1796016483.803225"),
            (1e100, "1e+100"),
            (2.5e-300, "2.5e-300"),
            (1234567890123456.0, "1234567890123456.0"),
        ] {
            assert_eq!(python_float_repr(v), py, "{v}");
        }
    }
}
