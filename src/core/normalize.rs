//! Stabilization, rate limits and bounds: the controller's `normalizeDesiredReplicas` (no
//! `behavior`) and `normalizeDesiredReplicasWithBehaviors`, plus the history bookkeeping.

use super::clock::sub_or_min as sub;
use super::envelope::{scan, Cutoffs, KeptEnvelope};
use super::rule::Rule;
use jiff::{SignedDuration, Timestamp};
use serde::Serialize;

use super::model::{
    Behavior, History, PolicyKind, Recommendation, Rules, ScaleEvent, SelectPolicy,
};

/// The stabilization step.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Stabilization {
    /// Scale-up window (behavior only), seconds.
    pub scale_up_window_seconds: Option<i64>,
    /// Scale-down window, seconds.
    pub scale_down_window_seconds: i64,
    /// Remembered recommendations inside a window, with the window(s) they fell in.
    pub considered: Vec<ConsideredRecommendation>,
    /// Lowest recommendation inside the scale-up window (behavior only).
    pub up_recommendation: Option<i32>,
    /// Highest recommendation inside the scale-down window.
    pub down_recommendation: i32,
    pub stabilized: i32,
    /// `ScaleUpStabilized`, `ScaleDownStabilized` or `ReadyForNewScale`.
    pub reason: Rule,
    pub message: &'static str,
}

#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ConsideredRecommendation {
    pub time: Timestamp,
    pub replicas: i32,
    pub in_scale_up_window: bool,
    pub in_scale_down_window: bool,
}

/// One rate policy evaluated against the remembered scale events.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PolicyEvaluation {
    #[serde(rename = "type")]
    pub kind: PolicyKind,
    pub value: i32,
    pub period_seconds: i32,
    pub added_in_period: i32,
    pub removed_in_period: i32,
    pub period_start_replicas: i32,
    pub limit: i32,
}

/// The rate-limit and bounds step.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Limits {
    /// `up`, `down` or `none`.
    pub direction: &'static str,
    /// Without behavior: max(2 × current, 4).
    pub scale_up_limit: Option<i32>,
    pub select_policy: Option<SelectPolicy>,
    pub policies: Vec<PolicyEvaluation>,
    /// The rate limit after selectPolicy (behavior only).
    pub rate_limit: Option<i32>,
    pub min_replicas: i32,
    pub max_replicas: i32,
    /// The bound that applies in this direction.
    pub allowed: Option<i32>,
    pub reason: Rule,
    pub message: &'static str,
}

/// The whole normalization.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Normalization {
    /// `default` (no behavior) or `behavior`.
    pub mode: &'static str,
    pub proposal: i32,
    pub stabilization: Stabilization,
    pub limits: Limits,
    pub result: i32,
}

const READY_REASON: Rule = Rule::ReadyForNewScale;
const READY_MESSAGE: &str = "recommended size matches current size";
const DOWN_STABILIZED: (Rule, &str) = (
    Rule::ScaleDownStabilized,
    "recent recommendations were higher than current one, applying the highest recent recommendation",
);
const UP_STABILIZED: (Rule, &str) = (
    Rule::ScaleUpStabilized,
    "recent recommendations were lower than current one, applying the lowest recent recommendation",
);
const WITHIN: (Rule, &str) = (
    Rule::DesiredWithinRange,
    "the desired count is within the acceptable range",
);
const TOO_MANY: (Rule, &str) = (
    Rule::TooManyReplicas,
    "the desired replica count is more than the maximum replica count",
);
const TOO_FEW: (Rule, &str) = (
    Rule::TooFewReplicas,
    "the desired replica count is less than the minimum replica count",
);
const UP_LIMIT: (Rule, &str) = (
    Rule::ScaleUpLimit,
    "the desired replica count is increasing faster than the maximum scale rate",
);
const DOWN_LIMIT: (Rule, &str) = (
    Rule::ScaleDownLimit,
    "the desired replica count is decreasing faster than the maximum scale rate",
);

fn secs(s: i64) -> SignedDuration {
    SignedDuration::from_secs(s)
}

