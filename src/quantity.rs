//! Kubernetes resource quantities, read and written the way the HPA controller does.
//!
//! # Why milli-units
//!
//! A Kubernetes `resource.Quantity` is an exact fixed-point decimal ("250m", "1.5Gi",
//! "129e6"). The HorizontalPodAutoscaler controller never does arithmetic on those
//! decimals directly: every quantity it reads (container requests, pod metric values from
//! the resource/custom/external metrics APIs, `target.averageValue`, `target.value`) is
//! turned into an `int64` count of milli-units with `Quantity.MilliValue()`. Sums,
//! per-pod averages and utilization percentages are then plain integer arithmetic on those
//! milli-units, ratios are `float64` divisions of them, and the values the controller
//! writes back into `status.currentMetrics` are built with
//! `resource.NewMilliQuantity(v, resource.DecimalSI)` (so memory shows up as e.g.
//! `"2338816k"` or `"11434666666m"`, not in `Mi`).
//!
//! To recompute a decision bit-for-bit this module therefore reproduces exactly:
//!
//! * [`parse_milli`]: `ParseQuantity(s)` followed by `MilliValue()`. `MilliValue` rounds
//!   any fraction left after scaling to milli-units *away from zero*, so a non-zero value
//!   never vanishes: `"1n"` is 1 milli-unit, `"1010123648n"` is 1011. All arithmetic is
//!   exact integer arithmetic on the decimal digits (no `f64`), for inputs of any length.
//! * [`parse_f64`]: `ParseQuantity(s)` followed by `AsApproximateFloat64()`, which is what
//!   the controller uses for values it treats as floats (for instance a configurable
//!   scaling tolerance). It repeats Go's floating-point operations, not just the result.
//! * [`format_decimal_si`] / [`format_binary_si`]: `NewMilliQuantity(v, DecimalSI|BinarySI).String()`.
//!
//! # Grammar
//!
//! ```text
//! quantity  ::= sign? number suffix
//! sign      ::= "+" | "-"
//! number    ::= digits | digits "." | digits "." digits | "." digits
//! suffix    ::= "" | "n" | "u" | "m" | "k" | "M" | "G" | "T" | "P" | "E"   (10^-9 … 10^18)
//!             | "Ki" | "Mi" | "Gi" | "Ti" | "Pi" | "Ei"                   (2^10 … 2^60)
//!             | ("e" | "E") sign? digits                                  (10^exponent)
//! ```
//!
//! Suffixes are case-sensitive (`"1K"`, `"1ki"`, `"1mi"` are errors), a lone `"E"` means
//! exa, whitespace anywhere is an error, and the exponent must fit in a signed 64-bit
//! integer (as Go's `strconv.ParseInt`).
//!
//! # Known differences from apimachinery
//!
//! These only concern inputs nobody writes on purpose; each was checked against
//! `k8s.io/apimachinery/pkg/api/resource` (`quantity.go` `parseQuantityString` /
//! `ParseQuantity`, `suffix.go` `interpret`, `amount.go`, `scale_int.go`, `math.go`):
//!
//! * Go's scanner accepts strings with *no digits at all* as zero: `"-"`, `"+"`, `"."`,
//!   `"-."`, `"m"`, `"Ki"`, `"e5"`, `"E"`. This module rejects them ("no digits").
//! * Go converts a parsed exponent with `int32(parsed)`, so an exponent outside the `i32`
//!   range silently wraps (`"1e4294967296"` is 1 in Go). Here the exponent keeps its real
//!   value: huge positive exponents are out of range, huge negative ones round to ±1 milli.
//! * Go's `MilliValue` is not consistent for *negative* values that were stored in its
//!   `inf.Dec` form (fractional binary values like `"-0.0001Ki"`, more than 18 significant
//!   digits, or digits below 10^-9): `scale_int.go` `scaledValue` truncates toward zero and
//!   then adds 1, e.g. it gives -101 for `-102.4m` and +1 for `"-1e-10"`. This module
//!   always rounds away from zero (-103 and -1), which is what Go does for every other
//!   negative input (`amount.go` `negativeScaleInt64`).
//! * `MilliValue` silently overflows `int64`; [`parse_milli`] returns an error instead.
//! * `AsApproximateFloat64` returns NaN for a zero with a huge exponent (`"0e400"`, as
//!   `0 × +Inf`); [`parse_f64`] returns 0.
//! * The JSON decoder (`UnmarshalJSON`) trims surrounding whitespace before parsing;
//!   callers reading raw text should `trim()` first if they want that behaviour.

use std::fmt;

/// A string that is not a valid Kubernetes quantity, or whose value cannot be represented.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QuantityError {
    /// The text that was being parsed.
    pub input: String,
    /// A short, specific explanation.
    pub reason: String,
}

impl QuantityError {
    fn new(input: &str, reason: impl Into<String>) -> Self {
        QuantityError {
            input: input.to_string(),
            reason: reason.into(),
        }
    }
}

impl fmt::Display for QuantityError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "invalid quantity {:?}: {}", self.input, self.reason)
    }
}

impl std::error::Error for QuantityError {}

