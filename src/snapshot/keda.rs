//! KEDA's objects in a snapshot: `keda.sh/v1alpha1` ScaledObjects, kept as JSON values (a
//! partial or odd object survives: `crate::keda` reads it leniently and notes what it cannot
//! read), looked up by namespace and name; the Events about them; why they could not be read
//! (the fetch-errors key [`SCALED_OBJECTS_ERROR_KEY`]); and what `--redact` keeps of them.
//!
//! Live and offline read the same: the live fetch writes the ScaledObjects of the scope into the
//! namespace's List like any object, and the reader keeps them here.

use serde_json::{json, Map, Value};

use super::build::Snapshot;
use super::error::SnapshotError;
use super::item::Item;

/// The ScaledObject's apiVersion.
pub const SCALED_OBJECT_API_VERSION: &str = "keda.sh/v1alpha1";
/// The ScaledObject's kind.
pub const SCALED_OBJECT_KIND: &str = "ScaledObject";
/// The fetch-errors key under which a List records why its namespace's ScaledObjects could not
/// be listed (403, 404 when KEDA's CRD is not installed), when an HPA there is KEDA's.
pub const SCALED_OBJECTS_ERROR_KEY: &str = "keda-scaledobjects";

/// Trigger metadata keys that carry the scaling target (besides the `activation…` keys), most
/// common first. `--redact` keeps these, the activation keys and [`METRIC_NAME_KEYS`].
pub const THRESHOLD_KEYS: &[&str] = &[
    "threshold",
    "targetValue",
    "value",
    "queueLength",
    "lagThreshold",
    "listLength",
    "messageCount",
    "targetPendingRequests",
    "desiredReplicas",
    "targetMetricValue",
    "targetQueryValue",
];

/// Trigger metadata keys that name the metric (kept by `--redact`).
pub const METRIC_NAME_KEYS: &[&str] = &["metricName", "metricType"];

/// Whether a trigger metadata key carries a threshold or an activation threshold.
pub fn is_threshold_key(key: &str) -> bool {
    key.starts_with("activation") || THRESHOLD_KEYS.contains(&key)
}

fn str_at<'v>(v: &'v Value, path: &str) -> &'v str {
    v.pointer(path).and_then(Value::as_str).unwrap_or_default()
}

fn is_scaled_object(v: &Value) -> bool {
    str_at(v, "/apiVersion") == SCALED_OBJECT_API_VERSION
        && str_at(v, "/kind") == SCALED_OBJECT_KIND
}

impl Snapshot {
    /// The HPAs of namespace `ns` whose `scaleTargetRef` is `kind`/`name`, in file order (by
    /// the snapshot's index: not a scan of every HPA per HPA).
    pub fn hpas_on_target<'a>(
        &'a self,
        ns: &str,
        kind: &str,
        name: &str,
    ) -> impl Iterator<Item = &'a k8s_openapi::api::autoscaling::v2::HorizontalPodAutoscaler> + 'a
    {
        let at: Vec<usize> = self
            .index()
            .hpas_by_target
            .get(&(ns.to_string(), kind.to_string(), name.to_string()))
            .cloned()
            .unwrap_or_default();
        at.into_iter().filter_map(move |i| self.hpas.get(i))
    }

    /// Keep a ScaledObject as it is (only a name is required: one without a spec is still
    /// KEDA's word that the HPA is generated).
    pub(super) fn add_scaled_object(
        &mut self,
        item: Item<'_>,
        ctx: &str,
    ) -> Result<(), SnapshotError> {
        let v = item.into_value(ctx)?;
        if str_at(&v, "/metadata/name").is_empty() {
            self.ignored.push(format!(
                "{SCALED_OBJECT_KIND} without a name ({SCALED_OBJECT_API_VERSION})"
            ));
            return Ok(());
        }
        self.other.push(v);
        Ok(())
    }

    /// The ScaledObjects of namespace `ns` (by the snapshot's index; written without a
    /// namespace: `default`).
    pub fn scaled_objects_in<'a>(&'a self, ns: &str) -> impl Iterator<Item = &'a Value> + 'a {
        let unnamespaced = (ns == "default").then(|| self.others_of(SCALED_OBJECT_KIND, ""));
        self.others_of(SCALED_OBJECT_KIND, ns)
            .chain(unnamespaced.into_iter().flatten())
            .filter(|v| is_scaled_object(v))
    }

    /// The ScaledObject `ns/name`, when the snapshot holds it.
    pub fn scaled_object(&self, ns: &str, name: &str) -> Option<&Value> {
        self.scaled_objects_in(ns)
            .find(|v| str_at(v, "/metadata/name") == name)
    }

    /// The Events about ScaledObject `ns/name`, oldest first as the snapshot holds them.
    pub fn scaled_object_events(&self, ns: &str, name: &str) -> Vec<&Value> {
        self.events_for(ns, name)
            .iter()
            .filter(|e| {
                ["/involvedObject/kind", "/regarding/kind"]
                    .iter()
                    .any(|p| str_at(e, p) == SCALED_OBJECT_KIND)
            })
            .collect()
    }

    /// Why the ScaledObjects of `ns` could not be listed, when the fetch recorded it.
    pub fn scaled_objects_error(&self, ns: &str) -> Option<&String> {
        self.errors_in(ns).get(SCALED_OBJECTS_ERROR_KEY)
    }
}

