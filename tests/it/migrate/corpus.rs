//! The migrate corpus (issue 30 item 5): sources shaped like real ones, written by us, under
//! `tests/migrate_data/charts/`: a guarded podinfo-like chart, a chart whose guard compares two
//! values, a chart with an HPA and a KEDA ScaledObject, a loose templates directory (guarded and
//! bare), another tool's templates (kube-aws-like), plain manifests (with a ScaledObject's
//! fallback, a PodDisruptionBudget and an Argo Rollout's canary steps beside the workloads), and
//! a Kustomize base with an overlay's `replicas:` transformer.
//!
//! On each, `migrate -f DIR -R` is compared with its golden text (findings and diffs), exits 0,
//! gives exactly the `[high]` findings that are true, and writes nothing. Then the rendering
//! check (issue 30, "Done means"): every Helm source is rendered by our renderer
//! (`migrate::renderer`) with each suggested guard applied — the diff itself, applied by the
//! patch reader below — for every true/false combination of its autoscaling switches: where an
//! HPA or a ScaledObject is rendered, no workload renders `replicas`; where none is, every
//! workload does.

use super::*;

use std::path::Path;

use kubectl_hpa::{read_manifests, scan_chart, Templates};

/// Each source and its true `[high]` findings (`id: file:line`), nothing else.
const CORPUS: &[(&str, &[&str])] = &[
    ("podinfo", &[]),
    ("two-values", &[]),
    (
        "keda",
        &["helm-chart-sets-replicas: keda/templates/deployment.yaml:6"],
    ),
    ("loose-guarded", &[]),
    (
        "loose-bare",
        &["helm-chart-sets-replicas: loose-bare/templates/deployment.yaml:6"],
    ),
    ("kube-aws", &[]),
    ("plain", &[]),
    (
        "kustomize",
        &["kustomize-replicas-transformer: kustomize/overlays/prod/kustomization.yaml:7"],
    ),
];

/// Every file under `dir` with its bytes and modification time.
fn state(dir: &Path) -> Vec<(PathBuf, Vec<u8>, std::time::SystemTime)> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                todo.push(p);
            } else {
                let m = std::fs::metadata(&p).unwrap().modified().unwrap();
                out.push((p.clone(), std::fs::read(&p).unwrap(), m));
            }
        }
    }
    out.sort();
    out
}

#[test]
fn the_corpus_gives_its_findings_diffs_and_no_false_high_and_writes_nothing() {
    let r = Repo::new("corpus");
    for (dir, _) in CORPUS {
        copy_fixture(&r, dir);
    }
    let before = state(&r.dir);
    for (dir, highs) in CORPUS {
        let out = r.run_env(&["-f", dir, "-R"], &[("COLUMNS", "100")]);
        assert_eq!(out.status.code(), Some(0), "{dir}: {}", stderr(&out));
        let text = stdout(&out);
        golden(&format!("corpus-{dir}.txt"), &text);
        let found: Vec<&str> = text
            .lines()
            .filter_map(|l| l.split_once("[high] ").map(|(_, f)| f))
            .collect();
        for f in &found {
            assert!(
                highs.iter().any(|h| f.starts_with(h)),
                "{dir}: a [high] finding the source does not deserve: {f}"
            );
        }
        assert_eq!(found.len(), highs.len(), "{dir}: {found:?}");
        // the JSON says the same, and carries the diff of each suggested guard
        let json = json_out(&r.run(&["-f", dir, "-R", "-o", "json"]));
        for c in json["charts"].as_array().into_iter().flatten() {
            for t in c["replicas"].as_array().unwrap() {
                let shown = format!("{}:{}", t["file"].as_str().unwrap(), t["line"]);
                let advised = highs.iter().any(|h| h.ends_with(&shown));
                assert_eq!(t["fixDiff"].is_string(), advised, "{dir}: {t}");
            }
        }
    }
    assert!(state(&r.dir) == before, "the dry runs wrote nothing");
}

/// Apply a unified diff of ours (context, `+` and `-` lines) to `text`, checking every context
/// and removed line.
fn patch(text: &str, diff: &str) -> String {
    let old: Vec<&str> = text.lines().collect();
    let mut out: Vec<String> = Vec::new();
    let mut at = 0;
    for l in diff.lines().skip(2) {
        if let Some(h) = l.strip_prefix("@@ -") {
            let start: usize = h.split([',', ' ']).next().unwrap().parse().unwrap();
            while at + 1 < start {
                out.push(old[at].to_string());
                at += 1;
            }
        } else if let Some(added) = l.strip_prefix('+') {
            out.push(added.to_string());
        } else {
            let (kind, rest) = l.split_at(1);
            assert_eq!(old[at], rest, "the diff's context is the template's");
            if kind == " " {
                out.push(rest.to_string());
            }
            at += 1;
        }
    }
    out.extend(old[at..].iter().map(|s| s.to_string()));
    let mut s = out.join("\n");
    if text.ends_with('\n') {
        s.push('\n');
    }
    s
}

fn set(v: &mut Value, key: &str, to: bool) {
    let mut cur = v;
    for k in key.split('.') {
        cur = cur
            .as_object_mut()
            .unwrap()
            .entry(k.to_string())
            .or_insert(json!({}));
    }
    *cur = Value::Bool(to);
}

