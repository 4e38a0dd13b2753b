//! How the loads drive the HPA's metrics: each load (a demand, a per-pod value or a metric's
//! value) and the `spec.metrics` entry it is bound to.

use serde::{Deserialize, Serialize};

use super::series::Signal;
use crate::core::{ContainerRequests, MetricSpec, Target};

/// How a load is applied.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum LoadKind {
    /// A total shared by the Ready pods (per-pod values fall as replicas rise).
    Demand,
    /// Each pod's value, independent of the replica count.
    PerPod,
    /// The value of an Object or External metric.
    Value,
}

impl LoadKind {
    pub fn as_str(self) -> &'static str {
        match self {
            LoadKind::Demand => "demand",
            LoadKind::PerPod => "perPod",
            LoadKind::Value => "value",
        }
    }
}

/// A load bound to a metric name.
#[derive(Debug, Clone, PartialEq)]
pub struct Load {
    /// A resource name (`cpu`, `memory`) or a Pods/Object/External metric name.
    pub metric: String,
    pub kind: LoadKind,
    pub signal: Signal,
    /// Where it was declared (`--demand`, `scenario.yaml loads[0]`, `the snapshot`).
    pub origin: String,
}

/// How one `spec.metrics` entry reads the loads.
#[derive(Debug, Clone, PartialEq)]
pub enum Binding {
    /// Resource or ContainerResource: the pods' usage of `resource`.
    Resource {
        resource: String,
        container: Option<String>,
        load: usize,
        target: Target,
        /// The pod template's request of the resource (the named container's, if any).
        request_milli: Option<i64>,
    },
    Pods {
        load: usize,
        target: Target,
    },
    Object {
        load: usize,
        target: Target,
    },
    External {
        load: usize,
        target: Target,
    },
    /// An unknown metric type: the core reports it; no load.
    None,
}

impl Binding {
    pub fn load(&self) -> Option<usize> {
        match self {
            Binding::Resource { load, .. }
            | Binding::Pods { load, .. }
            | Binding::Object { load, .. }
            | Binding::External { load, .. } => Some(*load),
            Binding::None => None,
        }
    }
}

/// The name a load must use to drive a metric (`cpu`, `http_requests`, `queue_depth`).
pub fn metric_load_name(m: &MetricSpec) -> Option<&str> {
    match m {
        MetricSpec::Resource { resource, .. } | MetricSpec::ContainerResource { resource, .. } => {
            Some(resource)
        }
        MetricSpec::Pods { metric, .. }
        | MetricSpec::Object { metric, .. }
        | MetricSpec::External { metric, .. } => Some(metric),
        MetricSpec::Unknown { .. } => None,
    }
}

/// Bind each metric of the HPA to its load; `loads` must hold one for every metric name.
pub fn bind(
    metrics: &[MetricSpec],
    loads: &[Load],
    template: &[ContainerRequests],
) -> Result<Vec<Binding>, String> {
    let mut out = Vec::with_capacity(metrics.len());
    for (i, m) in metrics.iter().enumerate() {
        let Some(name) = metric_load_name(m) else {
            out.push(Binding::None);
            continue;
        };
        let Some(load) = loads.iter().position(|l| l.metric == name) else {
            return Err(format!(
                "no load for metric {name:?} (spec.metrics[{i}], {}): give one with --demand/--per-pod/--value {name}=... or in the scenario's loads",
                m.type_name()
            ));
        };
        let kind = loads[load].kind;
        let check = |allowed: &[LoadKind]| -> Result<(), String> {
            if allowed.contains(&kind) {
                Ok(())
            } else {
                Err(format!(
                    "{}: load kind {} does not apply to the {} metric {name:?}; use {}",
                    loads[load].origin,
                    kind.as_str(),
                    m.type_name(),
                    allowed
                        .iter()
                        .map(|k| k.as_str())
                        .collect::<Vec<_>>()
                        .join(" or ")
                ))
            }
        };
        out.push(match m {
            MetricSpec::Resource { resource, target }
            | MetricSpec::ContainerResource {
                resource, target, ..
            } => {
                check(&[LoadKind::Demand, LoadKind::PerPod])?;
                let container = match m {
                    MetricSpec::ContainerResource { container, .. } => Some(container.clone()),
                    _ => None,
                };
                let request_milli = {
                    let mut sum = 0i64;
                    let mut any = false;
                    for c in template {
                        if container.as_ref().is_none_or(|n| *n == c.name) {
                            if let Some(v) = c.requests.get(resource) {
                                sum += v;
                                any = true;
                            }
                        }
                    }
                    any.then_some(sum)
                };
                Binding::Resource {
                    resource: resource.clone(),
                    container,
                    load,
                    target: target.clone(),
                    request_milli,
                }
            }
            MetricSpec::Pods { target, .. } => {
                check(&[LoadKind::Demand, LoadKind::PerPod])?;
                Binding::Pods {
                    load,
                    target: target.clone(),
                }
            }
            MetricSpec::Object { target, .. } => {
                check(&[LoadKind::Value, LoadKind::Demand])?;
                Binding::Object {
                    load,
                    target: target.clone(),
                }
            }
            MetricSpec::External { target, .. } => {
                check(&[LoadKind::Value, LoadKind::Demand])?;
                Binding::External {
                    load,
                    target: target.clone(),
                }
            }
            MetricSpec::Unknown { .. } => Binding::None,
        });
    }
    Ok(out)
}
