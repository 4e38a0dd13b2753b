//! The one golden-file helper: an output is compared with the file that recorded it, or, with
//! `UPDATE_GOLDEN=1`, the file is rewritten. `UPDATE_GOLDEN=1 cargo test --locked --test it`
//! regenerates every recorded output (the explain, fleet and help texts of `tests/golden/`,
//! migrate's edits in `tests/migrate_data/expected/`, simulate's recorded runs in
//! `tests/simulate_data/regression/`, and the README's screen of output); review `git diff`
//! before committing.
//!
//! A file whose name ends in `.gz` is stored gzip-compressed (simulate's runs are long).

use std::io::{Read, Write};
use std::path::Path;

/// The variable that turns comparing into recording.
pub const UPDATE: &str = "UPDATE_GOLDEN";

/// Whether this run records (`UPDATE_GOLDEN` set to anything but empty or `0`).
pub fn updating() -> bool {
    std::env::var_os(UPDATE).is_some_and(|v| !v.is_empty() && v != "0")
}

/// The recorded text of `path`, or `None` when there is no such file.
pub fn recorded(path: &Path) -> Option<String> {
    let bytes = std::fs::read(path).ok()?;
    if path.extension().is_some_and(|e| e == "gz") {
        let mut text = String::new();
        flate2::read::GzDecoder::new(&bytes[..])
            .read_to_string(&mut text)
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        return Some(text);
    }
    Some(String::from_utf8(bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display())))
}

fn record(path: &Path, text: &str) {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    }
    let bytes = if path.extension().is_some_and(|e| e == "gz") {
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
        gz.write_all(text.as_bytes()).expect("gzip in memory");
        gz.finish().expect("gzip in memory")
    } else {
        text.as_bytes().to_vec()
    };
    std::fs::write(path, bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
}

/// Where `actual` and `recorded` first differ, in one or three lines.
pub fn difference(actual: &str, recorded: &str) -> String {
    let (a, b): (Vec<&str>, Vec<&str>) = (actual.lines().collect(), recorded.lines().collect());
    match a.iter().zip(&b).position(|(x, y)| x != y) {
        Some(i) => format!(
            "line {} differs\n  now:      {}\n  recorded: {}",
            i + 1,
            a[i],
            b[i]
        ),
        None if a.len() != b.len() => format!("{} lines now, {} recorded", a.len(), b.len()),
        None => "line endings or the final newline differ".to_string(),
    }
}

/// Compare `actual` with the file at `path`, or record it there when [`updating`]. `Err`
/// names the file and the first difference, so a test can collect every stale file before
/// failing.
pub fn compare(path: &Path, actual: &str) -> Result<(), String> {
    check(path, actual, updating())
}

fn check(path: &Path, actual: &str, update: bool) -> Result<(), String> {
    if update {
        if recorded(path).as_deref() != Some(actual) {
            record(path, actual);
        }
        return Ok(());
    }
    match recorded(path) {
        Some(want) if want == actual => Ok(()),
        Some(want) => Err(format!("{}: {}", path.display(), difference(actual, &want))),
        None => Err(format!(
            "{}: no such file ({UPDATE}=1 records it)",
            path.display()
        )),
    }
}

/// Fail with every stale file at once and how to regenerate them.
pub fn assert_none_stale(stale: &[String], what: &str) {
    assert!(
        stale.is_empty(),
        "{what} differs from the recorded files (review, then regenerate with \
         {UPDATE}=1 cargo test --locked --test it):\n{}",
        stale.join("\n")
    );
}

/// [`compare`] one output and fail at once.
pub fn assert_golden(path: &Path, actual: &str) {
    if let Err(e) = compare(path, actual) {
        assert_none_stale(&[e], "the output");
    }
}

#[test]
fn the_golden_helper_compares_and_records() {
    let dir = crate::support::binary::tmpdir("golden-helper");
    for name in ["out.txt", "out.txt.gz"] {
        let path = dir.join(name);
        let missing = check(&path, "a\nb\n", false).unwrap_err();
        assert!(
            missing.ends_with("no such file (UPDATE_GOLDEN=1 records it)"),
            "{missing}"
        );
        check(&path, "a\nb\n", true).expect("records");
        assert_eq!(recorded(&path).as_deref(), Some("a\nb\n"));
        check(&path, "a\nb\n", false).expect("the same");
        let changed = check(&path, "a\nc\n", false).unwrap_err();
        assert!(
            changed.ends_with("line 2 differs\n  now:      c\n  recorded: b"),
            "{changed}"
        );
        let longer = check(&path, "a\nb\nc\n", false).unwrap_err();
        assert!(longer.ends_with("3 lines now, 2 recorded"), "{longer}");
    }
    let gz = std::fs::read(dir.join("out.txt.gz")).expect("gz");
    assert_eq!(&gz[..2], &[0x1f, 0x8b], "stored gzip-compressed");
}
