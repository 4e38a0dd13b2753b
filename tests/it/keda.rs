//! KEDA's layer through the real binary, against the fake API server serving the generated HPA
//! shape KEDA writes (`keda-hpa-<name>`, External metrics `s<i>-<scaler>-<metric>` selected by
//! `scaledobject.keda.sh/name`, values without metricLabels as KEDA's metrics server sends
//! them): activation, fallback, paused, conflicts, no CRD (404), forbidden (403), and the same
//! answer offline from a `snapshot` of the same server (and from a `--redact`ed one).

use crate::support::binary::*;
use crate::support::fake_apiserver::{load_snapshot, FakeApiServer, Fault, PathMatch};

use serde_json::{json, Value};

/// ScaledObjects of namespace `shop`.
const SCALED_OBJECTS: &str = "/apis/keda.sh/v1alpha1/namespaces/shop/scaledobjects";

struct Cluster {
    server: FakeApiServer,
    kubeconfig: std::path::PathBuf,
    tag: String,
}

fn cluster_of(objects: Vec<Value>, tag: &str) -> Cluster {
    let server = FakeApiServer::start(objects);
    let kubeconfig = server.write_kubeconfig(&tmpdir(tag));
    Cluster {
        server,
        kubeconfig,
        tag: tag.to_string(),
    }
}

fn cluster(file: &str, tag: &str) -> Cluster {
    cluster_of(load_snapshot(example(file)), tag)
}

impl Cluster {
    fn json(&self, name: &str) -> Value {
        ok_json(
            &run(
                &["explain", name, "-n", "shop", "--now", NOW, "-o", "json"],
                Some(&self.kubeconfig),
            ),
            &format!("live explain {name}"),
        )
    }

