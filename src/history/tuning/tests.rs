use jiff::{SignedDuration, Timestamp};

use super::*;
use crate::core::{History, Settings};
use crate::history::flaps::flapping_turns;
use crate::history::prom::Grid;
use crate::history::recorded::RecordedMetric;
use crate::history::replay::lead;
use crate::snapshot::Snapshot;

/// HPA web of examples/scale-up-cpu.yaml: 50 % of a 500m CPU request, 2 to 10 replicas, no
/// `spec.behavior` (the controller's 300 s scale-down window).
fn template(at: Timestamp) -> Input {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/scale-up-cpu.yaml");
    let snap = Snapshot::read_sources(&[path.into()]).unwrap();
    snap.input_for("shop", "web", Settings::default(), History::default(), at)
        .unwrap()
}

/// Two hours recorded every 15 s (and the lead before), the CPU total given by `load` of the
/// seconds since the window's start.
fn recorded(template: &Input, at: Timestamp, load: impl Fn(i64) -> f64) -> Recorded {
    let step = SignedDuration::from_secs(15);
    let to = at + SignedDuration::from_hours(2);
    let grid = Grid::new(at, to, step, lead(template));
    let n = grid.len();
    let start = grid.start;
    let lead_secs = at.duration_since(start).as_secs();
    Recorded {
        start,
        step,
        window_start: (lead_secs / 15) as usize,
        desired: vec![Some(4); n],
        current: vec![Some(4); n],
        min: vec![Some(2); n],
        max: vec![Some(10); n],
        ready: vec![Some(4); n],
        metrics: vec![Some(RecordedMetric {
            name: "cpu".into(),
            kind: SeriesKind::Total,
            query: "sum(rate(container_cpu_usage_seconds_total[1m]))".into(),
            values: (0..n)
                .map(|k| Some(load(k as i64 * 15 - lead_secs)))
                .collect(),
            request: vec![Some(0.5); n],
        })],
    }
}

/// 1 core for 10 minutes, 2 cores for 10 minutes, again and again: up on every rise, down
/// 300 s after every fall — six turns an hour.
fn square(t: i64) -> f64 {
    if t.rem_euclid(1200) < 600 {
        1.0
    } else {
        2.0
    }
}

fn at() -> Timestamp {
    "2026-11-01T00:00:00Z".parse().unwrap()
}

#[test]
fn a_square_load_gets_a_longer_scale_down_window_that_removes_the_flaps() {
    let t = template(at());
    let rec = recorded(&t, at(), square);
    let tuning = propose(&t, &rec, 6);
    assert_eq!(tuning.outcome, TuningOutcome::Proposed, "{tuning:#?}");
    let (before, after) = (tuning.before.unwrap(), tuning.after.unwrap());
    assert!(before.flaps >= 6, "{before:?}");
    assert!(before.flaps_per_hour >= 3.0, "{before:?}");
    assert_eq!(after.flaps, 0, "{after:?}");
    assert!(after.over_target_seconds <= before.over_target_seconds);
    let change = tuning.change.as_deref().unwrap();
    assert!(
        change.starts_with("scaleDown.stabilizationWindowSeconds 300 → "),
        "{change}"
    );
    // The first window that works wins: every window tried before it still flapped.
    let (last, earlier) = tuning.tried.split_last().unwrap();
    assert_eq!(last.change, change);
    assert!(earlier.iter().all(|c| c.flaps > 0), "{:?}", tuning.tried);
    let w = tuning.behavior_patch.as_ref().unwrap()["scaleDown"]["stabilizationWindowSeconds"]
        .as_i64()
        .unwrap();
    assert!(change.ends_with(&format!("→ {w}")), "{change}");
    let yaml = tuning.patch_yaml().unwrap();
    assert!(
        yaml.contains("behavior:") && yaml.contains(&format!("stabilizationWindowSeconds: {w}")),
        "{yaml}"
    );
}

