//! HorizontalPodAutoscalers of older versions, converted to `autoscaling/v2` the way the API
//! server converts them (k8s.io/kubernetes `pkg/apis/autoscaling/{v1,v2beta1,v2beta2}/
//! conversion.go`, through the internal version):
//!
//! * `autoscaling/v1`: `spec.targetCPUUtilizationPercentage` becomes a cpu `Utilization`
//!   metric, placed after the metrics of the `autoscaling.alpha.kubernetes.io/metrics`
//!   annotation; no metric at all becomes the default 80% cpu; `status.currentMetrics` comes
//!   from the `current-metrics` annotation, else from `currentCPUUtilizationPercentage`;
//!   `status.conditions` from the `conditions` annotation; `spec.behavior` from the `behavior`
//!   annotation (Go field names, read case-insensitively; used only when it decodes into the
//!   internal struct and is not empty: valid JSON of a wrong type is ignored, as the API
//!   server's `json.Unmarshal(…); err == nil` guard ignores it).
//! * `autoscaling/v2beta1`: the flat metric fields (`targetAverageUtilization`, `metricName`, …)
//!   become `metric` + `target`; `spec.behavior` from the `behavior` annotation.
//! * `autoscaling/v2beta2`: the v2 shape; `behavior.scaleUp/scaleDown.tolerance` come from the
//!   `scale-up-tolerance` / `scale-down-tolerance` annotations (1.33+, creating the behavior
//!   if needed; a value that is not a quantity fails the conversion, as the API server's does);
//!   the round-trip annotations are dropped.
//!
//! A field that does not belong to the object's version (`targetCPUUtilizationPercentage`
//! inside an `autoscaling/v2` spec) is reported: the API server drops it.

use serde::Serialize;
use serde_json::{json, Map, Value};

use super::error::{err, SnapshotError};

/// `autoscaling.MetricSpecsAnnotation`.
pub const METRICS_ANNOTATION: &str = "autoscaling.alpha.kubernetes.io/metrics";
/// `autoscaling.MetricStatusesAnnotation`.
pub const CURRENT_METRICS_ANNOTATION: &str = "autoscaling.alpha.kubernetes.io/current-metrics";
/// `autoscaling.HorizontalPodAutoscalerConditionsAnnotation`.
pub const CONDITIONS_ANNOTATION: &str = "autoscaling.alpha.kubernetes.io/conditions";
/// `autoscaling.BehaviorSpecsAnnotation`.
pub const BEHAVIOR_ANNOTATION: &str = "autoscaling.alpha.kubernetes.io/behavior";

/// `autoscaling.ToleranceScaleUpAnnotation` (v2beta2, 1.33+).
pub const SCALE_UP_TOLERANCE_ANNOTATION: &str =
    "autoscaling.alpha.kubernetes.io/scale-up-tolerance";
/// `autoscaling.ToleranceScaleDownAnnotation` (v2beta2, 1.33+).
pub const SCALE_DOWN_TOLERANCE_ANNOTATION: &str =
    "autoscaling.alpha.kubernetes.io/scale-down-tolerance";

/// The annotations the conversion reads (kept by `snapshot --redact`).
pub const ROUND_TRIP_ANNOTATIONS: [&str; 6] = [
    METRICS_ANNOTATION,
    CURRENT_METRICS_ANNOTATION,
    CONDITIONS_ANNOTATION,
    BEHAVIOR_ANNOTATION,
    SCALE_UP_TOLERANCE_ANNOTATION,
    SCALE_DOWN_TOLERANCE_ANNOTATION,
];

/// What a note says.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum NoteKind {
    /// The object was converted from an older version (an assumption of the explanation).
    Converted,
    /// A field that does not belong to the object's version, dropped (a warning).
    FieldIgnored,
}

/// A note about reading one HPA.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct HpaNote {
    pub kind: NoteKind,
    pub text: String,
}

/// An HPA in the `autoscaling/v2` shape, and the notes of its conversion.
pub(super) struct Converted {
    pub value: Value,
    pub notes: Vec<HpaNote>,
}

