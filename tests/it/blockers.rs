//! What stops the replicas (issue 29 items 2, 3, 6) against the fake API server: Pending pods
//! and a ResourceQuota's refusal (`pending-pods`, `quota-exceeded`), a VerticalPodAutoscaler, a
//! PodDisruptionBudget and a LimitRange on the same workload (`vpa-conflict`,
//! `pdb-blocks-drain`, `limitrange-request`); the reads are optional (403 → a note naming the
//! verb; no VPA CRD → nothing said); live agrees with the file and with `snapshot --redact`;
//! the fleet says one line per cause.

use crate::support::binary::*;
use crate::support::cluster::FakeCluster as Cluster;
use crate::support::fake_apiserver::{Fault, PathMatch};
use serde_json::{json, Value};

/// A fake cluster serving an example, and `explain NAME -o json` against it.
fn live(file: &str, name: &str, tag: &str) -> (Cluster, Value) {
    let c = Cluster::example(file, tag);
    let v = c.explain_json(name);
    (c, v)
}

fn finding<'a>(v: &'a Value, id: &str) -> &'a Value {
    v["diagnostics"]
        .as_array()
        .and_then(|d| d.iter().find(|f| f["id"] == id))
        .unwrap_or_else(|| panic!("no {id} in {}", v["diagnostics"]))
}

fn ids(v: &Value) -> Vec<String> {
    v["diagnostics"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|f| f["id"].as_str().unwrap_or_default().to_string())
        .collect()
}

fn offline(file: &std::path::Path, name: &str) -> Value {
    ok_json(
        &run(
            &[
                "explain",
                name,
                "-n",
                "shop",
                "--snapshot",
                &file.to_string_lossy(),
                "--now",
                NOW,
                "-o",
                "json",
            ],
            None,
        ),
        "offline explain",
    )
}

#[test]
fn pending_pods_are_summarised_with_the_schedulers_reasons_and_the_autoscalers_word() {
    let (_c, v) = live("replicas-not-appearing.yaml", "web", "blk-pending");
    let f = finding(&v, "pending-pods");
    assert_eq!(f["severity"], "warning");
    let m = f["message"].as_str().expect("message");
    assert!(m.starts_with("2 of the target's pods are Pending"), "{m}");
    assert!(m.contains("spec.replicas is 8 but 4 are ready"), "{m}");
    assert!(
        m.contains(
            "3 Insufficient cpu, 2 node(s) had untolerated taint {dedicated: batch}\" (2 pod(s))"
        ),
        "{m}"
    );
    assert!(!m.contains("preemption"), "{m}");
    assert!(
        m.contains("the cluster-autoscaler will not add a node (NotTriggerScaleUp"),
        "{m}"
    );
    let a = f["action"].as_str().expect("action");
    assert!(
        a.starts_with("add node capacity for 500m cpu, 256Mi memory per pod"),
        "{a}"
    );
    assert!(a.contains("toleration"), "{a}");
    assert_eq!(f["details"]["reasons"][0]["family"], "insufficient");
    assert_eq!(f["details"]["pendingPods"], 2);
    // The same facts, typed: the Explanation's `capacity.pendingPods`.
    let p = &v["capacity"]["pendingPods"];
    assert_eq!(
        (&p["count"], &p["readyPods"], &p["specReplicas"]),
        (&json!(2), &json!(4), &json!(8)),
        "{p}"
    );
    assert_eq!(
        p["reasons"][0],
        json!({"nodes": 3, "reason": "Insufficient cpu", "family": "insufficient"})
    );
    assert_eq!(p["reasons"][1]["family"], "taint");
    assert_eq!(p["podsWithThatReading"], 2);
    assert_eq!(p["nodeAutoscaler"][0]["reason"], "NotTriggerScaleUp");
    assert_eq!(p["nodesComing"], false);
}

