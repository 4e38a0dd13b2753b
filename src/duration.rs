//! Go `time.Duration` text, as used by the HPA controller and its flags.
//!
//! The controller's timing knobs (`--horizontal-pod-autoscaler-sync-period`,
//! `--horizontal-pod-autoscaler-downscale-stabilization`,
//! `--horizontal-pod-autoscaler-cpu-initialization-period`,
//! `--horizontal-pod-autoscaler-initial-readiness-delay`, …) are Go durations such as
//! `"15s"`, `"5m0s"` or `"30s"`, parsed with `time.ParseDuration` and printed with
//! `Duration.String()`. This module reproduces both on `i64` nanoseconds, including Go's
//! exact overflow limits and its `float64` computation of fractional parts, so a value
//! copied from a controller manifest or log means the same thing here.
//!
//! Grammar (Go's): `[-+]?([0-9]*(\.[0-9]*)?[a-z]+)+` where every number needs at least
//! one digit, the units are `ns`, `us`, `µs` (U+00B5), `μs` (U+03BC), `ms`, `s`, `m`
//! and `h`, and the only unit-less value is `"0"` (optionally signed). Components add
//! up (`"1h30m"`, even `"10.5s4m"`), and the total must fit in an `i64` of nanoseconds.
//!
//! One deliberate difference: Go's accumulator can wrap when two components of exactly
//! 2^63 ns are added (`"9223372036854775808ns9223372036854775808ns"` parses as 0 in Go);
//! here that is an overflow error.

use std::fmt;

/// A string that is not a valid Go duration, or one that does not fit in an `i64`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DurationError {
    /// The text that was being parsed.
    pub input: String,
    /// A short, specific explanation.
    pub reason: String,
}

impl fmt::Display for DurationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "invalid duration {:?}: {}", self.input, self.reason)
    }
}

impl std::error::Error for DurationError {}

const NANOSECOND: u64 = 1;
const MICROSECOND: u64 = 1_000;
const MILLISECOND: u64 = 1_000_000;
const SECOND: u64 = 1_000_000_000;
const MINUTE: u64 = 60 * SECOND;
const HOUR: u64 = 60 * MINUTE;

/// 2^63: the largest magnitude a (negative) duration can have.
const LIMIT: u64 = 1 << 63;

/// Parse a Go `time.ParseDuration` string into nanoseconds: `"30s"`, `"5m"`, `"1m30s"`,
/// `"17.104s"`, `"300ms"`, `"2h"`, `"1.5h"`, `"0"`, `"-5s"`.
///
/// Accepts exactly what Go accepts (see the module docs) and yields the same value,
/// including Go's `float64` rounding of fractions (`"0.3333333333333333333h"` is 20m).
pub fn parse_go_duration(s: &str) -> Result<i64, DurationError> {
    let fail = |reason: String| DurationError {
        input: s.to_string(),
        reason,
    };
    let overflow = || fail("out of range (a duration must fit in ±292 years)".to_string());

    let mut rest = s;
    let mut negative = false;
    if let Some(unsigned) = rest.strip_prefix('-') {
        negative = true;
        rest = unsigned;
    } else if let Some(unsigned) = rest.strip_prefix('+') {
        rest = unsigned;
    }
    if rest == "0" {
        return Ok(0);
    }
    if rest.is_empty() {
        return Err(fail(if s.is_empty() {
            "empty string".to_string()
        } else {
            "missing number after the sign".to_string()
        }));
    }

    let mut total: u64 = 0;
    while !rest.is_empty() {
        let bytes = rest.as_bytes();
        let starts_number = bytes[0] == b'.' || bytes[0].is_ascii_digit();
        if !starts_number {
            return Err(fail(format!("expected a number at {rest:?}")));
        }
        // Whole part: [0-9]*
        let (whole, int_len) = leading_int(bytes).ok_or_else(overflow)?;
        let mut pos = int_len;
        // Fraction: (\.[0-9]*)?
        let mut fraction = 0u64;
        let mut scale = 1.0f64;
        let mut frac_len = 0;
        if bytes.get(pos) == Some(&b'.') {
            pos += 1;
            (fraction, scale, frac_len) = leading_fraction(&bytes[pos..]);
            pos += frac_len;
        }
        if int_len == 0 && frac_len == 0 {
            return Err(fail("no digits before the unit".to_string()));
        }
        // Unit: everything up to the next '.' or digit.
        let unit_len = bytes[pos..]
            .iter()
            .position(|&c| c == b'.' || c.is_ascii_digit())
            .unwrap_or(bytes.len() - pos);
        if unit_len == 0 {
            return Err(fail(
                "missing unit (expected ns, us, µs, ms, s, m or h)".to_string(),
            ));
        }
        // '.' and digits are ASCII, so these are char boundaries.
        let unit_text = &rest[pos..pos + unit_len];
        rest = &rest[pos + unit_len..];
        let unit = match unit_text {
            "ns" => NANOSECOND,
            "us" | "\u{b5}s" | "\u{3bc}s" => MICROSECOND,
            "ms" => MILLISECOND,
            "s" => SECOND,
            "m" => MINUTE,
            "h" => HOUR,
            other => {
                return Err(fail(format!(
                    "unknown unit {other:?} (expected ns, us, µs, ms, s, m or h)"
                )))
            }
        };

        if whole > LIMIT / unit {
            return Err(overflow());
        }
        let mut value = whole * unit;
        if fraction > 0 {
            // Go computes the fraction in float64 (exact enough for hours) and truncates.
            value += (fraction as f64 * (unit as f64 / scale)) as u64;
            if value > LIMIT {
                return Err(overflow());
            }
        }
        total = total.checked_add(value).ok_or_else(overflow)?;
        if total > LIMIT {
            return Err(overflow());
        }
    }

    if negative {
        // total <= 2^63, so the negation always fits (2^63 becomes i64::MIN).
        return Ok((-(i128::from(total))) as i64);
    }
    i64::try_from(total).map_err(|_| overflow())
}