/// Parse a Kubernetes quantity string into milli-units (value × 1000), exactly as
/// `resource.MustParse(s).MilliValue()` for every value whose milli form fits in an `i64`.
///
/// Any fraction left after scaling to milli-units is rounded away from zero (so `"1n"`
/// is 1 and `"-1n"` is -1). Values whose milli form does not fit in an `i64`
/// (e.g. `"1E"`, which is 10^21 milli) are an error.
pub fn parse_milli(s: &str) -> Result<i64, QuantityError> {
    let parsed = scan(s)?;
    let out_of_range = || {
        QuantityError::new(
            s,
            "out of range: the value in milli-units does not fit in a signed 64-bit integer",
        )
    };
    // i64::MAX has 19 digits, so anything longer is out of range before any comparison.
    let digits = magnitude_in_units(&parsed, -3, 19).ok_or_else(out_of_range)?;
    let magnitude = digits_to_u128(&digits) as i128;
    let signed = if parsed.negative {
        -magnitude
    } else {
        magnitude
    };
    i64::try_from(signed).map_err(|_| out_of_range())
}

/// Parse a Kubernetes quantity string to `f64` the way `Quantity.AsApproximateFloat64()`
/// computes it: the stored integer mantissa converted to `f64`, times Go's
/// `math.Pow10(exponent)`. `"50m"` is `50.0 * 0.001`, `"0.05"` is `5.0 * 0.01`, `"1Ki"`
/// is `1024.0`. Values too large for `f64` become ±infinity, like in Go.
pub fn parse_f64(s: &str) -> Result<f64, QuantityError> {
    let parsed = scan(s)?;
    Ok(approximate_f64(&parsed))
}

/// The canonical `DecimalSI` text of a milli-unit value, as
/// `resource.NewMilliQuantity(milli, resource.DecimalSI).String()` prints it.
///
/// Trailing decimal zeros are moved into the largest suffix whose exponent is a multiple
/// of three while the mantissa stays an integer: 1500 → `"1500m"`, 1000 → `"1"`,
/// 10000 → `"10"`, 2_000_000 → `"2k"`, 0 → `"0"`, -1500 → `"-1500m"`.
pub fn format_decimal_si(milli: i64) -> String {
    if milli == 0 {
        return "0".to_string();
    }
    let mut mantissa = i128::from(milli);
    let mut exponent: i32 = -3;
    while mantissa % 10 == 0 {
        mantissa /= 10;
        exponent += 1;
    }
    // Lower the exponent to a multiple of three (Go: `AsCanonicalBytes`).
    let excess = exponent.rem_euclid(3);
    mantissa *= 10i128.pow(excess as u32);
    exponent -= excess;
    format!("{mantissa}{}", decimal_suffix(exponent))
}

/// The canonical `BinarySI` text of a milli-unit value, as
/// `resource.NewMilliQuantity(milli, resource.BinarySI).String()` prints it
/// (apimachinery `Quantity.CanonicalizeBytes`):
///
/// * zero is `"0"`;
/// * a value strictly between -1024 and 1024 units is printed in `DecimalSI` form —
///   so 512 bytes is `"512"`, 1.5 bytes is `"1500m"`, and *1000 bytes is `"1k"`*;
/// * a value that is not a whole number of units is printed in `DecimalSI` form
///   (1500500 → `"1500500m"`);
/// * otherwise the whole byte count is divided by 1024 as often as it stays an integer:
///   1048576000 → `"1Mi"`, 1572864000 → `"1536Ki"`, 1073741824000 → `"1Gi"`, and a
///   count not divisible by 1024 stays plain digits (1_500_000_000 → `"1500000"`).
pub fn format_binary_si(milli: i64) -> String {
    if milli == 0 {
        return "0".to_string();
    }
    if milli.unsigned_abs() < 1_024_000 || milli % 1000 != 0 {
        return format_decimal_si(milli);
    }
    let mut units = (milli / 1000).unsigned_abs();
    let mut power = 0usize;
    while units >= 1024 && units.is_multiple_of(1024) {
        units /= 1024;
        power += 1;
    }
    const SUFFIXES: [&str; 7] = ["", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"];
    let sign = if milli < 0 { "-" } else { "" };
    // |milli| <= 2^63 means at most 2^53 units, so `power` never exceeds 5.
    format!("{sign}{units}{}", SUFFIXES[power])
}

/// The `DecimalSI` suffix for a power of ten that is a multiple of three.
fn decimal_suffix(exponent: i32) -> String {
    match exponent {
        -9 => "n".to_string(),
        -6 => "u".to_string(),
        -3 => "m".to_string(),
        0 => String::new(),
        3 => "k".to_string(),
        6 => "M".to_string(),
        9 => "G".to_string(),
        12 => "T".to_string(),
        15 => "P".to_string(),
        18 => "E".to_string(),
        // Unreachable for i64 milli values (|milli| < 10^19 gives exponent <= 15); this is
        // the same `e<exp>` fallback apimachinery uses when no SI suffix exists.
        other => format!("e{other}"),
    }
}

/// What the suffix multiplies the number by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Multiplier {
    /// × 10^n: a decimal SI suffix (`m`, `k`, …, or none) or a decimal exponent (`e3`).
    Decimal(i64),
    /// × 2^n: a binary SI suffix (`Ki` … `Ei`); n is a multiple of 10.
    Binary(u32),
}

/// A syntactically valid quantity, split into its parts (nothing evaluated yet).
#[derive(Debug, Clone, Copy)]
struct Parsed<'a> {
    negative: bool,
    /// Digits before the decimal point, leading zeros removed (may be empty).
    int_digits: &'a str,
    /// Digits after the decimal point, exactly as written (may be empty).
    frac_digits: &'a str,
    multiplier: Multiplier,
}

