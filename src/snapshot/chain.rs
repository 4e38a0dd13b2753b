//! The metrics chain's objects in a snapshot: the Deployments that may serve a metrics
//! APIService (kept whole besides their scale, for their arguments, volumes and images) and
//! prometheus-adapter's rules ConfigMaps (only the key holding the rules). The APIServices and
//! Services behind them are kept with the other passive objects (`Snapshot::other`). Read by
//! [`crate::adapter`]; live and offline read the same objects, so they give the same answer.
//!
//! What the live fetch could not read of the chain is recorded in the List's fetch errors
//! under keys starting with [`CHAIN_KEY_PREFIX`] (a note, never a failure).

use serde_json::{json, Map, Value};

use super::item::{Head, Item};

/// The fetch-errors keys of the chain's reads (`metrics-chain/apiservices`, ...).
pub const CHAIN_KEY_PREFIX: &str = "metrics-chain/";

/// Words that mark a Deployment as a possible metrics adapter: the adapters' names and images,
/// and the flags of an aggregated API server. A Deployment without any of them is no candidate
/// (a fleet's thousands of Deployments are not kept twice).
const ADAPTER_WORDS: [&str; 8] = [
    "adapter",
    "metrics-server",
    "metrics-apiserver",
    "keda",
    "cluster-agent",
    "--config",
    "--secure-port",
    "stackdriver",
];

/// Whether `text` holds any of [`ADAPTER_WORDS`], in one pass over it (perf: a fleet's
/// thousands of Deployments were each searched eight times).
fn has_adapter_word(text: &str) -> bool {
    static WORDS: std::sync::OnceLock<Option<regex::Regex>> = std::sync::OnceLock::new();
    let words = WORDS.get_or_init(|| {
        let alternatives: Vec<String> = ADAPTER_WORDS.iter().map(|w| regex::escape(w)).collect();
        regex::Regex::new(&alternatives.join("|")).ok()
    });
    match words {
        Some(re) => re.is_match(text),
        None => ADAPTER_WORDS.iter().any(|w| text.contains(w)),
    }
}

/// The chain's objects a snapshot holds.
#[derive(Debug, Clone, Default)]
pub struct ChainObjects {
    /// Deployments that may serve a metrics APIService.
    pub deployments: Vec<Value>,
    /// ConfigMaps holding prometheus-adapter rules.
    pub config_maps: Vec<Value>,
}

impl ChainObjects {
    /// Another document's chain objects (a later copy of an object replaces an earlier one).
    pub(super) fn absorb(&mut self, other: ChainObjects) {
        for (mine, theirs) in [
            (&mut self.deployments, other.deployments),
            (&mut self.config_maps, other.config_maps),
        ] {
            for v in theirs {
                mine.retain(|m| key(m) != key(&v));
                mine.push(v);
            }
        }
    }
}

fn key(v: &Value) -> (&str, &str) {
    (
        v.pointer("/metadata/namespace")
            .and_then(Value::as_str)
            .unwrap_or("default"),
        v.pointer("/metadata/name")
            .and_then(Value::as_str)
            .unwrap_or_default(),
    )
}

/// Whether a ConfigMap's value holds prometheus-adapter rules.
pub fn holds_rules(text: &str) -> bool {
    ["seriesQuery", "resourceRules", "externalRules"]
        .iter()
        .any(|w| text.contains(w))
}

impl ChainObjects {
    /// Keep what the chain reads of an item: `true` when the item is consumed (a rules
    /// ConfigMap); a candidate Deployment is copied and then read as a workload as usual.
    pub(super) fn keep(&mut self, item: &Item<'_>, head: &Head) -> bool {
        match (head.api_version.as_str(), head.kind.as_str()) {
            ("apps/v1", "Deployment") => {
                let candidate = match item {
                    Item::Raw(r) => has_adapter_word(r.get()),
                    Item::Owned(v) => has_adapter_word(&v.to_string()),
                };
                // Only a candidate is built as a `Value` (a fleet's other Deployments are not).
                if let Some(v) = candidate.then(|| value_of(item)).flatten() {
                    self.deployments.push(v);
                }
                false
            }
            ("v1", "ConfigMap") => {
                let Some(v) = value_of(item) else {
                    return false;
                };
                let rules = v["data"]
                    .as_object()
                    .is_some_and(|d| d.values().filter_map(Value::as_str).any(holds_rules));
                if rules {
                    self.config_maps.push(v);
                }
                rules
            }
            _ => false,
        }
    }
}

