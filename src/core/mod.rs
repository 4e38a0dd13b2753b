//! The pure core: the HPA controller's algorithm (`horizontal.go` + `replica_calculator.go`)
//! over plain inputs, returning a [`Decision`] — the decision trace every output renders.
//!
//! No I/O happens here. [`evaluate`] never fails: unusable input is rejected earlier, when the
//! [`Input`] is built; everything the controller itself treats as an error (missing metrics, a
//! missing request, a target that cannot be read) is part of the answer.

pub mod calc;
pub mod model;
pub mod normalize;
pub mod settings;

use jiff::Timestamp;
use k8s_openapi::api::autoscaling::v2 as hpa_v2;
use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use serde::Serialize;

pub use calc::{Calculation, PodGroup, PodRow, Tolerances};
pub use model::*;
pub use normalize::Normalization;
pub use settings::{FeatureGates, KubeVersion, Settings};

use crate::quantity::{format_binary_si, format_decimal_si};

/// Version of the JSON contract (`apiVersion` of the output).
pub const CONTRACT_VERSION: &str = "kubectl-hpa.dev/v1";

/// What the controller would do now.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Action {
    ScaleUp,
    ScaleDown,
    Hold,
    /// The controller cannot compute a decision (replicas stay as they are).
    CannotScale,
    /// Scaling is disabled because the target is at 0 replicas.
    Disabled,
    /// Not the controller's decision: a read of ours failed (throttled, 5xx, timeout,
    /// unreadable, denied), so the controller's own view is unknown (`decidedBy: FetchFailed`).
    Unknown,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Verdict {
    pub action: Action,
    pub from: Option<i32>,
    pub to: Option<i32>,
    /// Identifier of the one rule that decided (e.g. `Tolerance`, `ScaleUpLimit`).
    pub decided_by: String,
    /// The same in words.
    pub summary: String,
}

/// One `spec.metrics` entry's outcome.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MetricOutcome {
    #[serde(rename = "type")]
    pub type_: String,
    /// The controller's description of the metric (`cpu resource utilization (percentage of request)`).
    pub description: Option<String>,
    pub proposed_replicas: Option<i32>,
    /// The error as the controller words it in the metric's event and condition.
    pub error: Option<String>,
    /// Exactly the autoscaling/v2 MetricStatus the controller writes (null when it failed or was not evaluated).
    pub status: Option<hpa_v2::MetricStatus>,
    /// Whether this metric's proposal won.
    pub winner: bool,
    /// Why the metric was not evaluated, if it was not.
    pub skipped: Option<String>,
    pub calculation: Option<Calculation>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Condition {
    #[serde(rename = "type")]
    pub type_: String,
    pub status: String,
    pub reason: String,
    pub message: String,
    pub last_transition_time: Option<Timestamp>,
    /// Set (or refreshed) by this sync; false = carried over from the HPA's status.
    pub set_this_sync: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Event {
    #[serde(rename = "type")]
    pub type_: String,
    pub reason: String,
    pub message: String,
}

/// A step of the explanation, in the order the controller takes them.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Step {
    pub rule: String,
    pub text: String,
}

/// The HPA status the controller would write.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct StatusOut {
    pub current_replicas: Option<i32>,
    pub desired_replicas: Option<i32>,
    pub current_metrics: Vec<hpa_v2::MetricStatus>,
    pub last_scale_time: Option<Timestamp>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HistoryOut {
    /// The history the computation started from.
    pub given: History,
    /// The controller's memory after this sync (what the next sync would start from).
    pub after: History,
}

/// The decision trace.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Decision {
    pub api_version: &'static str,
    pub kind: &'static str,
    pub namespace: String,
    pub name: String,
    pub target: TargetRef,
    pub now: Timestamp,
    /// The target's `spec.replicas` (null when the scale could not be read).
    pub current_replicas: Option<i32>,
    /// What the controller would set the target to now.
    pub desired_replicas: Option<i32>,
    pub min_replicas: i32,
    pub max_replicas: i32,
    pub verdict: Verdict,
    pub metrics: Vec<MetricOutcome>,
    /// The largest valid proposal (before stabilization and limits).
    pub proposal: Option<i32>,
    pub rescale_reason: Option<String>,
    pub normalization: Option<Normalization>,
    pub conditions: Vec<Condition>,
    pub events: Vec<Event>,
    pub status: StatusOut,
    pub steps: Vec<Step>,
    pub tolerance: Tolerances,
    /// The effective behavior, defaults filled in (null: the no-behavior path).
    pub behavior: Option<Behavior>,
    pub settings: Settings,
    pub assumptions: Vec<String>,
    pub history: HistoryOut,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TargetRef {
    pub kind: String,
    pub name: String,
}

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

struct Ctx {
    /// Build the narration (steps)?
    narrate: bool,
    conditions: Vec<Condition>,
    events: Vec<Event>,
    steps: Vec<Step>,
    now: Timestamp,
}