/// Whether the HPA of `api_version` is read (the others are refused by name).
pub(super) fn supported(api_version: &str) -> bool {
    matches!(
        api_version,
        "autoscaling/v2" | "autoscaling/v2beta2" | "autoscaling/v2beta1" | "autoscaling/v1"
    )
}

/// Whether a raw `autoscaling/v2` JSON text may hold a field of another version (a cheap
/// test, so the common case is not parsed twice).
pub(super) fn may_hold_foreign_fields(raw: &str) -> bool {
    [
        "targetCPUUtilizationPercentage",
        "targetAverageUtilization",
        "targetAverageValue",
        "targetValue",
        "metricName",
        "metricSelector",
    ]
    .iter()
    .any(|f| raw.contains(f))
}

/// Convert HPA `obj` of `api_version` to `autoscaling/v2`; `ctx` names it in errors.
pub(super) fn to_v2(
    api_version: &str,
    mut obj: Value,
    ctx: &str,
) -> Result<Converted, SnapshotError> {
    let mut notes: Vec<HpaNote> = foreign_fields(api_version, &obj)
        .into_iter()
        .map(|text| HpaNote {
            kind: NoteKind::FieldIgnored,
            text,
        })
        .collect();
    let present: Vec<&str> = ROUND_TRIP_ANNOTATIONS
        .iter()
        .copied()
        .filter(|a| annotation(&obj, a).is_some())
        .collect();
    let how = match api_version {
        "autoscaling/v1" => {
            v1_to_v2(&mut obj, ctx)?;
            "targetCPUUtilizationPercentage and the autoscaling.alpha.kubernetes.io annotations become spec.metrics, spec.behavior and status"
        }
        "autoscaling/v2beta1" => {
            v2beta1_to_v2(&mut obj);
            "the flat metric fields (targetAverageUtilization, metricName, …) become metric and target"
        }
        "autoscaling/v2beta2" => {
            v2beta2_to_v2(&mut obj, ctx)?;
            ""
        }
        _ => "",
    };
    if api_version != "autoscaling/v2" {
        drop_round_trip(&mut obj);
        obj["apiVersion"] = json!("autoscaling/v2");
        let used = if present.is_empty() {
            String::new()
        } else {
            format!("; annotations read: {}", present.join(", "))
        };
        notes.push(HpaNote {
            kind: NoteKind::Converted,
            text: format!(
                "the HPA was {api_version}: converted to autoscaling/v2 as the API server converts it{}{used}",
                if how.is_empty() { String::new() } else { format!(" ({how})") }
            ),
        });
    }
    Ok(Converted { value: obj, notes })
}

fn annotation<'a>(obj: &'a Value, key: &str) -> Option<&'a str> {
    obj.pointer("/metadata/annotations")?.get(key)?.as_str()
}

fn drop_round_trip(obj: &mut Value) {
    if let Some(a) = obj
        .pointer_mut("/metadata/annotations")
        .and_then(Value::as_object_mut)
    {
        for k in ROUND_TRIP_ANNOTATIONS {
            a.remove(k);
        }
    }
}

/// A JSON annotation the API server would fail to decode is an error naming it.
fn annotation_json(obj: &Value, key: &str, ctx: &str) -> Result<Option<Value>, SnapshotError> {
    let Some(text) = annotation(obj, key) else {
        return Ok(None);
    };
    serde_json::from_str(text).map(Some).map_err(|e| {
        err(format!(
            "{ctx}: field metadata.annotations.{key}: not valid JSON ({e}); the API server cannot convert this HPA either"
        ))
    })
}

fn spec_keys(api_version: &str) -> &'static [&'static str] {
    match api_version {
        "autoscaling/v1" => &[
            "scaleTargetRef",
            "minReplicas",
            "maxReplicas",
            "targetCPUUtilizationPercentage",
        ],
        "autoscaling/v2beta1" => &["scaleTargetRef", "minReplicas", "maxReplicas", "metrics"],
        _ => &[
            "scaleTargetRef",
            "minReplicas",
            "maxReplicas",
            "metrics",
            "behavior",
        ],
    }
}

