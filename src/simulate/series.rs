//! Load signals: a value over time, from a synthetic shape or a recorded time series.
//!
//! Values are in the metric's own unit as a float (CPU cores, bytes, requests per second);
//! time is seconds since the start of the simulation. Parsing never panics: every error
//! names the source, and the line, field or token that is wrong.

use std::f64::consts::PI;
use std::fmt;

use serde::Serialize;

use crate::duration::{format_go_duration, parse_go_duration};
use crate::quantity::parse_milli;

/// A load series that cannot be used (a shorthand shape, a CSV file, a Prometheus export): one
/// line naming the flag, file or line and what is wrong. `simulate`'s error wraps it
/// ([`SimulateError::Series`](super::error::SimulateError::Series)).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SeriesError(pub String);

impl std::fmt::Display for SeriesError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for SeriesError {}

/// How a recorded series is read between two points.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize, Default, clap::ValueEnum,
)]
#[serde(rename_all = "camelCase")]
pub enum Interpolation {
    /// A point's value holds until the next point.
    Step,
    /// Straight line between neighbouring points.
    #[default]
    Linear,
}

impl fmt::Display for Interpolation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Interpolation::Step => "step",
            Interpolation::Linear => "linear",
        })
    }
}

/// A synthetic load shape.
#[derive(Debug, Clone, PartialEq)]
pub enum Shape {
    /// The same value all the time.
    Constant { value: f64 },
    /// `from` until `at`, then `to`.
    Step { from: f64, to: f64, at: f64 },
    /// `from` until `start`, a straight line to `to` at `end`, then `to`.
    Ramp {
        from: f64,
        to: f64,
        start: f64,
        end: f64,
    },
    /// `base`, except `peak` during `[at, at + duration)`.
    Spike {
        base: f64,
        peak: f64,
        at: f64,
        duration: f64,
    },
    /// `mean + amplitude × sin(2π t / period)`.
    Sine {
        mean: f64,
        amplitude: f64,
        period: f64,
    },
}

impl Shape {
    /// The value at `t` seconds.
    pub fn value_at(&self, t: f64) -> f64 {
        match *self {
            Shape::Constant { value } => value,
            Shape::Step { from, to, at } => {
                if t < at {
                    from
                } else {
                    to
                }
            }
            Shape::Ramp {
                from,
                to,
                start,
                end,
            } => {
                if t <= start {
                    from
                } else if t >= end {
                    to
                } else {
                    from + (to - from) * (t - start) / (end - start)
                }
            }
            Shape::Spike {
                base,
                peak,
                at,
                duration,
            } => {
                if t >= at && t < at + duration {
                    peak
                } else {
                    base
                }
            }
            Shape::Sine {
                mean,
                amplitude,
                period,
            } => mean + amplitude * (2.0 * PI * t / period).sin(),
        }
    }

    /// Check the shape's parameters; `what` names it in errors.
    fn validate(&self, what: &str) -> Result<(), SeriesError> {
        let neg = |name: &str, v: f64| -> Result<(), SeriesError> {
            if !v.is_finite() || v < 0.0 {
                return Err(SeriesError(format!(
                    "{what}: {name} must be a load >= 0, got {v}"
                )));
            }
            Ok(())
        };
        match *self {
            Shape::Constant { value } => neg("value", value),
            Shape::Step { from, to, .. } => neg("from", from).and(neg("to", to)),
            Shape::Ramp {
                from,
                to,
                start,
                end,
            } => {
                neg("from", from)?;
                neg("to", to)?;
                if end < start {
                    return Err(SeriesError(format!(
                        "{what}: the ramp ends ({}) before it starts ({})",
                        secs(end),
                        secs(start)
                    )));
                }
                Ok(())
            }
            Shape::Spike { base, peak, .. } => neg("base", base).and(neg("peak", peak)),
            Shape::Sine {
                mean,
                amplitude,
                period,
            } => {
                neg("mean", mean)?;
                if !amplitude.is_finite() || amplitude.abs() > mean {
                    return Err(SeriesError(format!(
                        "{what}: the amplitude {amplitude} is larger than the mean {mean}, so the load would go negative"
                    )));
                }
                if period <= 0.0 {
                    return Err(SeriesError(format!(
                        "{what}: the period must be greater than zero"
                    )));
                }
                Ok(())
            }
        }
    }
}

