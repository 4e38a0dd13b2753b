//! The world around the controller: pods that start, become Ready and share the load, and the
//! metrics pipeline that reports it late. Pure code: it only fills the core's [`Input`].
//!
//! Model (every part is documented in the output's assumptions):
//! * a new pod is Running from its creation, `Ready=False` until `podStartup` has passed, then
//!   `Ready=True` (its condition's `lastTransitionTime` is the moment it turned Ready);
//! * a pod has metric samples once it has run for one metrics window; a sample taken at `now`
//!   describes the load of `now - metricsLag` and carries that timestamp and the window;
//! * a *demand* is shared equally by the pods that were Ready at the sample's time (pods that
//!   are not Ready serve nothing); a *per-pod* value is reported by every pod with a sample; a
//!   starting pod adds `startupCpu` to its CPU for `startupBurst` after its creation;
//! * a pod's resource usage is split across its containers in proportion to their requests;
//! * on a scale-down the ReplicaSet removes not-Ready pods first, then the newest; removed
//!   pods disappear at once (no terminating phase).

use std::collections::BTreeMap;

use jiff::{SignedDuration, Timestamp};

pub use super::binding::{bind, metric_load_name, Binding, Load, LoadKind};
use super::lives::{PodLife, PodsAt};
use super::sole::{write_sole_usages, Shares};
use crate::core::clock;
use crate::core::{
    ContainerRequests, Input, MetricData, MetricSample, MetricSpec, PodInfo, PodUsage,
    ReadyCondition, Resource, Resources,
};

/// The world's parameters.
#[derive(Debug, Clone, PartialEq)]
pub struct WorldParams {
    /// From creation to `Ready=True`.
    pub pod_startup: SignedDuration,
    /// Extra CPU (milli-cores) a starting pod burns.
    pub startup_cpu_milli: i64,
    /// How long the burst lasts after creation.
    pub startup_burst: SignedDuration,
    /// Age of the load a sample describes.
    pub metrics_lag: SignedDuration,
    /// The samples' window (also how long a pod runs before it has samples).
    pub metrics_window: SignedDuration,
}

impl Default for WorldParams {
    fn default() -> Self {
        WorldParams {
            pod_startup: SignedDuration::from_secs(30),
            startup_cpu_milli: 0,
            startup_burst: SignedDuration::from_secs(30),
            metrics_lag: SignedDuration::from_secs(15),
            metrics_window: SignedDuration::from_secs(15),
        }
    }
}

/// Each load's values at the last two instants asked for. A sync asks for the values now (the
/// truth) and at the sample's time; with a metrics lag of one sync period the sample's time is
/// the last sync's, so each signal is computed once per sync rather than twice.
#[derive(Debug, Clone, Default)]
struct Memo {
    /// Per load: (t, value), the latest first; NaN times match nothing.
    slots: Vec<[(f64, f64); 2]>,
}

impl Memo {
    fn value(&mut self, loads: &[Load], i: usize, t: f64) -> f64 {
        if self.slots.len() != loads.len() {
            self.slots = vec![[(f64::NAN, 0.0); 2]; loads.len()];
        }
        let slot = &mut self.slots[i];
        if let Some(&(_, v)) = slot.iter().find(|(at, _)| *at == t) {
            return v;
        }
        let v = loads[i].signal.value_at(t);
        slot[1] = slot[0];
        slot[0] = (t, v);
        v
    }
}

/// A pod removed by a scale-down, kept while a lagged sample may still describe a time it
/// served in.
#[derive(Debug, Clone, Copy, PartialEq)]
struct GonePod {
    ready_at: Timestamp,
    removed: Timestamp,
}

/// The ground truth at one instant (what users experience, not what the controller sees).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Truth {
    /// Pods that are Ready now.
    pub ready: usize,
    /// The fewest replicas that bring every demand metric within the tolerance band above its
    /// target (clamped to min/max): a controller holding its metrics inside the band is never
    /// short.
    pub needed: Option<i32>,
    /// Some metric is above its target by more than the scale-up tolerance.
    pub over_target: bool,
    /// Some resource metric's pods use more than 100 % of their request.
    pub saturated: bool,
}

