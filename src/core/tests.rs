//! The core on the worked numbers of the Kubernetes docs (pod, utilization, external, tolerance
//! and behavior examples), plus the differences between releases.

use jiff::SignedDuration;

use super::normalize;
use super::*;

mod evaluator;
pub(super) mod fixtures;
mod memory;
mod memory_brute;

use fixtures::*;

fn cond<'a>(d: &'a Decision, ty: &str) -> &'a Condition {
    d.conditions.iter().find(|c| c.type_ == ty).unwrap()
}

fn default_behavior() -> Behavior {
    Behavior::default()
}

#[test]
fn pods_metric_average_value_scales_up_and_down() {
    let spec = MetricSpec::Pods {
        metric: "qps".into(),
        target: Target {
            type_: "AverageValue".into(),
            average_value: Some(100),
            ..Default::default()
        },
    };
    let pods = vec![pod("a", 1000), pod("b", 1000), pod("c", 1000)];
    for (v, want) in [(200, 6), (50, 2)] {
        let mut i = InputBuilder::new(3)
            .metrics(vec![spec.clone()])
            .pods(pods.clone())
            .usages(vec![])
            .build();
        i.metric_data = vec![MetricData::Pods(Ok(vec![
            sample("a", v),
            sample("b", v),
            sample("c", v),
        ]))];
        let d = evaluate(&i);
        assert_eq!(d.metrics[0].proposed_replicas, Some(want));
        assert_eq!(d.desired_replicas, Some(want));
        let st = d.metrics[0].status.as_ref().unwrap();
        assert_eq!(
            st.pods
                .as_ref()
                .unwrap()
                .current
                .average_value
                .as_ref()
                .unwrap()
                .0,
            crate::quantity::format_decimal_si(v)
        );
        if want == 6 {
            assert_eq!(
                d.rescale_reason.as_deref(),
                Some("pods metric qps above target")
            );
        } else {
            assert_eq!(
                d.rescale_reason.as_deref(),
                Some("All metrics below target")
            );
        }
    }
}

#[test]
fn cpu_utilization_averages_the_ready_pods() {
    let i = InputBuilder::new(3)
        .metrics(vec![cpu(30)])
        .pods(vec![pod("a", 1000), pod("b", 1000), pod("c", 1000)])
        .usages(vec![usage("a", 300), usage("b", 500), usage("c", 700)])
        .build();
    let d = evaluate(&i);
    assert_eq!(d.metrics[0].proposed_replicas, Some(5));
    let cur = &d.metrics[0]
        .status
        .as_ref()
        .unwrap()
        .resource
        .as_ref()
        .unwrap()
        .current;
    assert_eq!(cur.average_utilization, Some(50));
    assert_eq!(cur.average_value.as_ref().unwrap().0, "500m");
    assert_eq!(d.desired_replicas, Some(5));
}

#[test]
fn unready_pods_damp_a_scale_up() {
    let pods = vec![pod("a", 1000), pod("b", 1000), unready(pod("c", 1000))];
    let i = InputBuilder::new(3)
        .metrics(vec![cpu(50)])
        .pods(pods.clone())
        .usages(vec![usage("a", 800), usage("b", 800), usage("c", 900)])
        .build();
    let d = evaluate(&i);
    assert_eq!(
        d.metrics[0].proposed_replicas,
        Some(3),
        "53% → 1.06 → within tolerance"
    );
    assert_eq!(d.verdict.action, Action::Hold);
    let i = InputBuilder::new(3)
        .metrics(vec![cpu(50)])
        .pods(pods)
        .usages(vec![usage("a", 900), usage("b", 900), usage("c", 900)])
        .build();
    let d = evaluate(&i);
    assert_eq!(
        d.metrics[0].proposed_replicas,
        Some(4),
        "ceil(1.2 × 3) = ceil(3.5999999999999996) = 4"
    );
}

#[test]
fn missing_pods_damp_a_scale_down() {
    let pods = vec![
        pod("a", 1000),
        pod("b", 1000),
        pod("c", 1000),
        pod("d", 1000),
    ];
    let usages = vec![usage("a", 100), usage("b", 100), usage("c", 100)];
    let d = evaluate(
        &InputBuilder::new(4)
            .metrics(vec![cpu(50)])
            .pods(pods.clone())
            .usages(usages.clone())
            .build(),
    );
    assert_eq!(d.metrics[0].proposed_replicas, Some(3));
    let cur = &d.metrics[0]
        .status
        .as_ref()
        .unwrap()
        .resource
        .as_ref()
        .unwrap()
        .current;
    assert_eq!(
        cur.average_utilization,
        Some(10),
        "status reports ready pods only"
    );
    assert_eq!(cur.average_value.as_ref().unwrap().0, "100m");
    let d = evaluate(
        &InputBuilder::new(4)
            .metrics(vec![cpu(200)])
            .pods(pods.clone())
            .usages(usages.clone())
            .build(),
    );
    assert_eq!(
        d.metrics[0].proposed_replicas,
        Some(2),
        "missing pod at 200% of request"
    );
    // Before 1.26 a missing pod counted at 100% of its request whatever the target.
    let mut i = InputBuilder::new(4)
        .metrics(vec![cpu(200)])
        .pods(pods)
        .usages(usages)
        .build();
    i.settings = Settings::for_version("1.25".parse().unwrap());
    let d = evaluate(&i);
    assert_eq!(d.metrics[0].proposed_replicas, Some(1));
}