/// Go's `leadingInt`: the value of the leading ASCII digits and how many there were, or
/// `None` once the value exceeds 2^63.
fn leading_int(bytes: &[u8]) -> Option<(u64, usize)> {
    let mut value: u64 = 0;
    let mut len = 0;
    for &c in bytes {
        if !c.is_ascii_digit() {
            break;
        }
        if value > LIMIT / 10 {
            return None;
        }
        value = value * 10 + u64::from(c - b'0');
        if value > LIMIT {
            return None;
        }
        len += 1;
    }
    Some((value, len))
}

/// Go's `leadingFraction`: the leading ASCII digits as an integer `x` with `scale = 10^n`
/// (so the fraction is `x / scale`), and how many digits were consumed. Digits beyond what
/// fits in the integer are consumed but ignored, as in Go.
fn leading_fraction(bytes: &[u8]) -> (u64, f64, usize) {
    let mut value: u64 = 0;
    let mut scale = 1.0f64;
    let mut overflowed = false;
    let mut len = 0;
    for &c in bytes {
        if !c.is_ascii_digit() {
            break;
        }
        len += 1;
        if overflowed {
            continue;
        }
        if value > (LIMIT - 1) / 10 {
            overflowed = true;
            continue;
        }
        let next = value * 10 + u64::from(c - b'0');
        if next > LIMIT {
            overflowed = true;
            continue;
        }
        value = next;
        scale *= 10.0;
    }
    (value, scale, len)
}

/// Render nanoseconds like Go's `Duration.String()`: `"5m0s"`, `"30s"`, `"1m30s"`,
/// `"17.104s"`, `"300ms"`, `"1.5µs"`, `"0s"`, `"2h0m0s"`, `"-5s"`.
///
/// Below one second the largest of ns/µs/ms that keeps an integer part is used; from one
/// second on it is `[<h>h][<m>m]<s>[.<fraction>]s`, with hours and minutes shown only when
/// a larger unit is present. Fractions never have trailing zeros.
pub fn format_go_duration(nanos: i64) -> String {
    let magnitude = nanos.unsigned_abs();
    let sign = if nanos < 0 { "-" } else { "" };
    if magnitude == 0 {
        return "0s".to_string();
    }
    if magnitude < SECOND {
        let (digits, unit) = if magnitude < MICROSECOND {
            (0, "ns")
        } else if magnitude < MILLISECOND {
            (3, "\u{b5}s")
        } else {
            (6, "ms")
        };
        let (whole, fraction) = split_fraction(magnitude, digits);
        return format!("{sign}{whole}{fraction}{unit}");
    }
    let (seconds, fraction) = split_fraction(magnitude, 9);
    let minutes = seconds / 60;
    let hours = minutes / 60;
    let mut out = String::from(sign);
    if hours > 0 {
        out.push_str(&format!("{hours}h"));
    }
    if minutes > 0 {
        out.push_str(&format!("{}m", minutes % 60));
    }
    out.push_str(&format!("{}{fraction}s", seconds % 60));
    out
}

