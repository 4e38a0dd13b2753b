//! The pod average of a brief decision in one pass over the pods, and the proof that it is the
//! general path's.

use super::calculation::PodGroup;
use super::calculation::{CalcResult, Calculation, Proposal};
use super::counted::Scratch;
use super::frame::{plain_proposal, Frame};
use super::get_resource_replicas::{get_resource_replicas, PodMetricKind};
use super::group_pods::{GroupCounts, Rules};
use super::pod_facts::{Entry, PodFacts};
use super::ratios::{first_ratio, Sums};
use super::requests::{containers_request, pod_level_on};
use super::samples::{usage_of, Sample};
use crate::core::compare::{precedes, same_name};
use crate::core::model::{Input, MetricData, PodInfo, PodUsage};
use crate::core::resources::Resource;

/// [`one_pass`], and in a debug build the general path's answer for the same input compared
/// with it: every one-pass answer of every test is checked, the equivalence test's random
/// inputs and every sync of the `simulate` tests included.
pub(super) fn one_pass_checked(
    input: &Input,
    kind: PodMetricKind,
    data: &MetricData,
    resource: &Resource,
    frame: &Frame,
    (scratch, calc): (&mut Scratch, &mut Option<Calculation>),
) -> Option<Proposal> {
    let fast = match scratch.pods_generation {
        Some(generation) => one_pass_kept(
            input,
            resource,
            frame,
            calc,
            (&mut scratch.facts, generation),
        )?,
        None => one_pass(input, resource, frame, calc)?,
    };
    if cfg!(debug_assertions) {
        let mut general_calc = None;
        let general = get_resource_replicas(
            input,
            kind,
            data,
            (resource, None),
            frame.clone(),
            (scratch, &mut general_calc),
        );
        assert_same(&fast, calc, &general, &general_calc);
    }
    Some(fast)
}

/// Panics when the one pass and the general path disagree (NaN ratios compare equal).
fn assert_same(
    fast: &Proposal,
    fast_calc: &Option<Calculation>,
    general: &CalcResult,
    general_calc: &Option<Calculation>,
) {
    let same = match general {
        Ok(g) => {
            g == fast
                && (fast_calc == general_calc
                    || format!("{fast_calc:?}") == format!("{general_calc:?}"))
        }
        Err(_) => false,
    };
    debug_assert!(
        same,
        "the one-pass pod average differs from the general path: {fast:?} {fast_calc:?} vs {:?} {general_calc:?}",
        general.as_ref().map_err(|f| &f.error)
    );
}

// perf: benches/simulate. The pod count of all but 23 of the benchmark day's 5,760 syncs; the
// general path sorts the samples into a name map and groups the pods in a second pass. Every
// answer is checked against the general path in debug builds (`one_pass_checked`) and by the
// equivalence test below.
/// The pod average of a brief decision in one pass over the pods, for the case nearly every
/// sync of `simulate` is in: each pod's name sorts after the one before (so no two pods share
/// a name), the PodMetrics come in the pods' order and each is taken by the pod of its name (no
/// sample of a pod the selector did not list), every pod has a request of the resource in its
/// containers, and no pod is missing nor counted unready on a scale-up. The count is then the
/// general path's: the samples of the Ready pods, each with its own pod's request, and the
/// same proposal (a test compares the two on random pods). None as soon as any condition
/// fails: the general path, which handles every input, decides.
pub(super) fn one_pass(
    input: &Input,
    resource: &Resource,
    frame: &Frame,
    calc: &mut Option<Calculation>,
) -> Option<Proposal> {
    let (pods, usages, rules) = start(input, resource)?;
    let pod_level_on = pod_level_on(input);
    let mut tally = Tally::default();
    let mut next = 0;
    let mut previous = "";
    for pod in pods {
        let name = pod.name.as_str();
        if !precedes(previous, name) {
            return None;
        }
        previous = name;
        let sample = match usages.get(next) {
            Some(u) if same_name(&u.pod, name) => {
                next += 1;
                Some(Sample {
                    value: usage_of(u, resource)?,
                    timestamp: u.timestamp,
                    window: u.window,
                })
            }
            _ => None,
        };
        let request = if frame.is_util {
            Some(containers_request(pod, resource, pod_level_on)?)
        } else {
            None
        };
        let group = rules.classify(pod, sample.as_ref()).0;
        tally.add(group, sample.map(|s| s.value), request)?;
    }
    if next != usages.len() {
        return None;
    }
    conclude(frame, tally, calc)
}

