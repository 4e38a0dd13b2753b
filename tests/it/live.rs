//! Live mode against the fake API server: the real binary, a generated kubeconfig, and every
//! example snapshot as cluster contents.

use crate::support::binary;
use crate::support::cluster::{offline_explain_json, FakeCluster as Cluster};
use crate::support::fake_apiserver;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use binary::*;
use fake_apiserver::{FakeApiServer, Fault, PathMatch, RecordedRequest};
use serde_json::Value;

/// The namespace's HPA LIST, where one explain reads its HPA.
const HPAS: &str = "/apis/autoscaling/v2/namespaces/shop/horizontalpodautoscalers";

/// A fake cluster serving an example, with a kubeconfig for it.
fn cluster(file: &str, tag: &str) -> Cluster {
    Cluster::example(file, tag)
}

/// The parts of a decision that must agree between live and offline.
fn decision(v: &Value) -> Value {
    decision_parts(
        v,
        &[
            "currentReplicas",
            "desiredReplicas",
            "verdict",
            "metrics",
            "proposal",
            "rescaleReason",
            "conditions",
            "events",
            "status",
            "steps",
        ],
    )
}

#[test]
fn live_explain_gives_the_offline_decision_for_every_example() {
    for (name, file) in EXAMPLES {
        let c = cluster(file, name);
        let live = c.explain_json(name);
        let offline = offline_explain_json(&example(file), name);
        assert_eq!(
            decision(&live),
            decision(&offline),
            "{file}: live and offline decisions differ"
        );
        assert!(
            live["liveComparison"].is_object(),
            "{file}: no liveComparison"
        );
        assert!(c.server.writes().is_empty(), "{file}: a write was sent");
    }
}

#[test]
fn snapshot_then_offline_explain_replays_the_live_decision() {
    for (name, file) in EXAMPLES {
        let c = cluster(file, &format!("snap-{name}"));
        let out = c.run(&["snapshot", name, "-n", "shop"]);
        assert!(out.status.success(), "{file}: snapshot: {}", stderr(&out));
        let text = String::from_utf8(out.stdout).expect("utf-8");
        assert!(text.contains("kubectl-hpa.dev/taken-at"), "{file}: {text}");
        let path = tmpdir(&format!("snapfile-{name}")).join("snap.yaml");
        std::fs::write(&path, &text).expect("write snapshot");
        let replay = offline_explain_json(&path, name);
        let live = c.explain_json(name);
        assert_eq!(
            decision(&replay),
            decision(&live),
            "{file}: snapshot replay differs from live"
        );
        // Without --now the replay evaluates at the time the snapshot was taken.
        let out = run(
            &[
                "explain",
                name,
                "-n",
                "shop",
                "--snapshot",
                &path.to_string_lossy(),
            ],
            None,
        );
        assert!(out.status.success(), "{file}: {}", stderr(&out));
        assert!(c.server.writes().is_empty());
    }
}

fn summary(r: &RecordedRequest) -> String {
    let mut q: Vec<String> = r.query.iter().map(|(k, v)| format!("{k}={v}")).collect();
    q.sort();
    format!("{} {}?{}", r.method, r.path, q.join("&"))
}

#[test]
fn the_exact_requests_of_one_explain_and_none_writes() {
    let c = cluster("several-metrics.yaml", "requests");
    c.explain_json("orders");
    let mut got: Vec<String> = c.server.requests().iter().map(summary).collect();
    got.sort();
    let sel = "app=orders";
    // The HPA is read once (the namespace's LIST, which also gives the other HPAs for
    // AmbiguousSelector), the target once (its Deployment: the scale subresource's source).
    // The namespace's pods fit in the first round's page, so they (and the namespace's
    // PodMetrics) are selected locally instead of listed again by the target's selector.
    let mut want = vec![
        "GET /apis/apps/v1/namespaces/shop/deployments/orders?".to_string(),
        "GET /api/v1/namespaces/shop/pods?limit=500".into(),
        "GET /apis/metrics.k8s.io/v1beta1/namespaces/shop/pods?".into(),
        // the resource metrics API's versions (discovery), before its first PodMetrics LIST
        "GET /apis/metrics.k8s.io?".into(),
        format!("GET /apis/custom.metrics.k8s.io/v1beta2/namespaces/shop/pods/*/http_requests_per_second?labelSelector={sel}"),
        "GET /apis/external.metrics.k8s.io/v1beta1/namespaces/shop/queue_messages_ready?labelSelector=queue=orders".into(),
        "GET /api/v1/namespaces/shop/events?fieldSelector=involvedObject.kind=HorizontalPodAutoscaler,involvedObject.name=orders,involvedObject.namespace=shop&resourceVersion=0".into(),
        "GET /version?".into(),
        // the controller's own flags (optional), in the first round
        "GET /api/v1/namespaces/kube-system/pods?labelSelector=component=kube-controller-manager&limit=500".into(),
        "GET /apis/autoscaling/v2/namespaces/shop/horizontalpodautoscalers?limit=500&resourceVersion=0".into(),
        // the metrics chain's APIServices (optional), in the first round
        "GET /apis/apiregistration.k8s.io/v1/apiservices?".into(),
        // what stops the replicas (optional), with the second round
        "GET /api/v1/namespaces/shop/resourcequotas?limit=5000&resourceVersion=0".into(),
        "GET /api/v1/namespaces/shop/limitranges?limit=5000&resourceVersion=0".into(),
        "GET /apis/policy/v1/namespaces/shop/poddisruptionbudgets?limit=5000&resourceVersion=0".into(),
        "GET /apis/autoscaling.k8s.io/v1/namespaces/shop/verticalpodautoscalers?limit=5000&resourceVersion=0".into(),
        "GET /api/v1/namespaces/shop/events?fieldSelector=involvedObject.kind!=HorizontalPodAutoscaler,type=Warning&resourceVersion=0".into(),
        "GET /api/v1/namespaces/shop/events?fieldSelector=involvedObject.kind=Pod,type=Normal,reason!=Scheduled,reason!=Pulling,reason!=Pulled,reason!=Created,reason!=Started,reason!=Killing&resourceVersion=0".into(),
        // KEDA's ScaledObjects (optional), in the first round
        "GET /apis/keda.sh/v1alpha1/namespaces/shop/scaledobjects?limit=5000&resourceVersion=0".into(),
    ];
    want.sort();
    // the empty continue of the first page is not sent
    let got: Vec<String> = got
        .into_iter()
        .map(|s| s.replace("continue=&", ""))
        .collect();
    let want: Vec<String> = want
        .into_iter()
        .map(|s| s.replace("continue=&", ""))
        .collect();
    assert_eq!(got, want);
    assert!(c.server.requests().iter().all(|r| r.method == "GET"));
    assert!(c.server.writes().is_empty());
}

#[test]
fn a_custom_resource_target_is_read_through_discovery_and_its_scale() {
    let c = cluster("custom-resource-scale.yaml", "crd");
    let live = c.explain_json("checkout");
    assert_eq!(live["desiredReplicas"], 7);
    let paths: Vec<String> = c.server.requests().iter().map(|r| r.path.clone()).collect();
    assert!(
        paths.contains(&"/apis/argoproj.io/v1alpha1".to_string()),
        "{paths:?}"
    );
    assert!(
        paths.contains(
            &"/apis/argoproj.io/v1alpha1/namespaces/shop/rollouts/checkout/scale".to_string()
        ),
        "{paths:?}"
    );
    assert!(
        paths.contains(&"/apis/custom.metrics.k8s.io/v1beta2/namespaces/shop/ingresses.networking.k8s.io/checkout/requests_per_second".to_string()),
        "{paths:?}"
    );
}

#[test]
fn forbidden_pod_metrics_is_a_metric_error_and_the_rest_is_explained() {
    let c = cluster("several-metrics.yaml", "403pm");
    c.server.inject(
        PathMatch::prefix("/apis/metrics.k8s.io/"),
        Fault::Status(403),
    );
    let out = c.run(&[
        "explain", "orders", "-n", "shop", "--now", NOW, "-o", "json",
    ]);
    // Denied to us, not to the controller (its own service account): our failure, exit 3.
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    let v: Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(v["verdict"]["decidedBy"], "FetchFailed", "{}", v["verdict"]);
    let cpu = &v["metrics"][0];
    let err = cpu["error"].as_str().unwrap_or_default();
    assert!(
        err.contains("unable to fetch metrics from resource metrics API")
            && err.contains("forbidden"),
        "{cpu}"
    );
    // the other metrics are still read (the pods metric proposes 6), but what the controller
    // would decide is not known: desiredReplicas says so (issue 27 item 5)
    let proposals: Vec<&Value> = v["metrics"]
        .as_array()
        .expect("metrics")
        .iter()
        .map(|m| &m["proposedReplicas"])
        .collect();
    assert!(proposals.contains(&&Value::from(6)), "{proposals:?}");
    assert!(v["desiredReplicas"].is_null(), "{}", v["verdict"]);
    let notes = v["assumptions"].to_string();
    assert!(notes.contains("list pods.metrics.k8s.io"), "{notes}");
    // the text form says it too
    let out = c.run(&["explain", "orders", "-n", "shop", "--now", NOW]);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("list pods.metrics.k8s.io"), "{text}");
}

