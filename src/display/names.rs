//! Metric names as people write them: `cpu`, `http_requests{path=/api}`,
//! `queue_messages_ready{queue=orders}`, `requests on Ingress/main` — not the Go struct dump the
//! controller prints in its own messages (those keep the controller's exact text).

use k8s_openapi::api::autoscaling::v2 as hpa_v2;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector;

use super::units::Unit;

/// A label selector the way `kubectl get -l` spells it, inside braces: `{queue=orders,tier in (a,b)}`;
/// empty for no selector.
pub fn selector(sel: Option<&LabelSelector>) -> String {
    let Some(sel) = sel else {
        return String::new();
    };
    let mut parts: Vec<String> = Vec::new();
    for (k, v) in sel.match_labels.iter().flatten() {
        parts.push(format!("{k}={v}"));
    }
    for e in sel.match_expressions.iter().flatten() {
        let values = e.values.clone().unwrap_or_default().join(",");
        parts.push(match e.operator.as_str() {
            "In" => format!("{} in ({values})", e.key),
            "NotIn" => format!("{} notin ({values})", e.key),
            "Exists" => e.key.clone(),
            "DoesNotExist" => format!("!{}", e.key),
            op => format!("{} {op} ({values})", e.key),
        });
    }
    if parts.is_empty() {
        String::new()
    } else {
        format!("{{{}}}", parts.join(","))
    }
}

/// The short name of a metric spec and the unit of its values.
pub fn metric(spec: &hpa_v2::MetricSpec) -> (String, Unit) {
    if let Some(r) = &spec.resource {
        return (
            resource_name(&r.name, None, &r.target),
            Unit::of_resource(&r.name),
        );
    }
    if let Some(r) = &spec.container_resource {
        return (
            resource_name(&r.name, Some(&r.container), &r.target),
            Unit::of_resource(&r.name),
        );
    }
    if let Some(p) = &spec.pods {
        let id = &p.metric;
        return (
            format!("{}{}", id.name, selector(id.selector.as_ref())),
            Unit::Plain,
        );
    }
    if let Some(o) = &spec.object {
        let id = &o.metric;
        return (
            format!(
                "{}{} on {}/{}",
                id.name,
                selector(id.selector.as_ref()),
                o.described_object.kind,
                o.described_object.name
            ),
            Unit::Plain,
        );
    }
    if let Some(e) = &spec.external {
        let id = &e.metric;
        return (
            format!("{}{}", id.name, selector(id.selector.as_ref())),
            Unit::Plain,
        );
    }
    (format!("{} metric", spec.type_), Unit::Plain)
}

fn resource_name(name: &str, container: Option<&str>, t: &hpa_v2::MetricTarget) -> String {
    let what = if t.type_ == "Utilization" {
        format!("{name} utilization")
    } else {
        name.to_string()
    };
    match container {
        Some(c) => format!("{what} (container {c})"),
        None => what,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelectorRequirement;

    #[test]
    fn external_metrics_read_like_prometheus() {
        let spec: hpa_v2::MetricSpec = serde_json::from_value(serde_json::json!({
            "type": "External",
            "external": {
                "metric": {"name": "queue_messages_ready", "selector": {"matchLabels": {"queue": "orders"}}},
                "target": {"type": "AverageValue", "averageValue": "30"}
            }
        }))
        .unwrap();
        assert_eq!(metric(&spec).0, "queue_messages_ready{queue=orders}");
    }

    #[test]
    fn selectors_are_spelled_like_kubectl() {
        let sel = LabelSelector {
            match_labels: Some([("a".to_string(), "1".to_string())].into()),
            match_expressions: Some(vec![
                LabelSelectorRequirement {
                    key: "t".into(),
                    operator: "In".into(),
                    values: Some(vec!["x".into(), "y".into()]),
                },
                LabelSelectorRequirement {
                    key: "gone".into(),
                    operator: "DoesNotExist".into(),
                    values: None,
                },
            ]),
        };
        assert_eq!(selector(Some(&sel)), "{a=1,t in (x,y),!gone}");
        assert_eq!(selector(None), "");
    }

    #[test]
    fn resource_metrics_name_their_container() {
        let spec: hpa_v2::MetricSpec = serde_json::from_value(serde_json::json!({
            "type": "ContainerResource",
            "containerResource": {"name": "cpu", "container": "app",
                "target": {"type": "Utilization", "averageUtilization": 60}}
        }))
        .unwrap();
        assert_eq!(
            metric(&spec),
            ("cpu utilization (container app)".into(), Unit::Cpu)
        );
    }
}
