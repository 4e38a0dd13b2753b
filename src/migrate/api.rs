//! The only door from `migrate` to the cluster: a thin wrapper over [`crate::cluster::Conn`]'s
//! public functions (connect, GET, LIST, discovery, raw PATCH). Everything `migrate` reads or
//! writes goes through here, so the choreography in [`super::live`] names no HTTP detail.

use anyhow::Result;
use serde_json::Value;

use crate::cluster::{self, Conn, ConnectOptions};

pub use crate::cluster::ApiFailure;

/// The longest wait between two conflict rounds.
pub const MAX_CONFLICT_WAIT: std::time::Duration = std::time::Duration::from_millis(1250);

/// The wait before conflict round `round` (none before the first).
pub fn conflict_wait(round: usize) -> std::time::Duration {
    let steps = round.saturating_sub(2).min(8) as u32;
    match round {
        0 | 1 => std::time::Duration::ZERO,
        _ => (std::time::Duration::from_millis(10) * 5u32.pow(steps)).min(MAX_CONFLICT_WAIT),
    }
}

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

    /// Wait before round `round` (2, 3...) after a 409 Conflict, as client-go's
    /// `retry.DefaultBackoff` waits: 10 ms, then five times longer each round (10, 50, 250,
    /// 1250 ms), at most [`MAX_CONFLICT_WAIT`] — bounded, and short next to a controller's
    /// sync period.
    pub async fn conflict_backoff(&self, round: usize) {
        tokio::time::sleep(conflict_wait(round)).await;
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

#[cfg(test)]
mod tests {
    use super::conflict_wait;
    use std::time::Duration;

    #[test]
    fn conflict_rounds_back_off_five_times_longer_up_to_a_bound() {
        let waits: Vec<u128> = (1..=7).map(|r| conflict_wait(r).as_millis()).collect();
        assert_eq!(waits, [0, 10, 50, 250, 1250, 1250, 1250]);
        assert!(conflict_wait(100) <= Duration::from_millis(1250));
    }
}
