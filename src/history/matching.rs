//! Each recorded change matched with the replay: "explained" (the replayed controller moved to
//! the same size within one sync), "explained earlier/later" (within the metric window), or
//! "not explained" with the likely cause — missing data, a manual scale (the desired replicas
//! the controller wrote did not change, but the replicas moved), another controller (such moves
//! again and again), or flags that differ from the ones the replay assumed.

use jiff::Timestamp;
use schemars::JsonSchema;
use serde::Serialize;

use super::replay::ReplaySync;
use super::rows::ScaleDirection;

/// How a recorded change compares with the replay.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum Verdict {
    /// The replay moved to the same size within one sync (from another size: holding at the
    /// size the recorded replicas had already reached does not count).
    Explained,
    /// The replay moved to it earlier, within the metric window.
    ExplainedEarlier,
    /// The replay moved to it later, within the metric window.
    ExplainedLater,
    NotExplained,
}

/// The likely cause of a change the replay does not explain.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum Cause {
    /// A series had no sample around the change.
    MissingData,
    /// The replicas moved while the desired replicas the controller wrote did not.
    ManualScale,
    /// The replicas moved without the controller three or more times within an hour.
    AnotherController,
    /// The data were there, the replayed controller decided otherwise: the cluster's controller
    /// flags (tolerance, sync period, stabilization) or the HPA's spec then differ.
    FlagsDiffer,
}

/// One recorded change of the target's size, and what the replay says of it.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ReplayedChange {
    pub time: Timestamp,
    pub from: i32,
    pub to: i32,
    pub direction: ScaleDirection,
    /// `controller` (the HPA's desired replicas changed) or `external` (the replicas moved
    /// without it).
    pub by: String,
    pub verdict: Verdict,
    /// Syncs between the recorded change and the replayed one (negative: the replay was earlier).
    pub offset_syncs: Option<i32>,
    /// What the replayed controller decided at that sync, and the rule that decided it.
    pub replayed: i32,
    pub rule: String,
    /// The first metric then (percent of request, or its value) and its target.
    pub metric: Option<f64>,
    pub target: Option<f64>,
    /// `%` (of request) for utilization, empty for a value in the metric's unit.
    pub unit: String,
    pub cause: Option<Cause>,
    /// The cause in words, with what to do.
    pub why: Option<String>,
}

/// The recorded changes of `syncs`, each matched; `window` is the metric window in syncs.
pub fn match_changes(syncs: &[ReplaySync], window: usize) -> Vec<ReplayedChange> {
    let mut out = Vec::new();
    for k in 0..syncs.len() {
        let s = &syncs[k];
        if k > 0 {
            let p = &syncs[k - 1];
            let expected = p.desired.unwrap_or(p.current);
            if s.current_recorded && p.current_recorded && s.current != expected {
                out.push(external(s, expected));
            }
        }
        if let Some(to) = s.desired.filter(|d| *d != s.current && s.current_recorded) {
            out.push(controller(syncs, k, to, window));
        }
    }
    mark_other_controllers(&mut out);
    out
}

fn direction(from: i32, to: i32) -> ScaleDirection {
    if to > from {
        ScaleDirection::Up
    } else {
        ScaleDirection::Down
    }
}

fn base(s: &ReplaySync, from: i32, to: i32, by: &str) -> ReplayedChange {
    ReplayedChange {
        time: s.time,
        from,
        to,
        direction: direction(from, to),
        by: by.to_string(),
        verdict: Verdict::NotExplained,
        offset_syncs: None,
        replayed: s.replayed,
        rule: s.rule.to_string(),
        metric: s.metric,
        target: s.target,
        unit: s.unit.to_string(),
        cause: None,
        why: None,
    }
}

fn external(s: &ReplaySync, expected: i32) -> ReplayedChange {
    let mut c = base(s, expected, s.current, "external");
    c.cause = Some(Cause::ManualScale);
    c.why = Some(format!(
        "manual scale: the replicas moved {expected} → {} while the desired replicas the HPA \
         wrote stayed {expected} (kubectl scale, a deploy that sets spec.replicas, or another \
         autoscaler); remove spec.replicas from the manifests the HPA's target is applied from",
        s.current
    ));
    c
}