const SOURCE_KEYS_V2: &[(&str, &[&str])] = &[
    ("resource", &["name", "target"]),
    ("containerResource", &["name", "container", "target"]),
    ("pods", &["metric", "target"]),
    ("object", &["describedObject", "metric", "target"]),
    ("external", &["metric", "target"]),
];

/// The fields of `obj`'s spec (and, in the v2 shapes, of its metric sources) that its version
/// does not have, each worded with what the controller does instead.
pub(super) fn foreign_fields(api_version: &str, obj: &Value) -> Vec<String> {
    let Some(spec) = obj.get("spec").and_then(Value::as_object) else {
        return vec![];
    };
    let known = spec_keys(api_version);
    let no_metrics = spec
        .get("metrics")
        .and_then(Value::as_array)
        .is_none_or(|m| m.is_empty());
    let mut out = Vec::new();
    for k in spec.keys().filter(|k| !known.contains(&k.as_str())) {
        let mut text = format!(
            "spec.{k} is not a field of {api_version}: the API server drops it and the controller never sees it"
        );
        if k == "targetCPUUtilizationPercentage" && no_metrics {
            text += " (with no spec.metrics, the controller uses the default metric: 80% average cpu utilization)";
        }
        out.push(text);
    }
    if !matches!(api_version, "autoscaling/v2" | "autoscaling/v2beta2") {
        return out;
    }
    for (i, m) in spec
        .get("metrics")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .enumerate()
    {
        for (source, keys) in SOURCE_KEYS_V2 {
            let Some(fields) = m.get(*source).and_then(Value::as_object) else {
                continue;
            };
            for k in fields.keys().filter(|k| !keys.contains(&k.as_str())) {
                out.push(format!(
                    "spec.metrics[{i}].{source}.{k} is not a field of {api_version}: the API server drops it (older versions' flat fields go into {source}.target / {source}.metric)"
                ));
            }
        }
    }
    out
}

/// `value` of `src[key]`, or the zero quantity Go writes for a non-pointer Quantity.
fn quantity_or_zero(src: &Value, key: &str) -> Value {
    src.get(key)
        .filter(|v| !v.is_null())
        .cloned()
        .unwrap_or_else(|| json!("0"))
}

fn put(out: &mut Map<String, Value>, key: &str, src: &Value, from: &str) {
    if let Some(v) = src.get(from).filter(|v| !v.is_null()) {
        out.insert(key.to_string(), v.clone());
    }
}

fn identifier(src: &Value, name_key: &str, selector_key: &str) -> Value {
    let mut id = Map::new();
    id.insert(
        "name".into(),
        src.get(name_key).cloned().unwrap_or_else(|| json!("")),
    );
    put(&mut id, "selector", src, selector_key);
    Value::Object(id)
}

/// A v1/v2beta1 `MetricSpec` (flat fields) as a v2 one.
fn metric_spec(m: &Value) -> Value {
    let mut out = Map::new();
    out.insert("type".into(), m.get("type").cloned().unwrap_or(json!("")));
    for key in ["resource", "containerResource"] {
        if let Some(r) = m.get(key).filter(|v| v.is_object()) {
            let util = r.get("targetAverageUtilization").filter(|v| !v.is_null());
            let mut target = Map::new();
            let type_ = if util.is_some() {
                "Utilization"
            } else {
                "AverageValue"
            };
            target.insert("type".into(), json!(type_));
            put(&mut target, "averageValue", r, "targetAverageValue");
            put(
                &mut target,
                "averageUtilization",
                r,
                "targetAverageUtilization",
            );
            let mut v = Map::new();
            v.insert("name".into(), r.get("name").cloned().unwrap_or(json!("")));
            if key == "containerResource" {
                put(&mut v, "container", r, "container");
            }
            v.insert("target".into(), Value::Object(target));
            out.insert(key.into(), Value::Object(v));
        }
    }
    if let Some(p) = m.get("pods").filter(|v| v.is_object()) {
        out.insert(
            "pods".into(),
            json!({
                "metric": identifier(p, "metricName", "selector"),
                "target": {"type": "AverageValue", "averageValue": quantity_or_zero(p, "targetAverageValue")},
            }),
        );
    }
    if let Some(o) = m.get("object").filter(|v| v.is_object()) {
        let has_average = o.get("averageValue").is_some_and(|v| !v.is_null());
        let mut target = Map::new();
        target.insert(
            "type".into(),
            json!(if has_average { "AverageValue" } else { "Value" }),
        );
        target.insert("value".into(), quantity_or_zero(o, "targetValue"));
        put(&mut target, "averageValue", o, "averageValue");
        out.insert(
            "object".into(),
            json!({
                "describedObject": o.get("target").cloned().unwrap_or(json!({})),
                "metric": identifier(o, "metricName", "selector"),
                "target": Value::Object(target),
            }),
        );
    }
    if let Some(e) = m.get("external").filter(|v| v.is_object()) {
        let has_value = e.get("targetValue").is_some_and(|v| !v.is_null());
        let mut target = Map::new();
        target.insert(
            "type".into(),
            json!(if has_value { "Value" } else { "AverageValue" }),
        );
        put(&mut target, "value", e, "targetValue");
        put(&mut target, "averageValue", e, "targetAverageValue");
        out.insert(
            "external".into(),
            json!({
                "metric": identifier(e, "metricName", "metricSelector"),
                "target": Value::Object(target),
            }),
        );
    }
    Value::Object(out)
}

