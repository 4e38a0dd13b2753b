//! The fleet's summary, printed before the table: one line per scope with the number of HPAs
//! per verdict and how many problems affect how many HPAs; after the table, the problems
//! (error and warning findings of the diagnostics) aggregated per cause — one line naming the
//! cause, how many HPAs and namespaces it affects and the first few names. The per-HPA list of
//! problems, each with what to do, is `-o wide`'s (and each item's `diagnostics` in JSON).

use std::collections::{BTreeMap, BTreeSet};

use super::fleet::FleetItem;
use crate::core::Action;
use crate::diagnose::Severity;
use crate::render::layout::wrap;

/// How many names a cause lists before `and N more`.
const FIRST_NAMES: usize = 3;

/// Where a row stands, as the summary counts it (each HPA in exactly one).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Standing {
    Holding,
    ScalingUp,
    ScalingDown,
    /// Held at, or scaling up to, `maxReplicas`.
    AtMax,
    /// Held at `minReplicas` (whether the floor bites is the `at-min-*` note).
    AtMin,
    CannotScale,
    Disabled,
    Unknown,
    /// The HPA could not be evaluated (its `error`).
    NotEvaluated,
}

impl Standing {
    pub fn of(i: &FleetItem) -> Standing {
        let at_max = i.desired_replicas.is_some() && i.desired_replicas == i.max_replicas;
        let at_min = i.desired_replicas.is_some() && i.desired_replicas == i.min_replicas;
        match i.action {
            None => Standing::NotEvaluated,
            Some(Action::Unknown) => Standing::Unknown,
            Some(Action::CannotScale) => Standing::CannotScale,
            Some(Action::Disabled) => Standing::Disabled,
            Some(Action::Hold | Action::ScaleUp) if at_max => Standing::AtMax,
            Some(Action::Hold) if at_min => Standing::AtMin,
            Some(Action::ScaleUp) => Standing::ScalingUp,
            Some(Action::ScaleDown) => Standing::ScalingDown,
            Some(_) => Standing::Holding,
        }
    }

    fn words(self) -> &'static str {
        match self {
            Standing::Holding => "holding",
            Standing::ScalingUp => "scaling up",
            Standing::ScalingDown => "scaling down",
            Standing::AtMax => "at max",
            Standing::AtMin => "at min",
            Standing::CannotScale => "cannot scale",
            Standing::Disabled => "disabled",
            Standing::Unknown => "unknown",
            Standing::NotEvaluated => "not evaluated",
        }
    }
}

/// Does the row need someone: a warning or worse, at max, cannot scale, unknown or not
/// evaluated (`--problems`).
pub fn needs_attention(i: &FleetItem) -> bool {
    !i.warnings.is_empty()
        || matches!(
            Standing::of(i),
            Standing::AtMax | Standing::CannotScale | Standing::Unknown | Standing::NotEvaluated
        )
}

/// One cause of problems: a finding id at one severity, and the HPAs it affects.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cause {
    pub severity: Severity,
    pub id: String,
    /// How many HPAs it affects.
    pub hpas: usize,
    /// `namespace/name` of the first [`FIRST_NAMES`] HPAs affected, in row order.
    pub first: Vec<String>,
    pub namespaces: usize,
    /// The message of the first HPA affected.
    pub first_message: String,
}

/// The causes of the error and warning findings: errors first, then the most HPAs first.
pub fn causes(items: &[FleetItem]) -> Vec<Cause> {
    causes_where(items, |s| s != Severity::Info)
}

