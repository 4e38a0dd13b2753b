//! Bad or partial CRD objects through the offline path (issue 28, "no new panic path"): every
//! node of the shipped examples' ScaledObject, APIServices and adapter rules ConfigMap removed
//! or replaced by a value of another JSON type, each fed to `explain NAME` (JSON and text) as
//! a snapshot file is. None panics; the HPA's decision never changes (KEDA's and the chain's
//! objects only explain it); and a field that gives a number (a threshold, a count, a replica
//! number, a time) is a note naming the field when it cannot be read — never a number.

use serde_json::{json, Value};

use super::testing::{options, NOW};
use crate::diagnose::Extras;
use crate::snapshot::Snapshot;

/// An example file as a JSON `List`.
fn example(file: &str) -> Value {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("examples")
        .join(file);
    let text = std::fs::read_to_string(path).expect("example");
    crate::yaml::from_str(&text).expect("example parses")
}

/// The JSON pointers of every node under `v` (`at` its own pointer).
fn nodes(v: &Value, at: &str, out: &mut Vec<String>) {
    let esc = |k: &str| k.replace('~', "~0").replace('/', "~1");
    let children: Vec<(String, &Value)> = match v {
        Value::Object(m) => m.iter().map(|(k, c)| (esc(k), c)).collect(),
        Value::Array(a) => a
            .iter()
            .enumerate()
            .map(|(i, c)| (i.to_string(), c))
            .collect(),
        _ => vec![],
    };
    for (k, c) in children {
        let p = format!("{at}/{k}");
        out.push(p.clone());
        nodes(c, &p, out);
    }
}

/// A value of another JSON type than `v`'s.
fn wrong(v: &Value) -> Value {
    match v {
        Value::String(_) => json!(7),
        Value::Number(_) => json!("seven"),
        Value::Bool(_) => json!("maybe"),
        Value::Object(_) => json!(["not", "an", "object"]),
        Value::Array(_) => json!({"not": "a list"}),
        Value::Null => json!({}),
    }
}

/// Remove the node at `pointer` (`false`: there was none).
fn remove(v: &mut Value, pointer: &str) -> bool {
    let Some((parent, last)) = pointer.rsplit_once('/') else {
        return false;
    };
    let last = last.replace("~1", "/").replace("~0", "~");
    match v.pointer_mut(parent) {
        Some(Value::Object(m)) => m.remove(&last).is_some(),
        Some(Value::Array(a)) => match last.parse::<usize>() {
            Ok(i) if i < a.len() => {
                a.remove(i);
                true
            }
            _ => false,
        },
        _ => false,
    }
}

/// `explain NAME -o json` and its text over a List, as offline explain reads a file; `Err`
/// when the snapshot is refused (a one-line error, not a panic).
fn explain(doc: Value, name: &str) -> Result<(Value, String), String> {
    let snap = Snapshot::from_owned(doc, "mutated").map_err(|e| e.to_string())?;
    let extras = Extras::from_snapshot(&snap);
    let json_opts = options(&["--now", NOW, "-n", "shop", "-o", "json"]);
    let text_opts = options(&["--now", NOW, "-n", "shop"]);
    let json = super::one::render_one(
        &json_opts.decide,
        &json_opts.view,
        &snap,
        &extras,
        super::one::Request::of(&json_opts, name),
    )
    .map_err(|e| format!("{e:#}"))?;
    let text = super::one::render_one(
        &text_opts.decide,
        &text_opts.view,
        &snap,
        &extras,
        super::one::Request::of(&text_opts, name),
    )
    .map_err(|e| format!("{e:#}"))?;
    Ok((serde_json::from_str(&json.text).expect("JSON"), text.text))
}

/// The position in the List of the first item of `kind` (and `name`, when given).
fn item_at(list: &Value, kind: &str, name: Option<&str>) -> usize {
    list["items"]
        .as_array()
        .expect("items")
        .iter()
        .position(|o| {
            o["kind"] == kind && name.is_none_or(|n| o.pointer("/metadata/name") == Some(&json!(n)))
        })
        .unwrap_or_else(|| panic!("no {kind} {name:?}"))
}

/// Every node of item `at` removed, then replaced by a wrong type: no panic, the same
/// decision; the mutations done (so a test sees it ran).
fn every_node(file: &str, hpa: &str, at: usize) -> usize {
    let list = example(file);
    let (base, _) = explain(list.clone(), hpa).expect("the example explains");
    let item = format!("/items/{at}");
    let mut paths = Vec::new();
    nodes(&list["items"][at], &item, &mut paths);
    let mut done = 0;
    for p in &paths {
        let mut removed = list.clone();
        let mut replaced = list.clone();
        if let Some(n) = replaced.pointer_mut(p) {
            *n = wrong(n);
        }
        remove(&mut removed, p);
        for (how, doc) in [("removed", removed), ("wrong type", replaced)] {
            let run = std::panic::catch_unwind(|| explain(doc, hpa));
            let Ok(out) = run else {
                panic!("{file}: {p} {how}: panicked");
            };
            if let Ok((v, text)) = out {
                assert_eq!(
                    v["desiredReplicas"], base["desiredReplicas"],
                    "{file}: {p} {how}: the decision changed"
                );
                assert!(!text.is_empty(), "{file}: {p} {how}: no text");
            }
            done += 1;
        }
    }
    done
}

#[test]
fn every_scaled_object_apiservice_and_config_map_node_mutated_never_panics() {
    let list = example("keda-fallback.yaml");
    let so = item_at(&list, "ScaledObject", None);
    assert!(every_node("keda-fallback.yaml", "keda-hpa-payments", so) > 40);
    let file = "adapter-rule-never-matches.yaml";
    let list = example(file);
    for (kind, name) in [
        ("APIService", "v1beta2.custom.metrics.k8s.io"),
        ("APIService", "v1beta1.metrics.k8s.io"),
        ("ConfigMap", "adapter-config"),
    ] {
        let at = item_at(&list, kind, Some(name));
        assert!(every_node(file, "orders", at) > 2, "{kind} {name}");
    }
}

