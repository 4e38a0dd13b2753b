//! Objects of a snapshot as the core reads them: an HPA's spec (bounds, metrics, behavior)
//! validated field by field, Pods, PodMetrics, metric values and workloads reduced to their
//! scale. Every error names the object and the field.

use std::collections::BTreeMap;
use std::fmt::Display;

use jiff::{SignedDuration, Timestamp};
use k8s_openapi::api::autoscaling::v2::{self as hpa_v2, HorizontalPodAutoscaler};
use k8s_openapi::apimachinery::pkg::api::resource::Quantity;

use super::error::{err, SnapshotError};
use super::wire::{self, Pod};
use crate::core::model::*;
use crate::core::{selector_text, Resources};
use crate::labels::Selector;
use crate::metrics_api::{ExternalMetricValue, MetricValue, PodMetrics};
use crate::quantity::{parse_f64, parse_milli};

/// A scalable workload, reduced to its scale subresource.
#[derive(Debug, Clone, PartialEq)]
pub struct Workload {
    pub kind: String,
    pub namespace: String,
    pub name: String,
    pub scale: Scale,
    /// The workload's own labels-to-pods selector, for Deployments etc.
    pub uid: Option<String>,
}

/// What the diagnostics read from a Deployment or ReplicaSet besides its scale.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorkloadStatus {
    pub kind: String,
    pub namespace: String,
    pub name: String,
    /// The controlling owner `(kind, name)` (a ReplicaSet's Deployment).
    pub owner: Option<(String, String)>,
    pub spec_replicas: i32,
    pub status_replicas: i32,
    pub updated_replicas: Option<i32>,
}

pub(super) fn parse_time(
    s: &str,
    ctx: &(impl Display + ?Sized),
    field: &(impl Display + ?Sized),
) -> Result<Timestamp, SnapshotError> {
    s.parse::<Timestamp>().map_err(|e| {
        err(format!(
            "{ctx}: field {field}: invalid RFC3339 time {s:?}: {e}"
        ))
    })
}

// perf: the context and field of an error are written only when there is one (they were
// formatted for every quantity read: `cargo bench --bench fleet`, see docs/performance.md).
fn milli(
    q: &str,
    ctx: &(impl Display + ?Sized),
    field: &(impl Display + ?Sized),
) -> Result<i64, SnapshotError> {
    parse_milli(q).map_err(|e| err(format!("{ctx}: field {field}: {e}")))
}

fn non_negative_milli(
    q: &str,
    ctx: &(impl Display + ?Sized),
    field: &(impl Display + ?Sized),
) -> Result<i64, SnapshotError> {
    let v = milli(q, ctx, field)?;
    if v < 0 {
        return Err(err(format!(
            "{ctx}: field {field}: negative quantity {q:?} is not allowed"
        )));
    }
    Ok(v)
}

pub(super) fn workload(
    kind: &str,
    md: &wire::Meta,
    spec_replicas: Option<i32>,
    status_replicas: Option<i32>,
    selector: Option<&k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector>,
    ctx: &(impl std::fmt::Display + ?Sized),
) -> Result<Workload, SnapshotError> {
    let spec_replicas = spec_replicas.unwrap_or(1);
    let status_replicas = status_replicas.unwrap_or(0);
    if spec_replicas < 0 {
        return Err(err(format!(
            "{ctx}: field spec.replicas: negative replica count {spec_replicas}"
        )));
    }
    if status_replicas < 0 {
        return Err(err(format!(
            "{ctx}: field status.replicas: negative replica count {status_replicas}"
        )));
    }
    let selector = match selector {
        Some(s) => Selector::from_label_selector(s)
            .map_err(|e| err(format!("{ctx}: field spec.selector: {e}")))?
            .to_string(),
        None => String::new(),
    };
    Ok(Workload {
        kind: kind.into(),
        namespace: md.namespace.clone().unwrap_or_else(|| "default".into()),
        name: md.name.clone().unwrap_or_default(),
        scale: Scale {
            spec_replicas,
            status_replicas,
            selector,
        },
        uid: md.uid.clone(),
    })
}

