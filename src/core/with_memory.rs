//! [`evaluate`] with the controller's memory: none, a file, or inferred from the evidence the
//! cluster keeps ([`super::memory`]). Adds to the decision trace the range of decisions over every
//! memory consistent with the evidence, the memory used, what the last sync wrote (and whether
//! it is reproduced), and when a hold ends.

use jiff::{SignedDuration, Timestamp};
use k8s_openapi::api::autoscaling::v2 as hpa_v2;
use serde::Serialize;

use super::clock;
use super::memory::{infer, HistoryMode, Inference, Now, RescaleRecord};
use super::model::{Detail, History, Input};
use super::{evaluate, Decision, Rule};

/// `desiredRange`: every memory consistent with the evidence gives a value in `[min, max]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct DesiredRange {
    pub min: i32,
    pub max: i32,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum MemorySource {
    Inferred,
    None,
    File,
    Watched,
}

/// `memory`: what was assumed about the controller's memory, and from which facts.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct MemoryReport {
    pub source: MemorySource,
    /// The memory the decision used (for `inferred`: the most likely one).
    pub recommendations: Vec<super::Recommendation>,
    pub scale_up_events: Vec<super::ScaleEvent>,
    pub scale_down_events: Vec<super::ScaleEvent>,
    pub evidence: Vec<String>,
    /// Whether the evidence settles the decision (`desiredRange.min == desiredRange.max`).
    pub settled: bool,
    /// The memories that bound the range (inferred only).
    pub low: Option<History>,
    pub high: Option<History>,
}

/// `nextChange`: when a hold by a stabilization window or a rate policy ends.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct NextChange {
    /// `stabilizationWindow` or `ratePolicy`.
    pub kind: &'static str,
    pub earliest: Timestamp,
    pub latest: Timestamp,
    /// The value the controller would then go to if the metrics stay as they are now.
    pub to: Option<i32>,
    pub text: String,
}

/// One `status.currentMetrics` entry next to this sync's.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct MetricDelta {
    pub index: usize,
    pub metric: String,
    pub written: Option<hpa_v2::MetricValueStatus>,
    pub now: Option<hpa_v2::MetricValueStatus>,
    pub matches: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct WrittenCondition {
    #[serde(rename = "type")]
    pub type_: String,
    pub status: String,
    pub reason: String,
    pub last_transition_time: Option<Timestamp>,
    /// The spec generation the condition was written for (HPAGeneration, 1.37).
    pub observed_generation: Option<i64>,
}

/// What the controller wrote at its last sync.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Written {
    pub desired_replicas: i32,
    pub current_replicas: Option<i32>,
    pub last_scale_time: Option<Timestamp>,
    pub observed_generation: Option<i64>,
    pub generation: Option<i64>,
    pub conditions: Vec<WrittenCondition>,
}

/// Why a recomputation of the last sync does not give what the controller wrote.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum LastSyncCause {
    Memory,
    MetricsChanged,
    Release,
    ControllerFlags,
    StaleStatus,
    Unknown,
}

/// `lastSync`: what the controller did at its last sync and whether we reproduce it.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct LastSync {
    /// Null when the HPA has no status (never synced).
    pub written: Option<Written>,
    /// In words.
    pub did: String,
    /// The last sync recomputed (its replicas, the memory before it, this sync's metrics).
    pub recomputed_desired_replicas: Option<i32>,
    pub reproduced: Option<bool>,
    pub cause: Option<LastSyncCause>,
    pub details: Vec<String>,
    pub metrics: Vec<MetricDelta>,
}

/// `t + d`, saturating at the end of time (a snapshot dated 9999-12-31 must not abort).
fn later(t: Timestamp, d: SignedDuration) -> Timestamp {
    clock::checked_add(t, d).unwrap_or(Timestamp::MAX)
}

fn brief(input: &mut Input, history: History, now: Timestamp) -> Decision {
    let saved = (
        std::mem::replace(&mut input.history, history),
        input.detail,
        input.now,
    );
    input.detail = Detail::Brief;
    input.now = now;
    let d = evaluate(input);
    input.history = saved.0;
    input.detail = saved.1;
    input.now = saved.2;
    d
}

