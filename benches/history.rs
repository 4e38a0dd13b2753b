//! Benchmark: `history --prometheus`'s own work over a 7-day window at 15 s syncs (40,320
//! syncs): the replay of the controller at every sync and the matching of the recorded changes,
//! on series already read (`kubectl_hpa::HistoryBench`: a daily wave of CPU demand with the
//! replicas a controller would keep). Prometheus' time is not in it. Goal: under 1 s.
//!
//! Run with `cargo bench --bench history`. Prints the median and best time over several runs.

use std::time::{Duration, Instant};

use jiff::Timestamp;
use kubectl_hpa::{HistoryBench, Snapshot};

const DAYS: i64 = 7;
const RUNS: usize = 5;

fn main() {
    let root = env!("CARGO_MANIFEST_DIR");
    let snap = Snapshot::from_file(std::path::Path::new(&format!(
        "{root}/examples/scale-up-cpu.yaml"
    )))
    .expect("the example");
    let to: Timestamp = "2026-11-08T00:00:00Z".parse().unwrap();
    let bench = HistoryBench::new(&snap, to, DAYS).expect("the example's HPA and its queries");
    let mut times: Vec<Duration> = Vec::with_capacity(RUNS);
    let mut events = 0;
    for _ in 0..RUNS {
        let t = Instant::now();
        let (e, syncs) = bench.run();
        times.push(t.elapsed());
        events = e;
        assert_eq!(syncs, bench.grid_len() - 20);
    }
    times.sort();
    println!(
        "history replay, {DAYS} days at 15 s ({} syncs, {events} recorded changes): median {:?}, best {:?} (goal: under 1 s; Prometheus time not included)",
        bench.grid_len(),
        times[RUNS / 2],
        times[0]
    );
}
