//! Mirrors `reconcileAutoscaler`: read the scale, branch on the current replica count, compute
//! the proposal, normalize it, and act (conditions, events, status).

use super::calc::Scratch;
use super::compare::same_name;
use super::compute_replicas::compute_replicas_for_metrics;
use super::envelope::KeptEnvelope;
use super::model::{Detail, History, Input, MetricSpec, Scale};
use super::normalize;
use super::rule::Rule;
use super::settings::{KubeVersion, Settings};
use super::status::{finish, Ctx};
use super::verdict::{assumptions, deciding_rule, describe_normalization, summary};
use super::{
    Action, Decision, HistoryOut, MetricOutcome, StatusOut, TargetRef, Tolerances, Verdict,
};

/// The controller's per-HPA tolerances.
pub fn tolerances(input: &Input) -> Tolerances {
    let s = &input.settings;
    let legacy_abs = !s.version().at_least(33);
    let mut t = Tolerances {
        down: s.tolerance,
        up: s.tolerance,
        legacy_abs,
        source: "controller --horizontal-pod-autoscaler-tolerance",
    };
    if let Some(b) = &input.hpa.behavior {
        if s.feature_gates.hpa_configurable_tolerance && s.version().at_least(33) {
            if let Some(d) = b.scale_down.tolerance {
                t.down = d;
                t.source = "spec.behavior tolerance";
            }
            if let Some(u) = b.scale_up.tolerance {
                t.up = u;
                t.source = "spec.behavior tolerance";
            }
        }
    }
    t
}

/// One HPA's evaluations sync after sync, and the buffers they work in: `simulate` runs the
/// algorithm hundreds of thousands of times, and a pod average whose pods are all Ready then
/// allocates nothing. The buffers are the evaluator's, not the decision's: a [`Decision`] is a
/// plain value, every field of it written by each sync.
#[derive(Debug, Default)]
pub struct Evaluator {
    /// The pod averages' buffers.
    scratch: Scratch,
    /// The last scale selector a sync found valid: syncs of the same target parse it once.
    valid_selector: String,
    /// The caller's generation of the HPA's spec and the settings (see
    /// [`Evaluator::set_spec_generation`]).
    spec_generation: Option<u64>,
    /// The generation and the decision the last sync wrote them into.
    spec_written: Option<(u64, usize)>,
    /// The caller's word that the next decision holds the HPA's conditions already (see
    /// [`Evaluator::set_conditions_carried`]).
    conditions_carried: bool,
    /// The caller's word that the memory is the one the last sync left (see
    /// [`Evaluator::set_history_carried`]).
    history_carried: bool,
    /// The stabilization envelope kept from the last syncs while the memory is carried.
    envelope: KeptEnvelope,
}

impl Evaluator {
    pub fn new() -> Evaluator {
        Evaluator::default()
    }

    /// The caller's promise about the next syncs' inputs: while `generation` is the same
    /// `Some(g)`, `input.pods` are the same in every field and `input.pod_metrics` lists the
    /// same pods with the same containers in the same order (only the usages and the samples'
    /// times move), so what the pod average derives per pod is kept (`simulate`'s world bumps
    /// it at every change). `None` (the default, every other caller) keeps nothing. The answer
    /// is the same either way; debug builds check the kept facts against fresh ones.
    pub fn set_pods_generation(&mut self, generation: Option<u64>) {
        self.scratch.pods_generation = generation;
    }

    /// The caller's promise about the next syncs' inputs: while `generation` is the same
    /// `Some(g)`, `input.hpa`'s names, target and behavior and `input.settings` are the same
    /// (`simulate` never changes them within a run), so a decision they were already written
    /// into by a sync of this generation is not compared with them again. `None` (the
    /// default) compares them at every sync. The answer is the same either way; debug builds
    /// check the promise.
    pub fn set_spec_generation(&mut self, generation: Option<u64>) {
        self.spec_generation = generation;
    }