#[test]
fn external_metric_average_value_target() {
    let mut i = InputBuilder::new(4)
        .metrics(vec![external(Some(10_000), None)])
        .pods(vec![pod("a", 1000)])
        .usages(vec![])
        .build();
    i.metric_data = vec![MetricData::External(Ok(vec![sample("queue", 95_000)]))];
    let d = evaluate(&i);
    assert_eq!(d.metrics[0].proposed_replicas, Some(10));
    let st = d.metrics[0]
        .status
        .as_ref()
        .unwrap()
        .external
        .as_ref()
        .unwrap();
    assert_eq!(st.current.average_value.as_ref().unwrap().0, "23750m");
    assert_eq!(
        d.metrics[0].description.as_deref(),
        Some("external metric queue(nil)")
    );
}

#[test]
fn external_metric_value_target() {
    let mut i = InputBuilder::new(3)
        .metrics(vec![external(None, Some(3000))])
        .pods(vec![pod("a", 1), pod("b", 1), pod("c", 1)])
        .usages(vec![])
        .build();
    i.metric_data = vec![MetricData::External(Ok(vec![
        sample("queue", 5000),
        sample("queue", 3600),
    ]))];
    let d = evaluate(&i);
    assert_eq!(d.metrics[0].proposed_replicas, Some(9));
    let st = d.metrics[0]
        .status
        .as_ref()
        .unwrap()
        .external
        .as_ref()
        .unwrap();
    assert_eq!(st.current.value.as_ref().unwrap().0, "8600m");
}

#[test]
fn normalization_without_behavior() {
    let mut h = History::default();
    let n = normalize::without_behavior(&mut h, now(), SignedDuration::from_mins(5), 4, 10, 1, 100);
    assert_eq!((n.result, n.limits.reason.as_str()), (8, "ScaleUpLimit"));
    let n = normalize::without_behavior(
        &mut History::default(),
        now(),
        SignedDuration::from_mins(5),
        2,
        1,
        2,
        10,
    );
    assert_eq!((n.result, n.limits.reason.as_str()), (2, "TooFewReplicas"));
    let mut h = History {
        recommendations: vec![
            Recommendation {
                time: ago(200),
                replicas: 5,
            },
            Recommendation {
                time: ago(100),
                replicas: 4,
            },
        ],
        ..Default::default()
    };
    let n = normalize::without_behavior(&mut h, now(), SignedDuration::from_mins(5), 5, 3, 1, 10);
    assert_eq!(n.result, 5);
    assert_eq!(n.stabilization.reason, Rule::ScaleDownStabilized);
    assert_eq!(
        h.recommendations.len(),
        3,
        "a new recommendation is remembered"
    );
    // A record exactly at the cutoff still counts without behavior.
    let mut h = History {
        recommendations: vec![Recommendation {
            time: ago(300),
            replicas: 9,
        }],
        ..Default::default()
    };
    let n = normalize::without_behavior(&mut h, now(), SignedDuration::from_mins(5), 5, 3, 1, 10);
    assert_eq!(n.stabilization.stabilized, 9);
}

fn scale_down_rules(policies: Vec<Policy>, select: SelectPolicy) -> Behavior {
    let mut b = default_behavior();
    b.scale_down = Rules {
        stabilization_window_seconds: Some(0),
        select_policy: select,
        policies,
        tolerance: None,
    };
    b
}

fn four_pods_or_ten_percent_per_minute() -> Vec<Policy> {
    vec![
        Policy {
            kind: PolicyKind::Pods,
            value: 4,
            period_seconds: 60,
        },
        Policy {
            kind: PolicyKind::Percent,
            value: 10,
            period_seconds: 60,
        },
    ]
}

fn with_behavior(b: &Behavior, h: &mut History, current: i32, p: i32) -> Normalization {
    normalize::with_behavior(
        h,
        now(),
        b,
        SignedDuration::from_mins(5),
        current,
        p,
        1,
        100,
        false,
    )
}

