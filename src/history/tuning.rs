//! Flapping and tuning (issue 31 item 4): when the HPA flaps, re-simulate the recorded load
//! with `simulate`'s engine ([`Simulation`], read-only use) under a few one-field changes of
//! `spec.behavior`, and propose the first that removes the flaps without more time over target.
//!
//! * **Flapping** is the history's threshold ([`FLAPPING_TURNS_PER_HOUR`]): three or more
//!   changes of direction within one hour (up, down, up, down) — a load that rises and falls
//!   once is one turn, not flapping. A *flap* is a turn that belongs to such an hour
//!   ([`flaps::flapping_turns`]), so "zero flaps" is "no hour with three turns".
//! * **Before** is the recorded load simulated with the HPA's current behavior; **after** the
//!   same load with one candidate. Both use the same world (pods Ready 30 s after creation,
//!   metrics 15 s late: `simulate`'s defaults) so the comparison is fair even where the model
//!   differs from the cluster.
//! * **Candidates**, in this fixed order, each applied alone to the current behavior (the
//!   smallest change first): `scaleDown.stabilizationWindowSeconds` 600, 900, 1200, 1800, 2700,
//!   3600 (those above the current window); `scaleDown.tolerance` 0.15, 0.2, 0.3 (above the
//!   current one; only where `HPAConfigurableTolerance` applies); a scale-down rate policy of
//!   1 pod per 60 s, 120 s, 300 s. The first with zero flaps and a time over target not above
//!   the current one's wins.
//!
//! Pure: the recorded series in, the [`Tuning`] section out.

use jiff::Timestamp;
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::{json, Value};

use super::flaps::{self, FLAPPING_TURNS_PER_HOUR};
use super::recorded::{Recorded, SeriesKind};
use crate::core::{Behavior, Input, MetricSpec, PodInfo, Policy, PolicyKind};
use crate::simulate::engine::Simulation;
use crate::simulate::series::{Interpolation, SeriesBuilder, Signal};
use crate::simulate::summary::SummaryBuilder;
use crate::simulate::world::{metric_load_name, Load, LoadKind, World, WorldParams};

/// The scale-down stabilization windows tried, in seconds.
pub const WINDOW_STEPS: [i32; 6] = [600, 900, 1200, 1800, 2700, 3600];
/// The scale-down tolerances tried.
pub const TOLERANCE_STEPS: [f64; 3] = [0.15, 0.2, 0.3];
/// The scale-down policies tried: one pod per this many seconds.
pub const POLICY_PERIODS: [i32; 3] = [60, 120, 300];

/// What the tuning found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum TuningOutcome {
    /// A change removes the flaps: `change`, `after` and the patch say which.
    Proposed,
    /// The HPA does not flap: nothing to tune.
    NoFlapping,
    /// The recorded changes flap but the recorded load, re-simulated, does not: the flaps come
    /// from elsewhere (manual scales, another controller, a load the series miss).
    NotReproduced,
    /// Something the re-simulation needs is missing (`message` says what).
    NotEnoughData,
    /// No candidate removed the flaps without more time over target.
    NoCandidate,
}

/// The `tuning` section of the `History` document.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Tuning {
    pub outcome: TuningOutcome,
    /// Direction changes within one hour that count as flapping (3).
    pub flapping_threshold_per_hour: u32,
    /// One sentence: why this outcome, what is missing, or what the proposal does.
    pub message: String,
    /// The recorded load simulated with the current behavior.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub before: Option<TuningRun>,
    /// The same load with the proposed change.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub after: Option<TuningRun>,
    /// The change in words: `scaleDown.stabilizationWindowSeconds 300 → 900`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub change: Option<String>,
    /// The merge patch of `spec.behavior` to apply (JSON, as `kubectl patch --type merge`
    /// takes it under `spec.behavior`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub behavior_patch: Option<Value>,
    /// Every candidate re-simulated, in order (the last one is the proposal when proposed).
    pub tried: Vec<TriedCandidate>,
    /// Candidates left out, and why.
    pub skipped: Vec<String>,
}

