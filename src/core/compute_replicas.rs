//! Mirrors `computeReplicasForMetrics`: the selector checks, one proposal per metric, and their
//! combination (the largest valid proposal; a failing metric blocks only a scale-down).

use super::calc::Scratch;
use super::compare::same_name;
use super::metric_sources::{compute_replicas_for_metric, MetricErr, MetricInputs, MetricOk};
use super::model::{Input, MetricData, Scale};
use super::rule::Rule;
use super::status::Ctx;
use super::{MetricOutcome, Tolerances};

/// The largest proposal (its metric is marked as the winner), or the rule that stopped the sync
/// with the error the controller reports in `FailedComputeMetricsReplicas`.
pub(super) type MetricsResult = Result<i32, (Rule, String)>;

/// The first failure, kept for the condition and the event.
struct FirstError {
    reason: &'static str,
    /// The error in the condition.
    error: String,
    /// The error in the event.
    wrapped: String,
}

/// Mirrors `computeReplicasForMetrics`.
pub(super) fn compute_replicas_for_metrics(
    input: &Input,
    scale: &Scale,
    tol: &Tolerances,
    ctx: &mut Ctx,
    out: &mut [MetricOutcome],
    scratch: &mut Scratch,
) -> MetricsResult {
    if let Err((rule, msg)) = validate_and_parse_selector(input, scale, ctx) {
        for m in out.iter_mut() {
            m.skipped = Some(format!("selector problem: {msg}"));
        }
        return Err((rule, msg));
    }
    let current = scale.spec_replicas;
    let version = input.settings.version();
    let mut best: i32 = 0;
    let mut best_index: Option<usize> = None;
    let mut invalid = 0usize;
    let mut first_error: Option<FirstError> = None;
    for (i, spec) in input.hpa.metrics.iter().enumerate() {
        let inputs = MetricInputs {
            input,
            raw: input.hpa.raw_metrics.get(i),
            data: input.metric_data.get(i).unwrap_or(&MetricData::None),
            current,
            status_replicas: scale.status_replicas,
            tol,
            version,
        };
        out[i].skipped = None;
        match compute_replicas_for_metric(spec, &inputs, scratch, &mut out[i].calculation) {
            Ok(ok) => {
                if best == 0 || ok.replicas > best {
                    best = ok.replicas;
                    best_index = Some(i);
                }
                record_proposal(ctx, &mut out[i], ok);
            }
            Err(f) => {
                let failure = record_failure(ctx, &mut out[i], i, spec.type_name(), f);
                first_error.get_or_insert(failure);
                invalid += 1;
            }
        }
    }
    let n = input.hpa.metrics.len();
    if invalid >= n || (invalid > 0 && best < current) {
        return Err(invalid_metrics(ctx, first_error, invalid, n));
    }
    let mut best_name = "";
    if let Some(i) = best_index {
        out[i].winner = true;
        best_name = out[i].description.as_deref().unwrap_or_default();
    }
    ctx.set_condition(
        "ScalingActive",
        "True",
        "ValidMetricFound",
        format_args!("the HPA was able to successfully calculate a replica count from {best_name}"),
    );
    if invalid > 0 {
        ctx.step("InvalidMetricIgnored", || format!("{invalid} of {n} metrics failed, but the others propose {best} ≥ current {current}, so the controller still acts (a failing metric only blocks scale-down)."));
    }
    Ok(best)
}

fn record_proposal(ctx: &mut Ctx, o: &mut MetricOutcome, ok: MetricOk) {
    ctx.step("MetricProposal", || {
        let description = ok.description.as_deref().unwrap_or_default();
        format!("{description}: proposes {} replicas.", ok.replicas)
    });
    o.proposed_replicas = Some(ok.replicas);
    o.description = ok.description;
    // Only when built: assigning a `None` would still copy the whole (inline) MetricStatus.
    if let Some(status) = ok.status {
        o.status = Some(*status);
    }
}

/// The metric's event (`getUnableComputeReplicaCountCondition`'s reason) and outcome.
fn record_failure(
    ctx: &mut Ctx,
    o: &mut MetricOutcome,
    i: usize,
    type_name: &str,
    f: MetricErr,
) -> FirstError {
    ctx.event("Warning", f.reason, || f.error.clone());
    ctx.step(f.reason, || {
        format!("metric {} ({type_name}) failed: {}", i + 1, f.error)
    });
    o.error = Some(f.error.clone());
    o.calculation = f.partial.map(|b| *b);
    o.missing_request = f.missing_request.map(|b| *b);
    o.description = f.description;
    FirstError {
        reason: f.reason,
        error: f.error,
        wrapped: f.wrapped,
    }
}

