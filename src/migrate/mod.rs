//! `kubectl hpa migrate`, the pure part: from an HPA and its target as the API server returned
//! them (and the matching documents of local manifests), work out who owns `spec.replicas`, what
//! the next apply would do to it, and the minimal requests that hand the field to the HPA without
//! changing the replica count. No I/O here; `crate::commands::migrate` sends what this plans.

pub mod api;
pub mod chart;
pub mod files;
pub mod gitops;
pub mod helm;
pub mod kustomize;
pub mod live;
pub mod manifest;
pub mod offline;
pub mod owners;
pub mod report;
pub mod session;
pub mod text;
pub mod write;

use serde::Serialize;
use serde_json::{json, Value};

use gitops::GitopsFacts;
use helm::{HelmFacts, ReleaseState};
use kustomize::KustomizeSetting;
use manifest::{EditAction, Occurrence};
use owners::{Owner, Role, Tool, CSA_MANAGER, HANDOVER_MANAGER, LAST_APPLIED};

/// `migrate`, resolved from the flags.
#[derive(Clone, Debug)]
pub struct Options {
    /// One HPA, else every HPA of the namespace (or of every namespace with `-A`).
    pub name: Option<String>,
    /// `-n`, for offline HPAs that name no namespace.
    pub namespace: Option<String>,
    pub all_namespaces: bool,
    /// `-f` inputs (`-` is stdin).
    pub files: Vec<std::path::PathBuf>,
    /// `--hpa` inputs: HPAs for offline runs.
    pub hpa_files: Vec<std::path::PathBuf>,
    pub recursive: bool,
    /// What to do: `Offline` (forced), `DryRun`, `ServerDryRun` or `Apply`.
    pub mode: report::Mode,
    pub write: bool,
    /// Confirmed up front (`--yes`): no prompt for `-A --apply`.
    pub yes: bool,
    /// Stdin is a terminal (a prompt is possible).
    pub stdin_is_tty: bool,
    /// How to reach the cluster.
    pub kube: crate::cluster::ConnectOptions,
}

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

fn finding(id: &'static str, severity: Severity, message: String) -> Finding {
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

fn s<'a>(v: &'a Value, p: &str) -> &'a str {
    v.pointer(p).and_then(Value::as_str).unwrap_or_default()
}

/// The API group of an apiVersion.
pub fn group_of(api_version: &str) -> &str {
    api_version.rsplit_once('/').map_or("", |(g, _)| g)
}

fn is_apps(api_version: &str, kind: &str) -> bool {
    (group_of(api_version) == "apps" && matches!(kind, "Deployment" | "StatefulSet" | "ReplicaSet"))
        || (api_version == "v1" && kind == "ReplicationController")
}

/// The merge patch of the annotation alone, with the resourceVersion precondition.
pub fn annotation_body(new_annotation: &str, resource_version: &str) -> String {
    json!({"metadata": {"annotations": {LAST_APPLIED: new_annotation}, "resourceVersion": resource_version}})
        .to_string()
}

/// The server-side apply of `spec.replicas` alone at `replicas`, with the precondition.
pub fn handover_body(
    api_version: &str,
    kind: &str,
    ns: &str,
    name: &str,
    replicas: i64,
    resource_version: &str,
) -> String {
    json!({
        "apiVersion": api_version,
        "kind": kind,
        "metadata": {"name": name, "namespace": ns, "resourceVersion": resource_version},
        "spec": {"replicas": replicas},
    })
    .to_string()
}

/// The annotation step for an object, if its annotation has `spec.replicas`.
pub fn annotation_step(obj: &Value, path: &str) -> Result<Option<Step>, owners::AnnotationError> {
    let Some(raw) = owners::last_applied(obj) else {
        return Ok(None);
    };
    if owners::last_applied_replicas(raw)?.is_none() {
        return Ok(None);
    }
    let new = owners::strip_last_applied(raw)?;
    let manager = owners::annotation_manager(obj);
    Ok(Some(Step {
        id: "remove-replicas-from-last-applied",
        description: format!(
            "remove spec.replicas from the {LAST_APPLIED} annotation (metadata only, as field manager {manager})"
        ),
        method: "PATCH",
        path: path.to_string(),
        query: vec![("fieldManager".into(), manager)],
        content_type: "application/merge-patch+json",
        body: annotation_body(&new, s(obj, "/metadata/resourceVersion")),
        resource_version_from_previous_step: false,
    }))
}

