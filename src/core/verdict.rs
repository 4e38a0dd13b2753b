//! The explanation around the controller's answer: which rule decided it, the sentence that
//! says so, the normalization's steps, and the assumptions the computation rests on. None of
//! this is in the controller; it narrates what `reconcileAutoscaler` did.

use super::calc::Calculation;
use super::model::{Input, SelectPolicy};
use super::normalize::Normalization;
use super::rule::Rule;
use super::status::Ctx;
use super::{Decision, MetricOutcome};

/// The one rule that decided the outcome of a sync that normalized a proposal.
pub(super) fn deciding_rule(n: &Normalization, current: i32, metrics: &[MetricOutcome]) -> Rule {
    if n.result != n.stabilization.stabilized {
        if n.limits.rate_limit == Some(current)
            && n.limits.select_policy == Some(SelectPolicy::Disabled)
        {
            return Rule::SelectPolicyDisabled;
        }
        return n.limits.reason;
    }
    if n.stabilization.stabilized != n.proposal {
        return n.stabilization.reason;
    }
    if n.result != current {
        return Rule::MetricProposal;
    }
    let within = metrics
        .iter()
        .find(|m| m.winner)
        .and_then(|m| m.calculation.as_ref())
        .is_some_and(|c| match c {
            Calculation::PodAverage {
                within_tolerance, ..
            }
            | Calculation::Value {
                within_tolerance, ..
            }
            | Calculation::AverageValue {
                within_tolerance, ..
            } => *within_tolerance,
        });
    if within {
        Rule::Tolerance
    } else {
        Rule::MetricsMatchCurrent
    }
}

/// The stabilization and limit steps of the explanation, from the sync's normalization
/// (`ctx.d.normalization`); a brief decision has none.
pub(super) fn describe_normalization(ctx: &mut Ctx<'_>, current: i32) {
    let Some(n) = ctx.d.normalization.as_ref().filter(|_| ctx.narrates()) else {
        return;
    };
    // The steps are pushed into the decision the normalization is read from.
    let n = n.clone();
    let st = &n.stabilization;
    if st.stabilized != n.proposal {
        ctx.step(st.reason.as_str(), || {
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
        ctx.step(l.reason.as_str(), || {
            format!(
                "Limits: {} becomes {} ({}).",
                st.stabilized, n.result, l.message
            )
        });
    } else {
        ctx.step(Rule::DesiredWithinRange.as_str(), || {
            format!(
                "Limits: {} is within the allowed range (current {current}).",
                n.result
            )
        });
    }
}

/// The verdict in one sentence: the action and the rule's reason in words.
pub(super) fn summary(d: &Decision, metrics: &[MetricOutcome], reason: &str) -> String {
    let (Some(from), Some(to)) = (d.verdict.from, d.verdict.to) else {
        return String::new();
    };
    let winner = metrics
        .iter()
        .find(|m| m.winner)
        .and_then(|m| m.description.clone());
    let why = match d.verdict.decided_by {
        Rule::AboveMaxReplicas | Rule::BelowMinReplicas => reason.to_string(),
        Rule::Tolerance => format!(
            "{} is within the tolerance band",
            winner.unwrap_or_else(|| "the metric".into())
        ),
        Rule::ScaleDownStabilized => {
            "a higher recommendation inside the scale-down stabilization window holds it".into()
        }
        Rule::ScaleUpStabilized => {
            "a lower recommendation inside the scale-up stabilization window holds it".into()
        }
        Rule::ScaleUpLimit => "the scale-up rate limit caps it".into(),
        Rule::ScaleDownLimit => "the scale-down rate limit caps it".into(),
        Rule::TooManyReplicas => format!("capped at maxReplicas {}", d.max_replicas),
        Rule::TooFewReplicas => format!("raised to minReplicas {}", d.min_replicas),
        Rule::SelectPolicyDisabled => "the selectPolicy of this direction is Disabled".into(),
        Rule::MetricsMatchCurrent => "the metrics propose the current replica count".into(),
        _ => match to.cmp(&from) {
            std::cmp::Ordering::Greater => format!("{} above target", winner.unwrap_or_default()),
            std::cmp::Ordering::Less => "all metrics below target".into(),
            std::cmp::Ordering::Equal => "the metrics propose the current replica count".into(),
        },
    };
    match to.cmp(&from) {
        std::cmp::Ordering::Greater => format!("scale up from {from} to {to}: {why}"),
        std::cmp::Ordering::Less => format!("scale down from {from} to {to}: {why}"),
        std::cmp::Ordering::Equal => format!("hold at {from}: {why}"),
    }
}

/// What the computation assumes about the controller (its release, flags and memory).
pub(super) fn assumptions(input: &Input) -> Vec<String> {
    let s = &input.settings;
    let go = |d: jiff::SignedDuration| crate::duration::format_go_duration(d.as_nanos() as i64);
    let gates = s
        .feature_gates
        .as_map()
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join(",");
    let mut a = vec![
        format!(
            "controller behaviour of Kubernetes {} ({}) with feature gates {gates}",
            s.kubernetes_version, s.kubernetes_version_source,
        ),
        format!(
            "controller flags: tolerance {}, cpu-initialization-period {}, initial-readiness-delay {}, downscale-stabilization {} ({})",
            s.tolerance,
            go(s.cpu_initialization_period),
            go(s.initial_readiness_delay),
            go(s.downscale_stabilization),
            s.flags_origin().map_or(
                "the real values are kube-controller-manager flags, not visible through the API".into(),
                |o| format!("{o}; a flag given on the command line wins")
            ),
        ),
    ];
    let h = &input.history;
    if h.is_empty() {
        a.push("no controller history: no past recommendations and no recent scale events (the controller keeps them in memory only; a stabilization window or rate policy may hold what is computed here)".into());
    } else {
        a.push(format!(
            "controller history given: {} recommendation(s), {} scale-up and {} scale-down event(s)",
            h.recommendations.len(),
            h.scale_up_events.len(),
            h.scale_down_events.len()
        ));
    }
    a
}
