//! The metrics chain (issue 28 items 2–3): KEDA's external metrics APIService held by another
//! adapter, and a prometheus-adapter whose rules never give the metric's name — each one
//! finding with the action up top. The facts come from [`crate::adapter`]; the other breaks of
//! the chain (an APIService missing or not available) are `metrics.rs`'s.

use serde_json::json;

use super::finding::{finding, Finding, Severity};
use crate::adapter::facts::{MetricLink, MetricsChain, RulesFacts};

/// The findings of a chain (`ns`: the HPA's namespace, for the commands).
pub(super) fn findings(chain: &MetricsChain, ns: &str, out: &mut Vec<Finding>) {
    if let Some(k) = &chain.keda_conflict {
        let svc = k.service.as_deref().unwrap_or("(none)");
        out.push(Finding {
            details: Some(json!({"scaledObject": k.scaled_object, "apiService": k.api_service,
                "service": k.service, "adapter": k.adapter})),
            ..finding(
                "keda-external-metrics-held",
                Severity::Error,
                format!(
                    "KEDA manages this HPA (ScaledObject {}) but APIService {} is held by {} (Service {svc}), not KEDA's metrics server: the HPA's External metrics never reach KEDA, and KEDA's fallback (which KEDA's metrics server serves) cannot engage",
                    k.scaled_object,
                    k.api_service,
                    k.adapter.words()
                ),
                format!(
                    "give {} back to KEDA: only one adapter can serve external.metrics.k8s.io — turn off the other adapter's registration (the Datadog chart: clusterAgent.metricsProvider.registerAPIService=false) and re-apply KEDA's APIService (helm upgrade keda kedacore/keda); check with kubectl get apiservice {} -o jsonpath='{{.spec.service}}'",
                    k.api_service, k.api_service
                ),
            )
        });
    }
    for link in chain.metrics.iter().filter(|l| l.failed) {
        if let Some(r) = &link.rules {
            out.extend(rules_finding(link, r, ns));
        }
    }
}

