//! The controller's memory inferred from the status and Events: hand-built timelines.

use k8s_openapi::api::autoscaling::v2::{
    HorizontalPodAutoscalerCondition, HorizontalPodAutoscalerStatus,
};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;

use super::*;
use crate::core::memory::{infer, Now};

fn condition(type_: &str, status: &str, reason: &str) -> HorizontalPodAutoscalerCondition {
    HorizontalPodAutoscalerCondition {
        type_: type_.into(),
        status: status.into(),
        reason: Some(reason.into()),
        message: Some(String::new()),
        last_transition_time: Some(Time(ago(3000))),
        ..Default::default()
    }
}

/// What the last sync wrote: `AbleToScale=True <able>`, `ScalingLimited=<limited>`.
fn status(
    desired: i32,
    current: i32,
    able: &str,
    limited: Option<&str>,
    last_scale: Option<i64>,
) -> HorizontalPodAutoscalerStatus {
    HorizontalPodAutoscalerStatus {
        desired_replicas: desired,
        current_replicas: Some(current),
        last_scale_time: last_scale.map(|s| Time(ago(s))),
        conditions: Some(vec![
            condition("AbleToScale", "True", able),
            condition("ScalingActive", "True", "ValidMetricFound"),
            match limited {
                Some(r) => condition("ScalingLimited", "True", r),
                None => condition("ScalingLimited", "False", "DesiredWithinRange"),
            },
        ]),
        ..Default::default()
    }
}

fn rescale(size: i32, first: i64, last: i64, count: u32) -> RescaleRecord {
    RescaleRecord {
        new_size: size,
        reason: "x".into(),
        first: ago(first),
        last: ago(last),
        count,
    }
}

fn range(d: &Decision) -> (i32, i32) {
    let r = d.desired_range.unwrap();
    (r.min, r.max)
}

/// 8 pods at 24 % of a 50 % target propose 4; the status says the last sync held at 8.
fn held_at_8(behavior: Option<Behavior>) -> Input {
    let mut i = InputBuilder::new(8)
        .metric(cpu(50))
        .busy_pods(8, 240)
        .build();
    i.hpa.behavior = behavior;
    i.hpa
        .set_status(Some(status(8, 8, "ScaleDownStabilized", None, Some(270))));
    i
}

#[test]
fn a_hold_dated_by_its_scale_up_event_is_settled() {
    for behavior in [None, Some(default_behavior())] {
        let mut i = held_at_8(behavior);
        let events = [rescale(4, 1200, 1200, 1), rescale(8, 270, 270, 1)];
        let d = evaluate_with_memory(&mut i, &HistoryMode::Auto, &events);
        assert_eq!(d.proposal, Some(4));
        assert_eq!(d.desired_replicas, Some(8));
        assert_eq!(
            range(&d),
            (8, 8),
            "the 8 of 270 s ago is inside the 300 s window"
        );
        assert!(d.memory.as_ref().unwrap().settled);
        let n = d.next_change.as_ref().unwrap();
        assert_eq!(n.earliest, now() + SignedDuration::from_secs(30));
        assert_eq!(n.to, Some(4));
        assert!(d
            .verdict
            .summary
            .starts_with("Held at 8 by the 5m0s scale-down window: the controller scaled to 8"));
        // --history none is today's answer: an empty memory scales down.
        let d = evaluate_with_memory(&mut i, &HistoryMode::None, &events);
        assert_eq!((d.desired_replicas, range(&d)), (Some(4), (4, 4)));
    }
}

#[test]
fn an_undated_hold_is_a_range_with_the_hold_most_likely() {
    let mut i = held_at_8(Some(default_behavior()));
    let d = evaluate_with_memory(&mut i, &HistoryMode::Auto, &[]);
    assert_eq!(range(&d), (4, 8));
    assert_eq!(d.desired_replicas, Some(8));
    assert!(!d.memory.as_ref().unwrap().settled);
    let n = d.next_change.as_ref().unwrap();
    // Held now: no sooner than the next sync (15s), never the evaluation time itself.
    assert_eq!(
        (n.earliest, n.latest),
        (
            now() + SignedDuration::from_secs(15),
            now() + SignedDuration::from_secs(285)
        )
    );
}

#[test]
fn once_the_dated_recommendation_left_the_window_only_the_undated_one_can_hold() {
    let mut i = held_at_8(None);
    i.now = now() + SignedDuration::from_secs(60);
    let events = [rescale(4, 1200, 1200, 1), rescale(8, 270, 270, 1)];
    let d = evaluate_with_memory(&mut i, &HistoryMode::Auto, &events);
    assert_eq!(range(&d), (4, 8));
}