fn value_of(item: &Item<'_>) -> Option<Value> {
    match item {
        Item::Raw(r) => serde_json::from_str(r.get()).ok(),
        Item::Owned(v) => Some(v.clone()),
    }
}

/// `--redact`: what the chain reads of an object, taken before the object is reduced: a rules
/// ConfigMap with only its rules keys; an adapter Deployment's containers (name, image without
/// its registry, `--config` only), their config mounts and its ConfigMap volumes; an
/// APIService's `spec.service`. `None`: nothing of the chain's.
pub(super) fn redact_part(v: &Value) -> Option<Value> {
    let kind = (
        v["apiVersion"].as_str().unwrap_or_default(),
        v["kind"].as_str().unwrap_or_default(),
    );
    match kind {
        ("v1", "ConfigMap") => {
            let data: Map<String, Value> = v["data"]
                .as_object()?
                .iter()
                .filter(|(_, x)| x.as_str().is_some_and(holds_rules))
                .map(|(k, x)| (k.clone(), x.clone()))
                .collect();
            (!data.is_empty()).then(|| {
                json!({"apiVersion": "v1", "kind": "ConfigMap",
                    "metadata": {"name": v["metadata"]["name"], "namespace": v["metadata"]["namespace"]},
                    "data": data})
            })
        }
        ("apps/v1", "Deployment") => {
            let text = v.to_string();
            if !has_adapter_word(&text) {
                return None;
            }
            template_part(v)
        }
        ("apiregistration.k8s.io/v1", "APIService") => {
            let s = v.pointer("/spec/service")?;
            Some(json!({"service": {"namespace": s["namespace"], "name": s["name"]}}))
        }
        _ => None,
    }
}

/// A Deployment's pod template as the chain reads it (see [`redact_part`]).
fn template_part(v: &Value) -> Option<Value> {
    let spec = v.pointer("/spec/template/spec")?;
    let containers: Vec<Value> = spec["containers"]
        .as_array()?
        .iter()
        .map(|c| {
            let args: Vec<&Value> = ["command", "args"]
                .iter()
                .flat_map(|k| c[*k].as_array().into_iter().flatten())
                .filter(|a| a.as_str().is_some_and(|a| a.starts_with("--config")))
                .collect();
            let image = c["image"].as_str().unwrap_or_default();
            let image = image.rsplit('/').next().unwrap_or_default();
            json!({"name": c["name"], "image": image, "args": args,
                "volumeMounts": c["volumeMounts"].as_array().cloned().unwrap_or_default().iter()
                    .map(|m| json!({"name": m["name"], "mountPath": m["mountPath"]})).collect::<Vec<_>>()})
        })
        .collect();
    let volumes: Vec<Value> = spec["volumes"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|vol| vol.get("configMap").is_some())
        .map(|vol| json!({"name": vol["name"], "configMap": vol["configMap"]}))
        .collect();
    Some(json!({"containers": containers, "volumes": volumes}))
}

/// The reduced object with the chain's part put back (see [`redact_part`]).
pub(super) fn with_redacted(reduced: Option<Value>, part: Option<Value>) -> Option<Value> {
    let Some(part) = part else { return reduced };
    match reduced {
        None => Some(part),
        Some(mut r) if part.get("containers").is_some() => {
            if let Some(spec) = r.get_mut("spec").and_then(Value::as_object_mut) {
                let template = spec.entry("template").or_insert_with(|| json!({}));
                if template.get("spec").is_none() {
                    template["spec"] = part;
                }
            }
            Some(r)
        }
        Some(mut r) => {
            if let Some(service) = part.get("service") {
                r["spec"] = json!({ "service": service });
            }
            Some(r)
        }
    }
}

