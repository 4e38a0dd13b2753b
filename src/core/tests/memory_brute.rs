//! The inferred memory against brute force: every proposal sequence over a small set is run
//! through the controller's algorithm (the core, sync after sync, with the status and the
//! `SuccessfulRescale` Events it leaves), and the range inferred from that evidence must contain
//! the decision the controller then takes with its true memory. Every world with the same
//! evidence is checked against the same range, so this is the invariant of [`super::memory`]:
//! the range covers every memory consistent with the evidence.

use std::collections::BTreeMap;

use jiff::{SignedDuration, Timestamp};
use k8s_openapi::api::autoscaling::v2::HorizontalPodAutoscalerStatus;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;

use super::*;

const SYNC: i64 = 15;

/// An HPA on an External AverageValue metric with target 1, tolerance 0: the proposal of a sync
/// is the metric's value.
fn base(current: i32, proposal: i32, behavior: Option<Behavior>, now: Timestamp) -> Input {
    let mut i = InputBuilder::new(current)
        .metric(external(Some(1000), None))
        .build();
    i.metric_data = vec![MetricData::External(Ok(vec![MetricSample {
        timestamp: now,
        ..sample("queue", i64::from(proposal) * 1000)
    }]))];
    i.hpa.behavior = behavior;
    i.hpa.max_replicas = 8;
    i.settings.tolerance = 0.0;
    i.settings.downscale_stabilization = SignedDuration::from_secs(50);
    i.now = now;
    i
}

/// What a world leaves: the status and conditions of its last sync, its Events, and what the
/// controller decides now with its true memory.
struct Outcome {
    status: HorizontalPodAutoscalerStatus,
    conditions: Vec<Condition>,
    events: Vec<RescaleRecord>,
    current: i32,
    answer: i32,
}

/// A controller started at `start` syncs every 15 s with `proposals`, then `gap` seconds after
/// its last sync (now) the metrics propose `now_p`.
fn run(
    (start, gap): (Timestamp, i64),
    c0: i32,
    proposals: &[i32],
    now_p: i32,
    b: &Option<Behavior>,
) -> Outcome {
    let mut history = History::default();
    let mut current = c0;
    let mut status: Option<HorizontalPodAutoscalerStatus> = None;
    let mut conditions: Vec<Condition> = Vec::new();
    let mut events: BTreeMap<String, RescaleRecord> = BTreeMap::new();
    let mut t = start;
    for &p in proposals {
        let mut i = base(current, p, b.clone(), t);
        i.history = std::mem::take(&mut history);
        i.hpa.status = status.take();
        i.hpa.conditions = std::mem::take(&mut conditions);
        let d = evaluate(&i);
        history = d.history.after.clone();
        conditions = d.conditions.clone();
        status = Some(HorizontalPodAutoscalerStatus {
            current_replicas: d.status.current_replicas,
            desired_replicas: d.status.desired_replicas.unwrap(),
            current_metrics: Some(d.status.current_metrics.clone()),
            last_scale_time: d.status.last_scale_time.map(Time),
            ..Default::default()
        });
        for e in d.events.iter().filter(|e| e.reason == "SuccessfulRescale") {
            let size = d.desired_replicas.unwrap();
            events
                .entry(e.message.clone())
                .and_modify(|r| {
                    r.last = t;
                    r.count += 1;
                })
                .or_insert(RescaleRecord {
                    new_size: size,
                    reason: e.message.clone(),
                    first: t,
                    last: t,
                    count: 1,
                });
        }
        current = d.desired_replicas.unwrap();
        t += SignedDuration::from_secs(SYNC);
    }
    let now = t - SignedDuration::from_secs(SYNC - gap);
    let mut i = base(current, now_p, b.clone(), now);
    i.history = history;
    let answer = evaluate(&i).desired_replicas.unwrap();
    Outcome {
        status: status.unwrap(),
        conditions,
        events: events.into_values().collect(),
        current,
        answer,
    }
}

/// Every sequence of `len` proposals from `values`.
fn sequences(values: &[i32], len: usize) -> Vec<Vec<i32>> {
    (0..len).fold(vec![vec![]], |acc, _| {
        acc.into_iter()
            .flat_map(|s| {
                values.iter().map(move |v| {
                    let mut n = s.clone();
                    n.push(*v);
                    n
                })
            })
            .collect()
    })
}

fn behaviors() -> Vec<(&'static str, Option<Behavior>)> {
    let pods = |value, period_seconds| Policy {
        kind: PolicyKind::Pods,
        value,
        period_seconds,
    };
    let percent = |value, period_seconds| Policy {
        kind: PolicyKind::Percent,
        value,
        period_seconds,
    };
    let limited = Behavior {
        scale_up: Rules {
            stabilization_window_seconds: Some(40),
            select_policy: SelectPolicy::Min,
            policies: vec![pods(2, 25), percent(10, 25)],
            tolerance: None,
        },
        scale_down: Rules {
            stabilization_window_seconds: Some(35),
            select_policy: SelectPolicy::Max,
            policies: vec![pods(1, 20)],
            tolerance: None,
        },
    };
    vec![
        ("no behavior", None),
        ("default behavior", Some(Behavior::default())),
        ("windows and rate limits", Some(limited)),
    ]
}

#[test]
fn the_inferred_range_contains_the_decision_of_every_memory_consistent_with_the_evidence() {
    let values = [1, 3, 5, 8];
    let mut checked = 0;
    let mut unsettled = 0;
    let mut failures = Vec::new();
    for (name, b) in behaviors() {
        // Now is a whole sync period after the last sync, or 4 s after it. (Also run once: both
        // gaps for both starts, 12,288 worlds; five syncs before now at a whole period, 24,576
        // worlds; windows and periods on multiples of 15 s: none outside.)
        for (c0, gap) in [(2, SYNC), (5, 4)] {
            for seq in sequences(&values, 5) {
                let (past, now_p) = seq.split_at(4);
                let start = ago(SYNC * 3 + gap);
                let o = run((start, gap), c0, past, now_p[0], &b);
                let mut i = base(o.current, now_p[0], b.clone(), now());
                i.hpa.status = Some(o.status.clone());
                i.hpa.conditions = o.conditions.clone();
                let d = evaluate_with_memory(&mut i, &HistoryMode::Auto, &o.events);
                let r = d.desired_range.unwrap();
                checked += 1;
                unsettled += usize::from(r.min != r.max);
                if !(r.min..=r.max).contains(&o.answer) {
                    failures.push(format!(
                        "{name}, from {c0}, proposals {past:?} then {} ({gap} s after the last sync): the controller gives {}, the range is {}..{}",
                        now_p[0], o.answer, r.min, r.max
                    ));
                }
            }
        }
    }
    let per_behavior: Vec<String> = behaviors()
        .iter()
        .map(|(name, _)| {
            let n = failures.iter().filter(|f| f.starts_with(name)).count();
            format!("{name}: {n}")
        })
        .collect();
    let sample: Vec<&String> = behaviors()
        .iter()
        .filter_map(|(name, _)| failures.iter().find(|f| f.starts_with(name)))
        .collect();
    assert!(
        failures.is_empty(),
        "{} of {checked} worlds outside their range ({}), e.g.:\n{sample:#?}",
        failures.len(),
        per_behavior.join(", ")
    );
    // The test means something only if the evidence settles some worlds and not others.
    assert!(
        unsettled > 0 && unsettled < checked,
        "{unsettled} of {checked}"
    );
}
