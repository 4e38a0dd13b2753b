//! The JSON contract: the committed schema (`schema/kubectl-hpa.v1.schema.json`) is the one
//! generated from the output types, and every document the binary writes for the examples
//! (explain, fleet, live explain, watch, simulate, migrate; JSON and YAML) validates against it.
//!
//! `UPDATE_SCHEMA=1 cargo test --test it contract::` rewrites the committed schema.
//!
//! The validator is our own, below: the generated schema uses a small part of JSON Schema
//! (`$ref`, `type`, `properties`, `required`, `items`, `prefixItems`, `anyOf`/`oneOf`/`allOf`,
//! `const`, `enum`, `minimum`, integer `format`s) and a validator crate (`jsonschema`) would
//! bring some forty crates (regex engines, URL and email parsers, a resolver for remote
//! references) into the build for those few keywords. Any keyword it does not know fails the
//! test, so a schema that grows past this subset cannot pass unchecked.

use crate::support::binary;
use crate::support::fake_apiserver;

use std::path::PathBuf;

use binary::*;
use fake_apiserver::FakeApiServer;
use kubectl_hpa::{schema_text, API_VERSION, SCHEMA_PATH};
use serde_json::{json, Value};

fn committed_schema() -> Value {
    let text = std::fs::read_to_string(root().join(SCHEMA_PATH)).expect("the committed schema");
    serde_json::from_str(&text).expect("the committed schema is JSON")
}

#[test]
fn the_committed_schema_is_the_generated_one() {
    let generated = schema_text();
    let path = root().join(SCHEMA_PATH);
    if std::env::var_os("UPDATE_SCHEMA").is_some() {
        std::fs::create_dir_all(path.parent().expect("schema/")).expect("schema/");
        std::fs::write(&path, &generated).expect("write the schema");
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == generated,
        "{SCHEMA_PATH} is stale: the output types changed; run `UPDATE_SCHEMA=1 cargo test --test it contract::` and commit it"
    );
}

#[test]
fn every_key_of_the_schema_is_camel_case() {
    fn walk(n: &Value, path: &str, bad: &mut Vec<String>) {
        match n {
            Value::Object(m) => {
                for (k, v) in m {
                    if let (true, Some(props)) = (k == "properties", v.as_object()) {
                        let snake = |p: &&String| {
                            p.contains(['_', '-'])
                                || p.starts_with(|c: char| c.is_ascii_uppercase())
                        };
                        bad.extend(props.keys().filter(snake).map(|p| format!("{path}: {p}")));
                    }
                    walk(v, &format!("{path}/{k}"), bad);
                }
            }
            Value::Array(a) => a.iter().for_each(|x| walk(x, path, bad)),
            _ => {}
        }
    }
    let mut bad = Vec::new();
    walk(&committed_schema(), "", &mut bad);
    assert!(bad.is_empty(), "keys not camelCase: {bad:?}");
}

// --- the documents ---------------------------------------------------------------------------

/// The one document of a successful run, as JSON (YAML is read into the same value).
fn document(args: &[&str], yaml: bool) -> Value {
    document_with(args, yaml, None)
}

fn document_with(args: &[&str], yaml: bool, kubeconfig: Option<&std::path::Path>) -> Value {
    let out = ok(&run(args, kubeconfig), &args.join(" "));
    match yaml {
        true => yaml_as_json(&out).unwrap_or_else(|e| panic!("{args:?}: YAML: {e}\n{out}")),
        false => {
            serde_json::from_str(&out).unwrap_or_else(|e| panic!("{args:?}: JSON: {e}\n{out}"))
        }
    }
}

/// YAML read as the JSON printer would give it: a non-finite float (`.nan`, which the YAML
/// printer writes where JSON writes `null`) is read as `null`.
fn yaml_as_json(text: &str) -> Result<Value, kubectl_hpa::yaml::Error> {
    let mut options = kubectl_hpa::yaml::options();
    options.non_finite_float_policy = serde_saphyr::NonFiniteFloatPolicy::PassThrough;
    serde_saphyr::from_str_with_options(text, options)
}