#[test]
fn a_missing_metrics_api_is_recorded_as_the_controller_words_it() {
    let c = cluster("scale-up-cpu.yaml", "404pm");
    c.server.inject(
        PathMatch::prefix("/apis/metrics.k8s.io/"),
        Fault::Status(404),
    );
    let out = c.run(&["snapshot", "web", "-n", "shop", "-o", "json"]);
    let snap = ok_json(&out, "snapshot");
    let errors: Value = serde_json::from_str(
        snap["metadata"]["annotations"]["kubectl-hpa.dev/fetch-errors"]
            .as_str()
            .expect("fetch-errors annotation"),
    )
    .expect("JSON object");
    let e = errors["resource-metrics"].as_str().unwrap_or_default();
    assert!(
        e.starts_with("unable to fetch metrics from resource metrics API: "),
        "{e}"
    );
    let live = c.explain_json("web");
    assert_eq!(
        live["verdict"]["action"], "CannotScale",
        "{}",
        live["verdict"]
    );
}

#[test]
fn forbidden_hpa_fails_naming_the_verb_and_resource() {
    let c = cluster("scale-up-cpu.yaml", "403hpa");
    c.server.inject(PathMatch::exact(HPAS), Fault::Status(403));
    let out = c.run(&["explain", "web", "-n", "shop"]);
    assert_eq!(out.status.code(), Some(1));
    let e = stderr(&out);
    assert!(e.starts_with("error: "), "{e}");
    assert!(
        e.contains("list horizontalpodautoscalers.autoscaling"),
        "{e}"
    );
    assert!(e.contains("403"), "{e}");
    assert_eq!(e.trim_end().lines().count(), 1, "{e}");
}

#[test]
fn unknown_hpa_is_not_found_with_the_names_there_are() {
    let c = cluster("scale-up-cpu.yaml", "404hpa");
    let out = c.run(&["explain", "nope", "-n", "shop"]);
    assert_eq!(out.status.code(), Some(1));
    let e = stderr(&out);
    assert!(e.contains("\"nope\" not found"), "{e}");
    assert!(e.contains("web"), "{e}");
    assert_eq!(e.trim_end().lines().count(), 1, "{e}");
}

#[test]
fn server_error_on_the_hpa_fails_in_one_line() {
    let c = cluster("scale-up-cpu.yaml", "500");
    c.server.inject(PathMatch::exact(HPAS), Fault::Status(500));
    let out = c.run(&["explain", "web", "-n", "shop"]);
    assert_eq!(out.status.code(), Some(1));
    let e = stderr(&out);
    assert!(e.contains("500"), "{e}");
    assert_eq!(e.trim_end().lines().count(), 1, "{e}");
}

#[test]
fn failed_scale_is_our_failure_not_failed_get_scale() {
    let c = cluster("scale-up-cpu.yaml", "scale500");
    // The target's Deployment is where its scale comes from: a 500 there is our failed
    // read, not the controller's FailedGetScale.
    c.server
        .inject(PathMatch::contains("/deployments/web"), Fault::Status(500));
    let out = c.run(&["explain", "web", "-n", "shop", "--now", NOW, "-o", "json"]);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    let v: Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(v["verdict"]["decidedBy"], "FetchFailed", "{}", v["verdict"]);
    let summary = v["verdict"]["summary"].as_str().unwrap_or_default();
    assert!(
        summary.contains("deployments.apps (500 Internal Server Error)"),
        "{summary}"
    );
}

#[test]
fn request_timeout_is_honoured() {
    let c = cluster("scale-up-cpu.yaml", "timeout");
    c.server
        .inject(PathMatch::exact(HPAS), Fault::Delay(Duration::from_secs(5)));
    let t = Instant::now();
    let out = c.run(&["explain", "web", "-n", "shop", "--request-timeout", "1s"]);
    assert!(t.elapsed() < Duration::from_secs(4), "{:?}", t.elapsed());
    assert_eq!(out.status.code(), Some(1));
    let e = stderr(&out);
    assert!(e.contains("within 1s"), "{e}");
    assert_eq!(e.trim_end().lines().count(), 1, "{e}");
}

#[test]
fn unreachable_server_fails_in_one_line() {
    // a port nothing listens on: bind, note it, close
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .expect("bind")
        .local_addr()
        .expect("addr")
        .port();
    let dir = tmpdir("unreachable");
    let kc = dir.join("kubeconfig");
    std::fs::write(
        &kc,
        format!("apiVersion: v1\nkind: Config\nclusters:\n- name: x\n  cluster:\n    server: http://127.0.0.1:{port}\ncontexts:\n- name: x\n  context:\n    cluster: x\n    user: u\ncurrent-context: x\nusers:\n- name: u\n  user:\n    token: t\n"),
    )
    .expect("kubeconfig");
    let out = run(
        &["explain", "web", "-n", "shop", "--request-timeout", "2s"],
        Some(&kc),
    );
    assert_eq!(out.status.code(), Some(1));
    let e = stderr(&out);
    assert_eq!(
        e.trim_end(),
        format!("error: The connection to the server 127.0.0.1:{port} was refused - did you specify the right host or port?"),
    );
}

#[test]
fn namespace_defaults_to_the_context_and_context_selects() {
    let server = FakeApiServer::from_snapshot_file(example("scale-up-cpu.yaml"));
    let dir = tmpdir("contexts");
    let kc = server.write_kubeconfig_two_contexts(&dir, "shop-ctx", "shop");
    // current context: namespace default, no HPA web there
    let out = run(&["explain", "web"], Some(&kc));
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("namespace \"default\""),
        "{}",
        stderr(&out)
    );
    server.clear_requests();
    let out = run(
        &["explain", "web", "--context", "shop-ctx", "-o", "json"],
        Some(&kc),
    );
    let v = ok_json(&out, "--context shop-ctx");
    assert_eq!(v["namespace"], "shop");
    let reqs = server.requests();
    assert!(!reqs.is_empty());
    assert!(
        reqs.iter()
            .all(|r| r.header("authorization") == Some("Bearer other-token")),
        "{:?}",
        reqs.iter()
            .map(|r| r.header("authorization"))
            .collect::<Vec<_>>()
    );
    // KUBECONFIG with several paths, the first missing
    let out = crate::support::binary::bare()
        .args(["explain", "web", "-n", "shop", "-o", "json"])
        .env(
            "KUBECONFIG",
            std::env::join_paths([dir.join("missing"), kc.clone()]).expect("paths"),
        )
        .output()
        .expect("runs");
    ok_json(&out, "KUBECONFIG with two paths");
}

#[test]
fn impersonation_flags_are_sent() {
    let c = cluster("scale-up-cpu.yaml", "as");
    let out = c.run(&[
        "explain",
        "web",
        "-n",
        "shop",
        "--as",
        "jane",
        "--as-group",
        "devs",
        "-o",
        "json",
    ]);
    ok_json(&out, "--as");
    let r = &c.server.requests()[0];
    assert_eq!(r.header("impersonate-user"), Some("jane"));
    assert_eq!(r.header("impersonate-group"), Some("devs"));
}

#[test]
fn live_comparison_names_the_differences() {
    // scale-up-cpu: the status says desired 3 from the previous sync; we recompute 5.
    let c = cluster("scale-up-cpu.yaml", "cmp");
    let v = c.explain_json("web");
    let cmp = &v["liveComparison"];
    assert_eq!(cmp["computedDesiredReplicas"], 5);
    assert_eq!(cmp["desiredMatches"], false, "{cmp}");
    assert!(
        !cmp["likelyCauses"].as_array().expect("causes").is_empty(),
        "{cmp}"
    );
    let out = c.run(&["explain", "web", "-n", "shop", "--now", NOW]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("Live status"), "{text}");
}

