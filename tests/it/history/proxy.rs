//! `--prometheus-service [NAMESPACE/]NAME[:PORT]` (issue 31 item 2): the cluster's Prometheus
//! read through the API server's service proxy over the kubeconfig's connection. The fake API
//! server proxies the Service to the in-process stand-in serving the replay scenario's recorded
//! answers, so the replay must be the one `--prometheus URL` gives.

use serde_json::Value;

use super::replay::{history_from, TO};
use crate::support::binary::{cmd, example, ok_json, stderr, tmpdir};
use crate::support::fake_apiserver::FakeApiServer;
use crate::support::prometheus::PromStandin;

/// The answers recorded for the replay scenario (tests/it/history/replay.rs).
const RECORDED: &str = "history_every_scale_event_is_explained_and_the_manual_scale_is_not";

/// The replay without the `prometheus` field, which names where it was read.
fn replay(v: &Value) -> Value {
    let mut r = v["replay"].clone();
    r.as_object_mut()
        .expect("a replay section")
        .remove("prometheus");
    r
}

#[test]
fn the_service_proxy_gives_the_replay_the_url_gives() {
    let s = PromStandin::replay(RECORDED);
    let server = FakeApiServer::start(vec![]);
    server.proxy_service("monitoring", "prometheus-k8s", "9090", &s.url);
    let kc = server.write_kubeconfig(&tmpdir("history-proxy"));
    let direct = ok_json(
        &history_from(&["--prometheus", &s.url], None, TO, &["-o", "json"]),
        "history --prometheus",
    );
    let proxied = ok_json(
        &history_from(
            &["--prometheus-service", "prometheus-k8s"],
            Some(&kc),
            TO,
            &["-o", "json"],
        ),
        "history --prometheus-service",
    );
    assert_eq!(direct["replay"]["summary"]["scaleEvents"], 5, "{direct:#}");
    assert_eq!(replay(&proxied), replay(&direct));
    assert_eq!(proxied["source"], "prometheus");
    assert_eq!(
        proxied["replay"]["prometheus"],
        "service monitoring/prometheus-k8s:9090"
    );
    s.assert_every_request_answered();
    // Every read went through the proxy path of the Service.
    let reads: Vec<String> = server
        .requests()
        .into_iter()
        .map(|r| r.path)
        .filter(|p| p.contains("/proxy/"))
        .collect();
    assert!(!reads.is_empty());
    assert!(
        reads.iter().all(|p| {
            p
            == "/api/v1/namespaces/monitoring/services/prometheus-k8s:9090/proxy/api/v1/query_range"
        }),
        "{reads:?}"
    );
}

#[test]
fn a_missing_service_is_one_line_saying_what_to_give() {
    let server = FakeApiServer::start(vec![]);
    let kc = server.write_kubeconfig(&tmpdir("history-proxy-missing"));
    let out = history_from(
        &["--prometheus-service", "monitoring/prometheus:9090"],
        Some(&kc),
        TO,
        &[],
    );
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let err = stderr(&out);
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(
        err.contains("service monitoring/prometheus not found")
            && err.contains("give --prometheus-service NAMESPACE/NAME[:PORT]")
            && err.contains("or --prometheus URL"),
        "{err}"
    );
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn prometheus_and_prometheus_service_together_are_a_usage_error() {
    let out = history_from(
        &[
            "--prometheus",
            "http://127.0.0.1:9",
            "--prometheus-service",
            "prometheus",
        ],
        None,
        TO,
        &[],
    );
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("--prometheus <URL>") && err.contains("--prometheus-service"),
        "{err}"
    );
}

/// `explain --at` reads through the same endpoint: the decision at a recorded scale event is the
/// one `--prometheus URL` gives, bar the first assumption, which names where it was read.
#[test]
fn explain_at_through_the_service_proxy_decides_as_through_the_url() {
    let s = PromStandin::replay("history_explain_at_a_scale_event_decides_the_recorded_change");
    let server = FakeApiServer::start(vec![]);
    server.proxy_service("monitoring", "prometheus-k8s", "9090", &s.url);
    let kc = server.write_kubeconfig(&tmpdir("explain-at-proxy"));
    let v = ok_json(
        &history_from(&["--prometheus", &s.url], None, TO, &["-o", "json"]),
        "history --prometheus",
    );
    let at = v["replay"]["changes"]
        .as_array()
        .expect("replay.changes")
        .iter()
        .find(|c| c["by"] == "controller" && c["offsetSyncs"] == 0)
        .and_then(|c| c["time"].as_str())
        .expect("a change the replay decides at its time")
        .to_string();
    let snap = example("scale-up-cpu.yaml");
    let explain = |prom: &[&str], kc: Option<&std::path::Path>| {
        let mut args = vec!["explain", "web", "-n", "shop", "--snapshot"];
        args.push(snap.to_str().unwrap());
        args.extend_from_slice(&["--at", &at, "--rate-window", "30s", "-o", "json"]);
        args.extend_from_slice(prom);
        let mut v = ok_json(&cmd(&args, kc).output().unwrap(), "explain --at");
        let first = v["assumptions"][0].as_str().unwrap().to_string();
        v["assumptions"].as_array_mut().unwrap().remove(0);
        (v, first)
    };
    let (direct, _) = explain(&["--prometheus", &s.url], None);
    let (proxied, first) = explain(&["--prometheus-service", "prometheus-k8s"], Some(&kc));
    assert_eq!(proxied, direct);
    assert_ne!(
        direct["currentReplicas"], direct["desiredReplicas"],
        "{direct:#}"
    );
    assert!(
        first.contains("service monitoring/prometheus-k8s:9090"),
        "{first}"
    );
    assert!(server
        .requests()
        .iter()
        .any(|r| r.path.contains("/services/prometheus-k8s:9090/proxy/")));
}
