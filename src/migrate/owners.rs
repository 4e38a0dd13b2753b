//! Who owns `spec.replicas`: managedFields entries, the last-applied annotation, and the tools
//! behind the manager names.

use serde::Serialize;
use serde_json::Value;

use super::text::{self, Seg};

/// The client-side-apply annotation.
pub const LAST_APPLIED: &str = "kubectl.kubernetes.io/last-applied-configuration";
/// The field manager of the hand-over (the name the Kubernetes docs use; no tool folds it).
pub const HANDOVER_MANAGER: &str = "handover-to-hpa";
/// kubectl's client-side apply manager (the default owner of the annotation).
pub const CSA_MANAGER: &str = "kubectl-client-side-apply";

/// A tool that manages objects.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Tool {
    /// `kubectl apply` (client-side: the last-applied annotation).
    KubectlClientSide,
    /// `kubectl apply --server-side`.
    KubectlServerSide,
    Helm,
    ArgoCd,
    Flux,
    Kustomize,
    Terraform,
    Pulumi,
    Keda,
}

impl Tool {
    pub fn label(self) -> &'static str {
        match self {
            Tool::KubectlClientSide => "kubectl apply (client-side)",
            Tool::KubectlServerSide => "kubectl apply --server-side",
            Tool::Helm => "Helm",
            Tool::ArgoCd => "Argo CD",
            Tool::Flux => "Flux",
            Tool::Kustomize => "kustomize",
            Tool::Terraform => "Terraform",
            Tool::Pulumi => "Pulumi",
            Tool::Keda => "KEDA",
        }
    }
    pub fn id(self) -> &'static str {
        match self {
            Tool::KubectlClientSide => "kubectl-client-side",
            Tool::KubectlServerSide => "kubectl-server-side",
            Tool::Helm => "helm",
            Tool::ArgoCd => "argocd",
            Tool::Flux => "flux",
            Tool::Kustomize => "kustomize",
            Tool::Terraform => "terraform",
            Tool::Pulumi => "pulumi",
            Tool::Keda => "keda",
        }
    }
}

/// What a manager is, for `spec.replicas`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum Role {
    /// The HPA controller writing through the scale subresource.
    Hpa,
    /// Another writer of the scale subresource (`kubectl scale`, KEDA).
    ScaleWriter,
    /// The hand-over manager.
    Handover,
    /// A tool that applies a manifest again and again.
    Applier,
    /// Anything else (`kubectl edit`, controllers, ...).
    Other,
}

impl Role {
    /// Keeps `spec.replicas` alive when an applier stops sending it, and is never folded into an
    /// applier's entry by a client-side → server-side migration.
    pub fn keeps(self) -> bool {
        matches!(self, Role::Hpa | Role::ScaleWriter | Role::Handover)
    }
}

/// One managedFields entry.
#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Owner {
    pub manager: String,
    pub operation: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub subresource: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub api_version: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub time: Option<String>,
    pub role: Role,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool: Option<Tool>,
}

/// Classify a manager by name, operation and subresource.
pub fn classify(manager: &str, operation: &str, subresource: Option<&str>) -> (Role, Option<Tool>) {
    let m = manager.to_ascii_lowercase();
    if subresource == Some("scale") {
        if m == "kube-controller-manager" {
            return (Role::Hpa, None);
        }
        let tool = m.contains("keda").then_some(Tool::Keda);
        return (Role::ScaleWriter, tool);
    }
    if manager == HANDOVER_MANAGER {
        return (Role::Handover, None);
    }
    let apply = operation == "Apply";
    let tool = if m == CSA_MANAGER {
        Some(Tool::KubectlClientSide)
    } else if m == "kubectl" {
        Some(if apply {
            Tool::KubectlServerSide
        } else {
            Tool::KubectlClientSide
        })
    } else if m == "helm" {
        Some(Tool::Helm)
    } else if m.starts_with("argocd") {
        Some(Tool::ArgoCd)
    } else if m == "kustomize-controller" || m == "helm-controller" {
        Some(Tool::Flux)
    } else if m.starts_with("terraform") {
        Some(Tool::Terraform)
    } else if m.starts_with("pulumi") {
        Some(Tool::Pulumi)
    } else {
        None
    };
    match tool {
        Some(t) => (Role::Applier, Some(t)),
        None if apply && m != "kubectl-last-applied" => (Role::Applier, None),
        None => (Role::Other, None),
    }
}

