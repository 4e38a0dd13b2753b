//! `next-scale`: the values of the deciding metric at which its proposal moves by one replica,
//! found by asking the core's own proposal functions (no second copy of the rules).

use serde_json::{json, Value};

use crate::core::calc::Tolerances;
use crate::core::{Calculation, Decision, Input, MetricOutcome};
use crate::display::units::Unit;

use super::finding::{finding, Finding, Severity};

/// The smallest integer `v >= lo` with `pred(v)`, for a predicate false then true.
fn first_true(lo: i64, pred: &dyn Fn(i64) -> bool) -> Option<i64> {
    if pred(lo) {
        return Some(lo);
    }
    let mut hi = lo.max(1);
    loop {
        if pred(hi) {
            break;
        }
        hi = hi.checked_mul(2)?;
        if hi > i64::MAX / 4 {
            return None;
        }
    }
    let mut l = lo; // pred(l) false
    while hi - l > 1 {
        let mid = l + (hi - l) / 2;
        if pred(mid) {
            hi = mid;
        } else {
            l = mid;
        }
    }
    Some(hi)
}

/// The largest integer `v` in `[0, hi]` with `pred(v)`, for a predicate true then false.
fn last_true(hi: i64, pred: &dyn Fn(i64) -> bool) -> Option<i64> {
    if !pred(0) {
        return None;
    }
    if pred(hi) {
        return Some(hi);
    }
    let (mut l, mut h) = (0, hi);
    while h - l > 1 {
        let mid = l + (h - l) / 2;
        if pred(mid) {
            l = mid;
        } else {
            h = mid;
        }
    }
    Some(l)
}

/// How a metric's proposal follows from its value (the core computes it).
#[derive(Debug, Clone, Copy)]
pub enum ProposalModel {
    /// `ratio = value / denom` over `pods` pods (utilization, per-pod average, Value targets).
    Ratio { pods: f64, denom: f64 },
    /// Object/External `AverageValue`: a total divided by the scale's status.replicas.
    AverageValue { target: i64, status_replicas: i32 },
}

impl ProposalModel {
    /// The replicas the core proposes for `value` with `current` replicas.
    fn propose(self, current: i32, value: i64, tol: &Tolerances) -> i64 {
        match self {
            ProposalModel::Ratio { pods, denom } => {
                crate::core::calc::proposal_from_ratio(current, value as f64 / denom, pods, tol)
                    as i64
            }
            ProposalModel::AverageValue {
                target,
                status_replicas,
            } => {
                let p = crate::core::calc::average_value_target(
                    value,
                    target,
                    status_replicas,
                    false,
                    tol,
                    &mut None,
                );
                p.replicas as i64
            }
        }
    }

    /// The value at which the ratio is 1.
    #[cfg(test)]
    fn pivot(self) -> f64 {
        match self {
            ProposalModel::Ratio { denom, .. } => denom,
            ProposalModel::AverageValue {
                target,
                status_replicas,
            } => target as f64 * status_replicas.max(1) as f64,
        }
    }
}

/// The smallest integer value that proposes more than `current` and the largest that proposes
/// less, asking the core's own proposal functions (no second copy of the rules here). Only
/// the unit tests ask it now.
#[cfg(test)]
pub fn thresholds(
    current: i32,
    model: ProposalModel,
    tol: &Tolerances,
) -> (Option<i64>, Option<i64>) {
    let (propose, pivot) = (|v| model.propose(current, v, tol), model.pivot());
    let up = first_true(pivot.floor() as i64, &|v| propose(v) > current as i64);
    let down = if current > 0 {
        last_true(pivot.ceil() as i64, &|v| propose(v) < current as i64)
    } else {
        None
    };
    (up, down)
}

/// From where a metric is now (`value`, proposing `level`): the smallest value that proposes
/// more than `level` and the largest that proposes less, with `current` replicas.
fn thresholds_from(
    current: i32,
    level: i32,
    value: i64,
    model: ProposalModel,
    tol: &Tolerances,
) -> (Option<i64>, Option<i64>) {
    let propose = |v| model.propose(current, v, tol);
    let level = i64::from(level);
    let value = value.max(0);
    let up = first_true(value, &|v| propose(v) > level);
    let down = if level > 0 {
        last_true(value, &|v| propose(v) < level)
    } else {
        None
    };
    (up, down)
}

