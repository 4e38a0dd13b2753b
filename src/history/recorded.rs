//! What Prometheus recorded of one HPA, on the controller's sync grid: the kube-state-metrics
//! series of the HPA (desired and current replicas, min and max), the workload's Ready pods,
//! and each metric's load. Pure: [`super::prom`] fills it, [`super::replay`] reads it.

use jiff::{SignedDuration, Timestamp};

/// How a metric's recorded series applies (as `simulate`'s loads do).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SeriesKind {
    /// The workload's total (cores, bytes, requests/s), shared by the Ready pods.
    Total,
    /// The metric's value (an Object or External metric).
    Value,
}

/// One `spec.metrics` entry's recorded load.
#[derive(Debug, Clone, PartialEq)]
pub struct RecordedMetric {
    /// The load's name: `cpu`, `memory`, or the metric's name.
    pub name: String,
    pub kind: SeriesKind,
    /// The PromQL it was read with.
    pub query: String,
    /// Per sync: the total or value, in the metric's unit (cores, bytes, the metric's unit).
    pub values: Vec<Option<f64>>,
    /// Resource metrics: each pod's request, in the resource's unit (kube-state-metrics'
    /// `kube_pod_container_resource_requests`), per sync.
    pub request: Vec<Option<f64>>,
}

/// The recorded series, one value (or none) per sync from `start` every `step`.
#[derive(Debug, Clone, PartialEq)]
pub struct Recorded {
    pub start: Timestamp,
    pub step: SignedDuration,
    /// The first sync of the window asked for (the syncs before it infer the memory).
    pub window_start: usize,
    /// `kube_horizontalpodautoscaler_status_desired_replicas`.
    pub desired: Vec<Option<i32>>,
    /// `kube_horizontalpodautoscaler_status_current_replicas`: the target's `spec.replicas`
    /// when the controller read it (the status writes it each sync).
    pub current: Vec<Option<i32>>,
    pub min: Vec<Option<i32>>,
    pub max: Vec<Option<i32>>,
    /// The workload's Ready pods.
    pub ready: Vec<Option<i32>>,
    /// Per `spec.metrics` entry (same order); `None` for an entry with no load.
    pub metrics: Vec<Option<RecordedMetric>>,
}

impl Recorded {
    /// How many syncs the grid holds.
    pub fn len(&self) -> usize {
        self.desired.len()
    }

    /// The time of sync `k`.
    pub fn time(&self, k: usize) -> Timestamp {
        crate::core::clock::saturating_add(
            self.start,
            self.step * (k.min(i32::MAX as usize) as i32),
        )
    }
}

/// `(unix seconds, value)` points on the grid `start + k × step` (`len` syncs): a point lands on
/// the nearest sync; syncs without a point are `None`.
pub fn on_grid(
    points: &[(f64, f64)],
    start: Timestamp,
    step: SignedDuration,
    len: usize,
) -> Vec<Option<f64>> {
    let mut out = vec![None; len];
    let t0 = start.as_millisecond() as f64 / 1000.0;
    let s = step.as_secs_f64();
    if s <= 0.0 {
        return out;
    }
    for (t, v) in points {
        let k = ((t - t0) / s).round();
        if k >= 0.0 && (k as usize) < len && v.is_finite() {
            out[k as usize] = Some(*v);
        }
    }
    out
}

/// Replica counts from a grid of values (kube-state-metrics writes them as floats).
pub fn replicas(values: Vec<Option<f64>>) -> Vec<Option<i32>> {
    values
        .into_iter()
        .map(|v| {
            v.filter(|x| *x >= 0.0 && *x < i32::MAX as f64)
                .map(|x| x.round() as i32)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn points_land_on_the_nearest_sync() {
        let start: Timestamp = "2026-01-01T00:00:00Z".parse().unwrap();
        let t0 = start.as_second() as f64;
        let g = on_grid(
            &[
                (t0, 1.0),
                (t0 + 14.0, 2.0),
                (t0 + 45.0, f64::NAN),
                (t0 + 600.0, 9.0),
            ],
            start,
            SignedDuration::from_secs(15),
            4,
        );
        assert_eq!(g, vec![Some(1.0), Some(2.0), None, None]);
        assert_eq!(
            replicas(vec![Some(2.9), Some(-1.0), None]),
            vec![Some(3), None, None]
        );
    }
}
