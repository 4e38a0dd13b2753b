//! Faults of the API server: retries recover where kubectl recovers, the in-flight bound holds,
//! and a request of ours that still fails is never the controller's verdict.

use crate::support::binary;
use crate::support::cluster::FakeCluster as Cluster;
use crate::support::fake_apiserver;

use std::path::PathBuf;
use std::process::Output;
use std::time::{Duration, Instant};

use binary::*;
use fake_apiserver::{FakeApiServer, Fault, Options, PathMatch, Pki, WriteMode};
use serde_json::{json, Value};

/// The PodMetrics LIST of one explain in namespace `shop`.
const POD_METRICS: &str = "/apis/metrics.k8s.io/v1beta1/namespaces/shop/pods";

/// This file's questions to a fake cluster (`FakeCluster::example`, `run` come from support).
impl Cluster {
    /// `explain web -o json`: the verdict.
    fn web_verdict(&self, extra: &[&str]) -> (Output, Value) {
        let mut a = vec!["explain", "web", "-n", "shop", "--now", NOW, "-o", "json"];
        a.extend_from_slice(extra);
        let out = self.run(&a);
        let v: Value = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
        let verdict = v["verdict"].clone();
        (out, verdict)
    }

    fn count(&self, path: &str) -> usize {
        self.server
            .requests()
            .iter()
            .filter(|r| r.path == path)
            .count()
    }
}

#[test]
fn retries_recover_from_throttling_unavailability_and_resets() {
    let c = Cluster::example("scale-up-cpu.yaml", "recover");
    let (out, want) = c.web_verdict(&[]);
    ok(&out, "baseline");
    assert_eq!(want["action"], "ScaleUp", "{want}");
    let faults = [
        ("429 x3", Fault::Throttle(0), 3),
        ("503 x2 with Retry-After", Fault::Unavailable(Some(0)), 2),
        ("reset x1", Fault::Drop, 1),
    ];
    for (what, fault, times) in faults {
        c.server.clear_requests();
        c.server
            .inject_times(PathMatch::prefix(POD_METRICS), fault, times);
        let (out, got) = c.web_verdict(&[]);
        ok(&out, what);
        assert_eq!(got, want, "{what}");
        assert_eq!(c.count(POD_METRICS), times + 1, "{what}: attempts");
    }
}

#[test]
fn retry_after_is_honoured_and_bounded() {
    let c = Cluster::example("scale-up-cpu.yaml", "retry-after");
    // Retry-After: 1 is waited for.
    c.server
        .inject_times(PathMatch::prefix(POD_METRICS), Fault::Throttle(1), 1);
    let t = Instant::now();
    let (out, got) = c.web_verdict(&[]);
    ok(&out, "429 with Retry-After: 1");
    assert_eq!(got["action"], "ScaleUp");
    assert!(t.elapsed() >= Duration::from_secs(1), "{:?}", t.elapsed());

    // Always throttled: 10 attempts, then it stops.
    c.server.clear_requests();
    c.server
        .inject(PathMatch::prefix(POD_METRICS), Fault::Throttle(0));
    c.web_verdict(&[]);
    assert_eq!(c.count(POD_METRICS), 10);

    // A Retry-After beyond --request-timeout is not waited for.
    c.server.clear_faults();
    c.server.clear_requests();
    c.server
        .inject(PathMatch::prefix(POD_METRICS), Fault::Throttle(5));
    let t = Instant::now();
    c.web_verdict(&["--request-timeout", "2s"]);
    assert!(t.elapsed() < Duration::from_secs(2), "{:?}", t.elapsed());
    assert_eq!(c.count(POD_METRICS), 1);

    // A 503 without Retry-After is not retried (client-go), nor an HTML page.
    for fault in [Fault::Unavailable(None), Fault::Html(200)] {
        c.server.clear_faults();
        c.server.clear_requests();
        c.server
            .inject(PathMatch::prefix(POD_METRICS), fault.clone());
        c.web_verdict(&[]);
        assert_eq!(c.count(POD_METRICS), 1, "{fault:?}");
    }
}

