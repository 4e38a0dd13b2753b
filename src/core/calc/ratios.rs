//! `GetResourceUtilizationRatio` and `GetMetricUsageRatio`: the ratio of usage to target, and
//! the proposal a ratio makes.

use super::calculation::Tolerances;

/// What the ratios are computed from: the usage of the samples that count, the requests of
/// those whose pod is listed, and how many there are. Sums of integers, so the order in which
/// entries are added (Go iterates a map) does not matter.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Sums {
    /// Usage of the samples with a request.
    pub(super) usage_with_request: i128,
    pub(super) requests: i128,
    pub(super) with_request: i128,
    /// Usage of every sample (plain metrics).
    pub(super) usage: i128,
    /// Entries (`len(metrics)`).
    pub(super) entries: usize,
}

impl Sums {
    pub(super) fn add(&mut self, value: i64, request: Option<i64>) {
        self.usage += value as i128;
        self.entries += 1;
        if let Some(r) = request {
            self.usage_with_request += value as i128;
            self.requests += r as i128;
            self.with_request += 1;
        }
    }
}

// perf: benches/simulate. A 128-bit division is a call into the runtime; the sums of a
// simulated HPA fit in 64 bits (test: equal to the 128-bit division everywhere).
/// `a / b` (truncated, as Go's integer division), in 64 bits when both fit: the sums are
/// 128-bit so that no sum of samples overflows, but they are small, and a 128-bit division is a
/// call into the runtime.
pub(super) fn quotient(a: i128, b: i128) -> i128 {
    match (i64::try_from(a), i64::try_from(b)) {
        (Ok(x), Ok(y)) if y != 0 && !(x == i64::MIN && y == -1) => i128::from(x / y),
        _ => a / b,
    }
}

/// `GetResourceUtilizationRatio`: (ratio, utilization %, raw average).
pub(super) fn get_resource_utilization_ratio(
    s: &Sums,
    target: i32,
) -> Result<(f64, i32, i64), String> {
    if s.requests == 0 {
        return Err("no metrics returned matched known pods".into());
    }
    let total = s.usage_with_request;
    let util = quotient(total * 100, s.requests).clamp(i32::MIN as i128, i32::MAX as i128) as i32;
    let raw = quotient(total, s.with_request).clamp(i64::MIN as i128, i64::MAX as i128) as i64;
    Ok((util as f64 / target as f64, util, raw))
}

/// `GetMetricUsageRatio`: (ratio, average).
pub(super) fn get_metric_usage_ratio(s: &Sums, target: i64) -> (f64, i64) {
    let avg = quotient(s.usage, s.entries.max(1) as i128).clamp(i64::MIN as i128, i64::MAX as i128)
        as i64;
    (avg as f64 / target as f64, avg)
}

/// The first ratio, from the counted samples.
#[derive(Clone, Copy)]
pub(super) struct FirstRatio {
    pub(super) ratio: f64,
    /// Utilization % (utilization metrics) or average (plain metrics).
    pub(super) value: i64,
    /// The raw average (utilization metrics).
    pub(super) raw: Option<i64>,
}

/// `GetResourceUtilizationRatio` or `GetMetricUsageRatio` over the counted samples.
pub(super) fn first_ratio(sums: &Sums, is_util: bool, target: i64) -> Result<FirstRatio, String> {
    Ok(if is_util {
        let (ratio, util, raw) = get_resource_utilization_ratio(sums, target as i32)?;
        FirstRatio {
            ratio,
            value: util as i64,
            raw: Some(raw),
        }
    } else {
        let (ratio, avg) = get_metric_usage_ratio(sums, target);
        FirstRatio {
            ratio,
            value: avg,
            raw: None,
        }
    })
}

/// The proposal of a metric when no pod is unready or missing: the current count inside the
/// tolerance band, else `ceil(ratio × pods)` — the first branch of `GetResourceReplicas` and
/// `calcPlainMetricReplicas`. Public so that "which value would change the answer" questions
/// ask the core instead of re-deriving it.
pub fn proposal_from_ratio(current: i32, ratio: f64, pods: f64, tol: &Tolerances) -> i32 {
    if tol.is_within(ratio) {
        current
    } else {
        ceil_i32(ratio * pods)
    }
}

pub(super) fn ceil_i32(x: f64) -> i32 {
    // Go converts with int32(math.Ceil(x)); Rust's `as` saturates, which matches for sane values.
    x.ceil() as i32
}
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_quotient_is_the_128_bit_division_when_the_operands_fit_in_64_bits_or_not() {
        let big = i128::from(i64::MAX) * 3;
        let values = [
            0,
            1,
            -1,
            7,
            -7,
            350_000,
            i128::from(i64::MAX),
            i128::from(i64::MIN),
            big,
            -big,
        ];
        for a in values {
            for b in values.iter().filter(|b| **b != 0) {
                assert_eq!(quotient(a, *b), a / b, "{a} / {b}");
            }
        }
    }
}
