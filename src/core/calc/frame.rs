//! What every pod-average [`Calculation`] of one metric shares, and the plain proposal (no pod
//! missing nor unready on a scale-up).

use super::calculation::{Calculation, Failure, PodRow, Proposal, Rebalance, Tolerances};
use super::group_pods::{GroupCounts, Grouping};
use super::ratios::{proposal_from_ratio, FirstRatio};

/// What every pod-average [`Calculation`] of one metric shares.
#[derive(Clone)]
pub(super) struct Frame<'t> {
    pub(super) mode: &'static str,
    pub(super) is_util: bool,
    pub(super) target: i64,
    pub(super) tol: &'t Tolerances,
    pub(super) current: i32,
    pub(super) foreign_samples: usize,
    pub(super) full: bool,
}

impl<'t> Frame<'t> {
    /// The frame of a utilization (`is_util`) or average-value pod average; the foreign samples
    /// are counted later, for the full explanation.
    pub(super) fn new(
        is_util: bool,
        target: i64,
        tol: &'t Tolerances,
        current: i32,
        full: bool,
    ) -> Self {
        Frame {
            mode: if is_util {
                "Utilization"
            } else {
                "AverageValue"
            },
            is_util,
            target,
            tol,
            current,
            foreign_samples: 0,
            full,
        }
    }
}

/// How a pod average ended.
pub(super) struct Outcome {
    pub(super) replicas: i32,
    pub(super) rule: String,
    pub(super) rebalance: Option<Rebalance>,
    pub(super) within_tolerance: bool,
}

impl Frame<'_> {
    pub(super) fn calculation(
        &self,
        g: GroupCounts,
        first: Option<FirstRatio>,
        rows: Vec<PodRow>,
        o: Outcome,
    ) -> Calculation {
        Calculation::PodAverage {
            mode: self.mode,
            current: first.map_or(0, |f| f.value),
            raw_average_milli: first.and_then(|f| f.raw),
            target: self.target,
            ratio: first.map_or(f64::NAN, |f| f.ratio),
            tolerance_band: self.tol.band(),
            current_replicas: self.current,
            ready_pods: g.ready,
            unready_pods: g.unready,
            missing_pods: g.missing,
            ignored_pods: g.ignored,
            foreign_samples: self.foreign_samples,
            rebalance: o.rebalance,
            within_tolerance: o.within_tolerance,
            rule: o.rule,
            pods: rows,
        }
    }

    /// A failure with what was computed so far.
    pub(super) fn failure(&self, g: &Grouping, error: String, rule: &str) -> Failure {
        let o = Outcome {
            replicas: 0,
            rule: rule.to_string(),
            rebalance: None,
            within_tolerance: false,
        };
        Failure {
            error,
            partial: Some(Box::new(self.calculation(
                g.counts(),
                None,
                g.rows.clone(),
                o,
            ))),
            missing_request: None,
        }
    }

    pub(super) fn proposal(
        &self,
        g: GroupCounts,
        first: FirstRatio,
        rows: Vec<PodRow>,
        o: Outcome,
        calc: &mut Option<Calculation>,
    ) -> Proposal {
        let replicas = o.replicas;
        *calc = Some(self.calculation(g, Some(first), rows, o));
        Proposal {
            replicas,
            current_value: if self.is_util {
                first.raw.unwrap_or(0)
            } else {
                first.value
            },
            current_utilization: self.is_util.then_some(first.value as i32),
        }
    }
}

/// No unready pod on a scale-up and no missing pod: the current count inside the tolerance
/// band, else `ceil(ratio × ready pods)`.
pub(super) fn plain_proposal(
    frame: &Frame,
    g: GroupCounts,
    rows: Vec<PodRow>,
    first: FirstRatio,
    calc: &mut Option<Calculation>,
) -> Proposal {
    let (current, ratio, full) = (frame.current, first.ratio, frame.full);
    let o = if frame.tol.is_within(ratio) {
        Outcome {
            replicas: current,
            rule: rule!(
                full,
                "ratio {ratio:.4} is within the tolerance band: keep {current}"
            ),
            rebalance: None,
            within_tolerance: true,
        }
    } else {
        let n = proposal_from_ratio(current, ratio, g.ready as f64, frame.tol);
        Outcome {
            replicas: n,
            rule: rule!(
                full,
                "ceil(ratio {ratio:.4} × {} ready pods) = {n}",
                g.ready
            ),
            rebalance: None,
            within_tolerance: false,
        }
    };
    frame.proposal(g, first, rows, o, calc)
}
