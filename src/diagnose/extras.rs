//! [`Extras`]: the context the core does not need (ReplicaSet owners, Deployment rollout status,
//! the metrics APIServices), read from a `v1 List` or a snapshot. The cluster layer fills the
//! rest.

use serde_json::Value;

use crate::metrics_api::{resource_apiservice, MetricsApi, MetricsGroup};
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
    /// The resource metrics APIService the controller reads through (`v1.metrics.k8s.io` or
    /// `v1beta1.metrics.k8s.io`, see [`resource_apiservice`]), by name, and what is known of it.
    /// `None`: not looked at (offline without that APIService object, or the metrics call
    /// worked).
    pub metrics_api: Option<(String, MetricsApi)>,
    /// The custom and external metrics APIServices the List holds (a live fetch adds one
    /// when it is not available and a read of its API failed), by name.
    pub other_apis: Vec<(String, MetricsApi)>,
}

impl Extras {
    /// Read the context from a `v1 List` (nested Lists flattened).
    pub fn from_list(doc: &Value) -> Extras {
        let mut x = Extras::default();
        let mut resource_apis = Vec::new();
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
                ("apiregistration.k8s.io/v1", "APIService")
                    if MetricsGroup::of_apiservice(&name) == Some(MetricsGroup::Resource) =>
                {
                    resource_apis.push(item.clone());
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
        // A List does not say the release: the newest's choice.
        x.metrics_api = resource_api(resource_apis.iter(), true);
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
        let negotiates = snap
            .server_version
            .as_deref()
            .and_then(crate::core::settings::parse_major_minor)
            .is_none_or(|(major, minor)| major > 1 || minor >= 37);
        let apiservices = snap.other.iter().filter(|o| {
            o["apiVersion"] == "apiregistration.k8s.io/v1" && o["kind"] == "APIService"
        });
        x.metrics_api = resource_api(apiservices, negotiates);
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

    /// The ReplicaSets of namespace `ns` (sorted lists: a binary search, not a scan of the
    /// file's ReplicaSets per HPA).
    pub(super) fn replica_sets_in(&self, ns: &str) -> &[ReplicaSetInfo] {
        let start = self
            .replica_sets
            .partition_point(|r| r.namespace.as_str() < ns);
        let len = self.replica_sets[start..].partition_point(|r| r.namespace == ns);
        &self.replica_sets[start..start + len]
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

/// Of the APIService objects given, the resource metrics one the controller reads through (the
/// release `negotiates` the version from 1.37): `None` when the objects lack it.
fn resource_api<'a>(
    apiservices: impl Iterator<Item = &'a Value>,
    negotiates: bool,
) -> Option<(String, MetricsApi)> {
    let mut by_name: Vec<(&str, &Value)> = apiservices
        .filter_map(|o| Some((o.pointer("/metadata/name")?.as_str()?, o)))
        .filter(|(n, _)| MetricsGroup::of_apiservice(n) == Some(MetricsGroup::Resource))
        .collect();
    let v1_served = by_name
        .iter()
        .any(|(n, _)| *n == crate::metrics_api::METRICS_APISERVICE_V1);
    let name = resource_apiservice(v1_served, negotiates);
    by_name.retain(|(n, _)| *n == name);
    let (_, o) = by_name.first()?;
    Some((name.to_string(), MetricsApi::from_apiservice(Some(o))))
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
            Some((_, MetricsApi::Unavailable { .. }))
        ));
    }

    #[test]
    fn the_resource_apiservice_is_the_version_the_controller_reads() {
        let api = |name: &str, available: &str| {
            json!({"apiVersion": "apiregistration.k8s.io/v1", "kind": "APIService", "metadata": {"name": name},
                "status": {"conditions": [{"type": "Available", "status": available, "reason": "R", "message": "m"}]}})
        };
        let both = json!({"apiVersion": "v1", "kind": "List", "items": [
            api("v1beta1.metrics.k8s.io", "True"), api("v1.metrics.k8s.io", "False")]});
        let (name, state) = Extras::from_list(&both).metrics_api.expect("looked at");
        assert_eq!(name, "v1.metrics.k8s.io");
        assert!(matches!(state, MetricsApi::Unavailable { .. }), "{state:?}");
        let only_beta = json!({"apiVersion": "v1", "kind": "List", "items": [api("v1beta1.metrics.k8s.io", "True")]});
        assert_eq!(
            Extras::from_list(&only_beta).metrics_api,
            Some(("v1beta1.metrics.k8s.io".into(), MetricsApi::Available))
        );
        // Before 1.37 the controller reads v1beta1 only: v1's APIService is not its answer.
        let objects = [api("v1.metrics.k8s.io", "False")];
        assert_eq!(resource_api(objects.iter(), false), None);
        assert_eq!(
            resource_api(objects.iter(), true).map(|(n, _)| n),
            Some("v1.metrics.k8s.io".into())
        );
    }
}