/// The notes of KEDA's section and of the metrics chain, and the diagnostics, as one text.
fn said(v: &Value) -> String {
    let mut out = String::new();
    for p in [
        "/keda/facts/notes",
        "/keda/unreadable",
        "/metricsChain",
        "/diagnostics",
    ] {
        out += &v.pointer(p).map(Value::to_string).unwrap_or_default();
    }
    out
}

#[test]
fn a_field_that_gives_a_number_is_a_note_naming_it_when_it_cannot_be_read() {
    let so = "keda-fallback.yaml";
    let list = example(so);
    let at = item_at(&list, "ScaledObject", None);
    let paused_replicas = "autoscaling.keda.sh~1paused-replicas";
    // (pointer under the ScaledObject, the bad value, what the note names)
    let table: &[(&str, Value, &str)] = &[
        (
            "/spec/minReplicaCount",
            json!("one"),
            "spec.minReplicaCount",
        ),
        (
            "/spec/minReplicaCount",
            json!({"n": 1}),
            "spec.minReplicaCount",
        ),
        (
            "/spec/maxReplicaCount",
            json!("ten"),
            "spec.maxReplicaCount",
        ),
        ("/spec/maxReplicaCount", json!(1.5), "spec.maxReplicaCount"),
        (
            "/spec/idleReplicaCount",
            json!([0]),
            "spec.idleReplicaCount",
        ),
        ("/spec/cooldownPeriod", json!("soon"), "spec.cooldownPeriod"),
        (
            "/spec/fallback/failureThreshold",
            json!("x"),
            "spec.fallback.failureThreshold",
        ),
        (
            "/spec/fallback/replicas",
            json!(true),
            "spec.fallback.replicas",
        ),
        ("/spec/fallback", json!(6), "spec.fallback"),
        ("/spec/triggers", json!("kafka"), "spec.triggers"),
        ("/spec/triggers/0", json!("kafka"), "spec.triggers[0]"),
        ("/spec/triggers/0/type", json!(7), "spec.triggers[0].type"),
        (
            "/spec/triggers/0/metadata",
            json!("lag"),
            "spec.triggers[0].metadata",
        ),
        (
            "/spec/triggers/0/metadata/lagThreshold",
            json!("lots"),
            "spec.triggers[0].metadata.lagThreshold",
        ),
        (
            "/spec/triggers/0/metadata/lagThreshold",
            json!(null),
            "spec.triggers[0].metadata.lagThreshold",
        ),
        (
            "/spec/triggers/0/metadata/activationLagThreshold",
            json!({}),
            "spec.triggers[0].metadata.activationLagThreshold",
        ),
        ("/status/health", json!(["s0"]), "status.health"),
        (
            "/status/health/s0-kafka-payments",
            json!("Failing"),
            "status.health[s0-kafka-payments]",
        ),
        (
            "/status/health/s0-kafka-payments/numberOfFailures",
            json!("many"),
            "status.health[s0-kafka-payments].numberOfFailures",
        ),
        (
            "/status/lastActiveTime",
            json!("yesterday"),
            "status.lastActiveTime",
        ),
        ("/status/lastActiveTime", json!(12), "status.lastActiveTime"),
        (
            &format!("/metadata/annotations/{paused_replicas}")[..],
            json!("some"),
            "paused-replicas",
        ),
    ];
    let mut missed = Vec::new();
    for (pointer, bad, field) in table {
        let mut doc = list.clone();
        let so_at = format!("/items/{at}");
        set(&mut doc, &format!("{so_at}{pointer}"), bad.clone());
        let (v, _) = explain(doc, "keda-hpa-payments")
            .unwrap_or_else(|e| panic!("{pointer} = {bad}: refused: {e}"));
        if !said(&v).contains(field) {
            missed.push(format!("{pointer} = {bad}: no note naming {field}"));
        }
    }
    assert!(missed.is_empty(), "{}", missed.join("\n"));
}

#[test]
fn adapter_rules_that_cannot_be_read_are_said_with_the_key() {
    // The adapter's rules: a key that is not text, or not YAML, is said with its name.
    let file = "adapter-rule-never-matches.yaml";
    let list = example(file);
    let cm = item_at(&list, "ConfigMap", Some("adapter-config"));
    for bad in [json!(7), json!("rules: [unclosed"), json!({"rules": []})] {
        let mut doc = list.clone();
        set(
            &mut doc,
            &format!("/items/{cm}/data/config.yaml"),
            bad.clone(),
        );
        let (v, _) = explain(doc, "orders").expect("explains");
        let s = said(&v);
        assert!(
            s.contains("adapter-rules-unreadable") && s.contains("config.yaml"),
            "{bad}: {s}"
        );
    }
}

/// Set the node at `pointer`, creating the objects on the way.
fn set(v: &mut Value, pointer: &str, to: Value) {
    let mut cur = v;
    let parts: Vec<String> = pointer
        .split('/')
        .skip(1)
        .map(|p| p.replace("~1", "/").replace("~0", "~"))
        .collect();
    for p in &parts {
        cur = match cur {
            Value::Array(a) => {
                let i: usize = p.parse().expect("index");
                &mut a[i]
            }
            other => {
                if !other.is_object() {
                    *other = json!({});
                }
                other
                    .as_object_mut()
                    .expect("object")
                    .entry(p.clone())
                    .or_insert(Value::Null)
            }
        };
    }
    *cur = to;
}
