//! Diagnostics: the problems users actually hit, each with what to do — computed from the same
//! [`Snapshot`], [`Input`] and [`Decision`] that `explain` shows, plus a little context the core
//! does not need ([`Extras`]: ReplicaSet owners, Deployment rollout status, the metrics
//! APIService). Pure: no I/O; the cluster layer only fills [`Extras`].
//!
//! Each [`Finding`] has a stable `id`, a `severity`, a `message` (what is wrong, with names) and an
//! `action` (what to do). `details` carries numbers for programs (e.g. the thresholds of
//! `next-scale`).

use std::collections::{BTreeMap, BTreeSet};

use jiff::SignedDuration;
use serde::Serialize;
use serde_json::{json, Value};

use crate::core::calc::Tolerances;
use crate::core::{Action, Calculation, Decision, Input, MetricOutcome, MetricSpec, Rule};
use crate::display::units::Unit;
use crate::snapshot::{Pod, Snapshot, TargetStatus};

/// How bad a finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum Severity {
    Error,
    Warning,
    Info,
}

impl Severity {
    pub fn as_str(&self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Info => "info",
        }
    }
}

/// One diagnostic.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Finding {
    /// Stable identifier: `metrics-api-missing`, `metrics-api-unavailable`, `metrics-api-error`,
    /// `metrics-empty`, `metrics-stale`, `missing-request`, `foreign-pods`, `ambiguous-selector`,
    /// `target-missing`, `target-unreadable`, `rollout-in-progress`, `min-equals-max`,
    /// `target-at-zero`, `container-absent`, `memory-scale-up`, `next-scale`.
    pub id: String,
    pub severity: Severity,
    pub message: String,
    pub action: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub details: Option<Value>,
}

fn finding(id: &str, severity: Severity, message: String, action: String) -> Finding {
    Finding {
        id: id.into(),
        severity,
        message,
        action,
        details: None,
    }
}

/// A hold by a stabilization window or a rate policy: when it ends, and the knob that sets it.
fn held(d: &Decision, out: &mut Vec<Finding>) {
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

/// A ReplicaSet reduced to its owner (for "pods the target does not own" and rollouts).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ReplicaSetInfo {
    pub namespace: String,
    pub name: String,
    /// The controller owner, `(kind, name)`.
    pub owner: Option<(String, String)>,
    pub spec_replicas: i32,
}

/// A Deployment's rollout status.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct RolloutInfo {
    pub namespace: String,
    pub name: String,
    pub spec_replicas: i32,
    pub status_replicas: i32,
    pub updated_replicas: Option<i32>,
}

pub use crate::metrics_api::{MetricsApi, MetricsGroup, METRICS_APISERVICE};

/// Context the core does not need, read from the same List (or fetched alongside it).
#[derive(Debug, Clone, Default)]
pub struct Extras {
    pub replica_sets: Vec<ReplicaSetInfo>,
    pub deployments: Vec<RolloutInfo>,
    /// `None`: not looked at (offline without an APIService object, or the metrics call worked).
    pub metrics_api: Option<MetricsApi>,
    /// The custom and external metrics APIServices the List holds (a live fetch adds one
    /// when it is not available and a read of its API failed), by name.
    pub other_apis: Vec<(String, MetricsApi)>,
}

impl Extras {
    /// Read the context from a `v1 List` (nested Lists flattened).
    pub fn from_list(doc: &Value) -> Extras {
        let mut x = Extras::default();
        let mut apiservice = None;
        walk(doc, &mut |item| {
            let av = item["apiVersion"].as_str().unwrap_or_default();
            let kind = item["kind"].as_str().unwrap_or_default();
            let md = &item["metadata"];
            let ns = md["namespace"].as_str().unwrap_or("default").to_string();
            let name = md["name"].as_str().unwrap_or_default().to_string();
            match (av, kind) {
                ("apps/v1", "ReplicaSet") => x.replica_sets.push(ReplicaSetInfo {
                    namespace: ns,
                    name,
                    owner: controller_owner(md),
                    spec_replicas: item
                        .pointer("/spec/replicas")
                        .and_then(Value::as_i64)
                        .unwrap_or(1) as i32,
                }),
                ("apps/v1", "Deployment") => x.deployments.push(RolloutInfo {
                    namespace: ns,
                    name,
                    spec_replicas: item
                        .pointer("/spec/replicas")
                        .and_then(Value::as_i64)
                        .unwrap_or(1) as i32,
                    status_replicas: item
                        .pointer("/status/replicas")
                        .and_then(Value::as_i64)
                        .unwrap_or(0) as i32,
                    updated_replicas: item
                        .pointer("/status/updatedReplicas")
                        .and_then(Value::as_i64)
                        .map(|v| v as i32),
                }),
                ("apiregistration.k8s.io/v1", "APIService") if name == METRICS_APISERVICE => {
                    apiservice = Some(item.clone());
                }
                ("apiregistration.k8s.io/v1", "APIService")
                    if MetricsGroup::of_apiservice(&name).is_some() =>
                {
                    x.other_apis
                        .push((name, MetricsApi::from_apiservice(Some(item))));
                }
                _ => {}
            }
        });
        if let Some(a) = apiservice {
            x.metrics_api = Some(MetricsApi::from_apiservice(Some(&a)));
        }
        x.sort();
        x
    }
}

