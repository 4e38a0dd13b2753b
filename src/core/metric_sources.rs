//! One function per metric source type, as `computeReplicasForMetric` dispatches them: each
//! proposes a replica count and builds the `MetricStatus` the controller writes.

use k8s_openapi::api::autoscaling::v2 as hpa_v2;
use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector;

use super::calc::{self, Calculation, PodMetricKind, Proposal, Scratch, Tolerances};
use super::model::{Input, MetricData, MetricSpec, Target};
use super::settings::KubeVersion;
use crate::quantity::{format_binary_si, format_decimal_si};

/// What one metric needs besides its spec.
pub(super) struct MetricInputs<'a> {
    pub input: &'a Input,
    /// The raw spec entry (for the status' metric identifier and described object).
    pub raw: Option<&'a hpa_v2::MetricSpec>,
    pub data: &'a MetricData,
    /// The scale's `spec.replicas`.
    pub current: i32,
    /// The scale's `status.replicas`.
    pub status_replicas: i32,
    pub tol: &'a Tolerances,
    pub version: KubeVersion,
}

impl MetricInputs<'_> {
    /// `f()` for the full explanation, None for a brief decision.
    fn full<T>(&self, f: impl FnOnce() -> T) -> Option<T> {
        self.input.detail.narrates().then(f)
    }

    /// `f()` (the metric's status) unless the decision is [`Detail::Numbers`](super::Detail::Numbers). Boxed: a
    /// `MetricStatus` is most of a kilobyte, and the proposal carrying it is moved several
    /// times on its way into the decision.
    fn status<T>(&self, f: impl FnOnce() -> T) -> Option<Box<T>> {
        self.input.detail.builds_statuses().then(|| Box::new(f()))
    }
}

/// A metric's proposal. The description is words for the full explanation (a brief decision
/// has none); the status is the one written (a [`Detail::Numbers`](super::Detail::Numbers) decision has none).
pub(super) struct MetricOk {
    pub replicas: i32,
    pub description: Option<String>,
    pub status: Option<Box<hpa_v2::MetricStatus>>,
}

/// A metric's failure.
pub(super) struct MetricErr {
    /// The condition and event reason (`FailedGetResourceMetric`, ...).
    pub reason: &'static str,
    /// The error in the metric's event and condition.
    pub error: String,
    /// The error as `computeReplicasForMetric` returns it (in FailedComputeMetricsReplicas).
    pub wrapped: String,
    pub description: Option<String>,
    pub partial: Option<Box<Calculation>>,
    /// The fact behind a `missing request for …` error.
    pub missing_request: Option<Box<calc::MissingRequest>>,
}

impl MetricErr {
    fn new(
        reason: &'static str,
        error: String,
        wrap: impl Fn(&str) -> String,
        partial: Option<Box<Calculation>>,
    ) -> MetricErr {
        MetricErr {
            reason,
            wrapped: wrap(&error),
            error,
            description: None,
            partial,
            missing_request: None,
        }
    }
}

pub(super) type MetricResult = Result<MetricOk, MetricErr>;

/// Mirrors `computeReplicasForMetric`: dispatch on the metric source type.
pub(super) fn compute_replicas_for_metric(
    spec: &MetricSpec,
    m: &MetricInputs,
    scratch: &mut Scratch,
    calc: &mut Option<Calculation>,
) -> MetricResult {
    match spec {
        MetricSpec::Resource { resource, target } => {
            resource_metric(m, (resource, None), target, scratch, calc)
        }
        MetricSpec::ContainerResource {
            resource,
            container,
            target,
        } => resource_metric(m, (resource, Some(container)), target, scratch, calc),
        MetricSpec::Pods { metric, target } => pods_metric(m, metric, target, (scratch, calc)),
        MetricSpec::Object {
            kind,
            object,
            metric,
            target,
        } => object_metric(m, (kind, object, metric), target, calc),
        MetricSpec::External {
            metric,
            selector_text,
            target,
        } => external_metric(m, (metric, selector_text), target, calc),
        MetricSpec::Unknown { type_name } => {
            let e = format!("unknown metric source type {type_name:?}");
            Err(MetricErr::new(
                "InvalidMetricSourceType",
                e,
                str::to_string,
                None,
            ))
        }
    }
}

