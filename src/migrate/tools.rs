//! Which tools apply the workload, from its labels, annotations and field managers, the HPA
//! and the local kustomizations — each with its evidence.

use serde_json::Value;

use super::owners::{Owner, Role, Tool, LAST_APPLIED};
use super::plan::{s, Input, ToolInfo};

/// The tools found so far, each with its evidence (no duplicates).
#[derive(Default)]
struct ToolEvidence(Vec<ToolInfo>);

impl ToolEvidence {
    fn add(&mut self, tool: Tool, evidence: String) {
        match self.0.iter_mut().find(|x| x.tool == tool) {
            Some(x) if x.evidence.contains(&evidence) => {}
            Some(x) => x.evidence.push(evidence),
            None => self.0.push(ToolInfo {
                tool,
                evidence: vec![evidence],
            }),
        }
    }

    /// `app.kubernetes.io/managed-by`, Flux's and Argo CD's labels on the workload.
    fn labels(&mut self, obj: &Value) {
        let labels = obj.pointer("/metadata/labels").and_then(Value::as_object);
        for (k, v) in labels.into_iter().flatten() {
            let v = v.as_str().unwrap_or_default();
            let evidence = format!("label {k}={v}");
            if k == "app.kubernetes.io/managed-by" {
                if let Some(tool) = managed_by_tool(&v.to_ascii_lowercase()) {
                    self.add(tool, evidence.clone());
                }
            }
            if k.starts_with("kustomize.toolkit.fluxcd.io/")
                || k.starts_with("helm.toolkit.fluxcd.io/")
            {
                self.add(Tool::Flux, evidence.clone());
            }
            if k == "argocd.argoproj.io/instance" {
                self.add(Tool::ArgoCd, evidence);
            }
        }
    }

    /// Helm's, Argo CD's, Flux's, kustomize's and kubectl's annotations on the workload.
    fn annotations(&mut self, obj: &Value) {
        let annotations = obj
            .pointer("/metadata/annotations")
            .and_then(Value::as_object);
        for (k, v) in annotations.into_iter().flatten() {
            let with_value = || format!("annotation {k}={}", v.as_str().unwrap_or_default());
            if k.starts_with("meta.helm.sh/") {
                self.add(Tool::Helm, with_value());
            }
            if k.starts_with("argocd.argoproj.io/") {
                self.add(Tool::ArgoCd, with_value());
            }
            if k.starts_with("kustomize.toolkit.fluxcd.io/") {
                self.add(Tool::Flux, format!("annotation {k}"));
            }
            if k == "config.kubernetes.io/origin" || k.starts_with("kustomize.config.k8s.io/") {
                self.add(Tool::Kustomize, format!("annotation {k}"));
            }
            if k == LAST_APPLIED {
                self.add(
                    Tool::KubectlClientSide,
                    format!("annotation {LAST_APPLIED}"),
                );
            }
        }
    }

    /// KEDA, from the HPA's label or its ScaledObject owner.
    fn keda(&mut self, hpa: &Value) {
        let managed_by = hpa
            .pointer("/metadata/labels/app.kubernetes.io~1managed-by")
            .and_then(Value::as_str);
        if managed_by == Some("keda-operator") {
            self.add(
                Tool::Keda,
                "HPA label app.kubernetes.io/managed-by=keda-operator".into(),
            );
        }
        let owners = hpa
            .pointer("/metadata/ownerReferences")
            .and_then(Value::as_array);
        for r in owners.into_iter().flatten() {
            if s(r, "/kind") == "ScaledObject" {
                self.add(
                    Tool::Keda,
                    format!("HPA owned by ScaledObject {}", s(r, "/name")),
                );
            }
        }
    }
}

/// The tool an `app.kubernetes.io/managed-by` value (lower case) names.
fn managed_by_tool(value: &str) -> Option<Tool> {
    if value == "helm" {
        Some(Tool::Helm)
    } else if value.starts_with("kustomize") {
        Some(Tool::Kustomize)
    } else if value.contains("argocd") {
        Some(Tool::ArgoCd)
    } else if value.contains("terraform") {
        Some(Tool::Terraform)
    } else if value.contains("pulumi") {
        Some(Tool::Pulumi)
    } else {
        None
    }
}

/// Tools from labels, annotations, manager names, the HPA and local kustomizations.
pub(crate) fn detect_tools(input: &Input, all: &[Owner]) -> Vec<ToolInfo> {
    let mut found = ToolEvidence::default();
    found.labels(input.object);
    found.annotations(input.object);
    for o in all {
        if let (Some(t), true) = (o.tool, o.role != Role::Other) {
            found.add(t, format!("field manager {} ({})", o.manager, o.operation));
        }
    }
    found.keda(input.hpa);
    for k in &input.kustomize {
        found.add(Tool::Kustomize, k.describe());
    }
    let mut out = found.0;
    out.sort_by_key(|t| t.tool);
    out
}