/// The pods and their lives. The [`PodInfo`]s themselves live in `Input::pods` (same order),
/// so nothing is copied per tick.
#[derive(Debug, Clone)]
pub struct World {
    pub params: WorldParams,
    lives: Vec<PodLife>,
    /// New pods are copies of this one (containers and requests).
    template: PodInfo,
    name_prefix: String,
    next_id: u64,
    /// Each load's last values (see [`Memo`]).
    memo: Memo,
    /// Per resource with a load: each template container's share of the pod's usage.
    splits: BTreeMap<Resource, Vec<f64>>,
    /// Pods removed less than one metrics lag ago: they still served the load a lagged
    /// sample describes.
    gone: Vec<GonePod>,
    /// Scratch: per pod, its share of a Pods metric's demand at the sample time.
    shares: Vec<i64>,
    /// Per pod at the last sample time: Ready then, and with a sample.
    at_tau: PodsAt,
    /// Per pod at the last truth's instant: Ready then.
    at_now: PodsAt,
    /// Per pod, whether `input.pods` shows it Ready (`Some` once [`World::update_pods`] has
    /// written every pod; kept in step by [`World::scale_to`]): only a change is written.
    shown_ready: Option<Vec<bool>>,
    /// The earliest time a pod not shown Ready turns Ready (None: none will): until then
    /// [`World::update_pods`] has nothing to write. Never later than that time.
    next_shown: Option<Timestamp>,
    /// Bumped whenever a pod is added or removed.
    generation: u64,
    /// The (generation, sampled pods) for which `input.pod_metrics` holds one entry per sampled
    /// pod with its name and containers: the same layout is not compared again.
    usage_layout: Option<(u64, usize)>,
    /// The usage layout and resource for which every PodMetrics entry is one pod's (all
    /// sampled) and holds one container with that resource alone (see [`write_sole_usages`]).
    sole_layout: Option<((u64, usize), Resource)>,
    /// The generation of what the core reads of the pods (`input.pods` and the names and
    /// containers of `input.pod_metrics`), from [`next_pods_generation`]: changed whenever
    /// any of it changes (see `Evaluator::set_pods_generation`).
    pods_generation: u64,
}

/// A generation no world has used in this process: two worlds never share one, so an
/// evaluator that met another world's pods cannot take them for its own.
fn next_pods_generation() -> u64 {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}

fn ready_condition(status: &str, t: Timestamp) -> ReadyCondition {
    ReadyCondition {
        status: status.to_string(),
        last_transition_time: t,
    }
}

impl World {
    /// A world whose pods are `pods` (already in `input.pods` order). `lives` are derived from
    /// the pods' start times and Ready conditions (pods without a start time started an hour
    /// before `now`; not-Ready pods become Ready `podStartup` after their start).
    pub fn new(
        params: WorldParams,
        pods: &[PodInfo],
        template: PodInfo,
        name_prefix: &str,
        now: Timestamp,
    ) -> World {
        let long_ago = now - SignedDuration::from_hours(1);
        let lives = pods
            .iter()
            .map(|p| {
                let created = p.start_time.unwrap_or(long_ago);
                let ready_at = match &p.ready {
                    Some(r) if r.status == "True" => r.last_transition_time.max(created),
                    _ => (created + params.pod_startup).max(now),
                };
                PodLife { created, ready_at }
            })
            .collect();
        World {
            params,
            lives,
            template,
            name_prefix: name_prefix.to_string(),
            next_id: 1,
            splits: BTreeMap::new(),
            memo: Memo::default(),
            gone: Vec::new(),
            shares: Vec::new(),
            at_tau: PodsAt::default(),
            at_now: PodsAt::default(),
            shown_ready: None,
            next_shown: None,
            generation: 0,
            usage_layout: None,
            sole_layout: None,
            pods_generation: next_pods_generation(),
        }
    }

    /// A new, Ready, long-running pod for the initial replicas of a manifest run.
    pub fn initial_pods(&mut self, n: i32, now: Timestamp) -> Vec<PodInfo> {
        let created = now - SignedDuration::from_hours(1);
        // The next update writes every pod again.
        self.shown_ready = None;
        self.generation += 1;
        self.pods_generation = next_pods_generation();
        (0..n.max(0))
            .map(|_| {
                let p = self.new_pod(created);
                self.lives.push(PodLife {
                    created,
                    ready_at: created + self.params.pod_startup,
                });
                p
            })
            .collect()
    }