/// The Helm sources of the corpus and the values that switch their autoscaling.
const SWITCHES: &[(&str, &[&str])] = &[
    ("podinfo", &["hpa.enabled"]),
    (
        "two-values",
        &["controller.autoscaling.enabled", "controller.keda.enabled"],
    ),
    ("keda", &["autoscaling.enabled", "keda.enabled"]),
    ("loose-guarded", &["autoscaling.enabled"]),
    ("loose-bare", &["hpa.enabled"]),
];

/// Render a source's templates, each suggested guard applied, for every combination of its
/// switches; returns how many guards were applied.
fn render_with_guards(path: &Path, switches: &[&str]) -> usize {
    let dir = path.display().to_string();
    let src = read_manifests(&[path.to_path_buf()], true, &mut std::io::empty());
    assert!(src.errors.is_empty(), "{dir}: {:?}", src.errors);
    let [c] = src.charts.as_slice() else {
        panic!("{dir}: one chart, not {}", src.charts.len())
    };
    let report = scan_chart(c);
    let mut templates = c.templates.clone();
    let mut guards = 0;
    for t in &report.replicas {
        let Some(diff) = &t.fix_diff else { continue };
        let (_, text) = templates.iter_mut().find(|(f, _)| *f == t.file).unwrap();
        *text = patch(text, diff);
        guards += 1;
    }
    let parsed = Templates::parse(&templates).unwrap_or_else(|e| panic!("{dir}: {e:?}"));
    let values: Value = kubectl_hpa::yaml::from_str(&c.values.as_ref().unwrap().1).unwrap();
    let (mut on, mut off) = (0, 0);
    for mask in 0..(1u32 << switches.len()) {
        let mut v = values.clone();
        for (i, k) in switches.iter().enumerate() {
            set(&mut v, k, mask & (1 << i) != 0);
        }
        let rendered = parsed.render(&v).unwrap_or_else(|e| panic!("{dir}: {e:?}"));
        let mut docs: Vec<Value> = Vec::new();
        for (file, text) in &rendered {
            let d: Vec<Value> = kubectl_hpa::yaml::documents(text)
                .unwrap_or_else(|e| panic!("{dir} {v}: {file} does not parse: {e}\n{text}"));
            docs.extend(d.into_iter().filter(|d| !d.is_null()));
        }
        let kind = |d: &Value| d["kind"].as_str().unwrap_or_default().to_string();
        let scaled = docs
            .iter()
            .any(|d| ["HorizontalPodAutoscaler", "ScaledObject"].contains(&kind(d).as_str()));
        let workloads: Vec<&Value> = docs.iter().filter(|d| kind(d) == "Deployment").collect();
        assert!(!workloads.is_empty(), "{dir} {v}");
        for w in workloads {
            let has = w["spec"].get("replicas").is_some();
            assert_eq!(
                has,
                !scaled,
                "{dir} with {}: {} replicas while {} autoscaler is rendered",
                switches
                    .iter()
                    .enumerate()
                    .map(|(i, k)| format!("{k}={}", mask & (1 << i) != 0))
                    .collect::<Vec<_>>()
                    .join(", "),
                if has { "renders" } else { "does not render" },
                if scaled { "an" } else { "no" },
            );
        }
        if scaled {
            on += 1;
        } else {
            off += 1;
        }
    }
    assert!(on > 0 && off > 0, "{dir}: autoscaling both on and off");
    guards
}

#[test]
fn every_suggested_guard_renders_the_hpa_without_replicas_and_replicas_without_it() {
    let mut guards = 0;
    for (dir, switches) in SWITCHES {
        guards += render_with_guards(&data("charts").join(dir), switches);
    }
    assert_eq!(guards, 2, "the keda and loose-bare guards");
}

/// The README's real-chart run (DOCS-migrate.md): the example chart's output is recorded, its
/// guard renders right, and the README's text block, once there, is an excerpt of the output.
#[test]
fn the_readme_chart_run_is_real_output() {
    let chart = "examples/migrate/web-chart";
    let out = crate::support::binary::bare()
        .args(["migrate", "-f", chart, "--offline"])
        .current_dir(root())
        .env("NO_COLOR", "1")
        .env("COLUMNS", "100")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    golden("readme-chart.txt", &text);
    assert!(
        text.contains("      +  {{- if not .Values.autoscaling.enabled }}\n"),
        "{text}"
    );
    assert_eq!(
        render_with_guards(&root().join(chart), &["autoscaling.enabled"]),
        1
    );
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    if let Some(at) = readme.find(&format!("kubectl hpa migrate -f {chart}")) {
        let block = readme[at..]
            .split("```text\n")
            .nth(1)
            .and_then(|b| b.split("\n```").next())
            .unwrap();
        let real: Vec<&str> = text.lines().collect();
        let shown: Vec<&str> = block.lines().filter(|l| l.trim() != "…").collect();
        assert!(
            shown.iter().all(|l| real.contains(l)),
            "the README's migrate block is not the real output: {block}"
        );
    }
}

#[test]
fn the_patch_reader_applies_our_diffs() {
    let t = "a\nb\nc\n";
    let d = "--- f\n+++ f\n@@ -1,3 +1,4 @@\n a\n+x\n b\n c\n";
    assert_eq!(patch(t, d), "a\nx\nb\nc\n");
}
