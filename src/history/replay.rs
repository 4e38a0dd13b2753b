//! The replay: the controller's algorithm ([`crate::core::Evaluator`], as `explain` and
//! `simulate` run it) at every sync of the recorded window, on what the controller read then —
//! the target's replicas, its Ready pods and each metric's recorded load — carrying its memory
//! (`decision.history.after`) from sync to sync. The syncs before the window (one stabilization
//! window and one policy period) only build the memory the controller had at the window's start.
//!
//! Pure: the recorded series come in ([`Recorded`]), one [`ReplaySync`] per sync goes out.

use jiff::{SignedDuration, Timestamp};

use super::recorded::{Recorded, SeriesKind};
use crate::core::{
    Calculation, ContainerRequests, Decision, Detail, Evaluator, History, Input, MetricData,
    MetricSample, MetricSpec, PodInfo, PodUsage, ReadyCondition, Resources,
};

/// One sync: what was recorded and what the replay decided.
#[derive(Debug, Clone, PartialEq)]
pub struct ReplaySync {
    pub time: Timestamp,
    /// The target's replicas the controller read (recorded), else the replay's last decision.
    pub current: i32,
    /// Whether `current` was recorded at this sync.
    pub current_recorded: bool,
    /// The desired replicas the controller wrote (recorded).
    pub desired: Option<i32>,
    /// What the replayed controller decided.
    pub replayed: i32,
    /// The rule that decided the replayed step (`Tolerance`, `ScaleUpLimit` ...).
    pub rule: &'static str,
    /// The first metric as the controller saw it: utilization in percent, or its value.
    pub metric: Option<f64>,
    /// Its target, in the same unit.
    pub target: Option<f64>,
    /// `%` for utilization, empty for a value.
    pub unit: &'static str,
    pub ready: Option<i32>,
    pub min: i32,
    pub max: i32,
    /// Some series had no sample at this sync (the replay holds or guesses).
    pub missing: bool,
    /// Where the recorded replicas moved to a size the replay had not decided: the replay's
    /// own size (its decision at the sync before) and what it decides from that size at this
    /// sync, on the same data and memory — whether the replay itself would have moved, rather
    /// than held at the size the recorded replicas already reached.
    pub own: Option<OwnStep>,
}

/// The replay's decision on its own size at one sync (see [`ReplaySync::own`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OwnStep {
    /// The replay's own size: what it decided at the sync before.
    pub current: i32,
    /// What it decides from that size.
    pub replayed: i32,
}

/// The syncs before the window that build the controller's memory: the longest stabilization
/// window or policy period of the HPA's behavior (the defaults: 300 s down, 60 s of policies up),
/// and one sync more, so that the memory the replay starts from (one recommendation at the
/// lead's first sync) has left every window by the window's first sync (without `behavior`, a
/// record exactly at the cutoff still counts).
pub fn lead(input: &Input) -> SignedDuration {
    let b = input.hpa.behavior.clone().unwrap_or_default();
    let mut secs: i64 = input.settings.downscale_stabilization.as_secs().max(0);
    for r in [&b.scale_up, &b.scale_down] {
        secs = secs.max(r.stabilization_window_seconds.unwrap_or(0) as i64);
        for p in &r.policies {
            secs = secs.max(p.period_seconds as i64);
        }
    }
    SignedDuration::from_secs(secs.max(300)) + input.settings.sync_period.abs()
}

/// Replay every sync of `rec` from `template` (the HPA, its settings and pods as a snapshot
/// shows them); the returned syncs start at the window's start.
pub fn replay(template: &Input, rec: &Recorded) -> Vec<ReplaySync> {
    let mut out = Vec::with_capacity(rec.len().saturating_sub(rec.window_start));
    run(template, rec, rec.len(), true, |k, input, d, own| {
        if k >= rec.window_start {
            let mut s = sync_of(rec, k, input, d);
            s.own = own;
            out.push(s);
        }
    });
    out
}

/// The input and the full decision of sync `k` (for `explain --at`), the memory carried over
/// the syncs before it.
pub fn decision_at(template: &Input, rec: &Recorded, k: usize) -> Option<(Input, Decision)> {
    let mut found = None;
    run(template, rec, k + 1, false, |i, input, _, _| {
        if i == k {
            let mut full = input.clone();
            full.detail = Detail::Full;
            let d = crate::core::evaluate(&full);
            found = Some((full, d));
        }
    });
    found
}