/// Mirrors `normalizeDesiredReplicas`: stabilize over the downscale window
/// (`stabilizeRecommendation`, which remembers the unclamped proposal), then the scale-up limit
/// and bounds.
pub fn without_behavior(
    history: &mut History,
    now: Timestamp,
    downscale_window: SignedDuration,
    current: i32,
    proposal: i32,
    min: i32,
    max: i32,
) -> Normalization {
    // stabilizeRecommendation: records at or after the cutoff count.
    let cutoff = sub(now, downscale_window);
    let mut best = proposal;
    let mut old_index = None;
    let mut considered = Vec::with_capacity(history.recommendations.len());
    for (i, r) in history.recommendations.iter().enumerate() {
        if r.time < cutoff {
            old_index = Some(i);
        } else {
            considered.push(ConsideredRecommendation {
                time: r.time,
                replicas: r.replicas,
                in_scale_up_window: false,
                in_scale_down_window: true,
            });
            if r.replicas > best {
                best = r.replicas;
            }
        }
    }
    record(history, old_index, now, proposal);
    let (reason, message) = if best != proposal {
        DOWN_STABILIZED
    } else {
        (READY_REASON, READY_MESSAGE)
    };
    let stabilization = Stabilization {
        scale_up_window_seconds: None,
        scale_down_window_seconds: downscale_window.as_secs(),
        considered,
        up_recommendation: None,
        down_recommendation: best,
        stabilized: best,
        reason,
        message,
    };
    // convertDesiredReplicasWithRules.
    let scale_up_limit = ((2.0 * current as f64).max(4.0)) as i32;
    let (max_allowed, max_reason) = if max > scale_up_limit {
        (scale_up_limit, UP_LIMIT)
    } else {
        (max, TOO_MANY)
    };
    let (result, (reason, message), allowed) = if best < min {
        (min, TOO_FEW, Some(min))
    } else if best > max_allowed {
        (max_allowed, max_reason, Some(max_allowed))
    } else {
        (best, WITHIN, None)
    };
    Normalization {
        mode: "default",
        proposal,
        stabilization,
        limits: Limits {
            direction: direction(best, current),
            scale_up_limit: Some(scale_up_limit),
            select_policy: None,
            policies: vec![],
            rate_limit: None,
            min_replicas: min,
            max_replicas: max,
            allowed,
            reason,
            message,
        },
        result,
    }
}

fn direction(target: i32, current: i32) -> &'static str {
    match target.cmp(&current) {
        std::cmp::Ordering::Greater => "up",
        std::cmp::Ordering::Less => "down",
        std::cmp::Ordering::Equal => "none",
    }
}

fn record(history: &mut History, old_index: Option<usize>, now: Timestamp, proposal: i32) {
    let rec = Recommendation {
        time: now,
        replicas: proposal,
    };
    match old_index {
        Some(i) => history.recommendations[i] = rec,
        None => history.recommendations.push(rec),
    }
}

/// The scale-down window in force: the spec's, or the controller's `--downscale-stabilization`.
pub fn scale_down_window(b: &Behavior, downscale_default: SignedDuration) -> i64 {
    b.scale_down
        .stabilization_window_seconds
        .map(i64::from)
        .unwrap_or(downscale_default.as_secs())
}

/// Mirrors `normalizeDesiredReplicasWithBehaviors`: the stabilization envelope, then the rate
/// policies and bounds. The proposal remembered is the pre-normalised one: the rate limits
/// clamp only afterwards (section C2), so a rescale's size bounds the proposal of its sync,
/// never equals it by necessity ([`super::memory`] relies on this).
#[cfg(test)]
#[allow(clippy::too_many_arguments)]
pub fn with_behavior(
    history: &mut History,
    now: Timestamp,
    b: &Behavior,
    downscale_default: SignedDuration,
    current: i32,
    proposal: i32,
    min: i32,
    max: i32,
    own_direction_only: bool,
) -> Normalization {
    let ask = Ask {
        now,
        behavior: b,
        downscale_default,
        list: true,
        current,
        proposal,
        bounds: (min, max),
        own_direction_only,
    };
    with_behavior_into((history, None), ask)
}

/// What one sync asks the normalization of, besides the memory it reads and writes: the time,
/// the behavior, the default scale-down window, whether to list the considered
/// recommendations (a brief decision lists none), the current replicas, the proposal, the
/// min/max bounds, and whether only the proposal's own direction is stabilized (before 1.25).
#[derive(Clone, Copy)]
pub(super) struct Ask<'a> {
    pub now: Timestamp,
    pub behavior: &'a Behavior,
    pub downscale_default: SignedDuration,
    pub list: bool,
    pub current: i32,
    pub proposal: i32,
    pub bounds: (i32, i32),
    pub own_direction_only: bool,
}