impl Ctx {
    fn set_condition(
        &mut self,
        type_: &str,
        status: &str,
        reason: &str,
        message: impl Into<String>,
    ) {
        let message = message.into();
        if let Some(c) = self.conditions.iter_mut().find(|c| c.type_ == type_) {
            if c.status != status {
                c.last_transition_time = Some(self.now);
            }
            c.status = status.into();
            c.reason = reason.into();
            c.message = message;
            c.set_this_sync = true;
        } else {
            self.conditions.push(Condition {
                type_: type_.into(),
                status: status.into(),
                reason: reason.into(),
                message,
                last_transition_time: Some(self.now),
                set_this_sync: true,
            });
        }
    }
    fn remove_condition(&mut self, type_: &str) {
        self.conditions.retain(|c| c.type_ != type_);
    }
    fn event(&mut self, type_: &str, reason: &str, message: impl Into<String>) {
        self.events.push(Event {
            type_: type_.into(),
            reason: reason.into(),
            message: message.into(),
        });
    }
    /// Record a step of the explanation (built only for the full explanation).
    fn step<S: Into<String>>(&mut self, rule: &str, text: impl FnOnce() -> S) {
        if !self.narrate {
            return;
        }
        self.steps.push(Step {
            rule: rule.into(),
            text: text().into(),
        });
    }
}

