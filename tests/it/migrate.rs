//! `kubectl hpa migrate`: manifest edits against golden files, and the real binary against the
//! fake API server (exact requests, preconditions, conflicts, 403, verification).
//!
//! Regenerate the golden files with `UPDATE_GOLDEN=1 cargo test --test it migrate::` and review the
//! diff.

use crate::support::fake_apiserver;

use std::path::PathBuf;
use std::process::Output;

use fake_apiserver::{FakeApiServer, Fault, Options, PathMatch, RecordedRequest, WriteMode};
use kubectl_hpa::{EditAction, Manifest, ObjectRef};
use serde_json::{json, Value};

mod corpus;
mod safety;

const LA: &str = "kubectl.kubernetes.io/last-applied-configuration";
const DEPLOY: &str = "/apis/apps/v1/namespaces/shop/deployments/web";

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn data(p: &str) -> PathBuf {
    root().join("tests/migrate_data").join(p)
}

/// Compare with a golden file (or write it with UPDATE_GOLDEN=1).
fn golden(name: &str, actual: &str) {
    crate::support::golden::assert_golden(&data("expected").join(name), actual);
}

fn web() -> Vec<ObjectRef> {
    vec![ObjectRef {
        group: "apps".into(),
        kind: "Deployment".into(),
        namespace: "shop".into(),
        name: "web".into(),
    }]
}

// ------------------------------------------------------------------ manifest edits

fn edit_golden(file: &str) -> kubectl_hpa::FileEdit {
    let text = std::fs::read_to_string(data("manifests").join(file)).unwrap();
    let m = Manifest::parse(file, &text).unwrap_or_else(|e| panic!("{e}"));
    let e = m.plan(&web());
    let new = e.new_text.clone().unwrap_or_else(|| text.clone());
    golden(file, &new);
    golden(&format!("{file}.diff"), &e.diff);
    // byte-for-byte: the result is the input minus whole removed spans
    assert!(new.len() <= text.len());
    e
}

fn removed_lines(e: &kubectl_hpa::FileEdit) -> Vec<(usize, usize)> {
    e.occurrences
        .iter()
        .filter_map(|o| match o.action {
            EditAction::Remove {
                first_line,
                last_line,
                ..
            } => Some((first_line, last_line)),
            _ => None,
        })
        .collect()
}

#[test]
fn golden_comments_are_kept() {
    let e = edit_golden("comments.yaml");
    assert_eq!(removed_lines(&e), [(11, 11)]);
    let new = e.new_text.unwrap();
    assert!(new.contains("  # Static size: to be replaced by the HPA.\n\n  selector:"));
    assert!(
        new.contains("        - name: replicas\n          value: \"3\""),
        "env var kept"
    );
}

#[test]
fn golden_several_documents() {
    let e = edit_golden("multi-doc.yaml");
    assert_eq!(
        e.occurrences.len(),
        1,
        "staging/web and worker are not targets"
    );
    let new = e.new_text.unwrap();
    assert!(new.contains("name: worker\n  namespace: shop\nspec:\n  replicas: 2"));
    assert!(new.contains("howto: |\n    spec:\n      replicas: 3"));
    assert!(new.contains("namespace: staging\nspec:\n  replicas: 3"));
}

#[test]
fn golden_crlf() {
    let e = edit_golden("crlf.yaml");
    let new = e.new_text.unwrap();
    assert!(!new.contains("replicas"));
    assert_eq!(
        new.matches("\r\n").count(),
        new.matches('\n').count(),
        "every line keeps CRLF"
    );
}

#[test]
fn golden_anchors() {
    let e = edit_golden("anchors.yaml");
    assert_eq!(removed_lines(&e), [(10, 10)]);
    assert!(e.new_text.unwrap().contains("matchLabels: *labels"));
}

#[test]
fn anchor_used_elsewhere_is_refused_and_unchanged() {
    let e = edit_golden("anchor-in-use.yaml");
    assert!(e.new_text.is_none() && e.diff.is_empty());
    match &e.occurrences[0].action {
        EditAction::Refused { reason } => assert!(reason.contains("*size"), "{reason}"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn golden_lists_and_json() {
    let e = edit_golden("list.yaml");
    assert_eq!(e.occurrences[0].item, Some(1));
    let e = edit_golden("list.json");
    assert_eq!(
        e.occurrences.len(),
        1,
        "the StatefulSet named web is another kind"
    );
    let e = edit_golden("deployment.json");
    assert!(e.occurrences[0].namespace_assumed);
    assert!(e
        .new_text
        .unwrap()
        .contains("\"matchLabels\": {\"app\": \"web\"}\n    }\n  }\n}"));
}

#[test]
fn replicas_elsewhere_stays_untouched() {
    let e = edit_golden("elsewhere.yaml");
    assert_eq!(e.occurrences.len(), 1);
    assert_eq!(e.occurrences[0].action, EditAction::NoReplicas);
    assert!(e.new_text.is_none() && e.diff.is_empty());
}

#[test]
fn templated_and_broken_files_name_the_line() {
    let t = std::fs::read_to_string(data("manifests/templated.yaml")).unwrap();
    let e = Manifest::parse("templated.yaml", &t).unwrap_err();
    assert_eq!((e.file.as_str(), e.line), ("templated.yaml", Some(6)));
    assert!(e.message.contains("template"));
    let t = std::fs::read_to_string(data("manifests/broken.yaml")).unwrap();
    let e = Manifest::parse("broken.yaml", &t).unwrap_err();
    assert_eq!(e.file, "broken.yaml");
    assert!(e.line.is_some_and(|l| l >= 7), "{e}");
    assert!(e.message.starts_with("not valid YAML"), "{e}");
}

// ------------------------------------------------------------------ the fake cluster

fn hpa(name: &str, target_kind: &str, target: &str) -> Value {
    json!({
        "apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",
        "metadata": {"name": name, "namespace": "shop", "resourceVersion": "90"},
        "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": target_kind, "name": target},
                 "minReplicas": 2, "maxReplicas": 10,
                 "metrics": [{"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 60}}}]},
        "status": {"currentReplicas": 5, "desiredReplicas": 5, "conditions": [
            {"type": "AbleToScale", "status": "True", "reason": "ReadyForNewScale", "message": "recommended size matches current size"},
            {"type": "ScalingActive", "status": "True", "reason": "ValidMetricFound", "message": "the HPA was able to successfully calculate a replica count from cpu resource utilization (percentage of request)"}]}
    })
}

fn last_applied(replicas: Option<i64>) -> String {
    let mut spec = json!({"selector": {"matchLabels": {"app": "web"}}, "template": {"metadata": {"labels": {"app": "web"}}, "spec": {"containers": [{"image": "nginx:1.27", "name": "web"}]}}});
    if let Some(r) = replicas {
        spec["replicas"] = json!(r);
    }
    let la = json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"annotations": {}, "name": "web", "namespace": "shop"}, "spec": spec});
    format!("{la}\n")
}

fn entry(manager: &str, op: &str, sub: Option<&str>, fields: Value) -> Value {
    let mut e = json!({"manager": manager, "operation": op, "apiVersion": "apps/v1", "time": "2026-02-01T10:00:00Z", "fieldsType": "FieldsV1", "fieldsV1": fields});
    if let Some(s) = sub {
        e["subresource"] = json!(s);
    }
    e
}

fn csa_fields(replicas: bool) -> Value {
    let mut f = json!({
        "f:metadata": {"f:annotations": {".": {}, "f:kubectl.kubernetes.io/last-applied-configuration": {}}},
        "f:spec": {"f:selector": {}, "f:template": {"f:metadata": {"f:labels": {".": {}, "f:app": {}}}, "f:spec": {"f:containers": {}}}}
    });
    if replicas {
        f["f:spec"]["f:replicas"] = json!({});
    }
    f
}

/// Deployment shop/web at `replicas` with the given annotation and managedFields.
fn deployment(replicas: i64, annotation: Option<String>, managed: Vec<Value>) -> Value {
    let mut d = json!({
        "apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": "web", "namespace": "shop", "resourceVersion": "100", "generation": 4,
                     "uid": "0b7d5f3e-0000-4000-8000-000000000001", "labels": {"app": "web"},
                     "annotations": {"deployment.kubernetes.io/revision": "3"},
                     "managedFields": managed},
        "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": "web"}},
                 "template": {"metadata": {"labels": {"app": "web"}}, "spec": {"containers": [{"image": "nginx:1.27", "name": "web"}]}}},
        "status": {"replicas": replicas, "readyReplicas": replicas}
    });
    if let Some(a) = annotation {
        d["metadata"]["annotations"][LA] = json!(a);
    }
    d
}

