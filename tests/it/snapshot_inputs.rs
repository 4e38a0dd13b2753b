//! Snapshots as users make them: several documents and files, standard input, `cat a.yaml
//! b.json`, objects explain does not read, HPAs of every version, files without metrics,
//! a namespace the file lacks, deep nesting — and `snapshot -n/-A/--redact` against the fake
//! API server, replayed to the same decision.

use crate::support::binary;
use crate::support::fake_apiserver;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};
use std::time::{Duration, Instant};

use binary::*;
use fake_apiserver::{load_snapshot, FakeApiServer};
use serde_json::{json, Value};

fn fixture(file: &str) -> PathBuf {
    root().join("tests/snapshot_inputs").join(file)
}

fn path_str(p: &Path) -> String {
    p.to_string_lossy().to_string()
}

/// `explain NAME -n shop --now NOW -o json` over these snapshot files.
fn explain_files(name: &str, files: &[&Path], extra: &[&str]) -> Output {
    let mut args: Vec<String> = vec!["explain".into(), name.into(), "-n".into(), "shop".into()];
    for f in files {
        args.push("--snapshot".into());
        args.push(path_str(f));
    }
    args.extend(["--now", NOW].map(String::from));
    args.extend(extra.iter().map(|s| s.to_string()));
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    run(&refs, None)
}

fn explain_json(name: &str, files: &[&Path]) -> Value {
    ok_json(
        &explain_files(name, files, &["-o", "json"]),
        &format!("explain {name} {files:?}"),
    )
}

/// The parts of a decision that must agree whatever form the file takes.
fn decision(v: &Value) -> Value {
    decision_parts(
        v,
        &[
            "currentReplicas",
            "desiredReplicas",
            "verdict",
            "metrics",
            "proposal",
            "conditions",
            "events",
            "status",
            "steps",
            "memory",
        ],
    )
}

/// The example's objects as JSON values (its Lists flattened; PodMetricsLists kept whole).
fn items(file: &str) -> Vec<Value> {
    fn flatten(v: Value, out: &mut Vec<Value>) {
        if v["kind"] == "List" {
            for i in v["items"].as_array().cloned().unwrap_or_default() {
                flatten(i, out);
            }
        } else {
            out.push(v);
        }
    }
    let mut out = Vec::new();
    for d in load_snapshot(example(file)) {
        flatten(d, &mut out);
    }
    assert!(out.len() > 3, "{file}: {out:?}");
    out
}

fn list(items: &[Value]) -> Value {
    json!({"apiVersion": "v1", "kind": "List", "items": items})
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).expect("write");
    p
}

fn yaml(v: &Value) -> String {
    kubectl_hpa::yaml::to_string(v).expect("yaml")
}

fn baseline() -> Value {
    decision(&explain_json("web", &[&example("scale-up-cpu.yaml")]))
}

#[test]
fn multi_document_yaml_and_single_objects_give_the_same_decision() {
    let dir = tmpdir("multidoc");
    let docs: Vec<String> = items("scale-up-cpu.yaml").iter().map(yaml).collect();
    let p = write(&dir, "docs.yaml", &docs.join("---\n"));
    assert_eq!(decision(&explain_json("web", &[&p])), baseline());
}

#[test]
fn several_files_and_standard_input_merge() {
    let dir = tmpdir("several");
    let all = items("scale-up-cpu.yaml");
    let (hpa, rest): (Vec<Value>, Vec<Value>) = all
        .into_iter()
        .partition(|o| o["kind"] == "HorizontalPodAutoscaler");
    let h = write(&dir, "hpa.yaml", &yaml(&hpa[0]));
    let r = write(&dir, "rest.json", &list(&rest).to_string());
    assert_eq!(decision(&explain_json("web", &[&h, &r])), baseline());

    // The same with the rest on standard input.
    let mut child = cmd(
        &[
            "explain",
            "web",
            "-n",
            "shop",
            "--snapshot",
            &path_str(&h),
            "--snapshot",
            "-",
            "--now",
            NOW,
            "-o",
            "json",
        ],
        None,
    )
    .stdin(Stdio::piped())
    .stdout(Stdio::piped())
    .stderr(Stdio::piped())
    .spawn()
    .expect("spawn");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(list(&rest).to_string().as_bytes())
        .expect("write stdin");
    let out = child.wait_with_output().expect("wait");
    assert_eq!(decision(&ok_json(&out, "stdin")), baseline());

    let twice = run(
        &["explain", "web", "--snapshot", "-", "--snapshot", "-"],
        None,
    );
    assert_eq!(twice.status.code(), Some(1));
    assert!(stderr(&twice).contains("standard input can be read only once"));
}