/// Does the hand-over need to be sent: someone owns `spec.replicas` and nobody who keeps it.
pub fn needs_handover(owners: &[Owner]) -> bool {
    !owners.is_empty() && !owners.iter().any(|o| o.role.keeps())
}

/// The hand-over step, if needed.
pub fn handover_step(obj: &Value, path: &str, after_previous: bool) -> Option<Step> {
    let replicas = obj.pointer("/spec/replicas").and_then(Value::as_i64)?;
    if !needs_handover(&owners::replicas_owners(obj)) {
        return None;
    }
    let rv = if after_previous {
        RV_FROM_PREVIOUS
    } else {
        s(obj, "/metadata/resourceVersion")
    };
    Some(Step {
        id: "handover-replicas",
        description: format!(
            "co-own spec.replicas={replicas} as field manager {HANDOVER_MANAGER} (server-side apply, never forced; value unchanged)"
        ),
        method: "PATCH",
        path: path.to_string(),
        query: vec![("fieldManager".into(), HANDOVER_MANAGER.into())],
        content_type: "application/apply-patch+yaml",
        body: handover_body(
            s(obj, "/apiVersion"),
            s(obj, "/kind"),
            s(obj, "/metadata/namespace"),
            s(obj, "/metadata/name"),
            replicas,
            rv,
        ),
        resource_version_from_previous_step: after_previous,
    })
}

/// The requests `--apply` sends for an object as read, in order.
pub fn plan_steps(obj: &Value, path: &str) -> Result<Vec<Step>, owners::AnnotationError> {
    let mut steps = Vec::new();
    if let Some(a) = annotation_step(obj, path)? {
        steps.push(a);
    }
    if let Some(h) = handover_step(obj, path, !steps.is_empty()) {
        steps.push(h);
    }
    Ok(steps)
}

