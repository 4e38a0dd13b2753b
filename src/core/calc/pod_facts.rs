//! What the one-pass pod average derives per pod, kept from one sync to the next while the
//! caller promises that the pods are the same (`simulate`'s world: only the metrics move).

use jiff::{SignedDuration, Timestamp};

use super::calculation::PodGroup;
use super::group_pods::{GroupCounts, Rules, Why};
use super::requests::containers_request;
use super::samples::Sample;
use crate::core::compare::{precedes, same_name};
use crate::core::model::{Input, PodUsage};
use crate::core::resources::Resource;

/// One pod's facts for one resource metric.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct PodFact {
    /// The pod has the next PodMetrics entry (they come in the pods' order).
    pub(super) sampled: bool,
    /// Its request of the resource in its containers; None when a container lacks it.
    pub(super) request: Option<i64>,
    /// Its group for any `now` from the facts' build on; None while it depends on the sample's
    /// time and `now` (a cpu pod inside its initialization period): decided each sync.
    pub(super) group: Option<PodGroup>,
}

/// How the kept pass counts one PodMetrics entry (they come in the pods' order).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Entry {
    /// Its pod is Ready for good: its value is added to the usage.
    Counted,
    /// Its pod is unready or ignored for good: its value is read (it must have one), not added.
    Read,
    /// Its pod (this index) is classified at each sync, with the sample.
    Timed(usize),
}

/// What the kept pass adds up front: the pods whose group is kept, counted once.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(super) struct Fixed {
    pub(super) counts: GroupCounts,
    /// The requests of the Ready pods among them (None: the sum overflows 64 bits).
    pub(super) requests: Option<i64>,
}

/// What the facts were derived from, besides the pods and the PodMetrics' names: the caller's
/// generation of them and every setting the classification and the requests read.
#[derive(Debug, Clone, PartialEq)]
struct Key {
    generation: u64,
    resource: Resource,
    cpu: bool,
    terminal_succeeded: bool,
    cpu_initialization_period: SignedDuration,
    initial_readiness_delay: SignedDuration,
    pod_level_on: bool,
    pods: usize,
    usages: usize,
}

/// The facts of the last pods seen under a generation (see `Evaluator::set_pods_generation`).
#[derive(Debug, Clone, Default)]
pub(crate) struct PodFacts {
    key: Option<Key>,
    /// The `now` they were derived at: valid for that `now` and any later one.
    built_at: Timestamp,
    /// The earliest start of a pod whose group is decided each sync: once it has left its
    /// initialization period the facts are derived again (its group is fixed from then on).
    refresh: Option<Timestamp>,
    /// The pods' names sort strictly and each PodMetrics entry is taken by the pod of its name,
    /// in the pods' order (the one pass applies); false: the general path decides.
    pub(super) ordered: bool,
    /// Every pod has a request of the resource.
    pub(super) all_requests: bool,
    pub(super) pods: Vec<PodFact>,
    /// Per PodMetrics entry, how its value counts (see [`Entry`]).
    pub(super) entries: Vec<Entry>,
    /// Every entry is [`Entry::Counted`] (the kept pass then only adds the values up).
    pub(super) all_counted: bool,
    /// The pods without a sample whose group is decided each sync.
    pub(super) timed_unsampled: Vec<usize>,
    /// The pods whose group is kept, counted.
    pub(super) fixed: Fixed,
}