/// One re-simulated run over the window, in numbers.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TuningRun {
    /// Direction changes that belong to an hour with three or more.
    pub flaps: u32,
    pub flaps_per_hour: f64,
    pub direction_changes: u32,
    pub scale_events: u32,
    pub over_target_seconds: f64,
    pub at_max_seconds: f64,
}

/// A candidate and what it did.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TriedCandidate {
    pub change: String,
    pub flaps: u32,
    pub over_target_seconds: f64,
}

/// One change of `spec.behavior`.
#[derive(Debug, Clone, PartialEq)]
pub struct Candidate {
    pub change: String,
    pub behavior: Behavior,
    pub patch: Value,
}

impl Tuning {
    fn outcome(outcome: TuningOutcome, message: String) -> Tuning {
        Tuning {
            outcome,
            flapping_threshold_per_hour: FLAPPING_TURNS_PER_HOUR,
            message,
            before: None,
            after: None,
            change: None,
            behavior_patch: None,
            tried: Vec::new(),
            skipped: Vec::new(),
        }
    }

    /// No flapping: at most `turns` direction changes within an hour.
    pub fn no_flapping(turns: u32) -> Tuning {
        Tuning::outcome(
            TuningOutcome::NoFlapping,
            format!(
                "no flapping: at most {turns} direction change{} within one hour \
                 ({FLAPPING_TURNS_PER_HOUR} or more is flapping)",
                if turns == 1 { "" } else { "s" }
            ),
        )
    }

    /// Events only: the flapping is seen, the load to re-simulate is not.
    pub fn needs_prometheus(turns: u32) -> Tuning {
        Tuning::outcome(
            TuningOutcome::NotEnoughData,
            format!(
                "flapping ({turns} direction changes within one hour), but a tuning proposal \
                 re-simulates the recorded load: give --prometheus URL"
            ),
        )
    }

    /// The `spec.behavior` patch as YAML (`spec:` / `behavior:` ...), when proposed.
    pub fn patch_yaml(&self) -> Option<String> {
        let patch = self.behavior_patch.as_ref()?;
        crate::yaml::to_string(&json!({ "spec": { "behavior": patch } })).ok()
    }
}

/// The tuning of the HPA `template` over `rec`: `recorded_turns` is the most direction changes
/// the recorded changes made within one hour.
pub fn propose(template: &Input, rec: &Recorded, recorded_turns: u32) -> Tuning {
    if recorded_turns < FLAPPING_TURNS_PER_HOUR {
        return Tuning::no_flapping(recorded_turns);
    }
    let prepared = match prepare(template, rec) {
        Ok(p) => p,
        Err(missing) => {
            return Tuning::outcome(
                TuningOutcome::NotEnoughData,
                format!("flapping, but the recorded load cannot be re-simulated: {missing}"),
            )
        }
    };
    let current = template.hpa.behavior.clone().unwrap_or_default();
    let before = match prepared.run(&current) {
        Ok(r) => r,
        Err(e) => {
            return Tuning::outcome(
                TuningOutcome::NotEnoughData,
                format!("flapping, but the recorded load cannot be re-simulated: {e}"),
            )
        }
    };
    let (candidates, skipped) = candidates(template);
    let mut t = Tuning::outcome(TuningOutcome::NoCandidate, String::new());
    t.before = Some(before);
    t.skipped = skipped;
    if before.flaps == 0 {
        t.outcome = TuningOutcome::NotReproduced;
        t.message = format!(
            "the recorded changes flap ({recorded_turns} direction changes within one hour) but \
             the recorded load, re-simulated with the current behavior, does not: look for \
             manual scales, another controller or a load the series miss; no change proposed"
        );
        return t;
    }
    for c in candidates {
        let Ok(after) = prepared.run(&c.behavior) else {
            continue;
        };
        t.tried.push(TriedCandidate {
            change: c.change.clone(),
            flaps: after.flaps,
            over_target_seconds: after.over_target_seconds,
        });
        if after.flaps == 0 && after.over_target_seconds <= before.over_target_seconds + 1e-6 {
            t.outcome = TuningOutcome::Proposed;
            t.message = format!(
                "{}: no flaps over the recorded load (before: {} flaps) and no more time over \
                 target",
                c.change, before.flaps
            );
            t.after = Some(after);
            t.change = Some(c.change);
            t.behavior_patch = Some(c.patch);
            return t;
        }
    }
    t.message = format!(
        "no single change tried removed the flaps without more time over target ({} tried); \
         try `kubectl hpa simulate` with a longer window and a slower scale-down together",
        t.tried.len()
    );
    t
}