/// Which value of the deciding metric is shown: where it is now (as the Metrics table shows
/// it), the first value of a higher proposal, or the last value of a lower one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Edge {
    Now,
    Reach,
    AtMost,
}

/// How a value of the deciding metric is shown ("83% (416m/pod)", "12/pod", "87 in total"); the
/// first value of a higher proposal comes with its verb ("reaches 84% (420m/pod)": the
/// controller's utilization is a whole percentage; "rises above 35/pod" for finer values).
type ValueFormat<'a> = Box<dyn Fn(i64, Edge) -> String + 'a>;

/// Where the deciding metric is now, how its proposal moves with its value, how to show a value,
/// and a caveat when unready or missing pods make the thresholds approximate.
struct MetricModel<'a> {
    now: i64,
    model: ProposalModel,
    fmt: ValueFormat<'a>,
    caveat: String,
}

/// What a pod-average calculation (Resource, ContainerResource, Pods metrics) says.
struct PodAverageFacts<'a> {
    utilization: bool,
    current: i64,
    raw_average_milli: Option<i64>,
    target: i64,
    ready_pods: usize,
    unready_pods: usize,
    missing_pods: usize,
    pods: &'a [crate::core::PodRow],
}

/// `a / b` rounded up, for `a >= 0` and `b > 0`.
fn ceil_div(a: i64, b: i64) -> i64 {
    (a + b - 1) / b
}

/// The model of a pod-average calculation.
fn pod_average_model(f: PodAverageFacts<'_>, unit: Unit) -> MetricModel<'static> {
    let PodAverageFacts {
        utilization,
        current,
        raw_average_milli,
        target,
        ready_pods,
        unready_pods,
        missing_pods,
        pods,
    } = f;
    let caveat = if unready_pods > 0 || missing_pods > 0 {
        format!(
            " (with {unready_pods} unready and {missing_pods} missing pods the controller re-computes with assumed values, so the real thresholds differ)"
        )
    } else {
        String::new()
    };
    let model = ProposalModel::Ratio {
        pods: ready_pods.max(1) as f64,
        denom: target as f64,
    };
    let fmt: ValueFormat = if utilization {
        let reqs: Vec<i64> = pods
            .iter()
            .filter(|r| r.counted)
            .filter_map(|r| r.request_milli)
            .collect();
        let sum_req: i64 = reqs.iter().sum();
        let n = reqs.len() as i64;
        // The controller truncates usage × 100 / requests: v% is reached at a usage of v% of
        // the requests and held up to just below (v + 1)%. Now is the table's own average.
        Box::new(move |v: i64, edge: Edge| {
            let per_pod = match (edge, raw_average_milli) {
                _ if n == 0 => return format!("{v}%"),
                (Edge::Now, Some(raw)) => raw,
                (Edge::AtMost, _) => (ceil_div(sum_req * (v + 1), 100 * n) - 1).max(0),
                _ => ceil_div(sum_req * v, 100 * n),
            };
            match edge {
                Edge::Reach => format!("reaches {v}% ({}/pod)", unit.show(per_pod)),
                _ => format!("{v}% ({}/pod)", unit.show(per_pod)),
            }
        })
    } else {
        Box::new(move |v: i64, edge: Edge| match edge {
            Edge::Reach => format!("rises above {}/pod", unit.show(v - 1)),
            _ => format!("{}/pod", unit.show(v)),
        })
    };
    MetricModel {
        now: current,
        model,
        fmt,
        caveat,
    }
}

/// The model of any calculation: pod averages, a Value target, an AverageValue target.
fn metric_model<'a>(calc: &'a Calculation, input: &Input, unit: Unit) -> MetricModel<'a> {
    match calc {
        Calculation::PodAverage {
            mode,
            current,
            raw_average_milli,
            target,
            ready_pods,
            unready_pods,
            missing_pods,
            pods,
            ..
        } => pod_average_model(
            PodAverageFacts {
                utilization: *mode == "Utilization",
                current: *current,
                raw_average_milli: *raw_average_milli,
                target: *target,
                ready_pods: *ready_pods,
                unready_pods: *unready_pods,
                missing_pods: *missing_pods,
                pods,
            },
            unit,
        ),
        Calculation::Value {
            value_milli,
            target_milli,
            ready_pods,
            ..
        } => {
            let ready = ready_pods.unwrap_or_else(|| {
                input
                    .pods
                    .iter()
                    .filter(|p| {
                        p.phase == "Running" && p.ready.as_ref().is_some_and(|r| r.status == "True")
                    })
                    .count() as i64
            });
            MetricModel {
                now: *value_milli,
                model: ProposalModel::Ratio {
                    pods: ready.max(1) as f64,
                    denom: *target_milli as f64,
                },
                fmt: Box::new(move |v: i64, edge: Edge| match edge {
                    Edge::Reach => format!("rises above {}", unit.show(v - 1)),
                    _ => unit.show(v),
                }),
                caveat: String::new(),
            }
        }
        Calculation::AverageValue {
            total_milli,
            target_milli,
            status_replicas,
            ..
        } => MetricModel {
            now: *total_milli,
            model: ProposalModel::AverageValue {
                target: *target_milli,
                status_replicas: *status_replicas,
            },
            fmt: Box::new(move |v: i64, edge: Edge| match edge {
                Edge::Reach => format!("rises above {} in total", unit.show(v - 1)),
                _ => format!("{} in total", unit.show(v)),
            }),
            caveat: String::new(),
        },
    }
}

