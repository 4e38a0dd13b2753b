//! Benchmark: `explain` of a snapshot with 10,000 pods (read, validate, decide, render).
//!
//! Run with `cargo bench --bench explain`. Prints the median and best time of each phase over
//! several runs and the process's peak resident memory (VmHWM).

use std::time::{Duration, Instant};

use kubectl_hpa::render_decision as render;
use kubectl_hpa::Snapshot;
use kubectl_hpa::{evaluate, History, OutputFormat, Settings};
use serde_json::{json, Value};

const PODS: usize = 10_000;
const RUNS: usize = 7;

fn snapshot() -> Value {
    let mut items = vec![
        json!({
            "apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",
            "metadata": {"name": "big", "namespace": "bench"},
            "spec": {
                "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "big"},
                "minReplicas": 1, "maxReplicas": 20000,
                "metrics": [
                    {"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 60}}},
                    {"type": "Resource", "resource": {"name": "memory", "target": {"type": "AverageValue", "averageValue": "200Mi"}}}
                ]
            }
        }),
        json!({
            "apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "big", "namespace": "bench"},
            "spec": {"replicas": PODS, "selector": {"matchLabels": {"app": "big"}}, "template": {}},
            "status": {"replicas": PODS}
        }),
    ];
    for i in 0..PODS {
        let name = format!("big-{i:05}");
        // Every 50th pod is still starting, every 97th has no metrics yet.
        let starting = i % 50 == 0;
        items.push(json!({
            "apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": "bench", "labels": {"app": "big"},
                          "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "big-abc", "uid": "u", "controller": true}]},
            "spec": {"containers": [
                {"name": "app", "resources": {"requests": {"cpu": "500m", "memory": "256Mi"}}},
                {"name": "sidecar", "resources": {"requests": {"cpu": "50m", "memory": "32Mi"}}}
            ]},
            "status": {
                "phase": "Running",
                "startTime": if starting { "2026-03-01T11:58:00Z" } else { "2026-03-01T08:00:00Z" },
                "conditions": [{"type": "Ready", "status": if starting { "False" } else { "True" },
                                "lastTransitionTime": if starting { "2026-03-01T11:59:50Z" } else { "2026-03-01T08:01:00Z" }}]
            }
        }));
        if i % 97 != 0 {
            items.push(json!({
                "apiVersion": "metrics.k8s.io/v1beta1", "kind": "PodMetrics",
                "metadata": {"name": name, "namespace": "bench", "labels": {"app": "big"}},
                "timestamp": "2026-03-01T12:00:00Z", "window": "30s",
                "containers": [
                    {"name": "app", "usage": {"cpu": format!("{}n", 300_000_000 + (i as u64 * 7919) % 200_000_000), "memory": "180Mi"}},
                    {"name": "sidecar", "usage": {"cpu": "12345678n", "memory": "20Mi"}}
                ]
            }));
        }
    }
    json!({"apiVersion": "v1", "kind": "List", "items": items})
}

fn peak_rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    status
        .lines()
        .find(|l| l.starts_with("VmHWM:"))?
        .split_whitespace()
        .nth(1)?
        .parse()
        .ok()
}

fn stats(mut v: Vec<Duration>) -> (Duration, Duration) {
    v.sort();
    (v[v.len() / 2], v[0])
}

fn main() {
    let dir = std::env::temp_dir().join(format!("kubectl-hpa-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("snapshot-10k.json");
    std::fs::write(&path, serde_json::to_vec(&snapshot()).unwrap()).unwrap();
    let size = std::fs::metadata(&path).unwrap().len();

    let (mut read, mut build, mut decide, mut text, mut json_out, mut total) =
        (vec![], vec![], vec![], vec![], vec![], vec![]);
    let mut desired = None;
    for _ in 0..RUNS {
        let t0 = Instant::now();
        let snap = Snapshot::from_file(&path).expect("snapshot parses");
        let t1 = Instant::now();
        let input = snap
            .input_for(
                "bench",
                "big",
                Settings::default(),
                History::default(),
                "2026-03-01T12:00:00Z".parse().unwrap(),
            )
            .expect("input builds");
        let t2 = Instant::now();
        let d = evaluate(&input);
        let t3 = Instant::now();
        let out_text = render(&d, OutputFormat::Text, false).unwrap();
        let t4 = Instant::now();
        let out_json = render(&d, OutputFormat::Json, false).unwrap();
        let t5 = Instant::now();
        assert!(out_text.len() > 1000 && out_json.len() > 1000);
        desired = d.desired_replicas;
        read.push(t1 - t0);
        build.push(t2 - t1);
        decide.push(t3 - t2);
        text.push(t4 - t3);
        json_out.push(t5 - t4);
        total.push(t5 - t0);
    }
    let _ = std::fs::remove_dir_all(&dir);
    println!(
        "explain benchmark: {PODS} pods, snapshot {:.1} MiB JSON, {RUNS} runs (median / best)",
        size as f64 / 1048576.0
    );
    for (name, v) in [
        ("read + parse snapshot", read),
        ("validate + build input", build),
        ("decide (core)", decide),
        ("render text", text),
        ("render json", json_out),
        ("total", total),
    ] {
        let (med, best) = stats(v);
        println!(
            "  {name:<24} {:>9.2} ms / {:>9.2} ms",
            med.as_secs_f64() * 1e3,
            best.as_secs_f64() * 1e3
        );
    }
    println!("  desired replicas: {desired:?}");
    match peak_rss_kib() {
        Some(k) => println!("  peak RSS: {:.1} MiB", k as f64 / 1024.0),
        None => println!("  peak RSS: unavailable"),
    }
}
