//! Per-metric replica proposals: the controller's `replica_calculator.go`, pod grouping and the
//! metrics client's sample extraction, each step recorded for the trace.

use super::name_map::{precedes, same_name, NameMap, Spare};

use jiff::{SignedDuration, Timestamp};
use serde::Serialize;

use super::model::{ContainerRequests, Input, MetricData, MetricSample, PodInfo, PodUsage};
use super::resources::Resource;

/// A rule text, built only when the full explanation is wanted.
macro_rules! rule {
    ($full:expr, $($arg:tt)*) => {
        if $full { format!($($arg)*) } else { String::new() }
    };
}
use super::clock::{self, saturating_add as add};
use super::settings::KubeVersion;

/// The tolerance band in force for this HPA.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Tolerances {
    /// Tolerance below 1.0 (scale-down side).
    pub down: f64,
    /// Tolerance above 1.0 (scale-up side).
    pub up: f64,
    /// Before 1.33 the test was `|1 - ratio| <= tolerance`.
    pub legacy_abs: bool,
    /// Where the values came from.
    pub source: &'static str,
}

impl Tolerances {
    pub fn is_within(&self, ratio: f64) -> bool {
        if self.legacy_abs {
            (1.0 - ratio).abs() <= self.up
        } else {
            (1.0 - self.down) <= ratio && ratio <= (1.0 + self.up)
        }
    }

    /// `[1 - down, 1 + up]`, the band of ratios that hold.
    pub fn band(&self) -> [f64; 2] {
        [1.0 - self.down, 1.0 + self.up]
    }
}

/// How one pod was classified for a pod-based metric.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum PodGroup {
    Ready,
    Unready,
    Missing,
    Ignored,
}

/// One row of the per-pod table.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PodRow {
    pub pod: String,
    pub phase: String,
    /// Status of the Ready condition (`True`, `False`, `Unknown`) or null.
    pub ready: Option<String>,
    pub group: PodGroup,
    /// The rule that put the pod in its group.
    pub why: String,
    /// The sample in milli-units, if the metrics API had one.
    pub usage_milli: Option<i64>,
    /// The pod's request in milli-units (utilization metrics only).
    pub request_milli: Option<i64>,
    /// usage × 100 / request, truncated (utilization metrics only).
    pub utilization: Option<i64>,
    /// Whether this pod's sample counts in the first ratio.
    pub counted: bool,
    /// Value assumed for this pod in the re-computation, if any.
    pub assumed_milli: Option<i64>,
    pub owner: Option<String>,
}

/// The recomputation with assumed values for missing and unready pods.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Rebalance {
    /// Value given to each missing pod (milli), if any were filled.
    pub missing_fill_milli: Option<i64>,
    pub missing_pods: usize,
    /// Value given to each unready pod (0) when scaling up with unready pods.
    pub unready_fill_milli: Option<i64>,
    pub unready_pods: usize,
    /// null when there is no ratio (NaN).
    #[schemars(with = "Option<f64>")]
    pub new_ratio: f64,
    /// Utilization % (utilization metrics) or average (plain metrics) after filling.
    pub new_value: i64,
    /// Entries counted after filling (`len(metrics)` in the controller).
    pub entries: usize,
}

/// Every number behind one metric's proposal.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(
    rename_all = "camelCase",
    rename_all_fields = "camelCase",
    tag = "kind"
)]
pub enum Calculation {
    /// Resource/ContainerResource utilization, resource averageValue and Pods metrics.
    PodAverage {
        /// `Utilization` (percent of request) or `AverageValue` (milli-units per pod).
        mode: &'static str,
        /// Current utilization % or per-pod average (milli) over counted pods.
        current: i64,
        /// Average usage in milli over counted pods (utilization mode: `averageValue` in status).
        raw_average_milli: Option<i64>,
        /// Target utilization % or average value (milli).
        target: i64,
        /// null when there is no ratio (a zero target or no usable value: NaN).
        #[schemars(with = "Option<f64>")]
        ratio: f64,
        tolerance_band: [f64; 2],
        current_replicas: i32,
        ready_pods: usize,
        unready_pods: usize,
        missing_pods: usize,
        ignored_pods: usize,
        /// Samples of pods that are not selected by the target (they still count, as in the controller).
        foreign_samples: usize,
        rebalance: Option<Rebalance>,
        /// The proposal is the current count because a ratio fell inside the tolerance band.
        within_tolerance: bool,
        /// The rule that produced the proposal.
        rule: String,
        pods: Vec<PodRow>,
    },
    /// Object/External with a `Value` target.
    Value {
        value_milli: i64,
        target_milli: i64,
        /// null when there is no ratio (a zero target or no usable value: NaN).
        #[schemars(with = "Option<f64>")]
        ratio: f64,
        tolerance_band: [f64; 2],
        current_replicas: i32,
        ready_pods: Option<i64>,
        within_tolerance: bool,
        rule: String,
    },
    /// Object/External with an `AverageValue` target (divided by the scale's status.replicas).
    AverageValue {
        total_milli: i64,
        target_milli: i64,
        status_replicas: i32,
        /// null when there is no ratio (a zero target or no usable value: NaN).
        #[schemars(with = "Option<f64>")]
        ratio: f64,
        tolerance_band: [f64; 2],
        /// ceil(total / status.replicas), what goes in the status.
        average_milli: i64,
        within_tolerance: bool,
        rule: String,
    },
}