/// [`with_behavior`], listing the considered recommendations when `list` (a brief decision
/// lists none). `kept`: the envelope kept from the last syncs, for a brief decision whose
/// memory the caller carries (see [`KeptEnvelope`]). The general path of
/// [`with_behavior_over`]: written over a blank normalization.
pub(super) fn with_behavior_into(
    memory: (&mut History, Option<&mut KeptEnvelope>),
    ask: Ask<'_>,
) -> Normalization {
    let mut out = blank();
    write_with_behavior(&mut out, memory, ask);
    out
}

// perf: benches/simulate. The normalization of a sync written over the last sync's (its
// considered buffer and policies reused) instead of built and moved into the decision: the
// struct's moves and copies cost more than the writes. In debug builds the answer is compared
// with the general path's ([`with_behavior_into`]: over a blank normalization, the envelope
// walked) and its memory with the memory that path leaves, at every sync.
/// [`with_behavior_into`] written over `out`, a normalization of an earlier sync (or a blank
/// one): every field is rewritten.
pub(super) fn with_behavior_over(
    out: &mut Normalization,
    (history, kept): (&mut History, Option<&mut KeptEnvelope>),
    ask: Ask<'_>,
) {
    let before = cfg!(debug_assertions).then(|| history.clone());
    write_with_behavior(out, (history, kept), ask);
    if let Some(mut general_history) = before {
        let general = with_behavior_into((&mut general_history, None), ask);
        assert_eq!(
            *out, general,
            "the normalization written over the last sync's"
        );
        assert_eq!(
            *history, general_history,
            "the memory the normalization left"
        );
    }
}

/// A normalization no sync wrote yet (every field is written by [`write_with_behavior`]).
pub(super) fn blank() -> Normalization {
    Normalization {
        mode: "",
        proposal: 0,
        stabilization: Stabilization {
            scale_up_window_seconds: None,
            scale_down_window_seconds: 0,
            considered: Vec::new(),
            up_recommendation: None,
            down_recommendation: 0,
            stabilized: 0,
            reason: READY_REASON,
            message: "",
        },
        limits: Limits {
            direction: "",
            scale_up_limit: None,
            select_policy: None,
            policies: Vec::new(),
            rate_limit: None,
            min_replicas: 0,
            max_replicas: 0,
            allowed: None,
            reason: WITHIN.0,
            message: "",
        },
        result: 0,
    }
}

/// Mirrors `normalizeDesiredReplicasWithBehaviors`, written over `out` (every field).
fn write_with_behavior(
    out: &mut Normalization,
    (history, kept): (&mut History, Option<&mut KeptEnvelope>),
    ask: Ask<'_>,
) {
    let Ask {
        now,
        behavior: b,
        downscale_default,
        list,
        current,
        proposal,
        ..
    } = ask;
    stabilize_with_behaviors(
        &mut out.stabilization,
        (history, kept),
        now,
        b,
        (downscale_default, list),
        current,
        proposal,
    );
    out.result =
        convert_with_behavior_rate(&mut out.limits, history, out.stabilization.stabilized, ask);
    out.mode = "behavior";
    out.proposal = proposal;
}