#[test]
fn independent_requests_run_concurrently() {
    // 18 requests (KEDA's ScaledObjects LIST and 6 the optional reads of what stops the
    // replicas, with the second round). The critical path is HPA -> target -> pods/PodMetrics/pods metric: the
    // independent reads of a round are in flight together. The server holds each request
    // 300 ms, so requests sent together overlap there whatever the machine's load; the test
    // counts the overlap instead of timing the run (a timed test fails on a loaded machine).
    let c = cluster("several-metrics.yaml", "latency");
    c.server.set_latency(Duration::from_millis(300));
    c.explain_json("orders");
    assert_eq!(c.server.requests().len(), 18);
    let max = c.server.max_in_flight();
    assert!(
        max >= 3,
        "at most {max} request(s) in flight at once: the reads ran one by one"
    );
}

#[test]
fn pods_are_listed_in_pages() {
    use serde_json::json;
    let mut objects = vec![
        json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "big", "namespace": "shop"},
               "spec": {"replicas": 1001, "selector": {"matchLabels": {"app": "big"}}}, "status": {"replicas": 1001}}),
        json!({"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler", "metadata": {"name": "big", "namespace": "shop"},
               "spec": {"minReplicas": 1, "maxReplicas": 2000, "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "big"},
                        "metrics": [{"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 50}}}]}}),
    ];
    for i in 0..1001 {
        objects.push(json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": format!("big-{i:04}"), "namespace": "shop", "labels": {"app": "big"}},
            "spec": {"containers": [{"name": "app", "image": "x", "resources": {"requests": {"cpu": "100m"}}}]},
            "status": {"phase": "Running", "startTime": "2026-03-01T10:00:00Z",
                       "conditions": [{"type": "Ready", "status": "True", "lastTransitionTime": "2026-03-01T10:01:00Z"}]}}));
        objects.push(json!({"apiVersion": "metrics.k8s.io/v1beta1", "kind": "PodMetrics", "metadata": {"name": format!("big-{i:04}"), "namespace": "shop"},
            "timestamp": NOW, "window": "30s", "containers": [{"name": "app", "usage": {"cpu": "75m"}}]}));
    }
    let server = FakeApiServer::start(objects);
    let kc = server.write_kubeconfig(&tmpdir("paging"));
    let out = run(
        &["explain", "big", "-n", "shop", "--now", NOW, "-o", "json"],
        Some(&kc),
    );
    let v = ok_json(&out, "explain big");
    // 75 % of request vs 50 %: ceil(1.5 × 1001) = 1502, within the scale-up limit 2 × 1001
    assert_eq!(v["desiredReplicas"], 1502, "{}", v["verdict"]);
    // The first round's page of the namespace (no selector) was not the whole namespace:
    // the pods are then listed by the target's selector, in pages.
    let (first, pages): (Vec<RecordedRequest>, Vec<RecordedRequest>) = server
        .requests()
        .into_iter()
        .filter(|r| r.path == "/api/v1/namespaces/shop/pods")
        .partition(|r| r.query_param("labelSelector").is_none());
    assert_eq!(first.len(), 1);
    assert_eq!(first[0].query_param("limit"), Some("500"));
    assert_eq!(pages.len(), 3);
    assert!(pages.iter().all(|r| r.query_param("limit") == Some("500")));
    assert!(pages[1].query_param("continue").is_some());
}

#[test]
fn simulate_takes_a_live_hpa_and_its_first_tick_is_live_explain() {
    let c = cluster("scale-up-cpu.yaml", "simulate-live");
    let explain = c.explain_json("web");
    let sim = ok_json(
        &c.run(&[
            "simulate",
            "web",
            "-n",
            "shop",
            "--now",
            NOW,
            "--duration",
            "5m",
            "-o",
            "json",
        ]),
        "live simulate",
    );
    let first = &sim["timeline"][0];
    assert_eq!(first["replicas"], explain["desiredReplicas"]);
    assert_eq!(first["replicasBefore"], explain["currentReplicas"]);
    assert_eq!(first["rule"], explain["verdict"]["decidedBy"]);
    assert_eq!(first["replicas"], 5);
    assert!(
        c.server.requests().iter().all(|r| !r.is_write()),
        "simulate only reads"
    );
    // Without a name there is nothing to fetch.
    let out = c.run(&["simulate", "-n", "shop"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("name the HPA"), "{}", stderr(&out));
}

#[test]
fn completion_lists_live_hpa_names_and_namespaces() {
    let c = cluster("several-metrics.yaml", "complete-live");
    // kubectl_complete-hpa has no --kubeconfig on its command line: it uses KUBECONFIG.
    let complete = |words: &[&str]| {
        let out = crate::support::binary::bare()
            .arg("__complete")
            .arg("--")
            .args(words)
            .env("KUBECONFIG", &c.kubeconfig)
            .env("NO_COLOR", "1")
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", stderr(&out));
        String::from_utf8(out.stdout).unwrap()
    };
    let names = complete(&["explain", "-n", "shop", ""]);
    assert!(
        names
            .lines()
            .any(|l| l.split('\t').next() == Some("orders")),
        "{names}"
    );
    let namespaces = complete(&["explain", "-n", ""]);
    assert!(
        namespaces
            .lines()
            .any(|l| l.split('\t').next() == Some("shop")),
        "{namespaces}"
    );
    assert!(c.server.requests().iter().all(|r| !r.is_write()));
}

#[test]
fn one_explain_costs_the_same_requests_however_many_other_hpas() {
    let with_others = |n: usize| {
        let mut objects = fake_apiserver::load_snapshot(example("scale-up-cpu.yaml"));
        for i in 0..n {
            let name = format!("other-{i}");
            objects.push(serde_json::json!({
                "apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",
                "metadata": {"name": name, "namespace": "shop"},
                "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": name},
                         "minReplicas": 1, "maxReplicas": 5}
            }));
            objects.push(serde_json::json!({
                "apiVersion": "apps/v1", "kind": "Deployment",
                "metadata": {"name": name, "namespace": "shop"},
                "spec": {"replicas": 1, "selector": {"matchLabels": {"app": name}}, "template": {}},
                "status": {"replicas": 1}
            }));
        }
        let server = FakeApiServer::start(objects);
        let kubeconfig = server.write_kubeconfig(&tmpdir(&format!("others-{n}")));
        let out = run(
            &["explain", "web", "-n", "shop", "--now", NOW, "-o", "json"],
            Some(&kubeconfig),
        );
        let d = ok_json(&out, "explain with other HPAs");
        assert_eq!(d["desiredReplicas"], 5);
        server.requests().len()
    };
    let few = with_others(2);
    let many = with_others(20);
    assert_eq!(
        few, many,
        "requests must not grow with the namespace's other HPAs"
    );
}

// ---------------------------------------------------------------- fidelity (issue 9 §3)

/// The objects of an example, changed by `f`, served live and written to a file for offline.
fn variant(file: &str, tag: &str, f: impl FnOnce(&mut Vec<Value>)) -> (Cluster, PathBuf) {
    let mut objects: Vec<Value> = fake_apiserver::load_snapshot(example(file))
        .into_iter()
        .flat_map(|d| match d["kind"].as_str() {
            Some("List") => d["items"].as_array().cloned().unwrap_or_default(),
            _ => vec![d],
        })
        .collect();
    f(&mut objects);
    let path = tmpdir(&format!("variant-{tag}")).join("snap.json");
    std::fs::write(
        &path,
        serde_json::json!({"apiVersion": "v1", "kind": "List", "items": objects.clone()})
            .to_string(),
    )
    .expect("write variant");
    (Cluster::with(objects, tag), path)
}

fn hpa_mut<'a>(objects: &'a mut [Value], name: &str) -> &'a mut Value {
    objects
        .iter_mut()
        .find(|o| o["kind"] == "HorizontalPodAutoscaler" && o["metadata"]["name"] == name)
        .expect("the HPA")
}

fn condition(v: &Value, type_: &str) -> Value {
    v["conditions"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|c| c["type"] == type_)
        .cloned()
        .unwrap_or(Value::Null)
}

fn finding_messages(v: &Value, id: &str) -> Vec<String> {
    v["diagnostics"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|f| f["id"] == id)
        .map(|f| f["message"].as_str().unwrap_or_default().to_string())
        .collect()
}