fn target_of(t: &hpa_v2::MetricTarget, ctx: &str, field: &str) -> Result<Target, SnapshotError> {
    let value = t
        .value
        .as_ref()
        .map(|q| non_negative_milli(&q.0, ctx, &format!("{field}.value")))
        .transpose()?;
    let average_value = t
        .average_value
        .as_ref()
        .map(|q| non_negative_milli(&q.0, ctx, &format!("{field}.averageValue")))
        .transpose()?;
    if value == Some(0) || average_value == Some(0) {
        return Err(err(format!(
            "{ctx}: field {field}: a target value must be greater than zero"
        )));
    }
    if let Some(u) = t.average_utilization {
        if u <= 0 {
            return Err(err(format!(
                "{ctx}: field {field}.averageUtilization: must be greater than zero, got {u}"
            )));
        }
    }
    Ok(Target {
        type_: t.type_.clone(),
        value,
        average_value,
        average_utilization: t.average_utilization,
    })
}

pub(super) fn convert_hpa(
    raw: &HorizontalPodAutoscaler,
    namespace: &str,
    ctx: &str,
) -> Result<Hpa, SnapshotError> {
    let spec = &raw.spec;
    let min_replicas = check_bounds(spec, ctx)?;
    let mut raw_metrics = spec.metrics.clone().unwrap_or_default();
    if raw_metrics.is_empty() {
        raw_metrics.push(default_cpu_metric());
    }
    let metrics = raw_metrics
        .iter()
        .enumerate()
        .map(|(i, m)| convert_metric(m, i, ctx))
        .collect::<Result<Vec<_>, _>>()?;
    let behavior = spec
        .behavior
        .as_ref()
        .map(|b| convert_behavior(b, ctx))
        .transpose()?;
    let mut hpa = Hpa {
        namespace: namespace.to_string(),
        name: raw.metadata.name.clone().unwrap_or_default(),
        min_replicas,
        max_replicas: spec.max_replicas,
        metrics,
        behavior,
        raw_metrics,
        conditions: Vec::new(),
        status: None,
        target_kind: spec.scale_target_ref.kind.clone(),
        target_name: spec.scale_target_ref.name.clone(),
        generation: raw.metadata.generation,
    };
    hpa.set_status(raw.status.clone());
    Ok(hpa)
}

/// The target reference and the replica bounds, which k8s-openapi fills with defaults when
/// absent; returns `minReplicas` (default 1).
fn check_bounds(
    spec: &hpa_v2::HorizontalPodAutoscalerSpec,
    ctx: &str,
) -> Result<i32, SnapshotError> {
    let r = &spec.scale_target_ref;
    if r.kind.is_empty() || r.name.is_empty() {
        return Err(err(format!(
            "{ctx}: field spec.scaleTargetRef: missing (needs kind and name of the workload to scale)"
        )));
    }
    let min_replicas = spec.min_replicas.unwrap_or(1);
    if min_replicas < 0 {
        return Err(err(format!(
            "{ctx}: field spec.minReplicas: must be >= 0, got {min_replicas}"
        )));
    }
    if spec.max_replicas < 1 {
        return Err(err(format!(
            "{ctx}: field spec.maxReplicas: must be >= 1, got {}",
            spec.max_replicas
        )));
    }
    if spec.max_replicas < min_replicas {
        return Err(err(format!(
            "{ctx}: field spec.maxReplicas: {} is less than spec.minReplicas {min_replicas}",
            spec.max_replicas
        )));
    }
    Ok(min_replicas)
}

/// The API server's default when an HPA has no metrics: 80% CPU utilization.
fn default_cpu_metric() -> hpa_v2::MetricSpec {
    hpa_v2::MetricSpec {
        type_: "Resource".into(),
        resource: Some(hpa_v2::ResourceMetricSource {
            name: "cpu".into(),
            target: hpa_v2::MetricTarget {
                type_: "Utilization".into(),
                average_utilization: Some(80),
                ..Default::default()
            },
        }),
        ..Default::default()
    }
}