/// `namespaces` x `per_ns` HPAs, each on its own external metric: one request per HPA.
fn external_fleet(namespaces: usize, per_ns: usize) -> Vec<Value> {
    let mut o = Vec::new();
    for n in 0..namespaces {
        let ns = format!("team-{n:02}");
        for h in 0..per_ns {
            let app = format!("app-{h:02}");
            let metric = format!("queue_{n:02}_{h:02}");
            o.push(json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": app, "namespace": ns},
                "spec": {"replicas": 2, "selector": {"matchLabels": {"app": app}}}, "status": {"replicas": 2, "updatedReplicas": 2}}));
            o.push(json!({"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler", "metadata": {"name": app, "namespace": ns},
                "spec": {"minReplicas": 1, "maxReplicas": 20, "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": app},
                         "metrics": [{"type": "External", "external": {"metric": {"name": metric},
                             "target": {"type": "AverageValue", "averageValue": "10"}}}]}}));
            o.push(json!({"apiVersion": "external.metrics.k8s.io/v1beta1", "kind": "ExternalMetricValue",
                "metricName": metric, "metricLabels": {}, "timestamp": "2026-03-01T11:59:50Z",
                "value": format!("{}", 10 + 5 * (h % 4))}));
        }
    }
    o
}

fn verdicts(v: &Value) -> Vec<String> {
    v["items"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|i| {
            format!(
                "{}/{} {}",
                i["namespace"], i["name"], i["decision"]["verdict"]
            )
        })
        .collect()
}

#[test]
fn explain_all_under_an_in_flight_limit_gives_the_same_verdicts() {
    let opts = Options {
        advertise: vec!["external.metrics.k8s.io/v1beta1".into()],
        ..Options::default()
    };
    let c = Cluster::serving(
        FakeApiServer::start_with(external_fleet(6, 10), opts),
        "in-flight",
    );
    let (server, kubeconfig) = (&c.server, &c.kubeconfig);
    let args = ["explain", "-A", "--now", NOW, "-o", "json"];
    server.set_latency(Duration::from_millis(20));
    let free = ok_json(&run(&args, Some(kubeconfig)), "no limit");
    let want = verdicts(&free);
    assert_eq!(want.len(), 60);
    assert!(want.iter().all(|v| !v.contains("CannotScale")), "{want:?}");
    // Never more than 10 of our requests in flight, yet concurrent.
    let max = server.max_in_flight();
    assert!((2..=10).contains(&max), "max in flight {max}");

    server.set_in_flight_limit(Some(20));
    let limited = ok_json(&run(&args, Some(kubeconfig)), "limit 20");
    assert_eq!(verdicts(&limited), want);
}

