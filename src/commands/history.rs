//! `kubectl hpa history NAME`: load the HPA and its Events (a snapshot file, or the cluster) →
//! the [`crate::history`] feature → output.

use anyhow::{anyhow, Result};
use jiff::Timestamp;

use crate::cli::history::HistoryOptions;
use crate::history::{self, evidence, run as replay, Window};
use crate::output::contract::{Document, Kind};
use crate::output::Format;

/// Run `history` and return its output.
pub fn run(opts: &HistoryOptions, rt: &tokio::runtime::Runtime) -> Result<String> {
    let (snap, namespace, live) = history::source::load(
        &opts.snapshot,
        opts.namespace.as_deref(),
        &opts.kube,
        &opts.name,
        rt,
    )?;
    let e = evidence::from_snapshot(&snap, &namespace, &opts.name).map_err(|m| anyhow!(m))?;
    let now = opts
        .now
        .or(snap.taken_at)
        .or((!live).then(|| snap.newest_metric_time()).flatten())
        .or((!live)
            .then(|| e.rescales.iter().map(|r| r.last).max())
            .flatten())
        .unwrap_or_else(Timestamp::now);
    let to = opts.to.unwrap_or(now);
    let from = opts.from.or(opts.since.map(|s| evidence::since(to, s)));
    let mut h = history::build(&e, Window { from, to });
    if let Some(p) = &opts.prometheus {
        // The replay needs a start: the window asked for, else the last hour.
        let from = from.unwrap_or_else(|| evidence::since(to, 3600));
        let template =
            replay::template(&snap, (&namespace, &opts.name), &opts.settings, live, from)?;
        let endpoint = crate::simulate::prometheus::open(&p.target, &opts.kube, rt)?;
        let req = replay::Request {
            prometheus: &endpoint,
            queries: &p.queries,
            from,
            to,
            rate_window: p.rate_window,
            metrics_lag: p.metrics_lag,
        };
        let r = replay::replay_window(&template, &req)?;
        if let Some(path) = &opts.chart {
            let metric = r
                .recorded
                .metrics
                .iter()
                .flatten()
                .next()
                .map_or("", |m| &m.name);
            let title = format!("{namespace}/{}: recorded and replayed", opts.name);
            let (syncs, changes) = (&r.syncs, &r.section.changes);
            let svg =
                history::chart::render(&title, metric, syncs, changes, template.settings.tolerance);
            std::fs::write(path, svg)
                .map_err(|e| anyhow!("--chart {}: cannot write: {e}", path.display()))?;
        }
        let turns = r.section.summary.max_direction_changes_per_hour;
        h.tuning = history::tuning::propose(&template, &r.recorded, turns);
        h.source = "prometheus".into();
        h.replay = Some(r.section);
    }
    Ok(match opts.output {
        f @ (Format::Json | Format::Yaml) => {
            crate::output::document(&Document::new(Kind::History, &h), f)?
        }
        _ => match &h.replay {
            Some(r) => {
                let (ns, name) = (&h.namespace, &h.name);
                history::replay_text::render(ns, name, (r, &h.tuning), now, opts.width)
            }
            None => history::text::render(&h, now, opts.width),
        },
    })
}
