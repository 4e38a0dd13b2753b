//! The only door from `migrate` to the cluster: a thin wrapper over [`crate::cluster::Conn`]'s
//! public functions (connect, GET, LIST, discovery, raw PATCH). Everything `migrate` reads or
//! writes goes through here, so the choreography in [`super::live`] names no HTTP detail.

use anyhow::Result;
use serde_json::Value;

use crate::cluster::{self, Conn, ConnectOptions};

pub use crate::cluster::ApiFailure;

/// A connection to one API server.
pub struct Api {
    conn: Conn,
}

impl Api {
    /// Connect as kubectl would with these flags (no request is sent yet).
    pub async fn connect(options: ConnectOptions) -> Result<Api> {
        Ok(Api {
            conn: cluster::connect(options).await?,
        })
    }

    /// `-n`, else the context's namespace.
    pub fn namespace(&self) -> &str {
        &self.conn.namespace
    }

    /// `context "kind-dev" (https://127.0.0.1:6443)`
    pub fn describe(&self) -> String {
        format!("context {:?} ({})", self.conn.context, self.conn.server)
    }

    pub async fn get(
        &self,
        path: &str,
        resource: &str,
        object: String,
    ) -> Result<Value, ApiFailure> {
        self.conn.get_path(path, resource, object).await
    }

    pub async fn list(
        &self,
        path: &str,
        item_type: (&str, &str),
        resource: &str,
        object: String,
    ) -> Result<Vec<Value>, ApiFailure> {
        self.conn.list_path(path, item_type, resource, object).await
    }

    /// Collection path and qualified resource of a kind in `ns` (discovery for custom kinds).
    pub async fn collection_of(
        &self,
        ns: &str,
        api_version: &str,
        kind: &str,
    ) -> Result<(String, String), String> {
        self.conn.collection_of(ns, api_version, kind).await
    }

    /// Send one PATCH exactly as planned (query: `fieldManager`, `dryRun=All`).
    pub async fn patch(
        &self,
        path: &str,
        query: &[(String, String)],
        content_type: &str,
        body: &str,
        resource: &str,
        object: String,
    ) -> Result<Value, ApiFailure> {
        self.conn
            .patch_raw(path, query, content_type, body, resource, object)
            .await
    }
}
