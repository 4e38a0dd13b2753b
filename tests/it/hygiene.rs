//! Untrusted text never reaches the terminal raw (issue 25, item 7): control characters in
//! names, messages and manifests from a file are escaped by every text renderer — explain, the
//! fleet table, simulate, migrate, the error line — and removed from the SVG chart.

use crate::support::binary::*;
use crate::support::fake_apiserver::load_snapshot;

use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};

use serde_json::{json, Value};

/// An OSC 52 sequence (writes the clipboard), as an HPA name.
const HPA: &str = "web\u{1b}]52;c;aGk=\u{7}";
/// A C1 CSI clearing the screen and a DEL, as the target's name.
const TARGET: &str = "web\u{9b}2J\u{7f}";
/// An SGR that conceals the text and a carriage return, as a condition's message (kept in
/// the JSON document).
const MESSAGE: &str = "\u{1b}[8mhidden\r";

/// No control character but newline and tab, raw.
fn assert_clean(bytes: &[u8], what: &str) {
    let text = String::from_utf8_lossy(bytes);
    let bad: Vec<char> = text
        .chars()
        .filter(|c| c.is_control() && *c != '\n' && *c != '\t')
        .collect();
    assert!(bad.is_empty(), "{what}: raw {bad:?} in {text}");
}

/// The example with the names and a message replaced by [`HPA`], [`TARGET`] and [`MESSAGE`].
fn hostile_snapshot(dir: &Path) -> PathBuf {
    let mut items = Vec::new();
    for d in load_snapshot(example("scale-up-cpu.yaml")) {
        let inner = d["items"].as_array().cloned();
        match inner {
            Some(i) if d["kind"] == "List" => items.extend(i),
            _ => items.push(d),
        }
    }
    for o in items.iter_mut() {
        match o["kind"].as_str() {
            Some("HorizontalPodAutoscaler") => {
                o["metadata"]["name"] = json!(HPA);
                o["spec"]["scaleTargetRef"]["name"] = json!(TARGET);
                o["status"]["conditions"] = json!([{"type": "AbleToScale", "status": "True",
                    "reason": "ReadyForNewScale", "message": MESSAGE,
                    "lastTransitionTime": "2026-03-01T11:00:00Z"}]);
            }
            Some("Deployment") => o["metadata"]["name"] = json!(TARGET),
            _ => {}
        }
    }
    let p = dir.join("hostile.json");
    let list = json!({"apiVersion": "v1", "kind": "List", "items": items});
    std::fs::write(&p, list.to_string()).expect("write");
    p
}

fn checked(out: &Output, what: &str) -> String {
    assert_clean(&out.stdout, what);
    assert_clean(&out.stderr, what);
    String::from_utf8_lossy(&out.stdout).to_string() + &stderr(out)
}

#[test]
fn explain_fleet_simulate_and_errors_escape_control_characters() {
    let dir = tmpdir("hygiene");
    let snap = hostile_snapshot(&dir);
    let s = snap.to_string_lossy().to_string();
    let base = ["-n", "shop", "--snapshot", &s, "--now", NOW];
    let with = |head: &[&str], tail: &[&str]| -> Vec<String> {
        head.iter()
            .chain(base.iter())
            .chain(tail.iter())
            .map(|a| a.to_string())
            .collect()
    };
    let runs: Vec<(&str, Vec<String>)> = vec![
        ("explain", with(&["explain", HPA], &[])),
        ("explain wide", with(&["explain", HPA], &["-o", "wide"])),
        ("fleet table", with(&["explain"], &[])),
        ("fleet wide", with(&["explain"], &["-o", "wide"])),
        ("simulate", with(&["simulate", HPA], &["--duration", "1m"])),
        ("error", with(&["explain", "nope"], &[])),
    ];
    for (what, args) in &runs {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let text = checked(&run(&args, None), what);
        let escaped = if *what == "error" {
            vec!["web\\u001b]52;c;aGk=\\u0007"]
        } else {
            vec!["web\\u009b2J\\u007f"]
        };
        for e in escaped {
            assert!(text.contains(e), "{what}: no {e} in {text}");
        }
    }
    // JSON stays valid and means the same.
    let args = with(&["explain", HPA], &["-o", "json"]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = run(&args, None);
    assert_clean(&out.stdout, "explain -o json");
    let v: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(v["target"]["name"], TARGET, "{v}");
    assert_eq!(v["name"], HPA, "{v}");
}

#[test]
fn the_svg_chart_holds_no_control_character() {
    let dir = tmpdir("hygiene-svg");
    let snap = hostile_snapshot(&dir);
    let svg = dir.join("chart.svg");
    let out = run(
        &[
            "simulate",
            HPA,
            "-n",
            "shop",
            "--snapshot",
            &snap.to_string_lossy(),
            "--duration",
            "1m",
            "--chart",
            &svg.to_string_lossy(),
        ],
        None,
    );
    checked(&out, "simulate --chart");
    let text = std::fs::read_to_string(&svg).expect("the chart");
    assert_clean(text.as_bytes(), "svg");
    roxmltree::Document::parse(&text).expect("the SVG parses");
    assert!(text.contains("shop/web]52;c;aGk="), "{text}");
}

#[test]
fn migrate_text_escapes_names_and_lines_of_the_manifests() {
    let dir = tmpdir("hygiene-migrate");
    std::fs::create_dir_all(dir.join("home")).expect("home");
    let manifest = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: \"web\\e]52;c;aGk=\\a\"\n  namespace: shop\nspec:\n  replicas: 3\n  selector:\n    matchLabels: {app: web}\n  template:\n    metadata:\n      labels: {app: web}\n    spec:\n      containers:\n      - {name: web, image: nginx}\n---\napiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata:\n  name: \"web\\e]52;c;aGk=\\a\"\n  namespace: shop\nspec:\n  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: \"web\\e]52;c;aGk=\\a\"}\n  minReplicas: 2\n  maxReplicas: 10\n";
    std::fs::write(dir.join("app.yaml"), manifest).expect("write");
    let out = bare()
        .args(["migrate", "-f", "app.yaml"])
        .current_dir(&dir)
        .env("NO_COLOR", "1")
        .env_remove("KUBECONFIG")
        .env("HOME", dir.join("home"))
        .env_remove("KUBERNETES_SERVICE_HOST")
        .stdin(Stdio::null())
        .output()
        .expect("binary runs");
    let text = checked(&out, "migrate");
    assert!(out.status.success(), "{text}");
    assert!(text.contains("web\\u001b]52;c;aGk=\\u0007"), "{text}");
}