/// `spec.metrics[i]` as the core reads it; a required field that is missing is an error naming it.
fn convert_metric(
    m: &hpa_v2::MetricSpec,
    i: usize,
    ctx: &str,
) -> Result<MetricSpec, SnapshotError> {
    let f = format!("spec.metrics[{i}]");
    let missing = |what: &str| {
        err(format!(
            "{ctx}: field {f}.{what}: missing for type {}",
            m.type_
        ))
    };
    let named = |name: &str, what: &str| -> Result<(), SnapshotError> {
        if name.is_empty() {
            Err(missing(what))
        } else {
            Ok(())
        }
    };
    let target = |t: &hpa_v2::MetricTarget, at: &str| target_of(t, ctx, &format!("{f}.{at}"));
    Ok(match m.type_.as_str() {
        "Resource" => {
            let r = m.resource.as_ref().ok_or_else(|| missing("resource"))?;
            named(&r.name, "resource.name")?;
            MetricSpec::Resource {
                resource: r.name.clone(),
                target: target(&r.target, "resource.target")?,
            }
        }
        "ContainerResource" => {
            let r = m
                .container_resource
                .as_ref()
                .ok_or_else(|| missing("containerResource"))?;
            named(&r.name, "containerResource.name")?;
            named(&r.container, "containerResource.container")?;
            MetricSpec::ContainerResource {
                resource: r.name.clone(),
                container: r.container.clone(),
                target: target(&r.target, "containerResource.target")?,
            }
        }
        "Pods" => {
            let p = m.pods.as_ref().ok_or_else(|| missing("pods"))?;
            named(&p.metric.name, "pods.metric.name")?;
            MetricSpec::Pods {
                metric: p.metric.name.clone(),
                target: target(&p.target, "pods.target")?,
            }
        }
        "Object" => {
            let o = m.object.as_ref().ok_or_else(|| missing("object"))?;
            named(&o.metric.name, "object.metric.name")?;
            named(&o.described_object.kind, "object.describedObject.kind")?;
            named(&o.described_object.name, "object.describedObject.name")?;
            MetricSpec::Object {
                kind: o.described_object.kind.clone(),
                object: o.described_object.name.clone(),
                metric: o.metric.name.clone(),
                target: target(&o.target, "object.target")?,
            }
        }
        "External" => {
            let e = m.external.as_ref().ok_or_else(|| missing("external"))?;
            named(&e.metric.name, "external.metric.name")?;
            MetricSpec::External {
                metric: e.metric.name.clone(),
                selector_text: selector_text(e.metric.selector.as_ref()),
                target: target(&e.target, "external.target")?,
            }
        }
        other => MetricSpec::Unknown {
            type_name: other.to_string(),
        },
    })
}

fn convert_behavior(
    b: &hpa_v2::HorizontalPodAutoscalerBehavior,
    ctx: &str,
) -> Result<Behavior, SnapshotError> {
    Ok(Behavior {
        scale_up: merge_rules(
            b.scale_up.as_ref(),
            Rules::default_scale_up(),
            ctx,
            "spec.behavior.scaleUp",
        )?,
        scale_down: merge_rules(
            b.scale_down.as_ref(),
            Rules::default_scale_down(),
            ctx,
            "spec.behavior.scaleDown",
        )?,
    })
}

fn merge_rules(
    r: Option<&hpa_v2::HPAScalingRules>,
    mut d: Rules,
    ctx: &str,
    field: &str,
) -> Result<Rules, SnapshotError> {
    let Some(r) = r else {
        return Ok(d);
    };
    if let Some(w) = r.stabilization_window_seconds {
        if !(0..=3600).contains(&w) {
            return Err(err(format!(
                "{ctx}: field {field}.stabilizationWindowSeconds: must be between 0 and 3600, got {w}"
            )));
        }
        d.stabilization_window_seconds = Some(w);
    }
    if let Some(p) = &r.select_policy {
        d.select_policy = match p.as_str() {
            "Max" => SelectPolicy::Max,
            "Min" => SelectPolicy::Min,
            "Disabled" => SelectPolicy::Disabled,
            other => {
                return Err(err(format!(
                    "{ctx}: field {field}.selectPolicy: {other:?} is not one of Max, Min, Disabled"
                )))
            }
        };
    }
    if let Some(ps) = &r.policies {
        let mut out = Vec::with_capacity(ps.len());
        for (i, p) in ps.iter().enumerate() {
            let pf = format!("{field}.policies[{i}]");
            let kind = match p.type_.as_str() {
                "Pods" => PolicyKind::Pods,
                "Percent" => PolicyKind::Percent,
                other => {
                    return Err(err(format!(
                        "{ctx}: field {pf}.type: {other:?} is not one of Pods, Percent"
                    )))
                }
            };
            if p.value <= 0 {
                return Err(err(format!(
                    "{ctx}: field {pf}.value: must be greater than zero, got {}",
                    p.value
                )));
            }
            if !(1..=1800).contains(&p.period_seconds) {
                return Err(err(format!(
                    "{ctx}: field {pf}.periodSeconds: must be between 1 and 1800, got {}",
                    p.period_seconds
                )));
            }
            out.push(Policy {
                kind,
                value: p.value,
                period_seconds: p.period_seconds,
            });
        }
        d.policies = out;
    }
    if let Some(Quantity(t)) = &r.tolerance {
        let v = parse_f64(t).map_err(|e| err(format!("{ctx}: field {field}.tolerance: {e}")))?;
        if v < 0.0 {
            return Err(err(format!(
                "{ctx}: field {field}.tolerance: must be >= 0, got {t}"
            )));
        }
        d.tolerance = Some(v);
    }
    Ok(d)
}