/// Run the controller's algorithm for one sync of one HPA.
pub fn evaluate(input: &Input) -> Decision {
    let hpa = &input.hpa;
    let s = &input.settings;
    let version = s.version();
    let tol = tolerances(input);
    let mut history = input.history.clone();
    let previous: Vec<Condition> = hpa
        .status
        .as_ref()
        .and_then(|st| st.conditions.as_ref())
        .map(|cs| {
            cs.iter()
                .map(|c| Condition {
                    type_: c.type_.clone(),
                    status: c.status.clone(),
                    reason: c.reason.clone().unwrap_or_default(),
                    message: c.message.clone().unwrap_or_default(),
                    last_transition_time: c.last_transition_time.as_ref().map(|t| t.0),
                    set_this_sync: false,
                })
                .collect()
        })
        .unwrap_or_default();
    let full = input.detail == Detail::Full;
    let mut ctx = Ctx {
        narrate: full,
        conditions: previous,
        events: vec![],
        steps: vec![],
        now: input.now,
    };
    let mut metrics: Vec<MetricOutcome> = hpa
        .metrics
        .iter()
        .map(|m| MetricOutcome {
            type_: m.type_name().to_string(),
            description: None,
            proposed_replicas: None,
            error: None,
            status: None,
            winner: false,
            skipped: Some("not evaluated".into()),
            calculation: None,
        })
        .collect();
    let mut decision = Decision {
        api_version: CONTRACT_VERSION,
        kind: "Explanation",
        namespace: hpa.namespace.clone(),
        name: hpa.name.clone(),
        target: TargetRef {
            kind: hpa.target_kind.clone(),
            name: hpa.target_name.clone(),
        },
        now: input.now,
        current_replicas: None,
        desired_replicas: None,
        min_replicas: hpa.min_replicas,
        max_replicas: hpa.max_replicas,
        verdict: Verdict {
            action: Action::CannotScale,
            from: None,
            to: None,
            decided_by: String::new(),
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
            desired_replicas: hpa.status.as_ref().map(|s| s.desired_replicas),
            current_metrics: vec![],
            last_scale_time: hpa
                .status
                .as_ref()
                .and_then(|s| s.last_scale_time.as_ref())
                .map(|t| t.0),
        },
        steps: vec![],
        tolerance: tol,
        behavior: hpa.behavior.clone(),
        settings: s.clone(),
        assumptions: if full { assumptions(input) } else { vec![] },
        history: HistoryOut {
            given: input.history.clone(),
            after: History::default(),
        },
    };

    // S1: the scale subresource.
    let scale = match &input.scale {
        Err(e) => {
            let msg =
                format!("the HPA controller was unable to get the target's current scale: {e}");
            ctx.set_condition("AbleToScale", "False", "FailedGetScale", msg);
            ctx.event("Warning", "FailedGetScale", e.clone());
            ctx.step("FailedGetScale", || format!("The target {} {} cannot be read: {e}. The controller stops here; nothing changes.", hpa.target_kind, hpa.target_name));
            decision.verdict = Verdict {
                action: Action::CannotScale,
                from: None,
                to: None,
                decided_by: "FailedGetScale".into(),
                summary: format!(
                    "cannot read the scale of {} {}: {e}",
                    hpa.target_kind, hpa.target_name
                ),
            };
            for m in &mut metrics {
                m.skipped = Some("the target's scale could not be read".into());
            }
            return finish(decision, ctx, metrics, history);
        }
        Ok(s) => s,
    };
    ctx.set_condition(
        "AbleToScale",
        "True",
        "SucceededGetScale",
        "the HPA controller was able to get the target's current scale",
    );
    let current = scale.spec_replicas;
    decision.current_replicas = Some(current);
    decision.status.current_replicas = Some(current);
    ctx.step("SucceededGetScale", || {
        format!(
            "The scale of {} {} says spec.replicas={current}, status.replicas={}, selector {:?}.",
            hpa.target_kind, hpa.target_name, scale.status_replicas, scale.selector
        )
    });

    let min = hpa.min_replicas;
    let max = hpa.max_replicas;
    let gate_zero = s.feature_gates.hpa_scale_to_zero && version.at_least(36);
    let scaled_to_zero_cond = gate_zero
        && ctx
            .conditions
            .iter()
            .find(|c| c.type_ == "ScaledToZero")
            .is_some_and(|c| c.status == "True");
    let has_obj_ext = hpa.metrics.iter().any(MetricSpec::is_object_or_external);

    // S2: branch on current.
    let compute_at_zero = if version.at_least(36) {
        scaled_to_zero_cond && (min != 0 || has_obj_ext)
    } else {
        min == 0
    };
    let mut rescale_reason = String::new();
    let desired: i32;
    let mut rescale = true;
    if current == 0 && !compute_at_zero {
        ctx.set_condition(
            "ScalingActive",
            "False",
            "ScalingDisabled",
            "scaling is disabled since the replica count of the target is zero",
        );
        if !gate_zero && version.at_least(36) {
            ctx.remove_condition("ScaledToZero");
        }
        ctx.step("ScalingDisabled", || "The target has 0 replicas: the controller treats this as scaling disabled and reads no metrics.".to_string());
        for m in &mut metrics {
            m.skipped = Some("scaling is disabled (target at 0 replicas)".into());
        }
        decision.desired_replicas = Some(0);
        decision.status.desired_replicas = Some(0);
        decision.verdict = Verdict {
            action: Action::Disabled,
            from: Some(0),
            to: Some(0),
            decided_by: "ScalingDisabled".into(),
            summary: "scaling is disabled since the replica count of the target is zero".into(),
        };
        return finish(decision, ctx, metrics, history);
    } else if current != 0 && current > max {
        rescale_reason = "Current number of replicas above Spec.MaxReplicas".into();
        desired = max;
        ctx.step("AboveMaxReplicas", || format!("current {current} > maxReplicas {max}: the controller sets {max} without reading metrics."));
        for m in &mut metrics {
            m.skipped = Some("current replicas are above maxReplicas".into());
        }
        decision.verdict.decided_by = "AboveMaxReplicas".into();
    } else if current != 0 && current < min {
        rescale_reason = "Current number of replicas below Spec.MinReplicas".into();
        desired = min;
        ctx.step("BelowMinReplicas", || format!("current {current} < minReplicas {min}: the controller sets {min} without reading metrics."));
        for m in &mut metrics {
            m.skipped = Some("current replicas are below minReplicas".into());
        }
        decision.verdict.decided_by = "BelowMinReplicas".into();
    } else {
        // S3 + S4 + S5.
        let computed = compute_metrics(input, scale, current, &tol, &mut ctx, &mut metrics);
        let (proposal, metric_name) = match computed {
            Ok(v) => v,
            Err((rule, err)) => {
                ctx.event("Warning", "FailedComputeMetricsReplicas", err.clone());
                ctx.step(&rule, || {
                    format!("No decision: {err}. The replica count stays at {current}.")
                });
                decision.desired_replicas = Some(current);
                decision.verdict = Verdict {
                    action: Action::CannotScale,
                    from: Some(current),
                    to: Some(current),
                    decided_by: rule,
                    summary: err,
                };
                return finish(decision, ctx, metrics, history);
            }
        };
        decision.proposal = Some(proposal);
        // S6.
        let p = proposal.max(0);
        if p > current {
            rescale_reason = format!("{metric_name} above target");
        } else if p < current {
            rescale_reason = "All metrics below target".into();
        }
        // S7.
        let norm = match &hpa.behavior {
            None => normalize::without_behavior(
                &mut history,
                input.now,
                s.downscale_stabilization,
                current,
                proposal,
                min,
                max,
            ),
            Some(b) => normalize::with_behavior(
                &mut history,
                input.now,
                b,
                s.downscale_stabilization,
                current,
                proposal,
                min,
                max,
                !version.at_least(25),
            ),
        };
        ctx.set_condition(
            "AbleToScale",
            "True",
            &norm.stabilization.reason,
            norm.stabilization.message.clone(),
        );
        let limited = if norm.result == norm.stabilization.stabilized {
            "False"
        } else {
            "True"
        };
        ctx.set_condition(
            "ScalingLimited",
            limited,
            &norm.limits.reason,
            norm.limits.message.clone(),
        );
        describe_normalization(&mut ctx, &norm, current);
        let mut d = norm.result;
        decision.verdict.decided_by = decided_by(&norm, current, &metrics);
        // Scale from zero with minReplicas.
        if current == 0 && min != 0 && scaled_to_zero_cond && d < min {
            d = min;
            if rescale_reason.is_empty() {
                rescale_reason = "Current number of replicas below Spec.MinReplicas".into();
            }
            ctx.step("ScaleFromZeroMinReplicas", || {
                format!("Scaling from zero: the result is raised to minReplicas {min}.")
            });
            decision.verdict.decided_by = "ScaleFromZeroMinReplicas".into();
        }
        decision.normalization = Some(norm);
        desired = d;
        rescale = desired != current;
    }

    // S8.
    let final_desired = if rescale {
        ctx.set_condition(
            "AbleToScale",
            "True",
            "SucceededRescale",
            format!("the HPA controller was able to update the target scale to {desired}"),
        );
        ctx.event(
            "Normal",
            "SuccessfulRescale",
            format!("New size: {desired}; reason: {rescale_reason}"),
        );
        if let Some(b) = &hpa.behavior {
            normalize::store_scale_event(&mut history, b, input.now, current, desired);
        }
        if gate_zero {
            if current > 0 && desired == 0 && min == 0 && has_obj_ext {
                ctx.set_condition(
                    "ScaledToZero",
                    "True",
                    "ScaledToZero",
                    "the HPA controller scaled the workload to zero",
                );
            } else {
                ctx.set_condition(
                    "ScaledToZero",
                    "False",
                    "NotScaledToZero",
                    "the HPA controller did not scale the workload to zero",
                );
            }
        } else if version.at_least(36) {
            ctx.remove_condition("ScaledToZero");
        }
        decision.status.last_scale_time = Some(input.now);
        decision.rescale_reason = Some(rescale_reason.clone());
        desired
    } else {
        current
    };
    decision.desired_replicas = Some(final_desired);
    decision.status.desired_replicas = Some(final_desired);
    decision.verdict.action = match final_desired.cmp(&current) {
        std::cmp::Ordering::Greater => Action::ScaleUp,
        std::cmp::Ordering::Less => Action::ScaleDown,
        std::cmp::Ordering::Equal => Action::Hold,
    };
    decision.verdict.from = Some(current);
    decision.verdict.to = Some(final_desired);
    if full {
        decision.verdict.summary = summary(&decision, &metrics, &rescale_reason);
    }
    finish(decision, ctx, metrics, history)
}