#[test]
fn a_quota_refusal_says_how_many_more_pods_fit_and_what_to_raise() {
    let (_c, v) = live("replicas-not-appearing.yaml", "web", "blk-quota");
    let f = finding(&v, "quota-exceeded");
    let m = f["message"].as_str().expect("message");
    assert!(
        m.starts_with(
            "ResourceQuota compute refuses the target's new pods (requests.cpu 3 used of 3)"
        ),
        "{m}"
    );
    assert!(
        m.contains("FailedCreate on web-6d8f9c7b5 (7 time(s)"),
        "{m}"
    );
    assert!(
        m.contains("0 more pod(s) fit (requests.cpu binds first)"),
        "{m}"
    );
    assert!(m.contains("the HPA wants 8, 6 exist"), "{m}");
    let a = f["action"].as_str().expect("action");
    assert!(
        a.starts_with("raise ResourceQuota compute's requests.cpu to 4 for the 2 missing pod(s)"),
        "{a}"
    );
    assert_eq!(f["details"]["podsThatFit"], 0);
    // Typed: `capacity.quota`, the quota's used/hard in the user's units.
    let q = &v["capacity"]["quota"];
    assert_eq!(
        (&q["quota"], &q["refusedBy"], &q["refusals"]),
        (&json!("compute"), &json!("web-6d8f9c7b5"), &json!(7)),
        "{q}"
    );
    assert_eq!(q["hard"]["requests.cpu"], "3", "{q}");
    assert_eq!(q["used"]["requests.cpu"], "3", "{q}");
    assert_eq!(q["perPodRequests"]["cpu"], "500m", "{q}");
    assert_eq!(
        (&q["podsThatFit"], &q["bindingKey"], &q["missingPods"]),
        (&json!(0), &json!("requests.cpu"), &json!(2)),
        "{q}"
    );
    assert_eq!(q["fromQuotaObject"], true);
    // The decision is the controller's: it holds at 8.
    assert_eq!(v["desiredReplicas"], 8);
}

#[test]
fn a_vpa_a_budget_and_a_limitrange_on_the_same_workload_are_named() {
    let (_c, v) = live("other-hands.yaml", "api", "blk-others");
    let vpa = finding(&v, "vpa-conflict");
    let m = vpa["message"].as_str().expect("message");
    assert!(
        m.starts_with(
            "VerticalPodAutoscaler api (updateMode Auto) sets the cpu requests of Deployment api"
        ),
        "{m}"
    );
    assert!(m.contains("feedback loop"), "{m}");
    assert!(vpa["action"]
        .as_str()
        .expect("a")
        .starts_with("take cpu out of the VPA's control"));
    let pdb = finding(&v, "pdb-blocks-drain");
    let m = pdb["message"].as_str().expect("message");
    assert!(m.starts_with("PodDisruptionBudget api (minAvailable 2) selects the target's pods and keeps 2 of the 2 at minReplicas"), "{m}");
    assert!(pdb["action"]
        .as_str()
        .expect("a")
        .starts_with("let one pod go at the floor: set the budget's minAvailable to 1"));
    let lr = finding(&v, "limitrange-request");
    let m = lr["message"].as_str().expect("message");
    assert!(
        m.contains("(250m for api) is LimitRange defaults's defaultRequest: the LimitRanger admission plugin set it on api (the pods' kubernetes.io/limit-ranger annotation)"),
        "{m}"
    );
    // Typed: `otherHands`.
    let o = &v["otherHands"];
    assert_eq!(
        o["vpas"],
        json!([{"name": "api", "updateMode": "Auto", "controlledResources": ["cpu", "memory"], "conflictsOn": "cpu"}])
    );
    assert_eq!(
        o["pdbs"],
        json!([{"name": "api", "rule": "minAvailable 2", "selectedPods": 2, "minReplicas": 2, "podsKeptAtMin": 2, "blocksDrainAtMin": true}])
    );
    assert_eq!(
        o["limitRanges"],
        json!([{"name": "defaults", "resource": "cpu", "defaultRequest": "250m", "field": "defaultRequest", "containers": ["api"], "confirmed": true}])
    );
    assert!(o.get("autoscalers").is_none(), "{o}");
}

/// The pods' `kubernetes.io/limit-ranger` annotation (kept by the live read) says exactly
/// which request the LimitRange set: one naming only memory means the cpu request the target
/// is a share of is the template's own, equal to the default or not.
#[test]
fn the_limit_rangers_annotation_says_which_request_came_from_the_limitrange() {
    let mut objects = load_snapshot_value("other-hands.yaml");
    for o in objects.iter_mut() {
        if o["kind"] == "Pod" {
            o["metadata"]["annotations"] = json!({
                "kubernetes.io/limit-ranger": "LimitRanger plugin set: memory request for container api",
                "kubectl.kubernetes.io/last-applied-configuration": "{}",
            });
        }
    }
    let c = Cluster::with(objects, "blk-ranger");
    let kc = c.kubeconfig.clone();
    let v = ok_json(
        &run(
            &["explain", "api", "-n", "shop", "--now", NOW, "-o", "json"],
            Some(&kc),
        ),
        "live explain",
    );
    assert!(
        !ids(&v).contains(&"limitrange-request".to_string()),
        "{:?}",
        ids(&v)
    );
    assert!(
        v["otherHands"].get("limitRanges").is_none(),
        "{}",
        v["otherHands"]
    );
    // The snapshot keeps that annotation only: offline says the same.
    let text = ok(
        &run(&["snapshot", "api", "-n", "shop"], Some(&kc)),
        "snapshot",
    );
    assert!(text.contains("memory request for container api"), "{text}");
    assert!(!text.contains("last-applied-configuration"), "{text}");
}

