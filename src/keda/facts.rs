//! What a ScaledObject says about the HPA KEDA generated from it, read leniently from
//! `serde_json::Value` (a partial or odd object gives notes naming the field, never a panic).
//!
//! Sources (kedacore/keda @ 8b4f083): `apis/keda/v1alpha1/scaledobject_types.go`
//! (`GetHPAMinReplicas`: minReplicaCount 0 → 1; `GetHPAMaxReplicas`: default 100; the pause
//! annotations), `controllers/keda/hpa.go` (`newHPAForScaledObject`: behavior, paused-scale-in/out →
//! selectPolicy Disabled; `composite-metric` for scalingModifiers), `pkg/scalers/scaler.go`
//! (`GenerateMetricNameWithIndex`: `s<i>-<metric>`; `GetMetricTargetType`: AverageValue by default),
//! `pkg/scaling/executor/scale_executor.go` (cooldownPeriod default 300 s),
//! `pkg/scaling/executor/scale_scaledobjects.go` (activation, deactivation to idle or 0 after
//! cooldown from `status.lastActiveTime`), `pkg/fallback/fallback.go` (fallback after more than
//! failureThreshold consecutive failures: target × replicas).

use k8s_openapi::api::autoscaling::v2::{HorizontalPodAutoscaler, MetricTarget};
use serde::Serialize;
use serde_json::Value;

// Trigger metadata keys that carry the scaling target (shared with `--redact`).
use crate::snapshot::keda::THRESHOLD_KEYS;

/// KEDA's default cooldownPeriod in seconds (`defaultCooldownPeriod`).
pub const DEFAULT_COOLDOWN_SECONDS: i64 = 300;
/// The External metric KEDA generates for `advanced.scalingModifiers`.
pub const COMPOSITE_METRIC: &str = "composite-metric";
/// Pause annotations (`scaledobject_types.go`).
pub const PAUSED: &str = "autoscaling.keda.sh/paused";
pub const PAUSED_REPLICAS: &str = "autoscaling.keda.sh/paused-replicas";
pub const PAUSED_SCALE_IN: &str = "autoscaling.keda.sh/paused-scale-in";
pub const PAUSED_SCALE_OUT: &str = "autoscaling.keda.sh/paused-scale-out";

/// Everything KEDA's layer tells about one generated HPA.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct KedaFacts {
    /// The ScaledObject's name.
    pub scaled_object: String,
    /// Which ScaledObject field produced which HPA field.
    pub fields: Vec<FieldOrigin>,
    /// Each HPA metric mapped back to its trigger (or to scalingModifiers).
    pub metrics: Vec<MetricOrigin>,
    /// `advanced.scalingModifiers`, when set.
    pub scaling_modifiers: Option<ScalingModifiers>,
    /// Which layer owns the move now.
    pub layer: Layer,
    /// Per-metric health from `status.health` against `fallback.failureThreshold`.
    pub fallback: Vec<FallbackState>,
    /// Pause annotations.
    pub paused: Paused,
    /// The ScaledObject's conditions (Ready, Active, Fallback, Paused, HPAActive).
    pub conditions: Vec<Condition>,
    /// What could not be read, each naming the field.
    pub notes: Vec<String>,
}

/// One HPA field and the ScaledObject field it came from.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct FieldOrigin {
    pub hpa_field: String,
    pub hpa_value: Option<String>,
    pub scaled_object_field: String,
    pub scaled_object_value: Option<String>,
    /// Why they differ, when they do (a default, a rewrite).
    pub rule: Option<String>,
}

/// One HPA metric and the trigger it came from.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct MetricOrigin {
    /// The HPA's metric name (`s<i>-…`, `composite-metric`, or a resource name).
    pub hpa_metric: String,
    /// The trigger index `i`, when the name carries one that exists.
    pub trigger_index: Option<usize>,
    pub trigger_type: Option<String>,
    pub trigger_name: Option<String>,
    /// The HPA's target type and value (what KEDA wrote).
    pub target_type: Option<String>,
    pub target: Option<f64>,
    /// The trigger metadata key holding the threshold, and its value.
    pub threshold_field: Option<String>,
    pub threshold: Option<f64>,
    /// The trigger metadata key holding the activation threshold (default 0), and its value.
    pub activation_field: Option<String>,
    pub activation_threshold: f64,
    /// The trigger's metricType (AverageValue when unset).
    pub metric_type: String,
    pub use_cached_metrics: bool,
}