fn finish(mut d: Decision, ctx: Ctx, metrics: Vec<MetricOutcome>, history: History) -> Decision {
    d.status.current_metrics = metrics
        .iter()
        .filter(|m| m.skipped.is_none())
        .map(|m| {
            m.status.clone().unwrap_or(hpa_v2::MetricStatus {
                type_: String::new(),
                ..Default::default()
            })
        })
        .collect();
    d.metrics = metrics;
    d.conditions = ctx.conditions;
    d.events = ctx.events;
    d.steps = ctx.steps;
    d.history.after = history;
    d
}

fn assumptions(input: &Input) -> Vec<String> {
    let mut a = Vec::new();
    let s = &input.settings;
    a.push(format!(
        "controller behaviour of Kubernetes {} with feature gates {}",
        s.kubernetes_version,
        s.feature_gates
            .as_map()
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(",")
    ));
    a.push(format!(
        "controller flags: tolerance {}, cpu-initialization-period {}, initial-readiness-delay {}, downscale-stabilization {} (the real values are kube-controller-manager flags, not visible through the API)",
        s.tolerance,
        crate::duration::format_go_duration(s.cpu_initialization_period.as_nanos() as i64),
        crate::duration::format_go_duration(s.initial_readiness_delay.as_nanos() as i64),
        crate::duration::format_go_duration(s.downscale_stabilization.as_nanos() as i64),
    ));
    if input.history.is_empty() {
        a.push("no controller history: no past recommendations and no recent scale events (the controller keeps them in memory only; a stabilization window or rate policy may hold what is computed here)".into());
    } else {
        a.push(format!(
            "controller history given: {} recommendation(s), {} scale-up and {} scale-down event(s)",
            input.history.recommendations.len(),
            input.history.scale_up_events.len(),
            input.history.scale_down_events.len()
        ));
    }
    a
}

/// The metric's status quantity: BinarySI for memory averageValue from 1.34 on.
fn quantity_for(resource: Option<&str>, milli: i64, version: KubeVersion) -> Quantity {
    if resource == Some("memory") && version.at_least(34) {
        Quantity(format_binary_si(milli))
    } else {
        Quantity(format_decimal_si(milli))
    }
}

type MetricsResult = Result<(i32, String), (String, String)>;

