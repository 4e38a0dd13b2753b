//! `kubectl hpa snapshot --redact` (and `--redact --snapshot FILE` for a file already taken):
//! every object is reduced to what the replay reads, so that a bug report leaks nothing while
//! the replay gives the same decision. What is kept is listed, never what is removed:
//!
//! * HPAs: `spec` and `status` (the controller's own condition messages), name, namespace,
//!   uid, generation, resourceVersion, labels and the `autoscaling.alpha.kubernetes.io/*`
//!   annotations an older version's conversion reads.
//! * Deployments, StatefulSets, ReplicaSets: replicas, selector, status replicas, owner — as the
//!   scale subresource reads them; the pod template goes whole (probes, env, commands, volumes,
//!   host aliases, DNS settings).
//! * Pods: as the live fetch keeps them — names, owners, requests, restart policies, phase,
//!   start time, conditions without messages; images become `redacted`; IPs, node names, env,
//!   probes, volumes and statuses of containers go.
//! * Metrics: values, timestamps, windows; external metric labels only under keys a selector
//!   of the file reads.
//! * Events: what the rescale history reads (subject, reason, type, counts, times); the message
//!   only of an HPA's `SuccessfulRescale` (the controller's own words), `redacted` otherwise;
//!   hosts, reporting instances and sources go.
//!   The message of a `FailedScheduling` (the nodes' count and reasons) and of a quota's
//!   `FailedCreate` (the quota's name and numbers) is kept as read, without the pod's name.
//! * ResourceQuotas (hard, used, scopes), LimitRanges (limits), PodDisruptionBudgets
//!   (minAvailable, maxUnavailable, selector, health counts), VerticalPodAutoscalers (targetRef,
//!   updatePolicy, resourcePolicy): names and those fields.
//! * The kube-controller-manager Pod: its name and component label and, of each container, the
//!   `--horizontal-pod-autoscaler-*` and `--feature-gates` flags only.
//! * APIServices: name and the conditions' type, status and reason (the message is
//!   `redacted`: it names the service's address).
//! * Any other object the reader keeps (Services, Endpoints, custom-resource targets…): kind,
//!   names and owners, and a custom resource's `spec.replicas` and `spec.selector`.
//! * The metrics chain (`chain.rs`): a prometheus-adapter rules ConfigMap keeps only its rules
//!   keys; an adapter Deployment its containers' names, images without their registry,
//!   `--config` arguments and mounts, and its ConfigMap volumes; an APIService `spec.service`.
//! * Objects the replay does not read (other ConfigMaps, Secrets…) are dropped.
//!
//! Everywhere, label values under keys no selector of the file reads become `redacted`, and the
//! List keeps only the annotations explain reads (not `kubectl-hpa.dev/source`, the server's
//! address). Names are kept: the replay needs them.

use std::collections::BTreeSet;

use serde::{de::DeserializeOwned, Serialize};
use serde_json::{json, Map, Value};

use super::convert::ROUND_TRIP_ANNOTATIONS;
use super::item::Item;
use super::wire::{AppsWorkload, Pod};
use crate::labels::{Requirement, Selector};
use crate::metrics_api::{ExternalMetricValue, MetricValue, PodMetrics};

/// The List annotations explain reads (`kubectl-hpa.dev/source`, with the server's address,
/// is not one of them).
const READ_LIST_ANNOTATIONS: [&str; 5] = [
    super::annotations::TAKEN_AT_ANNOTATION,
    super::annotations::TAKEN_FOR_ANNOTATION,
    super::annotations::SERVER_VERSION_ANNOTATION,
    super::annotations::FETCH_ERRORS_ANNOTATION,
    super::annotations::OWN_FAILURES_ANNOTATION,
];

/// What replaces a redacted string.
pub const REDACTED: &str = "redacted";

/// The fields of an Event the rescale history and the event index read.
const EVENT_FIELDS: [&str; 11] = [
    "apiVersion",
    "kind",
    "reason",
    "type",
    "count",
    "firstTimestamp",
    "lastTimestamp",
    "eventTime",
    "deprecatedCount",
    "deprecatedFirstTimestamp",
    "deprecatedLastTimestamp",
];

/// An object that could not be reduced (the replay could not read it either).
pub type RedactError = super::error::SnapshotError;

