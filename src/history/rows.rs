//! Rows from the `SuccessfulRescale` Events: each recorded change with its time, sizes, the
//! controller's reason and the metric that decided it.
//!
//! The API server aggregates identical messages (`New size: N; reason: R`) into one Event with
//! a `count` and the first and last time, so a record of count `c` is `c` rescales of which
//! only the first and the last have a time: the `c - 2` in between are one row without a time.
//! A row's `from` is the previous row's `to` only when no such untimed rescale may lie between
//! them; otherwise it is not known, and the row says so.

use jiff::Timestamp;
use schemars::JsonSchema;
use serde::Serialize;

use super::{Evidence, Window};
use crate::core::RescaleRecord;

/// One recorded change of the target's size.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ScaleChange {
    /// When the controller wrote the new size; null for rescales the aggregated Event holds no
    /// time of (then `earliest`/`latest` bound it).
    pub time: Option<Timestamp>,
    pub earliest: Option<Timestamp>,
    pub latest: Option<Timestamp>,
    /// How many rescales the row stands for (more than 1 only for an untimed row).
    pub count: u32,
    /// The size before; null when the evidence cannot say.
    pub from: Option<i32>,
    pub to: i32,
    /// `up`, `down` (from the sizes, or from the controller's reason when `from` is not known).
    pub direction: ScaleDirection,
    /// The controller's own reason, as its Event says it.
    pub reason: String,
    /// The metric that decided it (`cpu`, `http_requests`); null for "All metrics below
    /// target" (every metric was below) and for the bounds' reasons.
    pub metric: Option<String>,
    /// What decided it, in words: `metric`, `allMetricsBelowTarget`, `maxReplicas`,
    /// `minReplicas`, `fromZero`, `unknown`.
    pub decided_by: String,
    /// The time, the sizes and the reason are all known.
    pub explained: bool,
    /// Why not, when `explained` is false.
    pub not_explained: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum ScaleDirection {
    Up,
    Down,
    Unknown,
}

/// One rescale of a record: at a known time, or `count` of them somewhere in `(first, last)`.
struct Occurrence<'a> {
    record: &'a RescaleRecord,
    time: Option<Timestamp>,
    count: u32,
    /// The order key: the time, or the record's first time for the untimed ones.
    key: Timestamp,
}

fn occurrences(records: &[RescaleRecord]) -> Vec<Occurrence<'_>> {
    let mut out = Vec::new();
    for r in records {
        let at = |time, count, key| Occurrence {
            record: r,
            time,
            count,
            key,
        };
        match r.count {
            0 | 1 => out.push(at(Some(r.last), 1, r.last)),
            c => {
                out.push(at(Some(r.first), 1, r.first));
                if c > 2 {
                    out.push(at(None, c - 2, r.first));
                }
                out.push(at(Some(r.last), 1, r.last));
            }
        }
    }
    // Stable: equal times keep the Events' order; an untimed group sorts after its first.
    out.sort_by_key(|o| (o.key, o.time.is_none()));
    out
}

/// What the controller's reason says decided the change, and its direction.
pub fn decided_by(reason: &str) -> (String, Option<String>, ScaleDirection) {
    let r = reason.trim();
    let (what, metric, dir) = match r {
        "All metrics below target" => ("allMetricsBelowTarget", None, ScaleDirection::Down),
        "Current number of replicas above Spec.MaxReplicas" => {
            ("maxReplicas", None, ScaleDirection::Down)
        }
        "Current number of replicas below Spec.MinReplicas" => {
            ("minReplicas", None, ScaleDirection::Up)
        }
        "Current number of replicas must be greater than 0" => {
            ("fromZero", None, ScaleDirection::Up)
        }
        _ => match r.strip_suffix(" above target") {
            Some(m) => ("metric", Some(metric_name(m)), ScaleDirection::Up),
            None => ("unknown", None, ScaleDirection::Unknown),
        },
    };
    (what.to_string(), metric, dir)
}

/// The metric's name in a controller metric description: `cpu resource utilization (percentage
/// of request)` → `cpu`, `pods metric http_requests` → `http_requests`, `Service metric rps` →
/// `rps`, `external metric queue(&LabelSelector{…})` → `queue`.
pub fn metric_name(description: &str) -> String {
    let d = description.trim();
    if let Some(rest) = d.strip_prefix("external metric ") {
        return rest.split('(').next().unwrap_or(rest).trim().to_string();
    }
    if let Some((_, name)) = d.split_once(" metric ") {
        return name.trim().to_string();
    }
    for suffix in [
        " container resource utilization (percentage of request)",
        " resource utilization (percentage of request)",
        " container resource",
        " resource",
    ] {
        if let Some(name) = d.strip_suffix(suffix) {
            return name.to_string();
        }
    }
    d.to_string()
}