/// Does a `fieldsV1` set contain this path (`["spec", "replicas"]`)?
pub fn owns(fields: &Value, path: &[&str]) -> bool {
    let mut cur = fields;
    for p in path {
        match cur.get(format!("f:{p}")) {
            Some(v) => cur = v,
            None => return false,
        }
    }
    true
}

fn entries(obj: &Value) -> impl Iterator<Item = &Value> {
    obj.pointer("/metadata/managedFields")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
}

fn owner_of(e: &Value) -> Owner {
    let s = |k: &str| e.get(k).and_then(Value::as_str).map(String::from);
    let manager = s("manager").unwrap_or_default();
    let operation = s("operation").unwrap_or_default();
    let subresource = s("subresource").filter(|x| !x.is_empty());
    let (role, tool) = classify(&manager, &operation, subresource.as_deref());
    Owner {
        manager,
        operation,
        subresource,
        api_version: s("apiVersion"),
        time: s("time"),
        role,
        tool,
    }
}

/// Every managedFields entry of the object.
pub fn all_entries(obj: &Value) -> Vec<Owner> {
    entries(obj).map(owner_of).collect()
}

/// Does the object carry managedFields at all?
pub fn has_managed_fields(obj: &Value) -> bool {
    entries(obj).next().is_some()
}

/// The entries owning `spec.replicas`.
pub fn replicas_owners(obj: &Value) -> Vec<Owner> {
    entries(obj)
        .filter(|e| owns(&e["fieldsV1"], &["spec", "replicas"]))
        .map(owner_of)
        .collect()
}

/// The manager owning the last-applied annotation: an Update owner first (client-side apply
/// writes it as an Update), else any owner, else kubectl's default.
pub fn annotation_manager(obj: &Value) -> String {
    let owners: Vec<Owner> = entries(obj)
        .filter(|e| owns(&e["fieldsV1"], &["metadata", "annotations", LAST_APPLIED]))
        .map(owner_of)
        .collect();
    owners
        .iter()
        .find(|o| o.operation == "Update" && o.subresource.is_none())
        .or(owners.first())
        .map(|o| o.manager.clone())
        .unwrap_or_else(|| CSA_MANAGER.to_string())
}

/// The last-applied annotation's text.
pub fn last_applied(obj: &Value) -> Option<&str> {
    obj.pointer("/metadata/annotations")
        .and_then(|a| a.get(LAST_APPLIED))
        .and_then(Value::as_str)
}

/// Why the last-applied annotation cannot be read or edited.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AnnotationError {
    /// The annotation is not JSON (the parser's words).
    NotJson(String),
    /// There is no `spec.replicas` to remove.
    NoReplicas,
    /// Cutting `spec.replicas` out of the text would change other fields.
    WouldChangeOthers,
}

impl std::fmt::Display for AnnotationError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AnnotationError::NotJson(e) => {
                write!(f, "the {LAST_APPLIED} annotation is not valid JSON: {e}")
            }
            AnnotationError::NoReplicas => {
                write!(f, "the {LAST_APPLIED} annotation has no spec.replicas")
            }
            AnnotationError::WouldChangeOthers => {
                f.write_str("removing spec.replicas from the annotation text changed other fields")
            }
        }
    }
}

impl std::error::Error for AnnotationError {}