/// Redact a snapshot List (or any object) in place (the unit tests).
#[cfg(test)]
pub fn redact(list: &mut Value) -> Result<(), RedactError> {
    redact_all(std::slice::from_mut(list))
}

/// Redact the documents of one snapshot (a `snapshot -A` file: one List per namespace); the
/// label keys kept are the ones any selector of any document reads.
pub fn redact_all(docs: &mut [Value]) -> Result<(), RedactError> {
    let mut keys = BTreeSet::new();
    docs.iter()
        .for_each(|d| collect_selector_keys(d, &mut keys));
    for d in docs.iter_mut() {
        *d = reduce(std::mem::take(d), &keys)?.unwrap_or(Value::Null);
    }
    Ok(())
}

fn collect_selector_keys(v: &Value, keys: &mut BTreeSet<String>) {
    match v {
        Value::Object(m) => {
            if let Some(sel) = m.get("selector") {
                match sel {
                    Value::String(s) => keys.extend(string_selector_keys(s)),
                    Value::Object(o) => {
                        let labels = o.get("matchLabels").and_then(Value::as_object);
                        let exprs = o.get("matchExpressions").and_then(Value::as_array);
                        if labels.is_none() && exprs.is_none() {
                            // A Service's plain map.
                            keys.extend(o.keys().cloned());
                        }
                        keys.extend(labels.into_iter().flat_map(|l| l.keys().cloned()));
                        keys.extend(
                            exprs
                                .into_iter()
                                .flatten()
                                .filter_map(|e| e.get("key")?.as_str().map(str::to_string)),
                        );
                    }
                    _ => {}
                }
            }
            for child in m.values() {
                collect_selector_keys(child, keys);
            }
        }
        Value::Array(a) => a.iter().for_each(|c| collect_selector_keys(c, keys)),
        _ => {}
    }
}

fn string_selector_keys(s: &str) -> Vec<String> {
    let Ok(sel) = Selector::parse(s) else {
        return vec![];
    };
    sel.requirements
        .into_iter()
        .map(|r| match r {
            Requirement::Equals(k, _)
            | Requirement::NotEquals(k, _)
            | Requirement::In(k, _)
            | Requirement::NotIn(k, _)
            | Requirement::Exists(k)
            | Requirement::DoesNotExist(k) => k,
        })
        .collect()
}

fn str_at<'v>(v: &'v Value, path: &str) -> &'v str {
    v.pointer(path).and_then(Value::as_str).unwrap_or_default()
}

/// One object reduced to what the replay reads (`None`: the replay does not read it).
fn reduce(v: Value, keys: &BTreeSet<String>) -> Result<Option<Value>, RedactError> {
    let api = str_at(&v, "/apiVersion").to_string();
    let kind = str_at(&v, "/kind").to_string();
    let ctx = format!(
        "cannot redact {kind} {}/{}",
        str_at(&v, "/metadata/namespace"),
        str_at(&v, "/metadata/name")
    );
    let chain = super::chain::redact_part(&v);
    let reduced = match (api.as_str(), kind.as_str()) {
        (_, "List") => Some(list(v, |i| reduce(i, keys))?),
        (_, "PodMetricsList") => Some(list(v, |i| typed::<PodMetrics>(i, &ctx, keys))?),
        (_, "MetricValueList") => Some(list(v, |i| typed::<MetricValue>(i, &ctx, keys))?),
        (_, "ExternalMetricValueList") => Some(list(v, |i| external(i, &ctx, keys))?),
        (_, "HorizontalPodAutoscaler") => Some(hpa(v, keys)),
        ("apps/v1", "Deployment" | "StatefulSet" | "ReplicaSet") => {
            typed::<AppsWorkload>(v, &ctx, keys)?
        }
        ("v1", "Pod") if super::controller_flags::of_pod(&v).is_some() => {
            Some(super::controller_flags::redacted(&v))
        }
        ("v1", "Pod") => typed::<Pod>(v, &ctx, keys)?.map(|mut p| {
            for c in ["containers", "initContainers"] {
                let cs = p.pointer_mut(&format!("/spec/{c}"));
                for c in cs.and_then(Value::as_array_mut).into_iter().flatten() {
                    if c.get("image").is_some() {
                        c["image"] = json!(REDACTED);
                    }
                }
            }
            p
        }),
        ("metrics.k8s.io/v1beta1", "PodMetrics") => typed::<PodMetrics>(v, &ctx, keys)?,
        ("autoscaling/v1", "Scale") => Some(scale(&v, keys)),
        ("v1" | "events.k8s.io/v1", "Event") => Some(event(&v)),
        ("apiregistration.k8s.io/v1", "APIService") => Some(apiservice(&v)),
        (a, k) if super::blockers::KINDS.contains(&(a, k)) => Some(blocker(&v, k, keys)),
        ("keda.sh/v1alpha1", "ScaledObject") => Some(super::keda::redact_scaled_object(&v)),
        _ => other(&v, keys),
    };
    Ok(super::chain::with_redacted(reduced, chain))
}