/// A v1/v2beta1 `MetricStatus` (flat fields) as a v2 one.
fn metric_status(m: &Value) -> Value {
    let mut out = Map::new();
    out.insert("type".into(), m.get("type").cloned().unwrap_or(json!("")));
    for key in ["resource", "containerResource"] {
        if let Some(r) = m.get(key).filter(|v| v.is_object()) {
            let mut current = Map::new();
            current.insert(
                "averageValue".into(),
                quantity_or_zero(r, "currentAverageValue"),
            );
            put(
                &mut current,
                "averageUtilization",
                r,
                "currentAverageUtilization",
            );
            let mut v = Map::new();
            v.insert("name".into(), r.get("name").cloned().unwrap_or(json!("")));
            if key == "containerResource" {
                put(&mut v, "container", r, "container");
            }
            v.insert("current".into(), Value::Object(current));
            out.insert(key.into(), Value::Object(v));
        }
    }
    if let Some(p) = m.get("pods").filter(|v| v.is_object()) {
        out.insert(
            "pods".into(),
            json!({
                "metric": identifier(p, "metricName", "selector"),
                "current": {"averageValue": quantity_or_zero(p, "currentAverageValue")},
            }),
        );
    }
    if let Some(o) = m.get("object").filter(|v| v.is_object()) {
        let mut current = Map::new();
        current.insert("value".into(), quantity_or_zero(o, "currentValue"));
        put(&mut current, "averageValue", o, "averageValue");
        out.insert(
            "object".into(),
            json!({
                "describedObject": o.get("target").cloned().unwrap_or(json!({})),
                "metric": identifier(o, "metricName", "selector"),
                "current": Value::Object(current),
            }),
        );
    }
    if let Some(e) = m.get("external").filter(|v| v.is_object()) {
        let mut current = Map::new();
        current.insert("value".into(), quantity_or_zero(e, "currentValue"));
        put(&mut current, "averageValue", e, "currentAverageValue");
        out.insert(
            "external".into(),
            json!({
                "metric": identifier(e, "metricName", "metricSelector"),
                "current": Value::Object(current),
            }),
        );
    }
    Value::Object(out)
}

fn converted_list(v: Option<&Value>, f: fn(&Value) -> Value) -> Option<Value> {
    v.and_then(Value::as_array)
        .map(|a| Value::Array(a.iter().map(f).collect()))
}