impl Extras {
    /// The context a snapshot holds (what [`Extras::from_list`] reads from its List).
    pub fn from_snapshot(snap: &Snapshot) -> Extras {
        let mut x = Extras::default();
        for w in &snap.workload_status {
            match w.kind.as_str() {
                "ReplicaSet" => x.replica_sets.push(ReplicaSetInfo {
                    namespace: w.namespace.clone(),
                    name: w.name.clone(),
                    owner: w.owner.clone(),
                    spec_replicas: w.spec_replicas,
                }),
                "Deployment" => x.deployments.push(RolloutInfo {
                    namespace: w.namespace.clone(),
                    name: w.name.clone(),
                    spec_replicas: w.spec_replicas,
                    status_replicas: w.status_replicas,
                    updated_replicas: w.updated_replicas,
                }),
                _ => {}
            }
        }
        let apiservice = snap.other.iter().find(|o| {
            o["apiVersion"] == "apiregistration.k8s.io/v1"
                && o["kind"] == "APIService"
                && o.pointer("/metadata/name").and_then(Value::as_str) == Some(METRICS_APISERVICE)
        });
        if apiservice.is_some() {
            x.metrics_api = Some(MetricsApi::from_apiservice(apiservice));
        }
        x.other_apis = snap
            .other
            .iter()
            .filter(|o| o["apiVersion"] == "apiregistration.k8s.io/v1" && o["kind"] == "APIService")
            .filter_map(|o| {
                let name = o.pointer("/metadata/name").and_then(Value::as_str)?;
                (MetricsGroup::of_apiservice(name)? != MetricsGroup::Resource)
                    .then(|| (name.to_string(), MetricsApi::from_apiservice(Some(o))))
            })
            .collect();
        x.sort();
        x
    }

    /// Sort for the lookups by namespace and name.
    fn sort(&mut self) {
        self.replica_sets
            .sort_by(|a, b| (&a.namespace, &a.name).cmp(&(&b.namespace, &b.name)));
        self.deployments
            .sort_by(|a, b| (&a.namespace, &a.name).cmp(&(&b.namespace, &b.name)));
    }

    /// The ReplicaSet `ns/name` (sorted lists: a binary search).
    fn replica_set(&self, ns: &str, name: &str) -> Option<&ReplicaSetInfo> {
        let i = self
            .replica_sets
            .binary_search_by(|r| (r.namespace.as_str(), r.name.as_str()).cmp(&(ns, name)))
            .ok()?;
        self.replica_sets.get(i)
    }

    /// The Deployment `ns/name`.
    fn deployment(&self, ns: &str, name: &str) -> Option<&RolloutInfo> {
        let i = self
            .deployments
            .binary_search_by(|r| (r.namespace.as_str(), r.name.as_str()).cmp(&(ns, name)))
            .ok()?;
        self.deployments.get(i)
    }
}

fn walk(v: &Value, f: &mut dyn FnMut(&Value)) {
    match v.get("items").and_then(Value::as_array) {
        Some(items) if v["kind"].as_str().is_some_and(|k| k.ends_with("List")) => {
            for i in items {
                walk(i, f);
            }
        }
        _ => f(v),
    }
}

fn controller_owner(md: &Value) -> Option<(String, String)> {
    let refs = md["ownerReferences"].as_array()?;
    let r = refs
        .iter()
        .find(|r| r["controller"] == true)
        .or(refs.first())?;
    Some((
        r["kind"].as_str()?.to_string(),
        r["name"].as_str()?.to_string(),
    ))
}

fn pod_owner(p: &Pod) -> Option<(String, String)> {
    let refs = p.metadata.owner_references.as_ref()?;
    let r = refs
        .iter()
        .find(|r| r.controller == Some(true))
        .or(refs.first())?;
    Some((r.kind.clone(), r.name.clone()))
}

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

/// A duration in whole seconds (`268d0h`, `2m45s`): no nanoseconds in a message.
fn fmt_dur(d: SignedDuration) -> String {
    crate::display::units::duration(d)
}

fn list_some(names: &[String], max: usize) -> String {
    let mut s = names
        .iter()
        .take(max)
        .cloned()
        .collect::<Vec<_>>()
        .join(", ");
    if names.len() > max {
        s.push_str(&format!(" and {} more", names.len() - max));
    }
    s
}

/// Every finding for one HPA, errors first.
pub fn diagnose(snap: &Snapshot, input: &Input, d: &Decision, x: &Extras) -> Vec<Finding> {
    let mut out = Vec::new();
    let hpa = &input.hpa;
    let ns = hpa.namespace.as_str();
    let raw_pods: BTreeMap<&str, &Pod> = input
        .pods
        .iter()
        .filter_map(|p| snap.pod(ns, &p.name).map(|r| (p.name.as_str(), r)))
        .collect();
    let selector = input
        .scale
        .as_ref()
        .map(|s| s.selector.clone())
        .unwrap_or_default();

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

    held(d, &mut out);
    snapshot_findings(snap, input, &mut out);
    if d.verdict.decided_by == Rule::NoMetrics {
        out.push(no_metrics(input));
    } else if d.verdict.decided_by == Rule::NotInSnapshot {
        // The file lacks the target: said by the target's finding.
    } else if d.verdict.action == Action::Unknown {
        // Our read failed, not the controller's: no advice about the metrics pipeline.
        out.push(finding(
            "our-read-failed",
            Severity::Warning,
            d.verdict.summary.clone(),
            "run again (the API server may be throttling or restarting); check that you may read the metrics APIs (kubectl auth can-i list pods.metrics.k8s.io); -v 6 shows each request and its status".into(),
        ));
    } else {
        metrics_api_findings(input, d, x, &selector, &mut out);
        other_metrics_api_findings(input, x, &mut out);
    }
    missing_requests(input, d, &raw_pods, &mut out);
    container_absent(input, &mut out);
    foreign_pods(input, d, x, &raw_pods, &selector, &mut out);
    rollout(input, x, &raw_pods, &mut out);
    memory_scale_up(input, d, &mut out);
    if let Some(f) = next_scale(input, d) {
        out.push(f);
    }
    out.sort_by_key(|f| f.severity);
    out
}

/// What reading the file noted: fields of another API version in the HPA (dropped by the API
/// server), and objects explain passed over.
fn snapshot_findings(snap: &Snapshot, input: &Input, out: &mut Vec<Finding>) {
    let (ns, name) = (input.hpa.namespace.as_str(), input.hpa.name.as_str());
    for text in snap.notes_for(ns, name, crate::snapshot::NoteKind::FieldIgnored) {
        out.push(finding(
            "hpa-field-ignored",
            Severity::Warning,
            format!("HorizontalPodAutoscaler {ns}/{name}: {text}"),
            "write the target in spec.metrics as autoscaling/v2 does (e.g. type: Resource, resource: {name: cpu, target: {type: Utilization, averageUtilization: 50}}) and check the manifest that produced it".into(),
        ));
    }
    if !snap.ignored.is_empty() {
        out.push(finding(
            "snapshot-objects-ignored",
            Severity::Info,
            format!(
                "{} object(s) of the snapshot are of kinds explain does not read and were passed over: {}",
                snap.ignored.len(),
                list_some(&snap.ignored, 5)
            ),
            "nothing to do; leave them out of the file to keep it small".into(),
        ));
    }
}

