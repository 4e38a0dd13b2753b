//! Benchmark: the fleet overview against the fake API server with 20 ms of latency per request.
//!
//! 500 HPAs in 50 namespaces (each a Deployment with a ReplicaSet, 2 pods and their PodMetrics):
//! the request count and wall time of `explain -A`; the round trips and time of one single-HPA
//! `explain`; and `kubectl describe hpa` on the same server when `kubectl` is on PATH. Then
//! 2,000 HPAs in 100 namespaces with 4 pods each (8,000 pods): `explain -A` beside `kubectl get
//! hpa -A`, and the peak RSS of `explain -A` (when /usr/bin/time is there). Then five contexts
//! (five servers of 500 HPAs each) read by one `explain -A --context …` beside the slowest
//! single context, first with the servers building every answer, then answering repeated
//! requests from a cache (`FakeApiServer::cache_answers`: five real clusters' API servers run
//! on their own machines, not on the client's cores). Beside each `explain -A` row, the
//! floor: our own requests each sent alone to the same server (one latency plus the sum of
//! each one's serving time, as if every request went out at once to a server that answers one
//! at a time).
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
    if std::env::var_os("FLEET_BENCH_SERVE").is_some() {
        return serve_for_profiling();
    }
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
    let mut ours = || {
        let mut c = bin();
        c.args(["explain", "-A", "--kubeconfig"]).arg(kc);
        c
    };
    let (with, _) = median(&server, "explain -A", &mut ours);
    print_floor(&server, "explain -A at 500 HPAs", &mut ours, with);
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
        "  one explain: {single} requests over 2 dependent round trips (the HPA, its namespace's pods and PodMetrics → its target and what may block it); \
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
    five_contexts(&dir);
}

/// `FLEET_BENCH_SERVE=1` (or `2000`): serve the big fleet (2,000 HPAs, 8,000 pods, 20 ms per
/// request) until killed, to profile by hand; prints the kubeconfig. `FLEET_BENCH_SERVE=500`:
/// the 500-HPA fleet; `FLEET_BENCH_SERVE=five`: five servers of 500 HPAs, a kubeconfig with
/// contexts c0…c4 (with `FLEET_BENCH_CACHE=1`, the servers answer from a cache: see
/// `FakeApiServer::cache_answers`).
fn serve_for_profiling() {
    let what = std::env::var("FLEET_BENCH_SERVE").unwrap_or_default();
    let dir = std::env::temp_dir().join(format!("kubectl-hpa-bench-serve-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let _servers = match what.as_str() {
        "five" => {
            let servers: Vec<FakeApiServer> =
                (0..5).map(|_| FakeApiServer::start(objects())).collect();
            for s in &servers {
                s.set_latency(LATENCY);
                if std::env::var_os("FLEET_BENCH_CACHE").is_some() {
                    s.cache_answers();
                }
            }
            println!("{}", five_kubeconfig(&dir, &servers).display());
            servers
        }
        _ => {
            let (namespaces, per_ns, pods) = match what.as_str() {
                "500" => (NAMESPACES, PER_NS, 2),
                _ => BIG,
            };
            let server = FakeApiServer::start(fleet(namespaces, per_ns, pods));
            server.set_latency(LATENCY);
            println!("{}", server.write_kubeconfig(&dir).display());
            vec![server]
        }
    };
    std::thread::sleep(Duration::from_secs(3600));
}

/// The floor of a run whose requests the server recorded: one latency plus the serving time
/// of each request sent alone (no latency, one at a time, each on its own connection).
fn floor(server: &FakeApiServer) -> Duration {
    use std::io::{Read, Write};
    let requests = server.requests();
    server.set_latency(Duration::ZERO);
    let mut serving = Duration::ZERO;
    for r in &requests {
        let query: Vec<String> = r
            .query
            .iter()
            .map(|(k, v)| format!("{k}={}", encode(v)))
            .collect();
        let target = match query.is_empty() {
            true => r.path.clone(),
            false => format!("{}?{}", r.path, query.join("&")),
        };
        let t = Instant::now();
        let mut stream = std::net::TcpStream::connect(server.addr()).expect("connect");
        write!(
            stream,
            "GET {target} HTTP/1.1\r\nHost: {}\r\nAuthorization: Bearer fake-token\r\nAccept: application/json\r\nConnection: close\r\n\r\n",
            server.addr()
        )
        .expect("send");
        let mut answer = Vec::new();
        stream.read_to_end(&mut answer).expect("answer");
        serving += t.elapsed();
    }
    server.set_latency(LATENCY);
    LATENCY + serving
}

/// A query value as a URL carries it.
fn encode(v: &str) -> String {
    v.bytes()
        .map(|b| match b {
            b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                (b as char).to_string()
            }
            b => format!("%{b:02X}"),
        })
        .collect()
}

