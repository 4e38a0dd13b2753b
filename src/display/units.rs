//! Values in the units people use: memory in Mi/Gi, custom metrics as plain numbers, CPU in
//! millicores, durations in whole seconds, times of the same day as `11:55:30`.
//!
//! Text output only: JSON and YAML keep the controller's exact quantities and timestamps.

use jiff::{SignedDuration, Timestamp};

/// What a metric measures, for choosing its unit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    /// CPU cores: `250m`, `2`.
    Cpu,
    /// Bytes: `734Mi`, `1.5Gi`.
    Bytes,
    /// A plain number (custom and external metrics): `12.5`, `87`.
    Plain,
}

impl Unit {
    /// The unit of a resource name (`cpu`, `memory`, `ephemeral-storage`, `hugepages-2Mi`).
    pub fn of_resource(resource: &str) -> Unit {
        match resource {
            "cpu" => Unit::Cpu,
            "memory" | "ephemeral-storage" | "storage" => Unit::Bytes,
            r if r.starts_with("hugepages-") => Unit::Bytes,
            _ => Unit::Plain,
        }
    }

    /// A milli-unit value in this unit.
    pub fn show(self, milli: i64) -> String {
        match self {
            Unit::Cpu => crate::quantity::format_decimal_si(milli),
            Unit::Bytes => bytes(milli),
            Unit::Plain => plain(milli),
        }
    }
}

/// The unit of a metric as the last sync's comparison names it (`resource memory`,
/// `containerResource app/cpu`, `pods http_requests`): a resource's, else a plain number.
pub fn unit_of_metric_name(metric: &str) -> Unit {
    match metric.split_once(' ') {
        Some(("resource", r)) => Unit::of_resource(r),
        Some(("containerResource", cr)) => Unit::of_resource(cr.rsplit('/').next().unwrap_or("")),
        _ => Unit::Plain,
    }
}

/// A metric's value as the HPA's status writes it (`averageUtilization`, `averageValue`,
/// `value` quantities), shown as the Metrics table shows values: `83% (416m/pod)`,
/// `734Mi/pod`, `31/pod`, `117.5`. A quantity that does not parse is shown as written.
pub fn status_value(
    utilization: Option<i32>,
    average_value: Option<&str>,
    value: Option<&str>,
    unit: Unit,
) -> String {
    let show = |q: &str| {
        crate::quantity::parse_milli(q)
            .map(|m| unit.show(m))
            .unwrap_or_else(|_| q.to_string())
    };
    let average = average_value.map(|q| format!("{}/pod", show(q)));
    let mut out = match (utilization, average) {
        (Some(u), Some(a)) => format!("{u}% ({a})"),
        (Some(u), None) => format!("{u}%"),
        (None, Some(a)) => a,
        (None, None) => String::new(),
    };
    if let Some(v) = value {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(&show(v));
    }
    if out.is_empty() {
        out.push('-');
    }
    out
}

/// A milli-unit value as a plain decimal number: 12500 → `12.5`, 87000 → `87`, 1 → `0.001`.
pub fn plain(milli: i64) -> String {
    let sign = if milli < 0 { "-" } else { "" };
    let m = milli.unsigned_abs();
    let (whole, frac) = (m / 1000, m % 1000);
    if frac == 0 {
        return format!("{sign}{whole}");
    }
    let f = format!("{frac:03}");
    format!("{sign}{whole}.{}", f.trim_end_matches('0'))
}

/// Milli-bytes in binary units, rounded to three significant digits at most:
/// 769636352000 → `734Mi`, 1610612736000 → `1.5Gi`, 512000 → `512B`.
pub fn bytes(milli: i64) -> String {
    const UNITS: [&str; 6] = ["B", "Ki", "Mi", "Gi", "Ti", "Pi"];
    let sign = if milli < 0 { "-" } else { "" };
    let mut v = milli.unsigned_abs() as f64 / 1000.0;
    let mut i = 0;
    while v >= 1024.0 && i + 1 < UNITS.len() {
        v /= 1024.0;
        i += 1;
    }
    let text = if i == 0 || v >= 100.0 {
        format!("{v:.0}")
    } else if v >= 10.0 {
        format!("{v:.1}")
    } else {
        format!("{v:.2}")
    };
    let text = if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        text
    };
    format!("{sign}{text}{}", UNITS[i])
}