/// Every recorded change, oldest first.
pub fn rows(records: &[RescaleRecord]) -> Vec<ScaleChange> {
    let occ = occurrences(records);
    let mut out: Vec<ScaleChange> = Vec::with_capacity(occ.len());
    let mut prev: Option<(Timestamp, i32)> = None;
    for (i, o) in occ.iter().enumerate() {
        let (decided, metric, reason_dir) = decided_by(&o.record.reason);
        let (from, why) = match (o.time, prev) {
            (None, _) => (None, Some(untimed(o))),
            (Some(_), None) => (
                None,
                Some("the size before is older than the oldest Event".to_string()),
            ),
            (Some(t), Some((p, size))) => match hidden_between(&occ[..i], p, t) {
                0 => (Some(size), None),
                n => (
                    None,
                    Some(format!(
                        "{n} rescale(s) with no recorded time may lie before it, so the size \
                         before is not known"
                    )),
                ),
            },
        };
        let direction = match from {
            Some(f) if o.record.new_size > f => ScaleDirection::Up,
            Some(f) if o.record.new_size < f => ScaleDirection::Down,
            _ => reason_dir,
        };
        let why = why.or_else(|| {
            (decided == "unknown").then(|| "a reason the controller does not write".into())
        });
        out.push(ScaleChange {
            time: o.time,
            earliest: o.time.is_none().then_some(o.record.first),
            latest: o.time.is_none().then_some(o.record.last),
            count: o.count,
            from,
            to: o.record.new_size,
            direction,
            reason: o.record.reason.clone(),
            metric,
            decided_by: decided,
            explained: why.is_none(),
            not_explained: why,
        });
        if let Some(t) = o.time {
            prev = Some((t, o.record.new_size));
        }
    }
    out
}

fn untimed(o: &Occurrence<'_>) -> String {
    format!(
        "the API server aggregated {} more rescale(s) to {} into one Event and kept no time for \
         them",
        o.count, o.record.new_size
    )
}

/// How many untimed rescales may lie strictly between `p` and `t`.
fn hidden_between(before: &[Occurrence<'_>], p: Timestamp, t: Timestamp) -> u32 {
    before
        .iter()
        .filter(|o| o.time.is_none() && o.record.first < t && o.record.last > p)
        .map(|o| o.count)
        .sum()
}

/// The rows inside the window, and a note for those left out.
pub fn in_window(rows: Vec<ScaleChange>, w: Window) -> (Vec<ScaleChange>, Vec<String>) {
    let total = rows.len();
    let inside = |r: &ScaleChange| {
        let (lo, hi) = match r.time {
            Some(t) => (t, t),
            None => (r.earliest.unwrap_or(w.to), r.latest.unwrap_or(w.to)),
        };
        hi >= w.from.unwrap_or(Timestamp::MIN) && lo <= w.to
    };
    let kept: Vec<ScaleChange> = rows.into_iter().filter(inside).collect();
    let mut notes = Vec::new();
    if kept.len() < total {
        notes.push(format!(
            "{} recorded change(s) outside the window left out",
            total - kept.len()
        ));
    }
    (kept, notes)
}

/// Compare the newest row with what the cluster shows now: a `lastScaleTime` newer than every
/// Event, or a target whose size differs from the last rescale, is a change the Events do not
/// explain (an Event dropped, a manual scale, another controller).
pub fn check_latest(rows: &mut [ScaleChange], e: &Evidence, notes: &mut Vec<String>) {
    let newest = e.rescales.iter().map(|r| r.last).max();
    if let (Some(lst), Some(n)) = (e.last_scale_time, newest) {
        // lastScaleTime is written in the same sync as the Event, to the second.
        if lst.duration_since(n).as_secs() > 1 {
            notes.push(format!(
                "the status's lastScaleTime ({}) is newer than every SuccessfulRescale Event: a \
                 rescale whose Event is gone (dropped or expired) happened then",
                crate::display::units::full_time(lst)
            ));
        }
    }
    let (Some(last), Some(now)) = (rows.last(), e.target_replicas) else {
        return;
    };
    if last.time.is_some() && last.to != now {
        notes.push(format!(
            "the target has {now} replicas but the last rescale set {}: changed since by \
             something other than this HPA (a manual scale, a deploy that sets replicas, or \
             another autoscaler)",
            last.to
        ));
    }
}