#[test]
fn kubectl_get_yaml_then_a_raw_metrics_list_in_json() {
    // `cat objects.yaml podmetrics.json`: a kubectl List in YAML, then what
    // `kubectl get --raw /apis/metrics.k8s.io/v1beta1/namespaces/shop/pods` prints.
    let dir = tmpdir("catjson");
    let (metrics, objects): (Vec<Value>, Vec<Value>) = items("scale-up-cpu.yaml")
        .into_iter()
        .partition(|o| o["kind"] == "PodMetrics");
    let pml = json!({"apiVersion": "metrics.k8s.io/v1beta1", "kind": "PodMetricsList", "metadata": {}, "items": metrics});
    let text = format!(
        "{}{}\n",
        yaml(&list(&objects)),
        serde_json::to_string_pretty(&pml).unwrap()
    );
    let p = write(&dir, "cat.yaml", &text);
    assert_eq!(decision(&explain_json("web", &[&p])), baseline());
    // And a stream of two JSON documents.
    let text = format!("{}\n{}\n", list(&objects), pml);
    let p = write(&dir, "stream.json", &text);
    assert_eq!(decision(&explain_json("web", &[&p])), baseline());
}

#[test]
fn a_configmap_is_passed_over_with_a_note() {
    let dir = tmpdir("configmap");
    let mut all = items("scale-up-cpu.yaml");
    all.push(json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "settings", "namespace": "shop"}, "data": {"k": "v"}}));
    let p = write(&dir, "cm.yaml", &yaml(&list(&all)));
    let v = explain_json("web", &[&p]);
    assert_eq!(decision(&v), baseline());
    let notes: Vec<&Value> = v["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["id"] == "snapshot-objects-ignored")
        .collect();
    assert_eq!(notes.len(), 1, "{}", v["diagnostics"]);
    assert!(notes[0]["message"]
        .as_str()
        .unwrap()
        .contains("ConfigMap shop/settings (v1)"));
    let wide = ok(&explain_files("web", &[&p], &["-o", "wide"]), "wide");
    assert!(wide.contains("ConfigMap shop/settings"), "{wide}");
}

/// The example's objects without its HPA, and the HPA in another version beside them.
fn with_hpa_version(fixture_file: &str, tag: &str) -> Value {
    let dir = tmpdir(tag);
    let rest: Vec<Value> = items("scale-up-cpu.yaml")
        .into_iter()
        .filter(|o| o["kind"] != "HorizontalPodAutoscaler")
        .collect();
    let r = write(&dir, "rest.yaml", &yaml(&list(&rest)));
    explain_json("web", &[&r, &fixture(fixture_file)])
}

#[test]
fn hpas_of_older_versions_are_converted_and_decide_alike() {
    for (file, version) in [
        ("web-autoscaling-v1.yaml", "autoscaling/v1"),
        ("web-autoscaling-v2beta1.yaml", "autoscaling/v2beta1"),
        ("web-autoscaling-v2beta2.yaml", "autoscaling/v2beta2"),
    ] {
        let v = with_hpa_version(file, version.replace('/', "-").as_str());
        assert_eq!(decision(&v), baseline(), "{file}");
        let assumptions = v["assumptions"].to_string();
        assert!(
            assumptions.contains(&format!(
                "the HPA was {version}: converted to autoscaling/v2 as the API server converts it"
            )),
            "{file}: {assumptions}"
        );
    }
}