#[test]
fn scale_down_policies_and_select_policy() {
    let b = scale_down_rules(four_pods_or_ten_percent_per_minute(), SelectPolicy::Max);
    let n = with_behavior(&b, &mut History::default(), 80, 10);
    assert_eq!((n.result, n.limits.reason.as_str()), (72, "ScaleDownLimit"));
    let mut h = History {
        scale_down_events: vec![ScaleEvent {
            time: ago(15),
            change: 8,
        }],
        ..Default::default()
    };
    assert_eq!(
        with_behavior(&b, &mut h, 72, 10).result,
        72,
        "80 at the period start, 8 removed since: limit 72"
    );
    let mut h = History {
        scale_down_events: vec![ScaleEvent {
            time: ago(61),
            change: 8,
        }],
        ..Default::default()
    };
    assert_eq!(
        with_behavior(&b, &mut h, 72, 10).result,
        64,
        "an event 61 s old has left the 60 s period"
    );
    let mut h = History {
        scale_down_events: vec![ScaleEvent {
            time: ago(60),
            change: 8,
        }],
        ..Default::default()
    };
    assert_eq!(
        with_behavior(&b, &mut h, 72, 10).result,
        64,
        "an event exactly one period old does not count"
    );
    assert_eq!(
        with_behavior(&b, &mut History::default(), 30, 10).result,
        26,
        "30 → 10 with Max: max(4 pods, 10 % = 3) = 4 → 26"
    );
    let b = scale_down_rules(four_pods_or_ten_percent_per_minute(), SelectPolicy::Min);
    assert_eq!(
        with_behavior(&b, &mut History::default(), 80, 10).result,
        76,
        "80 → 10 with Min: min(4 pods, 10 % = 8) = 4 → 76"
    );
    let b = scale_down_rules(
        four_pods_or_ten_percent_per_minute(),
        SelectPolicy::Disabled,
    );
    let n = with_behavior(&b, &mut History::default(), 80, 10);
    assert_eq!(n.result, 80, "Disabled keeps current");
}

#[test]
fn scale_up_policies_and_rounding() {
    let b = default_behavior();
    let n = with_behavior(&b, &mut History::default(), 3, 50);
    assert_eq!((n.result, n.limits.reason.as_str()), (7, "ScaleUpLimit"));
    let mut h = History {
        scale_up_events: vec![ScaleEvent {
            time: ago(10),
            change: 5,
        }],
        ..Default::default()
    };
    assert_eq!(
        with_behavior(&b, &mut h, 10, 50).result,
        10,
        "5 at the period start → max(9, 10)"
    );
    let mut b = default_behavior();
    b.scale_up.policies = vec![Policy {
        kind: PolicyKind::Percent,
        value: 10,
        period_seconds: 60,
    }];
    assert_eq!(
        with_behavior(&b, &mut History::default(), 50, 100).result,
        56,
        "10 % up from 50: ceil(55.00000000000001)"
    );
    let b = scale_down_rules(
        vec![Policy {
            kind: PolicyKind::Percent,
            value: 30,
            period_seconds: 60,
        }],
        SelectPolicy::Max,
    );
    assert_eq!(
        with_behavior(&b, &mut History::default(), 90, 1).result,
        62,
        "30 % down from 90: trunc(62.99999999999999)"
    );
}

#[test]
fn scale_up_stabilization_window() {
    let mut b = default_behavior();
    b.scale_up.stabilization_window_seconds = Some(120);
    let mut h = History {
        recommendations: vec![
            Recommendation {
                time: ago(100),
                replicas: 5,
            },
            Recommendation {
                time: ago(50),
                replicas: 6,
            },
        ],
        ..Default::default()
    };
    let n = with_behavior(&b, &mut h, 4, 8);
    assert_eq!(n.result, 5);
    assert_eq!(n.stabilization.reason, Rule::ScaleUpStabilized);
    // With behavior a record exactly at the cutoff does not count.
    let mut h = History {
        recommendations: vec![Recommendation {
            time: ago(120),
            replicas: 5,
        }],
        ..Default::default()
    };
    assert_eq!(with_behavior(&b, &mut h, 4, 8).stabilization.stabilized, 8);
}

#[test]
fn tolerance_band_is_inclusive_and_per_direction() {
    let d = evaluate(
        &InputBuilder::new(10)
            .metric(cpu(100))
            .busy_pods(10, 1100)
            .build(),
    );
    assert_eq!(d.desired_replicas, Some(10), "ratio exactly 1.1 is within");
    assert_eq!(d.verdict.decided_by, Rule::Tolerance);
    // Before 1.33: |1 - 1.1| = 0.10000000000000009 > 0.1 → scale.
    let mut i = InputBuilder::new(10)
        .metric(cpu(100))
        .busy_pods(10, 1100)
        .build();
    i.settings = Settings::for_version("1.32".parse().unwrap());
    assert_eq!(evaluate(&i).desired_replicas, Some(11));
    // ratio 1.08 with scaleUp.tolerance 0.05.
    let mut i = InputBuilder::new(10)
        .metric(cpu(100))
        .busy_pods(10, 1080)
        .build();
    assert_eq!(evaluate(&i).desired_replicas, Some(10));
    let mut b = default_behavior();
    b.scale_up.tolerance = Some(0.05);
    i.hpa.behavior = Some(b.clone());
    assert_eq!(evaluate(&i).desired_replicas, Some(11));
    // The gate off (default in 1.34) ignores the per-direction tolerance.
    i.settings = Settings::for_version("1.34".parse().unwrap());
    assert_eq!(evaluate(&i).desired_replicas, Some(10));
}