/// Mirrors `stabilizeRecommendationWithBehaviors`: the envelope of the recommendations in the
/// scale-up and scale-down windows; records this sync's proposal. Written over `out` (its
/// considered list filled when `list`, else emptied). Not in line: its loop over the ~21
/// remembered recommendations is hot in `simulate`, and in line its speed moved by 5% with
/// unrelated changes to the code around it (where the loop fell in memory).
#[inline(never)]
fn stabilize_with_behaviors(
    out: &mut Stabilization,
    (history, kept): (&mut History, Option<&mut KeptEnvelope>),
    now: Timestamp,
    b: &Behavior,
    (downscale_default, list): (SignedDuration, bool),
    current: i32,
    proposal: i32,
) {
    let considered = &mut out.considered;
    considered.clear();
    let up_window = b.scale_up.stabilization_window_seconds.unwrap_or(0) as i64;
    let down_window = scale_down_window(b, downscale_default);
    let up_cutoff = sub(now, secs(up_window));
    let down_cutoff = sub(now, secs(down_window));
    let mut up_rec = proposal;
    let mut down_rec = proposal;
    // Older than both cutoffs: older than the earlier one (one comparison per record).
    let old_cutoff = up_cutoff.min(down_cutoff);
    let mut old_index = None;
    // perf: benches/simulate. A brief decision lists nothing: its loop over the ~21 remembered
    // recommendations carries no list (callgrind, the benchmark's arguments over 48 h: 10.7 M ->
    // 7.6 M instructions here, 118.9 M -> 115.8 M for the run); the listing loop below then runs
    // over nothing. Test `brief_envelope_is_the_listed_one`.
    if !list {
        let cutoffs = Cutoffs {
            up: up_cutoff,
            down: down_cutoff,
            old: old_cutoff,
        };
        let recs = &history.recommendations;
        // perf: benches/simulate. Simulate's syncs carry the memory: the envelope is kept
        // from one sync to the next instead of walked (see `envelope.rs`; its test compares
        // the two over random runs, and debug builds compare them at every sync).
        let kept =
            kept.and_then(|k| k.next(recs, now, (up_window, down_window), cutoffs, proposal));
        if cfg!(debug_assertions) {
            if let Some(found) = kept {
                assert_eq!(found, scan(recs, cutoffs, proposal), "the kept envelope");
            }
        }
        let found = kept.unwrap_or_else(|| scan(recs, cutoffs, proposal));
        up_rec = found.up;
        down_rec = found.down;
        old_index = found.old_index;
    } else if let Some(k) = kept {
        k.forget();
    }
    let listed = if list {
        &history.recommendations[..]
    } else {
        &[]
    };
    for (i, r) in listed.iter().enumerate() {
        let in_up = r.time > up_cutoff;
        let in_down = r.time > down_cutoff;
        if in_up {
            up_rec = up_rec.min(r.replicas);
        }
        if in_down {
            down_rec = down_rec.max(r.replicas);
        }
        if in_up || in_down {
            considered.push(ConsideredRecommendation {
                time: r.time,
                replicas: r.replicas,
                in_scale_up_window: in_up,
                in_scale_down_window: in_down,
            });
        }
        if r.time < old_cutoff {
            old_index = Some(i);
        }
    }
    let mut stabilized = current;
    if stabilized < up_rec {
        stabilized = up_rec;
    }
    if stabilized > down_rec {
        stabilized = down_rec;
    }
    record(history, old_index, now, proposal);
    let (reason, message) = if stabilized == proposal {
        (READY_REASON, READY_MESSAGE)
    } else if proposal >= current {
        UP_STABILIZED
    } else {
        DOWN_STABILIZED
    };
    out.scale_up_window_seconds = Some(up_window);
    out.scale_down_window_seconds = down_window;
    out.up_recommendation = Some(up_rec);
    out.down_recommendation = down_rec;
    out.stabilized = stabilized;
    out.reason = reason;
    out.message = message;
}

/// Mirrors `convertDesiredReplicasWithBehaviorRate`: the rate policies of the direction, then
/// minReplicas and maxReplicas, applied to the `stabilized` recommendation. The limits are
/// written over `limits` (every field); returns the result.
fn convert_with_behavior_rate(
    limits: &mut Limits,
    history: &History,
    stabilized: i32,
    ask: Ask<'_>,
) -> i32 {
    let Ask {
        now,
        behavior: b,
        current,
        bounds: (min, max),
        own_direction_only,
        ..
    } = ask;
    limits.direction = direction(stabilized, current);
    limits.scale_up_limit = None;
    limits.select_policy = None;
    limits.policies.clear();
    limits.rate_limit = None;
    limits.min_replicas = min;
    limits.max_replicas = max;
    limits.allowed = None;
    limits.reason = WITHIN.0;
    limits.message = WITHIN.1;
    let mut result = stabilized;
    if stabilized > current {
        let (limit, evals) =
            rate_limit(&b.scale_up, history, now, current, true, own_direction_only);
        let limit = limit.max(current);
        limits.select_policy = Some(b.scale_up.select_policy);
        limits.policies = evals;
        limits.rate_limit = Some(limit);
        let (allowed, (r, m)) = if max > limit {
            (limit, UP_LIMIT)
        } else {
            (max, TOO_MANY)
        };
        limits.allowed = Some(allowed);
        if stabilized > allowed {
            result = allowed;
            limits.reason = r;
            limits.message = m;
        }
    } else if stabilized < current {
        let (limit, evals) = rate_limit(
            &b.scale_down,
            history,
            now,
            current,
            false,
            own_direction_only,
        );
        let limit = limit.min(current);
        limits.select_policy = Some(b.scale_down.select_policy);
        limits.policies = evals;
        limits.rate_limit = Some(limit);
        let (allowed, (r, m)) = if min < limit {
            (limit, DOWN_LIMIT)
        } else {
            (min, TOO_FEW)
        };
        limits.allowed = Some(allowed);
        if stabilized < allowed {
            result = allowed;
            limits.reason = r;
            limits.message = m;
        }
    }
    result
}

