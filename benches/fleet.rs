//! Benchmark: the fleet overview against the fake API server with 20 ms of latency per request.
//!
//! 500 HPAs in 50 namespaces (each a Deployment with a ReplicaSet, 2 pods and their PodMetrics):
//! the request count and wall time of `explain -A`; the round trips and time of one single-HPA
//! `explain`; and `kubectl describe hpa` on the same server when `kubectl` is on PATH. Then
//! 2,000 HPAs in 100 namespaces with 4 pods each (8,000 pods): `explain -A` beside `kubectl get
//! hpa -A`, and the peak RSS of `explain -A` (when /usr/bin/time is there).
//!
//! Run with `cargo bench --bench fleet`.

#[path = "../tests/support/fake_apiserver.rs"]
mod fake_apiserver;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use fake_apiserver::FakeApiServer;
use serde_json::{json, Value};

const NAMESPACES: usize = 50;
const PER_NS: usize = 10;
/// The big fleet: 100 namespaces of 20 HPAs, 4 pods each.
const BIG: (usize, usize, usize) = (100, 20, 4);
const LATENCY: Duration = Duration::from_millis(20);
const RUNS: usize = 3;

fn objects() -> Vec<Value> {
    fleet(NAMESPACES, PER_NS, 2)
}

/// `namespaces` × `per_ns` HPAs, each with its Deployment, ReplicaSet, `pods` pods and their
/// PodMetrics.
fn fleet(namespaces: usize, per_ns: usize, pods: usize) -> Vec<Value> {
    let mut o = Vec::new();
    for n in 0..namespaces {
        let ns = format!("team-{n:02}");
        for h in 0..per_ns {
            let app = format!("app-{h:03}");
            let rs = format!("{app}-5d4f");
            o.push(json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": app, "namespace": ns},
                "spec": {"replicas": pods, "selector": {"matchLabels": {"app": app}}}, "status": {"replicas": pods, "updatedReplicas": pods}}));
            o.push(json!({"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {"name": rs, "namespace": ns,
                "ownerReferences": [{"apiVersion": "apps/v1", "kind": "Deployment", "name": app, "uid": "x", "controller": true}]},
                "spec": {"replicas": pods, "selector": {"matchLabels": {"app": app}}}, "status": {"replicas": pods}}));
            o.push(json!({"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler", "metadata": {"name": app, "namespace": ns},
                "spec": {"minReplicas": 1, "maxReplicas": 10, "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": app},
                         "metrics": [{"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 50}}}]},
                "status": {"currentReplicas": pods, "desiredReplicas": pods}}));
            for p in 0..pods {
                let pod = format!("{rs}-{p}");
                o.push(json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": pod, "namespace": ns, "labels": {"app": app},
                        "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": rs, "uid": "y", "controller": true}]},
                    "spec": {"containers": [{"name": "app", "image": "x", "resources": {"requests": {"cpu": "100m"}}}]},
                    "status": {"phase": "Running", "startTime": "2026-03-01T10:00:00Z",
                               "conditions": [{"type": "Ready", "status": "True", "lastTransitionTime": "2026-03-01T10:01:00Z"}]}}));
                o.push(json!({"apiVersion": "metrics.k8s.io/v1beta1", "kind": "PodMetrics", "metadata": {"name": pod, "namespace": ns},
                    "timestamp": "2026-03-01T12:00:00Z", "window": "30s",
                    "containers": [{"name": "app", "usage": {"cpu": format!("{}m", 30 + 10 * (h % 6))}}]}));
            }
        }
    }
    o
}

fn bin() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_kubectl-hpa"));
    c.env("NO_COLOR", "1").env_remove("KUBECONFIG");
    c
}

fn on_path(name: &str) -> Option<PathBuf> {
    std::env::var_os("PATH").and_then(|p| {
        std::env::split_paths(&p)
            .map(|d| d.join(name))
            .find(|f| f.is_file())
    })
}

