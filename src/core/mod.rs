//! The pure core: the HPA controller's algorithm (`horizontal.go` + `replica_calculator.go`)
//! over plain inputs, returning a [`Decision`] — the decision trace every output renders.
//!
//! No I/O happens here. [`evaluate`] never fails: unusable input is rejected earlier, when the
//! [`Input`] is built; everything the controller itself treats as an error (missing metrics, a
//! missing request, a target that cannot be read) is part of the answer.
//!
//! The modules follow the controller's own functions:
//! - [`reconcile`]: `reconcileAutoscaler` (scale, branch on the current count, act);
//! - [`compute_replicas`]: `computeReplicasForMetrics` and `validateAndParseSelector`;
//! - [`metric_sources`]: `computeReplicasForMetric` and one `computeStatusFor…Metric` per source;
//! - [`calc`]: `replica_calculator.go` (pod averages, value and average-value targets);
//! - [`normalize`]: `normalizeDesiredReplicas[WithBehaviors]`, the stabilization and rate limits;
//! - [`status`]: `setCondition`, the events, `setCurrentReplicasAndMetricsInStatus`;
//! - [`verdict`]: the rule that decided ([`Rule`]) and the explanation around it;
//! - [`memory`], [`with_memory`]: the controller's in-memory history, inferred from evidence.

pub mod calc;
pub mod clock;
mod compare;
mod compute_replicas;
mod envelope;
pub mod memory;
mod metric_sources;
pub mod model;
mod name_map;
pub mod normalize;
mod reconcile;
pub mod resources;
mod rule;
pub mod settings;
mod status;
mod verdict;
pub mod with_memory;
pub mod word;

use jiff::Timestamp;
use k8s_openapi::api::autoscaling::v2 as hpa_v2;
use serde::Serialize;

pub use calc::{Calculation, PodGroup, PodRow, Tolerances};
pub use memory::{HistoryMode, RescaleRecord};
pub use metric_sources::selector_text;
pub use model::*;
pub use normalize::Normalization;
pub use reconcile::{evaluate, Evaluator};
pub use resources::{Resource, Resources};
pub use rule::Rule;
pub use settings::{Evidence, KubeVersion, Settings};
pub use with_memory::{evaluate_with_memory, DesiredRange, LastSync, MemoryReport, NextChange};
pub use word::Word;

/// What the controller would do now.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub enum Action {
    ScaleUp,
    ScaleDown,
    Hold,
    /// The controller cannot compute a decision (replicas stay as they are).
    CannotScale,
    /// Scaling is disabled because the target is at 0 replicas.
    Disabled,
    /// Not the controller's decision: a read of ours failed (throttled, 5xx, timeout,
    /// unreadable, denied), so the controller's own view is unknown (`decidedBy: FetchFailed`).
    Unknown,
}

#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Verdict {
    pub action: Action,
    pub from: Option<i32>,
    pub to: Option<i32>,
    /// The one rule that decided (serialised as `Tolerance`, `ScaleUpLimit`, ...).
    pub decided_by: Rule,
    /// The same in words.
    pub summary: String,
}

/// One `spec.metrics` entry's outcome.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct MetricOutcome {
    #[serde(rename = "type")]
    pub type_: String,
    /// The controller's description of the metric (`cpu resource utilization (percentage of request)`).
    pub description: Option<String>,
    pub proposed_replicas: Option<i32>,
    /// The error as the controller words it in the metric's event and condition.
    pub error: Option<String>,
    /// Exactly the autoscaling/v2 MetricStatus the controller writes (null when it failed or was not evaluated).
    pub status: Option<hpa_v2::MetricStatus>,
    /// Whether this metric's proposal won.
    pub winner: bool,
    /// Why the metric was not evaluated, if it was not.
    pub skipped: Option<String>,
    pub calculation: Option<Calculation>,
    /// The fact behind a `missing request for …` error, for the diagnostics (not serialised:
    /// `error` words it).
    #[serde(skip)]
    pub missing_request: Option<calc::MissingRequest>,
}

#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Condition {
    #[serde(rename = "type")]
    pub type_: Word,
    pub status: Word,
    pub reason: Word,
    pub message: String,
    pub last_transition_time: Option<Timestamp>,
    /// `metadata.generation` when this sync set the condition (Kubernetes 1.37+, HPAGeneration);
    /// absent before 1.37 and on conditions carried over from the status.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub observed_generation: Option<i64>,
    /// Set (or refreshed) by this sync; false = carried over from the HPA's status.
    pub set_this_sync: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Event {
    #[serde(rename = "type")]
    pub type_: String,
    pub reason: String,
    pub message: String,
}

/// A step of the explanation, in the order the controller takes them.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Step {
    pub rule: String,
    pub text: String,
}

/// The HPA status the controller would write.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct StatusOut {
    pub current_replicas: Option<i32>,
    pub desired_replicas: Option<i32>,
    pub current_metrics: Vec<hpa_v2::MetricStatus>,
    pub last_scale_time: Option<Timestamp>,
    /// `metadata.generation` (Kubernetes 1.37+, HPAGeneration); absent before 1.37.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub observed_generation: Option<i64>,
}

#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct HistoryOut {
    /// The history the computation started from.
    pub given: History,
    /// The controller's memory after this sync (what the next sync would start from).
    pub after: History,
}

/// The decision trace.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Decision {
    pub namespace: String,
    pub name: String,
    pub target: TargetRef,
    pub now: Timestamp,
    /// The target's `spec.replicas` (null when the scale could not be read).
    pub current_replicas: Option<i32>,
    /// What the controller would set the target to now (with the memory used; for an inferred
    /// memory, the most likely value when the evidence does not settle it).
    pub desired_replicas: Option<i32>,
    /// Every memory consistent with the evidence gives a value in this range.
    pub desired_range: Option<DesiredRange>,
    pub min_replicas: i32,
    pub max_replicas: i32,
    pub verdict: Verdict,
    pub metrics: Vec<MetricOutcome>,
    /// The largest valid proposal (before stabilization and limits).
    pub proposal: Option<i32>,
    pub rescale_reason: Option<String>,
    pub normalization: Option<Normalization>,
    pub conditions: Vec<Condition>,
    pub events: Vec<Event>,
    pub status: StatusOut,
    pub steps: Vec<Step>,
    pub tolerance: Tolerances,
    /// The effective behavior, defaults filled in (null: the no-behavior path).
    pub behavior: Option<Behavior>,
    pub settings: Settings,
    pub assumptions: Vec<String>,
    pub history: HistoryOut,
    /// The controller's memory: where it came from and the facts behind it.
    pub memory: Option<MemoryReport>,
    /// What the controller wrote at its last sync, and whether this recomputation reproduces it.
    pub last_sync: Option<LastSync>,
    /// When a hold by a stabilization window or a rate policy ends.
    pub next_change: Option<NextChange>,
}

impl Default for Decision {
    /// An empty decision, before any sync (what [`Evaluator::evaluate_into`] writes over).
    fn default() -> Decision {
        reconcile::blank_decision()
    }
}

#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TargetRef {
    pub kind: String,
    pub name: String,
}

#[cfg(test)]
mod tests;
