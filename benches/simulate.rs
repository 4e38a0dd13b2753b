//! Benchmark of `kubectl hpa simulate`: 30 days at a 15 s sync period (172,800 syncs) of a CPU
//! HPA with the default behavior under a daily sine load, in process, output discarded.
//!
//! Run with `cargo bench --bench simulate`. Prints the wall time per run and the process's peak
//! resident memory after a 1-day and after a 30-day run (equal peaks: memory does not grow with
//! the length of the run), then runs the two Python references of the same controller step in
//! the same world over the same 30 days and prints the per-sync ratios. Both agree with the
//! simulation at every sync (see tests/it/simulate.rs):
//! - `benches/simulate_reference_api.py`, the straightforward reference: the controller's
//!   functions written plainly over API-shaped objects (the issue's "straightforward reference
//!   implementation");
//! - `benches/simulate_reference.py`, the lean one: the same step specialised by hand to this one
//!   HPA, the fastest Python we could write for it.

use std::time::Instant;

use clap::Parser;
use kubectl_hpa::run_simulate as execute;
use kubectl_hpa::{Environment, SimulateArgs};

#[derive(Parser)]
struct Wrapper {
    #[command(flatten)]
    args: SimulateArgs,
}

/// Peak resident set size of this process, from /proc (Linux), in KiB.
fn peak_rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// The arguments of the benchmarked run: 4 pods of 500m under a daily sine of 1–7 cores.
fn argv<'a>(manifest: &'a str, duration: &'a str, output: &'a str) -> [&'a str; 15] {
    [
        "simulate",
        "--hpa",
        manifest,
        "--replicas",
        "4",
        "--requests",
        "cpu=500m",
        "--demand",
        "cpu=sine:4:3:24h",
        "--duration",
        duration,
        "--timeline",
        "none",
        "-o",
        output,
    ]
}

/// The run in this process, output discarded (the simulation alone).
fn run(manifest: &str, duration: &str, output: &str) -> f64 {
    let w = Wrapper::try_parse_from(argv(manifest, duration, output)).expect("valid arguments");
    let env = Environment {
        stdout_is_tty: false,
        no_color: true,
        columns: None,
    };
    let mut sink = std::io::sink();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    let t = Instant::now();
    execute(&w.args, &env, &rt, &mut sink).expect("simulation runs");
    t.elapsed().as_secs_f64()
}

/// A Python reference's time (`benches/SCRIPT`) for `syncs` syncs, or `None` without python3.
fn reference(script: &str, syncs: u64, behavior: &str) -> Option<f64> {
    let script = format!("{}/benches/{script}", env!("CARGO_MANIFEST_DIR"));
    let out = std::process::Command::new("python3")
        .args([&script, &syncs.to_string(), behavior])
        .output()
        .ok()?;
    let text = String::from_utf8(out.stdout).ok()?;
    text.split_whitespace().nth(1)?.parse().ok()
}

fn main() {
    let dir = env!("CARGO_MANIFEST_DIR");
    let behavior = format!("{dir}/tests/simulate_data/cpu-default-behavior.yaml");
    let plain = format!("{dir}/tests/simulate_data/cpu.yaml");
    run(&behavior, "1h", "text"); // warm up
    let day = run(&behavior, "24h", "text");
    let rss_day = peak_rss_kib();
    println!(
        "1 day  (5,760 syncs), default behavior, text:   {:>7.1} ms; peak RSS {:?} KiB",
        day * 1e3,
        rss_day
    );
    let mut best_text = f64::MAX;
    for (label, manifest, output) in [
        ("default behavior, text", &behavior, "text"),
        ("default behavior, csv ", &behavior, "csv"),
        ("default behavior, json", &behavior, "json"),
        ("no behavior,      text", &plain, "text"),
    ] {
        let mut best = f64::MAX;
        for _ in 0..3 {
            best = best.min(run(manifest, "720h", output));
        }
        println!(
            "30 days (172,800 syncs), {label}: {:>7.1} ms (best of 3; {:.2} µs per sync); peak RSS {:?} KiB",
            best * 1e3,
            best * 1e6 / 172_800.0,
            peak_rss_kib()
        );
        if output == "text" && manifest == &behavior {
            best_text = best;
        }
    }
    for (label, script) in [
        (
            "straightforward Python reference",
            "simulate_reference_api.py",
        ),
        ("lean Python reference           ", "simulate_reference.py"),
    ] {
        match reference(script, 172_800, "default") {
            Some(py) => println!(
                "{label}, 30 days, default behavior: {:>8.1} ms ({:.2} µs per sync); simulate is {:.1}× faster per sync",
                py * 1e3,
                py * 1e6 / 172_800.0,
                py / best_text
            ),
            None => println!("{label}: python3 not found, ratio not measured"),
        }
    }
}