/// Every example in one List (several HPAs: the fleet overview).
fn all_examples_file() -> PathBuf {
    let items: Vec<Value> = EXAMPLES
        .iter()
        .map(|(_, f)| {
            let text = std::fs::read_to_string(example(f)).expect("example");
            let mut v: Value = kubectl_hpa::yaml::from_str(&text).expect("yaml");
            v.as_object_mut().expect("list").remove("metadata");
            v
        })
        .collect();
    let p = tmpdir("contract").join("all.json");
    let list = json!({"apiVersion": "v1", "kind": "List", "items": items});
    std::fs::write(&p, list.to_string()).expect("write");
    p
}

/// Check a document: it validates, has the contract's apiVersion and this kind, and every key
/// in it is camelCase (the keys of Kubernetes objects and label maps are theirs: not checked
/// below `labels`, `loads`, `origins` and such maps, whose keys are data).
fn check(doc: &Value, kind: &str, what: &str) {
    assert_eq!(doc["apiVersion"], API_VERSION, "{what}");
    assert_eq!(doc["kind"], kind, "{what}");
    let schema = committed_schema();
    let errors = validate(&schema, doc);
    assert!(
        errors.is_empty(),
        "{what} does not validate against {SCHEMA_PATH}:\n{}",
        errors.join("\n")
    );
    let mut bad = Vec::new();
    snake_keys(doc, "", &mut bad);
    assert!(bad.is_empty(), "{what}: keys not camelCase: {bad:?}");
}

/// Keys with `_` or `-`, or starting upper-case, outside the maps whose keys are data.
fn snake_keys(v: &Value, path: &str, bad: &mut Vec<String>) {
    const DATA_MAPS: &[&str] = &[
        "labels",
        "matchLabels",
        "loads",
        "origins",
        "featureGates",
        "difference",
    ];
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                let p = format!("{path}.{k}");
                if k.contains(['_', '-']) || k.starts_with(|c: char| c.is_ascii_uppercase()) {
                    bad.push(p.clone());
                }
                if !DATA_MAPS.contains(&k.as_str()) {
                    snake_keys(x, &p, bad);
                }
            }
        }
        Value::Array(a) => a.iter().for_each(|x| snake_keys(x, path, bad)),
        _ => {}
    }
}

#[test]
fn explain_of_every_example_validates_in_json_and_yaml() {
    for (_, file) in EXAMPLES {
        let f = example(file).to_string_lossy().to_string();
        for yaml in [false, true] {
            let o = if yaml { "yaml" } else { "json" };
            let doc = document(&["explain", "--snapshot", &f, "-o", o], yaml);
            check(&doc, "Explanation", &format!("explain {file} -o {o}"));
        }
    }
    let f = example("scale-down-stabilized.yaml")
        .to_string_lossy()
        .to_string();
    let h = example("scale-down-stabilized.history.yaml")
        .to_string_lossy()
        .to_string();
    for history in ["none", h.as_str()] {
        let doc = document(
            &[
                "explain",
                "--snapshot",
                &f,
                "--history",
                history,
                "-o",
                "json",
            ],
            false,
        );
        check(&doc, "Explanation", &format!("explain --history {history}"));
    }
}

#[test]
fn the_fleet_overview_validates() {
    let f = all_examples_file().to_string_lossy().to_string();
    for yaml in [false, true] {
        let o = if yaml { "yaml" } else { "json" };
        let doc = document(
            &["explain", "-A", "--snapshot", &f, "--now", NOW, "-o", o],
            yaml,
        );
        check(&doc, "FleetExplanation", &format!("explain -A -o {o}"));
        assert_eq!(doc["items"].as_array().map(Vec::len), Some(EXAMPLES.len()));
        // Each item's decision is an embedded Explanation.
        assert_eq!(doc["items"][0]["decision"]["kind"], "Explanation");
    }
}

