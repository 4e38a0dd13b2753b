//! The metrics chain (issue 28 items 2–5) against the fake API server: the APIServices and the
//! Services, Deployments and rules ConfigMap behind them, read live in the rounds the plan
//! says; prometheus-adapter rules that never give the HPA's metric (and its default rules,
//! which do); metrics-server unavailable; KEDA's external APIService held by another adapter;
//! a 403 on the APIServices; the fleet saying one broken chain once for 50 HPAs; a snapshot
//! (redacted or not) giving the same answer offline.

use crate::support::binary::*;
use crate::support::cluster::FakeCluster as Cluster;
use crate::support::fake_apiserver::{Fault, PathMatch};

use serde_json::{json, Value};

const EXAMPLE: &str = "adapter-rule-never-matches.yaml";

/// This file's questions to a fake cluster (`FakeCluster::with`, `example`, `run` and
/// `explain_json` come from support).
impl Cluster {
    fn text(&self, name: &str) -> String {
        ok(
            &self.run(&["explain", name, "-n", "shop", "--now", NOW]),
            name,
        )
    }
    fn paths(&self) -> Vec<String> {
        self.server
            .requests()
            .iter()
            .map(|r| r.path.clone())
            .collect()
    }
}

/// The text with its line breaks and indents as single spaces (a wrapped line reads whole).
fn words(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn ids(v: &Value) -> Vec<String> {
    v["diagnostics"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|d| d["id"].as_str().map(String::from))
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
        "offline",
    )
}

#[test]
fn a_rule_that_never_matches_is_found_live_and_offline_alike() {
    let c = Cluster::example(EXAMPLE, "chain-never");
    let v = c.explain_json("orders");
    let link = &v["metricsChain"]["metrics"][1];
    assert_eq!(link["adapter"], "prometheusAdapter", "{link}");
    assert_eq!(link["service"], "monitoring/prometheus-adapter");
    assert_eq!(link["failed"], true);
    assert_eq!(link["rules"]["configMap"], "monitoring/adapter-config");
    assert_eq!(link["rules"]["matchedBy"], json!([]));
    assert_eq!(
        link["rules"]["nearest"][0]["name"],
        "http_requests_per_second"
    );
    assert_eq!(v["metricsChain"]["metrics"][0]["adapter"], "metricsServer");
    assert!(
        ids(&v).contains(&"adapter-rule-no-match".to_string()),
        "{:?}",
        ids(&v)
    );
    // The reads: the APIServices, the Services behind the two the HPA reads, the Deployments
    // of their namespaces, the ConfigMap the adapter's --config names.
    let paths = c.paths();
    for p in [
        "/apis/apiregistration.k8s.io/v1/apiservices",
        "/api/v1/namespaces/monitoring/services/prometheus-adapter",
        "/api/v1/namespaces/kube-system/services/metrics-server",
        "/apis/apps/v1/namespaces/monitoring/deployments",
        "/apis/apps/v1/namespaces/kube-system/deployments",
        "/api/v1/namespaces/monitoring/configmaps/adapter-config",
    ] {
        assert_eq!(
            paths.iter().filter(|x| *x == p).count(),
            1,
            "{p}: {paths:?}"
        );
    }
    // The text: the chain line in the metrics section, the action first.
    let text = c.text("orders");
    assert!(
        text.contains("http_requests ← v1beta2.custom.metrics.k8s.io"),
        "{text}"
    );
    let todo = text.split("What you can do").nth(1).expect("actions");
    assert!(
        todo.trim_start().starts_with("- use a name the rules give"),
        "{text}"
    );
    // The snapshot keeps the chain; offline explain gives the same chain and findings.
    let snap = ok(&c.run(&["snapshot", "orders", "-n", "shop"]), "snapshot");
    let path = tmpdir("chain-never-snap").join("snap.json");
    std::fs::write(&path, &snap).expect("write");
    let replay = offline(&path, "orders");
    assert_eq!(replay["metricsChain"], v["metricsChain"]);
    assert_eq!(ids(&replay), ids(&v));
}

#[test]
fn redact_keeps_only_the_rules_key_and_the_same_answer() {
    let c = Cluster::example(EXAMPLE, "chain-redact");
    let mut cm = load_cm();
    cm["data"]["prometheus-password"] = json!("hunter2");
    c.server.upsert(cm);
    let v = c.explain_json("orders");
    let snap = ok(
        &c.run(&["snapshot", "orders", "-n", "shop", "--redact"]),
        "snapshot --redact",
    );
    assert!(!snap.contains("hunter2"), "{snap}");
    assert!(snap.contains("seriesQuery"), "{snap}");
    let path = tmpdir("chain-redact-snap").join("snap.json");
    std::fs::write(&path, &snap).expect("write");
    let replay = offline(&path, "orders");
    assert_eq!(ids(&replay), ids(&v));
    assert_eq!(
        replay["metricsChain"]["metrics"][1]["rules"],
        v["metricsChain"]["metrics"][1]["rules"]
    );
}