/// Run the controller's algorithm with the memory `mode` asks for.
///
/// `input.history` is replaced by the memory used (for `Auto`, the most likely one).
pub fn evaluate_with_memory(
    input: &mut Input,
    mode: &HistoryMode,
    rescales: &[RescaleRecord],
) -> Decision {
    let (source, inf) = match mode {
        HistoryMode::None => (MemorySource::None, same(History::default())),
        HistoryMode::File(h) => (MemorySource::File, same(h.clone())),
        HistoryMode::Watched { history, since } => {
            let mut inf = same(history.clone());
            inf.evidence.push(format!(
                "kept by --watch from its own syncs since {since} (before that: inferred from the status and Events); the longer it runs, the more of the memory is observed rather than inferred"
            ));
            (MemorySource::Watched, inf)
        }
        HistoryMode::Auto => {
            let inf = infer_memory(input, rescales);
            (MemorySource::Inferred, inf)
        }
    };
    input.history = inf.likely.clone();
    let mut d = evaluate(input);
    // The metric values do not depend on the memory: one comparison serves every mode.
    let deltas = metric_deltas(input, &d);
    let (lo, hi) = if source == MemorySource::Inferred {
        // perf: a bound equal to the likely memory decides what the likely memory did (every
        // detail level decides the same: `Detail`), so it is not evaluated again; most HPAs'
        // evidence settles their memory. Five contexts of 500 HPAs (`cargo bench --bench
        // fleet`): callgrind 1,477 M → 1,424 M instructions (−3.6%).
        let now = input.now;
        let mut bound = |h: &History| {
            if *h != inf.likely {
                return brief(input, h.clone(), now).desired_replicas;
            }
            debug_assert_eq!(
                brief(input, h.clone(), now).desired_replicas,
                d.desired_replicas
            );
            d.desired_replicas
        };
        (bound(&inf.low), bound(&inf.high))
    } else {
        (d.desired_replicas, d.desired_replicas)
    };
    let range = match (lo, d.desired_replicas, hi) {
        (Some(a), Some(b), Some(c)) => Some(DesiredRange {
            min: a.min(b).min(c),
            max: a.max(b).max(c),
        }),
        _ => None,
    };
    let settled = range.is_none_or(|r| r.min == r.max);
    let mut evidence = inf.evidence.clone();
    if let (Some(r), false) = (range, settled) {
        evidence.push(format!(
            "the evidence does not settle the memory: the decision is between {} and {}; desiredReplicas is the most likely value",
            r.min, r.max
        ));
    }
    d.next_change = next_change(input, &d, &inf);
    d.last_sync = Some(last_sync(input, &d, &inf, deltas));
    d.memory = Some(MemoryReport {
        source,
        recommendations: inf.likely.recommendations.clone(),
        scale_up_events: inf.likely.scale_up_events.clone(),
        scale_down_events: inf.likely.scale_down_events.clone(),
        evidence,
        settled,
        low: (source == MemorySource::Inferred).then(|| inf.low.clone()),
        high: (source == MemorySource::Inferred).then(|| inf.high.clone()),
    });
    d.desired_range = range;
    hold_summary(&mut d, rescales);
    d
}

fn same(h: History) -> Inference {
    Inference {
        low: h.clone(),
        high: h.clone(),
        likely: h,
        ..Inference::default()
    }
}

/// The controller's memory inferred from the HPA's status and Events (`--history auto`): a sync
/// without memory gives this sync's proposal and metrics, which the inference compares with what
/// the last sync wrote.
pub fn infer_memory(input: &mut Input, rescales: &[RescaleRecord]) -> Inference {
    let probe = brief(input, History::default(), input.now);
    let deltas = metric_deltas(input, &probe);
    let at = Now {
        now: input.now,
        proposal: probe.proposal,
        metrics_unchanged: !deltas.is_empty() && deltas.iter().all(|m| m.matches),
    };
    infer(&input.hpa, &input.settings, rescales, at)
}

