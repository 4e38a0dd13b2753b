//! Shared harness for the tests that run the real binary against the fake API server:
//! the examples, scratch directories, and running `kubectl-hpa` without the user's kubeconfig.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

/// The evaluation time of every example.
pub const NOW: &str = "2026-03-01T12:00:00Z";

/// (HPA, example file) for every example; all in namespace `shop`.
pub const EXAMPLES: &[(&str, &str)] = &[
    ("web", "scale-up-cpu.yaml"),
    ("api", "hold-within-tolerance.yaml"),
    ("cart", "unready-pods-damp-scale-up.yaml"),
    ("search", "missing-metrics-block-scale-down.yaml"),
    ("orders", "several-metrics.yaml"),
    ("reviews", "sidecar-without-cpu-request.yaml"),
    ("frontend", "scale-down-stabilized.yaml"),
    ("session-cache", "statefulset-memory.yaml"),
    ("checkout", "custom-resource-scale.yaml"),
];

pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

pub fn example(file: &str) -> PathBuf {
    root().join("examples").join(file)
}

/// A scratch directory per test binary, tag, process and thread, under one parent directory per
/// process (`kubectl-hpa-<binary>-<pid>`). The first call removes the parents of earlier runs
/// whose process is gone, so scratch space does not pile up in the temporary directory run after
/// run (a test may keep files in its directory until the process ends: kubeconfigs, snapshots).
pub fn tmpdir(tag: &str) -> PathBuf {
    static PARENT: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    let parent = PARENT.get_or_init(|| {
        let prefix = format!("kubectl-hpa-{}-", env!("CARGO_CRATE_NAME"));
        remove_stale_parents(&prefix);
        std::env::temp_dir().join(format!("{prefix}{}", std::process::id()))
    });
    let d = parent.join(format!("{tag}-{:?}", std::thread::current().id()));
    std::fs::create_dir_all(&d).expect("tmp dir");
    d
}

/// Removes `<temp>/<prefix><pid>` directories whose process no longer runs (Linux: no
/// `/proc/<pid>`; elsewhere nothing is removed). Errors are ignored: another run may be removing
/// the same directory.
fn remove_stale_parents(prefix: &str) {
    if !Path::new("/proc/self").exists() {
        return;
    }
    let Ok(entries) = std::fs::read_dir(std::env::temp_dir()) else {
        return;
    };
    for e in entries.flatten() {
        let name = e.file_name();
        let Some(pid) = name.to_str().and_then(|n| n.strip_prefix(prefix)) else {
            continue;
        };
        if pid.parse::<u32>().is_ok() && !Path::new("/proc").join(pid).exists() {
            let _ = std::fs::remove_dir_all(e.path());
        }
    }
}

/// The path of the binary under test.
pub const BIN: &str = env!("CARGO_BIN_EXE_kubectl-hpa");

/// The binary as the environment of the test leaves it (for the tests of colour, terminals and
/// the environment itself); most tests want [`cmd`].
pub fn bare() -> Command {
    Command::new(BIN)
}

/// The binary with no colour and no access to the user's kubeconfig.
pub fn cmd(args: &[&str], kubeconfig: Option<&Path>) -> Command {
    let mut c = bare();
    c.args(args)
        .current_dir(root())
        .env("NO_COLOR", "1")
        .env_remove("KUBECONFIG")
        .env("HOME", root().join("tests/live-no-home"));
    if let Some(k) = kubeconfig {
        c.arg("--kubeconfig").arg(k);
    }
    c
}

pub fn run(args: &[&str], kubeconfig: Option<&Path>) -> Output {
    cmd(args, kubeconfig).output().expect("binary runs")
}

/// Stdout of a successful run.
pub fn ok(out: &Output, what: &str) -> String {
    assert!(
        out.status.success(),
        "{what} failed ({:?}): {}",
        out.status.code(),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).to_string()
}

/// Stdout of a successful run, as JSON.
pub fn ok_json(out: &Output, what: &str) -> Value {
    let s = ok(out, what);
    serde_json::from_str(&s).unwrap_or_else(|e| panic!("{what}: not JSON ({e}): {s}"))
}

pub fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).to_string()
}

/// The fields `keys` of a decision's JSON, its pod rows sorted by name (an API server lists pods
/// by name; a file may hold them in any order): what must agree between two ways of deciding.
pub fn decision_parts(v: &Value, keys: &[&str]) -> Value {
    let mut d = serde_json::Map::new();
    for k in keys {
        d.insert((*k).into(), v[*k].clone());
    }
    for m in d
        .get_mut("metrics")
        .and_then(Value::as_array_mut)
        .into_iter()
        .flatten()
    {
        if let Some(pods) = m
            .pointer_mut("/calculation/pods")
            .and_then(Value::as_array_mut)
        {
            pods.sort_by_key(|p| p["pod"].as_str().unwrap_or_default().to_string());
        }
    }
    Value::Object(d)
}
