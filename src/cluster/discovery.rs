//! What the server serves: the controller's REST mapping of a kind, live, and the APIServices
//! of the metrics APIs.
//!
//! The REST mapping of a custom resource: by group and kind over every
//! version the group serves (`mapper.RESTMappings(GroupKind)` in horizontal.go), the preferred
//! version first, so the version of the HPA's `apiVersion` does not matter; and the target's
//! scale read through the first mapping that answers (`scaleForResourceMappings`: the first
//! success wins, else the first mapping's error).

use serde_json::{json, Value};

use super::failure::{ApiFailure, Failure, FetchError, Unmapped};
use super::transport::{named, Conn, What};
use crate::metrics_api::{MetricsApi, MetricsGroup};
use crate::restmapper::{builtin_mapping, Gvr};

impl Conn {
    /// A discovery document (`/apis/GROUP`, `/apis/GROUP/VERSION`), read once per connection.
    async fn discovered(&self, path: &str) -> Result<Value, ApiFailure> {
        if let Some(v) = self.discovery_cache(path, None) {
            return Ok(v);
        }
        let what = What {
            verb: "get",
            resource: path,
            object: String::new(),
        };
        let v = self.get(path, &[], what).await?;
        self.discovery_cache(path, Some(&v));
        Ok(v)
    }

    /// Every resource serving `kind` in the group of `api_version`, the preferred version
    /// first: the built-in table, else discovery. Errors are worded as the controller's REST
    /// mapper words them.
    pub(super) async fn mappings_of(
        &self,
        api_version: &str,
        kind: &str,
    ) -> Result<Vec<Gvr>, Unmapped> {
        if let Some(m) = builtin_mapping(api_version, kind) {
            return m.map(|m| vec![m]);
        }
        let group = crate::restmapper::group_of(api_version).to_string();
        let no_match = || Unmapped::NoKindMatch {
            kind: kind.to_string(),
            group: group.clone(),
        };
        let failed = |gv: &str, f: ApiFailure| Unmapped::Discovery {
            api_version: gv.to_string(),
            text: f.client_go_text(),
        };
        let versions = match self.discovered(&format!("/apis/{group}")).await {
            Ok(g) => served_versions(&g),
            Err(f) if f.code() == Some(404) => return Err(no_match()),
            Err(f) => return Err(failed(&group, f)),
        };
        let mut found = Vec::new();
        let mut first_error = None;
        for version in versions {
            let gv = format!("{group}/{version}");
            match self.discovered(&format!("/apis/{gv}")).await {
                Ok(list) => found.extend(plural_of(&list, kind).map(|plural| Gvr {
                    group: group.clone(),
                    version,
                    plural,
                })),
                Err(f) if f.code() == Some(404) => {}
                Err(f) => {
                    first_error.get_or_insert_with(|| failed(&gv, f));
                }
            }
        }
        if found.is_empty() {
            // Not found: read again next time (the CRD may be installed meanwhile), as the
            // controller's mapper resets after a miss.
            self.forget_discovery(&format!("/apis/{group}"));
        }
        match (found.is_empty(), first_error) {
            (false, _) => Ok(found),
            (true, Some(e)) => Err(e),
            (true, None) => Err(no_match()),
        }
    }

    /// The resource of a kind (its first mapping; see [`Conn::mappings_of`]).
    pub(super) async fn resource_of(&self, api_version: &str, kind: &str) -> Result<Gvr, Unmapped> {
        let mut all = self.mappings_of(api_version, kind).await?;
        Ok(all.remove(0))
    }

    /// GET the autoscaling/v1 Scale of a target, through the first of its mappings that
    /// answers (distinct resources only: the versions of one resource share its scale).
    pub(super) async fn scale(
        &self,
        ns: &str,
        api_version: &str,
        kind: &str,
        name: &str,
    ) -> Result<Value, FetchError> {
        let mut mappings = self
            .mappings_of(api_version, kind)
            .await
            .map_err(FetchError::Unmapped)?;
        let mut seen = Vec::new();
        mappings.retain(|g| {
            let fresh = !seen.contains(&g.qualified());
            seen.push(g.qualified());
            fresh
        });
        let mut first_error = None;
        for gvr in &mappings {
            match self.scale_at(gvr, ns, name).await {
                Ok(s) => return Ok(s),
                Err(e) => {
                    first_error.get_or_insert(e);
                }
            }
        }
        Err(first_error.unwrap_or_else(|| {
            FetchError::Unmapped(Unmapped::NoKindMatch {
                kind: kind.to_string(),
                group: crate::restmapper::group_of(api_version).to_string(),
            })
        }))
    }