/// The metric's name as people write it and the unit its values are shown in.
fn metric_identity(input: &Input, d: &Decision, i: usize, m: &MetricOutcome) -> (String, Unit) {
    match input.hpa.raw_metrics.get(i) {
        Some(spec) if input.hpa.raw_metrics.len() == d.metrics.len() => {
            crate::display::names::metric(spec)
        }
        _ => (
            m.description.clone().unwrap_or_else(|| m.type_.clone()),
            Unit::Plain,
        ),
    }
}

/// The phrases "N+1 if it rises above …" / "N-1 if it falls to … or below" (or the bound that
/// stops them), with the thresholds as details.
fn threshold_phrases(
    input: &Input,
    level: i32,
    (up, down): (Option<i64>, Option<i64>),
    fmt: &ValueFormat,
    details: &mut serde_json::Map<String, Value>,
) -> Vec<String> {
    let mut parts = Vec::new();
    if level >= input.hpa.max_replicas {
        parts.push(format!(
            "more is capped at maxReplicas {}",
            input.hpa.max_replicas
        ));
    } else if let Some(v) = up {
        parts.push(format!("{} if it {}", level + 1, fmt(v, Edge::Reach)));
        details.insert("scaleUpAt".into(), json!(v));
    }
    if level <= input.hpa.min_replicas {
        parts.push(format!(
            "fewer is floored at minReplicas {}",
            input.hpa.min_replicas
        ));
    } else if let Some(v) = down {
        parts.push(format!(
            "{} if it falls to {} or below",
            level - 1,
            fmt(v, Edge::AtMost)
        ));
        details.insert("scaleDownAt".into(), json!(v));
    } else {
        parts.push("no value of this metric proposes fewer".into());
    }
    parts
}