/// `--redact` of a ScaledObject: what KEDA's layer reads — names, the pause annotations, the
/// replica counts, cooldown, fallback, the HPA config, the triggers' type, name, metricType,
/// useCachedMetrics and their threshold, activation and metric-name metadata (every other
/// metadata value — addresses, queries, hosts — goes, and `authenticationRef` goes), and the
/// status (condition messages `redacted`).
pub fn redact_scaled_object(v: &Value) -> Value {
    let mut out = Map::new();
    for f in ["apiVersion", "kind"] {
        if let Some(x) = v.get(f) {
            out.insert(f.into(), x.clone());
        }
    }
    let md = v.get("metadata").unwrap_or(&Value::Null);
    let mut meta = pick(md, &["name", "namespace", "uid"]);
    let keda_annotations: Map<String, Value> = md
        .get("annotations")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
        .filter(|(k, _)| k.starts_with("autoscaling.keda.sh/"))
        .map(|(k, x)| (k.clone(), x.clone()))
        .collect();
    if !keda_annotations.is_empty() {
        meta.insert("annotations".into(), Value::Object(keda_annotations));
    }
    out.insert("metadata".into(), Value::Object(meta));
    if let Some(spec) = v.get("spec") {
        out.insert("spec".into(), redact_spec(spec));
    }
    if let Some(status) = v.get("status") {
        out.insert("status".into(), redact_status(status));
    }
    Value::Object(out)
}

fn pick(v: &Value, fields: &[&str]) -> Map<String, Value> {
    fields
        .iter()
        .filter_map(|f| Some((f.to_string(), v.get(*f)?.clone())))
        .collect()
}

fn redact_spec(spec: &Value) -> Value {
    let mut out = pick(
        spec,
        &[
            "minReplicaCount",
            "maxReplicaCount",
            "idleReplicaCount",
            "cooldownPeriod",
            "initialCooldownPeriod",
            "pollingInterval",
            "fallback",
            "advanced",
        ],
    );
    if let Some(r) = spec.get("scaleTargetRef") {
        out.insert(
            "scaleTargetRef".into(),
            Value::Object(pick(r, &["apiVersion", "kind", "name"])),
        );
    }
    if let Some(triggers) = spec.get("triggers") {
        let kept = match triggers.as_array() {
            Some(list) => Value::Array(list.iter().map(redact_trigger).collect()),
            None => json!([]),
        };
        out.insert("triggers".into(), kept);
    }
    Value::Object(out)
}

fn redact_trigger(t: &Value) -> Value {
    let mut out = pick(t, &["type", "name", "metricType", "useCachedMetrics"]);
    if let Some(meta) = t.get("metadata").and_then(Value::as_object) {
        let kept: Map<String, Value> = meta
            .iter()
            .filter(|(k, _)| is_threshold_key(k) || METRIC_NAME_KEYS.contains(&k.as_str()))
            .map(|(k, x)| (k.clone(), x.clone()))
            .collect();
        out.insert("metadata".into(), Value::Object(kept));
    }
    Value::Object(out)
}

fn redact_status(status: &Value) -> Value {
    let mut out = pick(
        status,
        &[
            "health",
            "lastActiveTime",
            "hpaName",
            "externalMetricNames",
            "resourceMetricNames",
            "compositeScalerName",
            "pausedReplicaCount",
            "originalReplicaCount",
        ],
    );
    if let Some(list) = status.get("conditions").and_then(Value::as_array) {
        let conditions: Vec<Value> = list
            .iter()
            .map(|c| {
                let mut c2 = pick(c, &["type", "status", "reason", "lastTransitionTime"]);
                if c.get("message").is_some() {
                    c2.insert("message".into(), json!("redacted"));
                }
                Value::Object(c2)
            })
            .collect();
        out.insert("conditions".into(), Value::Array(conditions));
    }
    Value::Object(out)
}