fn hpa_info(hpa: &Value) -> HpaInfo {
    HpaInfo {
        namespace: s(hpa, "/metadata/namespace").into(),
        name: s(hpa, "/metadata/name").into(),
        min_replicas: hpa
            .pointer("/spec/minReplicas")
            .and_then(Value::as_i64)
            .unwrap_or(1),
        max_replicas: hpa
            .pointer("/spec/maxReplicas")
            .and_then(Value::as_i64)
            .unwrap_or(0),
        conditions: hpa
            .pointer("/status/conditions")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .map(|c| Condition {
                type_: s(c, "/type").into(),
                status: s(c, "/status").into(),
                reason: s(c, "/reason").into(),
                message: s(c, "/message").into(),
            })
            .collect(),
    }
}

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
fn detect_tools(input: &Input, all: &[Owner]) -> Vec<ToolInfo> {
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

/// The last-applied annotation and its `spec.replicas`; an unreadable one blocks.
fn read_annotation(
    obj: &Value,
    findings: &mut Vec<Finding>,
) -> (Option<LastApplied>, Option<Value>) {
    match owners::last_applied(obj).map(owners::last_applied_replicas) {
        None => (None, None),
        Some(Ok(r)) => (
            Some(LastApplied {
                replicas: r.as_ref().map(|v| v.to_string()),
                manager: owners::annotation_manager(obj),
            }),
            r,
        ),
        Some(Err(e)) => {
            let mut f = finding("last-applied-unreadable", Severity::High, e.to_string());
            f.blocking = true;
            findings.push(f);
            (None, None)
        }
    }
}

/// The planned requests; a plan that cannot be made blocks.
fn steps_or_block(obj: &Value, path: &str, findings: &mut Vec<Finding>) -> Vec<Step> {
    match plan_steps(obj, path) {
        Ok(s) => s,
        Err(e) => {
            let mut f = finding("last-applied-unreadable", Severity::High, e.to_string());
            f.blocking = true;
            if !findings.iter().any(|x| x.id == f.id) {
                findings.push(f);
            }
            Vec::new()
        }
    }
}

/// Analyse one HPA and its target and plan the migration.
pub fn analyze(input: &Input) -> Analysis {
    let obj = input.object;
    let hpa = hpa_info(input.hpa);
    let target = target_info(input);
    let apps = is_apps(&target.api_version, &target.kind);
    let owners = owners::replicas_owners(obj);
    let all = owners::all_entries(obj);
    let mut findings = Vec::new();

    let (last_applied, annotation_replicas) = read_annotation(obj, &mut findings);
    let tools = detect_tools(input, &all);
    // the manifest's replicas: a local file, else what was last applied
    let file_replicas: Option<i64> = input
        .occurrences
        .iter()
        .filter_map(|o| o.replicas.as_deref())
        .find_map(|r| r.parse().ok());
    let manifest_replicas = file_replicas.or(annotation_replicas.as_ref().and_then(Value::as_i64));
    let steps = steps_or_block(obj, &input.path, &mut findings);
    let handover_planned = steps.iter().any(|s| s.id == "handover-replicas");
    let c = Ctx {
        input,
        obj,
        target: &target,
        hpa: &hpa,
        owners: &owners,
        all: &all,
        tools: &tools,
        last_applied: last_applied.as_ref(),
        annotation_replicas: annotation_replicas.as_ref(),
        file_replicas,
        manifest_replicas,
        live: target.replicas,
        default_replicas: apps.then_some(1),
        handover_planned,
        keeper: owners.iter().any(|o| o.role.keeps()),
        apps,
    };
    let next_apply = predict_and_judge(&c, steps.is_empty(), &mut findings);
    let blocked = findings.iter().any(|f| f.blocking);

    // --- kubectl equivalents, advice, risks
    let kubectl = kubectl_equivalents(
        obj,
        &target,
        &steps,
        &input.occurrences,
        last_applied.is_some(),
    );
    let facts = Facts {
        csa: last_applied.is_some(),
        handover: handover_planned && !blocked,
        helm: input.helm.as_ref(),
        gitops: &input.gitops,
    };
    let advice = advice_for(&tools, &target, &facts);
    let risks = standard_risks(&tools, &target, apps, facts.handover);
    Analysis {
        hpa,
        target,
        owners,
        last_applied,
        tools,
        next_apply,
        findings,
        requests: if blocked { Vec::new() } else { steps },
        kubectl,
        advice,
        risks,
        helm: input.helm.clone(),
        gitops: input.gitops.clone(),
    }
}

/// The workload as the plan names it.
fn target_info(input: &Input) -> TargetInfo {
    let obj = input.object;
    TargetInfo {
        api_version: s(obj, "/apiVersion").into(),
        kind: s(obj, "/kind").into(),
        namespace: s(obj, "/metadata/namespace").into(),
        name: s(obj, "/metadata/name").into(),
        path: input.path.clone(),
        resource_version: s(obj, "/metadata/resourceVersion").into(),
        replicas: obj.pointer("/spec/replicas").and_then(Value::as_i64),
    }
}

/// What each next apply would do, and the findings (most severe first); `already-safe` when
/// there is nothing to send and nothing dangerous after the migration.
fn predict_and_judge(c: &Ctx, no_steps: bool, findings: &mut Vec<Finding>) -> Vec<Prediction> {
    let mut next_apply = Vec::new();
    predict_client_side(c, &mut next_apply);
    predict_server_side(c, &mut next_apply, findings);
    predict_tools(c, &mut next_apply, findings);
    ownership_findings(c, findings);
    manifest_findings(c, findings);
    target_findings(c, findings);
    let blocked = findings.iter().any(|f| f.blocking);
    let after_danger = next_apply
        .iter()
        .any(|p| p.manifest == "afterMigration" && p.effect.dangerous());
    if no_steps && !blocked && !after_danger {
        findings.push(finding(
            "already-safe",
            Severity::Info,
            "nothing to send: removing spec.replicas from the manifest leaves the live value alone"
                .into(),
        ));
    }
    findings.sort_by_key(|f| std::cmp::Reverse(f.severity));
    next_apply
}

/// Client-side apply (kubectl, or Argo CD in its default mode): the last-applied annotation decides.
fn predict_client_side(c: &Ctx, next_apply: &mut Vec<Prediction>) {
    let Ctx {
        last_applied,
        annotation_replicas,
        manifest_replicas,
        live,
        default_replicas,
        tools,
        ..
    } = *c;
    let has_tool = |t: Tool| tools.iter().any(|x| x.tool == t);
    let mut predict = |applier: String, manifest: &'static str, effect: Effect| {
        next_apply.push(Prediction {
            applier,
            manifest,
            text: effect.text(),
            effect,
        })
    };
    // client-side apply (kubectl, or Argo CD in its default mode)
    if let Some(la) = last_applied {
        let who = if has_tool(Tool::ArgoCd) {
            format!(
                "client-side apply (Argo CD / kubectl, manager {})",
                la.manager
            )
        } else {
            format!("kubectl apply (client-side, manager {})", la.manager)
        };
        if let Some(n) = manifest_replicas {
            let e = if Some(n) == live {
                Effect::Nothing
            } else {
                Effect::ResetTo { replicas: n }
            };
            predict(who.clone(), "asIs", e);
        }
        let without = if annotation_replicas.is_some() {
            Effect::Delete {
                defaults_to: default_replicas,
            }
        } else {
            Effect::Nothing
        };
        predict(who.clone(), "withoutReplicas", without);
        predict(who, "afterMigration", Effect::Nothing);
    }
}