/// `advanced.scalingModifiers`.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ScalingModifiers {
    pub formula: Option<String>,
    pub target: Option<f64>,
    pub activation_target: f64,
    pub metric_type: String,
}

/// Who moves the replicas now.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum MoveOwner {
    /// KEDA's operator: activation (0 or idle → min) or deactivation after cooldown.
    Keda,
    /// The HPA controller: 1 ↔ N on the External metrics.
    Hpa,
    /// Paused: KEDA deleted the HPA or pinned the replicas.
    Paused,
    /// The status does not say (no Active condition).
    Unknown,
}

/// The layer that owns the move, with KEDA's timers.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Layer {
    pub owner: MoveOwner,
    /// One sentence: why this layer.
    pub reason: String,
    /// The Active condition (any trigger above its activation threshold).
    pub active: Option<bool>,
    pub current_replicas: Option<i64>,
    pub min_replica_count: i64,
    pub idle_replica_count: Option<i64>,
    pub cooldown_period_seconds: i64,
    /// Seconds left before KEDA deactivates, from `status.lastActiveTime`, when inactive.
    pub cooldown_left_seconds: Option<i64>,
}

/// One metric's fallback state.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct FallbackState {
    pub metric: String,
    pub status: Option<String>,
    pub failures: i64,
    pub failure_threshold: Option<i64>,
    /// Failures exceed the threshold: the HPA reads a synthetic value.
    pub in_fallback: bool,
    pub fallback_replicas: Option<i64>,
    /// target × fallback replicas (AverageValue, static behaviour), when known.
    pub synthetic_value: Option<f64>,
}

/// Pause annotations.
#[derive(Debug, Clone, PartialEq, Default, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Paused {
    /// `paused` or `paused-replicas`: the HPA is deleted.
    pub paused: bool,
    pub paused_replicas: Option<i64>,
    /// scale-in disabled (scaleDown selectPolicy Disabled, no deactivation).
    pub scale_in: bool,
    /// scale-out disabled (scaleUp selectPolicy Disabled, no activation).
    pub scale_out: bool,
}

/// One ScaledObject condition.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Condition {
    #[serde(rename = "type")]
    pub type_: String,
    pub status: String,
    pub reason: Option<String>,
    pub message: Option<String>,
}

/// The facts for `hpa`, generated from `so`, at `now`.
pub fn facts(so: &Value, hpa: &HorizontalPodAutoscaler, now: jiff::Timestamp) -> KedaFacts {
    let mut notes = Vec::new();
    let spec = so.get("spec").unwrap_or(&Value::Null);
    if spec.is_null() {
        notes.push("ScaledObject has no spec: nothing to map".to_string());
    }
    let paused = paused(so, &mut notes);
    let modifiers = scaling_modifiers(spec, &mut notes);
    let metrics = metrics(spec, hpa, &mut notes);
    let fallback = fallback(so, &metrics, &mut notes);
    let conditions = conditions(so);
    let layer = layer(so, hpa, &paused, &conditions, now, &mut notes);
    KedaFacts {
        scaled_object: str_at(so, &["metadata", "name"]).unwrap_or_default(),
        fields: fields(spec, hpa, &paused, &mut notes),
        metrics,
        scaling_modifiers: modifiers,
        layer,
        fallback,
        paused,
        conditions,
        notes,
    }
}

fn str_at(v: &Value, path: &[&str]) -> Option<String> {
    let mut cur = v;
    for p in path {
        cur = cur.get(p)?;
    }
    cur.as_str().map(str::to_string)
}

/// An integer field: absent → `None`; present but not an integer → a note and `None`.
fn int_field(obj: &Value, key: &str, path: &str, notes: &mut Vec<String>) -> Option<i64> {
    let v = obj.get(key)?;
    match v
        .as_i64()
        .or_else(|| v.as_str().and_then(|s| s.trim().parse().ok()))
    {
        Some(n) => Some(n),
        None => {
            notes.push(format!("{path} is {v}, not an integer: ignored"));
            None
        }
    }
}

/// A number written as a string or a number (KEDA's metadata is strings; quantities allowed).
fn number(v: &Value) -> Option<f64> {
    match v {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => crate::quantity::parse_f64(s.trim()).ok(),
        _ => None,
    }
}

