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
    serde_yaml::to_string(v).expect("yaml")
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
    let v1: Value =
        serde_yaml::from_str(&std::fs::read_to_string(fixture("web-autoscaling-v1.yaml")).unwrap())
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
    assert!(err.contains("nesting deeper than 128"), "{err}");
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