/// The identity and `current` of a metric status.
fn current_of(m: &hpa_v2::MetricStatus) -> (String, Option<&hpa_v2::MetricValueStatus>) {
    if let Some(r) = &m.resource {
        (format!("resource {}", r.name), Some(&r.current))
    } else if let Some(r) = &m.container_resource {
        (
            format!("containerResource {}/{}", r.container, r.name),
            Some(&r.current),
        )
    } else if let Some(p) = &m.pods {
        (format!("pods {}", p.metric.name), Some(&p.current))
    } else if let Some(o) = &m.object {
        (
            format!(
                "object {} on {} {}",
                o.metric.name, o.described_object.kind, o.described_object.name
            ),
            Some(&o.current),
        )
    } else if let Some(e) = &m.external {
        (format!("external {}", e.metric.name), Some(&e.current))
    } else {
        (m.type_.clone(), None)
    }
}

fn same_value(a: &hpa_v2::MetricValueStatus, b: &hpa_v2::MetricValueStatus) -> bool {
    let q = |v: &Option<k8s_openapi::apimachinery::pkg::api::resource::Quantity>| {
        v.as_ref()
            .map(|q| crate::quantity::parse_milli(&q.0).map_err(|_| q.0.clone()))
    };
    a.average_utilization == b.average_utilization
        && q(&a.average_value) == q(&b.average_value)
        && q(&a.value) == q(&b.value)
}

/// `status.currentMetrics` (what the last sync wrote) next to this sync's, value by value.
fn metric_deltas(input: &Input, d: &Decision) -> Vec<MetricDelta> {
    let written = input
        .hpa
        .status
        .as_ref()
        .and_then(|s| s.current_metrics.as_ref())
        .map(Vec::as_slice)
        .unwrap_or_default();
    let now = &d.status.current_metrics;
    (0..written.len().max(now.len()))
        .map(|i| {
            let (wn, wv) = written.get(i).map(current_of).unwrap_or_default();
            let (nn, nv) = now.get(i).map(current_of).unwrap_or_default();
            let matches = wn == nn && matches!((wv, nv), (Some(a), Some(b)) if same_value(a, b));
            MetricDelta {
                index: i,
                metric: if nn.is_empty() { wn } else { nn },
                written: wv.cloned(),
                now: nv.cloned(),
                matches,
            }
        })
        .collect()
}

/// The window (seconds) and the recommendations that hold the stabilized value, per memory.
fn holding(d: &Decision, h: &History) -> Option<Timestamp> {
    let n = d.normalization.as_ref()?;
    let s = &n.stabilization;
    let (window, holds): (i64, Box<dyn Fn(i32) -> bool>) = match s.reason.as_str() {
        "ScaleDownStabilized" => (s.scale_down_window_seconds, Box::new(|r| r > n.proposal)),
        "ScaleUpStabilized" => (s.scale_up_window_seconds?, Box::new(|r| r < n.proposal)),
        _ => return None,
    };
    let cutoff = clock::checked_sub(d.now, SignedDuration::from_secs(window))?;
    h.recommendations
        .iter()
        .filter(|r| r.time >= cutoff && holds(r.replicas))
        .map(|r| r.time)
        .max()
        .map(|t| later(t, SignedDuration::from_secs(window)))
}

fn next_change(input: &mut Input, d: &Decision, inf: &Inference) -> Option<NextChange> {
    let n = d.normalization.as_ref()?;
    if let Some(likely) = holding(d, &inf.likely) {
        // Held now, so no sooner than the next sync, whatever the memory.
        let next_sync = later(d.now, input.settings.sync_period);
        let earliest = holding(d, &inf.low)
            .unwrap_or(next_sync)
            .min(likely)
            .max(next_sync);
        let latest = holding(d, &inf.high)
            .unwrap_or(likely)
            .max(likely)
            .max(earliest);
        let after = d.history.after.clone();
        let to = brief(input, after, later(latest, SignedDuration::from_secs(1))).desired_replicas;
        let dir = if n.stabilization.reason == Rule::ScaleDownStabilized {
            "scale-down"
        } else {
            "scale-up"
        };
        let text = if earliest == latest {
            format!("the held value leaves the {dir} window at {latest}")
        } else {
            format!("the held value leaves the {dir} window between {earliest} and {latest}")
        };
        let text = match to {
            Some(v) => format!("{text}; then {v} if the metrics stay as they are"),
            None => text,
        };
        return Some(NextChange {
            kind: "stabilizationWindow",
            earliest,
            latest,
            to,
            text,
        });
    }
    rate_policy_change(input, d)
}