/// Server-side appliers: pruned when the sole owner, conflicts when another manager owns it.
fn predict_server_side(c: &Ctx, next_apply: &mut Vec<Prediction>, findings: &mut Vec<Finding>) {
    let mut ssa: Vec<&Owner> = c
        .all
        .iter()
        .filter(|o| o.role == Role::Applier && o.operation == "Apply")
        .collect();
    ssa.dedup_by(|a, b| a.manager == b.manager);
    for p in &ssa {
        predict_one_server_side_applier(c, p, next_apply, findings);
    }
}

/// What one server-side applier's next apply does with the manifest as it is, without
/// replicas, and after the migration.
fn predict_one_server_side_applier(
    c: &Ctx,
    p: &Owner,
    next_apply: &mut Vec<Prediction>,
    findings: &mut Vec<Finding>,
) {
    let mut predict = |applier: String, manifest: &'static str, effect: Effect| {
        next_apply.push(Prediction {
            applier,
            manifest,
            text: effect.text(),
            effect,
        })
    };
    let who = format!(
        "{} (server-side apply, manager {})",
        p.tool.map_or("an applier", |t| t.label()),
        p.manager
    );
    let is_p = |o: &&Owner| o.manager == p.manager && o.operation == "Apply";
    let p_owns = c.owners.iter().any(|o| is_p(&o));
    let others: Vec<String> = c
        .owners
        .iter()
        .filter(|o| !is_p(o))
        .map(|o| match &o.subresource {
            Some(sub) => format!("{} ({sub})", o.manager),
            None => o.manager.clone(),
        })
        .collect();
    if let Some(n) = c.manifest_replicas {
        let e = apply_as_is(c, p, n, others, findings);
        predict(who.clone(), "asIs", e);
    }
    let sole = p_owns && others_empty(c, p);
    let delete = Effect::Delete {
        defaults_to: c.default_replicas,
    };
    let without = if sole {
        delete.clone()
    } else {
        Effect::Nothing
    };
    predict(who.clone(), "withoutReplicas", without);
    let after = if sole && !c.handover_planned {
        delete
    } else {
        Effect::Nothing
    };
    predict(who, "afterMigration", after);
    if sole {
        findings.push(finding(
            "ssa-sole-owner-would-prune",
            Severity::High,
            format!(
                "{} is the only owner of spec.replicas: a server-side apply of the manifest without replicas would delete the field{}",
                p.manager,
                c.default_replicas.map_or(String::new(), |d| format!(" and the API would default it to {d}"))
            ),
        ));
    }
}

/// Whether no one but `p` (as an Apply manager) owns spec.replicas.
fn others_empty(c: &Ctx, p: &Owner) -> bool {
    c.owners
        .iter()
        .all(|o| o.manager == p.manager && o.operation == "Apply")
}

/// A server-side apply by `p` of the manifest as it is (replicas `n`): nothing, a conflict with
/// the other owners (Flux and Argo CD force conflicts), or a reset.
fn apply_as_is(
    c: &Ctx,
    p: &Owner,
    n: i64,
    others: Vec<String>,
    findings: &mut Vec<Finding>,
) -> Effect {
    let forced = matches!(p.tool, Some(Tool::Flux) | Some(Tool::ArgoCd));
    if Some(n) == c.live {
        return Effect::Nothing;
    }
    if others.is_empty() || forced {
        return Effect::ResetTo { replicas: n };
    }
    findings.push(finding(
        "ssa-apply-would-conflict",
        Severity::Medium,
        format!(
            "a server-side apply by {} of replicas {n} (live {}) fails with a conflict with {}; with --force-conflicts it would take the field back from the HPA",
            p.manager,
            c.live.map_or("unset".into(), |l| l.to_string()),
            others.join(", ")
        ),
    ));
    Effect::Conflict { with: others }
}

