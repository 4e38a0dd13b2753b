//! The analysis and plan of one workload, as `-o json` shows them: the findings, the
//! predictions of the next apply, the requests `--apply` sends, the advice; and the context
//! every stage of [`super::analyze`] reads.

use serde::Serialize;
use serde_json::Value;

use super::gitops::GitopsFacts;
use super::helm::HelmFacts;
use super::kustomize::KustomizeSetting;
use super::manifest::Occurrence;
use super::owners::{Owner, Tool};

/// How bad a finding is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum Severity {
    Info,
    Medium,
    High,
}

/// One finding; `id` is stable (documented in the README).
#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Finding {
    pub id: &'static str,
    pub severity: Severity,
    /// The workload is not migrated while this holds.
    pub blocking: bool,
    pub message: String,
}

pub(crate) fn finding(id: &'static str, severity: Severity, message: String) -> Finding {
    Finding {
        id,
        severity,
        blocking: false,
        message,
    }
}

/// What an apply does to `spec.replicas`.
#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(tag = "effect", rename_all = "camelCase")]
pub enum Effect {
    /// The field is deleted and defaulted (1 for apps/v1 kinds).
    #[serde(rename_all = "camelCase")]
    Delete { defaults_to: Option<i64> },
    /// The field is set to this value.
    ResetTo { replicas: i64 },
    /// The apply fails with a field-manager conflict.
    Conflict { with: Vec<String> },
    /// `spec.replicas` is left alone.
    Nothing,
    /// Not known from what could be read: both outcomes.
    Unknown { outcomes: String },
}

impl Effect {
    pub fn text(&self) -> String {
        match self {
            Effect::Delete {
                defaults_to: Some(n),
            } => format!("delete spec.replicas -> defaults to {n}"),
            Effect::Delete { defaults_to: None } => {
                "delete spec.replicas (the controller's default applies, usually 1)".into()
            }
            Effect::ResetTo { replicas } => format!("reset spec.replicas to {replicas}"),
            Effect::Conflict { with } => format!("conflict with {}", with.join(", ")),
            Effect::Nothing => "leave spec.replicas alone".into(),
            Effect::Unknown { outcomes } => outcomes.clone(),
        }
    }
    /// The replica count may drop.
    pub fn dangerous(&self) -> bool {
        matches!(self, Effect::Delete { .. } | Effect::Unknown { .. })
    }
}

/// A prediction of the next apply.
#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Prediction {
    /// Who applies: `kubectl apply (client-side)`, `Helm (helm)`, ...
    pub applier: String,
    /// `asIs` (the manifest as it is), `withoutReplicas` (replicas removed, no migration),
    /// `afterMigration` (replicas removed, after the planned requests).
    pub manifest: &'static str,
    #[serde(flatten)]
    pub effect: Effect,
    pub text: String,
}

/// One request `--apply` sends.
#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Step {
    /// `remove-replicas-from-last-applied` or `handover-replicas`.
    pub id: &'static str,
    pub description: String,
    pub method: &'static str,
    pub path: String,
    pub query: Vec<(String, String)>,
    pub content_type: &'static str,
    /// The exact body. For a step after another, `metadata.resourceVersion` is the one returned
    /// by the previous step (shown as [`RV_FROM_PREVIOUS`]).
    pub body: String,
    pub resource_version_from_previous_step: bool,
}

/// Placeholder for a resourceVersion that is only known once the previous step answered.
pub const RV_FROM_PREVIOUS: &str = "<resourceVersion returned by the previous step>";

/// Advice for one tool.
#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Advice {
    pub tool: &'static str,
    pub text: String,
}

/// The HPA, as far as migration cares.
#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct HpaInfo {
    pub namespace: String,
    pub name: String,
    pub min_replicas: i64,
    pub max_replicas: i64,
    pub conditions: Vec<Condition>,
}

#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Condition {
    #[serde(rename = "type")]
    pub type_: String,
    pub status: String,
    pub reason: String,
    pub message: String,
}