#[test]
fn an_updating_mode_off_or_a_budget_below_the_floor_says_nothing() {
    let mut objects = load_snapshot_value("other-hands.yaml");
    for o in objects.iter_mut() {
        if o["kind"] == "VerticalPodAutoscaler" {
            o["spec"]["updatePolicy"]["updateMode"] = json!("Initial");
        }
        if o["kind"] == "PodDisruptionBudget" {
            o["spec"]["minAvailable"] = json!(1);
        }
    }
    let c = Cluster::with(objects, "blk-quiet");
    let kc = c.kubeconfig.clone();
    let v = ok_json(
        &run(
            &["explain", "api", "-n", "shop", "--now", NOW, "-o", "json"],
            Some(&kc),
        ),
        "live explain",
    );
    let got = ids(&v);
    assert!(!got.contains(&"vpa-conflict".to_string()), "{got:?}");
    assert!(!got.contains(&"pdb-blocks-drain".to_string()), "{got:?}");
}

/// The objects of an example, its List's items one by one.
fn load_snapshot_value(file: &str) -> Vec<Value> {
    crate::support::fake_apiserver::load_snapshot(example(file))
        .into_iter()
        .flat_map(|d| match d["items"].as_array() {
            Some(items) => items.clone(),
            None => vec![d],
        })
        .collect()
}

#[test]
fn a_forbidden_read_is_a_note_naming_the_verb_and_no_vpa_crd_is_quiet() {
    let c = Cluster::example("replicas-not-appearing.yaml", "blk-403");
    c.server
        .inject(PathMatch::contains("/resourcequotas"), Fault::Status(403));
    let kc = c.kubeconfig.clone();
    let v = ok_json(
        &run(
            &["explain", "web", "-n", "shop", "--now", NOW, "-o", "json"],
            Some(&kc),
        ),
        "explain with quotas forbidden",
    );
    let notes = v["assumptions"].to_string();
    assert!(notes.contains("needs `list` on resourcequotas"), "{notes}");
    // The rest still works: the pending pods are there, the decision too.
    assert!(ids(&v).contains(&"pending-pods".to_string()));
    assert_eq!(v["desiredReplicas"], 8);
    // The example holds no VPA: the fake server does not serve the kind (404), which is
    // normal for a cluster without the VPA CRD, and nothing is said about it.
    assert!(!notes.contains("verticalpodautoscalers"), "{notes}");
    let asked: Vec<String> = c.server.requests().iter().map(|r| r.path.clone()).collect();
    assert!(
        asked
            .iter()
            .any(|p| p.ends_with("/namespaces/shop/verticalpodautoscalers")),
        "{asked:?}"
    );
}

#[test]
fn live_the_file_and_the_redacted_snapshot_give_the_same_findings() {
    for (file, name) in [
        ("replicas-not-appearing.yaml", "web"),
        ("other-hands.yaml", "api"),
    ] {
        let (c, v) = live(file, name, &format!("blk-same-{name}"));
        let want = if name == "web" {
            "pending-pods"
        } else {
            "vpa-conflict"
        };
        assert!(ids(&v).iter().any(|i| i == want), "{:?}", ids(&v));
        let dir = tmpdir(&format!("blk-snap-{name}"));
        let mut found = Vec::new();
        for redact in [false, true] {
            let mut args = vec!["snapshot", name, "-n", "shop"];
            if redact {
                args.push("--redact");
            }
            let text = ok(&run(&args, Some(&c.kubeconfig)), "snapshot");
            let path = dir.join(format!("{redact}.yaml"));
            std::fs::write(&path, &text).expect("write");
            if redact {
                assert!(!text.contains("x9k2p"), "the refused pod's name stays out");
                assert!(!text.contains("registry.example.com"), "images go");
            }
            found.push(offline(&path, name));
        }
        let facts = |v: &Value| -> Vec<(Value, Value)> {
            v["diagnostics"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|f| (f["id"].clone(), f["details"].clone()))
                .collect()
        };
        assert_eq!(facts(&found[0]), facts(&v), "{file}: offline vs live");
        assert_eq!(facts(&found[1]), facts(&v), "{file}: redacted vs live");
        assert_eq!(found[1]["desiredReplicas"], v["desiredReplicas"]);
        for section in ["capacity", "otherHands"] {
            assert_eq!(
                found[0][section], v[section],
                "{file}: {section} offline vs live"
            );
            assert_eq!(
                found[1][section], v[section],
                "{file}: {section} redacted vs live"
            );
        }
    }
}