#[test]
fn invalid_metric_blocks_only_a_scale_down() {
    let mut i = InputBuilder::new(4)
        .metric(cpu(50))
        .busy_pods(4, 100)
        .build();
    i.hpa.metrics.push(external(Some(1000), None));
    i.metric_data = vec![MetricData::None, MetricData::External(Ok(vec![]))];
    let d = evaluate(&i);
    assert_eq!(d.desired_replicas, Some(4));
    assert_eq!(d.verdict.action, Action::CannotScale);
    let c = cond(&d, "ScalingActive");
    assert_eq!(
        (c.status.as_str(), c.reason.as_str()),
        ("False", "FailedGetExternalMetric")
    );
    assert_eq!(
        c.message,
        "the HPA was unable to compute the replica count: unable to get external metric shop/queue/nil: no metrics returned from external metrics API"
    );
    assert!(d.events.iter().any(|e| e.reason == "FailedComputeMetricsReplicas"
        && e.message == "invalid metrics (1 invalid out of 2), first error is: failed to get queue external metric value: failed to get queue external metric: unable to get external metric shop/queue/nil: no metrics returned from external metrics API"));
    let mut i = InputBuilder::new(4)
        .metric(cpu(50))
        .busy_pods(4, 1000)
        .build();
    i.hpa.metrics.push(external(Some(1000), None));
    i.metric_data = vec![MetricData::None, MetricData::External(Ok(vec![]))];
    let d = evaluate(&i);
    assert_eq!(d.desired_replicas, Some(8));
    assert_eq!(cond(&d, "ScalingActive").reason, "ValidMetricFound");
}

#[test]
fn zero_replicas_disable_scaling() {
    let d = evaluate(
        &InputBuilder::new(0)
            .metric(cpu(50))
            .busy_pods(0, 1000)
            .build(),
    );
    assert_eq!(d.desired_replicas, Some(0));
    assert_eq!(d.verdict.action, Action::Disabled);
    assert_eq!(cond(&d, "ScalingActive").reason, "ScalingDisabled");
    assert_eq!(cond(&d, "AbleToScale").reason, "SucceededGetScale");
    assert!(d.status.current_metrics.is_empty());
}

#[test]
fn above_max_replicas_sets_max_without_reading_metrics() {
    let mut i = InputBuilder::new(12)
        .metric(cpu(50))
        .busy_pods(12, 1000)
        .build();
    i.hpa.max_replicas = 10;
    let d = evaluate(&i);
    assert_eq!(d.desired_replicas, Some(10));
    assert_eq!(d.verdict.decided_by, Rule::AboveMaxReplicas);
    assert!(d.metrics[0].proposed_replicas.is_none());
    assert_eq!(
        d.events[0].message,
        "New size: 10; reason: Current number of replicas above Spec.MaxReplicas"
    );
}

#[test]
fn scale_from_zero_needs_the_scaled_to_zero_condition() {
    let mut i = InputBuilder::new(0)
        .metrics(vec![external(None, Some(1000))])
        .pods(vec![])
        .usages(vec![])
        .build();
    i.hpa.min_replicas = 0;
    i.metric_data = vec![MetricData::External(Ok(vec![sample("queue", 3000)]))];
    // Without ScaledToZero=True the newest controller treats 0 replicas as disabled...
    assert_eq!(evaluate(&i).verdict.action, Action::Disabled);
    // ...while up to 1.35 minReplicas 0 meant "compute".
    let mut old = i.clone();
    old.settings = Settings::for_version("1.35".parse().unwrap());
    assert_eq!(evaluate(&old).desired_replicas, Some(3));
    // With the condition, it scales from zero: ceil(ratio) without tolerance.
    i.hpa.conditions = model::conditions_of(Some(
        &k8s_openapi::api::autoscaling::v2::HorizontalPodAutoscalerStatus {
            conditions: Some(vec![
                k8s_openapi::api::autoscaling::v2::HorizontalPodAutoscalerCondition {
                    type_: "ScaledToZero".into(),
                    status: "True".into(),
                    ..Default::default()
                },
            ]),
            ..Default::default()
        },
    ));
    let d = evaluate(&i);
    assert_eq!(d.desired_replicas, Some(3));
    assert_eq!(cond(&d, "ScaledToZero").reason, "NotScaledToZero");
}

