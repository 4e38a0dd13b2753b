//! Benchmark of issue 12 (cluster scale), every target measured side by side in one run:
//!
//! * offline `explain -A --snapshot` at 500 and 2,000 HPAs (50 namespaces, 4 pods per HPA with
//!   the fields `kubectl get -o json` prints — managedFields, env, probes, volumes — their
//!   PodMetrics, a Deployment, a ReplicaSet, 2 events and a behavior per HPA), with and without
//!   the `kubectl-hpa.dev/taken-at` annotation (without it, "now" is the newest sample), and offline
//!   `explain NAME -o json` over 1,000 and 10,000 pods, each next to
//!   `python3 -c 'import json; json.load(open(F))'` on the same file, with peak RSS;
//! * live `explain -A` (500 HPAs) next to `kubectl get hpa -A`, and live `explain NAME` next
//!   to `kubectl describe hpa`, on the fake API server with 20 ms per request.
//!
//! Run with `cargo bench --bench scale` (prints a Markdown table).

#[path = "../tests/support/fake_apiserver.rs"]
mod fake_apiserver;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use fake_apiserver::FakeApiServer;
use serde_json::{json, Value};

const RUNS: usize = 7;
const NAMESPACES: usize = 50;
const NOW: &str = "2026-03-01T12:00:00Z";
const LATENCY: Duration = Duration::from_millis(20);

fn managed_fields(manager: &str) -> Value {
    json!([{"apiVersion": "v1", "fieldsType": "FieldsV1", "manager": manager, "operation": "Update",
        "time": "2026-03-01T08:00:00Z",
        "fieldsV1": {"f:metadata": {"f:labels": {".": {}, "f:app": {}, "f:pod-template-hash": {}},
            "f:ownerReferences": {".": {}, "k:{\"uid\":\"7c18fa72\"}": {}}},
            "f:spec": {"f:containers": {"k:{\"name\":\"app\"}": {".": {}, "f:env": {}, "f:image": {},
                "f:livenessProbe": {}, "f:ports": {}, "f:readinessProbe": {}, "f:resources": {}}}}}},
        {"apiVersion": "v1", "fieldsType": "FieldsV1", "manager": "kubelet", "operation": "Update",
         "subresource": "status", "time": "2026-03-01T08:01:00Z",
         "fieldsV1": {"f:status": {"f:conditions": {}, "f:containerStatuses": {}, "f:hostIP": {},
            "f:phase": {}, "f:podIP": {}, "f:podIPs": {}, "f:startTime": {}}}}])
}

