//! `explain NAME --at TIME --prometheus URL`: the decision of one past sync, replayed from what
//! Prometheus recorded ([`super::run::decision_at`]: the syncs of the lead rebuild the
//! controller's memory), rendered as `explain` renders a live decision — text, wide, JSON or
//! YAML — with the assumptions saying it is a replay at TIME and from which data.

use anyhow::Result;

use super::run::{self, AtSync, Request};
use super::source;
use crate::cli::history::AtOptions;
use crate::cli::{ExplainOptions, Source};
use crate::core::Decision;
use crate::display::units::duration;
use crate::display::url::mask_userinfo;

/// The explanation of the sync at `at.at` of the HPA `opts.read.name`.
pub fn explain(
    opts: &ExplainOptions,
    at: &AtOptions,
    rt: &tokio::runtime::Runtime,
) -> Result<String> {
    let name = opts.read.name.as_deref().unwrap_or_default();
    let files = match &opts.read.source {
        Source::Snapshot(files) => files.as_slice(),
        Source::Cluster => &[],
    };
    let (snap, namespace, live) = source::load(
        files,
        opts.read.namespace.as_deref(),
        &opts.read.kube,
        name,
        rt,
    )?;
    let template = run::template(
        &snap,
        (&namespace, name),
        &opts.decide.settings,
        live,
        at.at,
    )?;
    let p = &at.prometheus;
    let endpoint = crate::simulate::prometheus::open(&p.target, &opts.read.kube, rt)?;
    let req = Request {
        prometheus: &endpoint,
        queries: &p.queries,
        from: at.at,
        to: at.at,
        rate_window: p.rate_window,
        metrics_lag: p.metrics_lag,
    };
    let found = run::decision_at(&template, &req)?;
    let mut d = found.decision.clone();
    d.assumptions
        .splice(0..0, assumptions(&found, &d, &endpoint.url));
    if let Some(sel) = &opts.view.select {
        let doc = crate::output::contract::live_explanation::<()>(&d, None, &[], None);
        return Ok(sel.print(&doc)?);
    }
    let cx = crate::render::Context {
        specs: &found.input.hpa.raw_metrics,
        findings: &[],
        chain: None,
        keda: None,
        capacity: None,
        other_hands: None,
    };
    crate::render::render_explain(&d, &cx, opts.view.output, &opts.view.text_options())
}

/// What the replay assumed, first in the list: when, from which data, with which memory, and
/// what the controller recorded at that sync.
fn assumptions(found: &AtSync, d: &Decision, url: &str) -> Vec<String> {
    let lead =
        found.decision.settings.sync_period * (found.lead_syncs.min(i32::MAX as usize) as i32);
    let mut out = vec![
        format!(
            "replayed at {} (--at) from what Prometheus {} recorded: the HPA's kube-state-metrics series, the workload's Ready pods and each metric's load ({} queries); the controller's memory rebuilt by replaying the {} syncs ({}) before",
            d.now,
            mask_userinfo(url),
            found.queries.len(),
            found.lead_syncs,
            duration(lead),
        ),
        format!(
            "the pods are stand-ins for the recorded ones: {} replicas, their recorded requests, the load shared evenly by the Ready pods",
            d.current_replicas.map_or("the recorded".to_string(), |n| n.to_string())
        ),
    ];
    out.push(match (found.recorded_current, found.recorded_desired) {
        (Some(c), Some(w)) if Some(w) == d.desired_replicas => format!(
            "at this sync kube-state-metrics recorded {c} replicas and desired replicas {w}: the replay decided the same"
        ),
        (Some(c), Some(w)) => format!(
            "at this sync kube-state-metrics recorded {c} replicas and desired replicas {w}, the replay decided {}: run kubectl hpa history --prometheus over the window to see why they differ",
            d.desired_replicas.map_or("nothing".into(), |n| n.to_string())
        ),
        _ => "kube-state-metrics recorded no replicas at this sync: the replay carried the last decision over".to_string(),
    });
    out.extend(found.notes.iter().cloned());
    out
}