/// The behavior annotation: Go's internal struct marshalled without json tags (`ScaleUp`,
/// `StabilizationWindowSeconds`, …), decoded case-insensitively as `encoding/json` does. As in
/// `Convert_v1_HorizontalPodAutoscaler_To_autoscaling_HorizontalPodAutoscaler`, it is used only
/// when `json.Unmarshal` into the internal struct succeeds and the struct is not empty: invalid
/// JSON and valid JSON of a wrong type (a string window, a fractional value) are ignored.
fn behavior_from_annotation(obj: &Value) -> Option<Value> {
    let text = annotation(obj, BEHAVIOR_ANNOTATION)?;
    let v: Value = serde_json::from_str(text).ok()?;
    let camel = camel_keys(&v)?;
    if !decodes_as(&camel, Shape::Behavior) {
        return None;
    }
    let empty = camel
        .as_object()
        .is_none_or(|m| m.values().all(Value::is_null));
    (!empty).then_some(camel)
}

/// The Go types of the internal behavior struct, for [`decodes_as`].
#[derive(Clone, Copy)]
enum Shape {
    Behavior,
    Rules,
    Policies,
    Policy,
    Int32,
    Text,
    Quantity,
}

/// Whether `encoding/json` decodes `v` into a Go value of `shape` without an error (`null`
/// leaves any field at its zero value).
fn decodes_as(v: &Value, shape: Shape) -> bool {
    let fields =
        |m: &Map<String, Value>, of: fn(&str) -> Shape| m.iter().all(|(k, x)| decodes_as(x, of(k)));
    match (shape, v) {
        (_, Value::Null) => true,
        (Shape::Behavior, Value::Object(m)) => fields(m, |_| Shape::Rules),
        (Shape::Rules, Value::Object(m)) => fields(m, |k| match k {
            "stabilizationWindowSeconds" => Shape::Int32,
            "selectPolicy" => Shape::Text,
            "policies" => Shape::Policies,
            _ => Shape::Quantity,
        }),
        (Shape::Policies, Value::Array(a)) => a.iter().all(|p| decodes_as(p, Shape::Policy)),
        (Shape::Policy, Value::Object(m)) => fields(m, |k| match k {
            "type" => Shape::Text,
            _ => Shape::Int32,
        }),
        // Go parses an integer field from the number's text: no fraction, no exponent.
        (Shape::Int32, Value::Number(n)) => n.as_i64().is_some_and(|i| i32::try_from(i).is_ok()),
        (Shape::Text, Value::String(_)) => true,
        // resource.Quantity's UnmarshalJSON takes a quoted or bare quantity.
        (Shape::Quantity, Value::String(q)) => crate::quantity::parse_f64(q.trim()).is_ok(),
        (Shape::Quantity, Value::Number(n)) => crate::quantity::parse_f64(&n.to_string()).is_ok(),
        _ => false,
    }
}

/// `Convert_v2beta2_HorizontalPodAutoscaler_To_autoscaling_HorizontalPodAutoscaler`: the
/// per-direction tolerances kept in two annotations (1.33+) become
/// `behavior.scaleUp/scaleDown.tolerance`, creating the behavior and the direction if needed;
/// a value that is not a quantity fails the conversion.
fn v2beta2_to_v2(obj: &mut Value, ctx: &str) -> Result<(), SnapshotError> {
    for (key, dir) in [
        (SCALE_DOWN_TOLERANCE_ANNOTATION, "scaleDown"),
        (SCALE_UP_TOLERANCE_ANNOTATION, "scaleUp"),
    ] {
        let Some(text) = annotation(obj, key).map(str::to_string) else {
            continue;
        };
        if crate::quantity::parse_f64(&text).is_err() {
            return Err(err(format!(
                "{ctx}: field metadata.annotations.{key}: {text:?} is not a quantity; the API server cannot convert this HPA either (failed to parse annotation {key:?})"
            )));
        }
        let Some(spec) = obj.get_mut("spec").and_then(Value::as_object_mut) else {
            continue;
        };
        let behavior = spec.entry("behavior").or_insert_with(|| json!({}));
        if behavior.is_null() {
            *behavior = json!({});
        }
        let rules = &mut behavior[dir];
        if rules.is_null() {
            *rules = json!({});
        }
        rules["tolerance"] = Value::String(text);
    }
    Ok(())
}

const BEHAVIOR_KEYS: &[&str] = &[
    "scaleUp",
    "scaleDown",
    "stabilizationWindowSeconds",
    "selectPolicy",
    "policies",
    "tolerance",
    "type",
    "value",
    "periodSeconds",
];

