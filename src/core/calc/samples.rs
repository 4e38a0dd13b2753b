//! The metrics client's side: the samples of one metric per pod, as the calculator receives
//! them (`GetResourceMetric`, `GetRawMetric`).

use jiff::{SignedDuration, Timestamp};

use super::calculation::{fail, Failure};
use crate::core::model::{Input, MetricData, MetricSample, PodUsage};
use crate::core::name_map::NameMap;
use crate::core::resources::Resource;
use crate::core::settings::KubeVersion;

/// A sample as the metrics client hands it to the calculator.
#[derive(Debug, Clone, Copy)]
pub(super) struct Sample {
    pub(super) value: i64,
    pub(super) timestamp: Timestamp,
    pub(super) window: SignedDuration,
}

/// `getPodMetrics` / `getContainerMetrics`: per-pod samples of one resource.
pub(super) fn get_pod_metrics<'a>(
    usages: &'a [PodUsage],
    resource: &Resource,
    container: Option<&str>,
    version: KubeVersion,
    namespace: &str,
    mut out: Vec<(&'a str, Sample)>,
) -> Result<NameMap<'a, Sample>, String> {
    out.reserve(usages.len());
    for m in usages {
        let value = match container {
            None => usage_of(m, resource),
            Some(c) => match m.containers.iter().find(|(n, _)| n == c) {
                Some((_, usage)) => usage.of(resource),
                // From 1.33 (kubernetes#127193) a pod without the container is missing.
                None if !version.at_least(33) => {
                    return Err(format!(
                        "failed to get container metrics: container {c} not present in metrics for pod {namespace}/{}",
                        m.pod
                    ));
                }
                None => None,
            },
        };
        if let Some(value) = value {
            out.push((
                m.pod.as_str(),
                Sample {
                    value,
                    timestamp: m.timestamp,
                    window: m.window,
                },
            ));
        }
    }
    Ok(NameMap::from_entries(out))
}

/// A PodMetrics' usage of `resource`, summed over its containers (`getPodMetrics`); None when
/// it has no container, one lacks the resource, or the sum overflows.
#[inline(always)]
pub(super) fn usage_of(u: &PodUsage, resource: &Resource) -> Option<i64> {
    match &u.containers[..] {
        [] => None,
        // perf: benches/simulate. The common one-container pod: its usage, no fold.
        [(_, usage)] => usage.of(resource),
        containers => containers
            .iter()
            .try_fold(0i64, |sum, (_, usage)| sum.checked_add(usage.of(resource)?)),
    }
}

/// `GetRawMetric`'s resource counterpart: the PodMetrics' samples of one resource.
pub(super) fn get_resource_metric<'a>(
    input: &'a Input,
    resource: &Resource,
    container: Option<&str>,
    buf: Vec<(&'a str, Sample)>,
) -> Result<NameMap<'a, Sample>, Failure> {
    let failed = |e: &str| {
        fail(format!(
            "unable to get metrics for resource {resource}: {e}"
        ))
    };
    let usages = input.pod_metrics.as_ref().map_err(|e| failed(e))?;
    if usages.is_empty() {
        return Err(failed("no metrics returned from resource metrics API"));
    }
    let (version, ns) = (input.settings.version(), &input.hpa.namespace);
    get_pod_metrics(usages, resource, container, version, ns, buf).map_err(|e| failed(&e))
}

/// `GetRawMetric`: the custom metrics API's per-pod values.
pub(super) fn get_raw_metric<'a>(
    metric: &str,
    data: &'a MetricData,
    mut out: Vec<(&'a str, Sample)>,
) -> Result<NameMap<'a, Sample>, Failure> {
    let no_metrics = || {
        fail(format!(
            "unable to get metric {metric}: no metrics returned from custom metrics API"
        ))
    };
    let items = match data {
        MetricData::Pods(Ok(items)) => items,
        MetricData::Pods(Err(e)) => {
            return Err(fail(format!("unable to get metric {metric}: {e}")))
        }
        _ => return Err(no_metrics()),
    };
    if items.is_empty() {
        return Err(no_metrics());
    }
    out.extend(items.iter().map(|m: &MetricSample| {
        (
            m.name.as_str(),
            Sample {
                value: m.value,
                timestamp: m.timestamp,
                window: m.window,
            },
        )
    }));
    Ok(NameMap::from_entries(out))
}
