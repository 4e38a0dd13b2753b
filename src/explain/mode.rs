//! Which way `explain` runs, from its flags (and, offline, from the snapshot's HPAs): the
//! command (`commands::explain`) wires each [`Mode`] to the feature.

use anyhow::{bail, Result};

use super::fleet_contexts as contexts;
use super::one;
use crate::cli::{ExplainOptions, Source};
use crate::diagnose::Extras;
use crate::snapshot::Snapshot;

/// What `explain` does, from its flags (and, offline, from the snapshot's HPAs).
pub enum Mode {
    /// One HPA of a snapshot file.
    OfflineOne {
        snap: Snapshot,
        extras: Extras,
        name: String,
    },
    /// Every HPA of a snapshot file (of `-n`, or all with `-A`).
    OfflineFleet { snap: Snapshot, extras: Extras },
    /// One HPA of the cluster, compared with its live status.
    LiveOne(String),
    /// Every HPA of a namespace of the cluster (or all with `-A`).
    LiveFleet,
    /// Re-evaluate every sync period: one HPA (NAME) or the fleet.
    Watch(Option<String>),
    /// Several contexts: the fleet of each, or NAME in each.
    Contexts(Vec<String>, Option<String>),
}

/// The mode of these options; offline, the snapshot file is read to choose.
pub fn mode(opts: &ExplainOptions) -> Result<Mode> {
    let path = match &opts.read.source {
        Source::Cluster if opts.watch.on => return Ok(Mode::Watch(opts.read.name.clone())),
        Source::Cluster => {
            return Ok(match (contexts::contexts(opts)?, &opts.read.name) {
                (Some(cs), n) => Mode::Contexts(cs, n.clone()),
                (None, Some(n)) => Mode::LiveOne(n.clone()),
                (None, None) => Mode::LiveFleet,
            })
        }
        Source::Snapshot(path) => path,
    };
    let (snap, extras) = one::read_snapshot_file(path)?;
    if let Some(n) = &opts.read.name {
        let name = n.clone();
        return Ok(Mode::OfflineOne { snap, extras, name });
    }
    let names = snap.hpa_names(opts.read.namespace.as_deref());
    let fleet_flags = opts.read.selector.is_some() || opts.view.sort_by.is_some();
    match names.as_slice() {
        [one] if !opts.read.all_namespaces && !fleet_flags => {
            let name = one
                .split_once('/')
                .map(|(_, n)| n.to_string())
                .unwrap_or_default();
            Ok(Mode::OfflineOne { snap, extras, name })
        }
        [] if snap.hpas.is_empty() && !fleet_flags => bail!(
            "{}: the snapshot holds no HorizontalPodAutoscaler",
            snap.source
        ),
        // Several HPAs and no NAME (or -A, -l, --sort-by): the fleet overview.
        _ => Ok(Mode::OfflineFleet { snap, extras }),
    }
}
