//! Live `explain NAME`: the [`Snapshot`] built from what [`crate::cluster`] fetched is decided
//! through the same path as offline ([`super::one::decide_with_input`]), and we add a
//! comparison with the HPA's live status (what the controller last wrote) — with the likely
//! reasons for any difference. The decision itself is never computed a second way.

use anyhow::Result;
use jiff::Timestamp;
use k8s_openapi::api::autoscaling::v2::{
    HorizontalPodAutoscaler, HorizontalPodAutoscalerCondition, HorizontalPodAutoscalerStatus,
    MetricValueStatus,
};
use serde::Serialize;
use serde_json::Value;

use crate::cli::{DecideOptions, OutputFormat, ViewOptions};
use crate::cluster::Fetched;
use crate::core::Decision;
use crate::output::Outcome;
use crate::snapshot::Snapshot;

/// One `status.currentMetrics` entry next to ours.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct MetricComparison {
    pub index: usize,
    pub metric: String,
    /// The `current` the controller wrote (null: absent or failed).
    pub live: Option<Value>,
    /// The `current` we computed.
    pub computed: Option<Value>,
    pub matches: bool,
}

/// One condition next to ours.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ConditionComparison {
    #[serde(rename = "type")]
    pub type_: String,
    /// `status/reason` as the controller wrote it.
    pub live: Option<String>,
    pub computed: Option<String>,
    pub matches: bool,
}

/// Our recomputation next to the HPA's live status.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct LiveComparison {
    pub context: String,
    pub server_version: Option<String>,
    pub status_current_replicas: Option<i32>,
    pub status_desired_replicas: Option<i32>,
    pub computed_desired_replicas: Option<i32>,
    pub desired_matches: bool,
    pub last_scale_time: Option<Timestamp>,
    /// When the controller last wrote the status (from managedFields), if known.
    pub status_written_at: Option<Timestamp>,
    pub metrics: Vec<MetricComparison>,
    pub conditions: Vec<ConditionComparison>,
    /// Every difference, in words.
    pub differences: Vec<String>,
    /// Why the differences are likely (empty when everything matches).
    pub likely_causes: Vec<String>,
}

/// Live `explain NAME` once the cluster has answered: the fetched List becomes the same
/// [`Snapshot`] a file gives, the decision comes from [`decide_with_input`], and the comparison
/// with the live status is added (text below the trace; `liveComparison` in JSON/YAML).
pub fn explain_fetched(
    decide: &DecideOptions,
    view: &ViewOptions,
    name: &str,
    context: &str,
    namespace: String,
    fetched: Fetched,
) -> Result<Outcome> {
    let (e, cmp) = explained(decide, name, context, namespace, fetched)?;
    let text = match (&view.select, view.output) {
        (Some(sel), _) => sel.print(&e.document(Some(&cmp)))?,
        (None, f @ (OutputFormat::Json | OutputFormat::Yaml)) => {
            crate::output::document(&e.document(Some(&cmp)), f)?
        }
        _ => e.render(view)? + &text(&cmp),
    };
    Ok(Outcome {
        text,
        own_failure: super::one::own_failure(&e.decision),
    })
}

/// The document of live `explain NAME` as a JSON value (what several NAMEs'
/// `-o name|jsonpath|custom-columns` select from, in a `List`).
pub fn document_fetched(
    decide: &DecideOptions,
    name: &str,
    context: &str,
    namespace: String,
    fetched: Fetched,
) -> Result<(Value, bool)> {
    let (e, cmp) = explained(decide, name, context, namespace, fetched)?;
    let own = super::one::own_failure(&e.decision);
    Ok((serde_json::to_value(e.document(Some(&cmp)))?, own))
}

/// The explanation of the fetched HPA and its comparison with the live status.
fn explained(
    decide: &DecideOptions,
    name: &str,
    context: &str,
    namespace: String,
    mut fetched: Fetched,
) -> Result<(super::one::Explained, LiveComparison)> {
    // The list is read as a snapshot file is, then freed.
    let snap = Snapshot::from_text(
        &std::mem::take(&mut fetched.list),
        &format!("cluster {context}"),
    )?;
    let mut extras = crate::diagnose::Extras::from_snapshot(&snap);
    extras.metrics_api = fetched.metrics_api.clone();
    let req = super::one::Request {
        namespace: Some(&namespace),
        name,
        history: &decide.history,
    };
    let mut e = super::one::explain(decide, &snap, &extras, req)?;
    let d = &mut e.decision;
    d.assumptions.extend(fetched.notes.iter().cloned());
    let cmp = compare(d, &fetched, context, decide);
    if !cmp.differences.is_empty() {
        d.assumptions.push(format!(
            "the HPA's live status differs from this recomputation in {} place(s); the likely reasons are listed under liveComparison",
            cmp.differences.len()
        ));
    }
    Ok((e, cmp))
}