fn controller(syncs: &[ReplaySync], k: usize, to: i32, window: usize) -> ReplayedChange {
    let s = &syncs[k];
    let mut c = base(s, s.current, to, "controller");
    let lo = k.saturating_sub(window);
    let hi = (k + window).min(syncs.len() - 1);
    let found = (lo..=hi)
        .filter(|&j| moves_to(&syncs[j], to))
        .min_by_key(|&j| (j as i64 - k as i64).abs());
    if let Some(j) = found {
        let off = j as i32 - k as i32;
        c.offset_syncs = Some(off);
        c.verdict = match off {
            -1..=1 => Verdict::Explained,
            o if o < 0 => Verdict::ExplainedEarlier,
            _ => Verdict::ExplainedLater,
        };
        return c;
    }
    if syncs[lo..=k].iter().any(|x| x.missing) {
        c.cause = Some(Cause::MissingData);
        c.why = Some(
            "missing data: a series had no sample around this change (a scrape gap, or a \
             label the queries do not match); check the series in Prometheus"
                .into(),
        );
    } else {
        c.cause = Some(Cause::FlagsDiffer);
        c.why = Some(format!(
            "the replayed controller decided {} ({}) on the recorded data: the cluster's \
             controller flags or the HPA's spec then may differ from the ones assumed (give \
             --kubernetes-version, or check kube-controller-manager's --horizontal-pod-autoscaler-* \
             flags)",
            s.replayed, s.rule
        ));
    }
    c
}

/// Whether the replay *moved* to `to` at this sync: it decided `to` from a size that was not
/// `to` — the recorded replicas, or, where those had already moved, the replay's own size
/// ([`ReplaySync::own`]). A replay that merely holds at the size the recorded replicas already
/// reached is no evidence that it would have made the change.
fn moves_to(s: &ReplaySync, to: i32) -> bool {
    (s.replayed == to && s.current != to)
        || s.own.is_some_and(|o| o.replayed == to && o.current != to)
}

/// Three or more external moves within an hour are another controller's, not a person's.
fn mark_other_controllers(changes: &mut [ReplayedChange]) {
    let times: Vec<(usize, Timestamp)> = changes
        .iter()
        .enumerate()
        .filter(|(_, c)| c.by == "external")
        .map(|(i, c)| (i, c.time))
        .collect();
    let hour = jiff::SignedDuration::from_hours(1);
    for (a, (i, t)) in times.iter().enumerate() {
        let near = times
            .iter()
            .filter(|(_, u)| u.duration_since(*t).abs() < hour)
            .count();
        if near >= 3 {
            let c = &mut changes[*i];
            c.cause = Some(Cause::AnotherController);
            c.why = Some(format!(
                "another controller: the replicas moved without this HPA {near} times within an \
                 hour (another HPA, a KEDA ScaledObject or a CI job that scales the target); \
                 find it with `kubectl get hpa,scaledobjects -A` and leave the target to one"
            ));
        }
        let _ = a;
    }
}

