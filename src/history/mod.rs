//! `kubectl hpa history`: the HPA's past decisions, read from the evidence the cluster keeps.
//!
//! Events-only mode (issue 31 item 1): the `SuccessfulRescale` Events (aggregated by the API
//! server into one Event per distinct message, with a count and the first and last time), the
//! status's `lastScaleTime`, and the conditions' `lastTransitionTime`s. Each recorded change
//! becomes a [`ScaleChange`]: when, from → to, the controller's own reason, the metric that decided it,
//! and whether the evidence is enough to say all of that — rows it cannot explain say why.
//!
//! Pure: [`build`] reads plain values and returns the [`ScaleHistory`] document; the text is
//! [`text::render`]. The command (`commands/history.rs`) only loads and prints.

pub mod at;
pub mod bench;
pub mod chart;
pub mod evidence;
pub mod flaps;
pub mod matching;
pub mod prom;
pub mod recorded;
pub mod replay;
pub mod replay_text;
pub mod replayed;
pub mod rows;
pub mod run;
pub mod source;
pub mod text;
pub mod tuning;
pub mod tuning_text;

use jiff::Timestamp;
use schemars::JsonSchema;
use serde::Serialize;

use crate::core::RescaleRecord;

/// What the history is computed from: the HPA's evidence, already read.
#[derive(Debug, Clone)]
pub struct Evidence {
    pub namespace: String,
    pub name: String,
    /// The workload's `spec.replicas` now, when the target was read.
    pub target_replicas: Option<i32>,
    /// `status.lastScaleTime`.
    pub last_scale_time: Option<Timestamp>,
    /// The HPA's conditions: (type, status, reason, lastTransitionTime).
    pub conditions: Vec<Condition>,
    /// The `SuccessfulRescale` Events, oldest first ([`crate::events::rescales`]).
    pub rescales: Vec<RescaleRecord>,
}

/// One condition of the HPA's status, as the controller last wrote it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Condition {
    pub type_: String,
    pub status: String,
    pub reason: String,
    pub since: Option<Timestamp>,
}

/// The window asked for: rows outside it are left out (and counted in a note).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Window {
    pub from: Option<Timestamp>,
    pub to: Timestamp,
}

/// The `History` document (`-o json|yaml`).
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ScaleHistory {
    pub namespace: String,
    pub name: String,
    /// Where the rows come from: `events` (no metric data was read).
    pub source: String,
    pub window: HistoryWindow,
    pub summary: HistorySummary,
    /// Oldest first.
    pub rows: Vec<rows::ScaleChange>,
    /// Periods the conditions show: at maxReplicas, at minReplicas, unable to scale.
    pub periods: Vec<HistoryPeriod>,
    /// What the evidence cannot say, and why.
    pub notes: Vec<String>,
    /// The controller replayed over the series Prometheus recorded (`--prometheus`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub replay: Option<replayed::Replay>,
    /// Flapping and the smallest change of `spec.behavior` that stops it, re-simulated over the
    /// recorded load (`--prometheus`).
    pub tuning: tuning::Tuning,
}

/// The window of the document: `from` is null when it reaches as far as the Events do.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct HistoryWindow {
    pub from: Option<Timestamp>,
    pub to: Timestamp,
    /// The oldest recorded change the Events still hold.
    pub oldest_event: Option<Timestamp>,
}

/// The window in one line's worth of numbers.
#[derive(Debug, Clone, Default, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct HistorySummary {
    pub scale_events: u32,
    pub up: u32,
    pub down: u32,
    /// Rows whose time, sizes and reason the evidence gives.
    pub explained: u32,
    pub not_explained: u32,
    /// Changes of direction (up then down, or down then up) in the window.
    pub direction_changes: u32,
    /// The most direction changes within any one hour of the window.
    pub max_direction_changes_per_hour: u32,
    /// Three or more direction changes within an hour.
    pub flapping: bool,
}

/// A period a condition of the status shows (since its `lastTransitionTime`, until now).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct HistoryPeriod {
    /// `atMaxReplicas`, `atMinReplicas`, `unableToScale`, `metricsFailing`.
    pub what: String,
    pub since: Option<Timestamp>,
    /// The condition it comes from: `ScalingLimited=True TooManyReplicas`.
    pub condition: String,
}

/// The history of one HPA over `window`.
pub fn build(e: &Evidence, window: Window) -> ScaleHistory {
    let all = rows::rows(&e.rescales);
    let (mut kept, mut notes) = rows::in_window(all, window);
    rows::check_latest(&mut kept, e, &mut notes);
    let summary = flaps::summary(&kept);
    let periods = periods(&e.conditions);
    let turns = summary.max_direction_changes_per_hour;
    let tuning = match summary.flapping {
        true => tuning::Tuning::needs_prometheus(turns),
        false => tuning::Tuning::no_flapping(turns),
    };
    if kept.is_empty() {
        notes.push(
            "no scale event in the window: the API server keeps Events for 1 h by default \
             (kube-apiserver --event-ttl), so older changes are gone"
                .to_string(),
        );
    }
    ScaleHistory {
        namespace: e.namespace.clone(),
        name: e.name.clone(),
        source: "events".to_string(),
        window: HistoryWindow {
            from: window.from,
            to: window.to,
            oldest_event: e.rescales.iter().map(|r| r.first).min(),
        },
        summary,
        rows: kept,
        periods,
        notes,
        replay: None,
        tuning,
    }
}

/// The periods the conditions show, from their reasons.
fn periods(conditions: &[Condition]) -> Vec<HistoryPeriod> {
    let mut out = Vec::new();
    for c in conditions {
        let what = match (c.type_.as_str(), c.status.as_str(), c.reason.as_str()) {
            ("ScalingLimited", "True", "TooManyReplicas") => "atMaxReplicas",
            ("ScalingLimited", "True", "TooFewReplicas") => "atMinReplicas",
            ("AbleToScale", "False", _) => "unableToScale",
            ("ScalingActive", "False", r) if r != "ScalingDisabled" => "metricsFailing",
            _ => continue,
        };
        out.push(HistoryPeriod {
            what: what.to_string(),
            since: c.since,
            condition: format!("{}={} {}", c.type_, c.status, c.reason),
        });
    }
    out
}

#[cfg(test)]
mod tests;