    /// The caller's promise about the next sync: `out`, a decision an earlier sync wrote, holds
    /// `input.hpa.conditions` already (their types, statuses, reasons and transition times, in
    /// order), as `simulate` carries them from one sync into the next, so they are not copied
    /// again. A brief or numbers-only decision only then; the full explanation copies them
    /// anyway. The answer is the same either way; debug builds check the promise.
    pub fn set_conditions_carried(&mut self, carried: bool) {
        self.conditions_carried = carried;
    }

    /// The caller's promise about the next sync: `input.history` is the memory the last sync
    /// of this evaluator left (its decision's `history.after`), as `simulate` carries it from
    /// one sync into the next, and the clock does not go back; so the stabilization envelope
    /// of a brief decision is kept from one sync to the next instead of walked over every
    /// remembered recommendation. The answer is the same either way; debug builds check the
    /// promise and compare the kept envelope with the walk at every sync.
    pub fn set_history_carried(&mut self, carried: bool) {
        self.history_carried = carried;
    }

    /// [`evaluate`], written over `out`: a decision of an earlier sync whose strings and
    /// vectors are reused. Every field of `out` is rewritten: the result is the one
    /// [`evaluate`] returns.
    pub fn evaluate_into(&mut self, input: &Input, out: &mut Decision) {
        let mut sync = Sync::start(input, out, self);
        let scale = match &input.scale {
            Err(e) => {
                sync.failed_get_scale(e);
                return sync.finish();
            }
            Ok(s) => s,
        };
        sync.succeeded_get_scale(scale);
        let current = scale.spec_replicas;
        let zero = sync.zero();
        let Some(desired) = sync.desired(scale, &zero) else {
            return sync.finish();
        };
        let final_desired = if desired.rescale {
            sync.rescale(current, &desired, &zero)
        } else {
            current
        };
        sync.conclude(current, final_desired, &desired.reason);
        sync.finish()
    }
}

/// One sync in progress: the answer being built (over the buffers of an earlier decision) and
/// what the controller records. The controller's memory is `decision.history.after`, updated in
/// place.
struct Sync<'a, 'd> {
    input: &'a Input,
    version: KubeVersion,
    tol: Tolerances,
    /// Its buffers, lent for the sync.
    evaluator: &'d mut Evaluator,
    /// The decision being written is `ctx.d`.
    ctx: Ctx<'d>,
    metrics: Vec<MetricOutcome>,
    /// This sync wrote `decision.normalization` (the last sync's is written over, or cleared
    /// at the end when this sync computed none).
    normalized: bool,
}

/// Scale to and from zero (HPAScaleToZero, 1.36+).
struct Zero {
    /// The gate is on and the release has it.
    gate: bool,
    /// The last status says `ScaledToZero=True`.
    scaled_to_zero: bool,
    /// Some metric is an Object or External metric (the only ones that can wake a target at 0).
    has_obj_ext: bool,
}

/// What the sync decided to set, before acting on it.
struct Desired {
    replicas: i32,
    /// The `SuccessfulRescale` event's reason.
    reason: String,
    rescale: bool,
}

/// Mirrors `reconcileAutoscaler`: one sync of one HPA. Never fails: what the controller treats
/// as an error is part of the answer.
pub fn evaluate(input: &Input) -> Decision {
    let mut d = blank_decision();
    Evaluator::new().evaluate_into(input, &mut d);
    d
}

impl<'a, 'd> Sync<'a, 'd> {
    fn start(
        input: &'a Input,
        decision: &'d mut Decision,
        evaluator: &'d mut Evaluator,
    ) -> Sync<'a, 'd> {
        let version = input.settings.version();
        // HPAGeneration (1.37): status.observedGeneration and each condition's observedGeneration.
        let generation = input.hpa.generation.filter(|_| version.at_least(37));
        let tol = tolerances(input);
        // The spec and settings were written into this very decision under this generation.
        let here = (decision as *const Decision) as usize;
        let spec = evaluator.spec_generation.map(|g| (g, here));
        let spec_kept = spec.is_some() && spec == evaluator.spec_written;
        evaluator.spec_written = spec;
        reset_decision(decision, input, tol, (generation, spec_kept));
        let mut metrics = std::mem::take(&mut decision.metrics);
        reset_outcomes(&mut metrics, &input.hpa.metrics);
        Sync {
            input,
            version,
            tol,
            ctx: Ctx::new(
                input,
                (generation, evaluator.conditions_carried),
                decision,
                &mut evaluator.valid_selector,
            ),
            evaluator,
            metrics,
            normalized: false,
        }
    }