/// Split `s` into sign, digits and suffix, validating the grammar in the module docs.
fn scan(s: &str) -> Result<Parsed<'_>, QuantityError> {
    if s.is_empty() {
        return Err(QuantityError::new(s, "empty string"));
    }
    if s.chars().any(char::is_whitespace) {
        return Err(QuantityError::new(s, "whitespace is not allowed"));
    }
    let bytes = s.as_bytes();
    let mut pos = 0;
    let negative = match bytes[0] {
        b'-' => {
            pos = 1;
            true
        }
        b'+' => {
            pos = 1;
            false
        }
        _ => false,
    };
    let int_start = pos;
    while pos < bytes.len() && bytes[pos].is_ascii_digit() {
        pos += 1;
    }
    let int_part = &s[int_start..pos];
    let mut frac_part = "";
    let mut has_point = false;
    if pos < bytes.len() && bytes[pos] == b'.' {
        has_point = true;
        pos += 1;
        let frac_start = pos;
        while pos < bytes.len() && bytes[pos].is_ascii_digit() {
            pos += 1;
        }
        frac_part = &s[frac_start..pos];
    }
    let rest = &s[pos..];
    if int_part.is_empty() && frac_part.is_empty() {
        let reason = if rest.is_empty() {
            if has_point {
                "no digits".to_string()
            } else {
                "no digits after the sign".to_string()
            }
        } else if !has_point && rest.starts_with(['+', '-']) {
            "more than one sign".to_string()
        } else if suffix_multiplier(rest).is_some() {
            format!("no digits before the suffix {rest:?}")
        } else {
            format!("expected a number, found {rest:?}")
        };
        return Err(QuantityError::new(s, reason));
    }
    let multiplier = parse_suffix(s, rest)?;
    Ok(Parsed {
        negative,
        int_digits: int_part.trim_start_matches('0'),
        frac_digits: frac_part,
        multiplier,
    })
}

/// The fixed SI suffixes (everything except decimal exponents).
fn suffix_multiplier(suffix: &str) -> Option<Multiplier> {
    Some(match suffix {
        "" => Multiplier::Decimal(0),
        "n" => Multiplier::Decimal(-9),
        "u" => Multiplier::Decimal(-6),
        "m" => Multiplier::Decimal(-3),
        "k" => Multiplier::Decimal(3),
        "M" => Multiplier::Decimal(6),
        "G" => Multiplier::Decimal(9),
        "T" => Multiplier::Decimal(12),
        "P" => Multiplier::Decimal(15),
        "E" => Multiplier::Decimal(18),
        "Ki" => Multiplier::Binary(10),
        "Mi" => Multiplier::Binary(20),
        "Gi" => Multiplier::Binary(30),
        "Ti" => Multiplier::Binary(40),
        "Pi" => Multiplier::Binary(50),
        "Ei" => Multiplier::Binary(60),
        _ => return None,
    })
}

const KNOWN_SUFFIXES: [&str; 15] = [
    "n", "u", "m", "k", "M", "G", "T", "P", "E", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei",
];

/// Interpret everything after the number: an SI suffix or a decimal exponent.
fn parse_suffix(input: &str, suffix: &str) -> Result<Multiplier, QuantityError> {
    if let Some(multiplier) = suffix_multiplier(suffix) {
        return Ok(multiplier);
    }
    // `"E"` alone is exa (handled above); otherwise a leading e/E starts an exponent.
    if let Some(exponent) = suffix.strip_prefix(['e', 'E']) {
        return parse_exponent(input, exponent).map(Multiplier::Decimal);
    }
    let reason = if suffix.starts_with('.') {
        "more than one decimal point".to_string()
    } else if suffix.starts_with(['+', '-']) {
        format!("unexpected sign in {suffix:?}")
    } else if let Some(hint) = KNOWN_SUFFIXES
        .iter()
        .find(|known| known.eq_ignore_ascii_case(suffix))
    {
        format!("unknown suffix {suffix:?} (suffixes are case-sensitive; did you mean {hint:?}?)")
    } else {
        format!(
            "unknown suffix {suffix:?} (expected one of n u m k M G T P E Ki Mi Gi Ti Pi Ei, \
             or an exponent like e3)"
        )
    };
    Err(QuantityError::new(input, reason))
}

/// Parse the text after `e`/`E`: an optional sign and at least one digit, within `i64`
/// (the range Go's `strconv.ParseInt(_, 10, 64)` accepts).
fn parse_exponent(input: &str, text: &str) -> Result<i64, QuantityError> {
    let (negative, digits) = match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    if digits.is_empty() {
        return Err(QuantityError::new(input, "exponent has no digits"));
    }
    if !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(QuantityError::new(
            input,
            format!("malformed exponent {text:?} (expected e<integer>)"),
        ));
    }
    // Accumulate the magnitude, giving up as soon as it exceeds 2^63 (leading zeros are fine).
    let limit: u128 = 1 << 63;
    let mut magnitude: u128 = 0;
    for b in digits.bytes() {
        magnitude = magnitude * 10 + u128::from(b - b'0');
        if magnitude > limit {
            break;
        }
    }
    let signed = if negative {
        -(magnitude as i128)
    } else {
        magnitude as i128
    };
    i64::try_from(signed).map_err(|_| {
        QuantityError::new(
            input,
            "exponent out of range (it must fit in a signed 64-bit integer)",
        )
    })
}

