//! The only writes of the program: `migrate --apply` sends the PATCH requests its plan
//! shows, byte for byte, through [`Conn::patch_raw`] (never forced, never retried unless the
//! server refused the credentials).

use serde_json::Value;

use super::failure::{ApiFailure, Failure};
use super::transport::Conn;

impl Conn {
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
        self.send(req, false, fail, &|_, b| serde_json::from_slice(b))
            .await
    }
}
