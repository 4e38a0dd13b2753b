//! Per-metric replica proposals: the controller's `replica_calculator.go`, pod grouping and the
//! metrics client's sample extraction, each step recorded for the trace.
//!
//! One file per step of the calculator, each named after the controller's function it mirrors:
//! - [`group_pods`]: `groupPods` (ready, unready, missing, ignored);
//! - [`requests`]: `calculatePodRequests`, `calculatePodLevelRequests`;
//! - [`samples`]: the metrics client's per-pod samples (`GetResourceMetric`, `GetRawMetric`);
//! - [`ratios`]: `GetResourceUtilizationRatio`, `GetMetricUsageRatio`;
//! - [`get_resource_replicas`]: `GetResourceReplicas` and `calcPlainMetricReplicas`, with the
//!   rebalance of missing and unready pods ([`frame`] and [`counted`] hold what they share);
//! - [`value`]: `getUsageRatioReplicaCount` and the per-pod `AverageValue` targets;
//! - [`one_pass`]: a faster path for the common case, checked against the general one, and
//!   [`pod_facts`], what it keeps per pod while the caller's pods stay the same.
//!
//! The files import one another in that order (no file imports this one's items).

/// A rule text, built only when the full explanation is wanted.
macro_rules! rule {
    ($full:expr, $($arg:tt)*) => {
        if $full { format!($($arg)*) } else { String::new() }
    };
}

mod calculation;
mod counted;
mod frame;
mod get_resource_replicas;
mod group_pods;
mod one_pass;
mod pod_facts;
mod ratios;
mod requests;
mod samples;
mod value;

pub use calculation::{
    go_zero_time, Calculation, PodGroup, PodRow, Proposal, Rebalance, Tolerances,
};
pub(crate) use counted::Scratch;
pub use get_resource_replicas::PodMetricKind;
pub use ratios::proposal_from_ratio;
pub use requests::MissingRequest;
pub use value::{average_value_target, get_usage_ratio_replica_count};

use crate::core::model::{Input, MetricData};
use crate::core::resources::Resource;
use calculation::CalcResult;
use frame::Frame;

/// Resource, ContainerResource and Pods metrics: `GetResourceReplicas`, `GetRawResourceReplicas`
/// and `GetMetricReplicas` (through `calcPlainMetricReplicas`).
pub(super) fn pod_average(
    input: &Input,
    kind: PodMetricKind,
    data: &MetricData,
    current: i32,
    tol: &Tolerances,
    scratch: &mut Scratch,
    calc: &mut Option<Calculation>,
) -> CalcResult {
    let (resource, container, is_util, target) = match kind {
        PodMetricKind::Utilization {
            resource,
            container,
            target,
        } => (resource, container, true, target as i64),
        PodMetricKind::RawResource {
            resource,
            container,
            target,
        } => (resource, container, false, target),
        PodMetricKind::Pods { target, .. } => ("", None, false, target),
    };
    // Resolved once: each pod's lookup then compares a tag, not the name's text.
    let resource = Resource::new(resource);
    let full = input.detail.narrates();
    let frame = Frame::new(is_util, target, tol, current, full);
    let resource_metric = !matches!(kind, PodMetricKind::Pods { .. });
    if !full && resource_metric && container.is_none() {
        if let Some(p) =
            one_pass::one_pass_checked(input, kind, data, &resource, &frame, (scratch, calc))
        {
            return Ok(p);
        }
    }
    get_resource_replicas::get_resource_replicas(
        input,
        kind,
        data,
        (&resource, container),
        frame,
        (scratch, calc),
    )
}