    fn finish(self) {
        if !self.normalized {
            none(&mut self.ctx.d.normalization);
        }
        finish(self.ctx, &mut self.evaluator.valid_selector, self.metrics)
    }

    fn skip_all(&mut self, why: &str) {
        for m in &mut self.metrics {
            m.skipped = Some(why.into());
        }
    }

    fn zero(&self) -> Zero {
        let s = &self.input.settings;
        let gate = s.feature_gates.hpa_scale_to_zero && self.version.at_least(36);
        Zero {
            gate,
            scaled_to_zero: gate && self.ctx.is_true("ScaledToZero"),
            has_obj_ext: self
                .input
                .hpa
                .metrics
                .iter()
                .any(MetricSpec::is_object_or_external),
        }
    }

    /// The scale subresource could not be read: `AbleToScale=False FailedGetScale`.
    fn failed_get_scale(&mut self, e: &str) {
        let hpa = &self.input.hpa;
        self.ctx.set_condition(
            "AbleToScale",
            "False",
            "FailedGetScale",
            format_args!("the HPA controller was unable to get the target's current scale: {e}"),
        );
        self.ctx.event("Warning", "FailedGetScale", || e);
        self.ctx.step(Rule::FailedGetScale.as_str(), || {
            format!(
                "The target {} {} cannot be read: {e}. The controller stops here; nothing changes.",
                hpa.target_kind, hpa.target_name
            )
        });
        self.ctx.d.verdict = Verdict {
            action: Action::CannotScale,
            from: None,
            to: None,
            decided_by: Rule::FailedGetScale,
            summary: format!(
                "cannot read the scale of {} {}: {e}",
                hpa.target_kind, hpa.target_name
            ),
        };
        self.skip_all("the target's scale could not be read");
        // The controller returns before it computes anything and writes the status back
        // unchanged: its desiredReplicas stays the previous one (TestConditionFailedGetScale).
        self.ctx.d.desired_replicas = self.ctx.d.status.desired_replicas;
    }

    fn succeeded_get_scale(&mut self, scale: &Scale) {
        let hpa = &self.input.hpa;
        self.ctx.set_condition(
            "AbleToScale",
            "True",
            "SucceededGetScale",
            format_args!("the HPA controller was able to get the target's current scale"),
        );
        let current = scale.spec_replicas;
        self.ctx.d.current_replicas = Some(current);
        self.ctx.d.status.current_replicas = Some(current);
        self.ctx.step("SucceededGetScale", || {
            format!(
                "The scale of {} {} says spec.replicas={current}, status.replicas={}, selector {:?}.",
                hpa.target_kind, hpa.target_name, scale.status_replicas, scale.selector
            )
        });
    }