/// The candidates, in the documented order, and the ones left out with why.
pub fn candidates(input: &Input) -> (Vec<Candidate>, Vec<String>) {
    let b = input.hpa.behavior.clone().unwrap_or_default();
    let s = &input.settings;
    let mut out = Vec::new();
    let mut skipped = Vec::new();
    let window = b.scale_down.stabilization_window_seconds.unwrap_or(
        s.downscale_stabilization
            .as_secs()
            .clamp(0, i32::MAX as i64) as i32,
    );
    for w in WINDOW_STEPS.into_iter().filter(|w| *w > window) {
        let mut c = b.clone();
        c.scale_down.stabilization_window_seconds = Some(w);
        out.push(Candidate {
            change: format!("scaleDown.stabilizationWindowSeconds {window} → {w}"),
            behavior: c,
            patch: json!({ "scaleDown": { "stabilizationWindowSeconds": w } }),
        });
    }
    if s.feature_gates.hpa_configurable_tolerance && s.version().at_least(33) {
        let tolerance = b.scale_down.tolerance.unwrap_or(s.tolerance);
        for t in TOLERANCE_STEPS
            .into_iter()
            .filter(|t| *t > tolerance + 1e-9)
        {
            let mut c = b.clone();
            c.scale_down.tolerance = Some(t);
            out.push(Candidate {
                change: format!("scaleDown.tolerance {tolerance} → {t}"),
                behavior: c,
                patch: json!({ "scaleDown": { "tolerance": t } }),
            });
        }
    } else {
        skipped.push(
            "scaleDown.tolerance: needs the HPAConfigurableTolerance feature gate \
             (Kubernetes 1.33+, on by default from 1.34)"
                .to_string(),
        );
    }
    for p in POLICY_PERIODS {
        let mut c = b.clone();
        c.scale_down.policies = vec![Policy {
            kind: PolicyKind::Pods,
            value: 1,
            period_seconds: p,
        }];
        out.push(Candidate {
            change: format!("scaleDown.policies: 1 pod per {p}s"),
            behavior: c,
            patch: json!({ "scaleDown": { "policies": [
                { "type": "Pods", "value": 1, "periodSeconds": p }
            ] } }),
        });
    }
    (out, skipped)
}

/// What every re-simulated run starts from.
#[derive(Debug, Clone)]
struct Prepared {
    input: Input,
    loads: Vec<Load>,
    pod: PodInfo,
    replicas: i32,
    start: Timestamp,
    ticks: usize,
    window_start: usize,
}