/// S3–S5: selector checks, one proposal per metric, and their combination.
fn compute_metrics(
    input: &Input,
    scale: &Scale,
    current: i32,
    tol: &Tolerances,
    ctx: &mut Ctx,
    out: &mut [MetricOutcome],
) -> MetricsResult {
    let hpa = &input.hpa;
    // S3.
    let selector_error = if scale.selector.is_empty() {
        ctx.event("Warning", "SelectorRequired", "selector is required");
        ctx.set_condition(
            "ScalingActive",
            "False",
            "InvalidSelector",
            "the HPA target's scale is missing a selector",
        );
        Some(("InvalidSelector", "selector is required".to_string()))
    } else if let Err(e) = crate::labels::Selector::parse(&scale.selector) {
        let msg =
            format!("couldn't convert selector into a corresponding internal selector object: {e}");
        ctx.event("Warning", "InvalidSelector", msg.clone());
        ctx.set_condition("ScalingActive", "False", "InvalidSelector", msg.clone());
        Some(("InvalidSelector", msg))
    } else if !input.other_hpas_selecting.is_empty() {
        let mut keys: Vec<String> = vec![format!("{}/{}", hpa.namespace, hpa.name)];
        keys.extend(
            input
                .other_hpas_selecting
                .iter()
                .map(|n| format!("{}/{n}", hpa.namespace)),
        );
        keys.sort();
        keys.truncate(2);
        let msg = format!(
            "pods by selector {} are controlled by more than one HPA (e.g. [{}])",
            scale.selector,
            keys.join(" ")
        );
        ctx.event("Warning", "AmbiguousSelector", msg.clone());
        ctx.set_condition("ScalingActive", "False", "AmbiguousSelector", msg.clone());
        Some(("AmbiguousSelector", msg))
    } else {
        None
    };
    if let Some((rule, msg)) = selector_error {
        for m in out.iter_mut() {
            m.skipped = Some(format!("selector problem: {msg}"));
        }
        return Err((rule.to_string(), msg));
    }

    // S4.
    let version = input.settings.version();
    let mut best: i32 = 0;
    let mut best_name = String::new();
    let mut best_index: Option<usize> = None;
    let mut invalid = 0usize;
    let mut first_error: Option<(String, String, String)> = None; // (reason, condition error, wrapped)
    for (i, spec) in hpa.metrics.iter().enumerate() {
        let raw = hpa.raw_metrics.get(i);
        let data = input.metric_data.get(i).unwrap_or(&MetricData::None);
        let o = &mut out[i];
        o.skipped = None;
        let r = compute_one(
            input,
            spec,
            raw,
            data,
            current,
            scale.status_replicas,
            tol,
            version,
        );
        match r {
            Ok(ok) => {
                o.proposed_replicas = Some(ok.replicas);
                o.description = Some(ok.description.clone());
                o.status = Some(ok.status);
                o.calculation = Some(ok.calc);
                ctx.step("MetricProposal", || {
                    format!("{}: proposes {} replicas.", ok.description, ok.replicas)
                });
                if best == 0 || ok.replicas > best {
                    best = ok.replicas;
                    best_name = ok.description;
                    best_index = Some(i);
                }
            }
            Err(f) => {
                o.error = Some(f.error.clone());
                o.calculation = f.partial.map(|b| *b);
                o.description = f.description;
                ctx.event("Warning", f.reason, f.error.clone());
                ctx.step(f.reason, || {
                    format!(
                        "metric {} ({}) failed: {}",
                        i + 1,
                        spec.type_name(),
                        f.error
                    )
                });
                if first_error.is_none() {
                    first_error = Some((f.reason.to_string(), f.error.clone(), f.wrapped));
                }
                invalid += 1;
            }
        }
    }
    // S5.
    let n = hpa.metrics.len();
    if invalid >= n || (invalid > 0 && best < current) {
        let (reason, cond_err, wrapped) = first_error.unwrap_or_else(|| {
            (
                "InvalidMetricSourceType".into(),
                "no metrics".into(),
                "no metrics".into(),
            )
        });
        ctx.set_condition(
            "ScalingActive",
            "False",
            &reason,
            format!("the HPA was unable to compute the replica count: {cond_err}"),
        );
        let msg =
            format!("invalid metrics ({invalid} invalid out of {n}), first error is: {wrapped}");
        let rule = if invalid < n {
            "InvalidMetricBlocksScaleDown"
        } else {
            "InvalidMetrics"
        };
        return Err((rule.to_string(), msg));
    }
    if let Some(i) = best_index {
        out[i].winner = true;
    }
    ctx.set_condition(
        "ScalingActive",
        "True",
        "ValidMetricFound",
        format!("the HPA was able to successfully calculate a replica count from {best_name}"),
    );
    if invalid > 0 {
        ctx.step("InvalidMetricIgnored", || format!("{invalid} of {n} metrics failed, but the others propose {best} ≥ current {current}, so the controller still acts (a failing metric only blocks scale-down)."));
    }
    Ok((best, best_name))
}

/// How `computeReplicasForMetric` wraps a metric's error.
type Wrap<'a> = Box<dyn Fn(&str) -> String + 'a>;

struct OneOk {
    replicas: i32,
    description: String,
    status: hpa_v2::MetricStatus,
    calc: Calculation,
}

struct OneErr {
    reason: &'static str,
    /// The error in the metric's event and condition.
    error: String,
    /// The error as `computeReplicasForMetric` returns it (in FailedComputeMetricsReplicas).
    wrapped: String,
    description: Option<String>,
    partial: Option<Box<Calculation>>,
}

