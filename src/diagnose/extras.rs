//! [`Extras`]: the context the core does not need (ReplicaSet owners, Deployment rollout status,
//! the metrics APIServices), read from a `v1 List` or a snapshot. The cluster layer fills the
//! rest.

use serde_json::Value;

use crate::metrics_api::{MetricsApi, MetricsGroup, METRICS_APISERVICE};
use crate::snapshot::Snapshot;

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
    pub(super) fn replica_set(&self, ns: &str, name: &str) -> Option<&ReplicaSetInfo> {
        let i = self
            .replica_sets
            .binary_search_by(|r| (r.namespace.as_str(), r.name.as_str()).cmp(&(ns, name)))
            .ok()?;
        self.replica_sets.get(i)
    }

    /// The Deployment `ns/name`.
    pub(super) fn deployment(&self, ns: &str, name: &str) -> Option<&RolloutInfo> {
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

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