    /// GET the Scale of a target through one mapping.
    async fn scale_at(&self, gvr: &Gvr, ns: &str, name: &str) -> Result<Value, FetchError> {
        let path = format!("{}/{name}/scale", gvr.collection(ns));
        let resource = gvr.qualified();
        let what = What {
            verb: "get",
            resource: &resource,
            object: named(name, ns),
        };
        let mut s = self
            .get(&path, &[], what)
            .await
            .map_err(FetchError::from_api)?;
        if let Some(why) = super::shape::wrong_value(&s, "Scale", false) {
            return Err(FetchError::from_api(ApiFailure {
                verb: "get",
                resource,
                object: named(name, ns),
                server: self.server.clone(),
                failure: Failure::Unreadable(why),
                attempts: 1,
            }));
        }
        s["apiVersion"] = json!("autoscaling/v1");
        s["kind"] = json!("Scale");
        if s.pointer("/metadata/namespace").is_none() && s["metadata"].is_object() {
            s["metadata"]["namespace"] = json!(ns);
        }
        Ok(s)
    }

    /// The collection path and qualified resource name of a kind in `ns`
    /// (`/apis/apps/v1/namespaces/shop/deployments`, `deployments.apps`); discovery for
    /// non-built-in groups.
    pub async fn collection_of(
        &self,
        ns: &str,
        api_version: &str,
        kind: &str,
    ) -> Result<(String, String), String> {
        let gvr = self
            .resource_of(api_version, kind)
            .await
            .map_err(|e| e.to_string())?;
        Ok((gvr.collection(ns), gvr.qualified()))
    }
}

/// The resource metrics APIService `name` (the version the controller reads, see
/// [`crate::metrics_api::resource_apiservice`]), read when a PodMetrics call failed to tell "not
/// installed" from "unavailable": one GET.
pub async fn metrics_apiservice(conn: &Conn, name: &str) -> MetricsApi {
    apiservice(conn, name).await.0
}

/// One APIService: what it says of its availability, and the object when it exists.
pub async fn apiservice(conn: &Conn, name: &str) -> (MetricsApi, Option<Value>) {
    let r = conn
        .get(
            &format!("/apis/apiregistration.k8s.io/v1/apiservices/{name}"),
            &[],
            What {
                verb: "get",
                resource: "apiservices.apiregistration.k8s.io",
                object: format!("{name:?}"),
            },
        )
        .await;
    match r {
        Ok(mut v) => {
            v["apiVersion"] = json!("apiregistration.k8s.io/v1");
            v["kind"] = json!("APIService");
            (MetricsApi::from_apiservice(Some(&v)), Some(v))
        }
        Err(f) if f.code() == Some(404) => (MetricsApi::Absent, None),
        Err(f) => (
            MetricsApi::Unknown(format!("{}: {}", f.request(), f.client_go_text())),
            None,
        ),
    }
}

/// The APIService of a metrics API that tells (the first of its
/// APIServices, the preferred version first, that exists): its name, availability and object.
pub async fn group_apiservice(
    conn: &Conn,
    group: MetricsGroup,
) -> Option<(String, MetricsApi, Option<Value>)> {
    let mut last = None;
    for name in group.apiservices() {
        let (api, obj) = apiservice(conn, name).await;
        let absent = api == MetricsApi::Absent;
        last = Some((name.to_string(), api, obj));
        if !absent {
            break;
        }
    }
    last
}

/// The versions an `APIGroup` serves, its preferred version first.
fn served_versions(group: &Value) -> Vec<String> {
    let version = |v: &Value| v["version"].as_str().map(String::from);
    let mut out: Vec<String> = group
        .pointer("/preferredVersion")
        .and_then(version)
        .into_iter()
        .collect();
    for v in group["versions"].as_array().into_iter().flatten() {
        if let Some(v) = version(v).filter(|v| !out.contains(v)) {
            out.push(v);
        }
    }
    out
}

/// The resource (plural) of `kind` in an `APIResourceList` (subresources left out).
fn plural_of(list: &Value, kind: &str) -> Option<String> {
    list["resources"]
        .as_array()?
        .iter()
        .find(|r| r["kind"] == kind && !r["name"].as_str().unwrap_or("/").contains('/'))
        .and_then(|r| r["name"].as_str())
        .map(String::from)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_preferred_version_first_then_the_others_in_order() {
        let g = json!({"name": "argoproj.io", "versions": [
            {"groupVersion": "argoproj.io/v1beta1", "version": "v1beta1"},
            {"groupVersion": "argoproj.io/v1alpha1", "version": "v1alpha1"}],
            "preferredVersion": {"groupVersion": "argoproj.io/v1alpha1", "version": "v1alpha1"}});
        assert_eq!(served_versions(&g), ["v1alpha1", "v1beta1"]);
        assert!(served_versions(&json!({})).is_empty());
        let list = json!({"resources": [
            {"name": "rollouts/scale", "kind": "Scale"},
            {"name": "rollouts/status", "kind": "Rollout"},
            {"name": "rollouts", "kind": "Rollout"}]});
        assert_eq!(plural_of(&list, "Rollout").as_deref(), Some("rollouts"));
        assert_eq!(plural_of(&list, "Experiment"), None);
    }
}
