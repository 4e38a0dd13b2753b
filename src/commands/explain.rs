//! `kubectl hpa explain`: load (a snapshot file or the cluster) → the [`crate::explain`] feature
//! → output. One [`Mode`] per way of running; each is a few lines of wiring.

use anyhow::{bail, Result};

use crate::cli::{ExplainOptions, Source};
use crate::cluster;
use crate::diagnose::Extras;
use crate::explain::fleet_contexts::{self as contexts, progress};
use crate::explain::{fleet_watch, live, one, overview, watch};
use crate::output::Outcome;
use crate::snapshot::Snapshot;
use tokio::runtime::Runtime;

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

/// Run `explain`; the outcome flags our own failures (exit 3). What `-o name`, `-o jsonpath=…`
/// and `-o custom-columns=…` print the features select from the typed document (a fleet watch
/// writes its custom columns as it goes).
pub fn run_selected(
    opts: &ExplainOptions,
    rt: &Runtime,
    w: &mut dyn std::io::Write,
) -> Result<Outcome> {
    let text = match (&opts.at, opts.names.len() > 1) {
        (Some(at), _) => crate::history::at::explain(opts, at, rt)?,
        (None, true) => run_several(opts, rt, w)?,
        (None, false) => run(opts, rt, w)?,
    };
    Ok(Outcome {
        text,
        own_failure: opts.own_failures.any(),
    })
}

/// `explain web api`: each NAME explained in turn, as `kubectl describe` does with several
/// names; the text one after the other, JSON and YAML as a v1 `List` of the explanations.
fn run_several(opts: &ExplainOptions, rt: &Runtime, w: &mut dyn std::io::Write) -> Result<String> {
    let mut one = opts.each_name();
    let mut outs = Vec::new();
    for name in &opts.names {
        one.name = Some(name.clone());
        outs.push(run(&one, rt, w)?);
    }
    match &opts.select {
        Some(sel) => Ok(sel.apply(&crate::cli::several_list(&outs)?)?),
        None => crate::cli::join_several(opts.output, outs),
    }
}

/// Run `explain` and return the rendered output (`--watch` streams into `w`).
pub fn run(opts: &ExplainOptions, rt: &Runtime, w: &mut dyn std::io::Write) -> Result<String> {
    match mode(opts)? {
        Mode::OfflineOne { snap, extras, name } => one::render_one(opts, &snap, &extras, &name),
        Mode::OfflineFleet { snap, extras } => overview::run_offline(opts, &snap, &extras),
        Mode::LiveOne(name) => live_one(opts, rt, &name),
        Mode::LiveFleet => live_fleet(opts, rt),
        Mode::Watch(Some(_)) => watch::run(opts, rt, w),
        Mode::Watch(None) => fleet_watch::run(opts, rt, w),
        Mode::Contexts(cs, None) => contexts::run(opts, rt, &cs, &progress(opts)),
        Mode::Contexts(cs, Some(n)) => contexts::explain_each(opts, rt, &cs, &n, &progress(opts)),
    }
}

/// The mode of these options; offline, the snapshot file is read to choose.
pub fn mode(opts: &ExplainOptions) -> Result<Mode> {
    let path = match &opts.source {
        Source::Cluster if opts.watch => return Ok(Mode::Watch(opts.name.clone())),
        Source::Cluster => {
            return Ok(match (contexts::contexts(opts)?, &opts.name) {
                (Some(cs), n) => Mode::Contexts(cs, n.clone()),
                (None, Some(n)) => Mode::LiveOne(n.clone()),
                (None, None) => Mode::LiveFleet,
            })
        }
        Source::Snapshot(path) => path,
    };
    let (snap, extras) = one::read_snapshot_file(path)?;
    if let Some(n) = &opts.name {
        let name = n.clone();
        return Ok(Mode::OfflineOne { snap, extras, name });
    }
    let names = snap.hpa_names(opts.namespace.as_deref());
    let fleet_flags = opts.selector.is_some() || opts.sort_by.is_some();
    match names.as_slice() {
        [one] if !opts.all_namespaces && !fleet_flags => {
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

/// Live `explain NAME`: fetch → decide and compare → output.
fn live_one(opts: &ExplainOptions, rt: &Runtime, name: &str) -> Result<String> {
    if opts.all_namespaces {
        bail!("-A/--all-namespaces lists a fleet (kubectl hpa explain -A); to explain one HPA use NAME -n NAMESPACE");
    }
    let progress = progress(opts);
    let (context, namespace, fetched) = rt.block_on(async {
        let conn = cluster::connect(&opts.kube).await?;
        let ns = conn.namespace.clone();
        let f = cluster::fetch_hpa_with(&conn, &ns, name, &progress).await?;
        Ok::<_, anyhow::Error>((conn.context.clone(), ns, f))
    })?;
    live::explain_fetched(opts, name, &context, namespace, fetched)
}

/// Live fleet overview: fetch (requests that do not grow with the HPAs) → decide each → output.
fn live_fleet(opts: &ExplainOptions, rt: &Runtime) -> Result<String> {
    let progress = progress(opts);
    let (conn, fetched) = rt.block_on(async {
        let conn = cluster::connect(&opts.kube).await?;
        let ns = (!opts.all_namespaces).then(|| conn.namespace.clone());
        let f = cluster::fetch_fleet(&conn, ns.as_deref(), &progress).await?;
        Ok::<_, anyhow::Error>((conn, f))
    })?;
    let at = overview::LiveScope {
        context: &conn.context,
        server: &conn.server,
        namespace: (!opts.all_namespaces).then_some(conn.namespace.as_str()),
    };
    overview::live_overview(opts, &at, fetched)
}