#[test]
fn simulate_json_validates() {
    let snap = example("scale-up-cpu.yaml").to_string_lossy().to_string();
    let doc = document(
        &[
            "simulate",
            "--snapshot",
            &snap,
            "--duration",
            "10m",
            "-o",
            "json",
        ],
        false,
    );
    check(&doc, "Simulation", "simulate --snapshot");
    let data = |f: &str| root().join("tests/simulate_data").join(f);
    let (hpa, other) = (data("cpu.yaml"), data("cpu-window-120s.yaml"));
    let doc = document(
        &[
            "simulate",
            "--hpa",
            &hpa.to_string_lossy(),
            "--requests",
            "cpu=500m",
            "--compare",
            &other.to_string_lossy(),
            "--demand",
            "cpu=ramp:1:6:5m:20m",
            "--duration",
            "30m",
            "-o",
            "json",
        ],
        false,
    );
    check(&doc, "Simulation", "simulate --compare");
    assert!(doc["difference"].is_object(), "{}", doc["difference"]);
}

const APP: &str = "\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 3
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: web
        image: nginx:1.27
---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata:
  name: web
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
  minReplicas: 2
  maxReplicas: 10
";

#[test]
fn the_migration_plan_validates() {
    let dir = tmpdir("contract-migrate");
    std::fs::create_dir_all(dir.join("k8s")).expect("dir");
    std::fs::write(dir.join("k8s/app.yaml"), APP).expect("write");
    let k8s = dir.join("k8s").to_string_lossy().to_string();
    let doc = document(&["migrate", "--offline", "-f", &k8s, "-o", "json"], false);
    check(&doc, "MigrationPlan", "migrate --offline");
    assert!(!doc["files"].as_array().expect("files").is_empty(), "{doc}");
}

#[test]
fn live_explain_and_watch_events_validate() {
    let server = FakeApiServer::from_snapshot_file(example("held-by-window.yaml"));
    let kc = server.write_kubeconfig(&tmpdir("contract-live"));
    let live = document_with(
        &["explain", "frontend", "-n", "shop", "-o", "json"],
        false,
        Some(&kc),
    );
    check(&live, "Explanation", "live explain");
    assert!(live["liveComparison"].is_object(), "{live}");

    let watch = |o: &str| {
        let args = [
            "explain",
            "frontend",
            "-n",
            "shop",
            "--watch",
            "--watch-count",
            "1",
            "--sync-period",
            "1s",
            "-o",
            o,
        ];
        ok(&run(&args, Some(&kc)), "watch")
    };
    let json_lines = watch("json");
    let line: Value = serde_json::from_str(json_lines.trim_end()).expect("one JSON line");
    assert_eq!(json_lines.lines().count(), 1, "{json_lines}");
    check(&line, "WatchEvent", "watch -o json");

    // YAML: a stream of documents, each opened by `---`.
    let yaml = watch("yaml");
    assert!(yaml.starts_with("---\n"), "{yaml}");
    let docs: Vec<Value> = kubectl_hpa::yaml::documents(&yaml).expect("YAML documents");
    assert_eq!(docs.len(), 1, "{yaml}");
    // The same event (two runs: the times differ).
    let keys = |v: &Value| v.as_object().map(|o| o.keys().cloned().collect::<Vec<_>>());
    assert_eq!(
        keys(&docs[0]),
        keys(&line),
        "the YAML event has the JSON event's keys"
    );
    check(&docs[0], "WatchEvent", "watch -o yaml");

    // The fleet watch (no NAME): a FleetWatchEvent per changed row.
    let args = [
        "explain",
        "-n",
        "shop",
        "--watch",
        "--watch-count",
        "1",
        "--sync-period",
        "1s",
        "-o",
        "json",
    ];
    let rows = ok(&run(&args, Some(&kc)), "fleet watch");
    let first = rows.lines().next().expect("a fleet watch line");
    let row: Value = serde_json::from_str(first).expect("a JSON line");
    check(&row, "FleetWatchEvent", "fleet watch -o json");
}

