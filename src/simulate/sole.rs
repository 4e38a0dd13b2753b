//! A load's shares pod after pod, and the usages of the common world written without the
//! general path's per-pod checks: every pod sampled, one container holding the one resource
//! with a load, no start-up burst (`World::fill` decides when it applies).

use jiff::{SignedDuration, Timestamp};

use crate::core::PodUsage;

/// A load's value at the sample time, pod after pod: a demand shared by the pods Ready then
/// (`q` each, one more for the first `r` of them), or each pod's value.
#[derive(Debug, Clone)]
pub(super) enum Shares {
    Demand { q: i64, r: i64 },
    Each(i64),
}

impl Shares {
    /// The next pod's share (`ready`: it was Ready at the sample time).
    #[inline]
    pub(super) fn next(&mut self, ready: bool) -> i64 {
        match self {
            Shares::Demand { q, r } => {
                if ready {
                    *r -= 1;
                    *q + i64::from(*r >= 0)
                } else {
                    0
                }
            }
            Shares::Each(v) => *v,
        }
    }
}

// perf: benches/simulate. The benchmark's world: each sync writes every pod's usage; with
// every pod sampled, one container holding the one resource and no start-up burst, a pod's
// usage is its share alone (no sampled flag, burst, container split nor resource lookup per
// pod). `World::fill` compares it with the general path's usages in debug builds at every
// sync, so every simulate test checks it.
/// Each usage (one per pod, in pod order: `ready[i]` is the i-th pod's) takes its share of
/// the load, the sample's time and window. False when a usage does not hold exactly one
/// container with one resource (what the caller established): nothing is then promised about
/// the usages, which the general path writes again.
pub(super) fn write_sole_usages(
    usages: &mut [PodUsage],
    ready: &[bool],
    mut shares: Shares,
    (tau, window): (Timestamp, SignedDuration),
) -> bool {
    for (u, &ready) in usages.iter_mut().zip(ready) {
        let total = shares.next(ready);
        let Some(value) = u.containers.first_mut().and_then(|(_, r)| r.sole_mut()) else {
            return false;
        };
        *value = total;
        u.timestamp = tau;
        u.window = window;
    }
    true
}
