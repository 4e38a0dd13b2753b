//! The modelled Kubernetes release: `--kubernetes-version`, else the server's `/version` (live),
//! else the snapshot's recorded server version (offline), else the newest release — for
//! explain (one HPA, fleet, --watch), simulate and the snapshot command; and the feature gates
//! each release refuses.

use crate::support::binary;
use crate::support::fake_apiserver;

use std::path::{Path, PathBuf};

use binary::*;
use fake_apiserver::{FakeApiServer, Fault, Options, PathMatch};
use serde_json::Value;

const GKE: &str = "v1.30.4-gke.1200";

/// `examples/scale-up-cpu.yaml` with the server-version annotation `git` (none: as shipped).
fn annotated(git: Option<&str>, tag: &str) -> PathBuf {
    let text = std::fs::read_to_string(example("scale-up-cpu.yaml")).unwrap();
    let mut doc: Value = kubectl_hpa::yaml::from_str(&text).unwrap();
    if let Some(g) = git {
        doc["metadata"]["annotations"]["kubectl-hpa.dev/server-version"] = Value::from(g);
    }
    let p = tmpdir(tag).join("snap.json");
    std::fs::write(&p, serde_json::to_string(&doc).unwrap()).unwrap();
    p
}

fn offline(snap: &Path, extra: &[&str]) -> std::process::Output {
    let f = snap.to_string_lossy().to_string();
    let mut args = vec![
        "explain",
        "web",
        "-n",
        "shop",
        "--snapshot",
        &f,
        "--now",
        NOW,
    ];
    args.extend(extra);
    run(&args, None)
}

fn settings(v: &Value) -> (String, String) {
    (
        v["settings"]["kubernetesVersion"]
            .as_str()
            .unwrap()
            .to_string(),
        v["settings"]["kubernetesVersionSource"]
            .as_str()
            .unwrap()
            .to_string(),
    )
}

/// The text's header (the HPA and the modelled release), its wrapped lines joined.
fn header(text: &str) -> String {
    text.lines()
        .take_while(|l| !l.starts_with("Verdict:"))
        .map(str::trim)
        .collect::<Vec<_>>()
        .join(" ")
}

/// A refused `--feature-gates`: a usage error (exit 2), on one line.
fn refused(out: &std::process::Output, what: &str) -> String {
    assert_eq!(out.status.code(), Some(2), "{what}: {}", stderr(out));
    let e = stderr(out);
    assert_eq!(e.trim().lines().count(), 1, "{what}: one line: {e}");
    e
}

#[test]
fn offline_the_snapshot_server_version_is_modelled() {
    let snap = annotated(Some(GKE), "offline-gke");
    let v = ok_json(&offline(&snap, &["-o", "json"]), "offline gke");
    assert_eq!(
        settings(&v),
        ("1.30".into(), format!("snapshot server-version {GKE}"))
    );
    // 1.30 has no HPAConfigurableTolerance gate, and the legacy tolerance test.
    assert_eq!(
        v["settings"]["featureGates"]["HPAConfigurableTolerance"],
        false
    );
    assert_eq!(v["tolerance"]["legacyAbs"], true);
    let text = ok(&offline(&snap, &[]), "offline gke text");
    assert!(
        header(&text).contains(&format!(
            "controller of Kubernetes 1.30 — snapshot server-version {GKE}"
        )),
        "{text}"
    );
}

#[test]
fn offline_the_flag_wins_and_no_annotation_means_the_newest_release() {
    let snap = annotated(Some(GKE), "offline-flag");
    let v = ok_json(
        &offline(&snap, &["--kubernetes-version", "1.33", "-o", "json"]),
        "flag",
    );
    assert_eq!(
        settings(&v),
        ("1.33".into(), "flag --kubernetes-version 1.33".into())
    );
    let plain = annotated(None, "offline-plain");
    let v = ok_json(&offline(&plain, &["-o", "json"]), "no annotation");
    assert_eq!(
        settings(&v),
        ("1.37".into(), "default: newest release".into())
    );
    let text = ok(&offline(&plain, &[]), "no annotation text");
    assert!(
        text.contains("controller of Kubernetes 1.37 — default: newest release"),
        "{text}"
    );
}