impl PodFacts {
    /// The facts for this input, derived again unless those kept are for the same generation,
    /// settings and resource, and still valid at `input.now`.
    pub(super) fn refresh(
        &mut self,
        input: &Input,
        usages: &[PodUsage],
        resource: &Resource,
        rules: &Rules,
        (generation, pod_level_on): (u64, bool),
    ) {
        let key = Key {
            generation,
            resource: resource.clone(),
            cpu: rules.cpu,
            terminal_succeeded: rules.terminal_succeeded,
            cpu_initialization_period: input.settings.cpu_initialization_period,
            initial_readiness_delay: rules.initial_readiness_delay,
            pod_level_on,
            pods: input.pods.len(),
            usages: usages.len(),
        };
        let stale = self.key.as_ref() != Some(&key)
            || input.now < self.built_at
            || self.refresh.is_some_and(|s| !rules.in_cpu_init.holds(s));
        if stale {
            self.derive(input, usages, resource, rules, pod_level_on);
            self.key = Some(key);
        }
        if cfg!(debug_assertions) {
            let mut fresh = PodFacts::default();
            fresh.derive(input, usages, resource, rules, pod_level_on);
            let same = fresh.ordered == self.ordered
                && (!fresh.ordered
                    || (fresh.all_requests == self.all_requests
                        && fresh.entries == self.entries
                        && fresh.all_counted == self.all_counted
                        && fresh.timed_unsampled == self.timed_unsampled
                        && fresh.fixed == self.fixed
                        && self.pods.iter().zip(&fresh.pods).all(|(kept, new)| {
                            kept.sampled == new.sampled
                                && kept.request == new.request
                                && (kept.group.is_none() || kept.group == new.group)
                        })));
            debug_assert!(
                same,
                "the pod facts kept for generation {generation} are not the pods' (the caller's generation did not change with them)"
            );
        }
    }

    /// The facts of `input`'s pods, derived as the one pass reads them.
    fn derive(
        &mut self,
        input: &Input,
        usages: &[PodUsage],
        resource: &Resource,
        rules: &Rules,
        pod_level_on: bool,
    ) {
        self.built_at = input.now;
        self.refresh = None;
        self.pods.clear();
        self.entries.clear();
        self.timed_unsampled.clear();
        self.fixed = Fixed {
            requests: Some(0),
            ..Fixed::default()
        };
        self.all_requests = true;
        self.ordered = false;
        self.all_counted = false;
        let mut next = 0;
        let mut previous = "";
        // A sample whose time is read only where the group depends on it (then not kept).
        let any = Sample {
            value: 0,
            timestamp: input.now,
            window: SignedDuration::ZERO,
        };
        for pod in &input.pods {
            let name = pod.name.as_str();
            if !precedes(previous, name) {
                return;
            }
            previous = name;
            let sampled = usages.get(next).is_some_and(|u| same_name(&u.pod, name));
            next += usize::from(sampled);
            let (group, why) = rules.classify(pod, sampled.then_some(&any));
            let timed = matches!(
                why,
                Why::InitNotReady | Why::InitSampleTooEarly { .. } | Why::InitReadyFullWindow
            );
            if timed {
                let start = pod.start_time.unwrap_or(input.now);
                self.refresh = Some(self.refresh.map_or(start, |s| s.min(start)));
            }
            let request = containers_request(pod, resource, pod_level_on);
            self.all_requests &= request.is_some();
            self.count(timed.then_some(self.pods.len()), group, sampled, request);
            self.pods.push(PodFact {
                sampled,
                request,
                group: (!timed).then_some(group),
            });
        }
        self.ordered = next == usages.len();
        self.all_counted = self.entries.iter().all(|e| *e == Entry::Counted);
    }

    /// Counts a pod up front (its group kept) or lists it for each sync (`timed`: its index).
    fn count(
        &mut self,
        timed: Option<usize>,
        group: PodGroup,
        sampled: bool,
        request: Option<i64>,
    ) {
        if let Some(i) = timed {
            if sampled {
                self.entries.push(Entry::Timed(i));
            } else {
                self.timed_unsampled.push(i);
            }
            return;
        }
        let f = &mut self.fixed;
        match group {
            PodGroup::Ready => {
                // Without a sample a pod is missing, never Ready.
                f.counts.ready += 1;
                f.requests = f.requests.and_then(|r| r.checked_add(request.unwrap_or(0)));
            }
            PodGroup::Unready => f.counts.unready += 1,
            PodGroup::Ignored => f.counts.ignored += 1,
            PodGroup::Missing => f.counts.missing += 1,
        }
        if sampled {
            let counted = group == PodGroup::Ready;
            self.entries
                .push(if counted { Entry::Counted } else { Entry::Read });
        }
    }
}
