use jiff::Timestamp;

use super::rows::{decided_by, metric_name, ScaleDirection};
use super::*;

fn t(s: &str) -> Timestamp {
    format!("2026-03-01T{s}Z").parse().unwrap()
}

fn rec(size: i32, reason: &str, first: &str, last: &str, count: u32) -> RescaleRecord {
    RescaleRecord {
        new_size: size,
        reason: reason.into(),
        first: t(first),
        last: t(last),
        count,
    }
}

const CPU_UP: &str = "cpu resource utilization (percentage of request) above target";
const DOWN: &str = "All metrics below target";

fn evidence(records: &[RescaleRecord]) -> Evidence {
    Evidence {
        namespace: "shop".into(),
        name: "web".into(),
        target_replicas: None,
        last_scale_time: None,
        conditions: vec![],
        rescales: records.to_vec(),
    }
}

fn all() -> Window {
    Window {
        from: None,
        to: t("12:00:00"),
    }
}

#[test]
fn the_metric_is_read_from_each_of_the_controllers_descriptions() {
    for (d, m) in [
        ("cpu resource utilization (percentage of request)", "cpu"),
        ("memory resource", "memory"),
        (
            "cpu container resource utilization (percentage of request)",
            "cpu",
        ),
        ("pods metric http_requests", "http_requests"),
        ("Service metric requests-per-second", "requests-per-second"),
        (
            "external metric queue_depth(&LabelSelector{MatchLabels:map[q:a],})",
            "queue_depth",
        ),
    ] {
        assert_eq!(metric_name(d), m, "{d}");
    }
    assert_eq!(decided_by(DOWN).2, ScaleDirection::Down);
    assert_eq!(
        decided_by("Current number of replicas above Spec.MaxReplicas").0,
        "maxReplicas"
    );
    assert_eq!(decided_by("something new").0, "unknown");
}

#[test]
fn sizes_chain_from_one_event_to_the_next() {
    let r = [
        rec(5, CPU_UP, "10:00:00", "10:00:00", 1),
        rec(3, DOWN, "10:20:00", "10:20:00", 1),
    ];
    let h = build(&evidence(&r), all());
    assert_eq!(h.rows.len(), 2);
    assert_eq!((h.rows[0].from, h.rows[0].to), (None, 5));
    assert_eq!(
        h.rows[0].direction,
        ScaleDirection::Up,
        "the reason says up"
    );
    assert!(
        !h.rows[0].explained,
        "the size before is older than every Event"
    );
    assert_eq!((h.rows[1].from, h.rows[1].to), (Some(5), 3));
    assert!(h.rows[1].explained);
    assert_eq!(h.rows[1].metric, None);
    assert_eq!((h.summary.up, h.summary.down), (1, 1));
    assert_eq!(h.summary.direction_changes, 1);
}

#[test]
fn an_aggregated_event_is_expanded_into_its_first_last_and_untimed_rescales() {
    // 5 at 10:00, 3 at 10:10, 5 at 10:20, 3 at 10:30, 5 at 10:40: the API server keeps one Event
    // for "New size: 5" with count 3 (first 10:00, last 10:40) and one for 3 with count 2.
    let r = [
        rec(5, CPU_UP, "10:00:00", "10:40:00", 3),
        rec(3, DOWN, "10:10:00", "10:30:00", 2),
    ];
    let h = build(&evidence(&r), all());
    let shape: Vec<(Option<Timestamp>, Option<i32>, i32, u32)> = h
        .rows
        .iter()
        .map(|r| (r.time, r.from, r.to, r.count))
        .collect();
    assert_eq!(
        shape,
        vec![
            (Some(t("10:00:00")), None, 5, 1),
            (None, None, 5, 1),
            (Some(t("10:10:00")), None, 3, 1),
            (Some(t("10:30:00")), None, 3, 1),
            (Some(t("10:40:00")), None, 5, 1),
        ]
    );
    // The untimed rescale to 5 may lie anywhere in 10:00–10:40: no `from` after 10:00 is known.
    assert!(h.rows.iter().all(|r| !r.explained));
    assert_eq!(h.summary.scale_events, 5);
}