#[test]
fn a_request_of_ours_that_still_fails_is_not_the_controllers_verdict() {
    let c = Cluster::example("scale-up-cpu.yaml", "ours");
    let cases = [
        (
            Fault::Throttle(0),
            "pods.metrics.k8s.io (429 Too Many Requests after 10 attempts)",
        ),
        (Fault::Html(200), "an HTML page answered"),
        (Fault::Status(403), "pods.metrics.k8s.io (403 Forbidden)"),
        (
            Fault::Status(500),
            "pods.metrics.k8s.io (500 Internal Server Error)",
        ),
    ];
    for (fault, words) in cases {
        c.server.clear_faults();
        c.server
            .inject(PathMatch::prefix(POD_METRICS), fault.clone());
        let (out, v) = c.web_verdict(&[]);
        assert_eq!(out.status.code(), Some(3), "{fault:?}: {}", stderr(&out));
        assert_eq!(v["action"], "Unknown", "{fault:?}: {v}");
        assert_eq!(v["decidedBy"], "FetchFailed", "{fault:?}: {v}");
        let summary = v["summary"].as_str().unwrap_or_default();
        assert!(summary.starts_with("could not read "), "{summary}");
        assert!(summary.contains(words), "{fault:?}: {summary}");
        assert!(
            summary.ends_with("the controller's own view is unknown"),
            "{summary}"
        );
        let text = c.run(&["explain", "web", "-n", "shop", "--now", NOW]);
        assert_eq!(text.status.code(), Some(3));
        let text = String::from_utf8_lossy(&text.stdout);
        assert!(
            text.contains("UNKNOWN") && text.contains("FetchFailed"),
            "{text}"
        );
        let verdict = text.lines().find(|l| l.starts_with("Verdict:"));
        assert!(
            verdict.is_some_and(|l| !l.contains("InvalidMetrics")),
            "{text}"
        );
    }

    // The snapshot keeps the split: its replay says the same, offline.
    c.server.clear_faults();
    c.server
        .inject(PathMatch::prefix(POD_METRICS), Fault::Throttle(0));
    let snap = ok(&c.run(&["snapshot", "web", "-n", "shop"]), "snapshot");
    assert!(
        snap.contains("kubectl-hpa.dev/own-fetch-failures"),
        "{snap}"
    );
    let file = tmpdir("ours").join("throttled.yaml");
    std::fs::write(&file, snap).expect("write snapshot");
    let f = file.to_string_lossy().to_string();
    let out = run(
        &[
            "explain",
            "web",
            "-n",
            "shop",
            "--snapshot",
            &f,
            "--now",
            NOW,
            "-o",
            "json",
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    let v: Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(v["verdict"]["decidedBy"], "FetchFailed", "{v}");
    // Our failure gets our advice, not the metrics pipeline's.
    let ids: Vec<&str> = v["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|f| f["id"].as_str())
        .collect();
    assert!(ids.contains(&"our-read-failed"), "{ids:?}");
    assert!(!ids.iter().any(|i| i.starts_with("metrics-api")), "{ids:?}");
}

#[test]
fn what_the_controller_meets_too_stays_its_verdict() {
    // The resource metrics API not served (404): the controller fails the same way.
    let c = Cluster::example("scale-up-cpu.yaml", "theirs");
    c.server
        .inject(PathMatch::prefix(POD_METRICS), Fault::Status(404));
    let (out, v) = c.web_verdict(&[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(v["action"], "CannotScale", "{v}");
    assert_eq!(v["decidedBy"], "InvalidMetrics", "{v}");
    let snap = ok(&c.run(&["snapshot", "web", "-n", "shop"]), "snapshot");
    assert!(snap.contains("kubectl-hpa.dev/fetch-errors"), "{snap}");
    assert!(
        !snap.contains("kubectl-hpa.dev/own-fetch-failures"),
        "{snap}"
    );
}

#[test]
fn a_repeated_continue_token_is_refused() {
    let c = Cluster::example("scale-up-cpu.yaml", "continue");
    let hpas = "/apis/autoscaling/v2/namespaces/shop/horizontalpodautoscalers";
    c.server
        .inject(PathMatch::exact(hpas), Fault::RepeatContinue);
    let out = c.run(&["explain", "web", "-n", "shop", "--now", NOW]);
    assert_eq!(out.status.code(), Some(1));
    let e = stderr(&out);
    assert!(e.contains("same continue token twice"), "{e}");
    assert_eq!(e.trim_end().lines().count(), 1, "{e}");
    assert_eq!(c.count(hpas), 2);
}

#[test]
fn requests_ask_for_json_and_gzip_and_name_the_tool() {
    let c = Cluster::example("scale-up-cpu.yaml", "headers");
    ok(&c.web_verdict(&[]).0, "explain");
    let reqs = c.server.requests();
    assert!(!reqs.is_empty());
    let agent = format!("kubectl-hpa/{}", env!("CARGO_PKG_VERSION"));
    for r in &reqs {
        assert_eq!(r.header("user-agent"), Some(agent.as_str()), "{}", r.path);
        assert_eq!(r.header("accept"), Some("application/json"), "{}", r.path);
        let enc = r.header("accept-encoding").unwrap_or_default();
        assert!(enc.contains("gzip"), "{}: {enc:?}", r.path);
    }
}

#[test]
fn an_error_on_a_closed_stderr_does_not_abort() {
    let (reader, writer) = std::io::pipe().expect("pipe");
    drop(reader);
    let status = cmd(
        &[
            "explain",
            "web",
            "-n",
            "shop",
            "--snapshot",
            "/nonexistent.yaml",
        ],
        None,
    )
    .stderr(writer)
    .status()
    .expect("runs");
    assert_eq!(status.code(), Some(1));
}

// ------------------------------------------------------------------ TLS and connecting

/// The example served over HTTPS with `pki`'s server certificate, and a kubeconfig whose
/// cluster `fake` has `cluster_extra` (indented YAML lines: a CA, a tls-server-name...).
fn tls_cluster(tag: &str, pki: &Pki, client_cert: bool, cluster_extra: &str) -> Cluster {
    let opts = Options {
        tls: Some(pki.server(client_cert)),
        ..Options::default()
    };
    let server = FakeApiServer::from_snapshot_file_with(example("scale-up-cpu.yaml"), opts);
    // The kubeconfig names the CA or client certificate (`cluster_extra`): written here.
    let kubeconfig = tmpdir(tag).join("kubeconfig");
    let y = format!(
        "apiVersion: v1\nkind: Config\nclusters:\n- name: fake\n  cluster:\n    server: {}\n{cluster_extra}contexts:\n- name: fake\n  context:\n    cluster: fake\n    namespace: default\n    user: fake-user\ncurrent-context: fake\nusers:\n- name: fake-user\n  user:\n    token: fake-token\n",
        server.url()
    );
    std::fs::write(&kubeconfig, y).unwrap();
    Cluster { server, kubeconfig }
}

fn pki(tag: &str) -> Pki {
    Pki::generate(&tmpdir(&format!("{tag}-pki")))
}

#[test]
fn an_unknown_authority_names_certificate_authority_and_the_flags_fix_it() {
    let pki = pki("tls-ca");
    let c = tls_cluster("tls-ca", &pki, false, "");
    let (out, _) = c.web_verdict(&[]);
    assert_eq!(out.status.code(), Some(1));
    let e = stderr(&out);
    assert!(
        e.contains("unable to connect to the server https://127.0.0.1:"),
        "{e}"
    );
    assert!(e.contains("signed by an unknown authority: set certificate-authority (or certificate-authority-data) of the kubeconfig cluster \"fake\""), "{e}");
    assert!(
        e.contains("--certificate-authority FILE") && e.contains("--insecure-skip-tls-verify"),
        "{e}"
    );
    assert_eq!(e.trim_end().lines().count(), 1, "{e}");
    assert!(
        c.server.requests().is_empty(),
        "no request crossed an unverified connection"
    );

    // The CA alone: the certificate is not for 127.0.0.1, which --tls-server-name fixes.
    let ca = pki.ca.to_str().unwrap();
    let (out, _) = c.web_verdict(&["--certificate-authority", ca]);
    let e = stderr(&out);
    assert!(
        e.contains("not valid for \"127.0.0.1\": pass --tls-server-name"),
        "{e}"
    );
    let (out, v) = c.web_verdict(&[
        "--certificate-authority",
        ca,
        "--tls-server-name",
        Pki::SERVER_NAME,
    ]);
    ok(&out, "CA and server name");
    assert_eq!(v["action"], "ScaleUp", "{v}");

    let (out, v) = c.web_verdict(&["--insecure-skip-tls-verify"]);
    ok(&out, "insecure");
    assert_eq!(v["action"], "ScaleUp", "{v}");
    let (out, _) = c.web_verdict(&["--certificate-authority", ca, "--insecure-skip-tls-verify"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("with the insecure flag is not allowed"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn tls_flags_override_the_kubeconfig_as_kubectl_merges_them() {
    let pki = pki("tls-over");
    // The kubeconfig trusts another CA and names the right server: --certificate-authority
    // replaces its CA; --server alone clears its tls-server-name, --tls-server-name sets it.
    let extra = format!(
        "    certificate-authority: {}\n    tls-server-name: {}\n",
        pki.other_ca.display(),
        Pki::SERVER_NAME
    );
    let c = tls_cluster("tls-over", &pki, false, &extra);
    let (out, _) = c.web_verdict(&[]);
    assert!(
        stderr(&out).contains("unknown authority"),
        "{}",
        stderr(&out)
    );
    let ca = pki.ca.to_str().unwrap();
    ok(
        &c.web_verdict(&["--certificate-authority", ca]).0,
        "kubeconfig's tls-server-name kept",
    );
    let url = c.server.url();
    let (out, _) = c.web_verdict(&["--certificate-authority", ca, "--server", &url]);
    assert!(
        stderr(&out).contains("pass --tls-server-name"),
        "{}",
        stderr(&out)
    );
    let (out, _) = c.web_verdict(&[
        "--certificate-authority",
        ca,
        "--server",
        &url,
        "--tls-server-name",
        Pki::SERVER_NAME,
    ]);
    ok(&out, "--server with --tls-server-name");
    let (out, _) = c.web_verdict(&["--certificate-authority", "/nonexistent/ca.crt"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("--certificate-authority /nonexistent/ca.crt: cannot read it"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn client_certificates_from_flags_pass_a_server_that_requires_them() {
    let pki = pki("tls-mtls");
    let extra = format!(
        "    certificate-authority: {}\n    tls-server-name: {}\n",
        pki.ca.display(),
        Pki::SERVER_NAME
    );
    let c = tls_cluster("tls-mtls", &pki, true, &extra);
    let (out, _) = c.web_verdict(&[]);
    assert_eq!(out.status.code(), Some(1));
    let e = stderr(&out);
    assert!(e.contains("set client-certificate and client-key of the kubeconfig user \"fake-user\", or pass --client-certificate FILE --client-key FILE"), "{e}");
    let (cert, key) = (
        pki.client_cert.to_str().unwrap(),
        pki.client_key.to_str().unwrap(),
    );
    let (out, v) = c.web_verdict(&["--client-certificate", cert, "--client-key", key]);
    ok(&out, "client certificate");
    assert_eq!(v["action"], "ScaleUp", "{v}");
    let (out, _) = c.web_verdict(&["--client-certificate", cert]);
    assert!(
        stderr(&out).contains("--client-certificate needs --client-key"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn a_tls_handshake_timeout_says_so() {
    // A port that takes TCP connections and never answers the TLS handshake.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("https://{}", listener.local_addr().unwrap());
    let held = std::thread::spawn(move || {
        let mut conns = Vec::new();
        for s in listener.incoming().take(2) {
            conns.push(s);
        }
        std::thread::sleep(Duration::from_secs(5));
    });
    let start = Instant::now();
    let out = run(
        &[
            "explain",
            "web",
            "-n",
            "shop",
            "--server",
            &url,
            "--insecure-skip-tls-verify",
            "--request-timeout",
            "1s",
        ],
        None,
    );
    assert!(
        start.elapsed() < Duration::from_secs(4),
        "{:?}",
        start.elapsed()
    );
    assert_eq!(out.status.code(), Some(1));
    let e = stderr(&out);
    assert!(e.contains("TLS handshake timeout"), "{e}");
    assert!(
        e.contains("takes TCP connections but completed no TLS handshake within 1s"),
        "{e}"
    );
    drop(held);
}

// ------------------------------------------------------------------ metrics APIServices

/// `orders` (cpu, a Pods metric, an External metric) with the external metrics APIService
/// `Available=False`: the aggregator answers its reads 503.
fn external_api_down(tag: &str) -> Cluster {
    let c = Cluster::example("several-metrics.yaml", tag);
    c.server.upsert(json!({
        "apiVersion": "apiregistration.k8s.io/v1", "kind": "APIService",
        "metadata": {"name": "v1beta1.external.metrics.k8s.io"},
        "spec": {"group": "external.metrics.k8s.io", "version": "v1beta1"},
        "status": {"conditions": [{"type": "Available", "status": "False",
            "reason": "FailedDiscoveryCheck", "message": "failing or missing response from https://10.96.4.2:443"}]}
    }));
    c
}

fn orders(c: &Cluster) -> (Output, Value) {
    let out = c.run(&[
        "explain", "orders", "-n", "shop", "--now", NOW, "-o", "json",
    ]);
    let v: Value = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
    (out, v)
}

#[test]
fn an_unavailable_external_metrics_apiservice_is_the_controllers_verdict() {
    let c = external_api_down("ext-down");
    let (out, v) = orders(&c);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_ne!(v["verdict"]["decidedBy"], "FetchFailed", "{v}");
    let text = v.to_string();
    assert!(
        text.contains("unable to fetch metrics from external metrics API"),
        "{text}"
    );
    assert!(text.contains("external-metrics-api-unavailable"), "{text}");
    assert!(
        text.contains(
            "APIService v1beta1.external.metrics.k8s.io Available=False (FailedDiscoveryCheck"
        ),
        "{text}"
    );
    // The snapshot records it so: replayed, the same verdict and exit status.
    let dir = tmpdir("ext-down-replay");
    let snap = ok(&c.run(&["snapshot", "orders", "-n", "shop"]), "snapshot");
    assert!(
        !snap.contains("kubectl-hpa.dev/own-fetch-failures"),
        "{snap}"
    );
    let file = dir.join("orders.yaml");
    std::fs::write(&file, snap).unwrap();
    let f = file.to_str().unwrap();
    let replay = run(
        &[
            "explain",
            "orders",
            "-n",
            "shop",
            "--snapshot",
            f,
            "--now",
            NOW,
            "-o",
            "json",
        ],
        None,
    );
    assert_eq!(replay.status.code(), Some(0), "{}", stderr(&replay));
    let r: Value = serde_json::from_slice(&replay.stdout).unwrap();
    assert_eq!(r["verdict"], v["verdict"]);
    assert!(
        r.to_string().contains("external-metrics-api-unavailable"),
        "{r}"
    );
}

#[test]
fn a_503_with_an_available_apiservice_stays_our_own_failure() {
    let c = Cluster::example("several-metrics.yaml", "ext-503");
    c.server.inject(
        PathMatch::prefix("/apis/external.metrics.k8s.io/"),
        Fault::Status(503),
    );
    let (out, v) = orders(&c);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    assert_eq!(v["verdict"]["decidedBy"], "FetchFailed", "{v}");
}

// ------------------------------------------------------------------ migrate --apply

const DEPLOY: &str = "/apis/apps/v1/namespaces/shop/deployments/web";

/// HPA shop/web over Deployment shop/web, applied client-side with `replicas: 3` and scaled
/// by hand to 5: `migrate --apply` has two steps (the annotation, then the hand-over).
fn migrate_cluster(tag: &str) -> Cluster {
    let la = "kubectl.kubernetes.io/last-applied-configuration";
    let spec = json!({"replicas": 3, "selector": {"matchLabels": {"app": "web"}}, "template": {"metadata": {"labels": {"app": "web"}}, "spec": {"containers": [{"image": "nginx:1.27", "name": "web"}]}}});
    let applied = json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"annotations": {}, "name": "web", "namespace": "shop"}, "spec": spec});
    let entry = |manager: &str, sub: Option<&str>, fields: Value| {
        let mut e = json!({"manager": manager, "operation": "Update", "apiVersion": "apps/v1", "time": "2026-02-01T10:00:00Z", "fieldsType": "FieldsV1", "fieldsV1": fields});
        if let Some(s) = sub {
            e["subresource"] = json!(s);
        }
        e
    };
    let managed = vec![
        entry(
            "kubectl-client-side-apply",
            None,
            json!({
            "f:metadata": {"f:annotations": {".": {}, "f:kubectl.kubernetes.io/last-applied-configuration": {}}},
            "f:spec": {"f:selector": {}, "f:template": {"f:metadata": {"f:labels": {".": {}, "f:app": {}}}, "f:spec": {"f:containers": {}}}}}),
        ),
        entry("kubectl-edit", None, json!({"f:spec": {"f:replicas": {}}})),
        entry(
            "kube-controller-manager",
            Some("status"),
            json!({"f:status": {"f:replicas": {}, "f:readyReplicas": {}}}),
        ),
    ];
    let deployment = json!({
        "apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": "web", "namespace": "shop", "resourceVersion": "100", "generation": 4,
                     "uid": "0b7d5f3e-0000-4000-8000-000000000001", "labels": {"app": "web"},
                     "annotations": {"deployment.kubernetes.io/revision": "3", la: format!("{applied}\n")},
                     "managedFields": managed},
        "spec": {"replicas": 5, "selector": {"matchLabels": {"app": "web"}},
                 "template": {"metadata": {"labels": {"app": "web"}}, "spec": {"containers": [{"image": "nginx:1.27", "name": "web"}]}}},
        "status": {"replicas": 5, "readyReplicas": 5}
    });
    let hpa = json!({
        "apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",
        "metadata": {"name": "web", "namespace": "shop", "resourceVersion": "90"},
        "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
                 "minReplicas": 2, "maxReplicas": 10,
                 "metrics": [{"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 60}}}]},
        "status": {"currentReplicas": 5, "desiredReplicas": 5, "conditions": [
            {"type": "AbleToScale", "status": "True", "reason": "ReadyForNewScale", "message": "recommended size matches current size"},
            {"type": "ScalingActive", "status": "True", "reason": "ValidMetricFound", "message": "the HPA was able to successfully calculate a replica count from cpu resource utilization (percentage of request)"}]}
    });
    let opts = Options {
        write_mode: WriteMode::AcceptPatches,
        ..Options::default()
    };
    Cluster::serving(FakeApiServer::start_with(vec![hpa, deployment], opts), tag)
}

/// How many writes the server received.
fn patches(c: &Cluster) -> usize {
    c.server.writes().len()
}

#[test]
fn a_failure_after_the_first_step_says_half_migrated_and_a_rerun_completes_it() {
    let c = migrate_cluster("half");
    // The second PATCH (the hand-over) fails with a server error.
    c.server.inject_after(
        PathMatch::method("PATCH", PathMatch::exact(DEPLOY)),
        Fault::Status(500),
        1,
        1,
    );
    let out = c.run(&["migrate", "web", "-n", "shop", "--apply"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let e = stderr(&out);
    assert!(
        e.contains("HPA shop/web: the cluster is half-migrated: remove-replicas-from-last-applied applied, handover-replicas not yet; run the same command again to complete it"),
        "{e}"
    );
    assert_eq!(patches(&c), 2);
    // The re-run sends only what is left, and ends migrated.
    let out = c.run(&["migrate", "web", "-n", "shop", "--apply", "-o", "json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(!stderr(&out).contains("half-migrated"), "{}", stderr(&out));
    let j: Value = serde_json::from_slice(&out.stdout).unwrap();
    let steps: Vec<&str> = j["workloads"][0]["apply"]["sent"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["step"].as_str().unwrap())
        .collect();
    assert_eq!(steps, ["handover-replicas"], "{j:#}");
    assert_eq!(patches(&c), 3);
}

#[test]
fn a_failure_of_the_first_step_is_not_half_migrated() {
    let c = migrate_cluster("first-fails");
    c.server.inject_times(
        PathMatch::method("PATCH", PathMatch::exact(DEPLOY)),
        Fault::Status(500),
        1,
    );
    let out = c.run(&["migrate", "web", "-n", "shop", "--apply"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(!stderr(&out).contains("half-migrated"), "{}", stderr(&out));
}

#[test]
fn conflict_rounds_back_off_before_giving_up() {
    let c = migrate_cluster("conflicts");
    c.server.inject(
        PathMatch::method("PATCH", PathMatch::exact(DEPLOY)),
        Fault::Status(409),
    );
    let start = Instant::now();
    let out = c.run(&["migrate", "web", "-n", "shop", "--apply"]);
    let took = start.elapsed();
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("gave up after 5 conflicts (409)"),
        "{}",
        stderr(&out)
    );
    assert_eq!(patches(&c), 5, "one PATCH per round");
    // 10 + 50 + 250 + 1250 ms between the rounds, and not much more.
    assert!(took >= Duration::from_millis(1560), "{took:?}");
    assert!(took < Duration::from_secs(8), "{took:?}");
}

// ------------------------------------------------------------------ answers of the wrong shape

#[test]
fn a_pod_metrics_answer_of_the_wrong_kind_is_our_own_failure() {
    // A PodList where the PodMetricsList belongs (a misrouted aggregator), a `Status` Failure
    // sent with 200 OK (a broken proxy), a Status-shaped 200: our failure (UNKNOWN, exit 3),
    // never the controller's InvalidMetrics.
    let c = Cluster::example("scale-up-cpu.yaml", "wrong-kind");
    let pod_list = json!({"kind": "PodList", "apiVersion": "v1", "metadata": {}, "items": [
        {"metadata": {"name": "web-1", "namespace": "shop"}, "spec": {"containers": []}}]});
    let failure = json!({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
        "message": "metrics not ready", "reason": "ServiceUnavailable", "code": 503});
    let one_pod = json!({"kind": "Pod", "apiVersion": "v1", "metadata": {"name": "web-1"}});
    for (body, words) in [
        (pod_list, "PodList"),
        (failure, "metrics not ready"),
        (one_pod, "Pod"),
    ] {
        c.server.clear_faults();
        c.server.inject(
            PathMatch::prefix(POD_METRICS),
            Fault::Answer(200, body.clone()),
        );
        let (out, v) = c.web_verdict(&[]);
        assert_eq!(out.status.code(), Some(3), "{body}: {}", stderr(&out));
        assert_eq!(v["action"], "Unknown", "{body}: {v}");
        assert_eq!(v["decidedBy"], "FetchFailed", "{body}: {v}");
        let summary = v["summary"].as_str().unwrap_or_default();
        assert!(summary.contains("pods.metrics.k8s.io"), "{summary}");
        assert!(summary.contains(words), "{words}: {summary}");
    }
}

#[test]
fn a_target_answer_of_the_wrong_kind_is_our_own_failure() {
    // A GET of the Deployment answered 200 with another kind of object (a misrouted proxy): our
    // failure (UNKNOWN, exit 3), never read as the Deployment.
    let c = Cluster::example("scale-up-cpu.yaml", "wrong-kind-target");
    let config_map = json!({"kind": "ConfigMap", "apiVersion": "v1",
        "metadata": {"name": "web", "namespace": "shop"}, "data": {}});
    c.server.inject(
        PathMatch::prefix("/apis/apps/v1/namespaces/shop/deployments/web"),
        Fault::Answer(200, config_map),
    );
    let (out, v) = c.web_verdict(&[]);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    assert_eq!(v["action"], "Unknown", "{v}");
    assert_eq!(v["decidedBy"], "FetchFailed", "{v}");
    let summary = v["summary"].as_str().unwrap_or_default();
    assert!(summary.contains("ConfigMap, not a Deployment"), "{summary}");
}

// ------------------------------------------------------------------ credentials and what is printed

/// A kubeconfig `dir/name` for `server` whose user is `user_yaml` (indented lines under
/// `user:`).
fn user_kubeconfig(dir: &std::path::Path, name: &str, server: &str, user_yaml: &str) -> PathBuf {
    let kc = dir.join(name);
    std::fs::write(
        &kc,
        format!("apiVersion: v1\nkind: Config\nclusters:\n- name: x\n  cluster:\n    server: {server}\ncontexts:\n- name: x\n  context:\n    cluster: x\n    user: u\ncurrent-context: x\nusers:\n- name: u\n  user:\n{user_yaml}"),
    )
    .expect("kubeconfig");
    kc
}

#[test]
fn a_token_with_a_control_character_is_refused_in_words_without_echoing_it() {
    use std::os::unix::fs::PermissionsExt;
    let c = Cluster::example("scale-up-cpu.yaml", "ctl-token");
    let dir = tmpdir("ctl-token");
    let url = c.server.url();
    let file = dir.join("token");
    std::fs::write(&file, "abc\u{1}SEKRIT-file\n").expect("token file");
    let plugin = dir.join("plugin.sh");
    std::fs::write(
        &plugin,
        "#!/bin/sh\necho '{\"apiVersion\":\"client.authentication.k8s.io/v1beta1\",\"kind\":\"ExecCredential\",\"status\":{\"token\":\"abc\\u001bSEKRIT-exec\"}}'\n",
    )
    .expect("plugin");
    std::fs::set_permissions(&plugin, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let cases: Vec<(&str, Vec<String>, PathBuf)> = vec![
        (
            "--token",
            vec!["--token".into(), "abc\u{7}SEKRIT-flag".into()],
            user_kubeconfig(&dir, "flag", &url, "    token: good\n"),
        ),
        (
            "kubeconfig",
            vec![],
            user_kubeconfig(&dir, "inline", &url, "    token: \"abc\\x03SEKRIT-kc\"\n"),
        ),
        (
            "tokenFile",
            vec![],
            user_kubeconfig(&dir, "file", &url, &format!("    tokenFile: {}\n", file.display())),
        ),
        (
            "exec",
            vec![],
            user_kubeconfig(
                &dir,
                "exec",
                &url,
                &format!("    exec:\n      apiVersion: client.authentication.k8s.io/v1beta1\n      command: {}\n", plugin.display()),
            ),
        ),
    ];
    for (source, extra, kc) in cases {
        c.server.clear_requests();
        let mut args: Vec<String> = ["explain", "web", "-n", "shop", "--now", NOW]
            .map(String::from)
            .to_vec();
        args.extend(extra);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = run(&args, Some(&kc));
        let e = stderr(&out);
        assert_eq!(out.status.code(), Some(1), "{source}: {e}");
        assert!(e.contains("control character"), "{source}: {e}");
        assert!(e.contains(source), "{source}: {e}");
        assert!(!e.contains("SEKRIT"), "{source}: {e}");
        assert!(!e.contains("panicked"), "{source}: {e}");
        assert_eq!(e.trim_end().lines().count(), 1, "{source}: {e}");
        assert!(
            c.server.requests().is_empty(),
            "{source}: a request was sent"
        );
    }
}

#[test]
fn a_kubeconfig_parse_error_names_the_file_and_line_and_shows_no_text() {
    let dir = tmpdir("kc-parse");
    let kc = dir.join("kubeconfig");
    std::fs::write(
        &kc,
        "apiVersion: v1\nkind: Config\nusers:\n- name: u\n  user:\n    token: SEKRIT-token\n  bad: [\n",
    )
    .expect("kubeconfig");
    let out = run(&["explain", "web", "-n", "shop"], Some(&kc));
    let e = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{e}");
    assert!(e.contains(&kc.display().to_string()), "{e}");
    assert!(e.contains("line 7"), "{e}");
    assert!(!e.contains("SEKRIT"), "{e}");
    assert!(!e.contains("token:"), "{e}");
    assert_eq!(e.trim_end().lines().count(), 1, "{e}");
    // The same through KUBECONFIG, and a value of the wrong type (serde names the value).
    std::fs::write(
        &kc,
        "apiVersion: v1\nkind: Config\nusers: \"SEKRIT-users\"\n",
    )
    .expect("kubeconfig");
    let out = cmd(&["explain", "web", "-n", "shop"], None)
        .env("KUBECONFIG", &kc)
        .output()
        .expect("runs");
    let e = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{e}");
    assert!(e.contains("line 3"), "{e}");
    assert!(!e.contains("SEKRIT"), "{e}");
}

#[test]
fn a_refused_connection_reads_like_kubectl_and_userinfo_is_never_printed() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .expect("bind")
        .local_addr()
        .expect("addr")
        .port();
    let server = format!("http://alice:SEKRIT-pw@127.0.0.1:{port}");
    let out = run(
        &[
            "explain", "web", "-n", "shop", "-s", &server, "--token", "t", "-v", "6",
        ],
        None,
    );
    let e = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{e}");
    let last = e.trim_end().lines().last().unwrap_or_default();
    assert_eq!(
        last,
        format!("error: The connection to the server 127.0.0.1:{port} was refused - did you specify the right host or port?"),
        "{e}"
    );
    assert!(!e.contains("SEKRIT") && !e.contains("alice"), "{e}");
    assert!(
        !e.contains("ServiceError") && !e.contains("client error"),
        "{e}"
    );
    // Every -v 6 request line against a live server, and the snapshot's source.
    let c = Cluster::example("scale-up-cpu.yaml", "userinfo");
    let server = c.server.url().replace("http://", "http://alice:SEKRIT-pw@");
    let out = run(
        &[
            "snapshot", "web", "-n", "shop", "-s", &server, "--token", "t", "-v", "6",
        ],
        None,
    );
    let e = stderr(&out);
    let lines: Vec<&str> = e.lines().filter(|l| l.starts_with("GET ")).collect();
    assert!(!lines.is_empty(), "{e}");
    assert!(!e.contains("SEKRIT") && !e.contains("alice"), "{e}");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        !text.contains("SEKRIT") && !text.contains("alice"),
        "{text}"
    );
}