    fn new_pod(&mut self, created: Timestamp) -> PodInfo {
        let mut p = self.template.clone();
        p.name = format!("{}-{:05}", self.name_prefix, self.next_id);
        self.next_id += 1;
        p.phase = "Running".into();
        p.deleting = false;
        p.start_time = Some(created);
        p.ready = Some(ready_condition("False", created));
        p
    }

    /// Prepare the per-container split of each resource that has a load.
    pub fn prepare(&mut self, bindings: &[Binding]) {
        for b in bindings {
            if let Binding::Resource { resource, .. } = b {
                let reqs: Vec<f64> = self
                    .template
                    .containers
                    .iter()
                    .map(|c| c.requests.get(resource).unwrap_or(0) as f64)
                    .collect();
                let total: f64 = reqs.iter().sum();
                let split = if total > 0.0 {
                    reqs.iter().map(|r| r / total).collect()
                } else {
                    let mut v = vec![0.0; reqs.len().max(1)];
                    v[0] = 1.0;
                    v
                };
                self.splits.insert(Resource::new(resource), split);
            }
        }
    }

    /// The containers (with requests) of the pods this world creates.
    pub fn template_containers(&self) -> &[ContainerRequests] {
        &self.template.containers
    }

    /// The value of `loads[i]` at `t` seconds (remembered: see [`Memo`]).
    pub fn load_value(&mut self, loads: &[Load], i: usize, t: f64) -> f64 {
        self.memo.value(loads, i, t)
    }

    /// The generation of the pods and their PodMetrics' layout as the last [`World::fill`]
    /// and [`World::scale_to`] left them: the same number, the same pods (only the usages and
    /// the samples' times moved). For `Evaluator::set_pods_generation`.
    pub fn pods_generation(&self) -> u64 {
        self.pods_generation
    }

    /// Pods that exist.
    pub fn pod_count(&self) -> usize {
        self.lives.len()
    }

    /// The removed pods that were Ready at `t` (in the past): with the pods Ready then, they
    /// served the load a sample of time `t` describes.
    fn gone_served_at(&self, t: Timestamp) -> usize {
        self.gone
            .iter()
            .filter(|g| g.ready_at <= t && t < g.removed)
            .count()
    }

    /// Update the pods' phase and Ready condition for `now` (in place; allocates only when a
    /// pod turns Ready). After the first call only the pods turning Ready are written.
    pub fn update_pods(&mut self, pods: &mut [PodInfo], now: Timestamp) {
        if let Some(shown) = &mut self.shown_ready {
            if self.next_shown.is_none_or(|t| now < t) {
                return;
            }
            let mut next: Option<Timestamp> = None;
            for ((p, life), shown) in pods.iter_mut().zip(&self.lives).zip(shown.iter_mut()) {
                if *shown {
                    continue;
                }
                if life.ready_at <= now {
                    p.ready = Some(ready_condition("True", life.ready_at));
                    *shown = true;
                    self.pods_generation = next_pods_generation();
                } else {
                    next = Some(next.map_or(life.ready_at, |t| t.min(life.ready_at)));
                }
            }
            self.next_shown = next;
            return;
        }
        for (p, life) in pods.iter_mut().zip(&self.lives) {
            let ready = life.ready_at <= now;
            let is_ready = p.ready.as_ref().is_some_and(|r| r.status == "True");
            if ready && !is_ready {
                p.ready = Some(ready_condition("True", life.ready_at));
            } else if !ready && p.ready.is_none() {
                p.ready = Some(ready_condition("False", life.created));
            }
            if p.phase != "Running" {
                p.phase = "Running".into();
            }
            p.start_time = Some(life.created);
        }
        let shown: Vec<bool> = pods
            .iter()
            .map(|p| p.ready.as_ref().is_some_and(|r| r.status == "True"))
            .collect();
        self.next_shown = shown
            .iter()
            .zip(&self.lives)
            .filter(|(shown, _)| !**shown)
            .map(|(_, l)| l.ready_at)
            .min();
        self.shown_ready = Some(shown);
        self.pods_generation = next_pods_generation();
    }