/// A rate policy limits: when the oldest counted scale event leaves its period.
fn rate_policy_change(input: &mut Input, d: &Decision) -> Option<NextChange> {
    let n = d.normalization.as_ref()?;
    let events = match n.limits.reason {
        Rule::ScaleUpLimit => &d.history.after.scale_up_events,
        Rule::ScaleDownLimit => &d.history.after.scale_down_events,
        _ => return None,
    };
    let t = n
        .limits
        .policies
        .iter()
        .flat_map(|p| {
            let period = SignedDuration::from_secs(p.period_seconds as i64);
            events
                .iter()
                .map(move |e| later(e.time, period))
                .filter(|t| *t > d.now)
        })
        .min()?;
    let to = brief(
        input,
        d.history.after.clone(),
        later(t, SignedDuration::from_secs(1)),
    )
    .desired_replicas;
    Some(NextChange {
        kind: "ratePolicy",
        earliest: t,
        latest: t,
        to,
        text: format!(
            "the rate policy frees capacity at {t}, when a counted scale event leaves its period{}",
            to.map(|v| format!("; then {v} if the metrics stay as they are"))
                .unwrap_or_default()
        ),
    })
}

fn written(input: &Input) -> Option<Written> {
    let st = input.hpa.status.as_ref()?;
    Some(Written {
        desired_replicas: st.desired_replicas,
        current_replicas: st.current_replicas,
        last_scale_time: st.last_scale_time.as_ref().map(|t| t.0),
        observed_generation: st.observed_generation,
        generation: input.hpa.generation,
        conditions: input
            .hpa
            .conditions
            .iter()
            .map(|c| WrittenCondition {
                type_: c.type_.to_string(),
                status: c.status.to_string(),
                reason: c.reason.to_string(),
                last_transition_time: c.last_transition_time,
                observed_generation: c.observed_generation,
            })
            .collect(),
    })
}

fn cond<'a>(w: &'a Written, t: &str) -> Option<&'a WrittenCondition> {
    w.conditions.iter().find(|c| c.type_ == t)
}

/// The last sync in words.
fn did(w: &Written, d: &Decision) -> String {
    let c = w.current_replicas.unwrap_or(w.desired_replicas);
    let active = cond(w, "ScalingActive").filter(|c| c.status == "False");
    let able = cond(w, "AbleToScale");
    let limited = cond(w, "ScalingLimited").filter(|c| c.status == "True");
    let window = |up: bool| {
        d.normalization
            .as_ref()
            .map(|n| {
                let s = if up {
                    n.stabilization.scale_up_window_seconds.unwrap_or(0)
                } else {
                    n.stabilization.scale_down_window_seconds
                };
                crate::duration::format_go_duration(s * 1_000_000_000)
            })
            .unwrap_or_else(|| "stabilization".into())
    };
    match (able.map(|a| (a.status.as_str(), a.reason.as_str())), active) {
        (Some(("False", r)), _) => format!("could not scale the target ({r})"),
        (_, Some(a)) => format!("made no decision (ScalingActive=False {})", a.reason),
        (Some((_, "SucceededRescale")), _) => format!(
            "scaled {c} → {}{}",
            w.desired_replicas,
            w.last_scale_time
                .map(|t| format!(" at {t}"))
                .unwrap_or_default()
        ),
        (Some((_, "ScaleDownStabilized")), _) => format!(
            "held at {c} by the {} scale-down window (the metrics proposed fewer)",
            window(false)
        ),
        (Some((_, "ScaleUpStabilized")), _) => format!(
            "held at {c} by the {} scale-up window (the metrics proposed more)",
            window(true)
        ),
        (Some((_, "ReadyForNewScale")), _) => match limited {
            Some(l) => format!("held at {c}: the limits ({}) kept it there", l.reason),
            None => format!("held at {c}: the metrics proposed {c}"),
        },
        _ => format!("left the target at {c} (no condition tells why)"),
    }
}

