//! Runs every case in `tests/cases/*.yaml` — tests of the Kubernetes HPA controller, ported as
//! data — twice: through the binary (`kubectl hpa explain -o json`) and through the library
//! (the flags resolved by `cli`, the snapshot read by `Snapshot`, the decision made by
//! `explain::one`, the document built by `output::contract`), and compares each with the case's
//! expectation (a subset of the JSON contract).
//!
//! Matching rules: objects match when every expected key matches; lists match element by element
//! and must have the same length, except `conditions`, where each expected condition is looked
//! up by `type`.

use std::path::{Path, PathBuf};

use serde_json::Value;

fn cases_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cases")
}

fn subset(expected: &Value, actual: &Value, path: &str, errors: &mut Vec<String>) {
    match (expected, actual) {
        (Value::Object(e), Value::Object(a)) => {
            for (k, ev) in e {
                let p = format!("{path}.{k}");
                match a.get(k) {
                    None if ev.is_null() => {}
                    None => errors.push(format!("{p}: missing (expected {ev})")),
                    Some(av) if k == "conditions" => match (ev, av) {
                        (Value::Array(es), Value::Array(acts)) => {
                            for ec in es {
                                let t = ec.get("type").cloned().unwrap_or(Value::Null);
                                match acts.iter().find(|c| c.get("type") == Some(&t)) {
                                    Some(ac) => subset(ec, ac, &format!("{p}[{t}]"), errors),
                                    None => errors.push(format!("{p}: no condition of type {t}")),
                                }
                            }
                        }
                        _ => errors.push(format!("{p}: expected lists")),
                    },
                    Some(av) => subset(ev, av, &p, errors),
                }
            }
        }
        (Value::Array(e), Value::Array(a)) => {
            if e.len() != a.len() {
                errors.push(format!(
                    "{path}: expected {} entries, got {}",
                    e.len(),
                    a.len()
                ));
                return;
            }
            for (i, (ev, av)) in e.iter().zip(a).enumerate() {
                subset(ev, av, &format!("{path}[{i}]"), errors);
            }
        }
        (Value::Number(e), Value::Number(a)) => {
            if e.as_f64() != a.as_f64() {
                errors.push(format!("{path}: expected {e}, got {a}"));
            }
        }
        (e, a) => {
            if e != a {
                errors.push(format!("{path}: expected {e}, got {a}"));
            }
        }
    }
}

/// How a case is run.
#[derive(Clone, Copy)]
enum Via {
    Binary,
    Library,
}

/// The case's `explain -o json` document, computed by the library's own functions.
fn explain_via_library(args: &[String]) -> Result<Value, String> {
    use clap::Parser;
    use kubectl_hpa::{Cli, Command, Environment, Source};
    let env = Environment {
        stdout_is_tty: false,
        no_color: true,
        columns: None,
    };
    let Command::Explain(a) = Cli::try_parse_from(args)
        .map_err(|e| e.to_string())?
        .command
    else {
        return Err("not an explain command".into());
    };
    let opts = a.resolve(&env).map_err(|e| format!("{e:?}"))?;
    let (Source::Snapshot(paths), Some(name)) = (&opts.read.source, &opts.read.name) else {
        return Err("a case names its HPA and its snapshot".into());
    };
    let (snap, extras) =
        kubectl_hpa::read_snapshot_file(paths.as_slice()).map_err(|e| e.to_string())?;
    let (input, d) =
        kubectl_hpa::decide_with_input(&opts, &snap, name).map_err(|e| e.to_string())?;
    let findings = kubectl_hpa::diagnose(&snap, &input, &d, &extras);
    serde_json::to_value(kubectl_hpa::explanation(&d, &findings)).map_err(|e| e.to_string())
}