    /// The branch on the current replica count: disabled at 0, clamped into
    /// [minReplicas, maxReplicas], or computed from the metrics. None: the sync stops here.
    fn desired(&mut self, scale: &Scale, zero: &Zero) -> Option<Desired> {
        let (current, min, max) = (
            scale.spec_replicas,
            self.input.hpa.min_replicas,
            self.input.hpa.max_replicas,
        );
        let compute_at_zero = if self.version.at_least(36) {
            zero.scaled_to_zero && (min != 0 || zero.has_obj_ext)
        } else {
            min == 0
        };
        if current == 0 && !compute_at_zero {
            self.scaling_disabled(zero);
            None
        } else if current != 0 && current > max {
            self.ctx.step(Rule::AboveMaxReplicas.as_str(), || format!("current {current} > maxReplicas {max}: the controller sets {max} without reading metrics."));
            self.skip_all("current replicas are above maxReplicas");
            self.ctx.d.verdict.decided_by = Rule::AboveMaxReplicas;
            Some(Desired {
                replicas: max,
                reason: "Current number of replicas above Spec.MaxReplicas".into(),
                rescale: true,
            })
        } else if current != 0 && current < min {
            self.ctx.step(Rule::BelowMinReplicas.as_str(), || format!("current {current} < minReplicas {min}: the controller sets {min} without reading metrics."));
            self.skip_all("current replicas are below minReplicas");
            self.ctx.d.verdict.decided_by = Rule::BelowMinReplicas;
            Some(Desired {
                replicas: min,
                reason: "Current number of replicas below Spec.MinReplicas".into(),
                rescale: true,
            })
        } else {
            self.metrics_proposal(scale, zero)
        }
    }

    /// The target is at 0 and nothing can wake it: `ScalingActive=False ScalingDisabled`.
    fn scaling_disabled(&mut self, zero: &Zero) {
        self.ctx.set_condition(
            "ScalingActive",
            "False",
            "ScalingDisabled",
            format_args!("scaling is disabled since the replica count of the target is zero"),
        );
        if !zero.gate && self.version.at_least(36) {
            self.ctx.remove_condition("ScaledToZero");
        }
        self.ctx.step(Rule::ScalingDisabled.as_str(), || "The target has 0 replicas: the controller treats this as scaling disabled and reads no metrics.".to_string());
        self.skip_all("scaling is disabled (target at 0 replicas)");
        self.ctx.d.desired_replicas = Some(0);
        self.ctx.d.status.desired_replicas = Some(0);
        self.ctx.d.verdict = Verdict {
            action: Action::Disabled,
            from: Some(0),
            to: Some(0),
            decided_by: Rule::ScalingDisabled,
            summary: "scaling is disabled since the replica count of the target is zero".into(),
        };
    }

    /// `computeReplicasForMetrics`, then the normalization, and scale-from-zero's floor.
    fn metrics_proposal(&mut self, scale: &Scale, zero: &Zero) -> Option<Desired> {
        let current = scale.spec_replicas;
        let computed = compute_replicas_for_metrics(
            self.input,
            scale,
            &self.tol,
            &mut self.ctx,
            &mut self.metrics,
            &mut self.evaluator.scratch,
        );
        let proposal = match computed {
            Ok(v) => v,
            Err((rule, err)) => {
                self.failed_compute_metrics_replicas(current, rule, err);
                return None;
            }
        };
        self.ctx.d.proposal = Some(proposal);
        // The rescale's reason is words (event, summary): a brief decision has none.
        let mut reason = match proposal.max(0).cmp(&current) {
            _ if !self.ctx.narrates() => String::new(),
            std::cmp::Ordering::Greater => {
                let winner = self.metrics.iter().find(|m| m.winner);
                let name = winner.and_then(|m| m.description.as_deref());
                format!("{} above target", name.unwrap_or_default())
            }
            std::cmp::Ordering::Less => "All metrics below target".into(),
            std::cmp::Ordering::Equal => String::new(),
        };
        let (mut d, rule) = self.normalize(current, proposal);
        self.ctx.d.verdict.decided_by = rule;
        let min = self.input.hpa.min_replicas;
        if current == 0 && min != 0 && zero.scaled_to_zero && d < min {
            d = min;
            if reason.is_empty() {
                reason = "Current number of replicas below Spec.MinReplicas".into();
            }
            self.ctx.step(Rule::ScaleFromZeroMinReplicas.as_str(), || {
                format!("Scaling from zero: the result is raised to minReplicas {min}.")
            });
            self.ctx.d.verdict.decided_by = Rule::ScaleFromZeroMinReplicas;
        }
        Some(Desired {
            replicas: d,
            reason,
            rescale: d != current,
        })
    }

