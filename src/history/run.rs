//! `history --prometheus`: plan the queries, read them, replay the controller and match the
//! recorded changes. The only I/O is the Prometheus reads of `simulate`'s client (the replay's
//! own time is measured by `benches/history.rs`, without them).

use jiff::{SignedDuration, Timestamp};

use super::prom::{self, Grid};
use super::recorded::Recorded;
use super::replay::{self, ReplaySync};
use super::replayed::{self, Replay};
use crate::core::{Evidence, History, Input, Settings};
use crate::simulate::backtest::BacktestError;
use crate::simulate::prometheus::{Endpoint, PromError};
use crate::snapshot::Snapshot;

/// Why the replay could not run; each renders as one line.
#[derive(Debug, thiserror::Error)]
pub enum ReplayError {
    #[error("{0}")]
    Prometheus(#[from] PromError),
    #[error("{0}")]
    Plan(#[from] BacktestError),
    /// The HPA could not become the core's input (its snapshot, its settings).
    #[error("{0}")]
    Source(String),
    #[error("--from/--to: the window {from} to {to} holds no sync; give a later --to or an earlier --from")]
    EmptyWindow { from: Timestamp, to: Timestamp },
}

/// What to replay.
#[derive(Debug, Clone)]
pub struct Request<'a> {
    /// The Prometheus read (a URL, or a Service through the API server's proxy).
    pub prometheus: &'a Endpoint<'a>,
    /// `--query NAME=PROMQL`.
    pub queries: &'a [(String, String)],
    pub from: Timestamp,
    pub to: Timestamp,
    /// `--rate-window`: the CPU rate's window (default: four syncs).
    pub rate_window: Option<SignedDuration>,
    /// `--metrics-lag`: how much older than each sync the metric the controller read was.
    pub metrics_lag: SignedDuration,
}

/// The replay, with what it was computed from (for the chart and `explain --at`).
#[derive(Debug, Clone)]
pub struct Replayed {
    pub section: Replay,
    pub syncs: Vec<ReplaySync>,
    pub recorded: Recorded,
}

/// The metric window in syncs: what "explained earlier/later" allows (the CPU rate's window,
/// at least four syncs).
pub fn metric_window(step: SignedDuration) -> usize {
    let s = step.as_secs().max(1);
    (60_i64.max(4 * s) / s) as usize
}

/// What Prometheus answered for a window, on the sync grid.
struct Read {
    recorded: Recorded,
    queries: prom::Queries,
    notes: Vec<String>,
}

/// Read what the controller read over `[from, to]` (and the lead before it).
fn read(template: &Input, req: &Request<'_>) -> Result<Read, ReplayError> {
    let step = template.settings.sync_period;
    let grid = Grid::new(req.from, req.to, step, replay::lead(template));
    if req.to < req.from || grid.is_empty() {
        return Err(ReplayError::EmptyWindow {
            from: req.from,
            to: req.to,
        });
    }
    let queries = prom::plan(template, req.queries, &grid, req.rate_window)?;
    let mut notes = Vec::new();
    let mut recorded = prom::fetch(req.prometheus, &queries, &grid, &mut notes)?;
    recorded.lag_metrics(req.metrics_lag);
    Ok(Read {
        recorded,
        queries,
        notes,
    })
}

/// Read what the controller read over `[from, to]` and replay it.
pub fn replay_window(template: &Input, req: &Request<'_>) -> Result<Replayed, ReplayError> {
    let step = template.settings.sync_period;
    let Read {
        recorded,
        queries,
        notes,
    } = read(template, req)?;
    let window = req.rate_window.map_or(metric_window(step), |w| {
        metric_window(step)
            .min((w.as_secs().max(1) as usize).div_ceil(step.as_secs().max(1) as usize))
    });
    let (section, syncs) = replay_recorded(
        template,
        &recorded,
        (&req.prometheus.url, window),
        &queries,
        notes,
    );
    Ok(Replayed {
        section,
        syncs,
        recorded,
    })
}

/// One past sync replayed in full (`explain --at`).
#[derive(Debug, Clone)]
pub struct AtSync {
    /// The core's input of that sync (the recorded world on the template's HPA).
    pub input: Input,
    /// The full decision, step by step, with the memory the syncs before it built.
    pub decision: crate::core::Decision,
    /// What kube-state-metrics recorded at that sync: the target's replicas and the desired
    /// replicas the HPA's status held.
    pub recorded_current: Option<i32>,
    pub recorded_desired: Option<i32>,
    /// The syncs replayed before it, and the queries read.
    pub lead_syncs: usize,
    pub queries: Vec<String>,
    pub notes: Vec<String>,
}

/// The decision of the sync at `req.from` (`req.to` is ignored): the lead's syncs build the
/// controller's memory, then that sync is evaluated with the full trace.
pub fn decision_at(template: &Input, req: &Request<'_>) -> Result<AtSync, ReplayError> {
    let req = Request {
        to: req.from,
        ..req.clone()
    };
    let r = read(template, &req)?;
    let k = r.recorded.window_start;
    let (input, decision) =
        replay::decision_at(template, &r.recorded, k).ok_or(ReplayError::EmptyWindow {
            from: req.from,
            to: req.to,
        })?;
    Ok(AtSync {
        input,
        decision,
        recorded_current: r.recorded.current.get(k).copied().flatten(),
        recorded_desired: r.recorded.desired.get(k).copied().flatten(),
        lead_syncs: k,
        queries: query_list(&r.queries),
        notes: r.notes,
    })
}

/// Every query of a replay, in the order the document lists them.
fn query_list(queries: &prom::Queries) -> Vec<String> {
    let mut list = vec![
        queries.desired.clone(),
        queries.current.clone(),
        queries.min.clone(),
        queries.max.clone(),
        queries.ready.clone(),
    ];
    for m in queries.metrics.iter().flatten() {
        list.push(m.query.clone());
        list.extend(m.request.clone());
    }
    list
}

/// The pure part: replay `recorded` and match its changes.
pub fn replay_recorded(
    template: &Input,
    recorded: &Recorded,
    (prometheus, window): (&str, usize),
    queries: &prom::Queries,
    notes: Vec<String>,
) -> (Replay, Vec<ReplaySync>) {
    let syncs = replay::replay(template, recorded);
    let list = query_list(queries);
    let section = replayed::section(&syncs, window, recorded.step, prometheus, list, notes);
    (section, syncs)
}

/// The core's input for HPA `namespace/name` of `snap` at `from`: the template every sync of the
/// replay starts from, with the settings of the flags and the release the snapshot shows.
pub fn template(
    snap: &Snapshot,
    (namespace, name): (&str, &str),
    settings: &Settings,
    live: bool,
    from: Timestamp,
) -> Result<Input, ReplayError> {
    let evidence = snap.server_version.as_deref().map(|v| match live {
        true => Evidence::Server(v),
        false => Evidence::Snapshot(v),
    });
    let settings = settings
        .for_cluster(evidence, snap.controller_flags.as_ref())
        .map_err(|e| ReplayError::Source(format!("--feature-gates: {e}")))?;
    snap.input_for(namespace, name, settings, History::default(), from)
        .map_err(|e| ReplayError::Source(e.to_string()))
}