#[test]
fn the_validator_rejects_what_the_schema_forbids() {
    let f = example("scale-up-cpu.yaml").to_string_lossy().to_string();
    let good = document(&["explain", "--snapshot", &f, "-o", "json"], false);
    let schema = committed_schema();
    assert!(validate(&schema, &good).is_empty());
    let broken = |edit: &dyn Fn(&mut Value)| {
        let mut d = good.clone();
        edit(&mut d);
        validate(&schema, &d)
    };
    for (what, edit) in [
        (
            "wrong apiVersion",
            &(|d: &mut Value| d["apiVersion"] = json!("v2")) as &dyn Fn(&mut Value),
        ),
        ("unknown kind", &|d: &mut Value| d["kind"] = json!("Nope")),
        ("string for an integer", &|d: &mut Value| {
            d["minReplicas"] = json!("2")
        }),
        ("missing required", &|d: &mut Value| {
            d.as_object_mut().expect("object").remove("verdict");
        }),
        ("unknown enum value", &|d: &mut Value| {
            d["verdict"]["action"] = json!("Explode")
        }),
        ("fraction for an integer", &|d: &mut Value| {
            d["maxReplicas"] = json!(2.5)
        }),
        ("object for an array", &|d: &mut Value| {
            d["metrics"] = json!({})
        }),
    ] {
        assert!(!broken(edit).is_empty(), "{what} should not validate");
    }
}

// --- a validator for the subset of JSON Schema 2020-12 the generated schema uses -------------

/// The errors of `instance` against the root `schema` (empty: valid).
fn validate(schema: &Value, instance: &Value) -> Vec<String> {
    let mut errors = Vec::new();
    check_node(schema, schema, instance, "$", &mut errors);
    errors
}

/// Keywords that only annotate.
const ANNOTATIONS: &[&str] = &[
    "$schema",
    "$id",
    "$defs",
    "$comment",
    "title",
    "description",
    "default",
    "examples",
    "deprecated",
    "readOnly",
    "writeOnly",
];

fn check_node(root: &Value, s: &Value, v: &Value, at: &str, errs: &mut Vec<String>) {
    let map = match s {
        Value::Bool(true) => return,
        Value::Bool(false) => return errs.push(format!("{at}: not allowed here")),
        Value::Object(m) => m,
        _ => panic!("{at}: a schema is an object or a boolean: {s}"),
    };
    for (k, x) in map {
        match k.as_str() {
            "$ref" => check_node(root, resolve(root, x), v, at, errs),
            "type" => check_type(x, v, at, errs),
            "const" if x != v => errs.push(format!("{at}: {v} is not {x}")),
            "enum" if !x.as_array().is_some_and(|a| a.contains(v)) => {
                errs.push(format!("{at}: {v} is not one of {x}"))
            }
            "const" | "enum" => {}
            "properties" | "required" | "additionalProperties" => {
                check_object(root, map, k, v, at, errs)
            }
            "items" | "prefixItems" | "minItems" | "maxItems" => {
                check_array(root, map, k, v, at, errs)
            }
            "anyOf" | "oneOf" | "allOf" => check_combinator(root, k, x, v, at, errs),
            "minimum" | "maximum" | "format" => check_number(k, x, v, at, errs),
            k if ANNOTATIONS.contains(&k) || k.starts_with("x-") => {}
            other => panic!("{at}: the test's validator does not know the keyword {other:?}"),
        }
    }
}

fn resolve<'a>(root: &'a Value, r: &Value) -> &'a Value {
    let r = r.as_str().expect("$ref is a string");
    let pointer = r
        .strip_prefix('#')
        .unwrap_or_else(|| panic!("only local $ref: {r}"));
    root.pointer(pointer)
        .unwrap_or_else(|| panic!("$ref {r} names nothing"))
}

fn check_type(t: &Value, v: &Value, at: &str, errs: &mut Vec<String>) {
    let is = |name: &str| match name {
        "null" => v.is_null(),
        "boolean" => v.is_boolean(),
        "object" => v.is_object(),
        "array" => v.is_array(),
        "string" => v.is_string(),
        "number" => v.is_number(),
        "integer" => v.is_i64() || v.is_u64() || v.as_f64().is_some_and(|f| f.fract() == 0.0),
        other => panic!("unknown type {other}"),
    };
    let ok = match t {
        Value::String(name) => is(name),
        Value::Array(names) => names.iter().filter_map(Value::as_str).any(is),
        _ => panic!("{at}: type is a string or an array: {t}"),
    };
    if !ok {
        errs.push(format!("{at}: {v} is not of type {t}"));
    }
}