/// `explain -A` once more with the latency, then its floor on the same server.
fn print_floor(
    server: &FakeApiServer,
    what: &str,
    run: &mut dyn FnMut() -> Command,
    took: Duration,
) {
    server.set_latency(LATENCY);
    server.clear_requests();
    let out = run().output().expect("runs");
    assert!(out.status.success(), "{what}");
    let f = floor(server);
    println!(
        "  {what}: floor {:.1} ms (one latency + each of our {} requests served alone); the run takes {:.2}× the floor",
        f.as_secs_f64() * 1e3,
        server.requests().len(),
        took.as_secs_f64() / f.as_secs_f64()
    );
}

/// A kubeconfig with one context per server (c0, c1, …), in `dir/five`.
fn five_kubeconfig(dir: &Path, servers: &[FakeApiServer]) -> PathBuf {
    let mut y = String::from("apiVersion: v1\nkind: Config\nclusters:\n");
    for (k, s) in servers.iter().enumerate() {
        y += &format!("- name: c{k}\n  cluster:\n    server: {}\n", s.url());
    }
    y += "contexts:\n";
    for k in 0..servers.len() {
        y += &format!("- name: c{k}\n  context:\n    cluster: c{k}\n    user: u\n");
    }
    y += "current-context: c0\nusers:\n- name: u\n  user:\n    token: fake-token\n";
    let five = dir.join("five");
    std::fs::create_dir_all(&five).expect("dir");
    let kc = five.join("kubeconfig");
    std::fs::write(&kc, y).expect("kubeconfig");
    kc
}

/// Five contexts of 500 HPAs each (five servers): `explain -A` over the five beside the slowest
/// single context; the floor of the slowest context's server.
fn five_contexts(dir: &Path) {
    let servers: Vec<FakeApiServer> = (0..5).map(|_| FakeApiServer::start(objects())).collect();
    let kc = five_kubeconfig(dir, &servers);
    for s in &servers {
        s.set_latency(LATENCY);
    }
    println!(
        "five contexts: five fake API servers of {} HPAs each, {} ms latency per request",
        NAMESPACES * PER_NS,
        LATENCY.as_millis()
    );
    let run = |contexts: &[usize]| {
        let mut c = bin();
        c.args(["explain", "-A", "--kubeconfig"]).arg(&kc);
        for k in contexts {
            c.args(["--context", &format!("c{k}")]);
        }
        c
    };
    // The servers build every answer, their CPU on the cores the client runs on.
    let (slowest_k, slowest) =
        five_beside_one(&servers, &run, "explain -A, five contexts of 500 HPAs");
    print_floor(
        &servers[slowest_k],
        &format!("explain -A --context c{slowest_k}"),
        &mut || run(&[slowest_k]),
        slowest,
    );
    // The same with the servers answering from a cache: a real cluster's API server spends its
    // CPU on its own machines, not on the two cores of this one's client.
    for s in &servers {
        s.cache_answers();
    }
    five_beside_one(&servers, &run, "  the same, servers answering from a cache");
}

/// The five contexts read together and each alone, interleaved (each round runs the five
/// together, then each single context), printed as the row `label`: the slowest context and
/// its median alone.
fn five_beside_one(
    servers: &[FakeApiServer],
    run: &dyn Fn(&[usize]) -> Command,
    label: &str,
) -> (usize, Duration) {
    let mut together = Vec::new();
    let mut single: Vec<Vec<Duration>> = vec![Vec::new(); servers.len()];
    for _ in 0..RUNS {
        let t = Instant::now();
        let out = run(&[0, 1, 2, 3, 4]).output().expect("runs");
        together.push(t.elapsed());
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        for (k, times) in single.iter_mut().enumerate() {
            let t = Instant::now();
            assert!(run(&[k]).output().expect("runs").status.success());
            times.push(t.elapsed());
        }
    }
    let med = |mut v: Vec<Duration>| {
        v.sort();
        v[RUNS / 2]
    };
    let (slowest_k, slowest) = single
        .into_iter()
        .map(med)
        .enumerate()
        .max_by_key(|(_, d)| *d)
        .expect("five");
    let together = med(together);
    println!(
        "{:<44} wall {:>7.1} ms   slowest single context (c{slowest_k}) {:>7.1} ms   {:.2}×",
        label,
        together.as_secs_f64() * 1e3,
        slowest.as_secs_f64() * 1e3,
        together.as_secs_f64() / slowest.as_secs_f64()
    );
    (slowest_k, slowest)
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
    let big = dir.join("big");
    std::fs::create_dir_all(&big).expect("dir");
    let kc = server.write_kubeconfig(&big);
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
    print_floor(
        &server,
        &format!("explain -A at {hpas} HPAs"),
        &mut || ours(),
        with,
    );
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