impl Shape {
    /// The shape in words, each value written by `value` (plain numbers, or a metric's units):
    /// `ramp 300Mi → 900Mi from +5m0s to +20m0s`.
    pub fn describe(&self, value: impl Fn(f64) -> String) -> String {
        match *self {
            Shape::Constant { value: v } => format!("constant {}", value(v)),
            Shape::Step { from, to, at } => {
                format!("step {} → {} at +{}", value(from), value(to), secs(at))
            }
            Shape::Ramp {
                from,
                to,
                start,
                end,
            } => format!(
                "ramp {} → {} from +{} to +{}",
                value(from),
                value(to),
                secs(start),
                secs(end)
            ),
            Shape::Spike {
                base,
                peak,
                at,
                duration,
            } => format!(
                "spike {} → {} at +{} for {}",
                value(base),
                value(peak),
                secs(at),
                secs(duration)
            ),
            Shape::Sine {
                mean,
                amplitude,
                period,
            } => format!(
                "sine {} ± {} every {}",
                value(mean),
                value(amplitude),
                secs(period)
            ),
        }
    }
}

impl fmt::Display for Shape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.describe(num))
    }
}

/// A recorded time series: points strictly increasing in time, values >= 0.
#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    /// `(seconds, value)`.
    points: Vec<(f64, f64)>,
    pub interpolation: Interpolation,
    /// Where it came from (a file name), for the description.
    pub source: String,
}

impl Series {
    /// Build a series; `points` must already be validated (see [`SeriesBuilder`]).
    fn new(points: Vec<(f64, f64)>, interpolation: Interpolation, source: String) -> Series {
        Series {
            points,
            interpolation,
            source,
        }
    }

    /// The value at `t` seconds: the first value before the first point, the last after the last.
    pub fn value_at(&self, t: f64) -> f64 {
        let i = self.points.partition_point(|p| p.0 <= t);
        if i == 0 {
            return self.points[0].1;
        }
        let (t0, v0) = self.points[i - 1];
        match (self.interpolation, self.points.get(i)) {
            (Interpolation::Linear, Some(&(t1, v1))) => v0 + (v1 - v0) * (t - t0) / (t1 - t0),
            _ => v0,
        }
    }

    /// Number of points.
    pub fn len(&self) -> usize {
        self.points.len()
    }

    /// Time of the last point, seconds.
    pub fn end(&self) -> f64 {
        self.points.last().map(|p| p.0).unwrap_or(0.0)
    }
}

/// Collects points and checks their order and sign as they come.
pub struct SeriesBuilder {
    points: Vec<(f64, f64)>,
}

impl SeriesBuilder {
    pub fn new() -> SeriesBuilder {
        SeriesBuilder { points: Vec::new() }
    }

    /// Add a point; `at` names it in errors (`file.csv line 4`, `loads[0].points[2]`).
    pub fn push(&mut self, t: f64, v: f64, at: &str) -> Result<(), SeriesError> {
        if !v.is_finite() {
            return Err(SeriesError(format!("{at}: value {v} is not a number")));
        }
        if v < 0.0 {
            return Err(SeriesError(format!(
                "{at}: negative load {} is not allowed",
                num(v)
            )));
        }
        if let Some(&(prev, _)) = self.points.last() {
            if t <= prev {
                return Err(SeriesError(format!(
                    "{at}: time +{} is not after the previous point (+{}); points must be in increasing time order",
                    secs(t),
                    secs(prev)
                )));
            }
        }
        self.points.push((t, v));
        Ok(())
    }