/// A List of any kind: its type, the annotations explain reads, its items reduced.
fn list(
    v: Value,
    mut item: impl FnMut(Value) -> Result<Option<Value>, RedactError>,
) -> Result<Value, RedactError> {
    let mut out = type_of(&v);
    let annotations: Map<String, Value> = v
        .pointer("/metadata/annotations")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
        .filter(|(k, _)| READ_LIST_ANNOTATIONS.contains(&k.as_str()))
        .map(|(k, a)| (k.clone(), a.clone()))
        .collect();
    if !annotations.is_empty() {
        out.insert("metadata".into(), json!({ "annotations": annotations }));
    }
    let mut items = Vec::new();
    if let Value::Object(mut m) = v {
        if let Some(Value::Array(a)) = m.remove("items") {
            for i in a {
                items.extend(item(i)?);
            }
        }
    }
    out.insert("items".into(), Value::Array(items));
    Ok(Value::Object(out))
}

/// `apiVersion` and `kind`, where the object has them.
fn type_of(v: &Value) -> Map<String, Value> {
    ["apiVersion", "kind"]
        .iter()
        .filter_map(|k| Some((k.to_string(), v.get(*k)?.clone())))
        .collect()
}

/// Read as the replay reads it (the fields it knows), written back; labels redacted.
fn typed<T: DeserializeOwned + Serialize>(
    v: Value,
    ctx: &str,
    keys: &BTreeSet<String>,
) -> Result<Option<Value>, RedactError> {
    let mut out = type_of(&v);
    let t: T = Item::Owned(v).typed(ctx)?;
    let written = serde_json::to_value(t).map_err(|e| super::error::err(format!("{ctx}: {e}")))?;
    if let Value::Object(m) = written {
        out.extend(m);
    }
    let mut out = Value::Object(out);
    drop_nulls(&mut out);
    if let Some(md) = out.get_mut("metadata") {
        redact_labels(md.get_mut("labels"), keys);
    }
    Ok(Some(out))
}

/// An ExternalMetricValue: its labels only under keys a selector reads.
fn external(v: Value, ctx: &str, keys: &BTreeSet<String>) -> Result<Option<Value>, RedactError> {
    let mut e: ExternalMetricValue = Item::Owned(v).typed(ctx)?;
    e.metric_labels.retain(|k, _| keys.contains(k));
    let mut out = serde_json::to_value(e).map_err(|e| super::error::err(format!("{ctx}: {e}")))?;
    drop_nulls(&mut out);
    Ok(Some(out))
}

/// An HPA: spec and status as they are, the metadata the replay reads.
fn hpa(v: Value, keys: &BTreeSet<String>) -> Value {
    let mut out = type_of(&v);
    let mut md = meta(&v, keys, true);
    let annotations: Map<String, Value> = v
        .pointer("/metadata/annotations")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
        .filter(|(k, _)| ROUND_TRIP_ANNOTATIONS.contains(&k.as_str()))
        .map(|(k, a)| (k.clone(), a.clone()))
        .collect();
    if !annotations.is_empty() {
        md.insert("annotations".into(), Value::Object(annotations));
    }
    out.insert("metadata".into(), Value::Object(md));
    if let Value::Object(mut m) = v {
        for part in ["spec", "status"] {
            if let Some(p) = m.remove(part) {
                out.insert(part.into(), p);
            }
        }
    }
    Value::Object(out)
}