    /// Fill `input.pods`' conditions, `input.pod_metrics` and `input.metric_data` for `now`,
    /// `t0` being the start of the simulation (signal time 0). Reuses the buffers of the last
    /// sync: nothing is allocated while the pods stay the same.
    pub fn fill(
        &mut self,
        input: &mut Input,
        loads: &[Load],
        bindings: &[Binding],
        t0: Timestamp,
        now: Timestamp,
    ) {
        self.update_pods(&mut input.pods, now);
        let tau = clock::sub_or_min(now, self.params.metrics_lag);
        // Pods removed before the sample's time no longer matter.
        self.gone.retain(|g| g.removed > tau);
        // Which pods were Ready at tau, and which have a sample (kept between the instants
        // any of it changes).
        let window = self.params.metrics_window;
        self.at_tau.at(&self.lives, self.generation, tau, window);
        let at = SampleTime {
            tau,
            t: tau.duration_since(t0).as_secs_f64(),
            window,
            sampled: self.at_tau.sampled_count,
            // The demand of time tau was served by the pods Ready then, removed ones included.
            served: self.at_tau.ready_count + self.gone_served_at(tau),
        };
        self.fill_resource_metrics(input, loads, bindings, &at);
        self.fill_custom_metrics(input, loads, bindings, &at);
    }

    /// Per pod, the value of load `li` at the sample time (milli), into `self.shares`.
    fn compute_shares(&mut self, loads: &[Load], li: usize, at: &SampleTime) {
        let mut share = self.share_of(loads, li, at);
        self.shares.clear();
        self.shares
            .extend(self.at_tau.ready.iter().map(|&ready| share.next(ready)));
    }

    /// The shares of load `li` at the sample time, pod after pod.
    fn share_of(&mut self, loads: &[Load], li: usize, at: &SampleTime) -> Shares {
        let v = (self.memo.value(loads, li, at.t) * 1000.0).round() as i64;
        match loads[li].kind {
            LoadKind::Demand => {
                let n = at.served as i64;
                let (q, r) = if n > 0 { (v / n, v % n) } else { (0, 0) };
                Shares::Demand { q, r }
            }
            _ => Shares::Each(v),
        }
    }

    /// Resource metrics: one PodUsage per sampled pod, each container's share of every
    /// resource that has a load.
    fn fill_resource_metrics(
        &mut self,
        input: &mut Input,
        loads: &[Load],
        bindings: &[Binding],
        at: &SampleTime,
    ) {
        let mut usages =
            std::mem::replace(&mut input.pod_metrics, Ok(Vec::new())).unwrap_or_default();
        let sampled_count = at.sampled;
        usages.truncate(sampled_count);
        let resources = bindings.iter().filter_map(|b| match b {
            Binding::Resource { resource, load, .. } => Some((resource.as_str(), *load)),
            _ => None,
        });
        let mut aligned = false;
        let single = resources.clone().nth(1).is_none();
        for (i, (resource, li)) in resources.clone().enumerate() {
            // A resource bound twice (Resource and ContainerResource) is filled once.
            if resources.clone().take(i).any(|(r, _)| r == resource) {
                continue;
            }
            if !aligned {
                let layout = (self.generation, sampled_count);
                if self.usage_layout != Some(layout) || usages.len() != sampled_count {
                    self.align_usages(&input.pods, &mut usages, at);
                    self.usage_layout = Some(layout);
                    self.sole_layout = None;
                    self.pods_generation = next_pods_generation();
                }
                aligned = true;
            }
            let shares = self.share_of(loads, li, at);
            if single && self.sole_applies(resource, at) {
                let general = cfg!(debug_assertions).then(|| {
                    let mut general = usages.clone();
                    self.write_usage(&mut general, resource, shares.clone(), at);
                    general
                });
                let ready = &self.at_tau.ready;
                if write_sole_usages(&mut usages, ready, shares, (at.tau, at.window)) {
                    if let Some(general) = general {
                        assert_eq!(usages, general, "the sole usages and the general path's");
                    }
                    continue;
                }
                // Not what was established: the general path writes them all again.
                self.sole_layout = None;
                let shares = self.share_of(loads, li, at);
                self.write_usage(&mut usages, resource, shares, at);
                continue;
            }
            self.write_usage(&mut usages, resource, shares, at);
            if single {
                self.note_sole(&usages, resource, at);
            }
        }
        input.pod_metrics = Ok(usages);
    }