/// The names of the ScaledObjects (`namespace/name`) a set of documents holds (tests).
#[cfg(test)]
fn names(snap: &Snapshot) -> std::collections::BTreeSet<String> {
    snap.other
        .iter()
        .filter(|v| is_scaled_object(v))
        .map(|v| {
            format!(
                "{}/{}",
                str_at(v, "/metadata/namespace"),
                str_at(v, "/metadata/name")
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const LIST: &str = r#"
apiVersion: v1
kind: List
metadata:
  annotations:
    kubectl-hpa.dev/fetch-errors: '{"keda-scaledobjects": "scaledobjects.keda.sh is forbidden"}'
items:
- apiVersion: keda.sh/v1alpha1
  kind: ScaledObject
  metadata: {name: orders, namespace: shop}
  spec:
    scaleTargetRef: {name: orders}
    triggers:
    - type: prometheus
      metadata: {serverAddress: "http://user:hunter2@prom:9090", query: "sum(q)", threshold: "10", activationThreshold: "50", metricName: q}
      authenticationRef: {name: prom-secret}
  status:
    conditions:
    - {type: Ready, status: "False", message: "error dialing http://user:hunter2@prom:9090"}
- apiVersion: keda.sh/v1alpha1
  kind: ScaledObject
  metadata: {name: partial, namespace: shop}
- apiVersion: keda.sh/v1alpha1
  kind: ScaledObject
  metadata: {namespace: shop}
- apiVersion: v1
  kind: Event
  metadata: {name: e1, namespace: shop}
  involvedObject: {kind: ScaledObject, name: orders, namespace: shop}
  reason: KEDAScaleTargetActivated
- apiVersion: v1
  kind: Event
  metadata: {name: e2, namespace: shop}
  involvedObject: {kind: Deployment, name: orders, namespace: shop}
  reason: ScalingReplicaSet
"#;

    fn snap() -> Snapshot {
        let doc: Value = crate::yaml::from_str(LIST).expect("yaml");
        Snapshot::from_owned(doc, "test").expect("reads")
    }

    #[test]
    fn scaled_objects_are_kept_whole_even_partial_and_found_by_name() {
        let s = snap();
        assert_eq!(
            names(&s),
            ["shop/orders", "shop/partial"].map(String::from).into()
        );
        let so = s.scaled_object("shop", "orders").expect("orders");
        assert_eq!(
            so.pointer("/spec/triggers/0/metadata/query"),
            Some(&json!("sum(q)"))
        );
        assert!(s.scaled_object("shop", "partial").is_some());
        assert!(s.scaled_object("other", "orders").is_none());
        assert_eq!(s.ignored.len(), 1, "{:?}", s.ignored);
        let events = s.scaled_object_events("shop", "orders");
        assert_eq!(events.len(), 1);
        assert_eq!(events[0]["reason"], "KEDAScaleTargetActivated");
        assert_eq!(
            s.scaled_objects_error("shop").map(String::as_str),
            Some("scaledobjects.keda.sh is forbidden")
        );
    }

    #[test]
    fn redact_keeps_thresholds_and_drops_secret_like_values() {
        let s = snap();
        let so = s.scaled_object("shop", "orders").expect("orders");
        let r = redact_scaled_object(so);
        let text = r.to_string();
        for secret in ["hunter2", "prom:9090", "sum(q)", "prom-secret"] {
            assert!(!text.contains(secret), "{secret} survived: {text}");
        }
        assert_eq!(
            r.pointer("/spec/triggers/0/metadata/threshold"),
            Some(&json!("10"))
        );
        assert_eq!(
            r.pointer("/spec/triggers/0/metadata/activationThreshold"),
            Some(&json!("50"))
        );
        assert_eq!(
            r.pointer("/spec/triggers/0/metadata/metricName"),
            Some(&json!("q"))
        );
        assert_eq!(
            r.pointer("/spec/triggers/0/type"),
            Some(&json!("prometheus"))
        );
        assert_eq!(
            r.pointer("/status/conditions/0/type"),
            Some(&json!("Ready"))
        );
    }
}