/// `getReplicasChangePerPeriod`: events strictly newer than `now - period`.
fn change_in_period(events: &[ScaleEvent], now: Timestamp, period_seconds: i32) -> i32 {
    let cutoff = sub(now, secs(period_seconds as i64));
    events
        .iter()
        .filter(|e| e.time > cutoff)
        .fold(0i32, |acc, e| acc.saturating_add(e.change))
}

/// `calculateScaleUpLimitWithScalingRules` / `calculateScaleDownLimitWithBehaviors`.
fn rate_limit(
    rules: &Rules,
    history: &History,
    now: Timestamp,
    current: i32,
    up: bool,
    own_direction_only: bool,
) -> (i32, Vec<PolicyEvaluation>) {
    if rules.select_policy == SelectPolicy::Disabled {
        return (current, vec![]);
    }
    // Up: Max picks the largest limit; down: Max (biggest change) picks the smallest.
    let pick_largest = (rules.select_policy == SelectPolicy::Max) == up;
    let mut result = if pick_largest { i32::MIN } else { i32::MAX };
    let mut evals = Vec::with_capacity(rules.policies.len());
    for p in &rules.policies {
        let mut added = change_in_period(&history.scale_up_events, now, p.period_seconds);
        let mut removed = change_in_period(&history.scale_down_events, now, p.period_seconds);
        // Before 1.25 a period's start only accounted for the events of its own direction.
        if own_direction_only {
            if up {
                removed = 0;
            } else {
                added = 0;
            }
        }
        let start = current.saturating_sub(added).saturating_add(removed);
        let limit = match (p.kind, up) {
            (PolicyKind::Pods, true) => start.saturating_add(p.value),
            (PolicyKind::Percent, true) => {
                (start as f64 * (1.0 + p.value as f64 / 100.0)).ceil() as i32
            }
            (PolicyKind::Pods, false) => start.saturating_sub(p.value),
            (PolicyKind::Percent, false) => (start as f64 * (1.0 - p.value as f64 / 100.0)) as i32,
        };
        result = if pick_largest {
            result.max(limit)
        } else {
            result.min(limit)
        };
        evals.push(PolicyEvaluation {
            kind: p.kind,
            value: p.value,
            period_seconds: p.period_seconds,
            added_in_period: added,
            removed_in_period: removed,
            period_start_replicas: start,
            limit,
        });
    }
    (result, evals)
}