    /// Whether [`write_sole_usages`] writes `resource`'s usages at `at` as the general path
    /// would: every pod sampled, the layout the one established by [`World::note_sole`], and no
    /// pod inside its cpu start-up burst.
    fn sole_applies(&self, resource: &str, at: &SampleTime) -> bool {
        let Some((layout, key)) = &self.sole_layout else {
            return false;
        };
        let burst = *key == Resource::CPU
            && self.params.startup_cpu_milli != 0
            && self
                .lives
                .iter()
                .any(|l| at.tau < clock::saturating_add(l.created, self.params.startup_burst));
        at.sampled == self.lives.len()
            && self.usage_layout == Some(*layout)
            && key.as_str() == resource
            && !burst
    }

    /// After the general path wrote `resource`'s usages: whether each pod has one, holding one
    /// container with `resource` alone (then [`World::sole_applies`] may hold from the next
    /// sync on).
    fn note_sole(&mut self, usages: &[PodUsage], resource: &str, at: &SampleTime) {
        if self.sole_layout.is_some() || at.sampled != self.lives.len() {
            return;
        }
        let key = Resource::new(resource);
        let sole = usages.len() == self.lives.len()
            && usages.iter().all(|u| match &u.containers[..] {
                [(_, r)] => r.len() == 1 && r.of(&key).is_some(),
                _ => false,
            });
        if sole {
            self.sole_layout = self.usage_layout.map(|l| (l, key));
        }
    }

    /// One PodUsage per sampled pod, in pod order, with the pod's containers (kept from the
    /// last sync when they are the same).
    fn align_usages(&self, pods: &[PodInfo], usages: &mut Vec<PodUsage>, at: &SampleTime) {
        let mut k = 0;
        for (p, &sampled) in pods.iter().zip(&self.at_tau.sampled) {
            if !sampled {
                continue;
            }
            if k == usages.len() {
                usages.push(PodUsage {
                    pod: String::new(),
                    timestamp: at.tau,
                    window: at.window,
                    containers: Vec::new(),
                });
            }
            let u = &mut usages[k];
            k += 1;
            if u.pod != p.name {
                u.pod.clone_from(&p.name);
            }
            if u.containers.len() != p.containers.len()
                || u.containers
                    .iter()
                    .zip(&p.containers)
                    .any(|(a, b)| a.0 != b.name)
            {
                u.containers = p
                    .containers
                    .iter()
                    .map(|c| (c.name.clone(), Resources::new()))
                    .collect();
            }
        }
    }

    /// Each sampled pod's share of `resource` (plus the start-up burst for cpu), split across
    /// its containers in proportion to their requests.
    fn write_usage(
        &self,
        usages: &mut [PodUsage],
        resource: &str,
        mut shares: Shares,
        at: &SampleTime,
    ) {
        // `prepare` split every resource with a load; one without goes to the first container.
        let unsplit;
        let (key, split) = match self.splits.get_key_value(resource) {
            Some((key, split)) => (key, split.as_slice()),
            None => {
                unsplit = Resource::new(resource);
                (&unsplit, &[1.0][..])
            }
        };
        let burst = *key == Resource::CPU && self.params.startup_cpu_milli != 0;
        let mut next_usage = usages.iter_mut();
        let flags = self.at_tau.ready.iter().zip(&self.at_tau.sampled);
        for (l, (&ready, &sampled)) in self.lives.iter().zip(flags) {
            // Every pod takes its share in order (the remainder goes to the first Ready ones).
            let mut total = shares.next(ready);
            if !sampled {
                continue;
            }
            if burst && at.tau < clock::saturating_add(l.created, self.params.startup_burst) {
                total += self.params.startup_cpu_milli;
            }
            // One PodUsage per sampled pod, in order (`align_usages`).
            let Some(u) = next_usage.next() else { break };
            u.timestamp = at.tau;
            u.window = at.window;
            // perf: benches/simulate. One container takes the whole usage (the last container
            // takes what the others leave): no split computed.
            if let [(_, map)] = &mut u.containers[..] {
                match map.of_mut(key) {
                    Some(x) => *x = total,
                    None => map.insert(key.clone(), total),
                }
                continue;
            }
            let mut left = total;
            let last = u.containers.len().saturating_sub(1);
            for (ci, (_, map)) in u.containers.iter_mut().enumerate() {
                let v = if ci == last {
                    left
                } else {
                    let v = (total as f64 * split.get(ci).copied().unwrap_or(0.0)).floor() as i64;
                    left -= v;
                    v
                };
                match map.of_mut(key) {
                    Some(x) => *x = v,
                    None => map.insert(key.clone(), v),
                }
            }
        }
    }

