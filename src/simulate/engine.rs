//! The tick loop: each sync builds the core's [`Input`] from the world, calls
//! [`Evaluator::evaluate_into`](crate::core::Evaluator::evaluate_into) (the controller's algorithm, as `explain`
//! runs it, written over the decision of the last sync so that its buffers are reused), sets
//! the replicas it decides and carries its history (`decision.history.after`) into the next
//! sync. No algorithm lives here, and a sync allocates nothing while the pods stay the same.

use jiff::{SignedDuration, Timestamp};
use k8s_openapi::api::autoscaling::v2 as hpa_v2;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;
use serde::Serialize;

use super::world::{bind, Binding, Load, Truth, World};
use crate::core::{clock, Action, Calculation, Decision, Detail, Evaluator, Input, PodInfo, Scale};

/// One metric's numbers at one tick, as the controller saw them.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MetricTick {
    /// Utilization in percent, or the value in the metric's unit (cores, requests/s ...).
    pub value: Option<f64>,
    /// `%` for utilization, empty otherwise.
    pub unit: &'static str,
    pub proposal: Option<i32>,
    /// The metric failed this sync (the core's error is in `explain`).
    pub failed: bool,
}

/// One sync of the simulation.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TickRecord {
    pub tick: u64,
    pub time: Option<Timestamp>,
    /// Seconds since the start.
    pub offset_seconds: f64,
    /// Each load's value now, in its unit (same order as the loads).
    pub loads: Vec<f64>,
    /// Per `spec.metrics` entry.
    pub metrics: Vec<MetricTick>,
    /// The largest metric proposal (before stabilization and limits).
    pub proposal: Option<i32>,
    /// The stabilized recommendation (before the rate limits and bounds).
    pub recommendation: Option<i32>,
    /// `spec.replicas` before the sync.
    pub replicas_before: i32,
    /// `spec.replicas` the controller set.
    pub replicas: i32,
    /// Pods Ready at this instant (before the new ones start).
    pub ready: usize,
    /// The rule that decided the step (`Tolerance`, `ScaleUpLimit`, `ScaleDownStabilized` ...).
    pub rule: &'static str,
    pub action: Option<Action>,
    /// Replicas that would bring the demand to target (see the world model).
    pub needed: Option<i32>,
    pub over_target: bool,
    pub saturated: bool,
}

/// A running simulation of one HPA configuration.
pub struct Simulation {
    input: Input,
    world: World,
    loads: Vec<Load>,
    bindings: Vec<Binding>,
    start: Timestamp,
    sync: SignedDuration,
    tick: u64,
    /// The time of the next sync: `start + tick × sync`, advanced one period per sync.
    next: Timestamp,
    /// Pods to install after a replayed first tick (the snapshot's own pods and samples are used
    /// for tick 0, so it equals `explain`).
    pending_pods: Option<Vec<PodInfo>>,
    record: TickRecord,
    /// The decision of the last sync, whose buffers the next one reuses.
    decision: Option<Box<Decision>>,
    /// The buffers the syncs work in.
    evaluator: Evaluator,
    /// The (scale-down, scale-up) tolerances the controller applied at the last sync.
    tolerances: (f64, f64),
}

impl Simulation {
    /// Set up a simulation.
    ///
    /// `input` is the core input of the first sync (from a snapshot or a manifest); `pods` are
    /// the world's pods at the start and `world` their lives. With `replay_first_tick`, tick 0
    /// evaluates `input` exactly as given (the snapshot's pods and samples) and the world's
    /// pods take over afterwards; otherwise every tick, tick 0 included, is synthetic.
    pub fn new(
        mut input: Input,
        mut world: World,
        pods: Vec<PodInfo>,
        loads: Vec<Load>,
        replay_first_tick: bool,
    ) -> Result<Simulation, String> {
        let bindings = bind(&input.hpa.metrics, &loads, world.template_containers())?;
        world.prepare(&bindings);
        let start = input.now;
        // The timeline needs the numbers, not the per-pod narration nor the status of every sync.
        input.detail = Detail::Numbers;
        let sync = input.settings.sync_period;
        if sync <= SignedDuration::ZERO {
            return Err("the sync period must be greater than zero".into());
        }
        let pending_pods = if replay_first_tick {
            Some(pods)
        } else {
            input.pods = pods;
            None
        };
        if input.metric_data.len() < input.hpa.metrics.len() {
            input
                .metric_data
                .resize(input.hpa.metrics.len(), Default::default());
        }
        // The HPA's spec and the settings never change within a run: written into the
        // decision once (see `Evaluator::set_spec_generation`).
        let mut evaluator = Evaluator::new();
        evaluator.set_spec_generation(Some(next_spec_generation()));
        Ok(Simulation {
            tolerances: (input.settings.tolerance, input.settings.tolerance),
            input,
            world,
            loads,
            bindings,
            start,
            sync,
            tick: 0,
            next: start,
            pending_pods,
            record: TickRecord::default(),
            decision: None,
            evaluator,
        })
    }

