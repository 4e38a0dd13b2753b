//! Shared fixtures for the core's tests: a builder for [`Input`] and small constructors for
//! pods, samples and metric specs. The builder is the only place a test `Input` is spelt out.

use jiff::{SignedDuration, Timestamp};

use super::super::*;

pub(in crate::core) fn t(s: &str) -> Timestamp {
    s.parse().unwrap()
}

pub(in crate::core) const NOW: &str = "2026-03-01T12:00:00Z";

pub(in crate::core) fn now() -> Timestamp {
    t(NOW)
}

pub(in crate::core) fn ago(secs: i64) -> Timestamp {
    now().checked_sub(SignedDuration::from_secs(secs)).unwrap()
}

/// A Running pod, Ready for the last 3500 s, with one container `app` requesting `cpu_request`
/// milli-CPU.
pub(in crate::core) fn pod(name: &str, cpu_request: i64) -> PodInfo {
    PodInfo {
        name: name.into(),
        phase: "Running".into(),
        deleting: false,
        start_time: Some(ago(3600)),
        ready: Some(ReadyCondition {
            status: "True".into(),
            last_transition_time: ago(3500),
        }),
        containers: vec![ContainerRequests {
            name: "app".into(),
            requests: Resources::from([("cpu", cpu_request)]),
            restartable_init: false,
        }],
        init_containers: vec![],
        pod_requests: None,
        overhead: Resources::new(),
        owner: None,
    }
}

/// The pod started 20 s ago and is not Ready (since 10 s).
pub(in crate::core) fn unready(mut p: PodInfo) -> PodInfo {
    p.ready = Some(ReadyCondition {
        status: "False".into(),
        last_transition_time: ago(10),
    });
    p.start_time = Some(ago(20));
    p
}

/// The PodMetrics of pod `name`: `cpu` milli-CPU in container `app`, 30 s window, taken now.
pub(in crate::core) fn usage(name: &str, cpu: i64) -> PodUsage {
    PodUsage {
        pod: name.into(),
        timestamp: now(),
        window: SignedDuration::from_secs(30),
        containers: vec![("app".into(), Resources::from([("cpu", cpu)]))],
    }
}

/// A custom or external metric value taken now, 60 s window.
pub(in crate::core) fn sample(name: &str, v: i64) -> MetricSample {
    MetricSample {
        name: name.into(),
        value: v,
        timestamp: now(),
        window: SignedDuration::from_secs(60),
    }
}

/// A cpu Resource metric with a `util` % Utilization target.
pub(in crate::core) fn cpu(util: i32) -> MetricSpec {
    MetricSpec::Resource {
        resource: "cpu".into(),
        target: Target {
            type_: "Utilization".into(),
            average_utilization: Some(util),
            ..Default::default()
        },
    }
}

/// The External metric `queue` with an AverageValue (`avg`) or Value target.
pub(in crate::core) fn external(avg: Option<i64>, value: Option<i64>) -> MetricSpec {
    MetricSpec::External {
        metric: "queue".into(),
        selector_text: "nil".into(),
        target: Target {
            type_: if avg.is_some() {
                "AverageValue"
            } else {
                "Value"
            }
            .into(),
            value,
            average_value: avg,
            average_utilization: None,
        },
    }
}

/// Builds an [`Input`]: HPA `shop/web` on Deployment `web` (scale selector `app=web`),
/// minReplicas 1, maxReplicas 100, no behavior, no status, default settings, no history, now =
/// [`NOW`], full detail.
pub(in crate::core) struct InputBuilder(Input);

impl InputBuilder {
    /// The target at `current` replicas (`spec.replicas` = `status.replicas`).
    pub(in crate::core) fn new(current: i32) -> InputBuilder {
        InputBuilder(Input {
            hpa: Hpa {
                namespace: "shop".into(),
                name: "web".into(),
                min_replicas: 1,
                max_replicas: 100,
                metrics: vec![],
                behavior: None,
                raw_metrics: vec![],
                status: None,
                conditions: vec![],
                target_kind: "Deployment".into(),
                target_name: "web".into(),
                generation: None,
            },
            scale: Ok(Scale {
                spec_replicas: current,
                status_replicas: current,
                selector: "app=web".into(),
            }),
            pods: vec![],
            pod_metrics: Ok(vec![]),
            metric_data: vec![],
            other_hpas_selecting: vec![],
            settings: Settings::default(),
            history: History::default(),
            now: now(),
            detail: Detail::Full,
        })
    }

    /// Adds a `spec.metrics` entry (with no custom or external data).
    pub(in crate::core) fn metric(mut self, m: MetricSpec) -> InputBuilder {
        self.0.hpa.metrics.push(m);
        self.0.metric_data.push(MetricData::None);
        self
    }

    pub(in crate::core) fn metrics(self, ms: Vec<MetricSpec>) -> InputBuilder {
        ms.into_iter().fold(self, InputBuilder::metric)
    }

    pub(in crate::core) fn pods(mut self, pods: Vec<PodInfo>) -> InputBuilder {
        self.0.pods.extend(pods);
        self
    }

    pub(in crate::core) fn usages(mut self, usages: Vec<PodUsage>) -> InputBuilder {
        if let Ok(u) = &mut self.0.pod_metrics {
            u.extend(usages);
        }
        self
    }

    /// `n` Ready pods `web-0`… with a 1-CPU request, each using `milli` CPU.
    pub(in crate::core) fn busy_pods(self, n: usize, milli: i64) -> InputBuilder {
        let names: Vec<String> = (0..n).map(|i| format!("web-{i}")).collect();
        self.pods(names.iter().map(|p| pod(p, 1000)).collect())
            .usages(names.iter().map(|p| usage(p, milli)).collect())
    }

    pub(in crate::core) fn build(self) -> Input {
        self.0
    }
}