#[test]
fn few_turns_are_no_flapping_and_propose_nothing() {
    let t = template(at());
    let rec = recorded(&t, at(), square);
    let tuning = propose(&t, &rec, 2);
    assert_eq!(tuning.outcome, TuningOutcome::NoFlapping);
    assert!(
        tuning.message.starts_with("no flapping"),
        "{}",
        tuning.message
    );
    assert!(tuning.before.is_none() && tuning.behavior_patch.is_none());
}

#[test]
fn a_flapping_history_whose_load_is_steady_is_not_reproduced() {
    let t = template(at());
    let rec = recorded(&t, at(), |_| 1.0);
    let tuning = propose(&t, &rec, 4);
    assert_eq!(tuning.outcome, TuningOutcome::NotReproduced, "{tuning:#?}");
    assert_eq!(tuning.before.unwrap().flaps, 0);
    assert!(tuning.behavior_patch.is_none());
}

#[test]
fn a_missing_load_or_request_says_what_is_missing() {
    let t = template(at());
    let mut rec = recorded(&t, at(), square);
    rec.metrics[0] = None;
    let tuning = propose(&t, &rec, 4);
    assert_eq!(tuning.outcome, TuningOutcome::NotEnoughData);
    assert!(
        tuning.message.contains("--query cpu=PROMQL"),
        "{}",
        tuning.message
    );

    let mut rec = recorded(&t, at(), square);
    rec.metrics[0].as_mut().unwrap().values = vec![None; rec.len()];
    let tuning = propose(&t, &rec, 4);
    assert!(
        tuning.message.contains("no sample was recorded"),
        "{}",
        tuning.message
    );

    let mut t2 = t.clone();
    for p in &mut t2.pods {
        p.containers
            .iter_mut()
            .for_each(|c| c.requests = Default::default());
    }
    let mut rec = recorded(&t2, at(), square);
    rec.metrics[0].as_mut().unwrap().request = vec![None; rec.len()];
    let tuning = propose(&t2, &rec, 4);
    assert!(
        tuning.message.contains("cpu request was not recorded"),
        "{}",
        tuning.message
    );
}

#[test]
fn candidates_come_in_the_documented_order() {
    let mut t = template(at());
    let mut b = Behavior::default();
    b.scale_down.stabilization_window_seconds = Some(900);
    t.hpa.behavior = Some(b);
    let (c, skipped) = candidates(&t);
    let names: Vec<&str> = c.iter().map(|c| c.change.as_str()).collect();
    assert_eq!(
        names[..4],
        [
            "scaleDown.stabilizationWindowSeconds 900 → 1200",
            "scaleDown.stabilizationWindowSeconds 900 → 1800",
            "scaleDown.stabilizationWindowSeconds 900 → 2700",
            "scaleDown.stabilizationWindowSeconds 900 → 3600",
        ]
    );
    assert_eq!(names.last(), Some(&"scaleDown.policies: 1 pod per 300s"));
    let with_tolerance = names.iter().any(|n| n.starts_with("scaleDown.tolerance"));
    assert_eq!(with_tolerance, skipped.is_empty(), "{names:?} {skipped:?}");
    let policy = c.iter().find(|c| c.change.ends_with("per 60s")).unwrap();
    assert_eq!(
        policy.patch,
        json!({"scaleDown": {"policies": [{"type": "Pods", "value": 1, "periodSeconds": 60}]}})
    );
}

#[test]
fn a_flap_is_a_turn_in_an_hour_of_three() {
    let t = |m: i64| at() + SignedDuration::from_mins(m);
    // One rise and fall a day: one turn, no flap.
    assert_eq!(flapping_turns(&[t(0)]), 0);
    // Three turns 50 minutes apart end to end: not within one hour.
    assert_eq!(flapping_turns(&[t(0), t(30), t(60)]), 0);
    assert_eq!(flapping_turns(&[t(0), t(20), t(40), t(200)]), 3);
    assert_eq!(flapping_turns(&[t(0), t(20), t(40), t(59), t(200)]), 4);
}