/// The metadata every reader reads: names, uid, owners, deletion, labels (values under keys no
/// selector reads redacted, unless `own_labels`: an HPA's); an HPA's generation and version.
fn meta(v: &Value, keys: &BTreeSet<String>, own_labels: bool) -> Map<String, Value> {
    let mut md = Map::new();
    let Some(src) = v.get("metadata").and_then(Value::as_object) else {
        return md;
    };
    for k in [
        "name",
        "namespace",
        "uid",
        "generation",
        "resourceVersion",
        "deletionTimestamp",
        "labels",
    ] {
        if let Some(x) = src.get(k) {
            md.insert(k.into(), x.clone());
        }
    }
    if !own_labels {
        redact_labels(md.get_mut("labels"), keys);
    }
    if let Some(refs) = src.get("ownerReferences").and_then(Value::as_array) {
        let refs: Vec<Value> = refs
            .iter()
            .map(|r| pick(r, &["apiVersion", "kind", "name", "controller"]))
            .collect();
        md.insert("ownerReferences".into(), Value::Array(refs));
    }
    md
}

/// The fields `fields` of object `v` (those it has).
fn pick(v: &Value, fields: &[&str]) -> Value {
    Value::Object(
        fields
            .iter()
            .filter_map(|f| Some((f.to_string(), v.get(*f)?.clone())))
            .collect(),
    )
}

fn with_meta(v: &Value, keys: &BTreeSet<String>) -> Map<String, Value> {
    let mut out = type_of(v);
    out.insert("metadata".into(), Value::Object(meta(v, keys, false)));
    out
}

/// An `autoscaling/v1` Scale: its replicas and selector.
fn scale(v: &Value, keys: &BTreeSet<String>) -> Value {
    let mut out = with_meta(v, keys);
    for (part, fields) in [
        ("spec", &["replicas"][..]),
        ("status", &["replicas", "selector"][..]),
    ] {
        if let Some(p) = v.get(part) {
            out.insert(part.into(), pick(p, fields));
        }
    }
    Value::Object(out)
}

/// An Event: what the rescale history reads; the message only of an HPA's rescale.
fn event(v: &Value) -> Value {
    let mut out = Map::new();
    for f in EVENT_FIELDS {
        if let Some(x) = v.get(f) {
            out.insert(f.into(), x.clone());
        }
    }
    let names = ["name", "namespace"];
    out.insert("metadata".into(), pick(&v["metadata"], &names));
    for about in ["involvedObject", "regarding"] {
        if let Some(a) = v.get(about) {
            let a = pick(a, &["apiVersion", "kind", "name", "namespace", "uid"]);
            out.insert(about.into(), a);
        }
    }
    if let Some(s) = v.get("series") {
        out.insert("series".into(), pick(s, &["count", "lastObservedTime"]));
    }
    let own = str_at(v, "/reason") == "SuccessfulRescale"
        && ["/involvedObject/kind", "/regarding/kind"]
            .iter()
            .any(|p| str_at(v, p) == "HorizontalPodAutoscaler");
    for k in ["message", "note"] {
        if let Some(m) = v.get(k) {
            let read = m
                .as_str()
                .and_then(|m| super::blockers::redacted_message(str_at(v, "/reason"), m));
            out.insert(
                k.into(),
                match read {
                    _ if own => m.clone(),
                    Some(r) => json!(r),
                    None => json!(REDACTED),
                },
            );
        }
    }
    Value::Object(out)
}

/// An APIService: its name and conditions, the messages redacted.
fn apiservice(v: &Value) -> Value {
    let mut out = type_of(v);
    out.insert("metadata".into(), pick(&v["metadata"], &["name"]));
    let conditions: Vec<Value> = v
        .pointer("/status/conditions")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|c| {
            let mut c2 = pick(c, &["type", "status", "reason", "lastTransitionTime"]);
            if c.get("message").is_some() {
                c2["message"] = json!(REDACTED);
            }
            c2
        })
        .collect();
    if v.pointer("/status/conditions").is_some() {
        out.insert("status".into(), json!({ "conditions": conditions }));
    }
    Value::Object(out)
}

