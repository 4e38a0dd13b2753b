//! The one entry point of `benches/history.rs` (the crate keeps [`crate::history`] private):
//! a window of recorded series — a daily wave of CPU demand (0.5 to 4.5 cores) with the
//! replicas a controller would keep — replayed and matched as `history --prometheus` does,
//! without Prometheus.

use jiff::{SignedDuration, Timestamp};

use super::prom::{self, Grid};
use super::recorded::{Recorded, RecordedMetric, SeriesKind};
use super::run::replay_recorded;
use crate::core::{History, Input, Settings};
use crate::snapshot::Snapshot;

/// What one bench run replays: HPA shop/web of a snapshot over `days` ending `to`.
pub struct HistoryBench {
    template: Input,
    rec: Recorded,
    queries: prom::Queries,
    grid_len: usize,
}

impl HistoryBench {
    /// `None` when the snapshot has no HPA shop/web or its queries cannot be planned.
    pub fn new(snap: &Snapshot, to: Timestamp, days: i64) -> Option<HistoryBench> {
        let from = to - SignedDuration::from_hours(24 * days);
        let template = snap
            .input_for("shop", "web", Settings::default(), History::default(), from)
            .ok()?;
        let grid = Grid::new(
            from,
            to,
            SignedDuration::from_secs(15),
            SignedDuration::from_secs(300),
        );
        let queries = prom::plan(&template, &[], &grid, None).ok()?;
        Some(HistoryBench {
            template,
            rec: recorded(&grid),
            queries,
            grid_len: grid.len(),
        })
    }

    /// Syncs on the grid (the lead included).
    pub fn grid_len(&self) -> usize {
        self.grid_len
    }

    /// One replay and match: (recorded changes, syncs replayed in the window).
    pub fn run(&self) -> (u32, usize) {
        let (section, syncs) = replay_recorded(
            &self.template,
            &self.rec,
            ("http://bench", 4),
            &self.queries,
            vec![],
        );
        (section.summary.scale_events, syncs.len())
    }
}

/// The daily wave on `grid`, the lead's first 20 syncs before the window.
fn recorded(grid: &Grid) -> Recorded {
    let n = grid.len();
    let step = grid.step.as_secs_f64();
    let load: Vec<Option<f64>> = (0..n)
        .map(|k| {
            let t = k as f64 * step;
            Some(2.5 + 2.0 * (t / 86_400.0 * std::f64::consts::TAU).sin())
        })
        .collect();
    let replicas: Vec<Option<i32>> = load
        .iter()
        .map(|l| Some(((l.unwrap_or(0.0) / 0.25).ceil() as i32).clamp(2, 10)))
        .collect();
    let mut current = vec![replicas[0]];
    current.extend(replicas[..n.saturating_sub(1)].iter().copied());
    Recorded {
        start: grid.start,
        step: grid.step,
        window_start: 20,
        desired: replicas.clone(),
        current,
        min: vec![Some(2); n],
        max: vec![Some(10); n],
        ready: replicas,
        metrics: vec![Some(RecordedMetric {
            name: "cpu".into(),
            kind: SeriesKind::Total,
            query: "cpu".into(),
            values: load,
            request: vec![Some(0.5); n],
        })],
    }
}
