//! The fleet overview (`explain` without NAME, `-A`), diagnostics and `--watch`, offline and
//! against the fake API server.

use crate::support::binary;
use crate::support::fake_apiserver;

use std::path::PathBuf;
use std::process::{Output, Stdio};
use std::time::{Duration, Instant};

use binary::*;
use fake_apiserver::{load_snapshot, FakeApiServer, RecordedRequest};
use serde_json::{json, Value};

/// Every example in one List (they share namespace shop, with distinct names).
fn all_examples() -> Vec<Value> {
    EXAMPLES
        .iter()
        .flat_map(|(_, f)| load_snapshot(root().join("examples").join(f)))
        .collect()
}

fn all_examples_file() -> PathBuf {
    let items: Vec<Value> = EXAMPLES
        .iter()
        .map(|(_, f)| {
            let text = std::fs::read_to_string(root().join("examples").join(f)).expect("example");
            let mut v: Value = kubectl_hpa::yaml::from_str(&text).expect("yaml");
            v.as_object_mut().expect("list").remove("metadata");
            v
        })
        .collect();
    let p = tmpdir("all").join("all.json");
    std::fs::write(
        &p,
        serde_json::to_string(&json!({"apiVersion": "v1", "kind": "List", "items": items}))
            .expect("json"),
    )
    .expect("write");
    p
}

/// The parts of a decision that must agree between the fleet and a single explain.
fn decision(v: &Value) -> Value {
    decision_parts(
        v,
        &[
            "currentReplicas",
            "desiredReplicas",
            "verdict",
            "proposal",
            "conditions",
            "events",
            "status",
        ],
    )
}

#[test]
fn offline_fleet_table_and_json_give_the_single_decisions() {
    let file = all_examples_file();
    let f = file.to_string_lossy().to_string();
    // Without NAME on a file with several HPAs: the table (this used to be an error).
    // (Wide enough for every column; narrower, text leaves some out: see the golden files.)
    let text = ok(
        &cmd(&["explain", "--snapshot", &f, "--now", NOW], None)
            .env("COLUMNS", "200")
            .output()
            .expect("runs"),
        "fleet text",
    );
    // The summary line, a blank line, then the table.
    let header = text.lines().nth(2).unwrap_or_default();
    for col in [
        "HPA",
        "REFERENCE",
        "TARGETS",
        "CURRENT",
        "DESIRED",
        "MIN/MAX",
        "VERDICT",
        "REASON",
        "WARNINGS",
    ] {
        assert!(header.contains(col), "{header}");
    }
    assert!(text.contains("SCALE UP 3→5"), "{text}");
    assert!(text.contains("missing-request"), "{text}");
    assert!(text.contains("9 HPA(s)"), "{text}");
    // -A adds the namespace column.
    let text = ok(
        &run(&["explain", "-A", "--snapshot", &f, "--now", NOW], None),
        "fleet -A",
    );
    assert!(text.contains("\n\nNAMESPACE"), "{text}");

    let v = ok_json(
        &run(
            &["explain", "--snapshot", &f, "--now", NOW, "-o", "json"],
            None,
        ),
        "fleet json",
    );
    assert_eq!(v["kind"], "FleetExplanation");
    let items = v["items"].as_array().expect("items");
    assert_eq!(items.len(), EXAMPLES.len());
    for (name, file) in EXAMPLES {
        let item = items
            .iter()
            .find(|i| i["name"] == *name)
            .unwrap_or_else(|| panic!("no item {name}"));
        let single = ok_json(
            &run(
                &[
                    "explain",
                    name,
                    "-n",
                    "shop",
                    "--snapshot",
                    &root().join("examples").join(file).to_string_lossy(),
                    "--now",
                    NOW,
                    "-o",
                    "json",
                ],
                None,
            ),
            name,
        );
        assert_eq!(decision(&item["decision"]), decision(&single), "{name}");
        assert_eq!(item["desiredReplicas"], single["desiredReplicas"], "{name}");
        assert_eq!(item["decidedBy"], single["verdict"]["decidedBy"], "{name}");
        assert!(item["diagnostics"].is_array(), "{name}");
    }
    let reviews = items
        .iter()
        .find(|i| i["name"] == "reviews")
        .expect("reviews");
    assert_eq!(reviews["warnings"], json!(["missing-request"]));
}

