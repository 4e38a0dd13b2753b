//! Benchmark: `history --prometheus`'s own work over a 7-day window at 15 s syncs (40,320
//! syncs): the replay of the controller at every sync and the matching of the recorded changes,
//! on series already read. Prometheus' time is not in it: the command measures the reads
//! apart (`history::run::Replayed::prometheus_time`). Goal: under 1 s.
//!
//! Run with `cargo bench --bench history`. Prints the median and best time over several runs.

use std::time::{Duration, Instant};

use jiff::{SignedDuration, Timestamp};
use kubectl_hpa::history::prom::{self, Grid};
use kubectl_hpa::history::recorded::{Recorded, RecordedMetric, SeriesKind};
use kubectl_hpa::history::run::replay_recorded;
use kubectl_hpa::Snapshot;
use kubectl_hpa::{History, Settings};

const DAYS: i64 = 7;
const RUNS: usize = 5;

/// A daily wave of CPU demand (0.5 to 4.5 cores) with the replicas a controller would keep.
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
        .map(|l| Some(((l.unwrap() / 0.25).ceil() as i32).clamp(2, 10)))
        .collect();
    let mut current = vec![replicas[0]];
    current.extend(replicas[..n - 1].iter().copied());
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

fn main() {
    let root = env!("CARGO_MANIFEST_DIR");
    let snap = Snapshot::from_file(std::path::Path::new(&format!(
        "{root}/examples/scale-up-cpu.yaml"
    )))
    .expect("the example");
    let to: Timestamp = "2026-11-08T00:00:00Z".parse().unwrap();
    let from = to - SignedDuration::from_hours(24 * DAYS);
    let template = snap
        .input_for("shop", "web", Settings::default(), History::default(), from)
        .expect("the example's HPA");
    let grid = Grid::new(
        from,
        to,
        SignedDuration::from_secs(15),
        SignedDuration::from_secs(300),
    );
    let rec = recorded(&grid);
    let queries = prom::plan(&template, &[], &grid, None).expect("the queries");
    let mut times: Vec<Duration> = Vec::with_capacity(RUNS);
    let mut events = 0;
    for _ in 0..RUNS {
        let t = Instant::now();
        let (section, syncs) =
            replay_recorded(&template, &rec, ("http://bench", 4), &queries, vec![]);
        times.push(t.elapsed());
        events = section.summary.scale_events;
        assert_eq!(syncs.len(), grid.len() - 20);
    }
    times.sort();
    println!(
        "history replay, {DAYS} days at 15 s ({} syncs, {events} recorded changes): median {:?}, best {:?} (goal: under 1 s; Prometheus time not included)",
        grid.len(),
        times[RUNS / 2],
        times[0]
    );
}