fn quantities(
    map: Option<&BTreeMap<String, Quantity>>,
    ctx: &(impl Display + ?Sized),
    field: &(impl Display + ?Sized),
) -> Result<Resources, SnapshotError> {
    let mut out = Resources::new();
    for (k, q) in map.into_iter().flatten() {
        out.insert(
            k.clone(),
            non_negative_milli(&q.0, ctx, &format_args!("{field}.{k}"))?,
        );
    }
    Ok(out)
}

/// `SOURCE: KIND NAMESPACE/NAME`, an object's place in an error, written only when one is.
struct At<'a> {
    source: &'a str,
    kind: &'a str,
    namespace: &'a str,
    name: &'a str,
}

impl Display for At<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let At {
            source,
            kind,
            namespace,
            name,
        } = self;
        write!(f, "{source}: {kind} {namespace}/{name}")
    }
}

/// A Pod as the core sees it.
pub fn convert_pod(p: &Pod, source: &str) -> Result<PodInfo, SnapshotError> {
    let name = p.metadata.name.clone().unwrap_or_default();
    let ns = p.metadata.namespace.as_deref().unwrap_or("default");
    let ctx = At {
        source,
        kind: "Pod",
        namespace: ns,
        name: &name,
    };
    if name.is_empty() {
        return Err(err(format!(
            "{source}: a Pod in namespace {ns}: field metadata.name: missing"
        )));
    }
    let status = p.status.as_ref();
    let ready = status
        .and_then(|s| s.conditions.as_ref())
        .and_then(|cs| cs.iter().find(|c| c.type_ == "Ready"))
        .map(|c| ReadyCondition {
            status: c.status.clone(),
            last_transition_time: c
                .last_transition_time
                .as_ref()
                .map(|t| t.0)
                .unwrap_or_else(crate::core::calc::go_zero_time),
        });
    let mut containers = Vec::new();
    let mut init_containers = Vec::new();
    let spec = p.spec.as_ref();
    for (i, c) in spec
        .map(|s| s.containers.as_slice())
        .unwrap_or(&[])
        .iter()
        .enumerate()
    {
        containers.push(ContainerRequests {
            name: c.name.clone(),
            requests: quantities(
                c.resources.as_ref().and_then(|r| r.requests.as_ref()),
                &ctx,
                &format_args!("spec.containers[{i}].resources.requests"),
            )?,
            restartable_init: false,
        });
    }
    for (i, c) in spec
        .and_then(|s| s.init_containers.as_deref())
        .unwrap_or(&[])
        .iter()
        .enumerate()
    {
        let requests = quantities(
            c.resources.as_ref().and_then(|r| r.requests.as_ref()),
            &ctx,
            &format_args!("spec.initContainers[{i}].resources.requests"),
        )?;
        let entry = ContainerRequests {
            name: c.name.clone(),
            requests,
            restartable_init: c.restart_policy.as_deref() == Some("Always"),
        };
        if entry.restartable_init {
            containers.push(entry.clone());
        }
        init_containers.push(entry);
    }
    let pod_requests = match spec
        .and_then(|s| s.resources.as_ref())
        .and_then(|r| r.requests.as_ref())
    {
        Some(r) => Some(quantities(Some(r), &ctx, "spec.resources.requests")?),
        None => None,
    };
    let overhead = quantities(
        spec.and_then(|s| s.overhead.as_ref()),
        &ctx,
        "spec.overhead",
    )?;
    let owner = p
        .metadata
        .owner_references
        .as_ref()
        .and_then(|o| o.iter().find(|r| r.controller == Some(true)).or(o.first()))
        .map(|o| format!("{}/{}", o.kind, o.name));
    Ok(PodInfo {
        name,
        phase: status.and_then(|s| s.phase.clone()).unwrap_or_default(),
        deleting: p.metadata.deletion_timestamp.is_some(),
        start_time: status.and_then(|s| s.start_time.as_ref()).map(|t| t.0),
        ready,
        containers,
        init_containers,
        pod_requests,
        overhead,
        owner,
    })
}