// perf: benches/simulate. Nothing per pod is derived again while simulate's pods stay the same
// (derived again only when a pod comes, goes, turns Ready, gets its first sample or leaves its
// cpu initialization period): the run's instructions per sync went from 9,694 to 8,311 (-14%;
// callgrind, the benchmark's arguments over 48 h minus the same over 1 h; output identical).
/// [`one_pass`] over the facts kept from the last sync (`facts`, derived again when the
/// caller's `generation` of the pods changes): per pod only its sample's value is read, and
/// its group decided only while it depends on the sample's time. The same answer as
/// [`one_pass`] (a test compares them over random runs of syncs; in debug builds the kept
/// facts are compared with fresh ones and the answer with the general path's).
pub(super) fn one_pass_kept(
    input: &Input,
    resource: &Resource,
    frame: &Frame,
    calc: &mut Option<Calculation>,
    (facts, generation): (&mut PodFacts, u64),
) -> Option<Proposal> {
    let (pods, usages, rules) = start(input, resource)?;
    facts.refresh(
        input,
        usages,
        resource,
        &rules,
        (generation, pod_level_on(input)),
    );
    if !facts.ordered || (frame.is_util && !facts.all_requests) {
        return None;
    }
    // The pods whose group is kept are counted up front (a missing one leaves the count to
    // the general path); per PodMetrics entry only its value is read.
    let fixed = &facts.fixed;
    if fixed.counts.missing > 0 {
        return None;
    }
    let mut tally = Tally {
        counts: fixed.counts,
        usage: 0,
        requests: fixed.requests?,
        entries: fixed.counts.ready,
    };
    if facts.all_counted {
        tally.usage = counted_usage(usages, resource)?;
    }
    let entries = if facts.all_counted {
        &[][..]
    } else {
        &facts.entries[..]
    };
    for (u, entry) in usages.iter().zip(entries) {
        let value = usage_of(u, resource)?;
        match *entry {
            Entry::Counted => tally.usage = tally.usage.checked_add(value)?,
            Entry::Read => {}
            Entry::Timed(i) => {
                let sample = Sample {
                    value,
                    timestamp: u.timestamp,
                    window: u.window,
                };
                let group = rules.classify(&pods[i], Some(&sample)).0;
                tally.add(group, Some(value), facts.pods[i].request)?;
            }
        }
    }
    for &i in &facts.timed_unsampled {
        let group = rules.classify(&pods[i], None).0;
        tally.add(group, None, facts.pods[i].request)?;
    }
    conclude(frame, tally, calc)
}

// perf: benches/simulate. Nearly every sync of the benchmark counts every PodMetrics entry
// (all its pods Ready for good): the values are added up without the per-entry dispatch.
// Checked with the rest of the one pass (the general path's answer in debug builds, the
// equivalence tests).
/// The sum of every entry's value, None when one has none or the sum overflows 64 bits (as
/// the per-entry loop of [`one_pass_kept`] gives for entries all [`Entry::Counted`]).
fn counted_usage(usages: &[PodUsage], resource: &Resource) -> Option<i64> {
    let mut sum = 0i64;
    for u in usages {
        sum = sum.checked_add(usage_of(u, resource)?)?;
    }
    Some(sum)
}

/// What both one passes start from: the pods, their PodMetrics and the rules that group them;
/// None when the PodMetrics failed or either list is empty (the general path decides).
fn start<'a>(
    input: &'a Input,
    resource: &Resource,
) -> Option<(&'a [PodInfo], &'a [PodUsage], Rules)> {
    let usages = input.pod_metrics.as_ref().ok()?;
    if input.pods.is_empty() || usages.is_empty() {
        return None;
    }
    Some((
        &input.pods,
        usages,
        Rules::of(input, *resource == Resource::CPU),
    ))
}

