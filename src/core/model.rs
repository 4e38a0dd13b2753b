//! The plain, already-validated inputs of the algorithm.
//!
//! Nothing here does I/O. The snapshot reader and the cluster layer both produce an [`Input`];
//! every quantity is already parsed into the controller's milli-units, so the core never fails
//! on bad input — it only ever returns a decision trace.

use jiff::{SignedDuration, Timestamp};
use k8s_openapi::api::autoscaling::v2 as hpa_v2;
use serde::{Deserialize, Serialize};

use super::resources::Resources;
use super::settings::Settings;

/// Everything the controller would look at for one HPA in one sync.
#[derive(Debug, Clone)]
pub struct Input {
    pub hpa: Hpa,
    /// The target's scale subresource, or why it could not be read (`FailedGetScale`).
    pub scale: Result<Scale, String>,
    /// Pods in the HPA's namespace selected by the scale's selector (any phase).
    pub pods: Vec<PodInfo>,
    /// `metrics.k8s.io` PodMetrics selected by the scale's selector, or the fetch error.
    pub pod_metrics: Result<Vec<PodUsage>, String>,
    /// Per `spec.metrics` entry (same index): the custom/external metric data that the
    /// controller would fetch for it. Unused for Resource/ContainerResource entries.
    pub metric_data: Vec<MetricData>,
    /// Other HPAs in the namespace whose targets select any of these pods (AmbiguousSelector).
    pub other_hpas_selecting: Vec<String>,
    pub settings: Settings,
    pub history: History,
    pub now: Timestamp,
    /// How much explanation to build; the decision is the same either way.
    pub detail: Detail,
}

/// How much of the explanation the core builds. Every number and decision (conditions' types,
/// statuses, reasons and transition times included) is computed the same way at every level.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Detail {
    #[default]
    Full,
    /// The memory inference's probes: no text or copy a sync's numbers do not need (per-pod
    /// rows, rule texts, steps, assumptions, the verdict's summary, the events, the conditions'
    /// messages, the metrics' descriptions, the rescale's reason, the stabilization's considered
    /// recommendations); the metrics' statuses are moved to `status.currentMetrics`.
    Brief,
    /// `simulate`, which runs the algorithm hundreds of thousands of times: `Brief` without the
    /// metrics' statuses (`status.currentMetrics` stays empty) and without the copy of the
    /// history it started from (`history.given` stays empty: it is the input's).
    Numbers,
}

impl Detail {
    /// The texts of the full explanation are built (rows, rules, steps, events, messages).
    pub fn narrates(self) -> bool {
        self == Detail::Full
    }

    /// The metrics' statuses are built (`status.currentMetrics`).
    pub fn builds_statuses(self) -> bool {
        self != Detail::Numbers
    }
}

/// The HPA with API defaults applied.
#[derive(Debug, Clone)]
pub struct Hpa {
    pub namespace: String,
    pub name: String,
    pub min_replicas: i32,
    pub max_replicas: i32,
    /// `spec.metrics` after defaulting (empty → cpu 80 %).
    pub metrics: Vec<MetricSpec>,
    /// `spec.behavior` after defaulting, when present.
    pub behavior: Option<Behavior>,
    /// The raw spec metrics (for building `MetricStatus` exactly as the controller does).
    pub raw_metrics: Vec<hpa_v2::MetricSpec>,
    /// `status` as last written by the controller (desiredReplicas, lastScaleTime, ...), but
    /// for its conditions, which are in [`Hpa::conditions`] (`status.conditions` is not read).
    pub status: Option<hpa_v2::HorizontalPodAutoscalerStatus>,
    /// `status.conditions` as last written, in the core's words. `observedGeneration` is the
    /// one written; `setThisSync` is false.
    pub conditions: Vec<super::Condition>,
    pub target_kind: String,
    pub target_name: String,
    pub generation: Option<i64>,
}

impl Hpa {
    /// The status as read from the API: its conditions go to [`Hpa::conditions`], in the
    /// core's words, the rest to [`Hpa::status`].
    pub fn set_status(&mut self, status: Option<hpa_v2::HorizontalPodAutoscalerStatus>) {
        self.conditions = conditions_of(status.as_ref());
        self.status = status.map(|mut s| {
            s.conditions = None;
            s
        });
    }
}