fn truthy(annotations: &Value, key: &str) -> bool {
    annotations
        .get(key)
        .and_then(Value::as_str)
        .is_some_and(|s| s.trim().eq_ignore_ascii_case("true"))
}

fn paused(so: &Value, notes: &mut Vec<String>) -> Paused {
    let a = so.pointer("/metadata/annotations").unwrap_or(&Value::Null);
    let paused_replicas = match a.get(PAUSED_REPLICAS) {
        None => None,
        Some(v) => match v.as_str().and_then(|s| s.trim().parse::<i64>().ok()) {
            Some(n) if n >= 0 => Some(n),
            _ => {
                notes.push(format!(
                    "annotation {PAUSED_REPLICAS} is {v}, not a replica count: KEDA ignores it"
                ));
                None
            }
        },
    };
    Paused {
        paused: truthy(a, PAUSED) || paused_replicas.is_some(),
        paused_replicas,
        scale_in: truthy(a, PAUSED_SCALE_IN),
        scale_out: truthy(a, PAUSED_SCALE_OUT),
    }
}

fn origin(
    hpa_field: &str,
    hpa_value: Option<String>,
    so_field: &str,
    so_value: Option<String>,
    rule: Option<&str>,
) -> FieldOrigin {
    FieldOrigin {
        hpa_field: hpa_field.to_string(),
        hpa_value,
        scaled_object_field: so_field.to_string(),
        scaled_object_value: so_value,
        rule: rule.map(str::to_string),
    }
}

fn fields(
    spec: &Value,
    hpa: &HorizontalPodAutoscaler,
    paused: &Paused,
    notes: &mut Vec<String>,
) -> Vec<FieldOrigin> {
    let hspec = Some(&hpa.spec);
    let min = int_field(spec, "minReplicaCount", "spec.minReplicaCount", notes);
    let max = int_field(spec, "maxReplicaCount", "spec.maxReplicaCount", notes);
    let hpa_min = hspec.map(|s| s.min_replicas.unwrap_or(1).to_string());
    let hpa_max = hspec.map(|s| s.max_replicas.to_string());
    let min_rule = match min {
        Some(n) if n > 0 => None,
        Some(_) => Some("minReplicaCount 0 gives HPA minReplicas 1: 0 ↔ 1 is KEDA's move"),
        None => Some("unset: HPA minReplicas 1 (KEDA's default minReplicaCount is 0)"),
    };
    let max_rule = max.is_none().then_some("unset: KEDA's default 100");
    let mut out = vec![
        origin(
            "spec.minReplicas",
            hpa_min,
            "spec.minReplicaCount",
            min.map(|n| n.to_string()),
            min_rule,
        ),
        origin(
            "spec.maxReplicas",
            hpa_max,
            "spec.maxReplicaCount",
            max.map(|n| n.to_string()),
            max_rule,
        ),
    ];
    let behavior = spec.pointer("/advanced/horizontalPodAutoscalerConfig/behavior");
    let behavior_rule = behavior
        .is_none()
        .then_some("unset: the HPA's default behavior");
    out.push(origin(
        "spec.behavior",
        hspec
            .and_then(|s| s.behavior.as_ref())
            .map(|_| "set".to_string()),
        "spec.advanced.horizontalPodAutoscalerConfig.behavior",
        behavior.map(|_| "set".to_string()),
        behavior_rule,
    ));
    for (on, hpa_field, key) in [
        (
            paused.scale_in,
            "spec.behavior.scaleDown.selectPolicy",
            PAUSED_SCALE_IN,
        ),
        (
            paused.scale_out,
            "spec.behavior.scaleUp.selectPolicy",
            PAUSED_SCALE_OUT,
        ),
    ] {
        if on {
            let field = format!("metadata.annotations[{key}]");
            out.push(origin(
                hpa_field,
                Some("Disabled".into()),
                &field,
                Some("true".into()),
                Some("KEDA disables this direction"),
            ));
        }
    }
    out
}

fn scaling_modifiers(spec: &Value, notes: &mut Vec<String>) -> Option<ScalingModifiers> {
    let m = spec.pointer("/advanced/scalingModifiers")?;
    if m.as_object().is_none_or(|o| o.is_empty()) {
        return None;
    }
    let num = |key: &str, notes: &mut Vec<String>| -> Option<f64> {
        let v = m.get(key)?;
        let n = number(v);
        if n.is_none() {
            notes.push(format!(
                "spec.advanced.scalingModifiers.{key} is {v}, not a number: ignored"
            ));
        }
        n
    };
    Some(ScalingModifiers {
        formula: m.get("formula").and_then(Value::as_str).map(str::to_string),
        target: num("target", notes),
        activation_target: num("activationTarget", notes).unwrap_or(0.0),
        metric_type: m
            .get("metricType")
            .and_then(Value::as_str)
            .unwrap_or("AverageValue")
            .to_string(),
    })
}