/// A pod as `kubectl get pod -o json` prints it (about 3 KB).
fn pod(ns: &str, app: &str, rs: &str, name: &str, i: usize) -> Value {
    json!({"apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": name, "namespace": ns, "uid": format!("uid-{name}"), "resourceVersion": "48214062",
            "creationTimestamp": "2026-03-01T08:00:00Z", "generateName": format!("{rs}-"),
            "labels": {"app": app, "pod-template-hash": "5d4f"},
            "annotations": {"kubectl.kubernetes.io/restartedAt": "2026-02-28T10:00:00Z", "prometheus.io/scrape": "true", "prometheus.io/port": "9090"},
            "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": rs, "uid": "7c18fa72", "controller": true, "blockOwnerDeletion": true}],
            "managedFields": managed_fields("kube-controller-manager")},
        "spec": {"containers": [{"name": "app", "image": "registry.example.com/shop/app:1.42.0",
                "env": [{"name": "LOG_LEVEL", "value": "info"}, {"name": "POD_NAME", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}}],
                "ports": [{"containerPort": 8080, "name": "http", "protocol": "TCP"}],
                "livenessProbe": {"httpGet": {"path": "/healthz", "port": 8080}, "periodSeconds": 10},
                "readinessProbe": {"httpGet": {"path": "/ready", "port": 8080}, "periodSeconds": 5},
                "resources": {"requests": {"cpu": "100m", "memory": "128Mi"}, "limits": {"memory": "256Mi"}},
                "volumeMounts": [{"mountPath": "/var/run/secrets/kubernetes.io/serviceaccount", "name": "kube-api-access", "readOnly": true}]}],
            "volumes": [{"name": "kube-api-access", "projected": {"defaultMode": 420, "sources": [{"serviceAccountToken": {"expirationSeconds": 3607, "path": "token"}}]}}],
            "nodeName": format!("node-{}", i % 40), "restartPolicy": "Always", "schedulerName": "default-scheduler",
            "serviceAccountName": "default", "terminationGracePeriodSeconds": 30,
            "tolerations": [{"effect": "NoExecute", "key": "node.kubernetes.io/not-ready", "operator": "Exists", "tolerationSeconds": 300}]},
        "status": {"phase": "Running", "startTime": "2026-03-01T08:00:00Z", "hostIP": "10.0.0.1", "podIP": "10.1.2.3",
            "qosClass": "Burstable",
            "conditions": [{"type": "Initialized", "status": "True", "lastTransitionTime": "2026-03-01T08:00:00Z"},
                           {"type": "Ready", "status": "True", "lastTransitionTime": "2026-03-01T08:01:00Z"},
                           {"type": "ContainersReady", "status": "True", "lastTransitionTime": "2026-03-01T08:01:00Z"},
                           {"type": "PodScheduled", "status": "True", "lastTransitionTime": "2026-03-01T08:00:00Z"}],
            "containerStatuses": [{"name": "app", "ready": true, "restartCount": 0, "started": true,
                "image": "registry.example.com/shop/app:1.42.0", "imageID": "registry.example.com/shop/app@sha256:0123456789abcdef",
                "containerID": "containerd://0123456789abcdef", "state": {"running": {"startedAt": "2026-03-01T08:00:30Z"}}}]}})
}

fn pod_metrics(ns: &str, app: &str, name: &str, cpu: &str) -> Value {
    json!({"apiVersion": "metrics.k8s.io/v1beta1", "kind": "PodMetrics",
        "metadata": {"name": name, "namespace": ns, "labels": {"app": app, "pod-template-hash": "5d4f"}, "creationTimestamp": NOW},
        "timestamp": NOW, "window": "30s", "containers": [{"name": "app", "usage": {"cpu": cpu, "memory": "100Mi"}}]})
}