fn text(c: &LiveComparison) -> String {
    let mut s = format!(
        "\nLive status (context {}{}):\n",
        c.context,
        c.server_version
            .as_deref()
            .map(|v| format!(", server {v}"))
            .unwrap_or_default()
    );
    let opt = |v: Option<i32>| v.map_or("-".to_string(), |v| v.to_string());
    s += &format!(
        "  desiredReplicas: controller wrote {}, recomputed {}{}\n",
        opt(c.status_desired_replicas),
        opt(c.computed_desired_replicas),
        if c.desired_matches {
            " (same)"
        } else {
            " (different)"
        }
    );
    for m in c.metrics.iter().filter(|m| !m.matches) {
        s += &format!(
            "  metric {}: controller wrote {}, recomputed {}\n",
            m.metric,
            m.live.as_ref().map_or("-".into(), compact),
            m.computed.as_ref().map_or("-".into(), compact)
        );
    }
    for k in c.conditions.iter().filter(|k| !k.matches) {
        s += &format!(
            "  condition {}: controller wrote {}, recomputed {}\n",
            k.type_,
            k.live.as_deref().unwrap_or("-"),
            k.computed.as_deref().unwrap_or("-")
        );
    }
    if c.differences.is_empty() {
        s += "  the recomputation matches the live status\n";
    }
    for l in &c.likely_causes {
        s += &format!("  likely: {l}\n");
    }
    s
}

fn compact(v: &Value) -> String {
    match v {
        Value::Object(m) => m
            .iter()
            .map(|(k, v)| format!("{k}={}", v.as_str().map_or(v.to_string(), String::from)))
            .collect::<Vec<_>>()
            .join(","),
        v => v.to_string(),
    }
}

/// When the controller last wrote the HPA's status (the managedFields entry of the status).
fn status_written_at(h: &HorizontalPodAutoscaler) -> Option<Timestamp> {
    h.metadata
        .managed_fields
        .iter()
        .flatten()
        .filter(|f| f.subresource.as_deref() == Some("status"))
        .filter_map(|f| f.time.as_ref().map(|t| t.0))
        .max()
}

/// Our decision next to the HPA's live status: every difference, and the likely reasons.
fn compare(d: &Decision, f: &Fetched, context: &str, decide: &DecideOptions) -> LiveComparison {
    let status = f.hpa.status.clone().unwrap_or_default();
    let mut differences = Vec::new();
    let desired_matches = status.desired_replicas == d.desired_replicas.unwrap_or(-1)
        || (d.desired_replicas.is_none() && f.hpa.status.is_none());
    if !desired_matches {
        differences.push(format!(
            "status.desiredReplicas is {}, recomputed {}",
            status.desired_replicas,
            d.desired_replicas.map_or("-".into(), |v| v.to_string())
        ));
    }
    let metrics = compare_metrics(d, &mut differences);
    let live_conds = status.conditions.clone().unwrap_or_default();
    let conditions = compare_conditions(d, &live_conds, &mut differences);
    let written_at = status_written_at(&f.hpa);
    let seen = Seen {
        d,
        hpa: &f.hpa,
        status: &status,
        metrics: &metrics,
        desired_matches,
        written_at,
        history_given: decide.history_given(),
    };
    let mut causes = missing_conditions_cause(&conditions, f.hpa.status.is_some());
    if !differences.is_empty() {
        causes.extend(difference_causes(&seen));
        causes.push(flags_cause(&d.settings));
    }
    causes.extend(version_cause(d, f.server_version.as_deref()));
    LiveComparison {
        context: context.to_string(),
        server_version: f.server_version.clone(),
        status_current_replicas: status.current_replicas,
        status_desired_replicas: f.hpa.status.as_ref().map(|s| s.desired_replicas),
        computed_desired_replicas: d.desired_replicas,
        desired_matches,
        last_scale_time: status.last_scale_time.as_ref().map(|t| t.0),
        status_written_at: written_at,
        metrics,
        conditions,
        differences,
        likely_causes: causes,
    }
}

