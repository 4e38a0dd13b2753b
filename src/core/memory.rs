//! The controller's memory, inferred from the evidence the API keeps.
//!
//! `horizontal.go` keeps, per HPA and in memory only, the `recommendations` (one `(time,
//! proposal)` per sync, read by the stabilization windows) and the `scaleUpEvents` /
//! `scaleDownEvents` (read by the rate policies). The cluster keeps evidence of that memory: the
//! status the last sync wrote (desired/current replicas, `lastScaleTime`, the reasons of
//! `AbleToScale` and `ScalingLimited`) and the `SuccessfulRescale` Events (aggregated by the API
//! server into one Event per distinct message with `count`, first and last time).
//!
//! [`infer`] turns that evidence into three memories: `likely`, `low` and `high`.
//!
//! **Invariant:** the decision with `low` is at most, and the decision with `high` at least,
//! the decision of *every* memory consistent with the evidence ([`super::with_memory`] evaluates
//! all three and reports the range). The argument: the controller's decision is monotone in its
//! memory. `stabilizeRecommendationWithBehaviors` clamps the current replicas between
//! `upRecommendation` (the min of the proposal and the recommendations in the scale-up window)
//! and `downRecommendation` (their max over the scale-down window), and
//! `normalizeDesiredReplicas` takes the max over its window; both rise with every remembered
//! value, and `convertDesiredReplicasWithBehaviorRate` clamps the result between limits that
//! rise with remembered scale-downs and fall with remembered scale-ups. So `low` puts every
//! remembered value the evidence leaves open at its smallest consistent value (and an
//! uncertain entry where it lowers the result), `high` at its largest. The evidence bounds
//! values, never fixes them where the controller's rules do not: a `New size: N` Event is only
//! a bound of the proposal of its sync, because the controller remembers the proposal before
//! the rate limits (section C2, [`recommendations_from_events`]). The module's brute-force
//! test (`core::tests::memory_brute`) runs every proposal sequence over a small set through
//! the controller's algorithm and checks that the range inferred from the status and Events it
//! leaves contains the decision of its true memory.

use jiff::{SignedDuration, Timestamp};
use k8s_openapi::api::autoscaling::v2 as hpa_v2;

use super::clock::sub_or_min as ago;
use super::model::{History, Hpa, Recommendation, ScaleEvent};
use super::normalize::scale_down_window;
use super::settings::Settings;

/// One `SuccessfulRescale` Event of the HPA as the API server keeps it (aggregated).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RescaleRecord {
    /// `N` of `New size: N; reason: …`.
    pub new_size: i32,
    pub reason: String,
    /// `firstTimestamp` (or the series' first time).
    pub first: Timestamp,
    /// `lastTimestamp` / `series.lastObservedTime`.
    pub last: Timestamp,
    /// How many times the same message was seen (`count`, `series.count`); at least 1.
    pub count: u32,
}

/// Where the controller's memory comes from (`--history`).
#[derive(Debug, Clone, PartialEq, Default)]
pub enum HistoryMode {
    /// Infer it from the HPA's status and Events (the default).
    #[default]
    Auto,
    /// Empty memory: a controller that remembers nothing.
    None,
    /// Exactly this memory (`--history FILE`); nothing is inferred on top.
    File(History),
    /// The memory `--watch` kept from its own syncs since `since` (started from an inferred one).
    Watched { history: History, since: Timestamp },
}

/// The three memories of [`infer`], with the facts they rest on.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Inference {
    pub likely: History,
    pub low: History,
    pub high: History,
    /// The facts, in words, each naming where it came from.
    pub evidence: Vec<String>,
    /// The time of the last sync, as far as the evidence tells: `[earliest, latest]`.
    pub last_sync: (Timestamp, Timestamp),
}

/// What the inference needs besides the HPA: the proposal of this sync and whether the metrics
/// the last sync wrote are still the ones read now.
#[derive(Debug, Clone, Copy)]
pub struct Now {
    pub now: Timestamp,
    /// The proposal of this sync (before stabilization), if the metrics gave one.
    pub proposal: Option<i32>,
    /// `status.currentMetrics` equals what this sync computed, value by value.
    pub metrics_unchanged: bool,
}

