//! The annotations a snapshot's List carries (written by `kubectl hpa snapshot` and the live
//! fetch) and the keys of its recorded fetch errors.

use std::collections::BTreeMap;

use serde_json::Value;

use super::item::Item;

/// Annotation on the List's metadata recording when a snapshot was taken.
pub const TAKEN_AT_ANNOTATION: &str = "kubectl-hpa.dev/taken-at";
/// Annotation on a fetched List: the API server's `gitVersion` (context only).
pub const SERVER_VERSION_ANNOTATION: &str = "kubectl-hpa.dev/server-version";
/// Annotation on a List written by `kubectl hpa snapshot NAME`: the one HPA it was taken for
/// (`namespace/name`). Such a file holds the namespace's other HPAs (the controller's
/// ambiguity check reads them) but not their targets, pods or metrics: a fleet replay lists
/// only what the file can answer ([`crate::snapshot::Snapshot::answers_for`]).
pub const TAKEN_FOR_ANNOTATION: &str = "kubectl-hpa.dev/taken-for";
/// Annotation on a fetched List: where it was fetched from (context only).
pub const SOURCE_ANNOTATION: &str = "kubectl-hpa.dev/source";

/// Annotation on the List's metadata recording the API calls that failed while the snapshot was
/// taken: a JSON object from source key to the error as the controller's metrics client words it.
///
/// Keys: `scale` (the target's scale subresource), `resource-metrics` (metrics.k8s.io),
/// `pods-metric/<metric>`, `object-metric/<kind>/<name>/<metric>`, `external-metric/<metric>`.
/// Values: `unable to fetch metrics from resource metrics API: <api error>` and the like
/// (for `scale`, the API error itself).
pub const FETCH_ERRORS_ANNOTATION: &str = "kubectl-hpa.dev/fetch-errors";

/// List annotation: which of the fetch errors are our own failures (throttled, failed,
/// timed-out, unreadable or denied requests of this tool), not what the controller would meet:
/// a JSON object from fetch-errors key to a few words (`pods.metrics.k8s.io (429 Too Many
/// Requests)`). Files without it hold only the controller's failures.
pub const OWN_FAILURES_ANNOTATION: &str = "kubectl-hpa.dev/own-fetch-failures";

/// The key of the fetch error of HPA `namespace/name`'s target (its scale could not be read).
/// Files written before per-HPA keys use `scale` for the HPA the file was taken for.
pub fn scale_error_key(namespace: &str, name: &str) -> String {
    format!("scale/{namespace}/{name}")
}

/// The key that records that the server said HPA `namespace/name`'s target does not exist
/// (value: `Kind namespace/name`).
pub fn scale_not_found_key(namespace: &str, name: &str) -> String {
    format!("scale-not-found/{namespace}/{name}")
}

/// The key of a fetch error for a Pods metric.
pub fn pods_metric_key(metric: &str) -> String {
    format!("pods-metric/{metric}")
}

/// The key of a fetch error for an Object metric.
pub fn object_metric_key(kind: &str, name: &str, metric: &str) -> String {
    format!("object-metric/{kind}/{name}/{metric}")
}

/// The key of a fetch error for an External metric.
pub fn external_metric_key(metric: &str) -> String {
    format!("external-metric/{metric}")
}

/// The List's own annotations (string values only).
pub(super) fn list_annotations(doc: &Item<'_>) -> BTreeMap<String, String> {
    #[derive(serde::Deserialize, Default)]
    struct Top {
        #[serde(default)]
        metadata: Option<TopMeta>,
    }
    #[derive(serde::Deserialize, Default)]
    struct TopMeta {
        #[serde(default)]
        annotations: Option<BTreeMap<String, Value>>,
    }
    let raw = match doc {
        Item::Owned(v) => v
            .pointer("/metadata/annotations")
            .and_then(Value::as_object)
            .map(|m| m.iter().map(|(k, v)| (k.clone(), v.clone())).collect()),
        Item::Raw(r) => serde_json::from_str::<Top>(r.get())
            .unwrap_or_default()
            .metadata
            .and_then(|m| m.annotations),
    };
    raw.into_iter()
        .flatten()
        .filter_map(|(k, v)| v.as_str().map(|s| (k, s.to_string())))
        .collect()
}