    /// `snapshot NAME` (with `extra` flags) written to a file, and its offline explanation.
    fn offline(&self, name: &str, extra: &[&str]) -> (String, Value) {
        let mut args = vec!["snapshot", name, "-n", "shop"];
        args.extend_from_slice(extra);
        let text = ok(&run(&args, Some(&self.kubeconfig)), "snapshot");
        let file = tmpdir(&format!("{}-file", self.tag)).join("snap.yaml");
        std::fs::write(&file, &text).expect("write snapshot");
        let f = file.to_string_lossy().to_string();
        let v = ok_json(
            &run(
                &[
                    "explain",
                    name,
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
            ),
            "offline explain",
        );
        (text, v)
    }
}

fn ids(v: &Value) -> Vec<String> {
    v["diagnostics"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|f| f["id"].as_str().unwrap_or_default().to_string())
        .collect()
}

fn finding(v: &Value, id: &str) -> Value {
    v["diagnostics"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|f| f["id"] == id)
        .cloned()
        .unwrap_or_else(|| panic!("no {id} in {:?}", ids(v)))
}

/// The parts live and offline must agree on.
fn answer(v: &Value) -> Value {
    json!({
        "desired": v["desiredReplicas"],
        "verdict": v["verdict"],
        "keda": v["keda"],
        "diagnostics": ids(v),
    })
}

#[test]
fn activation_below_its_threshold_is_keda_s_move_live_and_offline() {
    let c = cluster("keda-activation.yaml", "keda-activation");
    let v = c.json("keda-hpa-orders");
    assert_eq!(v["desiredReplicas"], 4, "the HPA holds");
    let k = &v["keda"];
    assert_eq!(k["owner"]["scaledObject"], "orders");
    assert_eq!(k["owner"]["evidence"], "ownerReference");
    assert_eq!(k["facts"]["layer"]["owner"], "keda");
    assert_eq!(k["facts"]["layer"]["cooldownLeftSeconds"], 120);
    assert_eq!(k["facts"]["metrics"][0]["hpaMetric"], "s0-prometheus");
    assert_eq!(k["facts"]["metrics"][0]["activationThreshold"], 50.0);
    assert_eq!(k["events"][0]["reason"], "KEDAScaleTargetActivated");
    let f = finding(&v, "keda-owns-move");
    assert_eq!(f["severity"], "warning");
    assert!(f["message"].as_str().unwrap().contains("120s"), "{f}");
    assert!(ids(&v).contains(&"keda-generated".to_string()));
    // The requests: one LIST of the namespace's ScaledObjects, the ScaledObject's Events.
    let reqs = c.server.requests();
    assert_eq!(reqs.iter().filter(|r| r.path == SCALED_OBJECTS).count(), 1);
    assert!(reqs.iter().any(|r| r.path == "/api/v1/namespaces/shop/events"
        && r.query_param("fieldSelector")
            == Some("involvedObject.kind=ScaledObject,involvedObject.name=orders,involvedObject.namespace=shop")));
    // The same answer from a snapshot of the same server.
    let (_, off) = c.offline("keda-hpa-orders", &[]);
    assert_eq!(answer(&off), answer(&v));
    // The text: the ownership and KEDA's move right under the verdict.
    let text = ok(
        &run(
            &["explain", "keda-hpa-orders", "-n", "shop", "--now", NOW],
            Some(&c.kubeconfig),
        ),
        "text",
    );
    let lines: Vec<&str> = text.lines().collect();
    let verdict = lines
        .iter()
        .position(|l| l.starts_with("Verdict:"))
        .unwrap();
    let generated = lines
        .iter()
        .position(|l| l.contains("generated by KEDA ScaledObject orders"))
        .expect(&text);
    let why = lines.iter().position(|l| *l == "Why").unwrap();
    assert!(verdict < generated && generated < why, "{text}");
    assert!(text.contains("KEDA owns the move"), "{text}");
    assert!(text.contains("cooldown: 120s left"), "{text}");
}

#[test]
fn fallback_is_a_synthetic_value_and_redact_keeps_no_secret() {
    let c = cluster("keda-fallback.yaml", "keda-fallback");
    let v = c.json("keda-hpa-payments");
    assert_eq!(v["desiredReplicas"], 6);
    let fb = &v["keda"]["facts"]["fallback"][0];
    assert_eq!(fb["metric"], "s0-kafka-payments");
    assert_eq!(fb["inFallback"], true);
    assert_eq!(fb["syntheticValue"], 600.0);
    let f = finding(&v, "keda-fallback");
    assert!(
        f["message"]
            .as_str()
            .unwrap()
            .contains("synthetic value 600"),
        "{f}"
    );
    let (_, off) = c.offline("keda-hpa-payments", &[]);
    assert_eq!(answer(&off), answer(&v));
    // --redact: thresholds stay, addresses, the consumer group and the auth reference go; the
    // replay says the same.
    let (text, red) = c.offline("keda-hpa-payments", &["--redact"]);
    for secret in [
        "kafka-0.kafka.messaging",
        "kafka-sasl",
        "consumerGroup",
        "bootstrapServers",
    ] {
        assert!(
            !text.contains(secret),
            "{secret} survived --redact:\n{text}"
        );
    }
    assert!(text.contains("lagThreshold"), "{text}");
    for part in ["layer", "fallback", "metrics", "fields", "paused"] {
        assert_eq!(
            red["keda"]["facts"][part], v["keda"]["facts"][part],
            "{part}"
        );
    }
    assert_eq!(red["desiredReplicas"], 6);
}

#[test]
fn paused_and_conflicts_are_findings_with_actions() {
    let mut objects = load_snapshot(example("keda-activation.yaml"));
    for list in &mut objects {
        for o in list["items"].as_array_mut().into_iter().flatten() {
            if o["kind"] == "ScaledObject" {
                o["metadata"]["annotations"] = json!({"autoscaling.keda.sh/paused-replicas": "2"});
            }
        }
    }
    objects.push(json!({"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",
        "metadata": {"name": "orders-cpu", "namespace": "shop"},
        "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "orders"},
                 "maxReplicas": 5,
                 "metrics": [{"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 60}}}]}}));
    let c = cluster_of(objects, "keda-paused");
    let v = c.json("keda-hpa-orders");
    assert_eq!(v["keda"]["facts"]["layer"]["owner"], "paused");
    let p = finding(&v, "keda-paused");
    assert!(
        p["message"]
            .as_str()
            .unwrap()
            .contains("paused at 2 replicas"),
        "{p}"
    );
    assert!(
        p["action"]
            .as_str()
            .unwrap()
            .contains("autoscaling.keda.sh/paused-replicas-"),
        "{p}"
    );
    let k = finding(&v, "keda-conflict");
    assert_eq!(k["severity"], "error");
    assert!(
        k["message"]
            .as_str()
            .unwrap()
            .contains("HorizontalPodAutoscaler orders-cpu"),
        "{k}"
    );
    assert!(
        k["action"]
            .as_str()
            .unwrap()
            .contains("validations.keda.sh/hpa-ownership"),
        "{k}"
    );
    // The other HPA is told too: a ScaledObject scales its target.
    let other = c.json("orders-cpu");
    assert!(other["keda"]["owner"].is_null(), "{}", other["keda"]);
    assert!(finding(&other, "keda-conflict")["message"]
        .as_str()
        .unwrap()
        .contains("ScaledObject orders"));
}

#[test]
fn no_crd_and_forbidden_are_notes_never_failures() {
    // No CRD: keda.sh is not served (404).
    let c = cluster("keda-activation.yaml", "keda-no-crd");
    c.server.unserve("keda.sh/v1alpha1");
    let v = c.json("keda-hpa-orders");
    assert_eq!(v["desiredReplicas"], 4);
    let why = v["keda"]["unreadable"].as_str().expect("unreadable");
    assert!(why.contains("404"), "{why}");
    assert!(v["keda"]["facts"].is_null());
    assert!(
        ids(&v).contains(&"keda-unreadable".to_string()),
        "{:?}",
        ids(&v)
    );
    // Forbidden (403): the note names the verb and the resource.
    let c = cluster("keda-activation.yaml", "keda-forbidden");
    c.server
        .inject(PathMatch::prefix(SCALED_OBJECTS), Fault::Status(403));
    let v = c.json("keda-hpa-orders");
    assert_eq!(v["desiredReplicas"], 4);
    let why = v["keda"]["unreadable"].as_str().expect("unreadable");
    assert!(
        why.contains("403") && why.contains("`list` on scaledobjects.keda.sh"),
        "{why}"
    );
    let (text, off) = c.offline("keda-hpa-orders", &[]);
    assert!(text.contains("keda-scaledobjects"), "{text}");
    assert_eq!(off["keda"]["unreadable"], v["keda"]["unreadable"]);
    // Not KEDA's HPA: a missing CRD says nothing at all.
    let c = cluster("scale-up-cpu.yaml", "keda-none");
    let v = c.json("web");
    assert!(v.get("keda").is_none(), "{}", v["keda"]);
    assert!(
        !ids(&v).iter().any(|i| i.starts_with("keda")),
        "{:?}",
        ids(&v)
    );
}

#[test]
fn a_fleet_reads_scaled_objects_once_whatever_the_number_of_hpas() {
    let count = |n: usize| {
        let mut objects = Vec::new();
        for i in 0..n {
            for mut o in load_snapshot(example("keda-activation.yaml")) {
                let rename = |s: &str| s.replace("orders", &format!("orders{i}"));
                let text = rename(&o.to_string());
                o = serde_json::from_str(&text).unwrap();
                objects.push(o);
            }
        }
        let c = cluster_of(objects, &format!("keda-fleet-{n}"));
        let out = run(
            &["explain", "-n", "shop", "--now", NOW, "-o", "json"],
            Some(&c.kubeconfig),
        );
        let v = ok_json(&out, "fleet");
        let reqs = c.server.requests();
        let so = reqs.iter().filter(|r| r.path == SCALED_OBJECTS).count();
        let events = reqs
            .iter()
            .filter(|r| r.query_param("fieldSelector") == Some("involvedObject.kind=ScaledObject"))
            .count();
        for item in v["items"].as_array().into_iter().flatten() {
            assert!(
                item["kedaScaledObject"]
                    .as_str()
                    .is_some_and(|s| s.starts_with("orders")),
                "{item}"
            );
            // KEDA's typed section, as `explain NAME -o json` gives it.
            assert_eq!(
                item["keda"]["owner"]["scaledObject"], item["kedaScaledObject"],
                "{item}"
            );
            assert!(item["keda"]["facts"].is_object(), "{item}");
        }
        let text = ok(
            &run(
                &["explain", "-n", "shop", "--now", NOW, "-o", "wide"],
                Some(&c.kubeconfig),
            ),
            "fleet text",
        );
        assert!(text.contains("Deployment/orders0 (KEDA)"), "{text}");
        // The problems, once per cause, in the fleet's words.
        let plain = ok(
            &run(
                &["explain", "-n", "shop", "--now", NOW],
                Some(&c.kubeconfig),
            ),
            "fleet",
        );
        assert!(
            plain.contains("keda-owns-move (KEDA deactivates the target over the HPA)"),
            "{plain}"
        );
        (v["items"].as_array().map(Vec::len), so, events)
    };
    assert_eq!(count(1).1, 1);
    assert_eq!(count(1).2, 1);
    let three = count(3);
    assert_eq!(three, (Some(3), 1, 1));
}
