//! The simulation's runs stay what they were: every case of
//! `tests/simulate_data/regression/cases.txt` is run as the real binary and compared, line by
//! line, with its output recorded before the simulation was made faster (issue 15, §5). A
//! faster engine or core must not change one sync of one run.

use std::io::Read;
use std::path::Path;

const DIR: &str = "tests/simulate_data/regression";

/// The recorded output of a case (gzip-compressed to keep the repository small).
fn recorded(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(DIR)
        .join(format!("{name}.out.gz"));
    let file = std::fs::File::open(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut text = String::new();
    flate2::read::GzDecoder::new(file)
        .read_to_string(&mut text)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text
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
        let theirs = recorded(name);
        if ours == theirs {
            continue;
        }
        let (a, b): (Vec<&str>, Vec<&str>) = (ours.lines().collect(), theirs.lines().collect());
        let line = a.iter().zip(&b).position(|(x, y)| x != y);
        failures.push(match line {
            Some(i) => format!(
                "{name}: line {} differs\n  now:      {}\n  recorded: {}",
                i + 1,
                a[i],
                b[i]
            ),
            None => format!("{name}: {} lines now, {} recorded", a.len(), b.len()),
        });
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