/// `value / 10^digits` and its fraction as `".ddd"` without trailing zeros (empty when
/// the fraction is zero) — Go's `fmtFrac`.
fn split_fraction(value: u64, digits: u32) -> (u64, String) {
    if digits == 0 {
        return (value, String::new());
    }
    let divisor = 10u64.pow(digits);
    let fraction = value % divisor;
    if fraction == 0 {
        return (value / divisor, String::new());
    }
    let text = format!("{fraction:0width$}", width = digits as usize);
    (value / divisor, format!(".{}", text.trim_end_matches('0')))
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: i64 = 1_000_000_000;
    const MIN: i64 = 60 * S;
    const H: i64 = 60 * MIN;

    #[test]
    fn parses_brief_examples() {
        let cases: &[(&str, i64)] = &[
            ("30s", 30 * S),
            ("5m", 5 * MIN),
            ("1m30s", 90 * S),
            ("17.104s", 17_104_000_000),
            ("300ms", 300_000_000),
            ("2h", 2 * H),
            ("1.5h", 90 * MIN),
            ("0", 0),
            ("-5s", -5 * S),
        ];
        for &(input, want) in cases {
            assert_eq!(parse_go_duration(input), Ok(want), "{input}");
        }
    }

    /// Go's own `parseDurationTests` (time_test.go), valid half.
    #[test]
    fn parses_go_test_table() {
        let cases: &[(&str, i64)] = &[
            ("0", 0),
            ("5s", 5 * S),
            ("30s", 30 * S),
            ("1478s", 1478 * S),
            ("-5s", -5 * S),
            ("+5s", 5 * S),
            ("-0", 0),
            ("+0", 0),
            ("5.0s", 5 * S),
            ("5.6s", 5 * S + 600_000_000),
            ("5.s", 5 * S),
            (".5s", S / 2),
            ("1.0s", S),
            ("1.00s", S),
            ("1.004s", S + 4_000_000),
            ("1.0040s", S + 4_000_000),
            ("100.00100s", 100 * S + 1_000_000),
            ("10ns", 10),
            ("11us", 11_000),
            ("12µs", 12_000),
            ("12μs", 12_000),
            ("13ms", 13_000_000),
            ("14s", 14 * S),
            ("15m", 15 * MIN),
            ("16h", 16 * H),
            ("3h30m", 3 * H + 30 * MIN),
            ("10.5s4m", 4 * MIN + 10 * S + S / 2),
            ("-2m3.4s", -(2 * MIN + 3 * S + 400_000_000)),
            (
                "1h2m3s4ms5us6ns",
                H + 2 * MIN + 3 * S + 4_000_000 + 5_000 + 6,
            ),
            ("39h9m14.425s", 39 * H + 9 * MIN + 14 * S + 425_000_000),
            ("52763797000ns", 52_763_797_000),
            ("0.3333333333333333333h", 20 * MIN),
            ("9007199254740993ns", (1 << 53) + 1),
            ("9223372036854775807ns", i64::MAX),
            ("9223372036854775.807us", i64::MAX),
            ("9223372036s854ms775us807ns", i64::MAX),
            ("-9223372036854775808ns", i64::MIN),
            ("-9223372036854775.808us", i64::MIN),
            ("-9223372036s854ms775us808ns", i64::MIN),
            ("-2562047h47m16.854775808s", i64::MIN),
            ("0.100000000000000000000h", 6 * MIN),
            ("0.830103483285477580700h", 49 * MIN + 48 * S + 372_539_827),
        ];
        for &(input, want) in cases {
            assert_eq!(parse_go_duration(input), Ok(want), "{input}");
        }
    }

    #[test]
    fn parse_errors() {
        let cases: &[(&str, &str)] = &[
            ("", "empty string"),
            ("3", "missing unit"),
            ("00", "missing unit"),
            ("1.5.5s", "missing unit"),
            ("-", "missing number after the sign"),
            ("+", "missing number after the sign"),
            ("s", "expected a number"),
            ("--5s", "expected a number"),
            ("+-5s", "expected a number"),
            (" 5s", "expected a number"),
            ("5s ", "unknown unit \"s \""),
            ("1h 30m", "unknown unit \"h \""),
            ("5 s", "unknown unit \" s\""),
            (".", "no digits"),
            ("-.", "no digits"),
            (".s", "no digits"),
            ("+.s", "no digits"),
            ("1d", "unknown unit \"d\""),
            ("1e3s", "unknown unit \"e\""),
            ("5S", "unknown unit \"S\""),
            ("5sec", "unknown unit \"sec\""),
            ("\u{fffd}", "expected a number"),
            ("\u{fffd} hello \u{fffd} world", "expected a number"),
            ("9223372036854775810ns", "out of range"),
            ("9223372036854775808ns", "out of range"),
            ("-9223372036854775809ns", "out of range"),
            ("9223372036854776us", "out of range"),
            ("3000000h", "out of range"),
            ("9223372036854s", "out of range"),
            ("9223372036854775.808us", "out of range"),
            ("9223372036854775807ns1ns", "out of range"),
            ("2562047h47m16.854775808s", "out of range"),
            ("9223372036854775808ns9223372036854775808ns", "out of range"),
            ("NaN", "expected a number"),
            ("inf", "expected a number"),
        ];
        for &(input, reason) in cases {
            let err = parse_go_duration(input).expect_err(input);
            assert_eq!(err.input, input);
            assert!(
                err.reason.contains(reason),
                "{input:?}: reason {:?} should mention {reason:?}",
                err.reason
            );
        }
    }

    #[test]
    fn error_display() {
        let err = parse_go_duration("5x").unwrap_err();
        assert_eq!(
            err.to_string(),
            "invalid duration \"5x\": unknown unit \"x\" (expected ns, us, µs, ms, s, m or h)"
        );
        let boxed: Box<dyn std::error::Error> = Box::new(err);
        assert!(boxed.to_string().starts_with("invalid duration"));
    }

    /// Go's `durationTests` (time_test.go) plus the brief's examples.
    #[test]
    fn formats_like_go() {
        let cases: &[(i64, &str)] = &[
            (0, "0s"),
            (1, "1ns"),
            (1_100, "1.1µs"),
            (2_200_000, "2.2ms"),
            (3_300_000_000, "3.3s"),
            (4 * MIN + 5 * S, "4m5s"),
            (4 * MIN + 5_001_000_000, "4m5.001s"),
            (5 * H + 6 * MIN + 7_001_000_000, "5h6m7.001s"),
            (8 * MIN + 1, "8m0.000000001s"),
            (i64::MAX, "2562047h47m16.854775807s"),
            (i64::MIN, "-2562047h47m16.854775808s"),
            (5 * MIN, "5m0s"),
            (30 * S, "30s"),
            (90 * S, "1m30s"),
            (17_104_000_000, "17.104s"),
            (300_000_000, "300ms"),
            (2 * H, "2h0m0s"),
            (H + 1, "1h0m0.000000001s"),
            (-5 * S, "-5s"),
            (-1, "-1ns"),
            (999, "999ns"),
            (1_000, "1µs"),
            (999_999, "999.999µs"),
            (1_000_000, "1ms"),
            (999_999_999, "999.999999ms"),
            (S, "1s"),
            (15 * S, "15s"),
            (S + S / 2, "1.5s"),
            (59 * MIN + 59 * S, "59m59s"),
            (H, "1h0m0s"),
            (25 * H + 61 * S, "25h1m1s"),
        ];
        for &(nanos, want) in cases {
            assert_eq!(format_go_duration(nanos), want, "{nanos}");
        }
    }

    #[test]
    fn round_trips() {
        let mut values = vec![
            0,
            1,
            -1,
            i64::MAX,
            i64::MIN,
            S,
            -S,
            H,
            1_500,
            17_104_000_000,
        ];
        let mut state: u64 = 0x2545_F491_4F6C_DD1D;
        for _ in 0..2000 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let shift = (state >> 58) as u32;
            values.push((state as i64) >> shift);
        }
        for nanos in values {
            let text = format_go_duration(nanos);
            assert_eq!(parse_go_duration(&text), Ok(nanos), "{nanos} -> {text}");
        }
    }
}