/// `hpas` HPAs in 50 namespaces, 4 pods each, as `kubectl hpa snapshot` would write them.
fn fleet(hpas: usize) -> Vec<Value> {
    let mut o = Vec::new();
    for h in 0..hpas {
        let ns = format!("team-{:02}", h % NAMESPACES);
        let app = format!("app-{h:05}");
        let rs = format!("{app}-5d4f");
        o.push(json!({"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",
            "metadata": {"name": app, "namespace": ns, "uid": format!("hpa-{h}"), "resourceVersion": "1", "generation": 3,
                "creationTimestamp": "2026-01-01T00:00:00Z", "managedFields": managed_fields("kubectl")},
            "spec": {"minReplicas": 2, "maxReplicas": 20, "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": app},
                "metrics": [{"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 60}}}],
                "behavior": {"scaleDown": {"stabilizationWindowSeconds": 300, "policies": [{"type": "Percent", "value": 50, "periodSeconds": 60}]},
                    "scaleUp": {"stabilizationWindowSeconds": 0, "selectPolicy": "Max", "policies": [{"type": "Pods", "value": 4, "periodSeconds": 15}, {"type": "Percent", "value": 100, "periodSeconds": 15}]}}},
            "status": {"currentReplicas": 4, "desiredReplicas": 4, "observedGeneration": 3, "lastScaleTime": "2026-03-01T10:00:00Z",
                "currentMetrics": [{"type": "Resource", "resource": {"name": "cpu", "current": {"averageUtilization": 55, "averageValue": "55m"}}}],
                "conditions": [{"type": "AbleToScale", "status": "True", "reason": "ReadyForNewScale", "message": "recommended size matches current size", "lastTransitionTime": "2026-03-01T10:00:00Z"},
                               {"type": "ScalingActive", "status": "True", "reason": "ValidMetricFound", "message": "the HPA was able to successfully calculate a replica count from cpu resource utilization (percentage of request)", "lastTransitionTime": "2026-03-01T10:00:00Z"},
                               {"type": "ScalingLimited", "status": "False", "reason": "DesiredWithinRange", "message": "the desired count is within the acceptable range", "lastTransitionTime": "2026-03-01T10:00:00Z"}]}}));
        o.push(json!({"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": app, "namespace": ns, "uid": format!("dep-{h}"), "generation": 7, "managedFields": managed_fields("kubectl"),
                "annotations": {"deployment.kubernetes.io/revision": "7"}},
            "spec": {"replicas": 4, "selector": {"matchLabels": {"app": app}},
                "template": {"metadata": {"labels": {"app": app}}, "spec": {"containers": [{"name": "app", "image": "registry.example.com/shop/app:1.42.0", "resources": {"requests": {"cpu": "100m"}}}]}}},
            "status": {"replicas": 4, "updatedReplicas": 4, "readyReplicas": 4, "availableReplicas": 4, "observedGeneration": 7}}));
        o.push(json!({"apiVersion": "apps/v1", "kind": "ReplicaSet",
            "metadata": {"name": rs, "namespace": ns, "uid": "7c18fa72",
                "ownerReferences": [{"apiVersion": "apps/v1", "kind": "Deployment", "name": app, "uid": format!("dep-{h}"), "controller": true}]},
            "spec": {"replicas": 4, "selector": {"matchLabels": {"app": app, "pod-template-hash": "5d4f"}}},
            "status": {"replicas": 4, "readyReplicas": 4}}));
        for e in 0..2 {
            o.push(json!({"apiVersion": "v1", "kind": "Event",
                "metadata": {"name": format!("{app}.{e}"), "namespace": ns},
                "involvedObject": {"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler", "name": app, "namespace": ns},
                "reason": "SuccessfulRescale", "message": format!("New size: {}; reason: cpu resource utilization (percentage of request) above target", 3 + e),
                "type": "Normal", "count": 1, "firstTimestamp": format!("2026-03-01T1{e}:00:00Z"), "lastTimestamp": format!("2026-03-01T1{e}:00:00Z")}));
        }
        for p in 0..4 {
            let name = format!("{rs}-{p}");
            o.push(pod(&ns, &app, &rs, &name, h * 4 + p));
            o.push(pod_metrics(
                &ns,
                &app,
                &name,
                &format!("{}m", 40 + 10 * (h % 5)),
            ));
        }
    }
    o
}