/// A successful per-metric result. Its [`Calculation`] is written straight into the metric's
/// outcome (the `calc` argument of the functions that propose): it is most of the result, and
/// moving it on its way up was a copy per sync.
#[derive(Debug, Clone)]
pub struct Proposal {
    pub replicas: i32,
    /// Values for the metric's status, depending on the kind.
    pub current_value: i64,
    pub current_utilization: Option<i32>,
}

/// A failed per-metric result: the error as the controller words it, and what we computed
/// before the failure (so the explanation can still show the pods).
#[derive(Debug, Clone)]
pub struct Failure {
    pub error: String,
    pub partial: Option<Box<Calculation>>,
    /// The fact behind a `missing request for …` error (the diagnostics read it, not the text).
    pub missing_request: Option<MissingRequest>,
}

type CalcResult = Result<Proposal, Failure>;

fn fail(error: impl Into<String>) -> Failure {
    Failure {
        error: error.into(),
        partial: None,
        missing_request: None,
    }
}

/// A container of a pod without a request for the resource a utilization target needs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MissingRequest {
    pub resource: String,
    pub container: String,
    pub pod: String,
}

/// Why the selected pods' requests cannot be summed (`calculatePodRequests`); `Display` is the
/// controller's wording.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RequestError {
    /// `missing request for cpu in container app of Pod web-1`.
    Missing(MissingRequest),
    /// A ContainerResource metric's container is not in the pod (1.35+).
    ContainerNotFound { container: String, pod: String },
    /// Pod-level requests are in use and give none for the resource.
    MissingPodLevel { resource: String, pod: String },
}

impl std::fmt::Display for RequestError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RequestError::Missing(m) => write!(
                f,
                "missing request for {} in container {} of Pod {}",
                m.resource, m.container, m.pod
            ),
            RequestError::ContainerNotFound { container, pod } => {
                write!(f, "container {container} not found in Pod {pod}")
            }
            RequestError::MissingPodLevel { resource, pod } => {
                write!(f, "missing pod-level request for {resource} in Pod {pod}")
            }
        }
    }
}

impl std::error::Error for RequestError {}

/// Go's zero `time.Time`, used for absent timestamps.
pub fn go_zero_time() -> Timestamp {
    Timestamp::from_second(-62_135_596_800).expect("valid constant")
}

/// A sample as the metrics client hands it to the calculator.
#[derive(Debug, Clone, Copy)]
struct Sample {
    value: i64,
    timestamp: Timestamp,
    window: SignedDuration,
}

/// `getPodMetrics` / `getContainerMetrics`: per-pod samples of one resource.
fn resource_samples<'a>(
    usages: &'a [PodUsage],
    resource: &Resource,
    container: Option<&str>,
    version: KubeVersion,
    namespace: &str,
    mut out: Vec<(&'a str, Sample)>,
) -> Result<NameMap<'a, Sample>, String> {
    out.reserve(usages.len());
    for m in usages {
        let value = match container {
            None => usage_of(m, resource),
            Some(c) => match m.containers.iter().find(|(n, _)| n == c) {
                Some((_, usage)) => usage.of(resource),
                // From 1.33 (kubernetes#127193) a pod without the container is missing.
                None if !version.at_least(33) => {
                    return Err(format!(
                        "failed to get container metrics: container {c} not present in metrics for pod {namespace}/{}",
                        m.pod
                    ));
                }
                None => None,
            },
        };
        if let Some(value) = value {
            out.push((
                m.pod.as_str(),
                Sample {
                    value,
                    timestamp: m.timestamp,
                    window: m.window,
                },
            ));
        }
    }
    Ok(NameMap::from_entries(out))
}

/// Buffers of the pod averages, reused from one sync to the next (see [`Decision`]'s, which
/// `simulate` writes over sync after sync): a pod average whose pods are all Ready then
/// allocates nothing.
///
/// [`Decision`]: super::Decision
#[derive(Debug, Clone, Default)]
pub(crate) struct Scratch {
    samples: Spare<Sample>,
    sample_of: Vec<Option<usize>>,
    removed: Vec<bool>,
    sample_requests: Vec<Option<i64>>,
    pod_requests: Vec<i64>,
}

/// The classification of the controller's `groupPods`; pods by their index in `Input::pods`.
struct Grouping<'s> {
    ready: usize,
    unready: Vec<usize>,
    missing: Vec<usize>,
    ignored: Vec<usize>,
    rows: Vec<PodRow>,
    /// Per pod: the index of its sample (in name order), if it has one.
    sample_of: &'s mut Vec<Option<usize>>,
}

/// How many pods are in each group of `groupPods`.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
struct GroupCounts {
    ready: usize,
    unready: usize,
    missing: usize,
    ignored: usize,
}