    /// The input the next tick will evaluate (its HPA, settings ...).
    pub fn input(&self) -> &Input {
        &self.input
    }

    pub fn loads(&self) -> &[Load] {
        &self.loads
    }

    /// The (scale-down, scale-up) tolerances of this configuration.
    pub fn tolerances(&self) -> (f64, f64) {
        self.tolerances
    }

    /// The current replica count (`spec.replicas`).
    pub fn replicas(&self) -> i32 {
        self.input
            .scale
            .as_ref()
            .map(|s| s.spec_replicas)
            .unwrap_or(0)
    }

    /// The record of the last sync.
    pub fn record(&self) -> &TickRecord {
        &self.record
    }

    /// Run one sync; returns its record (valid until the next call).
    pub fn step(&mut self) -> &TickRecord {
        let now = self.next;
        self.next = clock::saturating_add(now, self.sync);
        self.input.now = now;
        let current = self.replicas();
        let replay = self.tick == 0 && self.pending_pods.is_some();
        if !replay {
            let pods = self.world.pod_count() as i32;
            if let Ok(s) = &mut self.input.scale {
                s.status_replicas = pods;
            }
            self.world.fill(
                &mut self.input,
                &self.loads,
                &self.bindings,
                self.start,
                now,
            );
        }
        // perf: benches/simulate. Boxed: taking it out and putting it back moves a pointer,
        // not the whole decision, every sync.
        // The decision of the last sync holds the conditions `carry_over` gave the HPA.
        let carried = self.decision.is_some();
        let mut decision = self.decision.take().unwrap_or_default();
        // The world's pods are the same as at the last sync while its generation is: the pod
        // average keeps what it derived per pod (none for the replayed snapshot's pods).
        let generation = (!replay).then(|| self.world.pods_generation());
        self.evaluator.set_pods_generation(generation);
        self.evaluator.set_conditions_carried(carried);
        // The memory is the one the last sync left (`carry_over` swapped it in).
        self.evaluator.set_history_carried(carried);
        self.evaluator.evaluate_into(&self.input, &mut decision);
        self.tolerances = (decision.tolerance.down, decision.tolerance.up);
        let hpa = &self.input.hpa;
        // Each load's value now: the record's, and the truth's (computed once).
        let t = now.duration_since(self.start).as_secs_f64();
        let values = &mut self.record.loads;
        values.clear();
        let (world, loads) = (&mut self.world, &self.loads);
        values.extend((0..loads.len()).map(|i| world.load_value(loads, i, t)));
        let truth = self.world.truth_of(
            &self.loads,
            values,
            &self.bindings,
            now,
            (hpa.min_replicas, hpa.max_replicas),
            self.tolerances.1,
        );
        let desired = decision.desired_replicas.unwrap_or(current);
        self.fill_record(&decision, (now, t), current, desired, truth);
        self.carry_over(&mut decision, desired);
        self.decision = Some(decision);

        if let Some(pods) = self.pending_pods.take() {
            self.input.pods = pods;
        }
        self.world.scale_to(&mut self.input.pods, desired, now);
        if let Ok(s) = &mut self.input.scale {
            s.spec_replicas = desired;
            s.status_replicas = desired;
        }
        self.tick += 1;
        &self.record
    }