/// The causes of the findings whose severity `keep` accepts: errors first, then warnings, then
/// notes, then the most HPAs first.
///
/// perf: only the first [`FIRST_NAMES`] names are written (five contexts of 500 HPAs, `cargo
/// bench --bench fleet`: naming every HPA of every cause cost 13 M instructions after the
/// evaluations end).
fn causes_where(items: &[FleetItem], keep: impl Fn(Severity) -> bool) -> Vec<Cause> {
    // Per cause: the cause, the last row counted (an HPA counts once), its namespaces.
    let mut by: BTreeMap<(u8, &str), (Cause, usize, BTreeSet<&str>)> = BTreeMap::new();
    for (row, i) in items.iter().enumerate() {
        for f in i.diagnostics.iter().filter(|f| keep(f.severity)) {
            let (c, last, ns) = by
                .entry((rank(f.severity), f.id.as_str()))
                .or_insert_with(|| {
                    let c = Cause {
                        severity: f.severity,
                        id: f.id.clone(),
                        hpas: 0,
                        first: vec![],
                        namespaces: 0,
                        first_message: f.message.clone(),
                    };
                    (c, usize::MAX, BTreeSet::new())
                });
            if *last != row {
                *last = row;
                c.hpas += 1;
                if c.first.len() < FIRST_NAMES {
                    c.first.push(qualified_name(i));
                }
            }
            ns.insert(i.namespace.as_str());
        }
    }
    let mut out: Vec<(u8, Cause)> = by
        .into_iter()
        .map(|((rank, _), (mut c, _, ns))| {
            c.namespaces = ns.len();
            (rank, c)
        })
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0).then(b.1.hpas.cmp(&a.1.hpas)));
    out.into_iter().map(|(_, c)| c).collect()
}

/// Errors first, then warnings, then notes.
fn rank(s: Severity) -> u8 {
    match s {
        Severity::Error => 0,
        Severity::Warning => 1,
        Severity::Info => 2,
    }
}

/// `namespace/name`, or `context:namespace/name` when the HPA was read from one of several
/// contexts.
pub fn qualified_name(i: &FleetItem) -> String {
    match &i.context {
        Some(c) => format!("{c}:{}/{}", i.namespace, i.name),
        None => format!("{}/{}", i.namespace, i.name),
    }
}

/// `1,234`.
pub fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (k, c) in digits.chars().enumerate() {
        if k > 0 && (digits.len() - k).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// `N thing(s)` with the plural when N is not 1.
fn count(n: usize, one: &str, many: &str) -> String {
    format!("{} {}", thousands(n), if n == 1 { one } else { many })
}

/// The summary of one scope: `all namespaces: 2,000 HPAs: 1,812 holding, …; 3 problems affect
/// 540 HPAs`, wrapped to `width`.
pub fn summary_line(items: &[FleetItem], scope: &str, width: usize) -> String {
    let mut per: BTreeMap<Standing, usize> = BTreeMap::new();
    for i in items {
        *per.entry(Standing::of(i)).or_default() += 1;
    }
    let standings: Vec<String> = per
        .iter()
        .map(|(s, n)| format!("{} {}", thousands(*n), s.words()))
        .collect();
    let affected = items.iter().filter(|i| !i.warnings.is_empty()).count();
    let problems = match causes(items).len() {
        0 => "no problems".to_string(),
        n => format!(
            "{} {} {}",
            count(n, "problem", "problems"),
            if n == 1 { "affects" } else { "affect" },
            count(affected, "HPA", "HPAs")
        ),
    };
    let text = format!(
        "{scope}: {}: {}; {problems}",
        count(items.len(), "HPA", "HPAs"),
        standings.join(", ")
    );
    wrap(&text, width, "", "  ")
}

/// What a finding id is about, in a few words (the id alone when it is not one we know).
fn cause_words(id: &str) -> Option<&'static str> {
    Some(match id {
        "metrics-api-missing" => "the resource metrics API is not installed",
        "metrics-api-unavailable" => "the resource metrics API is not available",
        "metrics-api-error" => "a metrics API failed",
        "metrics-empty" => "no metrics for the selected pods",
        "metrics-stale" => "the metrics are stale",
        "missing-request" => "a container has no resource request",
        "container-absent" => "the metric's container is not in the pods",
        "foreign-pods" => "the selector picks pods of other workloads",
        "ambiguous-selector" => "several HPAs select the same pods",
        "target-missing" => "the scale target does not exist",
        "target-unreadable" => "the scale target cannot be read",
        "rollout-in-progress" => "a rollout is in progress",
        "min-equals-max" => "minReplicas equals maxReplicas",
        "target-at-zero" => "the target is scaled to zero",
        "memory-scale-up" => "the scale-up is driven by memory",
        "our-read-failed" => "a read of ours failed (not the controller's)",
        "hpa-field-ignored" => "a field the controller ignores",
        "snapshot-lacks-target" => "the snapshot lacks the scale target",
        "snapshot-without-metrics" => "the snapshot holds no metrics",
        "at-max-replicas" => "pinned at maxReplicas: the metrics want more",
        "average-value-ratchet" => "an AverageValue target keeps the rollout's surge pods",
        "keda-external-metrics-held" => "another adapter holds KEDA's external metrics APIService",
        "adapter-rule-no-match" => "no prometheus-adapter rule gives the metric's name",
        "adapter-rule-resource-missing" => {
            "a prometheus-adapter rule does not associate the metric's resource"
        }
        "adapter-rules-unreadable" => "prometheus-adapter's rules cannot be read",
        "pending-pods" => "pods wait for a node",
        "quota-exceeded" => "a ResourceQuota refuses new pods",
        "vpa-conflict" => "a VerticalPodAutoscaler rewrites the requests the HPA scales on",
        "pdb-blocks-drain" => "a PodDisruptionBudget blocks drains at minReplicas",
        "keda-owns-move" => "KEDA deactivates the target over the HPA",
        "keda-fallback" => "KEDA's fallback: the HPA reads a synthetic value",
        "keda-paused" => "the ScaledObject is paused",
        "keda-bad-field" => "a ScaledObject field cannot be read",
        "keda-conflict" => "another autoscaler scales the same target",
        "at-min-floor" => "floored at minReplicas: more pods than the load needs",
        "at-min-satisfied" => "at minReplicas, which is what the metrics want",
        "at-max-satisfied" => "at maxReplicas, but the cap does not bite",
        "limitrange-request" => "a LimitRange supplies the requests utilization is computed from",
        _ => return None,
    })
}

