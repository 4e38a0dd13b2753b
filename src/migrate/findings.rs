//! The findings about a workload: who owns `spec.replicas`, the local manifests and
//! kustomizations, the HPA and the target kind.

use serde_json::Value;

use super::kustomize::KustomizeSetting;
use super::manifest::{self, EditAction};
use super::owners::{self, Owner, Role, Tool, HANDOVER_MANAGER, LAST_APPLIED};
use super::plan::{finding, s, Ctx, Finding, Severity};

/// Who owns `spec.replicas`, and what a move to server-side apply would fold.
pub(crate) fn ownership_findings(c: &Ctx, findings: &mut Vec<Finding>) {
    let Ctx {
        obj,
        owners,
        annotation_replicas,
        live,
        default_replicas,
        keeper,
        ..
    } = *c;
    // --- findings about ownership
    if let Some(n) = annotation_replicas {
        findings.push(finding(
            "csa-annotation-has-replicas",
            Severity::High,
            format!(
                "the {LAST_APPLIED} annotation has spec.replicas: {n}: a kubectl apply (client-side) of the manifest without replicas sends \"replicas\": null{}",
                default_replicas.map_or(String::new(), |d| format!(" and the API defaults it to {d}"))
            ),
        ));
    }
    let update_appliers: Vec<&Owner> = owners
        .iter()
        .filter(|o| o.role == Role::Applier && o.operation != "Apply")
        .collect();
    if !update_appliers.is_empty() && !keeper {
        findings.push(finding(
            "csa-manager-owns-replicas",
            Severity::Medium,
            format!(
                "{} own{} spec.replicas with an Update: a move to server-side apply (kubectl --server-side, Helm 4, Argo CD, Flux) folds {} into the applier's entry, which then prunes replicas when the manifest stops setting it",
                update_appliers.iter().map(|o| o.manager.as_str()).collect::<Vec<_>>().join(", "),
                if update_appliers.len() == 1 { "s" } else { "" },
                if update_appliers.len() == 1 { "it" } else { "them" },
            ),
        ));
    }
    let others: Vec<&Owner> = owners.iter().filter(|o| o.role == Role::Other).collect();
    if !others.is_empty() && !keeper {
        findings.push(finding(
            "update-manager-owns-replicas",
            Severity::Medium,
            format!(
                "spec.replicas is owned by {} (Update), which GitOps tools fold into their own entry (Flux folds every kubectl* manager)",
                others.iter().map(|o| o.manager.as_str()).collect::<Vec<_>>().join(", ")
            ),
        ));
    }
    if owners.iter().any(|o| o.role == Role::Hpa) {
        findings.push(finding(
            "hpa-owns-replicas",
            Severity::Info,
            "the HPA (kube-controller-manager through the scale subresource) owns spec.replicas: a server-side apply without replicas leaves it alone".into(),
        ));
    }
    if owners.iter().any(|o| o.role == Role::Handover) {
        findings.push(finding(
            "handover-owns-replicas",
            Severity::Info,
            format!("{HANDOVER_MANAGER} co-owns spec.replicas (a previous hand-over); it disappears when the HPA next changes the value"),
        ));
    }
    if !owners::has_managed_fields(obj) {
        findings.push(finding(
            "no-managed-fields",
            Severity::Info,
            "the object has no managedFields: ownership cannot be read (server-side apply would treat the field as unowned)".into(),
        ));
    }
    if live.is_none() {
        findings.push(finding(
            "replicas-field-absent",
            Severity::Info,
            "the object has no spec.replicas: there is nothing to hand over".into(),
        ));
    }
}

/// The local manifests and kustomizations.
pub(crate) fn manifest_findings(c: &Ctx, findings: &mut Vec<Finding>) {
    let Ctx {
        input,
        target,
        file_replicas,
        manifest_replicas,
        live,
        ..
    } = *c;
    // --- the manifest
    if let Some(n) = manifest_replicas {
        let source = if file_replicas.is_some() {
            "the local manifest"
        } else {
            "the last applied manifest"
        };
        let msg = if Some(n) == live {
            format!("{source} sets replicas: {n} (the live value): once the HPA changes it, every apply resets it to {n} or conflicts")
        } else {
            format!(
                "{source} sets replicas: {n} but the live value is {}: every apply resets it to {n} (the \"apply resets the pod count\" problem) or conflicts",
                live.map_or("unset".into(), |l| l.to_string())
            )
        };
        findings.push(finding("manifest-sets-replicas", Severity::Medium, msg));
    }
    if input.files_given && input.occurrences.is_empty() {
        findings.push(finding(
            "manifest-not-found",
            Severity::Info,
            format!(
                "no document in the given files is {} {}/{}",
                target.kind, target.namespace, target.name
            ),
        ));
    }
    if input.occurrences.len() > 1 {
        findings.push(finding(
            "manifest-several-copies",
            Severity::Medium,
            format!(
                "{} documents describe this workload ({}): all of them are edited; copies elsewhere must change too",
                input.occurrences.len(),
                input.occurrences.iter().map(manifest::describe).collect::<Vec<_>>().join(", ")
            ),
        ));
    }
    for o in &input.occurrences {
        let at = manifest::describe(o);
        match &o.action {
            EditAction::NoReplicas => findings.push(finding(
                "manifest-without-replicas",
                Severity::Info,
                format!("{at}: the manifest already has no spec.replicas"),
            )),
            EditAction::Remove {
                first_line,
                last_line,
                comment_above,
                ..
            } => {
                let lines = if first_line == last_line {
                    format!("line {first_line}")
                } else {
                    format!("lines {first_line}-{last_line}")
                };
                findings.push(finding(
                    "manifest-edit",
                    Severity::Info,
                    format!(
                        "{at}: remove {} ({lines}){}",
                        manifest::field_path(o),
                        comment_above.map_or(String::new(), |c| format!(
                            "; the comment on line {c} stays — delete it by hand if it describes replicas"
                        ))
                    ),
                ));
            }
            EditAction::Refused { reason } => findings.push(finding(
                "manifest-edit-refused",
                Severity::High,
                format!("{at}: not edited: {reason}"),
            )),
        }
        if o.namespace_assumed {
            findings.push(finding(
                "manifest-namespace-assumed",
                Severity::Info,
                format!(
                    "{at}: the manifest names no namespace; taken to be {:?} (the workload's)",
                    target.namespace
                ),
            ));
        }
    }
    for k in &input.kustomize {
        findings.push(kustomize_finding(k));
    }
}