    /// Custom and external metrics: the Pods metrics' per-pod samples, the Object and External
    /// metrics' values.
    fn fill_custom_metrics(
        &mut self,
        input: &mut Input,
        loads: &[Load],
        bindings: &[Binding],
        at: &SampleTime,
    ) {
        for (mi, b) in bindings.iter().enumerate() {
            let Some(slot) = input.metric_data.get_mut(mi) else {
                continue;
            };
            match b {
                Binding::Pods { load, .. } => {
                    self.compute_shares(loads, *load, at);
                    self.write_pods_metric(&input.pods, slot, at);
                }
                Binding::Object { load, .. } | Binding::External { load, .. } => {
                    let value = (self.memo.value(loads, *load, at.t) * 1000.0).round() as i64;
                    let name = match &input.hpa.metrics[mi] {
                        MetricSpec::Object { object, .. } => object,
                        MetricSpec::External { metric, .. } => metric,
                        _ => continue,
                    };
                    write_value_metric(slot, b, name, value, at);
                }
                _ => {}
            }
        }
    }

    /// A Pods metric: one sample per sampled pod, from `self.shares`.
    fn write_pods_metric(&self, pods: &[PodInfo], slot: &mut MetricData, at: &SampleTime) {
        let mut items = match std::mem::take(slot) {
            MetricData::Pods(Ok(v)) => v,
            _ => Vec::new(),
        };
        items.truncate(at.sampled);
        let mut k = 0;
        for (i, (p, &sampled)) in pods.iter().zip(&self.at_tau.sampled).enumerate() {
            if !sampled {
                continue;
            }
            if k == items.len() {
                items.push(MetricSample {
                    name: String::new(),
                    value: 0,
                    timestamp: at.tau,
                    window: at.window,
                });
            }
            let s = &mut items[k];
            k += 1;
            if s.name != p.name {
                s.name.clone_from(&p.name);
            }
            s.value = self.shares[i];
            s.timestamp = at.tau;
            s.window = at.window;
        }
        *slot = MetricData::Pods(Ok(items));
    }

    /// [`World::truth_of`] at signal time `now - t0`, the loads' values computed here (the
    /// engine computes them once per sync for its record too).
    #[cfg(test)]
    #[allow(clippy::too_many_arguments)]
    pub fn truth(
        &mut self,
        loads: &[Load],
        bindings: &[Binding],
        t0: Timestamp,
        now: Timestamp,
        min: i32,
        max: i32,
        up_tolerance: f64,
    ) -> Truth {
        let t = now.duration_since(t0).as_secs_f64();
        let values: Vec<f64> = loads.iter().map(|l| l.signal.value_at(t)).collect();
        self.truth_of(loads, &values, bindings, now, (min, max), up_tolerance)
    }