#[allow(clippy::too_many_arguments)]
fn compute_one(
    input: &Input,
    spec: &MetricSpec,
    raw: Option<&hpa_v2::MetricSpec>,
    data: &MetricData,
    current: i32,
    status_replicas: i32,
    tol: &Tolerances,
    version: KubeVersion,
) -> Result<OneOk, OneErr> {
    use calc::PodMetricKind;
    let err =
        |reason: &'static str, error: String, wrap: &dyn Fn(&str) -> String, partial| OneErr {
            reason,
            wrapped: wrap(&error),
            error,
            description: None,
            partial,
        };
    match spec {
        MetricSpec::Resource { resource, target }
        | MetricSpec::ContainerResource {
            resource, target, ..
        } => {
            let container = match spec {
                MetricSpec::ContainerResource { container, .. } => Some(container.as_str()),
                _ => None,
            };
            let (reason, wrap): (&'static str, Wrap) = match container {
                None => (
                    "FailedGetResourceMetric",
                    Box::new(move |e: &str| {
                        format!("failed to get {resource} resource metric value: {e}")
                    }),
                ),
                Some(c) => (
                    "FailedGetContainerResourceMetric",
                    Box::new(move |e: &str| {
                        format!("failed to get {c} container metric value: {e}")
                    }),
                ),
            };
            let (kind, what) = if let Some(v) = target.average_value {
                (
                    PodMetricKind::RawResource {
                        resource,
                        container,
                        target: v,
                    },
                    "usage",
                )
            } else if let Some(u) = target.average_utilization {
                (
                    PodMetricKind::Utilization {
                        resource,
                        container,
                        target: u,
                    },
                    "utilization",
                )
            } else {
                return Err(err(
                    reason,
                    "invalid resource metric source: neither an average utilization target nor an average value (usage) target was set".into(),
                    &*wrap,
                    None,
                ));
            };
            let is_util = what == "utilization";
            match calc::pod_average(input, kind, data, current, tol) {
                Ok(p) => {
                    let description = match (container.is_some(), is_util) {
                        (false, true) => {
                            format!("{resource} resource utilization (percentage of request)")
                        }
                        (true, true) => format!(
                            "{resource} container resource utilization (percentage of request)"
                        ),
                        (false, false) => format!("{resource} resource"),
                        (true, false) => format!("{resource} container resource"),
                    };
                    let current_status = hpa_v2::MetricValueStatus {
                        average_utilization: p.current_utilization,
                        average_value: Some(if is_util {
                            Quantity(format_decimal_si(p.current_value))
                        } else {
                            quantity_for(Some(resource), p.current_value, version)
                        }),
                        value: None,
                    };
                    let status = match container {
                        None => hpa_v2::MetricStatus {
                            type_: "Resource".into(),
                            resource: Some(hpa_v2::ResourceMetricStatus {
                                name: resource.clone(),
                                current: current_status,
                            }),
                            ..Default::default()
                        },
                        Some(c) => hpa_v2::MetricStatus {
                            type_: "ContainerResource".into(),
                            container_resource: Some(hpa_v2::ContainerResourceMetricStatus {
                                name: resource.clone(),
                                container: c.to_string(),
                                current: current_status,
                            }),
                            ..Default::default()
                        },
                    };
                    Ok(OneOk {
                        replicas: p.replicas,
                        description,
                        status,
                        calc: p.calc,
                    })
                }
                Err(f) => Err(err(
                    reason,
                    format!("failed to get {resource} {what}: {}", f.error),
                    &*wrap,
                    f.partial,
                )),
            }
        }
        MetricSpec::Pods { metric, target } => {
            let wrap = |e: &str| format!("failed to get pods metric value: {e}");
            let Some(t) = target.average_value else {
                return Err(err(
                    "FailedGetPodsMetric",
                    "invalid pods metric source: an average value target was not set".into(),
                    &wrap,
                    None,
                ));
            };
            match calc::pod_average(
                input,
                PodMetricKind::Pods { metric, target: t },
                data,
                current,
                tol,
            ) {
                Ok(p) => {
                    let raw_metric = raw.and_then(|r| r.pods.as_ref()).map(|p| p.metric.clone());
                    Ok(OneOk {
                        replicas: p.replicas,
                        description: format!("pods metric {metric}"),
                        status: hpa_v2::MetricStatus {
                            type_: "Pods".into(),
                            pods: Some(hpa_v2::PodsMetricStatus {
                                metric: raw_metric.unwrap_or(hpa_v2::MetricIdentifier {
                                    name: metric.clone(),
                                    selector: None,
                                }),
                                current: hpa_v2::MetricValueStatus {
                                    average_value: Some(Quantity(format_decimal_si(
                                        p.current_value,
                                    ))),
                                    ..Default::default()
                                },
                            }),
                            ..Default::default()
                        },
                        calc: p.calc,
                    })
                }
                Err(f) => Err(err("FailedGetPodsMetric", f.error, &wrap, f.partial)),
            }
        }
        MetricSpec::Object {
            kind,
            object,
            metric,
            target,
        } => {
            let ns = &input.hpa.namespace;
            let wrap_value = |e: &str| format!("failed to get object metric value: {e}");
            let fetch = || -> Result<i64, String> {
                match data {
                    MetricData::Object(Ok(s)) => Ok(s.value),
                    MetricData::Object(Err(e)) => Err(format!(
                        "unable to get metric {metric} on {kind} {ns}/{object}: {e}"
                    )),
                    _ => Err(format!(
                        "unable to get metric {metric} on {kind} {ns}/{object}: unable to fetch metrics from custom metrics API: the server could not find the metric {metric} for {kind} {object}"
                    )),
                }
            };
            let raw_obj = raw.and_then(|r| r.object.as_ref());
            let mk_status = |cur: hpa_v2::MetricValueStatus| hpa_v2::MetricStatus {
                type_: "Object".into(),
                object: Some(hpa_v2::ObjectMetricStatus {
                    described_object: raw_obj
                        .map(|o| o.described_object.clone())
                        .unwrap_or_default(),
                    metric: raw_obj.map(|o| o.metric.clone()).unwrap_or_default(),
                    current: cur,
                }),
                ..Default::default()
            };
            if target.type_ == "Value" && target.value.is_some() {
                let t = target.value.unwrap_or(1);
                let usage =
                    fetch().map_err(|e| err("FailedGetObjectMetric", e, &wrap_value, None))?;
                let p = calc::value_target(input, usage, t, current, tol)
                    .map_err(|e| err("FailedGetObjectMetric", e, &wrap_value, None))?;
                Ok(OneOk {
                    replicas: p.replicas,
                    description: format!("{kind} metric {metric}"),
                    status: mk_status(hpa_v2::MetricValueStatus {
                        value: Some(Quantity(format_decimal_si(usage))),
                        ..Default::default()
                    }),
                    calc: p.calc,
                })
            } else if target.type_ == "AverageValue" && target.average_value.is_some() {
                let t = target.average_value.unwrap_or(1);
                let wrap = |e: &str| {
                    format!("failed to get object metric value: failed to get {metric} object metric: {e}")
                };
                let usage = fetch().map_err(|e| err("FailedGetObjectMetric", e, &wrap, None))?;
                let p = calc::average_value_target(usage, t, status_replicas, false, tol);
                let selector_text = selector_text(raw_obj.and_then(|o| o.metric.selector.as_ref()));
                Ok(OneOk {
                    replicas: p.replicas,
                    description: format!("external metric {metric}({selector_text})"),
                    status: mk_status(hpa_v2::MetricValueStatus {
                        average_value: Some(Quantity(format_decimal_si(p.current_value))),
                        ..Default::default()
                    }),
                    calc: p.calc,
                })
            } else {
                Err(err(
                    "FailedGetObjectMetric",
                    "invalid object metric source: neither a value target nor an average value target was set".into(),
                    &wrap_value,
                    None,
                ))
            }
        }
        MetricSpec::External {
            metric,
            selector_text,
            target,
        } => {
            let ns = &input.hpa.namespace;
            let values = match data {
                MetricData::External(Ok(v)) if !v.is_empty() => Ok(v.clone()),
                MetricData::External(Err(e)) => Err(e.clone()),
                _ => Err("no metrics returned from external metrics API".to_string()),
            };
            let fetch_err = |e: &str| {
                format!("unable to get external metric {ns}/{metric}/{selector_text}: {e}")
            };
            let raw_ext = raw.and_then(|r| r.external.as_ref());
            let mk_status = |cur: hpa_v2::MetricValueStatus| hpa_v2::MetricStatus {
                type_: "External".into(),
                external: Some(hpa_v2::ExternalMetricStatus {
                    metric: raw_ext
                        .map(|o| o.metric.clone())
                        .unwrap_or(hpa_v2::MetricIdentifier {
                            name: metric.clone(),
                            selector: None,
                        }),
                    current: cur,
                }),
                ..Default::default()
            };
            let description = format!("external metric {metric}({selector_text})");
            if let Some(t) = target.average_value {
                let wrap = |e: &str| {
                    format!("failed to get {metric} external metric value: failed to get {metric} external metric: {e}")
                };
                let values = values
                    .map_err(|e| err("FailedGetExternalMetric", fetch_err(&e), &wrap, None))?;
                // Summed with an overflow guard: a negative sum saturates to i64::MAX.
                let mut usage: i64 = 0;
                for v in &values {
                    usage = usage.wrapping_add(v.value);
                    if usage < 0 {
                        usage = i64::MAX;
                    }
                }
                let p = calc::average_value_target(usage, t, status_replicas, true, tol);
                Ok(OneOk {
                    replicas: p.replicas,
                    description,
                    status: mk_status(hpa_v2::MetricValueStatus {
                        average_value: Some(Quantity(format_decimal_si(p.current_value))),
                        ..Default::default()
                    }),
                    calc: p.calc,
                })
            } else if let Some(t) = target.value {
                let wrap = |e: &str| {
                    format!("failed to get {metric} external metric value: failed to get external metric {metric}: {e}")
                };
                let values = values
                    .map_err(|e| err("FailedGetExternalMetric", fetch_err(&e), &wrap, None))?;
                let mut usage: i64 = 0;
                for v in &values {
                    if v.value > 0 && usage > i64::MAX - v.value {
                        usage = i64::MAX;
                    } else {
                        usage = usage.saturating_add(v.value);
                    }
                }
                let p = calc::value_target(input, usage, t, current, tol)
                    .map_err(|e| err("FailedGetExternalMetric", e, &wrap, None))?;
                Ok(OneOk {
                    replicas: p.replicas,
                    description,
                    status: mk_status(hpa_v2::MetricValueStatus {
                        value: Some(Quantity(format_decimal_si(usage))),
                        ..Default::default()
                    }),
                    calc: p.calc,
                })
            } else {
                let wrap = |e: &str| format!("failed to get {metric} external metric value: {e}");
                Err(err(
                    "FailedGetExternalMetric",
                    "invalid external metric source: neither a value target nor an average value target was set".into(),
                    &wrap,
                    None,
                ))
            }
        }
        MetricSpec::Unknown { type_name } => {
            let e = format!("unknown metric source type {type_name:?}");
            Err(OneErr {
                reason: "InvalidMetricSourceType",
                wrapped: e.clone(),
                error: e,
                description: None,
                partial: None,
            })
        }
    }
}