fn camel_keys(v: &Value) -> Option<Value> {
    Some(match v {
        Value::Object(m) => {
            let mut out = Map::new();
            for (k, val) in m {
                // encoding/json ignores keys it does not know.
                if let Some(name) = BEHAVIOR_KEYS.iter().find(|n| n.eq_ignore_ascii_case(k)) {
                    out.insert(name.to_string(), camel_keys(val)?);
                }
            }
            Value::Object(out)
        }
        Value::Array(a) => Value::Array(a.iter().map(camel_keys).collect::<Option<_>>()?),
        other => other.clone(),
    })
}

fn v2beta1_to_v2(obj: &mut Value) {
    let behavior = behavior_from_annotation(obj);
    if let Some(spec) = obj.get_mut("spec").and_then(Value::as_object_mut) {
        if let Some(m) = converted_list(spec.get("metrics"), metric_spec) {
            spec.insert("metrics".into(), m);
        }
        if let Some(b) = behavior {
            spec.insert("behavior".into(), b);
        }
    }
    if let Some(status) = obj.get_mut("status").and_then(Value::as_object_mut) {
        if let Some(m) = converted_list(status.get("currentMetrics"), metric_status) {
            status.insert("currentMetrics".into(), m);
        }
    }
}

fn v1_to_v2(obj: &mut Value, ctx: &str) -> Result<(), SnapshotError> {
    let other_metrics = annotation_json(obj, METRICS_ANNOTATION, ctx)?;
    let current_metrics = annotation_json(obj, CURRENT_METRICS_ANNOTATION, ctx)?;
    let conditions = annotation_json(obj, CONDITIONS_ANNOTATION, ctx)?;
    let behavior = behavior_from_annotation(obj);
    let spec = obj.get("spec").cloned().unwrap_or_else(|| json!({}));
    let mut metrics: Vec<Value> = converted_list(other_metrics.as_ref(), metric_spec)
        .and_then(|v| v.as_array().cloned())
        .unwrap_or_default();
    match spec
        .get("targetCPUUtilizationPercentage")
        .filter(|v| !v.is_null())
    {
        Some(cpu) => metrics.push(cpu_utilization(cpu.clone())),
        // autoscaling/v1's implicit default, made explicit by the conversion.
        None if metrics.is_empty() => metrics.push(cpu_utilization(json!(80))),
        None => {}
    }
    let mut new_spec = Map::new();
    for k in ["scaleTargetRef", "minReplicas", "maxReplicas"] {
        put(&mut new_spec, k, &spec, k);
    }
    new_spec.insert("metrics".into(), Value::Array(metrics));
    if let Some(b) = behavior {
        new_spec.insert("behavior".into(), b);
    }
    obj["spec"] = Value::Object(new_spec);
    if let Some(status) = obj.get("status").cloned().filter(Value::is_object) {
        let mut new_status = Map::new();
        for k in [
            "observedGeneration",
            "lastScaleTime",
            "currentReplicas",
            "desiredReplicas",
        ] {
            put(&mut new_status, k, &status, k);
        }
        let current = match &current_metrics {
            Some(c) => converted_list(Some(c), metric_status),
            None => status
                .get("currentCPUUtilizationPercentage")
                .filter(|v| !v.is_null())
                .map(|u| json!([{"type": "Resource", "resource": {"name": "cpu", "current": {"averageUtilization": u}}}])),
        };
        if let Some(c) = current {
            new_status.insert("currentMetrics".into(), c);
        }
        if let Some(c) = conditions {
            new_status.insert("conditions".into(), c);
        }
        obj["status"] = Value::Object(new_status);
    }
    Ok(())
}

