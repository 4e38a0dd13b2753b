//! Advice per tool and the risks of the run, in the words a user acts on.

use super::gitops::GitopsFacts;
use super::helm::HelmFacts;
use super::owners::{Tool, HANDOVER_MANAGER};
use super::plan::{group_of, Advice, TargetInfo, ToolInfo};

/// What the advice depends on besides the tools.
pub(crate) struct Facts<'a> {
    pub(crate) csa: bool,
    pub(crate) handover: bool,
    pub(crate) helm: Option<&'a HelmFacts>,
    pub(crate) gitops: &'a [GitopsFacts],
}

fn helm_advice(f: &Facts) -> String {
    let guard = "In the chart, render replicas only without autoscaling: `{{- if not .Values.autoscaling.enabled }} replicas: {{ .Values.replicaCount }} {{- end }}`.";
    match f.helm.and_then(HelmFacts::rendered_replicas) {
        Some(false) => format!("The deployed release does not render spec.replicas, so upgrades leave it alone. {guard}"),
        rendered => format!(
            "{}Helm 3 and Helm 4 in client-side mode diff against the previous release's manifest, so the kubectl annotation does not protect the upgrade that drops replicas. Options, in order: (a) {}upgrade with Helm >= 4 and `--server-side=true` (Helm folds its Update entry into an Apply entry; {HANDOVER_MANAGER} or the HPA's scale entry keeps the field); (b) accept a dip to 1 on that one upgrade in a quiet period; (c) rewrite the stored release manifest (helm-mapkubeapis style) — risky. {guard} With server-side Helm, do not use --force-conflicts while replicas is still rendered.",
            if rendered.is_none() { "If the deployed release rendered spec.replicas: " } else { "" },
            if f.handover { "after the hand-over, " } else { "" }
        ),
    }
}

fn gitops_advice(f: &Facts, kind: &str) -> Option<String> {
    let g = f
        .gitops
        .iter()
        .find(|g| (g.owner.kind == "Application") == (kind == "Application"))?;
    if g.protected() {
        return Some(format!("{} already ignores /spec/replicas: remove replicas from Git; the next sync keeps the live value.", g.owner.label()));
    }
    Some(format!(
        "Pause {} while migrating, add to it:\n{}\nthen remove replicas from Git and resume.",
        g.owner.label(),
        g.snippet
    ))
}

pub(crate) fn advice_for(tools: &[ToolInfo], target: &TargetInfo, f: &Facts) -> Vec<Advice> {
    let (kind, name, ns) = (&target.kind, &target.name, &target.namespace);
    let group = group_of(&target.api_version);
    let mut out = Vec::new();
    for t in tools {
        let text = match t.tool {
            Tool::KubectlClientSide => "Run `kubectl hpa migrate --apply` first, then remove `replicas` from the manifest (the diff here, `--write`) and `kubectl apply` it as usual. Migrate every cluster before the manifest change lands anywhere: an apply of an old copy that still sets replicas puts it back into the annotation.".to_string(),
            Tool::KubectlServerSide if f.handover => format!(
                "After the hand-over, apply the manifest without replicas with the same field manager; {HANDOVER_MANAGER} keeps the field and disappears by itself when the HPA next changes the count."
            ),
            Tool::KubectlServerSide => "Apply the manifest without replicas with the same field manager: another owner (the HPA's scale entry) keeps the field.".to_string(),
            Tool::Helm => helm_advice(f),
            Tool::ArgoCd => gitops_advice(f, "Application").unwrap_or_else(|| format!(
                "Pause auto-sync/self-heal of the Application while migrating. Add to the Application: `ignoreDifferences: [{{group: {group}, kind: {kind}, name: {name}, namespace: {ns}, jsonPointers: [/spec/replicas]}}]` and `syncOptions: [RespectIgnoreDifferences=true]` (sync then copies the live value), then remove replicas from Git and resume. The Git change applies to every cluster the path targets{}.",
                if f.csa { "; in client-side mode the annotation step is what protects older Argo CD versions" } else { "" }
            )),
            Tool::Flux => gitops_advice(f, "Kustomization").unwrap_or_else(|| format!(
                "`flux suspend kustomization <name>` first. Flux applies server-side with force, removes the kubectl annotation and folds every kubectl* manager into kustomize-controller, so only the HPA's scale entry or {HANDOVER_MANAGER} keeps the field. Remove replicas from Git (or, with kustomize-controller >= v1.9.0, add `.spec.ignore: [{{paths: [/spec/replicas], target: {{kind: {kind}, name: {name}}}}}]`), then `flux resume kustomization <name>`."
            )),
            Tool::Kustomize => format!(
                "Remove every `replicas:` entry and patch that sets /spec/replicas for {name} — in every overlay, not only the base — and check with `kubectl kustomize DIR | grep -n replicas`."
            ),
            Tool::Terraform => "kubernetes_manifest: drop spec.replicas from the manifest after the hand-over (never set field_manager.force_conflicts); kubernetes_deployment: add `lifecycle { ignore_changes = [spec[0].replicas] }`.".to_string(),
            Tool::Pulumi => "Pulumi applies server-side: do the hand-over, then drop replicas from the program (or use ignoreChanges: [\"spec.replicas\"]).".to_string(),
            Tool::Keda => "KEDA owns this HPA: edit the ScaledObject, not the HPA; replicas 0 is KEDA's normal idle state.".to_string(),
        };
        out.push(Advice {
            tool: t.tool.id(),
            text,
        });
    }
    out
}

pub(crate) fn standard_risks(
    tools: &[ToolInfo],
    target: &TargetInfo,
    apps: bool,
    handover: bool,
) -> Vec<String> {
    let mut r = vec![
        "Other copies of the manifest (branches, environments, clusters, overlays, CI jobs) that still set replicas reset the count when applied and, client-side, put replicas back into the annotation: migrate every cluster before the manifest change lands anywhere.".to_string(),
    ];
    if tools
        .iter()
        .any(|t| matches!(t.tool, Tool::ArgoCd | Tool::Flux))
    {
        r.push("A GitOps controller applies this object continuously: pause it (Argo CD auto-sync/self-heal, `flux suspend`) before --apply and until the manifest change is merged.".into());
    }
    r.push(format!(
        "New environments created from the migrated manifest start at {} until the HPA's first sync raises them to minReplicas{}.",
        if apps { "1 replica" } else { "the controller's default" },
        if target.kind == "StatefulSet" { " (a StatefulSet one pod at a time)" } else { "" }
    ));
    r.push("Admission webhooks or policies may mutate or reject the patches: the dry run shows exactly what is sent.".into());
    if handover {
        r.push(format!("The {HANDOVER_MANAGER} field manager stays in managedFields until the HPA changes the count; meanwhile a server-side apply of a different replicas value conflicts with it (intended)."));
    }
    r
}
