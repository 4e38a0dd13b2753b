//! The typed facts of what stops the replicas, as the Explanation's `capacity` and
//! `otherHands` sections carry them (the findings' `details` say the same, untyped): built by
//! `capacity.rs` and `others.rs`, which word their findings from them.

use std::collections::BTreeMap;

use jiff::Timestamp;
use serde::Serialize;

use crate::snapshot::blockers::{QuotaRefusal, Unfit};

/// What keeps the replicas the controller asked for from appearing.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Capacity {
    /// The target's Pending pods after a scale-up, and why the scheduler leaves them there.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pending_pods: Option<PendingPods>,
    /// A ResourceQuota refusing the target's new pods.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub quota: Option<QuotaRefused>,
    /// A rollout in progress (`status.replicas` above `spec.replicas`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rollout: Option<RolloutSurge>,
}

/// The target's Pending pods.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PendingPods {
    /// How many of the target's pods are Pending.
    pub count: usize,
    /// Their names.
    pub pods: Vec<String>,
    pub ready_pods: i32,
    pub spec_replicas: i32,
    /// Pending pods with a `FailedScheduling` Event.
    pub unscheduled_pods: usize,
    /// The scheduler's most common reading (`0/5 nodes are available: 3 Insufficient cpu`).
    pub scheduler_says: Option<String>,
    /// How many pods the scheduler said that of.
    pub pods_with_that_reading: usize,
    /// Nodes that would take the pod, of `nodes` (when the scheduler's words were read).
    pub nodes_available: Option<u32>,
    pub nodes: Option<u32>,
    /// The scheduler's reasons summarised: how many nodes, what, and its family.
    pub reasons: Vec<SchedulingReason>,
    /// What the cluster-autoscaler or Karpenter said about these pods.
    pub node_autoscaler: Vec<NodeAutoscalerEvent>,
    /// A node is being added or was nominated (`TriggeredScaleUp`, `Nominated`).
    pub nodes_coming: bool,
    #[serde(skip)]
    #[schemars(skip)]
    pub(super) families: Vec<Unfit>,
}

/// One reason of the scheduler's: `3 Insufficient cpu`.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SchedulingReason {
    pub nodes: u32,
    /// The scheduler's words (`Insufficient cpu`).
    pub reason: String,
    /// `insufficient`, `toomanypods`, `taint`, `affinity`, `volume`, `cordoned`, `other`.
    pub family: String,
}

/// A node autoscaler's Event on a Pending pod (the newest of its reason).
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct NodeAutoscalerEvent {
    /// `TriggeredScaleUp`, `NotTriggerScaleUp` or `Nominated`.
    pub reason: String,
    /// What it means (`the cluster-autoscaler is adding nodes`).
    pub says: String,
    pub message: String,
    pub last_seen: Option<Timestamp>,
}

/// A ResourceQuota's refusal of the target's new pods, and how many more fit.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct QuotaRefused {
    /// The ResourceQuota's name.
    pub quota: String,
    /// The workload whose `FailedCreate` Event says so (the target or its ReplicaSet).
    pub refused_by: String,
    /// The Event's count.
    pub refusals: i64,
    pub last_seen: Option<Timestamp>,
    /// `hard` and `used` are the quota object's (false: the refusal's own numbers).
    pub from_quota_object: bool,
    /// The quota's hard limits, per key, in the user's units.
    pub hard: BTreeMap<String, String>,
    /// What the namespace uses, per key.
    pub used: BTreeMap<String, String>,
    /// The requests of one pod, per resource.
    pub per_pod_requests: BTreeMap<String, String>,
    /// How many more pods fit (null: the quota counts no request the pods make).
    pub pods_that_fit: Option<i64>,
    /// The quota key that binds first.
    pub binding_key: Option<String>,
    /// The replicas the HPA wants (spec.replicas or the decision, the larger).
    pub wanted: i64,
    /// The target's pods that exist.
    pub existing: i64,
    pub missing_pods: i64,
    #[serde(skip)]
    #[schemars(skip)]
    pub(super) refusal: QuotaRefusal,
    #[serde(skip)]
    #[schemars(skip)]
    pub(super) hard_milli: BTreeMap<String, i64>,
    #[serde(skip)]
    #[schemars(skip)]
    pub(super) used_milli: BTreeMap<String, i64>,
    #[serde(skip)]
    #[schemars(skip)]
    pub(super) per_pod_milli: BTreeMap<String, i64>,
}

/// A rollout's surge: pods above `spec.replicas`.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RolloutSurge {
    pub spec_replicas: i32,
    pub status_replicas: i32,
    pub surge_pods: i32,
}

/// Other hands on the same workload.
#[derive(Debug, Clone, Default, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct OtherHands {
    /// VerticalPodAutoscalers targeting the same workload.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub vpas: Vec<VpaOnTarget>,
    /// PodDisruptionBudgets selecting the target's pods.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub pdbs: Vec<PdbOnTarget>,
    /// LimitRanges supplying a request the utilization is a share of.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub limit_ranges: Vec<LimitRangeRequest>,
    /// Other HPAs selecting the same pods, and KEDA ScaledObjects on the same target.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub autoscalers: Vec<OtherAutoscaler>,
}

/// A VPA on the HPA's target.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct VpaOnTarget {
    pub name: String,
    /// `spec.updatePolicy.updateMode` (`Auto` when unset).
    pub update_mode: String,
    /// The resources it sets on running pods (empty: it does not update them).
    pub controlled_resources: Vec<String>,
    /// The resource the HPA scales on as a utilization that this VPA rewrites (a feedback
    /// loop), if any.
    pub conflicts_on: Option<String>,
}

/// A PDB selecting the target's pods.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PdbOnTarget {
    pub name: String,
    /// `minAvailable 2`, `maxUnavailable 0`.
    pub rule: String,
    pub selected_pods: usize,
    pub min_replicas: i32,
    /// The pods it keeps when the HPA is at minReplicas.
    pub pods_kept_at_min: i32,
    /// No pod may be evicted at minReplicas.
    pub blocks_drain_at_min: bool,
}

/// A LimitRange default that is the request of the target's containers.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct LimitRangeRequest {
    pub name: String,
    pub resource: String,
    /// The default, in the user's units.
    pub default_request: String,
    /// `defaultRequest` or `default`.
    pub field: String,
    /// The containers whose request it is.
    pub containers: Vec<String>,
    /// The pods' `kubernetes.io/limit-ranger` annotation says the LimitRange set it (false:
    /// the request equals the default, and the annotation is not there to confirm).
    pub confirmed: bool,
}

/// Another autoscaler of the same pods or target.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct OtherAutoscaler {
    /// `HorizontalPodAutoscaler` or `ScaledObject`.
    pub kind: String,
    pub name: String,
}