/// The target workload as read.
#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TargetInfo {
    pub api_version: String,
    pub kind: String,
    pub namespace: String,
    pub name: String,
    /// The object's API path (`/apis/apps/v1/namespaces/shop/deployments/web`).
    pub path: String,
    pub resource_version: String,
    /// `spec.replicas` (null when absent).
    pub replicas: Option<i64>,
}

/// The last-applied annotation.
#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct LastApplied {
    /// `spec.replicas` in it, as JSON text (null when absent).
    pub replicas: Option<String>,
    /// The manager that owns the annotation (the merge patch is sent under this name).
    pub manager: String,
}

/// A tool and the evidence for it.
#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema)]
pub struct ToolInfo {
    pub tool: Tool,
    pub evidence: Vec<String>,
}

/// Everything the analysis needs for one HPA.
#[derive(Clone, Debug)]
pub struct Input<'a> {
    pub hpa: &'a Value,
    /// The target object as the API server returned it (managedFields included).
    pub object: &'a Value,
    /// The target's API path (collection + name).
    pub path: String,
    /// Other HPAs of the namespace with the same target.
    pub other_hpas: Vec<String>,
    /// Matching documents of the local manifests.
    pub occurrences: Vec<Occurrence>,
    /// Kustomize transformers and patches setting this workload's replicas.
    pub kustomize: Vec<KustomizeSetting>,
    /// Files were given with `-f`.
    pub files_given: bool,
    /// The Helm release managing the workload, as read from its release Secret.
    pub helm: Option<HelmFacts>,
    /// The Argo CD / Flux objects applying the workload, as read.
    pub gitops: Vec<GitopsFacts>,
}

/// The analysis and plan for one workload.
#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Analysis {
    pub hpa: HpaInfo,
    pub target: TargetInfo,
    /// managedFields entries owning `spec.replicas`.
    pub owners: Vec<Owner>,
    pub last_applied: Option<LastApplied>,
    pub tools: Vec<ToolInfo>,
    pub next_apply: Vec<Prediction>,
    pub findings: Vec<Finding>,
    pub requests: Vec<Step>,
    pub kubectl: Vec<String>,
    pub advice: Vec<Advice>,
    /// Shown once per run (see `report`).
    #[serde(skip)]
    pub risks: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub helm: Option<HelmFacts>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub gitops: Vec<GitopsFacts>,
}

impl Analysis {
    pub fn blocked(&self) -> bool {
        self.findings.iter().any(|f| f.blocking)
    }
    pub fn has(&self, id: &str) -> bool {
        self.findings.iter().any(|f| f.id == id)
    }
}

pub(crate) fn s<'a>(v: &'a Value, p: &str) -> &'a str {
    v.pointer(p).and_then(Value::as_str).unwrap_or_default()
}

/// The API group of an apiVersion.
pub fn group_of(api_version: &str) -> &str {
    api_version.rsplit_once('/').map_or("", |(g, _)| g)
}

pub(crate) fn is_apps(api_version: &str, kind: &str) -> bool {
    (group_of(api_version) == "apps" && matches!(kind, "Deployment" | "StatefulSet" | "ReplicaSet"))
        || (api_version == "v1" && kind == "ReplicationController")
}

/// What every stage of [`super::analyze::analyze`] reads.
#[derive(Clone, Copy)]
pub(crate) struct Ctx<'a> {
    pub(crate) input: &'a Input<'a>,
    pub(crate) obj: &'a Value,
    pub(crate) target: &'a TargetInfo,
    pub(crate) hpa: &'a HpaInfo,
    pub(crate) owners: &'a [Owner],
    pub(crate) all: &'a [Owner],
    pub(crate) tools: &'a [ToolInfo],
    pub(crate) last_applied: Option<&'a LastApplied>,
    pub(crate) annotation_replicas: Option<&'a Value>,
    pub(crate) file_replicas: Option<i64>,
    pub(crate) manifest_replicas: Option<i64>,
    pub(crate) live: Option<i64>,
    pub(crate) default_replicas: Option<i64>,
    pub(crate) handover_planned: bool,
    pub(crate) keeper: bool,
    pub(crate) apps: bool,
}