#[test]
fn offline_a_too_old_server_is_modelled_as_the_oldest_release_and_named() {
    let snap = annotated(Some("v1.21.14"), "offline-old");
    let v = ok_json(&offline(&snap, &["-o", "json"]), "old");
    let (version, source) = settings(&v);
    assert_eq!(version, "1.23");
    assert_eq!(
        source,
        "snapshot server-version v1.21.14, older than the oldest modelled release: modelled as 1.23"
    );
    let text = ok(&offline(&snap, &[]), "old text");
    assert!(header(&text).contains("v1.21.14"), "{text}");
}

#[test]
fn gates_are_checked_against_the_modelled_release() {
    let plain = annotated(None, "gates-plain");
    // Locked on in 1.37 (the default release).
    let e = refused(
        &offline(
            &plain,
            &["--feature-gates", "HPAConfigurableTolerance=false"],
        ),
        "locked",
    );
    assert!(
        e.contains(
            "cannot set feature gate HPAConfigurableTolerance to false, feature is locked to true"
        ),
        "{e}"
    );
    // Not yet in 1.30, the snapshot's release.
    let gke = annotated(Some(GKE), "gates-gke");
    let e = refused(
        &offline(&gke, &["--feature-gates", "HPAConfigurableTolerance=true"]),
        "absent",
    );
    assert!(
        e.contains("unrecognized feature gate: HPAConfigurableTolerance (Kubernetes 1.30, snapshot server-version v1.30.4-gke.1200"),
        "{e}"
    );
    // Not in 1.31 (flag), checked before anything is read.
    let e = refused(
        &run(
            &[
                "explain",
                "web",
                "--snapshot",
                "/nonexistent.yaml",
                "--kubernetes-version",
                "1.31",
                "--feature-gates",
                "PodLevelResources=true",
            ],
            None,
        ),
        "absent flag",
    );
    assert!(
        e.contains("unrecognized feature gate: PodLevelResources"),
        "{e}"
    );
    // 1.36 still allows turning it off.
    let v = ok_json(
        &offline(
            &gke,
            &[
                "--kubernetes-version",
                "1.36",
                "--feature-gates",
                "HPAConfigurableTolerance=false",
                "-o",
                "json",
            ],
        ),
        "1.36 off",
    );
    assert_eq!(
        v["settings"]["featureGates"]["HPAConfigurableTolerance"],
        false
    );
    // Unknown names are refused whatever the release.
    let e = refused(
        &offline(&plain, &["--feature-gates", "Nope=true"]),
        "unknown",
    );
    assert!(e.contains("unknown feature gate"), "{e}");
}

#[test]
fn simulate_from_a_snapshot_models_its_server_version() {
    let snap = annotated(Some(GKE), "simulate-gke");
    let f = snap.to_string_lossy().to_string();
    let v = ok_json(
        &run(
            &[
                "simulate",
                "web",
                "-n",
                "shop",
                "--snapshot",
                &f,
                "--duration",
                "1m",
                "-o",
                "json",
            ],
            None,
        ),
        "simulate",
    );
    assert_eq!(
        settings(&v),
        ("1.30".into(), format!("snapshot server-version {GKE}"))
    );
}

// ------------------------------------------------------------------ live, fake API server

struct Cluster {
    server: FakeApiServer,
    kubeconfig: PathBuf,
}

fn cluster(git: &str, tag: &str) -> Cluster {
    let server = FakeApiServer::from_snapshot_file_with(
        example("scale-up-cpu.yaml"),
        Options {
            git_version: Some(git.into()),
            ..Options::default()
        },
    );
    let kubeconfig = server.write_kubeconfig(&tmpdir(tag));
    Cluster { server, kubeconfig }
}

impl Cluster {
    fn run(&self, args: &[&str]) -> std::process::Output {
        run(args, Some(&self.kubeconfig))
    }
    fn explain(&self, extra: &[&str]) -> std::process::Output {
        let mut args = vec!["explain", "web", "-n", "shop", "--now", NOW];
        args.extend(extra);
        self.run(&args)
    }
}