/// The HPA metric names in order, with their targets.
fn hpa_metrics(hpa: &HorizontalPodAutoscaler) -> Vec<(String, Option<&MetricTarget>)> {
    let metrics = hpa.spec.metrics.as_deref().unwrap_or_default();
    metrics
        .iter()
        .filter_map(|m| {
            if let Some(e) = &m.external {
                Some((e.metric.name.clone(), Some(&e.target)))
            } else if let Some(r) = &m.resource {
                Some((r.name.clone(), Some(&r.target)))
            } else {
                m.container_resource
                    .as_ref()
                    .map(|c| (c.name.clone(), Some(&c.target)))
            }
        })
        .collect()
}

fn target_value(t: &MetricTarget) -> Option<f64> {
    let q = t.average_value.as_ref().or(t.value.as_ref());
    match q {
        Some(q) => crate::quantity::parse_f64(&q.0).ok(),
        None => t.average_utilization.map(f64::from),
    }
}

/// `s<i>-…` → i.
fn trigger_index(name: &str) -> Option<usize> {
    let (prefix, _) = name.split_once('-')?;
    prefix.strip_prefix('s')?.parse().ok()
}

fn metrics(
    spec: &Value,
    hpa: &HorizontalPodAutoscaler,
    notes: &mut Vec<String>,
) -> Vec<MetricOrigin> {
    let triggers = spec.get("triggers").and_then(Value::as_array);
    if triggers.is_none() {
        notes.push(
            "spec.triggers is missing or not a list: metrics cannot be mapped to triggers".into(),
        );
    }
    let triggers = triggers.map(Vec::as_slice).unwrap_or_default();
    let mut out = Vec::new();
    for (name, target) in hpa_metrics(hpa) {
        let index = if name == COMPOSITE_METRIC {
            None
        } else {
            trigger_index(&name).or_else(|| resource_trigger(triggers, &name))
        };
        let trigger = index.and_then(|i| triggers.get(i));
        if index.is_some() && trigger.is_none() && name != COMPOSITE_METRIC {
            notes.push(format!(
                "HPA metric {name} names trigger {} but spec.triggers has {}",
                index.unwrap_or(0),
                triggers.len()
            ));
        }
        let mut m = MetricOrigin {
            hpa_metric: name,
            trigger_index: index.filter(|_| trigger.is_some()),
            trigger_type: None,
            trigger_name: None,
            target_type: target.map(|t| t.type_.clone()),
            target: target.and_then(target_value),
            threshold_field: None,
            threshold: None,
            activation_field: None,
            activation_threshold: 0.0,
            metric_type: "AverageValue".into(),
            use_cached_metrics: false,
        };
        if let (Some(t), Some(i)) = (trigger, index) {
            read_trigger(t, i, &mut m, notes);
        }
        out.push(m);
    }
    out
}

/// cpu/memory triggers become Resource metrics named after the resource.
fn resource_trigger(triggers: &[Value], name: &str) -> Option<usize> {
    triggers
        .iter()
        .position(|t| t.get("type").and_then(Value::as_str) == Some(name))
}