/// A failing metric that prometheus-adapter's rules never name (or do not associate with the
/// metric's resource), or whose rules cannot be read.
fn rules_finding(link: &MetricLink, r: &RulesFacts, ns: &str) -> Option<Finding> {
    let metric = &link.metric;
    let (cm_ns, cm_name) = r.config_map.split_once('/').unwrap_or(("", &r.config_map));
    let check = format!(
        "kubectl get --raw /apis/{}/{} | grep {metric}",
        link.api,
        match link.api.as_str() {
            "external.metrics.k8s.io" => "v1beta1",
            _ => "v1beta2",
        }
    );
    if let Some(u) = &r.unreadable {
        return Some(finding(
            "adapter-rules-unreadable",
            Severity::Warning,
            format!("metric {} ({metric}) fails and prometheus-adapter's rules could not be read: {u}", link.index),
            format!("read the rules with kubectl get configmap -n {cm_ns} {cm_name} -o yaml (key {}) and check that one gives {metric}; {check}", r.key),
        ));
    }
    let restart = match link.deployment.as_deref().and_then(|d| d.split_once('/')) {
        Some((dns, dname)) => format!("kubectl -n {dns} rollout restart deployment {dname}"),
        None => format!("kubectl -n {cm_ns} rollout restart deployment ..."),
    };
    let broken = match r.broken.as_slice() {
        [] => String::new(),
        b => format!("; rules that cannot work as written: {}", b.join("; ")),
    };
    if r.matched_by.is_empty() {
        let nearest: Vec<String> = r
            .nearest
            .iter()
            .take(3)
            .map(|n| format!("{} ({})", n.name, n.rule))
            .collect();
        let near = match nearest.first() {
            Some(_) => format!(
                "; the names they give nearest to it: {}",
                nearest.join(", ")
            ),
            None => String::new(),
        };
        return Some(Finding {
            details: Some(json!({"metric": metric, "configMap": r.config_map, "key": r.key,
                "list": r.list, "rules": r.rules, "nearest": r.nearest})),
            ..finding(
                "adapter-rule-no-match",
                Severity::Error,
                format!(
                    "metric {} fails: no rule of prometheus-adapter (ConfigMap {}, {}, {} rule(s)) gives the name {metric}, so the adapter never serves it{near}{broken}",
                    link.index,
                    r.config_map,
                    r.list,
                    r.rules.unwrap_or(0)
                ),
                format!(
                    "use a name the rules give{} in the HPA, or add a rule to {} in ConfigMap {} (key {}) whose name.matches/name.as give {metric}, then restart the adapter ({restart}); check with {check}",
                    r.nearest
                        .first()
                        .map(|n| format!(" (e.g. {})", n.name))
                        .unwrap_or_default(),
                    r.list,
                    r.config_map,
                    r.key
                ),
            )
        });
    }
    let all_missing = r.matched_by.iter().all(|m| m.resource_missing.is_some());
    let m = &r.matched_by[0];
    if all_missing {
        let res = m.resource_missing.as_deref().unwrap_or_default();
        return Some(finding(
            "adapter-rule-resource-missing",
            Severity::Error,
            format!(
                "metric {} fails: {} of prometheus-adapter's ConfigMap {} gives the name {metric} but its resources do not associate {res}, so the adapter lists {metric} for other resources only (namespace {ns}){broken}",
                link.index, m.rule, r.config_map
            ),
            format!(
                "add the label that names the {res} to {}'s resources.overrides (e.g. pod: {{resource: pod}}) or use resources.template: <<.Resource>>, then restart the adapter; check with {check}",
                m.rule
            ),
        ));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::snapshot::Snapshot;

    /// The example's HPA (shop/NAME) evaluated, and its chain's findings.
    pub(crate) fn run(file: &str, name: &str) -> (MetricsChain, Vec<Finding>) {
        run_text(&example(file), file, name)
    }

    fn example(file: &str) -> String {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("examples")
            .join(file);
        std::fs::read_to_string(&path).expect("example")
    }

    fn run_text(text: &str, file: &str, name: &str) -> (MetricsChain, Vec<Finding>) {
        let snap = Snapshot::from_text(text, file).expect("snapshot");
        let (input, d) = crate::diagnose::evaluated(&snap, name);
        let c = crate::adapter::metrics_chain(&snap, &input, &d);
        let mut out = Vec::new();
        findings(&c, &input.hpa.namespace, &mut out);
        (c, out)
    }

    #[test]
    fn a_rule_that_never_matches_is_one_finding_with_the_nearest_names() {
        let (c, f) = run("adapter-rule-never-matches.yaml", "orders");
        let link = &c.metrics[1];
        assert!(link.failed, "{link:?}");
        assert_eq!(
            link.adapter,
            Some(crate::adapter::AdapterKind::PrometheusAdapter)
        );
        assert_eq!(
            link.service.as_deref(),
            Some("monitoring/prometheus-adapter")
        );
        let r = link.rules.as_ref().expect("rules");
        assert_eq!(r.config_map, "monitoring/adapter-config");
        assert!(r.matched_by.is_empty(), "{r:?}");
        assert_eq!(r.nearest[0].name, "http_requests_per_second");
        let ids: Vec<&str> = f.iter().map(|f| f.id.as_str()).collect();
        assert_eq!(ids, ["adapter-rule-no-match"]);
        assert!(
            f[0].action
                .starts_with("use a name the rules give (e.g. http_requests_per_second)"),
            "{}",
            f[0].action
        );
        // cpu is served by metrics-server, Available.
        assert_eq!(
            c.metrics[0].adapter,
            Some(crate::adapter::AdapterKind::MetricsServer)
        );
        assert_eq!(c.metrics[0].available, Some(true));
    }

    #[test]
    fn metrics_server_names_the_running_pods_it_has_no_sample_for() {
        let text = example("adapter-rule-never-matches.yaml");
        let start = text
            .find("- apiVersion: metrics.k8s.io/v1beta1\n  kind: PodMetrics\n  metadata:\n    name: orders-6b7f4d9c8-tq4mn")
            .expect("the pod's PodMetrics");
        let end = start + 2 + text[start + 2..].find("\n- apiVersion").expect("next item");
        let cut = format!("{}{}", &text[..start], &text[end + 1..]);
        let (c, _) = run_text(&cut, "cut", "orders");
        let cpu = &c.metrics[0];
        assert_eq!(cpu.pods_without_samples, ["orders-6b7f4d9c8-tq4mn"]);
        let cause = cpu.cause.as_deref().unwrap_or_default();
        assert!(
            cause.starts_with("metrics-server has no sample for 1 pod(s): orders-6b7f4d9c8-tq4mn"),
            "{cause}"
        );
        let (whole, _) = run("adapter-rule-never-matches.yaml", "orders");
        assert!(whole.metrics[0].pods_without_samples.is_empty());
    }
}
