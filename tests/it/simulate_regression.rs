//! The simulation's runs stay what they were: every case of
//! `tests/simulate_data/regression/cases.txt` is run as the real binary and compared, line by
//! line, with its output recorded before the simulation was made faster (issue 15, §5). A
//! faster engine or core must not change one sync of one run. After a deliberate change,
//! `UPDATE_GOLDEN=1 cargo test --locked --test it simulate_regression::` records the runs again
//! (`tests/support/golden.rs`); compare the old and new runs (`zdiff`) before committing.

use std::path::{Path, PathBuf};

const DIR: &str = "tests/simulate_data/regression";

/// The file recording a case's output (gzip-compressed to keep the repository small).
fn recorded_path(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(DIR)
        .join(format!("{name}.out.gz"))
}

/// The cases: (name, arguments), `-o csv` added unless the case names an output.
fn cases() -> Vec<(String, Vec<String>)> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(DIR)
        .join("cases.txt");
    let text = std::fs::read_to_string(path).expect("cases.txt");
    text.lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| {
            let mut words = l.split_whitespace().map(str::to_string);
            let name = words.next().expect("a name");
            let mut args: Vec<String> = words.collect();
            if !args.iter().any(|a| a == "-o") {
                args.extend(["-o".to_string(), "csv".to_string()]);
            }
            (name, args)
        })
        .collect()
}

#[test]
fn every_recorded_run_is_reproduced_sync_by_sync() {
    let cases = cases();
    assert!(cases.len() >= 20, "the cases file lists the runs");
    let mut failures = Vec::new();
    for (name, args) in &cases {
        let out = crate::support::binary::bare()
            .args(args)
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .env("NO_COLOR", "1")
            .output()
            .expect("the binary runs");
        assert!(
            out.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let ours = String::from_utf8(out.stdout).expect("UTF-8 output");
        if let Err(e) = crate::support::golden::compare(&recorded_path(name), &ours) {
            failures.push(e);
        }
    }
    crate::support::golden::assert_none_stale(&failures, "a simulate run");
}