fn last_sync(
    input: &mut Input,
    d: &Decision,
    inf: &Inference,
    deltas: Vec<MetricDelta>,
) -> LastSync {
    let Some(w) = written(input) else {
        return LastSync {
            written: None,
            did: "has not synced this HPA yet (it has no status)".into(),
            recomputed_desired_replicas: None,
            reproduced: None,
            cause: None,
            details: vec![],
            metrics: deltas,
        };
    };
    let did = did(&w, d);
    let (recomputed, reproduced) = recompute_last(input, &w, inf);
    let mut details = Vec::new();
    let cause = if reproduced == Some(false) {
        Some(cause(input, &w, d, &deltas, &mut details))
    } else {
        None
    };
    LastSync {
        written: Some(w),
        did,
        recomputed_desired_replicas: recomputed,
        reproduced,
        cause,
        details,
        metrics: deltas,
    }
}

/// Recompute the last sync: its replicas, the memory before it, this sync's metrics.
fn recompute_last(input: &mut Input, w: &Written, inf: &Inference) -> (Option<i32>, Option<bool>) {
    let Ok(scale) = input.scale.as_mut() else {
        return (None, None);
    };
    let Some(prev) = w.current_replicas else {
        return (None, None);
    };
    let current = std::mem::replace(&mut scale.spec_replicas, prev);
    let (t0, t1) = inf.last_sync;
    let t = t0 + t1.duration_since(t0) / 2;
    let mut before = inf.likely.clone();
    before.recommendations.retain(|r| r.time < t);
    before.scale_up_events.retain(|e| e.time < t);
    before.scale_down_events.retain(|e| e.time < t);
    let r = brief(input, before, t);
    if let Ok(s) = input.scale.as_mut() {
        s.spec_replicas = current;
    }
    let reason = |t: &str| {
        r.conditions
            .iter()
            .find(|c| c.type_ == t)
            .map(|c| (c.status.as_str(), c.reason.as_str()))
    };
    let wr = |t: &str| cond(w, t).map(|c| (c.status.as_str(), c.reason.as_str()));
    let ok = r.desired_replicas == Some(w.desired_replicas)
        && ["AbleToScale", "ScalingLimited", "ScalingActive"]
            .iter()
            .all(|t| wr(t).is_none() || reason(t) == wr(t));
    (r.desired_replicas, Some(ok))
}

fn cause(
    input: &Input,
    w: &Written,
    d: &Decision,
    deltas: &[MetricDelta],
    details: &mut Vec<String>,
) -> LastSyncCause {
    let observed = w
        .observed_generation
        .into_iter()
        .chain(w.conditions.iter().filter_map(|c| c.observed_generation))
        .min();
    if let (Some(g), Some(og)) = (w.generation, observed) {
        if og < g {
            details.push(format!("metadata.generation is {g} but the status was written for generation {og}: the controller has not yet synced the current spec"));
            return LastSyncCause::StaleStatus;
        }
    }
    let moved: Vec<&MetricDelta> = deltas.iter().filter(|m| !m.matches).collect();
    if !moved.is_empty() {
        for m in moved {
            details.push(format!(
                "{}: written {}, now {}",
                m.metric,
                value_text(m.written.as_ref()),
                value_text(m.now.as_ref())
            ));
        }
        return LastSyncCause::MetricsChanged;
    }
    let v = input.settings.version();
    let zero = cond(w, "ScaledToZero").is_some();
    if zero && !(v.at_least(36) && input.settings.feature_gates.hpa_scale_to_zero) {
        details.push(format!("the status has a ScaledToZero condition, which the modelled Kubernetes {v} controller does not write: the cluster's controller is another release or has HPAScaleToZero on"));
        return LastSyncCause::Release;
    }
    if let Some(r) = d.desired_range.filter(|r| r.min != r.max) {
        details.push(format!(
            "the controller's memory is not settled by the evidence (range {}–{})",
            r.min, r.max
        ));
        return LastSyncCause::Memory;
    }
    if let Some(text) = tolerance_explains(w, d) {
        details.push(text);
        return LastSyncCause::ControllerFlags;
    }
    details.push(format!(
        "the same metrics and memory give {} here; the controller's flags (tolerance, windows, readiness delays) may differ from the assumed ones",
        d.desired_replicas.map_or("-".into(), |v| v.to_string())
    ));
    LastSyncCause::Unknown
}

