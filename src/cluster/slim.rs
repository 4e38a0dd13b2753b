//! Live LIST items reduced, as each page arrives, to what the snapshot reads: a Pod becomes
//! [`crate::snapshot::wire::Pod`] (names, labels, owners, requests, phase, start time, the
//! Ready condition — the only one the snapshot reads) — its managedFields, annotations (a `last-applied-configuration` can be many
//! KB), env, probes, volumes and container statuses are dropped before the next page is
//! read, so a LIST of 10,000 pods is never held whole. The snapshot, `kubectl hpa snapshot`'s
//! file and the decision are the same as from the whole pods: the fields dropped are ones the
//! evaluation never reads.

use serde::Deserialize;
use serde_json::Value;

use crate::snapshot::wire::Pod;

/// Reduce one Pod of a LIST to the fields the snapshot reads. A pod the snapshot could not
/// read is kept whole, so the snapshot reports it in its own words.
pub fn pod(v: &mut Value) {
    let Ok(mut typed) = Pod::deserialize(&*v) else {
        return;
    };
    if let Some(cs) = typed.status.as_mut().and_then(|s| s.conditions.as_mut()) {
        cs.retain(|c| c.type_ == "Ready");
    }
    let Ok(mut slim) = serde_json::to_value(typed) else {
        return;
    };
    drop_nulls(&mut slim);
    if let (Some(o), Some(whole)) = (slim.as_object_mut(), v.as_object()) {
        for k in ["apiVersion", "kind"] {
            if let Some(t) = whole.get(k) {
                o.insert(k.into(), t.clone());
            }
        }
    }
    *v = slim;
}

/// Remove the `null`s an `Option::None` serializes to (absent, as the server wrote it).
fn drop_nulls(v: &mut Value) {
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
    use serde_json::json;

    #[test]
    fn a_pod_keeps_what_the_snapshot_reads_and_nothing_else() {
        let mut p = json!({"apiVersion": "v1", "kind": "Pod",
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
        pod(&mut p);
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
        let mut p = json!({"kind": "Pod", "metadata": {"name": "x"},
            "spec": {"containers": "not a list"}});
        let before = p.clone();
        pod(&mut p);
        assert_eq!(p, before);
    }
}