/// Mirrors `computeStatusForResourceMetric` (no container) and
/// `computeStatusForContainerResourceMetric`, through `computeStatusForResourceMetricGeneric`.
fn resource_metric(
    m: &MetricInputs,
    (resource, container): (&str, Option<&str>),
    target: &Target,
    scratch: &mut Scratch,
    calc: &mut Option<Calculation>,
) -> MetricResult {
    let reason = match container {
        None => "FailedGetResourceMetric",
        Some(_) => "FailedGetContainerResourceMetric",
    };
    let wrap = |e: &str| match container {
        None => format!("failed to get {resource} resource metric value: {e}"),
        Some(c) => format!("failed to get {c} container metric value: {e}"),
    };
    let (kind, is_util) = if let Some(v) = target.average_value {
        let kind = PodMetricKind::RawResource {
            resource,
            container,
            target: v,
        };
        (kind, false)
    } else if let Some(u) = target.average_utilization {
        let kind = PodMetricKind::Utilization {
            resource,
            container,
            target: u,
        };
        (kind, true)
    } else {
        let e = "invalid resource metric source: neither an average utilization target nor an average value (usage) target was set";
        return Err(MetricErr::new(reason, e.into(), wrap, None));
    };
    let p =
        calc::pod_average(m.input, kind, m.data, m.current, m.tol, scratch, calc).map_err(|f| {
            let what = if is_util { "utilization" } else { "usage" };
            let e = format!("failed to get {resource} {what}: {}", f.error);
            MetricErr {
                missing_request: f.missing_request.map(Box::new),
                ..MetricErr::new(reason, e, wrap, f.partial)
            }
        })?;
    let description = m.full(|| match (container.is_some(), is_util) {
        (false, true) => format!("{resource} resource utilization (percentage of request)"),
        (true, true) => {
            format!("{resource} container resource utilization (percentage of request)")
        }
        (false, false) => format!("{resource} resource"),
        (true, false) => format!("{resource} container resource"),
    });
    let status = m.status(|| resource_status(resource, container, is_util, &p, m.version));
    Ok(MetricOk {
        replicas: p.replicas,
        description,
        status,
    })
}

/// The Resource or ContainerResource `MetricStatus`.
fn resource_status(
    resource: &str,
    container: Option<&str>,
    is_util: bool,
    p: &Proposal,
    version: KubeVersion,
) -> hpa_v2::MetricStatus {
    let current = hpa_v2::MetricValueStatus {
        average_utilization: p.current_utilization,
        average_value: Some(if is_util {
            Quantity(format_decimal_si(p.current_value))
        } else {
            quantity_for(Some(resource), p.current_value, version)
        }),
        value: None,
    };
    match container {
        None => hpa_v2::MetricStatus {
            type_: "Resource".into(),
            resource: Some(hpa_v2::ResourceMetricStatus {
                name: resource.to_string(),
                current,
            }),
            ..Default::default()
        },
        Some(c) => hpa_v2::MetricStatus {
            type_: "ContainerResource".into(),
            container_resource: Some(hpa_v2::ContainerResourceMetricStatus {
                name: resource.to_string(),
                container: c.to_string(),
                current,
            }),
            ..Default::default()
        },
    }
}

/// Mirrors `computeStatusForPodsMetric`.
fn pods_metric(
    m: &MetricInputs,
    metric: &str,
    target: &Target,
    (scratch, calc): (&mut Scratch, &mut Option<Calculation>),
) -> MetricResult {
    let wrap = |e: &str| format!("failed to get pods metric value: {e}");
    let Some(t) = target.average_value else {
        let e = "invalid pods metric source: an average value target was not set";
        return Err(MetricErr::new("FailedGetPodsMetric", e.into(), wrap, None));
    };
    let kind = PodMetricKind::Pods { metric, target: t };
    let p = calc::pod_average(m.input, kind, m.data, m.current, m.tol, scratch, calc)
        .map_err(|f| MetricErr::new("FailedGetPodsMetric", f.error, wrap, f.partial))?;
    let status = m.status(|| hpa_v2::MetricStatus {
        type_: "Pods".into(),
        pods: Some(hpa_v2::PodsMetricStatus {
            metric: match m.raw.and_then(|r| r.pods.as_ref()) {
                Some(raw) => raw.metric.clone(),
                None => hpa_v2::MetricIdentifier {
                    name: metric.to_string(),
                    selector: None,
                },
            },
            current: hpa_v2::MetricValueStatus {
                average_value: Some(Quantity(format_decimal_si(p.current_value))),
                ..Default::default()
            },
        }),
        ..Default::default()
    });
    Ok(MetricOk {
        replicas: p.replicas,
        description: m.full(|| format!("pods metric {metric}")),
        status,
    })
}

