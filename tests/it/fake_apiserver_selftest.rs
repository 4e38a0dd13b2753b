//! Self-test of the fake API server in `tests/support/`: every feature the
//! integration tests lean on, checked with a raw HTTP client, plus (when a
//! `kubectl` is on PATH) a check that real kubectl reads the same objects.

use crate::support::fake_apiserver;

use fake_apiserver::raw_http::{get, request, RawResponse};
use fake_apiserver::{FakeApiServer, Fault, Options, PathMatch, WriteMode};
use serde_json::{json, Value};
use std::path::PathBuf;
use std::time::{Duration, Instant};

fn pod(ns: &str, name: &str, labels: Value) -> Value {
    json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": ns, "labels": labels},
           "spec": {"containers": [{"name": "app", "image": "nginx"}]}, "status": {"phase": "Running"}})
}

fn pod_metrics(name: &str, cpu: &str) -> Value {
    json!({"apiVersion": "metrics.k8s.io/v1beta1", "kind": "PodMetrics", "metadata": {"name": name, "namespace": "shop"},
           "timestamp": "2026-03-01T12:00:00Z", "window": "30s", "containers": [{"name": "app", "usage": {"cpu": cpu, "memory": "100Mi"}}]})
}

fn custom_item(kind: &str, api_version: &str, name: &str, metric: &str, value: &str) -> Value {
    json!({"describedObject": {"apiVersion": api_version, "kind": kind, "name": name, "namespace": "shop"},
           "metric": {"name": metric, "selector": null}, "timestamp": "2026-03-01T12:00:00Z", "value": value, "windowSeconds": 60})
}