    /// Finish; an empty series is an error naming `source`.
    pub fn build(self, interpolation: Interpolation, source: &str) -> Result<Series, SeriesError> {
        if self.points.is_empty() {
            return Err(SeriesError(format!(
                "{source}: the time series has no points"
            )));
        }
        Ok(Series::new(self.points, interpolation, source.to_string()))
    }
}

impl Default for SeriesBuilder {
    fn default() -> Self {
        SeriesBuilder::new()
    }
}

/// A load over time.
#[derive(Debug, Clone, PartialEq)]
pub enum Signal {
    Shape(Shape),
    Series(Series),
}

impl Signal {
    /// The value at `t` seconds since the start.
    pub fn value_at(&self, t: f64) -> f64 {
        match self {
            Signal::Shape(s) => s.value_at(t),
            Signal::Series(s) => s.value_at(t),
        }
    }
}

impl fmt::Display for Signal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Signal::Shape(s) => s.fmt(f),
            Signal::Series(s) => write!(
                f,
                "{} points from {} ({} interpolation)",
                s.len(),
                s.source,
                s.interpolation
            ),
        }
    }
}

/// Format a value compactly (`1.5`, `200`, `0.333`).
pub fn num(v: f64) -> String {
    let mut s = String::new();
    push_num(&mut s, v);
    s
}

/// [`num`], written at the end of `out`.
pub fn push_num(out: &mut String, v: f64) {
    use std::fmt::Write as _;
    if v == v.trunc() && v.abs() < 1e15 {
        let _ = write!(out, "{}", v as i64);
    } else {
        let start = out.len();
        let _ = write!(out, "{v:.3}");
        while out.len() > start && out.ends_with('0') {
            out.pop();
        }
        while out.len() > start && out.ends_with('.') {
            out.pop();
        }
    }
}

/// Format seconds as a Go duration (`5m`, `1m30s`).
pub fn secs(s: f64) -> String {
    format_go_duration((s * 1e9).round() as i64)
}

/// A duration as Go prints it (`1m30s`).
pub fn go(d: jiff::SignedDuration) -> String {
    format_go_duration(d.as_nanos().clamp(i64::MIN as i128, i64::MAX as i128) as i64)
}

/// A token of a load that cannot be read; the caller names where it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TokenError {
    /// Not a number or a quantity.
    Value { text: String, detail: String },
    /// Not a duration or a number of seconds.
    Time { text: String, detail: String },
}

impl fmt::Display for TokenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TokenError::Value { text, detail } => write!(
                f,
                "invalid value {text:?}: expected a number or a quantity such as 1500m ({detail})"
            ),
            TokenError::Time { text, detail } => write!(
                f,
                "invalid time {text:?}: expected a duration such as 90s or 5m, or seconds ({detail})"
            ),
        }
    }
}

impl std::error::Error for TokenError {}

/// A load value: a plain number (`1.5`) or a Kubernetes quantity (`1500m`, `512Mi`).
pub fn parse_value(s: &str) -> Result<f64, TokenError> {
    let s = s.trim();
    if let Ok(v) = s.parse::<f64>() {
        if v.is_finite() {
            return Ok(v);
        }
    }
    parse_milli(s)
        .map(|m| m as f64 / 1000.0)
        .map_err(|e| TokenError::Value {
            text: s.to_string(),
            detail: e.to_string(),
        })
}

/// A duration offset: a Go duration (`90s`, `1m30s`) or a number of seconds (`90`).
pub fn parse_offset(s: &str) -> Result<f64, TokenError> {
    let s = s.trim();
    if let Ok(v) = s.parse::<f64>() {
        if v.is_finite() {
            return Ok(v);
        }
    }
    parse_go_duration(s)
        .map(|n| n as f64 / 1e9)
        .map_err(|e| TokenError::Time {
            text: s.to_string(),
            detail: e.to_string(),
        })
}