/// Mirrors `computeStatusForObjectMetric`.
fn object_metric(
    m: &MetricInputs,
    (kind, object, metric): (&str, &str, &str),
    target: &Target,
    calc: &mut Option<Calculation>,
) -> MetricResult {
    const REASON: &str = "FailedGetObjectMetric";
    let wrap_value = |e: &str| format!("failed to get object metric value: {e}");
    let usage = || object_usage(m, kind, object, metric);
    let raw_obj = m.raw.and_then(|r| r.object.as_ref());
    let status = |current: hpa_v2::MetricValueStatus| hpa_v2::MetricStatus {
        type_: "Object".into(),
        object: Some(hpa_v2::ObjectMetricStatus {
            described_object: raw_obj
                .map(|o| o.described_object.clone())
                .unwrap_or_default(),
            metric: raw_obj.map(|o| o.metric.clone()).unwrap_or_default(),
            current,
        }),
        ..Default::default()
    };
    if let (true, Some(t)) = (target.type_ == "Value", target.value) {
        let usage = usage().map_err(|e| MetricErr::new(REASON, e, wrap_value, None))?;
        let p = calc::get_usage_ratio_replica_count(m.input, usage, t, m.current, m.tol, calc)
            .map_err(|e| MetricErr::new(REASON, e, wrap_value, None))?;
        Ok(MetricOk {
            replicas: p.replicas,
            description: m.full(|| format!("{kind} metric {metric}")),
            status: m.status(|| {
                status(hpa_v2::MetricValueStatus {
                    value: Some(Quantity(format_decimal_si(usage))),
                    ..Default::default()
                })
            }),
        })
    } else if let (true, Some(t)) = (target.type_ == "AverageValue", target.average_value) {
        let wrap = |e: &str| {
            format!("failed to get object metric value: failed to get {metric} object metric: {e}")
        };
        let usage = usage().map_err(|e| MetricErr::new(REASON, e, wrap, None))?;
        let p = calc::average_value_target(usage, t, m.status_replicas, false, m.tol, calc);
        let selector = selector_text(raw_obj.and_then(|o| o.metric.selector.as_ref()));
        Ok(MetricOk {
            replicas: p.replicas,
            description: m.full(|| format!("external metric {metric}({selector})")),
            status: m.status(|| {
                status(hpa_v2::MetricValueStatus {
                    average_value: Some(Quantity(format_decimal_si(p.current_value))),
                    ..Default::default()
                })
            }),
        })
    } else {
        let e = "invalid object metric source: neither a value target nor an average value target was set";
        Err(MetricErr::new(REASON, e.into(), wrap_value, None))
    }
}

/// The object metric's value, or the fetch error as `GetObjectMetricReplicas` words it.
fn object_usage(m: &MetricInputs, kind: &str, object: &str, metric: &str) -> Result<i64, String> {
    let ns = &m.input.hpa.namespace;
    let fetch_err = |e: &str| object_fetch_error(metric, kind, ns, object, e, m.version);
    match m.data {
        MetricData::Object(Ok(s)) => Ok(s.value),
        MetricData::Object(Err(e)) => Err(fetch_err(e)),
        _ => Err(fetch_err(&format!(
            "unable to fetch metrics from custom metrics API: the server could not find the metric {metric} for {kind} {object}"
        ))),
    }
}