/// Words for a verdict and its cause, for the text.
pub fn verdict_words(c: &ReplayedChange) -> String {
    match (c.verdict, c.cause) {
        (Verdict::Explained, _) => "explained".into(),
        (Verdict::ExplainedEarlier, _) => format!(
            "explained earlier ({} sync(s))",
            c.offset_syncs.unwrap_or(0).abs()
        ),
        (Verdict::ExplainedLater, _) => {
            format!("explained later ({} sync(s))", c.offset_syncs.unwrap_or(0))
        }
        (Verdict::NotExplained, Some(Cause::MissingData)) => "not explained: missing data".into(),
        (Verdict::NotExplained, Some(Cause::ManualScale)) => "not explained: manual scale".into(),
        (Verdict::NotExplained, Some(Cause::AnotherController)) => {
            "not explained: another controller".into()
        }
        (Verdict::NotExplained, _) => "not explained: flags that differ".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::history::replay::{test_syncs as syncs, OwnStep, ReplaySync};

    /// `syncs` with the replay's own-size evaluations `(sync, current, replayed)` added.
    fn with_own(mut s: Vec<ReplaySync>, own: &[(usize, i32, i32)]) -> Vec<ReplaySync> {
        for &(k, current, replayed) in own {
            s[k].own = Some(OwnStep { current, replayed });
        }
        s
    }

    #[test]
    fn same_size_within_one_sync_is_explained_and_later_within_the_window() {
        let s = syncs(&[
            (3, 3, 3),
            (3, 5, 5),
            (5, 5, 5),
            (5, 8, 5),
            (8, 8, 5),
            (8, 8, 5),
            (8, 8, 8),
        ]);
        // The recorded replicas are 8 from sync 4; the replay, still at its own 5, holds at 5
        // twice, then moves to 8.
        let s = with_own(s, &[(4, 5, 5), (5, 5, 5), (6, 5, 8)]);
        let c = match_changes(&s, 4);
        assert_eq!(c.len(), 2);
        assert_eq!(
            (c[0].from, c[0].to, c[0].verdict),
            (3, 5, Verdict::Explained)
        );
        assert_eq!(
            (c[1].verdict, c[1].offset_syncs),
            (Verdict::ExplainedLater, Some(3))
        );
        // Outside the window: not explained, the data were there: flags that differ.
        let c = match_changes(&s, 2);
        assert_eq!(
            (c[1].verdict, c[1].cause),
            (Verdict::NotExplained, Some(Cause::FlagsDiffer))
        );
    }

    /// The weakness of matching on any sync whose replayed size is the new one: one sync after a
    /// recorded change the replay is fed the recorded replicas, already at the new size, and
    /// holding there is no evidence it would have moved. Only a move counts: from the recorded
    /// replicas, or from the replay's own size where those had already moved.
    #[test]
    fn a_replay_that_only_holds_at_the_new_size_does_not_explain_the_change() {
        // The controller scaled 4 → 8; the replay kept 4, then held at the 8 it was fed.
        let s = syncs(&[(4, 4, 4), (4, 8, 4), (8, 8, 8), (8, 8, 8)]);
        let c = match_changes(&s, 2);
        assert_eq!(c.len(), 1, "{c:#?}");
        assert_eq!(
            (c[0].verdict, c[0].offset_syncs, c[0].cause),
            (Verdict::NotExplained, None, Some(Cause::FlagsDiffer)),
            "{c:#?}"
        );
        // The replay at its own 4 holds there too: still not explained.
        let held = with_own(s.clone(), &[(2, 4, 4)]);
        assert_eq!(match_changes(&held, 2)[0].verdict, Verdict::NotExplained);
        // The replay at its own 4 moves to 8 one sync later: explained (offset +1).
        let moved = with_own(s, &[(2, 4, 8)]);
        let c = match_changes(&moved, 2);
        assert_eq!(
            (c[0].verdict, c[0].offset_syncs),
            (Verdict::Explained, Some(1))
        );
    }

    /// The converse of "explained later": the replay decided the size two syncs before the
    /// recorded change and no longer at it nor after (the load turned back in between).
    #[test]
    fn a_size_the_replay_decided_two_syncs_before_is_explained_earlier() {
        let s = syncs(&[(3, 3, 3), (3, 3, 6), (3, 3, 3), (3, 6, 3), (6, 6, 3)]);
        let c = match_changes(&s, 2);
        assert_eq!(c.len(), 1, "{c:#?}");
        assert_eq!(
            (c[0].from, c[0].to, c[0].verdict, c[0].offset_syncs),
            (3, 6, Verdict::ExplainedEarlier, Some(-2))
        );
        assert_eq!(verdict_words(&c[0]), "explained earlier (2 sync(s))");
        // One sync before is within one sync: explained.
        let s = syncs(&[(3, 3, 3), (3, 3, 3), (3, 3, 6), (3, 6, 3), (6, 6, 3)]);
        assert_eq!(match_changes(&s, 2)[0].verdict, Verdict::Explained);
        // Outside the window: not explained.
        let s = syncs(&[(3, 3, 6), (3, 3, 3), (3, 3, 3), (3, 6, 3), (6, 6, 3)]);
        assert_eq!(match_changes(&s, 2)[0].verdict, Verdict::NotExplained);
    }

    #[test]
    fn replicas_that_move_while_desired_stays_are_a_manual_scale() {
        let s = syncs(&[(4, 4, 4), (4, 4, 4), (8, 4, 4), (4, 4, 4)]);
        let c = match_changes(&s, 4);
        assert_eq!(c.len(), 2, "{c:#?}");
        assert_eq!(
            (c[0].by.as_str(), c[0].cause),
            ("external", Some(Cause::ManualScale))
        );
        assert_eq!(verdict_words(&c[0]), "not explained: manual scale");
        assert_eq!(
            (c[1].by.as_str(), c[1].verdict),
            ("controller", Verdict::Explained)
        );
    }

    #[test]
    fn missing_data_and_repeated_outside_moves_are_named() {
        let mut s = syncs(&[(4, 4, 4), (4, 6, 4), (6, 6, 5)]);
        s[1].missing = true;
        let c = match_changes(&s, 1);
        assert_eq!(c[0].cause, Some(Cause::MissingData));
        let s = syncs(&[(4, 4, 4), (6, 6, 6), (4, 4, 4), (7, 7, 7), (4, 4, 4)]);
        let c = match_changes(&s, 1);
        assert!(
            c.iter().all(|x| x.cause == Some(Cause::AnotherController)),
            "{c:#?}"
        );
    }
}