#[test]
fn direction_turns_within_an_hour_are_flapping() {
    // Distinct sizes give distinct messages, so each change is its own Event.
    let r = [
        rec(6, CPU_UP, "10:00:00", "10:00:00", 1),
        rec(3, DOWN, "10:10:00", "10:10:00", 1),
        rec(7, CPU_UP, "10:20:00", "10:20:00", 1),
        rec(4, DOWN, "10:30:00", "10:30:00", 1),
        rec(8, CPU_UP, "10:40:00", "10:40:00", 1),
    ];
    let h = build(&evidence(&r), all());
    assert_eq!(h.summary.direction_changes, 4);
    assert_eq!(h.summary.max_direction_changes_per_hour, 4);
    assert!(h.summary.flapping);
    // Events only: the flapping is seen, the load to re-simulate is not.
    assert_eq!(h.tuning.outcome, tuning::TuningOutcome::NotEnoughData);
    assert!(
        h.tuning.message.contains("give --prometheus URL"),
        "{}",
        h.tuning.message
    );
    let text = text::render(&h, t("12:00:00"), 80);
    assert!(
        text.contains("Tuning: flapping (4 direction changes"),
        "{text}"
    );
    let spread = [
        rec(6, CPU_UP, "08:00:00", "08:00:00", 1),
        rec(3, DOWN, "09:30:00", "09:30:00", 1),
        rec(6, CPU_UP, "11:00:00", "11:00:00", 1),
    ];
    let h = build(&evidence(&spread), all());
    assert_eq!(h.summary.direction_changes, 2);
    assert!(
        !h.summary.flapping,
        "two turns 90 minutes apart are not flapping"
    );
    assert_eq!(h.tuning.outcome, tuning::TuningOutcome::NoFlapping);
}

#[test]
fn a_target_changed_since_the_last_rescale_is_named() {
    let r = [rec(5, CPU_UP, "10:00:00", "10:00:00", 1)];
    let mut e = evidence(&r);
    e.target_replicas = Some(8);
    e.last_scale_time = Some(t("10:00:00"));
    let h = build(&e, all());
    assert!(
        h.notes
            .iter()
            .any(|n| n.contains("8 replicas") && n.contains("manual scale")),
        "{:?}",
        h.notes
    );
    e.target_replicas = Some(5);
    e.last_scale_time = Some(t("11:00:00"));
    let h = build(&e, all());
    assert!(
        !h.notes.iter().any(|n| n.contains("manual")),
        "{:?}",
        h.notes
    );
    assert!(
        h.notes.iter().any(|n| n.contains("lastScaleTime")),
        "{:?}",
        h.notes
    );
}

#[test]
fn the_window_leaves_out_older_rows_and_says_so() {
    let r = [
        rec(5, CPU_UP, "09:00:00", "09:00:00", 1),
        rec(3, DOWN, "11:00:00", "11:00:00", 1),
    ];
    let w = Window {
        from: Some(t("10:00:00")),
        to: t("12:00:00"),
    };
    let h = build(&evidence(&r), w);
    assert_eq!(h.rows.len(), 1);
    assert_eq!(
        h.rows[0].from,
        Some(5),
        "the size before comes from the row left out"
    );
    assert!(h.notes.iter().any(|n| n.contains("1 recorded change")));
}

#[test]
fn conditions_give_the_periods_at_the_bounds() {
    let r = [];
    let mut e = evidence(&r);
    e.conditions = vec![Condition {
        type_: "ScalingLimited".into(),
        status: "True".into(),
        reason: "TooManyReplicas".into(),
        since: Some(t("11:00:00")),
    }];
    let h = build(&e, all());
    assert_eq!(h.periods.len(), 1);
    assert_eq!(h.periods[0].what, "atMaxReplicas");
    let text = text::render(&h, t("12:00:00"), 80);
    assert!(text.starts_with("shop/web: no scale event"), "{text}");
    assert!(text.contains("At maxReplicas since 11:00:00"), "{text}");
}

#[test]
fn the_text_puts_the_answer_first_and_fits_the_width() {
    let r = [
        rec(5, CPU_UP, "10:00:00", "10:00:00", 1),
        rec(3, DOWN, "10:20:00", "10:20:00", 1),
    ];
    let h = build(&evidence(&r), all());
    let text = text::render(&h, t("12:00:00"), 60);
    let head: Vec<&str> = text.lines().take(2).collect();
    assert_eq!(
        head,
        [
            "shop/web: 2 scale events since 10:00:00 (the oldest Event):",
            "  1 up, 1 down; 1 explained, 1 not (below).",
        ]
    );
    for l in text.lines().skip(1) {
        assert!(l.chars().count() <= 60, "{l}");
    }
    assert!(
        text.contains("10:20:00  5 → 3 ↓  all metrics below target"),
        "{text}"
    );
}

#[test]
fn the_evidence_is_read_from_a_snapshot_file() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/held-by-window.yaml");
    let text = std::fs::read_to_string(path).unwrap();
    let snap = crate::snapshot::Snapshot::from_text(&text, path).unwrap();
    let e = evidence::from_snapshot(&snap, "shop", "frontend").unwrap();
    assert_eq!(e.target_replicas, Some(8));
    assert_eq!(e.rescales.len(), 2);
    let h = build(&e, all());
    let sizes: Vec<(Option<i32>, i32)> = h.rows.iter().map(|r| (r.from, r.to)).collect();
    assert_eq!(sizes, vec![(None, 4), (Some(4), 8)]);
    assert_eq!(h.rows[1].metric.as_deref(), Some("cpu"));
    assert!(h.notes.is_empty(), "{:?}", h.notes);
    let missing = evidence::from_snapshot(&snap, "shop", "nope").unwrap_err();
    assert!(missing.contains("shop/frontend"), "{missing}");
}
