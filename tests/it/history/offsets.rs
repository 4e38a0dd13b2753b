//! "Explained later" (issue 31 item 2): the scenario of `replay.rs` (no manual scale) with the
//! recorded scale-down 10 → 4 moved earlier than the controller decided it — as a controller
//! whose metrics arrive sooner than the replay's CPU rate does would. Only a replayed move
//! explains a change: from the recorded replicas, or — at the syncs after the change, where the
//! recorded replicas are already 4 — from the replay's own size (10), evaluated a second time on
//! the same data. The replay already moves 10 → 4 one sync late (the rate over 30 s still holds
//! the last high sample: "explained", within one sync); with the change recorded one sync
//! earlier, the replay at its own 10 moves to 4 two syncs after it: "explained later (2
//! sync(s))", within the metric window (two syncs with `--rate-window 30s`); two syncs earlier,
//! it is three syncs, outside the window: "not explained" (the data were there: flags that
//! differ). The converse, "explained earlier", is covered on the matching itself
//! (`history::matching` unit tests): a replay that moves to the size before the recorded change
//! and no longer at it (the load turned in between).

use jiff::Timestamp;
use serde_json::Value;

use super::replay::{history_until, rows, scenario, series, t0, Tick};
use crate::support::binary::{ok, ok_json};
use crate::support::prometheus::{prometheus, recording_requested, PromStandin};

const TO: &str = "2026-11-01T01:39:45Z";

/// The scenario with its scale-down 10 → 4 recorded `by` syncs early: the HPA's desired
/// replicas and the target's replicas change `by` syncs before the simulated controller's.
fn early(by: usize) -> (Vec<Tick>, i64) {
    let mut ticks = scenario();
    let i = ticks
        .iter()
        .position(|t| (t.before, t.after) == (10, 4))
        .expect("the scenario scales down 10 → 4");
    for t in &mut ticks[i - by..i] {
        t.after = 4;
    }
    for t in &mut ticks[i - by + 1..=i] {
        t.before = 4;
        t.ready = 4;
    }
    let at = ticks[i - by].offset;
    (ticks, at)
}

fn change_at(v: &Value, offset: i64) -> Value {
    let at = Timestamp::from_second(t0() + offset).unwrap().to_string();
    v["replay"]["changes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["time"] == at.as_str() && c["by"] == "controller")
        .unwrap_or_else(|| panic!("no controller change at {at}: {:#}", v["replay"]["changes"]))
        .clone()
}

fn a_change_recorded_one_sync_early_is_explained_later(url: &str) {
    let (_, at) = early(1);
    let v = ok_json(&history_until(url, TO, &["-o", "json"]), "history");
    let c = change_at(&v, at);
    assert_eq!(
        (c["from"].as_i64(), c["to"].as_i64()),
        (Some(10), Some(4)),
        "{c:#}"
    );
    assert_eq!(c["verdict"], "explainedLater", "{c:#}");
    assert_eq!(c["offsetSyncs"], 2, "{c:#}");
    assert_eq!(v["replay"]["summary"]["explainedLater"], 1);
    let text = ok(&history_until(url, TO, &[]), "history (text)");
    assert!(
        text.lines()
            .any(|l| l.contains("10 → 4 ↓") && l.contains("explained later (2 sync(s))")),
        "{text}"
    );
}

fn a_change_recorded_two_syncs_early_is_outside_the_window(url: &str) {
    let (_, at) = early(2);
    let v = ok_json(&history_until(url, TO, &["-o", "json"]), "history");
    let c = change_at(&v, at);
    assert_eq!(
        (&c["verdict"], &c["cause"]),
        (&"notExplained".into(), &"flagsDiffer".into()),
        "{c:#}"
    );
    assert_eq!(c["offsetSyncs"], Value::Null, "{c:#}");
}

fn openmetrics(name: &str) -> String {
    let by = if name.contains("two_syncs") { 2 } else { 1 };
    series(&rows(&early(by).0))
}

against_both!(
    "history_offsets_", |name| super::openmetrics(name);
    a_change_recorded_one_sync_early_is_explained_later,
    a_change_recorded_two_syncs_early_is_outside_the_window,
);