/// The rules ConfigMap the adapter reads (`--config` under a ConfigMap volume's mount):
/// `(namespace, name, key)`.
pub fn rules_config_map(deployment: &Value) -> Option<(String, String, String)> {
    let ns = deployment
        .pointer("/metadata/namespace")?
        .as_str()?
        .to_string();
    let spec = deployment.pointer("/spec/template/spec")?;
    for c in spec["containers"].as_array()? {
        let line: Vec<&str> = ["command", "args"]
            .iter()
            .flat_map(|k| c[*k].as_array().into_iter().flatten())
            .filter_map(Value::as_str)
            .collect();
        let path = line.iter().enumerate().find_map(|(j, a)| {
            a.strip_prefix("--config=").or_else(|| {
                (*a == "--config")
                    .then(|| line.get(j + 1).copied())
                    .flatten()
            })
        });
        let Some(path) = path else { continue };
        for m in c["volumeMounts"].as_array().into_iter().flatten() {
            let mount = m["mountPath"]
                .as_str()
                .unwrap_or_default()
                .trim_end_matches('/');
            let Some(rel) = path.strip_prefix(mount).and_then(|r| r.strip_prefix('/')) else {
                continue;
            };
            let vol = spec["volumes"]
                .as_array()?
                .iter()
                .find(|v| v["name"] == m["name"])?;
            let cm = vol.get("configMap")?;
            let key = cm["items"]
                .as_array()
                .into_iter()
                .flatten()
                .find(|it| it["path"].as_str() == Some(rel))
                .and_then(|it| it["key"].as_str())
                .unwrap_or(rel);
            return Some((ns, cm["name"].as_str()?.to_string(), key.to_string()));
        }
    }
    None
}

/// Whether a Service's selector picks the pods of a Deployment (its template's labels, or
/// its own selector's matchLabels when a redacted file dropped the template's).
pub fn selects_deployment(selector: &Map<String, Value>, deployment: &Value) -> bool {
    !selector.is_empty()
        && selector.iter().all(|(k, v)| {
            [
                "/spec/template/metadata/labels",
                "/spec/selector/matchLabels",
            ]
            .iter()
            .any(|p| deployment.pointer(p).and_then(|l| l.get(k)) == Some(v))
        })
}

/// An adapter Deployment as the live fetch keeps it: names, labels, replicas, selector and
/// status, and of its pod template the labels, the containers' names, images, `--config`
/// arguments and mounts, and the ConfigMap volumes (no environment, no other argument).
pub fn slim_deployment(v: &Value) -> Value {
    let mut out = json!({"apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": v["metadata"]["name"], "namespace": v["metadata"]["namespace"],
            "labels": v["metadata"]["labels"]},
        "spec": {"replicas": v["spec"]["replicas"], "selector": v["spec"]["selector"],
            "template": {"metadata": {"labels": v.pointer("/spec/template/metadata/labels").cloned().unwrap_or(Value::Null)}}},
        "status": v["status"]});
    if let Some(mut part) = template_part(v) {
        for c in part["containers"].as_array_mut().into_iter().flatten() {
            c["image"] = json!(image_of(v, c["name"].as_str().unwrap_or_default()));
        }
        out["spec"]["template"]["spec"] = part;
    }
    drop_nulls(&mut out);
    out
}

fn image_of<'a>(v: &'a Value, container: &str) -> &'a str {
    v.pointer("/spec/template/spec/containers")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .find(|c| c["name"] == container)
        .and_then(|c| c["image"].as_str())
        .unwrap_or_default()
}