#[test]
fn live_the_server_version_is_modelled() {
    let c = cluster(GKE, "live-gke");
    let v = ok_json(&c.explain(&["-o", "json"]), "live gke");
    assert_eq!(
        settings(&v),
        ("1.30".into(), format!("server /version {GKE}"))
    );
    let text = ok(&c.explain(&[]), "live gke text");
    assert!(
        header(&text).contains(&format!(
            "controller of Kubernetes 1.30 — server /version {GKE}"
        )),
        "{text}"
    );
    // The flag wins.
    let v = ok_json(
        &c.explain(&["--kubernetes-version", "1.34", "-o", "json"]),
        "live flag",
    );
    assert_eq!(
        settings(&v),
        ("1.34".into(), "flag --kubernetes-version 1.34".into())
    );
    // The fleet overview models the same release for each HPA.
    let fleet = ok_json(&c.run(&["explain", "-n", "shop", "-o", "json"]), "fleet");
    let items = fleet["items"].as_array().unwrap();
    assert!(!items.is_empty());
    for i in items {
        assert_eq!(settings(&i["decision"]).0, "1.30", "{i}");
    }
    // simulate of the live HPA too.
    let v = ok_json(
        &c.run(&[
            "simulate",
            "web",
            "-n",
            "shop",
            "--now",
            NOW,
            "--duration",
            "1m",
            "-o",
            "json",
        ]),
        "live simulate",
    );
    assert_eq!(
        settings(&v),
        ("1.30".into(), format!("server /version {GKE}"))
    );
}

#[test]
fn live_gates_are_checked_against_the_server_release() {
    let c = cluster(GKE, "live-gates");
    let gate = ["--feature-gates", "HPAConfigurableTolerance=true"];
    let e = refused(&c.explain(&gate), "live explain");
    assert!(
        e.contains("(Kubernetes 1.30, server /version v1.30.4-gke.1200"),
        "{e}"
    );
    let e = refused(
        &c.run(&[
            "explain",
            "web",
            "-n",
            "shop",
            "--watch-count",
            "1",
            gate[0],
            gate[1],
        ]),
        "watch",
    );
    assert!(e.contains("unrecognized feature gate"), "{e}");
    let e = refused(
        &c.run(&["explain", "-n", "shop", gate[0], gate[1]]),
        "fleet",
    );
    assert!(e.contains("unrecognized feature gate"), "{e}");
}

#[test]
fn live_a_too_old_server_is_named() {
    let c = cluster("v1.21.14", "live-old");
    let v = ok_json(&c.explain(&["-o", "json"]), "live old");
    assert_eq!(
        settings(&v),
        (
            "1.23".into(),
            "server /version v1.21.14, older than the oldest modelled release: modelled as 1.23"
                .into()
        )
    );
}

#[test]
fn snapshot_records_the_server_version_and_explain_models_it() {
    let c = cluster(GKE, "snapshot-gke");
    let doc = ok(&c.run(&["snapshot", "web", "-n", "shop"]), "snapshot");
    assert!(
        doc.contains(&format!("kubectl-hpa.dev/server-version: {GKE}")),
        "{doc}"
    );
    let p = tmpdir("snapshot-gke").join("taken.yaml");
    std::fs::write(&p, doc).unwrap();
    let v = ok_json(&offline(&p, &["-o", "json"]), "offline of snapshot");
    assert_eq!(
        settings(&v),
        ("1.30".into(), format!("snapshot server-version {GKE}"))
    );
}

#[test]
fn live_an_unreadable_server_version_is_said() {
    let c = cluster(GKE, "live-no-version");
    c.server
        .inject(PathMatch::exact("/version"), Fault::Status(500));
    let v = ok_json(&c.explain(&["-o", "json"]), "live no version");
    assert_eq!(
        settings(&v),
        (
            "1.37".into(),
            "default: newest release (the server's /version could not be read)".into()
        )
    );
}
