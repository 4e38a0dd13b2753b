//! `GetResourceReplicas`, `GetRawResourceReplicas` and `GetMetricReplicas` (through
//! `calcPlainMetricReplicas`): the pod average for every input, with the rebalance of missing
//! and unready pods.

use super::calculation::{fail, CalcResult, Calculation, Rebalance};
use super::counted::{Counted, Scratch};
use super::frame::{plain_proposal, Frame, Outcome};
use super::group_pods::{group_pods, Grouping};
use super::ratios::{
    ceil_i32, first_ratio, get_metric_usage_ratio, get_resource_utilization_ratio, FirstRatio,
};
use super::requests::{calculate_pod_requests, RequestError};
use super::samples::{get_raw_metric, get_resource_metric, Sample};
use crate::core::model::{Input, MetricData, PodInfo};
use crate::core::name_map::NameMap;
use crate::core::resources::Resource;
use crate::core::settings::KubeVersion;

/// What kind of pod-average computation.
#[derive(Debug, Clone, Copy)]
pub enum PodMetricKind<'a> {
    /// Resource or ContainerResource with `averageUtilization`.
    Utilization {
        resource: &'a str,
        container: Option<&'a str>,
        target: i32,
    },
    /// Resource or ContainerResource with `averageValue`.
    RawResource {
        resource: &'a str,
        container: Option<&'a str>,
        target: i64,
    },
    /// Pods metric (`averageValue`).
    Pods { metric: &'a str, target: i64 },
}

/// Mirrors `GetResourceReplicas` and, for the plain metrics, `calcPlainMetricReplicas`: the pod
/// average for every input — the samples by name, `groupPods`, the count, and the rebalance
/// when pods are missing or unready on a scale-up.
pub(super) fn get_resource_replicas(
    input: &Input,
    kind: PodMetricKind,
    data: &MetricData,
    (resource, container): (&Resource, Option<&str>),
    mut frame: Frame,
    (scratch, calc): (&mut Scratch, &mut Option<Calculation>),
) -> CalcResult {
    let (is_util, target, full) = (frame.is_util, frame.target, frame.full);
    let buf = scratch.samples.take();
    let samples = match kind {
        PodMetricKind::Pods { metric, .. } => get_raw_metric(metric, data, buf)?,
        _ => get_resource_metric(input, resource, container, buf)?,
    };
    if input.pods.is_empty() {
        return Err(fail(
            "no pods returned by selector while calculating replica count",
        ));
    }
    // `groupPods` (the cpu readiness rules apply to the cpu resource only), then
    // `removeMetricsForPods` for the ignored and unready pods.
    let pods = &input.pods;
    let Scratch {
        samples: spare,
        sample_of,
        removed,
        sample_requests,
        pod_requests: per_pod,
        ..
    } = scratch;
    let mut g = group_pods(pods, &samples, *resource == Resource::CPU, input, sample_of);
    if full {
        frame.foreign_samples = foreign_samples(&g, &samples);
    }
    let mut counted = Counted::new(samples, removed, sample_requests, spare);
    for &p in g.ignored.iter().chain(g.unready.iter()) {
        counted.remove(g.sample_of[p]);
    }
    if counted.is_empty() {
        let e = "did not receive metrics for targeted pods (pods might be unready)";
        return Err(frame.failure(&g, e.into(), "no counted samples"));
    }
    let requests = if is_util {
        calculate_pod_requests(pods, resource, container, input, per_pod).map_err(|e| {
            let mut f = frame.failure(&g, e.to_string(), "a pod lacks the request");
            if let RequestError::Missing(m) = e {
                f.missing_request = Some(m);
            }
            f
        })?;
        counted.set_requests(&g, per_pod);
        Some(per_pod.as_slice())
    } else {
        None
    };
    let first = first_ratio(&counted.sums(), is_util, target)
        .map_err(|e| frame.failure(&g, e, "no sample matches a listed pod"))?;
    let scale_up_with_unready = !g.unready.is_empty() && first.ratio > 1.0;
    let plain = !scale_up_with_unready && g.missing.is_empty();
    // The rows and the rebalance look requests up by pod name (built once, only for them).
    let by_name = requests
        .filter(|_| full || !plain)
        .map(|r| requests_by_name(pods, r));
    if full {
        annotate_rows(&mut g, &counted, by_name.as_ref());
    }
    if plain {
        let rows = std::mem::take(&mut g.rows);
        return Ok(plain_proposal(&frame, g.counts(), rows, first, calc));
    }
    rebalance(input, &frame, (&g, &counted), by_name.as_ref(), first, calc)
}

/// Samples of pods the selector did not list.
pub(super) fn foreign_samples(g: &Grouping, samples: &NameMap<'_, Sample>) -> usize {
    let mut listed = vec![false; samples.len()];
    for i in g.sample_of.iter().flatten() {
        listed[*i] = true;
    }
    listed.iter().filter(|l| !**l).count()
}

/// Each listed pod's request under its name: the last pod of equal names wins, as in
/// `calculatePodRequests`' map (for the pods without a sample, which the samples do not lead to).
pub(super) fn requests_by_name<'a>(pods: &'a [PodInfo], per_pod: &[i64]) -> NameMap<'a, i64> {
    NameMap::from_entries(
        pods.iter()
            .map(|p| p.name.as_str())
            .zip(per_pod.iter().copied())
            .collect(),
    )
}