/// The written metrics next to ours, compared once in the core (`lastSync.metrics`).
fn compare_metrics(d: &Decision, differences: &mut Vec<String>) -> Vec<MetricComparison> {
    let deltas = d
        .last_sync
        .as_ref()
        .map(|l| l.metrics.as_slice())
        .unwrap_or_default();
    let value = |v: Option<&MetricValueStatus>| v.and_then(|v| serde_json::to_value(v).ok());
    let mut metrics = Vec::new();
    for m in deltas {
        let (live, computed) = (value(m.written.as_ref()), value(m.now.as_ref()));
        if !m.matches {
            differences.push(format!(
                "currentMetrics[{}] {}: written {}, recomputed {}",
                m.index,
                m.metric,
                live.as_ref().map_or("-".into(), compact),
                computed.as_ref().map_or("-".into(), compact)
            ));
        }
        metrics.push(MetricComparison {
            index: m.index,
            metric: m.metric.clone(),
            live,
            computed,
            matches: m.matches,
        });
    }
    metrics
}

/// Every condition type of either side (ours first), as `status/reason`.
fn compare_conditions(
    d: &Decision,
    live_conds: &[HorizontalPodAutoscalerCondition],
    differences: &mut Vec<String>,
) -> Vec<ConditionComparison> {
    let mut types: Vec<String> = d.conditions.iter().map(|c| c.type_.to_string()).collect();
    for c in live_conds {
        if !types.contains(&c.type_) {
            types.push(c.type_.clone());
        }
    }
    let mut conditions = Vec::new();
    for t in types {
        let live = live_conds
            .iter()
            .find(|c| c.type_ == t)
            .map(|c| format!("{}/{}", c.status, c.reason.as_deref().unwrap_or("")));
        let computed = d
            .conditions
            .iter()
            .find(|c| c.type_ == t)
            .map(|c| format!("{}/{}", c.status, c.reason));
        let matches = live == computed;
        if !matches {
            differences.push(format!(
                "condition {t}: written {}, recomputed {}",
                live.as_deref().unwrap_or("-"),
                computed.as_deref().unwrap_or("-")
            ));
        }
        conditions.push(ConditionComparison {
            type_: t,
            live,
            computed,
            matches,
        });
    }
    conditions
}

/// What the comparison saw, for the likely causes of a difference.
struct Seen<'a> {
    d: &'a Decision,
    hpa: &'a HorizontalPodAutoscaler,
    status: &'a HorizontalPodAutoscalerStatus,
    metrics: &'a [MetricComparison],
    desired_matches: bool,
    written_at: Option<Timestamp>,
    /// The memory is exact (`--history FILE` or watched).
    history_given: bool,
}

/// Conditions we set that the live status lacks: an older controller, or a feature gate.
fn missing_conditions_cause(conditions: &[ConditionComparison], has_status: bool) -> Vec<String> {
    let only_ours: Vec<&str> = conditions
        .iter()
        .filter(|c| c.live.is_none() && has_status)
        .map(|c| c.type_.as_str())
        .collect();
    if only_ours.is_empty() {
        return vec![];
    }
    vec![format!(
        "the live status has no {} condition: the cluster's controller is likely an older release, or runs with the feature gate that sets it off; pass --kubernetes-version / --feature-gates to match",
        only_ours.join(", ")
    )]
}