#[test]
fn failed_and_deleted_pods_are_ignored_but_need_requests() {
    let mut failed = pod("f", 1000);
    failed.phase = "Failed".into();
    let i = InputBuilder::new(2)
        .metrics(vec![cpu(50)])
        .pods(vec![pod("a", 1000), pod("b", 1000), failed.clone()])
        .usages(vec![usage("a", 1000), usage("b", 1000), usage("f", 5000)])
        .build();
    assert_eq!(evaluate(&i).metrics[0].proposed_replicas, Some(4));
    failed.containers[0].requests = Resources::new();
    let i = InputBuilder::new(2)
        .metrics(vec![cpu(50)])
        .pods(vec![pod("a", 1000), failed])
        .usages(vec![usage("a", 1000)])
        .build();
    let d = evaluate(&i);
    assert_eq!(
        d.metrics[0].error.as_deref(),
        Some("failed to get cpu utilization: missing request for cpu in container app of Pod f")
    );
}

#[test]
fn no_pod_metrics_is_an_error_of_the_metric() {
    let i = InputBuilder::new(2)
        .metrics(vec![cpu(50)])
        .pods(vec![pod("a", 1000)])
        .usages(vec![])
        .build();
    let d = evaluate(&i);
    assert_eq!(
        d.metrics[0].error.as_deref(),
        Some("failed to get cpu utilization: unable to get metrics for resource cpu: no metrics returned from resource metrics API")
    );
    assert_eq!(d.verdict.decided_by, Rule::InvalidMetrics);
}

#[test]
fn failed_get_scale_is_an_answer() {
    let mut i = InputBuilder::new(3)
        .metric(cpu(50))
        .busy_pods(3, 1000)
        .build();
    i.scale = Err("deployments.apps \"web\" not found".into());
    i.hpa.status = Some(hpa_v2::HorizontalPodAutoscalerStatus {
        current_replicas: Some(3),
        desired_replicas: 3,
        ..Default::default()
    });
    let d = evaluate(&i);
    assert_eq!(d.current_replicas, None);
    // The status is written back unchanged: the previous desiredReplicas stays (the
    // controller's TestConditionFailedGetScale expects 3).
    assert_eq!(d.desired_replicas, Some(3));
    assert_eq!(d.status.desired_replicas, Some(3));
    assert_eq!(d.verdict.action, Action::CannotScale);
    let c = cond(&d, "AbleToScale");
    assert_eq!(c.reason, "FailedGetScale");
    assert_eq!(
        c.message,
        "the HPA controller was unable to get the target's current scale: deployments.apps \"web\" not found"
    );
}

#[test]
fn ambiguous_selector_blocks_the_decision() {
    let mut i = InputBuilder::new(3)
        .metric(cpu(50))
        .busy_pods(3, 1000)
        .build();
    i.other_hpas_selecting = vec!["web-canary".into()];
    let d = evaluate(&i);
    assert_eq!(d.desired_replicas, Some(3));
    assert_eq!(
        cond(&d, "ScalingActive").message,
        "pods by selector app=web are controlled by more than one HPA (e.g. [shop/web shop/web-canary])"
    );
}

#[test]
fn ambiguous_selector_text_follows_the_release() {
    // Three HPAs select the pods: from 1.37 (optimized selector store, kubernetes PR #139142)
    // two are named; before, every one.
    let mut i = InputBuilder::new(3)
        .metric(cpu(50))
        .busy_pods(3, 1000)
        .build();
    i.other_hpas_selecting = vec!["web-canary".into(), "api".into()];
    let d = evaluate(&i);
    assert_eq!(
        cond(&d, "ScalingActive").message,
        "pods by selector app=web are controlled by more than one HPA (e.g. [shop/api shop/web])"
    );
    i.settings = Settings::for_version(KubeVersion { minor: 36 });
    let d = evaluate(&i);
    assert_eq!(
        cond(&d, "ScalingActive").message,
        "pods by selector app=web are controlled by multiple HPAs: [shop/api shop/web shop/web-canary]"
    );
    assert_eq!(d.events[0].message, cond(&d, "ScalingActive").message);
}

#[test]
fn history_after_records_the_recommendation_and_scale_event() {
    let mut i = InputBuilder::new(4)
        .metric(cpu(50))
        .busy_pods(4, 1000)
        .build();
    i.hpa.behavior = Some(default_behavior());
    let d = evaluate(&i);
    assert_eq!(d.desired_replicas, Some(8));
    assert_eq!(
        d.history.after.recommendations,
        vec![Recommendation {
            time: now(),
            replicas: 8
        }]
    );
    assert_eq!(
        d.history.after.scale_up_events,
        vec![ScaleEvent {
            time: now(),
            change: 4
        }]
    );
}