    /// The truth at `now`: Ready pods, the replicas needed, and whether a metric is over its
    /// target or a resource saturated; each load's value now is given (`values`, in the order
    /// of `loads`). `up_tolerance` is the scale-up tolerance: a metric within it of its target
    /// is on target, as for the controller.
    pub fn truth_of(
        &mut self,
        loads: &[Load],
        values: &[f64],
        bindings: &[Binding],
        now: Timestamp,
        (min, max): (i32, i32),
        up_tolerance: f64,
    ) -> Truth {
        let band = 1.0 + up_tolerance.max(0.0);
        // ceil, forgiving the floating-point noise of an exact quotient.
        let ceil = |x: f64| (x - 1e-9).ceil();
        // Pods Ready now (kept between the instants a pod turns Ready).
        let window = self.params.metrics_window;
        self.at_now.at(&self.lives, self.generation, now, window);
        let ready = self.at_now.ready_count;
        let mut truth = Truth {
            ready,
            ..Default::default()
        };
        let mut needed: Option<f64> = None;
        let mut need = |n: f64| needed = Some(needed.map_or(n, |x: f64| x.max(n)));
        for b in bindings {
            let Some(li) = b.load() else { continue };
            let l = &loads[li];
            let v = values[li] * 1000.0;
            // The per-pod value a Ready pod sees now (milli).
            let per_pod = match l.kind {
                LoadKind::Demand if ready == 0 => {
                    if v > 0.0 {
                        f64::INFINITY
                    } else {
                        0.0
                    }
                }
                LoadKind::Demand => v / ready as f64,
                _ => v,
            };
            match b {
                Binding::Resource {
                    target,
                    request_milli,
                    ..
                } => {
                    let target_milli = match (
                        target.average_value,
                        target.average_utilization,
                        request_milli,
                    ) {
                        (Some(av), _, _) => Some(av as f64),
                        (None, Some(u), Some(r)) => Some(*r as f64 * u as f64 / 100.0),
                        _ => None,
                    };
                    if let Some(tm) = target_milli.filter(|t| *t > 0.0) {
                        truth.over_target |= per_pod > tm * band;
                        if l.kind == LoadKind::Demand {
                            need(ceil(v / (tm * band)));
                        }
                    }
                    if let Some(r) = request_milli.filter(|r| *r > 0) {
                        truth.saturated |= per_pod > r as f64;
                    }
                }
                Binding::Pods { target, .. } => {
                    if let Some(tm) = target.average_value.filter(|t| *t > 0) {
                        let tm = tm as f64 * band;
                        truth.over_target |= per_pod > tm;
                        if l.kind == LoadKind::Demand {
                            need(ceil(v / tm));
                        }
                    }
                }
                Binding::Object { target, .. } | Binding::External { target, .. } => {
                    if let Some(av) = target.average_value.filter(|t| *t > 0) {
                        let av = av as f64 * band;
                        let each = if ready == 0 {
                            f64::INFINITY
                        } else {
                            v / ready as f64
                        };
                        truth.over_target |= v > 0.0 && each > av;
                        need(ceil(v / av));
                    } else if let Some(tv) = target.value.filter(|t| *t > 0) {
                        truth.over_target |= v > tv as f64 * band;
                    }
                }
                Binding::None => {}
            }
        }
        truth.needed = needed.map(|n| (n.min(i32::MAX as f64) as i32).clamp(min, max));
        truth
    }

    /// Make `desired` pods exist at `now`: new pods start now; removal takes not-Ready pods
    /// first, then the newest.
    pub fn scale_to(&mut self, pods: &mut Vec<PodInfo>, desired: i32, now: Timestamp) {
        let desired = desired.max(0) as usize;
        if self.lives.len() != desired {
            self.generation += 1;
            self.pods_generation = next_pods_generation();
        }
        while self.lives.len() < desired {
            let p = self.new_pod(now);
            pods.push(p);
            let ready_at = now + self.params.pod_startup;
            self.lives.push(PodLife {
                created: now,
                ready_at,
            });
            // A new pod shows Ready=False until `ready_at`.
            if let Some(shown) = &mut self.shown_ready {
                shown.push(false);
                self.next_shown = Some(self.next_shown.map_or(ready_at, |t| t.min(ready_at)));
            }
        }
        if self.lives.len() > desired {
            let mut order: Vec<usize> = (0..self.lives.len()).collect();
            // Not Ready first, then the newest.
            order.sort_by(|&a, &b| {
                let (la, lb) = (&self.lives[a], &self.lives[b]);
                (la.ready_at <= now)
                    .cmp(&(lb.ready_at <= now))
                    .then(lb.created.cmp(&la.created))
            });
            let mut remove: Vec<usize> = order[..self.lives.len() - desired].to_vec();
            remove.sort_unstable_by(|a, b| b.cmp(a));
            for i in remove {
                let life = self.lives.remove(i);
                self.gone.push(GonePod {
                    ready_at: life.ready_at,
                    removed: now,
                });
                pods.remove(i);
                if let Some(shown) = &mut self.shown_ready {
                    shown.remove(i);
                }
            }
        }
    }
}

/// The time a sync's samples describe.
struct SampleTime {
    /// `now - metricsLag`.
    tau: Timestamp,
    /// Signal time of `tau`, seconds.
    t: f64,
    window: SignedDuration,
    /// Pods that have a sample (created by `sampled_by`).
    sampled: usize,
    /// Pods that served the load at `tau`.
    served: usize,
}