#[test]
fn two_entries_on_one_external_metric_are_read_once_and_not_summed() {
    use serde_json::json;
    let (c, file) = variant("scale-up-cpu.yaml", "dup-external", |o| {
        let sel = json!({"matchLabels": {"queue": "orders"}});
        hpa_mut(o, "web")["spec"]["metrics"] = json!([
            {"type": "External", "external": {"metric": {"name": "queue_depth", "selector": sel},
                "target": {"type": "Value", "value": "10"}}},
            {"type": "External", "external": {"metric": {"name": "queue_depth", "selector": sel},
                "target": {"type": "AverageValue", "averageValue": "4"}}},
        ]);
        o.push(json!({"apiVersion": "external.metrics.k8s.io/v1beta1", "kind": "ExternalMetricValueList",
            "metadata": {}, "items": [{"metricName": "queue_depth", "metricLabels": {"queue": "orders"},
            "timestamp": NOW, "value": "12"}]}));
    });
    let live = c.explain_json("web");
    // 12 against Value 10: ceil(1.2 × 3) = 4; against AverageValue 4: 12 / (4 × 3) = 1.0 → 3.
    // Summed twice it would be 24: 8 (limited to 6) and 6.
    assert_eq!(live["desiredReplicas"], 4, "{}", live["verdict"]);
    let external: Vec<RecordedRequest> = c
        .server
        .requests()
        .into_iter()
        .filter(|r| {
            r.path
                .contains("external.metrics.k8s.io/v1beta1/namespaces")
        })
        .collect();
    assert_eq!(
        external.len(),
        1,
        "one request per distinct metric and selector"
    );
    assert_eq!(
        decision(&live),
        decision(&offline_explain_json(&file, "web"))
    );
}

#[test]
fn a_missing_target_is_failed_get_scale_live_and_offline() {
    let (c, file) = variant("scale-up-cpu.yaml", "no-target", |o| {
        o.retain(|x| x["kind"] != "Deployment" && x["kind"] != "ReplicaSet");
    });
    let want = "the HPA controller was unable to get the target's current scale: deployments.apps \"web\" not found";
    let live = c.explain_json("web");
    assert_eq!(
        live["verdict"]["decidedBy"], "FailedGetScale",
        "{}",
        live["verdict"]
    );
    let able = condition(&live, "AbleToScale");
    assert_eq!(
        (&able["status"], &able["reason"]),
        (&"False".into(), &"FailedGetScale".into())
    );
    assert_eq!(able["message"], want);
    let live_notes = finding_messages(&live, "target-missing");
    assert!(
        live_notes.len() == 1 && live_notes[0].contains("Deployment shop/web"),
        "{live_notes:?}"
    );
    assert!(!live_notes[0].contains("may simply lack"), "{live_notes:?}");

    // Replayed from `kubectl hpa snapshot` (which records the missing object as the server's
    // answer): the same decision. From a hand-made file that lacks it: UNKNOWN, naming what the
    // file lacks (issue 27 item 2).
    let taken = ok(
        &c.run(&["snapshot", "web", "-n", "shop", "-o", "json"]),
        "snapshot",
    );
    let taken_file = file.with_file_name("taken.json");
    std::fs::write(&taken_file, taken).expect("write snapshot");
    assert_eq!(
        decision(&live),
        decision(&offline_explain_json(&taken_file, "web"))
    );
    let offline = offline_explain_json(&file, "web");
    assert_eq!(
        offline["verdict"]["decidedBy"], "NotInSnapshot",
        "{}",
        offline["verdict"]
    );
    let notes = finding_messages(&offline, "snapshot-lacks-target");
    assert!(
        notes.len() == 1 && notes[0].contains("Deployment shop/web"),
        "{notes:?}"
    );
    // The text output says it too, and exits 0.
    let out = c.run(&["explain", "web", "-n", "shop", "--now", NOW]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("target-missing"), "{text}");
}

#[test]
fn an_extensions_v1beta1_target_is_not_the_apps_v1_deployment() {
    let (c, file) = variant("scale-up-cpu.yaml", "extensions", |o| {
        hpa_mut(o, "web")["spec"]["scaleTargetRef"]["apiVersion"] = "extensions/v1beta1".into();
    });
    let text = "no matches for kind \"Deployment\" in group \"extensions\"";
    for (how, v) in [
        ("live", c.explain_json("web")),
        ("offline", offline_explain_json(&file, "web")),
    ] {
        assert_eq!(
            v["verdict"]["decidedBy"], "FailedGetScale",
            "{how}: {}",
            v["verdict"]
        );
        let able = condition(&v, "AbleToScale");
        assert_eq!(
            able["message"],
            format!("the HPA controller was unable to get the target's current scale: {text}"),
            "{how}"
        );
        let events: Vec<&Value> = v["events"].as_array().expect("events").iter().collect();
        assert!(
            events
                .iter()
                .any(|e| e["reason"] == "FailedGetScale" && e["message"] == text),
            "{how}: {events:?}"
        );
        assert_eq!(finding_messages(&v, "target-missing").len(), 1, "{how}");
    }
    // No request goes to a group the REST mapper does not know.
    assert!(c
        .server
        .requests()
        .iter()
        .all(|r| !r.path.contains("extensions")));
}

#[test]
fn a_kubeconfig_variable_of_missing_files_does_not_fall_back_to_home() {
    // ~/.kube/config names a working cluster; KUBECONFIG names only missing files.
    let c = cluster("scale-up-cpu.yaml", "nofallback");
    let home = tmpdir("nofallback-home");
    std::fs::create_dir_all(home.join(".kube")).expect("mkdir");
    std::fs::copy(&c.kubeconfig, home.join(".kube/config")).expect("copy");
    let missing = format!(
        "{}:{}",
        home.join("a.yaml").display(),
        home.join("b.yaml").display()
    );
    let out = cmd(&["explain", "web", "-n", "shop"], None)
        .env("HOME", &home)
        .env("KUBECONFIG", &missing)
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("none of its files exists"),
        "{}",
        stderr(&out)
    );
    assert!(c.server.requests().is_empty());
    // The same HOME without KUBECONFIG does use ~/.kube/config.
    let out = cmd(&["explain", "web", "-n", "shop"], None)
        .env("HOME", &home)
        .output()
        .expect("runs");
    assert!(out.status.success(), "{}", stderr(&out));
}

#[test]
fn unknown_context_cluster_or_user_is_refused_like_kubectl() {
    let c = cluster("scale-up-cpu.yaml", "unknown-names");
    for (flag, words) in [
        ("--context", "context \"nope\" does not exist"),
        ("--cluster", "cluster \"nope\" does not exist"),
        ("--user", "auth info \"nope\" does not exist"),
    ] {
        let out = c.run(&["explain", "web", "-n", "shop", flag, "nope"]);
        assert_eq!(out.status.code(), Some(1), "{flag}");
        assert!(stderr(&out).contains(words), "{flag}: {}", stderr(&out));
    }
    assert!(c.server.requests().is_empty());
}

#[test]
fn migrate_apply_names_the_cluster_before_writing() {
    let c = cluster("scale-up-cpu.yaml", "apply-names");
    let out = c.run(&["migrate", "web", "-n", "shop", "--apply"]);
    let e = stderr(&out);
    let want = format!("writing to context \"fake\" ({})", c.server.url());
    assert!(e.contains(&want), "{e}");
    // Without --apply nothing is announced.
    let out = c.run(&["migrate", "web", "-n", "shop"]);
    assert!(!stderr(&out).contains("writing to context"));
}

#[test]
fn a_token_file_ending_in_a_newline_is_trimmed() {
    let c = cluster("scale-up-cpu.yaml", "tokenfile");
    let dir = tmpdir("tokenfile");
    let token = dir.join("token");
    std::fs::write(&token, "file-token\n").expect("token");
    let kc = dir.join("kubeconfig");
    std::fs::write(
        &kc,
        format!("apiVersion: v1\nkind: Config\nclusters:\n- name: x\n  cluster:\n    server: {}\ncontexts:\n- name: x\n  context:\n    cluster: x\n    user: u\ncurrent-context: x\nusers:\n- name: u\n  user:\n    tokenFile: {}\n", c.server.url(), token.display()),
    )
    .expect("kubeconfig");
    let out = run(&["explain", "web", "-n", "shop", "--now", NOW], Some(&kc));
    assert!(out.status.success(), "{}", stderr(&out));
    let reqs = c.server.requests();
    assert!(!reqs.is_empty());
    assert!(reqs
        .iter()
        .all(|r| r.header("authorization") == Some("Bearer file-token")));
    // An empty token file is a one-line error naming it.
    std::fs::write(&token, "\n").expect("token");
    let out = run(&["explain", "web", "-n", "shop"], Some(&kc));
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("tokenFile"), "{}", stderr(&out));
}