/// The problems, one line per cause (wrapped to `width`), then the notes of the bounds and
/// the requests that are not problems (at minReplicas, a cap that does not bite, requests a
/// LimitRange supplied), one line per cause too; nothing when there are none.
pub fn causes_text(items: &[FleetItem], width: usize) -> String {
    let notes = causes_where(items, |s| s == Severity::Info);
    let notes: Vec<Cause> = notes
        .into_iter()
        .filter(|c| FLEET_NOTES.contains(&c.id.as_str()))
        .collect();
    let mut out = cause_lines("Problems", &causes(items), width);
    out += &cause_lines("Notes (nothing to fix unless intended)", &notes, width);
    out
}

/// The info findings the fleet lists after its problems: the bounds (issue 29) and the
/// LimitRange's requests. Other info findings stay in `-o wide` and JSON.
const FLEET_NOTES: [&str; 4] = [
    "at-min-floor",
    "at-max-satisfied",
    "at-min-satisfied",
    "limitrange-request",
];

/// A heading and one line per cause; nothing when there are no causes.
fn cause_lines(heading: &str, causes: &[Cause], width: usize) -> String {
    if causes.is_empty() {
        return String::new();
    }
    let mut out = format!("\n{heading}\n");
    for c in causes {
        let named = match cause_words(&c.id) {
            Some(w) => format!("[{}] {} ({w})", c.severity.as_str(), c.id),
            None => format!("[{}] {}", c.severity.as_str(), c.id),
        };
        let line = match (c.hpas, c.first.as_slice()) {
            (1, [one]) => format!("{named}: {one}: {}", c.first_message),
            (n, first) => {
                let first = first.join(", ");
                let more = n.saturating_sub(FIRST_NAMES);
                format!(
                    "{named}: {} in {}: {first}{}",
                    count(n, "HPA", "HPAs"),
                    count(c.namespaces, "namespace", "namespaces"),
                    if more > 0 {
                        format!(" and {} more", thousands(more))
                    } else {
                        String::new()
                    }
                )
            }
        };
        out += &wrap(&line, width, "  ", "    ");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnose::Finding;
    use crate::explain::fleet::evaluate_snapshot;
    use crate::explain::testing::{example, options, NOW};

    fn web() -> FleetItem {
        let (snap, extras) = example("scale-up-cpu.yaml");
        evaluate_snapshot(
            crate::explain::fleet::Evaluation::of(&options(&["--now", NOW])),
            &snap,
            &extras,
            None,
        )
        .remove(0)
    }

    fn stale(ns: &str, name: &str) -> FleetItem {
        let mut i = web();
        i.namespace = ns.into();
        i.name = name.into();
        i.warnings = vec!["metrics-stale".into()];
        i.diagnostics = vec![Finding {
            id: "metrics-stale".into(),
            severity: Severity::Warning,
            message: format!("the metrics of {name} are 10m old"),
            action: "check metrics-server".into(),
            details: None,
        }];
        i
    }

    #[test]
    fn numbers_have_thousands_separators() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1000), "1,000");
        assert_eq!(thousands(1234567), "1,234,567");
    }

    #[test]
    fn every_hpa_counts_once_and_at_max_comes_before_scaling() {
        let mut items = vec![web(), web(), web()];
        items[1].desired_replicas = items[1].max_replicas;
        items[2].action = None;
        assert_eq!(Standing::of(&items[0]), Standing::ScalingUp);
        assert_eq!(Standing::of(&items[1]), Standing::AtMax);
        assert_eq!(Standing::of(&items[2]), Standing::NotEvaluated);
        assert!(!needs_attention(&items[0]));
        assert!(needs_attention(&items[1]) && needs_attention(&items[2]));
        assert_eq!(
            summary_line(&items, "all namespaces", 200),
            "all namespaces: 3 HPAs: 1 scaling up, 1 at max, 1 not evaluated; no problems\n"
        );
    }

    #[test]
    fn one_cause_shared_by_many_hpas_is_one_line() {
        let items: Vec<FleetItem> = (0..500)
            .map(|k| stale(&format!("team-{:02}", k % 10), &format!("app-{k:03}")))
            .collect();
        let text = causes_text(&items, 200);
        assert_eq!(
            text,
            "\nProblems\n  [warning] metrics-stale (the metrics are stale): 500 HPAs in 10 namespaces: team-00/app-000, team-01/app-001, team-02/app-002 and 497 more\n"
        );
        assert!(summary_line(&items, "s", 200).ends_with("; 1 problem affects 500 HPAs\n"));
        // One HPA: its own message.
        let one = causes_text(&items[..1], 200);
        assert!(one.contains("team-00/app-000: the metrics of app-000 are 10m old"));
    }

    /// Issue 29: the fleet flags HPAs held at minReplicas, and lists the bounds' notes (at
    /// min, floored or satisfied) once per cause after the problems, not as problems.
    #[test]
    fn at_min_is_counted_and_its_note_is_one_line_per_cause() {
        let mut items: Vec<FleetItem> = (0..40)
            .map(|k| stale("team-00", &format!("app-{k:02}")))
            .collect();
        for i in &mut items {
            i.action = Some(Action::Hold);
            i.desired_replicas = i.min_replicas;
            i.diagnostics = vec![Finding {
                id: "at-min-floor".into(),
                severity: Severity::Info,
                message: "the metrics want 1 (-50 %); floored at minReplicas 2".into(),
                action: "nothing to fix if the floor is intended".into(),
                details: None,
            }];
            i.warnings.clear();
        }
        assert_eq!(Standing::of(&items[0]), Standing::AtMin);
        assert!(!needs_attention(&items[0]));
        assert_eq!(
            summary_line(&items, "s", 200),
            "s: 40 HPAs: 40 at min; no problems\n"
        );
        assert_eq!(
            causes_text(&items, 200),
            "\nNotes (nothing to fix unless intended)\n  [info] at-min-floor (floored at minReplicas: more pods than the load needs): 40 HPAs in 1 namespace: team-00/app-00, team-00/app-01, team-00/app-02 and 37 more\n"
        );
    }
}