/// A duration in whole seconds, the largest units first: `45s`, `5m30s`, `2h0m5s`, `268d2h`.
pub fn duration(d: SignedDuration) -> String {
    let secs = d.as_secs();
    let sign = if secs < 0 { "-" } else { "" };
    let s = secs.unsigned_abs();
    let (days, h, m, sec) = (s / 86_400, s % 86_400 / 3600, s % 3600 / 60, s % 60);
    let body = if days >= 2 {
        format!("{days}d{h}h")
    } else if s >= 3600 {
        format!("{}h{m}m{sec}s", s / 3600)
    } else if s >= 60 {
        format!("{m}m{sec}s")
    } else {
        format!("{sec}s")
    };
    format!("{sign}{body}")
}

/// A time for text output: `11:55:30` on the day of `now` (UTC), else `2026-02-20 15:02:41`;
/// never fractional seconds.
pub fn time(t: Timestamp, now: Timestamp) -> String {
    let (dt, dn) = (
        t.to_zoned(jiff::tz::TimeZone::UTC),
        now.to_zoned(jiff::tz::TimeZone::UTC),
    );
    if dt.date() == dn.date() {
        dt.strftime("%H:%M:%S").to_string()
    } else {
        dt.strftime("%Y-%m-%d %H:%M:%S").to_string()
    }
}

/// A time with how long before `now` it was: `11:59:52 (8s ago)`.
pub fn time_ago(t: Timestamp, now: Timestamp) -> String {
    let d = now.duration_since(t);
    if d.is_negative() {
        format!("{} (in {})", time(t, now), duration(-d))
    } else {
        format!("{} ({} ago)", time(t, now), duration(d))
    }
}

/// A time to the second with its date: `2026-03-01T12:00:00Z` (no fractional seconds).
pub fn full_time(t: Timestamp) -> String {
    t.to_zoned(jiff::tz::TimeZone::UTC)
        .strftime("%Y-%m-%dT%H:%M:%SZ")
        .to_string()
}

/// Prose with RFC 3339 UTC timestamps (`2026-03-01T11:55:30.5Z`) rewritten by [`time`]:
/// `11:55:30` on the day of `now`, else `2026-02-20 15:02:41`.
pub fn tidy_times(text: &str, now: Timestamp) -> String {
    let b = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut copied = 0;
    let mut i = 0;
    while i < b.len() {
        match timestamp_at(b, i) {
            Some(end) => {
                let parsed = text[i..end].parse::<Timestamp>();
                if let Ok(t) = parsed {
                    out.push_str(&text[copied..i]);
                    out.push_str(&time(t, now));
                    copied = end;
                }
                i = end;
            }
            None => i += 1,
        }
    }
    out.push_str(&text[copied..]);
    out
}