#[test]
fn offline_fleet_reports_a_missing_target_and_goes_on() {
    let dir = tmpdir("missing-target");
    let p = dir.join("s.json");
    let mut items = load_snapshot(root().join("examples/scale-up-cpu.yaml"));
    items.push(json!({"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",
        "metadata": {"name": "ghost", "namespace": "shop"},
        "spec": {"minReplicas": 1, "maxReplicas": 3, "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "ghost"}}}));
    std::fs::write(
        &p,
        json!({"apiVersion": "v1", "kind": "List", "items": items}).to_string(),
    )
    .expect("write");
    let v = ok_json(
        &run(
            &[
                "explain",
                "--snapshot",
                &p.to_string_lossy(),
                "--now",
                NOW,
                "-o",
                "json",
            ],
            None,
        ),
        "fleet",
    );
    // The file (not written by `kubectl hpa snapshot`) lacks the target: UNKNOWN, not the
    // controller's FailedGetScale (issue 27 item 2); the other HPA still decides.
    let ghost = &v["items"][0];
    assert_eq!(ghost["name"], "ghost");
    assert!(ghost["error"].is_null(), "{ghost}");
    assert_eq!(ghost["action"], "Unknown", "{ghost}");
    assert_eq!(ghost["decidedBy"], "NotInSnapshot", "{ghost}");
    assert!(ghost["desiredReplicas"].is_null(), "{ghost}");
    assert_eq!(ghost["warnings"], json!(["snapshot-lacks-target"]));
    assert_eq!(ghost["decision"]["conditions"], json!([]), "{ghost}");
    let note = ghost["diagnostics"][0]["message"]
        .as_str()
        .unwrap_or_default();
    assert!(
        note.contains("lacks the scale target Deployment shop/ghost"),
        "{note}"
    );
    assert_eq!(v["items"][1]["desiredReplicas"], 5);
}

struct Cluster {
    server: FakeApiServer,
    kubeconfig: PathBuf,
}

fn cluster_of(objects: Vec<Value>, tag: &str) -> Cluster {
    let server = FakeApiServer::start(objects);
    let kubeconfig = server.write_kubeconfig(&tmpdir(tag));
    Cluster { server, kubeconfig }
}

impl Cluster {
    fn run(&self, args: &[&str]) -> Output {
        run(args, Some(&self.kubeconfig))
    }
}

#[test]
fn live_fleet_gives_the_single_live_decisions() {
    let c = cluster_of(all_examples(), "live");
    let text = ok(
        &c.run(&["explain", "-n", "shop", "--now", NOW]),
        "live fleet",
    );
    assert!(text.contains("SCALE UP 3→5"), "{text}");
    let v = ok_json(
        &c.run(&["explain", "-n", "shop", "--now", NOW, "-o", "json"]),
        "live fleet json",
    );
    let items = v["items"].as_array().expect("items");
    assert_eq!(items.len(), EXAMPLES.len(), "{v}");
    for (name, _) in EXAMPLES {
        let item = items.iter().find(|i| i["name"] == *name).expect("item");
        let single = ok_json(
            &c.run(&["explain", name, "-n", "shop", "--now", NOW, "-o", "json"]),
            name,
        );
        assert_eq!(decision(&item["decision"]), decision(&single), "{name}");
        // The single explain carries the same diagnostics.
        let ids = |v: &Value| -> Vec<String> {
            v.as_array()
                .into_iter()
                .flatten()
                .map(|f| f["id"].as_str().unwrap_or_default().to_string())
                .collect()
        };
        assert_eq!(
            ids(&item["diagnostics"]),
            ids(&single["diagnostics"]),
            "{name}"
        );
    }
    assert!(c.server.writes().is_empty());
}

#[test]
fn the_live_fleet_reads_events_and_infers_the_memory_the_drill_down_does() {
    // held-by-window: the status and a SuccessfulRescale Event settle the memory at 8; without
    // the Events the fleet said `8 (4–8)` where `explain frontend` said 8.
    let c = cluster_of(
        load_snapshot(root().join("examples/held-by-window.yaml")),
        "events",
    );
    let memory = |v: &Value| {
        json!({
            "desiredReplicas": v["desiredReplicas"],
            "desiredRange": v["desiredRange"],
            "memory": v["memory"],
            "nextChange": v["nextChange"],
            "verdict": v["verdict"],
        })
    };
    let single = ok_json(
        &c.run(&[
            "explain", "frontend", "-n", "shop", "--now", NOW, "-o", "json",
        ]),
        "drill-down",
    );
    assert_eq!(single["desiredRange"], json!({"min": 8, "max": 8}));
    for scope in [&["-n", "shop"][..], &["-A"][..]] {
        let mut args = vec!["explain", "--now", NOW, "-o", "json"];
        args.extend_from_slice(scope);
        let v = ok_json(&c.run(&args), "fleet");
        let item = v["items"]
            .as_array()
            .and_then(|i| i.iter().find(|i| i["name"] == "frontend"))
            .expect("frontend row");
        assert_eq!(memory(&item["decision"]), memory(&single), "{scope:?}");
        assert_eq!(item["desiredRange"], json!({"min": 8, "max": 8}));
        let mut args = vec!["explain", "--now", NOW];
        args.extend_from_slice(scope);
        let text = ok(&c.run(&args), "fleet text");
        assert!(!text.contains("(4–8)"), "{text}");
    }
    // One Events LIST per scope (and the two of what stops the replicas), not one per HPA.
    c.server.clear_requests();
    c.run(&["explain", "-A", "--now", NOW]);
    // The LISTs go out concurrently: the server sees them in any order.
    let mut events: Vec<String> = c
        .server
        .requests()
        .iter()
        .filter(|r| r.path.contains("/events"))
        .map(summary)
        .collect();
    events.sort();
    assert_eq!(
        events,
        [
            "GET /api/v1/events?fieldSelector=involvedObject.kind!=HorizontalPodAutoscaler,type=Warning&resourceVersion=0",
            "GET /api/v1/events?fieldSelector=involvedObject.kind=HorizontalPodAutoscaler&resourceVersion=0",
            "GET /api/v1/events?fieldSelector=involvedObject.kind=Pod,type=Normal,reason!=Scheduled,reason!=Pulling,reason!=Pulled,reason!=Created,reason!=Started,reason!=Killing&resourceVersion=0",
        ]
    );
}

/// `namespaces` namespaces with `per_ns` HPAs each (a Deployment, 2 pods and PodMetrics per HPA).
fn fleet_objects(namespaces: usize, per_ns: usize) -> Vec<Value> {
    let mut o = Vec::new();
    for n in 0..namespaces {
        let ns = format!("team-{n:02}");
        for h in 0..per_ns {
            let app = format!("app-{h:03}");
            o.push(json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": app, "namespace": ns},
                "spec": {"replicas": 2, "selector": {"matchLabels": {"app": app}}}, "status": {"replicas": 2, "updatedReplicas": 2}}));
            o.push(json!({"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {"name": format!("{app}-5d4f"), "namespace": ns,
                "ownerReferences": [{"apiVersion": "apps/v1", "kind": "Deployment", "name": app, "uid": "x", "controller": true}]},
                "spec": {"replicas": 2, "selector": {"matchLabels": {"app": app}}}, "status": {"replicas": 2}}));
            o.push(json!({"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler", "metadata": {"name": app, "namespace": ns},
                "spec": {"minReplicas": 1, "maxReplicas": 10, "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": app},
                         "metrics": [{"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 50}}}]}}));
            for p in 0..2 {
                let pod = format!("{app}-5d4f-{p}");
                o.push(json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": pod, "namespace": ns, "labels": {"app": app},
                        "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": format!("{app}-5d4f"), "uid": "y", "controller": true}]},
                    "spec": {"containers": [{"name": "app", "image": "x", "resources": {"requests": {"cpu": "100m"}}}]},
                    "status": {"phase": "Running", "startTime": "2026-03-01T10:00:00Z",
                               "conditions": [{"type": "Ready", "status": "True", "lastTransitionTime": "2026-03-01T10:01:00Z"}]}}));
                o.push(json!({"apiVersion": "metrics.k8s.io/v1beta1", "kind": "PodMetrics", "metadata": {"name": pod, "namespace": ns},
                    "timestamp": NOW, "window": "30s", "containers": [{"name": "app", "usage": {"cpu": format!("{}m", 40 + 10 * (h % 5))}}]}));
            }
        }
    }
    o
}

fn summary(r: &RecordedRequest) -> String {
    let mut q: Vec<String> = r
        .query
        .iter()
        .filter(|(k, v)| !(k == "continue" && v.is_empty()))
        .map(|(k, v)| format!("{k}={v}"))
        .collect();
    q.sort();
    format!("{} {}?{}", r.method, r.path, q.join("&"))
}

fn fleet_requests(namespaces: usize, per_ns: usize, args: &[&str]) -> (Vec<String>, Value) {
    let c = cluster_of(
        fleet_objects(namespaces, per_ns),
        &format!("count-{namespaces}-{per_ns}-{}", args.len()),
    );
    let mut a = vec!["explain", "--now", NOW, "-o", "json"];
    a.extend_from_slice(args);
    let v = ok_json(&c.run(&a), "fleet");
    let mut reqs: Vec<String> = c.server.requests().iter().map(summary).collect();
    reqs.sort();
    assert!(c.server.requests().iter().all(|r| r.method == "GET"));
    (reqs, v)
}

#[test]
fn the_number_of_requests_does_not_grow_with_the_number_of_hpas() {
    // -A: 5 HPAs vs 50 HPAs in 5 namespaces: the very same requests.
    let (small, sv) = fleet_requests(5, 1, &["-A"]);
    let (big, bv) = fleet_requests(5, 10, &["-A"]);
    assert_eq!(sv["items"].as_array().map(Vec::len), Some(5));
    assert_eq!(bv["items"].as_array().map(Vec::len), Some(50));
    assert_eq!(small, big);
    let want = vec![
        "GET /api/v1/events?fieldSelector=involvedObject.kind!=HorizontalPodAutoscaler,type=Warning&resourceVersion=0",
        "GET /api/v1/events?fieldSelector=involvedObject.kind=HorizontalPodAutoscaler&resourceVersion=0",
        "GET /api/v1/events?fieldSelector=involvedObject.kind=Pod,type=Normal,reason!=Scheduled,reason!=Pulling,reason!=Pulled,reason!=Created,reason!=Started,reason!=Killing&resourceVersion=0",
        "GET /api/v1/limitranges?limit=5000&resourceVersion=0",
        "GET /api/v1/namespaces/kube-system/pods?labelSelector=component=kube-controller-manager&limit=500",
        "GET /api/v1/pods?limit=5000&resourceVersion=0",
        "GET /api/v1/resourcequotas?limit=5000&resourceVersion=0",
        "GET /apis/apiregistration.k8s.io/v1/apiservices?",
        "GET /apis/apps/v1/deployments?limit=5000&resourceVersion=0",
        "GET /apis/apps/v1/replicasets?limit=5000&resourceVersion=0",
        "GET /apis/apps/v1/statefulsets?limit=5000&resourceVersion=0",
        "GET /apis/autoscaling.k8s.io/v1/verticalpodautoscalers?limit=5000&resourceVersion=0",
        "GET /apis/autoscaling/v2/horizontalpodautoscalers?limit=5000&resourceVersion=0",
        "GET /apis/keda.sh/v1alpha1/scaledobjects?limit=5000&resourceVersion=0",
        "GET /apis/metrics.k8s.io/v1beta1/pods?",
        "GET /apis/metrics.k8s.io?",
        "GET /apis/policy/v1/poddisruptionbudgets?limit=5000&resourceVersion=0",
        "GET /version?",
    ];
    assert_eq!(big, want);
    // 60 % of request vs 50 % → 3 replicas for h % 5 == 2, etc.: every HPA was decided.
    assert!(bv["items"]
        .as_array()
        .expect("items")
        .iter()
        .all(|i| i["decision"]["verdict"]["decidedBy"].is_string() && i["error"].is_null()));

    // One namespace: 1 HPA vs 10 HPAs, the same requests, all scoped to the namespace.
    let (one, _) = fleet_requests(3, 1, &["-n", "team-01"]);
    let (ten, tv) = fleet_requests(3, 10, &["-n", "team-01"]);
    assert_eq!(one, ten);
    assert_eq!(tv["items"].as_array().map(Vec::len), Some(10));
    assert!(
        ten.iter().all(|r| r.contains("/namespaces/team-01/")
            || r.starts_with("GET /version")
            || r.starts_with("GET /api/v1/namespaces/kube-system/pods?")
            || r == "GET /apis/apiregistration.k8s.io/v1/apiservices?"
            || r == "GET /apis/metrics.k8s.io?"),
        "{ten:?}"
    );
}

#[test]
fn fleet_decisions_match_single_explains_on_the_generated_fleet() {
    let c = cluster_of(fleet_objects(2, 5), "gen");
    let v = ok_json(
        &c.run(&["explain", "-A", "--now", NOW, "-o", "json"]),
        "fleet",
    );
    for item in v["items"].as_array().expect("items") {
        let ns = item["namespace"].as_str().expect("ns");
        let name = item["name"].as_str().expect("name");
        let single = ok_json(
            &c.run(&["explain", name, "-n", ns, "--now", NOW, "-o", "json"]),
            name,
        );
        assert_eq!(
            decision(&item["decision"]),
            decision(&single),
            "{ns}/{name}"
        );
    }
}

#[test]
fn live_fleet_reports_a_missing_target_as_failed_get_scale() {
    let mut objects = fleet_objects(1, 2);
    objects.push(json!({"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler", "metadata": {"name": "ghost", "namespace": "team-00"},
        "spec": {"minReplicas": 1, "maxReplicas": 3, "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "ghost"}}}));
    let c = cluster_of(objects, "ghost");
    let v = ok_json(
        &c.run(&["explain", "-n", "team-00", "--now", NOW, "-o", "json"]),
        "fleet",
    );
    let ghost = v["items"]
        .as_array()
        .expect("items")
        .iter()
        .find(|i| i["name"] == "ghost")
        .expect("ghost")
        .clone();
    assert_eq!(ghost["decidedBy"], "FailedGetScale", "{ghost}");
    assert_eq!(ghost["warnings"], json!(["target-missing"]), "{ghost}");
    // The controller's words, as the single explain gets them from the scale GET.
    let single = ok_json(
        &c.run(&[
            "explain", "ghost", "-n", "team-00", "--now", NOW, "-o", "json",
        ]),
        "single ghost",
    );
    assert_eq!(decision(&ghost["decision"]), decision(&single));
}

#[test]
fn metrics_api_missing_vs_unavailable() {
    // No metrics objects: metrics.k8s.io is not served at all and there is no APIService.
    let objects: Vec<Value> = fleet_objects(1, 1)
        .into_iter()
        .filter(|o| o["kind"] != "PodMetrics")
        .collect();
    let c = cluster_of(objects.clone(), "nometrics");
    let v = ok_json(
        &c.run(&[
            "explain", "app-000", "-n", "team-00", "--now", NOW, "-o", "json",
        ]),
        "single",
    );
    let ids: Vec<&str> = v["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .filter_map(|f| f["id"].as_str())
        .collect();
    assert!(ids.contains(&"metrics-api-missing"), "{ids:?}");
    // The metrics chain's APIServices LIST says it is missing: no GET by name.
    assert!(!c
        .server
        .requests()
        .iter()
        .any(|r| r.path.contains("apiservices/")));
    // The fleet says it too, without an APIService GET.
    c.server.clear_requests();
    let f = ok_json(
        &c.run(&["explain", "-n", "team-00", "--now", NOW, "-o", "json"]),
        "fleet",
    );
    assert_eq!(f["items"][0]["warnings"][0], "metrics-api-missing", "{f}");
    assert_eq!(
        c.server
            .requests()
            .iter()
            .filter(|r| r.path.contains("apiservices/"))
            .count(),
        0
    );
    // When that LIST is refused, one GET by name tells.
    c.server.inject(
        fake_apiserver::PathMatch::exact("/apis/apiregistration.k8s.io/v1/apiservices"),
        fake_apiserver::Fault::Status(403),
    );
    c.server.clear_requests();
    let v = ok_json(
        &c.run(&[
            "explain", "app-000", "-n", "team-00", "--now", NOW, "-o", "json",
        ]),
        "single, LIST refused",
    );
    assert!(
        v["diagnostics"]
            .as_array()
            .is_some_and(|d| d.iter().any(|f| f["id"] == "metrics-api-missing")),
        "{v}"
    );
    let gets: Vec<String> = c
        .server
        .requests()
        .into_iter()
        .map(|r| r.path)
        .filter(|p| p.contains("apiservices/"))
        .collect();
    assert_eq!(
        gets,
        ["/apis/apiregistration.k8s.io/v1/apiservices/v1beta1.metrics.k8s.io"]
    );
    c.server.clear_faults();

    // An APIService that is not Available: the group answers 503.
    let mut objects = objects;
    objects.push(json!({"apiVersion": "apiregistration.k8s.io/v1", "kind": "APIService", "metadata": {"name": "v1beta1.metrics.k8s.io"},
        "spec": {"group": "metrics.k8s.io", "version": "v1beta1", "service": {"name": "metrics-server", "namespace": "kube-system"}},
        "status": {"conditions": [{"type": "Available", "status": "False", "reason": "FailedDiscoveryCheck", "message": "failing or missing response from https://10.96.0.10:443"}]}}));
    let c = cluster_of(objects, "unavailable");
    let text = ok(
        &c.run(&["explain", "app-000", "-n", "team-00", "--now", NOW]),
        "single text",
    );
    assert!(text.contains("Diagnostics"), "{text}");
    assert!(text.contains("metrics-api-unavailable"), "{text}");
    assert!(text.contains("FailedDiscoveryCheck"), "{text}");
    // A working metrics API is never looked up by name (the metrics chain lists them all).
    let c = cluster_of(fleet_objects(1, 1), "working");
    ok(
        &c.run(&["explain", "app-000", "-n", "team-00", "--now", NOW]),
        "working",
    );
    assert!(!c
        .server
        .requests()
        .iter()
        .any(|r| r.path.contains("apiservices/")));
}

#[test]
fn diagnostics_name_foreign_pods_ambiguity_rollouts_and_stale_samples() {
    let mut objects = fleet_objects(1, 1);
    let ns = "team-00";
    // A bare pod with the app's labels (not owned by the Deployment), using lots of cpu.
    objects.push(json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "debug-pod", "namespace": ns, "labels": {"app": "app-000"}},
        "spec": {"containers": [{"name": "app", "image": "x", "resources": {"requests": {"cpu": "100m"}}}]},
        "status": {"phase": "Running", "startTime": "2026-03-01T10:00:00Z",
                   "conditions": [{"type": "Ready", "status": "True", "lastTransitionTime": "2026-03-01T10:01:00Z"}]}}));
    objects.push(json!({"apiVersion": "metrics.k8s.io/v1beta1", "kind": "PodMetrics", "metadata": {"name": "debug-pod", "namespace": ns},
        "timestamp": "2026-03-01T11:50:00Z", "window": "30s", "containers": [{"name": "app", "usage": {"cpu": "200m"}}]}));
    let c = cluster_of(objects.clone(), "foreign");
    let v = ok_json(
        &c.run(&["explain", "app-000", "-n", ns, "--now", NOW, "-o", "json"]),
        "single",
    );
    let d = &v["diagnostics"];
    let get = |id: &str| {
        d.as_array()
            .expect("diagnostics")
            .iter()
            .find(|f| f["id"] == id)
            .cloned()
            .unwrap_or_else(|| panic!("no {id} in {d}"))
    };
    let foreign = get("foreign-pods");
    let msg = foreign["message"].as_str().expect("message");
    assert!(msg.contains("debug-pod (no owner)"), "{msg}");
    assert!(msg.contains("% of the usage"), "{msg}");
    let stale = get("metrics-stale");
    assert!(stale["message"].as_str().expect("m").contains("debug-pod"));
    assert!(get("next-scale")["details"]["scaleUpAt"].is_number());

    // A second HPA on the same Deployment: AmbiguousSelector, named.
    objects.push(json!({"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler", "metadata": {"name": "dup", "namespace": ns},
        "spec": {"minReplicas": 3, "maxReplicas": 3, "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "app-000"}}}));
    // A rollout: a second ReplicaSet of the Deployment with a pod.
    objects.push(json!({"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {"name": "app-000-77aa", "namespace": ns,
        "ownerReferences": [{"apiVersion": "apps/v1", "kind": "Deployment", "name": "app-000", "uid": "x", "controller": true}]},
        "spec": {"replicas": 1, "selector": {"matchLabels": {"app": "app-000"}}}, "status": {"replicas": 1}}));
    objects.push(json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "app-000-77aa-0", "namespace": ns, "labels": {"app": "app-000"},
            "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "app-000-77aa", "uid": "z", "controller": true}]},
        "spec": {"containers": [{"name": "app", "image": "x:v2", "resources": {"requests": {"cpu": "100m"}}}]},
        "status": {"phase": "Running", "startTime": "2026-03-01T11:59:00Z",
                   "conditions": [{"type": "Ready", "status": "False", "lastTransitionTime": "2026-03-01T11:59:00Z"}]}}));
    let c = cluster_of(objects, "ambiguous");
    let v = ok_json(
        &c.run(&["explain", "-n", ns, "--now", NOW, "-o", "json"]),
        "fleet",
    );
    let items = v["items"].as_array().expect("items");
    let app = items.iter().find(|i| i["name"] == "app-000").expect("app");
    let warnings: Vec<&str> = app["warnings"]
        .as_array()
        .expect("w")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert!(warnings.contains(&"ambiguous-selector"), "{warnings:?}");
    assert!(warnings.contains(&"rollout-in-progress"), "{warnings:?}");
    // the new ReplicaSet's pod is owned (through the ReplicaSets list), the bare pod is not
    let foreign = app["diagnostics"]
        .as_array()
        .expect("d")
        .iter()
        .find(|f| f["id"] == "foreign-pods")
        .expect("foreign");
    assert!(
        !foreign["message"].as_str().expect("m").contains("77aa"),
        "{foreign}"
    );
    let amb = app["diagnostics"]
        .as_array()
        .expect("d")
        .iter()
        .find(|f| f["id"] == "ambiguous-selector")
        .expect("amb");
    assert!(
        amb["message"].as_str().expect("m").contains("team-00/dup"),
        "{amb}"
    );
    let dup = items.iter().find(|i| i["name"] == "dup").expect("dup");
    let ids: Vec<&str> = dup["diagnostics"]
        .as_array()
        .expect("d")
        .iter()
        .filter_map(|f| f["id"].as_str())
        .collect();
    assert!(ids.contains(&"min-equals-max"), "{ids:?}");
}

#[test]
fn watch_keeps_its_own_history_and_prints_only_changes() {
    let c = cluster_of(fleet_objects(1, 1), "watch");
    let t = Instant::now();
    let child = cmd(
        &[
            "explain",
            "app-000",
            "-n",
            "team-00",
            "--watch",
            "--watch-count",
            "4",
            "--sync-period",
            "1s",
            "--downscale-stabilization",
            "2s",
        ],
        Some(&c.kubeconfig),
    )
    .stdout(Stdio::piped())
    .stderr(Stdio::piped())
    .spawn()
    .expect("spawn");
    // After the first evaluation, the load drops: 20m of 100m requested → a scale-down the
    // 2 s stabilization window holds back first (our own history remembers the 2 replicas).
    let deadline = Instant::now() + Duration::from_secs(20);
    while c
        .server
        .requests()
        .iter()
        .filter(|r| {
            r.path
                .ends_with("/namespaces/team-00/horizontalpodautoscalers")
        })
        .count()
        < 1
    {
        assert!(Instant::now() < deadline, "no request");
        std::thread::sleep(Duration::from_millis(20));
    }
    std::thread::sleep(Duration::from_millis(300));
    for p in 0..2 {
        c.server.upsert(json!({"apiVersion": "metrics.k8s.io/v1beta1", "kind": "PodMetrics",
            "metadata": {"name": format!("app-000-5d4f-{p}"), "namespace": "team-00"},
            "timestamp": NOW, "window": "30s", "containers": [{"name": "app", "usage": {"cpu": "20m"}}]}));
    }
    let out = child.wait_with_output().expect("wait");
    let text = ok(&out, "watch");
    let took = t.elapsed();
    assert!(took >= Duration::from_secs(3), "{took:?}");
    let changes: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("20") && l.contains(" → "))
        .collect();
    // 1: hold at 2 (40 % vs 50 %, inside tolerance); 2: the drop, held by stabilization;
    // 3: after the 2 s window, the scale-down. The unchanged evaluations print nothing.
    assert!(changes.len() >= 2 && changes.len() <= 4, "{text}");
    assert!(changes[0].contains("2 → 2"), "{text}");
    assert!(text.contains("ScaleDownStabilized"), "{text}");
    assert!(text.contains("no assumption"), "{text}");
    assert!(text.contains("stopped after 4 evaluation(s)"), "{text}");
    // One read of the HPA (the namespace's HPA LIST) per evaluation.
    let reads = c
        .server
        .requests()
        .iter()
        .filter(|r| {
            r.path
                .ends_with("/namespaces/team-00/horizontalpodautoscalers")
        })
        .count();
    assert_eq!(reads, 4);
}

#[test]
fn watch_needs_the_cluster() {
    let out = run(
        &[
            "explain",
            "web",
            "--watch",
            "--snapshot",
            "examples/scale-up-cpu.yaml",
        ],
        None,
    );
    assert_ne!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--snapshot"));
}

// ---------------------------------------------------------------------------------------------
// kubectl's habits for the fleet: -l/--selector, --sort-by, -w/--watch, and the golden table.

/// Every example, with `tier=front` on the HPAs web and api.
fn labelled_examples() -> Vec<Value> {
    let mut objects = all_examples();
    let label = |o: &mut Value| {
        let name = &o["metadata"]["name"];
        if o["kind"] == "HorizontalPodAutoscaler" && (name == "web" || name == "api") {
            o["metadata"]["labels"] = json!({"tier": "front"});
        }
    };
    for o in &mut objects {
        label(o);
        for i in o["items"].as_array_mut().into_iter().flatten() {
            label(i);
        }
    }
    objects
}

fn labelled_file() -> PathBuf {
    let p = tmpdir("labelled").join("labelled.json");
    let list = json!({"apiVersion": "v1", "kind": "List", "items": labelled_examples()});
    std::fs::write(&p, list.to_string()).expect("write");
    p
}

fn names(v: &Value) -> Vec<String> {
    v["items"]
        .as_array()
        .expect("items")
        .iter()
        .map(|i| i["name"].as_str().unwrap_or_default().to_string())
        .collect()
}

#[test]
fn selector_picks_the_fleet_by_labels_offline_and_live() {
    let file = labelled_file();
    let f = file.to_string_lossy().to_string();
    let base = ["explain", "--snapshot", &f, "--now", NOW];
    let go = |more: &[&str]| {
        let mut a: Vec<&str> = base.to_vec();
        a.extend_from_slice(more);
        run(&a, None)
    };
    let v = ok_json(&go(&["-l", "tier=front", "-o", "json"]), "-l");
    assert_eq!(names(&v), ["api", "web"]);
    let v = ok_json(&go(&["--selector", "tier!=front", "-o", "json"]), "!=");
    assert_eq!(names(&v).len(), EXAMPLES.len() - 2);
    // One match is still the fleet (the selector asks for a list).
    let text = ok(&go(&["-l", "tier=front,app notin (x)"]), "text");
    assert!(text.contains("2 HPA(s)"), "{text}");
    // Nothing matches: the error names the selector.
    let out = go(&["-l", "tier=back"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("matching -l tier=back"),
        "{}",
        stderr(&out)
    );
    // Usage errors: a bad selector, a selector with NAME.
    for bad in [&["-l", "tier in (front"][..], &["web", "-l", "tier=front"]] {
        let out = go(bad);
        assert_eq!(out.status.code(), Some(2), "{bad:?}: {}", stderr(&out));
        assert!(stderr(&out).contains("selector"), "{}", stderr(&out));
    }

    let c = cluster_of(labelled_examples(), "selector");
    let v = ok_json(
        &c.run(&[
            "explain",
            "-n",
            "shop",
            "-l",
            "tier=front",
            "--now",
            NOW,
            "-o",
            "json",
        ]),
        "live -l",
    );
    assert_eq!(names(&v), ["api", "web"]);
    let text = ok(
        &c.run(&["explain", "-A", "-l", "tier=back", "--now", NOW]),
        "none",
    );
    assert_eq!(
        text,
        "No HorizontalPodAutoscalers found in all namespaces matching -l tier=back.\n"
    );
}

#[test]
fn sort_by_orders_the_rows_as_kubectl_does() {
    let file = all_examples_file();
    let f = file.to_string_lossy().to_string();
    let json = |by: &str| {
        ok_json(
            &run(
                &[
                    "explain",
                    "-A",
                    "--snapshot",
                    &f,
                    "--now",
                    NOW,
                    "--sort-by",
                    by,
                    "-o",
                    "json",
                ],
                None,
            ),
            by,
        )
    };
    let plain = ok_json(
        &run(
            &[
                "explain",
                "-A",
                "--snapshot",
                &f,
                "--now",
                NOW,
                "-o",
                "json",
            ],
            None,
        ),
        "plain",
    );
    // Numbers as numbers; ties keep the namespace/name order.
    let mut want: Vec<(i64, String)> = plain["items"]
        .as_array()
        .expect("items")
        .iter()
        .map(|i| {
            (
                i["desiredReplicas"].as_i64().expect("desired"),
                i["name"].as_str().expect("name").to_string(),
            )
        })
        .collect();
    want.sort_by_key(|(d, _)| *d);
    let want: Vec<String> = want.into_iter().map(|(_, n)| n).collect();
    assert_eq!(names(&json(".desiredReplicas")), want);
    assert_ne!(names(&json(".desiredReplicas")), names(&plain));
    assert_eq!(names(&json("{.desiredReplicas}")), want);
    // The table follows the same order.
    let text = ok(
        &run(
            &[
                "explain",
                "-A",
                "--snapshot",
                &f,
                "--now",
                NOW,
                "--sort-by=.desiredReplicas",
                "--no-headers",
            ],
            None,
        ),
        "text",
    );
    let rows: Vec<String> = text
        .lines()
        .take_while(|l| !l.is_empty())
        .map(|l| l.split_whitespace().nth(1).unwrap_or_default().to_string())
        .collect();
    assert_eq!(rows, want);
    assert_eq!(names(&json(".target.kind"))[0], by_kind_first(&plain));
    for bad in [&["--sort-by", "{.a"][..], &["web", "--sort-by", ".name"]] {
        let mut a = vec!["explain", "--snapshot", &f];
        a.extend_from_slice(bad);
        let out = run(&a, None);
        assert_eq!(out.status.code(), Some(2), "{bad:?}: {}", stderr(&out));
        assert!(stderr(&out).contains("--sort-by"), "{}", stderr(&out));
    }
}

/// The first name in target-kind order: a Deployment sorts first, by name.
fn by_kind_first(plain: &Value) -> String {
    let mut v: Vec<(String, String)> = plain["items"]
        .as_array()
        .expect("items")
        .iter()
        .map(|i| {
            (
                i["target"]["kind"].as_str().unwrap_or_default().to_string(),
                i["name"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect();
    v.sort_by(|a, b| a.0.cmp(&b.0));
    v.remove(0).1
}

/// Wait until the fleet watch has listed the namespace's HPAs `n` times.
fn wait_for_lists(c: &Cluster, n: usize) {
    let deadline = Instant::now() + Duration::from_secs(20);
    while c
        .server
        .requests()
        .iter()
        .filter(|r| r.path.ends_with("/horizontalpodautoscalers"))
        .count()
        < n
    {
        assert!(Instant::now() < deadline, "no request");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn fleet_watch_prints_the_table_then_the_rows_that_change() {
    let c = cluster_of(fleet_objects(1, 2), "fleet-watch");
    let child = cmd(
        &[
            "explain",
            "-n",
            "team-00",
            "-w",
            "--watch-count",
            "3",
            "--sync-period",
            "1s",
        ],
        Some(&c.kubeconfig),
    )
    .stdout(Stdio::piped())
    .stderr(Stdio::piped())
    .spawn()
    .expect("spawn");
    wait_for_lists(&c, 1);
    std::thread::sleep(Duration::from_millis(300));
    // app-000's load quadruples: its row changes, app-001's does not.
    for p in 0..2 {
        c.server.upsert(json!({"apiVersion": "metrics.k8s.io/v1beta1", "kind": "PodMetrics",
            "metadata": {"name": format!("app-000-5d4f-{p}"), "namespace": "team-00"},
            "timestamp": NOW, "window": "30s", "containers": [{"name": "app", "usage": {"cpu": "200m"}}]}));
    }
    let text = ok(&child.wait_with_output().expect("wait"), "fleet watch");
    let lines: Vec<&str> = text.lines().collect();
    assert!(
        lines[0].starts_with("Watching the HPAs of namespace team-00 every 1s"),
        "{text}"
    );
    assert!(lines[1].starts_with("HPA "), "{text}");
    assert_eq!(
        lines.iter().filter(|l| l.starts_with("HPA ")).count(),
        1,
        "{text}"
    );
    let rows = |name: &str| {
        lines
            .iter()
            .filter(|l| l.starts_with(name))
            .copied()
            .collect::<Vec<_>>()
    };
    assert_eq!(rows("app-001").len(), 1, "{text}");
    let app0 = rows("app-000");
    assert_eq!(app0.len(), 2, "{text}");
    assert!(app0[0].contains("HOLD"), "{text}");
    assert!(app0[1].contains("SCALE UP 2→"), "{text}");
    assert!(text.contains("stopped after 3 evaluation(s)"), "{text}");
    // One fleet fetch per evaluation, nothing written.
    assert!(c.server.writes().is_empty());
    assert_eq!(
        c.server
            .requests()
            .iter()
            .filter(|r| r.path.ends_with("/horizontalpodautoscalers"))
            .count(),
        3
    );
}

#[test]
fn fleet_watch_in_json_lines_and_only_live() {
    let c = cluster_of(fleet_objects(2, 1), "fleet-watch-json");
    let out = c.run(&[
        "explain",
        "-A",
        "--watch",
        "--watch-count",
        "2",
        "--sync-period",
        "1s",
        "-o",
        "json",
    ]);
    let text = ok(&out, "json watch");
    let items: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).expect("one JSON object per line"))
        .collect();
    // Both rows once (nothing changed at the second evaluation).
    let names: Vec<&str> = items.iter().filter_map(|i| i["name"].as_str()).collect();
    assert_eq!(names, ["app-000", "app-000"]);
    let namespaces: Vec<&str> = items
        .iter()
        .filter_map(|i| i["namespace"].as_str())
        .collect();
    assert_eq!(namespaces, ["team-00", "team-01"]);
    assert!(items.iter().all(|i| i["decision"]["verdict"].is_object()));
    // An empty namespace says so, then waits for rows.
    let text = ok(
        &c.run(&[
            "explain",
            "-n",
            "nobody",
            "-w",
            "--watch-count",
            "1",
            "--no-headers",
        ]),
        "empty watch",
    );
    assert!(
        text.contains("No HorizontalPodAutoscalers found yet"),
        "{text}"
    );
    assert!(text.contains("stopped after 1 evaluation(s)"), "{text}");
    // --watch re-reads the cluster: with --snapshot it is a usage error, fleet or not.
    let file = all_examples_file();
    let out = run(
        &["explain", "-A", "-w", "--snapshot", &file.to_string_lossy()],
        None,
    );
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("--snapshot"));
}

/// Lines of the text that are not table rows, longer than `width`.
fn prose_too_long(text: &str, width: usize) -> Vec<String> {
    let summary = text.lines().take_while(|l| !l.is_empty());
    let after_table = text
        .lines()
        .skip_while(|l| !l.is_empty())
        .skip(1)
        .skip_while(|l| !l.is_empty());
    summary
        .chain(after_table)
        .filter(|l| l.chars().count() > width)
        .filter(|l| {
            let longest = l
                .split_whitespace()
                .map(|w| w.chars().count())
                .max()
                .unwrap_or(0);
            l.chars().take_while(|c| *c == ' ').count() + longest <= width
        })
        .map(String::from)
        .collect()
}

// Regenerate with `UPDATE_GOLDEN=1 cargo test --locked --test it fleet::fleet_golden`.
#[test]
fn fleet_golden_text_at_80_and_120_columns() {
    let file = all_examples_file();
    let f = file.to_string_lossy().to_string();
    let mut stale = Vec::new();
    for (format, tag) in [("text", "fleet"), ("wide", "fleet-wide")] {
        for width in [80usize, 120] {
            let out = cmd(
                &[
                    "explain",
                    "-A",
                    "--snapshot",
                    &f,
                    "--now",
                    NOW,
                    "-o",
                    format,
                ],
                None,
            )
            .env("COLUMNS", width.to_string())
            .output()
            .expect("runs");
            let text = ok(&out, tag);
            assert!(
                prose_too_long(&text, width).is_empty(),
                "{tag} at {width}:\n{text}"
            );
            // Text fits the width, the table too (it leaves out columns that -o wide shows).
            let long: Vec<&str> = text
                .lines()
                .filter(|l| format == "text" && l.chars().count() > width)
                .collect();
            assert!(long.is_empty(), "{tag} at {width}: {long:#?}");
            // The table: one line per HPA (wide too, past the width), no RFC3339 timestamps.
            let table: Vec<&str> = text
                .lines()
                .skip_while(|l| !l.is_empty())
                .skip(1)
                .take_while(|l| !l.is_empty())
                .collect();
            assert_eq!(table.len(), 1 + EXAMPLES.len(), "{tag} at {width}:\n{text}");
            let stamped: Vec<&&str> = table.iter().filter(|l| l.contains("2026-03-01T")).collect();
            assert!(stamped.is_empty(), "{tag} at {width}: {stamped:#?}");
            let golden = root()
                .join("tests/golden")
                .join(format!("{tag}.{width}.txt"));
            stale.extend(crate::support::golden::compare(&golden, &text).err());
        }
    }
    crate::support::golden::assert_none_stale(&stale, "the fleet's text");
}

/// `objects` with the PodMetrics of the HPAs `stale` picks (by namespace index and HPA index)
/// dated 10 minutes before NOW, and the pods of those `no_request` picks without a cpu request.
fn with_problems(
    mut objects: Vec<Value>,
    stale: impl Fn(usize, usize) -> bool,
    no_request: impl Fn(usize, usize) -> bool,
) -> Vec<Value> {
    let index = |o: &Value| -> (usize, usize) {
        let ns = o["metadata"]["namespace"].as_str().unwrap_or_default();
        let name = o["metadata"]["name"].as_str().unwrap_or_default();
        let n = ns.trim_start_matches("team-").parse().unwrap_or(0);
        let h = name.get(4..7).and_then(|h| h.parse().ok()).unwrap_or(0);
        (n, h)
    };
    for o in &mut objects {
        let (n, h) = index(o);
        if o["kind"] == "PodMetrics" && stale(n, h) {
            o["timestamp"] = json!("2026-03-01T11:50:00Z");
        }
        if o["kind"] == "Pod" && no_request(n, h) {
            o["spec"]["containers"][0]["resources"] = json!({});
        }
    }
    objects
}

/// `objects` as one List in a file of its own.
fn list_file(objects: Vec<Value>, tag: &str) -> PathBuf {
    let p = tmpdir(tag).join("fleet.json");
    let list = json!({"apiVersion": "v1", "kind": "List", "items": objects});
    std::fs::write(&p, serde_json::to_string(&list).expect("json")).expect("write");
    p
}

fn fleet_text(file: &std::path::Path, width: usize, extra: &[&str]) -> String {
    let f = file.to_string_lossy().to_string();
    let mut args = vec!["explain", "-A", "--snapshot", &f, "--now", NOW];
    args.extend_from_slice(extra);
    let out = cmd(&args, None)
        .env("COLUMNS", width.to_string())
        .output()
        .expect("runs");
    ok(&out, "fleet text")
}

#[test]
fn five_hundred_hpas_sharing_one_cause_print_it_once() {
    let file = list_file(
        with_problems(fleet_objects(10, 50), |_, _| true, |_, _| false),
        "one-cause",
    );
    let text = fleet_text(&file, 120, &[]);
    let first = text.lines().next().expect("summary");
    assert_eq!(
        first,
        "all namespaces: 500 HPAs: 200 holding, 300 scaling up; 1 problem affects 500 HPAs"
    );
    let (_, problems) = text.split_once("\nProblems\n").expect("problems");
    let (problems, _) = problems.split_once("\n\n").expect("footer");
    assert_eq!(problems.matches("metrics-stale").count(), 1, "{problems}");
    assert_eq!(
        problems.replace("\n    ", " "),
        "  [warning] metrics-stale (the metrics are stale): 500 HPAs in 10 namespaces: team-00/app-000, team-00/app-001, team-00/app-002 and 497 more"
    );
    // The table, the summary, the problem and the footer: not 500 lines of the same warning.
    assert!(text.lines().count() < 500 + 12, "{}", text.lines().count());
    // -o wide and JSON keep the per-HPA list.
    let wide = fleet_text(&file, 120, &["-o", "wide"]);
    let (_, per_hpa) = wide.split_once("\nProblems\n").expect("problems");
    assert_eq!(
        per_hpa
            .lines()
            .filter(|l| l.contains("[warning] metrics-stale"))
            .count(),
        500
    );
    let v: Value = serde_json::from_str(&fleet_text(&file, 120, &["-o", "json"])).expect("json");
    assert!(v["items"]
        .as_array()
        .expect("items")
        .iter()
        .all(|i| i["warnings"] == json!(["metrics-stale"])));
}

// Regenerate with `UPDATE_GOLDEN=1 cargo test --test it fleet::fleet_summary_golden`.
#[test]
fn fleet_summary_golden_at_80_and_120_columns() {
    let update = std::env::var_os("UPDATE_GOLDEN").is_some();
    // 3 namespaces of 6 HPAs: every other one stale, two without a cpu request.
    let file = list_file(
        with_problems(
            fleet_objects(3, 6),
            |_, h| h % 2 == 0,
            |n, h| n == 1 && h >= 4,
        ),
        "summary-golden",
    );
    let mut stale = Vec::new();
    for width in [80usize, 120] {
        let text = fleet_text(&file, width, &[]);
        let long: Vec<&str> = text.lines().filter(|l| l.chars().count() > width).collect();
        assert!(long.is_empty(), "at {width}: {long:#?}");
        let golden = root()
            .join("tests/golden")
            .join(format!("fleet-summary.{width}.txt"));
        if update {
            std::fs::write(&golden, &text).expect("write golden");
            continue;
        }
        if std::fs::read_to_string(&golden).unwrap_or_default() != text {
            stale.push(golden.display().to_string());
        }
    }
    assert!(
        stale.is_empty(),
        "the fleet summary differs from the golden files (review, then regenerate with UPDATE_GOLDEN=1 cargo test --test it fleet::fleet_summary_golden):\n  {}",
        stale.join("\n  ")
    );
}

/// The generated fleet (2 namespaces of 4 HPAs) with `tier=web` on the even HPAs, team-00's
/// app-001 reading stale metrics and team-01's app-002 without a cpu request.
fn triage_objects() -> Vec<Value> {
    let mut objects = with_problems(
        fleet_objects(2, 4),
        |n, h| n == 0 && h == 1,
        |n, h| n == 1 && h == 2,
    );
    for o in &mut objects {
        let name = o["metadata"]["name"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        if o["kind"] == "HorizontalPodAutoscaler" && (name.ends_with('0') || name.ends_with('2')) {
            o["metadata"]["labels"] = json!({"tier": "web"});
        }
    }
    objects
}

fn wide_run(c: &Cluster, args: &[&str]) -> String {
    let out = cmd(args, Some(&c.kubeconfig))
        .env("COLUMNS", "200")
        .output()
        .expect("runs");
    ok(&out, &args.join(" "))
}

#[test]
fn problems_targets_and_custom_columns_on_the_live_fleet() {
    let c = cluster_of(triage_objects(), "triage");
    // --problems: the two rows that need someone; the summary still counts the scope.
    let text = wide_run(&c, &["explain", "-A", "--now", NOW, "--problems"]);
    assert!(text.starts_with("all namespaces: 8 HPAs: "), "{text}");
    let rows: Vec<&str> = text.lines().filter(|l| l.starts_with("team-")).collect();
    assert_eq!(rows.len(), 2, "{text}");
    assert!(rows[0].starts_with("team-00     app-001"), "{text}");
    assert!(rows[1].starts_with("team-01     app-002"), "{text}");
    // kubectl get hpa's TARGETS: the current value over the target.
    assert!(rows[0].contains("cpu: 50%/50%"), "{text}");
    assert!(rows[1].contains("cpu: <unknown>/50%"), "{text}");
    let v = ok_json(
        &c.run(&["explain", "-A", "--now", NOW, "--problems", "-o", "json"]),
        "problems json",
    );
    assert_eq!(names(&v), ["app-001", "app-002"]);
    // custom-columns with -l and --sort-by; a missing key prints <none>.
    let spec = "custom-columns=NS:.metadata.namespace,NAME:{.name},DESIRED:.desiredReplicas,NOPE:.nothing.here";
    let text = wide_run(
        &c,
        &[
            "explain",
            "-A",
            "--now",
            NOW,
            "-o",
            spec,
            "-l",
            "tier=web",
            "--sort-by",
            ".desiredReplicas",
        ],
    );
    assert_eq!(
        text,
        "NS        NAME      DESIRED   NOPE\n\
         team-00   app-000   2         <none>\n\
         team-01   app-000   2         <none>\n\
         team-01   app-002   2         <none>\n\
         team-00   app-002   3         <none>\n"
    );
    // The same columns from a file, with --problems and --no-headers.
    let file = tmpdir("columns").join("columns.txt");
    std::fs::write(&file, "NAME  VERDICT\n.name .action\n").expect("write");
    let arg = format!("custom-columns-file={}", file.display());
    let text = wide_run(
        &c,
        &[
            "explain",
            "-A",
            "--now",
            NOW,
            "-o",
            &arg,
            "--problems",
            "--no-headers",
        ],
    );
    assert_eq!(text, "app-001   Hold\napp-002   CannotScale\n");
    // A bad spec is one line saying what to give.
    let out = c.run(&["explain", "-A", "-o", "custom-columns=NAME.name"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("expected <header>:<json-path-expr>"),
        "{}",
        stderr(&out)
    );
    // -w: the changed rows through the columns, the header once.
    let text = wide_run(
        &c,
        &[
            "explain",
            "-A",
            "-w",
            "--watch-count",
            "2",
            "--sync-period",
            "1s",
            "-o",
            "custom-columns=NAME:.name,NS:.namespace",
            "-l",
            "tier=web",
        ],
    );
    assert_eq!(
        text,
        "NAME      NS\napp-000   team-00\napp-002   team-00\napp-000   team-01\napp-002   team-01\n"
    );
}

/// A port nothing listens on (a connection to it is refused).
fn refused_url() -> String {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .expect("bind")
        .local_addr()
        .expect("addr")
        .port();
    format!("http://127.0.0.1:{port}")
}

/// A kubeconfig with one context per `(name, server URL)`, each its own cluster, namespace
/// `team-00`; the first is current.
fn kubeconfig_of(tag: &str, contexts: &[(&str, String)]) -> PathBuf {
    let mut y = String::from("apiVersion: v1\nkind: Config\nclusters:\n");
    for (name, url) in contexts {
        y += &format!("- name: {name}-cluster\n  cluster:\n    server: {url}\n");
    }
    y += "contexts:\n";
    for (name, _) in contexts {
        y += &format!("- name: {name}\n  context:\n    cluster: {name}-cluster\n    namespace: team-00\n    user: u\n");
    }
    y += &format!(
        "current-context: {}\nusers:\n- name: u\n  user:\n    token: t\n",
        contexts[0].0
    );
    let path = tmpdir(tag).join("kubeconfig");
    std::fs::write(&path, y).expect("write kubeconfig");
    path
}

/// `n` fake clusters, `per_ns` HPAs in namespace team-00 each (a different count per cluster so
/// rows tell them apart), and the kubeconfig naming them `c0`, `c1`… plus `down` (refused).
fn clusters(n: usize, tag: &str) -> (Vec<FakeApiServer>, PathBuf) {
    let servers: Vec<FakeApiServer> = (0..n)
        .map(|k| FakeApiServer::start(fleet_objects(1, k + 1)))
        .collect();
    let names: Vec<String> = (0..n).map(|k| format!("c{k}")).collect();
    let mut contexts: Vec<(&str, String)> = names
        .iter()
        .zip(&servers)
        .map(|(name, s)| (name.as_str(), s.url()))
        .collect();
    contexts.push(("down", refused_url()));
    (servers, kubeconfig_of(tag, &contexts))
}

#[test]
fn several_contexts_one_down_is_one_line_and_the_others_are_shown() {
    let (servers, kc) = clusters(2, "ctx2");
    let args = [
        "explain",
        "--context",
        "c0",
        "--context",
        "down",
        "--context",
        "c1",
        "--now",
        NOW,
    ];
    let out = cmd(&args, Some(&kc))
        .env("COLUMNS", "120")
        .output()
        .expect("runs");
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    // Exit 3: the output is printed, but a read of ours failed (one context).
    assert_eq!(out.status.code(), Some(3), "{text}{}", stderr(&out));
    let lines: Vec<&str> = text.lines().collect();
    assert!(
        lines[0].starts_with("2 of 3 contexts, each context's namespace: 3 HPAs"),
        "{text}"
    );
    assert!(
        lines[1].starts_with("  context c0, namespace team-00: 1 HPA"),
        "{text}"
    );
    let down: Vec<&&str> = lines
        .iter()
        .filter(|l| l.contains("context down"))
        .collect();
    assert_eq!(
        down.len(),
        1,
        "one line for the context that is down: {text}"
    );
    assert!(
        down[0].contains("not read") && down[0].contains("refused"),
        "{text}"
    );
    // (The line of the context that is down wraps to the width: it is one entry.)
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("  context c1, namespace team-00: 2 HPAs")),
        "{text}"
    );
    let at = lines
        .iter()
        .position(|l| l.contains("HPA "))
        .expect("header");
    assert!(lines[at].starts_with("CONTEXT"), "{text}");
    assert_eq!(lines[at - 1], "", "a blank line under the summary: {text}");
    let rows: Vec<&&str> = lines
        .iter()
        .filter(|l| l.starts_with("c0 ") || l.starts_with("c1 "))
        .collect();
    assert_eq!(rows.len(), 3, "{text}");
    // Each context's own server was asked, with its own connection.
    assert!(servers.iter().all(|s| !s.requests().is_empty()));

    // JSON: the context per item, and how each context answered.
    let out = run(&[&args[..], &["-o", "json"]].concat(), Some(&kc));
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    let v: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let ctx: Vec<&str> = v["items"]
        .as_array()
        .expect("items")
        .iter()
        .map(|i| i["context"].as_str().unwrap_or_default())
        .collect();
    assert_eq!(ctx, ["c0", "c1", "c1"], "{v}");
    let answers = v["contexts"].as_array().expect("contexts");
    assert_eq!(answers.len(), 3);
    assert_eq!(answers[1]["context"], "down");
    assert!(
        answers[1]["error"]
            .as_str()
            .unwrap_or_default()
            .contains("refused"),
        "{v}"
    );
    assert_eq!(answers[2]["hpas"], 2);
    assert!(answers[0]["error"].is_null());
}

#[test]
fn five_contexts_and_all_contexts() {
    let (_servers, kc) = clusters(5, "ctx5");
    let mut args = vec!["explain", "--now", NOW, "-A", "-o", "json"];
    for c in ["c0", "c1", "c2", "c3", "c4"] {
        args.extend(["--context", c]);
    }
    let v = ok_json(&run(&args, Some(&kc)), "five contexts");
    let items = v["items"].as_array().expect("items");
    // 1 + 2 + 3 + 4 + 5 HPAs, each decided.
    assert_eq!(items.len(), 15, "{v}");
    assert!(items
        .iter()
        .all(|i| i["decision"]["verdict"]["decidedBy"].is_string()));
    assert_eq!(v["source"], "contexts c0, c1, c2, c3, c4");

    // --all-contexts: every context of the kubeconfig, the one down included (exit 3).
    let out = run(&["explain", "--now", NOW, "--all-contexts"], Some(&kc));
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    assert_eq!(out.status.code(), Some(3), "{text}{}", stderr(&out));
    assert!(
        text.starts_with("5 of 6 contexts, each context's namespace: 15 HPAs"),
        "{text}"
    );

    // Every context down: one line, exit 1.
    let kc_down = kubeconfig_of("ctx-none", &[("a", refused_url()), ("b", refused_url())]);
    let out = run(&["explain", "--all-contexts"], Some(&kc_down));
    assert_eq!(out.status.code(), Some(1));
    let e = stderr(&out);
    assert_eq!(e.trim_end().lines().count(), 1, "{e}");
    assert!(e.starts_with("error: no context could be read: a: "), "{e}");
}

#[test]
fn name_in_several_contexts_and_commands_that_read_one() {
    let (_servers, kc) = clusters(2, "ctx-name");
    let args = [
        "explain",
        "app-000",
        "--context",
        "c0",
        "--context",
        "c1",
        "--now",
        NOW,
    ];
    let text = ok(&run(&args, Some(&kc)), "NAME in two contexts");
    assert!(text.starts_with("==> context c0 ("), "{text}");
    assert!(text.contains("\n==> context c1 ("), "{text}");
    let v = ok_json(
        &run(&[&args[..], &["-o", "json"]].concat(), Some(&kc)),
        "NAME in two contexts, JSON",
    );
    assert_eq!(v["kind"], "List");
    assert_eq!(v["items"].as_array().map(Vec::len), Some(2));
    // A context that lacks the HPA: one line on stderr, the other shown, exit 3.
    let out = run(
        &[
            "explain",
            "app-001",
            "--context",
            "c0",
            "--context",
            "c1",
            "--now",
            NOW,
        ],
        Some(&kc),
    );
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    assert!(
        stderr(&out).starts_with("error: context c0: "),
        "{}",
        stderr(&out)
    );
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("==> context c1 ("));
    // Commands that read one cluster refuse several contexts (usage, exit 2).
    for a in [
        &["snapshot", "--context", "c0", "--context", "c1"][..],
        &["explain", "-w", "--all-contexts"][..],
    ] {
        let out = run(a, Some(&kc));
        assert_eq!(out.status.code(), Some(2), "{a:?}: {}", stderr(&out));
        assert!(
            stderr(&out).contains("reads one context"),
            "{}",
            stderr(&out)
        );
    }
    // The same context twice is one context.
    let one = ok_json(
        &run(
            &[
                "explain",
                "--context",
                "c1",
                "--context",
                "c1",
                "-o",
                "json",
                "--now",
                NOW,
            ],
            Some(&kc),
        ),
        "one context twice",
    );
    assert!(
        one.get("contexts").is_none() && one["items"][0].get("context").is_none(),
        "{one}"
    );
}

#[test]
fn context_values_complete_from_the_kubeconfig() {
    let kc = kubeconfig_of(
        "ctx-complete",
        &[
            ("prod-eu", refused_url()),
            ("prod-us", refused_url()),
            ("lab", refused_url()),
        ],
    );
    let out = cmd(&["__complete", "explain", "--context", "prod"], None)
        .env("KUBECONFIG", &kc)
        .output()
        .expect("runs");
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    let candidates: Vec<&str> = text.lines().filter(|l| !l.starts_with(':')).collect();
    assert_eq!(candidates, ["prod-eu", "prod-us"], "{text}");
    // Repeated: the second --context completes too.
    let out = cmd(
        &["__complete", "explain", "--context", "lab", "--context", ""],
        None,
    )
    .env("KUBECONFIG", &kc)
    .output()
    .expect("runs");
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(text.lines().any(|l| l == "lab"), "{text}");
}
