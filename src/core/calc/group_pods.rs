//! `groupPods`: ready, unready, missing and ignored pods, and why.

use jiff::{SignedDuration, Timestamp};

use super::calculation::{PodGroup, PodRow};
use super::samples::Sample;
use crate::core::clock::{self, saturating_add as add};
use crate::core::model::{Input, PodInfo};
use crate::core::name_map::NameMap;

/// The classification of the controller's `groupPods`; pods by their index in `Input::pods`.
pub(super) struct Grouping<'s> {
    pub(super) ready: usize,
    pub(super) unready: Vec<usize>,
    pub(super) missing: Vec<usize>,
    pub(super) ignored: Vec<usize>,
    pub(super) rows: Vec<PodRow>,
    /// Per pod: the index of its sample (in name order), if it has one.
    pub(super) sample_of: &'s mut Vec<Option<usize>>,
}

/// How many pods are in each group of `groupPods`.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(super) struct GroupCounts {
    pub(super) ready: usize,
    pub(super) unready: usize,
    pub(super) missing: usize,
    pub(super) ignored: usize,
}

impl Grouping<'_> {
    pub(super) fn counts(&self) -> GroupCounts {
        GroupCounts {
            ready: self.ready,
            unready: self.unready.len(),
            missing: self.missing.len(),
            ignored: self.ignored.len(),
        }
    }
}

/// Mirrors `groupPods`: ready, unready, missing (no sample) and ignored pods, with why.
pub(super) fn group_pods<'s>(
    pods: &[PodInfo],
    samples: &NameMap<'_, Sample>,
    cpu_rules: bool,
    input: &Input,
    sample_of: &'s mut Vec<Option<usize>>,
) -> Grouping<'s> {
    let full = input.detail.narrates();
    sample_of.clear();
    let mut g = Grouping {
        ready: 0,
        unready: vec![],
        missing: vec![],
        ignored: vec![],
        rows: Vec::with_capacity(if full { pods.len() } else { 0 }),
        sample_of,
    };
    let rules = Rules::of(input, cpu_rules);
    for (i, pod) in pods.iter().enumerate() {
        let found = samples.get_index(pod.name.as_str());
        g.sample_of.push(found.map(|(si, _)| si));
        let sample = found.map(|(_, s)| s);
        let (group, why) = rules.classify(pod, sample);
        match group {
            PodGroup::Ready => g.ready += 1,
            PodGroup::Unready => g.unready.push(i),
            PodGroup::Missing => g.missing.push(i),
            PodGroup::Ignored => g.ignored.push(i),
        }
        if full {
            g.rows.push(PodRow {
                pod: pod.name.clone(),
                phase: pod.phase.clone(),
                ready: pod.ready.as_ref().map(|r| r.status.clone()),
                group,
                why: why.text(pod),
                usage_milli: sample.map(|s| s.value),
                request_milli: None,
                utilization: None,
                counted: false,
                assumed_milli: None,
                owner: pod.owner.clone(),
            });
        }
    }
    g
}

// perf: benches/simulate. Three phase comparisons per pod, in line instead of a `memcmp` call
// each (the reason of `compare::precedes`).
/// `s == lit`, the comparison of a known length done in line (no call to `memcmp` per pod).
pub(super) fn is<const N: usize>(s: &str, lit: &[u8; N]) -> bool {
    s.as_bytes() == lit
}

// perf: benches/simulate. One subtraction per sync instead of a saturating timestamp addition
// per pod; equal to the addition (test `later_is_the_addition_compared_with_now`).
/// `t + d > now` for many `t` and one `d` and `now`, decided by comparing `t` with `now - d`
/// (computed once per sync rather than an addition per pod; equal to [`add`]`(t, d) > now`,
/// overflow included, for any `now` below `Timestamp::MAX`).
#[derive(Debug, Clone, Copy)]
pub(super) enum Later {
    Than(Timestamp),
    Always,
    Never,
}

impl Later {
    pub(super) fn new(now: Timestamp, d: SignedDuration) -> Later {
        match clock::checked_sub(now, d) {
            Some(t) => Later::Than(t),
            None if d.is_positive() => Later::Always,
            None => Later::Never,
        }
    }

    pub(super) fn holds(self, t: Timestamp) -> bool {
        match self {
            Later::Than(c) => t > c,
            Later::Always => true,
            Later::Never => false,
        }
    }
}

/// The rules of `groupPods` for one metric at one sync, with what they need computed once.
pub(super) struct Rules {
    /// The cpu readiness rules apply (the cpu resource).
    pub(super) cpu: bool,
    /// Succeeded pods are ignored like Failed ones from 1.38 (kubernetes#141302); 1.37 and
    /// older treat them like any other pod.
    pub(super) terminal_succeeded: bool,
    /// A pod started within the cpu initialization period: `start + period > now`.
    pub(super) in_cpu_init: Later,
    pub(super) initial_readiness_delay: SignedDuration,
}

/// Why a pod is in its group (the text is written only for the full explanation).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Why {
    Deleting,
    Phase,
    Pending,
    HasSample,
    NoSample,
    NoReadyCondition,
    NoStartTime,
    InitNotReady,
    /// The sample's time and window, and the Ready transition.
    InitSampleTooEarly {
        taken: Timestamp,
        window: SignedDuration,
        ready_since: Timestamp,
    },
    InitReadyFullWindow,
    NeverReady,
    Ready,
    WasReady,
}