impl Grouping<'_> {
    fn counts(&self) -> GroupCounts {
        GroupCounts {
            ready: self.ready,
            unready: self.unready.len(),
            missing: self.missing.len(),
            ignored: self.ignored.len(),
        }
    }
}

/// Mirrors `groupPods`: ready, unready, missing (no sample) and ignored pods, with why.
fn group_pods<'s>(
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

/// `s == lit`, the comparison of a known length done in line (no call to `memcmp` per pod).
fn is<const N: usize>(s: &str, lit: &[u8; N]) -> bool {
    s.as_bytes() == lit
}

/// `t + d > now` for many `t` and one `d` and `now`, decided by comparing `t` with `now - d`
/// (computed once per sync rather than an addition per pod; equal to [`add`]`(t, d) > now`,
/// overflow included, for any `now` below `Timestamp::MAX`).
#[derive(Debug, Clone, Copy)]
enum Later {
    Than(Timestamp),
    Always,
    Never,
}

impl Later {
    fn new(now: Timestamp, d: SignedDuration) -> Later {
        match clock::checked_sub(now, d) {
            Some(t) => Later::Than(t),
            None if d.is_positive() => Later::Always,
            None => Later::Never,
        }
    }

    fn holds(self, t: Timestamp) -> bool {
        match self {
            Later::Than(c) => t > c,
            Later::Always => true,
            Later::Never => false,
        }
    }
}

/// The rules of `groupPods` for one metric at one sync, with what they need computed once.
struct Rules {
    /// The cpu readiness rules apply (the cpu resource).
    cpu: bool,
    /// Succeeded pods are ignored like Failed ones from 1.38 (kubernetes#141302); 1.37 and
    /// older treat them like any other pod.
    terminal_succeeded: bool,
    /// A pod started within the cpu initialization period: `start + period > now`.
    in_cpu_init: Later,
    initial_readiness_delay: SignedDuration,
}