/// Helm (decided by the release) and Argo CD / Flux (decided by the owning object).
fn predict_tools(c: &Ctx, next_apply: &mut Vec<Prediction>, findings: &mut Vec<Finding>) {
    let Ctx {
        input,
        manifest_replicas,
        live,
        default_replicas,
        tools,
        ..
    } = *c;
    let has_tool = |t: Tool| tools.iter().any(|x| x.tool == t);
    // Helm in client-side mode: the previous release manifest decides, not the annotation
    if has_tool(Tool::Helm) && !input.helm.as_ref().is_some_and(HelmFacts::server_side) {
        let (rows, f) = helm_rows(
            input.helm.as_ref(),
            live,
            manifest_replicas,
            default_replicas,
        );
        next_apply.extend(rows);
        findings.push(f);
    }
    // Argo CD / Flux: what the owning object says
    for g in &input.gitops {
        let (id, msg) = gitops::verdict(g);
        let sev = if g.protected() {
            Severity::Info
        } else {
            Severity::Medium
        };
        findings.push(finding(id, sev, msg));
        if g.protected() {
            let tool = if g.owner.kind == "Application" {
                "Argo CD"
            } else {
                "Flux"
            };
            next_apply.retain(|p| !p.applier.contains(tool));
            for m in ["asIs", "withoutReplicas", "afterMigration"] {
                next_apply.push(Prediction {
                    applier: format!("{tool} sync ({}, ignores /spec/replicas)", g.owner.label()),
                    manifest: m,
                    text: Effect::Nothing.text(),
                    effect: Effect::Nothing,
                });
            }
        }
    }
}

