//! `average-value-ratchet`: an Object or External metric with an `AverageValue` target inside the
//! tolerance band proposes the scale's `status.replicas`, not `spec.replicas`
//! (`GetObjectPerPodMetricReplicas` / `GetExternalPerPodMetricReplicas` start from
//! `replicaCount = statusReplicas` and keep it within tolerance). During a rollout the surge
//! pods count in `status.replicas`, so the HPA writes them into `spec.replicas` and they stay;
//! each rollout adds its surge again, up to maxReplicas (kubernetes#138505, open upstream: no
//! release has the fix).

use serde_json::json;

use crate::core::{Calculation, Decision, Input};

use super::finding::{finding, Finding, Severity};

/// The warning when the metric that sets the proposal is such a metric during a surge.
pub(super) fn average_value_ratchet(input: &Input, d: &Decision, out: &mut Vec<Finding>) {
    let (Some(spec), Some(largest)) = (d.current_replicas, d.proposal) else {
        return;
    };
    for (i, m) in d.metrics.iter().enumerate() {
        let Some(Calculation::AverageValue {
            status_replicas,
            within_tolerance: true,
            ..
        }) = &m.calculation
        else {
            continue;
        };
        let status = *status_replicas;
        if status <= spec || m.proposed_replicas != Some(status) || status < largest {
            continue;
        }
        // What the metric proposes measured against spec.replicas (the upstream fix).
        let Some(Calculation::AverageValue {
            total_milli,
            target_milli,
            ..
        }) = &m.calculation
        else {
            continue;
        };
        let at_spec = crate::core::calc::average_value_target(
            *total_milli,
            *target_milli,
            spec,
            false,
            &d.tolerance,
            &mut None,
        )
        .replicas;
        if at_spec >= status {
            continue;
        }
        let kept = status - at_spec;
        let hpa = &input.hpa;
        let what = m.description.as_deref().unwrap_or(&m.type_);
        out.push(Finding {
            details: Some(json!({
                "metricIndex": i,
                "specReplicas": spec,
                "statusReplicas": status,
                "proposalAtSpecReplicas": at_spec,
                "keptPods": kept,
                "upstreamIssue": "kubernetes/kubernetes#138505",
            })),
            ..finding(
                "average-value-ratchet",
                Severity::Warning,
                format!(
                    "{what} (spec.metrics[{i}]) has an AverageValue target within the tolerance band of status.replicas {status}, which counts the rollout's {} surge pod(s), so the controller proposes {status}; measured against spec.replicas {spec} it would propose {at_spec}: {kept} pod(s) stay after the rollout, and each rollout can add its surge again up to maxReplicas {} (kubernetes#138505, open upstream: no Kubernetes release has the fix)",
                    status - spec,
                    hpa.max_replicas
                ),
                format!(
                    "until the fix lands: set spec.behavior.scaleUp.stabilizationWindowSeconds longer than a rollout lasts (the surge proposal then never wins), roll out with maxSurge 0 on {} {}, or use a Value target (compared with the ready pods, not status.replicas)",
                    hpa.target_kind, hpa.target_name
                ),
            )
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::snapshot::Snapshot;
    use serde_json::Value;

    /// The at-max example turned into an External AverageValue HPA (target 10 per pod, the
    /// metric at `value`) on a Deployment at spec.replicas 20 with `status` replicas.
    fn surge(value: &str, status: i64) -> Vec<Finding> {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("examples")
            .join("at-max-replicas.yaml");
        let text = std::fs::read_to_string(&path).expect("example");
        let mut doc: Value = crate::yaml::from_str(&text).expect("yaml");
        let items = doc["items"].as_array_mut().expect("items");
        items[0]["spec"]["maxReplicas"] = json!(40);
        items[0]["spec"]["metrics"] = json!([{"type": "External", "external": {
            "metric": {"name": "queue_messages_ready"},
            "target": {"type": "AverageValue", "averageValue": "10"}}}]);
        items[0]["status"] = json!({"currentReplicas": 20, "desiredReplicas": 20});
        items[1]["spec"]["replicas"] = json!(20);
        items[1]["status"]["replicas"] = json!(status);
        items.push(json!({"apiVersion": "external.metrics.k8s.io/v1beta1", "kind": "ExternalMetricValueList",
            "metadata": {}, "items": [{"metricName": "queue_messages_ready", "metricLabels": {},
            "timestamp": "2026-03-01T11:59:50Z", "value": value, "window": 60}]}));
        let snap = Snapshot::from_owned(doc, "surge").expect("snapshot");
        let (input, d) = super::super::evaluated(&snap, "checkout");
        let mut out = Vec::new();
        average_value_ratchet(&input, &d, &mut out);
        out
    }

    #[test]
    fn a_surge_inside_the_tolerance_band_is_kept() {
        // 230 / (10 × 25) = 0.92: within the band, so 25 (status.replicas); against
        // spec.replicas 20: 230 / 200 = 1.15, ceil(23) = 23, so 2 pods stay.
        let found = surge("230", 25);
        let [f] = found.as_slice() else {
            panic!("{found:?}")
        };
        assert_eq!(
            (f.id.as_str(), f.severity),
            ("average-value-ratchet", Severity::Warning)
        );
        let d = f.details.as_ref().expect("details");
        assert_eq!(
            (
                d["statusReplicas"].clone(),
                d["proposalAtSpecReplicas"].clone(),
                d["keptPods"].clone()
            ),
            (json!(25), json!(23), json!(2))
        );
        assert!(
            f.message.contains(
                "proposes 25; measured against spec.replicas 20 it would propose 23: 2 pod(s) stay"
            ),
            "{}",
            f.message
        );
        assert!(
            f.action.contains("stabilizationWindowSeconds"),
            "{}",
            f.action
        );
    }

    #[test]
    fn no_surge_or_a_value_outside_the_band_keeps_nothing() {
        // No rollout: status.replicas = spec.replicas.
        assert!(surge("230", 20).is_empty());
        // 300 / 250 = 1.2: outside the band, ceil(30) either way.
        assert!(surge("300", 25).is_empty());
    }
}