/// `status.conditions` in the core's words (see [`Hpa::conditions`]).
pub fn conditions_of(
    status: Option<&hpa_v2::HorizontalPodAutoscalerStatus>,
) -> Vec<super::Condition> {
    status
        .and_then(|s| s.conditions.as_deref())
        .unwrap_or_default()
        .iter()
        .map(|c| super::Condition {
            type_: c.type_.as_str().into(),
            status: c.status.as_str().into(),
            reason: c.reason.as_deref().unwrap_or_default().into(),
            message: c.message.clone().unwrap_or_default(),
            last_transition_time: c.last_transition_time.as_ref().map(|t| t.0),
            observed_generation: c.observed_generation,
            set_this_sync: false,
        })
        .collect()
}

/// One parsed `spec.metrics` entry.
#[derive(Debug, Clone, PartialEq)]
pub enum MetricSpec {
    Resource {
        resource: String,
        target: Target,
    },
    ContainerResource {
        resource: String,
        container: String,
        target: Target,
    },
    Pods {
        metric: String,
        target: Target,
    },
    Object {
        kind: String,
        object: String,
        metric: String,
        target: Target,
    },
    External {
        metric: String,
        /// `metric.selector` rendered the way the controller prints it (`nil` or `&LabelSelector{...}`).
        selector_text: String,
        target: Target,
    },
    /// A `type` the controller does not know.
    Unknown {
        type_name: String,
    },
}

impl MetricSpec {
    /// The `type` string of the entry.
    pub fn type_name(&self) -> &str {
        match self {
            MetricSpec::Resource { .. } => "Resource",
            MetricSpec::ContainerResource { .. } => "ContainerResource",
            MetricSpec::Pods { .. } => "Pods",
            MetricSpec::Object { .. } => "Object",
            MetricSpec::External { .. } => "External",
            MetricSpec::Unknown { type_name } => type_name,
        }
    }

    /// Object and External metrics are the ones that allow scaling from zero.
    pub fn is_object_or_external(&self) -> bool {
        matches!(
            self,
            MetricSpec::Object { .. } | MetricSpec::External { .. }
        )
    }
}

/// A metric target in milli-units.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Target {
    /// `target.type` as written (`Utilization`, `Value`, `AverageValue`).
    #[serde(rename = "type")]
    pub type_: String,
    pub value: Option<i64>,
    pub average_value: Option<i64>,
    pub average_utilization: Option<i32>,
}

/// Defaulted `spec.behavior`.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Behavior {
    pub scale_up: Rules,
    pub scale_down: Rules,
}

/// One direction of `spec.behavior`, defaults applied.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Rules {
    /// `None` only for scaleDown when unset: the controller then uses `--downscale-stabilization`.
    pub stabilization_window_seconds: Option<i32>,
    pub select_policy: SelectPolicy,
    pub policies: Vec<Policy>,
    /// `tolerance` as a float, when set in the spec.
    pub tolerance: Option<f64>,
}

impl Rules {
    /// The API server's defaults for `behavior.scaleUp`: no window, the larger of 4 pods or
    /// 100 % per 15 s.
    pub fn default_scale_up() -> Rules {
        Rules {
            stabilization_window_seconds: Some(0),
            select_policy: SelectPolicy::Max,
            policies: vec![
                Policy {
                    kind: PolicyKind::Pods,
                    value: 4,
                    period_seconds: 15,
                },
                Policy {
                    kind: PolicyKind::Percent,
                    value: 100,
                    period_seconds: 15,
                },
            ],
            tolerance: None,
        }
    }

    /// The API server's defaults for `behavior.scaleDown`: 100 % per 15 s; the window stays
    /// unset so the controller's `--horizontal-pod-autoscaler-downscale-stabilization` applies.
    pub fn default_scale_down() -> Rules {
        Rules {
            stabilization_window_seconds: None,
            select_policy: SelectPolicy::Max,
            policies: vec![Policy {
                kind: PolicyKind::Percent,
                value: 100,
                period_seconds: 15,
            }],
            tolerance: None,
        }
    }
}