// ---------------------------------------------------------------- release boundaries
//
// Each boundary is tested on both sides: the last release with the old behaviour and the first
// with the new one.

fn at(minor: u32, mut i: Input) -> Input {
    i.settings = Settings::for_version(KubeVersion { minor });
    i
}

fn pod_row<'a>(d: &'a Decision, pod: &str) -> &'a PodRow {
    match d.metrics[0].calculation.as_ref() {
        Some(Calculation::PodAverage { pods, .. }) => pods.iter().find(|r| r.pod == pod).unwrap(),
        other => panic!("no pod table: {other:?}"),
    }
}

fn container_cpu(container: &str, target: i32) -> MetricSpec {
    MetricSpec::ContainerResource {
        resource: "cpu".into(),
        container: container.into(),
        target: Target {
            type_: "Utilization".into(),
            average_utilization: Some(target),
            ..Default::default()
        },
    }
}

#[test]
fn succeeded_pods_count_until_1_37_and_are_ignored_from_1_38() {
    // Two Running pods at 100 % of request, target 80 %, and a Succeeded pod without a sample.
    let mut done = pod("s", 1000);
    done.phase = "Succeeded".into();
    let i = InputBuilder::new(2)
        .metrics(vec![cpu(80)])
        .pods(vec![pod("a", 1000), pod("b", 1000), done])
        .usages(vec![usage("a", 1000), usage("b", 1000)])
        .build();
    // 1.38: ignored; ceil(1.25 × 2) = 3.
    let d = evaluate(&at(38, i.clone()));
    assert_eq!(d.metrics[0].proposed_replicas, Some(3));
    assert_eq!(pod_row(&d, "s").group, PodGroup::Ignored);
    // 1.37: a missing pod; filled with 0 on a scale-up, the ratio turns below 1: keep 2.
    let d = evaluate(&at(37, i));
    assert_eq!(d.metrics[0].proposed_replicas, Some(2));
    assert_eq!(pod_row(&d, "s").group, PodGroup::Missing);
}

#[test]
fn container_missing_from_pod_metrics_fails_until_1_32_and_is_missing_from_1_33() {
    let mut b_usage = usage("b", 900);
    b_usage.containers[0].0 = "sidecar".into();
    let i = InputBuilder::new(2)
        .metrics(vec![container_cpu("app", 50)])
        .pods(vec![pod("a", 1000), pod("b", 1000)])
        .usages(vec![usage("a", 1000), b_usage])
        .build();
    let d = evaluate(&at(32, i.clone()));
    assert_eq!(
        d.metrics[0].error.as_deref(),
        Some("failed to get cpu utilization: unable to get metrics for resource cpu: failed to get container metrics: container app not present in metrics for pod shop/b")
    );
    let d = evaluate(&at(33, i));
    assert_eq!(d.metrics[0].error, None);
    assert_eq!(pod_row(&d, "b").group, PodGroup::Missing);
}

#[test]
fn container_absent_from_the_pod_spec_adds_0_until_1_34_and_fails_from_1_35() {
    let mut b = pod("b", 500);
    b.containers[0].name = "sidecar".into();
    let i = InputBuilder::new(2)
        .metrics(vec![container_cpu("app", 50)])
        .pods(vec![pod("a", 1000), b])
        .usages(vec![usage("a", 500)])
        .build();
    let d = evaluate(&at(34, i.clone()));
    assert_eq!(d.metrics[0].error, None);
    assert_eq!(pod_row(&d, "b").request_milli, Some(0));
    let d = evaluate(&at(35, i));
    assert_eq!(
        d.metrics[0].error.as_deref(),
        Some("failed to get cpu utilization: container app not found in Pod b")
    );
}

#[test]
fn pod_level_requests_are_read_from_1_34_whatever_the_gate() {
    // Container request 1000m, pod-level request 2000m, usage 1000m, target 50 %.
    let p = |n: &str| {
        let mut x = pod(n, 1000);
        x.pod_requests = Some(Resources::from([("cpu", 2000)]));
        x
    };
    let i = InputBuilder::new(2)
        .metrics(vec![cpu(50)])
        .pods(vec![p("a"), p("b")])
        .usages(vec![usage("a", 1000), usage("b", 1000)])
        .build();
    // 1.34 (gate on by default): 50 % of the pod-level request → hold.
    let d = evaluate(&at(34, i.clone()));
    assert_eq!(d.metrics[0].proposed_replicas, Some(2));
    // 1.33 with the gate turned on: the HPA still sums the containers → 100 % → 4.
    let mut old = at(33, i.clone());
    old.settings
        .feature_gates
        .apply("PodLevelResources=true", KubeVersion { minor: 33 }, "test")
        .unwrap();
    assert!(old.settings.feature_gates.pod_level_resources);
    assert_eq!(evaluate(&old).metrics[0].proposed_replicas, Some(4));
    // 1.34 with the gate off: containers again.
    let mut off = at(34, i);
    off.settings.feature_gates.pod_level_resources = false;
    assert_eq!(evaluate(&off).metrics[0].proposed_replicas, Some(4));
}