fn read_trigger(t: &Value, i: usize, m: &mut MetricOrigin, notes: &mut Vec<String>) {
    let path = format!("spec.triggers[{i}]");
    m.trigger_type = t.get("type").and_then(Value::as_str).map(str::to_string);
    match t.get("type") {
        None | Some(Value::Null) => notes.push(format!("{path}.type is missing")),
        Some(Value::String(_)) => {}
        Some(other) => notes.push(format!("{path}.type is {other}, not a string")),
    }
    m.trigger_name = t.get("name").and_then(Value::as_str).map(str::to_string);
    match t.get("metricType") {
        Some(Value::String(mt)) => m.metric_type = mt.to_string(),
        None | Some(Value::Null) => {}
        Some(other) => notes.push(format!(
            "{path}.metricType is {other}, not a string: AverageValue (KEDA's default) assumed"
        )),
    }
    m.use_cached_metrics = match t.get("useCachedMetrics") {
        Some(Value::Bool(b)) => *b,
        None | Some(Value::Null) => false,
        Some(other) => {
            notes.push(format!(
                "{path}.useCachedMetrics is {other}, not true or false: false assumed"
            ));
            false
        }
    };
    let meta = t.get("metadata").and_then(Value::as_object);
    let Some(meta) = meta else {
        notes.push(format!("{path}.metadata is missing: no threshold to show"));
        return;
    };
    for (key, v) in meta {
        let is_activation = key.starts_with("activation");
        let is_threshold = THRESHOLD_KEYS.contains(&key.as_str());
        if !is_activation && !is_threshold {
            continue;
        }
        let Some(n) = number(v) else {
            notes.push(format!(
                "{path}.metadata.{key} is {v}, not a number: not shown"
            ));
            continue;
        };
        if is_activation {
            m.activation_field = Some(key.clone());
            m.activation_threshold = n;
        } else if m.threshold_field.is_none() {
            m.threshold_field = Some(key.clone());
            m.threshold = Some(n);
        }
    }
    let known = m
        .trigger_type
        .as_deref()
        .is_some_and(|ty| ty == "cpu" || ty == "memory");
    if m.threshold_field.is_none() && !known {
        let instead = match m.target {
            Some(_) => "the HPA's target is shown instead",
            None => "no threshold to show",
        };
        let ty = m.trigger_type.as_deref().unwrap_or("?");
        notes.push(format!(
            "{path}: no known threshold key in metadata (type {ty}): {instead}"
        ));
    }
}

fn fallback(so: &Value, metrics: &[MetricOrigin], notes: &mut Vec<String>) -> Vec<FallbackState> {
    let spec_fb = so.pointer("/spec/fallback");
    if let Some(f) = spec_fb.filter(|f| !f.is_object() && !f.is_null()) {
        notes.push(format!(
            "spec.fallback is {f}, not an object: its failureThreshold and replicas are unknown"
        ));
    }
    let threshold = spec_fb.and_then(|f| {
        int_field(
            f,
            "failureThreshold",
            "spec.fallback.failureThreshold",
            notes,
        )
    });
    let replicas = spec_fb.and_then(|f| int_field(f, "replicas", "spec.fallback.replicas", notes));
    let static_behavior = spec_fb
        .and_then(|f| f.get("behavior"))
        .and_then(Value::as_str)
        .is_none_or(|b| b == "static");
    let health = match so.pointer("/status/health") {
        Some(Value::Object(h)) => h,
        None | Some(Value::Null) => return Vec::new(),
        Some(other) => {
            notes.push(format!(
                "status.health is {other}, not an object of metrics: fallback unknown"
            ));
            return Vec::new();
        }
    };
    health
        .iter()
        .map(|(metric, h)| {
            if !h.is_object() {
                notes.push(format!(
                    "status.health[{metric}] is {h}, not an object: its failures are unknown"
                ));
            }
            let failures = int_field(
                h,
                "numberOfFailures",
                &format!("status.health[{metric}].numberOfFailures"),
                notes,
            )
            .unwrap_or(0);
            let status = h.get("status").and_then(Value::as_str).map(str::to_string);
            let in_fallback =
                status.as_deref() == Some("Failing") && threshold.is_some_and(|t| failures > t);
            let target = metrics.iter().find(|m| &m.hpa_metric == metric);
            let synthetic_value = match (in_fallback, static_behavior, target, replicas) {
                (true, true, Some(m), Some(r))
                    if m.target_type.as_deref() == Some("AverageValue") =>
                {
                    m.target.map(|t| t * r as f64)
                }
                _ => None,
            };
            FallbackState {
                metric: metric.clone(),
                status,
                failures,
                failure_threshold: threshold,
                in_fallback,
                fallback_replicas: replicas,
                synthetic_value,
            }
        })
        .collect()
}

fn conditions(so: &Value) -> Vec<Condition> {
    let list = so.pointer("/status/conditions").and_then(Value::as_array);
    list.map(Vec::as_slice)
        .unwrap_or_default()
        .iter()
        .filter_map(|c| {
            Some(Condition {
                type_: c.get("type")?.as_str()?.to_string(),
                status: c
                    .get("status")
                    .and_then(Value::as_str)
                    .unwrap_or("Unknown")
                    .to_string(),
                reason: c.get("reason").and_then(Value::as_str).map(str::to_string),
                message: c.get("message").and_then(Value::as_str).map(str::to_string),
            })
        })
        .collect()
}

