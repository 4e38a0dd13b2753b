//! What the controller's behavior and memory do to the decision: a hold by a stabilization
//! window or a rate policy (`held`), and memory driving a scale-up (`memory-scale-up`).

use crate::core::{Action, Decision, Input, MetricSpec};

use super::finding::{finding, Finding, Severity};

/// A hold by a stabilization window or a rate policy: when it ends, and the knob that sets it.
pub(super) fn held(d: &Decision, out: &mut Vec<Finding>) {
    let (Some(n), Some(nc)) = (&d.normalization, &d.next_change) else {
        return;
    };
    let knob = match (nc.kind, n.stabilization.reason.as_str()) {
        ("stabilizationWindow", "ScaleUpStabilized") => {
            "spec.behavior.scaleUp.stabilizationWindowSeconds".to_string()
        }
        ("stabilizationWindow", _) if d.behavior.is_some() => format!(
            "spec.behavior.scaleDown.stabilizationWindowSeconds (now {}s)",
            n.stabilization.scale_down_window_seconds
        ),
        ("stabilizationWindow", _) => format!(
            "the controller's --horizontal-pod-autoscaler-downscale-stabilization ({}s), or set spec.behavior.scaleDown.stabilizationWindowSeconds",
            n.stabilization.scale_down_window_seconds
        ),
        _ => "the policies of spec.behavior (value / periodSeconds)".to_string(),
    };
    out.push(finding(
        "held",
        Severity::Info,
        format!("the controller is holding on purpose: {}", nc.text),
        format!("nothing to fix: wait for it; to react faster, lower {knob}"),
    ));
}

pub(super) fn memory_scale_up(input: &Input, d: &Decision, out: &mut Vec<Finding>) {
    if d.verdict.action != Action::ScaleUp {
        return;
    }
    for (i, m) in input.hpa.metrics.iter().enumerate() {
        let mem = match m {
            MetricSpec::Resource { resource, .. }
            | MetricSpec::ContainerResource { resource, .. } => resource == "memory",
            _ => false,
        };
        if mem && d.metrics.get(i).is_some_and(|o| o.winner) {
            out.push(finding(
                "memory-scale-up",
                Severity::Warning,
                format!("the scale-up is driven by memory (spec.metrics[{i}]): per-pod memory often does not fall when replicas are added (caches, heaps, connection pools), so the HPA may climb to maxReplicas {} and never scale down", input.hpa.max_replicas),
                "prefer a metric that spreads over replicas (cpu, requests per second, queue length); keep memory only with a target well above the steady-state usage per pod, and check that usage really falls after a scale-up".into(),
            ));
        }
    }
}