/// The end of a `YYYY-MM-DDTHH:MM:SS(.f+)?Z` starting at `i` (not inside a longer number).
fn timestamp_at(b: &[u8], i: usize) -> Option<usize> {
    const SHAPE: &[u8] = b"dddd-dd-ddTdd:dd:dd";
    if i > 0 && b[i - 1].is_ascii_alphanumeric() {
        return None;
    }
    if b.len() < i + SHAPE.len() + 1 {
        return None;
    }
    for (k, want) in SHAPE.iter().enumerate() {
        let c = b[i + k];
        let ok = match want {
            b'd' => c.is_ascii_digit(),
            w => c == *w,
        };
        if !ok {
            return None;
        }
    }
    let mut j = i + SHAPE.len();
    if b.get(j) == Some(&b'.') {
        j += 1;
        while b.get(j).is_some_and(u8::is_ascii_digit) {
            j += 1;
        }
    }
    (b.get(j) == Some(&b'Z')).then_some(j + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_values_in_the_tables_units() {
        let mem = unit_of_metric_name("resource memory");
        assert_eq!(mem, Unit::Bytes);
        assert_eq!(status_value(None, Some("751598Ki"), None, mem), "734Mi/pod");
        let pods = unit_of_metric_name("pods http_requests_per_second");
        assert_eq!(status_value(None, Some("21250m"), None, pods), "21.25/pod");
        let cpu = unit_of_metric_name("containerResource app/cpu");
        assert_eq!(
            status_value(Some(83), Some("416m"), None, cpu),
            "83% (416m/pod)"
        );
        assert_eq!(
            status_value(None, None, Some("117500m"), Unit::Plain),
            "117.5"
        );
        assert_eq!(status_value(None, None, None, Unit::Plain), "-");
    }

    #[test]
    fn plain_numbers_drop_the_milli_suffix() {
        assert_eq!(plain(12_500), "12.5");
        assert_eq!(plain(87_000), "87");
        assert_eq!(plain(1), "0.001");
        assert_eq!(plain(-1_250), "-1.25");
        assert_eq!(plain(0), "0");
    }

    #[test]
    fn memory_is_in_binary_units() {
        assert_eq!(bytes(769_636_352_000), "734Mi");
        assert_eq!(bytes(660 * 1024 * 1024 * 1000), "660Mi");
        assert_eq!(bytes(1_610_612_736_000), "1.5Gi");
        assert_eq!(bytes(512_000), "512B");
        assert_eq!(bytes(1536 * 1000), "1.5Ki");
        assert_eq!(Unit::of_resource("memory").show(1024 * 1024 * 1000), "1Mi");
        assert_eq!(Unit::of_resource("cpu").show(250), "250m");
        assert_eq!(Unit::of_resource("queue").show(250), "0.25");
    }

    #[test]
    fn durations_have_no_nanoseconds() {
        let d = SignedDuration::new(6432 * 3600 + 17 * 60 + 18, 872_304_787);
        assert_eq!(duration(d), "268d0h");
        assert_eq!(duration(SignedDuration::from_secs(45)), "45s");
        assert_eq!(duration(SignedDuration::from_secs(330)), "5m30s");
        assert_eq!(duration(SignedDuration::from_secs(7205)), "2h0m5s");
        assert_eq!(duration(SignedDuration::from_millis(7_500)), "7s");
    }

    #[test]
    fn prose_times_are_tidied() {
        let now: Timestamp = "2026-03-01T12:00:00Z".parse().unwrap();
        assert_eq!(
            tidy_times(
                "scaled at 2026-03-01T11:55:30Z (x); old 2026-02-20T15:02:41.872304787Z.",
                now
            ),
            "scaled at 11:55:30 (x); old 2026-02-20 15:02:41."
        );
        assert_eq!(
            tidy_times("no 12026-03-01T11:55:30Z time", now),
            "no 12026-03-01T11:55:30Z time"
        );
        assert_eq!(tidy_times("2026-03-01T11:55:3", now), "2026-03-01T11:55:3");
        assert_eq!(
            full_time("2026-03-01T11:55:30.25Z".parse().unwrap()),
            "2026-03-01T11:55:30Z"
        );
    }

    #[test]
    fn times_of_the_same_day_are_short() {
        let now: Timestamp = "2026-03-01T12:00:00Z".parse().unwrap();
        let t: Timestamp = "2026-03-01T11:59:52.5Z".parse().unwrap();
        assert_eq!(time(t, now), "11:59:52");
        assert_eq!(time_ago(t, now), "11:59:52 (7s ago)");
        let old: Timestamp = "2026-02-20T15:02:41Z".parse().unwrap();
        assert_eq!(time(old, now), "2026-02-20 15:02:41");
    }
}