/// `storeScaleEvent`: remember a rescale for the rate policies (behavior only).
pub fn store_scale_event(history: &mut History, b: &Behavior, now: Timestamp, prev: i32, new: i32) {
    let (events, rules) = if new > prev {
        (&mut history.scale_up_events, &b.scale_up)
    } else {
        (&mut history.scale_down_events, &b.scale_down)
    };
    let longest = rules
        .policies
        .iter()
        .map(|p| p.period_seconds)
        .max()
        .unwrap_or(0);
    let cutoff = sub(now, secs(longest as i64));
    let reusable = events.iter().rposition(|e| e.time < cutoff);
    let ev = ScaleEvent {
        time: now,
        change: (new - prev).abs(),
    };
    match reusable {
        Some(i) => events[i] = ev,
        None => events.push(ev),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A xorshift sequence from `seed`: each call a number below `n`.
    fn xorshift(mut seed: u64) -> impl FnMut(u64) -> u64 {
        move |n| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % n
        }
    }

    /// A brief sync of the random tests: a 300 s default scale-down window, bounds 1..10,
    /// both directions stabilized (1.25+).
    fn test_ask(now: Timestamp, behavior: &Behavior, current: i32, proposal: i32) -> Ask<'_> {
        Ask {
            now,
            behavior,
            downscale_default: SignedDuration::from_secs(300),
            list: false,
            current,
            proposal,
            bounds: (1, 10),
            own_direction_only: false,
        }
    }

    /// A normalization written over the one of an earlier, different sync equals the one
    /// written over a blank normalization (every field rewritten), listed or brief, with or
    /// without rate policies in force, and leaves the same memory.
    #[test]
    fn written_over_is_the_fresh_one() {
        let mut next = xorshift(0x2545_F491_4F6C_DD1Du64);
        let now: Timestamp = "2026-03-01T12:00:00Z".parse().unwrap();
        let mut over = blank();
        for _ in 0..3_000 {
            let mut b = Behavior {
                scale_up: Rules::default_scale_up(),
                scale_down: Rules::default_scale_up(),
            };
            b.scale_up.stabilization_window_seconds = Some([0, 15, 60][next(3) as usize]);
            b.scale_down.stabilization_window_seconds =
                [None, Some(0), Some(300)][next(3) as usize];
            for r in [&mut b.scale_up, &mut b.scale_down] {
                r.select_policy = [SelectPolicy::Max, SelectPolicy::Min, SelectPolicy::Disabled]
                    [next(3) as usize];
                r.policies.truncate(next(3) as usize);
            }
            let ago = |n: u64| now - SignedDuration::from_secs(n as i64);
            let history = History {
                recommendations: (0..next(25))
                    .map(|_| Recommendation {
                        time: ago(next(400)),
                        replicas: next(12) as i32,
                    })
                    .collect(),
                scale_up_events: (0..next(3))
                    .map(|_| ScaleEvent {
                        time: ago(next(60)),
                        change: 1 + next(4) as i32,
                    })
                    .collect(),
                scale_down_events: (0..next(3))
                    .map(|_| ScaleEvent {
                        time: ago(next(600)),
                        change: 1 + next(4) as i32,
                    })
                    .collect(),
            };
            let (current, proposal) = (1 + next(10) as i32, next(14) as i32);
            let (list, own) = (next(2) == 0, next(2) == 0);
            let (mut h_fresh, mut h_over) = (history.clone(), history);
            let ask = Ask {
                list,
                own_direction_only: own,
                ..test_ask(now, &b, current, proposal)
            };
            let fresh = with_behavior_into((&mut h_fresh, None), ask);
            write_with_behavior(&mut over, (&mut h_over, None), ask);
            assert_eq!(over, fresh);
            assert_eq!(h_over, h_fresh);
        }
    }

    /// The brief loop of `stabilize_with_behaviors` (no considered list) gives the listing
    /// loop's envelope, result and memory on random histories, windows and proposals.
    #[test]
    fn brief_envelope_is_the_listed_one() {
        let mut next = xorshift(0x9E37_79B9_7F4A_7C15u64);
        let now: Timestamp = "2026-03-01T12:00:00Z".parse().unwrap();
        for _ in 0..5_000 {
            let mut b = Behavior::default();
            b.scale_up.stabilization_window_seconds = Some([0, 15, 60, 300][next(4) as usize]);
            b.scale_down.stabilization_window_seconds =
                [None, Some(0), Some(30), Some(300)][next(4) as usize];
            let recommendations = (0..next(30))
                .map(|_| Recommendation {
                    // Some on a cutoff, some in the future, some with nanoseconds.
                    time: now - SignedDuration::new(next(400) as i64 - 20, next(3) as i32 * 7),
                    replicas: next(12) as i32,
                })
                .collect();
            let history = History {
                recommendations,
                ..History::default()
            };
            let (current, proposal) = (1 + next(10) as i32, next(12) as i32);
            let (mut h_brief, mut h_listed) = (history.clone(), history);
            let ask = test_ask(now, &b, current, proposal);
            let brief = with_behavior_into((&mut h_brief, None), ask);
            let listed = with_behavior_into((&mut h_listed, None), Ask { list: true, ..ask });
            let (sb, sl) = (&brief.stabilization, &listed.stabilization);
            assert_eq!(sb.up_recommendation, sl.up_recommendation);
            assert_eq!(sb.down_recommendation, sl.down_recommendation);
            assert_eq!(sb.stabilized, sl.stabilized);
            assert_eq!(brief.result, listed.result);
            assert_eq!(h_brief, h_listed);
        }
    }
}