/// `spec.replicas` in the annotation (`Ok(None)`: not there).
pub fn last_applied_replicas(raw: &str) -> Result<Option<Value>, AnnotationError> {
    let v: Value =
        serde_json::from_str(raw).map_err(|e| AnnotationError::NotJson(e.to_string()))?;
    Ok(v.pointer("/spec/replicas").cloned())
}

/// The annotation with only `spec.replicas` removed: the member and one comma are cut out of the
/// text, so key order, number text and Go's escapes stay exactly as kubectl wrote them. Checked
/// by parsing both.
pub fn strip_last_applied(raw: &str) -> Result<String, AnnotationError> {
    let not_json = |e: &dyn std::fmt::Display| AnnotationError::NotJson(e.to_string());
    let start = raw.len() - raw.trim_start().len();
    let (node, _) = text::parse_json_spans(raw, start).map_err(|e| not_json(&e))?;
    let (a, b) = node
        .member_removal(&[Seg::key("spec")], "replicas")
        .ok_or(AnnotationError::NoReplicas)?;
    let out = text::apply_deletions(raw, &[(a, b)]);
    let mut expect: Value = serde_json::from_str(raw).map_err(|e| not_json(&e))?;
    if let Some(spec) = expect.get_mut("spec").and_then(Value::as_object_mut) {
        spec.remove("replicas");
    }
    let got: Value = serde_json::from_str(&out).map_err(|_| AnnotationError::WouldChangeOthers)?;
    if got != expect {
        return Err(AnnotationError::WouldChangeOthers);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn strips_only_replicas_keeping_bytes() {
        let raw = "{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\",\"metadata\":{\"annotations\":{},\"name\":\"web\"},\"spec\":{\"replicas\":3,\"selector\":{\"matchLabels\":{\"a\":\"\\u003cb\\u003e\"}},\"x\":1.0e1}}\n";
        let out = strip_last_applied(raw).unwrap();
        assert_eq!(out, "{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\",\"metadata\":{\"annotations\":{},\"name\":\"web\"},\"spec\":{\"selector\":{\"matchLabels\":{\"a\":\"\\u003cb\\u003e\"}},\"x\":1.0e1}}\n");
        assert!(strip_last_applied("{\"spec\":{}}").is_err());
    }

    #[test]
    fn owners_and_roles() {
        let obj = json!({"metadata": {"managedFields": [
            {"manager": "kubectl-client-side-apply", "operation": "Update", "apiVersion": "apps/v1",
             "fieldsV1": {"f:metadata": {"f:annotations": {".": {}, "f:kubectl.kubernetes.io/last-applied-configuration": {}}}, "f:spec": {"f:replicas": {}, "f:template": {}}}},
            {"manager": "kube-controller-manager", "operation": "Update", "subresource": "status", "fieldsV1": {"f:status": {"f:replicas": {}}}},
            {"manager": "kube-controller-manager", "operation": "Update", "subresource": "scale", "fieldsV1": {"f:spec": {"f:replicas": {}}}},
        ]}});
        let o = replicas_owners(&obj);
        assert_eq!(o.len(), 2);
        assert_eq!(
            (o[0].role, o[0].tool),
            (Role::Applier, Some(Tool::KubectlClientSide))
        );
        assert_eq!(o[1].role, Role::Hpa);
        assert_eq!(annotation_manager(&obj), "kubectl-client-side-apply");
        assert_eq!(annotation_manager(&json!({})), CSA_MANAGER);
        assert_eq!(
            classify("argocd-controller", "Apply", None),
            (Role::Applier, Some(Tool::ArgoCd))
        );
        assert_eq!(
            classify("kubectl-edit", "Update", None),
            (Role::Other, None)
        );
        assert_eq!(
            classify("my-operator", "Apply", None),
            (Role::Applier, None)
        );
        assert_eq!(classify(HANDOVER_MANAGER, "Apply", None).0, Role::Handover);
    }
}
