//! The real binary on the shipped examples and on bad input.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_kubectl-hpa"))
        .args(args)
        .current_dir(root())
        .env("NO_COLOR", "1")
        .output()
        .expect("binary runs")
}

fn json(args: &[&str]) -> Value {
    let mut a = args.to_vec();
    a.extend(["-o", "json"]);
    let out = run(&a);
    assert!(
        out.status.success(),
        "{args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("JSON output")
}

fn explain(name: &str, file: &str) -> Value {
    json(&[
        "explain",
        name,
        "-n",
        "shop",
        "--snapshot",
        &format!("examples/{file}"),
    ])
}

#[test]
fn examples_give_their_documented_verdicts() {
    // (name, file, current, desired, action, decidedBy)
    let table = [
        (
            "web",
            "scale-up-cpu.yaml",
            3,
            5,
            "ScaleUp",
            "MetricProposal",
        ),
        (
            "api",
            "hold-within-tolerance.yaml",
            4,
            4,
            "Hold",
            "Tolerance",
        ),
        (
            "cart",
            "unready-pods-damp-scale-up.yaml",
            5,
            6,
            "ScaleUp",
            "MetricProposal",
        ),
        (
            "search",
            "missing-metrics-block-scale-down.yaml",
            6,
            6,
            "Hold",
            "Tolerance",
        ),
        (
            "orders",
            "several-metrics.yaml",
            4,
            6,
            "ScaleUp",
            "MetricProposal",
        ),
        (
            "reviews",
            "sidecar-without-cpu-request.yaml",
            3,
            3,
            "CannotScale",
            "InvalidMetrics",
        ),
        (
            "frontend",
            "scale-down-stabilized.yaml",
            8,
            4,
            "ScaleDown",
            "MetricProposal",
        ),
        (
            "session-cache",
            "statefulset-memory.yaml",
            3,
            4,
            "ScaleUp",
            "MetricProposal",
        ),
        (
            "checkout",
            "custom-resource-scale.yaml",
            4,
            7,
            "ScaleUp",
            "MetricProposal",
        ),
    ];
    for (name, file, current, desired, action, rule) in table {
        let d = explain(name, file);
        assert_eq!(d["currentReplicas"], current, "{file}");
        assert_eq!(d["desiredReplicas"], desired, "{file}");
        assert_eq!(d["verdict"]["action"], action, "{file}");
        assert_eq!(d["verdict"]["decidedBy"], rule, "{file}");
        assert_eq!(d["namespace"], "shop");
        assert_eq!(d["name"], name);
        // One metrics entry per spec.metrics entry, each with the contract's keys.
        for m in d["metrics"].as_array().unwrap() {
            for k in ["type", "proposedReplicas", "error", "status"] {
                assert!(m.get(k).is_some(), "{file}: metric lacks {k}");
            }
        }
    }
}

#[test]
fn scale_up_cpu_reports_status_exactly_as_the_controller() {
    let d = explain("web", "scale-up-cpu.yaml");
    assert_eq!(
        d["metrics"][0]["status"],
        serde_json::json!({"type": "Resource", "resource": {"name": "cpu", "current": {"averageUtilization": 83, "averageValue": "416m"}}})
    );
    assert_eq!(d["metrics"][0]["proposedReplicas"], 5);
    let reasons: Vec<(String, String)> = d["conditions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["type"].as_str().unwrap().into(),
                c["reason"].as_str().unwrap().into(),
            )
        })
        .collect();
    assert!(reasons.contains(&("AbleToScale".into(), "SucceededRescale".into())));
    assert!(reasons.contains(&("ScalingActive".into(), "ValidMetricFound".into())));
    assert!(reasons.contains(&("ScalingLimited".into(), "DesiredWithinRange".into())));
    assert_eq!(
        d["events"][0]["message"],
        "New size: 5; reason: cpu resource utilization (percentage of request) above target"
    );
}

