//! What a per-metric proposal records: the tolerance band, the pod rows, the [`Calculation`]
//! every output renders, and the result types of the calculator.

use jiff::Timestamp;

use serde::Serialize;

use super::requests::MissingRequest;

/// The tolerance band in force for this HPA.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Tolerances {
    /// Tolerance below 1.0 (scale-down side).
    pub down: f64,
    /// Tolerance above 1.0 (scale-up side).
    pub up: f64,
    /// Before 1.33 the test was `|1 - ratio| <= tolerance`.
    pub legacy_abs: bool,
    /// Where the values came from.
    pub source: &'static str,
}

impl Tolerances {
    pub fn is_within(&self, ratio: f64) -> bool {
        if self.legacy_abs {
            (1.0 - ratio).abs() <= self.up
        } else {
            (1.0 - self.down) <= ratio && ratio <= (1.0 + self.up)
        }
    }

    /// `[1 - down, 1 + up]`, the band of ratios that hold.
    pub fn band(&self) -> [f64; 2] {
        [1.0 - self.down, 1.0 + self.up]
    }
}

/// How one pod was classified for a pod-based metric.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum PodGroup {
    Ready,
    Unready,
    Missing,
    Ignored,
}

/// One row of the per-pod table.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PodRow {
    pub pod: String,
    pub phase: String,
    /// Status of the Ready condition (`True`, `False`, `Unknown`) or null.
    pub ready: Option<String>,
    pub group: PodGroup,
    /// The rule that put the pod in its group.
    pub why: String,
    /// The sample in milli-units, if the metrics API had one.
    pub usage_milli: Option<i64>,
    /// The pod's request in milli-units (utilization metrics only).
    pub request_milli: Option<i64>,
    /// usage × 100 / request, truncated (utilization metrics only).
    pub utilization: Option<i64>,
    /// Whether this pod's sample counts in the first ratio.
    pub counted: bool,
    /// Value assumed for this pod in the re-computation, if any.
    pub assumed_milli: Option<i64>,
    pub owner: Option<String>,
}

/// The recomputation with assumed values for missing and unready pods.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Rebalance {
    /// Value given to each missing pod (milli), if any were filled.
    pub missing_fill_milli: Option<i64>,
    pub missing_pods: usize,
    /// Value given to each unready pod (0) when scaling up with unready pods.
    pub unready_fill_milli: Option<i64>,
    pub unready_pods: usize,
    /// null when there is no ratio (NaN).
    #[schemars(with = "Option<f64>")]
    pub new_ratio: f64,
    /// Utilization % (utilization metrics) or average (plain metrics) after filling.
    pub new_value: i64,
    /// Entries counted after filling (`len(metrics)` in the controller).
    pub entries: usize,
}

/// Every number behind one metric's proposal.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(
    rename_all = "camelCase",
    rename_all_fields = "camelCase",
    tag = "kind"
)]
pub enum Calculation {
    /// Resource/ContainerResource utilization, resource averageValue and Pods metrics.
    PodAverage {
        /// `Utilization` (percent of request) or `AverageValue` (milli-units per pod).
        mode: &'static str,
        /// Current utilization % or per-pod average (milli) over counted pods.
        current: i64,
        /// Average usage in milli over counted pods (utilization mode: `averageValue` in status).
        raw_average_milli: Option<i64>,
        /// Target utilization % or average value (milli).
        target: i64,
        /// null when there is no ratio (a zero target or no usable value: NaN).
        #[schemars(with = "Option<f64>")]
        ratio: f64,
        tolerance_band: [f64; 2],
        current_replicas: i32,
        ready_pods: usize,
        unready_pods: usize,
        missing_pods: usize,
        ignored_pods: usize,
        /// Samples of pods that are not selected by the target (they still count, as in the controller).
        foreign_samples: usize,
        rebalance: Option<Rebalance>,
        /// The proposal is the current count because a ratio fell inside the tolerance band.
        within_tolerance: bool,
        /// The rule that produced the proposal.
        rule: String,
        pods: Vec<PodRow>,
    },
    /// Object/External with a `Value` target.
    Value {
        value_milli: i64,
        target_milli: i64,
        /// null when there is no ratio (a zero target or no usable value: NaN).
        #[schemars(with = "Option<f64>")]
        ratio: f64,
        tolerance_band: [f64; 2],
        current_replicas: i32,
        ready_pods: Option<i64>,
        within_tolerance: bool,
        rule: String,
    },
    /// Object/External with an `AverageValue` target (divided by the scale's status.replicas).
    AverageValue {
        total_milli: i64,
        target_milli: i64,
        status_replicas: i32,
        /// null when there is no ratio (a zero target or no usable value: NaN).
        #[schemars(with = "Option<f64>")]
        ratio: f64,
        tolerance_band: [f64; 2],
        /// ceil(total / status.replicas), what goes in the status.
        average_milli: i64,
        within_tolerance: bool,
        rule: String,
    },
}

/// A successful per-metric result. Its [`Calculation`] is written straight into the metric's
/// outcome (the `calc` argument of the functions that propose): it is most of the result, and
/// moving it on its way up was a copy per sync.
#[derive(Debug, Clone, PartialEq)]
pub struct Proposal {
    pub replicas: i32,
    /// Values for the metric's status, depending on the kind.
    pub current_value: i64,
    pub current_utilization: Option<i32>,
}

/// A failed per-metric result: the error as the controller words it, and what we computed
/// before the failure (so the explanation can still show the pods).
#[derive(Debug, Clone)]
pub struct Failure {
    pub error: String,
    pub partial: Option<Box<Calculation>>,
    /// The fact behind a `missing request for …` error (the diagnostics read it, not the text).
    pub missing_request: Option<MissingRequest>,
}

pub(super) type CalcResult = Result<Proposal, Failure>;

pub(super) fn fail(error: impl Into<String>) -> Failure {
    Failure {
        error: error.into(),
        partial: None,
        missing_request: None,
    }
}

/// Go's zero `time.Time`, used for absent timestamps.
pub fn go_zero_time() -> Timestamp {
    Timestamp::from_second(-62_135_596_800).expect("valid constant")
}
