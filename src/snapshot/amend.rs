//! What reading a snapshot adds to one HPA's decision (one call after the evaluation): the
//! verdict when a read of ours failed (`Unknown`, decided by [`Rule::FetchFailed`]: the
//! controller's own view is unknown), the version conversion among the assumptions, the missing
//! PodMetrics among them, and the verdict of a file that holds no metrics at all (`kubectl get hpa,deploy,pods -o yaml`) — `Unknown`, decided by
//! [`Rule::NoMetrics`], instead of the controller's `InvalidMetrics`, which would blame a
//! metrics pipeline the file never asked.

use crate::core::{Action, Decision, Input, MetricSpec, Rule, Verdict};

use super::build::Snapshot;
use super::convert::NoteKind;
use super::input::TargetStatus;

impl Snapshot {
    /// Whether the file holds no metrics at all: no PodMetrics, MetricValue or
    /// ExternalMetricValue item, no recorded fetch error, and not written by
    /// `kubectl hpa snapshot` (which fetches every metric an HPA reads).
    pub fn holds_no_metrics(&self) -> bool {
        !self.written_by_tool
            && !self.has_pod_metrics
            && self.pod_metrics.is_empty()
            && self.custom_metrics.is_empty()
            && self.external_metrics.is_empty()
            && self.fetch_errors.is_empty()
            && self.scoped_errors.is_empty()
    }

    /// The notes of reading HPA `namespace/name` of this kind.
    pub fn notes_for(&self, namespace: &str, name: &str, kind: NoteKind) -> Vec<&str> {
        self.hpa_notes
            .get(&(namespace.to_string(), name.to_string()))
            .into_iter()
            .flatten()
            .filter(|n| n.kind == kind)
            .map(|n| n.text.as_str())
            .collect()
    }

    /// Add what the file says about this HPA to its decision (see the module doc).
    pub fn amend(&self, input: &Input, d: &mut Decision) {
        let (ns, name) = (input.hpa.namespace.as_str(), input.hpa.name.as_str());
        let own = self.own_failures_for(ns, name, &input.hpa.metrics);
        if !own.is_empty() {
            unknown(
                d,
                Rule::FetchFailed,
                format!(
                    "could not read {}; the controller's own view is unknown",
                    own.join(", ")
                ),
            );
        }
        for n in self.notes_for(ns, name, NoteKind::Converted) {
            d.assumptions.push(n.to_string());
        }
        d.assumptions.extend(self.merge_notes.iter().cloned());
        let lacks_target = d.verdict.decided_by == Rule::FailedGetScale
            && !self.written_by_tool
            && matches!(
                self.target_status(ns, name),
                TargetStatus::NotInSnapshot { .. }
            );
        if lacks_target {
            unknown(
                d,
                Rule::NotInSnapshot,
                format!(
                    "the file lacks {} {}, so the replica count cannot be recomputed (a file written by `kubectl hpa snapshot` would record whether the server has it); the HPA's own status and conditions are shown as the controller last wrote them",
                    input.hpa.target_kind, input.hpa.target_name
                ),
            );
        }
        let metrics_failed = matches!(
            d.verdict.decided_by,
            Rule::InvalidMetrics | Rule::InvalidMetricBlocksScaleDown
        );
        if metrics_failed && self.holds_no_metrics() {
            unknown(
                d,
                Rule::NoMetrics,
                "the snapshot holds no metrics (no PodMetrics, MetricValueList or ExternalMetricValueList), so the replica count cannot be recomputed; the status, the spec and the pods are still read".into(),
            );
        }
        let reads_resources = input.hpa.metrics.iter().any(|m| {
            matches!(
                m,
                MetricSpec::Resource { .. } | MetricSpec::ContainerResource { .. }
            )
        });
        if !self.has_pod_metrics && reads_resources {
            d.assumptions.push(
                "the snapshot holds no PodMetrics (metrics.k8s.io): resource metrics are treated as returning no data".into(),
            );
        }
    }
}

/// Make `d` an `Unknown` document decided by `rule`: everything the controller would decide or
/// write is "not known" the same way — `desiredReplicas`, `desiredRange`, `proposal`,
/// `rescaleReason`, `nextChange` and `status.desiredReplicas` null, `conditions`, `events` and
/// `status.currentMetrics` empty (the HPA's own status, as the controller last wrote it, stays
/// in `lastSync.written`). What was read (`currentReplicas`, the metrics, the steps) stays.
pub(crate) fn unknown(d: &mut Decision, rule: Rule, summary: String) {
    d.verdict = Verdict {
        action: Action::Unknown,
        from: d.verdict.from,
        to: None,
        decided_by: rule,
        summary,
    };
    d.desired_replicas = None;
    d.desired_range = None;
    d.proposal = None;
    d.rescale_reason = None;
    d.next_change = None;
    d.conditions.clear();
    d.events.clear();
    d.status.desired_replicas = None;
    d.status.current_metrics.clear();
}
