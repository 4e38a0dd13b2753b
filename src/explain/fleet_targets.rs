//! The TARGETS column as `kubectl get hpa` prints it (`cpu: 90%/60%`, `12/10 (avg)`): for each
//! `spec.metrics` entry, the current value this evaluation computed over the target, in the
//! words of kubectl's printer; `<unknown>` where no value was computed, `<none>` without metrics.

use k8s_openapi::api::autoscaling::v2::{MetricSpec, MetricStatus, MetricTarget};
use k8s_openapi::apimachinery::pkg::api::resource::Quantity;

use crate::core::MetricOutcome;

const UNKNOWN: &str = "<unknown>";

fn q(v: Option<&Quantity>) -> String {
    v.map_or(UNKNOWN.to_string(), |q| q.0.clone())
}

/// `current/target` of a value or an average value (`(avg)` when the target is an average
/// and `avg_note`).
fn value_pair(
    target: &MetricTarget,
    current: Option<&k8s_openapi::api::autoscaling::v2::MetricValueStatus>,
    avg_note: bool,
) -> String {
    match &target.average_value {
        Some(t) => format!(
            "{}/{}{}",
            q(current.and_then(|c| c.average_value.as_ref())),
            t.0,
            if avg_note { " (avg)" } else { "" }
        ),
        None => format!(
            "{}/{}",
            q(current.and_then(|c| c.value.as_ref())),
            q(target.value.as_ref())
        ),
    }
}

/// `name: current/target` of a resource metric (utilization in percent, else an average value).
fn resource_pair(
    name: &str,
    target: &MetricTarget,
    current: Option<&k8s_openapi::api::autoscaling::v2::MetricValueStatus>,
) -> String {
    if let Some(t) = &target.average_value {
        let c = q(current.and_then(|c| c.average_value.as_ref()));
        return format!("{name}: {c}/{}", t.0);
    }
    let c = current
        .and_then(|c| c.average_utilization)
        .map_or(UNKNOWN.to_string(), |u| format!("{u}%"));
    let t = target
        .average_utilization
        .map_or("<auto>".to_string(), |u| format!("{u}%"));
    format!("{name}: {c}/{t}")
}

/// One entry, with the status this evaluation computed for it (if any).
fn entry(spec: &MetricSpec, status: Option<&MetricStatus>) -> String {
    if let Some(e) = &spec.external {
        let c = status.and_then(|s| s.external.as_ref()).map(|s| &s.current);
        return value_pair(&e.target, c, true);
    }
    if let Some(p) = &spec.pods {
        let c = status.and_then(|s| s.pods.as_ref()).map(|s| &s.current);
        return value_pair(&p.target, c, false);
    }
    if let Some(o) = &spec.object {
        let c = status.and_then(|s| s.object.as_ref()).map(|s| &s.current);
        return value_pair(&o.target, c, true);
    }
    if let Some(r) = &spec.resource {
        let c = status.and_then(|s| s.resource.as_ref()).map(|s| &s.current);
        return resource_pair(&r.name, &r.target, c);
    }
    if let Some(r) = &spec.container_resource {
        let c = status
            .and_then(|s| s.container_resource.as_ref())
            .map(|s| &s.current);
        return resource_pair(&r.name, &r.target, c);
    }
    "<unknown type>".to_string()
}

/// Every entry of `specs`, with the outcome of the same index.
pub fn targets(specs: &[MetricSpec], outcomes: &[MetricOutcome]) -> Vec<String> {
    specs
        .iter()
        .enumerate()
        .map(|(k, s)| entry(s, outcomes.get(k).and_then(|o| o.status.as_ref())))
        .collect()
}

/// The cell: `<none>` without metrics; the first two and `+ N more...` unless `wide`.
pub fn cell(targets: &[String], wide: bool) -> String {
    match targets {
        [] => "<none>".to_string(),
        t if t.len() > 2 && !wide => format!("{} + {} more...", t[..2].join(", "), t.len() - 2),
        t => t.join(", "),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::explain::fleet::evaluate_snapshot;
    use crate::explain::testing::{example, options, NOW};

    fn targets_of(file: &str) -> Vec<Vec<String>> {
        let (snap, extras) = example(file);
        evaluate_snapshot(
            crate::explain::fleet::Evaluation::of(&options(&["--now", NOW])),
            &snap,
            &extras,
            None,
        )
        .into_iter()
        .map(|i| i.targets)
        .collect()
    }

    #[test]
    fn targets_read_as_kubectl_get_hpa_prints_them() {
        assert_eq!(targets_of("scale-up-cpu.yaml"), [["cpu: 83%/50%"]]);
        let several = &targets_of("several-metrics.yaml")[0];
        assert!(several.len() >= 2, "{several:?}");
        assert!(cell(several, false).starts_with(&several[0]));
        let four: Vec<String> = ["a", "b", "c", "d"].map(String::from).to_vec();
        assert_eq!(cell(&four, false), "a, b + 2 more...");
        assert_eq!(cell(&four, true), "a, b, c, d");
        assert_eq!(cell(&[], false), "<none>");
    }
}