/// Section C1: `PodRequests` of component-helpers. Pod-level memory only; container `app`
/// cpu 1; init container `init` cpu 4, then the sidecar `side` cpu 1; usage 1 cpu per pod;
/// target 20 %.
#[test]
fn pod_level_requests_follow_pod_requests_init_containers_see_only_earlier_sidecars() {
    let side = ContainerRequests {
        name: "side".into(),
        requests: Resources::from([("cpu", 1000)]),
        restartable_init: true,
    };
    let p = |n: &str| {
        let mut x = pod(n, 1000);
        x.pod_requests = Some(Resources::from([("memory", 1 << 30)]));
        x.containers.push(side.clone());
        x.init_containers = vec![
            ContainerRequests {
                name: "init".into(),
                requests: Resources::from([("cpu", 4000)]),
                restartable_init: false,
            },
            side.clone(),
        ];
        x
    };
    let i = InputBuilder::new(2)
        .metrics(vec![cpu(20)])
        .pods(vec![p("a"), p("b")])
        .usages(vec![usage("a", 1000), usage("b", 1000)])
        .build();
    // max(app 1 + side 1, init 4 + no sidecar before it) = 4 cpu: 25 % / 20 % → ceil(2.5) = 3.
    let d = evaluate(&at(37, i.clone()));
    assert_eq!(
        d.metrics[0].proposed_replicas,
        Some(3),
        "{:?}",
        d.metrics[0]
    );
    assert_eq!(d.desired_replicas, Some(3));
    // The sidecar declared first runs under the init container: 4 + 1 = 5 → 20 % → hold at 2.
    let mut first = i.clone();
    for x in &mut first.pods {
        x.init_containers.reverse();
    }
    assert_eq!(
        evaluate(&at(37, first)).metrics[0].proposed_replicas,
        Some(2)
    );
    // spec.overhead (cpu 1) is added up to 1.37 (4 + 1 = 5 → hold) and left out in 1.38.
    let mut over = i;
    for x in &mut over.pods {
        x.overhead = Resources::from([("cpu", 1000)]);
    }
    let hold = evaluate(&at(37, over.clone()));
    assert_eq!(hold.metrics[0].proposed_replicas, Some(2));
    let d = evaluate(&at(38, over));
    assert_eq!(d.metrics[0].proposed_replicas, Some(3));
}

#[test]
fn object_metric_error_text_is_misaligned_until_1_36() {
    let i = {
        let mut i = InputBuilder::new(2)
            .metrics(vec![MetricSpec::Object {
                kind: "Service".into(),
                object: "front".into(),
                metric: "rps".into(),
                target: Target {
                    type_: "Value".into(),
                    value: Some(1000),
                    ..Default::default()
                },
            }])
            .pods(vec![pod("a", 1000), pod("b", 1000)])
            .usages(vec![])
            .build();
        i.metric_data = vec![MetricData::Object(Err("boom".into()))];
        i
    };
    let d = evaluate(&at(36, i.clone()));
    assert_eq!(
        d.metrics[0].error.as_deref(),
        Some("unable to get metric rps: Service on shop front/boom")
    );
    let d = evaluate(&at(37, i));
    assert_eq!(
        d.metrics[0].error.as_deref(),
        Some("unable to get metric rps on Service shop/front: boom")
    );
}

#[test]
fn observed_generation_is_written_from_1_37() {
    let mut i = InputBuilder::new(2)
        .metric(cpu(50))
        .busy_pods(2, 1000)
        .build();
    i.hpa.generation = Some(7);
    let d = evaluate(&at(37, i.clone()));
    assert_eq!(d.status.observed_generation, Some(7));
    assert!(d
        .conditions
        .iter()
        .all(|c| c.observed_generation == Some(7)));
    let j = serde_json::to_value(&d).unwrap();
    assert_eq!(j["status"]["observedGeneration"], 7);
    assert_eq!(j["conditions"][0]["observedGeneration"], 7);
    let d = evaluate(&at(36, i));
    assert_eq!(d.status.observed_generation, None);
    assert!(d.conditions.iter().all(|c| c.observed_generation.is_none()));
    let j = serde_json::to_value(&d).unwrap();
    assert!(j["status"].get("observedGeneration").is_none());
    assert!(j["conditions"][0].get("observedGeneration").is_none());
}