/// A time column: an offset, or an RFC3339 instant (seconds since the Unix epoch, flagged absolute).
fn parse_time_cell(s: &str) -> Result<(f64, bool), TokenError> {
    if let Ok(ts) = s.trim().parse::<jiff::Timestamp>() {
        return Ok((ts.as_nanosecond() as f64 / 1e9, true));
    }
    parse_offset(s).map(|t| (t, false))
}

/// Parse a `time,value` CSV. An optional header line is skipped; blank lines and `#` comments
/// are ignored. Times are offsets (`90s`, `90`) or RFC3339 instants (then relative to the first row).
pub fn parse_csv(
    text: &str,
    source: &str,
    interpolation: Interpolation,
) -> Result<Series, SeriesError> {
    let mut b = SeriesBuilder::new();
    let mut first_abs: Option<(f64, bool)> = None;
    let mut seen_data = false;
    for (i, raw) in text.lines().enumerate() {
        let line_no = i + 1;
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let at = format!("{source} line {line_no}");
        let cells: Vec<&str> = line.split(',').map(str::trim).collect();
        if cells.len() != 2 {
            return Err(SeriesError(format!(
                "{at}: expected 2 columns (time,value), found {}",
                cells.len()
            )));
        }
        let time = parse_time_cell(cells[0]);
        if !seen_data && time.is_err() && cells[1].parse::<f64>().is_err() {
            // A header such as `time,value`.
            seen_data = true;
            continue;
        }
        seen_data = true;
        let (t, absolute) = time.map_err(|e| SeriesError(format!("{at}: column 1: {e}")))?;
        let v = parse_value(cells[1]).map_err(|e| SeriesError(format!("{at}: column 2: {e}")))?;
        let (origin, origin_abs) =
            *first_abs.get_or_insert((if absolute { t } else { 0.0 }, absolute));
        if origin_abs != absolute {
            return Err(SeriesError(format!(
                "{at}: column 1: mixes RFC3339 times and offsets; use one kind in a file"
            )));
        }
        b.push(t - origin, v, &at)?;
    }
    b.build(interpolation, source)
}

/// Parse a Prometheus `query_range` JSON response (`/api/v1/query_range`, resultType `matrix`).
/// Several series are summed point by point (they must share timestamps, as a query_range
/// result does); times are relative to the first sample.
pub fn parse_prometheus(
    text: &str,
    source: &str,
    interpolation: Interpolation,
) -> Result<Series, SeriesError> {
    let doc: serde_json::Value = serde_json::from_str(text).map_err(|e| {
        SeriesError(format!(
            "{source}: invalid JSON at line {} column {}: {e}",
            e.line(),
            e.column()
        ))
    })?;
    let field = |f: &str| SeriesError(format!("{source}: field {f}: missing or of the wrong type"));
    if let Some(s) = doc.get("status").and_then(|s| s.as_str()) {
        if s != "success" {
            return Err(SeriesError(format!(
                "{source}: field status: the query failed ({s:?})"
            )));
        }
    }
    let data = doc.get("data").ok_or_else(|| field("data"))?;
    match data.get("resultType").and_then(|r| r.as_str()) {
        Some("matrix") => {}
        Some(other) => {
            return Err(SeriesError(format!(
                "{source}: field data.resultType: {other:?} is not a range result; export /api/v1/query_range (resultType matrix)"
            )))
        }
        None => return Err(field("data.resultType")),
    }
    let result = data
        .get("result")
        .and_then(|r| r.as_array())
        .ok_or_else(|| field("data.result"))?;
    if result.is_empty() {
        return Err(SeriesError(format!(
            "{source}: field data.result: the query returned no series"
        )));
    }
    // Sum the series on their common timestamps.
    let mut sums: std::collections::BTreeMap<i64, f64> = std::collections::BTreeMap::new();
    for (si, series) in result.iter().enumerate() {
        add_series(&mut sums, si, series, source)?;
    }
    let origin = *sums.keys().next().unwrap_or(&0);
    let mut b = SeriesBuilder::new();
    for (ms, v) in sums {
        b.push((ms - origin) as f64 / 1000.0, v, source)?;
    }
    b.build(interpolation, source)
}