fn cpu_utilization(percent: Value) -> Value {
    json!({"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": percent}}})
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn v1_puts_annotation_metrics_first_then_the_cpu_target() {
        let obj = json!({
            "apiVersion": "autoscaling/v1", "kind": "HorizontalPodAutoscaler",
            "metadata": {"name": "web", "annotations": {
                METRICS_ANNOTATION: "[{\"type\":\"Pods\",\"pods\":{\"metricName\":\"rps\",\"targetAverageValue\":\"10\"}}]",
                CONDITIONS_ANNOTATION: "[{\"type\":\"AbleToScale\",\"status\":\"True\",\"reason\":\"ReadyForNewScale\"}]",
                BEHAVIOR_ANNOTATION: "{\"ScaleDown\":{\"StabilizationWindowSeconds\":60,\"SelectPolicy\":null,\"Policies\":null}}"}},
            "spec": {"scaleTargetRef": {"kind": "Deployment", "name": "web"}, "maxReplicas": 5, "targetCPUUtilizationPercentage": 60},
            "status": {"currentReplicas": 2, "desiredReplicas": 2, "currentCPUUtilizationPercentage": 40}
        });
        let c = to_v2("autoscaling/v1", obj, "f").unwrap();
        let m = &c.value["spec"]["metrics"];
        assert_eq!(m[0]["pods"]["metric"]["name"], "rps");
        assert_eq!(m[0]["pods"]["target"]["averageValue"], "10");
        assert_eq!(m[1]["resource"]["target"]["averageUtilization"], 60);
        assert_eq!(
            c.value["spec"]["behavior"]["scaleDown"]["stabilizationWindowSeconds"],
            60
        );
        assert_eq!(
            c.value["status"]["conditions"][0]["reason"],
            "ReadyForNewScale"
        );
        assert_eq!(
            c.value["status"]["currentMetrics"][0]["resource"]["current"]["averageUtilization"],
            40
        );
        assert!(c
            .value
            .pointer("/metadata/annotations")
            .unwrap()
            .as_object()
            .unwrap()
            .is_empty());
        assert_eq!(c.notes[0].kind, NoteKind::Converted);
    }

    #[test]
    fn v1_without_any_metric_gets_the_default_80_percent_cpu() {
        let obj = json!({"spec": {"scaleTargetRef": {"kind": "Deployment", "name": "web"}, "maxReplicas": 5}});
        let c = to_v2("autoscaling/v1", obj, "f").unwrap();
        assert_eq!(
            c.value["spec"]["metrics"][0]["resource"]["target"]["averageUtilization"],
            80
        );
    }

    #[test]
    fn v2beta1_flat_fields_become_metric_and_target() {
        let obj = json!({"spec": {"scaleTargetRef": {"kind": "Deployment", "name": "web"}, "maxReplicas": 5, "metrics": [
            {"type": "Object", "object": {"target": {"kind": "Ingress", "name": "main"}, "metricName": "rps", "targetValue": "100"}},
            {"type": "External", "external": {"metricName": "queue", "targetAverageValue": "30"}},
            {"type": "Resource", "resource": {"name": "memory", "targetAverageValue": "200Mi"}}]}});
        let c = to_v2("autoscaling/v2beta1", obj, "f").unwrap();
        let m = &c.value["spec"]["metrics"];
        assert_eq!(
            m[0]["object"]["target"],
            json!({"type": "Value", "value": "100"})
        );
        assert_eq!(m[0]["object"]["describedObject"]["kind"], "Ingress");
        assert_eq!(
            m[1]["external"]["target"],
            json!({"type": "AverageValue", "averageValue": "30"})
        );
        assert_eq!(
            m[2]["resource"]["target"],
            json!({"type": "AverageValue", "averageValue": "200Mi"})
        );
    }

    #[test]
    fn a_v1_field_in_a_v2_spec_is_named() {
        let obj = json!({"spec": {"scaleTargetRef": {"kind": "Deployment", "name": "web"}, "maxReplicas": 5, "targetCPUUtilizationPercentage": 50}});
        let f = foreign_fields("autoscaling/v2", &obj);
        assert_eq!(f.len(), 1);
        assert!(f[0]
            .starts_with("spec.targetCPUUtilizationPercentage is not a field of autoscaling/v2"));
        assert!(f[0].contains("80%"));
    }

    #[test]
    fn a_behavior_annotation_of_a_wrong_type_is_ignored_as_the_api_server_ignores_it() {
        for bad in [
            r#"{"ScaleUp":{"StabilizationWindowSeconds":"60"}}"#,
            r#"{"ScaleUp":{"StabilizationWindowSeconds":60.5}}"#,
            r#"{"ScaleDown":{"Policies":[{"Type":"Pods","Value":1e1,"PeriodSeconds":60}]}}"#,
            r#"{"ScaleDown":{"Policies":{"Type":"Pods"}}}"#,
            r#"{"ScaleUp":{"Tolerance":"ten percent"}}"#,
            r#"{"ScaleUp":[1]}"#,
            r#"[1, 2]"#,
        ] {
            let obj = json!({"metadata": {"annotations": {BEHAVIOR_ANNOTATION: bad}},
                "spec": {"scaleTargetRef": {"kind": "Deployment", "name": "web"}, "maxReplicas": 5}});
            let c = to_v2("autoscaling/v1", obj, "f").unwrap();
            assert!(
                c.value["spec"].get("behavior").is_none(),
                "{bad}: {}",
                c.value
            );
        }
        let good = r#"{"scaleup":{"stabilizationWindowSeconds":30,"Tolerance":"50m","Policies":[{"Type":"Pods","Value":2,"PeriodSeconds":30}]}}"#;
        let obj = json!({"metadata": {"annotations": {BEHAVIOR_ANNOTATION: good}},
            "spec": {"scaleTargetRef": {"kind": "Deployment", "name": "web"}, "maxReplicas": 5}});
        let c = to_v2("autoscaling/v1", obj, "f").unwrap();
        assert_eq!(c.value["spec"]["behavior"]["scaleUp"]["tolerance"], "50m");
        assert_eq!(
            c.value["spec"]["behavior"]["scaleUp"]["policies"][0]["value"],
            2
        );
    }

    #[test]
    fn v2beta2_tolerance_annotations_become_the_behavior_tolerances() {
        let obj = json!({"metadata": {"annotations": {
                SCALE_UP_TOLERANCE_ANNOTATION: "50m", SCALE_DOWN_TOLERANCE_ANNOTATION: "0.2"}},
            "spec": {"scaleTargetRef": {"kind": "Deployment", "name": "web"}, "maxReplicas": 5,
                "behavior": {"scaleDown": {"stabilizationWindowSeconds": 60}}}});
        let c = to_v2("autoscaling/v2beta2", obj, "f").unwrap();
        let b = &c.value["spec"]["behavior"];
        assert_eq!(b["scaleUp"]["tolerance"], "50m");
        assert_eq!(b["scaleDown"]["tolerance"], "0.2");
        assert_eq!(b["scaleDown"]["stabilizationWindowSeconds"], 60);
        assert!(c.value["metadata"]["annotations"]
            .as_object()
            .unwrap()
            .is_empty());
        // No behavior at all: the API server creates one for the tolerance.
        let obj = json!({"metadata": {"annotations": {SCALE_UP_TOLERANCE_ANNOTATION: "0"}},
            "spec": {"scaleTargetRef": {"kind": "Deployment", "name": "web"}, "maxReplicas": 5}});
        let c = to_v2("autoscaling/v2beta2", obj, "f").unwrap();
        assert_eq!(
            c.value["spec"]["behavior"],
            json!({"scaleUp": {"tolerance": "0"}})
        );
        let obj = json!({"metadata": {"annotations": {SCALE_DOWN_TOLERANCE_ANNOTATION: "x1"}},
            "spec": {"maxReplicas": 5}});
        let e = to_v2("autoscaling/v2beta2", obj, "f").err().unwrap();
        assert!(e.message.contains(SCALE_DOWN_TOLERANCE_ANNOTATION), "{e}");
    }

    #[test]
    fn a_malformed_metrics_annotation_is_an_error_naming_it() {
        let obj = json!({"metadata": {"annotations": {METRICS_ANNOTATION: "[{"}}, "spec": {}});
        let e = to_v2("autoscaling/v1", obj, "f: HorizontalPodAutoscaler a/b")
            .err()
            .unwrap();
        assert!(e.message.contains(METRICS_ANNOTATION), "{e}");
    }
}