    fn fill_record(
        &mut self,
        d: &Decision,
        (now, t): (Timestamp, f64),
        current: i32,
        desired: i32,
        truth: Truth,
    ) {
        let r = &mut self.record;
        r.tick = self.tick;
        r.time = Some(now);
        r.offset_seconds = t;
        // r.loads: written by `step` before the truth.
        r.metrics.clear();
        r.metrics.extend(d.metrics.iter().map(|m| {
            let (value, unit) = match &m.calculation {
                Some(Calculation::PodAverage {
                    mode,
                    current,
                    ratio,
                    ..
                }) if ratio.is_finite() => {
                    if *mode == "Utilization" {
                        (Some(*current as f64), "%")
                    } else {
                        (Some(*current as f64 / 1000.0), "")
                    }
                }
                Some(Calculation::Value { value_milli, .. }) => {
                    (Some(*value_milli as f64 / 1000.0), "")
                }
                Some(Calculation::AverageValue { average_milli, .. }) => {
                    (Some(*average_milli as f64 / 1000.0), "")
                }
                _ => (None, ""),
            };
            MetricTick {
                value: if m.error.is_some() { None } else { value },
                unit,
                proposal: m.proposed_replicas,
                failed: m.error.is_some(),
            }
        }));
        r.proposal = d.proposal;
        r.recommendation = d.normalization.as_ref().map(|n| n.stabilization.stabilized);
        r.replicas_before = current;
        r.replicas = desired;
        r.ready = truth.ready;
        r.rule = d.verdict.decided_by.as_str();
        r.action = Some(d.verdict.action);
        r.needed = truth.needed;
        r.over_target = truth.over_target;
        r.saturated = truth.saturated;
    }

    /// What the controller keeps for the next sync: its memory and the HPA status it wrote.
    fn carry_over(&mut self, d: &mut Decision, desired: i32) {
        let rescaled = d.status.last_scale_time.is_some()
            && d.status.last_scale_time
                != self
                    .input
                    .hpa
                    .status
                    .as_ref()
                    .and_then(|s| s.last_scale_time.as_ref())
                    .map(|t| t.0);
        let status = self
            .input
            .hpa
            .status
            .get_or_insert_with(hpa_v2::HorizontalPodAutoscalerStatus::default);
        status.current_replicas = d.current_replicas;
        status.desired_replicas = desired;
        if rescaled {
            status.last_scale_time = d.status.last_scale_time.map(Time);
        }
        // The conditions written: a condition's type, status and reason are compared (their
        // words, mostly the same pointers), and only a change is copied.
        let old = &mut self.input.hpa.conditions;
        let changed = old.len() != d.conditions.len()
            || old
                .iter()
                .zip(&d.conditions)
                .any(|(a, b)| a.type_ != b.type_ || a.status != b.status || a.reason != b.reason);
        if changed {
            old.clone_from(&d.conditions);
            for c in old.iter_mut() {
                c.set_this_sync = false;
            }
        }
        // Swapped, not copied: the next sync copies it back into the decision's buffers.
        std::mem::swap(&mut self.input.history, &mut d.history.after);
    }
}

/// A spec generation no simulation has used in this process (an evaluator never takes another
/// run's spec for its own).
fn next_spec_generation() -> u64 {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}

/// A scale subresource for a synthetic target.
pub fn synthetic_scale(replicas: i32, selector: &str) -> Scale {
    Scale {
        spec_replicas: replicas,
        status_replicas: replicas,
        selector: selector.to_string(),
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::core::{Hpa, MetricSpec, Settings};

    /// A minimal input for unit tests of the world model.
    pub(crate) fn bare_input(metrics: Vec<MetricSpec>, pods: Vec<PodInfo>) -> Input {
        Input {
            hpa: Hpa {
                namespace: "default".into(),
                name: "web".into(),
                min_replicas: 1,
                max_replicas: 10,
                metrics,
                behavior: None,
                raw_metrics: vec![],
                status: None,
                conditions: vec![],
                target_kind: "Deployment".into(),
                target_name: "web".into(),
                generation: None,
            },
            scale: Ok(synthetic_scale(pods.len() as i32, "app=web")),
            pods,
            pod_metrics: Ok(vec![]),
            metric_data: vec![Default::default(); 1],
            other_hpas_selecting: vec![],
            settings: Settings::default(),
            history: Default::default(),
            now: "2026-03-01T12:00:00Z".parse().unwrap(),
            detail: Detail::Full,
        }
    }
}
