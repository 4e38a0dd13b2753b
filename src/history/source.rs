//! The snapshot a replay starts from: the HPA and its Events, from snapshot files or the cluster
//! (read as `explain` reads one HPA). Shared by `history` and `explain --at`.

use std::path::PathBuf;

use anyhow::{anyhow, Result};

use crate::cli::KubeFlags;
use crate::cluster;
use crate::snapshot::Snapshot;

/// The snapshot holding HPA `name`, its namespace, and whether it is live: the `files` when
/// given (`namespace`, else the one namespace of `name` in them), else the cluster.
pub fn load(
    files: &[PathBuf],
    namespace: Option<&str>,
    kube: &KubeFlags,
    name: &str,
    rt: &tokio::runtime::Runtime,
) -> Result<(Snapshot, String, bool)> {
    if !files.is_empty() {
        let (snap, _) = crate::explain::one::read_snapshot_file(files)?;
        let ns = match namespace {
            Some(ns) => ns.to_string(),
            None => only_namespace_of(&snap, name)?,
        };
        return Ok((snap, ns, false));
    }
    let (ns, fetched) = rt.block_on(async {
        let conn = cluster::connect(kube).await?;
        let ns = conn.namespace.clone();
        let f = cluster::fetch_hpa(&conn, &ns, name).await?;
        Ok::<_, anyhow::Error>((ns, f))
    })?;
    let snap = Snapshot::from_text(&fetched.list, "the cluster")?;
    Ok((snap, ns, true))
}

/// Offline without `-n`: the namespace of the one HPA of that name in the file.
fn only_namespace_of(snap: &Snapshot, name: &str) -> Result<String> {
    let found: Vec<String> = snap
        .hpa_names(None)
        .into_iter()
        .filter(|n| n.split_once('/').is_some_and(|(_, x)| x == name))
        .collect();
    match found.as_slice() {
        [one] => Ok(one
            .split_once('/')
            .map(|(ns, _)| ns.to_string())
            .unwrap_or_default()),
        [] => Err(anyhow!(
            "{}: no HorizontalPodAutoscaler named {name:?} (it holds: {})",
            snap.source,
            snap.hpa_names(None).join(", ")
        )),
        many => Err(anyhow!(
            "{}: several HPAs are named {name:?} ({}): give -n NAMESPACE",
            snap.source,
            many.join(", ")
        )),
    }
}
