//! `--metrics-lag` (issue 31, the matching): the replay reads each metric that long before
//! each sync. On the replay scenario's recorded answers (the cAdvisor series already lag one
//! sync, as the simulated controller's metrics did), a further lag of one sync makes the replay
//! see each step one sync after the controller did.

use serde_json::Value;

use super::replay::{history_until, TO};
use crate::support::binary::{ok_json, stderr};
use crate::support::prometheus::PromStandin;

const RECORDED: &str = "history_every_scale_event_is_explained_and_the_manual_scale_is_not";

fn controller_changes(v: &Value) -> Vec<Value> {
    v["replay"]["changes"]
        .as_array()
        .expect("replay.changes")
        .iter()
        .filter(|c| c["by"] == "controller")
        .cloned()
        .collect()
}

#[test]
fn a_metrics_lag_of_one_sync_reads_each_step_one_sync_later() {
    let s = PromStandin::replay(RECORDED);
    let plain = ok_json(&history_until(&s.url, TO, &["-o", "json"]), "history");
    let lagged = ok_json(
        &history_until(&s.url, TO, &["--metrics-lag", "15s", "-o", "json"]),
        "history --metrics-lag 15s",
    );
    let (p, l) = (controller_changes(&plain), controller_changes(&lagged));
    assert_eq!(p.len(), 4, "{p:#?}");
    assert_eq!(l.len(), 4, "{l:#?}");
    let at = |v: &[Value], time: &str| -> (Value, Value, Value) {
        let c = v
            .iter()
            .find(|c| c["time"] == time)
            .unwrap_or_else(|| panic!("no change at {time}: {v:#?}"));
        (
            c["verdict"].clone(),
            c["offsetSyncs"].clone(),
            c["rule"].clone(),
        )
    };
    // The scale-up 3 → 6: replayed at its sync; lagged, the replay still reads the low load
    // there (within tolerance) and moves from its own 3 one sync later.
    assert_eq!(
        at(&p, "2026-11-01T00:20:15Z"),
        ("explained".into(), 0.into(), "ScaleUpLimit".into())
    );
    assert_eq!(
        at(&l, "2026-11-01T00:20:15Z"),
        ("explained".into(), 1.into(), "Tolerance".into())
    );
    // The scale-down 10 → 4: one sync late, lagged two: "explained later".
    assert_eq!(at(&p, "2026-11-01T01:05:15Z").1, 1);
    let (verdict, offset, _) = at(&l, "2026-11-01T01:05:15Z");
    assert_eq!((verdict, offset), ("explainedLater".into(), 2.into()));
    s.assert_every_request_answered();
}

#[test]
fn a_bad_metrics_lag_is_one_line_naming_the_flag() {
    let s = PromStandin::replay(RECORDED);
    let out = history_until(&s.url, TO, &["--metrics-lag", "soon"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let err = stderr(&out);
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(
        err.contains("--metrics-lag: invalid duration \"soon\""),
        "{err}"
    );
}