fn drop_nulls(v: &mut Value) {
    if let Value::Object(m) = v {
        m.retain(|_, x| !x.is_null());
        m.values_mut().for_each(drop_nulls);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::snapshot::Snapshot;
    use std::collections::BTreeSet;

    #[test]
    fn a_deployment_is_a_candidate_by_any_one_adapter_word_in_its_text() {
        for w in ADAPTER_WORDS {
            assert!(
                has_adapter_word(&format!(r#"{{"image":"x/{w}:v1"}}"#)),
                "{w}"
            );
        }
        assert!(!has_adapter_word(
            r#"{"image":"nginx","args":["--port=80"]}"#
        ));
        assert!(!has_adapter_word("adapte metrics server --confi"));
    }

    /// The ConfigMap keys a redacted snapshot keeps (for the tests' and docs' words).
    fn kept_keys(cm: &Value) -> BTreeSet<String> {
        cm["data"]
            .as_object()
            .into_iter()
            .flatten()
            .map(|(k, _)| k.clone())
            .collect()
    }

    fn list(items: Vec<Value>) -> Value {
        json!({"apiVersion": "v1", "kind": "List", "items": items})
    }

    fn adapter() -> Value {
        json!({"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "prometheus-adapter", "namespace": "monitoring",
                "labels": {"app.kubernetes.io/name": "prometheus-adapter"}},
            "spec": {"replicas": 1, "selector": {"matchLabels": {"app.kubernetes.io/name": "prometheus-adapter"}},
              "template": {"metadata": {"labels": {"app.kubernetes.io/name": "prometheus-adapter"}},
                "spec": {"containers": [{"name": "prometheus-adapter",
                  "image": "registry.example.com/prometheus-adapter/prometheus-adapter:v0.12.0",
                  "args": ["--config=/etc/adapter/config.yaml", "--prometheus-url=https://user:pw@prom.example.com/"],
                  "env": [{"name": "TOKEN", "value": "s3cr3t"}],
                  "volumeMounts": [{"name": "config", "mountPath": "/etc/adapter"}]}],
                  "volumes": [{"name": "config", "configMap": {"name": "adapter-config"}}]}}},
            "status": {"replicas": 1}})
    }

    fn rules_cm() -> Value {
        json!({"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": "adapter-config", "namespace": "monitoring", "annotations": {"owner": "alice"}},
            "data": {"config.yaml": "rules:\n- seriesQuery: 'x_total'\n", "password": "hunter2"}})
    }

    #[test]
    fn a_snapshot_keeps_the_adapter_and_its_rules() {
        let other = json!({"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "web", "namespace": "shop"},
            "spec": {"selector": {"matchLabels": {"app": "web"}}, "template": {"spec": {"containers": [{"name": "app"}]}}}});
        let plain_cm = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "settings", "namespace": "shop"}, "data": {"a": "b"}});
        let snap = Snapshot::from_owned(list(vec![adapter(), other, rules_cm(), plain_cm]), "test")
            .expect("snapshot");
        assert_eq!(snap.chain.deployments.len(), 1);
        assert_eq!(snap.chain.config_maps.len(), 1);
        // The adapter is a workload too; the plain ConfigMap is passed over as before.
        assert_eq!(snap.workloads.len(), 2);
        assert_eq!(snap.ignored.len(), 1, "{:?}", snap.ignored);
    }

    #[test]
    fn redact_keeps_the_rules_key_and_what_names_the_adapter() {
        let mut l = list(vec![adapter(), rules_cm()]);
        crate::snapshot::redact::redact(&mut l).expect("redact");
        let text = l.to_string();
        for secret in [
            "hunter2",
            "alice",
            "s3cr3t",
            "registry.example.com",
            "user:pw",
        ] {
            assert!(!text.contains(secret), "{secret} remains: {text}");
        }
        let cm = &l["items"][1];
        assert_eq!(kept_keys(cm), BTreeSet::from(["config.yaml".to_string()]));
        let c = &l["items"][0]["spec"]["template"]["spec"]["containers"][0];
        assert_eq!(c["args"], json!(["--config=/etc/adapter/config.yaml"]));
        assert_eq!(c["image"], "prometheus-adapter:v0.12.0");
        // The redacted file is read back with the same chain objects.
        let snap = Snapshot::from_owned(l, "redacted").expect("snapshot");
        assert_eq!(snap.chain.deployments.len(), 1);
        assert_eq!(snap.chain.config_maps.len(), 1);
    }
}