fn check_object(
    root: &Value,
    s: &serde_json::Map<String, Value>,
    keyword: &str,
    v: &Value,
    at: &str,
    errs: &mut Vec<String>,
) {
    let Some(obj) = v.as_object() else { return };
    let props = s.get("properties").and_then(Value::as_object);
    match keyword {
        "properties" => {
            for (name, sub) in props.into_iter().flatten() {
                if let Some(x) = obj.get(name) {
                    check_node(root, sub, x, &format!("{at}.{name}"), errs);
                }
            }
        }
        "required" => {
            for name in s["required"].as_array().into_iter().flatten() {
                let name = name.as_str().expect("required names");
                if !obj.contains_key(name) {
                    errs.push(format!("{at}: {name} is required"));
                }
            }
        }
        _ => {
            for (name, x) in obj {
                if !props.is_some_and(|p| p.contains_key(name)) {
                    let sub = &s["additionalProperties"];
                    check_node(root, sub, x, &format!("{at}.{name}"), errs);
                }
            }
        }
    }
}

fn check_array(
    root: &Value,
    s: &serde_json::Map<String, Value>,
    keyword: &str,
    v: &Value,
    at: &str,
    errs: &mut Vec<String>,
) {
    let Some(items) = v.as_array() else { return };
    let prefix = s.get("prefixItems").and_then(Value::as_array);
    let n = |k: &str| s[k].as_u64().expect("a count") as usize;
    match keyword {
        "prefixItems" => {
            for (i, (sub, x)) in prefix.into_iter().flatten().zip(items).enumerate() {
                check_node(root, sub, x, &format!("{at}[{i}]"), errs);
            }
        }
        "items" => {
            let skip = prefix.map_or(0, Vec::len);
            for (i, x) in items.iter().enumerate().skip(skip) {
                check_node(root, &s["items"], x, &format!("{at}[{i}]"), errs);
            }
        }
        "minItems" if items.len() < n("minItems") => errs.push(format!("{at}: too few items")),
        "maxItems" if items.len() > n("maxItems") => errs.push(format!("{at}: too many items")),
        _ => {}
    }
}

fn check_combinator(
    root: &Value,
    k: &str,
    subs: &Value,
    v: &Value,
    at: &str,
    errs: &mut Vec<String>,
) {
    let results: Vec<Vec<String>> = subs
        .as_array()
        .expect("a list of schemas")
        .iter()
        .map(|sub| {
            let mut e = Vec::new();
            check_node(root, sub, v, at, &mut e);
            e
        })
        .collect();
    let passed = results.iter().filter(|e| e.is_empty()).count();
    let ok = match k {
        "anyOf" => passed > 0,
        "oneOf" => passed == 1,
        _ => passed == results.len(),
    };
    if !ok {
        // The closest schema's errors say the most.
        let closest = results.into_iter().min_by_key(Vec::len).unwrap_or_default();
        let why: Vec<String> = closest.into_iter().take(8).collect();
        errs.push(format!(
            "{at}: {k} fails ({passed} of the schemas match): {}",
            why.join("; ")
        ));
    }
}

fn check_number(k: &str, x: &Value, v: &Value, at: &str, errs: &mut Vec<String>) {
    let Some(n) = v.as_f64() else { return };
    let (lo, hi) = match (k, x.as_str()) {
        ("minimum", _) => (x.as_f64().expect("a number"), f64::INFINITY),
        ("maximum", _) => (f64::NEG_INFINITY, x.as_f64().expect("a number")),
        (_, Some("int32")) => (i32::MIN as f64, i32::MAX as f64),
        (_, Some("uint8")) => (0.0, u8::MAX as f64),
        (_, Some("uint16")) => (0.0, u16::MAX as f64),
        (_, Some("uint32")) => (0.0, u32::MAX as f64),
        (_, Some("uint" | "uint64")) => (0.0, f64::INFINITY),
        _ => (f64::NEG_INFINITY, f64::INFINITY),
    };
    if n < lo || n > hi {
        errs.push(format!("{at}: {v} is outside {k} {x}"));
    }
}

// --- Unknown documents tell one story (issue 27 item 5) --------------------------------------