impl Why {
    pub(super) fn text(self, pod: &PodInfo) -> String {
        match self {
            Why::Deleting => "being deleted (deletionTimestamp set)".into(),
            Why::Phase => format!("phase {}", pod.phase),
            Why::Pending => "phase Pending".into(),
            Why::HasSample => "has a sample".into(),
            Why::NoSample => "no metric sample".into(),
            Why::NoReadyCondition => "no Ready condition".into(),
            Why::NoStartTime => "no status.startTime".into(),
            Why::InitNotReady => "within cpu-initialization-period and not Ready".into(),
            Why::InitSampleTooEarly {
                taken,
                window,
                ready_since,
            } => format!(
                "within cpu-initialization-period and the sample ({taken}) was taken less than one window ({}) after the Ready transition ({ready_since})",
                fmt_dur(window),
            ),
            Why::InitReadyFullWindow => "within cpu-initialization-period, Ready and the sample is a full window after the transition".into(),
            Why::NeverReady => "not Ready and has never been Ready (last transition within initial-readiness-delay of start)".into(),
            Why::Ready => "Ready".into(),
            Why::WasReady => format!(
                "Ready={} but was ready before: its sample counts",
                pod.ready.as_ref().map_or("", |r| r.status.as_str())
            ),
        }
    }
}

impl Rules {
    pub(super) fn of(input: &Input, cpu: bool) -> Rules {
        let s = &input.settings;
        Rules {
            cpu,
            terminal_succeeded: s.version().at_least(38),
            in_cpu_init: Later::new(input.now, s.cpu_initialization_period),
            initial_readiness_delay: s.initial_readiness_delay,
        }
    }

    /// One pod's group in `groupPods`, and why. In line: where only the group is read (the one
    /// pass), the reason is not built.
    #[inline(always)]
    pub(super) fn classify(&self, pod: &PodInfo, sample: Option<&Sample>) -> (PodGroup, Why) {
        if pod.deleting {
            (PodGroup::Ignored, Why::Deleting)
        } else if is(&pod.phase, b"Failed")
            || (self.terminal_succeeded && is(&pod.phase, b"Succeeded"))
        {
            (PodGroup::Ignored, Why::Phase)
        } else if is(&pod.phase, b"Pending") {
            (PodGroup::Unready, Why::Pending)
        } else if let Some(sample) = sample {
            if self.cpu {
                self.cpu_readiness(pod, sample)
            } else {
                (PodGroup::Ready, Why::HasSample)
            }
        } else {
            (PodGroup::Missing, Why::NoSample)
        }
    }

    /// The cpu readiness rules of `groupPods`: during the cpu initialization period a pod
    /// counts only when Ready and its sample is a full window after the transition; after it,
    /// a pod that has never been Ready is unready.
    #[inline(always)]
    pub(super) fn cpu_readiness(&self, pod: &PodInfo, sample: &Sample) -> (PodGroup, Why) {
        let (ready, start) = match (&pod.ready, pod.start_time) {
            (None, _) => return (PodGroup::Unready, Why::NoReadyCondition),
            (_, None) => return (PodGroup::Unready, Why::NoStartTime),
            (Some(ready), Some(start)) => (ready, start),
        };
        if self.in_cpu_init.holds(start) {
            if is(&ready.status, b"False") {
                (PodGroup::Unready, Why::InitNotReady)
            } else if sample.timestamp < add(ready.last_transition_time, sample.window) {
                let why = Why::InitSampleTooEarly {
                    taken: sample.timestamp,
                    window: sample.window,
                    ready_since: ready.last_transition_time,
                };
                (PodGroup::Unready, why)
            } else {
                (PodGroup::Ready, Why::InitReadyFullWindow)
            }
        } else if is(&ready.status, b"False")
            && add(start, self.initial_readiness_delay) > ready.last_transition_time
        {
            (PodGroup::Unready, Why::NeverReady)
        } else if is(&ready.status, b"True") {
            (PodGroup::Ready, Why::Ready)
        } else {
            (PodGroup::Ready, Why::WasReady)
        }
    }
}

pub(super) fn fmt_dur(d: SignedDuration) -> String {
    crate::duration::format_go_duration(
        d.as_nanos().clamp(i64::MIN as i128, i64::MAX as i128) as i64
    )
}
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn later_is_the_addition_compared_with_now() {
        let now: Timestamp = "2026-03-01T12:00:00Z".parse().unwrap();
        let secs = SignedDuration::from_secs;
        let times = [
            Timestamp::MIN,
            Timestamp::MIN + secs(10),
            now - secs(301),
            now - secs(300),
            now - SignedDuration::from_nanos(300_000_000_001),
            now - secs(299),
            now,
            now + secs(1),
            Timestamp::MAX - secs(10),
            Timestamp::MAX,
        ];
        let durations = [
            SignedDuration::ZERO,
            secs(300),
            secs(-300),
            SignedDuration::MAX,
            SignedDuration::MIN,
        ];
        for now in [
            now,
            Timestamp::MIN,
            Timestamp::MIN + secs(5),
            Timestamp::MAX - secs(5),
        ] {
            for d in durations {
                let later = Later::new(now, d);
                for t in times {
                    assert_eq!(later.holds(t), add(t, d) > now, "t={t} d={d:?} now={now}");
                }
            }
        }
    }
}