fn window(s: Option<&str>, ctx: &(impl Display + ?Sized)) -> Result<SignedDuration, SnapshotError> {
    match s {
        None => Ok(SignedDuration::ZERO),
        Some(w) => crate::duration::parse_go_duration(w)
            .map(SignedDuration::from_nanos)
            .map_err(|e| err(format!("{ctx}: field window: {e}"))),
    }
}

fn timestamp(s: Option<&str>, ctx: &(impl Display + ?Sized)) -> Result<Timestamp, SnapshotError> {
    match s {
        None => Ok(crate::core::calc::go_zero_time()),
        Some(t) => parse_time(t, ctx, "timestamp"),
    }
}

/// A PodMetrics object as the core sees it.
pub fn convert_pod_metrics(
    m: &PodMetrics,
    namespace: &str,
    source: &str,
) -> Result<PodUsage, SnapshotError> {
    let pod = m.metadata.name.clone().unwrap_or_default();
    let ctx = At {
        source,
        kind: "PodMetrics",
        namespace,
        name: &pod,
    };
    if pod.is_empty() {
        return Err(err(format!(
            "{source}: a PodMetrics in namespace {namespace}: field metadata.name: missing"
        )));
    }
    let mut containers = Vec::with_capacity(m.containers.len());
    for (i, c) in m.containers.iter().enumerate() {
        let mut usage = Resources::new();
        for (k, q) in &c.usage {
            usage.insert(
                k.as_str(),
                non_negative_milli(q, &ctx, &format_args!("containers[{i}].usage.{k}"))?,
            );
        }
        containers.push((c.name.clone(), usage));
    }
    let timestamp = timestamp(m.timestamp.as_deref(), &ctx)?;
    let window = window(m.window.as_deref(), &ctx)?;
    Ok(PodUsage {
        pod,
        timestamp,
        window,
        containers,
    })
}

/// A custom metrics value as the core sees it.
pub fn convert_metric_value(v: &MetricValue, source: &str) -> Result<MetricSample, SnapshotError> {
    let d = &v.described_object;
    let ctx = format!(
        "{source}: MetricValue {} of {} {}",
        v.metric.name, d.kind, d.name
    );
    let secs = v.window_seconds.unwrap_or(60);
    if secs < 0 {
        return Err(err(format!(
            "{ctx}: field windowSeconds: negative window {secs}"
        )));
    }
    Ok(MetricSample {
        name: d.name.clone(),
        value: milli(&v.value, &ctx, "value")?,
        timestamp: timestamp(v.timestamp.as_deref(), &ctx)?,
        window: SignedDuration::from_secs(secs),
    })
}