/// The syncs `0..until`, each evaluated and handed to `each` before the memory moves on; with
/// `own`, also [`ReplaySync::own`] where the recorded replicas moved to a size the replay had
/// not decided.
fn run(
    template: &Input,
    rec: &Recorded,
    until: usize,
    own: bool,
    mut each: impl FnMut(usize, &Input, &Decision, Option<OwnStep>),
) {
    let mut input = template.clone();
    input.detail = Detail::Numbers;
    input.history = first_memory(rec, template);
    if input.metric_data.len() < input.hpa.metrics.len() {
        input
            .metric_data
            .resize(input.hpa.metrics.len(), MetricData::None);
    }
    let pod = pod_template(template, rec);
    let mut evaluator = Evaluator::new();
    let mut decision = Box::<Decision>::default();
    let mut last = rec.current.iter().flatten().next().copied().unwrap_or(1);
    for k in 0..until.min(rec.len()) {
        let now = rec.time(k);
        let current = rec.current[k].unwrap_or(last);
        // Before `fill`: the same memory, the replay's own size.
        let ready = rec.ready[k].unwrap_or(current);
        let step = (own && k > 0 && current != last).then(|| {
            let mut alt = input.clone();
            fill(
                &mut alt,
                rec,
                k,
                now,
                last,
                own_ready(ready, current, last),
                &pod,
            );
            let d = crate::core::evaluate(&alt);
            OwnStep {
                current: last,
                replayed: d.desired_replicas.unwrap_or(last),
            }
        });
        fill(&mut input, rec, k, now, current, ready, &pod);
        evaluator.evaluate_into(&input, &mut decision);
        each(k, &input, &decision, step);
        last = decision.desired_replicas.unwrap_or(current);
        std::mem::swap(&mut input.history, &mut decision.history.after);
    }
}

/// The Ready pods at the replay's own size `own` where the recorded target has `current`
/// replicas, `ready` of them Ready: the pods a recorded scale-down removed would still be
/// there, Ready; of a recorded scale-up's, only those Ready up to the own size.
fn own_ready(ready: i32, current: i32, own: i32) -> i32 {
    if own > current {
        ready.saturating_add(own - current)
    } else {
        ready.min(own)
    }
}

/// A controller that has been running before the lead: it recommended what it had.
fn first_memory(rec: &Recorded, template: &Input) -> History {
    let replicas = rec
        .desired
        .iter()
        .chain(&rec.current)
        .flatten()
        .next()
        .copied()
        .or(template.scale.as_ref().ok().map(|s| s.spec_replicas))
        .unwrap_or(1);
    crate::simulate::memory::running_at_start(rec.start, replicas).history
}

/// The pod every replayed pod is a copy of: the containers of the template's first pod, their
/// requests replaced by the recorded ones where recorded.
pub(super) fn pod_template(template: &Input, rec: &Recorded) -> PodInfo {
    let mut pod = template.pods.first().cloned().unwrap_or_else(|| PodInfo {
        name: String::new(),
        phase: "Running".into(),
        deleting: false,
        start_time: None,
        ready: None,
        containers: vec![],
        init_containers: vec![],
        pod_requests: None,
        overhead: Resources::new(),
        owner: None,
    });
    if pod.containers.is_empty() {
        pod.containers.push(ContainerRequests {
            name: container_of(&template.hpa.metrics)
                .unwrap_or("app")
                .to_string(),
            requests: Resources::new(),
            restartable_init: false,
        });
    }
    pod.phase = "Running".into();
    pod.deleting = false;
    pod.init_containers.clear();
    pod.pod_requests = None;
    let _ = rec;
    pod
}

fn container_of(metrics: &[MetricSpec]) -> Option<&str> {
    metrics.iter().find_map(|m| match m {
        MetricSpec::ContainerResource { container, .. } => Some(container.as_str()),
        _ => None,
    })
}

fn milli(v: f64) -> i64 {
    (v * 1000.0).round().clamp(0.0, i64::MAX as f64) as i64
}

