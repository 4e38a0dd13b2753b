//! Live LIST items reduced, as each page arrives, to what the snapshot reads: a Pod is read
//! from its JSON text straight into [`crate::snapshot::wire::Pod`]'s fields (names, labels,
//! owners, requests, phase, start time, the Ready condition — the only one the snapshot
//! reads). Its managedFields, annotations (a `last-applied-configuration` can be many KB),
//! env, probes, volumes and container statuses are skipped, never built, and the page's text
//! is dropped before the next page is read, so a LIST of 10,000 pods is never held whole.
//! The snapshot, `kubectl hpa snapshot`'s file and the decision are the same as from the
//! whole pods: the fields skipped are ones the evaluation never reads.

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::Value;

use super::obj::Obj;
use crate::snapshot::wire::{Meta, PodSpec, PodStatus};

/// [`crate::snapshot::wire::Pod`] with the type fields an item may carry: read straight from
/// the item's text, everything else skipped unbuilt.
#[derive(Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
struct SlimPod {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    api_version: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    kind: Option<String>,
    #[serde(default)]
    metadata: Meta,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    spec: Option<PodSpec>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    status: Option<PodStatus>,
}

/// One Pod of a LIST reduced to the fields the snapshot reads, its apiVersion and kind set
/// where it has none (as [`super::obj::with_type`] sets them, in the same read). A pod the
/// snapshot could not read is kept whole, so the snapshot reports it in its own words.
pub fn pod(raw: &RawValue, (api_version, kind): (&str, &str)) -> serde_json::Result<Obj> {
    let Ok(mut typed) = crate::snapshot::from_json_maps_only::<SlimPod>(raw.get()) else {
        return super::obj::with_type(raw.to_owned().into(), (api_version, kind));
    };
    if !kind.is_empty() {
        // A `null` reads as None: set, as `with_type` sets it.
        typed.api_version.get_or_insert_with(|| api_version.into());
        typed.kind.get_or_insert_with(|| kind.into());
    }
    if let Some(cs) = typed.status.as_mut().and_then(|s| s.conditions.as_mut()) {
        cs.retain(|c| c.type_ == "Ready");
    }
    // perf: written straight from the typed fields, whose order and `skip_serializing_if`
    // give the text a `Value` would (sorted keys, no nulls; see the test): −9% of `explain
    // -A`'s instructions per context (`cargo bench --bench fleet`).
    // perf: `to_raw_value` keeps the text serde_json wrote without reading it back to check it.
    let text = serde_json::value::to_raw_value(&typed)?;
    // perf: the head the text will be read for is known here (see `Obj::text_head`), and so
    // are the fields the snapshot would read the text back into (`Obj::typed_pod`): five
    // contexts of 500 HPAs, callgrind 1,424 M → 1,351 M instructions (−5.1%).
    let head = crate::snapshot::TextHead {
        api_version: typed.api_version,
        kind: typed.kind,
        namespace: typed.metadata.namespace.clone(),
        name: typed.metadata.name.clone(),
        labels: None,
    };
    let pod = crate::snapshot::Pod {
        metadata: typed.metadata,
        spec: typed.spec,
        status: typed.status,
    };
    Ok(Obj::typed_pod(text, head, pod))
}