#[test]
fn the_redacted_snapshot_keeps_the_controller_managers_hpa_flags() {
    let mut objects = load_snapshot_value("replicas-not-appearing.yaml");
    objects.push(json!({"apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "kube-controller-manager-cp1", "namespace": "kube-system",
                     "labels": {"component": "kube-controller-manager", "tier": "control-plane"}},
        "spec": {"containers": [{"name": "kube-controller-manager", "image": "registry.k8s.io/kube-controller-manager:v1.33.0",
            "command": ["kube-controller-manager", "--bind-address=10.9.8.7",
                        "--horizontal-pod-autoscaler-tolerance=0.3"]}]},
        "status": {"phase": "Running"}}));
    let c = Cluster::with(objects, "blk-kcm");
    let kc = c.kubeconfig.clone();
    let text = ok(
        &run(&["snapshot", "web", "-n", "shop", "--redact"], Some(&kc)),
        "snapshot --redact",
    );
    assert!(
        text.contains("--horizontal-pod-autoscaler-tolerance=0.3"),
        "{text}"
    );
    assert!(!text.contains("10.9.8.7"), "other flags go");
    let path = tmpdir("blk-kcm-file").join("r.yaml");
    std::fs::write(&path, &text).expect("write");
    let v = offline(&path, "web");
    let source = v["settings"]["toleranceSource"]
        .as_str()
        .unwrap_or_default();
    assert!(
        source.starts_with("cluster: pod kube-system/kube-controller-manager-cp1"),
        "{source}"
    );
    assert_eq!(v["settings"]["tolerance"], 0.3);
}

/// Issue 29: the fleet flags an HPA held at minReplicas in its summary, and the notes of the
/// bounds and of the LimitRange's requests follow the problems, one line per cause.
#[test]
fn the_fleet_flags_at_min_and_lists_the_bounds_notes_once_per_cause() {
    let file = example("other-hands.yaml");
    let text = ok(
        &run(
            &[
                "explain",
                "-A",
                "--now",
                NOW,
                "--snapshot",
                file.to_str().unwrap(),
            ],
            None,
        ),
        "explain -A",
    );
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        flat.starts_with("all namespaces: 1 HPA: 1 at min;"),
        "{text}"
    );
    let notes = flat
        .split("Notes (nothing to fix unless intended)")
        .nth(1)
        .expect(&text);
    assert!(
        notes.contains(
            "[info] at-min-satisfied (at minReplicas, which is what the metrics want): shop/api"
        ),
        "{text}"
    );
    assert!(notes.contains("[info] limitrange-request"), "{text}");
    assert!(!flat.contains("Problems [info]"), "{text}");
}

