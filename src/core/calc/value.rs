//! Object and External metrics: `getUsageRatioReplicaCount` (a `Value` target) and the
//! per-pod `AverageValue` targets.

use super::calculation::{Calculation, Proposal, Tolerances};
use super::ratios::ceil_i32;
use crate::core::model::Input;

/// `getReadyPodsCount`: Running pods with Ready=True.
pub(super) fn get_ready_pods_count(input: &Input) -> Result<i64, String> {
    if input.pods.is_empty() {
        return Err("no pods returned by selector while calculating replica count".into());
    }
    Ok(input
        .pods
        .iter()
        .filter(|p| p.phase == "Running" && p.ready.as_ref().is_some_and(|r| r.status == "True"))
        .count() as i64)
}

/// Mirrors `getUsageRatioReplicaCount`: Object and External metrics with a `Value` target.
pub fn get_usage_ratio_replica_count(
    input: &Input,
    usage: i64,
    target: i64,
    current: i32,
    tol: &Tolerances,
    calc: &mut Option<Calculation>,
) -> Result<Proposal, String> {
    let ratio = usage as f64 / target as f64;
    let full = input.detail.narrates();
    let mut mk = |replicas: i32, ready: Option<i64>, rule: String, within_tolerance: bool| {
        *calc = Some(Calculation::Value {
            value_milli: usage,
            target_milli: target,
            ratio,
            tolerance_band: tol.band(),
            current_replicas: current,
            ready_pods: ready,
            within_tolerance,
            rule,
        });
        Proposal {
            replicas,
            current_value: usage,
            current_utilization: None,
        }
    };
    if current != 0 {
        if tol.is_within(ratio) {
            return Ok(mk(
                current,
                None,
                rule!(
                    full,
                    "ratio {ratio:.4} is within the tolerance band: keep {current}"
                ),
                true,
            ));
        }
        let ready = get_ready_pods_count(input)
            .map_err(|e| format!("unable to calculate ready pods: {e}"))?;
        let x = ratio * ready as f64;
        let n = if x > i32::MAX as f64 {
            i32::MAX
        } else {
            ceil_i32(x)
        };
        Ok(mk(
            n,
            Some(ready),
            rule!(
                full,
                "ceil(ratio {ratio:.4} × {ready} Running and Ready pods) = {n}"
            ),
            false,
        ))
    } else {
        let n = ceil_i32(ratio);
        Ok(mk(
            n,
            None,
            rule!(
                full,
                "scaled to zero: ceil(ratio {ratio:.4}) = {n} (no tolerance)"
            ),
            false,
        ))
    }
}

/// Mirrors `GetObjectPerPodMetricReplicas` and `GetExternalPerPodMetricReplicas` (one function:
/// they differ only in where the value comes from).
pub fn average_value_target(
    usage: i64,
    target: i64,
    status_replicas: i32,
    cap_i32: bool,
    tol: &Tolerances,
    calc: &mut Option<Calculation>,
) -> Proposal {
    let ratio = usage as f64 / (target as f64 * status_replicas as f64);
    let within_tolerance = tol.is_within(ratio);
    let (replicas, rule) = if within_tolerance {
        (
            status_replicas,
            format!(
                "ratio {ratio:.4} (value ÷ (target × {status_replicas} status.replicas)) is within tolerance: keep {status_replicas}"
            ),
        )
    } else {
        let x = (usage as f64 / target as f64).ceil();
        let n = if cap_i32 && x > i32::MAX as f64 {
            i32::MAX
        } else {
            x as i32
        };
        (n, format!("ceil(value ÷ target) = {n}"))
    };
    let average = if status_replicas == 0 {
        0
    } else if usage == i64::MAX {
        i64::MAX
    } else {
        (usage as f64 / status_replicas as f64).ceil() as i64
    };
    *calc = Some(Calculation::AverageValue {
        total_milli: usage,
        target_milli: target,
        status_replicas,
        ratio,
        tolerance_band: tol.band(),
        average_milli: average,
        within_tolerance,
        rule,
    });
    Proposal {
        replicas,
        current_value: average,
        current_utilization: None,
    }
}