/// `|value| / 10^unit_exp`, rounded away from zero to an integer, as decimal digits
/// (most significant first, no leading zeros, empty for zero). `None` when that integer
/// would have more than `max_digits` digits.
///
/// Exact for any input length: the digits are kept as a decimal digit string, multiplied
/// by 1024 for binary suffixes, and powers of ten are just shifts of the decimal point.
fn magnitude_in_units(parsed: &Parsed<'_>, unit_exp: i64, max_digits: usize) -> Option<Vec<u8>> {
    let mut digits: Vec<u8> = parsed
        .int_digits
        .bytes()
        .chain(parsed.frac_digits.bytes())
        .map(|b| b - b'0')
        .collect();
    let exp10 = match parsed.multiplier {
        Multiplier::Decimal(exp) => exp,
        Multiplier::Binary(pow2) => {
            for _ in 0..pow2 / 10 {
                mul_small(&mut digits, 1024);
            }
            0
        }
    };
    let Some(first_nonzero) = digits.iter().position(|&d| d != 0) else {
        return Some(Vec::new()); // the value is zero
    };
    digits.drain(..first_nonzero);
    // value = digits × 10^shift (in units of 10^unit_exp); i128 cannot overflow here.
    let shift = i128::from(exp10) - parsed.frac_digits.len() as i128 - i128::from(unit_exp);
    let len = digits.len() as i128;
    if shift >= 0 {
        if len + shift > max_digits as i128 {
            return None;
        }
        digits.resize(digits.len() + shift as usize, 0);
        return Some(digits);
    }
    // Drop `-shift` digits into the fraction; any non-zero one rounds the magnitude up.
    let dropped = -shift;
    let inexact = if dropped >= len {
        // 0 < value < 1 unit: no integer digits are left, and the fraction is non-zero.
        digits.clear();
        true
    } else {
        let keep = (len - dropped) as usize;
        let inexact = digits[keep..].iter().any(|&d| d != 0);
        digits.truncate(keep);
        inexact
    };
    if inexact {
        increment(&mut digits);
    }
    (digits.len() <= max_digits).then_some(digits)
}

/// Multiply a decimal digit string (most significant first) by a small factor in place.
fn mul_small(digits: &mut Vec<u8>, factor: u32) {
    let mut carry: u32 = 0;
    for digit in digits.iter_mut().rev() {
        let v = u32::from(*digit) * factor + carry;
        *digit = (v % 10) as u8;
        carry = v / 10;
    }
    let mut head = Vec::new();
    while carry > 0 {
        head.push((carry % 10) as u8);
        carry /= 10;
    }
    head.reverse();
    digits.splice(0..0, head);
}

/// Add one to a decimal digit string (empty means zero).
fn increment(digits: &mut Vec<u8>) {
    for digit in digits.iter_mut().rev() {
        if *digit == 9 {
            *digit = 0;
        } else {
            *digit += 1;
            return;
        }
    }
    digits.insert(0, 1);
}

/// Value of at most 38 decimal digits.
fn digits_to_u128(digits: &[u8]) -> u128 {
    digits
        .iter()
        .fold(0u128, |acc, &d| acc * 10 + u128::from(d))
}

/// `Quantity.AsApproximateFloat64()` after `ParseQuantity`, reproducing which internal
/// representation Go picks, because the float result depends on it:
///
/// * the `int64Amount` fast path stores (digits as an integer, exponent) and yields
///   `float64(value) * math.Pow10(exponent)`;
/// * everything else is an `inf.Dec` rounded (away from zero) to 9 decimal places and
///   yields `float64(unscaled) * math.Pow10(-9)`; binary values above 2^63-1 are capped.
fn approximate_f64(parsed: &Parsed<'_>) -> f64 {
    let sign = if parsed.negative { -1.0 } else { 1.0 };
    // Go counts the integer part as "0" when it is empty or all zeros.
    let num_len = parsed.int_digits.len().max(1);
    let frac_len = parsed.frac_digits.len();
    match parsed.multiplier {
        Multiplier::Decimal(exp10) => {
            let scale = i128::from(exp10) - frac_len as i128;
            // quantity.go: precision = 18 - len(num+denom) >= 0 and scale >= Nano.
            if num_len + frac_len <= 18 && scale >= -9 {
                let value = parsed
                    .int_digits
                    .bytes()
                    .chain(parsed.frac_digits.bytes())
                    .fold(0i64, |acc, b| acc * 10 + i64::from(b - b'0'));
                if value == 0 {
                    return 0.0;
                }
                let base = sign * value as f64;
                return if scale == 0 {
                    base
                } else {
                    base * go_pow10(scale)
                };
            }
        }
        Multiplier::Binary(pow2) => {
            // quantity.go: only whole numbers, with
            // precision = 15 - len(num) - exponent*3/10 - 1 >= 0, and no int64 overflow.
            let precision = 15 - num_len as i64 - i64::from(pow2 * 3 / 10) - 1;
            if frac_len == 0 && precision >= 0 {
                let value = parsed
                    .int_digits
                    .bytes()
                    .fold(0i64, |acc, b| acc * 10 + i64::from(b - b'0'));
                if let Some(v) = value.checked_mul(1i64 << pow2) {
                    return if v == 0 { 0.0 } else { sign * v as f64 };
                }
            }
        }
    }
    let binary = matches!(parsed.multiplier, Multiplier::Binary(_));
    let capped = sign * i64::MAX as f64;
    // 400 digits is far beyond f64's range (≈1.8e308 × 10^9), so `None` means ±infinity.
    match magnitude_in_units(parsed, -9, 400) {
        None if binary => capped,
        None => sign * f64::INFINITY,
        Some(digits) if digits.is_empty() => 0.0,
        Some(digits) => {
            // (2^63 - 1) × 10^9 has 28 digits.
            let max_nanos = (i64::MAX as u128) * 1_000_000_000;
            if binary && (digits.len() > 28 || digits_to_u128(&digits) > max_nanos) {
                return capped;
            }
            let text: String = digits.iter().map(|&d| char::from(b'0' + d)).collect();
            // Rust's float parsing is correctly rounded, like Go's big.Float.Float64().
            let base: f64 = text.parse().unwrap_or(f64::INFINITY);
            sign * base * go_pow10(-9)
        }
    }
}