/// The one pass's running count: the pods of each group, and the Ready pods' usages and
/// requests in 64 bits (an overflow leaves the count to the general path, whose sums are
/// 128-bit).
#[derive(Default)]
struct Tally {
    counts: GroupCounts,
    usage: i64,
    requests: i64,
    entries: usize,
}

impl Tally {
    /// Counts a pod of `group` with its sample's value and its request; None where the one
    /// pass cannot count it (a Ready pod without a sample is missing; an overflow).
    #[inline]
    fn add(&mut self, group: PodGroup, value: Option<i64>, request: Option<i64>) -> Option<()> {
        match (group, value) {
            (PodGroup::Ready, Some(v)) => {
                self.counts.ready += 1;
                self.usage = self.usage.checked_add(v)?;
                self.requests = self.requests.checked_add(request.unwrap_or(0))?;
                self.entries += 1;
            }
            (PodGroup::Unready, _) => self.counts.unready += 1,
            (PodGroup::Ignored, _) => self.counts.ignored += 1,
            _ => return None,
        }
        Some(())
    }
}

/// The proposal of the one pass's count (both variants).
fn conclude(frame: &Frame, tally: Tally, calc: &mut Option<Calculation>) -> Option<Proposal> {
    let Tally {
        counts,
        usage,
        requests,
        entries,
    } = tally;
    if entries == 0 {
        return None;
    }
    // Every counted sample has its pod's request (utilization) or none is read (a plain metric).
    let with_request = if frame.is_util { entries as i128 } else { 0 };
    let sums = Sums {
        usage_with_request: if frame.is_util { usage.into() } else { 0 },
        requests: requests.into(),
        with_request,
        usage: usage.into(),
        entries,
    };
    let first = first_ratio(&sums, frame.is_util, frame.target).ok()?;
    if counts.unready > 0 && first.ratio > 1.0 {
        return None;
    }
    Some(plain_proposal(frame, counts, Vec::new(), first, calc))
}

#[cfg(test)]
mod tests {
    use super::super::calculation::Tolerances;
    use super::*;
    use crate::core::model::{ContainerRequests, PodInfo, PodUsage};
    use crate::core::settings::KubeVersion;
    use crate::core::tests::fixtures::{ago, InputBuilder};
    use crate::core::{Detail, ReadyCondition, Resources, Settings};
    use jiff::SignedDuration;