/// Why a pod is in its group (the text is written only for the full explanation).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Why {
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
    fn text(self, pod: &PodInfo) -> String {
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
    fn of(input: &Input, cpu: bool) -> Rules {
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
    fn classify(&self, pod: &PodInfo, sample: Option<&Sample>) -> (PodGroup, Why) {
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
    fn cpu_readiness(&self, pod: &PodInfo, sample: &Sample) -> (PodGroup, Why) {
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

fn fmt_dur(d: SignedDuration) -> String {
    crate::duration::format_go_duration(
        d.as_nanos().clamp(i64::MIN as i128, i64::MAX as i128) as i64
    )
}

const POD_LEVEL_RESOURCES: &[&str] = &["cpu", "memory"];

fn is_pod_level_resource(r: &str) -> bool {
    POD_LEVEL_RESOURCES.contains(&r) || r.starts_with("hugepages-")
}

/// `calculatePodRequests`: the request of every listed pod (ignored ones too).
/// Per pod, in the pods' order.
fn pod_requests(
    pods: &[PodInfo],
    resource: &Resource,
    container: Option<&str>,
    input: &Input,
    out: &mut Vec<i64>,
) -> Result<(), RequestError> {
    let version = input.settings.version();
    let pod_level_on = pod_level_on(input);
    out.clear();
    for pod in pods {
        if pod_level_on && container.is_none() && sets_pod_level(pod) {
            out.push(pod_level_request(pod, resource, version)?);
            continue;
        }
        let (sum, found) = containers_sum(pod, resource, container).map_err(|c| {
            RequestError::Missing(MissingRequest {
                resource: resource.as_str().to_string(),
                container: c.name.clone(),
                pod: pod.name.clone(),
            })
        })?;
        if let Some(name) = container {
            // 1.35+ (kubernetes#133415); before, such a container adds 0.
            if !found && version.at_least(35) {
                return Err(RequestError::ContainerNotFound {
                    container: name.to_string(),
                    pod: pod.name.clone(),
                });
            }
        }
        out.push(sum);
    }
    Ok(())
}

/// Whether the pod-level requests can decide: the HPA reads them only from 1.34
/// (kubernetes#132430), whatever the gate.
fn pod_level_on(input: &Input) -> bool {
    let s = &input.settings;
    s.feature_gates.pod_level_resources && s.version().at_least(34)
}

/// Whether the pod sets a pod-level request of a resource pod-level requests cover.
fn sets_pod_level(pod: &PodInfo) -> bool {
    pod.pod_requests
        .as_ref()
        .is_some_and(|r| r.keys().any(|k| is_pod_level_resource(k.as_str())))
}

/// `calculatePodRequests`' sum over the pod's containers (only `container` when given) of their
/// requests of `resource`, and whether any container counted; the first container without the
/// request is the error.
#[inline]
fn containers_sum<'p>(
    pod: &'p PodInfo,
    resource: &Resource,
    container: Option<&str>,
) -> Result<(i64, bool), &'p ContainerRequests> {
    let (mut sum, mut found) = (0i64, false);
    for c in &pod.containers {
        if container.is_none_or(|n| n == c.name) {
            found = true;
            sum = sum.saturating_add(c.requests.of(resource).ok_or(c)?);
        }
    }
    Ok((sum, found))
}

/// `calculatePodLevelRequests` (1.34+): `resourcehelpers.PodRequests(pod,
/// PodResourcesOptions{})` of component-helpers, read for `resource` (section C1):
///
/// * `AggregateContainerRequests`: the containers plus the restartable init containers
///   (sidecars), then the max with each non-restartable init container's use, which is its own
///   request plus the sidecars declared *before* it;
/// * the pod-level `spec.resources.requests` overrides only the resources it sets;
/// * `spec.overhead` is added up to 1.37; 1.38 leaves it out (kubernetes#142154).
///
/// A container without the request adds nothing; `missing pod-level request for <res> in Pod
/// <p>` only when nothing declares the resource.
fn pod_level_request(
    pod: &PodInfo,
    resource: &Resource,
    version: super::settings::KubeVersion,
) -> Result<i64, RequestError> {
    let mut present = false;
    // `pod.containers` holds the sidecars too.
    let mut value: i64 = 0;
    for c in &pod.containers {
        if let Some(v) = c.requests.of(resource) {
            present = true;
            value = value.saturating_add(v);
        }
    }
    // Init containers in their declared order: a non-restartable one runs with the sidecars
    // started before it.
    let (mut sidecars, mut init_max) = (0i64, 0i64);
    for c in &pod.init_containers {
        let v = c.requests.of(resource);
        present |= v.is_some();
        let v = v.unwrap_or(0);
        if c.restartable_init {
            sidecars = sidecars.saturating_add(v);
            init_max = init_max.max(sidecars);
        } else {
            init_max = init_max.max(v.saturating_add(sidecars));
        }
    }
    value = value.max(init_max);
    if let Some(v) = pod.pod_requests.as_ref().and_then(|r| r.of(resource)) {
        present = true;
        value = v;
    }
    if !version.at_least(38) {
        if let Some(v) = pod.overhead.of(resource) {
            present = true;
            value = value.saturating_add(v);
        }
    }
    if !present {
        return Err(RequestError::MissingPodLevel {
            resource: resource.as_str().to_string(),
            pod: pod.name.clone(),
        });
    }
    Ok(value)
}

/// What the ratios are computed from: the usage of the samples that count, the requests of
/// those whose pod is listed, and how many there are. Sums of integers, so the order in which
/// entries are added (Go iterates a map) does not matter.
#[derive(Debug, Clone, Copy, Default)]
struct Sums {
    /// Usage of the samples with a request.
    usage_with_request: i128,
    requests: i128,
    with_request: i128,
    /// Usage of every sample (plain metrics).
    usage: i128,
    /// Entries (`len(metrics)`).
    entries: usize,
}

impl Sums {
    fn add(&mut self, value: i64, request: Option<i64>) {
        self.usage += value as i128;
        self.entries += 1;
        if let Some(r) = request {
            self.usage_with_request += value as i128;
            self.requests += r as i128;
            self.with_request += 1;
        }
    }
}

/// `a / b` (truncated, as Go's integer division), in 64 bits when both fit: the sums are
/// 128-bit so that no sum of samples overflows, but they are small, and a 128-bit division is a
/// call into the runtime.
fn quotient(a: i128, b: i128) -> i128 {
    match (i64::try_from(a), i64::try_from(b)) {
        (Ok(x), Ok(y)) if y != 0 && !(x == i64::MIN && y == -1) => i128::from(x / y),
        _ => a / b,
    }
}

/// `GetResourceUtilizationRatio`: (ratio, utilization %, raw average).
fn utilization_ratio(s: &Sums, target: i32) -> Result<(f64, i32, i64), String> {
    if s.requests == 0 {
        return Err("no metrics returned matched known pods".into());
    }
    let total = s.usage_with_request;
    let util = quotient(total * 100, s.requests).clamp(i32::MIN as i128, i32::MAX as i128) as i32;
    let raw = quotient(total, s.with_request).clamp(i64::MIN as i128, i64::MAX as i128) as i64;
    Ok((util as f64 / target as f64, util, raw))
}

/// `GetMetricUsageRatio`: (ratio, average).
fn usage_ratio(s: &Sums, target: i64) -> (f64, i64) {
    let avg = quotient(s.usage, s.entries.max(1) as i128).clamp(i64::MIN as i128, i64::MAX as i128)
        as i64;
    (avg as f64 / target as f64, avg)
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

fn ceil_i32(x: f64) -> i32 {
    // Go converts with int32(math.Ceil(x)); Rust's `as` saturates, which matches for sane values.
    x.ceil() as i32
}

/// What kind of pod-average computation.
pub enum PodMetricKind<'a> {
    /// Resource or ContainerResource with `averageUtilization`.
    Utilization {
        resource: &'a str,
        container: Option<&'a str>,
        target: i32,
    },
    /// Resource or ContainerResource with `averageValue`.
    RawResource {
        resource: &'a str,
        container: Option<&'a str>,
        target: i64,
    },
    /// Pods metric (`averageValue`).
    Pods { metric: &'a str, target: i64 },
}

/// Resource, ContainerResource and Pods metrics: `GetResourceReplicas`, `GetRawResourceReplicas`
/// and `GetMetricReplicas` (through `calcPlainMetricReplicas`).
pub(super) fn pod_average(
    input: &Input,
    kind: PodMetricKind,
    data: &MetricData,
    current: i32,
    tol: &Tolerances,
    scratch: &mut Scratch,
    calc: &mut Option<Calculation>,
) -> CalcResult {
    let (resource, container, is_util, target) = match kind {
        PodMetricKind::Utilization {
            resource,
            container,
            target,
        } => (resource, container, true, target as i64),
        PodMetricKind::RawResource {
            resource,
            container,
            target,
        } => (resource, container, false, target),
        PodMetricKind::Pods { target, .. } => ("", None, false, target),
    };
    // Resolved once: each pod's lookup then compares a tag, not the name's text.
    let resource = Resource::new(resource);
    let full = input.detail.narrates();
    let frame = Frame::new(is_util, target, tol, current, full);
    let resource_metric = !matches!(kind, PodMetricKind::Pods { .. });
    if !full && resource_metric && container.is_none() {
        if let Some(p) = one_pass(input, &resource, &frame, calc) {
            return Ok(p);
        }
    }
    general(
        input,
        kind,
        data,
        (&resource, container),
        frame,
        (scratch, calc),
    )
}

/// The pod average for every input: the samples by name, `groupPods`, the count, and the
/// rebalance when pods are missing or unready on a scale-up.
fn general(
    input: &Input,
    kind: PodMetricKind,
    data: &MetricData,
    (resource, container): (&Resource, Option<&str>),
    mut frame: Frame,
    (scratch, calc): (&mut Scratch, &mut Option<Calculation>),
) -> CalcResult {
    let (is_util, target, full) = (frame.is_util, frame.target, frame.full);
    let buf = scratch.samples.take();
    let samples = match kind {
        PodMetricKind::Pods { metric, .. } => pods_metric_samples(metric, data, buf)?,
        _ => pod_resource_samples(input, resource, container, buf)?,
    };
    if input.pods.is_empty() {
        return Err(fail(
            "no pods returned by selector while calculating replica count",
        ));
    }
    // `groupPods` (the cpu readiness rules apply to the cpu resource only), then
    // `removeMetricsForPods` for the ignored and unready pods.
    let pods = &input.pods;
    let Scratch {
        samples: spare,
        sample_of,
        removed,
        sample_requests,
        pod_requests: per_pod,
    } = scratch;
    let mut g = group_pods(pods, &samples, *resource == Resource::CPU, input, sample_of);
    if full {
        frame.foreign_samples = foreign_samples(&g, &samples);
    }
    let mut counted = Counted::new(samples, removed, sample_requests, spare);
    for &p in g.ignored.iter().chain(g.unready.iter()) {
        counted.remove(g.sample_of[p]);
    }
    if counted.is_empty() {
        let e = "did not receive metrics for targeted pods (pods might be unready)";
        return Err(frame.failure(&g, e.into(), "no counted samples"));
    }
    let requests = if is_util {
        pod_requests(pods, resource, container, input, per_pod).map_err(|e| {
            let mut f = frame.failure(&g, e.to_string(), "a pod lacks the request");
            if let RequestError::Missing(m) = e {
                f.missing_request = Some(m);
            }
            f
        })?;
        counted.set_requests(&g, per_pod);
        Some(per_pod.as_slice())
    } else {
        None
    };
    let first = first_ratio(&counted.sums(), is_util, target)
        .map_err(|e| frame.failure(&g, e, "no sample matches a listed pod"))?;
    let scale_up_with_unready = !g.unready.is_empty() && first.ratio > 1.0;
    let plain = !scale_up_with_unready && g.missing.is_empty();
    // The rows and the rebalance look requests up by pod name (built once, only for them).
    let by_name = requests
        .filter(|_| full || !plain)
        .map(|r| requests_by_name(pods, r));
    if full {
        annotate_rows(&mut g, &counted, by_name.as_ref());
    }
    if plain {
        let rows = std::mem::take(&mut g.rows);
        return Ok(plain_proposal(&frame, g.counts(), rows, first, calc));
    }
    rebalance(input, &frame, (&g, &counted), by_name.as_ref(), first, calc)
}

/// The pod average of a brief decision in one pass over the pods, for the case nearly every
/// sync of `simulate` is in: each pod's name sorts after the one before (so no two pods share
/// a name), the PodMetrics come in the pods' order and each is taken by the pod of its name (no
/// sample of a pod the selector did not list), every pod has a request of the resource in its
/// containers, and no pod is missing nor counted unready on a scale-up. The count is then the
/// general path's: the samples of the Ready pods, each with its own pod's request, and the
/// same proposal (a test compares the two on random pods). None as soon as any condition
/// fails: the general path, which handles every input, decides.
fn one_pass(
    input: &Input,
    resource: &Resource,
    frame: &Frame,
    calc: &mut Option<Calculation>,
) -> Option<Proposal> {
    let usages = input.pod_metrics.as_ref().ok()?;
    let pods = &input.pods;
    if pods.is_empty() || usages.is_empty() {
        return None;
    }
    let rules = Rules::of(input, *resource == Resource::CPU);
    let pod_level_on = pod_level_on(input);
    let mut counts = GroupCounts::default();
    // In 64 bits (an overflow leaves the count to the general path, whose sums are 128-bit).
    let (mut usage, mut requests, mut entries) = (0i64, 0i64, 0usize);
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
        match (rules.classify(pod, sample.as_ref()).0, sample) {
            (PodGroup::Ready, Some(s)) => {
                counts.ready += 1;
                usage = usage.checked_add(s.value)?;
                requests = requests.checked_add(request.unwrap_or(0))?;
                entries += 1;
            }
            (PodGroup::Unready, _) => counts.unready += 1,
            (PodGroup::Ignored, _) => counts.ignored += 1,
            _ => return None,
        }
    }
    if next != usages.len() || entries == 0 {
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

/// A PodMetrics' usage of `resource`, summed over its containers (`getPodMetrics`); None when
/// it has no container, one lacks the resource, or the sum overflows.
fn usage_of(u: &PodUsage, resource: &Resource) -> Option<i64> {
    if u.containers.is_empty() {
        return None;
    }
    u.containers
        .iter()
        .try_fold(0i64, |sum, (_, usage)| sum.checked_add(usage.of(resource)?))
}

/// A pod's request of `resource` as [`pod_requests`] sums it for a metric of every container;
/// None when a container lacks it or the pod-level requests would decide.
fn containers_request(pod: &PodInfo, resource: &Resource, pod_level_on: bool) -> Option<i64> {
    if pod_level_on && sets_pod_level(pod) {
        return None;
    }
    containers_sum(pod, resource, None).ok().map(|(sum, _)| sum)
}

/// The samples of one metric as the calculator counts them: the samples by pod name (a
/// duplicate name keeps its last sample, as in the metrics client's map), which of them
/// `removeMetricsForPods` took out (the ignored and unready pods'), and the request of each
/// one's pod (utilization metrics; none for a pod the selector did not list).
struct Counted<'a, 's> {
    samples: NameMap<'a, Sample>,
    /// Per sample (name order): taken out of the count.
    removed: &'s mut Vec<bool>,
    /// Per sample (name order): its pod's request (empty for a plain metric).
    requests: &'s mut Vec<Option<i64>>,
    left: usize,
    /// Where the samples' buffer goes back when the count is done.
    spare: &'s mut Spare<Sample>,
}

impl Drop for Counted<'_, '_> {
    fn drop(&mut self) {
        self.spare.keep(std::mem::take(&mut self.samples));
    }
}

impl<'a, 's> Counted<'a, 's> {
    fn new(
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

    fn remove(&mut self, sample: Option<usize>) {
        if let Some(i) = sample {
            if !std::mem::replace(&mut self.removed[i], true) {
                self.left -= 1;
            }
        }
    }

    fn is_empty(&self) -> bool {
        self.left == 0
    }

    /// Each sample's request: that of the last pod with its name (`calculatePodRequests`
    /// keeps the last of equal names too).
    fn set_requests(&mut self, g: &Grouping, per_pod: &[i64]) {
        self.requests.clear();
        self.requests.resize(self.samples.len(), None);
        for (sample, request) in g.sample_of.iter().zip(per_pod) {
            if let Some(i) = sample {
                self.requests[*i] = Some(*request);
            }
        }
    }

    /// The samples that count (with their requests, for a utilization metric).
    fn sums(&self) -> Sums {
        let mut s = Sums::default();
        for (i, v) in self.samples.values().enumerate() {
            if !self.removed[i] {
                s.add(v.value, self.requests.get(i).copied().flatten());
            }
        }
        s
    }

    fn counts(&self, sample: Option<usize>) -> bool {
        sample.is_some_and(|i| !self.removed[i])
    }
}

/// `GetRawMetric`'s resource counterpart: the PodMetrics' samples of one resource.
fn pod_resource_samples<'a>(
    input: &'a Input,
    resource: &Resource,
    container: Option<&str>,
    buf: Vec<(&'a str, Sample)>,
) -> Result<NameMap<'a, Sample>, Failure> {
    let failed = |e: &str| {
        fail(format!(
            "unable to get metrics for resource {resource}: {e}"
        ))
    };
    let usages = input.pod_metrics.as_ref().map_err(|e| failed(e))?;
    if usages.is_empty() {
        return Err(failed("no metrics returned from resource metrics API"));
    }
    let (version, ns) = (input.settings.version(), &input.hpa.namespace);
    resource_samples(usages, resource, container, version, ns, buf).map_err(|e| failed(&e))
}

/// Samples of pods the selector did not list.
fn foreign_samples(g: &Grouping, samples: &NameMap<'_, Sample>) -> usize {
    let mut listed = vec![false; samples.len()];
    for i in g.sample_of.iter().flatten() {
        listed[*i] = true;
    }
    listed.iter().filter(|l| !**l).count()
}

/// What every pod-average [`Calculation`] of one metric shares.
struct Frame<'t> {
    mode: &'static str,
    is_util: bool,
    target: i64,
    tol: &'t Tolerances,
    current: i32,
    foreign_samples: usize,
    full: bool,
}

impl<'t> Frame<'t> {
    /// The frame of a utilization (`is_util`) or average-value pod average; the foreign samples
    /// are counted later, for the full explanation.
    fn new(is_util: bool, target: i64, tol: &'t Tolerances, current: i32, full: bool) -> Self {
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

/// The first ratio, from the counted samples.
#[derive(Clone, Copy)]
struct FirstRatio {
    ratio: f64,
    /// Utilization % (utilization metrics) or average (plain metrics).
    value: i64,
    /// The raw average (utilization metrics).
    raw: Option<i64>,
}

/// How a pod average ended.
struct Outcome {
    replicas: i32,
    rule: String,
    rebalance: Option<Rebalance>,
    within_tolerance: bool,
}

impl Frame<'_> {
    fn calculation(
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
    fn failure(&self, g: &Grouping, error: String, rule: &str) -> Failure {
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

    fn proposal(
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

/// `GetResourceUtilizationRatio` or `GetMetricUsageRatio` over the counted samples.
fn first_ratio(sums: &Sums, is_util: bool, target: i64) -> Result<FirstRatio, String> {
    Ok(if is_util {
        let (ratio, util, raw) = utilization_ratio(sums, target as i32)?;
        FirstRatio {
            ratio,
            value: util as i64,
            raw: Some(raw),
        }
    } else {
        let (ratio, avg) = usage_ratio(sums, target);
        FirstRatio {
            ratio,
            value: avg,
            raw: None,
        }
    })
}

/// Each listed pod's request under its name: the last pod of equal names wins, as in
/// `calculatePodRequests`' map (for the pods without a sample, which the samples do not lead to).
fn requests_by_name<'a>(pods: &'a [PodInfo], per_pod: &[i64]) -> NameMap<'a, i64> {
    NameMap::from_entries(
        pods.iter()
            .map(|p| p.name.as_str())
            .zip(per_pod.iter().copied())
            .collect(),
    )
}

/// Marks the counted pods and fills in requests and utilization.
fn annotate_rows(g: &mut Grouping, counted: &Counted, requests: Option<&NameMap<'_, i64>>) {
    for (row, sample) in g.rows.iter_mut().zip(g.sample_of.iter()) {
        row.counted = counted.counts(*sample);
        if let Some(req) = requests {
            row.request_milli = req.get(row.pod.as_str()).copied();
            if let (Some(u), Some(r)) = (row.usage_milli, row.request_milli) {
                if r > 0 {
                    row.utilization = Some(((u as i128) * 100 / r as i128) as i64);
                }
            }
        }
    }
}

/// No unready pod on a scale-up and no missing pod: the current count inside the tolerance
/// band, else `ceil(ratio × ready pods)`.
fn plain_proposal(
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

/// The value assumed for a missing pod: on a scale-down its request × max(100 %, target)
/// (the request itself before 1.26) or the target; 0 on a scale-up; none at ratio 1 (from
/// 1.28 for plain metrics, which filled 0 before).
fn missing_fill(
    frame: &Frame,
    ratio: f64,
    requests: Option<&NameMap<'_, i64>>,
    pod: &str,
    version: KubeVersion,
) -> Option<i64> {
    let target = frame.target;
    if ratio < 1.0 {
        Some(match requests {
            Some(req) => {
                let r = req.get(pod).copied().unwrap_or(0);
                if version.at_least(26) {
                    ((r as i128) * (target.max(100) as i128) / 100) as i64
                } else {
                    r
                }
            }
            None => target,
        })
    } else if ratio > 1.0 || (!frame.is_util && !version.at_least(28)) {
        Some(0)
    } else {
        None
    }
}

/// Missing pods, and unready pods on a scale-up, get assumed values; the ratio is recomputed
/// and the proposal kept at the current count when it is within tolerance or the direction
/// changes.
fn rebalance(
    input: &Input,
    frame: &Frame,
    (g, counted): (&Grouping, &Counted),
    requests: Option<&NameMap<'_, i64>>,
    first: FirstRatio,
    calc: &mut Option<Calculation>,
) -> CalcResult {
    let version = input.settings.version();
    let pods = &input.pods;
    let ratio = first.ratio;
    let scale_up_with_unready = !g.unready.is_empty() && ratio > 1.0;
    let mut rows = g.rows.clone();
    // The assumed values, inserted into the samples by name (a later one of equal names wins).
    let mut assumed: Vec<(&str, i64)> = Vec::new();
    let mut missing_fill_milli = None;
    for &p in &g.missing {
        let name = pods[p].name.as_str();
        if let Some(v) = missing_fill(frame, ratio, requests, name, version) {
            assumed.push((name, v));
            missing_fill_milli = Some(v);
            if let Some(row) = rows.iter_mut().find(|r| r.pod == name) {
                row.assumed_milli = Some(v);
            }
        }
    }
    let mut unready_fill = None;
    if scale_up_with_unready {
        for &p in &g.unready {
            let name = pods[p].name.as_str();
            assumed.push((name, 0));
            if let Some(row) = rows.iter_mut().find(|r| r.pod == name) {
                row.assumed_milli = Some(0);
            }
        }
        unready_fill = Some(0);
    }
    // The counted samples and the assumed ones are different pods: a missing pod has no sample
    // and an unready pod's was removed.
    let mut sums = counted.sums();
    for (name, v) in NameMap::from_entries(assumed).iter() {
        sums.add(*v, requests.and_then(|r| r.get(name).copied()));
    }
    let (new_ratio, new_value) = if frame.is_util {
        utilization_ratio(&sums, frame.target as i32)
            .map(|(r, u, _)| (r, u as i64))
            .map_err(|e| frame.failure(g, e, "re-computation failed"))?
    } else {
        usage_ratio(&sums, frame.target)
    };
    let rebalance = Rebalance {
        missing_fill_milli,
        missing_pods: g.missing.len(),
        unready_fill_milli: unready_fill,
        unready_pods: if scale_up_with_unready {
            g.unready.len()
        } else {
            0
        },
        new_ratio,
        new_value,
        entries: sums.entries,
    };
    let o = rebalanced_outcome(frame, ratio, rebalance);
    Ok(frame.proposal(g.counts(), first, rows, o, calc))
}

/// The proposal after the rebalance: keep the current count within tolerance or when the
/// direction would change, else `ceil(new ratio × entries)`.
fn rebalanced_outcome(frame: &Frame, ratio: f64, rebalance: Rebalance) -> Outcome {
    let (current, full) = (frame.current, frame.full);
    let (new_ratio, entries) = (rebalance.new_ratio, rebalance.entries);
    let keep = |rule: String, within_tolerance: bool, rebalance: Rebalance| Outcome {
        replicas: current,
        rule,
        rebalance: Some(rebalance),
        within_tolerance,
    };
    if frame.tol.is_within(new_ratio) {
        let rule = rule!(full, "after assuming values for missing/unready pods the ratio {new_ratio:.4} is within tolerance: keep {current}");
        return keep(rule, true, rebalance);
    }
    if (ratio < 1.0 && new_ratio > 1.0) || (ratio > 1.0 && new_ratio < 1.0) {
        let rule = rule!(full, "assuming values for missing/unready pods reverses the direction (ratio {ratio:.4} → {new_ratio:.4}): keep {current}");
        return keep(rule, false, rebalance);
    }
    let n = ceil_i32(new_ratio * entries as f64);
    if (new_ratio < 1.0 && n > current) || (new_ratio > 1.0 && n < current) {
        let rule = rule!(full, "ceil({new_ratio:.4} × {entries}) = {n} would move against the direction of the ratio: keep {current}");
        return keep(rule, false, rebalance);
    }
    Outcome {
        replicas: n,
        rule: rule!(
            full,
            "ceil(new ratio {new_ratio:.4} × {entries} pods incl. assumed) = {n}"
        ),
        rebalance: Some(rebalance),
        within_tolerance: false,
    }
}

/// `GetRawMetric`: the custom metrics API's per-pod values.
fn pods_metric_samples<'a>(
    metric: &str,
    data: &'a MetricData,
    mut out: Vec<(&'a str, Sample)>,
) -> Result<NameMap<'a, Sample>, Failure> {
    let no_metrics = || {
        fail(format!(
            "unable to get metric {metric}: no metrics returned from custom metrics API"
        ))
    };
    let items = match data {
        MetricData::Pods(Ok(items)) => items,
        MetricData::Pods(Err(e)) => {
            return Err(fail(format!("unable to get metric {metric}: {e}")))
        }
        _ => return Err(no_metrics()),
    };
    if items.is_empty() {
        return Err(no_metrics());
    }
    out.extend(items.iter().map(|m: &MetricSample| {
        (
            m.name.as_str(),
            Sample {
                value: m.value,
                timestamp: m.timestamp,
                window: m.window,
            },
        )
    }));
    Ok(NameMap::from_entries(out))
}

/// `getReadyPodsCount`: Running pods with Ready=True.
fn ready_pods_count(input: &Input) -> Result<i64, String> {
    if input.pods.is_empty() {
        return Err("no pods returned by selector while calculating replica count".into());
    }
    Ok(input
        .pods
        .iter()
        .filter(|p| p.phase == "Running" && p.ready.as_ref().is_some_and(|r| r.status == "True"))
        .count() as i64)
}

/// `getUsageRatioReplicaCount`: Object and External metrics with a `Value` target.
pub fn value_target(
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
        let ready =
            ready_pods_count(input).map_err(|e| format!("unable to calculate ready pods: {e}"))?;
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

/// `GetObjectPerPodMetricReplicas` / `GetExternalPerPodMetricReplicas`.
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::tests::fixtures::{ago, InputBuilder};
    use crate::core::{Detail, ReadyCondition, Resources, Settings};

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

    #[test]
    fn the_one_pass_count_is_the_general_one_whenever_it_answers() {
        let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
        let tol = Tolerances {
            down: 0.1,
            up: 0.1,
            legacy_abs: false,
            source: "test",
        };
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
                let general = general(
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