/// Write sync `k`'s recorded world into `input`: replicas, `ready` of them Ready, samples.
fn fill(
    input: &mut Input,
    rec: &Recorded,
    k: usize,
    now: Timestamp,
    current: i32,
    ready: i32,
    pod: &PodInfo,
) {
    input.now = now;
    if let Some(m) = rec.min[k] {
        input.hpa.min_replicas = m;
    }
    if let Some(m) = rec.max[k] {
        input.hpa.max_replicas = m;
    }
    if let Ok(s) = &mut input.scale {
        s.spec_replicas = current;
        s.status_replicas = current;
    }
    let ready = ready.clamp(0, current.max(0)) as usize;
    fill_pods(&mut input.pods, pod, now, current.max(0) as usize, ready);
    let window = SignedDuration::from_secs(30);
    let mut usages: Vec<PodUsage> = (0..ready)
        .map(|i| PodUsage {
            pod: format!("replayed-{i}"),
            timestamp: now,
            window,
            containers: vec![(pod.containers[0].name.clone(), Resources::new())],
        })
        .collect();
    let mut usage_missing = false;
    for (i, spec) in input.hpa.metrics.iter().enumerate() {
        let Some(m) = rec.metrics.get(i).and_then(Option::as_ref) else {
            continue;
        };
        let value = m.values.get(k).copied().flatten();
        let sample = |name: &str, v: f64| MetricSample {
            name: name.to_string(),
            value: milli(v),
            timestamp: now,
            window,
        };
        let missing = || "no sample recorded at this sync".to_string();
        match spec {
            MetricSpec::Resource { resource, .. }
            | MetricSpec::ContainerResource { resource, .. } => {
                let Some(v) = value else {
                    usage_missing = true;
                    continue;
                };
                let share = if ready > 0 { v / ready as f64 } else { 0.0 };
                for u in &mut usages {
                    u.containers[0].1.insert(resource.as_str(), milli(share));
                }
                if let Some(r) = m.request.get(k).copied().flatten() {
                    for p in &mut input.pods {
                        p.containers[0].requests.insert(resource.as_str(), milli(r));
                    }
                }
            }
            MetricSpec::Pods { .. } => {
                input.metric_data[i] = MetricData::Pods(value.ok_or_else(missing).map(|v| {
                    let share = if ready > 0 { v / ready as f64 } else { 0.0 };
                    (0..ready)
                        .map(|p| sample(&format!("replayed-{p}"), share))
                        .collect()
                }));
            }
            MetricSpec::Object { object, .. } => {
                input.metric_data[i] =
                    MetricData::Object(value.ok_or_else(missing).map(|v| sample(object, v)));
            }
            MetricSpec::External { metric, .. } => {
                input.metric_data[i] = MetricData::External(
                    value.ok_or_else(missing).map(|v| vec![sample(metric, v)]),
                );
            }
            MetricSpec::Unknown { .. } => {}
        }
        let _ = m.kind == SeriesKind::Total;
    }
    input.pod_metrics = if usage_missing {
        Err("no cAdvisor sample recorded at this sync".into())
    } else {
        Ok(usages)
    };
}

/// `total` copies of `pod`, the first `ready` of them Ready for an hour, the others just
/// created.
fn fill_pods(pods: &mut Vec<PodInfo>, pod: &PodInfo, now: Timestamp, total: usize, ready: usize) {
    let long_ago = now
        .checked_sub(SignedDuration::from_hours(1))
        .unwrap_or(now);
    pods.clear();
    for i in 0..total {
        let mut p = pod.clone();
        p.name = format!("replayed-{i}");
        let is_ready = i < ready;
        p.start_time = Some(if is_ready { long_ago } else { now });
        p.ready = Some(ReadyCondition {
            status: if is_ready { "True" } else { "False" }.into(),
            last_transition_time: if is_ready { long_ago } else { now },
        });
        pods.push(p);
    }
}

/// What one sync recorded and replayed.
fn sync_of(rec: &Recorded, k: usize, input: &Input, d: &Decision) -> ReplaySync {
    let current = input.scale.as_ref().map(|s| s.spec_replicas).unwrap_or(0);
    let calc = d.metrics.first().and_then(|m| m.calculation.as_ref());
    let (metric, target) = calc.map(value_and_target).unwrap_or((None, None));
    let unit = match calc {
        Some(Calculation::PodAverage { mode, .. }) if *mode == "Utilization" => "%",
        _ => "",
    };
    let missing = rec.current[k].is_none()
        || rec.desired[k].is_none()
        || rec
            .metrics
            .iter()
            .flatten()
            .any(|m| m.values.get(k).copied().flatten().is_none());
    ReplaySync {
        time: input.now,
        current,
        current_recorded: rec.current[k].is_some(),
        desired: rec.desired[k],
        replayed: d.desired_replicas.unwrap_or(current),
        rule: d.verdict.decided_by.as_str(),
        metric,
        target,
        unit,
        ready: rec.ready[k],
        min: input.hpa.min_replicas,
        max: input.hpa.max_replicas,
        missing,
        own: None,
    }
}

