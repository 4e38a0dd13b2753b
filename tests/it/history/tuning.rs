//! `kubectl hpa history --prometheus` on a flapping HPA (issue 31 item 4): the CPU demand of
//! examples/scale-up-cpu.yaml alternates 1 and 2 cores every 10 minutes for two hours, so the
//! controller (300 s scale-down window) scales up on every rise and down 5 minutes after every
//! fall. The series are what kube-state-metrics and cAdvisor would have recorded of our own
//! `simulate` run (as in `replay.rs`). The history proposes a change of `spec.behavior`; this
//! test then re-simulates the proposed behaviour itself with `simulate` over the same demand
//! and checks the flaps are gone and the time over target is not worse.

use jiff::{SignedDuration, Timestamp};
use serde_json::Value;

use super::replay::{history_until, rows, series, simulated, Tick};
use crate::support::binary::{example, ok, ok_json, tmpdir};
use crate::support::prometheus::{prometheus, recording_requested, PromStandin};

const TO: &str = "2026-11-01T01:59:45Z";

/// 1 core for 10 minutes, 2 cores for 10 minutes, for two hours.
fn demand() -> String {
    let mut csv = String::from("time,value\n");
    for i in 0..=12 {
        csv.push_str(&format!("{},{}\n", i * 600, if i % 2 == 0 { 1 } else { 2 }));
    }
    csv
}

/// The turns of a run that belong to an hour holding three or more (the history's flaps), and
/// the seconds over target.
fn flaps_and_over_target(ticks: &[Tick]) -> (usize, i64) {
    let mut turns = Vec::new();
    let mut last = 0;
    for t in ticks {
        let d = (t.after - t.before).signum();
        if d != 0 {
            if last != 0 && d != last {
                turns.push(t.offset);
            }
            last = d;
        }
    }
    let mut flap = vec![false; turns.len()];
    for j in 0..turns.len().saturating_sub(2) {
        if turns[j + 2] - turns[j] < 3600 {
            flap[j..j + 3].iter_mut().for_each(|f| *f = true);
        }
    }
    let over = ticks.iter().filter(|t| t.over_target).count() as i64 * 15;
    (flap.iter().filter(|f| **f).count(), over)
}

/// examples/scale-up-cpu.yaml with `behavior` (JSON, which is YAML) in the HPA's spec.
fn with_behavior(behavior: &Value) -> std::path::PathBuf {
    let text = std::fs::read_to_string(example("scale-up-cpu.yaml")).unwrap();
    let patched = text.replacen(
        "  spec:\n    maxReplicas: 10\n",
        &format!("  spec:\n    behavior: {behavior}\n    maxReplicas: 10\n"),
        1,
    );
    assert_ne!(patched, text, "the HPA's spec is where the test expects it");
    let path = tmpdir("history-tuning").join("tuned.yaml");
    std::fs::write(&path, patched).unwrap();
    path
}

fn a_flapping_hpa_gets_a_proposal_that_re_simulated_removes_the_flaps(url: &str) {
    let base = simulated(&example("scale-up-cpu.yaml"), &demand(), "120m");
    let (base_flaps, base_over) = flaps_and_over_target(&base);
    assert!(base_flaps >= 6, "the scenario flaps: {base_flaps}");

    let v = ok_json(&history_until(url, TO, &["-o", "json"]), "history");
    assert_eq!(
        v["replay"]["summary"]["flapping"], true,
        "{:#}",
        v["replay"]["summary"]
    );
    let t = &v["tuning"];
    assert_eq!(t["outcome"], "proposed", "{t:#}");
    assert_eq!(t["flappingThresholdPerHour"], 3);
    assert!(t["before"]["flaps"].as_u64().unwrap() > 0, "{t:#}");
    assert_eq!(t["after"]["flaps"], 0, "{t:#}");
    let change = t["change"].as_str().unwrap();
    assert!(
        change.starts_with("scaleDown.stabilizationWindowSeconds 300 → "),
        "the first candidates are the scale-down windows: {change}"
    );

    // Re-simulated here, from the patch alone: no flaps, no more time over target.
    let tuned = simulated(&with_behavior(&t["behaviorPatch"]), &demand(), "120m");
    let (flaps, over) = flaps_and_over_target(&tuned);
    assert_eq!(
        flaps, 0,
        "the proposed behaviour {} still flaps",
        t["behaviorPatch"]
    );
    assert!(over <= base_over, "time over target {over}s > {base_over}s");

    // The text: the flapping line, the table and the patch.
    let text = ok(&history_until(url, TO, &[]), "history (text)");
    for want in [
        "Flapping: the direction turned",
        &format!("Tuning: {change} removes the flaps"),
        "flaps/hour",
        "time over target",
        "  spec:\n    behavior:\n      scaleDown:\n        stabilizationWindowSeconds: ",
        "kubectl patch hpa web -n shop --type merge --patch-file patch.yaml",
    ] {
        assert!(text.contains(want), "{want:?} in\n{text}");
    }
    assert!(text.lines().all(|l| l.chars().count() <= 100), "{text}");
}

/// A window without flapping says so and proposes nothing (the first 15 minutes: one rise).
fn a_window_without_flapping_proposes_nothing(url: &str) {
    let to = (TO.parse::<Timestamp>().unwrap() - SignedDuration::from_mins(105)).to_string();
    let v = ok_json(&history_until(url, &to, &["-o", "json"]), "history");
    let t = &v["tuning"];
    assert_eq!(t["outcome"], "noFlapping", "{t:#}");
    assert!(
        t["message"].as_str().unwrap().starts_with("no flapping"),
        "{t:#}"
    );
    assert!(t.get("behaviorPatch").is_none(), "{t:#}");
}

fn openmetrics() -> String {
    let ticks = simulated(&example("scale-up-cpu.yaml"), &demand(), "120m");
    series(&rows(&ticks))
}

against_both!(
    "history_tuning_", |_name| super::openmetrics();
    a_flapping_hpa_gets_a_proposal_that_re_simulated_removes_the_flaps,
    a_window_without_flapping_proposes_nothing,
);