/// Would another `--horizontal-pod-autoscaler-tolerance` give what the controller wrote?
fn tolerance_explains(w: &Written, d: &Decision) -> Option<String> {
    let ratio =
        d.metrics
            .iter()
            .filter(|m| m.winner)
            .find_map(|m| match m.calculation.as_ref()? {
                super::Calculation::PodAverage { ratio, .. }
                | super::Calculation::Value { ratio, .. }
                | super::Calculation::AverageValue { ratio, .. } => Some(*ratio),
            })?;
    let dev = (1.0 - ratio).abs();
    let assumed = d.settings.tolerance;
    let held = Some(w.desired_replicas) == w.current_replicas;
    let we_move = d.proposal.is_some_and(|p| Some(p) != d.current_replicas);
    if !(0.0..=0.5).contains(&dev) {
        return None;
    }
    let text = if held && we_move && dev > assumed {
        format!("the deciding ratio is {ratio:.3}: the assumed tolerance {assumed} scales, but the controller held — a tolerance of at least {dev:.3} (--horizontal-pod-autoscaler-tolerance or behavior tolerance) would hold")
    } else if !held && !we_move && dev <= assumed {
        format!("the deciding ratio is {ratio:.3}: inside the assumed tolerance {assumed}, but the controller scaled — a tolerance below {dev:.3} would scale")
    } else {
        return None;
    };
    Some(text)
}

fn value_text(v: Option<&hpa_v2::MetricValueStatus>) -> String {
    let Some(v) = v else { return "-".into() };
    let mut parts = Vec::new();
    if let Some(u) = v.average_utilization {
        parts.push(format!("{u}%"));
    }
    if let Some(q) = &v.average_value {
        parts.push(format!("{}/pod", q.0));
    }
    if let Some(q) = &v.value {
        parts.push(q.0.clone());
    }
    parts.join(" ")
}

/// A stabilization hold is said the way a person asks about it.
fn hold_summary(d: &mut Decision, rescales: &[RescaleRecord]) {
    let (Some(n), Some(nc), Some(c)) = (&d.normalization, &d.next_change, d.current_replicas)
    else {
        return;
    };
    if nc.kind != "stabilizationWindow" || d.desired_replicas != Some(c) {
        return;
    }
    let (w, dir) = if n.stabilization.reason == Rule::ScaleDownStabilized {
        (n.stabilization.scale_down_window_seconds, "scale-down")
    } else {
        (
            n.stabilization.scale_up_window_seconds.unwrap_or(0),
            "scale-up",
        )
    };
    let when = if nc.earliest == nc.latest {
        format!("{}", nc.earliest)
    } else {
        format!("{} (latest {})", nc.earliest, nc.latest)
    };
    let down = dir == "scale-down";
    let holder = n
        .stabilization
        .considered
        .iter()
        .filter(|r| {
            if down {
                r.replicas > n.proposal
            } else {
                r.replicas < n.proposal
            }
        })
        .map(|r| r.time)
        .max();
    let why = holder
        .and_then(|t| {
            rescales
                .iter()
                .find(|r| r.first == t || r.last == t)
                .map(|r| {
                    format!(
                        "the controller scaled to {} at {t} (Event SuccessfulRescale); ",
                        r.new_size
                    )
                })
        })
        .unwrap_or_default();
    d.verdict.summary = format!(
        "Held at {c} by the {} {dir} window: {why}the metrics alone say {}; earliest {dir} {when}",
        crate::duration::format_go_duration(w * 1_000_000_000),
        n.proposal,
    );
}