/// An Object or External metric's value, written in place when the slot already holds it.
fn write_value_metric(
    slot: &mut MetricData,
    b: &Binding,
    name: &String,
    value: i64,
    at: &SampleTime,
) {
    let sample = |name: &String| MetricSample {
        name: name.clone(),
        value,
        timestamp: at.tau,
        window: at.window,
    };
    match (b, &mut *slot) {
        (Binding::Object { .. }, MetricData::Object(Ok(s))) if s.name == *name => {
            s.value = value;
            s.timestamp = at.tau;
            s.window = at.window;
        }
        (Binding::External { .. }, MetricData::External(Ok(v)))
            if v.len() == 1 && v[0].name == *name =>
        {
            v[0].value = value;
            v[0].timestamp = at.tau;
            v[0].window = at.window;
        }
        (Binding::Object { .. }, _) => *slot = MetricData::Object(Ok(sample(name))),
        _ => *slot = MetricData::External(Ok(vec![sample(name)])),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::Target;
    use crate::simulate::series::{Shape, Signal};

    fn template() -> PodInfo {
        PodInfo {
            name: "t".into(),
            phase: "Running".into(),
            deleting: false,
            start_time: None,
            ready: None,
            containers: vec![ContainerRequests {
                name: "app".into(),
                requests: Resources::from([("cpu", 500)]),
                restartable_init: false,
            }],
            init_containers: vec![],
            pod_requests: None,
            overhead: Resources::new(),
            owner: None,
        }
    }

    #[test]
    fn scale_down_removes_unready_then_newest() {
        let now: Timestamp = "2026-03-01T12:00:00Z".parse().unwrap();
        let mut w = World::new(WorldParams::default(), &[], template(), "web", now);
        let mut pods = w.initial_pods(2, now);
        w.scale_to(&mut pods, 3, now - SignedDuration::from_secs(90));
        w.scale_to(&mut pods, 4, now - SignedDuration::from_secs(60)); // Ready by now
        w.scale_to(&mut pods, 5, now); // not Ready yet
        assert_eq!(pods.len(), 5);
        w.scale_to(&mut pods, 3, now);
        let names: Vec<&str> = pods.iter().map(|p| p.name.as_str()).collect();
        // The unready pod 5 goes first, then the newest Ready one (4).
        assert_eq!(names, ["web-00001", "web-00002", "web-00003"]);
    }

    #[test]
    fn demand_is_shared_exactly_among_ready_pods() {
        let now: Timestamp = "2026-03-01T12:00:00Z".parse().unwrap();
        let mut w = World::new(WorldParams::default(), &[], template(), "web", now);
        let pods = w.initial_pods(3, now);
        let loads = vec![Load {
            metric: "cpu".into(),
            kind: LoadKind::Demand,
            signal: Signal::Shape(Shape::Constant { value: 1.0 }),
            origin: "test".into(),
        }];
        let metrics = vec![MetricSpec::Resource {
            resource: "cpu".into(),
            target: Target {
                type_: "Utilization".into(),
                average_utilization: Some(50),
                ..Default::default()
            },
        }];
        let bindings = bind(&metrics, &loads, &template().containers).unwrap();
        w.prepare(&bindings);
        let mut input = crate::simulate::engine::tests::bare_input(metrics, pods);
        w.fill(&mut input, &loads, &bindings, now, now);
        let usages = input.pod_metrics.as_ref().unwrap();
        let v: Vec<i64> = usages
            .iter()
            .map(|u| u.containers[0].1.get("cpu").unwrap())
            .collect();
        assert_eq!(v, [334, 333, 333]);
        let truth = w.truth(&loads, &bindings, now, now, 1, 10, 0.1);
        // 1 core at 50 % (+10 % tolerance) of 500m needs ceil(3.6) = 4 pods; 333m per pod is
        // over 275m.
        assert_eq!(truth.needed, Some(4));
        assert!(truth.over_target);
        assert!(!truth.saturated);
        // A 310m target: 333m per pod is within its 10 % band (341m), so on target, and
        // ceil(1000 / 341) = 3 pods are enough, not ceil(1000 / 310) = 4.
        let tight = vec![MetricSpec::Resource {
            resource: "cpu".into(),
            target: Target {
                type_: "AverageValue".into(),
                average_value: Some(310),
                ..Default::default()
            },
        }];
        let b = bind(&tight, &loads, &template().containers).unwrap();
        let t = w.truth(&loads, &b, now, now, 1, 10, 0.1);
        assert!(!t.over_target);
        assert_eq!(t.needed, Some(3));
        let t = w.truth(&loads, &b, now, now, 1, 10, 0.0);
        assert!(t.over_target);
        assert_eq!(t.needed, Some(4));
    }
}