/// The metric's value and target in the unit people read: percent of request, or the value.
pub fn value_and_target(c: &Calculation) -> (Option<f64>, Option<f64>) {
    match c {
        Calculation::PodAverage {
            mode,
            current,
            target,
            ratio,
            ..
        } if ratio.is_finite() => {
            if *mode == "Utilization" {
                (Some(*current as f64), Some(*target as f64))
            } else {
                (
                    Some(*current as f64 / 1000.0),
                    Some(*target as f64 / 1000.0),
                )
            }
        }
        Calculation::Value {
            value_milli,
            target_milli,
            ..
        } => (
            Some(*value_milli as f64 / 1000.0),
            Some(*target_milli as f64 / 1000.0),
        ),
        Calculation::AverageValue {
            average_milli,
            target_milli,
            ..
        } => (
            Some(*average_milli as f64 / 1000.0),
            Some(*target_milli as f64 / 1000.0),
        ),
        _ => (None, None),
    }
}

/// Syncs 15 s apart from 2026-01-01, for the tests of the matching and the chart: (recorded
/// current, recorded desired, replayed), every series recorded, no metric, no `own` step.
#[cfg(test)]
pub(super) fn test_syncs(rows: &[(i32, i32, i32)]) -> Vec<ReplaySync> {
    let t0: Timestamp = "2026-01-01T00:00:00Z".parse().unwrap();
    rows.iter()
        .enumerate()
        .map(|(k, &(current, desired, replayed))| ReplaySync {
            time: t0 + SignedDuration::from_secs(15 * k as i64),
            current,
            current_recorded: true,
            desired: Some(desired),
            replayed,
            rule: "MetricProposal",
            metric: None,
            target: None,
            unit: "",
            ready: Some(current),
            min: 1,
            max: 10,
            missing: false,
            own: None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::history::recorded::RecordedMetric;
    use crate::snapshot::Snapshot;

    /// 10 replicas whose load fell to 1 core (20 % of 10 × 500m: a proposal of 4) long before:
    /// every sync of the lead recommends 4, the desired replicas recorded at its start are 10.
    fn steady_low(template: &Input, at: Timestamp) -> Recorded {
        let step = SignedDuration::from_secs(15);
        let grid = crate::history::prom::Grid::new(at, at, step, lead(template));
        let n = grid.len();
        Recorded {
            start: grid.start,
            step,
            window_start: n - 1,
            desired: vec![Some(10); n],
            current: vec![Some(10); n],
            min: vec![Some(2); n],
            max: vec![Some(10); n],
            ready: vec![Some(10); n],
            metrics: vec![Some(RecordedMetric {
                name: "cpu".into(),
                kind: SeriesKind::Total,
                query: "cpu".into(),
                values: vec![Some(1.0); n],
                request: vec![Some(0.5); n],
            })],
        }
    }

    /// The memory the replay starts from (a recommendation of the recorded 10 at the lead's
    /// first sync) must be out of the scale-down window by the window's first sync: the
    /// controller counts a record exactly at the cutoff, so a lead of exactly 300 s held the
    /// scale-down at 10.
    #[test]
    fn the_starting_memory_has_left_the_window_at_the_first_sync() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/scale-up-cpu.yaml");
        let snap = Snapshot::read_sources(&[path.into()]).unwrap();
        let at: Timestamp = "2026-11-01T01:00:00Z".parse().unwrap();
        let template = snap
            .input_for(
                "shop",
                "web",
                crate::core::Settings::default(),
                History::default(),
                at,
            )
            .unwrap();
        assert_eq!(lead(&template), SignedDuration::from_secs(315));
        let rec = steady_low(&template, at);
        let (input, d) = decision_at(&template, &rec, rec.window_start).unwrap();
        assert_eq!(input.now, at);
        assert_eq!(
            (d.current_replicas, d.desired_replicas),
            (Some(10), Some(4)),
            "{:?}",
            d.verdict
        );
    }
}
