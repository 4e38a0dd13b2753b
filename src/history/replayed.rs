//! The `replay` section of the `History` document: the recorded changes matched with the
//! replayed controller, and the window in numbers (scale events, explained, flaps, time at
//! maxReplicas).

use jiff::{SignedDuration, Timestamp};
use schemars::JsonSchema;
use serde::Serialize;

use super::flaps::{max_per_hour, turns, FLAPPING_TURNS_PER_HOUR};
use super::matching::{match_changes, Cause, ReplayedChange, Verdict};
use super::replay::ReplaySync;

/// What replaying the controller over the recorded window found.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Replay {
    /// The Prometheus the series came from (its userinfo masked).
    pub prometheus: String,
    pub from: Timestamp,
    pub to: Timestamp,
    pub sync_period_seconds: f64,
    /// Syncs replayed in the window (the lead that infers the memory not counted).
    pub syncs: u32,
    pub summary: ReplaySummary,
    /// Every recorded change of the target's size, oldest first.
    pub changes: Vec<ReplayedChange>,
    /// The PromQL read (the HPA's kube-state-metrics series, the Ready pods, each metric).
    pub queries: Vec<String>,
    /// What the series could not give, and what the replay did instead.
    pub notes: Vec<String>,
}

/// The window in one line's worth of numbers.
#[derive(Debug, Clone, Default, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ReplaySummary {
    pub scale_events: u32,
    /// Explained within one sync.
    pub explained: u32,
    pub explained_earlier: u32,
    pub explained_later: u32,
    pub not_explained: u32,
    pub manual_scales: u32,
    pub other_controller: u32,
    pub missing_data: u32,
    pub flags_differ: u32,
    pub direction_changes: u32,
    pub max_direction_changes_per_hour: u32,
    pub flapping: bool,
    /// Time the target spent at maxReplicas, in seconds.
    pub seconds_at_max: f64,
    /// Syncs where the replay would have scaled but the controller did not.
    pub replay_only_rescales: u32,
}

/// The section for `syncs` (the window's), with `window` the metric window in syncs.
pub fn section(
    syncs: &[ReplaySync],
    window: usize,
    step: SignedDuration,
    prometheus: &str,
    queries: Vec<String>,
    notes: Vec<String>,
) -> Replay {
    let changes = match_changes(syncs, window);
    let mut s = ReplaySummary {
        scale_events: changes.len() as u32,
        ..ReplaySummary::default()
    };
    for c in &changes {
        match (c.verdict, c.cause) {
            (Verdict::Explained, _) => s.explained += 1,
            (Verdict::ExplainedEarlier, _) => s.explained_earlier += 1,
            (Verdict::ExplainedLater, _) => s.explained_later += 1,
            (Verdict::NotExplained, cause) => {
                s.not_explained += 1;
                match cause {
                    Some(Cause::ManualScale) => s.manual_scales += 1,
                    Some(Cause::AnotherController) => s.other_controller += 1,
                    Some(Cause::MissingData) => s.missing_data += 1,
                    _ => s.flags_differ += 1,
                }
            }
        }
    }
    // The HPA's own moves: a manual scale and the move back are not flapping.
    let t = turns(
        changes
            .iter()
            .filter(|c| c.by == "controller")
            .map(|c| (c.time, c.direction)),
    );
    s.direction_changes = t.len() as u32;
    s.max_direction_changes_per_hour = max_per_hour(&t);
    s.flapping = s.max_direction_changes_per_hour >= FLAPPING_TURNS_PER_HOUR;
    let at_max = syncs.iter().filter(|x| x.current >= x.max).count();
    s.seconds_at_max = at_max as f64 * step.as_secs_f64();
    s.replay_only_rescales = syncs
        .iter()
        .filter(|x| x.replayed != x.current && x.desired == Some(x.current))
        .count() as u32;
    Replay {
        prometheus: crate::display::url::mask_userinfo(prometheus),
        from: syncs.first().map_or(Timestamp::UNIX_EPOCH, |x| x.time),
        to: syncs.last().map_or(Timestamp::UNIX_EPOCH, |x| x.time),
        sync_period_seconds: step.as_secs_f64(),
        syncs: syncs.len() as u32,
        summary: s,
        changes,
        queries,
        notes,
    }
}
