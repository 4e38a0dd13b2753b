//! `kubectl hpa explain`: fetch or read a snapshot, run the core, render the trace.

use anyhow::{anyhow, bail, Result};
use jiff::Timestamp;

use crate::cli::{ExplainOptions, Source};
use crate::core::{evaluate, Decision};
use crate::snapshot::Snapshot;

/// Where "now" came from, for the assumptions list.
fn resolve_now(opts: &ExplainOptions, snap: &Snapshot) -> (Timestamp, String) {
    if let Some(t) = opts.now {
        return (t, format!("evaluated at {t} (--now)"));
    }
    if let Some(t) = snap.taken_at {
        return (t, format!("evaluated at {t}, when the snapshot was taken"));
    }
    if let Some(t) = snap.newest_metric_time() {
        return (
            t,
            format!(
                "evaluated at {t}, the newest metric sample in the snapshot (use --now to choose)"
            ),
        );
    }
    let t = Timestamp::now();
    (
        t,
        format!("evaluated at {t}, the current time (the snapshot has no timestamps)"),
    )
}

/// Pick the namespace of NAME in a snapshot when `-n` is not given.
fn resolve_namespace(opts: &ExplainOptions, snap: &Snapshot, name: &str) -> String {
    if let Some(ns) = &opts.namespace {
        return ns.clone();
    }
    let matching: Vec<String> = snap
        .hpa_names(None)
        .into_iter()
        .filter_map(|full| {
            let (ns, n) = full.split_once('/')?;
            (n == name).then(|| ns.to_string())
        })
        .collect();
    if matching.len() == 1 {
        matching[0].clone()
    } else {
        "default".into()
    }
}

/// Compute the decision for one HPA of a snapshot.
pub fn decide_from_snapshot(
    opts: &ExplainOptions,
    snap: &Snapshot,
    name: &str,
) -> Result<Decision> {
    decide_with_input(opts, snap, name).map(|(_, d)| d)
}

/// Like [`decide_from_snapshot`], also returning the core's input (for diagnostics).
pub fn decide_with_input(
    opts: &ExplainOptions,
    snap: &Snapshot,
    name: &str,
) -> Result<(crate::core::Input, Decision)> {
    let namespace = resolve_namespace(opts, snap, name);
    let (now, now_note) = resolve_now(opts, snap);
    let mut input = snap
        .input_for(
            &namespace,
            name,
            opts.settings.clone(),
            opts.history.clone(),
            now,
        )
        .map_err(|e| anyhow!(e))?;
    // Without --history, the HPA's SuccessfulRescale events (in the snapshot, live or offline)
    // give the recent scale events the rate policies count.
    let mut event_notes = Vec::new();
    if !opts.history_given {
        if let Some(b) = &input.hpa.behavior {
            let longest = b
                .scale_up
                .policies
                .iter()
                .chain(&b.scale_down.policies)
                .map(|p| p.period_seconds)
                .max()
                .unwrap_or(0);
            let rescales =
                crate::events::rescales(snap.events_for(&namespace, name), &namespace, name);
            let (h, notes) = crate::events::history_from_rescales(
                &rescales,
                now,
                jiff::SignedDuration::from_secs(longest as i64),
            );
            input.history.scale_up_events = h.scale_up_events;
            input.history.scale_down_events = h.scale_down_events;
            event_notes = notes;
        }
    }
    let mut d = evaluate(&input);
    let own = snap.own_failures_for(&namespace, name, &input.hpa.metrics);
    if !own.is_empty() {
        d.verdict = crate::core::Verdict {
            action: crate::core::Action::Unknown,
            from: d.verdict.from,
            to: None,
            decided_by: "FetchFailed".into(),
            summary: format!(
                "could not read {}; the controller's own view is unknown",
                own.join(", ")
            ),
        };
        crate::note_own_failure();
    }
    d.assumptions.insert(0, now_note);
    d.assumptions.extend(event_notes);
    if !snap.has_pod_metrics
        && input.hpa.metrics.iter().any(|m| {
            matches!(
                m,
                crate::core::MetricSpec::Resource { .. }
                    | crate::core::MetricSpec::ContainerResource { .. }
            )
        })
    {
        d.assumptions.push(
            "the snapshot holds no PodMetrics (metrics.k8s.io): resource metrics are treated as returning no data".into(),
        );
    }
    Ok((input, d))
}

/// Run `explain` and return the rendered output.
pub fn run(opts: &ExplainOptions) -> Result<String> {
    match &opts.source {
        Source::Snapshot(path) => {
            let (snap, extras) = super::fleet::read_snapshot_file(path)?;
            let name = match &opts.name {
                Some(n) => n.clone(),
                None => {
                    let names = snap.hpa_names(opts.namespace.as_deref());
                    match names.as_slice() {
                        [one] if !opts.all_namespaces => one
                            .split_once('/')
                            .map(|(_, n)| n.to_string())
                            .unwrap_or_default(),
                        [] => bail!(
                            "{}: the snapshot holds no autoscaling/v2 HorizontalPodAutoscaler",
                            snap.source
                        ),
                        // Several HPAs and no NAME: the fleet overview.
                        _ => return super::fleet::run_offline(opts, &snap, &extras),
                    }
                }
            };
            let (input, d) = decide_with_input(opts, &snap, &name)?;
            let findings = crate::diagnose::diagnose(&snap, &input, &d, &extras);
            super::fleet::render_with_diagnostics(&d, &findings, opts)
        }
        Source::Cluster if opts.watch => super::watch::run(opts),
        Source::Cluster if opts.name.is_none() => super::fleet::run_live(opts),
        Source::Cluster => super::live::run(opts),
    }
}