impl Default for Behavior {
    /// `behavior: {}` after API defaulting.
    fn default() -> Behavior {
        Behavior {
            scale_up: Rules::default_scale_up(),
            scale_down: Rules::default_scale_down(),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub enum SelectPolicy {
    Max,
    Min,
    Disabled,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Policy {
    #[serde(rename = "type")]
    pub kind: PolicyKind,
    pub value: i32,
    pub period_seconds: i32,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub enum PolicyKind {
    Pods,
    Percent,
}

/// What the scale subresource says.
#[derive(Debug, Clone, PartialEq)]
pub struct Scale {
    /// `spec.replicas`: the controller's "current".
    pub spec_replicas: i32,
    /// `status.replicas`.
    pub status_replicas: i32,
    /// `status.selector`, the selector string (may be empty).
    pub selector: String,
}

/// A pod, reduced to what the algorithm reads.
#[derive(Debug, Clone, PartialEq)]
pub struct PodInfo {
    pub name: String,
    pub phase: String,
    pub deleting: bool,
    pub start_time: Option<Timestamp>,
    /// The `Ready` condition, if any.
    pub ready: Option<ReadyCondition>,
    /// `spec.containers` then the restartable init containers (`restartPolicy: Always`).
    pub containers: Vec<ContainerRequests>,
    /// Every init container in its declared order, the restartable ones (also in
    /// `containers`) flagged: pod-level request aggregation needs the order.
    pub init_containers: Vec<ContainerRequests>,
    /// `spec.resources.requests` (pod-level resources), milli-units.
    pub pod_requests: Option<Resources>,
    /// `spec.overhead`, milli-units.
    pub overhead: Resources,
    /// Owner (`Kind/name`) for the per-pod table.
    pub owner: Option<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ReadyCondition {
    /// "True", "False" or "Unknown".
    pub status: String,
    /// Absent in the object → Go's zero time.
    pub last_transition_time: Timestamp,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ContainerRequests {
    pub name: String,
    /// `resources.requests`, milli-units.
    pub requests: Resources,
    /// A restartable (sidecar) init container.
    pub restartable_init: bool,
}

/// One PodMetrics object of the resource metrics API.
#[derive(Debug, Clone, PartialEq)]
pub struct PodUsage {
    pub pod: String,
    pub timestamp: Timestamp,
    pub window: SignedDuration,
    /// Per container: resource name → milli-units.
    pub containers: Vec<(String, Resources)>,
}

/// One value from the custom or external metrics API.
#[derive(Debug, Clone, PartialEq)]
pub struct MetricSample {
    /// For Pods metrics, the pod's name; otherwise the described object or metric name.
    pub name: String,
    pub value: i64,
    pub timestamp: Timestamp,
    pub window: SignedDuration,
}

/// The data the controller fetches for one non-resource metric.
#[derive(Debug, Clone, PartialEq, Default)]
pub enum MetricData {
    /// Resource metrics read `Input::pod_metrics`; unknown types read nothing.
    #[default]
    None,
    /// Pods metric values (one per pod) or the fetch error (the inner text, e.g.
    /// `unable to fetch metrics from custom metrics API: ...`).
    Pods(Result<Vec<MetricSample>, String>),
    /// The one Object metric value, or the fetch error.
    Object(Result<MetricSample, String>),
    /// External metric values matching the selector (summed by the controller), or the fetch error.
    External(Result<Vec<MetricSample>, String>),
}

/// The controller's in-memory state for this HPA (not visible through the API).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
// The schema's `History` is the `history` command's document kind.
#[schemars(rename = "ControllerMemory")]
pub struct History {
    #[serde(default)]
    pub recommendations: Vec<Recommendation>,
    #[serde(default)]
    pub scale_up_events: Vec<ScaleEvent>,
    #[serde(default)]
    pub scale_down_events: Vec<ScaleEvent>,
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Recommendation {
    pub time: Timestamp,
    pub replicas: i32,
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ScaleEvent {
    pub time: Timestamp,
    /// Pods added (scale-up list) or removed (scale-down list); positive.
    pub change: i32,
}

impl History {
    pub fn is_empty(&self) -> bool {
        self.recommendations.is_empty()
            && self.scale_up_events.is_empty()
            && self.scale_down_events.is_empty()
    }
}