/// The simulation's start: the template at the recorded start, the recorded loads as series,
/// the pods copying the template's with the recorded requests. `Err` says what is missing.
fn prepare(template: &Input, rec: &Recorded) -> Result<Prepared, String> {
    if rec.len() <= rec.window_start {
        return Err("the window holds no sync".into());
    }
    let step = rec.step.as_secs_f64();
    let mut loads = Vec::new();
    let mut pod = super::replay::pod_template(template, rec);
    for (i, spec) in template.hpa.metrics.iter().enumerate() {
        let Some(name) = metric_load_name(spec) else {
            continue;
        };
        let Some(m) = rec.metrics.get(i).and_then(Option::as_ref) else {
            return Err(format!(
                "spec.metrics[{i}] ({name}) has no recorded load: give --query {name}=PROMQL"
            ));
        };
        let mut b = SeriesBuilder::new();
        for (k, v) in m.values.iter().enumerate() {
            if let Some(v) = v.filter(|v| v.is_finite()) {
                b.push(k as f64 * step, v.max(0.0), &m.query)
                    .map_err(|e| e.to_string())?;
            }
        }
        let series = b
            .build(Interpolation::Step, &m.query)
            .map_err(|_| format!("spec.metrics[{i}] ({name}): no sample was recorded"))?;
        if let MetricSpec::Resource { resource, target }
        | MetricSpec::ContainerResource {
            resource, target, ..
        } = spec
        {
            let request = m.request.iter().flatten().next().copied();
            let c = &mut pod.containers[0];
            if let Some(r) = request {
                c.requests
                    .insert(resource.as_str(), (r * 1000.0).round().max(0.0) as i64);
            }
            if target.average_value.is_none() && c.requests.get(resource).is_none() {
                return Err(format!(
                    "the pods' {resource} request was not recorded \
                     (kube_pod_container_resource_requests)"
                ));
            }
        }
        loads.push(Load {
            metric: name.to_string(),
            kind: match m.kind {
                SeriesKind::Total => LoadKind::Demand,
                SeriesKind::Value => LoadKind::Value,
            },
            signal: Signal::Series(series),
            origin: format!("the recorded {name}"),
        });
    }
    let first = |v: &[Option<i32>]| v.iter().flatten().next().copied();
    let replicas = first(&rec.current).or(first(&rec.desired)).ok_or(
        "no replica count (kube_horizontalpodautoscaler_status_current_replicas) was recorded",
    )?;
    let mut input = template.clone();
    input.now = rec.start;
    input.hpa.min_replicas = first(&rec.min).unwrap_or(input.hpa.min_replicas);
    input.hpa.max_replicas = first(&rec.max).unwrap_or(input.hpa.max_replicas);
    input.history = crate::simulate::memory::running_at_start(rec.start, replicas).history;
    if let Ok(s) = &mut input.scale {
        s.spec_replicas = replicas;
        s.status_replicas = replicas;
    }
    Ok(Prepared {
        input,
        loads,
        pod,
        replicas,
        start: rec.start,
        ticks: rec.len(),
        window_start: rec.window_start,
    })
}

impl Prepared {
    /// The recorded load simulated with `behavior`, counted over the window.
    fn run(&self, behavior: &Behavior) -> Result<TuningRun, String> {
        let mut input = self.input.clone();
        input.hpa.behavior = Some(behavior.clone());
        let max = input.hpa.max_replicas;
        let step = input.settings.sync_period;
        let mut world = World::new(
            WorldParams::default(),
            &[],
            self.pod.clone(),
            "tuning",
            self.start,
        );
        let pods = world.initial_pods(self.replicas, self.start);
        let mut sim = Simulation::new(input, world, pods, self.loads.clone(), false)?;
        let mut summary = SummaryBuilder::new(step.as_secs_f64(), 0.0).with_max_replicas(max);
        let mut events = Vec::new();
        for k in 0..self.ticks {
            let r = sim.step();
            if k < self.window_start {
                continue;
            }
            summary.add(r);
            let d = r.replicas - r.replicas_before;
            if let (Some(t), true) = (r.time, d != 0) {
                events.push((t, flaps::direction(d)));
            }
        }
        let s = summary.finish();
        let turns = flaps::turns(events);
        let flaps = flaps::flapping_turns(&turns);
        let hours = (s.duration_seconds / 3600.0).max(step.as_secs_f64() / 3600.0);
        Ok(TuningRun {
            flaps,
            flaps_per_hour: (flaps as f64 / hours * 10.0).round() / 10.0,
            direction_changes: turns.len() as u32,
            scale_events: s.scale_events as u32,
            over_target_seconds: s.over_target_seconds,
            at_max_seconds: s.at_max_seconds,
        })
    }
}

#[cfg(test)]
mod tests;