/// The metric value needed for one replica more or one less than the deciding metric proposes
/// now, phrased from where the metric is (the winning metric).
pub(super) fn next_scale(input: &Input, d: &Decision) -> Option<Finding> {
    let current = d.current_replicas?;
    if current == 0 {
        return None;
    }
    let (i, m) = d.metrics.iter().enumerate().find(|(_, m)| m.winner)?;
    let calc = m.calculation.as_ref()?;
    let level = m.proposed_replicas.unwrap_or(current);
    let tol = &d.tolerance;
    let (name, unit) = metric_identity(input, d, i, m);
    let mm = metric_model(calc, input, unit);
    let mut details = serde_json::Map::new();
    details.insert("metricIndex".into(), json!(i));
    let message = match calc {
        Calculation::PodAverage {
            rebalance: Some(_),
            unready_pods,
            missing_pods,
            ..
        } => format!(
            "{name} (the deciding metric) is at {} and proposes {level} after the controller re-computed it with assumed values for {unready_pods} unready and {missing_pods} missing pods, so its next thresholds depend on those pods too",
            (mm.fmt)(mm.now, Edge::Now)
        ),
        _ => {
            // A proposal beyond a bound moves the replicas only once it is back inside it:
            // the thresholds are those of the bound (at maxReplicas 4 with a proposal of 6,
            // "3 if it falls to …", not "5 if …", which would still give 4).
            let bounded = level.min(input.hpa.max_replicas).max(input.hpa.min_replicas);
            let thresholds = thresholds_from(current, bounded, mm.now, mm.model, tol);
            let parts = threshold_phrases(input, bounded, thresholds, &mm.fmt, &mut details);
            format!(
                "{name} (the deciding metric) is at {} and proposes {level}; it would propose {}{}",
                (mm.fmt)(mm.now, Edge::Now),
                parts.join("; "),
                mm.caveat
            )
        }
    };
    let window = d
        .normalization
        .as_ref()
        .map(|n| n.stabilization.scale_down_window_seconds)
        .unwrap_or(input.settings.downscale_stabilization.as_secs());
    Some(Finding {
        details: Some(Value::Object(details)),
        ..finding(
            "next-scale",
            Severity::Info,
            message,
            format!("these are the values at which this metric's proposal moves by one replica (tolerance band {:.3}–{:.3}); a scale-down also needs every other metric to agree and waits out the {window}s stabilization window", tol.band()[0], tol.band()[1]),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tol(t: f64) -> Tolerances {
        Tolerances {
            down: t,
            up: t,
            legacy_abs: false,
            source: "test",
        }
    }

    #[test]
    fn utilization_thresholds_follow_the_controller_rules() {
        // target 50 %, 4 pods at 4 replicas, tolerance 0.1:
        // up: util/50 > 1.1 and ceil(util/50 × 4) ≥ 5 → util ≥ 56 (55/50 = 1.1 holds).
        // down: util/50 < 0.9 and ceil(util/50 × 4) ≤ 3 → util/50 ≤ 0.75 → util ≤ 37.
        let (up, down) = thresholds(
            4,
            ProposalModel::Ratio {
                pods: 4.0,
                denom: 50.0,
            },
            &tol(0.1),
        );
        assert_eq!(up, Some(56));
        assert_eq!(down, Some(37));
    }

    #[test]
    fn many_pods_make_the_tolerance_the_bound() {
        // 20 pods: (n-1)/n = 0.95 is above 0.9, so the tolerance decides the way down.
        let (up, down) = thresholds(
            20,
            ProposalModel::Ratio {
                pods: 20.0,
                denom: 50.0,
            },
            &tol(0.1),
        );
        assert_eq!(up, Some(56));
        // util/50 < 0.9 → util ≤ 44
        assert_eq!(down, Some(44));
    }

    #[test]
    fn one_pod_cannot_scale_down_below_one() {
        let (up, down) = thresholds(
            1,
            ProposalModel::Ratio {
                pods: 1.0,
                denom: 80.0,
            },
            &tol(0.1),
        );
        // 88/80 = 1.1 holds
        assert_eq!(up, Some(89));
        // only no usage at all proposes 0 (and minReplicas ≥ 1 holds it at 1)
        assert_eq!(down, Some(0));
    }

    #[test]
    fn average_value_object_metrics_use_ceil_of_value_over_target() {
        // target 100 (milli) per pod, status.replicas 3, current 3:
        // up needs total/(300) > 1.1 and ceil(total/100) ≥ 4 → total ≥ 331.
        // down needs total/300 < 0.9 and ceil(total/100) ≤ 2 → total ≤ 200.
        let (up, down) = thresholds(
            3,
            ProposalModel::AverageValue {
                target: 100,
                status_replicas: 3,
            },
            &tol(0.1),
        );
        assert_eq!(up, Some(331));
        assert_eq!(down, Some(200));
    }

    #[test]
    fn fewer_ready_pods_than_replicas_raise_the_bar() {
        // 5 replicas, 3 ready: up needs util/50 × 3 > 5 → util > 83.3 → 84.
        let (up, _) = thresholds(
            5,
            ProposalModel::Ratio {
                pods: 3.0,
                denom: 50.0,
            },
            &tol(0.1),
        );
        assert_eq!(up, Some(84));
    }
}