/// Five pods in `shop` (web-1..3, worker-1..2), one in `other`, a Deployment,
/// two HPAs, a Rollout, a Scale-only ReplicaSet target, events and all three
/// metrics APIs.
fn snapshot() -> Vec<Value> {
    let web = json!({"app": "web", "tier": "frontend"});
    vec![
        pod("shop", "web-2", web.clone()),
        pod("shop", "web-1", web.clone()),
        pod(
            "shop",
            "web-3",
            json!({"app": "web", "tier": "frontend", "canary": "true"}),
        ),
        pod(
            "shop",
            "worker-1",
            json!({"app": "worker", "tier": "backend"}),
        ),
        pod("shop", "worker-2", json!({"app": "worker"})),
        pod("other", "web-1", web),
        json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "namespace": "shop"},
               "spec": {"replicas": 3, "selector": {"matchLabels": {"app": "web"}, "matchExpressions": [{"key": "tier", "operator": "In", "values": ["frontend"]}]}},
               "status": {"replicas": 3}}),
        json!({"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler", "metadata": {"name": "web", "namespace": "shop"},
               "spec": {"minReplicas": 2, "maxReplicas": 10, "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
                        "metrics": [{"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 50}}}]}}),
        json!({"apiVersion": "argoproj.io/v1alpha1", "kind": "Rollout", "metadata": {"name": "canary", "namespace": "shop"},
               "spec": {"replicas": 2}, "status": {"replicas": 2, "selector": "app=canary"}}),
        json!({"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler", "metadata": {"name": "legacy", "namespace": "shop"},
               "spec": {"maxReplicas": 5, "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "legacy"}}}),
        json!({"apiVersion": "autoscaling/v1", "kind": "Scale", "metadata": {"name": "legacy", "namespace": "shop"},
               "spec": {"replicas": 4}, "status": {"replicas": 4, "selector": "app=legacy"}}),
        json!({"apiVersion": "v1", "kind": "Event", "metadata": {"name": "web.1", "namespace": "shop"}, "reason": "SuccessfulRescale",
               "involvedObject": {"kind": "HorizontalPodAutoscaler", "name": "web", "namespace": "shop"}}),
        json!({"apiVersion": "v1", "kind": "Event", "metadata": {"name": "web-1.1", "namespace": "shop"}, "reason": "Pulled",
               "involvedObject": {"kind": "Pod", "name": "web-1", "namespace": "shop"}}),
        json!({"apiVersion": "v1", "kind": "List", "items": [pod_metrics("web-1", "250m"), pod_metrics("web-2", "300m"), pod_metrics("worker-1", "10m")]}),
        json!({"apiVersion": "custom.metrics.k8s.io/v1beta2", "kind": "MetricValueList", "metadata": {}, "items": [
            custom_item("Pod", "/v1", "web-1", "http_requests", "10"), custom_item("Pod", "/v1", "web-2", "http_requests", "20"),
            custom_item("Pod", "/v1", "worker-1", "http_requests", "1"), custom_item("Ingress", "networking.k8s.io/v1", "main", "rps", "117500m")]}),
        json!({"apiVersion": "external.metrics.k8s.io/v1beta1", "kind": "ExternalMetricValueList", "metadata": {}, "items": [
            {"metricName": "queue_depth", "metricLabels": {"queue": "orders"}, "timestamp": "2026-03-01T12:00:00Z", "value": "30"},
            {"metricName": "queue_depth", "metricLabels": {"queue": "billing"}, "timestamp": "2026-03-01T12:00:00Z", "value": "5"}]}),
    ]
}

fn start() -> FakeApiServer {
    FakeApiServer::start(snapshot())
}

/// GET that must answer `code` with JSON; returns the body.
fn get_json(s: &FakeApiServer, path: &str, code: u16) -> Value {
    let r = get(s.addr(), path).unwrap_or_else(|e| panic!("GET {path}: {e}"));
    assert_eq!(r.status, code, "GET {path}: {}", r.text());
    assert_eq!(r.header("content-type"), Some("application/json"), "{path}");
    r.json()
}

/// One request with a 5 s timeout that must get an answer.
fn send(
    s: &FakeApiServer,
    method: &str,
    path: &str,
    hdrs: &[(&str, &str)],
    body: &[u8],
) -> RawResponse {
    let r = request(
        s.addr(),
        method,
        path,
        hdrs,
        Some(body),
        Duration::from_secs(5),
    );
    r.unwrap_or_else(|e| panic!("{method} {path}: {e}"))
}

/// The values at space-separated JSON pointers, as a JSON array.
fn pick(v: &Value, pointers: &str) -> Value {
    pointers
        .split(' ')
        .map(|p| v.pointer(p).cloned().unwrap_or(Value::Null))
        .collect()
}

/// `metadata.name` of each item of a list.
fn names(list: &Value) -> Vec<String> {
    let items = list["items"].as_array().expect("items");
    items
        .iter()
        .map(|i| i["metadata"]["name"].as_str().unwrap_or_default().into())
        .collect()
}

fn names_at(s: &FakeApiServer, path: &str) -> Vec<String> {
    names(&get_json(s, path, 200))
}

/// `name` of each entry of a JSON array at `key` (`resources`, `groups`).
fn entry_names(v: &Value, key: &str) -> Vec<String> {
    let entries = v[key]
        .as_array()
        .unwrap_or_else(|| panic!("no {key} in {v}"));
    entries
        .iter()
        .map(|r| r["name"].as_str().unwrap_or_default().into())
        .collect()
}

fn entry<'a>(v: &'a Value, key: &str, name: &str) -> &'a Value {
    let entries = v[key]
        .as_array()
        .unwrap_or_else(|| panic!("no {key} in {v}"));
    entries
        .iter()
        .find(|e| e["name"] == name)
        .unwrap_or_else(|| panic!("no {name} in {v}"))
}

#[test]
fn version_and_discovery() {
    let s = start();
    let v = get_json(&s, "/version", 200);
    for k in "major minor gitVersion gitCommit gitTreeState buildDate goVersion compiler platform"
        .split(' ')
    {
        assert!(v[k].is_string(), "/version lacks {k}: {v}");
    }
    assert_eq!(
        pick(&v, "/major /minor /gitVersion"),
        json!(["1", "37", "v1.37.0"])
    );
    assert_eq!(get_json(&s, "/api", 200)["versions"], json!(["v1"]));
    let core = get_json(&s, "/api/v1", 200);
    assert_eq!(core["groupVersion"], "v1");
    let pods = entry(&core, "resources", "pods");
    assert_eq!(
        pick(pods, "/kind /namespaced /singularName /verbs/4"),
        json!(["Pod", true, "pod", "list"])
    );

    // Aggregated-discovery Accept header still gets the plain form, as application/json.
    let aggregated =
        "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json";
    let r = send(&s, "GET", "/apis", &[("Accept", aggregated)], b"");
    assert_eq!(
        (r.status, r.header("content-type")),
        (200, Some("application/json"))
    );
    let groups = r.json();
    assert_eq!(groups["kind"], "APIGroupList");
    let group_names = entry_names(&groups, "groups");
    for g in
        "apps autoscaling metrics.k8s.io custom.metrics.k8s.io external.metrics.k8s.io argoproj.io"
            .split(' ')
    {
        assert!(
            group_names.iter().any(|n| n == g),
            "{g} missing from /apis: {group_names:?}"
        );
    }
    let autoscaling = get_json(&s, "/apis/autoscaling", 200);
    assert_eq!(
        autoscaling["preferredVersion"]["groupVersion"],
        "autoscaling/v2"
    );

    let apps = get_json(&s, "/apis/apps/v1", 200);
    let apps_names = entry_names(&apps, "resources");
    for r in [
        "deployments",
        "deployments/scale",
        "statefulsets/scale",
        "replicasets/scale",
    ] {
        assert!(
            apps_names.iter().any(|n| n == r),
            "{r} missing from apps/v1: {apps_names:?}"
        );
    }
    let scale = entry(&apps, "resources", "deployments/scale");
    assert_eq!(
        pick(scale, "/group /version /kind"),
        json!(["autoscaling", "v1", "Scale"])
    );
    let hpa = get_json(&s, "/apis/autoscaling/v2", 200);
    assert_eq!(
        entry(&hpa, "resources", "horizontalpodautoscalers")["shortNames"],
        json!(["hpa"])
    );
    entry(&hpa, "resources", "horizontalpodautoscalers/status");
    let listed = |gv: &str| entry_names(&get_json(&s, &format!("/apis/{gv}"), 200), "resources");
    assert_eq!(
        listed("argoproj.io/v1alpha1"),
        ["rollouts", "rollouts/scale", "rollouts/status"]
    );
    assert_eq!(
        listed("custom.metrics.k8s.io/v1beta2"),
        ["pods/http_requests", "ingresses/rps"]
    );
    assert_eq!(listed("external.metrics.k8s.io/v1beta1"), ["queue_depth"]);
    assert_eq!(listed("metrics.k8s.io/v1beta1"), ["pods", "nodes"]);

    // Metrics groups appear only with objects of them, or when asked for.
    let bare = FakeApiServer::start(vec![pod("shop", "p", json!({}))]);
    let listed = get_json(&bare, "/apis", 200).to_string();
    assert!(!listed.contains("metrics.k8s.io"), "{listed}");
    get_json(
        &bare,
        "/apis/metrics.k8s.io/v1beta1/namespaces/shop/pods",
        404,
    );
    let opts = Options {
        advertise: vec!["metrics.k8s.io/v1beta1".into()],
        ..Options::default()
    };
    let asked = FakeApiServer::start_with(vec![], opts);
    assert!(get_json(&asked, "/apis", 200)
        .to_string()
        .contains("\"metrics.k8s.io/v1beta1\""));
    assert_eq!(
        names_at(&asked, "/apis/metrics.k8s.io/v1beta1/namespaces/shop/pods"),
        [""; 0]
    );
}

#[test]
fn get_objects_and_not_found_status() {
    let s = start();
    let p = get_json(&s, "/api/v1/namespaces/shop/pods/web-1", 200);
    assert_eq!(
        pick(&p, "/kind /metadata/labels/app"),
        json!(["Pod", "web"])
    );
    assert!(p["metadata"]["resourceVersion"].is_string() && p["metadata"]["uid"].is_string());
    let dep = get_json(&s, "/apis/apps/v1/namespaces/shop/deployments/web", 200);
    assert_eq!(dep["spec"]["replicas"], 3);
    let ro = get_json(
        &s,
        "/apis/argoproj.io/v1alpha1/namespaces/shop/rollouts/canary",
        200,
    );
    assert_eq!(ro["kind"], "Rollout");
    let st = get_json(
        &s,
        "/apis/autoscaling/v2/namespaces/shop/horizontalpodautoscalers/web/status",
        200,
    );
    assert_eq!(st["kind"], "HorizontalPodAutoscaler");
    assert_eq!(
        names_at(&s, "/api/v1/namespaces"),
        ["default", "other", "shop"]
    );

    let missing = get_json(&s, "/api/v1/namespaces/shop/pods/x", 404);
    let want = json!({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
        "message": "pods \"x\" not found", "reason": "NotFound", "details": {"name": "x", "kind": "pods"}, "code": 404});
    assert_eq!(missing, want);
    let dep = get_json(&s, "/apis/apps/v1/namespaces/shop/deployments/nope", 404);
    assert_eq!(dep["message"], "deployments.apps \"nope\" not found");
    assert_eq!(
        dep["details"],
        json!({"name": "nope", "group": "apps", "kind": "deployments"})
    );
    let unknown = get_json(&s, "/apis/nothing.io/v1/namespaces/shop/things", 404);
    assert_eq!(
        unknown["message"],
        "the server could not find the requested resource"
    );
    // web-2 lives in `shop` only
    assert_eq!(
        get_json(&s, "/api/v1/namespaces/other/pods/web-2", 404)["reason"],
        "NotFound"
    );
}

#[test]
fn list_with_label_and_field_selectors() {
    let s = start();
    let list = get_json(&s, "/api/v1/namespaces/shop/pods", 200);
    assert_eq!(pick(&list, "/apiVersion /kind"), json!(["v1", "PodList"]));
    assert!(list["metadata"]["resourceVersion"].is_string());
    assert_eq!(
        names(&list),
        ["web-1", "web-2", "web-3", "worker-1", "worker-2"],
        "sorted by name"
    );
    let cases: [(&str, &[&str]); 9] = [
        ("app%3Dweb", &["web-1", "web-2", "web-3"]),
        ("app%3D%3Dworker", &["worker-1", "worker-2"]),
        ("app!%3Dweb", &["worker-1", "worker-2"]),
        ("app%3Dweb,canary", &["web-3"]),
        ("app%3Dweb,!canary", &["web-1", "web-2"]),
        (
            "tier+in+(frontend,backend)",
            &["web-1", "web-2", "web-3", "worker-1"],
        ),
        ("tier%20notin%20(frontend)", &["worker-1", "worker-2"]),
        ("tier", &["web-1", "web-2", "web-3", "worker-1"]),
        ("app%3Dnone", &[]),
    ];
    for (sel, want) in cases {
        let got = names_at(
            &s,
            &format!("/api/v1/namespaces/shop/pods?labelSelector={sel}"),
        );
        assert_eq!(got, want, "labelSelector={sel}");
    }
    let all = get_json(&s, "/api/v1/pods?labelSelector=app%3Dweb", 200);
    let items = all["items"].as_array().unwrap();
    let at: Vec<Value> = items
        .iter()
        .map(|p| pick(p, "/metadata/namespace /metadata/name"))
        .collect();
    assert_eq!(
        at,
        [
            json!(["other", "web-1"]),
            json!(["shop", "web-1"]),
            json!(["shop", "web-2"]),
            json!(["shop", "web-3"])
        ]
    );
    assert_eq!(
        names_at(
            &s,
            "/api/v1/namespaces/shop/pods?fieldSelector=metadata.name%3Dweb-2"
        ),
        ["web-2"]
    );
    assert_eq!(
        names_at(&s, "/api/v1/pods?fieldSelector=metadata.namespace%3Dother"),
        ["web-1"]
    );
    let fs = "involvedObject.kind%3DHorizontalPodAutoscaler,involvedObject.name%3Dweb";
    assert_eq!(
        names_at(
            &s,
            &format!("/api/v1/namespaces/shop/events?fieldSelector={fs}")
        ),
        ["web.1"]
    );
    assert_eq!(names_at(&s, "/apis/apps/v1/deployments"), ["web"]);
    let hpas = get_json(
        &s,
        "/apis/autoscaling/v2/namespaces/shop/horizontalpodautoscalers",
        200,
    );
    assert_eq!(
        pick(&hpas, "/kind /apiVersion"),
        json!(["HorizontalPodAutoscalerList", "autoscaling/v2"])
    );
    let bad = get_json(
        &s,
        "/api/v1/namespaces/shop/pods?labelSelector=app+in+(web",
        400,
    );
    assert_eq!(bad["reason"], "BadRequest");
}

#[test]
fn paging_with_limit_and_continue() {
    let s = start();
    let (mut seen, mut token, mut pages) = (Vec::new(), String::new(), 0);
    loop {
        let page = get_json(
            &s,
            &format!("/api/v1/namespaces/shop/pods?limit=2&continue={token}"),
            200,
        );
        pages += 1;
        let n = names(&page);
        assert!(n.len() <= 2, "page too big: {n:?}");
        seen.extend(n);
        let Some(t) = page["metadata"]["continue"].as_str() else {
            assert!(page["metadata"].get("remainingItemCount").is_none());
            break;
        };
        assert_eq!(
            page["metadata"]["remainingItemCount"].as_u64(),
            Some(5 - seen.len() as u64)
        );
        token = t.to_string();
        assert!(pages < 10, "paging does not end");
    }
    assert_eq!(pages, 3);
    assert_eq!(seen, ["web-1", "web-2", "web-3", "worker-1", "worker-2"]);
    let bad = get_json(
        &s,
        "/api/v1/namespaces/shop/pods?limit=2&continue=garbage",
        400,
    );
    assert_eq!(bad["reason"], "BadRequest");
}

#[test]
fn scale_subresource() {
    let s = start();
    let d = get_json(
        &s,
        "/apis/apps/v1/namespaces/shop/deployments/web/scale",
        200,
    );
    let want = json!([
        "autoscaling/v1",
        "Scale",
        3,
        3,
        "app=web,tier in (frontend)"
    ]);
    assert_eq!(
        pick(
            &d,
            "/apiVersion /kind /spec/replicas /status/replicas /status/selector"
        ),
        want
    );
    let r = get_json(
        &s,
        "/apis/argoproj.io/v1alpha1/namespaces/shop/rollouts/canary/scale",
        200,
    );
    assert_eq!(
        pick(&r, "/spec/replicas /status/selector"),
        json!([2, "app=canary"])
    );
    let legacy = get_json(
        &s,
        "/apis/apps/v1/namespaces/shop/replicasets/legacy/scale",
        200,
    );
    assert_eq!(
        pick(&legacy, "/spec/replicas /status/selector"),
        json!([4, "app=legacy"])
    );
    // the Scale item stands only for what an HPA targets (or an existing object)
    get_json(
        &s,
        "/apis/apps/v1/namespaces/shop/deployments/legacy/scale",
        404,
    );
    let nope = get_json(
        &s,
        "/apis/apps/v1/namespaces/shop/statefulsets/nope/scale",
        404,
    );
    assert_eq!(nope["message"], "statefulsets.apps \"nope\" not found");
}

#[test]
fn snapshot_files_with_scale_only_targets() {
    let dir = tempdir("snapshots");
    let yaml = "apiVersion: v1\nkind: List\nitems:
- apiVersion: autoscaling/v2
  kind: HorizontalPodAutoscaler
  metadata: {name: checkout, namespace: shop}
  spec:
    scaleTargetRef: {apiVersion: argoproj.io/v1alpha1, kind: Rollout, name: checkout}
    maxReplicas: 5
- apiVersion: autoscaling/v1
  kind: Scale
  metadata: {name: checkout, namespace: shop}
  spec: {replicas: 4}
  status: {replicas: 4, selector: app=checkout}\n";
    std::fs::write(dir.join("snap.yaml"), yaml).unwrap();
    let s = FakeApiServer::from_snapshot_file(dir.join("snap.yaml"));
    let scale = get_json(
        &s,
        "/apis/argoproj.io/v1alpha1/namespaces/shop/rollouts/checkout/scale",
        200,
    );
    assert_eq!(scale["spec"]["replicas"], 4);
    assert_eq!(
        names_at(
            &s,
            "/apis/autoscaling/v2/namespaces/shop/horizontalpodautoscalers"
        ),
        ["checkout"]
    );
    // JSON is read too
    let list = json!({"apiVersion": "v1", "kind": "List", "items": [pod("shop", "p", json!({}))]});
    std::fs::write(dir.join("snap.json"), list.to_string()).unwrap();
    assert_eq!(
        names_at(
            &FakeApiServer::from_snapshot_file(dir.join("snap.json")),
            "/api/v1/pods"
        ),
        ["p"]
    );
    // every example snapshot in the repository loads and serves its HPAs
    let examples = std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/examples"));
    let examples: Vec<PathBuf> = examples
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .collect();
    for p in examples
        .iter()
        .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
    {
        if !p.to_string_lossy().contains("history") {
            let s = FakeApiServer::from_snapshot_file(p);
            let hpas = names_at(&s, "/apis/autoscaling/v2/horizontalpodautoscalers");
            assert!(!hpas.is_empty(), "{}", p.display());
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn metrics_apis() {
    let s = start();
    let pm = get_json(
        &s,
        "/apis/metrics.k8s.io/v1beta1/namespaces/shop/pods?labelSelector=app%3Dweb",
        200,
    );
    assert_eq!(
        pick(&pm, "/kind /apiVersion"),
        json!(["PodMetricsList", "metrics.k8s.io/v1beta1"])
    );
    assert_eq!(
        names(&pm),
        ["web-1", "web-2"],
        "selected by the pods' labels"
    );
    let one = get_json(
        &s,
        "/apis/metrics.k8s.io/v1beta1/namespaces/shop/pods/web-1",
        200,
    );
    assert_eq!(one["containers"][0]["usage"]["cpu"], "250m");

    let custom = "/apis/custom.metrics.k8s.io/v1beta2/namespaces/shop";
    let cm = get_json(
        &s,
        &format!("{custom}/pods/*/http_requests?labelSelector=app%3Dweb"),
        200,
    );
    assert_eq!(cm["kind"], "MetricValueList");
    assert_eq!(
        pick(
            &cm,
            "/items/0/describedObject/name /items/1/describedObject/name /items/2"
        ),
        json!(["web-1", "web-2", null])
    );
    let all = get_json(&s, &format!("{custom}/pods/*/http_requests"), 200);
    assert_eq!(all["items"].as_array().unwrap().len(), 3);
    let obj = get_json(
        &s,
        &format!("{custom}/ingresses.networking.k8s.io/main/rps"),
        200,
    );
    assert_eq!(obj["items"][0]["value"], "117500m");
    get_json(
        &s,
        &format!("{custom}/ingresses.networking.k8s.io/other/rps"),
        404,
    );
    get_json(&s, &format!("{custom}/pods/*/nope"), 404);

    let external = "/apis/external.metrics.k8s.io/v1beta1/namespaces/shop";
    let ext = get_json(
        &s,
        &format!("{external}/queue_depth?labelSelector=queue%3Dorders"),
        200,
    );
    assert_eq!(
        pick(&ext, "/kind /items/0/value /items/1"),
        json!(["ExternalMetricValueList", "30", null])
    );
    let both = get_json(&s, &format!("{external}/queue_depth"), 200);
    assert_eq!(both["items"].as_array().unwrap().len(), 2);
    get_json(&s, &format!("{external}/nope"), 404);
}

#[test]
fn unavailable_apiservice_gives_503() {
    let apiservice = json!({"apiVersion": "apiregistration.k8s.io/v1", "kind": "APIService",
        "metadata": {"name": "v1beta1.metrics.k8s.io"},
        "spec": {"group": "metrics.k8s.io", "version": "v1beta1", "service": {"name": "metrics-server", "namespace": "kube-system"}},
        "status": {"conditions": [{"type": "Available", "status": "False", "reason": "MissingEndpoints"}]}});
    let s = FakeApiServer::start(vec![apiservice]);
    assert!(get_json(&s, "/apis", 200)
        .to_string()
        .contains("metrics.k8s.io/v1beta1"));
    let r = get(
        s.addr(),
        "/apis/metrics.k8s.io/v1beta1/namespaces/shop/pods",
    )
    .unwrap();
    assert_eq!(
        (r.status, r.text().as_str()),
        (503, "service unavailable\n")
    );
    let a = get_json(
        &s,
        "/apis/apiregistration.k8s.io/v1/apiservices/v1beta1.metrics.k8s.io",
        200,
    );
    assert_eq!(a["spec"]["group"], "metrics.k8s.io");
}

#[test]
fn fault_injection() {
    let s = start();
    let pods = "/apis/metrics.k8s.io/v1beta1/namespaces/shop/pods";
    s.inject(PathMatch::exact(pods), Fault::ForbiddenAs("x".into()));
    let f = get_json(&s, pods, 403);
    let msg = "pods.metrics.k8s.io is forbidden: User \"x\" cannot list resource \"pods\" in API group \"metrics.k8s.io\" in the namespace \"shop\"";
    assert_eq!(
        pick(&f, "/message /reason /code"),
        json!([msg, "Forbidden", 403])
    );
    assert_eq!(
        f["details"],
        json!({"group": "metrics.k8s.io", "kind": "pods"})
    );
    s.clear_faults();
    get_json(&s, pods, 200);

    s.inject(PathMatch::prefix("/apis/apps/"), Fault::Status(403));
    let f = get_json(
        &s,
        "/apis/apps/v1/namespaces/shop/deployments/web/scale",
        403,
    );
    let msg = "deployments.apps \"web\" is forbidden: User \"fake-user\" cannot get resource \"deployments/scale\" in API group \"apps\" in the namespace \"shop\"";
    assert_eq!(f["message"], msg);
    s.clear_faults();

    let web1 = "/api/v1/namespaces/shop/pods/web-1";
    for (code, reason) in [
        (401, "Unauthorized"),
        (404, "NotFound"),
        (500, "InternalError"),
        (503, "ServiceUnavailable"),
    ] {
        s.inject_times(PathMatch::contains("/pods/web-1"), Fault::Status(code), 1);
        let body = get_json(&s, web1, code);
        assert_eq!(
            pick(&body, "/kind /reason /code"),
            json!(["Status", reason, code]),
            "{body}"
        );
        get_json(&s, web1, 200); // inject_times(.., 1): once only
    }

    s.inject(
        PathMatch::exact("/api/v1/namespaces/shop/pods"),
        Fault::Drop,
    );
    let e = get(s.addr(), "/api/v1/namespaces/shop/pods")
        .expect_err("a dropped connection answers nothing");
    use std::io::ErrorKind::*;
    assert!(matches!(e.kind(), UnexpectedEof | ConnectionReset), "{e:?}");

    let web2 = "/api/v1/namespaces/shop/pods/web-2";
    s.inject(PathMatch::exact(web2), Fault::Delay(Duration::from_secs(3)));
    let t = Instant::now();
    let e = request(s.addr(), "GET", web2, &[], None, Duration::from_millis(300))
        .expect_err("must time out");
    assert!(matches!(e.kind(), WouldBlock | TimedOut), "{e:?}");
    assert!(t.elapsed() < Duration::from_secs(2));
    get_json(&s, "/api/v1/namespaces/shop/pods/web-3", 200); // other paths are unaffected
}

#[test]
fn latency_applies_to_every_request() {
    let s = start();
    s.set_latency(Duration::from_millis(300));
    for path in ["/version", "/api/v1/namespaces/shop/pods"] {
        let t = Instant::now();
        get_json(&s, path, 200);
        assert!(
            t.elapsed() >= Duration::from_millis(300),
            "{path} answered in {:?}",
            t.elapsed()
        );
    }
    s.set_latency(Duration::ZERO);
    let t = Instant::now();
    get_json(&s, "/version", 200);
    assert!(t.elapsed() < Duration::from_millis(300));
}

#[test]
fn writes_are_rejected_and_logged() {
    let s = start();
    let path = "/apis/apps/v1/namespaces/shop/deployments/web/scale";
    let patch = br#"{"spec":{"replicas":7}}"#;
    let ct = [("Content-Type", "application/merge-patch+json")];
    let r = send(&s, "PATCH", path, &ct, patch);
    assert_eq!(
        (r.status, r.json()["reason"].as_str()),
        (405, Some("MethodNotAllowed"))
    );
    for m in ["POST", "PUT", "DELETE"] {
        assert_eq!(
            send(&s, m, "/api/v1/namespaces/shop/pods/web-1", &[], b"{}").status,
            405,
            "{m}"
        );
    }
    let writes = s.writes();
    let methods: Vec<&str> = writes.iter().map(|w| w.method.as_str()).collect();
    assert_eq!(methods, ["PATCH", "POST", "PUT", "DELETE"]);
    assert_eq!(
        (writes[0].path.as_str(), writes[0].body.as_bytes()),
        (path, &patch[..])
    );
    assert_eq!(
        writes[0].header("content-type"),
        Some("application/merge-patch+json")
    );
    assert_eq!(
        get_json(&s, path, 200)["spec"]["replicas"],
        3,
        "nothing changed"
    );

    // the stub write hook: merge patches change the stored object
    s.set_write_mode(WriteMode::AcceptPatches);
    let r = send(&s, "PATCH", path, &ct, patch);
    assert_eq!(
        (r.status, r.json()["spec"]["replicas"].as_i64()),
        (200, Some(7))
    );
    assert_eq!(
        get_json(&s, "/apis/apps/v1/namespaces/shop/deployments/web", 200)["spec"]["replicas"],
        7
    );
}

#[test]
fn request_log_records_method_path_query_and_headers() {
    let s = start();
    let hdrs = [
        ("Authorization", "Bearer t0k"),
        ("User-Agent", "kubectl-hpa/0.1"),
        ("Impersonate-User", "jane"),
        ("Impersonate-Group", "ops"),
        ("Impersonate-Group", "dev"),
        ("X-Other", "dropped"),
    ];
    send(
        &s,
        "GET",
        "/api/v1/namespaces/shop/pods?labelSelector=app%3Dweb%2Ctier+in+(a%2Cb)&limit=2",
        &hdrs,
        b"",
    );
    let reqs = s.requests();
    assert_eq!(reqs.len(), 1);
    let r = &reqs[0];
    assert_eq!(
        (r.method.as_str(), r.path.as_str()),
        ("GET", "/api/v1/namespaces/shop/pods")
    );
    let q = |k: &str, v: &str| (k.to_string(), v.to_string());
    assert_eq!(
        r.query,
        [q("labelSelector", "app=web,tier in (a,b)"), q("limit", "2")]
    );
    assert_eq!(
        (r.header("authorization"), r.header("impersonate-user")),
        (Some("Bearer t0k"), Some("jane"))
    );
    let groups: Vec<&str> = r
        .headers
        .iter()
        .filter(|(k, _)| k == "impersonate-group")
        .map(|(_, v)| v.as_str())
        .collect();
    assert_eq!(groups, ["ops", "dev"]);
    assert!(r.header("x-other").is_none());
    // the impersonated user is the one a 403 names
    s.inject(PathMatch::prefix("/api/v1"), Fault::Status(403));
    let f = send(&s, "GET", "/api/v1/namespaces/shop/pods/web-1", &hdrs, b"").json();
    let msg = "pods \"web-1\" is forbidden: User \"jane\" cannot get resource \"pods\" in API group \"\" in the namespace \"shop\"";
    assert_eq!(f["message"], msg);
    s.clear_requests();
    assert!(s.requests().is_empty());
}

#[test]
fn kubeconfig_files() {
    let s = start();
    let dir = tempdir("kubeconfig");
    let read = |p: PathBuf| -> Value {
        kubectl_hpa::yaml::from_str(&std::fs::read_to_string(p).unwrap()).unwrap()
    };
    let cfg = read(s.write_kubeconfig(&dir));
    let want = json!([s.url(), "fake", "default", "fake-token"]);
    let at = "/clusters/0/cluster/server /current-context /contexts/0/context/namespace /users/0/user/token";
    assert_eq!(pick(&cfg, at), want);
    let two = read(s.write_kubeconfig_two_contexts(&dir, "staging", "shop"));
    let ctx = json!({"name": "staging", "context": {"cluster": "fake", "namespace": "shop", "user": "other-user"}});
    assert_eq!(
        pick(&two, "/current-context /contexts/1 /users/1/user/token"),
        json!(["fake", ctx, "other-token"])
    );
    let _ = std::fs::remove_dir_all(&dir);
}

// ------------------------------------------------------------------ kubectl

fn tempdir(tag: &str) -> PathBuf {
    crate::support::binary::tmpdir(&format!("fake-apiserver-{tag}"))
}

fn kubectl_on_path() -> Option<PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|d| d.join("kubectl"))
        .find(|p| p.is_file())
}

/// Runs kubectl against the server; any non-zero exit is a test failure.
fn kubectl(bin: &PathBuf, kubeconfig: &PathBuf, cache: &PathBuf, args: &[&str]) -> Value {
    let out = std::process::Command::new(bin)
        .arg("--kubeconfig")
        .arg(kubeconfig)
        .arg("--cache-dir")
        .arg(cache)
        .args(args)
        .env_remove("KUBECONFIG")
        .output()
        .unwrap_or_else(|e| panic!("running {}: {e}", bin.display()));
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert!(
        out.status.success(),
        "kubectl {args:?} failed ({}):\n{stdout}\n{stderr}",
        out.status
    );
    serde_json::from_str(&stdout)
        .unwrap_or_else(|e| panic!("kubectl {args:?}: not JSON ({e}):\n{stdout}\n{stderr}"))
}

#[test]
fn real_kubectl_reads_the_same_objects() {
    let Some(bin) = kubectl_on_path() else {
        eprintln!(
            "NOTE: kubectl is not on PATH; skipping the real-kubectl check of the fake API server"
        );
        return;
    };
    let s = start();
    let dir = tempdir("kubectl");
    let (cfg, cache) = (s.write_kubeconfig(&dir), dir.join("cache"));

    let got = kubectl(
        &bin,
        &cfg,
        &cache,
        &["get", "pods", "-n", "shop", "-o", "json"],
    );
    assert_eq!(
        got["items"],
        get_json(&s, "/api/v1/namespaces/shop/pods", 200)["items"],
        "kubectl get pods"
    );
    assert_eq!(names(&got).len(), 5);

    let got = kubectl(
        &bin,
        &cfg,
        &cache,
        &["get", "hpa", "-n", "shop", "-o", "json"],
    );
    let served = get_json(
        &s,
        "/apis/autoscaling/v2/namespaces/shop/horizontalpodautoscalers",
        200,
    );
    assert_eq!(got["items"], served["items"], "kubectl get hpa");
    assert_eq!(names(&got), ["legacy", "web"]);

    let raw = "/apis/metrics.k8s.io/v1beta1/namespaces/shop/pods";
    let got = kubectl(&bin, &cfg, &cache, &["get", "--raw", raw]);
    assert_eq!(got, get_json(&s, raw, 200), "kubectl get --raw");
    assert_eq!(names(&got), ["web-1", "web-2", "worker-1"]);

    // kubectl really talked to us (after the dispatcher's /version) and only read
    let reqs = s.requests();
    assert!(
        reqs.iter().any(|r| r.path == "/version"),
        "the kubectl wrapper asks /version first"
    );
    let ua = |r: &&fake_apiserver::RecordedRequest| {
        r.header("user-agent")
            .is_some_and(|u| u.starts_with("kubectl/"))
    };
    let from_kubectl: Vec<_> = reqs.iter().filter(ua).collect();
    let hpa_path = "/apis/autoscaling/v2/namespaces/shop/horizontalpodautoscalers";
    assert!(from_kubectl.iter().any(|r| r.path == hpa_path), "{reqs:#?}");
    // (kubectl 1.32 sends no bearer token over plain http; if it sends one, it is ours)
    let token_ok = |r: &&fake_apiserver::RecordedRequest| {
        r.header("authorization")
            .is_none_or(|a| a == "Bearer fake-token")
    };
    assert!(from_kubectl.iter().all(token_ok), "{reqs:#?}");
    assert!(s.writes().is_empty());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn cached_answers_are_the_built_ones_until_something_changes() {
    let s = start();
    let list = "/apis/apps/v1/namespaces/shop/deployments";
    let one = "/apis/apps/v1/namespaces/shop/deployments/web";
    let built = (get_json(&s, list, 200), get_json(&s, one, 200));
    s.cache_answers();
    // Asked twice: the first answer is built and kept, the second is the kept one.
    for _ in 0..2 {
        assert_eq!((get_json(&s, list, 200), get_json(&s, one, 200)), built);
    }
    // A query is part of the key.
    assert_eq!(
        names(&get_json(
            &s,
            &format!("{list}?labelSelector=app%3Dnone"),
            200
        )),
        Vec::<String>::new()
    );
    // A write changes the answers; so does a fault injected after them.
    s.set_write_mode(WriteMode::AcceptPatches);
    let ct = [("Content-Type", "application/merge-patch+json")];
    let r = send(&s, "PATCH", one, &ct, br#"{"spec":{"replicas":7}}"#);
    assert_eq!(r.status, 200);
    assert_eq!(get_json(&s, one, 200)["spec"]["replicas"], 7);
    assert_eq!(
        pick(&get_json(&s, list, 200), "/items/0/spec/replicas"),
        json!([7])
    );
    s.inject(PathMatch::exact(one), Fault::Status(403));
    assert_eq!(get(s.addr(), one).expect("answer").status, 403);
}