/// `%+v` of a `*metav1.LabelSelector`, as the controller prints it in descriptions and errors.
pub fn selector_text(
    sel: Option<&k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector>,
) -> String {
    let Some(sel) = sel else {
        return "nil".into();
    };
    let mut labels = String::new();
    if let Some(ml) = &sel.match_labels {
        for (k, v) in ml {
            labels.push_str(&format!("{k}: {v},"));
        }
    }
    let mut exprs = String::new();
    for e in sel.match_expressions.iter().flatten() {
        exprs.push_str(&format!(
            "LabelSelectorRequirement{{Key:{},Operator:{},Values:[{}],}},",
            e.key,
            e.operator,
            e.values.clone().unwrap_or_default().join(" ")
        ));
    }
    format!(
        "&LabelSelector{{MatchLabels:map[string]string{{{labels}}},MatchExpressions:[]LabelSelectorRequirement{{{exprs}}},}}"
    )
}

fn describe_normalization(ctx: &mut Ctx, n: &Normalization, current: i32) {
    let st = &n.stabilization;
    if st.stabilized != n.proposal {
        ctx.step(&st.reason, || {
            format!(
                "Stabilization: proposal {} becomes {} ({}).",
                n.proposal, st.stabilized, st.message
            )
        });
    } else {
        ctx.step("Stabilization", || {
            format!("Stabilization leaves the proposal at {}.", n.proposal)
        });
    }
    let l = &n.limits;
    if n.result != st.stabilized {
        ctx.step(&l.reason, || {
            format!(
                "Limits: {} becomes {} ({}).",
                st.stabilized, n.result, l.message
            )
        });
    } else {
        ctx.step("DesiredWithinRange", || {
            format!(
                "Limits: {} is within the allowed range (current {current}).",
                n.result
            )
        });
    }
}