/// The example's rules ConfigMap.
fn load_cm() -> Value {
    let text = std::fs::read_to_string(example(EXAMPLE)).expect("example");
    let doc: Value = serde_saphyr::from_str(&text).expect("yaml");
    doc["items"]
        .as_array()
        .expect("items")
        .iter()
        .find(|i| i["kind"] == "ConfigMap")
        .cloned()
        .expect("ConfigMap")
}

#[test]
fn the_chart_s_default_rules_give_the_name() {
    let c = Cluster::example(EXAMPLE, "chain-default-rules");
    let mut cm = load_cm();
    cm["data"]["config.yaml"] = json!(std::fs::read_to_string(
        root().join("src/adapter/testdata/default-rules.yaml")
    )
    .expect("rules"));
    c.server.upsert(cm);
    let v = c.explain_json("orders");
    let rules = &v["metricsChain"]["metrics"][1]["rules"];
    assert_eq!(rules["matchedBy"][0]["rule"], "rules[0]", "{rules}");
    assert!(
        !ids(&v).iter().any(|i| i.starts_with("adapter-rule")),
        "{:?}",
        ids(&v)
    );
    // Named by a pattern: whether Prometheus has the series is the open question.
    let cause = v["metricsChain"]["metrics"][1]["cause"]
        .as_str()
        .unwrap_or_default();
    assert!(cause.contains("may have no such series"), "{cause}");
}

#[test]
fn metrics_server_unavailable_is_named_with_its_message() {
    let c = Cluster::example(EXAMPLE, "chain-ms-down");
    let msg = "failing or missing response from https://10.96.0.12:443/apis/metrics.k8s.io/v1beta1: context deadline exceeded";
    c.server.upsert(json!({"apiVersion": "apiregistration.k8s.io/v1", "kind": "APIService",
        "metadata": {"name": "v1beta1.metrics.k8s.io"},
        "spec": {"group": "metrics.k8s.io", "version": "v1beta1", "service": {"namespace": "kube-system", "name": "metrics-server"}},
        "status": {"conditions": [{"type": "Available", "status": "False", "reason": "FailedDiscoveryCheck", "message": msg}]}}));
    let v = c.explain_json("orders");
    let cpu = &v["metricsChain"]["metrics"][0];
    assert_eq!(cpu["available"], false, "{cpu}");
    assert_eq!(cpu["reason"], "FailedDiscoveryCheck");
    assert_eq!(cpu["message"], msg);
    assert_eq!(cpu["adapter"], "metricsServer");
    assert!(
        cpu["cause"].as_str().unwrap_or_default().contains(msg),
        "{cpu}"
    );
    let text = words(&c.text("orders"));
    assert!(
        text.contains("NOT available (FailedDiscoveryCheck)"),
        "{text}"
    );
}

/// A KEDA-generated HPA reading one External metric, and the APIService of that API held by
/// the Datadog Cluster Agent.
fn keda_objects(n: usize) -> Vec<Value> {
    let mut o = vec![
        json!({"apiVersion": "apiregistration.k8s.io/v1", "kind": "APIService", "metadata": {"name": "v1beta1.external.metrics.k8s.io"},
            "spec": {"group": "external.metrics.k8s.io", "version": "v1beta1",
                     "service": {"namespace": "datadog", "name": "datadog-cluster-agent-metrics-api"}},
            "status": {"conditions": [{"type": "Available", "status": "True", "reason": "Passed", "message": "all checks passed"}]}}),
        json!({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "datadog-cluster-agent-metrics-api", "namespace": "datadog"},
            "spec": {"selector": {"app": "datadog-cluster-agent"}}}),
    ];
    for i in 0..n {
        let so = format!("orders-{i}");
        let hpa = format!("keda-hpa-{so}");
        o.push(json!({"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",
            "metadata": {"name": hpa, "namespace": "shop",
                "ownerReferences": [{"apiVersion": "keda.sh/v1alpha1", "kind": "ScaledObject", "name": so, "uid": "u", "controller": true}]},
            "spec": {"minReplicas": 1, "maxReplicas": 100,
                "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": so},
                "metrics": [{"type": "External", "external": {
                    "metric": {"name": "s0-rabbitmq-orders", "selector": {"matchLabels": {"scaledobject.keda.sh/name": so}}},
                    "target": {"type": "AverageValue", "averageValue": "20"}}}]}}));
        o.push(json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": so, "namespace": "shop"},
            "spec": {"replicas": 2, "selector": {"matchLabels": {"app": so}}}, "status": {"replicas": 2}}));
    }
    o
}