    /// No proposal: the `FailedComputeMetricsReplicas` event; the replica count stays.
    fn failed_compute_metrics_replicas(&mut self, current: i32, rule: Rule, err: String) {
        self.ctx
            .event("Warning", "FailedComputeMetricsReplicas", || err.clone());
        self.ctx.step(rule.as_str(), || {
            format!("No decision: {err}. The replica count stays at {current}.")
        });
        self.ctx.d.desired_replicas = Some(current);
        self.ctx.d.verdict = Verdict {
            action: Action::CannotScale,
            from: Some(current),
            to: Some(current),
            decided_by: rule,
            summary: err,
        };
    }

    /// Mirrors `normalizeDesiredReplicas` / `normalizeDesiredReplicasWithBehaviors`, and the
    /// `AbleToScale` and `ScalingLimited` conditions they set: written into
    /// `decision.normalization` (over the last sync's). Returns its result and the rule that
    /// decided it.
    fn normalize(&mut self, current: i32, proposal: i32) -> (i32, Rule) {
        let input = self.input;
        let (hpa, s) = (&input.hpa, &input.settings);
        let (min, max) = (hpa.min_replicas, hpa.max_replicas);
        let window = s.downscale_stabilization;
        let history = &mut self.ctx.d.history.after;
        let slot = &mut self.ctx.d.normalization;
        self.normalized = true;
        let norm = match &hpa.behavior {
            None => {
                // The envelope kept is of the behavior's windows.
                self.evaluator.envelope.forget();
                let n = normalize::without_behavior(
                    history, input.now, window, current, proposal, min, max,
                );
                slot.insert(n)
            }
            Some(b) => {
                // A brief decision lists no considered recommendations.
                let full = input.detail.narrates();
                let envelope = &mut self.evaluator.envelope;
                let kept = if self.evaluator.history_carried {
                    Some(envelope)
                } else {
                    envelope.forget();
                    None
                };
                let norm = slot.get_or_insert_with(normalize::blank);
                let ask = normalize::Ask {
                    now: input.now,
                    behavior: b,
                    downscale_default: window,
                    list: full,
                    current,
                    proposal,
                    bounds: (min, max),
                    own_direction_only: !self.version.at_least(25),
                };
                normalize::with_behavior_over(norm, (history, kept), ask);
                norm
            }
        };
        let decided = (norm.result, deciding_rule(norm, current, &self.metrics));
        let (st, l) = (&norm.stabilization, &norm.limits);
        let stabilized = (st.reason.as_str(), st.message);
        let limited = if norm.result == st.stabilized {
            "False"
        } else {
            "True"
        };
        let limits = (l.reason.as_str(), l.message);
        self.ctx.set_condition(
            "AbleToScale",
            "True",
            stabilized.0,
            format_args!("{}", stabilized.1),
        );
        self.ctx.set_condition(
            "ScalingLimited",
            limited,
            limits.0,
            format_args!("{}", limits.1),
        );
        describe_normalization(&mut self.ctx, current);
        decided
    }

    /// The rescale: `SucceededRescale`, the `SuccessfulRescale` event, `storeScaleEvent`, the
    /// `ScaledToZero` condition and `lastScaleTime`.
    fn rescale(&mut self, current: i32, desired: &Desired, zero: &Zero) -> i32 {
        let input = self.input;
        let (to, min) = (desired.replicas, input.hpa.min_replicas);
        self.ctx.set_condition(
            "AbleToScale",
            "True",
            "SucceededRescale",
            format_args!("the HPA controller was able to update the target scale to {to}"),
        );
        self.ctx.event("Normal", "SuccessfulRescale", || {
            format!("New size: {to}; reason: {}", desired.reason)
        });
        if let Some(b) = &input.hpa.behavior {
            normalize::store_scale_event(&mut self.ctx.d.history.after, b, input.now, current, to);
        }
        if zero.gate {
            if current > 0 && to == 0 && min == 0 && zero.has_obj_ext {
                self.ctx.set_condition(
                    "ScaledToZero",
                    "True",
                    "ScaledToZero",
                    format_args!("the HPA controller scaled the workload to zero"),
                );
            } else {
                self.ctx.set_condition(
                    "ScaledToZero",
                    "False",
                    "NotScaledToZero",
                    format_args!("the HPA controller did not scale the workload to zero"),
                );
            }
        } else if self.version.at_least(36) {
            self.ctx.remove_condition("ScaledToZero");
        }
        self.ctx.d.status.last_scale_time = Some(input.now);
        self.ctx.d.rescale_reason = Some(desired.reason.clone());
        to
    }