/// The kube-controller-manager Pod reduced to its name and labels and, of each container, its
/// name and the words of its command line the snapshot reads (`--horizontal-pod-autoscaler-*`
/// and `--feature-gates`, with a value given as the next word): its other flags (file paths,
/// addresses) are not kept.
pub fn controller_pod(raw: &RawValue, item_type: (&str, &str)) -> serde_json::Result<Obj> {
    let v: Value = serde_json::from_str(raw.get())?;
    let kept = |words: &Value| -> Vec<Value> {
        let words: Vec<&str> = words
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect();
        let read = |w: &str| {
            let w = w.trim_start_matches('-');
            w.starts_with("horizontal-pod-autoscaler-") || w.starts_with("feature-gates")
        };
        let mut out = Vec::new();
        for (i, w) in words.iter().enumerate() {
            if w.starts_with('-') && read(w) {
                out.push(Value::from(*w));
                match words.get(i + 1) {
                    Some(next) if !w.contains('=') && !next.starts_with('-') => {
                        out.push(Value::from(*next))
                    }
                    _ => {}
                }
            }
        }
        out
    };
    let containers: Vec<Value> = v
        .pointer("/spec/containers")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|c| {
            serde_json::json!({"name": c["name"], "command": kept(&c["command"]), "args": kept(&c["args"])})
        })
        .collect();
    let slim = serde_json::json!({
        "metadata": {
            "name": v.pointer("/metadata/name"),
            "namespace": v.pointer("/metadata/namespace"),
            "labels": v.pointer("/metadata/labels"),
        },
        "spec": {"containers": containers},
    });
    super::obj::with_type(super::obj::of_value(&slim), item_type)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::snapshot::wire::Pod;
    use serde_json::json;

    #[test]
    fn a_pod_is_written_as_its_value_would_be_sorted_keys_and_no_nulls() {
        let pods = [
            json!({"apiVersion": "v1", "kind": "Pod",
                "metadata": {"uid": "u1", "namespace": "shop", "name": "web-1", "labels": {"b": "2", "a": "1"},
                    "deletionTimestamp": "2026-03-01T09:00:00Z",
                    "annotations": {"kubernetes.io/limit-ranger": "LimitRanger plugin set: cpu request for container app", "other": "x"},
                    "ownerReferences": [{"uid": "y", "name": "web-5d", "kind": "ReplicaSet", "controller": true, "apiVersion": "apps/v1"}]},
                "spec": {"resources": {"requests": {"memory": "1Gi", "cpu": "1"}}, "overhead": {"cpu": "10m"},
                    "initContainers": [{"restartPolicy": "Always", "name": "side", "image": "s",
                        "resources": {"requests": {"cpu": "50m"}}}],
                    "containers": [{"resources": {}, "name": "app"}, {"name": "b", "image": "i"}]},
                "status": {"startTime": "2026-03-01T08:00:00Z", "phase": "Running",
                    "conditions": [{"type": "Ready", "status": "False"},
                                   {"lastTransitionTime": "2026-03-01T08:01:00Z", "type": "PodScheduled", "status": "True"}]}}),
            json!({"metadata": {"name": "bare"}}),
            json!({"kind": "Pod", "metadata": {"name": "n", "ownerReferences": [{"name": "x"}]}, "spec": {}, "status": {}}),
        ];
        for p in pods {
            let text = p.to_string();
            let raw: &RawValue = serde_json::from_str(&text).expect("raw");
            let mut typed =
                crate::snapshot::from_json_maps_only::<SlimPod>(raw.get()).expect("typed");
            typed.api_version.get_or_insert_with(|| "v1".into());
            typed.kind.get_or_insert_with(|| "Pod".into());
            if let Some(cs) = typed.status.as_mut().and_then(|s| s.conditions.as_mut()) {
                cs.retain(|c| c.type_ == "Ready");
            }
            let mut reference = serde_json::to_value(&typed).expect("value");
            crate::snapshot::redact::drop_nulls(&mut reference);
            assert_eq!(
                pod(raw, ("v1", "Pod")).expect("pod").get(),
                reference.to_string(),
                "{p}"
            );
        }
    }

    fn slim(v: &Value) -> Value {
        let text = v.to_string();
        let raw: &RawValue = serde_json::from_str(&text).expect("raw");
        crate::cluster::obj::to_value(&pod(raw, ("v1", "Pod")).expect("pod"))
    }

    #[test]
    fn a_pod_keeps_what_the_snapshot_reads_and_nothing_else() {
        let p = json!({"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": "web-1", "namespace": "shop", "labels": {"app": "web"},
                "annotations": {"kubectl.kubernetes.io/last-applied-configuration": "x".repeat(4096)},
                "managedFields": [{"manager": "kubectl"}],
                "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web-5d", "uid": "u", "controller": true}]},
            "spec": {"containers": [{"name": "app", "image": "i", "env": [{"name": "A", "value": "1"}],
                "resources": {"requests": {"cpu": "100m"}}}], "volumes": [{"name": "v"}]},
            "status": {"phase": "Running", "startTime": "2026-03-01T08:00:00Z",
                "conditions": [{"type": "PodScheduled", "status": "True", "lastTransitionTime": "2026-03-01T08:00:00Z"},
                               {"type": "Ready", "status": "True", "lastTransitionTime": "2026-03-01T08:01:00Z"}],
                "containerStatuses": [{"name": "app"}]}});
        let mut whole: Pod = serde_json::from_value(p.clone()).expect("pod");
        let p = slim(&p);
        // The same pod as the snapshot reads it, but for the conditions besides Ready.
        if let Some(cs) = whole.status.as_mut().and_then(|s| s.conditions.as_mut()) {
            cs.remove(0);
        }
        assert_eq!(p["status"]["conditions"].as_array().map(Vec::len), Some(1));
        assert_eq!(
            serde_json::from_value::<Pod>(p.clone()).expect("slim"),
            whole
        );
        let text = p.to_string();
        for gone in [
            "managedFields",
            "annotations",
            "env",
            "volumes",
            "containerStatuses",
            "null",
        ] {
            assert!(!text.contains(gone), "{gone} in {text}");
        }
        assert_eq!(p["kind"], "Pod");
        assert_eq!(p["metadata"]["ownerReferences"][0]["name"], "web-5d");
    }

    #[test]
    fn a_pod_the_snapshot_cannot_read_is_kept_whole() {
        for p in [
            json!({"kind": "Pod", "metadata": {"name": "x"}, "spec": {"containers": "not a list"}}),
            // Not read positionally (a pod without a name, gone from the count).
            json!({"kind": "Pod", "metadata": ["x"]}),
        ] {
            let mut typed = p.clone();
            typed["apiVersion"] = json!("v1");
            assert_eq!(slim(&p), typed);
        }
    }

    #[test]
    fn a_pod_is_typed_as_with_type_types_a_whole_item() {
        let whole = |v: &Value| {
            let o = crate::cluster::obj::of_value(v);
            crate::cluster::obj::to_value(
                &crate::cluster::obj::with_type(o, ("v1", "Pod")).expect("typed"),
            )
        };
        for p in [
            json!({"metadata": {"name": "a"}}),
            json!({"apiVersion": null, "kind": "Pod", "metadata": {"name": "a"}}),
            json!({"apiVersion": "v9", "kind": "Other", "metadata": {"name": "a"}}),
        ] {
            let s = slim(&p);
            assert_eq!(
                (&s["apiVersion"], &s["kind"]),
                (&whole(&p)["apiVersion"], &whole(&p)["kind"]),
                "{p}"
            );
        }
        assert_eq!(slim(&json!({"metadata": {}}))["kind"], "Pod");
    }
}