fn run_case(path: &Path, scratch: &Path, via: Via) -> Result<(), String> {
    let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
    let case: Value =
        kubectl_hpa::yaml::from_str(&text).map_err(|e| format!("bad case file: {e}"))?;
    let stem = path.file_stem().unwrap().to_string_lossy().to_string();
    let snap_path = scratch.join(format!("{stem}.snapshot.json"));
    std::fs::write(
        &snap_path,
        serde_json::to_string(&case["snapshot"]).unwrap(),
    )
    .unwrap();
    let hpa = case["snapshot"]["items"]
        .as_array()
        .and_then(|items| {
            items
                .iter()
                .find(|i| i["kind"] == "HorizontalPodAutoscaler")
        })
        .ok_or("case has no HPA")?;
    let name = hpa["metadata"]["name"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    let ns = hpa["metadata"]["namespace"]
        .as_str()
        .unwrap_or("default")
        .to_string();
    let mut args: Vec<String> = vec![
        "kubectl-hpa".into(),
        "explain".into(),
        name,
        "-n".into(),
        ns,
        "--snapshot".into(),
        snap_path.display().to_string(),
        "-o".into(),
        "json".into(),
    ];
    for a in case["args"].as_array().into_iter().flatten() {
        args.push(a.as_str().ok_or("args must be strings")?.to_string());
    }
    if !case["history"].is_null() {
        let hp = scratch.join(format!("{stem}.history.json"));
        std::fs::write(&hp, serde_json::to_string(&case["history"]).unwrap()).unwrap();
        args.push("--history".into());
        args.push(hp.display().to_string());
    }
    let actual = match via {
        Via::Binary => explain_via_binary(&args)?,
        Via::Library => explain_via_library(&args)?,
    };
    let mut errors = Vec::new();
    subset(&case["expect"], &actual, "", &mut errors);
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors.join("\n      "))
    }
}

/// The case's `explain -o json` document, from the binary.
fn explain_via_binary(args: &[String]) -> Result<Value, String> {
    let out = crate::support::binary::bare()
        .args(&args[1..])
        .env("NO_COLOR", "1")
        .output()
        .map_err(|e| e.to_string())?;
    if !out.status.success() {
        return Err(format!(
            "exit {:?}: {}",
            out.status.code(),
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    serde_json::from_slice(&out.stdout).map_err(|e| format!("output is not JSON: {e}"))
}

#[test]
fn ported_controller_cases() {
    run_all(Via::Binary);
}

#[test]
fn ported_controller_cases_through_the_library() {
    run_all(Via::Library);
}

fn run_all(via: Via) {
    let tag = match via {
        Via::Binary => "bin",
        Via::Library => "lib",
    };
    let scratch = crate::support::binary::tmpdir(&format!("cases-{tag}"));
    std::fs::create_dir_all(&scratch).unwrap();
    let mut files: Vec<PathBuf> = std::fs::read_dir(cases_dir())
        .expect("tests/cases exists")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "yaml"))
        .collect();
    files.sort();
    assert!(
        files.len() >= 40,
        "expected the ported cases, found {}",
        files.len()
    );
    let mut failures = Vec::new();
    for f in &files {
        if let Err(e) = run_case(f, &scratch, via) {
            failures.push(format!(
                "{}:\n      {e}",
                f.file_name().unwrap().to_string_lossy()
            ));
        }
    }
    let _ = std::fs::remove_dir_all(&scratch);
    assert!(
        failures.is_empty(),
        "{} of {} controller cases failed:\n  {}",
        failures.len(),
        files.len(),
        failures.join("\n  ")
    );
}

#[test]
fn matcher_detects_differences() {
    // The matcher itself must be able to fail.
    let mut e = Vec::new();
    subset(
        &serde_json::json!({"a": 1, "l": [1, 2], "conditions": [{"type": "X", "status": "True"}]}),
        &serde_json::json!({"a": 2, "l": [1], "conditions": [{"type": "X", "status": "False"}]}),
        "",
        &mut e,
    );
    assert_eq!(e.len(), 3, "{e:?}");
}
