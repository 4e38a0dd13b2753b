//! The history's evidence, read from a [`Snapshot`] (a file, or what the cluster answered).

use jiff::Timestamp;

use super::{Condition, Evidence};
use crate::snapshot::Snapshot;

/// The evidence of HPA `namespace/name` in `snap`; an error names what is missing.
pub fn from_snapshot(snap: &Snapshot, namespace: &str, name: &str) -> Result<Evidence, String> {
    let hpa = snap.hpa(namespace, name).map_err(|e| e.to_string())?;
    let status = hpa.status.as_ref();
    let target_replicas = snap
        .target_of(namespace, name)
        .map(|w| w.scale.spec_replicas);
    let conditions = status
        .and_then(|s| s.conditions.as_ref())
        .map(|cs| {
            cs.iter()
                .map(|c| Condition {
                    type_: c.type_.clone(),
                    status: c.status.clone(),
                    reason: c.reason.clone().unwrap_or_default(),
                    since: c.last_transition_time.as_ref().map(|t| t.0),
                })
                .collect()
        })
        .unwrap_or_default();
    Ok(Evidence {
        namespace: namespace.to_string(),
        name: name.to_string(),
        target_replicas,
        last_scale_time: status.and_then(|s| s.last_scale_time.as_ref()).map(|t| t.0),
        conditions,
        rescales: crate::events::rescales(snap.events_for(namespace, name), namespace, name),
    })
}

/// The time a `--since` duration reaches back to from `now`.
pub fn since(now: Timestamp, seconds: i64) -> Timestamp {
    now.checked_sub(jiff::SignedDuration::from_secs(seconds))
        .unwrap_or(Timestamp::MIN)
}