fn layer(
    so: &Value,
    hpa: &HorizontalPodAutoscaler,
    paused: &Paused,
    conditions: &[Condition],
    now: jiff::Timestamp,
    notes: &mut Vec<String>,
) -> Layer {
    let spec = so.get("spec").unwrap_or(&Value::Null);
    let min = int_field(
        spec,
        "minReplicaCount",
        "spec.minReplicaCount",
        &mut Vec::new(),
    )
    .unwrap_or(0);
    let idle = int_field(spec, "idleReplicaCount", "spec.idleReplicaCount", notes);
    let cooldown_set = int_field(spec, "cooldownPeriod", "spec.cooldownPeriod", notes);
    // a cooldownPeriod that cannot be read leaves the time left unknown (not the default's)
    let cooldown_bad = spec.get("cooldownPeriod").is_some() && cooldown_set.is_none();
    let cooldown = cooldown_set.unwrap_or(DEFAULT_COOLDOWN_SECONDS);
    let current = hpa
        .status
        .as_ref()
        .and_then(|s| s.current_replicas)
        .map(i64::from);
    let active = conditions
        .iter()
        .find(|c| c.type_ == "Active")
        .map(|c| c.status == "True");
    let last_active = match so.pointer("/status/lastActiveTime") {
        Some(Value::String(s)) => Some(s.as_str()),
        None | Some(Value::Null) => None,
        Some(other) => {
            notes.push(format!(
                "status.lastActiveTime is {other}, not a time: cooldown left unknown"
            ));
            None
        }
    };
    let last_active = last_active.and_then(|s| match s.parse::<jiff::Timestamp>() {
        Ok(t) => Some(t),
        Err(_) => {
            notes.push(format!(
                "status.lastActiveTime is {s:?}, not a time: cooldown left unknown"
            ));
            None
        }
    });
    let rest = idle.unwrap_or(0);
    let scales_to_rest = min == 0 || idle.is_some();
    let cooldown_left = match (active, last_active) {
        (Some(false), Some(t)) if scales_to_rest && !cooldown_bad => {
            Some((cooldown - now.duration_since(t).as_secs()).max(0))
        }
        _ => None,
    };
    let (owner, reason) = match (paused.paused, active, current) {
        (true, _, _) => (MoveOwner::Paused, paused_reason(paused)),
        (_, Some(true), Some(0)) => (
            MoveOwner::Keda,
            format!("a trigger is active at 0 replicas: KEDA activates to {}", min.max(1)),
        ),
        (_, None, _) => (MoveOwner::Unknown, "the ScaledObject has no Active condition yet".to_string()),
        (_, Some(false), Some(c)) if scales_to_rest && c <= rest => (
            MoveOwner::Keda,
            format!("no trigger is above its activation threshold: KEDA holds {c} replicas and activates to {} when one is", min.max(1)),
        ),
        (_, Some(false), _) if scales_to_rest => (
            MoveOwner::Keda,
            format!("no trigger is active: KEDA deactivates to {rest} after the cooldown ({cooldown}s from status.lastActiveTime), overriding the HPA"),
        ),
        (_, _, _) => (MoveOwner::Hpa, "the HPA controller moves 1 ↔ N on the External metrics".to_string()),
    };
    Layer {
        owner,
        reason,
        active,
        current_replicas: current,
        min_replica_count: min,
        idle_replica_count: idle,
        cooldown_period_seconds: cooldown,
        cooldown_left_seconds: cooldown_left,
    }
}