#[test]
fn twenty_hpas_refused_by_one_quota_are_one_line_of_the_fleet() {
    let mut objects = vec![json!({"apiVersion": "v1", "kind": "ResourceQuota",
        "metadata": {"name": "compute", "namespace": "shop"},
        "spec": {"hard": {"pods": "20"}},
        "status": {"hard": {"pods": "20"}, "used": {"pods": "20"}}})];
    for i in 0..20 {
        let name = format!("svc{i:02}");
        let rs = format!("{name}-5d4c3b2a1");
        objects.push(json!({"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",
            "metadata": {"name": name, "namespace": "shop"},
            "spec": {"minReplicas": 1, "maxReplicas": 4, "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": name},
                     "metrics": [{"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 50}}}]}}));
        objects.push(json!({"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": name, "namespace": "shop"},
            "spec": {"replicas": 2, "selector": {"matchLabels": {"app": name}}, "template": {}},
            "status": {"replicas": 1, "updatedReplicas": 1}}));
        objects.push(json!({"apiVersion": "apps/v1", "kind": "ReplicaSet",
            "metadata": {"name": rs, "namespace": "shop",
                         "ownerReferences": [{"apiVersion": "apps/v1", "kind": "Deployment", "name": name, "controller": true}]},
            "spec": {"replicas": 2, "selector": {"matchLabels": {"app": name}}},
            "status": {"replicas": 1}}));
        let pod = format!("{rs}-a{i:02}");
        objects.push(json!({"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": pod, "namespace": "shop", "labels": {"app": name},
                         "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": rs, "controller": true}]},
            "spec": {"containers": [{"name": "app", "resources": {"requests": {"cpu": "100m"}}}]},
            "status": {"phase": "Running", "startTime": "2026-03-01T10:00:00Z",
                       "conditions": [{"type": "Ready", "status": "True", "lastTransitionTime": "2026-03-01T10:00:30Z"}]}}));
        objects.push(json!({"apiVersion": "metrics.k8s.io/v1beta1", "kind": "PodMetrics",
            "metadata": {"name": pod, "namespace": "shop", "labels": {"app": name}},
            "timestamp": NOW, "window": "30s", "containers": [{"name": "app", "usage": {"cpu": "90m"}}]}));
        objects.push(json!({"apiVersion": "v1", "kind": "Event",
            "metadata": {"name": format!("{rs}.1"), "namespace": "shop"},
            "involvedObject": {"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": rs, "namespace": "shop"},
            "reason": "FailedCreate", "type": "Warning", "count": 3, "lastTimestamp": "2026-03-01T11:59:00Z",
            "message": format!("Error creating: pods \"{rs}-zz\" is forbidden: exceeded quota: compute, requested: pods=1, used: pods=20, limited: pods=20")}));
    }
    let c = Cluster::with(objects, "blk-fleet");
    let kc = c.kubeconfig.clone();
    let text = ok(
        &run(&["explain", "-A", "--now", NOW], Some(&kc)),
        "explain -A",
    );
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    assert_eq!(flat.matches("] quota-exceeded").count(), 1, "{text}");
    assert!(
        flat.contains(
            "[warning] quota-exceeded (a ResourceQuota refuses new pods): 20 HPAs in 1 namespace"
        ),
        "{text}"
    );
}

/// `other-hands.yaml` with a kube-controller-manager pod whose flags set a 1 s sync period.
fn with_a_one_second_sync_period(tag: &str) -> Cluster {
    let mut objects = load_snapshot_value("other-hands.yaml");
    objects.push(json!({"apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "kube-controller-manager-cp1", "namespace": "kube-system",
                     "labels": {"component": "kube-controller-manager"}},
        "spec": {"containers": [{"name": "kube-controller-manager",
            "command": ["kube-controller-manager", "--horizontal-pod-autoscaler-sync-period=1s"]}]},
        "status": {"phase": "Running"}}));
    Cluster::with(objects, tag)
}

/// Three evaluations at the default 15 s period take at least 30 s (two waits); at 1 s about
/// 2 s plus the evaluations. The bound sits between, far from both, so a loaded machine does
/// not fail the test while the default period still would.
const WATCH_BOUND: std::time::Duration = std::time::Duration::from_secs(25);

/// What `--watch` says when it follows the cluster's 1 s sync period.
const ONE_SECOND_NOTE: &str = "The controller's sync period is 1s (cluster: pod \
    kube-system/kube-controller-manager-cp1): watching every 1s instead.";

#[test]
fn explain_watch_ticks_at_the_sync_period_of_the_clusters_controller() {
    let c = with_a_one_second_sync_period("blk-watch");
    let kc = c.kubeconfig.clone();
    let t = std::time::Instant::now();
    let text = ok(
        &run(
            &[
                "explain",
                "api",
                "-n",
                "shop",
                "--watch",
                "--watch-count",
                "3",
            ],
            Some(&kc),
        ),
        "explain --watch",
    );
    // Three evaluations one second apart, not the CLI's default 15 s.
    assert!(text.contains(ONE_SECOND_NOTE), "{text}");
    assert!(t.elapsed() < WATCH_BOUND, "{:?}", t.elapsed());
}

/// The fleet's watch ticks at the cluster's sync period too (as `explain NAME --watch`).
#[test]
fn the_fleet_watch_ticks_at_the_sync_period_of_the_clusters_controller() {
    let c = with_a_one_second_sync_period("blk-fleet-watch");
    let kc = c.kubeconfig.clone();
    let t = std::time::Instant::now();
    let text = ok(
        &run(
            &["explain", "-A", "--watch", "--watch-count", "3"],
            Some(&kc),
        ),
        "explain -A --watch",
    );
    assert!(text.contains(ONE_SECOND_NOTE), "{text}");
    assert!(text.contains("stopped after 3 evaluation(s)"), "{text}");
    // Three evaluations one second apart, not the CLI's default 15 s.
    assert!(t.elapsed() < WATCH_BOUND, "{:?}", t.elapsed());
}