#[test]
fn every_detail_level_decides_the_same_and_brief_keeps_the_metric_statuses() {
    let mut i = InputBuilder::new(3)
        .metrics(vec![cpu(30)])
        .pods(vec![pod("c", 1000), pod("a", 1000), pod("b", 1000)])
        .usages(vec![usage("a", 300), usage("b", 500), usage("c", 700)])
        .build();
    let full = evaluate(&i);
    i.detail = Detail::Brief;
    let brief = evaluate(&i);
    i.detail = Detail::Numbers;
    let numbers = evaluate(&i);
    let conditions = |d: &Decision| -> Vec<(String, String, String)> {
        d.conditions
            .iter()
            .map(|c| {
                (
                    c.type_.to_string(),
                    c.status.to_string(),
                    c.reason.to_string(),
                )
            })
            .collect()
    };
    for d in [&brief, &numbers] {
        assert_eq!(d.desired_replicas, full.desired_replicas);
        assert_eq!(d.proposal, full.proposal);
        assert_eq!(d.verdict.decided_by, full.verdict.decided_by);
        assert_eq!(conditions(d), conditions(&full));
    }
    // The memory inference compares a brief probe's statuses with the ones written.
    assert_eq!(brief.status.current_metrics, full.status.current_metrics);
    assert!(!full.status.current_metrics.is_empty());
    assert!(numbers.status.current_metrics.is_empty());
}

/// The PodAverage calculation of the first metric.
fn pod_average_of(d: &Decision) -> (i64, usize, Option<calc::Rebalance>) {
    match d.metrics[0].calculation.as_ref().unwrap() {
        Calculation::PodAverage {
            current,
            foreign_samples,
            rebalance,
            ..
        } => (*current, *foreign_samples, rebalance.clone()),
        other => panic!("not a pod average: {other:?}"),
    }
}

#[test]
fn a_sample_of_an_unlisted_pod_counts_only_where_the_controller_counts_it() {
    // Utilization: `GetResourceUtilizationRatio` skips a sample without a request, so the pod
    // the selector did not list (x) changes nothing: 50 % of request, on target.
    let i = InputBuilder::new(2)
        .metrics(vec![cpu(50)])
        .pods(vec![pod("a", 1000), pod("b", 1000)])
        .usages(vec![usage("a", 500), usage("x", 3000), usage("b", 500)])
        .build();
    let d = evaluate(&i);
    assert_eq!(pod_average_of(&d).0, 50);
    assert_eq!(pod_average_of(&d).1, 1);
    assert_eq!(d.metrics[0].proposed_replicas, Some(2));
    // A Pods metric: `GetMetricUsageRatio` averages every sample it got, x's included:
    // (500 + 500 + 3000) / 3 = 1333 per pod against 500, ceil(2.667 × 2 ready) = 6.
    let mut i = i.clone();
    i.hpa.metrics = vec![MetricSpec::Pods {
        metric: "qps".into(),
        target: Target {
            type_: "AverageValue".into(),
            average_value: Some(500),
            ..Default::default()
        },
    }];
    i.metric_data = vec![MetricData::Pods(Ok(vec![
        sample("a", 500),
        sample("x", 3000),
        sample("b", 500),
    ]))];
    let d = evaluate(&i);
    assert_eq!(pod_average_of(&d).0, 1333);
    assert_eq!(d.metrics[0].proposed_replicas, Some(6));
}

#[test]
fn the_rebalance_adds_assumed_samples_to_the_counted_ones_and_no_others() {
    // a and b are busy (90 % of request), c has no sample yet, d is unready with a sample the
    // controller removes. First ratio 90/50 = 1.8 (a scale-up): c and d count as 0, so the
    // entries are a, b, c, d: (900 + 900 + 0 + 0) / 4000 = 45 %, ratio 0.9 < 1 reverses the
    // direction: hold at 4.
    let i = InputBuilder::new(4)
        .metrics(vec![cpu(50)])
        .pods(vec![
            pod("a", 1000),
            pod("b", 1000),
            pod("c", 1000),
            unready(pod("d", 1000)),
        ])
        .usages(vec![usage("a", 900), usage("b", 900), usage("d", 5000)])
        .build();
    let d = evaluate(&i);
    let (current, _, rebalance) = pod_average_of(&d);
    assert_eq!(current, 90);
    let r = rebalance.expect("rebalanced");
    assert_eq!((r.entries, r.new_value), (4, 45));
    assert_eq!((r.missing_pods, r.unready_pods), (1, 1));
    assert_eq!(r.missing_fill_milli, Some(0));
    assert_eq!(r.unready_fill_milli, Some(0));
    assert_eq!(d.metrics[0].proposed_replicas, Some(4));
}
