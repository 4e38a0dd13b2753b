//! `kubectl hpa explain`: fetch or read a snapshot, run the core, render the trace.

use anyhow::{anyhow, bail, Result};
use jiff::Timestamp;

use crate::cli::{ExplainOptions, Source};
use crate::core::{evaluate_with_memory, Decision, Evidence, History, Settings};
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

/// The settings for a snapshot: the release of `--kubernetes-version`, else the server's
/// `/version` (live) or the version the snapshot recorded (offline), else the newest release;
/// `--feature-gates` checked against that release.
pub fn settings_for(opts: &ExplainOptions, snap: &Snapshot) -> Result<Settings> {
    let evidence = snap.server_version.as_deref().map(|v| match opts.source {
        Source::Cluster => Evidence::Server(v),
        Source::Snapshot(_) => Evidence::Snapshot(v),
    });
    let mut s = opts
        .settings
        .for_evidence(evidence)
        .map_err(|e| anyhow::Error::new(crate::cli::UsageError(format!("--feature-gates: {e}"))))?;
    if evidence.is_none()
        && opts.source == Source::Cluster
        && s.requested.kubernetes_version.is_none()
    {
        s.kubernetes_version_source += " (the server's /version could not be read)";
    }
    Ok(s)
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
    let settings = settings_for(opts, snap)?;
    let mut input = snap
        .input_for(&namespace, name, settings, History::default(), now)
        .map_err(|e| anyhow!(e))?;
    // The controller's memory: inferred from the HPA's status and SuccessfulRescale Events (in
    // the snapshot, live or offline), empty, or exactly the --history file.
    let rescales = crate::events::rescales(snap.events_for(&namespace, name), &namespace, name);
    let mut d = evaluate_with_memory(&mut input, &opts.history, &rescales);
    let own = snap.own_failures_for(&namespace, name, &input.hpa.metrics);
    if !own.is_empty() {
        d.verdict = crate::core::Verdict {
            action: crate::core::Action::Unknown,
            from: d.verdict.from,
            to: None,
            decided_by: crate::core::Rule::FetchFailed,
            summary: format!(
                "could not read {}; the controller's own view is unknown",
                own.join(", ")
            ),
        };
        d.desired_range = None;
        crate::note_own_failure();
    }
    d.assumptions.insert(0, now_note);
    snap.amend(&input, &mut d);
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

/// Run `explain`, then print what `-o name` / `-o jsonpath=…` select from its JSON.
pub fn run_selected(opts: &ExplainOptions) -> Result<String> {
    let out = run(opts)?;
    match &opts.select {
        Some(sel) => sel.apply(&out),
        None => Ok(out),
    }
}

/// `--no-headers`: the fleet table's first line is its header (`HPA …` or `NAMESPACE …`).
fn fleet_headers(out: String, opts: &ExplainOptions) -> String {
    let text = matches!(
        opts.output,
        crate::cli::OutputFormat::Text | crate::cli::OutputFormat::Wide
    );
    if !opts.no_headers || !text {
        return out;
    }
    match out.split_once('\n') {
        Some((first, rest)) if first.starts_with("HPA ") || first.starts_with("NAMESPACE ") => {
            rest.to_string()
        }
        _ => out,
    }
}

/// Run `explain` and return the rendered output.
pub fn run(opts: &ExplainOptions) -> Result<String> {
    match &opts.source {
        Source::Snapshot(path) => {
            let (snap, extras) = Snapshot::read_with_extras(path)?;
            let name = match &opts.name {
                Some(n) => n.clone(),
                None => {
                    let names = snap.hpa_names(opts.namespace.as_deref());
                    match names.as_slice() {
                        [one] if !opts.all_namespaces => one
                            .split_once('/')
                            .map(|(_, n)| n.to_string())
                            .unwrap_or_default(),
                        [] if snap.hpas.is_empty() => bail!(
                            "{}: the snapshot holds no HorizontalPodAutoscaler",
                            snap.source
                        ),
                        // Several HPAs and no NAME: the fleet overview.
                        _ => {
                            return super::fleet::run_offline(opts, &snap, &extras)
                                .map(|o| fleet_headers(o, opts))
                        }
                    }
                }
            };
            let (input, d) = decide_with_input(opts, &snap, &name)?;
            let findings = crate::diagnose::diagnose(&snap, &input, &d, &extras);
            let cx = crate::render::Context {
                specs: &input.hpa.raw_metrics,
                findings: &findings,
            };
            crate::render::render_explain(&d, &cx, opts.output, &opts.text_options())
        }
        Source::Cluster if opts.watch => super::watch::run(opts),
        Source::Cluster if opts.name.is_none() => {
            super::fleet::run_live(opts).map(|o| fleet_headers(o, opts))
        }
        Source::Cluster => super::live::run(opts),
    }
}