/// The one rule that decided the outcome of a normal sync.
fn decided_by(n: &Normalization, current: i32, metrics: &[MetricOutcome]) -> String {
    if n.result != n.stabilization.stabilized {
        if n.limits.rate_limit == Some(current)
            && n.limits.select_policy == Some(SelectPolicy::Disabled)
        {
            return "SelectPolicyDisabled".into();
        }
        return n.limits.reason.clone();
    }
    if n.stabilization.stabilized != n.proposal {
        return n.stabilization.reason.clone();
    }
    if n.result == current {
        let winner = metrics.iter().find(|m| m.winner);
        let within = winner
            .and_then(|m| m.calculation.as_ref())
            .map(|c| match c {
                Calculation::PodAverage {
                    within_tolerance, ..
                }
                | Calculation::Value {
                    within_tolerance, ..
                }
                | Calculation::AverageValue {
                    within_tolerance, ..
                } => *within_tolerance,
            })
            .unwrap_or(false);
        if within {
            return "Tolerance".into();
        }
        return "MetricsMatchCurrent".into();
    }
    "MetricProposal".into()
}

fn summary(d: &Decision, metrics: &[MetricOutcome], reason: &str) -> String {
    let (Some(from), Some(to)) = (d.verdict.from, d.verdict.to) else {
        return String::new();
    };
    let winner = metrics
        .iter()
        .find(|m| m.winner)
        .and_then(|m| m.description.clone());
    let why = match d.verdict.decided_by.as_str() {
        "AboveMaxReplicas" | "BelowMinReplicas" => reason.to_string(),
        "Tolerance" => format!(
            "{} is within the tolerance band",
            winner.unwrap_or_else(|| "the metric".into())
        ),
        "ScaleDownStabilized" => {
            "a higher recommendation inside the scale-down stabilization window holds it".into()
        }
        "ScaleUpStabilized" => {
            "a lower recommendation inside the scale-up stabilization window holds it".into()
        }
        "ScaleUpLimit" => "the scale-up rate limit caps it".into(),
        "ScaleDownLimit" => "the scale-down rate limit caps it".into(),
        "TooManyReplicas" => format!("capped at maxReplicas {}", d.max_replicas),
        "TooFewReplicas" => format!("raised to minReplicas {}", d.min_replicas),
        "SelectPolicyDisabled" => "the selectPolicy of this direction is Disabled".into(),
        "MetricsMatchCurrent" => "the metrics propose the current replica count".into(),
        _ => {
            if to > from {
                format!("{} above target", winner.unwrap_or_default())
            } else if to < from {
                "all metrics below target".into()
            } else {
                "the metrics propose the current replica count".into()
            }
        }
    };
    match to.cmp(&from) {
        std::cmp::Ordering::Greater => format!("scale up from {from} to {to}: {why}"),
        std::cmp::Ordering::Less => format!("scale down from {from} to {to}: {why}"),
        std::cmp::Ordering::Equal => format!("hold at {from}: {why}"),
    }
}

#[cfg(test)]
mod tests;