/// An external metrics value as the core sees it.
pub fn convert_external_value(
    v: &ExternalMetricValue,
    source: &str,
) -> Result<MetricSample, SnapshotError> {
    let ctx = format!("{source}: ExternalMetricValue {}", v.metric_name);
    Ok(MetricSample {
        name: v.metric_name.clone(),
        value: milli(&v.value, &ctx, "value")?,
        timestamp: timestamp(v.timestamp.as_deref(), &ctx)?,
        window: SignedDuration::from_secs(v.window.unwrap_or(0).max(0)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::resources::Resource;

    fn ts(s: &str) -> Timestamp {
        s.parse().expect("timestamp")
    }

    fn resources(pairs: &[(&str, i64)]) -> Resources {
        let mut r = Resources::new();
        for (k, v) in pairs {
            r.insert(Resource::from(*k), *v);
        }
        r
    }

    const HPA: &str = r#"
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: web, namespace: shop, generation: 4}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
  minReplicas: 2
  maxReplicas: 10
  metrics:
  - type: Resource
    resource: {name: cpu, target: {type: Utilization, averageUtilization: 60}}
  - type: Pods
    pods: {metric: {name: rps}, target: {type: AverageValue, averageValue: 500m}}
  - type: External
    external:
      metric: {name: queue, selector: {matchLabels: {q: jobs}}}
      target: {type: Value, value: "30"}
  behavior:
    scaleDown:
      stabilizationWindowSeconds: 120
      selectPolicy: Min
      policies: [{type: Pods, value: 2, periodSeconds: 60}]
      tolerance: 50m
status:
  currentReplicas: 3
  desiredReplicas: 3
"#;

    #[test]
    fn an_hpa_s_spec_becomes_the_core_s_hpa_field_by_field() {
        let raw: HorizontalPodAutoscaler = crate::yaml::from_str(HPA).expect("hpa");
        let hpa = convert_hpa(&raw, "shop", "f: HorizontalPodAutoscaler shop/web").expect("ok");
        assert_eq!((hpa.namespace.as_str(), hpa.name.as_str()), ("shop", "web"));
        assert_eq!((hpa.min_replicas, hpa.max_replicas), (2, 10));
        assert_eq!(
            (hpa.target_kind.as_str(), hpa.target_name.as_str()),
            ("Deployment", "web")
        );
        assert_eq!(hpa.generation, Some(4));
        assert_eq!(hpa.raw_metrics.len(), 3);
        let target = |type_: &str, value, average_value, average_utilization| Target {
            type_: type_.into(),
            value,
            average_value,
            average_utilization,
        };
        assert_eq!(
            hpa.metrics[0],
            MetricSpec::Resource {
                resource: "cpu".into(),
                target: target("Utilization", None, None, Some(60)),
            }
        );
        assert_eq!(
            hpa.metrics[1],
            MetricSpec::Pods {
                metric: "rps".into(),
                target: target("AverageValue", None, Some(500), None),
            }
        );
        let MetricSpec::External {
            metric,
            selector_text,
            target: t,
        } = &hpa.metrics[2]
        else {
            panic!("{:?}", hpa.metrics[2]);
        };
        assert_eq!(metric, "queue");
        assert!(selector_text.contains("q: jobs"), "{selector_text}");
        assert_eq!(t, &target("Value", Some(30_000), None, None));
        let b = hpa.behavior.expect("behavior");
        assert_eq!(b.scale_up, Rules::default_scale_up());
        assert_eq!(b.scale_down.stabilization_window_seconds, Some(120));
        assert_eq!(b.scale_down.select_policy, SelectPolicy::Min);
        assert_eq!(
            b.scale_down.policies,
            vec![Policy {
                kind: PolicyKind::Pods,
                value: 2,
                period_seconds: 60
            }]
        );
        assert_eq!(b.scale_down.tolerance, Some(0.05));
        let status = hpa.status.expect("status");
        assert_eq!(
            (status.current_replicas, status.desired_replicas),
            (Some(3), 3)
        );
    }

    #[test]
    fn an_hpa_without_metrics_gets_the_server_s_default_cpu_target() {
        let text = "metadata: {name: w}\nspec: {scaleTargetRef: {kind: Deployment, name: w}, maxReplicas: 3}\n";
        let raw: HorizontalPodAutoscaler = crate::yaml::from_str(text).expect("hpa");
        let hpa = convert_hpa(&raw, "default", "f").expect("ok");
        assert_eq!(hpa.min_replicas, 1);
        assert_eq!(hpa.behavior, None);
        assert_eq!(
            hpa.metrics,
            vec![MetricSpec::Resource {
                resource: "cpu".into(),
                target: Target {
                    type_: "Utilization".into(),
                    value: None,
                    average_value: None,
                    average_utilization: Some(80),
                },
            }]
        );
    }

    #[test]
    fn a_bad_hpa_field_is_named_in_the_error() {
        for (patch, field) in [
            ("minReplicas: -1", "spec.minReplicas: must be >= 0"),
            ("minReplicas: 5", "spec.maxReplicas: 3 is less than spec.minReplicas 5"),
            (
                "metrics: [{type: Pods, pods: {metric: {name: x}, target: {type: AverageValue, averageValue: \"-1\"}}}]",
                "spec.metrics[0].pods.target.averageValue: negative quantity",
            ),
            (
                "metrics: [{type: Resource}]",
                "spec.metrics[0].resource: missing for type Resource",
            ),
            (
                "behavior: {scaleUp: {stabilizationWindowSeconds: 4000}}",
                "spec.behavior.scaleUp.stabilizationWindowSeconds: must be between 0 and 3600",
            ),
            (
                "behavior: {scaleDown: {policies: [{type: Pods, value: 1, periodSeconds: 0}]}}",
                "spec.behavior.scaleDown.policies[0].periodSeconds: must be between 1 and 1800",
            ),
        ] {
            let text = format!(
                "metadata: {{name: w}}\nspec:\n  scaleTargetRef: {{kind: Deployment, name: w}}\n  maxReplicas: 3\n  {patch}\n"
            );
            let raw: HorizontalPodAutoscaler = crate::yaml::from_str(&text).expect("hpa");
            let e = convert_hpa(&raw, "default", "f: HPA default/w").unwrap_err();
            assert!(
                e.message.starts_with("f: HPA default/w: field ") && e.message.contains(field),
                "{patch}: {e}"
            );
        }
    }

    const POD: &str = r#"
apiVersion: v1
kind: Pod
metadata:
  name: web-1
  namespace: shop
  ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: web-5d, uid: u, controller: true}]
spec:
  initContainers:
  - name: proxy
    restartPolicy: Always
    resources: {requests: {cpu: 100m}}
  - name: migrate
    resources: {requests: {cpu: "1"}}
  containers:
  - name: app
    resources: {requests: {cpu: 250m, memory: 64Mi}}
  overhead: {cpu: 10m}
status:
  phase: Running
  startTime: "2026-03-01T11:00:00Z"
  conditions:
  - {type: Ready, status: "True", lastTransitionTime: "2026-03-01T11:01:00Z"}
"#;

    #[test]
    fn a_pod_becomes_the_core_s_pod_info_field_by_field() {
        let p: Pod = crate::yaml::from_str(POD).expect("pod");
        let info = convert_pod(&p, "f").expect("ok");
        assert_eq!(info.name, "web-1");
        assert_eq!(info.phase, "Running");
        assert!(!info.deleting);
        assert_eq!(info.start_time, Some(ts("2026-03-01T11:00:00Z")));
        assert_eq!(
            info.ready,
            Some(ReadyCondition {
                status: "True".into(),
                last_transition_time: ts("2026-03-01T11:01:00Z"),
            })
        );
        let app = ContainerRequests {
            name: "app".into(),
            requests: resources(&[("cpu", 250), ("memory", 64 * 1024 * 1024 * 1000)]),
            restartable_init: false,
        };
        let proxy = ContainerRequests {
            name: "proxy".into(),
            requests: resources(&[("cpu", 100)]),
            restartable_init: true,
        };
        let migrate = ContainerRequests {
            name: "migrate".into(),
            requests: resources(&[("cpu", 1000)]),
            restartable_init: false,
        };
        // A restartable init container (a sidecar) counts with the containers too.
        assert_eq!(info.containers, vec![app, proxy.clone()]);
        assert_eq!(info.init_containers, vec![proxy, migrate]);
        assert_eq!(info.pod_requests, None);
        assert_eq!(info.overhead, resources(&[("cpu", 10)]));
        assert_eq!(info.owner.as_deref(), Some("ReplicaSet/web-5d"));
    }

    #[test]
    fn a_pod_without_a_name_or_with_a_negative_request_is_refused() {
        let p: Pod = crate::yaml::from_str("metadata: {namespace: shop}\n").expect("pod");
        let e = convert_pod(&p, "f").unwrap_err();
        assert_eq!(
            e.message,
            "f: a Pod in namespace shop: field metadata.name: missing"
        );
        let text = POD.replace("cpu: 250m", "cpu: -250m");
        let p: Pod = crate::yaml::from_str(&text).expect("pod");
        let e = convert_pod(&p, "f").unwrap_err();
        assert!(
            e.message.starts_with(
                "f: Pod shop/web-1: field spec.containers[0].resources.requests.cpu: negative"
            ),
            "{e}"
        );
    }

    #[test]
    fn pod_metrics_become_the_core_s_usage() {
        let text = r#"
apiVersion: metrics.k8s.io/v1beta1
kind: PodMetrics
metadata: {name: web-1, namespace: shop}
timestamp: "2026-03-01T11:59:30Z"
window: 30s
containers:
- {name: app, usage: {cpu: 120m, memory: 50Mi}}
"#;
        let m: PodMetrics = crate::yaml::from_str(text).expect("metrics");
        let u = convert_pod_metrics(&m, "shop", "f").expect("ok");
        assert_eq!(u.pod, "web-1");
        assert_eq!(u.timestamp, ts("2026-03-01T11:59:30Z"));
        assert_eq!(u.window, SignedDuration::from_secs(30));
        assert_eq!(
            u.containers,
            vec![(
                "app".to_string(),
                resources(&[("cpu", 120), ("memory", 50 * 1024 * 1024 * 1000)])
            )]
        );
        let bad = text.replace("30s", "soon");
        let m: PodMetrics = crate::yaml::from_str(&bad).expect("metrics");
        let e = convert_pod_metrics(&m, "shop", "f").unwrap_err();
        assert!(
            e.message
                .starts_with("f: PodMetrics shop/web-1: field window: "),
            "{e}"
        );
        let bad = text.replace("cpu: 120m", "cpu: -120m");
        let m: PodMetrics = crate::yaml::from_str(&bad).expect("metrics");
        let e = convert_pod_metrics(&m, "shop", "f").unwrap_err();
        assert!(
            e.message.starts_with(
                "f: PodMetrics shop/web-1: field containers[0].usage.cpu: negative quantity"
            ),
            "{e}"
        );
    }

    #[test]
    fn a_deployment_becomes_a_workload_with_its_scale() {
        let text = r#"
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: shop, uid: d-1}
spec:
  replicas: 3
  selector:
    matchLabels: {app: web}
    matchExpressions: [{key: tier, operator: In, values: [front]}]
status: {replicas: 4}
"#;
        let w: wire::AppsWorkload = crate::yaml::from_str(text).expect("deployment");
        let spec = w.spec.clone().unwrap_or_default();
        let status = w.status.clone().unwrap_or_default();
        let got = workload(
            "Deployment",
            &w.metadata,
            spec.replicas,
            status.replicas,
            Some(&spec.selector),
            "f",
        )
        .expect("ok");
        assert_eq!(
            got,
            Workload {
                kind: "Deployment".into(),
                namespace: "shop".into(),
                name: "web".into(),
                scale: Scale {
                    spec_replicas: 3,
                    status_replicas: 4,
                    selector: "app=web,tier in (front)".into(),
                },
                uid: Some("d-1".into()),
            }
        );
        let e = workload("Deployment", &w.metadata, Some(-1), None, None, "f").unwrap_err();
        assert_eq!(
            e.message,
            "f: field spec.replicas: negative replica count -1"
        );
    }

    #[test]
    fn custom_and_external_values_become_samples() {
        let v: MetricValue = crate::yaml::from_str(
            "describedObject: {kind: Pod, name: web-1}\nmetric: {name: rps}\ntimestamp: \"2026-03-01T12:00:00Z\"\nvalue: 1500m\n",
        )
        .expect("value");
        let s = convert_metric_value(&v, "f").expect("ok");
        assert_eq!(
            s,
            MetricSample {
                name: "web-1".into(),
                value: 1500,
                timestamp: ts("2026-03-01T12:00:00Z"),
                window: SignedDuration::from_secs(60),
            }
        );
        let v: ExternalMetricValue = crate::yaml::from_str(
            "metricName: queue\ntimestamp: \"2026-03-01T12:00:00Z\"\nwindow: 30\nvalue: \"42\"\n",
        )
        .expect("value");
        let s = convert_external_value(&v, "f").expect("ok");
        assert_eq!((s.name.as_str(), s.value), ("queue", 42_000));
        assert_eq!(s.window, SignedDuration::from_secs(30));
    }
}