/// Add series `si` of a Prometheus export to the sums per timestamp (milliseconds).
fn add_series(
    sums: &mut std::collections::BTreeMap<i64, f64>,
    si: usize,
    series: &serde_json::Value,
    source: &str,
) -> Result<(), SeriesError> {
    let field = |f: &str| SeriesError(format!("{source}: field {f}: missing or of the wrong type"));
    let values = series
        .get("values")
        .and_then(|v| v.as_array())
        .ok_or_else(|| field(&format!("data.result[{si}].values")))?;
    let mut prev: Option<f64> = None;
    for (pi, pair) in values.iter().enumerate() {
        let at = format!("{source}: field data.result[{si}].values[{pi}]");
        let (t, v) = match pair.as_array().map(Vec::as_slice) {
            Some([t, v]) => (t, v),
            _ => return Err(SeriesError(format!("{at}: expected [unixTime, \"value\"]"))),
        };
        let t = t
            .as_f64()
            .ok_or_else(|| SeriesError(format!("{at}[0]: expected a Unix time in seconds")))?;
        let v = match v {
            serde_json::Value::String(s) => s
                .parse::<f64>()
                .map_err(|_| SeriesError(format!("{at}[1]: invalid sample value {s:?}")))?,
            serde_json::Value::Number(n) => n.as_f64().unwrap_or(f64::NAN),
            _ => {
                return Err(SeriesError(format!(
                    "{at}[1]: expected the value as a string"
                )))
            }
        };
        if !v.is_finite() {
            return Err(SeriesError(format!(
                "{at}[1]: sample value {v} is not a number"
            )));
        }
        if v < 0.0 {
            return Err(SeriesError(format!(
                "{at}[1]: negative load {} is not allowed",
                num(v)
            )));
        }
        if let Some(p) = prev {
            if t <= p {
                return Err(SeriesError(format!(
                    "{at}[0]: time {t} is not after the previous sample ({p}); samples must be in increasing time order"
                )));
            }
        }
        prev = Some(t);
        *sums.entry((t * 1000.0).round() as i64).or_insert(0.0) += v;
    }
    Ok(())
}