/// The status facts of the last sync.
struct LastStatus<'a> {
    desired: i32,
    current: i32,
    able: Option<&'a str>,
    limited: Option<(&'a str, &'a str)>,
    last_scale_time: Option<Timestamp>,
}

fn last_status<'a>(
    st: &'a hpa_v2::HorizontalPodAutoscalerStatus,
    conditions: &'a [super::Condition],
) -> LastStatus<'a> {
    let cond = |t: &str| {
        conditions
            .iter()
            .find(|c| c.type_ == t)
            .map(|c| (c.status.as_str(), c.reason.as_str()))
    };
    LastStatus {
        desired: st.desired_replicas,
        current: st.current_replicas.unwrap_or(st.desired_replicas),
        able: cond("AbleToScale")
            .filter(|(s, _)| *s == "True")
            .map(|(_, r)| r),
        limited: cond("ScalingLimited"),
        last_scale_time: st.last_scale_time.as_ref().map(|t| t.0),
    }
}

/// One rescale, as the Events show it.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Occurrence {
    time: Timestamp,
    size: i32,
    /// The size before it, when the Events (or the status) tell.
    previous: Option<i32>,
    /// Where it was seen: `Event SuccessfulRescale` or `status.lastScaleTime`.
    source: &'static str,
}

/// The rescales in time order; `hidden` are the occurrences of aggregated Events whose times are
/// not kept (between their first and last time): `(latest possible time, size)`.
fn occurrences(records: &[RescaleRecord]) -> (Vec<Occurrence>, Vec<(Timestamp, i32)>) {
    let mut known: Vec<(Timestamp, i32)> = Vec::new();
    let mut hidden = Vec::new();
    for r in records {
        known.push((r.first, r.new_size));
        let mut seen = 1;
        if r.count >= 2 && r.last != r.first {
            known.push((r.last, r.new_size));
            seen = 2;
        }
        if r.count > seen {
            hidden.push((r.last, r.new_size));
        }
    }
    known.sort_by_key(|k| k.0);
    known.dedup();
    let mut out: Vec<Occurrence> = Vec::with_capacity(known.len());
    for (time, size) in known {
        let previous = out.last().map(|o| o.size);
        out.push(Occurrence {
            time,
            size,
            previous,
            source: "Event SuccessfulRescale",
        });
    }
    (out, hidden)
}

/// `status.lastScaleTime` is the time of the newest rescale, to the size the status shows: an
/// occurrence even when its Event is gone.
fn with_last_scale_time(
    mut occ: Vec<Occurrence>,
    last: &LastStatus,
    b: &mut Builder,
) -> Vec<Occurrence> {
    let Some(t) = last.last_scale_time else {
        return occ;
    };
    let near = |o: &Occurrence| o.time.duration_since(t).abs() <= SignedDuration::from_secs(1);
    let rescaled_last = last.able == Some("SucceededRescale");
    let size = if rescaled_last {
        last.desired
    } else {
        last.current
    };
    if let Some(o) = occ.iter_mut().find(|o| near(o) && o.size == size) {
        if rescaled_last {
            o.previous = Some(last.current);
        }
        return occ;
    }
    let i = occ.partition_point(|o| o.time < t);
    let previous = if rescaled_last {
        Some(last.current)
    } else {
        i.checked_sub(1).map(|p| occ[p].size)
    };
    occ.insert(
        i,
        Occurrence {
            time: t,
            size,
            previous,
            source: "status.lastScaleTime",
        },
    );
    if let Some(next) = occ.get_mut(i + 1) {
        next.previous = Some(size);
    }
    b.note(format!(
        "status.lastScaleTime {t}: the newest rescale, to {size}{}",
        previous.map_or(String::new(), |p| format!(" from {p}"))
    ));
    occ
}

/// Builds the three memories side by side.
struct Builder {
    inf: Inference,
}