/// Who owns `spec.replicas`, and what a move to server-side apply would fold.
fn ownership_findings(c: &Ctx, findings: &mut Vec<Finding>) {
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
fn manifest_findings(c: &Ctx, findings: &mut Vec<Finding>) {
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
fn target_findings(c: &Ctx, findings: &mut Vec<Finding>) {
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

/// What every stage of [`analyze`] reads.
#[derive(Clone, Copy)]
struct Ctx<'a> {
    input: &'a Input<'a>,
    obj: &'a Value,
    target: &'a TargetInfo,
    hpa: &'a HpaInfo,
    owners: &'a [Owner],
    all: &'a [Owner],
    tools: &'a [ToolInfo],
    last_applied: Option<&'a LastApplied>,
    annotation_replicas: Option<&'a Value>,
    file_replicas: Option<i64>,
    manifest_replicas: Option<i64>,
    live: Option<i64>,
    default_replicas: Option<i64>,
    handover_planned: bool,
    keeper: bool,
    apps: bool,
}

fn kustomize_finding(k: &KustomizeSetting) -> Finding {
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

/// Helm's client-side upgrade: a three-way merge against the previous release's manifest. One
/// prediction, decided by the release Secret when it could be read.
fn helm_rows(
    facts: Option<&HelmFacts>,
    live: Option<i64>,
    manifest_replicas: Option<i64>,
    default_replicas: Option<i64>,
) -> (Vec<Prediction>, Finding) {
    let row = |applier: &str, manifest: &'static str, effect: Effect| Prediction {
        applier: applier.to_string(),
        manifest,
        text: effect.text(),
        effect,
    };
    let delete = Effect::Delete {
        defaults_to: default_replicas,
    };
    let dflt = default_replicas.map_or("the default".into(), |d| d.to_string());
    let check = facts.map_or(
        "helm get manifest RELEASE -n NAMESPACE | grep -n 'replicas:'".into(),
        |f| {
            format!(
                "helm get manifest {} -n {} | grep -n 'replicas:'",
                f.release, f.namespace
            )
        },
    );
    let read = facts.and_then(|f| match &f.state {
        ReleaseState::Read {
            secret,
            revision,
            replicas,
            ..
        } => Some((secret, revision, replicas)),
        ReleaseState::Unreadable { .. } => None,
    });
    match read {
        Some((secret, revision, Some(r))) => {
            let who =
                format!("helm upgrade (three-way merge against {secret}, revision {revision})");
            let mut rows = Vec::new();
            if let Some(n) = manifest_replicas.or(r.parse().ok()) {
                let e = if Some(n) == live {
                    Effect::Nothing
                } else {
                    Effect::ResetTo { replicas: n }
                };
                rows.push(row(&who, "asIs", e));
            }
            rows.push(row(&who, "withoutReplicas", delete.clone()));
            rows.push(row(&who, "afterMigration", delete));
            (rows, finding("helm-release-has-replicas", Severity::High, format!(
                "the deployed release ({secret}, revision {revision}) rendered spec.replicas: {r}: the first upgrade whose chart no longer renders it (e.g. autoscaling.enabled=true) sends replicas: null and the API defaults it to {dflt}; the cluster requests below do not change that (see the Helm advice)"
            )))
        }
        Some((secret, revision, None)) => {
            let who =
                format!("helm upgrade (three-way merge against {secret}, revision {revision})");
            (
                vec![row(&who, "withoutReplicas", Effect::Nothing), row(&who, "afterMigration", Effect::Nothing)],
                finding("helm-release-without-replicas", Severity::Info, format!(
                    "the deployed release ({secret}, revision {revision}) does not render spec.replicas: an upgrade without it leaves the live value alone"
                )),
            )
        }
        None => {
            let why = match facts.map(|f| &f.state) {
                Some(ReleaseState::Unreadable { reason }) => reason.clone(),
                _ => "the object has no meta.helm.sh/release-name annotation".into(),
            };
            let both = Effect::Unknown {
                outcomes: format!("delete spec.replicas -> {dflt} if the deployed release rendered it, else leave it alone (release not readable)"),
            };
            (
                vec![
                    row("helm upgrade (three-way merge against the deployed release)", "withoutReplicas", both.clone()),
                    row("helm upgrade (three-way merge against the deployed release)", "afterMigration", both),
                ],
                finding("helm-release-unreadable", Severity::Medium, format!(
                    "the Helm release storage could not be read ({why}): if the deployed release rendered spec.replicas, the upgrade that stops rendering it sends replicas: null and the API defaults it to {dflt}; if it did not, the upgrade leaves it alone. Check with `{check}`"
                )),
            )
        }
    }
}

/// `deployments.apps/web`
fn kubectl_resource(target: &TargetInfo, path: &str) -> String {
    let plural = path.rsplit('/').nth(1).unwrap_or_default();
    let g = group_of(&target.api_version);
    if g.is_empty() {
        format!("{plural}/{}", target.name)
    } else {
        format!("{plural}.{g}/{}", target.name)
    }
}

fn shell_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "'\\''"))
}

fn kubectl_equivalents(
    obj: &Value,
    target: &TargetInfo,
    steps: &[Step],
    occurrences: &[Occurrence],
    csa: bool,
) -> Vec<String> {
    let res = kubectl_resource(target, &target.path);
    let ns = &target.namespace;
    let mut out = Vec::new();
    for st in steps {
        match st.id {
            "remove-replicas-from-last-applied" => {
                let manager = &st.query[0].1;
                out.push(format!(
                    "# {}\nkubectl patch {res} -n {ns} --type merge --field-manager {manager} -p {}",
                    st.description,
                    shell_quote(&st.body)
                ));
                out.push(format!(
                    "# or interactively (delete the `replicas:` line under spec; no resourceVersion precondition)\nkubectl apply edit-last-applied {res} -n {ns}"
                ));
            }
            "handover-replicas" => {
                let replicas = obj
                    .pointer("/spec/replicas")
                    .and_then(Value::as_i64)
                    .unwrap_or(0);
                let mut c = format!(
                    "# {}\nkubectl apply --server-side --field-manager={HANDOVER_MANAGER} --validate=false -f - <<'EOF'\napiVersion: {}\nkind: {}\nmetadata:\n  name: {}\n  namespace: {ns}\nspec:\n  replicas: {replicas}\nEOF",
                    st.description, target.api_version, target.kind, target.name
                );
                if csa {
                    c += &format!("\n# WARNING: on this client-side-applied object, kubectl first folds the fields of {CSA_MANAGER} into {HANDOVER_MANAGER} (its client-side -> server-side migration), so {HANDOVER_MANAGER} would own the whole object; `kubectl hpa migrate --apply` sends the single apply request instead");
                }
                out.push(c);
            }
            _ => {}
        }
    }
    out.push(format!(
        "# check the owners of spec.replicas\nkubectl get {res} -n {ns} --show-managed-fields -o yaml"
    ));
    for o in occurrences {
        if matches!(o.action, EditAction::Remove { .. }) {
            out.push(format!(
                "# after the cluster steps and the file edit: the next apply must not change spec.replicas\nkubectl diff -f {}",
                o.file
            ));
        }
    }
    out.dedup();
    out
}