    /// Mirrors `setStatus`' desiredReplicas, and the verdict's action and sentence.
    fn conclude(&mut self, current: i32, final_desired: i32, reason: &str) {
        let d = &mut *self.ctx.d;
        d.desired_replicas = Some(final_desired);
        d.status.desired_replicas = Some(final_desired);
        d.verdict.action = match final_desired.cmp(&current) {
            std::cmp::Ordering::Greater => Action::ScaleUp,
            std::cmp::Ordering::Less => Action::ScaleDown,
            std::cmp::Ordering::Equal => Action::Hold,
        };
        d.verdict.from = Some(current);
        d.verdict.to = Some(final_desired);
        if self.input.detail.narrates() {
            d.verdict.summary = summary(d, &self.metrics, reason);
        }
    }
}

/// An empty decision, before any sync: what [`evaluate_into`] writes over.
pub(super) fn blank_decision() -> Decision {
    Decision {
        namespace: String::new(),
        name: String::new(),
        target: TargetRef {
            kind: String::new(),
            name: String::new(),
        },
        now: jiff::Timestamp::UNIX_EPOCH,
        current_replicas: None,
        desired_replicas: None,
        desired_range: None,
        min_replicas: 0,
        max_replicas: 0,
        verdict: Verdict {
            action: Action::CannotScale,
            from: None,
            to: None,
            decided_by: Rule::FailedGetScale,
            summary: String::new(),
        },
        metrics: vec![],
        proposal: None,
        rescale_reason: None,
        normalization: None,
        conditions: vec![],
        events: vec![],
        status: StatusOut {
            current_replicas: None,
            desired_replicas: None,
            current_metrics: vec![],
            last_scale_time: None,
            observed_generation: None,
        },
        steps: vec![],
        tolerance: Tolerances {
            down: 0.0,
            up: 0.0,
            legacy_abs: false,
            source: "",
        },
        behavior: None,
        settings: Settings::default(),
        assumptions: vec![],
        history: HistoryOut {
            given: History::default(),
            after: History::default(),
        },
        memory: None,
        last_sync: None,
        next_change: None,
    }
}

/// The decision before the sync starts: nothing read yet. Written over `d` in place, reusing
/// its buffers; the controller's memory (`history.after`) starts as the given one.
/// `spec_kept`: the names, behavior and settings are already `d`'s (the caller's promise,
/// [`Evaluator::set_spec_generation`]).
fn reset_decision(
    d: &mut Decision,
    input: &Input,
    tol: Tolerances,
    (generation, spec_kept): (Option<i64>, bool),
) {
    let hpa = &input.hpa;
    let full = input.detail.narrates();
    if spec_kept {
        debug_assert!(
            same_spec(d, input),
            "the spec or settings changed within a spec generation (the caller's promise)"
        );
    } else {
        copy_spec(d, input);
    }
    d.now = input.now;
    d.current_replicas = None;
    d.desired_replicas = None;
    d.desired_range = None;
    d.min_replicas = hpa.min_replicas;
    d.max_replicas = hpa.max_replicas;
    d.verdict.action = Action::CannotScale;
    d.verdict.from = None;
    d.verdict.to = None;
    // Every path of the sync sets the rule; until the scale is read, nothing else applies.
    d.verdict.decided_by = Rule::FailedGetScale;
    d.verdict.summary.clear();
    d.proposal = None;
    d.rescale_reason = None;
    // `d.normalization`: written over by the sync's normalization, or cleared at its end.
    d.status.current_replicas = None;
    d.status.desired_replicas = hpa.status.as_ref().map(|s| s.desired_replicas);
    d.status.last_scale_time = hpa
        .status
        .as_ref()
        .and_then(|s| s.last_scale_time.as_ref())
        .map(|t| t.0);
    d.status.observed_generation = generation;
    d.tolerance = tol;
    if full {
        d.assumptions = assumptions(input);
    } else {
        // Words: a brief decision has none.
        d.assumptions.clear();
    }
    // perf: benches/simulate. A numbers-only decision does not copy the history it started
    // from (the input's, which its caller has): one copy of the ~21 remembered
    // recommendations fewer per sync.
    if input.detail == Detail::Numbers {
        clear_history(&mut d.history.given);
    } else {
        copy_history(&mut d.history.given, &input.history);
    }
    copy_history(&mut d.history.after, &input.history);
    none(&mut d.memory);
    none(&mut d.last_sync);
    none(&mut d.next_change);
}