impl Builder {
    fn rec(h: &mut History, at: Option<(Timestamp, i32)>) {
        if let Some((time, replicas)) = at {
            if !h
                .recommendations
                .iter()
                .any(|r| r.time == time && r.replicas == replicas)
            {
                h.recommendations.push(Recommendation { time, replicas });
            }
        }
    }
    /// A remembered recommendation, placed per memory (`None`: absent from that memory).
    fn recs(
        &mut self,
        low: Option<(Timestamp, i32)>,
        likely: Option<(Timestamp, i32)>,
        high: Option<(Timestamp, i32)>,
    ) {
        Self::rec(&mut self.inf.low, low);
        Self::rec(&mut self.inf.likely, likely);
        Self::rec(&mut self.inf.high, high);
    }
    fn event(h: &mut History, time: Timestamp, change: i32) {
        let ev = ScaleEvent {
            time,
            change: change.abs(),
        };
        match change.cmp(&0) {
            std::cmp::Ordering::Greater => h.scale_up_events.push(ev),
            std::cmp::Ordering::Less => h.scale_down_events.push(ev),
            std::cmp::Ordering::Equal => {}
        }
    }
    fn note(&mut self, s: String) {
        self.inf.evidence.push(s);
    }
    fn finish(mut self) -> Inference {
        for h in [&mut self.inf.low, &mut self.inf.likely, &mut self.inf.high] {
            h.recommendations.sort_by_key(|r| r.time);
            h.scale_up_events.sort_by_key(|e| e.time);
            h.scale_down_events.sort_by_key(|e| e.time);
        }
        self.inf
    }
}

fn fmt_secs(s: i64) -> String {
    crate::duration::format_go_duration(s.saturating_mul(1_000_000_000))
}

/// The windows in force: (scale-down seconds, scale-up seconds).
fn windows(hpa: &Hpa, s: &Settings) -> (i64, i64) {
    match &hpa.behavior {
        None => (s.downscale_stabilization.as_secs(), 0),
        Some(b) => (
            scale_down_window(b, s.downscale_stabilization),
            b.scale_up
                .stabilization_window_seconds
                .map(i64::from)
                .unwrap_or(0),
        ),
    }
}

/// Infer the controller's memory from the HPA's status and its `SuccessfulRescale` Events.
pub fn infer(hpa: &Hpa, settings: &Settings, rescales: &[RescaleRecord], at: Now) -> Inference {
    let sync = settings.sync_period;
    let now = at.now;
    let mut b = Builder {
        inf: Inference {
            last_sync: (ago(now, sync), now),
            ..Inference::default()
        },
    };
    let (occ, hidden) = occurrences(rescales);
    let Some(st) = hpa.status.as_ref() else {
        b.note(
            "the HPA has no status: the controller has not synced it yet, so it remembers nothing"
                .into(),
        );
        return b.finish();
    };
    let last = last_status(st, &hpa.conditions);
    let occ = with_last_scale_time(occ, &last, &mut b);
    recommendations_from_events(&mut b, hpa, settings, (&occ, &hidden), &last, at);
    recommendation_of_last_sync(&mut b, hpa, settings, &last, at);
    if hpa.behavior.is_some() {
        scale_events(&mut b, hpa, &last, &occ, &hidden, now);
    }
    if occ.is_empty() {
        b.note("no SuccessfulRescale Events of this HPA are at hand (Events expire after an hour by default)".into());
    }
    b.finish()
}

/// The largest recommendation any memory needs: a remembered value above the larger of
/// `maxReplicas`, the current replicas and this sync's proposal changes no decision (the
/// scale-up window takes the min with the proposal; the scale-down window's max is cut to
/// `maxReplicas` in the end).
///
/// Without a behavior, a last sync that ran the stabilization and held below `maxReplicas`
/// bounds every recommendation in its window, which holds every one that counts now: one
/// above the size would have scaled up (`normalizeDesiredReplicas` takes the max).
fn ceiling(hpa: &Hpa, last: &LastStatus, p_now: Option<i32>) -> i32 {
    let held = last.desired == last.current
        && last.current < hpa.max_replicas
        && matches!(last.able, Some("ReadyForNewScale" | "ScaleDownStabilized"));
    if hpa.behavior.is_none() && held {
        return last.current;
    }
    hpa.max_replicas.max(last.current).max(p_now.unwrap_or(0))
}

