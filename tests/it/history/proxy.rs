//! `--prometheus-service [NAMESPACE/]NAME[:PORT]` (issue 31 item 2): the cluster's Prometheus
//! read through the API server's service proxy over the kubeconfig's connection. The fake API
//! server proxies the Service to the in-process stand-in serving the replay scenario's recorded
//! answers, so the replay must be the one `--prometheus URL` gives.

use serde_json::Value;

use super::replay::{history_from, TO};
use crate::support::binary::{ok_json, stderr, tmpdir};
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