#[test]
fn an_old_hpa_in_a_list_does_not_block_the_others() {
    let dir = tmpdir("mixed");
    let mut all = items("scale-up-cpu.yaml");
    all.extend(items("hold-within-tolerance.yaml"));
    let v1: Value = kubectl_hpa::yaml::from_str(
        &std::fs::read_to_string(fixture("web-autoscaling-v1.yaml")).unwrap(),
    )
    .unwrap();
    for o in all.iter_mut() {
        if o["kind"] == "HorizontalPodAutoscaler" && o["metadata"]["name"] == "web" {
            *o = v1.clone();
        }
    }
    let p = write(&dir, "mixed.yaml", &yaml(&list(&all)));
    let fleet = ok_json(
        &run(
            &[
                "explain",
                "-n",
                "shop",
                "--snapshot",
                &path_str(&p),
                "--now",
                NOW,
                "-o",
                "json",
            ],
            None,
        ),
        "fleet",
    );
    let names: Vec<&str> = fleet["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| i["error"].is_null())
        .map(|i| i["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["api", "web"], "{fleet}");
}

#[test]
fn a_v1_field_in_a_v2_hpa_is_a_warning_naming_it() {
    let v = with_hpa_version("web-v2-with-v1-field.yaml", "v1field");
    let f: Vec<&Value> = v["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["id"] == "hpa-field-ignored")
        .collect();
    assert_eq!(f.len(), 1, "{}", v["diagnostics"]);
    assert_eq!(f[0]["severity"], "warning");
    let msg = f[0]["message"].as_str().unwrap();
    assert!(
        msg.contains("spec.targetCPUUtilizationPercentage is not a field of autoscaling/v2"),
        "{msg}"
    );
    assert!(msg.contains("80%"), "{msg}");
    // The controller's default: 80% cpu, as the metrics show.
    assert_eq!(
        v["metrics"][0]["calculation"]["target"], 80,
        "{}",
        v["metrics"]
    );
}

fn without_metrics(files: &[&str], tag: &str) -> PathBuf {
    let dir = tmpdir(tag);
    let all: Vec<Value> = files
        .iter()
        .flat_map(|f| items(f))
        .filter(|o| o["kind"] != "PodMetrics" && !o["kind"].as_str().unwrap().ends_with("List"))
        .collect();
    write(&dir, "nometrics.yaml", &yaml(&list(&all)))
}

#[test]
fn a_file_without_metrics_says_so_instead_of_cannot_scale() {
    let p = without_metrics(&["scale-up-cpu.yaml"], "nometrics");
    let v = explain_json("web", &[&p]);
    assert_eq!(v["verdict"]["action"], "Unknown", "{}", v["verdict"]);
    assert_eq!(v["verdict"]["decidedBy"], "NoMetrics");
    assert!(v["desiredReplicas"].is_null());
    let ids: Vec<&str> = v["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["id"].as_str().unwrap())
        .collect();
    assert!(ids.contains(&"snapshot-without-metrics"), "{ids:?}");
    assert!(!ids.iter().any(|i| i.starts_with("metrics-")), "{ids:?}");
    let text = ok(&explain_files("web", &[&p], &[]), "text");
    assert!(
        text.contains("UNKNOWN (the snapshot holds no metrics)"),
        "{text}"
    );
    assert!(!text.contains("CANNOT SCALE"), "{text}");
    assert!(!text.contains("metrics-server"), "{text}");
    assert!(
        text.contains("currentReplicas 3, desiredReplicas 3"),
        "{text}"
    );
}

#[test]
fn a_fleet_replay_without_metrics_says_so_for_each_hpa() {
    let p = without_metrics(
        &["scale-up-cpu.yaml", "hold-within-tolerance.yaml"],
        "fleetnometrics",
    );
    let out = run(
        &[
            "explain",
            "-n",
            "shop",
            "--snapshot",
            &path_str(&p),
            "--now",
            NOW,
            "-o",
            "json",
        ],
        None,
    );
    let v = ok_json(&out, "fleet");
    for i in v["items"].as_array().unwrap() {
        assert_eq!(i["decidedBy"], "NoMetrics", "{i}");
        assert!(
            i["warnings"]
                .to_string()
                .contains("snapshot-without-metrics"),
            "{i}"
        );
    }
}

#[test]
fn another_namespace_lists_the_ones_the_file_holds() {
    let out = run(
        &[
            "explain",
            "-n",
            "other",
            "--snapshot",
            &path_str(&example("scale-up-cpu.yaml")),
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.starts_with("No HorizontalPodAutoscalers found in namespace other")
            && text.contains("holds namespace shop"),
        "{text}"
    );
}

#[test]
fn deep_flow_nesting_is_refused_fast_in_one_line() {
    let dir = tmpdir("deep");
    let depth = 100_000;
    let text = format!("items: {}{}\n", "[".repeat(depth), "]".repeat(depth));
    let p = write(&dir, "deep.yaml", &text);
    let t = Instant::now();
    let out = run(&["explain", "web", "--snapshot", &path_str(&p)], None);
    let took = t.elapsed();
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(err.contains("YAML nested deeper than 64 levels"), "{err}");
    assert!(took < Duration::from_secs(2), "took {took:?}");
}

/// A fake cluster with the two examples' objects, plus what a bug report must not leak.
fn leaky_cluster(tag: &str) -> (FakeApiServer, PathBuf) {
    let mut objects = items("scale-up-cpu.yaml");
    objects.extend(items("hold-within-tolerance.yaml"));
    for o in objects.iter_mut() {
        if o["kind"] == "Pod" || o["kind"] == "Deployment" {
            o["metadata"]["annotations"] = json!({"owner": "alice@corp.example"});
            o["metadata"]["labels"]["git-sha"] = json!("deadbeef42");
        }
        if o["kind"] == "Pod" {
            o["spec"]["containers"][0]["env"] =
                json!([{"name": "DB_PASSWORD", "value": "hunter2-secret"}]);
        }
    }
    let server = FakeApiServer::start(objects);
    let kubeconfig = server.write_kubeconfig(&tmpdir(tag));
    (server, kubeconfig)
}

#[test]
fn snapshot_of_a_namespace_and_of_all_replays_the_live_fleet() {
    let (server, kc) = leaky_cluster("snapns");
    let live = ok_json(
        &run(
            &["explain", "-n", "shop", "--now", NOW, "-o", "json"],
            Some(&kc),
        ),
        "live fleet",
    );
    for scope in [vec!["-n", "shop"], vec!["-A"], vec!["-A", "-o", "json"]] {
        let mut args = vec!["snapshot"];
        args.extend(scope.iter());
        let text = ok(&run(&args, Some(&kc)), "snapshot");
        let p = write(&tmpdir("snapns-file"), "fleet.yaml", &text);
        let replay = ok_json(
            &run(
                &[
                    "explain",
                    "-n",
                    "shop",
                    "--snapshot",
                    &path_str(&p),
                    "--now",
                    NOW,
                    "-o",
                    "json",
                ],
                None,
            ),
            "replay",
        );
        let pick = |v: &Value| -> Vec<Value> {
            v["items"]
                .as_array()
                .unwrap()
                .iter()
                .map(|i| json!([i["name"], i["desiredReplicas"], i["decidedBy"], i["action"]]))
                .collect()
        };
        assert_eq!(pick(&replay), pick(&live), "{scope:?}");
        assert_eq!(pick(&live).len(), 2);
    }
    let both = run(&["snapshot", "web", "-A"], Some(&kc));
    assert_eq!(both.status.code(), Some(2), "{}", stderr(&both));
    assert!(server.writes().is_empty());
}

#[test]
fn redacted_snapshot_replays_the_same_decision_and_leaks_nothing() {
    let (server, kc) = leaky_cluster("redact");
    let plain = ok(
        &run(&["snapshot", "web", "-n", "shop"], Some(&kc)),
        "snapshot",
    );
    let redacted = ok(
        &run(&["snapshot", "web", "-n", "shop", "--redact"], Some(&kc)),
        "snapshot --redact",
    );
    // Pods are fetched as the snapshot reads them (no env, probes, volumes): an env value
    // never reaches the file, with or without --redact.
    assert!(
        !plain.contains("hunter2-secret"),
        "env values are not fetched"
    );
    for secret in ["alice@corp.example", "deadbeef42", "registry.example.com"] {
        assert!(plain.contains(secret), "the fixture lacks {secret}");
        assert!(
            !redacted.contains(secret),
            "{secret} remains after --redact"
        );
    }
    // The server's address (kubectl-hpa.dev/source) goes too.
    let addr = server.addr().to_string();
    assert!(plain.contains(&addr));
    assert!(!redacted.contains(&addr), "{addr} remains after --redact");
    let dir = tmpdir("redact-files");
    let a = write(&dir, "plain.yaml", &plain);
    let b = write(&dir, "redacted.yaml", &redacted);
    assert_eq!(
        decision(&explain_json("web", &[&a])),
        decision(&explain_json("web", &[&b]))
    );
    assert!(server.writes().is_empty());
}

/// The example with one object replaced (the first of `kind`, its `field` set to `value`).
fn with_field(kind: &str, field: &str, value: Value) -> Vec<Value> {
    let mut objects = items("scale-up-cpu.yaml");
    objects.push(json!({"apiVersion": "v1", "kind": "Event", "metadata": {"name": "web.1", "namespace": "shop"},
        "involvedObject": {"kind": "HorizontalPodAutoscaler", "name": "web", "namespace": "shop"},
        "reason": "SuccessfulRescale", "message": "New size: 3; reason: All metrics below target",
        "lastTimestamp": "2026-03-01T11:00:00Z"}));
    let o = objects
        .iter_mut()
        .find(|o| o["kind"] == kind)
        .unwrap_or_else(|| panic!("no {kind}"));
    o[field] = value;
    objects
}

#[test]
fn a_list_where_an_object_is_read_is_an_error_not_a_positional_read() {
    let dir = tmpdir("shapes");
    // Read positionally, `spec: [7]` was replicas 7 and `metadata: []` a pod without a name
    // (gone from the count, desired 5 -> 4, exit 0).
    for (kind, field, value, named) in [
        ("Deployment", "spec", json!([7]), "field spec"),
        ("Pod", "metadata", json!([]), "field metadata"),
        ("Deployment", "status", json!([3, 3]), "field status"),
        // Kept as they are, read by the rescale history and the diagnostics.
        (
            "Event",
            "involvedObject",
            json!(["HorizontalPodAutoscaler", "web"]),
            "field involvedObject",
        ),
    ] {
        let objects = with_field(kind, field, value);
        let as_json = write(&dir, "shape.json", &list(&objects).to_string());
        let as_yaml = write(&dir, "shape.yaml", &yaml(&list(&objects)));
        for p in [as_json, as_yaml] {
            let out = explain_files("web", &[&p], &["-o", "json"]);
            let err = stderr(&out);
            assert_eq!(out.status.code(), Some(1), "{kind}.{field} {p:?}: {err}");
            assert!(
                err.contains(named)
                    && err.contains("expected an object (a map of fields), found a list"),
                "{kind}.{field}: {err}"
            );
            assert_eq!(err.trim().lines().count(), 1, "{err}");
        }
    }
}

/// A realistic namespace: the several-metrics example (HPA `orders` on CPU, a Pods and an
/// External metric) with what clusters hold besides — a full pod template, node names, events
/// of every kind, APIServices, a Service, Endpoints, a ConfigMap, a Secret, a custom resource.
fn realistic_namespace() -> Vec<Value> {
    let mut objects = items("several-metrics.yaml");
    let template = json!({"metadata": {"labels": {"app": "orders", "team": "t"}, "annotations": {"a": "b"}},
        "spec": {"containers": [{"name": "orders", "image": "i", "command": ["sh", "-c", "x"], "args": ["--token=t"],
            "env": [{"name": "DB_PASSWORD", "value": "v"}, {"name": "FROM", "valueFrom": {"secretKeyRef": {"name": "s", "key": "k"}}}],
            "envFrom": [{"secretRef": {"name": "s"}}],
            "livenessProbe": {"exec": {"command": ["cat", "/x"]}},
            "readinessProbe": {"httpGet": {"path": "/p", "port": "http", "httpHeaders": [{"name": "Authorization", "value": "Bearer t"}]}},
            "lifecycle": {"preStop": {"exec": {"command": ["sleep", "5"]}}},
            "resources": {"requests": {"cpu": "500m"}}}],
          "volumes": [{"name": "v1", "csi": {"driver": "d", "volumeAttributes": {"secretProviderClass": "x"}}},
                      {"name": "v2", "flexVolume": {"driver": "d", "options": {"password": "p"}}}],
          "hostAliases": [{"ip": "10.9.9.9", "hostnames": ["db.internal"]}],
          "dnsConfig": {"nameservers": ["10.8.8.8"], "searches": ["corp.internal"]},
          "nodeSelector": {"pool": "p"}, "serviceAccountName": "sa"}});
    for o in objects.iter_mut() {
        match o["kind"].as_str() {
            Some("Deployment") => {
                o["spec"]["template"] = template.clone();
                o["metadata"]["annotations"] =
                    json!({"kubectl.kubernetes.io/last-applied-configuration": "{}"});
                o["status"]["conditions"] =
                    json!([{"type": "Available", "status": "True", "reason": "r", "message": "m"}]);
            }
            Some("Pod") => {
                o["spec"]["containers"][0]["env"] = json!([{"name": "DB_PASSWORD", "value": "v"}]);
                o["spec"]["containers"][0]["args"] = json!(["--token=t"]);
                o["spec"]["hostAliases"] =
                    json!([{"ip": "10.9.9.9", "hostnames": ["db.internal"]}]);
                o["status"]["message"] = json!("m");
                o["status"]["nominatedNodeName"] = json!("n");
            }
            Some("ExternalMetricValueList") => {
                for i in o["items"].as_array_mut().into_iter().flatten() {
                    i["metricLabels"]["tenant"] = json!("t");
                }
            }
            _ => {}
        }
    }
    let hpa_ref = json!({"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler", "name": "orders", "namespace": "shop", "uid": "caed9c2e-d12e-5740-a81c-eafee57f0ecb"});
    objects.extend([
        json!({"apiVersion": "v1", "kind": "Event", "metadata": {"name": "orders.1", "namespace": "shop", "annotations": {"a": "b"}},
            "involvedObject": hpa_ref, "reason": "SuccessfulRescale", "type": "Normal",
            "message": "New size: 4; reason: All metrics below target", "count": 1,
            "source": {"component": "horizontal-pod-autoscaler", "host": "cp-1.corp.internal"},
            "reportingComponent": "horizontal-pod-autoscaler", "reportingInstance": "cp-1.corp.internal",
            "firstTimestamp": "2026-03-01T09:40:46Z", "lastTimestamp": "2026-03-01T09:40:46Z"}),
        json!({"apiVersion": "v1", "kind": "Event", "metadata": {"name": "orders.2", "namespace": "shop"},
            "involvedObject": hpa_ref, "reason": "FailedGetExternalMetric", "type": "Warning",
            "message": "unable to get external metric: Get https://10.7.7.7:443/apis: x509", "count": 3,
            "source": {"component": "horizontal-pod-autoscaler", "host": "cp-1.corp.internal"},
            "firstTimestamp": "2026-03-01T09:00:00Z", "lastTimestamp": "2026-03-01T09:10:00Z"}),
        json!({"apiVersion": "events.k8s.io/v1", "kind": "Event", "metadata": {"name": "p.1", "namespace": "shop"},
            "regarding": {"kind": "Pod", "name": "orders-6b7f4d9c8-9mwzt", "namespace": "shop", "fieldPath": "spec.containers{orders}"},
            "reason": "Pulled", "type": "Normal", "note": "Pulled image registry/x", "eventTime": "2026-03-01T08:15:21.000000Z",
            "reportingController": "kubelet", "reportingInstance": "node-7", "action": "a",
            "deprecatedSource": {"component": "kubelet", "host": "node-7"}}),
        json!({"apiVersion": "apiregistration.k8s.io/v1", "kind": "APIService", "metadata": {"name": "v1beta1.metrics.k8s.io", "labels": {"k": "v"}},
            "spec": {"service": {"name": "metrics-server", "namespace": "kube-system"}, "group": "metrics.k8s.io", "version": "v1beta1", "caBundle": "Y2E="},
            "status": {"conditions": [{"type": "Available", "status": "True", "reason": "Passed", "message": "all checks passed at 10.6.6.6", "lastTransitionTime": "2026-03-01T00:00:00Z"}]}}),
        json!({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "orders", "namespace": "shop", "annotations": {"a": "b"}},
            "spec": {"selector": {"app": "orders"}, "clusterIP": "10.5.5.5", "externalName": "db.corp.internal", "ports": [{"name": "http", "port": 80}]}}),
        json!({"apiVersion": "v1", "kind": "Endpoints", "metadata": {"name": "orders", "namespace": "shop"},
            "subsets": [{"addresses": [{"ip": "10.244.13.40", "nodeName": "node-7", "targetRef": {"kind": "Pod", "name": "x"}}]}]}),
        json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "settings", "namespace": "shop"}, "data": {"url": "postgres://u:p@db"}}),
        json!({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "db", "namespace": "shop"}, "type": "Opaque", "stringData": {"password": "p"}}),
        json!({"apiVersion": "argoproj.io/v1alpha1", "kind": "Rollout", "metadata": {"name": "canary", "namespace": "shop"},
            "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "canary"}}, "template": template, "strategy": {"canary": {"analysis": {"args": [{"name": "a", "value": "b"}]}}}}}),
    ]);
    objects
}

/// Whether the replay reads the string at `path` (keys, array indices left out) of an object of
/// `kind`: the fields `--redact` keeps. Everything else gets a marker.
fn read_by_replay(kind: &str, path: &[String], object: &Value) -> bool {
    let mut p: Vec<&str> = path.iter().map(String::as_str).collect();
    if kind.ends_with("ValueList") && p.first() == Some(&"items") {
        p.remove(0);
    }
    let any = |pats: &[&str]| {
        pats.iter().any(|pat| {
            let parts: Vec<&str> = pat.split(' ').collect();
            match parts.last() {
                Some(&"**") => p.starts_with(&parts[..parts.len() - 1]),
                _ => {
                    parts.len() == p.len() && parts.iter().zip(&p).all(|(a, b)| *a == "*" || a == b)
                }
            }
        })
    };
    if p.contains(&"template") {
        return false;
    }
    if p.contains(&"selector")
        || any(&[
            "apiVersion",
            "kind",
            "metadata name",
            "metadata namespace",
            "metadata uid",
            "metadata labels app",
            "metadata labels queue",
            "metadata ownerReferences *",
            "metadata creationTimestamp",
        ])
    {
        return !p.ends_with(&["ownerReferences", "uid"]);
    }
    match kind {
        "List" => any(&["metadata annotations kubectl-hpa.dev/taken-at"]),
        "HorizontalPodAutoscaler" => any(&["spec **", "status **", "metadata resourceVersion"]),
        "Pod" => any(&[
            "spec containers name",
            "spec containers resources requests *",
            "status phase",
            "status startTime",
            "status conditions type",
            "status conditions status",
            "status conditions lastTransitionTime",
        ]),
        "PodMetrics" => any(&[
            "containers name",
            "containers usage *",
            "timestamp",
            "window",
        ]),
        "MetricValueList" => any(&["describedObject *", "metric name", "timestamp", "value"]),
        "ExternalMetricValueList" => {
            any(&["metricName", "metricLabels queue", "timestamp", "value"])
        }
        "Event" => {
            let own = object["reason"] == "SuccessfulRescale";
            any(&[
                "reason",
                "type",
                "involvedObject *",
                "regarding *",
                "firstTimestamp",
                "lastTimestamp",
                "eventTime",
            ]) || (own && any(&["message"]))
        }
        "APIService" => any(&[
            // the metrics chain: which Service serves it (names, as metadata names)
            "spec service name",
            "spec service namespace",
            "status conditions type",
            "status conditions status",
            "status conditions reason",
            "status conditions lastTransitionTime",
        ]),
        _ => false,
    }
}

/// Replace every string of `v` that the replay does not read by a unique marker.
fn plant(
    v: &mut Value,
    kind: &str,
    object: &Value,
    path: &mut Vec<String>,
    markers: &mut Vec<String>,
) {
    match v {
        Value::String(s) if !read_by_replay(kind, path, object) => {
            *s = format!("MARK{:04}X", markers.len());
            markers.push(s.clone());
        }
        Value::Object(m) => {
            for (k, c) in m.iter_mut() {
                path.push(k.clone());
                plant(c, kind, object, path, markers);
                path.pop();
            }
        }
        Value::Array(a) => a
            .iter_mut()
            .for_each(|c| plant(c, kind, object, path, markers)),
        _ => {}
    }
}

#[test]
fn redact_leaves_no_planted_marker_and_the_same_decision() {
    let dir = tmpdir("markers");
    let mut markers = Vec::new();
    let mut objects = realistic_namespace();
    for o in objects.iter_mut() {
        let kind = o["kind"].as_str().unwrap_or_default().to_string();
        let whole = o.clone();
        plant(o, &kind, &whole, &mut vec![], &mut markers);
    }
    let mut doc = list(&objects);
    doc["metadata"] = json!({"annotations": {"kubectl-hpa.dev/taken-at": "2026-03-01T12:00:00Z",
        "kubectl-hpa.dev/source": "https://10.1.1.1:6443"}});
    plant(
        &mut doc["metadata"],
        "List",
        &Value::Null,
        &mut vec!["metadata".into()],
        &mut markers,
    );
    assert!(markers.len() > 250, "{} markers", markers.len());
    let marked = write(&dir, "marked.yaml", &yaml(&doc));
    let text = ok(
        &run(
            &["snapshot", "--redact", "--snapshot", &path_str(&marked)],
            None,
        ),
        "snapshot --redact --snapshot",
    );
    let left: Vec<&String> = markers
        .iter()
        .filter(|m| text.contains(m.as_str()))
        .collect();
    assert!(
        left.is_empty(),
        "{} of {} markers survive: {left:?}\n{text}",
        left.len(),
        markers.len()
    );
    for leak in ["10.", "corp.internal", "node-7"] {
        assert!(!text.contains(leak), "{leak} survives:\n{text}");
    }
    let redacted = write(&dir, "redacted.yaml", &text);
    let before = explain_json("orders", &[&marked]);
    let after = explain_json("orders", &[&redacted]);
    assert_eq!(before["desiredReplicas"], 6, "{before}");
    assert_eq!(decision(&after), decision(&before));
    // As JSON, and from standard input.
    let mut child = cmd(
        &["snapshot", "--redact", "--snapshot", "-", "-o", "json"],
        None,
    )
    .stdin(Stdio::piped())
    .stdout(Stdio::piped())
    .stderr(Stdio::piped())
    .spawn()
    .expect("spawn");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(yaml(&doc).as_bytes())
        .expect("write");
    let out = child.wait_with_output().expect("wait");
    let json_text = ok(&out, "snapshot --redact --snapshot - -o json");
    let back: Value = serde_json::from_str(&json_text).expect("one JSON document");
    assert_eq!(back["kind"], "List");
    assert!(markers.iter().all(|m| !json_text.contains(m.as_str())));
    // From the cluster: the same objects served by the fake API server.
    let server = FakeApiServer::start(objects);
    let kc = server.write_kubeconfig(&tmpdir("markers-live"));
    let live = ok(
        &run(&["snapshot", "orders", "-n", "shop", "--redact"], Some(&kc)),
        "snapshot --redact",
    );
    let left: Vec<&String> = markers
        .iter()
        .filter(|m| live.contains(m.as_str()))
        .collect();
    assert!(left.is_empty(), "live: {left:?}\n{live}");
    assert!(live.contains("kind: Event"), "{live}");
    let live = write(&dir, "live.yaml", &live);
    assert_eq!(
        decision(&explain_json("orders", &[&live])),
        decision(&before)
    );
}

#[test]
fn redact_refuses_a_file_explain_cannot_read_and_needs_redact() {
    let dir = tmpdir("redact-bad");
    let objects = with_field("Pod", "metadata", json!([{"name": "MARK-SECRET"}]));
    let p = write(&dir, "bad.yaml", &yaml(&list(&objects)));
    let out = run(&["snapshot", "--redact", "--snapshot", &path_str(&p)], None);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(out.stdout.is_empty());
    assert!(stderr(&out).contains("field metadata"), "{}", stderr(&out));
    let out = run(&["snapshot", "--snapshot", &path_str(&p)], None);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
}

// --- merging: one object per identity (issue 27 item 1) --------------------------------------

#[test]
fn the_same_file_twice_counts_each_object_once() {
    let f = example("scale-up-cpu.yaml");
    let twice = explain_json("web", &[&f, &f]);
    assert_eq!(
        decision(&twice),
        baseline(),
        "every pod counted once: 3 -> 5"
    );
    let note = twice["assumptions"].to_string();
    assert!(
        note.contains("read more than once") && note.contains("scale-up-cpu.yaml by"),
        "{note}"
    );
    // Without -n the HPA is found once (not `it holds: shop/web, shop/web`).
    let fp = path_str(&f);
    let out = run(
        &[
            "explain",
            "web",
            "--snapshot",
            &fp,
            "--snapshot",
            &fp,
            "--now",
            NOW,
        ],
        None,
    );
    let text = ok(&out, "explain web twice");
    assert!(text.contains("SCALE UP 3 → 5"), "{text}");
    // The fleet: one row, and the note.
    let fleet = run(
        &[
            "explain",
            "-A",
            "--snapshot",
            &fp,
            "--snapshot",
            &fp,
            "--now",
            NOW,
            "-o",
            "json",
        ],
        None,
    );
    let v = ok_json(&fleet, "fleet twice");
    assert_eq!(v["items"].as_array().map(Vec::len), Some(1), "{v}");
    assert_eq!(v["items"][0]["desiredReplicas"], 5);
    assert!(
        v["notes"].to_string().contains("read more than once"),
        "{}",
        v["notes"]
    );
}

#[test]
fn a_later_document_replaces_an_earlier_one_and_different_hpas_stay_apart() {
    let dir = tmpdir("replace");
    let all = items("scale-up-cpu.yaml");
    // A later copy of the Deployment at 4 replicas replaces the one at 3.
    let mut dep = all
        .iter()
        .find(|o| o["kind"] == "Deployment")
        .expect("deployment")
        .clone();
    dep["spec"]["replicas"] = json!(4);
    dep["status"]["replicas"] = json!(4);
    let base = write(&dir, "base.json", &list(&all).to_string());
    let later = write(&dir, "later.yaml", &yaml(&dep));
    let v = explain_json("web", &[&base, &later]);
    assert_eq!(v["currentReplicas"], 4, "{}", v["verdict"]);
    let notes = v["assumptions"].to_string();
    assert!(
        notes.contains("1 object(s) were read more than once"),
        "{notes}"
    );
    assert!(
        notes.contains("base.json by") && notes.contains("later.yaml"),
        "{notes}"
    );
    // An HPA of the same name in another namespace, and one of another name: three HPAs.
    let mut other_ns = all
        .iter()
        .find(|o| o["kind"] == "HorizontalPodAutoscaler")
        .expect("hpa")
        .clone();
    let mut other_name = other_ns.clone();
    other_ns["metadata"]["namespace"] = json!("shop-2");
    other_name["metadata"]["name"] = json!("web-2");
    let more = write(
        &dir,
        "more.json",
        &list(&[other_ns, other_name]).to_string(),
    );
    let out = run(
        &[
            "explain",
            "-A",
            "--snapshot",
            &path_str(&base),
            "--snapshot",
            &path_str(&more),
            "--now",
            NOW,
            "-o",
            "json",
        ],
        None,
    );
    let v = ok_json(&out, "three hpas");
    let names: Vec<String> = v["items"]
        .as_array()
        .expect("items")
        .iter()
        .map(|i| {
            format!(
                "{}/{}",
                i["namespace"].as_str().unwrap(),
                i["name"].as_str().unwrap()
            )
        })
        .collect();
    assert_eq!(names, ["shop/web", "shop/web-2", "shop-2/web"]);
    assert!(
        v["notes"].as_array().is_none_or(Vec::is_empty),
        "{}",
        v["notes"]
    );
}

// --- what a file lacks (issue 27 item 2) -------------------------------------------------------

#[test]
fn a_tool_written_snapshot_records_a_missing_target_as_the_server_s_answer() {
    let dir = tmpdir("lacks");
    let hpa: Vec<Value> = items("scale-up-cpu.yaml")
        .into_iter()
        .filter(|o| o["kind"] == "HorizontalPodAutoscaler")
        .collect();
    // Pasted `kubectl get hpa web -o yaml`: UNKNOWN, naming what the file lacks.
    let pasted = write(&dir, "pasted.yaml", &yaml(&hpa[0]));
    let v = explain_json("web", &[&pasted]);
    assert_eq!(v["verdict"]["action"], "Unknown", "{}", v["verdict"]);
    assert_eq!(v["verdict"]["decidedBy"], "NotInSnapshot");
    assert!(
        v["lastSync"]["written"]["conditions"].is_array(),
        "{}",
        v["lastSync"]
    );
    // Written by `kubectl hpa snapshot` (taken-at): the controller's FailedGetScale, keeping
    // the status's desiredReplicas.
    let mut l = list(&hpa);
    l["metadata"] = json!({"annotations": {"kubectl-hpa.dev/taken-at": NOW}});
    let taken = write(&dir, "taken.json", &l.to_string());
    let v = explain_json("web", &[&taken]);
    assert_eq!(
        v["verdict"]["decidedBy"], "FailedGetScale",
        "{}",
        v["verdict"]
    );
    assert_eq!(v["desiredReplicas"], hpa[0]["status"]["desiredReplicas"]);
}

#[test]
fn a_fleet_replay_of_a_one_hpa_snapshot_lists_only_what_the_file_can_answer() {
    let (server, kc) = leaky_cluster("one-hpa");
    let text = ok(
        &run(&["snapshot", "web", "-n", "shop"], Some(&kc)),
        "snapshot",
    );
    let p = path_str(&write(&tmpdir("one-hpa-file"), "web.yaml", &text));
    // The file holds both HPAs of the namespace (the controller's ambiguity check reads them)
    // but only web's target, metrics and events: api is not something it can answer.
    let replay = |extra: &[&str]| {
        let mut args = vec!["explain", "-n", "shop", "--snapshot", &p];
        args.extend(["--now", NOW]);
        args.extend(extra);
        run(&args, None)
    };
    let v = ok_json(&replay(&["-o", "json"]), "replay");
    let names: Vec<&Value> = v["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| &i["name"])
        .collect();
    assert_eq!(names, [&json!("web")], "{}", v["items"]);
    let notes: Vec<&str> = v["notes"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .filter(|n| n.contains("shop/api"))
        .collect();
    assert_eq!(notes.len(), 1, "{}", v["notes"]);
    assert!(notes[0].contains("taken for shop/web"), "{}", notes[0]);
    let table = ok(&replay(&[]), "replay text");
    assert!(!table.contains("CANNOT SCALE"), "{table}");
    assert_eq!(
        table.lines().filter(|l| l.contains("shop/api")).count(),
        1,
        "{table}"
    );
    // The HPA itself by name still explains as before.
    let one = ok_json(
        &run(
            &[
                "explain",
                "web",
                "-n",
                "shop",
                "--snapshot",
                &p,
                "--now",
                NOW,
                "-o",
                "json",
            ],
            None,
        ),
        "explain web",
    );
    assert_eq!(one["verdict"]["action"], "ScaleUp", "{}", one["verdict"]);
    assert!(server.writes().is_empty());
}