const POW10_SMALL: [f64; 32] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
    1e17, 1e18, 1e19, 1e20, 1e21, 1e22, 1e23, 1e24, 1e25, 1e26, 1e27, 1e28, 1e29, 1e30, 1e31,
];
const POW10_POS_STEP32: [f64; 10] = [
    1e0, 1e32, 1e64, 1e96, 1e128, 1e160, 1e192, 1e224, 1e256, 1e288,
];
const POW10_NEG_STEP32: [f64; 11] = [
    1e0, 1e-32, 1e-64, 1e-96, 1e-128, 1e-160, 1e-192, 1e-224, 1e-256, 1e-288, 1e-320,
];

/// Go's `math.Pow10(n)`: a product (or quotient) of two table entries, so the result is
/// bit-identical to Go's, not merely close (`10f64.powi` is not guaranteed to be).
fn go_pow10(n: i128) -> f64 {
    if (0..=308).contains(&n) {
        let n = n as usize;
        POW10_POS_STEP32[n / 32] * POW10_SMALL[n % 32]
    } else if (-323..0).contains(&n) {
        let m = (-n) as usize;
        POW10_NEG_STEP32[m / 32] / POW10_SMALL[m % 32]
    } else if n > 0 {
        f64::INFINITY
    } else {
        0.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn milli(s: &str) -> i64 {
        parse_milli(s).unwrap_or_else(|e| panic!("{s:?} should parse: {e}"))
    }

    fn assert_out_of_range(s: &str) {
        let err = parse_milli(s).expect_err(s);
        assert!(err.reason.contains("out of range"), "{s:?}: {err}");
        assert_eq!(err.input, s);
    }

    #[test]
    fn brief_examples() {
        let cases: &[(&str, i64)] = &[
            ("300m", 300),
            ("1", 1000),
            ("0.5", 500),
            ("1n", 1),
            ("1010123648n", 1011),
            ("12u", 1),
            ("1Ki", 1_024_000),
            ("1.5Gi", 1_610_612_736_000),
            ("2e3", 2_000_000),
            ("1k", 1_000_000),
            ("1M", 1_000_000_000),
            ("1m", 1),
            ("1e3", 1_000_000),
            ("-300m", -300),
            ("-1n", -1),
            ("0", 0),
        ];
        for &(input, want) in cases {
            assert_eq!(milli(input), want, "{input}");
        }
        assert_out_of_range("1E");
    }

    /// The memory examples from the Kubernetes "Resource Management for Pods" docs.
    #[test]
    fn kubernetes_docs_memory_examples() {
        assert_eq!(milli("128974848"), 128_974_848_000);
        assert_eq!(milli("129e6"), 129_000_000_000);
        assert_eq!(milli("129M"), 129_000_000_000);
        assert_eq!(milli("128974848000m"), 128_974_848_000);
        assert_eq!(milli("123Mi"), 128_974_848_000);
        assert_eq!(milli("100Mi"), 104_857_600_000);
        assert_eq!(milli("64Mi"), 67_108_864_000);
        assert_eq!(milli("250m"), 250);
        assert_eq!(milli("0.25"), 250);
    }

    /// The valid inputs of apimachinery's `TestQuantityParse`, converted to milli-units,
    /// also with an explicit `-` and `+` in front (as that test does).
    #[test]
    fn apimachinery_parse_table() {
        let cases: &[(&str, Option<i64>)] = &[
            ("0", Some(0)),
            ("0n", Some(0)),
            ("0u", Some(0)),
            ("0m", Some(0)),
            ("0Ki", Some(0)),
            ("0k", Some(0)),
            ("0Mi", Some(0)),
            ("0M", Some(0)),
            ("0Gi", Some(0)),
            ("0G", Some(0)),
            ("0Ti", Some(0)),
            ("0T", Some(0)),
            ("1", Some(1000)),
            ("1Ki", Some(1024 * 1000)),
            ("8Ki", Some(8 * 1024 * 1000)),
            ("7Mi", Some(7 * (1 << 20) * 1000)),
            ("6Gi", Some(6 * (1 << 30) * 1000)),
            ("5Ti", Some(5 * (1i64 << 40) * 1000)),
            ("4Pi", Some(4 * (1i64 << 50) * 1000)),
            ("3Ei", None),
            ("10Ti", Some(10 * (1i64 << 40) * 1000)),
            ("100Ti", Some(100 * (1i64 << 40) * 1000)),
            ("5n", Some(1)),
            ("4u", Some(1)),
            ("3m", Some(3)),
            ("9", Some(9000)),
            ("8k", Some(8_000_000)),
            ("50k", Some(50_000_000)),
            ("7M", Some(7_000_000_000)),
            ("6G", Some(6_000_000_000_000)),
            ("5T", Some(5_000_000_000_000_000)),
            ("40T", Some(40_000_000_000_000_000)),
            ("300T", Some(300_000_000_000_000_000)),
            ("2P", Some(2_000_000_000_000_000_000)),
            ("1E", None),
            ("1E-3", Some(1)),
            ("1e3", Some(1_000_000)),
            ("1E6", Some(1_000_000_000)),
            ("1e9", Some(1_000_000_000_000)),
            ("1E12", Some(1_000_000_000_000_000)),
            ("1e15", Some(1_000_000_000_000_000_000)),
            ("1E18", None),
            ("1e14", Some(100_000_000_000_000_000)),
            ("1e13", Some(10_000_000_000_000_000)),
            ("100.035k", Some(100_035_000)),
            ("0.001", Some(1)),
            ("0.0005k", Some(500)),
            ("0.005", Some(5)),
            ("0.05", Some(50)),
            ("0.5", Some(500)),
            ("0.00050k", Some(500)),
            ("0.00500", Some(5)),
            ("0.05000", Some(50)),
            ("0.50000", Some(500)),
            ("0.5e0", Some(500)),
            ("0.5e-1", Some(50)),
            ("0.5e-2", Some(5)),
            ("10.035M", Some(10_035_000_000)),
            ("1.2e3", Some(1_200_000)),
            ("1.3E+6", Some(1_300_000_000)),
            ("1.40e9", Some(1_400_000_000_000)),
            ("1.53E12", Some(1_530_000_000_000_000)),
            ("1.6e15", Some(1_600_000_000_000_000_000)),
            ("1.7E18", None),
            ("9.01", Some(9010)),
            ("8.1k", Some(8_100_000)),
            ("7.123456M", Some(7_123_456_000)),
            ("6.987654321G", Some(6_987_654_321_000)),
            ("5.444T", Some(5_444_000_000_000_000)),
            ("40.1T", Some(40_100_000_000_000_000)),
            ("300.2T", Some(300_200_000_000_000_000)),
            ("2.5P", Some(2_500_000_000_000_000_000)),
            ("1.01E", None),
            ("3.001n", Some(1)),
            ("1.1E-9", Some(1)),
            ("0.0000000001", Some(1)),
            ("0.0000000005", Some(1)),
            ("0.00000000050", Some(1)),
            ("0.5e-9", Some(1)),
            ("0.9n", Some(1)),
            ("0.00000012345", Some(1)),
            ("0.00000012354", Some(1)),
            ("9Ei", None),
            ("9223372036854775807Ki", None),
            ("12E", None),
            ("100.035Ki", Some(102_435_840)),
            ("0.5Mi", Some(524_288_000)),
            ("0.05Gi", Some(53_687_091_200)),
            ("0.025Ti", Some(27_487_790_694_400)),
            ("0.000000000001Ki", Some(1)),
            (".001", Some(1)),
            (".0001k", Some(100)),
            ("1.", Some(1000)),
            ("1.G", Some(1_000_000_000_000)),
        ];
        for &(input, want) in cases {
            for (prefix, sign) in [("", 1), ("-", -1), ("+", 1)] {
                let text = format!("{prefix}{input}");
                match want {
                    Some(v) => assert_eq!(milli(&text), sign * v, "{text}"),
                    None => assert_out_of_range(&text),
                }
            }
        }
    }

    #[test]
    fn rounding_is_away_from_zero() {
        assert_eq!(milli("0.0001"), 1);
        assert_eq!(milli("-0.0001"), -1);
        assert_eq!(milli("1.0001"), 1001);
        assert_eq!(milli("-1.0001"), -1001);
        assert_eq!(milli("1.999999999999"), 2000);
        assert_eq!(milli("999.9999"), 1_000_000);
        assert_eq!(milli("1500u"), 2);
        assert_eq!(milli("1000u"), 1);
        assert_eq!(milli("-0.0001Ki"), -103); // -102.4m
        assert_eq!(milli("0.0001Ki"), 103);
        assert_eq!(milli("1.5Ki"), 1_536_000);
        assert_eq!(milli("0.1Ki"), 102_400);
        assert_eq!(milli("0.0000001Ki"), 1); // 0.0001024 units
    }

    #[test]
    fn tiny_and_huge_exponents() {
        assert_eq!(milli("1e-999"), 1);
        assert_eq!(milli("-1e-999"), -1);
        assert_eq!(milli("1e-9223372036854775808"), 1);
        assert_eq!(milli("0e-9223372036854775808"), 0);
        assert_eq!(milli("0e9223372036854775807"), 0);
        assert_eq!(milli("0e999999999"), 0);
        assert_eq!(milli("000e5"), 0);
        assert_eq!(milli("1e0003"), 1_000_000);
        assert_eq!(milli("1e+3"), 1_000_000);
        assert_eq!(milli("1E-0"), 1000);
        assert_eq!(milli("5e15"), 5_000_000_000_000_000_000);
        assert_out_of_range("1e999999999");
        assert_out_of_range("1e9223372036854775807");
        assert_out_of_range("-1e999999999");
        assert_out_of_range("1e4294967296"); // Go wraps this exponent to 0; we do not
    }

    #[test]
    fn int64_boundaries() {
        assert_eq!(milli("9223372036854775807m"), i64::MAX);
        assert_eq!(milli("9223372036854775.807"), i64::MAX);
        assert_eq!(milli("9223372036854775.8069"), i64::MAX);
        assert_eq!(milli("-9223372036854775808m"), i64::MIN);
        assert_eq!(milli("-9223372036854775.808"), i64::MIN);
        assert_out_of_range("9223372036854775808m");
        assert_out_of_range("9223372036854775.8071");
        assert_out_of_range("-9223372036854775809m");
        assert_out_of_range("-9223372036854775.8081");
        assert_out_of_range("9223372036854775808");
        assert_out_of_range("8Ei");
        assert_out_of_range("9Pi");
        assert_eq!(milli("8Pi"), 8 * (1i64 << 50) * 1000);
        assert_eq!(milli("8388Ti"), 8388 * (1i64 << 40) * 1000);
        assert_out_of_range("8389Ti");
        assert_out_of_range("100000000000000000000000000000000000000000000000000");
    }

    #[test]
    fn long_digit_strings_are_exact() {
        assert_eq!(milli("0000000000000000000000000000000000000001"), 1000);
        assert_eq!(milli("123456789012345678901234567890e-27"), 123_457);
        assert_eq!(
            milli("1.000000000000000000000000000000000000000000001"),
            1001
        );
        assert_eq!(
            milli("1.000000000000000000000000000000000000000000000"),
            1000
        );
        assert_eq!(
            milli("0.000000000000000000000000000000000000000000000000000001"),
            1
        );
        let fifty = "12345678901234567890123456789012345678901234567890";
        assert_eq!(milli(&format!("{fifty}e-53")), 1);
        assert_eq!(milli(&format!("{fifty}e-50")), 124);
        assert_eq!(milli(&format!("{fifty}e-47")), 123_457);
        assert_eq!(milli(&format!("{fifty}e-35")), 123_456_789_012_345_679);
        assert_out_of_range(&format!("{fifty}e-30"));
    }

    /// Every input apimachinery's `TestQuantityParse` rejects, plus more garbage.
    #[test]
    fn errors() {
        let cases: &[(&str, &str)] = &[
            ("", "empty string"),
            (" 1", "whitespace"),
            ("1 ", "whitespace"),
            ("1 Ki", "whitespace"),
            ("\t1", "whitespace"),
            ("1\n", "whitespace"),
            ("1.1.M", "more than one decimal point"),
            ("1..5", "more than one decimal point"),
            ("1+1.0M", "unexpected sign"),
            ("1-", "unexpected sign"),
            ("++1", "more than one sign"),
            ("+-1", "more than one sign"),
            ("--1", "more than one sign"),
            ("0.1mi", "did you mean \"Mi\""),
            ("1mi", "did you mean \"Mi\""),
            ("1K", "did you mean \"k\""),
            ("1ki", "did you mean \"Ki\""),
            ("1KI", "did you mean \"Ki\""),
            ("0.1am", "unknown suffix \"am\""),
            (".5i", "unknown suffix \"i\""),
            ("1i", "unknown suffix \"i\""),
            ("-3.01i", "unknown suffix \"i\""),
            ("1KiB", "unknown suffix \"KiB\""),
            ("1Zi", "unknown suffix"),
            ("1Z", "unknown suffix"),
            ("1µ", "unknown suffix"),
            ("1,5", "unknown suffix"),
            ("1_000", "unknown suffix"),
            ("0x10", "unknown suffix"),
            ("1/2", "unknown suffix"),
            ("1\u{0}", "unknown suffix"),
            ("-3.01e-", "exponent has no digits"),
            ("1e", "exponent has no digits"),
            ("1e+", "exponent has no digits"),
            ("1e-", "exponent has no digits"),
            ("1e1.5", "malformed exponent"),
            ("1e.5", "malformed exponent"),
            ("1e3k", "malformed exponent"),
            ("1E3Ki", "malformed exponent"),
            ("1e+-3", "malformed exponent"),
            ("1ee3", "malformed exponent"),
            ("1e99999999999999999999", "exponent out of range"),
            ("1e9223372036854775808", "exponent out of range"),
            ("1e-9223372036854775809", "exponent out of range"),
            ("0e99999999999999999999", "exponent out of range"),
            ("aoeu", "expected a number"),
            ("NaN", "expected a number"),
            ("nan", "expected a number"),
            ("Inf", "expected a number"),
            ("+Inf", "expected a number"),
            ("Infinity", "expected a number"),
            ("１", "expected a number"),
            ("٣", "expected a number"),
            ("−1", "expected a number"),
            ("-", "no digits after the sign"),
            ("+", "no digits after the sign"),
            (".", "no digits"),
            ("-.", "no digits"),
            ("m", "no digits before the suffix"),
            ("Ki", "no digits before the suffix"),
            ("E", "no digits before the suffix"),
            (".k", "no digits before the suffix"),
            ("e5", "expected a number"),
        ];
        for &(input, reason) in cases {
            let err = parse_milli(input).expect_err(input);
            assert_eq!(err.input, input);
            assert!(
                err.reason.contains(reason),
                "{input:?}: reason {:?} should mention {reason:?}",
                err.reason
            );
            assert_eq!(parse_f64(input).expect_err(input), err);
        }
    }

    #[test]
    fn error_display() {
        let err = parse_milli("1K").unwrap_err();
        assert!(
            err.to_string()
                .starts_with("invalid quantity \"1K\": unknown suffix"),
            "{err}"
        );
        let err = parse_milli("1E").unwrap_err();
        assert_eq!(
            err.to_string(),
            "invalid quantity \"1E\": out of range: the value in milli-units does not fit \
             in a signed 64-bit integer"
        );
        let boxed: Box<dyn std::error::Error> = Box::new(err);
        assert!(boxed.to_string().contains("1E"));
    }

    #[test]
    fn f64_values() {
        let cases: &[(&str, f64)] = &[
            ("0.1", 0.1),
            ("50m", 0.05),
            ("0.05", 0.05),
            ("1Ki", 1024.0),
            ("100m", 0.1),
            ("1", 1.0),
            ("-0.5", -0.5),
            ("5e-2", 0.05),
            ("0", 0.0),
            ("-0", 0.0),
            ("0.0Ki", 0.0),
            ("1.5", 1.5),
            ("2k", 2000.0),
            ("1Mi", 1_048_576.0),
            ("-3Gi", -3_221_225_472.0),
            ("0.25", 0.25),
            ("1e400", f64::INFINITY),
            ("-1e400", f64::NEG_INFINITY),
            ("0e400", 0.0),
            // inf.Dec path: rounded up to 1n, then 1 × 10^-9.
            ("1e-400", 1e-9),
            ("-1e-400", -1e-9),
            // Binary values above 2^63-1 are capped by ParseQuantity.
            ("9Ei", i64::MAX as f64),
            ("-9Ei", -(i64::MAX as f64)),
            ("99999999999999999999Ki", i64::MAX as f64),
            ("1e500", f64::INFINITY),
        ];
        for &(input, want) in cases {
            let got = parse_f64(input).unwrap();
            assert_eq!(got, want, "{input}");
            assert!(!got.is_sign_negative() || want < 0.0, "{input}: -0.0");
        }
        // The two Go computations, spelled out.
        assert_eq!(parse_f64("50m").unwrap(), 50.0 * 0.001);
        assert_eq!(parse_f64("0.05").unwrap(), 5.0 * 0.01);
        assert_eq!(parse_f64("1.5Gi").unwrap(), 1_610_612_736e9 * (1.0 / 1e9));
        let gib = parse_f64("1.5Gi").unwrap();
        assert!((gib - 1_610_612_736.0).abs() < 1e-6, "{gib}");
        let ei = parse_f64("1Ei").unwrap();
        assert!((ei - (1u64 << 60) as f64).abs() / ei < 1e-15, "{ei}");
        let long = parse_f64("1234567890.1234567890123").unwrap();
        assert!((long - 1_234_567_890.123_456_8).abs() < 1e-6, "{long}");
    }

    #[test]
    fn go_pow10_matches_literals_where_exact() {
        for n in -22..=22i128 {
            let literal: f64 = format!("1e{n}").parse().unwrap();
            assert_eq!(go_pow10(n), literal, "10^{n}");
        }
        assert_eq!(go_pow10(309), f64::INFINITY);
        assert_eq!(go_pow10(-324), 0.0);
        assert!(go_pow10(-323) > 0.0);
        assert!(go_pow10(308).is_finite());
    }

    #[test]
    fn decimal_si_examples() {
        let cases: &[(i64, &str)] = &[
            (1500, "1500m"),
            (1000, "1"),
            (100, "100m"),
            (10000, "10"),
            (2_000_000, "2k"),
            (23750, "23750m"),
            (0, "0"),
            (1, "1m"),
            (999, "999m"),
            (-1500, "-1500m"),
            (-1000, "-1"),
            (-2_000_000, "-2k"),
            (1_000_000, "1k"),
            (1_500_000, "1500"),
            (1_000_000_000, "1M"),
            (1_000_000_000_000, "1G"),
            (1_000_000_000_000_000, "1T"),
            (1_000_000_000_000_000_000, "1P"),
            (9_000_000_000_000_000_000, "9P"),
            (120_000, "120"),
            (128_974_848_000, "128974848"),
            (129_000_000_000, "129M"),
            (104_857_600_000, "104857600"),
            (i64::MAX, "9223372036854775807m"),
            (i64::MIN, "-9223372036854775808m"),
            (i64::MAX - 807, "9223372036854775"),
        ];
        for &(value, want) in cases {
            assert_eq!(format_decimal_si(value), want, "{value}");
        }
    }

    #[test]
    fn binary_si_examples() {
        let cases: &[(i64, &str)] = &[
            (1_048_576_000, "1Mi"),
            (1_572_864_000, "1536Ki"),
            (1_073_741_824_000, "1Gi"),
            (1_500_000_000, "1500000"),
            (1_500_500, "1500500m"),
            (0, "0"),
            (512_000, "512"),
            (1_000_000, "1k"), // below 1024 units: DecimalSI, so 1000 bytes is "1k"
            (1_500, "1500m"),
            (1, "1m"),
            (1_023_000, "1023"),
            (1_023_999, "1023999m"),
            (1_024_000, "1Ki"),
            (1_025_000, "1025"),
            (2_048_000, "2Ki"),
            (104_857_600_000, "100Mi"),
            (128_974_848_000, "123Mi"),
            (129_000_000_000, "129000000"),
            (1_125_899_906_842_624_000, "1Pi"),
            (-1_048_576_000, "-1Mi"),
            (-1_000_000, "-1k"),
            (-512_000, "-512"),
            (-1_500_500, "-1500500m"),
            (i64::MAX, "9223372036854775807m"),
            (i64::MIN, "-9223372036854775808m"),
        ];
        for &(value, want) in cases {
            assert_eq!(format_binary_si(value), want, "{value}");
        }
    }

    /// A small deterministic generator so round trips cover many magnitudes.
    fn sample_values() -> Vec<i64> {
        let mut values = vec![
            0,
            1,
            -1,
            999,
            1000,
            1001,
            1_024_000,
            i64::MAX,
            i64::MIN,
            i64::MAX - 1,
            i64::MIN + 1,
        ];
        let mut power = 1i64;
        for _ in 0..19 {
            values.extend([power, -power, power * 7, power.saturating_mul(3) + 1]);
            power = power.saturating_mul(10);
        }
        for k in 0..53 {
            values.extend([1000i64 << k, -(1000i64 << k), (1000i64 << k) + 1000]);
        }
        let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
        for _ in 0..2000 {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            let shift = (state >> 58) as u32; // 0..63
            values.push((state as i64) >> shift);
        }
        values
    }

    #[test]
    fn round_trips() {
        for value in sample_values() {
            let decimal = format_decimal_si(value);
            assert_eq!(parse_milli(&decimal), Ok(value), "{value} -> {decimal}");
            let binary = format_binary_si(value);
            assert_eq!(parse_milli(&binary), Ok(value), "{value} -> {binary}");
        }
    }
}