fn median(
    server: &FakeApiServer,
    what: &str,
    make: &mut dyn FnMut() -> Command,
) -> (Duration, usize) {
    let mut times = Vec::new();
    let mut requests = 0;
    for _ in 0..RUNS {
        server.clear_requests();
        let t = Instant::now();
        let out = make().output().expect("runs");
        let took = t.elapsed();
        assert!(
            out.status.success(),
            "{what}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        times.push(took);
        requests = server.requests().len();
    }
    times.sort();
    (times[RUNS / 2], requests)
}

/// Runs the command RUNS times with the latency and RUNS times without: the request count, the
/// median wall time with latency, and the part of it the latency adds (the fake server itself
/// is not fast with thousands of objects: it rescans them on every request, under one lock).
fn measure(server: &FakeApiServer, what: &str, mut make: impl FnMut() -> Command) -> usize {
    server.set_latency(LATENCY);
    let (with, requests) = median(server, what, &mut make);
    server.set_latency(Duration::ZERO);
    let (without, _) = median(server, what, &mut make);
    server.set_latency(LATENCY);
    let added = with.saturating_sub(without);
    println!(
        "{what:<44} {requests:>4} requests   wall {:>7.1} ms   of which latency {:>6.1} ms (≈ {:.1} round trips of {} ms)",
        with.as_secs_f64() * 1e3,
        added.as_secs_f64() * 1e3,
        added.as_secs_f64() / LATENCY.as_secs_f64(),
        LATENCY.as_millis()
    );
    requests
}

fn main() {
    let server = FakeApiServer::start(objects());
    let dir = std::env::temp_dir().join(format!("kubectl-hpa-bench-fleet-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let kc = server.write_kubeconfig(&dir);
    let kc: &Path = &kc;
    println!(
        "fake API server: {} HPAs in {NAMESPACES} namespaces, {} pods, {} ms latency per request",
        NAMESPACES * PER_NS,
        NAMESPACES * PER_NS * 2,
        LATENCY.as_millis()
    );

    // Check the answer once: every HPA decided.
    let out = bin()
        .args(["explain", "-A", "-o", "json", "--kubeconfig"])
        .arg(kc)
        .output()
        .expect("runs");
    let v: Value = serde_json::from_slice(&out.stdout).expect("json");
    let items = v["items"].as_array().expect("items");
    assert_eq!(items.len(), NAMESPACES * PER_NS);
    assert!(items.iter().all(|i| i["error"].is_null()));

    let fleet = measure(&server, "explain -A (500 HPAs, table)", || {
        let mut c = bin();
        c.args(["explain", "-A", "--kubeconfig"]).arg(kc);
        c
    });
    measure(&server, "explain -A -o json (500 full decisions)", || {
        let mut c = bin();
        c.args(["explain", "-A", "-o", "json", "--kubeconfig"])
            .arg(kc);
        c
    });
    measure(&server, "explain -n team-07 (10 HPAs)", || {
        let mut c = bin();
        c.args(["explain", "-n", "team-07", "--kubeconfig"]).arg(kc);
        c
    });
    let single = measure(&server, "explain app-003 -n team-07 (one HPA)", || {
        let mut c = bin();
        c.args(["explain", "app-003", "-n", "team-07", "--kubeconfig"])
            .arg(kc);
        c
    });
    println!(
        "  one explain: {single} requests over 3 dependent round trips (HPA → scale → pods/PodMetrics); \
         per-HPA explains of the fleet would take {} requests",
        single * NAMESPACES * PER_NS
    );
    println!("  explain -A: {fleet} requests, independent of the number of HPAs");
    // The same 500 HPAs offline: the client's own time to evaluate and render them.
    let file = dir.join("fleet.json");
    std::fs::write(
        &file,
        serde_json::to_string(&json!({"apiVersion": "v1", "kind": "List", "items": objects()}))
            .expect("json"),
    )
    .expect("write");
    let mut times = Vec::new();
    for _ in 0..RUNS {
        let t = Instant::now();
        let out = bin()
            .args(["explain", "-A", "--snapshot"])
            .arg(&file)
            .output()
            .expect("runs");
        assert!(out.status.success());
        times.push(t.elapsed());
    }
    times.sort();
    println!(
        "{:<44} {:>4} requests   wall {:>7.1} ms",
        "explain -A --snapshot (same 500 HPAs, offline)",
        0,
        times[RUNS / 2].as_secs_f64() * 1e3
    );
    match on_path("kubectl") {
        Some(k) => {
            measure(&server, "kubectl describe hpa app-003 -n team-07", || {
                let mut c = Command::new(&k);
                c.args([
                    "describe",
                    "hpa",
                    "app-003",
                    "-n",
                    "team-07",
                    "--kubeconfig",
                ])
                .arg(kc);
                c
            });
            measure(&server, "kubectl get hpa -A", || {
                let mut c = Command::new(&k);
                c.args(["get", "hpa", "-A", "--kubeconfig"]).arg(kc);
                c
            });
        }
        None => println!("kubectl not on PATH: kubectl describe hpa not measured"),
    }
    big_fleet(&dir);
}

/// The peak RSS of a command in MB, from /usr/bin/time (None without it).
fn peak_rss_mb(c: Command) -> Option<f64> {
    let time = Path::new("/usr/bin/time");
    if !time.is_file() {
        return None;
    }
    let mut t = Command::new(time);
    t.arg("-f")
        .arg("%M")
        .arg(c.get_program())
        .args(c.get_args());
    for (k, v) in c.get_envs() {
        match v {
            Some(v) => t.env(k, v),
            None => t.env_remove(k),
        };
    }
    let out = t.output().ok()?;
    let kb: f64 = String::from_utf8_lossy(&out.stderr)
        .lines()
        .last()?
        .trim()
        .parse()
        .ok()?;
    Some(kb / 1024.0)
}

/// 2,000 HPAs (8,000 pods): `explain -A` beside `kubectl get hpa -A`, and its peak RSS.
fn big_fleet(dir: &Path) {
    let (namespaces, per_ns, pods) = BIG;
    let server = FakeApiServer::start(fleet(namespaces, per_ns, pods));
    let kc = server.write_kubeconfig(&dir.join("big"));
    let kc: &Path = &kc;
    let hpas = namespaces * per_ns;
    println!(
        "fake API server: {hpas} HPAs in {namespaces} namespaces, {} pods, {} ms latency per request",
        hpas * pods,
        LATENCY.as_millis()
    );
    let ours = || {
        let mut c = bin();
        c.args(["explain", "-A", "--kubeconfig"]).arg(kc);
        c
    };
    measure(&server, &format!("explain -A ({hpas} HPAs, table)"), ours);
    server.set_latency(LATENCY);
    let (with, _) = median(&server, "explain -A", &mut || ours());
    match on_path("kubectl") {
        Some(k) => {
            let (theirs, _) = median(&server, "kubectl get hpa -A", &mut || {
                let mut c = Command::new(&k);
                c.args(["get", "hpa", "-A", "--kubeconfig"]).arg(kc);
                c
            });
            println!(
                "  explain -A / kubectl get hpa -A at {hpas} HPAs: {:.2}× ({:.1} ms / {:.1} ms)",
                with.as_secs_f64() / theirs.as_secs_f64(),
                with.as_secs_f64() * 1e3,
                theirs.as_secs_f64() * 1e3
            );
        }
        None => println!("kubectl not on PATH: kubectl get hpa -A not measured"),
    }
    match peak_rss_mb(ours()) {
        Some(mb) => println!("  explain -A peak RSS at {hpas} HPAs: {mb:.1} MB"),
        None => println!("  /usr/bin/time not found: peak RSS not measured"),
    }
}