/// Mirrors `computeStatusForExternalMetric`.
fn external_metric(
    m: &MetricInputs,
    (metric, selector_text): (&str, &str),
    target: &Target,
    calc: &mut Option<Calculation>,
) -> MetricResult {
    const REASON: &str = "FailedGetExternalMetric";
    let ns = &m.input.hpa.namespace;
    let values = match m.data {
        MetricData::External(Ok(v)) if !v.is_empty() => Ok(v.as_slice()),
        MetricData::External(Err(e)) => Err(e.as_str()),
        _ => Err("no metrics returned from external metrics API"),
    };
    let fetch_err =
        |e: &str| format!("unable to get external metric {ns}/{metric}/{selector_text}: {e}");
    let raw_ext = m.raw.and_then(|r| r.external.as_ref());
    let status = |current: hpa_v2::MetricValueStatus| hpa_v2::MetricStatus {
        type_: "External".into(),
        external: Some(hpa_v2::ExternalMetricStatus {
            metric: raw_ext
                .map(|o| o.metric.clone())
                .unwrap_or(hpa_v2::MetricIdentifier {
                    name: metric.to_string(),
                    selector: None,
                }),
            current,
        }),
        ..Default::default()
    };
    let description = || format!("external metric {metric}({selector_text})");
    if let Some(t) = target.average_value {
        let wrap = |e: &str| {
            format!("failed to get {metric} external metric value: failed to get {metric} external metric: {e}")
        };
        let values = values.map_err(|e| MetricErr::new(REASON, fetch_err(e), wrap, None))?;
        let usage = sum_for_average(values.iter().map(|v| v.value));
        let p = calc::average_value_target(usage, t, m.status_replicas, true, m.tol, calc);
        Ok(MetricOk {
            replicas: p.replicas,
            description: m.full(description),
            status: m.status(|| {
                status(hpa_v2::MetricValueStatus {
                    average_value: Some(Quantity(format_decimal_si(p.current_value))),
                    ..Default::default()
                })
            }),
        })
    } else if let Some(t) = target.value {
        let wrap = |e: &str| {
            format!("failed to get {metric} external metric value: failed to get external metric {metric}: {e}")
        };
        let values = values.map_err(|e| MetricErr::new(REASON, fetch_err(e), wrap, None))?;
        let usage = sum_for_value(values.iter().map(|v| v.value));
        let p = calc::get_usage_ratio_replica_count(m.input, usage, t, m.current, m.tol, calc)
            .map_err(|e| MetricErr::new(REASON, e, wrap, None))?;
        Ok(MetricOk {
            replicas: p.replicas,
            description: m.full(description),
            status: m.status(|| {
                status(hpa_v2::MetricValueStatus {
                    value: Some(Quantity(format_decimal_si(usage))),
                    ..Default::default()
                })
            }),
        })
    } else {
        let wrap = |e: &str| format!("failed to get {metric} external metric value: {e}");
        let e = "invalid external metric source: neither a value target nor an average value target was set";
        Err(MetricErr::new(REASON, e.into(), wrap, None))
    }
}

/// `GetExternalPerPodMetricReplicas`' sum, with its overflow guard: a negative sum saturates
/// to `i64::MAX`.
fn sum_for_average(values: impl Iterator<Item = i64>) -> i64 {
    let mut usage: i64 = 0;
    for v in values {
        usage = usage.wrapping_add(v);
        if usage < 0 {
            usage = i64::MAX;
        }
    }
    usage
}

/// `GetExternalMetricReplicas`' sum, saturating at `i64::MAX`.
fn sum_for_value(values: impl Iterator<Item = i64>) -> i64 {
    let mut usage: i64 = 0;
    for v in values {
        if v > 0 && usage > i64::MAX - v {
            usage = i64::MAX;
        } else {
            usage = usage.saturating_add(v);
        }
    }
    usage
}

/// The metric's status quantity: BinarySI for memory averageValue from 1.34 on.
fn quantity_for(resource: Option<&str>, milli: i64, version: KubeVersion) -> Quantity {
    if resource == Some("memory") && version.at_least(34) {
        Quantity(format_binary_si(milli))
    } else {
        Quantity(format_decimal_si(milli))
    }
}

/// `GetObjectMetricReplicas`' fetch error. Before 1.37 its format string had misaligned
/// arguments (`unable to get metric %s: %v on %s %s/%s` with the error last); kubernetes#139029
/// fixed it in 1.37.
fn object_fetch_error(
    metric: &str,
    kind: &str,
    ns: &str,
    object: &str,
    e: &str,
    version: KubeVersion,
) -> String {
    if version.at_least(37) {
        format!("unable to get metric {metric} on {kind} {ns}/{object}: {e}")
    } else {
        format!("unable to get metric {metric}: {kind} on {ns} {object}/{e}")
    }
}

/// `%+v` of a `*metav1.LabelSelector`, as the controller prints it in descriptions and errors.
pub fn selector_text(sel: Option<&LabelSelector>) -> String {
    let Some(sel) = sel else {
        return "nil".into();
    };
    let mut labels = String::new();
    if let Some(ml) = &sel.match_labels {
        for (k, v) in ml {
            labels.push_str(&format!("{k}: {v},"));
        }
    }
    let mut exprs = String::new();
    for e in sel.match_expressions.iter().flatten() {
        exprs.push_str(&format!(
            "LabelSelectorRequirement{{Key:{},Operator:{},Values:[{}],}},",
            e.key,
            e.operator,
            e.values.clone().unwrap_or_default().join(" ")
        ));
    }
    format!(
        "&LabelSelector{{MatchLabels:map[string]string{{{labels}}},MatchExpressions:[]LabelSelectorRequirement{{{exprs}}},}}"
    )
}