/// Why there is a difference: moved metrics, moved replicas, a newer spec, a stale status, or a
/// memory the evidence does not settle.
fn difference_causes(x: &Seen) -> Vec<String> {
    let (d, status) = (x.d, x.status);
    let s = &d.settings;
    let mut causes = Vec::new();
    if x.metrics.iter().any(|m| !m.matches) {
        causes.push(format!(
            "the metrics moved since the controller's last sync (it syncs every {}); the values it wrote are from then, ours from now",
            crate::duration::format_go_duration(s.sync_period.as_nanos() as i64)
        ));
    }
    if status.current_replicas.is_some() && status.current_replicas != d.current_replicas {
        causes.push(format!(
            "the target's replicas changed since the last sync (status.currentReplicas {}, scale now {}): a sync has not run yet, or something else scales the target",
            status.current_replicas.unwrap_or_default(),
            d.current_replicas.map_or("-".into(), |v| v.to_string())
        ));
    }
    if let (Some(g), Some(og)) = (x.hpa.metadata.generation, status.observed_generation) {
        if og < g {
            causes.push(format!("the HPA spec changed (generation {g}) after the controller's last sync (observedGeneration {og})"));
        }
    }
    if let Some(t) = x.written_at {
        let age = d.now.duration_since(t);
        if age > s.sync_period {
            causes.push(format!(
                "the status was last written at {t}, {} before this evaluation — more than a sync period: the controller writes only on change, but if it should have changed, the controller may not be syncing this HPA (kube-controller-manager down or not leader; see the events)",
                crate::duration::format_go_duration(age.as_nanos() as i64)
            ));
        }
    }
    if let Some(computed) = d.desired_replicas {
        let written = status.desired_replicas;
        if !x.desired_matches && !x.history_given {
            if let Some(r) = d.desired_range.filter(|r| r.min != r.max) {
                causes.push(format!(
                    "the controller's memory (stabilization recommendations, scale events) is only partly settled by the status and Events: every consistent memory gives {}..{} (written {written}, recomputed {computed}); see memory.evidence, or pass --history",
                    r.min, r.max
                ));
            }
        }
    }
    causes
}

/// The controller flags this computation assumed.
fn flags_cause(s: &crate::core::Settings) -> String {
    format!(
        "controller flags other than the ones assumed here change the result: tolerance {}, cpu-initialization-period {}, initial-readiness-delay {}, downscale-stabilization {}, sync-period {}, Kubernetes {} rules — pass the kube-controller-manager's values if they differ",
        s.tolerance,
        crate::duration::format_go_duration(s.cpu_initialization_period.as_nanos() as i64),
        crate::duration::format_go_duration(s.initial_readiness_delay.as_nanos() as i64),
        crate::duration::format_go_duration(s.downscale_stabilization.as_nanos() as i64),
        crate::duration::format_go_duration(s.sync_period.as_nanos() as i64),
        s.version()
    )
}

/// The server's minor release differs from the rules we used.
fn version_cause(d: &Decision, server_version: Option<&str>) -> Option<String> {
    let v = server_version?;
    let m = crate::core::settings::parse_major_minor(v)
        .map(|(_, m)| m)
        .filter(|m| *m != d.settings.version().minor)?;
    Some(format!(
        "the server runs {v} but this computation used the Kubernetes {} controller rules ({}); the cluster's kube-controller-manager is likely 1.{m}",
        d.settings.version(),
        d.settings.kubernetes_version_source
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::explain::testing::{example, options, NOW};

    fn web() -> Decision {
        let (snap, _) = example("scale-up-cpu.yaml");
        super::super::one::decide_from_snapshot(&options(&["--now", NOW]), &snap, "web")
            .expect("decides")
    }

    #[test]
    fn written_values_in_a_few_words() {
        let v = serde_json::json!({"averageUtilization": 83, "averageValue": "83m"});
        assert_eq!(compact(&v), "averageUtilization=83,averageValue=83m");
        assert_eq!(compact(&serde_json::json!(5)), "5");
    }

    #[test]
    fn a_condition_only_we_set_points_at_the_release() {
        let c = |live: Option<&str>| ConditionComparison {
            type_: "ScalingLimited".into(),
            live: live.map(String::from),
            computed: Some("False/DesiredWithinRange".into()),
            matches: false,
        };
        let causes = missing_conditions_cause(&[c(None)], true);
        assert_eq!(causes.len(), 1);
        assert!(
            causes[0].contains("no ScalingLimited condition"),
            "{causes:?}"
        );
        assert!(missing_conditions_cause(&[c(None)], false).is_empty());
        assert!(missing_conditions_cause(&[c(Some("True/x"))], true).is_empty());
    }

    #[test]
    fn another_server_minor_is_named() {
        let d = web();
        let minor = d.settings.version().minor;
        let same = format!("v1.{minor}.2");
        assert_eq!(version_cause(&d, Some(&same)), None);
        assert_eq!(version_cause(&d, None), None);
        let other = version_cause(&d, Some("v1.29.4")).expect("a cause");
        assert!(other.contains("likely 1.29"), "{other}");
        assert!(flags_cause(&d.settings).contains("tolerance 0.1"));
    }
}