#[test]
fn a_stable_last_sync_holds_a_drop_for_the_window() {
    // The last sync proposed 6 and kept 6; now the metrics say 3: the 6 is remembered.
    let mut i = InputBuilder::new(6)
        .metric(cpu(50))
        .busy_pods(6, 240)
        .build();
    i.hpa
        .set_status(Some(status(6, 6, "ReadyForNewScale", None, None)));
    let d = evaluate_with_memory(&mut i, &HistoryMode::Auto, &[]);
    assert_eq!(d.proposal, Some(3));
    assert_eq!((d.desired_replicas, range(&d)), (Some(6), (6, 6)));
    assert_eq!(d.verdict.decided_by, Rule::ScaleDownStabilized);
}

#[test]
fn a_recent_rescale_limits_the_next_scale_up() {
    // Default behavior: scale-up policies Pods 4 / Percent 100 per 15 s. The last sync scaled
    // 2 → 4 ten seconds ago; the metrics now propose 20.
    let mut i = InputBuilder::new(4)
        .metric(cpu(50))
        .busy_pods(4, 2500)
        .build();
    i.hpa.behavior = Some(default_behavior());
    i.hpa.set_status(Some(status(
        4,
        2,
        "SucceededRescale",
        Some("ScaleUpLimit"),
        Some(10),
    )));
    let d = evaluate_with_memory(&mut i, &HistoryMode::Auto, &[rescale(4, 10, 10, 1)]);
    assert_eq!(d.proposal, Some(20));
    // start = 4 − 2 = 2: max(2 + 4, ceil(2 × 2)) = 6.
    assert_eq!((d.desired_replicas, range(&d)), (Some(6), (6, 6)));
    let n = d.next_change.as_ref().unwrap();
    assert_eq!(n.kind, "ratePolicy");
    assert_eq!(n.earliest, now() + SignedDuration::from_secs(5));
    // With an empty memory the limit is max(4 + 4, 8) = 8.
    let d = evaluate_with_memory(&mut i, &HistoryMode::None, &[]);
    assert_eq!(d.desired_replicas, Some(8));
}

#[test]
fn aggregated_events_widen_the_rate_limit_range() {
    // `New size: 6` seen 3 times between 600 s and 5 s ago: one occurrence has no time and may
    // fall inside the 15 s policy period, with an unknown change.
    let mut i = InputBuilder::new(6)
        .metric(cpu(50))
        .busy_pods(6, 2500)
        .build();
    i.hpa.behavior = Some(default_behavior());
    i.hpa.min_replicas = 2;
    i.hpa.max_replicas = 30;
    i.hpa.set_status(Some(status(
        6,
        6,
        "ReadyForNewScale",
        Some("ScaleUpLimit"),
        Some(5),
    )));
    let events = [rescale(6, 600, 5, 3), rescale(3, 300, 300, 1)];
    let inf = infer(
        &i.hpa,
        &i.settings,
        &events,
        Now {
            now: now(),
            proposal: Some(30),
            metrics_unchanged: false,
        },
    );
    assert!(!inf.low.scale_up_events.is_empty(), "{inf:?}");
    assert!(!inf.high.scale_down_events.is_empty(), "{inf:?}");
    let d = evaluate_with_memory(&mut i, &HistoryMode::Auto, &events);
    let (lo, hi) = range(&d);
    assert!(lo < hi, "{lo}..{hi}");
    assert!(lo <= d.desired_replicas.unwrap() && d.desired_replicas.unwrap() <= hi);
}

#[test]
fn a_stale_status_is_named_as_the_cause() {
    // The last sync held at 5; the metrics now propose 10; the spec changed since (generation 3,
    // observedGeneration 2).
    let mut i = InputBuilder::new(5)
        .metric(cpu(50))
        .busy_pods(5, 1000)
        .build();
    i.hpa.generation = Some(3);
    let mut st = status(5, 5, "ReadyForNewScale", None, None);
    st.observed_generation = Some(2);
    i.hpa.set_status(Some(st));
    let d = evaluate_with_memory(&mut i, &HistoryMode::Auto, &[]);
    let ls = d.last_sync.as_ref().unwrap();
    assert_eq!(ls.reproduced, Some(false));
    assert_eq!(
        ls.cause,
        Some(super::with_memory::LastSyncCause::StaleStatus)
    );
    // Without the generation evidence, the moved metric is the cause.
    i.hpa.generation = None;
    let d = evaluate_with_memory(&mut i, &HistoryMode::Auto, &[]);
    let ls = d.last_sync.as_ref().unwrap();
    assert_eq!(
        ls.cause,
        Some(super::with_memory::LastSyncCause::MetricsChanged)
    );
}

#[test]
fn no_status_means_no_memory() {
    let mut i = InputBuilder::new(8)
        .metric(cpu(50))
        .busy_pods(8, 240)
        .build();
    let d = evaluate_with_memory(&mut i, &HistoryMode::Auto, &[]);
    assert_eq!((d.desired_replicas, range(&d)), (Some(4), (4, 4)));
    assert!(d.last_sync.as_ref().unwrap().written.is_none());
}

