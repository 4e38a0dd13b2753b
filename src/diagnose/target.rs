//! The scale target and the HPA's own spec: a target that cannot be read (`target-missing`,
//! `target-unreadable`, `snapshot-lacks-target`), a target at zero, minReplicas = maxReplicas,
//! and other HPAs selecting the same pods.

use crate::core::{Decision, Input, Rule};
use crate::snapshot::{Snapshot, TargetStatus};

use super::finding::{finding, Finding, Severity};

/// The target, the spec's bounds and the selection, in this order.
pub(super) fn target_and_spec(
    snap: &Snapshot,
    input: &Input,
    d: &Decision,
    selector: &str,
    out: &mut Vec<Finding>,
) {
    let hpa = &input.hpa;
    let ns = hpa.namespace.as_str();
    // The target.
    if matches!(
        d.verdict.decided_by,
        Rule::FailedGetScale | Rule::NotInSnapshot
    ) {
        out.extend(target_finding(snap, input));
    }
    if d.current_replicas == Some(0) {
        out.push(finding(
            "target-at-zero",
            Severity::Warning,
            format!(
                "{} {} has 0 replicas: the controller disables scaling (ScalingActive=False, ScalingDisabled) and will not scale it up by itself",
                hpa.target_kind, hpa.target_name
            ),
            format!(
                "scale it to at least 1 (kubectl scale {}/{} -n {ns} --replicas=1); scaling from zero needs the HPAScaleToZero gate, minReplicas 0 and an Object or External metric",
                hpa.target_kind.to_lowercase(), hpa.target_name
            ),
        ));
    }
    if hpa.min_replicas == hpa.max_replicas {
        out.push(finding(
            "min-equals-max",
            Severity::Info,
            format!(
                "minReplicas = maxReplicas = {}: the HPA can never change the replica count, it only holds it there",
                hpa.max_replicas
            ),
            "raise maxReplicas (or lower minReplicas) if autoscaling is intended".into(),
        ));
    }
    if !input.other_hpas_selecting.is_empty() {
        out.push(finding(
            "ambiguous-selector",
            Severity::Error,
            format!(
                "other HPAs select the same pods ({selector}): {} — the controller refuses to scale any of them (AmbiguousSelector)",
                input
                    .other_hpas_selecting
                    .iter()
                    .map(|n| format!("{ns}/{n}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            "keep one HPA per workload: delete the others or point them at other targets, or make the targets' selectors disjoint (a label unique to each pod template)".into(),
        ));
    }
}

/// Why the target's scale cannot be read, from what the snapshot knows (typed, not re-parsed).
fn target_finding(snap: &Snapshot, input: &Input) -> Option<Finding> {
    let hpa = &input.hpa;
    let ns = hpa.namespace.as_str();
    let (kind, name) = (&hpa.target_kind, &hpa.target_name);
    Some(match snap.target_status(ns, &hpa.name) {
        TargetStatus::Found => return None,
        TargetStatus::FetchFailed {
            text,
            not_found: true,
        } => target_missing(kind, name, ns, &text),
        TargetStatus::NotInSnapshot { .. } if !snap.written_by_tool => finding(
            "snapshot-lacks-target",
            Severity::Warning,
            format!(
                "{} lacks the scale target {kind} {ns}/{name}: what the controller would do cannot be recomputed (the file may simply not include it)",
                snap.source
            ),
            format!(
                "add it (kubectl get {} {name} -n {ns} -o yaml) or take the snapshot with `kubectl hpa snapshot`, which records a missing object as the server's answer",
                kind.to_lowercase()
            ),
        ),
        TargetStatus::NotInSnapshot { text } => {
            let mut f = target_missing(kind, name, ns, &text);
            f.message += &format!(
                "; {} may simply lack the object: if it exists in the cluster, add it (kubectl get {} {name} -n {ns} -o yaml) or take the snapshot with `kubectl hpa snapshot`",
                snap.source,
                kind.to_lowercase()
            );
            f
        }
        TargetStatus::NoKindMatch(text) => finding(
            "target-missing",
            Severity::Error,
            format!("the scale target {kind} {ns}/{name} cannot be mapped to a resource ({text}): spec.scaleTargetRef.apiVersion names a group that does not serve {kind}, so the controller cannot read its scale (FailedGetScale) and does nothing"),
            format!("set spec.scaleTargetRef.apiVersion to the group that serves {kind} (apps/v1 for a Deployment, StatefulSet or ReplicaSet): kubectl api-resources | grep -i {}", kind.to_lowercase()),
        ),
        TargetStatus::FetchFailed { text, .. } => finding(
            "target-unreadable",
            Severity::Error,
            format!("the scale of {kind} {name} cannot be read: {text}"),
            "check that the kind has a scale subresource and that the controller (and you) may get it: kubectl get --raw on the scale path; see the HPA's FailedGetScale events".into(),
        ),
    })
}

/// The finding for a target that does not exist.
pub fn target_missing(kind: &str, name: &str, ns: &str, detail: &str) -> Finding {
    finding(
        "target-missing",
        Severity::Error,
        format!("the scale target {kind} {ns}/{name} does not exist ({detail}): the controller cannot read its scale (FailedGetScale) and does nothing"),
        format!("fix spec.scaleTargetRef (apiVersion, kind, name) or create the workload: kubectl get {} -n {ns}", kind.to_lowercase()),
    )
}
