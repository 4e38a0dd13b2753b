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

    /// Each metric as the controller read it `lag` before each sync (in whole syncs, rounded):
    /// the value of sync `k` becomes that of sync `k - lag`; the first syncs (in the lead that
    /// only builds the memory) read the earliest value. The replicas, Ready pods and requests
    /// stay at the sync, as the controller reads the scale and the pods then.
    pub fn lag_metrics(&mut self, lag: SignedDuration) {
        let s = self.step.as_secs_f64();
        if s <= 0.0 {
            return;
        }
        let n = (lag.as_secs_f64() / s).round().max(0.0) as usize;
        if n == 0 {
            return;
        }
        for m in self.metrics.iter_mut().flatten() {
            let v = &mut m.values;
            let (len, first) = (v.len(), v.first().copied().flatten());
            let keep = len.saturating_sub(n);
            v.truncate(keep);
            v.splice(0..0, std::iter::repeat_n(first, len - keep));
        }
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

    /// `--metrics-lag`: each metric value moves later by the lag in whole syncs; the replicas
    /// and requests do not; a lag below half a sync changes nothing.
    #[test]
    fn a_metrics_lag_reads_each_metric_that_many_syncs_before() {
        let step = SignedDuration::from_secs(15);
        let mut rec = Recorded {
            start: "2026-01-01T00:00:00Z".parse().unwrap(),
            step,
            window_start: 0,
            desired: vec![Some(2), Some(3), Some(4), Some(5)],
            current: vec![Some(2), Some(3), Some(4), Some(5)],
            min: vec![None; 4],
            max: vec![None; 4],
            ready: vec![None; 4],
            metrics: vec![
                Some(RecordedMetric {
                    name: "cpu".into(),
                    kind: SeriesKind::Total,
                    query: "q".into(),
                    values: vec![Some(1.0), Some(2.0), None, Some(4.0)],
                    request: vec![Some(0.1), Some(0.2), Some(0.3), Some(0.4)],
                }),
                None,
            ],
        };
        let before = rec.clone();
        rec.lag_metrics(SignedDuration::from_secs(7));
        assert_eq!(rec, before);
        rec.lag_metrics(SignedDuration::from_secs(30));
        let m = rec.metrics[0].as_ref().unwrap();
        assert_eq!(m.values, vec![Some(1.0), Some(1.0), Some(1.0), Some(2.0)]);
        assert_eq!(m.request, before.metrics[0].as_ref().unwrap().request);
        assert_eq!(rec.current, before.current);
        // A lag longer than the grid: every sync reads the earliest value.
        rec.lag_metrics(SignedDuration::from_secs(600));
        assert_eq!(rec.metrics[0].as_ref().unwrap().values, vec![Some(1.0); 4]);
    }
}