/// Every metric failed, or one failed and the others propose a scale-down: `ScalingActive=False`
/// with the first error.
fn invalid_metrics(
    ctx: &mut Ctx,
    first_error: Option<FirstError>,
    invalid: usize,
    n: usize,
) -> (Rule, String) {
    let first = first_error.unwrap_or_else(|| FirstError {
        reason: "InvalidMetricSourceType",
        error: "no metrics".into(),
        wrapped: "no metrics".into(),
    });
    ctx.set_condition(
        "ScalingActive",
        "False",
        first.reason,
        format_args!(
            "the HPA was unable to compute the replica count: {}",
            first.error
        ),
    );
    let msg = format!(
        "invalid metrics ({invalid} invalid out of {n}), first error is: {}",
        first.wrapped
    );
    let rule = if invalid < n {
        Rule::InvalidMetricBlocksScaleDown
    } else {
        Rule::InvalidMetrics
    };
    (rule, msg)
}

/// Whether `selector` parses (`labels.Parse`); `last_valid` remembers the last one that did.
fn parse_selector(
    selector: &str,
    last_valid: &mut String,
) -> Result<(), crate::labels::SelectorError> {
    if same_name(last_valid, selector) {
        return Ok(());
    }
    crate::labels::Selector::parse(selector)?;
    last_valid.clear();
    last_valid.push_str(selector);
    Ok(())
}

/// The AmbiguousSelector text, with or without the optimized selector store (kubernetes PR
/// #139142, gate `HPAOptimizedSelectorStore`, beta and on by default from 1.37): it stops at two
/// matches: `are controlled by more than one HPA (e.g. [a b])`; before it the controller
/// listed every HPA: `are controlled by multiple HPAs: [a b c]`. The controller lists them in
/// map order; here they are sorted (`keys` is sorted and, from 1.37, cut to two).
fn ambiguous_selector_message(selector: &str, keys: &mut Vec<String>, optimized: bool) -> String {
    if optimized {
        keys.truncate(2);
        format!(
            "pods by selector {selector} are controlled by more than one HPA (e.g. [{}])",
            keys.join(" ")
        )
    } else {
        format!(
            "pods by selector {selector} are controlled by multiple HPAs: [{}]",
            keys.join(" ")
        )
    }
}

/// Mirrors `validateAndParseSelector`: the selector is set, parses, and no other HPA selects
/// the same pods (section C3 for the message per release).
fn validate_and_parse_selector(
    input: &Input,
    scale: &Scale,
    ctx: &mut Ctx,
) -> Result<(), (Rule, String)> {
    if scale.selector.is_empty() {
        ctx.event("Warning", "SelectorRequired", || "selector is required");
        ctx.set_condition(
            "ScalingActive",
            "False",
            "InvalidSelector",
            format_args!("the HPA target's scale is missing a selector"),
        );
        return Err((Rule::InvalidSelector, "selector is required".to_string()));
    }
    if let Err(e) = parse_selector(&scale.selector, &mut ctx.valid_selector) {
        let msg =
            format!("couldn't convert selector into a corresponding internal selector object: {e}");
        ctx.event("Warning", "InvalidSelector", || msg.clone());
        ctx.set_condition(
            "ScalingActive",
            "False",
            "InvalidSelector",
            format_args!("{msg}"),
        );
        return Err((Rule::InvalidSelector, msg));
    }
    if input.other_hpas_selecting.is_empty() {
        return Ok(());
    }
    let hpa = &input.hpa;
    let mut keys: Vec<String> = vec![format!("{}/{}", hpa.namespace, hpa.name)];
    keys.extend(
        input
            .other_hpas_selecting
            .iter()
            .map(|n| format!("{}/{n}", hpa.namespace)),
    );
    keys.sort();
    let s = &input.settings;
    let optimized = s.feature_gates.optimized_selector_store(s.version());
    let msg = ambiguous_selector_message(&scale.selector, &mut keys, optimized);
    ctx.event("Warning", "AmbiguousSelector", || msg.clone());
    ctx.set_condition(
        "ScalingActive",
        "False",
        "AmbiguousSelector",
        format_args!("{msg}"),
    );
    Err((Rule::AmbiguousSelector, msg))
}