/// Parse the shorthand of `--demand/--per-pod/--value NAME=SPEC` (the part after `=`).
///
/// `SPEC` is a constant (`3`, `1500m`), `step:FROM:TO:AT`, `ramp:FROM:TO:START:END`,
/// `spike:BASE:PEAK:AT:DURATION`, `sine:MEAN:AMPLITUDE:PERIOD`, `csv:FILE` or `prom:FILE`.
/// Files are returned as [`SpecSource`] for the caller to read (this module does no I/O).
pub fn parse_spec(spec: &str) -> Result<SpecSource, SeriesError> {
    let parts: Vec<&str> = spec.split(':').collect();
    let bad = |e: TokenError| SeriesError(e.to_string());
    let v = |i: usize| parse_value(parts[i]).map_err(bad);
    let t = |i: usize| parse_offset(parts[i]).map_err(bad);
    let want = |n: usize, form: &str| -> Result<(), SeriesError> {
        if parts.len() != n {
            return Err(SeriesError(format!("{spec:?}: expected {form}")));
        }
        Ok(())
    };
    let shape = match parts[0] {
        "csv" | "prom" | "prometheus" => {
            let path = spec.split_once(':').map(|(_, p)| p).unwrap_or("");
            if path.is_empty() {
                return Err(SeriesError(format!(
                    "{spec:?}: expected {}:FILE",
                    parts[0]
                )));
            }
            return Ok(if parts[0] == "csv" {
                SpecSource::Csv(path.into())
            } else {
                SpecSource::Prometheus(path.into())
            });
        }
        "step" => {
            want(4, "step:FROM:TO:AT, e.g. step:1:4:5m")?;
            Shape::Step { from: v(1)?, to: v(2)?, at: t(3)? }
        }
        "ramp" => {
            want(5, "ramp:FROM:TO:START:END, e.g. ramp:1:8:5m:20m")?;
            Shape::Ramp {
                from: v(1)?,
                to: v(2)?,
                start: t(3)?,
                end: t(4)?,
            }
        }
        "spike" => {
            want(5, "spike:BASE:PEAK:AT:DURATION, e.g. spike:1:10:10m:2m")?;
            Shape::Spike {
                base: v(1)?,
                peak: v(2)?,
                at: t(3)?,
                duration: t(4)?,
            }
        }
        "sine" => {
            want(4, "sine:MEAN:AMPLITUDE:PERIOD, e.g. sine:4:2:1h")?;
            Shape::Sine {
                mean: v(1)?,
                amplitude: v(2)?,
                period: t(3)?,
            }
        }
        "constant" => {
            want(2, "constant:VALUE")?;
            Shape::Constant { value: v(1)? }
        }
        _ if parts.len() == 1 => Shape::Constant {
            value: parse_value(spec).map_err(|e| {
                SeriesError(format!("{e}; a load is a number, step:..., ramp:..., spike:..., sine:..., csv:FILE or prom:FILE"))
            })?,
        },
        other => {
            return Err(SeriesError(format!(
                "{spec:?}: unknown shape {other:?}; use a number, step:FROM:TO:AT, ramp:FROM:TO:START:END, spike:BASE:PEAK:AT:DURATION, sine:MEAN:AMPLITUDE:PERIOD, csv:FILE or prom:FILE"
            )))
        }
    };
    shape.validate(&format!("{spec:?}"))?;
    Ok(SpecSource::Shape(shape))
}

/// A parsed load spec: a shape, or a file still to be read.
#[derive(Debug, Clone, PartialEq)]
pub enum SpecSource {
    Shape(Shape),
    Csv(std::path::PathBuf),
    Prometheus(std::path::PathBuf),
}