    /// A small deterministic generator (xorshift64*), so the random cases are the same on
    /// every run.
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
        }

        fn below(&mut self, n: u64) -> u64 {
            self.next() % n
        }

        fn chance(&mut self, percent: u64) -> bool {
            self.below(100) < percent
        }
    }

    /// A random resource-metric input: pods whose names repeat, come in any order or sorted,
    /// in every phase and readiness, some lacking a request or with pod-level requests; samples
    /// for some of them and for pods not listed, some lacking the resource; several releases.
    /// A pod in any phase and readiness, some of its containers perhaps without a request of
    /// `resource`, perhaps with pod-level requests; odd ones 1 in `rare` as often.
    fn random_pod(rng: &mut Rng, name: &str, resource: &str, rare: u64) -> PodInfo {
        let start = ago([20, 100, 400, 3600][rng.below(4) as usize]);
        let containers = (0..1 + rng.below(2))
            .map(|c| ContainerRequests {
                name: format!("c{c}"),
                requests: if rng.chance(100 - 5 / rare) {
                    Resources::from([(resource, 100 + 100 * rng.below(10) as i64)])
                } else {
                    Resources::new()
                },
                restartable_init: false,
            })
            .collect();
        let phases = ["Running", "Pending", "Failed", "Succeeded"];
        PodInfo {
            name: name.to_string(),
            phase: phases[if rng.chance(100 - 50 / rare) {
                0
            } else {
                rng.below(4) as usize
            }]
            .into(),
            deleting: rng.chance(5 / rare),
            start_time: rng.chance(100 - 5 / rare).then_some(start),
            ready: rng.chance(100 - 5 / rare).then(|| ReadyCondition {
                status: ["True", "True", "True", "False", "Unknown"][rng.below(5) as usize].into(),
                last_transition_time: ago([10, 50, 90, 350, 3500][rng.below(5) as usize]),
            }),
            containers,
            init_containers: vec![],
            pod_requests: rng.chance(5).then(|| Resources::from([(resource, 700)])),
            overhead: Resources::new(),
            owner: None,
        }
    }

    /// The PodMetrics of pod `name`: one or two containers, perhaps one without `resource`.
    fn random_usage(rng: &mut Rng, name: &str, resource: &str, rare: u64) -> PodUsage {
        PodUsage {
            pod: name.to_string(),
            timestamp: ago([0, 30, 60][rng.below(3) as usize]),
            window: SignedDuration::from_secs(15),
            containers: (0..1 + rng.below(2))
                .map(|c| {
                    let usage = if rng.chance(100 - 3 / rare) {
                        Resources::from([(resource, rng.below(2000) as i64)])
                    } else {
                        Resources::new()
                    };
                    (format!("c{c}"), usage)
                })
                .collect(),
        }
    }

    /// A random resource-metric input: pods whose names repeat, come in any order or sorted,
    /// samples for some of them and for pods not listed, several releases.
    fn random_input(rng: &mut Rng) -> Input {
        let names = ["web-1", "web-2", "web-3", "web-4", "web-5", "web-6", "x"];
        // Half the cases are tame (odd pods are rare), so that both paths get their share.
        let rare = if rng.chance(50) { 10 } else { 1 };
        let n = 1 + rng.below(6) as usize;
        let mut picked: Vec<&str> = if rng.chance(100 - 30 / rare) {
            let start = rng.below(2) as usize;
            names[start..start + n].to_vec()
        } else {
            (0..n).map(|_| names[rng.below(7) as usize]).collect()
        };
        if rng.chance(10) {
            picked.reverse();
        }
        let resource = if rng.chance(80) { "cpu" } else { "memory" };
        let pods = picked
            .iter()
            .map(|name| random_pod(rng, name, resource, rare))
            .collect();
        let mut sampled: Vec<&str> = picked
            .iter()
            .copied()
            .filter(|_| rng.chance(100 - 10 / rare))
            .collect();
        if rng.chance(10 / rare) {
            sampled.push(names[rng.below(7) as usize]);
        }
        if rng.chance(10) {
            sampled.reverse();
        }
        let usages = sampled
            .iter()
            .map(|name| random_usage(rng, name, resource, rare))
            .collect();
        let mut settings = Settings {
            kubernetes_version: KubeVersion {
                minor: [30, 33, 34, 37, 38][rng.below(5) as usize],
            },
            ..Settings::default()
        };
        settings.feature_gates.pod_level_resources = rng.chance(50);
        let mut input = InputBuilder::new(n as i32)
            .pods(pods)
            .usages(usages)
            .build();
        if rng.chance(3) {
            input.pod_metrics = Err("metrics API unavailable".into());
        }
        input.settings = settings;
        input.detail = Detail::Numbers;
        input
    }

    /// The default 10% both ways.
    fn test_tolerances() -> Tolerances {
        Tolerances {
            down: 0.1,
            up: 0.1,
            legacy_abs: false,
            source: "test",
        }
    }

    #[test]
    fn the_one_pass_count_is_the_general_one_whenever_it_answers() {
        let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
        let tol = test_tolerances();
        let (mut answered, mut cases) = (0, 0);
        for case in 0..20_000 {
            let input = random_input(&mut rng);
            let resource = input.pods[0].containers[0]
                .requests
                .keys()
                .next()
                .map_or("cpu", |r| {
                    if *r == Resource::MEMORY {
                        "memory"
                    } else {
                        "cpu"
                    }
                });
            let resource = Resource::new(resource);
            for is_util in [true, false] {
                cases += 1;
                let target = if is_util { 50 } else { 400 };
                let frame = Frame::new(is_util, target, &tol, input.pods.len() as i32, false);
                let mut fast_calc = None;
                let Some(fast) = one_pass(&input, &resource, &frame, &mut fast_calc) else {
                    assert!(fast_calc.is_none(), "case {case}: declined, but wrote");
                    continue;
                };
                answered += 1;
                let kind = if is_util {
                    PodMetricKind::Utilization {
                        resource: resource.as_str(),
                        container: None,
                        target: target as i32,
                    }
                } else {
                    PodMetricKind::RawResource {
                        resource: resource.as_str(),
                        container: None,
                        target,
                    }
                };
                let (mut scratch, mut general_calc) = (Scratch::default(), None);
                let general = get_resource_replicas(
                    &input,
                    kind,
                    &MetricData::None,
                    (&resource, None),
                    frame,
                    (&mut scratch, &mut general_calc),
                )
                .unwrap_or_else(|f| panic!("case {case}: the general path failed: {}", f.error));
                let show = |p: &Proposal, calc: &Option<Calculation>| {
                    format!(
                        "{} {calc:?} {} {:?}",
                        p.replicas, p.current_value, p.current_utilization
                    )
                };
                assert_eq!(
                    show(&fast, &fast_calc),
                    show(&general, &general_calc),
                    "case {case}: {input:#?}"
                );
                assert!(fast_calc.is_some(), "case {case}");
            }
        }
        // The one pass answered often enough for the comparison to mean something, and left
        // enough to the general path to show that it declines.
        assert!(answered * 4 > cases, "{answered} of {cases}");
        assert!(answered * 10 < cases * 9, "{answered} of {cases}");
    }

    /// A random input of `random_input` with its samples' values and times moved and `now`
    /// later: the next sync of the same pods.
    fn next_sync(rng: &mut Rng, input: &mut Input) {
        input.now += SignedDuration::from_secs([0, 5, 15, 60, 400][rng.below(5) as usize]);
        let now = input.now;
        if let Ok(usages) = &mut input.pod_metrics {
            for u in usages {
                u.timestamp = now - SignedDuration::from_secs([0, 15, 30][rng.below(3) as usize]);
                for (_, r) in &mut u.containers {
                    let mut moved = Resources::new();
                    for (res, _) in r.iter() {
                        moved.insert(res.clone(), rng.below(2000) as i64);
                    }
                    *r = moved;
                }
            }
        }
    }

    #[test]
    fn the_kept_facts_give_the_one_pass_answer_sync_after_sync() {
        let mut rng = Rng(0x2545_F491_4F6C_DD1D);
        let tol = test_tolerances();
        let (mut answered, mut kept_used, mut cases) = (0, 0, 0);
        let mut facts = PodFacts::default();
        for world in 0..3_000u64 {
            let mut input = random_input(&mut rng);
            let resource = input.pods[0].containers[0]
                .requests
                .keys()
                .next()
                .cloned()
                .unwrap_or(Resource::CPU);
            // Two generations per world: the facts are derived again for the second one, and
            // they are kept across the syncs of each.
            for generation in [2 * world, 2 * world + 1] {
                for _sync in 0..6 {
                    for is_util in [true, false] {
                        cases += 1;
                        let target = if is_util { 50 } else { 400 };
                        let frame =
                            Frame::new(is_util, target, &tol, input.pods.len() as i32, false);
                        let (mut plain_calc, mut kept_calc) = (None, None);
                        let plain = one_pass(&input, &resource, &frame, &mut plain_calc);
                        let kept = one_pass_kept(
                            &input,
                            &resource,
                            &frame,
                            &mut kept_calc,
                            (&mut facts, generation),
                        );
                        kept_used += usize::from(facts.pods.iter().any(|f| f.group.is_some()));
                        let show = |p: &Option<Proposal>, calc: &Option<Calculation>| {
                            format!("{p:?} {calc:?}")
                        };
                        assert_eq!(
                            show(&kept, &kept_calc),
                            show(&plain, &plain_calc),
                            "world {world}, generation {generation}: {input:#?}"
                        );
                        answered += usize::from(kept.is_some());
                    }
                    next_sync(&mut rng, &mut input);
                }
            }
        }
        assert!(answered * 4 > cases, "{answered} of {cases}");
        assert!(kept_used * 2 > cases, "{kept_used} of {cases}");
    }
}