/// Marks the counted pods and fills in requests and utilization.
pub(super) fn annotate_rows(
    g: &mut Grouping,
    counted: &Counted,
    requests: Option<&NameMap<'_, i64>>,
) {
    for (row, sample) in g.rows.iter_mut().zip(g.sample_of.iter()) {
        row.counted = counted.counts(*sample);
        if let Some(req) = requests {
            row.request_milli = req.get(row.pod.as_str()).copied();
            if let (Some(u), Some(r)) = (row.usage_milli, row.request_milli) {
                if r > 0 {
                    row.utilization = Some(((u as i128) * 100 / r as i128) as i64);
                }
            }
        }
    }
}

/// The value assumed for a missing pod: on a scale-down its request × max(100 %, target)
/// (the request itself before 1.26) or the target; 0 on a scale-up; none at ratio 1 (from
/// 1.28 for plain metrics, which filled 0 before).
pub(super) fn missing_fill(
    frame: &Frame,
    ratio: f64,
    requests: Option<&NameMap<'_, i64>>,
    pod: &str,
    version: KubeVersion,
) -> Option<i64> {
    let target = frame.target;
    if ratio < 1.0 {
        Some(match requests {
            Some(req) => {
                let r = req.get(pod).copied().unwrap_or(0);
                if version.at_least(26) {
                    ((r as i128) * (target.max(100) as i128) / 100) as i64
                } else {
                    r
                }
            }
            None => target,
        })
    } else if ratio > 1.0 || (!frame.is_util && !version.at_least(28)) {
        Some(0)
    } else {
        None
    }
}

/// Missing pods, and unready pods on a scale-up, get assumed values; the ratio is recomputed
/// and the proposal kept at the current count when it is within tolerance or the direction
/// changes.
pub(super) fn rebalance(
    input: &Input,
    frame: &Frame,
    (g, counted): (&Grouping, &Counted),
    requests: Option<&NameMap<'_, i64>>,
    first: FirstRatio,
    calc: &mut Option<Calculation>,
) -> CalcResult {
    let version = input.settings.version();
    let pods = &input.pods;
    let ratio = first.ratio;
    let scale_up_with_unready = !g.unready.is_empty() && ratio > 1.0;
    let mut rows = g.rows.clone();
    // The assumed values, inserted into the samples by name (a later one of equal names wins).
    let mut assumed: Vec<(&str, i64)> = Vec::new();
    let mut missing_fill_milli = None;
    for &p in &g.missing {
        let name = pods[p].name.as_str();
        if let Some(v) = missing_fill(frame, ratio, requests, name, version) {
            assumed.push((name, v));
            missing_fill_milli = Some(v);
            if let Some(row) = rows.iter_mut().find(|r| r.pod == name) {
                row.assumed_milli = Some(v);
            }
        }
    }
    let mut unready_fill = None;
    if scale_up_with_unready {
        for &p in &g.unready {
            let name = pods[p].name.as_str();
            assumed.push((name, 0));
            if let Some(row) = rows.iter_mut().find(|r| r.pod == name) {
                row.assumed_milli = Some(0);
            }
        }
        unready_fill = Some(0);
    }
    // The counted samples and the assumed ones are different pods: a missing pod has no sample
    // and an unready pod's was removed.
    let mut sums = counted.sums();
    for (name, v) in NameMap::from_entries(assumed).iter() {
        sums.add(*v, requests.and_then(|r| r.get(name).copied()));
    }
    let (new_ratio, new_value) = if frame.is_util {
        get_resource_utilization_ratio(&sums, frame.target as i32)
            .map(|(r, u, _)| (r, u as i64))
            .map_err(|e| frame.failure(g, e, "re-computation failed"))?
    } else {
        get_metric_usage_ratio(&sums, frame.target)
    };
    let rebalance = Rebalance {
        missing_fill_milli,
        missing_pods: g.missing.len(),
        unready_fill_milli: unready_fill,
        unready_pods: if scale_up_with_unready {
            g.unready.len()
        } else {
            0
        },
        new_ratio,
        new_value,
        entries: sums.entries,
    };
    let o = rebalanced_outcome(frame, ratio, rebalance);
    Ok(frame.proposal(g.counts(), first, rows, o, calc))
}

/// The proposal after the rebalance: keep the current count within tolerance or when the
/// direction would change, else `ceil(new ratio × entries)`.
pub(super) fn rebalanced_outcome(frame: &Frame, ratio: f64, rebalance: Rebalance) -> Outcome {
    let (current, full) = (frame.current, frame.full);
    let (new_ratio, entries) = (rebalance.new_ratio, rebalance.entries);
    let keep = |rule: String, within_tolerance: bool, rebalance: Rebalance| Outcome {
        replicas: current,
        rule,
        rebalance: Some(rebalance),
        within_tolerance,
    };
    if frame.tol.is_within(new_ratio) {
        let rule = rule!(full, "after assuming values for missing/unready pods the ratio {new_ratio:.4} is within tolerance: keep {current}");
        return keep(rule, true, rebalance);
    }
    if (ratio < 1.0 && new_ratio > 1.0) || (ratio > 1.0 && new_ratio < 1.0) {
        let rule = rule!(full, "assuming values for missing/unready pods reverses the direction (ratio {ratio:.4} → {new_ratio:.4}): keep {current}");
        return keep(rule, false, rebalance);
    }
    let n = ceil_i32(new_ratio * entries as f64);
    if (new_ratio < 1.0 && n > current) || (new_ratio > 1.0 && n < current) {
        let rule = rule!(full, "ceil({new_ratio:.4} × {entries}) = {n} would move against the direction of the ratio: keep {current}");
        return keep(rule, false, rebalance);
    }
    Outcome {
        replicas: n,
        rule: rule!(
            full,
            "ceil(new ratio {new_ratio:.4} × {entries} pods incl. assumed) = {n}"
        ),
        rebalance: Some(rebalance),
        within_tolerance: false,
    }
}
