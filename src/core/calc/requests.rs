//! `calculatePodRequests` and `calculatePodLevelRequests`: the requests utilization is a
//! percentage of.

use crate::core::model::{ContainerRequests, Input, PodInfo};
use crate::core::resources::Resource;
use crate::core::settings::KubeVersion;

/// A container of a pod without a request for the resource a utilization target needs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MissingRequest {
    pub resource: String,
    pub container: String,
    pub pod: String,
}

/// Why the selected pods' requests cannot be summed (`calculatePodRequests`); `Display` is the
/// controller's wording.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RequestError {
    /// `missing request for cpu in container app of Pod web-1`.
    Missing(MissingRequest),
    /// A ContainerResource metric's container is not in the pod (1.35+).
    ContainerNotFound { container: String, pod: String },
    /// Pod-level requests are in use and give none for the resource.
    MissingPodLevel { resource: String, pod: String },
}

impl std::fmt::Display for RequestError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RequestError::Missing(m) => write!(
                f,
                "missing request for {} in container {} of Pod {}",
                m.resource, m.container, m.pod
            ),
            RequestError::ContainerNotFound { container, pod } => {
                write!(f, "container {container} not found in Pod {pod}")
            }
            RequestError::MissingPodLevel { resource, pod } => {
                write!(f, "missing pod-level request for {resource} in Pod {pod}")
            }
        }
    }
}

impl std::error::Error for RequestError {}

pub(super) const POD_LEVEL_RESOURCES: &[&str] = &["cpu", "memory"];

pub(super) fn is_pod_level_resource(r: &str) -> bool {
    POD_LEVEL_RESOURCES.contains(&r) || r.starts_with("hugepages-")
}

/// `calculatePodRequests`: the request of every listed pod (ignored ones too).
/// Per pod, in the pods' order.
pub(super) fn calculate_pod_requests(
    pods: &[PodInfo],
    resource: &Resource,
    container: Option<&str>,
    input: &Input,
    out: &mut Vec<i64>,
) -> Result<(), RequestError> {
    let version = input.settings.version();
    let pod_level_on = pod_level_on(input);
    out.clear();
    for pod in pods {
        if pod_level_on && container.is_none() && sets_pod_level(pod) {
            out.push(calculate_pod_level_requests(pod, resource, version)?);
            continue;
        }
        let (sum, found) = containers_sum(pod, resource, container).map_err(|c| {
            RequestError::Missing(MissingRequest {
                resource: resource.as_str().to_string(),
                container: c.name.clone(),
                pod: pod.name.clone(),
            })
        })?;
        if let Some(name) = container {
            // 1.35+ (kubernetes#133415); before, such a container adds 0.
            if !found && version.at_least(35) {
                return Err(RequestError::ContainerNotFound {
                    container: name.to_string(),
                    pod: pod.name.clone(),
                });
            }
        }
        out.push(sum);
    }
    Ok(())
}

/// Whether the pod-level requests can decide: the HPA reads them only from 1.34
/// (kubernetes#132430), whatever the gate.
pub(super) fn pod_level_on(input: &Input) -> bool {
    let s = &input.settings;
    s.feature_gates.pod_level_resources && s.version().at_least(34)
}

/// Whether the pod sets a pod-level request of a resource pod-level requests cover.
pub(super) fn sets_pod_level(pod: &PodInfo) -> bool {
    pod.pod_requests
        .as_ref()
        .is_some_and(|r| r.keys().any(|k| is_pod_level_resource(k.as_str())))
}

/// `calculatePodRequests`' sum over the pod's containers (only `container` when given) of their
/// requests of `resource`, and whether any container counted; the first container without the
/// request is the error.
#[inline]
pub(super) fn containers_sum<'p>(
    pod: &'p PodInfo,
    resource: &Resource,
    container: Option<&str>,
) -> Result<(i64, bool), &'p ContainerRequests> {
    let (mut sum, mut found) = (0i64, false);
    for c in &pod.containers {
        if container.is_none_or(|n| n == c.name) {
            found = true;
            sum = sum.saturating_add(c.requests.of(resource).ok_or(c)?);
        }
    }
    Ok((sum, found))
}

/// `calculatePodLevelRequests` (1.34+): `resourcehelpers.PodRequests(pod,
/// PodResourcesOptions{})` of component-helpers, read for `resource` (section C1):
///
/// * `AggregateContainerRequests`: the containers plus the restartable init containers
///   (sidecars), then the max with each non-restartable init container's use, which is its own
///   request plus the sidecars declared *before* it;
/// * the pod-level `spec.resources.requests` overrides only the resources it sets;
/// * `spec.overhead` is added up to 1.37; 1.38 leaves it out (kubernetes#142154).
///
/// A container without the request adds nothing; `missing pod-level request for <res> in Pod
/// <p>` only when nothing declares the resource.
pub(super) fn calculate_pod_level_requests(
    pod: &PodInfo,
    resource: &Resource,
    version: KubeVersion,
) -> Result<i64, RequestError> {
    let mut present = false;
    // `pod.containers` holds the sidecars too.
    let mut value: i64 = 0;
    for c in &pod.containers {
        if let Some(v) = c.requests.of(resource) {
            present = true;
            value = value.saturating_add(v);
        }
    }
    // Init containers in their declared order: a non-restartable one runs with the sidecars
    // started before it.
    let (mut sidecars, mut init_max) = (0i64, 0i64);
    for c in &pod.init_containers {
        let v = c.requests.of(resource);
        present |= v.is_some();
        let v = v.unwrap_or(0);
        if c.restartable_init {
            sidecars = sidecars.saturating_add(v);
            init_max = init_max.max(sidecars);
        } else {
            init_max = init_max.max(v.saturating_add(sidecars));
        }
    }
    value = value.max(init_max);
    if let Some(v) = pod.pod_requests.as_ref().and_then(|r| r.of(resource)) {
        present = true;
        value = v;
    }
    if !version.at_least(38) {
        if let Some(v) = pod.overhead.of(resource) {
            present = true;
            value = value.saturating_add(v);
        }
    }
    if !present {
        return Err(RequestError::MissingPodLevel {
            resource: resource.as_str().to_string(),
            pod: pod.name.clone(),
        });
    }
    Ok(value)
}

// perf: benches/simulate. In line in the one-pass pod average (called once per pod and sync):
// the call's register saves and restores cost more than its body; measured with callgrind on
// the benchmark's arguments over 48 h (11,520 syncs): 36.6 M → 33.2 M instructions in the pod
// average, 122.3 M → 121.5 M for the whole run (about 0.7%), output byte-identical.
/// A pod's request of `resource` as [`calculate_pod_requests`] sums it for a metric of every container;
/// None when a container lacks it or the pod-level requests would decide.
#[inline]
pub(super) fn containers_request(
    pod: &PodInfo,
    resource: &Resource,
    pod_level_on: bool,
) -> Option<i64> {
    if pod_level_on && sets_pod_level(pod) {
        return None;
    }
    containers_sum(pod, resource, None).ok().map(|(sum, _)| sum)
}