#[test]
fn history_holds_the_scale_down() {
    let d = json(&[
        "explain",
        "frontend",
        "-n",
        "shop",
        "--snapshot",
        "examples/scale-down-stabilized.yaml",
        "--history",
        "examples/scale-down-stabilized.history.yaml",
    ]);
    assert_eq!(d["desiredReplicas"], 8);
    assert_eq!(d["verdict"]["decidedBy"], "ScaleDownStabilized");
    let able = d["conditions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["type"] == "AbleToScale")
        .unwrap();
    assert_eq!(able["reason"], "ScaleDownStabilized");
}

#[test]
fn sidecar_without_request_is_named() {
    let d = explain("reviews", "sidecar-without-cpu-request.yaml");
    let err = d["metrics"][0]["error"].as_str().unwrap();
    assert!(
        err.contains("missing request for cpu in container istio-proxy"),
        "{err}"
    );
    assert_eq!(d["metrics"][0]["status"], Value::Null);
    assert_eq!(
        d["status"]["currentMetrics"],
        serde_json::json!([{"type": ""}])
    );
}

#[test]
fn text_output_shows_verdict_metrics_pods_and_conditions() {
    let out = run(&[
        "explain",
        "cart",
        "-n",
        "shop",
        "--snapshot",
        "examples/unready-pods-damp-scale-up.yaml",
    ]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("Verdict: SCALE UP 5 → 6"), "{text}");
    assert!(text.contains("Pods for metric 1"));
    assert!(text.contains("unready"));
    assert!(
        text.contains("counted at 0"),
        "re-computation is explained: {text}"
    );
    assert!(text.contains("Conditions the controller would set"));
    assert!(text.contains("Assumptions"));
    assert!(!text.contains('\u{1b}'), "no colour without a TTY");
}

#[test]
fn yaml_output_is_the_same_trace() {
    let out = run(&[
        "explain",
        "web",
        "-n",
        "shop",
        "--snapshot",
        "examples/scale-up-cpu.yaml",
        "-o",
        "yaml",
    ]);
    assert!(out.status.success());
    let y: Value = serde_yaml::from_slice(&out.stdout).unwrap();
    let j = explain("web", "scale-up-cpu.yaml");
    assert_eq!(y, j);
}

#[test]
fn namespace_is_inferred_when_the_name_is_unique() {
    let d = json(&["explain", "web", "--snapshot", "examples/scale-up-cpu.yaml"]);
    assert_eq!(d["namespace"], "shop");
}

#[test]
fn kubernetes_version_changes_the_tolerance_rule() {
    // 1.32 and older used |1 - ratio| <= tolerance; the same numbers hold either way here,
    // but the trace must record the version and the legacy flag.
    let d = json(&[
        "explain",
        "api",
        "-n",
        "shop",
        "--snapshot",
        "examples/hold-within-tolerance.yaml",
        "--kubernetes-version",
        "1.32",
    ]);
    assert_eq!(d["settings"]["kubernetesVersion"], "1.32");
    assert_eq!(d["tolerance"]["legacyAbs"], true);
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    std::fs::create_dir_all(dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

fn scratch(test: &str) -> PathBuf {
    std::env::temp_dir().join(format!("kubectl-hpa-{test}-{}", std::process::id()))
}

/// Runs explain on a snapshot text and returns (exit code, stderr).
fn explain_text(test: &str, text: &str) -> (i32, String) {
    let dir = scratch(test);
    let p = write(&dir, "snap.yaml", text);
    let out = run(&[
        "explain",
        "web",
        "-n",
        "shop",
        "--snapshot",
        p.to_str().unwrap(),
    ]);
    let _ = std::fs::remove_dir_all(&dir);
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn good_snapshot() -> String {
    std::fs::read_to_string(root().join("examples/scale-up-cpu.yaml")).unwrap()
}

#[test]
fn bad_input_gives_one_line_errors_naming_what_is_wrong() {
    let good = good_snapshot();
    let cases: Vec<(&str, String, &str)> = vec![
        ("malformed-yaml", "apiVersion: v1\nkind: List\nitems: [\n".into(), "invalid YAML"),
        ("not-a-list", "just a string".into(), "expected a v1 List"),
        ("empty", "".into(), "expected a v1 List"),
        ("no-hpa", "apiVersion: v1\nkind: List\nitems: []\n".into(), "no HorizontalPodAutoscaler shop/web"),
        (
            "unknown-kind",
            "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Secret\n  metadata: {name: x}\n".into(),
            "unsupported kind Secret",
        ),
        ("garbage-quantity", good.replace("cpu: 500m", "cpu: 5OOm"), "invalid quantity \"5OOm\""),
        ("negative-request", good.replace("cpu: 500m", "cpu: -500m"), "negative quantity"),
        ("absurd-quantity", good.replace("cpu: 500m", "cpu: 9E"), "out of range"),
        ("negative-max", good.replacen("maxReplicas: 10", "maxReplicas: -3", 1), "spec.maxReplicas"),
        ("overflowing-int", good.replacen("maxReplicas: 10", "maxReplicas: 99999999999", 1), "maxReplicas"),
        ("bad-time", good.replacen("timestamp: \"2026-03-01T12:00:00Z\"", "timestamp: \"yesterday\"", 1), "invalid RFC3339 time"),
    ];
    for (name, text, want) in cases {
        let (code, stderr) = explain_text(name, &text);
        assert_eq!(code, 1, "{name}: exit code; stderr: {stderr}");
        assert!(
            stderr.contains(want),
            "{name}: {stderr:?} should mention {want:?}"
        );
        assert_eq!(
            stderr.trim_end().lines().count(),
            1,
            "{name}: one line: {stderr}"
        );
        assert!(!stderr.contains("panicked"), "{name}: {stderr}");
    }
}

#[test]
fn a_missing_target_is_named() {
    let text = "apiVersion: v1\nkind: List\nitems:\n- apiVersion: autoscaling/v2\n  kind: HorizontalPodAutoscaler\n  metadata: {name: web, namespace: shop}\n  spec:\n    scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}\n    maxReplicas: 5\n";
    // The controller's verdict (issue 9 §3): FailedGetScale, exit 0, and a diagnostic naming
    // the object and saying the file may simply lack it.
    let dir = scratch("missing-target");
    let p = write(&dir, "snap.yaml", text);
    let out = run(&[
        "explain",
        "web",
        "-n",
        "shop",
        "--snapshot",
        p.to_str().unwrap(),
    ]);
    let _ = std::fs::remove_dir_all(&dir);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("FailedGetScale"), "{stdout}");
    assert!(
        stdout.contains("deployments.apps \"web\" not found"),
        "{stdout}"
    );
    assert!(stdout.contains("Deployment shop/web"), "{stdout}");
    assert!(stdout.contains("may simply lack the object"), "{stdout}");
}

#[test]
fn an_hpa_missing_a_required_field_is_named() {
    let text = "apiVersion: v1\nkind: List\nitems:\n- apiVersion: autoscaling/v2\n  kind: HorizontalPodAutoscaler\n  metadata: {name: web, namespace: shop}\n  spec:\n    maxReplicas: 5\n";
    let (code, stderr) = explain_text("missing-field", text);
    assert_eq!(code, 1);
    assert!(
        stderr.contains("HorizontalPodAutoscaler shop/web"),
        "{stderr}"
    );
    assert!(stderr.contains("scaleTargetRef"), "{stderr}");
}

#[test]
fn bad_flags_and_history_are_reported() {
    let out = run(&[
        "explain",
        "web",
        "--snapshot",
        "examples/scale-up-cpu.yaml",
        "--now",
        "noon",
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--now"));

    let out = run(&[
        "explain",
        "web",
        "--snapshot",
        "examples/scale-up-cpu.yaml",
        "--kubernetes-version",
        "1.12",
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("outside the supported range"));

    let out = run(&[
        "explain",
        "web",
        "--snapshot",
        "examples/scale-up-cpu.yaml",
        "--feature-gates",
        "Nope=true",
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown feature gate"));

    let dir = scratch("bad-history");
    let h = write(
        &dir,
        "h.yaml",
        "recommendations:\n- {time: 2026-03-01T11:59:00Z, replicas: many}\n",
    );
    let out = run(&[
        "explain",
        "web",
        "--snapshot",
        "examples/scale-up-cpu.yaml",
        "--history",
        h.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1));
    let e = String::from_utf8_lossy(&out.stderr);
    assert!(e.contains("recommendations[0].replicas"), "{e}");
    let h = write(
        &dir,
        "h2.yaml",
        "scaleUpEvents:\n- {time: 2026-03-01T11:59:00Z, change: -2}\n",
    );
    let out = run(&[
        "explain",
        "web",
        "--snapshot",
        "examples/scale-up-cpu.yaml",
        "--history",
        h.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("scaleUpEvents[0].change"));
    let _ = std::fs::remove_dir_all(&dir);

    let out = run(&["explain", "--bogus"]);
    assert_eq!(out.status.code(), Some(2), "usage errors exit 2");
    let out = run(&["explain", "web", "--snapshot", "/nonexistent/snap.yaml"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot read snapshot"));
}

#[test]
fn rescale_events_in_the_snapshot_feed_the_rate_policies() {
    // Two SuccessfulRescale events: 1 -> 3 ten seconds ago. The scale-up policies (15 s periods)
    // must count the 2 pods added, and the output must say where they came from.
    let mut snap: Value = serde_yaml::from_str(
        &std::fs::read_to_string(root().join("examples/statefulset-memory.yaml")).unwrap(),
    )
    .unwrap();
    let event = |size: i32, at: &str| {
        serde_json::json!({
            "apiVersion": "v1", "kind": "Event",
            "metadata": {"name": format!("session-cache.{size}"), "namespace": "shop"},
            "involvedObject": {"kind": "HorizontalPodAutoscaler", "name": "session-cache", "namespace": "shop"},
            "reason": "SuccessfulRescale", "type": "Normal",
            "message": format!("New size: {size}; reason: memory resource above target"),
            "lastTimestamp": at
        })
    };
    let items = snap["items"].as_array_mut().unwrap();
    items.push(event(1, "2026-03-01T11:50:00Z"));
    items.push(event(3, "2026-03-01T11:59:50Z"));
    let dir = scratch("rescale-events");
    let p = write(&dir, "snap.json", &serde_json::to_string(&snap).unwrap());
    let d = json(&[
        "explain",
        "session-cache",
        "-n",
        "shop",
        "--snapshot",
        p.to_str().unwrap(),
    ]);
    let policies = d["normalization"]["limits"]["policies"].as_array().unwrap();
    assert!(
        policies.iter().all(|p| p["addedInPeriod"] == 2),
        "{policies:?}"
    );
    assert_eq!(policies[0]["periodStartReplicas"], 1);
    assert!(d["assumptions"].as_array().unwrap().iter().any(|a| a
        .as_str()
        .unwrap()
        .contains("rebuilt from the HPA's SuccessfulRescale events")));
    // --history overrides the events.
    let h = write(&dir, "h.yaml", "scaleUpEvents: []\n");
    let d = json(&[
        "explain",
        "session-cache",
        "-n",
        "shop",
        "--snapshot",
        p.to_str().unwrap(),
        "--history",
        h.to_str().unwrap(),
    ]);
    assert!(d["normalization"]["limits"]["policies"]
        .as_array()
        .unwrap()
        .iter()
        .all(|p| p["addedInPeriod"] == 0));
    let _ = std::fs::remove_dir_all(&dir);
}
