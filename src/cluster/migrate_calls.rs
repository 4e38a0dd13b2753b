//! The calls of `kubectl hpa migrate`: GET and LIST of any path, the collection of a kind,
//! and the only writes of the program — `migrate --apply` sends the PATCH requests its plan
//! shows, byte for byte, through [`Conn::patch_raw`].

use serde_json::Value;

use super::conn::{ApiFailure, Conn, Failure, What};

impl Conn {
    /// GET an API path (query included in `path` if any); JSON back.
    pub async fn get_path(
        &self,
        path: &str,
        resource: &str,
        object: String,
    ) -> Result<Value, ApiFailure> {
        self.get(
            path,
            &[],
            What {
                verb: "get",
                resource,
                object,
            },
        )
        .await
    }

    /// LIST an API path, paged; items get `item_type` as apiVersion/kind when missing.
    pub async fn list_path(
        &self,
        path: &str,
        item_type: (&str, &str),
        resource: &str,
        object: String,
    ) -> Result<Vec<Value>, ApiFailure> {
        self.list_values(
            path,
            &[],
            Some(500),
            item_type,
            What {
                verb: "list",
                resource,
                object,
            },
        )
        .await
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

    /// Send one PATCH exactly as planned: `path` (without query), the query (`fieldManager`,
    /// `dryRun` only), the content type (`application/merge-patch+json` or
    /// `application/apply-patch+yaml`) and the body bytes. Never forced.
    pub async fn patch_raw(
        &self,
        path: &str,
        query: &[(String, String)],
        content_type: &str,
        body: &str,
        resource: &str,
        object: String,
    ) -> Result<Value, ApiFailure> {
        use kube::api::{Patch, PatchParams};
        let fail = |failure| ApiFailure {
            verb: "patch",
            resource: resource.to_string(),
            object: object.clone(),
            server: self.server.clone(),
            failure,
            attempts: 1,
        };
        let mut pp = PatchParams::default();
        for (k, v) in query {
            match k.as_str() {
                "fieldManager" => pp.field_manager = Some(v.clone()),
                "dryRun" if v == "All" => pp.dry_run = true,
                _ => return Err(fail(Failure::Other(format!("unsupported query {k}={v}")))),
            }
        }
        let patch: Patch<()> = match content_type {
            "application/merge-patch+json" => Patch::Merge(()),
            "application/apply-patch+yaml" => Patch::Apply(()),
            other => {
                return Err(fail(Failure::Other(format!(
                    "unsupported content type {other}"
                ))))
            }
        };
        let mut req = kube::core::Request::new("")
            .patch(path.trim_start_matches('/'), &pp, &patch)
            .map_err(|e| fail(Failure::Other(e.to_string())))?;
        *req.body_mut() = body.as_bytes().to_vec();
        self.send(req, false, fail, &|b| serde_json::from_slice(b))
            .await
    }
}