/// The main story: applied client-side with replicas 3, scaled by hand (`kubectl edit`) to 5.
fn csa_cluster() -> Vec<Value> {
    vec![
        hpa("web", "Deployment", "web"),
        deployment(
            5,
            Some(last_applied(Some(3))),
            vec![
                entry(
                    "kubectl-client-side-apply",
                    "Update",
                    None,
                    csa_fields(false),
                ),
                entry(
                    "kubectl-edit",
                    "Update",
                    None,
                    json!({"f:spec": {"f:replicas": {}}}),
                ),
                entry(
                    "kube-controller-manager",
                    "Update",
                    Some("status"),
                    json!({"f:status": {"f:replicas": {}, "f:readyReplicas": {}}}),
                ),
            ],
        ),
    ]
}

struct Cluster {
    server: FakeApiServer,
    dir: PathBuf,
    kubeconfig: PathBuf,
}

fn cluster(tag: &str, objects: Vec<Value>) -> Cluster {
    let dir =
        std::env::temp_dir().join(format!("kubectl-hpa-migrate-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let server = FakeApiServer::start_with(
        objects,
        Options {
            write_mode: WriteMode::AcceptPatches,
            ..Options::default()
        },
    );
    let kubeconfig = server.write_kubeconfig(&dir);
    Cluster {
        server,
        dir,
        kubeconfig,
    }
}

impl Cluster {
    /// Copy a manifest into the test directory (run from there, so paths are relative).
    fn manifest(&self, src: &str, as_name: &str) {
        std::fs::copy(data(src), self.dir.join(as_name)).unwrap();
    }
    fn run(&self, args: &[&str]) -> Output {
        crate::support::binary::bare()
            .arg("migrate")
            .args(args)
            .arg("--kubeconfig")
            .arg(&self.kubeconfig)
            .current_dir(&self.dir)
            .env("NO_COLOR", "1")
            .env_remove("KUBECONFIG")
            .env("HOME", &self.dir)
            .output()
            .expect("binary runs")
    }
    fn object(&self) -> Value {
        self.server
            .objects()
            .into_iter()
            .find(|o| o["kind"] == "Deployment" && o["metadata"]["name"] == "web")
            .expect("deployment")
    }
    fn patches(&self) -> Vec<RecordedRequest> {
        self.server.writes()
    }
    fn read(&self, f: &str) -> String {
        std::fs::read_to_string(self.dir.join(f)).unwrap()
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}
fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn json_out(o: &Output) -> Value {
    serde_json::from_slice(&o.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}\n{}", stdout(o), stderr(o)))
}

fn ids(w: &Value) -> Vec<String> {
    w["analysis"]["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["id"].as_str().unwrap().to_string())
        .collect()
}

fn owners_of_replicas(obj: &Value) -> Vec<String> {
    obj["metadata"]["managedFields"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|e| e["fieldsV1"]["f:spec"].get("f:replicas").is_some())
        .map(|e| {
            format!(
                "{}/{}{}",
                e["manager"].as_str().unwrap(),
                e["operation"].as_str().unwrap(),
                e["subresource"]
                    .as_str()
                    .map(|s| format!("/{s}"))
                    .unwrap_or_default()
            )
        })
        .collect()
}

/// Every replicas value any request body carries.
fn replicas_in_bodies(reqs: &[RecordedRequest]) -> Vec<i64> {
    reqs.iter()
        .filter_map(|r| serde_json::from_str::<Value>(&r.body).ok())
        .filter_map(|b| b.pointer("/spec/replicas").and_then(Value::as_i64))
        .collect()
}

const EXPECTED_ANNOTATION_BODY: &str = r#"{"metadata":{"annotations":{"kubectl.kubernetes.io/last-applied-configuration":"{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\",\"metadata\":{\"annotations\":{},\"name\":\"web\",\"namespace\":\"shop\"},\"spec\":{\"selector\":{\"matchLabels\":{\"app\":\"web\"}},\"template\":{\"metadata\":{\"labels\":{\"app\":\"web\"}},\"spec\":{\"containers\":[{\"image\":\"nginx:1.27\",\"name\":\"web\"}]}}}}\n"},"resourceVersion":"100"}}"#;

fn handover_body(rv: &str, replicas: i64) -> String {
    format!(
        r#"{{"apiVersion":"apps/v1","kind":"Deployment","metadata":{{"name":"web","namespace":"shop","resourceVersion":"{rv}"}},"spec":{{"replicas":{replicas}}}}}"#
    )
}

#[test]
fn dry_run_prints_the_plan_and_sends_only_gets() {
    let c = cluster("dry", csa_cluster());
    c.manifest("manifests/comments.yaml", "web.yaml");
    let out = c.run(&["web", "-n", "shop", "-f", "web.yaml"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out).replace(&c.server.url(), "<server>");
    golden("dry-run.txt", &text);
    assert!(
        text.starts_with("Cluster: context \"fake\" (<server>): dry run, GET requests only; --apply would write 2 PATCH requests on Deployment shop/web\nFiles: none is written (--write would edit web.yaml)\n"),
        "the header says what the run does: {text}"
    );
    assert!(
        !text.contains(r#"\"selector\""#),
        "the last-applied JSON is collapsed in text"
    );
    assert!(c.patches().is_empty(), "a dry run writes nothing");
    assert!(c.server.requests().iter().all(|r| r.method == "GET"));
    assert_eq!(
        c.read("web.yaml"),
        std::fs::read_to_string(data("manifests/comments.yaml")).unwrap(),
        "no file written without --write"
    );

    let out = c.run(&["web", "-n", "shop", "-f", "web.yaml", "-o", "json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let j = json_out(&out);
    assert_eq!(
        (j["kind"].as_str(), j["mode"].as_str()),
        (Some("MigrationPlan"), Some("dryRun"))
    );
    let w = &j["workloads"][0];
    let found = ids(w);
    for id in [
        "csa-annotation-has-replicas",
        "update-manager-owns-replicas",
        "manifest-sets-replicas",
        "manifest-edit",
    ] {
        assert!(found.iter().any(|f| f == id), "{id} missing from {found:?}");
    }
    let reqs = w["analysis"]["requests"].as_array().unwrap();
    assert_eq!(reqs.len(), 2);
    assert_eq!(reqs[0]["method"], "PATCH");
    assert_eq!(reqs[0]["path"], DEPLOY);
    assert_eq!(
        reqs[0]["query"],
        json!([["fieldManager", "kubectl-client-side-apply"]])
    );
    assert_eq!(reqs[0]["contentType"], "application/merge-patch+json");
    assert_eq!(reqs[0]["body"], EXPECTED_ANNOTATION_BODY);
    assert_eq!(
        reqs[1]["query"],
        json!([["fieldManager", "handover-to-hpa"]])
    );
    assert_eq!(reqs[1]["contentType"], "application/apply-patch+yaml");
    assert_eq!(reqs[1]["resourceVersionFromPreviousStep"], true);
    let next: Vec<(String, String)> = w["analysis"]["nextApply"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["manifest"].as_str().unwrap().into(),
                p["effect"].as_str().unwrap().into(),
            )
        })
        .collect();
    assert_eq!(
        next,
        [
            ("asIs".to_string(), "resetTo".to_string()),
            ("withoutReplicas".into(), "delete".into()),
            ("afterMigration".into(), "nothing".into())
        ]
    );
    let f = &j["files"][0];
    assert_eq!(f["file"], "web.yaml");
    assert_eq!(f["written"], false);
    assert!(f["diff"]
        .as_str()
        .unwrap()
        .contains("-  replicas: 3 # three pods for now\n"));
}

#[test]
fn apply_sends_exactly_the_planned_requests_and_keeps_the_count() {
    let c = cluster("apply", csa_cluster());
    c.manifest("manifests/comments.yaml", "web.yaml");
    let before = c.object();
    let out = c.run(&["web", "-n", "shop", "-f", "web.yaml", "--apply", "--write"]);
    assert!(out.status.success(), "{}\n{}", stderr(&out), stdout(&out));
    let w = c.patches();
    assert_eq!(w.len(), 2, "{w:#?}");
    assert_eq!(
        (w[0].method.as_str(), w[0].path.as_str()),
        ("PATCH", DEPLOY)
    );
    assert_eq!(
        w[0].query,
        [(
            "fieldManager".to_string(),
            "kubectl-client-side-apply".to_string()
        )]
    );
    assert_eq!(
        w[0].header("content-type"),
        Some("application/merge-patch+json")
    );
    assert_eq!(w[0].body, EXPECTED_ANNOTATION_BODY);
    assert_eq!(
        w[1].query,
        [("fieldManager".to_string(), "handover-to-hpa".to_string())]
    );
    assert_eq!(
        w[1].header("content-type"),
        Some("application/apply-patch+yaml")
    );
    // the resourceVersion returned by the first PATCH
    let rv1 = w[1]
        .body
        .split("\"resourceVersion\":\"")
        .nth(1)
        .unwrap()
        .split('"')
        .next()
        .unwrap()
        .to_string();
    assert_ne!(rv1, "100");
    assert_eq!(w[1].body, handover_body(&rv1, 5));
    assert!(
        w.iter().all(|r| r.query_param("force").is_none()),
        "never forced"
    );
    assert_eq!(
        replicas_in_bodies(&w),
        [5],
        "only the value read is ever written"
    );

    let after = c.object();
    assert_eq!(
        after["spec"], before["spec"],
        "spec (replicas, template) unchanged"
    );
    let la = after["metadata"]["annotations"][LA].as_str().unwrap();
    assert_eq!(la, last_applied(None));
    assert_eq!(
        after["metadata"]["annotations"]["deployment.kubernetes.io/revision"],
        "3"
    );
    assert_eq!(
        owners_of_replicas(&after),
        ["kubectl-edit/Update", "handover-to-hpa/Apply"]
    );

    let text = stdout(&out);
    for v in [
        "[ok] replicas-unchanged: spec.replicas is 5 as read before the requests",
        "[ok] pod-template-unchanged",
        "[ok] annotation-without-replicas",
        "[ok] no-applier-sole-owner: spec.replicas is owned by kubectl-edit (Update), handover-to-hpa (Apply)",
        "web.yaml: written",
    ] {
        assert!(text.contains(v), "missing {v:?} in\n{text}");
    }
    assert_eq!(
        c.read("web.yaml"),
        std::fs::read_to_string(data("expected/comments.yaml")).unwrap()
    );

    // a second run finds nothing to do and sends nothing
    let out = c.run(&[
        "web", "-n", "shop", "-f", "web.yaml", "--apply", "-o", "json",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(c.patches().len(), 2);
    let j = json_out(&out);
    assert!(
        ids(&j["workloads"][0]).contains(&"already-safe".to_string()),
        "{j:#}"
    );
}

#[test]
fn a_concurrent_scale_before_the_first_patch_is_retried_from_a_fresh_read() {
    let c = cluster("conflict1", csa_cluster());
    // the HPA scales 5 -> 6 just before our first PATCH: its precondition fails
    c.server.inject_times(
        PathMatch::method("PATCH", PathMatch::exact(DEPLOY)),
        Fault::ConcurrentWrite {
            patch: json!({"spec": {"replicas": 6}}),
            manager: "kube-controller-manager".into(),
            subresource: Some("scale".into()),
        },
        1,
    );
    let out = c.run(&["web", "-n", "shop", "--apply", "-o", "json"]);
    assert!(out.status.success(), "{}\n{}", stderr(&out), stdout(&out));
    let w = c.patches();
    let j = json_out(&out);
    let sent = j["workloads"][0]["apply"]["sent"].as_array().unwrap();
    let codes: Vec<u64> = sent.iter().map(|s| s["status"].as_u64().unwrap()).collect();
    assert_eq!(codes, [409, 200], "{j:#}");
    assert_eq!(w.len(), 2);
    // the retry carries the new resourceVersion; the HPA now owns replicas: no hand-over
    assert!(
        w[1].body.contains("\"resourceVersion\":\"")
            && !w[1].body.contains("\"resourceVersion\":\"100\"")
    );
    assert!(w
        .iter()
        .all(|r| r.query_param("fieldManager") == Some("kubectl-client-side-apply")));
    assert!(replicas_in_bodies(&w).is_empty());
    let after = c.object();
    assert_eq!(after["spec"]["replicas"], 6, "the HPA's value, not ours");
    assert_eq!(
        owners_of_replicas(&after),
        ["kube-controller-manager/Update/scale"]
    );
    assert_eq!(
        after["metadata"]["annotations"][LA].as_str().unwrap(),
        last_applied(None)
    );
    let checks = &j["workloads"][0]["apply"]["verified"];
    assert!(
        checks.as_array().unwrap().iter().all(|c| c["ok"] == true),
        "{checks:#}"
    );
    assert!(checks[0]["detail"]
        .as_str()
        .unwrap()
        .contains("spec.replicas is 6 as read"));
}

#[test]
fn a_conflict_between_the_two_steps_leaves_the_object_consistent() {
    let c = cluster("conflict2", csa_cluster());
    // someone labels the Deployment between our two PATCH requests
    c.server.inject_after(
        PathMatch::method("PATCH", PathMatch::exact(DEPLOY)),
        Fault::ConcurrentWrite {
            patch: json!({"metadata": {"labels": {"team": "shop"}}}),
            manager: "kubectl-label".into(),
            subresource: None,
        },
        1,
        1,
    );
    let out = c.run(&["web", "-n", "shop", "--apply", "-o", "json"]);
    assert!(out.status.success(), "{}\n{}", stderr(&out), stdout(&out));
    let j = json_out(&out);
    let sent = j["workloads"][0]["apply"]["sent"].as_array().unwrap();
    let steps: Vec<(String, u64)> = sent
        .iter()
        .map(|s| {
            (
                s["step"].as_str().unwrap().into(),
                s["status"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        steps,
        [
            ("remove-replicas-from-last-applied".to_string(), 200),
            ("handover-replicas".into(), 409),
            ("handover-replicas".into(), 200)
        ]
    );
    let w = c.patches();
    assert_eq!(replicas_in_bodies(&w), [5, 5]);
    let after = c.object();
    assert_eq!(after["spec"]["replicas"], 5);
    assert_eq!(
        after["metadata"]["labels"]["team"], "shop",
        "the other client's change is kept"
    );
    assert_eq!(
        owners_of_replicas(&after),
        ["kubectl-edit/Update", "handover-to-hpa/Apply"]
    );
    assert_eq!(
        after["metadata"]["annotations"][LA].as_str().unwrap(),
        last_applied(None)
    );
}

#[test]
fn forbidden_is_reported_and_nothing_else_is_sent() {
    let c = cluster("forbidden", csa_cluster());
    c.manifest("manifests/comments.yaml", "web.yaml");
    c.server.inject(
        PathMatch::method("PATCH", PathMatch::prefix("/apis/apps/")),
        Fault::Status(403),
    );
    let before = c.object();
    let out = c.run(&["web", "-n", "shop", "-f", "web.yaml", "--apply", "--write"]);
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    let err = stderr(&out);
    assert!(
        err.contains("patch deployments.apps \"web\" in namespace \"shop\": 403 Forbidden"),
        "{err}"
    );
    assert!(
        err.contains("cannot patch resource \"deployments\""),
        "{err}"
    );
    assert!(err.contains("nothing else sent"), "{err}");
    assert!(err.contains("--write: nothing written"), "{err}");
    assert_eq!(c.patches().len(), 1, "one PATCH, then stop");
    assert_eq!(c.object(), before);
    assert_eq!(
        c.read("web.yaml"),
        std::fs::read_to_string(data("manifests/comments.yaml")).unwrap()
    );
    // after the PATCH only the GET of the next... nothing: the 403 is the last request
    assert_eq!(c.server.requests().last().unwrap().method, "PATCH");
}

#[test]
fn server_side_sole_owner_gets_only_the_handover() {
    let c = cluster(
        "ssa",
        vec![
            hpa("web", "Deployment", "web"),
            deployment(
                4,
                None,
                vec![entry(
                    "kubectl",
                    "Apply",
                    None,
                    json!({"f:spec": {"f:replicas": {}, "f:selector": {}, "f:template": {}}}),
                )],
            ),
        ],
    );
    let out = c.run(&["web", "-n", "shop", "-o", "json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let j = json_out(&out);
    let found = ids(&j["workloads"][0]);
    assert!(
        found.contains(&"ssa-sole-owner-would-prune".to_string()),
        "{found:?}"
    );
    let reqs = j["workloads"][0]["analysis"]["requests"]
        .as_array()
        .unwrap();
    assert_eq!(reqs.len(), 1);
    assert_eq!(reqs[0]["body"], handover_body("100", 4));

    let out = c.run(&["web", "-n", "shop", "--apply"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let w = c.patches();
    assert_eq!(w.len(), 1);
    assert_eq!(w[0].body, handover_body("100", 4));
    let after = c.object();
    assert_eq!(after["spec"]["replicas"], 4);
    assert_eq!(
        owners_of_replicas(&after),
        ["kubectl/Apply", "handover-to-hpa/Apply"]
    );
    // now the applier can drop replicas: a server-side apply without it keeps the value
    assert!(stdout(&out).contains("[ok] no-applier-sole-owner"));
}

#[test]
fn hpa_owned_replicas_need_nothing() {
    let c = cluster(
        "safe",
        vec![
            hpa("web", "Deployment", "web"),
            deployment(
                6,
                Some(last_applied(None)),
                vec![
                    entry(
                        "kubectl-client-side-apply",
                        "Update",
                        None,
                        csa_fields(false),
                    ),
                    entry(
                        "kube-controller-manager",
                        "Update",
                        Some("scale"),
                        json!({"f:spec": {"f:replicas": {}}}),
                    ),
                ],
            ),
        ],
    );
    let out = c.run(&["-n", "shop", "--apply", "-o", "json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(c.patches().is_empty());
    let j = json_out(&out);
    let found = ids(&j["workloads"][0]);
    assert!(
        found.contains(&"already-safe".to_string())
            && found.contains(&"hpa-owns-replicas".to_string()),
        "{found:?}"
    );
}

#[test]
fn bad_targets_are_clear_errors_and_nothing_is_written() {
    let c = cluster(
        "bad",
        vec![
            hpa("ghost", "Deployment", "missing"),
            hpa("daemon", "DaemonSet", "agent"),
            json!({"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": "agent", "namespace": "shop"}, "spec": {"selector": {"matchLabels": {"app": "agent"}}}}),
        ],
    );
    let out = c.run(&["-n", "shop", "--apply"]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(
        err.contains("HPA shop/ghost points at Deployment shop/missing, which does not exist"),
        "{err}"
    );
    assert!(
        err.contains("HPA shop/daemon targets DaemonSet shop/agent, which cannot be scaled"),
        "{err}"
    );
    assert!(c.patches().is_empty());
}

#[test]
fn templated_and_unparsable_files_name_file_and_line_and_block_write() {
    let c = cluster("files", csa_cluster());
    c.manifest("manifests/templated.yaml", "chart.yaml");
    c.manifest("manifests/broken.yaml", "broken.yaml");
    c.manifest("manifests/comments.yaml", "web.yaml");
    let out = c.run(&["web", "-n", "shop", "-f", ".", "--apply", "--write"]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    // a file with Helm template actions is read as a template of an unknown chart (issue 30)
    assert!(!err.contains("chart.yaml:6"), "{err}");
    assert!(err.contains("broken.yaml:"), "{err}");
    assert!(err.contains("not valid YAML"), "{err}");
    assert!(
        err.contains("--write: nothing written because of the file errors"),
        "{err}"
    );
    assert_eq!(
        c.read("web.yaml"),
        std::fs::read_to_string(data("manifests/comments.yaml")).unwrap()
    );
}

#[test]
fn write_without_apply_is_refused_while_the_cluster_needs_requests() {
    let c = cluster("write-only", csa_cluster());
    c.manifest("manifests/comments.yaml", "web.yaml");
    let out = c.run(&["web", "-n", "shop", "-f", "web.yaml", "--write"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("the cluster still needs the requests for shop/web"),
        "{}",
        stderr(&out)
    );
    assert!(c.patches().is_empty());
    assert_eq!(
        c.read("web.yaml"),
        std::fs::read_to_string(data("manifests/comments.yaml")).unwrap()
    );
}

#[test]
fn helm_and_argocd_are_detected_with_advice() {
    let mut d = deployment(
        5,
        None,
        vec![entry(
            "helm",
            "Update",
            None,
            json!({"f:spec": {"f:replicas": {}, "f:template": {}}}),
        )],
    );
    d["metadata"]["labels"]["app.kubernetes.io/managed-by"] = json!("Helm");
    d["metadata"]["annotations"]["meta.helm.sh/release-name"] = json!("web");
    d["metadata"]["annotations"]["argocd.argoproj.io/tracking-id"] =
        json!("shop:apps/Deployment:shop/web");
    let c = cluster("tools", vec![hpa("web", "Deployment", "web"), d]);
    let out = c.run(&["web", "-n", "shop", "-o", "json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let j = json_out(&out);
    let a = &j["workloads"][0]["analysis"];
    let found = ids(&j["workloads"][0]);
    for id in [
        "managed-by-helm",
        "managed-by-argocd",
        "helm-release-unreadable",
        "gitops-object-unreadable",
        "csa-manager-owns-replicas",
    ] {
        assert!(found.iter().any(|f| f == id), "{id} missing from {found:?}");
    }
    let tools: Vec<&str> = a["advice"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["tool"].as_str().unwrap())
        .collect();
    assert_eq!(tools, ["helm", "argocd"]);
    assert!(
        !found.iter().any(|f| f == "already-safe"),
        "one consistent prediction: {found:?}"
    );
    assert!(a["advice"][1]["text"]
        .as_str()
        .unwrap()
        .contains("RespectIgnoreDifferences=true"));
}

#[test]
fn name_with_all_namespaces_is_a_usage_error() {
    let c = cluster("usage", csa_cluster());
    let out = c.run(&["web", "-A"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("not both"));
}

/// The fake server's server-side apply: conflicts, force, prune, preconditions.
#[test]
fn fake_server_apply_semantics() {
    use fake_apiserver::raw_http;
    use std::time::Duration;
    let c = cluster(
        "ssa-semantics",
        vec![deployment(
            5,
            None,
            vec![
                entry(
                    "kubectl",
                    "Apply",
                    None,
                    json!({"f:spec": {"f:selector": {}, "f:template": {}}}),
                ),
                entry(
                    "kube-controller-manager",
                    "Update",
                    Some("scale"),
                    json!({"f:spec": {"f:replicas": {}}}),
                ),
            ],
        )],
    );
    let send = |q: &str, body: &str| {
        raw_http::request(
            c.server.addr(),
            "PATCH",
            &format!("{DEPLOY}?{q}"),
            &[("Content-Type", "application/apply-patch+yaml")],
            Some(body.as_bytes()),
            Duration::from_secs(5),
        )
        .unwrap()
    };
    // a different value owned by the HPA: conflict naming the scale subresource
    let r = send(
        "fieldManager=kubectl",
        r#"{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web"},"spec":{"replicas":3}}"#,
    );
    assert_eq!(r.status, 409);
    let j = r.json();
    assert_eq!(j["details"]["causes"][0]["reason"], "FieldManagerConflict");
    assert_eq!(j["details"]["causes"][0]["field"], ".spec.replicas");
    assert!(
        j["message"].as_str().unwrap().contains(
            r#"conflict with "kube-controller-manager" with subresource "scale" using apps/v1"#
        ),
        "{j}"
    );
    assert_eq!(c.object()["spec"]["replicas"], 5);
    // the same value: shared ownership, no conflict
    let r = send(
        "fieldManager=handover-to-hpa",
        r#"{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","resourceVersion":"100"},"spec":{"replicas":5}}"#,
    );
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(
        owners_of_replicas(&c.object()),
        [
            "kube-controller-manager/Update/scale",
            "handover-to-hpa/Apply"
        ]
    );
    // a stale resourceVersion
    let r = send(
        "fieldManager=handover-to-hpa",
        r#"{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","resourceVersion":"100"},"spec":{"replicas":5}}"#,
    );
    assert_eq!(r.status, 409);
    assert!(r.json()["message"]
        .as_str()
        .unwrap()
        .contains("the object has been modified"));
    // the manager stops applying replicas: others own it, so it stays
    let r = send(
        "fieldManager=handover-to-hpa",
        r#"{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web"},"spec":{"minReadySeconds":1}}"#,
    );
    assert_eq!(r.status, 200);
    assert_eq!(c.object()["spec"]["replicas"], 5);
    // force takes the field from everyone
    let r = send(
        "fieldManager=kubectl&force=true",
        r#"{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web"},"spec":{"replicas":3}}"#,
    );
    assert_eq!(r.status, 200);
    assert_eq!(owners_of_replicas(&c.object()), ["kubectl/Apply"]);
    // and a sole owner that stops applying it prunes it
    let r = send(
        "fieldManager=kubectl",
        r#"{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web"},"spec":{"selector":{"matchLabels":{"app":"web"}}}}"#,
    );
    assert_eq!(r.status, 200);
    assert!(
        c.object()["spec"].get("replicas").is_none(),
        "pruned (a real server then defaults it to 1)"
    );
}

// ------------------------------------------------------------------ offline, from repositories

/// A scratch repository and an empty HOME; the binary runs there with no kubeconfig at all.
struct Repo {
    dir: PathBuf,
}

impl Repo {
    fn new(tag: &str) -> Repo {
        let dir = std::env::temp_dir().join(format!(
            "kubectl-hpa-migrate-repo-{tag}-{}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("home")).unwrap();
        Repo { dir }
    }
    fn file(&self, path: &str, text: &str) -> &Repo {
        let p = self.dir.join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
        self
    }
    fn read(&self, path: &str) -> String {
        std::fs::read_to_string(self.dir.join(path)).unwrap()
    }
    fn run_with(&self, args: &[&str], stdin: Option<&str>) -> Output {
        self.run_full(args, stdin, &[])
    }
    fn run_env(&self, args: &[&str], env: &[(&str, &str)]) -> Output {
        self.run_full(args, None, env)
    }
    fn run_full(&self, args: &[&str], stdin: Option<&str>, env: &[(&str, &str)]) -> Output {
        use std::io::Write;
        use std::process::Stdio;
        let mut child = crate::support::binary::bare()
            .arg("migrate")
            .args(args)
            .current_dir(&self.dir)
            .env("NO_COLOR", "1")
            .env_remove("COLUMNS")
            .envs(env.iter().copied())
            // No kubeconfig at all: none named, none in an empty HOME, not in a cluster.
            .env_remove("KUBECONFIG")
            .env("HOME", self.dir.join("home"))
            .env_remove("KUBERNETES_SERVICE_HOST")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("binary runs");
        let mut input = child.stdin.take().unwrap();
        input
            .write_all(stdin.unwrap_or_default().as_bytes())
            .unwrap();
        drop(input);
        child.wait_with_output().unwrap()
    }
    fn run(&self, args: &[&str]) -> Output {
        self.run_with(args, None)
    }
}

impl Drop for Repo {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

const WEB: &str = "\
# The web frontend.
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  labels: {app: web}
spec:
  # static size, until the HPA takes over
  replicas: 3 # three pods
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: web
        image: nginx:1.27
";

const WEB_HPA: &str = "\
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata:
  name: web
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
  minReplicas: 2
  maxReplicas: 10
";

const WORKER: &str = "\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: worker   # not autoscaled: keeps its replicas
spec:
  replicas: 2
  selector:
    matchLabels: {app: worker}
  template:
    metadata:
      labels: {app: worker}
    spec:
      containers:
      - {name: worker, image: busybox}
";

fn ok_text(o: &Output) -> String {
    assert!(o.status.success(), "{}\n{}", stderr(o), stdout(o));
    stdout(o)
}

#[test]
fn offline_plain_manifests_without_any_kubeconfig() {
    let r = Repo::new("plain");
    r.file(
        "k8s/app.yaml",
        &format!("{WEB}---\n# the autoscaler\n{WEB_HPA}---\n{WORKER}"),
    );
    let out = r.run(&["-f", "k8s"]);
    let text = ok_text(&out);
    golden("offline-plain.txt", &text);
    assert!(text.starts_with("Cluster: none — offline (no cluster: no kubeconfig found"));
    assert!(text.contains("Files: none is written (--write would edit k8s/app.yaml)"));
    assert!(text.contains("HPA web (k8s/app.yaml:21) scales Deployment web"));
    for tool in [
        "kubectl apply (client-side)",
        "kubectl apply --server-side",
        "Helm 3 (three-way merge)",
        "Kustomize",
        "Argo CD",
        "Flux",
    ] {
        assert_eq!(
            text.matches(&format!("\n  {tool} ")).count(),
            1,
            "{tool} once per run"
        );
    }
    assert_eq!(
        r.read("k8s/app.yaml"),
        format!("{WEB}---\n# the autoscaler\n{WEB_HPA}---\n{WORKER}")
    );

    let out = r.run(&["-f", "k8s", "--write"]);
    let text = ok_text(&out);
    // the header is wrapped to the terminal's width: read it as one line
    assert!(
        text.replace("\n  ", " ").contains("Files: --write replaced 1 file: k8s/app.yaml (each through a new file beside it, owner, group and mode kept)"),
        "{text}"
    );
    let edited = r.read("k8s/app.yaml");
    assert_eq!(
        edited,
        format!(
            "{}---\n# the autoscaler\n{WEB_HPA}---\n{WORKER}",
            WEB.replace("  replicas: 3 # three pods\n", "")
        ),
        "only web's replicas line goes; comments and the worker stay"
    );
    // idempotent, and quiet: one line saying so and why (the whole report with -o wide)
    let text = ok_text(&r.run(&["-f", "k8s", "--write"]));
    assert_eq!(
        text,
        "Nothing to change: Deployment web (k8s/app.yaml:1) sets no spec.replicas; HPA web at k8s/app.yaml:20\n"
    );
    let text = ok_text(&r.run(&["-f", "k8s", "--write", "-o", "wide"]));
    assert!(text.contains("no file needs an edit"), "{text}");
    assert!(text.contains("The next apply, in general"), "{text}");
}

/// Copy a fixture of tests/migrate_data/charts into the repository, under the same name.
fn copy_fixture(r: &Repo, name: &str) {
    fn walk(dir: &std::path::Path, out: &mut Vec<PathBuf>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(&p, out);
            } else {
                out.push(p);
            }
        }
    }
    let base = data("charts");
    let mut files = Vec::new();
    walk(&base.join(name), &mut files);
    for f in files {
        let rel = f.strip_prefix(&base).unwrap().to_str().unwrap().to_string();
        r.file(&rel, &std::fs::read_to_string(&f).unwrap());
    }
}

/// Issue 30 item 1: templates without Chart.yaml are an unknown chart (values.yaml found
/// above them); `{{ }}` without Helm's functions is another tool's template (no Helm advice);
/// an already guarded line gets no guard advice. The dry run writes nothing.
#[test]
fn templates_without_a_chart_and_templates_of_another_tool() {
    let r = Repo::new("loose");
    for f in ["loose-guarded", "loose-bare", "kube-aws"] {
        copy_fixture(&r, f);
    }
    let before = r.read("loose-bare/templates/deployment.yaml");
    // a vendored templates/ directory, already guarded: one line, no guard advice
    let out = r.run_env(&["-f", "loose-guarded", "-R"], &[("COLUMNS", "120")]);
    assert_eq!(
        ok_text(&out),
        "Nothing to change: loose-guarded/templates/deployment.yaml:7: replicas only without autoscaling (line 6)\n"
    );
    let wide = ok_text(&r.run(&["-f", "loose-guarded/templates", "-o", "wide"]));
    assert!(wide.contains("Templates of an unknown chart loose-guarded/templates (no Chart.yaml; values from loose-guarded/values.yaml):"), "{wide}");
    assert!(wide.contains("[info] helm-chart-guarded"), "{wide}");
    assert!(
        !wide.contains("guard it") && !wide.contains("no HorizontalPodAutoscaler"),
        "{wide}"
    );
    assert!(
        !wide.contains("values.yaml: no document"),
        "values.yaml is not a manifest: {wide}"
    );
    // -o json names where each chart's findings come from
    for (dir, origin) in [("loose-guarded", "unknownChart"), ("kube-aws", "otherTool")] {
        let json: serde_json::Value =
            serde_json::from_str(&ok_text(&r.run(&["-f", dir, "-R", "-o", "json"]))).unwrap();
        assert_eq!(json["charts"][0]["origin"], origin, "{json}");
    }

    // unguarded: [high], the guard in the chart's own HPA condition (hpa.enabled)
    let out = r.run_env(&["-f", "loose-bare", "-R"], &[("COLUMNS", "1000")]);
    let text = ok_text(&out);
    assert!(text.contains("[high] helm-chart-sets-replicas: loose-bare/templates/deployment.yaml:6: `replicas: {{ .Values.replicas }}` (values key replicas, loose-bare/values.yaml:1)"), "{text}");
    assert!(text.contains("      @@ -3,7 +3,9 @@\n       metadata:\n         name: {{ .Release.Name }}-shop\n       spec:\n      +  {{- if not .Values.hpa.enabled }}\n         replicas: {{ .Values.replicas }}\n      +  {{- end }}\n         selector:\n"), "{text}");
    assert!(!text.contains("values.yaml: no document"), "{text}");
    // -o json carries the same diff, typed (charts[].replicas[].fixDiff)
    let json: serde_json::Value =
        serde_json::from_str(&ok_text(&r.run(&["-f", "loose-bare", "-R", "-o", "json"]))).unwrap();
    let fix = &json["charts"][0]["replicas"][0];
    assert_eq!(fix["fixDiff"], "--- loose-bare/templates/deployment.yaml\n+++ loose-bare/templates/deployment.yaml\n@@ -3,7 +3,9 @@\n metadata:\n   name: {{ .Release.Name }}-shop\n spec:\n+  {{- if not .Values.hpa.enabled }}\n   replicas: {{ .Values.replicas }}\n+  {{- end }}\n   selector:\n     matchLabels:\n       app: shop\n", "{json}");
    assert_eq!(
        fix["fix"],
        "  {{- if not .Values.hpa.enabled }}\n  replicas: {{ .Values.replicas }}\n  {{- end }}",
        "{json}"
    );
    assert_eq!(
        r.read("loose-bare/templates/deployment.yaml"),
        before,
        "the dry run writes nothing"
    );

    // kube-aws style: another tool's template, no Helm advice; the worker Deployment, which
    // the HPA (`{{.ClusterName}}-controller`) does not target, keeps its replicas
    let out = r.run_env(&["-f", "kube-aws"], &[("COLUMNS", "1000")]);
    assert_eq!(
        ok_text(&out),
        "Nothing to change: kube-aws/controller.yaml:7: replicas only without autoscaling (line 6)\n"
    );
    let out = r.run_env(&["-f", "kube-aws", "-o", "wide"], &[("COLUMNS", "1000")]);
    let text = ok_text(&out);
    assert!(
        text.contains(
            "Templates of another tool kube-aws ({{ }} without Helm's functions): no Helm advice"
        ),
        "{text}"
    );
    assert!(
        text.contains("[info] template-sets-replicas: kube-aws/controller.yaml:7:"),
        "{text}"
    );
    assert!(
        !text.contains("worker.yaml"),
        "no autoscaler targets the worker: {text}"
    );
    for helm in [
        "helm-chart",
        ".Values",
        "guard it",
        "{{- if",
        "upgrade that stops",
    ] {
        assert!(!text.contains(helm), "no Helm advice ({helm}): {text}");
    }
}

/// Issue 30 item 4: nothing to change is one line; the general "next apply" advice only with
/// `-o wide` or an affected workload; the advice and the risks fit COLUMNS.
#[test]
fn offline_is_quiet_when_nothing_is_wrong_and_fits_the_width() {
    let r = Repo::new("quiet");
    chart_repo(&r, true);
    let out = r.run(&["-f", "chart"]);
    let text = ok_text(&out);
    assert_eq!(
        text,
        "Nothing to change: chart/templates/deployment.yaml:7: replicas only without autoscaling (line 6)\n"
    );
    let wide = ok_text(&r.run(&["-f", "chart", "-o", "wide"]));
    assert!(wide.contains("helm-chart-guarded"), "{wide}");
    assert!(wide.contains("The next apply, in general"), "{wide}");
    assert!(
        !wide.contains("Risks:"),
        "no risk about an edited manifest when none is edited: {wide}"
    );

    // an affected workload: the general advice and the risks, wrapped to COLUMNS
    r.file("k8s/app.yaml", &format!("{WEB}---\n{WEB_HPA}"));
    let out = r.run_env(&["-f", "k8s"], &[("COLUMNS", "80")]);
    let text = ok_text(&out);
    assert!(text.contains("The next apply, in general"), "{text}");
    assert!(text.contains("Risks:"), "{text}");
    let tail = &text[text.find("The next apply").unwrap()..];
    let long: Vec<&str> = tail.lines().filter(|l| l.chars().count() > 80).collect();
    assert!(long.is_empty(), "lines over 80 columns: {long:?}");
}

#[test]
fn offline_stdin_and_recursion_like_kubectl() {
    let r = Repo::new("stdin");
    r.file("deep/a/web.yaml", WEB)
        .file("deep/hpa.yaml", WEB_HPA);
    // without -R the subdirectory is not read: the HPA has no target document
    let text = ok_text(&r.run(&["-f", "deep"]));
    assert!(text.contains("manifest-not-found"), "{text}");
    let text = ok_text(&r.run(&["-f", "deep", "-R"]));
    assert!(text.contains("manifest-edit: deep/a/web.yaml:9"), "{text}");
    // `kubectl kustomize … | kubectl hpa migrate -f -`, the HPA given separately
    let out = r.run_with(&["-f", "-", "--hpa", "deep/hpa.yaml"], Some(WEB));
    let text = ok_text(&out);
    assert!(text.contains("manifest-edit: <stdin>:9"), "{text}");
    assert!(text.contains("-  replicas: 3 # three pods\n"), "{text}");
    let out = r.run_with(&["-f", "-"], Some(WEB));
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("no HorizontalPodAutoscaler in the given manifests"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn offline_refuses_cluster_writes_and_unconfirmed_fleet_applies() {
    let r = Repo::new("nocluster");
    r.file("web.yaml", &format!("{WEB}---\n{WEB_HPA}"));
    let out = r.run(&["-f", "web.yaml", "--apply"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("--apply and --server-dry-run need a cluster"),
        "{}",
        stderr(&out)
    );
    let out = r.run(&["-A", "--apply"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("pass --yes"), "{}", stderr(&out));
}

fn kustomize_repo(r: &Repo) {
    r.file("base/web.yaml", WEB)
        .file("base/hpa.yaml", WEB_HPA)
        .file("base/kustomization.yaml", "resources:\n- web.yaml\n- hpa.yaml\n")
        .file(
            "overlays/prod/kustomization.yaml",
            "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n- ../../base\nreplicas:\n- name: web\n  count: 6\n- name: worker\n  count: 1\n",
        )
        .file(
            "overlays/staging/kustomization.yaml",
            "resources:\n- ../../base\npatches:\n- target: {kind: Deployment, name: web}\n  patch: |-\n    - op: replace\n      path: /spec/replicas\n      value: 1\n- path: replicas.yaml\n",
        )
        .file(
            "overlays/staging/replicas.yaml",
            "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 2\n",
        );
}

#[test]
fn offline_kustomize_base_and_overlays() {
    let r = Repo::new("kustomize");
    kustomize_repo(&r);
    let text = ok_text(&r.run(&["-f", ".", "-R"]));
    golden("offline-kustomize.txt", &text);
    for want in [
        "[high] kustomize-replicas-transformer: overlays/prod/kustomization.yaml:6: the kustomization's `replicas:` sets count 6 for web",
        "[high] kustomize-patch-sets-replicas: overlays/staging/kustomization.yaml:7: a patch sets spec.replicas 1 on web",
        "[high] kustomize-patch-sets-replicas: overlays/staging/replicas.yaml:6: a patch sets spec.replicas 2 on web",
        "[info] manifest-edit: base/web.yaml:9 (document 1): remove spec.replicas (line 9)",
        "overlays/prod/kustomization.yaml:8: the kustomization's `replicas:` sets count 1 for worker",
    ] {
        assert!(text.contains(want), "missing {want:?} in\n{text}");
    }
}

fn chart_repo(r: &Repo, guarded: bool) {
    let replicas = if guarded {
        "  {{- if not .Values.autoscaling.enabled }}\n  replicas: {{ .Values.replicaCount }}\n  {{- end }}\n"
    } else {
        "  replicas: {{ .Values.replicaCount }}\n"
    };
    r.file("chart/Chart.yaml", "apiVersion: v2\nname: web\nversion: 0.1.0\n")
        .file(
            "chart/values.yaml",
            "replicaCount: 2\nimage:\n  repository: nginx\nautoscaling:\n  enabled: false\n  minReplicas: 2\n  maxReplicas: 10\n",
        )
        .file(
            "chart/templates/deployment.yaml",
            &format!("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {{{{ include \"web.fullname\" . }}}}\nspec:\n{replicas}  selector:\n    matchLabels: {{app: web}}\n"),
        )
        .file(
            "chart/templates/hpa.yaml",
            "{{- if .Values.autoscaling.enabled }}\napiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata:\n  name: {{ include \"web.fullname\" . }}\nspec:\n  minReplicas: {{ .Values.autoscaling.minReplicas }}\n{{- end }}\n",
        );
}

#[test]
fn offline_helm_chart_with_and_without_the_guard() {
    let r = Repo::new("chart-guarded");
    chart_repo(&r, true);
    let text = ok_text(&r.run_env(
        &["-f", "chart", "--write", "-o", "wide"],
        &[("COLUMNS", "1000")],
    ));
    golden("offline-chart-guarded.txt", &text);
    assert!(text.contains("[info] helm-chart-guarded: chart/templates/deployment.yaml:7: `replicas: {{ .Values.replicaCount }}` is rendered only without autoscaling (`if not .Values.autoscaling.enabled`, line 6): nothing to change in the chart; enable autoscaling.enabled (chart/values.yaml:5)"), "{text}");
    assert!(
        !text.contains("guard it"),
        "no advice to add the guard that is there"
    );

    let r = Repo::new("chart-bare");
    chart_repo(&r, false);
    let before = r.read("chart/templates/deployment.yaml");
    let text = ok_text(&r.run(&["-f", "chart", "--write"]));
    golden("offline-chart-unguarded.txt", &text);
    let long: Vec<&str> = text.lines().filter(|l| l.chars().count() > 100).collect();
    assert!(
        long.is_empty(),
        "the header and the findings fit 100 columns: {long:?}"
    );
    let text = ok_text(&r.run_env(&["-f", "chart", "--write"], &[("COLUMNS", "1000")]));
    assert!(text.contains("[high] helm-chart-sets-replicas: chart/templates/deployment.yaml:6: `replicas: {{ .Values.replicaCount }}` (values key replicaCount, chart/values.yaml:1) is rendered even with autoscaling"), "{text}");
    assert!(text.contains("      --- chart/templates/deployment.yaml\n      +++ chart/templates/deployment.yaml\n      @@ -3,6 +3,8 @@\n"), "{text}");
    assert!(text.contains("      +  {{- if not .Values.autoscaling.enabled }}\n         replicas: {{ .Values.replicaCount }}\n      +  {{- end }}\n"), "{text}");
    assert_eq!(
        r.read("chart/templates/deployment.yaml"),
        before,
        "templates are never edited"
    );
}

// ------------------------------------------------------------------ live: Helm, Argo CD, Flux

/// A release Secret as Helm stores it and the API returns it.
fn helm_secret(version: i64, status: &str, manifest: &str) -> Value {
    use base64::Engine;
    use std::io::Write;
    let rel = json!({"name": "web", "namespace": "shop", "version": version, "manifest": manifest, "info": {"status": status}});
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(rel.to_string().as_bytes()).unwrap();
    let b64 = base64::engine::general_purpose::STANDARD;
    let helm = b64.encode(gz.finish().unwrap());
    json!({"apiVersion": "v1", "kind": "Secret", "type": "helm.sh/release.v1",
        "metadata": {"name": format!("sh.helm.release.v1.web.v{version}"), "namespace": "shop",
            "labels": {"owner": "helm", "name": "web", "status": status, "version": version.to_string()}},
        "data": {"release": b64.encode(helm)}})
}

fn rendered(replicas: Option<i64>) -> String {
    let r = replicas.map_or(String::new(), |n| format!("  replicas: {n}\n"));
    format!("---\n# Source: web/templates/service.yaml\napiVersion: v1\nkind: Service\nmetadata:\n  name: web\n---\n# Source: web/templates/deployment.yaml\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n{r}  selector:\n    matchLabels: {{app: web}}\n")
}

fn helm_deployment() -> Value {
    let mut d = deployment(
        5,
        None,
        vec![entry(
            "helm",
            "Update",
            None,
            json!({"f:metadata": {"f:annotations": {"f:meta.helm.sh/release-name": {}}}, "f:spec": {"f:replicas": {}, "f:selector": {}, "f:template": {}}}),
        )],
    );
    d["metadata"]["labels"]["app.kubernetes.io/managed-by"] = json!("Helm");
    d["metadata"]["annotations"]["meta.helm.sh/release-name"] = json!("web");
    d["metadata"]["annotations"]["meta.helm.sh/release-namespace"] = json!("shop");
    d
}

fn helm_rows(w: &Value) -> Vec<(String, String)> {
    w["analysis"]["nextApply"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["applier"].as_str().unwrap().starts_with("helm upgrade"))
        .map(|p| {
            (
                p["manifest"].as_str().unwrap().into(),
                p["effect"].as_str().unwrap().into(),
            )
        })
        .collect()
}

/// What `helm upgrade` (client-side) sends for spec.replicas when the new chart renders none:
/// the three-way rule — in the previous release and not in the new manifest: null.
fn helm_upgrade_patch(previous: &str) -> Option<String> {
    let prev = previous.contains("  replicas: ");
    prev.then(|| r#"{"spec":{"replicas":null}}"#.to_string())
}

fn send_patch(c: &Cluster, body: &str) {
    use fake_apiserver::raw_http;
    let r = raw_http::request(
        c.server.addr(),
        "PATCH",
        &format!("{DEPLOY}?fieldManager=helm"),
        &[("Content-Type", "application/merge-patch+json")],
        Some(body.as_bytes()),
        std::time::Duration::from_secs(10),
    )
    .unwrap();
    assert_eq!(r.status, 200, "{}", r.text());
}

#[test]
fn helm_release_secret_decides_one_prediction() {
    for (tag, previous, effect, id) in [
        ("helm-with", Some(3), "delete", "helm-release-has-replicas"),
        (
            "helm-without",
            None,
            "nothing",
            "helm-release-without-replicas",
        ),
    ] {
        let objects = vec![
            hpa("web", "Deployment", "web"),
            helm_deployment(),
            helm_secret(1, "superseded", &rendered(Some(9))),
            helm_secret(2, "deployed", &rendered(previous)),
        ];
        let c = cluster(tag, objects);
        let j = json_out(&c.run(&["web", "-n", "shop", "-o", "json"]));
        let w = &j["workloads"][0];
        let found = ids(w);
        assert!(found.iter().any(|f| f == id), "{tag}: {found:?}");
        assert!(!found.iter().any(|f| f == "helm-release-unreadable"));
        let rows = helm_rows(w);
        assert!(
            rows.contains(&("withoutReplicas".into(), effect.into())),
            "{tag}: {rows:?}"
        );
        assert!(
            rows.contains(&("afterMigration".into(), effect.into())),
            "{tag}: {rows:?}"
        );
        assert!(
            !found.iter().any(|f| f == "already-safe"),
            "{tag}: the hand-over is still planned: not 'already safe'"
        );
        let text = stdout(&c.run(&["web", "-n", "shop"]));
        assert_eq!(
            text.matches(
                "helm upgrade (three-way merge against sh.helm.release.v1.web.v2, revision 2)"
            )
            .count(),
            1,
            "{text}"
        );
        // the next upgrade, as Helm computes it, does what was predicted
        if let Some(p) = helm_upgrade_patch(&rendered(previous)) {
            send_patch(&c, &p);
        }
        let live = c.object()["spec"].get("replicas").cloned();
        match effect {
            "delete" => assert_eq!(
                live, None,
                "{tag}: replicas: null deletes the field (the API defaults it to 1)"
            ),
            _ => assert_eq!(live, Some(json!(5)), "{tag}: the live value stays"),
        }
    }
}

#[test]
fn unreadable_helm_release_gives_both_outcomes() {
    let c = cluster(
        "helm-403",
        vec![
            hpa("web", "Deployment", "web"),
            helm_deployment(),
            helm_secret(1, "deployed", &rendered(Some(3))),
        ],
    );
    c.server.inject(
        PathMatch::prefix("/api/v1/namespaces/shop/secrets"),
        Fault::Status(403),
    );
    let j = json_out(&c.run(&["web", "-n", "shop", "-o", "json"]));
    let w = &j["workloads"][0];
    let f = w["analysis"]["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["id"] == "helm-release-unreadable")
        .expect("finding");
    let m = f["message"].as_str().unwrap();
    assert!(
        m.contains("403") && m.contains("defaults it to 1") && m.contains("leaves it alone"),
        "{m}"
    );
    assert!(m.contains("helm get manifest web -n shop"), "{m}");
    assert_eq!(
        helm_rows(w),
        [
            ("withoutReplicas".to_string(), "unknown".to_string()),
            ("afterMigration".into(), "unknown".into())
        ]
    );
}

fn gitops_deployment() -> Value {
    let mut d = deployment(
        5,
        Some(last_applied(Some(3))),
        vec![entry("argocd-controller", "Update", None, csa_fields(true))],
    );
    d["metadata"]["annotations"]["argocd.argoproj.io/tracking-id"] =
        json!("web:apps/Deployment:shop/web");
    d["metadata"]["labels"]["kustomize.toolkit.fluxcd.io/name"] = json!("apps");
    d["metadata"]["labels"]["kustomize.toolkit.fluxcd.io/namespace"] = json!("flux-system");
    d
}

fn application(respect: bool) -> Value {
    let mut a = json!({"apiVersion": "argoproj.io/v1alpha1", "kind": "Application",
        "metadata": {"name": "web", "namespace": "argocd"},
        "spec": {"ignoreDifferences": [{"group": "apps", "kind": "Deployment", "jsonPointers": ["/spec/replicas"]}],
                 "syncPolicy": {"automated": {"selfHeal": true}, "syncOptions": ["CreateNamespace=true"]}}});
    if respect {
        a["spec"]["syncPolicy"]["syncOptions"] =
            json!(["CreateNamespace=true", "RespectIgnoreDifferences=true"]);
    }
    a
}

fn flux_kustomization() -> Value {
    json!({"apiVersion": "kustomize.toolkit.fluxcd.io/v1", "kind": "Kustomization",
        "metadata": {"name": "apps", "namespace": "flux-system"},
        "spec": {"interval": "10m", "path": "./apps", "prune": true}})
}

#[test]
fn argocd_application_and_flux_kustomization_are_read() {
    let c = cluster(
        "gitops",
        vec![
            hpa("web", "Deployment", "web"),
            gitops_deployment(),
            application(true),
            flux_kustomization(),
        ],
    );
    let j = json_out(&c.run(&["web", "-n", "shop", "-o", "json"]));
    let w = &j["workloads"][0];
    let found = ids(w);
    for id in ["argocd-ignores-replicas", "flux-replicas-not-ignored"] {
        assert!(found.iter().any(|f| f == id), "{id} missing from {found:?}");
    }
    // Argo CD with RespectIgnoreDifferences copies the live value: one prediction, "nothing"
    let argo: Vec<&Value> = w["analysis"]["nextApply"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["applier"].as_str().unwrap().contains("Argo CD"))
        .collect();
    assert_eq!(argo.len(), 3, "{argo:?}");
    assert!(argo.iter().all(|p| p["effect"] == "nothing"));
    assert!(argo[0]["applier"]
        .as_str()
        .unwrap()
        .contains("Application argocd/web"));
    let advice: Vec<&str> = w["analysis"]["advice"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["text"].as_str().unwrap())
        .collect();
    assert!(advice.iter().any(|a| a.contains("Kustomization flux-system/apps") && a.contains("  - paths: [/spec/replicas]\n    target: {group: apps, kind: Deployment, name: web, namespace: shop}")), "{advice:?}");
    let gets: Vec<String> = c.server.requests().iter().map(|r| r.path.clone()).collect();
    assert!(
        gets.contains(&"/apis/argoproj.io/v1alpha1/namespaces/argocd/applications/web".to_string()),
        "{gets:?}"
    );
    assert!(gets.contains(
        &"/apis/kustomize.toolkit.fluxcd.io/v1/namespaces/flux-system/kustomizations/apps"
            .to_string()
    ));

    // without RespectIgnoreDifferences the sync still applies Git's value: say so, with the snippet
    c.server.upsert(application(false));
    let j = json_out(&c.run(&["web", "-n", "shop", "-o", "json"]));
    let w = &j["workloads"][0];
    assert!(
        ids(w)
            .iter()
            .any(|f| f == "argocd-no-respect-ignore-differences"),
        "{:?}",
        ids(w)
    );
    let next: Vec<String> = w["analysis"]["nextApply"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["manifest"] == "withoutReplicas")
        .map(|p| p["effect"].as_str().unwrap().to_string())
        .collect();
    assert!(next.contains(&"delete".to_string()), "{next:?}");
    assert!(c.patches().is_empty(), "a dry run writes nothing");
}

#[test]
fn server_dry_run_sends_the_plan_with_dry_run_all_and_persists_nothing() {
    let c = cluster("sdr", csa_cluster());
    let before = c.object();
    let out = c.run(&["web", "-n", "shop", "--server-dry-run"]);
    let text = ok_text(&out).replace(&c.server.url(), "<server>");
    assert!(text.starts_with("Cluster: context \"fake\" (<server>): sends 2 PATCH requests on Deployment shop/web with dryRun=All"), "{text}");
    let w = c.patches();
    assert_eq!(w.len(), 2);
    assert!(
        w.iter().all(|r| r.query_param("dryRun") == Some("All")),
        "{w:?}"
    );
    assert!(
        w[1].body.contains("\"resourceVersion\":\"100\""),
        "a dry run persists nothing: the read version stays the precondition"
    );
    assert_eq!(c.object(), before, "nothing persisted");
    assert!(
        text.contains("accepted (dryRun=All, not persisted)"),
        "{text}"
    );
}

#[test]
fn apply_with_nothing_to_send_says_so_and_fleet_apply_needs_yes() {
    let mut d = deployment(
        5,
        Some(last_applied(None)),
        vec![
            entry(
                "kubectl-client-side-apply",
                "Update",
                None,
                csa_fields(false),
            ),
            entry(
                "kube-controller-manager",
                "Update",
                Some("scale"),
                json!({"f:spec": {"f:replicas": {}}}),
            ),
        ],
    );
    d["metadata"]["resourceVersion"] = json!("100");
    let c = cluster("nothing", vec![hpa("web", "Deployment", "web"), d]);
    let text = ok_text(&c.run(&["web", "-n", "shop", "--apply"]));
    assert!(
        text.contains(": nothing to write (no request is needed); GET requests only"),
        "{text}"
    );
    assert!(
        text.contains("sent: nothing (no request was needed)"),
        "{text}"
    );
    assert!(c.patches().is_empty());
    let out = c.run(&["-A", "--apply"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("pass --yes"), "{}", stderr(&out));
    let out = c.run(&["-A", "--apply", "--yes"]);
    assert!(out.status.success(), "{}", stderr(&out));
}

#[test]
fn three_workloads_are_concise_with_risks_once() {
    let mut objects = Vec::new();
    for name in ["api", "cart", "web"] {
        objects.push(hpa(name, "Deployment", name));
        let mut v = csa_cluster().remove(1);
        let la = last_applied(Some(3)).replace("\"name\":\"web\"", &format!("\"name\":\"{name}\""));
        v["metadata"]["name"] = json!(name);
        v["metadata"]["annotations"][LA] = json!(la);
        objects.push(v);
    }
    let c = cluster("three", objects);
    let text = ok_text(&c.run(&["-n", "shop"]));
    let lines = text.lines().count();
    assert!(
        lines <= 34,
        "{lines} lines (a third of the 103 before):\n{text}"
    );
    for risk in ["Other copies of the manifest", "Admission webhooks"] {
        assert_eq!(
            text.matches(risk).count(),
            1,
            "{risk} once per run:\n{text}"
        );
    }
    assert_eq!(
        text.matches("kubectl-client-side: ").count(),
        1,
        "advice once per run"
    );
    assert!(
        !text.contains("\\\"selector\\\""),
        "last-applied JSON collapsed"
    );
    let j = json_out(&c.run(&["-n", "shop", "-o", "json"]));
    let body = j["workloads"][0]["analysis"]["requests"][0]["body"]
        .as_str()
        .unwrap();
    assert!(
        body.contains("\\\"selector\\\""),
        "full body in JSON: {body}"
    );
}

#[test]
fn fleet_apply_shows_the_plan_and_sends_nothing_when_declined() {
    use kubectl_hpa::{migrate_session, needs_confirmation};
    use kubectl_hpa::{MigrateMode as Mode, MigrateOptions as Options};
    let c = cluster("confirm", csa_cluster());
    let opts = Options {
        name: None,
        namespace: None,
        all_namespaces: true,
        files: vec![],
        hpa_files: vec![],
        recursive: false,
        mode: Mode::Apply,
        write: false,
        yes: false,
        stdin_is_tty: true,
        kube: kubectl_hpa::ConnectOptions {
            kubeconfig: Some(c.kubeconfig.clone()),
            ..Default::default()
        },
    };
    assert!(needs_confirmation(&opts));
    let mut shown = Vec::new();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let r = migrate_session(&rt, &opts, &mut std::io::empty(), &mut |plan| {
        shown.push(plan.cluster_effect.clone());
        false
    })
    .unwrap();
    assert_eq!(shown.len(), 1, "asked once, with the plan");
    assert!(
        shown[0].contains("writes 2 PATCH requests on Deployment shop/web"),
        "{shown:?}"
    );
    assert!(
        r.errors.iter().any(|e| e.contains("not confirmed")),
        "{:?}",
        r.errors
    );
    assert!(c.patches().is_empty(), "declined: nothing sent");
    let r = migrate_session(&rt, &opts, &mut std::io::empty(), &mut |_| true).unwrap();
    assert!(r.errors.is_empty(), "{:?}", r.errors);
    assert_eq!(c.patches().len(), 2);
}