/// Any other object the reader keeps (a custom-resource target, a Service): its names and, for
/// one with a spec, `spec.replicas` and `spec.selector`. Objects without a name or a spec are
/// passed over by the reader (unless it keeps their kind), and dropped here.
fn other(v: &Value, keys: &BTreeSet<String>) -> Option<Value> {
    let kept =
        super::build::PASSIVE_KINDS.contains(&(str_at(v, "/apiVersion"), str_at(v, "/kind")));
    let spec = v.get("spec");
    if !kept && (spec.is_none() || str_at(v, "/metadata/name").is_empty()) {
        return None;
    }
    let mut out = with_meta(v, keys);
    if let Some(s) = spec {
        out.insert("spec".into(), pick(s, &["replicas", "selector"]));
    }
    Some(Value::Object(out))
}

/// A ResourceQuota, LimitRange, PodDisruptionBudget or VerticalPodAutoscaler: names and the
/// numbers, selectors and references its findings read.
fn blocker(v: &Value, kind: &str, keys: &BTreeSet<String>) -> Value {
    let mut out = with_meta(v, keys);
    let (spec, status) = super::blockers::kept_fields(kind);
    for (part, fields) in [("spec", spec), ("status", status)] {
        if let Some(p) = v.get(part) {
            out.insert(part.into(), pick(p, fields));
        }
    }
    Value::Object(out)
}

fn redact_labels(labels: Option<&mut Value>, keys: &BTreeSet<String>) {
    if let Some(l) = labels.and_then(Value::as_object_mut) {
        for (k, val) in l.iter_mut() {
            if !keys.contains(k) {
                *val = json!(REDACTED);
            }
        }
    }
}

/// Remove the `null`s an `Option::None` serializes to (also the reference the live pod
/// writer's test compares with, cluster/slim.rs).
pub fn drop_nulls(v: &mut Value) {
    match v {
        Value::Object(m) => {
            m.retain(|_, x| !x.is_null());
            m.values_mut().for_each(drop_nulls);
        }
        Value::Array(a) => a.iter_mut().for_each(drop_nulls),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn selected_labels_keep_their_values_and_secrets_go() {
        let mut list = json!({"apiVersion": "v1", "kind": "List",
            "metadata": {"annotations": {"kubectl-hpa.dev/taken-at": "2026-01-01T00:00:00Z"}},
            "items": [
            {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "labels": {"team": "payments"},
              "annotations": {"owner": "alice@example.com"}},
             "spec": {"selector": {"matchLabels": {"app": "web"}}, "template": {"metadata": {"labels": {"app": "web", "git": "abc123"}},
               "spec": {"containers": [{"name": "app", "image": "registry.example.com/web:1.2", "env": [{"name": "DB_PASSWORD", "value": "hunter2"}]}]}}}},
            {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web-1", "labels": {"app": "web", "git": "abc123"}},
             "spec": {"containers": [{"name": "app", "image": "registry.example.com/web:1.2", "args": ["--token=s3cr3t"]}]},
             "status": {"podIP": "10.1.2.3", "containerStatuses": [{"name": "app", "image": "registry.example.com/web:1.2"}]}},
            {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "db"}, "data": {"password": "aHVudGVyMg=="}}
        ]});
        redact(&mut list).unwrap();
        let text = list.to_string();
        for secret in [
            "payments",
            "alice@example.com",
            "registry.example.com",
            "hunter2",
            "abc123",
            "s3cr3t",
            "10.1.2.3",
            "aHVudGVyMg==",
        ] {
            assert!(!text.contains(secret), "{secret} remains: {text}");
        }
        assert_eq!(list["items"][1]["metadata"]["labels"]["app"], "web");
        assert_eq!(list["items"][0]["metadata"]["name"], "web");
        assert_eq!(list["items"].as_array().map(Vec::len), Some(2), "{text}");
        assert!(text.contains("kubectl-hpa.dev/taken-at"));
    }

    #[test]
    fn a_wrong_shape_is_an_error_not_a_leak() {
        let mut list = json!({"apiVersion": "v1", "kind": "List", "items": [
            {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": [{"env": "secret"}]}]});
        let e = redact(&mut list).unwrap_err();
        assert!(
            e.message.contains("cannot redact Pod /p: field spec"),
            "{e}"
        );
    }
}