#[test]
fn keda_s_external_apiservice_held_by_another_adapter_is_said_first() {
    let c = Cluster::with(keda_objects(1), "chain-keda");
    let v = c.explain_json("keda-hpa-orders-0");
    assert_eq!(
        v["metricsChain"]["kedaConflict"]["adapter"], "datadog",
        "{}",
        v["metricsChain"]
    );
    assert_eq!(ids(&v)[0], "keda-external-metrics-held");
    let link = &v["metricsChain"]["metrics"][0];
    assert_eq!(link["kedaTrigger"]["triggerIndex"], 0, "{link}");
    let text = c.text("keda-hpa-orders-0");
    let todo = text.split("What you can do").nth(1).expect("actions");
    assert!(
        todo.trim_start()
            .starts_with("- give v1beta1.external.metrics.k8s.io back to KEDA"),
        "{text}"
    );
    assert!(
        words(&text).contains(
            "KEDA's APIService v1beta1.external.metrics.k8s.io is held by the Datadog Cluster Agent"
        ),
        "{text}"
    );
}

#[test]
fn one_broken_chain_across_50_hpas_is_one_cause_in_the_fleet() {
    let c = Cluster::with(keda_objects(50), "chain-keda-fleet");
    let text = ok(&c.run(&["explain", "-n", "shop", "--now", NOW]), "fleet");
    let text = words(&text);
    let problems = text.split("Problems").nth(1).expect("problems");
    assert_eq!(
        problems.matches("keda-external-metrics-held").count(),
        1,
        "{problems}"
    );
    assert!(problems.contains("50 HPAs"), "{problems}");
    // The fleet's JSON items carry the same typed section as `explain NAME -o json`.
    let v = ok_json(
        &c.run(&["explain", "-n", "shop", "--now", NOW, "-o", "json"]),
        "fleet json",
    );
    let items = v["items"].as_array().expect("items");
    assert_eq!(items.len(), 50);
    for item in items {
        assert_eq!(
            item["metricsChain"]["kedaConflict"]["adapter"], "datadog",
            "{item}"
        );
        assert_eq!(
            item["metricsChain"]["metrics"][0]["kedaTrigger"]["triggerIndex"], 0,
            "{item}"
        );
    }
    assert_eq!(
        items[0]["metricsChain"],
        c.explain_json("keda-hpa-orders-0")["metricsChain"]
    );
    c.server.clear_requests();
    ok(&c.run(&["explain", "-n", "shop", "--now", NOW]), "fleet");
    // The chain's reads do not grow with the HPAs: one APIService LIST, one Service.
    let paths = c.paths();
    let count = |p: &str| paths.iter().filter(|x| *x == p).count();
    assert_eq!(count("/apis/apiregistration.k8s.io/v1/apiservices"), 1);
    assert_eq!(
        count("/api/v1/namespaces/datadog/services/datadog-cluster-agent-metrics-api"),
        1
    );
}

#[test]
fn a_403_on_the_apiservices_is_a_note_naming_the_verb_live_and_offline() {
    let c = Cluster::example(EXAMPLE, "chain-forbidden");
    c.server.inject(
        PathMatch::exact("/apis/apiregistration.k8s.io/v1/apiservices"),
        Fault::Status(403),
    );
    let out = c.run(&[
        "explain", "orders", "-n", "shop", "--now", NOW, "-o", "json",
    ]);
    let v = ok_json(&out, "explain with a 403");
    assert_eq!(
        v["desiredReplicas"], 3,
        "the decision does not depend on the chain"
    );
    let notes = v["metricsChain"]["notes"].to_string();
    assert!(
        notes.contains("`list` on apiservices.apiregistration.k8s.io"),
        "{v}"
    );
    assert!(
        !ids(&v).iter().any(|i| i.starts_with("adapter-")),
        "{:?}",
        ids(&v)
    );
    // Nothing behind the APIServices was read.
    assert!(
        !c.paths().iter().any(|p| p.contains("/configmaps/")),
        "{:?}",
        c.paths()
    );
    let snap = ok(&c.run(&["snapshot", "orders", "-n", "shop"]), "snapshot");
    assert!(snap.contains("metrics-chain/apiservices"), "{snap}");
    let path = tmpdir("chain-forbidden-snap").join("snap.json");
    std::fs::write(&path, &snap).expect("write");
    assert_eq!(offline(&path, "orders")["metricsChain"], v["metricsChain"]);
}