/// Validate a shape built elsewhere (the scenario file); `what` names it in errors.
pub fn validate_shape(shape: &Shape, what: &str) -> Result<(), SeriesError> {
    shape.validate(what)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes() {
        let s = Shape::Step {
            from: 1.0,
            to: 4.0,
            at: 60.0,
        };
        assert_eq!(s.value_at(59.9), 1.0);
        assert_eq!(s.value_at(60.0), 4.0);
        let r = Shape::Ramp {
            from: 0.0,
            to: 10.0,
            start: 0.0,
            end: 100.0,
        };
        assert_eq!(r.value_at(50.0), 5.0);
        assert_eq!(r.value_at(500.0), 10.0);
        let p = Shape::Spike {
            base: 1.0,
            peak: 9.0,
            at: 10.0,
            duration: 5.0,
        };
        assert_eq!(
            (p.value_at(9.0), p.value_at(10.0), p.value_at(15.0)),
            (1.0, 9.0, 1.0)
        );
        let w = Shape::Sine {
            mean: 4.0,
            amplitude: 2.0,
            period: 400.0,
        };
        assert!((w.value_at(100.0) - 6.0).abs() < 1e-9);
    }

    #[test]
    fn interpolation() {
        let mut b = SeriesBuilder::new();
        b.push(0.0, 1.0, "p0").unwrap();
        b.push(10.0, 3.0, "p1").unwrap();
        let lin = b.build(Interpolation::Linear, "x").unwrap();
        assert_eq!(lin.value_at(5.0), 2.0);
        assert_eq!(lin.value_at(-5.0), 1.0);
        assert_eq!(lin.value_at(50.0), 3.0);
        let mut step = lin.clone();
        step.interpolation = Interpolation::Step;
        assert_eq!(step.value_at(9.99), 1.0);
        assert_eq!(step.value_at(10.0), 3.0);
    }

    #[test]
    fn csv_parsing_and_errors() {
        let s = parse_csv(
            "time,value\n0,1\n30s,2\n# note\n1m, 1500m\n",
            "l.csv",
            Interpolation::Step,
        )
        .unwrap();
        assert_eq!(s.len(), 3);
        assert_eq!(s.value_at(61.0), 1.5);
        let abs = parse_csv(
            "2026-03-01T12:00:00Z,1\n2026-03-01T12:01:00Z,2\n",
            "a.csv",
            Interpolation::Linear,
        )
        .unwrap();
        assert_eq!(abs.value_at(30.0), 1.5);
        let e = parse_csv("0,1\n60,2\n30,3\n", "o.csv", Interpolation::Step).unwrap_err();
        assert!(
            e.to_string()
                .starts_with("o.csv line 3: time +30s is not after"),
            "{e}"
        );
        let e = parse_csv("0,1\n60,-2\n", "n.csv", Interpolation::Step).unwrap_err();
        assert!(
            e.to_string().starts_with("n.csv line 2: negative load -2"),
            "{e}"
        );
        let e = parse_csv("0,1\n60\n", "c.csv", Interpolation::Step).unwrap_err();
        assert!(
            e.to_string()
                .starts_with("c.csv line 2: expected 2 columns"),
            "{e}"
        );
        let e = parse_csv("0,1\nsoon,2\n", "t.csv", Interpolation::Step).unwrap_err();
        assert!(
            e.to_string()
                .starts_with("t.csv line 2: column 1: invalid time"),
            "{e}"
        );
        assert!(parse_csv("", "e.csv", Interpolation::Step).is_err());
    }

    #[test]
    fn prometheus_parsing_and_errors() {
        let doc = r#"{"status":"success","data":{"resultType":"matrix","result":[
            {"metric":{"pod":"a"},"values":[[1700000000,"1"],[1700000015,"2"]]},
            {"metric":{"pod":"b"},"values":[[1700000000,"0.5"],[1700000015,"0.5"]]}]}}"#;
        let s = parse_prometheus(doc, "p.json", Interpolation::Step).unwrap();
        assert_eq!(s.value_at(0.0), 1.5);
        assert_eq!(s.value_at(15.0), 2.5);
        let bad = doc.replace("1700000015,\"2\"", "1699999999,\"2\"");
        let e = parse_prometheus(&bad, "p.json", Interpolation::Step).unwrap_err();
        assert!(
            e.to_string().contains("data.result[0].values[1][0]: time"),
            "{e}"
        );
        let e = parse_prometheus(
            "{\"data\":{\"resultType\":\"vector\",\"result\":[]}}",
            "v.json",
            Interpolation::Step,
        )
        .unwrap_err();
        assert!(e.to_string().contains("not a range result"), "{e}");
        assert!(parse_prometheus("{oops", "j.json", Interpolation::Step)
            .unwrap_err()
            .to_string()
            .contains("line 1"));
    }

    #[test]
    fn shorthand() {
        assert_eq!(
            parse_spec("3").unwrap(),
            SpecSource::Shape(Shape::Constant { value: 3.0 })
        );
        assert_eq!(
            parse_spec("step:1:4:5m").unwrap(),
            SpecSource::Shape(Shape::Step {
                from: 1.0,
                to: 4.0,
                at: 300.0
            })
        );
        assert_eq!(
            parse_spec("csv:a/b.csv").unwrap(),
            SpecSource::Csv("a/b.csv".into())
        );
        assert!(parse_spec("step:1:4").is_err());
        assert!(parse_spec("-1")
            .unwrap_err()
            .to_string()
            .contains("must be a load >= 0"));
        assert!(parse_spec("sine:1:2:1h")
            .unwrap_err()
            .to_string()
            .contains("negative"));
        assert!(parse_spec("wave:1")
            .unwrap_err()
            .to_string()
            .contains("unknown shape"));
    }
}