/// `scale-up-cpu.yaml` as a List, with `annotations` on the List and the items `keep` keeps.
fn variant(name: &str, annotations: Value, keep: &dyn Fn(&Value) -> bool) -> String {
    let text = std::fs::read_to_string(example("scale-up-cpu.yaml")).expect("example");
    let mut v: Value = kubectl_hpa::yaml::from_str(&text).expect("yaml");
    v["metadata"] = json!({ "annotations": annotations });
    let items: Vec<Value> = v["items"]
        .as_array()
        .expect("items")
        .iter()
        .filter(|i| keep(i))
        .cloned()
        .collect();
    v["items"] = Value::Array(items);
    let p = tmpdir("unknown").join(name);
    std::fs::write(&p, v.to_string()).expect("write");
    p.to_string_lossy().to_string()
}

/// Every "not known" field of an `Unknown` decision says so the same way.
fn check_unknown(d: &Value, what: &str) {
    assert_eq!(d["verdict"]["action"], "Unknown", "{what}: {d}");
    for field in ["desiredReplicas", "desiredRange", "proposal", "nextChange"] {
        assert!(d[field].is_null(), "{what}: {field} = {}", d[field]);
    }
    assert!(
        d["status"]["desiredReplicas"].is_null(),
        "{what}: {}",
        d["status"]
    );
    for list in ["conditions", "events"] {
        assert_eq!(d[list], json!([]), "{what}: {list}");
    }
    assert_eq!(d["status"]["currentMetrics"], json!([]), "{what}");
}

/// The files whose decisions are `Unknown`: no metrics at all (`NoMetrics`), and a read of ours
/// that failed (`FetchFailed`), as `explain NAME` and as the fleet.
#[test]
fn every_unknown_document_tells_one_story() {
    let no_metrics = variant("no-metrics.json", json!({}), &|i| i["kind"] != "PodMetrics");
    let own = json!({"resource-metrics": "the metrics API answered 403: forbidden"});
    let failed = variant(
        "own-failure.json",
        json!({
            "kubectl-hpa.dev/taken-at": NOW,
            "kubectl-hpa.dev/fetch-errors": own.to_string(),
            "kubectl-hpa.dev/own-fetch-failures": own.to_string(),
        }),
        &|i| i["kind"] != "PodMetrics",
    );
    let lacks = variant("lacks-target.json", json!({}), &|i| {
        i["kind"] != "Deployment"
    });
    for (file, rule) in [
        (&no_metrics, "NoMetrics"),
        (&failed, "FetchFailed"),
        (&lacks, "NotInSnapshot"),
    ] {
        let one = run(
            &[
                "explain",
                "web",
                "--snapshot",
                file,
                "--now",
                NOW,
                "-o",
                "json",
            ],
            None,
        );
        let d: Value = serde_json::from_slice(&one.stdout)
            .unwrap_or_else(|e| panic!("{rule}: {e}: {}", String::from_utf8_lossy(&one.stderr)));
        check(&d, "Explanation", rule);
        assert_eq!(d["verdict"]["decidedBy"], rule, "{d}");
        check_unknown(&d, rule);
        let fleet = run(
            &[
                "explain",
                "-A",
                "--snapshot",
                file,
                "--now",
                NOW,
                "-o",
                "json",
            ],
            None,
        );
        let doc: Value = serde_json::from_slice(&fleet.stdout).expect("fleet JSON");
        check(&doc, "FleetExplanation", rule);
        let item = &doc["items"][0];
        assert_eq!(item["action"], "Unknown", "{item}");
        assert!(item["desiredReplicas"].is_null(), "{rule}: {item}");
        assert!(item["desiredRange"].is_null(), "{rule}: {item}");
        check_unknown(&item["decision"], &format!("{rule} (fleet)"));
    }
}

#[test]
fn the_history_validates() {
    let file = example("held-by-window.yaml");
    let doc = document(
        &[
            "history",
            "frontend",
            "--snapshot",
            file.to_str().unwrap(),
            "--now",
            NOW,
            "-o",
            "json",
        ],
        false,
    );
    check(&doc, "History", "history");
    assert_eq!(doc["rows"].as_array().map(Vec::len), Some(2), "{doc}");
}