/// The smallest recommendation any memory needs: a remembered value at or below
/// `minReplicas` (and so below the current replicas whenever the windows are evaluated) acts
/// like 0.
fn floor(hpa: &Hpa, size: i32) -> i32 {
    hpa.min_replicas.min(size).max(0)
}

/// Section C2: what a rescale Event says about the proposal of its sync.
///
/// The controller remembers the proposal *before* the rate limits
/// (`normalizeDesiredReplicasWithBehaviors` hands the pre-normalised value to
/// `stabilizeRecommendationWithBehaviors`, which appends it; only then
/// `convertDesiredReplicasWithBehaviorRate` clamps). So a `New size: N` is a bound, never the
/// value:
/// * a scale-up to N with a behavior: the proposal was at least N (the stabilized value is at
///   most the proposal, the limits only lower it) — low N, high the [`ceiling`];
/// * a scale-up to N without a behavior (`normalizeDesiredReplicas`): the stabilization is a
///   max over the scale-down window, so an older recommendation may have lifted it and the
///   proposal itself is unbounded — low the [`floor`], high the ceiling — unless the size was
///   the previous one for the whole window before (the rescale before it is older than the
///   window and no aggregated occurrence hides in it): a recommendation of N or more in that
///   window would have scaled up at its own sync, so the proposal was at least N;
/// * a scale-down to N: the proposal was at most N in both modes — low the floor, high N.
///
/// The likely memory keeps N for a scale-up (or this sync's proposal when the metrics did not
/// move since the last sync and it is larger) and no entry for a scale-down.
fn recommendations_from_events(
    b: &mut Builder,
    hpa: &Hpa,
    settings: &Settings,
    (occ, hidden): (&[Occurrence], &[(Timestamp, i32)]),
    last: &LastStatus,
    at: Now,
) {
    let now = at.now;
    let (down_w, up_w) = windows(hpa, settings);
    let horizon = ago(
        now,
        SignedDuration::from_secs(down_w.max(up_w)) + settings.sync_period,
    );
    let p_now = at.proposal.filter(|_| at.metrics_unchanged);
    let top = ceiling(hpa, last, at.proposal);
    for (i, o) in occ.iter().enumerate() {
        if o.time <= horizon || o.time > now {
            continue;
        }
        let Some(prev) = o.previous else { continue };
        let t = o.time;
        if o.size > prev {
            let window_start = ago(t, SignedDuration::from_secs(down_w));
            let steady = i > 0
                && occ[i - 1].size == prev
                && occ[i - 1].time < window_start
                && hidden.iter().all(|(last, _)| *last < window_start);
            let low = if hpa.behavior.is_some() || steady {
                o.size
            } else {
                floor(hpa, o.size)
            };
            let likely = p_now.map_or(o.size, |p| p.max(o.size));
            b.recs(
                Some((t, low)),
                Some((t, likely)),
                Some((t, top.max(o.size))),
            );
            b.note(if hpa.behavior.is_some() || steady {
                format!(
                    "{} at {t}: scaled up {prev} → {}, so the proposal then was at least {}",
                    o.source, o.size, o.size
                )
            } else {
                format!(
                    "{} at {t}: scaled up {prev} → {}; without a behavior an older recommendation may have lifted it, so the proposal then is open",
                    o.source, o.size
                )
            });
        } else if o.size < prev {
            b.recs(Some((t, floor(hpa, o.size))), None, Some((t, o.size)));
            b.note(format!(
                "{} at {t}: scaled down {prev} → {}, so the proposal then was at most {}",
                o.source, o.size, o.size
            ));
        }
    }
}