/// The HPA, the target kind, and the tools.
pub(crate) fn target_findings(c: &Ctx, findings: &mut Vec<Finding>) {
    let Ctx {
        input,
        obj,
        target,
        hpa,
        tools,
        live,
        apps,
        ..
    } = *c;
    // --- the HPA and the target
    if let Some(r) = live {
        if r == 0 && hpa.min_replicas > 0 {
            findings.push(finding(
                "replicas-zero-scaling-disabled",
                Severity::Medium,
                "spec.replicas is 0 and minReplicas > 0: the HPA has scaling disabled (maintenance mode); migration keeps 0, and afterwards that switch is no longer in the manifest (use kubectl scale instead)".into(),
            ));
        } else if hpa.max_replicas > 0 && (r < hpa.min_replicas || r > hpa.max_replicas) {
            findings.push(finding(
                "replicas-outside-hpa-bounds",
                Severity::Info,
                format!(
                    "spec.replicas {r} is outside the HPA's bounds [{}, {}]: the HPA moves it on its next sync, regardless of the migration",
                    hpa.min_replicas, hpa.max_replicas
                ),
            ));
        }
    }
    for c in &hpa.conditions {
        if c.status == "False" && matches!(c.type_.as_str(), "AbleToScale" | "ScalingActive") {
            findings.push(finding(
                "hpa-not-scaling",
                Severity::Info,
                format!(
                    "HPA condition {}=False ({}): {}",
                    c.type_, c.reason, c.message
                ),
            ));
        }
    }
    if !input.other_hpas.is_empty() {
        let mut f = finding(
            "multiple-hpas",
            Severity::High,
            format!(
                "other HPAs target the same workload ({}): the controller stops scaling (AmbiguousSelector); remove all but one before migrating",
                input.other_hpas.join(", ")
            ),
        );
        f.blocking = true;
        findings.push(f);
    }
    if target.kind == "ReplicaSet" {
        if let Some(owner) = obj
            .pointer("/metadata/ownerReferences")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .find(|r| r.get("controller") == Some(&Value::Bool(true)))
        {
            findings.push(finding(
                "hpa-targets-owned-replicaset",
                Severity::Medium,
                format!(
                    "the target ReplicaSet is controlled by {} {}: that controller fights the HPA; point the HPA at the {}",
                    s(owner, "/kind"),
                    s(owner, "/name"),
                    s(owner, "/kind")
                ),
            ));
        }
    }
    if !apps {
        findings.push(finding(
            "cr-scale-ownership-untracked",
            Severity::Info,
            format!("{} is not a built-in apps/v1 kind: the API server may not record the HPA's scale writes in managedFields (kubernetes#131892), so the {HANDOVER_MANAGER} entry may stay as a permanent co-owner; a removed replicas field is not defaulted by the API (the controller decides)", target.kind),
        ));
    }
    for t in tools {
        let id = match t.tool {
            Tool::Helm => "managed-by-helm",
            Tool::ArgoCd => "managed-by-argocd",
            Tool::Flux => "managed-by-flux",
            Tool::Kustomize => "managed-by-kustomize",
            Tool::Terraform => "managed-by-terraform",
            Tool::Pulumi => "managed-by-pulumi",
            Tool::Keda => "managed-by-keda",
            Tool::KubectlClientSide | Tool::KubectlServerSide => continue,
        };
        findings.push(finding(
            id,
            Severity::Info,
            format!("managed by {} ({})", t.tool.label(), t.evidence.join("; ")),
        ));
    }
}

pub(crate) fn kustomize_finding(k: &KustomizeSetting) -> Finding {
    let (id, what) = match k.how {
        "transformer" => ("kustomize-replicas-transformer", "remove that entry"),
        _ => (
            "kustomize-patch-sets-replicas",
            "remove the patch (or its replicas)",
        ),
    };
    finding(
        id,
        Severity::High,
        format!(
            "{}: kustomize adds spec.replicas even when the base has none — {what}, in every overlay",
            k.describe()
        ),
    )
}
