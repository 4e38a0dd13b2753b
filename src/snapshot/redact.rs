//! `kubectl hpa snapshot --redact`: remove what a bug report must not leak while the replay
//! gives the same decision. Replaced: environment values and references, commands and
//! arguments, image names, annotations other than the ones explain reads (the List's
//! `kubectl-hpa.dev/*`, an HPA's `autoscaling.alpha.kubernetes.io/*`), label values under keys
//! no selector in the file reads (an HPA's own labels are kept), pod and host IPs, the messages
//! of Events about anything but an HPA, `managedFields`, and the List's `kubectl-hpa.dev/source`
//! (the server's address). Names are kept: the replay needs them.

use std::collections::BTreeSet;

use serde_json::{json, Value};

use super::convert::ROUND_TRIP_ANNOTATIONS;
use crate::labels::{Requirement, Selector};

/// The List annotations explain reads (`kubectl-hpa.dev/source`, with the server's address,
/// is not one of them).
const READ_LIST_ANNOTATIONS: [&str; 4] = [
    super::TAKEN_AT_ANNOTATION,
    super::SERVER_VERSION_ANNOTATION,
    super::FETCH_ERRORS_ANNOTATION,
    super::OWN_FAILURES_ANNOTATION,
];

/// What replaces a redacted string.
pub const REDACTED: &str = "redacted";

/// Redact a snapshot List (or any object) in place.
pub fn redact(list: &mut Value) {
    let keys = selector_keys(list);
    redact_object(list, &keys);
}

/// Every label key a selector in the document reads (workload selectors, scale selectors,
/// Service selectors), so that the labels they match keep their values.
fn selector_keys(v: &Value) -> BTreeSet<String> {
    let mut keys = BTreeSet::new();
    collect_selector_keys(v, &mut keys);
    keys
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

/// Redact one object and its items.
fn redact_object(v: &mut Value, keys: &BTreeSet<String>) {
    let kind = v
        .get("kind")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_string();
    if let Some(items) = v.get_mut("items").and_then(Value::as_array_mut) {
        for item in items {
            redact_object(item, keys);
        }
    }
    if let Some(md) = v.get_mut("metadata").and_then(Value::as_object_mut) {
        md.remove("managedFields");
        if let Some(a) = md.get_mut("annotations").and_then(Value::as_object_mut) {
            a.retain(|k, _| {
                READ_LIST_ANNOTATIONS.contains(&k.as_str())
                    || (kind == "HorizontalPodAutoscaler"
                        && ROUND_TRIP_ANNOTATIONS.contains(&k.as_str()))
            });
        }
        if kind != "HorizontalPodAutoscaler" {
            redact_labels(md.get_mut("labels"), keys);
        }
    }
    if kind == "Event" {
        let about = v
            .pointer("/involvedObject/kind")
            .or_else(|| v.pointer("/regarding/kind"))
            .and_then(Value::as_str);
        if about != Some("HorizontalPodAutoscaler") {
            for k in ["message", "note"] {
                if v.get(k).is_some() {
                    v[k] = json!(REDACTED);
                }
            }
        }
    }
    for part in ["spec", "status"] {
        if let Some(p) = v.get_mut(part) {
            redact_workload_parts(p, keys);
        }
    }
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

/// Containers (env, commands, images), container statuses (images), IPs and pod templates,
/// wherever they are under a spec or status.
fn redact_workload_parts(v: &mut Value, keys: &BTreeSet<String>) {
    match v {
        Value::Object(m) => {
            for ip in ["podIP", "podIPs", "hostIP", "hostIPs"] {
                m.remove(ip);
            }
            for (k, child) in m.iter_mut() {
                match k.as_str() {
                    "containers" | "initContainers" | "ephemeralContainers" => {
                        for c in child.as_array_mut().into_iter().flatten() {
                            redact_container(c);
                        }
                    }
                    "containerStatuses"
                    | "initContainerStatuses"
                    | "ephemeralContainerStatuses" => {
                        for c in child.as_array_mut().into_iter().flatten() {
                            for f in ["image", "imageID"] {
                                if c.get(f).is_some() {
                                    c[f] = json!(REDACTED);
                                }
                            }
                        }
                    }
                    "template" => {
                        // A pod template's metadata: labels and annotations like a pod's.
                        if let Some(md) = child.get_mut("metadata").and_then(Value::as_object_mut) {
                            md.remove("annotations");
                            redact_labels(md.get_mut("labels"), keys);
                        }
                        redact_workload_parts(child, keys);
                    }
                    _ => redact_workload_parts(child, keys),
                }
            }
        }
        Value::Array(a) => a.iter_mut().for_each(|c| redact_workload_parts(c, keys)),
        _ => {}
    }
}

fn redact_container(c: &mut Value) {
    let Some(m) = c.as_object_mut() else {
        return;
    };
    if m.contains_key("image") {
        m.insert("image".into(), json!(REDACTED));
    }
    for k in ["command", "args"] {
        if m.contains_key(k) {
            m.insert(k.into(), json!([REDACTED]));
        }
    }
    if let Some(env) = m.get_mut("env").and_then(Value::as_array_mut) {
        for e in env {
            if let Some(o) = e.as_object_mut() {
                o.remove("valueFrom");
                o.insert("value".into(), json!(REDACTED));
            }
        }
    }
    if m.contains_key("envFrom") {
        m.insert("envFrom".into(), json!([]));
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
             "status": {"podIP": "10.1.2.3", "containerStatuses": [{"name": "app", "image": "registry.example.com/web:1.2"}]}}
        ]});
        redact(&mut list);
        let text = list.to_string();
        for secret in [
            "payments",
            "alice@example.com",
            "registry.example.com",
            "hunter2",
            "abc123",
            "s3cr3t",
            "10.1.2.3",
        ] {
            assert!(!text.contains(secret), "{secret} remains: {text}");
        }
        assert_eq!(list["items"][1]["metadata"]["labels"]["app"], "web");
        assert_eq!(list["items"][0]["metadata"]["name"], "web");
        assert!(text.contains("kubectl-hpa.dev/taken-at"));
    }
}