/// A kubeconfig for `server` (user token `t`), with `proxy-url` when given.
fn kubeconfig_with(dir: &Path, server: &str, proxy: Option<&str>) -> PathBuf {
    let proxy = proxy
        .map(|p| format!("    proxy-url: {p}\n"))
        .unwrap_or_default();
    let kc = dir.join("kubeconfig");
    std::fs::write(
        &kc,
        format!("apiVersion: v1\nkind: Config\nclusters:\n- name: x\n  cluster:\n    server: {server}\n{proxy}contexts:\n- name: x\n  context:\n    cluster: x\n    user: u\ncurrent-context: x\nusers:\n- name: u\n  user:\n    token: t\n"),
    )
    .expect("kubeconfig");
    kc
}

/// A CONNECT proxy that tunnels every connection to `to`, whatever host is asked for;
/// returns its URL and the hosts it was asked for.
fn connect_proxy(
    to: std::net::SocketAddr,
) -> (String, std::sync::Arc<std::sync::Mutex<Vec<String>>>) {
    use std::io::{BufRead, BufReader, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let url = format!("http://{}", listener.local_addr().expect("addr"));
    let asked = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let seen = asked.clone();
    std::thread::spawn(move || {
        for client in listener.incoming().flatten() {
            let seen = seen.clone();
            std::thread::spawn(move || {
                let mut reader = BufReader::new(client.try_clone().expect("clone"));
                let mut line = String::new();
                while reader.read_line(&mut line).is_ok_and(|n| n > 0) {
                    if line.ends_with("\r\n\r\n") || line == "\r\n" {
                        break;
                    }
                    if let Some(rest) = line.strip_prefix("CONNECT ") {
                        let host = rest.split(' ').next().unwrap_or_default().to_string();
                        seen.lock().expect("lock").push(host);
                    }
                    line.clear();
                }
                let Ok(server) = std::net::TcpStream::connect(to) else {
                    return;
                };
                let mut client = client;
                let _ = client.write_all(b"HTTP/1.1 200 Connection established\r\n\r\n");
                let (mut s_read, mut c_write) = (server.try_clone().expect("clone"), client);
                let mut s_write = server;
                std::thread::spawn(move || {
                    let _ = std::io::copy(&mut reader, &mut s_write);
                });
                let _ = std::io::copy(&mut s_read, &mut c_write);
            });
        }
    });
    (url, asked)
}

#[test]
fn a_kubeconfig_proxy_url_is_used() {
    // The server's name does not resolve: only the proxy can reach the (fake) server.
    let c = cluster("scale-up-cpu.yaml", "proxy-url");
    let (proxy, asked) = connect_proxy(c.server.addr());
    let kc = kubeconfig_with(
        &tmpdir("proxy-url"),
        "http://kubernetes.invalid:6443",
        Some(&proxy),
    );
    let out = run(&["explain", "web", "-n", "shop", "--now", NOW], Some(&kc));
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(!c.server.requests().is_empty());
    let asked = asked.lock().expect("lock").clone();
    assert!(
        asked.iter().all(|h| h == "kubernetes.invalid:6443"),
        "{asked:?}"
    );
    assert!(!asked.is_empty());
}

#[test]
fn https_proxy_is_not_used_for_a_server_no_proxy_covers() {
    let c = cluster("scale-up-cpu.yaml", "no-proxy");
    // A proxy where nothing listens: used, it fails; bypassed, the server answers.
    let dead = "http://127.0.0.2:9";
    let with_env = |no_proxy: &str| {
        cmd(
            &[
                "explain",
                "web",
                "-n",
                "shop",
                "--now",
                NOW,
                "--request-timeout",
                "5s",
            ],
            Some(&c.kubeconfig),
        )
        .env("HTTPS_PROXY", dead)
        .env("NO_PROXY", no_proxy)
        .output()
        .expect("runs")
    };
    let out = with_env("localhost,127.0.0.1");
    assert!(out.status.success(), "{}", stderr(&out));
    let out = with_env("example.com");
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
}

#[test]
fn server_and_token_flags_need_no_kubeconfig_and_override_one() {
    let c = cluster("scale-up-cpu.yaml", "server-flag");
    let url = c.server.url();
    // No kubeconfig at all (HOME without one, no KUBECONFIG).
    let out = run(
        &[
            "explain", "web", "-n", "shop", "--now", NOW, "-s", &url, "--token", "ci-token",
        ],
        None,
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let reqs = c.server.requests();
    assert!(!reqs.is_empty());
    assert!(reqs
        .iter()
        .all(|r| r.header("authorization") == Some("Bearer ci-token")));
    // Over a kubeconfig naming another server and token.
    c.server.clear_requests();
    let kc = kubeconfig_with(
        &tmpdir("server-flag"),
        "http://kubernetes.invalid:6443",
        None,
    );
    let out = run(
        &[
            "explain", "web", "-n", "shop", "--now", NOW, "--server", &url, "--token", "over",
        ],
        Some(&kc),
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(c
        .server
        .requests()
        .iter()
        .all(|r| r.header("authorization") == Some("Bearer over")));
    // A --server that is not a URL is a one-line error.
    let out = run(&["explain", "web", "-n", "shop", "-s", "http://[::1"], None);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("--server"), "{}", stderr(&out));
}

#[test]
fn verbosity_six_logs_each_request_on_stderr() {
    let c = cluster("scale-up-cpu.yaml", "verbose");
    let out = c.run(&["explain", "web", "-n", "shop", "--now", NOW, "-v", "6"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let e = stderr(&out);
    let want = format!(
        "GET {}/apis/autoscaling/v2/namespaces/shop/horizontalpodautoscalers",
        c.server.url()
    );
    assert!(e.contains(&want), "{e}");
    assert!(
        e.lines()
            .all(|l| l.starts_with("GET ") && l.ends_with(" milliseconds")),
        "{e}"
    );
    assert_eq!(e.lines().count(), c.server.requests().len());
    // kubectl's spelling, and quiet below 6.
    let out = c.run(&["explain", "web", "-n", "shop", "--now", NOW, "-v=4"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stderr(&out).is_empty(), "{}", stderr(&out));
}

/// A kubeconfig whose user gets its token from an exec plugin `plugin` (env VAULT_TOKEN set).
fn exec_kubeconfig(dir: &Path, server: &str, plugin: &Path) -> PathBuf {
    let kc = dir.join("kubeconfig");
    std::fs::write(
        &kc,
        format!("apiVersion: v1\nkind: Config\nclusters:\n- name: x\n  cluster:\n    server: {server}\ncontexts:\n- name: x\n  context:\n    cluster: x\n    user: u\ncurrent-context: x\nusers:\n- name: u\n  user:\n    exec:\n      apiVersion: client.authentication.k8s.io/v1beta1\n      command: {}\n      env:\n      - name: VAULT_TOKEN\n        value: hvs.very-secret\n      installHint: install the plugin with brew\n      interactiveMode: IfAvailable\n", plugin.display()),
    )
    .expect("kubeconfig");
    kc
}

fn script(path: &Path, body: &str) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::write(path, format!("#!/bin/sh\n{body}\n")).expect("script");
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
}

#[test]
fn an_exec_plugin_runs_once_and_its_failures_never_show_its_environment() {
    let c = cluster("scale-up-cpu.yaml", "exec");
    let dir = tmpdir("exec");
    let calls = dir.join("calls");
    let plugin = dir.join("plugin.sh");
    script(
        &plugin,
        &format!("echo call >> '{}'\necho '{{\"apiVersion\":\"client.authentication.k8s.io/v1beta1\",\"kind\":\"ExecCredential\",\"status\":{{\"token\":\"exec-token\"}}}}'", calls.display()),
    );
    let kc = exec_kubeconfig(&dir, &c.server.url(), &plugin);
    let out = run(&["explain", "web", "-n", "shop", "--now", NOW], Some(&kc));
    assert!(out.status.success(), "{}", stderr(&out));
    let n = std::fs::read_to_string(&calls)
        .unwrap_or_default()
        .lines()
        .count();
    assert_eq!(n, 1, "the plugin ran {n} times");
    assert!(c
        .server
        .requests()
        .iter()
        .all(|r| r.header("authorization") == Some("Bearer exec-token")));

    // A failing plugin: kubectl's words, no environment value.
    script(&plugin, "exit 3");
    let out = run(&["explain", "web", "-n", "shop"], Some(&kc));
    assert_eq!(out.status.code(), Some(1));
    let e = stderr(&out);
    assert!(e.contains("failed with exit code 3"), "{e}");
    assert!(!e.contains("hvs.very-secret"), "{e}");
    // A missing plugin: named, with the install hint.
    let kc = exec_kubeconfig(&dir, &c.server.url(), &dir.join("missing-plugin"));
    let out = run(&["explain", "web", "-n", "shop"], Some(&kc));
    let e = stderr(&out);
    assert!(
        e.contains("not found") && e.contains("install the plugin with brew"),
        "{e}"
    );
    assert!(!e.contains("hvs.very-secret"), "{e}");
}

#[test]
fn watch_requests_time_out_after_about_a_sync_period_and_the_watch_goes_on() {
    let c = cluster("scale-up-cpu.yaml", "watch-timeout");
    // The second sync's HPA read hangs for 6 s: without --request-timeout it gives up after
    // the 1 s sync period, says so in one line, and the next sync goes on.
    c.server.inject_after(
        PathMatch::exact(HPAS),
        Fault::Delay(Duration::from_secs(6)),
        1,
        1,
    );
    let start = Instant::now();
    let out = c.run(&[
        "explain",
        "web",
        "-n",
        "shop",
        "--watch",
        "--watch-count",
        "3",
        "--sync-period",
        "1s",
    ]);
    let took = start.elapsed();
    let text = ok(&out, "watch");
    let e = stderr(&out);
    assert!(took < Duration::from_secs(5), "{took:?}");
    let errors: Vec<&str> = e.lines().filter(|l| l.starts_with("error:")).collect();
    assert_eq!(errors.len(), 1, "{e}");
    assert!(
        errors[0].contains("within 1s (one sync period; --request-timeout sets another)"),
        "{e}"
    );
    assert!(errors[0].contains("retrying at the next sync"), "{e}");
    assert!(text.contains("stopped after 3 evaluation(s)"), "{text}");
    assert_eq!(
        c.server
            .requests()
            .iter()
            .filter(|r| r.path == HPAS)
            .count(),
        3
    );
}

/// A watch of `web` every second, `count` evaluations, with kubeconfig `kc`; spawned.
fn spawn_watch(kc: &Path, count: &str) -> std::process::Child {
    cmd(
        &[
            "explain",
            "web",
            "-n",
            "shop",
            "--watch",
            "--watch-count",
            count,
            "--sync-period",
            "1s",
        ],
        Some(kc),
    )
    .stdout(std::process::Stdio::piped())
    .stderr(std::process::Stdio::piped())
    .spawn()
    .expect("watch runs")
}

/// The distinct bearer tokens the server saw, in order of first use.
fn tokens_seen(c: &Cluster) -> Vec<String> {
    let mut seen: Vec<String> = Vec::new();
    for r in c.server.requests() {
        let t = r.header("authorization").unwrap_or_default().to_string();
        if !seen.contains(&t) {
            seen.push(t);
        }
    }
    seen
}

#[test]
fn watch_refreshes_an_exec_token_at_its_expiration_and_after_a_401() {
    // The cluster refuses a token 2 s after its first use.
    let c = cluster("scale-up-cpu.yaml", "watch-exec");
    c.server.set_token_lifetime(Some(Duration::from_secs(2)));
    let dir = tmpdir("watch-exec");
    let calls = dir.join("calls");
    let plugin = dir.join("plugin.sh");
    // Each run: a new token that expires 2 s later (expirationTimestamp).
    script(
        &plugin,
        &format!("echo call >> '{calls}'\nn=$(wc -l < '{calls}' | tr -d ' ')\nexp=$(date -u -d '+2 seconds' +%Y-%m-%dT%H:%M:%SZ)\necho \"{{\\\"apiVersion\\\":\\\"client.authentication.k8s.io/v1beta1\\\",\\\"kind\\\":\\\"ExecCredential\\\",\\\"status\\\":{{\\\"token\\\":\\\"exec-$n\\\",\\\"expirationTimestamp\\\":\\\"$exp\\\"}}}}\"", calls = calls.display()),
    );
    let kc = exec_kubeconfig(&dir, &c.server.url(), &plugin);
    let out = spawn_watch(&kc, "6").wait_with_output().expect("watch");
    let text = ok(&out, "watch");
    let e = stderr(&out);
    assert!(!e.contains("error"), "{e}");
    assert!(!text.contains("Unknown") && !text.contains("401"), "{text}");
    assert!(text.contains("stopped after 6 evaluation(s)"), "{text}");
    let runs = std::fs::read_to_string(&calls)
        .unwrap_or_default()
        .lines()
        .count();
    assert!(runs >= 2, "the plugin ran {runs} times");
    assert!(tokens_seen(&c).len() >= 2, "{:?}", tokens_seen(&c));

    // Without expirationTimestamp: the token is used until the server refuses it, then the
    // plugin runs again and the request is sent again, once.
    let c = cluster("scale-up-cpu.yaml", "watch-exec-401");
    c.server.set_token_lifetime(Some(Duration::from_secs(2)));
    std::fs::remove_file(&calls).expect("reset calls");
    script(
        &plugin,
        &format!("echo call >> '{calls}'\nn=$(wc -l < '{calls}' | tr -d ' ')\necho \"{{\\\"apiVersion\\\":\\\"client.authentication.k8s.io/v1beta1\\\",\\\"kind\\\":\\\"ExecCredential\\\",\\\"status\\\":{{\\\"token\\\":\\\"exec-$n\\\"}}}}\"", calls = calls.display()),
    );
    let kc = exec_kubeconfig(&dir, &c.server.url(), &plugin);
    let out = spawn_watch(&kc, "5").wait_with_output().expect("watch");
    let text = ok(&out, "watch");
    let e = stderr(&out);
    assert!(!e.contains("error"), "{e}");
    assert!(!text.contains("Unknown") && !text.contains("401"), "{text}");
    assert!(text.contains("stopped after 5 evaluation(s)"), "{text}");
    assert!(tokens_seen(&c).len() >= 2, "{:?}", tokens_seen(&c));
}

#[test]
fn watch_rereads_a_token_file_when_the_server_refuses_the_old_token() {
    let c = cluster("scale-up-cpu.yaml", "watch-file");
    c.server.set_token_lifetime(Some(Duration::from_secs(2)));
    let dir = tmpdir("watch-file");
    let token = dir.join("token");
    std::fs::write(&token, "file-1\n").expect("token");
    let kc = dir.join("kubeconfig");
    std::fs::write(
        &kc,
        format!("apiVersion: v1\nkind: Config\nclusters:\n- name: x\n  cluster:\n    server: {}\ncontexts:\n- name: x\n  context:\n    cluster: x\n    user: u\ncurrent-context: x\nusers:\n- name: u\n  user:\n    tokenFile: {}\n", c.server.url(), token.display()),
    )
    .expect("kubeconfig");
    // 4 evaluations: the second token lives 2 s too.
    let watch = spawn_watch(&kc, "4");
    // The token is rotated on disk (as a projected service-account token is).
    std::thread::sleep(Duration::from_millis(1200));
    std::fs::write(&token, "file-2\n").expect("token");
    let out = watch.wait_with_output().expect("watch");
    let text = ok(&out, "watch");
    let e = stderr(&out);
    assert!(!e.contains("error"), "{e}");
    assert!(!text.contains("Unknown") && !text.contains("401"), "{text}");
    assert!(text.contains("stopped after 4 evaluation(s)"), "{text}");
    assert_eq!(
        tokens_seen(&c),
        ["Bearer file-1", "Bearer file-2"],
        "{:?}",
        tokens_seen(&c)
    );
}

#[test]
fn a_custom_resource_target_maps_by_group_and_kind_over_the_served_versions() {
    // The HPA names argoproj.io/v1beta1, which the cluster does not serve; the controller maps
    // Rollout in group argoproj.io over every served version (here v1alpha1) and reads the
    // scale there.
    let mut objects = fake_apiserver::load_snapshot(example("custom-resource-scale.yaml"));
    for o in objects.iter_mut().flat_map(|d| {
        d.get_mut("items")
            .and_then(Value::as_array_mut)
            .into_iter()
            .flatten()
    }) {
        if o["kind"] == "HorizontalPodAutoscaler" {
            o["spec"]["scaleTargetRef"]["apiVersion"] = "argoproj.io/v1beta1".into();
        }
    }
    objects.push(
        serde_json::json!({"apiVersion": "argoproj.io/v1alpha1", "kind": "Rollout",
        "metadata": {"name": "checkout", "namespace": "shop"}, "spec": {"replicas": 4}}),
    );
    let server = FakeApiServer::start(objects);
    server.unserve("argoproj.io/v1beta1");
    let c = Cluster::serving(server, "crd-versions");
    let live = c.explain_json("checkout");
    let original = cluster("custom-resource-scale.yaml", "crd-versions-original");
    let original = original.explain_json("checkout");
    assert_eq!(live["verdict"], original["verdict"], "{live}");
    assert_eq!(live["currentReplicas"], 4, "{live}");
    assert_eq!(live["desiredReplicas"], 7, "{live}");
    let paths: Vec<String> = c.server.requests().iter().map(|r| r.path.clone()).collect();
    assert!(
        paths.contains(
            &"/apis/argoproj.io/v1alpha1/namespaces/shop/rollouts/checkout/scale".to_string()
        ),
        "{paths:?}"
    );
}

#[test]
fn a_renewed_exec_token_with_a_control_character_fails_a_sync_not_the_watch() {
    let c = cluster("scale-up-cpu.yaml", "watch-exec-bad");
    let dir = tmpdir("watch-exec-bad");
    let calls = dir.join("calls");
    let plugin = dir.join("plugin.sh");
    // First a good token that expires at once, then tokens holding a BEL.
    script(
        &plugin,
        &format!("echo call >> '{calls}'\nn=$(wc -l < '{calls}' | tr -d ' ')\nexp=$(date -u -d '+1 seconds' +%Y-%m-%dT%H:%M:%SZ)\nif [ \"$n\" = 1 ]; then t=exec-good; else t='exec\\u0007SEKRIT'; fi\necho \"{{\\\"apiVersion\\\":\\\"client.authentication.k8s.io/v1beta1\\\",\\\"kind\\\":\\\"ExecCredential\\\",\\\"status\\\":{{\\\"token\\\":\\\"$t\\\",\\\"expirationTimestamp\\\":\\\"$exp\\\"}}}}\"", calls = calls.display()),
    );
    let kc = exec_kubeconfig(&dir, &c.server.url(), &plugin);
    let out = spawn_watch(&kc, "3").wait_with_output().expect("watch");
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    let e = stderr(&out);
    assert!(!e.contains("panicked"), "{e}");
    assert!(
        text.contains("stopped after 3 evaluation(s)"),
        "{text}\n{e}"
    );
    assert!(e.contains("control character"), "{e}");
    assert!(e.contains("retrying at the next sync"), "{e}");
    assert!(!e.contains("SEKRIT") && !text.contains("SEKRIT"), "{e}");
    assert!(c
        .server
        .requests()
        .iter()
        .all(|r| r.header("authorization") == Some("Bearer exec-good")));
}

/// The resource metrics error the snapshot of `web` records, and the live decision.
fn resource_metrics_of(server: &FakeApiServer, tag: &str) -> (Option<String>, Value) {
    let kc = server.write_kubeconfig(&tmpdir(tag));
    let run_it = |args: &[&str]| ok_json(&run(args, Some(&kc)), tag);
    let snap = run_it(&["snapshot", "web", "-n", "shop", "-o", "json"]);
    let errors = snap["metadata"]["annotations"]["kubectl-hpa.dev/fetch-errors"]
        .as_str()
        .map(|e| serde_json::from_str::<Value>(e).expect("JSON object"));
    let e = errors.and_then(|e| e["resource-metrics"].as_str().map(String::from));
    let live = run_it(&["explain", "web", "-n", "shop", "--now", NOW, "-o", "json"]);
    (e, live)
}

#[test]
fn a_cluster_serving_pod_metrics_only_as_v1_gives_the_same_decision() {
    use fake_apiserver::Options;
    let objects = fake_apiserver::load_snapshot(example("scale-up-cpu.yaml"));
    let beta = FakeApiServer::start(objects.clone());
    let v1 = FakeApiServer::start_with(
        objects,
        Options {
            resource_metrics_v1_only: true,
            ..Options::default()
        },
    );
    let (beta_err, beta_live) = resource_metrics_of(&beta, "pm-v1beta1");
    let (v1_err, v1_live) = resource_metrics_of(&v1, "pm-v1");
    assert_eq!(beta_err, None);
    assert_eq!(v1_err, None, "{}", v1_live["verdict"]);
    assert_eq!(v1_live["desiredReplicas"], beta_live["desiredReplicas"]);
    assert_eq!(v1_live["verdict"], beta_live["verdict"]);
    assert_eq!(v1_live["metrics"], beta_live["metrics"]);
    // One discovery GET and one PodMetrics LIST per run at the version served; v1beta1's LIST
    // goes out beside the discovery GET, so a v1-only server also sees it (and answers 404,
    // which is not an error of the decision: see `v1_err`).
    let lists = |s: &FakeApiServer, gv: &str| {
        let p = format!("/apis/{gv}/namespaces/shop/pods");
        s.requests().iter().filter(|r| r.path == p).count()
    };
    assert_eq!(lists(&v1, "metrics.k8s.io/v1"), 2);
    assert_eq!(lists(&v1, "metrics.k8s.io/v1beta1"), 2);
    assert_eq!(lists(&beta, "metrics.k8s.io/v1beta1"), 2);
    assert_eq!(lists(&beta, "metrics.k8s.io/v1"), 0);
    let discovery = |s: &FakeApiServer| {
        s.requests()
            .iter()
            .filter(|r| r.path == "/apis/metrics.k8s.io")
            .count()
    };
    assert_eq!((discovery(&v1), discovery(&beta)), (2, 2));
}

#[test]
fn the_v1beta1_list_sent_beside_discovery_is_not_used_when_v1_is_served() {
    use fake_apiserver::Options;
    // Discovery offers v1 besides v1beta1 (v1 holds no PodMetrics here): the decision is the
    // one the v1 LIST gives, as the 1.37+ controller reads v1, not the v1beta1 answer that
    // came back beside discovery.
    let objects = fake_apiserver::load_snapshot(example("scale-up-cpu.yaml"));
    let both = FakeApiServer::start_with(
        objects.clone(),
        Options {
            advertise: vec!["metrics.k8s.io/v1".into()],
            ..Options::default()
        },
    );
    let beta = FakeApiServer::start(objects);
    let (_, both_live) = resource_metrics_of(&both, "pm-both");
    let (_, beta_live) = resource_metrics_of(&beta, "pm-beta-only");
    let paths: Vec<String> = both.requests().into_iter().map(|r| r.path).collect();
    let sent = |p: &str| paths.iter().filter(|x| *x == p).count();
    assert_eq!(
        sent("/apis/metrics.k8s.io/v1/namespaces/shop/pods"),
        2,
        "{paths:?}"
    );
    assert_eq!(sent("/apis/metrics.k8s.io/v1beta1/namespaces/shop/pods"), 2);
    assert!(beta_live["metrics"][0]["calculation"].is_object());
    let error = both_live["metrics"][0]["error"]
        .as_str()
        .unwrap_or_default();
    assert!(
        error.contains("unable to fetch metrics from resource metrics API"),
        "the v1 answer decides: {}",
        both_live["metrics"]
    );
}

#[test]
fn the_pod_metrics_list_does_not_wait_for_the_discovery_answer() {
    // Discovery answers after 3 s: the v1beta1 PodMetrics LIST reaches the server before
    // that (sent beside it), where it used to be sent only once discovery had answered.
    let objects = fake_apiserver::load_snapshot(example("scale-up-cpu.yaml"));
    let server = FakeApiServer::start(objects);
    server.inject(
        PathMatch::exact("/apis/metrics.k8s.io"),
        Fault::Delay(Duration::from_secs(3)),
    );
    let kc = server.write_kubeconfig(&tmpdir("pm-beside-discovery"));
    let started = Instant::now();
    let mut child = cmd(&["explain", "web", "-n", "shop", "-o", "json"], Some(&kc))
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("explain runs");
    let listed = |s: &FakeApiServer| {
        s.requests()
            .iter()
            .any(|r| r.path == "/apis/metrics.k8s.io/v1beta1/namespaces/shop/pods")
    };
    let mut seen_at = None;
    while started.elapsed() < Duration::from_millis(2500) {
        if listed(&server) {
            seen_at = Some(started.elapsed());
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let status = child.wait().expect("explain ends");
    assert!(status.success(), "{status}");
    assert!(
        seen_at.is_some(),
        "the PodMetrics LIST was not sent while discovery was unanswered"
    );
    let discovery = server
        .requests()
        .iter()
        .filter(|r| r.path == "/apis/metrics.k8s.io")
        .count();
    assert_eq!(discovery, 1, "one discovery GET");
}

#[test]
fn a_cluster_serving_no_resource_metrics_gets_the_error_of_its_release() {
    use fake_apiserver::Options;
    let resource_metrics = |o: &Value| {
        o["apiVersion"]
            .as_str()
            .unwrap_or_default()
            .starts_with("metrics.k8s.io/")
    };
    let mut objects = fake_apiserver::load_snapshot(example("scale-up-cpu.yaml"));
    objects.retain(|o| !resource_metrics(o));
    for o in &mut objects {
        if let Some(items) = o["items"].as_array_mut() {
            items.retain(|i| !resource_metrics(i));
        }
    }
    // `alpha`: the group is registered with only a version no controller reads.
    let at = |release: &str, alpha: bool| {
        let s = FakeApiServer::start_with(
            objects.clone(),
            Options {
                git_version: Some(release.into()),
                advertise: match alpha {
                    true => vec!["metrics.k8s.io/v1alpha1".into()],
                    false => vec![],
                },
                resource_metrics_v1_only: alpha,
                ..Options::default()
            },
        );
        let (e, live) = resource_metrics_of(&s, &format!("pm-none-{release}-{alpha}"));
        assert_eq!(
            live["verdict"]["action"], "CannotScale",
            "{}",
            live["verdict"]
        );
        e.unwrap_or_default()
    };
    let prefix = "unable to fetch metrics from resource metrics API: ";
    assert_eq!(
        at("v1.37.0", false),
        format!("{prefix}no resource metrics API (metrics.k8s.io) registered")
    );
    assert_eq!(
        at("v1.38.1", true),
        format!("{prefix}no known available resource metrics API versions found")
    );
    // Before 1.37: the v1beta1 LIST's 404, registered or not.
    for alpha in [false, true] {
        let before = at("v1.36.4", alpha);
        assert!(
            before.starts_with(prefix) && before.contains("could not find the requested resource"),
            "{before}"
        );
    }
}

/// The kube-controller-manager static pod (as kubeadm runs it) with these HPA flags.
fn controller_manager_pod(flags: &[&str]) -> Value {
    let mut command = vec!["kube-controller-manager", "--bind-address=127.0.0.1"];
    command.extend(flags);
    serde_json::json!({"apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "kube-controller-manager-cp1", "namespace": "kube-system",
                     "labels": {"component": "kube-controller-manager", "tier": "control-plane"}},
        "spec": {"containers": [{"name": "kube-controller-manager", "image": "registry.k8s.io/kube-controller-manager:v1.37.0",
                                 "command": command}]},
        "status": {"phase": "Running"}})
}

#[test]
fn the_controller_managers_tolerance_read_from_its_pod_changes_the_verdict() {
    // hold-within-tolerance: ratio 1.083 holds at 4 under the default tolerance 0.1; the
    // cluster's controller runs with 0.05, so it scales to 5.
    let mut objects = fake_apiserver::load_snapshot(example("hold-within-tolerance.yaml"));
    objects.push(controller_manager_pod(&[
        "--horizontal-pod-autoscaler-tolerance=0.05",
        "--horizontal-pod-autoscaler-sync-period",
        "30s",
    ]));
    let c = Cluster::with(objects, "kcm-flags");
    let live = c.explain_json("api");
    assert_eq!(live["desiredReplicas"], 5, "{live}");
    let s = &live["settings"];
    assert_eq!(s["tolerance"], 0.05, "{s}");
    assert_eq!(s["syncPeriod"], "30s", "{s}");
    assert_eq!(
        s["toleranceSource"], "cluster: pod kube-system/kube-controller-manager-cp1",
        "{s}"
    );
    assert!(
        s["downscaleStabilizationSource"]
            .as_str()
            .is_some_and(|t| t.starts_with("default")),
        "{s}"
    );
    // One LIST of the pod by its label, in the first round.
    let reads: Vec<RecordedRequest> = c
        .server
        .requests()
        .into_iter()
        .filter(|r| r.path == "/api/v1/namespaces/kube-system/pods")
        .collect();
    assert_eq!(reads.len(), 1, "{reads:?}");
    // The text says where the flags came from.
    let out = c.run(&["explain", "api", "-n", "shop", "--now", NOW]);
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    let words = text.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        words.contains("flags of pod kube-system/kube-controller-manager-cp1"),
        "{text}"
    );
    // A flag the user gives still wins.
    let out = c.run(&[
        "explain",
        "api",
        "-n",
        "shop",
        "--now",
        NOW,
        "-o",
        "json",
        "--tolerance",
        "0.1",
    ]);
    let given = ok_json(&out, "explain --tolerance");
    assert_eq!(given["desiredReplicas"], 4, "{given}");
    assert_eq!(
        given["settings"]["toleranceSource"],
        "flag --tolerance (the cluster's is 0.05)"
    );
    // The snapshot records the pod (its HPA flags only); offline reads it the same way.
    let out = c.run(&["snapshot", "api", "-n", "shop"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = String::from_utf8(out.stdout).expect("utf-8");
    assert!(
        text.contains("horizontal-pod-autoscaler-tolerance=0.05"),
        "{text}"
    );
    assert!(!text.contains("bind-address"), "{text}");
    let path = tmpdir("kcm-flags-snap").join("snap.yaml");
    std::fs::write(&path, &text).expect("write snapshot");
    let replay = offline_explain_json(&path, "api");
    assert_eq!(decision(&replay), decision(&live));
    assert_eq!(replay["settings"]["toleranceSource"], s["toleranceSource"]);
}

#[test]
fn a_file_holding_the_controller_managers_pod_is_read_offline() {
    // `kubectl get pod -n kube-system -l component=kube-controller-manager -o yaml` beside
    // the snapshot: the flags apply as live.
    let dir = tmpdir("kcm-file");
    let pods = dir.join("kcm.yaml");
    let list = serde_json::json!({"apiVersion": "v1", "kind": "List", "items": [
        controller_manager_pod(&["--horizontal-pod-autoscaler-tolerance", "0.05"])]});
    std::fs::write(&pods, serde_json::to_string_pretty(&list).expect("json")).expect("write");
    let f = pods.to_string_lossy().to_string();
    let example = example("hold-within-tolerance.yaml");
    let e = example.to_string_lossy().to_string();
    let out = run(
        &[
            "explain",
            "api",
            "-n",
            "shop",
            "--snapshot",
            &e,
            "--snapshot",
            &f,
            "--now",
            NOW,
            "-o",
            "json",
        ],
        None,
    );
    let v = ok_json(&out, "offline explain with the pod's file");
    assert_eq!(v["desiredReplicas"], 5, "{v}");
    assert_eq!(
        v["settings"]["toleranceSource"],
        "cluster: pod kube-system/kube-controller-manager-cp1"
    );
}

#[test]
fn name_in_two_contexts_selects_and_prints_yaml_from_the_list() {
    let c = cluster("scale-up-cpu.yaml", "two-ctx-select");
    let kc = c.two_contexts("two-ctx-select-kc");
    let args = [
        "explain",
        "web",
        "--context",
        "a",
        "--context",
        "b",
        "--now",
        NOW,
    ];
    let with = |extra: &[&str]| run(&[&args[..], extra].concat(), Some(&kc));
    let v = ok_json(&with(&["-o", "json"]), "NAME in two contexts, JSON");
    assert_eq!(v["kind"], "List");
    let desired = v["items"][0]["desiredReplicas"].to_string();
    // jsonpath selects from the List of the explanations, as with several NAMEs.
    let text = ok(
        &with(&["-o", "jsonpath={.items[*].desiredReplicas}"]),
        "jsonpath",
    );
    assert_eq!(text, format!("{desired} {desired}"));
    let text = ok(&with(&["-o", "name"]), "-o name");
    assert_eq!(text.lines().count(), 2, "{text}");
    assert!(text.lines().all(|l| l.ends_with("/web")), "{text}");
    // YAML: the same List.
    let text = ok(&with(&["-o", "yaml"]), "yaml");
    let y: Value = kubectl_hpa::yaml::from_str(&text).expect("yaml");
    assert_eq!(y, v);
}

#[test]
fn the_fleet_of_two_contexts_selects_with_jsonpath_and_name() {
    let c = cluster("scale-up-cpu.yaml", "two-ctx-fleet");
    let kc = c.two_contexts("two-ctx-fleet-kc");
    let args = ["explain", "--context", "a", "--context", "b", "--now", NOW];
    let with = |extra: &[&str]| run(&[&args[..], extra].concat(), Some(&kc));
    let v = ok_json(&with(&["-o", "json"]), "the fleet of two contexts, JSON");
    let names: Vec<&str> = v["items"]
        .as_array()
        .expect("items")
        .iter()
        .map(|i| i["name"].as_str().unwrap_or_default())
        .collect();
    assert_eq!(names.len(), 2, "{v}");
    let text = ok(&with(&["-o", "jsonpath={.items[*].name}"]), "jsonpath");
    assert_eq!(text, names.join(" "));
    let text = ok(&with(&["-o", "name"]), "-o name");
    assert_eq!(text.lines().count(), 2, "{text}");
    assert!(text.lines().all(|l| l.ends_with("/web")), "{text}");
}