fn paused_reason(p: &Paused) -> String {
    match p.paused_replicas {
        Some(n) => format!("paused at {n} replicas ({PAUSED_REPLICAS}): KEDA deleted the HPA"),
        None => format!("paused ({PAUSED}): KEDA deleted the HPA and stopped scaling"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load(so: &str, hpa: &str) -> (Value, HorizontalPodAutoscaler) {
        (
            crate::yaml::from_str(so).unwrap(),
            crate::yaml::from_str(hpa).unwrap(),
        )
    }

    fn at(s: &str) -> jiff::Timestamp {
        s.parse().unwrap()
    }

    fn orders() -> KedaFacts {
        let (so, hpa) = load(
            include_str!("testdata/orders-so.yaml"),
            include_str!("testdata/orders-hpa.yaml"),
        );
        facts(&so, &hpa, at("2026-11-27T12:01:30Z"))
    }

    #[test]
    fn fields_show_the_min_zero_rewrite_the_default_max_and_the_paused_direction() {
        let f = orders();
        assert_eq!(f.scaled_object, "orders");
        let min = &f.fields[0];
        assert_eq!(
            (min.hpa_value.as_deref(), min.scaled_object_value.as_deref()),
            (Some("1"), Some("0"))
        );
        assert!(min
            .rule
            .as_deref()
            .unwrap()
            .contains("minReplicaCount 0 gives HPA minReplicas 1"));
        let max = &f.fields[1];
        assert_eq!(
            (max.hpa_value.as_deref(), max.scaled_object_value.as_deref()),
            (Some("100"), None)
        );
        assert_eq!(max.rule.as_deref(), Some("unset: KEDA's default 100"));
        let disabled = f
            .fields
            .iter()
            .find(|o| o.hpa_field == "spec.behavior.scaleDown.selectPolicy")
            .unwrap();
        assert_eq!(
            disabled.scaled_object_field,
            "metadata.annotations[autoscaling.keda.sh/paused-scale-in]"
        );
        assert!(f.paused.scale_in && !f.paused.scale_out && !f.paused.paused);
        assert!(f.notes.is_empty(), "{:?}", f.notes);
    }

    #[test]
    fn each_metric_maps_back_to_its_trigger() {
        let f = orders();
        let p = &f.metrics[0];
        assert_eq!(p.trigger_index, Some(0));
        assert_eq!(
            (p.trigger_type.as_deref(), p.trigger_name.as_deref()),
            (Some("prometheus"), Some("queue"))
        );
        assert_eq!(
            (p.threshold_field.as_deref(), p.threshold),
            (Some("threshold"), Some(10.0))
        );
        assert_eq!(
            (p.activation_field.as_deref(), p.activation_threshold),
            (Some("activationThreshold"), 50.0)
        );
        assert_eq!(
            (p.target_type.as_deref(), p.target),
            (Some("AverageValue"), Some(10.0))
        );
        let k = &f.metrics[1];
        assert_eq!(
            (k.trigger_index, k.trigger_type.as_deref()),
            (Some(1), Some("kafka"))
        );
        assert_eq!(
            (k.threshold_field.as_deref(), k.threshold),
            (Some("lagThreshold"), Some(100.0))
        );
        assert_eq!(k.activation_threshold, 0.0);
        assert!(k.use_cached_metrics && !p.use_cached_metrics);
    }

    #[test]
    fn inactive_with_min_zero_is_keda_s_move_with_the_cooldown_left() {
        let f = orders();
        assert_eq!(f.layer.owner, MoveOwner::Keda);
        assert_eq!(f.layer.active, Some(false));
        // lastActiveTime 12:00:00, now 12:01:30, cooldownPeriod 120 s.
        assert_eq!(f.layer.cooldown_left_seconds, Some(30));
        assert!(
            f.layer.reason.contains("deactivates to 0"),
            "{}",
            f.layer.reason
        );
        let later = {
            let (so, hpa) = load(
                include_str!("testdata/orders-so.yaml"),
                include_str!("testdata/orders-hpa.yaml"),
            );
            facts(&so, &hpa, at("2026-11-27T13:00:00Z"))
        };
        assert_eq!(later.layer.cooldown_left_seconds, Some(0));
    }

    #[test]
    fn an_active_scaled_object_above_zero_is_the_hpa_s_move() {
        let (mut so, hpa) = load(
            include_str!("testdata/orders-so.yaml"),
            include_str!("testdata/orders-hpa.yaml"),
        );
        so["status"]["conditions"][1]["status"] = "True".into();
        let f = facts(&so, &hpa, at("2026-11-27T12:01:30Z"));
        assert_eq!(f.layer.owner, MoveOwner::Hpa);
        assert_eq!(f.layer.cooldown_left_seconds, None);
        so["status"]["conditions"][1]["status"] = "False".into();
        so["spec"]["minReplicaCount"] = 2.into();
        let f = facts(&so, &hpa, at("2026-11-27T12:01:30Z"));
        assert_eq!(
            f.layer.owner,
            MoveOwner::Hpa,
            "min > 0 and no idleReplicaCount: KEDA never deactivates"
        );
    }

    #[test]
    fn fallback_past_the_threshold_gives_the_synthetic_value() {
        let f = orders();
        let kafka = f
            .fallback
            .iter()
            .find(|s| s.metric == "s1-kafka-orders")
            .unwrap();
        assert!(kafka.in_fallback);
        assert_eq!((kafka.failures, kafka.failure_threshold), (5, Some(3)));
        assert_eq!(kafka.synthetic_value, Some(600.0));
        let prom = f
            .fallback
            .iter()
            .find(|s| s.metric == "s0-prometheus")
            .unwrap();
        assert!(!prom.in_fallback && prom.synthetic_value.is_none());
        let types: Vec<_> = f.conditions.iter().map(|c| c.type_.as_str()).collect();
        assert_eq!(types, ["Ready", "Active", "Fallback", "Paused"]);
    }

    #[test]
    fn composite_metric_maps_to_scaling_modifiers_and_paused_replicas_pause() {
        let (so, hpa) = load(
            include_str!("testdata/composite-so.yaml"),
            include_str!("testdata/composite-hpa.yaml"),
        );
        let f = facts(&so, &hpa, at("2026-11-27T12:00:00Z"));
        let sm = f.scaling_modifiers.as_ref().unwrap();
        assert_eq!(
            (sm.formula.as_deref(), sm.target, sm.activation_target),
            (Some("(a + b) / 2"), Some(5.0), 1.0)
        );
        assert_eq!(
            f.metrics[0].trigger_index,
            Some(0),
            "cpu maps to the cpu trigger"
        );
        assert_eq!(f.metrics[0].metric_type, "Utilization");
        assert_eq!(f.metrics[1].hpa_metric, COMPOSITE_METRIC);
        assert_eq!(f.metrics[1].trigger_index, None);
        assert_eq!((f.paused.paused, f.paused.paused_replicas), (true, Some(2)));
        assert_eq!(f.layer.owner, MoveOwner::Paused);
        assert!(
            f.fields[2].rule.is_none(),
            "behavior comes from advanced.horizontalPodAutoscalerConfig"
        );
        assert!(f.notes.is_empty(), "{:?}", f.notes);
    }

    #[test]
    fn bad_fields_are_notes_naming_the_field_never_numbers() {
        let (so, hpa) = load(
            include_str!("testdata/bad-so.yaml"),
            include_str!("testdata/bad-hpa.yaml"),
        );
        let f = facts(&so, &hpa, at("2026-11-27T12:00:00Z"));
        let notes = f.notes.join("\n");
        for field in [
            "spec.maxReplicaCount is \"ten\"",
            "spec.triggers[0].type is missing",
            "spec.triggers[0].metadata.threshold is \"lots\"",
            "spec.triggers[0].metadata.activationThreshold is [1]",
            "spec.triggers[1]: no known threshold key",
            "HPA metric s7-gone names trigger 7 but spec.triggers has 2",
            "spec.fallback.failureThreshold is \"x\"",
            "status.health[s0-x].numberOfFailures is \"many\"",
            "status.lastActiveTime is \"yesterday\"",
        ] {
            assert!(notes.contains(field), "missing note {field:?} in\n{notes}");
        }
        assert_eq!(f.metrics[0].threshold, None);
        assert_eq!(f.metrics[0].activation_threshold, 0.0);
        assert_eq!(f.metrics[1].target, Some(7.0));
        assert_eq!(f.metrics[2].trigger_index, None);
        assert!(
            !f.fallback[0].in_fallback,
            "an unreadable threshold never claims fallback"
        );
        assert_eq!(f.layer.cooldown_left_seconds, None);
        assert_eq!(
            f.conditions.len(),
            1,
            "a condition without a type is dropped"
        );
        let empty = facts(&Value::Null, &hpa, at("2026-11-27T12:00:00Z"));
        assert!(empty.notes[0].contains("no spec"));
    }

    #[test]
    fn the_json_is_camel_case_and_has_a_schema() {
        let v = serde_json::to_value(orders()).unwrap();
        assert_eq!(v["scaledObject"], "orders");
        assert_eq!(v["layer"]["owner"], "keda");
        assert_eq!(v["layer"]["cooldownLeftSeconds"], 30);
        assert_eq!(v["metrics"][0]["activationThreshold"], 50.0);
        assert_eq!(v["conditions"][0]["type"], "Ready");
        let schema = serde_json::to_value(schemars::schema_for!(KedaFacts)).unwrap();
        assert!(schema.to_string().contains("cooldownLeftSeconds"));
    }
}
