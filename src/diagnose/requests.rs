//! The requests utilization is computed from: a container without a request
//! (`missing-request`, with the injector that added it) and a ContainerResource metric naming a
//! container the pods lack (`container-absent`).

use std::collections::{BTreeMap, BTreeSet};

use serde_json::json;

use crate::core::{Decision, Input, MetricSpec};
use crate::snapshot::Pod;

use super::finding::{finding, list_some, Finding, Severity};

/// Container names that mesh/agent injectors add.
const INJECTED: &[(&str, &str)] = &[
    ("istio-proxy", "Istio"),
    ("istio-validation", "Istio"),
    ("linkerd-proxy", "Linkerd"),
    ("linkerd-init", "Linkerd"),
    ("envoy", "an Envoy injector"),
    ("envoy-sidecar", "an Envoy injector"),
    ("consul-dataplane", "Consul"),
    ("consul-connect-envoy-sidecar", "Consul"),
    ("vault-agent", "Vault"),
    ("vault-agent-init", "Vault"),
    ("daprd", "Dapr"),
    ("cloud-sql-proxy", "the Cloud SQL proxy injector"),
    ("datadog-agent", "Datadog"),
    ("aws-xray-daemon", "AWS X-Ray"),
    ("kuma-sidecar", "Kuma"),
    ("osm-envoy", "Open Service Mesh"),
];

/// `Some(injector)` when the container looks injected.
pub fn injected_by(container: &str) -> Option<&'static str> {
    INJECTED
        .iter()
        .find(|(n, _)| *n == container)
        .map(|(_, who)| *who)
}

pub(super) fn missing_requests(
    input: &Input,
    d: &Decision,
    raw_pods: &BTreeMap<&str, &Pod>,
    out: &mut Vec<Finding>,
) {
    let mut seen = BTreeSet::new();
    for m in &d.metrics {
        let Some(crate::core::calc::MissingRequest {
            resource: res,
            container,
            pod,
        }) = m.missing_request.clone()
        else {
            continue;
        };
        if !seen.insert((res.clone(), container.clone())) {
            continue;
        }
        let lacking: Vec<String> = input
            .pods
            .iter()
            .filter(|p| {
                p.containers
                    .iter()
                    .any(|c| c.name == container && !c.requests.contains_key(&res))
            })
            .map(|p| p.name.clone())
            .collect();
        let image = raw_pods
            .get(pod.as_str())
            .and_then(|p| p.spec.as_ref())
            .and_then(|s| {
                s.containers
                    .iter()
                    .chain(s.init_containers.iter().flatten())
                    .find(|c| c.name == container)
            })
            .and_then(|c| c.image.clone());
        let injector = injected_by(&container);
        let image_txt = image.map(|i| format!(" (image {i})")).unwrap_or_default();
        let injected_txt = injector
            .map(|w| format!("; it looks injected by {w}, so it is not in your pod template"))
            .unwrap_or_default();
        let action = match container.as_str() {
            "istio-proxy" => format!("give the sidecar a {res} request: the pod-template annotation sidecar.istio.io/proxy{} (or the mesh-wide global.proxy.resources), or measure only the application container with a ContainerResource metric", if res == "memory" { "Memory" } else { "CPU" }),
            "linkerd-proxy" => format!("give the proxy a {res} request: the annotation config.linkerd.io/proxy-{res}-request on the pod template or namespace, or measure only the application container with a ContainerResource metric"),
            _ if injector.is_some() => format!("configure the injector to set a {res} request on {container}, or measure only the application container with a ContainerResource metric"),
            _ => format!("add resources.requests.{res} to container {container} in the pod template (every container needs it for {res} utilization), or use a ContainerResource metric on the container that matters"),
        };
        out.push(Finding {
            details: Some(json!({"resource": res, "container": container, "pods": lacking})),
            ..finding(
                "missing-request",
                Severity::Error,
                format!(
                    "container {container}{image_txt} has no {res} request in {} of {} selected pods (e.g. {pod}){injected_txt}: the controller cannot compute {res} utilization for this HPA",
                    lacking.len().max(1),
                    input.pods.len()
                ),
                action,
            )
        });
    }
}

pub(super) fn container_absent(input: &Input, out: &mut Vec<Finding>) {
    for (i, m) in input.hpa.metrics.iter().enumerate() {
        let MetricSpec::ContainerResource {
            resource,
            container,
            ..
        } = m
        else {
            continue;
        };
        let without: Vec<&crate::core::PodInfo> = input
            .pods
            .iter()
            .filter(|p| !p.containers.iter().any(|c| &c.name == container))
            .collect();
        if without.is_empty() {
            continue;
        }
        let names: BTreeSet<&str> = without
            .iter()
            .flat_map(|p| p.containers.iter().map(|c| c.name.as_str()))
            .collect();
        let pods: Vec<String> = without.iter().map(|p| p.name.clone()).collect();
        out.push(finding(
            "container-absent",
            Severity::Error,
            format!(
                "spec.metrics[{i}] measures {resource} of container {container:?}, which is not in {} of {} selected pods ({}); their containers: {}",
                without.len(),
                input.pods.len(),
                list_some(&pods, 3),
                names.into_iter().collect::<Vec<_>>().join(", ")
            ),
            format!("set spec.metrics[{i}].containerResource.container to one of the pod's containers (from 1.34 the controller fails the metric; before, those pods were skipped)"),
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn injected_sidecars_are_recognised() {
        assert_eq!(injected_by("istio-proxy"), Some("Istio"));
        assert_eq!(injected_by("linkerd-proxy"), Some("Linkerd"));
        assert_eq!(injected_by("app"), None);
    }
}