// perf: benches/simulate. A decision written over sync after sync has none of these: the
// check in line spares a call to their drop per field and sync (callgrind: -46 instructions
// per sync).
/// `*o = None`, dropping nothing when there is nothing (no call).
#[inline(always)]
fn none<T>(o: &mut Option<T>) {
    if o.is_some() {
        *o = None;
    }
}

/// The HPA's names, target and behavior and the settings, written into `d` (each compared
/// first: a decision written over sync after sync has them already).
fn copy_spec(d: &mut Decision, input: &Input) {
    let hpa = &input.hpa;
    for (to, from) in [
        (&mut d.namespace, &hpa.namespace),
        (&mut d.name, &hpa.name),
        (&mut d.target.kind, &hpa.target_kind),
        (&mut d.target.name, &hpa.target_name),
    ] {
        if !same_name(to, from) {
            to.clone_from(from);
        }
    }
    if d.behavior != hpa.behavior {
        d.behavior.clone_from(&hpa.behavior);
    }
    if d.settings != input.settings {
        d.settings.clone_from(&input.settings);
    }
}

/// Whether `d` holds the HPA's names, target and behavior and the settings already.
fn same_spec(d: &Decision, input: &Input) -> bool {
    let hpa = &input.hpa;
    d.namespace == hpa.namespace
        && d.name == hpa.name
        && d.target.kind == hpa.target_kind
        && d.target.name == hpa.target_name
        && d.behavior == hpa.behavior
        && d.settings == input.settings
}

/// `*to = from.clone()`, reusing `to`'s vectors.
fn copy_history(to: &mut History, from: &History) {
    to.recommendations.clone_from(&from.recommendations);
    to.scale_up_events.clone_from(&from.scale_up_events);
    to.scale_down_events.clone_from(&from.scale_down_events);
}

/// `*h = History::default()`, keeping `h`'s vectors.
fn clear_history(h: &mut History) {
    h.recommendations.clear();
    h.scale_up_events.clear();
    h.scale_down_events.clear();
}

/// One outcome per `spec.metrics` entry, nothing evaluated yet (reusing `out`'s strings).
fn reset_outcomes(out: &mut Vec<MetricOutcome>, specs: &[MetricSpec]) {
    out.truncate(specs.len());
    for (i, m) in specs.iter().enumerate() {
        if i == out.len() {
            out.push(MetricOutcome {
                type_: String::new(),
                description: None,
                proposed_replicas: None,
                error: None,
                status: None,
                winner: false,
                skipped: None,
                calculation: None,
                missing_request: None,
            });
        }
        let o = &mut out[i];
        if !same_name(&o.type_, m.type_name()) {
            o.type_.clear();
            o.type_.push_str(m.type_name());
        }
        o.description = None;
        o.proposed_replicas = None;
        o.error = None;
        none(&mut o.status);
        o.winner = false;
        // Every path of the sync sets it (None once the metric is evaluated).
        o.skipped = None;
        o.calculation = None;
        o.missing_request = None;
    }
}