#[test]
fn a_history_file_is_used_exactly() {
    let mut i = held_at_8(None);
    let h = History {
        recommendations: vec![Recommendation {
            time: ago(100),
            replicas: 7,
        }],
        ..History::default()
    };
    let d = evaluate_with_memory(&mut i, &HistoryMode::File(h), &[rescale(8, 270, 270, 1)]);
    assert_eq!((d.desired_replicas, range(&d)), (Some(7), (7, 7)));
    assert_eq!(
        d.memory.as_ref().unwrap().source,
        super::with_memory::MemorySource::File
    );
}

#[test]
fn a_hold_the_assumed_tolerance_cannot_explain_names_the_controller_flags() {
    // 5 pods at 57 % of a 50 % target: ratio 1.14 scales with the default tolerance 0.1, yet the
    // last sync wrote the same metrics and held at 5 (ReadyForNewScale, not limited).
    let mut i = InputBuilder::new(5)
        .metric(cpu(50))
        .busy_pods(5, 575)
        .build();
    i.hpa.raw_metrics = vec![serde_json::from_value(serde_json::json!({
        "type": "Resource",
        "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 50}}
    }))
    .unwrap()];
    let probe = evaluate(&i);
    assert!(!probe.status.current_metrics.is_empty());
    let mut st = status(5, 5, "ReadyForNewScale", None, None);
    st.current_metrics = Some(probe.status.current_metrics.clone());
    i.hpa.set_status(Some(st));
    let d = evaluate_with_memory(&mut i, &HistoryMode::Auto, &[]);
    let ls = d.last_sync.as_ref().unwrap();
    assert!(ls.metrics.iter().all(|m| m.matches), "{:?}", ls.metrics);
    assert_eq!(ls.reproduced, Some(false));
    assert_eq!(
        ls.cause,
        Some(super::with_memory::LastSyncCause::ControllerFlags),
        "{:?}",
        ls.details
    );
    assert!(ls.details[0].contains("at least 0.140"), "{:?}", ls.details);
}

/// Issue 24's case: a rate-limited ramp. The Events' sizes are only lower bounds of the
/// proposals then (section C2): a memory with the proposal 34 at every sync since 09:21:30
/// gives 30, so the evidence does not settle 28.
#[test]
fn a_rate_limited_ramp_leaves_the_proposals_open_above_the_event_sizes() {
    let pods = |value, period_seconds| Policy {
        kind: PolicyKind::Pods,
        value,
        period_seconds,
    };
    let mut i = InputBuilder::new(28)
        .metric(external(Some(1000), None))
        .build();
    i.metric_data = vec![MetricData::External(Ok(vec![sample("queue", 34_000)]))];
    i.settings.tolerance = 0.0;
    i.hpa.behavior = Some(Behavior {
        scale_up: Rules {
            stabilization_window_seconds: Some(120),
            select_policy: SelectPolicy::Min,
            policies: vec![
                pods(2, 30),
                Policy {
                    kind: PolicyKind::Percent,
                    value: 10,
                    period_seconds: 30,
                },
            ],
            tolerance: None,
        },
        ..Behavior::default()
    });
    let probe = evaluate(&i);
    assert_eq!(probe.proposal, Some(34));
    let mut st = status(28, 28, "ReadyForNewScale", Some("ScaleUpLimit"), Some(30));
    st.current_metrics = Some(probe.status.current_metrics.clone());
    i.hpa.set_status(Some(st));
    let events = [rescale(26, 60, 60, 1), rescale(28, 30, 30, 1)];
    let d = evaluate_with_memory(&mut i, &HistoryMode::Auto, &events);
    // 28 (if the sync that scaled to 28 proposed exactly 28) up to 30; the metrics did not
    // move since the last sync, so the most likely memory has 34 and gives 30.
    assert_eq!((range(&d), d.desired_replicas), ((28, 30), Some(30)));
    assert!(!d.memory.as_ref().unwrap().settled);
    // The memory of the case, given exactly: 34 at every sync since 09:21:30.
    let h = History {
        recommendations: [60, 45, 30, 15]
            .iter()
            .map(|s| Recommendation {
                time: ago(*s),
                replicas: 34,
            })
            .collect(),
        scale_up_events: vec![
            ScaleEvent {
                time: ago(60),
                change: 2,
            },
            ScaleEvent {
                time: ago(30),
                change: 2,
            },
        ],
        ..History::default()
    };
    let d = evaluate_with_memory(&mut i, &HistoryMode::File(h), &events);
    assert_eq!(d.desired_replicas, Some(30));
}