/// A snapshot without any metric: what explain can still say.
fn no_metrics(input: &Input) -> Finding {
    let hpa = &input.hpa;
    let status = match &hpa.status {
        Some(s) => {
            let conditions: Vec<String> = s
                .conditions
                .iter()
                .flatten()
                .map(|c| {
                    format!(
                        "{}={} {}",
                        c.type_,
                        c.status,
                        c.reason.as_deref().unwrap_or("")
                    )
                })
                .collect();
            format!(
                "the status the controller last wrote (currentReplicas {}, desiredReplicas {}{}{})",
                s.current_replicas.unwrap_or(0),
                s.desired_replicas,
                if conditions.is_empty() { "" } else { "; " },
                conditions.join(", ")
            )
        }
        None => "the status (none written yet)".to_string(),
    };
    let ready = input
        .pods
        .iter()
        .filter(|p| p.ready.as_ref().is_some_and(|r| r.status == "True"))
        .count();
    finding(
        "snapshot-without-metrics",
        Severity::Warning,
        format!(
            "the file holds no metrics (no PodMetrics, MetricValueList or ExternalMetricValueList), so the replica count cannot be recomputed. Still known: {status}; the spec (minReplicas {}, maxReplicas {}, {} metric(s)); the {} pod(s) the target selects ({ready} ready)",
            hpa.min_replicas,
            hpa.max_replicas,
            hpa.metrics.len(),
            input.pods.len()
        ),
        format!(
            "take the file with `kubectl hpa snapshot {} -n {}` (it fetches the metrics), or add them to it: kubectl get --raw /apis/metrics.k8s.io/v1beta1/namespaces/{}/pods (and the custom or external metrics the HPA reads)",
            hpa.name, hpa.namespace, hpa.namespace
        ),
    )
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

fn uses_resource_metrics(input: &Input) -> bool {
    input.hpa.metrics.iter().any(|m| {
        matches!(
            m,
            MetricSpec::Resource { .. } | MetricSpec::ContainerResource { .. }
        )
    })
}

/// A custom or external metrics APIService that is not available, when the HPA reads its API:
/// the controller's reads fail (503) until the adapter behind it answers again.
fn other_metrics_api_findings(input: &Input, x: &Extras, out: &mut Vec<Finding>) {
    for (name, api) in &x.other_apis {
        let MetricsApi::Unavailable { reason, message } = api else {
            continue;
        };
        let group = MetricsGroup::of_apiservice(name);
        let used = input.hpa.metrics.iter().any(|m| match group {
            Some(MetricsGroup::Custom) => {
                matches!(m, MetricSpec::Pods { .. } | MetricSpec::Object { .. })
            }
            Some(MetricsGroup::External) => matches!(m, MetricSpec::External { .. }),
            _ => false,
        });
        let Some(group) = group.filter(|_| used) else {
            continue;
        };
        let words = group.words();
        out.push(finding(
            &format!("{}-api-unavailable", words.replace(' ', "-")),
            Severity::Error,
            format!("the {words} API is registered but not available: APIService {name} Available=False ({reason}: {message}); the controller's reads of {words} fail"),
            format!("check the adapter that serves it (prometheus-adapter, KEDA, a cloud adapter...): its pods and logs, the Service the APIService points to, and network policies between the API server and it (kubectl get apiservice {name} -o yaml)"),
        ));
    }
}

fn metrics_api_findings(
    input: &Input,
    d: &Decision,
    x: &Extras,
    selector: &str,
    out: &mut Vec<Finding>,
) {
    if !uses_resource_metrics(input) || input.scale.is_err() || d.current_replicas == Some(0) {
        return;
    }
    match &input.pod_metrics {
        Err(e) => {
            let f = match &x.metrics_api {
                Some(MetricsApi::Absent) => finding(
                    "metrics-api-missing",
                    Severity::Error,
                    format!("the resource metrics API is not installed: APIService {METRICS_APISERVICE} does not exist, so cpu/memory metrics fail ({e})"),
                    "install metrics-server (kubectl apply -f https://github.com/kubernetes-sigs/metrics-server/releases/latest/download/components.yaml) or another provider of metrics.k8s.io, or use Pods/Object/External metrics".into(),
                ),
                Some(MetricsApi::Unavailable { reason, message }) => finding(
                    "metrics-api-unavailable",
                    Severity::Error,
                    format!("the resource metrics API is registered but not available: APIService {METRICS_APISERVICE} Available=False ({reason}: {message}); cpu/memory metrics fail ({e})"),
                    format!("check metrics-server: its pods and logs (kubectl -n kube-system logs deploy/metrics-server), the Service the APIService points to, and network policies between the API server and it (kubectl get apiservice {METRICS_APISERVICE} -o yaml)"),
                ),
                Some(MetricsApi::Unknown(why)) => finding(
                    "metrics-api-error",
                    Severity::Error,
                    format!("the resource metrics API failed ({e}); the APIService {METRICS_APISERVICE} could not be read either ({why})"),
                    format!("ask an administrator: kubectl get apiservice {METRICS_APISERVICE}; check metrics-server's pods and logs"),
                ),
                _ => finding(
                    "metrics-api-error",
                    Severity::Error,
                    format!("the resource metrics API failed: {e}"),
                    format!("check `kubectl get apiservice {METRICS_APISERVICE}` (Available?) and metrics-server's logs; a 403 means the credentials may not list pods.metrics.k8s.io"),
                ),
            };
            out.push(f);
        }
        Ok(usages) if usages.is_empty() => {
            if !input.pods.is_empty() {
                out.push(finding(
                    "metrics-empty",
                    Severity::Warning,
                    format!(
                        "the resource metrics API answered but has no sample for any of the {} pods selected by {selector}",
                        input.pods.len()
                    ),
                    format!("metrics-server needs a scrape or two after pods start; if it lasts, check its logs for kubelet scrape errors and run `kubectl top pods -n {} -l {selector}`", input.hpa.namespace),
                ));
            }
        }
        Ok(usages) => {
            let sync = input.settings.sync_period;
            let mut stale: Vec<(String, SignedDuration)> = Vec::new();
            let mut limit = SignedDuration::ZERO;
            for u in usages {
                let window = if u.window.is_zero() {
                    SignedDuration::from_secs(30)
                } else {
                    u.window
                };
                let thr = window * 2 + sync;
                limit = limit.max(thr);
                let age = d.now.duration_since(u.timestamp);
                if age > thr {
                    stale.push((u.pod.clone(), age));
                }
            }
            if !stale.is_empty() {
                stale.sort_by_key(|(_, a)| std::cmp::Reverse(*a));
                let names: Vec<String> = stale.iter().map(|(p, _)| p.clone()).collect();
                out.push(Finding {
                    details: Some(json!({"stalePods": names, "oldestAgeSeconds": stale[0].1.as_secs()})),
                    ..finding(
                        "metrics-stale",
                        Severity::Warning,
                        format!(
                            "{} of {} PodMetrics samples are older than 2 × their window + the sync period ({}): the oldest, {}, is {} old — the controller still uses them",
                            stale.len(),
                            usages.len(),
                            fmt_dur(limit),
                            stale[0].0,
                            fmt_dur(stale[0].1)
                        ),
                        "metrics-server is not refreshing these pods: check its logs for scrape errors on their nodes (kubelet unreachable, certificates) and compare with `kubectl top pods`".into(),
                    )
                });
            }
        }
    }
}

fn missing_requests(
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

fn container_absent(input: &Input, out: &mut Vec<Finding>) {
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

/// Whether the target owns a pod with this owner.
fn owned_by_target(
    owner: &Option<(String, String)>,
    kind: &str,
    name: &str,
    ns: &str,
    x: &Extras,
) -> bool {
    let Some((ok, on)) = owner else {
        return false;
    };
    if ok == kind && on == name {
        return true;
    }
    if ok == "ReplicaSet" && kind != "ReplicaSet" && kind != "StatefulSet" {
        if let Some(rs) = x.replica_set(ns, on) {
            return rs
                .owner
                .as_ref()
                .is_some_and(|(k, n)| n == name && (k == kind || kind == "Scale"));
        }
        // No ReplicaSet known: a Deployment's (and an Argo Rollout's) ReplicaSets are named
        // `<name>-<hash>`.
        return on
            .strip_prefix(name)
            .and_then(|r| r.strip_prefix('-'))
            .is_some_and(|h| !h.is_empty() && !h.contains('-'));
    }
    false
}

fn foreign_pods(
    input: &Input,
    d: &Decision,
    x: &Extras,
    raw_pods: &BTreeMap<&str, &Pod>,
    selector: &str,
    out: &mut Vec<Finding>,
) {
    let hpa = &input.hpa;
    let ns = hpa.namespace.as_str();
    if input.pods.is_empty() || raw_pods.is_empty() {
        return;
    }
    let mut foreign: Vec<(String, String)> = Vec::new();
    for p in &input.pods {
        let Some(raw) = raw_pods.get(p.name.as_str()) else {
            continue;
        };
        let owner = pod_owner(raw);
        if !owned_by_target(&owner, &hpa.target_kind, &hpa.target_name, ns, x) {
            foreign.push((
                p.name.clone(),
                owner
                    .map(|(k, n)| format!("owned by {k} {n}"))
                    .unwrap_or_else(|| "no owner".into()),
            ));
        }
    }
    if foreign.is_empty() {
        return;
    }
    let names: BTreeSet<&str> = foreign.iter().map(|(p, _)| p.as_str()).collect();
    // Their share of the usage the controller averages, for each pod metric.
    let mut shares = Vec::new();
    for m in &d.metrics {
        if let Some(Calculation::PodAverage { pods, .. }) = &m.calculation {
            let total: i128 = pods
                .iter()
                .filter(|r| r.counted)
                .filter_map(|r| r.usage_milli)
                .map(i128::from)
                .sum();
            let theirs: i128 = pods
                .iter()
                .filter(|r| r.counted && names.contains(r.pod.as_str()))
                .filter_map(|r| r.usage_milli)
                .map(i128::from)
                .sum();
            let counted = pods
                .iter()
                .filter(|r| r.counted && names.contains(r.pod.as_str()))
                .count();
            if total > 0 {
                shares.push(format!(
                    "{}: {counted} of their samples counted, {:.0}% of the usage",
                    m.description.as_deref().unwrap_or(&m.type_),
                    theirs as f64 * 100.0 / total as f64
                ));
            }
        }
    }
    let listed: Vec<String> = foreign.iter().map(|(p, o)| format!("{p} ({o})")).collect();
    out.push(Finding {
        details: Some(json!({"pods": foreign.iter().map(|(p, o)| json!({"pod": p, "owner": o})).collect::<Vec<_>>()})),
        ..finding(
            "foreign-pods",
            Severity::Warning,
            format!(
                "{} of {} pods selected by {selector} are not owned by {} {}: {}; the controller counts them anyway{}",
                foreign.len(),
                input.pods.len(),
                hpa.target_kind,
                hpa.target_name,
                list_some(&listed, 5),
                if shares.is_empty() {
                    String::new()
                } else {
                    format!(" — {}", shares.join("; "))
                }
            ),
            format!("make the selector of {} {} match only its own pods: a label unique to its pod template (a Deployment's selector is immutable: this needs a new Deployment), or relabel/remove the other pods", hpa.target_kind, hpa.target_name),
        )
    });
}

fn rollout(input: &Input, x: &Extras, raw_pods: &BTreeMap<&str, &Pod>, out: &mut Vec<Finding>) {
    let hpa = &input.hpa;
    if hpa.target_kind != "Deployment" {
        return;
    }
    let ns = hpa.namespace.as_str();
    // ReplicaSets of the target that have selected pods.
    let mut by_rs: BTreeMap<String, usize> = BTreeMap::new();
    for p in &input.pods {
        let Some(raw) = raw_pods.get(p.name.as_str()) else {
            continue;
        };
        let owner = pod_owner(raw);
        if let Some((k, n)) = &owner {
            if k == "ReplicaSet" && owned_by_target(&owner, "Deployment", &hpa.target_name, ns, x) {
                *by_rs.entry(n.clone()).or_default() += 1;
            }
        }
    }
    let dep = x.deployment(ns, &hpa.target_name);
    let status_says = dep.is_some_and(|d| {
        d.updated_replicas.is_some_and(|u| u != d.spec_replicas)
            || d.status_replicas != d.spec_replicas
    });
    if by_rs.len() < 2 && !status_says {
        return;
    }
    let mut msg = format!("a rollout of Deployment {} is in progress", hpa.target_name);
    if let Some(d) = dep {
        msg += &format!(
            " (spec.replicas {}, status.replicas {}, updatedReplicas {})",
            d.spec_replicas,
            d.status_replicas,
            d.updated_replicas.map_or("-".into(), |u| u.to_string())
        );
    }
    if by_rs.len() >= 2 {
        msg += &format!(
            ": pods of {} ReplicaSets are selected — {}",
            by_rs.len(),
            by_rs
                .iter()
                .map(|(n, c)| format!("{n} ({c})"))
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    msg += "; the controller counts every one of them (new pods start unready, old ones go away)";
    out.push(finding(
        "rollout-in-progress",
        Severity::Warning,
        msg,
        format!("expect the decision to settle when the rollout completes (kubectl rollout status deployment/{} -n {ns}); surge pods raise the pod count the ratios multiply", hpa.target_name),
    ));
}

fn memory_scale_up(input: &Input, d: &Decision, out: &mut Vec<Finding>) {
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

/// The smallest integer `v >= lo` with `pred(v)`, for a predicate false then true.
fn first_true(lo: i64, pred: &dyn Fn(i64) -> bool) -> Option<i64> {
    if pred(lo) {
        return Some(lo);
    }
    let mut hi = lo.max(1);
    loop {
        if pred(hi) {
            break;
        }
        hi = hi.checked_mul(2)?;
        if hi > i64::MAX / 4 {
            return None;
        }
    }
    let mut l = lo; // pred(l) false
    while hi - l > 1 {
        let mid = l + (hi - l) / 2;
        if pred(mid) {
            hi = mid;
        } else {
            l = mid;
        }
    }
    Some(hi)
}

/// The largest integer `v` in `[0, hi]` with `pred(v)`, for a predicate true then false.
fn last_true(hi: i64, pred: &dyn Fn(i64) -> bool) -> Option<i64> {
    if !pred(0) {
        return None;
    }
    if pred(hi) {
        return Some(hi);
    }
    let (mut l, mut h) = (0, hi);
    while h - l > 1 {
        let mid = l + (h - l) / 2;
        if pred(mid) {
            l = mid;
        } else {
            h = mid;
        }
    }
    Some(l)
}

/// How a metric's proposal follows from its value (the core computes it).
#[derive(Debug, Clone, Copy)]
pub enum ProposalModel {
    /// `ratio = value / denom` over `pods` pods (utilization, per-pod average, Value targets).
    Ratio { pods: f64, denom: f64 },
    /// Object/External `AverageValue`: a total divided by the scale's status.replicas.
    AverageValue { target: i64, status_replicas: i32 },
}

impl ProposalModel {
    /// The replicas the core proposes for `value` with `current` replicas.
    fn propose(self, current: i32, value: i64, tol: &Tolerances) -> i64 {
        match self {
            ProposalModel::Ratio { pods, denom } => {
                crate::core::calc::proposal_from_ratio(current, value as f64 / denom, pods, tol)
                    as i64
            }
            ProposalModel::AverageValue {
                target,
                status_replicas,
            } => {
                let p = crate::core::calc::average_value_target(
                    value,
                    target,
                    status_replicas,
                    false,
                    tol,
                    &mut None,
                );
                p.replicas as i64
            }
        }
    }

    /// The value at which the ratio is 1.
    fn pivot(self) -> f64 {
        match self {
            ProposalModel::Ratio { denom, .. } => denom,
            ProposalModel::AverageValue {
                target,
                status_replicas,
            } => target as f64 * status_replicas.max(1) as f64,
        }
    }
}

/// The smallest integer value that proposes more than `current` and the largest that proposes
/// less, asking the core's own proposal functions (no second copy of the rules here).
pub fn thresholds(
    current: i32,
    model: ProposalModel,
    tol: &Tolerances,
) -> (Option<i64>, Option<i64>) {
    let (propose, pivot) = (|v| model.propose(current, v, tol), model.pivot());
    let up = first_true(pivot.floor() as i64, &|v| propose(v) > current as i64);
    let down = if current > 0 {
        last_true(pivot.ceil() as i64, &|v| propose(v) < current as i64)
    } else {
        None
    };
    (up, down)
}

/// From where a metric is now (`value`, proposing `level`): the smallest value that proposes
/// more than `level` and the largest that proposes less, with `current` replicas.
fn thresholds_from(
    current: i32,
    level: i32,
    value: i64,
    model: ProposalModel,
    tol: &Tolerances,
) -> (Option<i64>, Option<i64>) {
    let propose = |v| model.propose(current, v, tol);
    let level = i64::from(level);
    let value = value.max(0);
    let up = first_true(value, &|v| propose(v) > level);
    let down = if level > 0 {
        last_true(value, &|v| propose(v) < level)
    } else {
        None
    };
    (up, down)
}

/// Which value of the deciding metric is shown: where it is now (as the Metrics table shows
/// it), the first value of a higher proposal, or the last value of a lower one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Edge {
    Now,
    Reach,
    AtMost,
}

/// How a value of the deciding metric is shown ("83% (416m/pod)", "12/pod", "87 in total"); the
/// first value of a higher proposal comes with its verb ("reaches 84% (420m/pod)": the
/// controller's utilization is a whole percentage; "rises above 35/pod" for finer values).
type ValueFormat<'a> = Box<dyn Fn(i64, Edge) -> String + 'a>;

/// Where the deciding metric is now, how its proposal moves with its value, how to show a value,
/// and a caveat when unready or missing pods make the thresholds approximate.
struct MetricModel<'a> {
    now: i64,
    model: ProposalModel,
    fmt: ValueFormat<'a>,
    caveat: String,
}

/// What a pod-average calculation (Resource, ContainerResource, Pods metrics) says.
struct PodAverageFacts<'a> {
    utilization: bool,
    current: i64,
    raw_average_milli: Option<i64>,
    target: i64,
    ready_pods: usize,
    unready_pods: usize,
    missing_pods: usize,
    pods: &'a [crate::core::PodRow],
}

/// `a / b` rounded up, for `a >= 0` and `b > 0`.
fn ceil_div(a: i64, b: i64) -> i64 {
    (a + b - 1) / b
}

/// The model of a pod-average calculation.
fn pod_average_model(f: PodAverageFacts<'_>, unit: Unit) -> MetricModel<'static> {
    let PodAverageFacts {
        utilization,
        current,
        raw_average_milli,
        target,
        ready_pods,
        unready_pods,
        missing_pods,
        pods,
    } = f;
    let caveat = if unready_pods > 0 || missing_pods > 0 {
        format!(
            " (with {unready_pods} unready and {missing_pods} missing pods the controller re-computes with assumed values, so the real thresholds differ)"
        )
    } else {
        String::new()
    };
    let model = ProposalModel::Ratio {
        pods: ready_pods.max(1) as f64,
        denom: target as f64,
    };
    let fmt: ValueFormat = if utilization {
        let reqs: Vec<i64> = pods
            .iter()
            .filter(|r| r.counted)
            .filter_map(|r| r.request_milli)
            .collect();
        let sum_req: i64 = reqs.iter().sum();
        let n = reqs.len() as i64;
        // The controller truncates usage × 100 / requests: v% is reached at a usage of v% of
        // the requests and held up to just below (v + 1)%. Now is the table's own average.
        Box::new(move |v: i64, edge: Edge| {
            let per_pod = match (edge, raw_average_milli) {
                _ if n == 0 => return format!("{v}%"),
                (Edge::Now, Some(raw)) => raw,
                (Edge::AtMost, _) => (ceil_div(sum_req * (v + 1), 100 * n) - 1).max(0),
                _ => ceil_div(sum_req * v, 100 * n),
            };
            match edge {
                Edge::Reach => format!("reaches {v}% ({}/pod)", unit.show(per_pod)),
                _ => format!("{v}% ({}/pod)", unit.show(per_pod)),
            }
        })
    } else {
        Box::new(move |v: i64, edge: Edge| match edge {
            Edge::Reach => format!("rises above {}/pod", unit.show(v - 1)),
            _ => format!("{}/pod", unit.show(v)),
        })
    };
    MetricModel {
        now: current,
        model,
        fmt,
        caveat,
    }
}

/// The model of any calculation: pod averages, a Value target, an AverageValue target.
fn metric_model<'a>(calc: &'a Calculation, input: &Input, unit: Unit) -> MetricModel<'a> {
    match calc {
        Calculation::PodAverage {
            mode,
            current,
            raw_average_milli,
            target,
            ready_pods,
            unready_pods,
            missing_pods,
            pods,
            ..
        } => pod_average_model(
            PodAverageFacts {
                utilization: *mode == "Utilization",
                current: *current,
                raw_average_milli: *raw_average_milli,
                target: *target,
                ready_pods: *ready_pods,
                unready_pods: *unready_pods,
                missing_pods: *missing_pods,
                pods,
            },
            unit,
        ),
        Calculation::Value {
            value_milli,
            target_milli,
            ready_pods,
            ..
        } => {
            let ready = ready_pods.unwrap_or_else(|| {
                input
                    .pods
                    .iter()
                    .filter(|p| {
                        p.phase == "Running" && p.ready.as_ref().is_some_and(|r| r.status == "True")
                    })
                    .count() as i64
            });
            MetricModel {
                now: *value_milli,
                model: ProposalModel::Ratio {
                    pods: ready.max(1) as f64,
                    denom: *target_milli as f64,
                },
                fmt: Box::new(move |v: i64, edge: Edge| match edge {
                    Edge::Reach => format!("rises above {}", unit.show(v - 1)),
                    _ => unit.show(v),
                }),
                caveat: String::new(),
            }
        }
        Calculation::AverageValue {
            total_milli,
            target_milli,
            status_replicas,
            ..
        } => MetricModel {
            now: *total_milli,
            model: ProposalModel::AverageValue {
                target: *target_milli,
                status_replicas: *status_replicas,
            },
            fmt: Box::new(move |v: i64, edge: Edge| match edge {
                Edge::Reach => format!("rises above {} in total", unit.show(v - 1)),
                _ => format!("{} in total", unit.show(v)),
            }),
            caveat: String::new(),
        },
    }
}

/// The metric's name as people write it and the unit its values are shown in.
fn metric_identity(input: &Input, d: &Decision, i: usize, m: &MetricOutcome) -> (String, Unit) {
    match input.hpa.raw_metrics.get(i) {
        Some(spec) if input.hpa.raw_metrics.len() == d.metrics.len() => {
            crate::display::names::metric(spec)
        }
        _ => (
            m.description.clone().unwrap_or_else(|| m.type_.clone()),
            Unit::Plain,
        ),
    }
}

/// The phrases "N+1 if it rises above …" / "N-1 if it falls to … or below" (or the bound that
/// stops them), with the thresholds as details.
fn threshold_phrases(
    input: &Input,
    level: i32,
    (up, down): (Option<i64>, Option<i64>),
    fmt: &ValueFormat,
    details: &mut serde_json::Map<String, Value>,
) -> Vec<String> {
    let mut parts = Vec::new();
    if level >= input.hpa.max_replicas {
        parts.push(format!(
            "more is capped at maxReplicas {}",
            input.hpa.max_replicas
        ));
    } else if let Some(v) = up {
        parts.push(format!("{} if it {}", level + 1, fmt(v, Edge::Reach)));
        details.insert("scaleUpAt".into(), json!(v));
    }
    if level <= input.hpa.min_replicas {
        parts.push(format!(
            "fewer is floored at minReplicas {}",
            input.hpa.min_replicas
        ));
    } else if let Some(v) = down {
        parts.push(format!(
            "{} if it falls to {} or below",
            level - 1,
            fmt(v, Edge::AtMost)
        ));
        details.insert("scaleDownAt".into(), json!(v));
    } else {
        parts.push("no value of this metric proposes fewer".into());
    }
    parts
}

/// The metric value needed for one replica more or one less than the deciding metric proposes
/// now, phrased from where the metric is (the winning metric).
fn next_scale(input: &Input, d: &Decision) -> Option<Finding> {
    let current = d.current_replicas?;
    if current == 0 {
        return None;
    }
    let (i, m) = d.metrics.iter().enumerate().find(|(_, m)| m.winner)?;
    let calc = m.calculation.as_ref()?;
    let level = m.proposed_replicas.unwrap_or(current);
    let tol = &d.tolerance;
    let (name, unit) = metric_identity(input, d, i, m);
    let mm = metric_model(calc, input, unit);
    let mut details = serde_json::Map::new();
    details.insert("metricIndex".into(), json!(i));
    let message = match calc {
        Calculation::PodAverage {
            rebalance: Some(_),
            unready_pods,
            missing_pods,
            ..
        } => format!(
            "{name} (the deciding metric) is at {} and proposes {level} after the controller re-computed it with assumed values for {unready_pods} unready and {missing_pods} missing pods, so its next thresholds depend on those pods too",
            (mm.fmt)(mm.now, Edge::Now)
        ),
        _ => {
            let thresholds = thresholds_from(current, level, mm.now, mm.model, tol);
            let parts = threshold_phrases(input, level, thresholds, &mm.fmt, &mut details);
            format!(
                "{name} (the deciding metric) is at {} and proposes {level}; it would propose {}{}",
                (mm.fmt)(mm.now, Edge::Now),
                parts.join("; "),
                mm.caveat
            )
        }
    };
    let window = d
        .normalization
        .as_ref()
        .map(|n| n.stabilization.scale_down_window_seconds)
        .unwrap_or(input.settings.downscale_stabilization.as_secs());
    Some(Finding {
        details: Some(Value::Object(details)),
        ..finding(
            "next-scale",
            Severity::Info,
            message,
            format!("these are the values at which this metric's proposal moves by one replica (tolerance band {:.3}–{:.3}); a scale-down also needs every other metric to agree and waits out the {window}s stabilization window", tol.band()[0], tol.band()[1]),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tol(t: f64) -> Tolerances {
        Tolerances {
            down: t,
            up: t,
            legacy_abs: false,
            source: "test",
        }
    }

    fn run_example(file: &str, name: &str) -> Vec<Finding> {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("examples")
            .join(file);
        let text = std::fs::read_to_string(&path).expect("example");
        let doc: Value = serde_yaml::from_str(&text).expect("yaml");
        let extras = Extras::from_list(&doc);
        let snap = Snapshot::from_owned(doc, file).expect("snapshot");
        let now = "2026-03-01T12:00:00Z".parse().expect("time");
        let input = snap
            .input_for(
                "shop",
                name,
                crate::core::Settings::for_version(crate::core::KubeVersion::NEWEST),
                crate::core::History::default(),
                now,
            )
            .expect("input");
        let d = crate::core::evaluate(&input);
        diagnose(&snap, &input, &d, &extras)
    }

    fn ids(f: &[Finding]) -> Vec<&str> {
        f.iter().map(|f| f.id.as_str()).collect()
    }

    #[test]
    fn an_injected_sidecar_without_a_request_is_named_with_its_image() {
        let f = run_example("sidecar-without-cpu-request.yaml", "reviews");
        let m = f
            .iter()
            .find(|f| f.id == "missing-request")
            .expect("finding");
        assert_eq!(m.severity, Severity::Error);
        assert!(m.message.contains("istio-proxy"), "{}", m.message);
        assert!(
            m.message.contains("image docker.io/istio/proxyv2"),
            "{}",
            m.message
        );
        assert!(m.message.contains("injected by Istio"), "{}", m.message);
        assert!(
            m.action.contains("sidecar.istio.io/proxyCPU"),
            "{}",
            m.action
        );
    }

    #[test]
    fn memory_driving_a_scale_up_is_flagged() {
        let f = run_example("statefulset-memory.yaml", "session-cache");
        assert!(ids(&f).contains(&"memory-scale-up"), "{:?}", ids(&f));
    }

    #[test]
    fn next_scale_gives_the_utilization_for_one_more_and_one_less() {
        // scale-up-cpu: 3 pods at 83 % for a 50 % target propose 5; from there, 6 needs
        // ceil(util/50 × 3) ≥ 6 → util ≥ 84 %, and 4 needs util/50 × 3 ≤ 4 → util ≤ 66 %.
        let f = run_example("scale-up-cpu.yaml", "web");
        let n = f.iter().find(|f| f.id == "next-scale").expect("next-scale");
        let d = n.details.as_ref().expect("details");
        assert_eq!(d["scaleUpAt"], 84);
        assert_eq!(d["scaleDownAt"], 66);
        assert!(n.message.contains("is at 83%"), "{}", n.message);
        assert!(n.message.contains("6 if it reaches 84%"), "{}", n.message);
        assert!(n.message.contains("4 if it falls to 66%"), "{}", n.message);
        assert!(ids(&f).iter().all(|i| *i == "next-scale"), "{:?}", ids(&f));
    }

    #[test]
    fn utilization_thresholds_follow_the_controller_rules() {
        // target 50 %, 4 pods at 4 replicas, tolerance 0.1:
        // up: util/50 > 1.1 and ceil(util/50 × 4) ≥ 5 → util ≥ 56 (55/50 = 1.1 holds).
        // down: util/50 < 0.9 and ceil(util/50 × 4) ≤ 3 → util/50 ≤ 0.75 → util ≤ 37.
        let (up, down) = thresholds(
            4,
            ProposalModel::Ratio {
                pods: 4.0,
                denom: 50.0,
            },
            &tol(0.1),
        );
        assert_eq!(up, Some(56));
        assert_eq!(down, Some(37));
    }

    #[test]
    fn many_pods_make_the_tolerance_the_bound() {
        // 20 pods: (n-1)/n = 0.95 is above 0.9, so the tolerance decides the way down.
        let (up, down) = thresholds(
            20,
            ProposalModel::Ratio {
                pods: 20.0,
                denom: 50.0,
            },
            &tol(0.1),
        );
        assert_eq!(up, Some(56));
        // util/50 < 0.9 → util ≤ 44
        assert_eq!(down, Some(44));
    }

    #[test]
    fn one_pod_cannot_scale_down_below_one() {
        let (up, down) = thresholds(
            1,
            ProposalModel::Ratio {
                pods: 1.0,
                denom: 80.0,
            },
            &tol(0.1),
        );
        // 88/80 = 1.1 holds
        assert_eq!(up, Some(89));
        // only no usage at all proposes 0 (and minReplicas ≥ 1 holds it at 1)
        assert_eq!(down, Some(0));
    }

    #[test]
    fn average_value_object_metrics_use_ceil_of_value_over_target() {
        // target 100 (milli) per pod, status.replicas 3, current 3:
        // up needs total/(300) > 1.1 and ceil(total/100) ≥ 4 → total ≥ 331.
        // down needs total/300 < 0.9 and ceil(total/100) ≤ 2 → total ≤ 200.
        let (up, down) = thresholds(
            3,
            ProposalModel::AverageValue {
                target: 100,
                status_replicas: 3,
            },
            &tol(0.1),
        );
        assert_eq!(up, Some(331));
        assert_eq!(down, Some(200));
    }

    #[test]
    fn fewer_ready_pods_than_replicas_raise_the_bar() {
        // 5 replicas, 3 ready: up needs util/50 × 3 > 5 → util > 83.3 → 84.
        let (up, _) = thresholds(
            5,
            ProposalModel::Ratio {
                pods: 3.0,
                denom: 50.0,
            },
            &tol(0.1),
        );
        assert_eq!(up, Some(84));
    }

    #[test]
    fn the_missing_request_travels_as_a_fact() {
        let found = run_example("sidecar-without-cpu-request.yaml", "reviews");
        let f = found
            .iter()
            .find(|f| f.id == "missing-request")
            .expect("a missing-request finding");
        let d = f.details.as_ref().expect("details");
        assert_eq!(d["resource"], "cpu");
        assert_eq!(d["container"], "istio-proxy");
        assert_eq!(d["pods"].as_array().map(Vec::len), Some(3));
    }

    #[test]
    fn injected_sidecars_are_recognised() {
        assert_eq!(injected_by("istio-proxy"), Some("Istio"));
        assert_eq!(injected_by("linkerd-proxy"), Some("Linkerd"));
        assert_eq!(injected_by("app"), None);
    }

    #[test]
    fn ownership_by_replica_set_name_or_list() {
        let x = Extras::default();
        let rs = |n: &str| Some(("ReplicaSet".to_string(), n.to_string()));
        assert!(owned_by_target(
            &rs("web-6d8f7b9c54"),
            "Deployment",
            "web",
            "shop",
            &x
        ));
        assert!(!owned_by_target(
            &rs("web-canary-6d8f7b9c54"),
            "Deployment",
            "web",
            "shop",
            &x
        ));
        assert!(!owned_by_target(&None, "Deployment", "web", "shop", &x));
        let x = Extras {
            replica_sets: vec![ReplicaSetInfo {
                namespace: "shop".into(),
                name: "web-canary-1".into(),
                owner: Some(("Deployment".into(), "web".into())),
                spec_replicas: 1,
            }],
            ..Default::default()
        };
        assert!(owned_by_target(
            &rs("web-canary-1"),
            "Deployment",
            "web",
            "shop",
            &x
        ));
        let ss = Some(("StatefulSet".to_string(), "db".to_string()));
        assert!(owned_by_target(&ss, "StatefulSet", "db", "shop", &x));
    }

    #[test]
    fn metrics_apiservice_states() {
        assert_eq!(MetricsApi::from_apiservice(None), MetricsApi::Absent);
        let down = json!({"status": {"conditions": [{"type": "Available", "status": "False", "reason": "FailedDiscoveryCheck", "message": "no response"}]}});
        assert_eq!(
            MetricsApi::from_apiservice(Some(&down)),
            MetricsApi::Unavailable {
                reason: "FailedDiscoveryCheck".into(),
                message: "no response".into()
            }
        );
        let up = json!({"status": {"conditions": [{"type": "Available", "status": "True"}]}});
        assert_eq!(
            MetricsApi::from_apiservice(Some(&up)),
            MetricsApi::Available
        );
    }

    #[test]
    fn extras_read_replica_sets_deployments_and_the_apiservice() {
        let doc = json!({"apiVersion": "v1", "kind": "List", "items": [
            {"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {"name": "web-1", "namespace": "shop",
              "ownerReferences": [{"kind": "Deployment", "name": "web", "controller": true}]}, "spec": {"replicas": 2}},
            {"apiVersion": "v1", "kind": "List", "items": [
                {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "namespace": "shop"},
                 "spec": {"replicas": 3}, "status": {"replicas": 4, "updatedReplicas": 1}}]},
            {"apiVersion": "apiregistration.k8s.io/v1", "kind": "APIService", "metadata": {"name": "v1beta1.metrics.k8s.io"},
             "status": {"conditions": [{"type": "Available", "status": "False", "reason": "MissingEndpoints", "message": "x"}]}}
        ]});
        let x = Extras::from_list(&doc);
        assert_eq!(x.replica_sets.len(), 1);
        assert_eq!(
            x.replica_sets[0].owner,
            Some(("Deployment".into(), "web".into()))
        );
        assert_eq!(x.deployments[0].updated_replicas, Some(1));
        assert!(matches!(
            x.metrics_api,
            Some(MetricsApi::Unavailable { .. })
        ));
    }
}