/// What the advice depends on besides the tools.
struct Facts<'a> {
    csa: bool,
    handover: bool,
    helm: Option<&'a HelmFacts>,
    gitops: &'a [GitopsFacts],
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

fn advice_for(tools: &[ToolInfo], target: &TargetInfo, f: &Facts) -> Vec<Advice> {
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

fn standard_risks(
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

#[cfg(test)]
mod tests {
    use super::*;

    fn deploy(annotation_replicas: Option<i64>, managers: Value) -> Value {
        let mut la = json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"annotations": {}, "name": "web", "namespace": "shop"}, "spec": {"selector": {"matchLabels": {"app": "web"}}}});
        if let Some(n) = annotation_replicas {
            la["spec"]["replicas"] = json!(n);
        }
        json!({
            "apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "web", "namespace": "shop", "resourceVersion": "42",
                "annotations": {LAST_APPLIED: format!("{la}\n")}, "managedFields": managers},
            "spec": {"replicas": 7, "selector": {"matchLabels": {"app": "web"}}}
        })
    }

    fn csa_entry(replicas: bool) -> Value {
        let mut f = json!({"f:metadata": {"f:annotations": {".": {}, "f:kubectl.kubernetes.io/last-applied-configuration": {}}}, "f:spec": {"f:selector": {}}});
        if replicas {
            f["f:spec"]["f:replicas"] = json!({});
        }
        json!({"manager": "kubectl-client-side-apply", "operation": "Update", "apiVersion": "apps/v1", "fieldsV1": f})
    }

    fn hpa() -> Value {
        json!({"metadata": {"name": "web", "namespace": "shop"}, "spec": {"minReplicas": 2, "maxReplicas": 10, "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"}}})
    }

    fn run(obj: &Value) -> Analysis {
        let h = hpa();
        analyze(&Input {
            hpa: &h,
            object: obj,
            path: "/apis/apps/v1/namespaces/shop/deployments/web".into(),
            other_hpas: vec![],
            occurrences: vec![],
            kustomize: vec![],
            files_given: false,
            helm: None,
            gitops: vec![],
        })
    }

    fn ids(a: &Analysis) -> Vec<&str> {
        a.findings.iter().map(|f| f.id).collect()
    }

    #[test]
    fn csa_with_replicas_plans_both_steps() {
        let obj = deploy(Some(3), json!([csa_entry(true)]));
        let a = run(&obj);
        assert!(a.has("csa-annotation-has-replicas"), "{:?}", ids(&a));
        assert!(a.has("csa-manager-owns-replicas"));
        assert!(a.has("manifest-sets-replicas"));
        assert_eq!(a.requests.len(), 2);
        let body: Value = serde_json::from_str(&a.requests[0].body).unwrap();
        assert_eq!(body["metadata"]["resourceVersion"], "42");
        let new = body["metadata"]["annotations"][LAST_APPLIED]
            .as_str()
            .unwrap();
        assert!(!new.contains("replicas") && new.ends_with("}\n"));
        assert_eq!(
            a.requests[0].query,
            [(
                "fieldManager".to_string(),
                "kubectl-client-side-apply".to_string()
            )]
        );
        assert_eq!(
            a.requests[1].body,
            format!("{{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\",\"metadata\":{{\"name\":\"web\",\"namespace\":\"shop\",\"resourceVersion\":\"{RV_FROM_PREVIOUS}\"}},\"spec\":{{\"replicas\":7}}}}")
        );
        let w: Vec<&Prediction> = a
            .next_apply
            .iter()
            .filter(|p| p.manifest == "withoutReplicas")
            .collect();
        assert_eq!(
            w[0].effect,
            Effect::Delete {
                defaults_to: Some(1)
            }
        );
        assert!(a
            .next_apply
            .iter()
            .filter(|p| p.manifest == "afterMigration")
            .all(|p| p.effect == Effect::Nothing));
    }

    #[test]
    fn hpa_owner_means_no_handover() {
        let obj = deploy(
            Some(3),
            json!([csa_entry(false), {"manager": "kube-controller-manager", "operation": "Update", "subresource": "scale", "fieldsV1": {"f:spec": {"f:replicas": {}}}}]),
        );
        let a = run(&obj);
        assert_eq!(a.requests.len(), 1);
        assert_eq!(a.requests[0].id, "remove-replicas-from-last-applied");
        assert!(a.has("hpa-owns-replicas"));
    }

    #[test]
    fn clean_object_is_already_safe() {
        let obj = deploy(
            None,
            json!([csa_entry(false), {"manager": "kube-controller-manager", "operation": "Update", "subresource": "scale", "fieldsV1": {"f:spec": {"f:replicas": {}}}}]),
        );
        let a = run(&obj);
        assert!(a.requests.is_empty());
        assert!(a.has("already-safe"), "{:?}", ids(&a));
    }

    #[test]
    fn ssa_sole_owner_gets_handover_only() {
        let mut obj = deploy(
            None,
            json!([{"manager": "kubectl", "operation": "Apply", "fieldsV1": {"f:spec": {"f:replicas": {}, "f:selector": {}}}}]),
        );
        obj["metadata"]["annotations"] = json!({});
        let a = run(&obj);
        assert!(a.has("ssa-sole-owner-would-prune"));
        assert_eq!(a.requests.len(), 1);
        assert_eq!(a.requests[0].id, "handover-replicas");
        assert!(a.requests[0].body.contains("\"resourceVersion\":\"42\""));
        let after: Vec<&Prediction> = a
            .next_apply
            .iter()
            .filter(|p| p.manifest == "afterMigration")
            .collect();
        assert_eq!(after[0].effect, Effect::Nothing);
    }

    #[test]
    fn ssa_manifest_with_other_value_conflicts() {
        let mut obj = deploy(
            None,
            json!([
            {"manager": "kubectl", "operation": "Apply", "fieldsV1": {"f:spec": {"f:selector": {}}}},
            {"manager": "kube-controller-manager", "operation": "Update", "subresource": "scale", "fieldsV1": {"f:spec": {"f:replicas": {}}}}]),
        );
        obj["metadata"]["annotations"] = json!({});
        let h = hpa();
        let occ = Occurrence {
            file: "w.yaml".into(),
            document: 1,
            item: None,
            line: 5,
            replicas: Some("3".into()),
            namespace_assumed: false,
            action: EditAction::NoReplicas,
        };
        let a = analyze(&Input {
            hpa: &h,
            object: &obj,
            path: "/apis/apps/v1/namespaces/shop/deployments/web".into(),
            other_hpas: vec!["shop/web2".into()],
            occurrences: vec![occ],
            kustomize: vec![],
            files_given: true,
            helm: None,
            gitops: vec![],
        });
        assert!(a.has("ssa-apply-would-conflict"));
        assert!(a.has("multiple-hpas") && a.blocked());
        assert!(a.requests.is_empty());
    }

    #[test]
    fn helm_is_detected() {
        let mut obj = deploy(
            None,
            json!([{"manager": "helm", "operation": "Update", "fieldsV1": {"f:spec": {"f:replicas": {}}}}]),
        );
        obj["metadata"]["annotations"] = json!({"meta.helm.sh/release-name": "web"});
        obj["metadata"]["labels"] = json!({"app.kubernetes.io/managed-by": "Helm"});
        let a = run(&obj);
        assert!(a.has("managed-by-helm") && a.has("helm-release-unreadable"));
        let after: Vec<&Prediction> = a
            .next_apply
            .iter()
            .filter(|p| p.manifest == "afterMigration")
            .collect();
        assert!(after
            .iter()
            .any(|p| matches!(p.effect, Effect::Unknown { .. })));
        assert!(!a.has("already-safe"), "one consistent prediction");
        assert_eq!(a.tools[0].tool, Tool::Helm);
        assert!(a.advice.iter().any(|x| x.tool == "helm"));
        assert_eq!(
            a.requests.len(),
            1,
            "handover still helps once Helm goes server-side"
        );
    }
}