/// What the conditions the last sync wrote say about the recommendations in its windows.
fn recommendation_of_last_sync(
    b: &mut Builder,
    hpa: &Hpa,
    settings: &Settings,
    last: &LastStatus,
    at: Now,
) {
    let sync = settings.sync_period;
    let now = at.now;
    let (down_w, up_w) = windows(hpa, settings);
    // The last sync ran in [now − sync, now); the one before it a sync period earlier.
    let (t_early, t_mid, t_late) = (
        ago(now, sync),
        ago(now, sync / 2),
        ago(now, SignedDuration::from_secs(1)),
    );
    let c = last.current;
    let limited = last.limited.filter(|(s, _)| *s == "True").map(|(_, r)| r);
    let p_now = at.proposal.filter(|_| at.metrics_unchanged);
    let Some(reason) = last.able else {
        b.note("the status has no AbleToScale=True condition: the last sync's stabilization is unknown".into());
        return;
    };
    match reason {
        "ScaleDownStabilized" => {
            b.note(format!(
                "AbleToScale=True ScaleDownStabilized: at its last sync the controller held at {c} because a recommendation of at least {c} was inside the {} scale-down window",
                fmt_secs(down_w)
            ));
            let known = b.inf.likely.recommendations.iter().any(|r| r.replicas >= c);
            // Latest possible: the sync before the last one.
            let late = Some((ago(now, sync), c));
            if known {
                b.recs(None, None, late);
            } else {
                b.recs(None, late, late);
            }
        }
        "ScaleUpStabilized" => {
            b.note(format!(
                "AbleToScale=True ScaleUpStabilized: at its last sync the controller held at {c} because a recommendation of at most {c} was inside the {} scale-up window",
                fmt_secs(up_w)
            ));
            let late = Some((ago(now, sync), c));
            b.recs(late, late, None);
        }
        "ReadyForNewScale" => {
            ready_for_new_scale(b, hpa, c, limited, p_now, (t_early, t_mid, t_late))
        }
        "SucceededRescale" => succeeded_rescale(b, hpa, up_w, last, limited, p_now, at),
        other => b.note(format!(
            "AbleToScale=True {other}: the last sync did not reach the stabilization step"
        )),
    }
}

fn ready_for_new_scale(
    b: &mut Builder,
    hpa: &Hpa,
    c: i32,
    limited: Option<&str>,
    p_now: Option<i32>,
    (t_early, t_mid, t_late): (Timestamp, Timestamp, Timestamp),
) {
    match limited {
        None => {
            b.note(format!(
                "AbleToScale=True ReadyForNewScale and ScalingLimited=False: the last sync proposed exactly {c} and kept it"
            ));
            b.recs(Some((t_early, c)), Some((t_mid, c)), Some((t_late, c)));
        }
        Some(r) => {
            let above = matches!(r, "TooManyReplicas" | "ScaleUpLimit");
            b.note(format!(
                "AbleToScale=True ReadyForNewScale and ScalingLimited=True {r}: the last sync proposed {} {c} and was held at {c} by the limits",
                if above { "more than" } else { "less than" }
            ));
            let likely = p_now.map(|p| (t_mid, p));
            if above {
                let high = p_now.unwrap_or(hpa.max_replicas.max(c));
                b.recs(likely, likely, Some((t_late, high)));
            } else {
                let low = p_now.unwrap_or(0);
                b.recs(Some((t_late, low)), likely, likely);
            }
        }
    }
}

fn succeeded_rescale(
    b: &mut Builder,
    hpa: &Hpa,
    up_w: i64,
    last: &LastStatus,
    limited: Option<&str>,
    p_now: Option<i32>,
    at: Now,
) {
    let (d, prev) = (last.desired, last.current);
    let Some(t) = last.last_scale_time.filter(|t| *t <= at.now) else {
        b.note("AbleToScale=True SucceededRescale without a usable lastScaleTime: the last rescale's time is unknown".into());
        return;
    };
    b.inf.last_sync = (t, t);
    if d > prev {
        b.note(format!(
            "AbleToScale=True SucceededRescale, lastScaleTime {t}: the last sync scaled up {prev} → {d}, so its proposal was at least {d}"
        ));
        let low = p_now.map_or(d, |p| p.max(d));
        let high = match p_now {
            Some(p) => p.max(d),
            None if limited.is_some() || up_w > 0 => hpa.max_replicas.max(d),
            None => d,
        };
        b.recs(Some((t, low)), Some((t, low)), Some((t, high)));
    } else if d < prev {
        b.note(format!(
            "AbleToScale=True SucceededRescale, lastScaleTime {t}: the last sync scaled down {prev} → {d}, so no recommendation in its scale-down window was above {d}"
        ));
        let high = if limited.is_some() { d - 1 } else { d };
        let low = p_now.map(|p| (t, p.min(high)));
        b.recs(
            low,
            Some((t, p_now.map_or(high, |p| p.min(high)))),
            Some((t, high)),
        );
    }
}