/// One HPA over `pods` pods.
fn big(pods: usize) -> Vec<Value> {
    let mut o = vec![
        json!({"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler", "metadata": {"name": "big", "namespace": "bench"},
            "spec": {"minReplicas": 1, "maxReplicas": 50000, "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "big"},
                "metrics": [{"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 60}}}]}}),
        json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "big", "namespace": "bench"},
            "spec": {"replicas": pods, "selector": {"matchLabels": {"app": "big"}}}, "status": {"replicas": pods, "updatedReplicas": pods}}),
    ];
    for i in 0..pods {
        let name = format!("big-5d4f-{i:05}");
        o.push(pod("bench", "big", "big-5d4f", &name, i));
        o.push(pod_metrics(
            "bench",
            "big",
            &name,
            &format!("{}m", 50 + i % 40),
        ));
    }
    o
}

fn write(dir: &Path, name: &str, objects: Vec<Value>) -> PathBuf {
    let p = dir.join(name);
    let doc = json!({"apiVersion": "v1", "kind": "List",
        "metadata": {"annotations": {"kubectl-hpa.dev/taken-at": NOW}}, "items": objects});
    std::fs::write(&p, serde_json::to_vec(&doc).expect("json")).expect("write");
    p
}

/// The same objects as `kubectl get -o json` prints them: a List without the taken-at
/// annotation (the evaluation time then comes from the newest metric sample, issue 27 item 4).
fn write_plain(dir: &Path, name: &str, objects: Vec<Value>) -> PathBuf {
    let p = dir.join(name);
    let doc = json!({"apiVersion": "v1", "kind": "List", "metadata": {"resourceVersion": ""}, "items": objects});
    std::fs::write(&p, serde_json::to_vec(&doc).expect("json")).expect("write");
    p
}

/// One timed run of a command through `/usr/bin/time -f %M`: its wall time and peak RSS (KiB).
fn once(what: &str, make: &dyn Fn() -> Command) -> (Duration, Option<u64>) {
    let cmd = make();
    let mut timed = Command::new("/usr/bin/time");
    timed
        .arg("-f")
        .arg("%M")
        .arg(cmd.get_program())
        .args(cmd.get_args());
    for (k, v) in cmd.get_envs() {
        match v {
            Some(v) => timed.env(k, v),
            None => timed.env_remove(k),
        };
    }
    let t = Instant::now();
    let out = timed.output().expect("runs");
    let took = t.elapsed();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{what}: {err}");
    (took, err.lines().last().and_then(|l| l.trim().parse().ok()))
}

/// Median and best wall time and the peak RSS (KiB) of a command (the best is steadier on a
/// machine shared with other work).
fn run(what: &str, make: &dyn Fn() -> Command) -> (Duration, Duration, Option<u64>) {
    let mut times = Vec::new();
    let mut rss = None;
    for _ in 0..RUNS {
        let (t, r) = once(what, make);
        times.push(t);
        rss = r;
    }
    times.sort();
    (times[RUNS / 2], times[0], rss)
}

/// [`run`] of two commands, their runs interleaved (a, b, a, b, …) so that both see the same
/// load of a shared machine; `a`'s requests to the server counted apart from `b`'s.
fn run_pair(
    server: &FakeApiServer,
    (what_a, a): (&str, &dyn Fn() -> Command),
    (what_b, b): (&str, &dyn Fn() -> Command),
) -> ([(Duration, Duration, Option<u64>); 2], usize) {
    let (mut ta, mut tb, mut ra, mut rb, mut requests) = (vec![], vec![], None, None, 0);
    for _ in 0..RUNS {
        server.clear_requests();
        let (t, r) = once(what_a, a);
        requests = server.requests().len();
        ta.push(t);
        ra = r;
        let (t, r) = once(what_b, b);
        tb.push(t);
        rb = r;
    }
    ta.sort();
    tb.sort();
    let row = |t: &[Duration], r| (t[RUNS / 2], t[0], r);
    ([row(&ta, ra), row(&tb, rb)], requests)
}

fn ours(args: &[&str], file: Option<&Path>, kc: Option<&Path>) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_kubectl-hpa"));
    c.args(args).env("NO_COLOR", "1").env_remove("KUBECONFIG");
    if let Some(f) = file {
        c.arg("--snapshot").arg(f);
    }
    if let Some(k) = kc {
        c.arg("--kubeconfig").arg(k);
    }
    c
}

fn python(file: &Path) -> Command {
    let mut c = Command::new("python3");
    c.arg("-c")
        .arg("import json,sys; json.load(open(sys.argv[1]))")
        .arg(file);
    c
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn mib(k: Option<u64>) -> String {
    k.map_or("-".into(), |k| format!("{:.0} MB", k as f64 / 1024.0))
}

fn offline_row(label: &str, file: &Path, args: &[&str]) -> Duration {
    let size = std::fs::metadata(file).map(|m| m.len()).unwrap_or(0);
    let (t, tb, rss) = run(label, &|| ours(args, Some(file), None));
    let (p, pb, prss) = run("python", &|| python(file));
    println!(
        "| {label} | {:.1} MB | {:.0} ms ({:.0}) | {} | {:.0} ms ({:.0}) ({}) | {:.2}× ({:.2}×) |",
        size as f64 / 1e6,
        ms(t),
        ms(tb),
        mib(rss),
        ms(p),
        ms(pb),
        mib(prss),
        t.as_secs_f64() / p.as_secs_f64(),
        tb.as_secs_f64() / pb.as_secs_f64()
    );
    tb
}

fn live_row(
    server: &FakeApiServer,
    label: &str,
    ours_cmd: &dyn Fn() -> Command,
    theirs: &str,
    kubectl: &dyn Fn() -> Command,
) {
    let ([(t, tb, rss), (k, kb, _)], requests) =
        run_pair(server, (label, ours_cmd), (theirs, kubectl));
    println!(
        "| {label} ({requests} requests) | {:.0} ms ({:.0}) | {} | {theirs}: {:.0} ms ({:.0}) | {:.2}× ({:.2}×) |",
        ms(t),
        ms(tb),
        mib(rss),
        ms(k),
        ms(kb),
        t.as_secs_f64() / k.as_secs_f64(),
        tb.as_secs_f64() / kb.as_secs_f64()
    );
}

fn main() {
    // SCALE_BENCH_DIR=DIR keeps the generated files there (to profile or compare by hand).
    let keep = std::env::var_os("SCALE_BENCH_DIR").map(PathBuf::from);
    let dir = keep.clone().unwrap_or_else(|| {
        std::env::temp_dir().join(format!("kubectl-hpa-bench-scale-{}", std::process::id()))
    });
    std::fs::create_dir_all(&dir).expect("dir");
    if std::env::var_os("SCALE_BENCH_SERVE").is_some() {
        return serve_for_profiling(&dir);
    }
    println!("median (best) of {RUNS} runs; the live rows alternate the two commands run by run\n");
    if std::env::var("SCALE_BENCH_ONLY").as_deref() != Ok("live") {
        offline_rows(&dir);
    }
    live_rows(&dir);
    if keep.is_none() {
        let _ = std::fs::remove_dir_all(&dir);
    }
}

/// `SCALE_BENCH_SERVE=1`: serve the live fleet (500 HPAs, 20 ms per request) until killed
/// (`SCALE_BENCH_SERVE=big`: the 10,000 annotated pods of the memory row),
/// to profile by hand (`-v=6`, curl); prints the kubeconfig.
fn serve_for_profiling(dir: &Path) {
    let objects = match std::env::var("SCALE_BENCH_SERVE").as_deref() {
        Ok("big") => big_annotated(10_000),
        _ => fleet(500),
    };
    let server = FakeApiServer::start(objects);
    let kc = server.write_kubeconfig(dir);
    server.set_latency(LATENCY);
    println!("{}", kc.display());
    std::thread::sleep(Duration::from_secs(3600));
}

fn offline_rows(dir: &Path) {
    println!("| work | file | kubectl-hpa | peak RSS | python3 json.load (RSS) | ratio |");
    println!("|---|---|---|---|---|---|");
    let f500 = write(dir, "fleet-500.json", fleet(500));
    let t500 = offline_row(
        "explain -A --snapshot, 500 HPAs",
        &f500,
        &["explain", "-A", "--now", NOW],
    );
    let f2000 = write(dir, "fleet-2000.json", fleet(2000));
    let t2000 = offline_row(
        "explain -A --snapshot, 2,000 HPAs",
        &f2000,
        &["explain", "-A", "--now", NOW],
    );
    // Without the taken-at annotation (kubectl get -o json): time from the newest sample.
    let p500 = write_plain(dir, "fleet-500-plain.json", fleet(500));
    let u500 = offline_row(
        "explain -A --snapshot, 500 HPAs, no taken-at",
        &p500,
        &["explain", "-A"],
    );
    let p2000 = write_plain(dir, "fleet-2000-plain.json", fleet(2000));
    let u2000 = offline_row(
        "explain -A --snapshot, 2,000 HPAs, no taken-at",
        &p2000,
        &["explain", "-A"],
    );
    let p1k = write(dir, "pods-1000.json", big(1000));
    offline_row(
        "explain NAME -o json, 1,000 pods",
        &p1k,
        &["explain", "big", "-n", "bench", "--now", NOW, "-o", "json"],
    );
    let p10k = write(dir, "pods-10000.json", big(10_000));
    offline_row(
        "explain NAME -o json, 10,000 pods",
        &p10k,
        &["explain", "big", "-n", "bench", "--now", NOW, "-o", "json"],
    );
    println!(
        "\ngrowth 500 → 2,000 HPAs (4× the data), best times: {:.1}× (no taken-at: {:.1}×)\n",
        t2000.as_secs_f64() / t500.as_secs_f64(),
        u2000.as_secs_f64() / u500.as_secs_f64()
    );
}

fn live_rows(dir: &Path) {
    let server = FakeApiServer::start(fleet(500));
    let kc = server.write_kubeconfig(dir);
    server.set_latency(LATENCY);
    println!(
        "live, fake API server with {} ms per request, 500 HPAs / 2,000 pods:\n",
        LATENCY.as_millis()
    );
    println!("| work | kubectl-hpa | peak RSS | kubectl | ratio |");
    println!("|---|---|---|---|---|");
    let kubectl = |args: &'static [&'static str]| {
        let kc = kc.clone();
        move || {
            let mut c = Command::new("kubectl");
            c.args(args).arg("--kubeconfig").arg(&kc);
            c
        }
    };
    live_row(
        &server,
        "explain -A",
        &|| ours(&["explain", "-A", "--now", NOW], None, Some(&kc)),
        "kubectl get hpa -A",
        &kubectl(&["get", "hpa", "-A"]),
    );
    live_row(
        &server,
        "explain app-00007 -n team-07",
        &|| {
            ours(
                &["explain", "app-00007", "-n", "team-07", "--now", NOW],
                None,
                Some(&kc),
            )
        },
        "kubectl describe hpa",
        &kubectl(&["describe", "hpa", "app-00007", "-n", "team-07"]),
    );
    drop(server);
    memory_row(dir);
}

/// One HPA over 10,000 pods, each with a 4 KB annotation (a `last-applied-configuration`, as
/// `kubectl apply` leaves on every object): ~75 MB of pods on the wire.
fn big_annotated(pods: usize) -> Vec<Value> {
    let blob = "x".repeat(4096);
    let mut o = big(pods);
    for v in o.iter_mut().filter(|v| v["kind"] == "Pod") {
        v["metadata"]["annotations"]["kubectl.kubernetes.io/last-applied-configuration"] =
            json!(blob);
    }
    o
}

/// Peak RSS of live `explain NAME` over 10,000 pods with large annotations (target: < 150 MB).
fn memory_row(dir: &Path) {
    let server = FakeApiServer::start(big_annotated(10_000));
    let kc = server.write_kubeconfig(dir);
    server.set_latency(LATENCY);
    println!("\nlive, one HPA over 10,000 pods with a 4 KB annotation each (peak RSS target < 150 MB):\n");
    println!("| work | kubectl-hpa | peak RSS |");
    println!("|---|---|---|");
    server.clear_requests();
    let (t, tb, rss) = run("explain big (10,000 pods)", &|| {
        ours(
            &["explain", "big", "-n", "bench", "--now", NOW],
            None,
            Some(&kc),
        )
    });
    let requests = server.requests().len() / RUNS;
    println!(
        "| explain big -n bench, 10,000 pods ({requests} requests) | {:.0} ms ({:.0}) | {} |",
        ms(t),
        ms(tb),
        mib(rss)
    );
}
