//! The samples that count, after `removeMetricsForPods`, and the buffers reused from one
//! sync to the next.

use super::group_pods::Grouping;
use super::pod_facts::PodFacts;
use super::ratios::Sums;
use super::samples::Sample;
use crate::core::name_map::{NameMap, Spare};

// perf: benches/explain. Pods and their samples by index (`sample_of`) instead of by name:
// the core's decision over 10,000 pods went from 17 ms to 11 ms. Kept by the `Evaluator`.
/// Buffers of the pod averages, reused from one sync to the next (see [`Decision`]'s, which
/// `simulate` writes over sync after sync): a pod average whose pods are all Ready then
/// allocates nothing.
///
/// [`Decision`]: super::Decision
#[derive(Debug, Clone, Default)]
pub(crate) struct Scratch {
    pub(super) samples: Spare<Sample>,
    pub(super) sample_of: Vec<Option<usize>>,
    pub(super) removed: Vec<bool>,
    pub(super) sample_requests: Vec<Option<i64>>,
    pub(super) pod_requests: Vec<i64>,
    /// The caller's generation of the pods for this sync (see
    /// [`Evaluator::set_pods_generation`]); None: nothing is kept.
    ///
    /// [`Evaluator::set_pods_generation`]: crate::core::Evaluator::set_pods_generation
    pub(crate) pods_generation: Option<u64>,
    /// What the one pass derived per pod under that generation.
    pub(super) facts: PodFacts,
}

/// The samples of one metric as the calculator counts them: the samples by pod name (a
/// duplicate name keeps its last sample, as in the metrics client's map), which of them
/// `removeMetricsForPods` took out (the ignored and unready pods'), and the request of each
/// one's pod (utilization metrics; none for a pod the selector did not list).
pub(super) struct Counted<'a, 's> {
    pub(super) samples: NameMap<'a, Sample>,
    /// Per sample (name order): taken out of the count.
    pub(super) removed: &'s mut Vec<bool>,
    /// Per sample (name order): its pod's request (empty for a plain metric).
    pub(super) requests: &'s mut Vec<Option<i64>>,
    pub(super) left: usize,
    /// Where the samples' buffer goes back when the count is done.
    pub(super) spare: &'s mut Spare<Sample>,
}

impl Drop for Counted<'_, '_> {
    fn drop(&mut self) {
        self.spare.keep(std::mem::take(&mut self.samples));
    }
}

impl<'a, 's> Counted<'a, 's> {
    pub(super) fn new(
        samples: NameMap<'a, Sample>,
        removed: &'s mut Vec<bool>,
        requests: &'s mut Vec<Option<i64>>,
        spare: &'s mut Spare<Sample>,
    ) -> Counted<'a, 's> {
        let n = samples.len();
        removed.clear();
        removed.resize(n, false);
        requests.clear();
        Counted {
            samples,
            removed,
            requests,
            left: n,
            spare,
        }
    }

    pub(super) fn remove(&mut self, sample: Option<usize>) {
        if let Some(i) = sample {
            if !std::mem::replace(&mut self.removed[i], true) {
                self.left -= 1;
            }
        }
    }

    pub(super) fn is_empty(&self) -> bool {
        self.left == 0
    }

    /// Each sample's request: that of the last pod with its name (`calculatePodRequests`
    /// keeps the last of equal names too).
    pub(super) fn set_requests(&mut self, g: &Grouping, per_pod: &[i64]) {
        self.requests.clear();
        self.requests.resize(self.samples.len(), None);
        for (sample, request) in g.sample_of.iter().zip(per_pod) {
            if let Some(i) = sample {
                self.requests[*i] = Some(*request);
            }
        }
    }

    /// The samples that count (with their requests, for a utilization metric).
    pub(super) fn sums(&self) -> Sums {
        let mut s = Sums::default();
        for (i, v) in self.samples.values().enumerate() {
            if !self.removed[i] {
                s.add(v.value, self.requests.get(i).copied().flatten());
            }
        }
        s
    }

    pub(super) fn counts(&self, sample: Option<usize>) -> bool {
        sample.is_some_and(|i| !self.removed[i])
    }
}