/// The rate policies' memory: the size changes the Events show inside the longest period.
fn scale_events(
    b: &mut Builder,
    hpa: &Hpa,
    last: &LastStatus,
    occ: &[Occurrence],
    hidden: &[(Timestamp, i32)],
    now: Timestamp,
) {
    let Some(beh) = &hpa.behavior else { return };
    let longest = beh
        .scale_up
        .policies
        .iter()
        .chain(&beh.scale_down.policies)
        .map(|p| p.period_seconds)
        .max()
        .unwrap_or(0);
    let cutoff = ago(now, SignedDuration::from_secs(longest as i64));
    let rescaled_last = last.able == Some("SucceededRescale");
    let (lo_size, hi_size) = (hpa.min_replicas.max(1), hpa.max_replicas);
    let mut counted = 0;
    for o in occ.iter().filter(|o| o.time > cutoff && o.time <= now) {
        let exact_prev =
            (rescaled_last && last.last_scale_time == Some(o.time) && last.desired == o.size)
                .then_some(last.current);
        match exact_prev.or(o.previous) {
            Some(prev) => {
                for h in [&mut b.inf.low, &mut b.inf.likely, &mut b.inf.high] {
                    Builder::event(h, o.time, o.size - prev);
                }
                counted += 1;
            }
            None => {
                b.note(format!(
                    "the rescale to {} at {} is the oldest at hand: its size change is unknown (the range allows any)",
                    o.size, o.time
                ));
                unknown_change(b, o.time, o.size, lo_size, hi_size);
            }
        }
    }
    for (t, size) in hidden.iter().filter(|(t, _)| *t > cutoff) {
        let at = ago((*t).min(now), SignedDuration::from_secs(1));
        b.note(format!(
            "the Event 'New size: {size}' was aggregated: some of its occurrences before {t} have no time (the range allows one inside the policy period)"
        ));
        unknown_change(b, at, *size, lo_size, hi_size);
    }
    if counted > 0 {
        b.note(format!(
            "{counted} rescale(s) inside the longest policy period ({longest}s) rebuilt from the SuccessfulRescale Events"
        ));
    }
}

/// A rescale to `size` whose previous size is unknown: the low memory takes it as the largest
/// plausible scale-up, the high memory as the largest plausible scale-down.
fn unknown_change(b: &mut Builder, t: Timestamp, size: i32, lo_size: i32, hi_size: i32) {
    if size > lo_size {
        Builder::event(&mut b.inf.low, t, size - lo_size);
    }
    if hi_size > size {
        Builder::event(&mut b.inf.high, t, size - hi_size);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(s: &str) -> Timestamp {
        s.parse().unwrap()
    }

    #[test]
    fn aggregated_events_keep_first_and_last_and_hide_the_rest() {
        let r = RescaleRecord {
            new_size: 8,
            reason: "cpu above target".into(),
            first: t("2026-01-01T11:00:00Z"),
            last: t("2026-01-01T11:50:00Z"),
            count: 4,
        };
        let four = RescaleRecord {
            new_size: 4,
            first: t("2026-01-01T11:30:00Z"),
            last: t("2026-01-01T11:30:00Z"),
            count: 1,
            ..r.clone()
        };
        let (occ, hidden) = occurrences(&[r, four]);
        let sizes: Vec<(i32, Option<i32>)> = occ.iter().map(|o| (o.size, o.previous)).collect();
        assert_eq!(sizes, vec![(8, None), (4, Some(8)), (8, Some(4))]);
        assert_eq!(hidden, vec![(t("2026-01-01T11:50:00Z"), 8)]);
    }
}
