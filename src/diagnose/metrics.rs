//! The metrics pipeline: a file without metrics, our own failed read, the resource metrics
//! APIService (missing, unavailable, unreadable), empty or stale PodMetrics, and an unavailable
//! custom or external metrics APIService.

use jiff::SignedDuration;
use serde_json::json;

use crate::core::{Action, Decision, Input, MetricSpec, Rule};
use crate::metrics_api::{MetricsApi, MetricsGroup, METRICS_APISERVICE};

use super::extras::Extras;
use super::finding::{finding, fmt_dur, Finding, Severity};

/// Everything about the metrics the controller reads, after the target's findings.
pub(super) fn pipeline(
    input: &Input,
    d: &Decision,
    x: &Extras,
    selector: &str,
    out: &mut Vec<Finding>,
) {
    if d.verdict.decided_by == Rule::NoMetrics {
        out.push(no_metrics(input));
    } else if d.verdict.decided_by == Rule::NotInSnapshot {
        // The file lacks the target: said by the target's finding.
    } else if d.verdict.action == Action::Unknown {
        // Our read failed, not the controller's: no advice about the metrics pipeline.
        out.push(finding(
            "our-read-failed",
            Severity::Warning,
            d.verdict.summary.clone(),
            "run again (the API server may be throttling or restarting); check that you may read the metrics APIs (kubectl auth can-i list pods.metrics.k8s.io); -v 6 shows each request and its status".into(),
        ));
    } else {
        metrics_api_findings(input, d, x, selector, out);
        other_metrics_api_findings(input, x, out);
    }
}

/// A snapshot without any metric: what explain can still say.
fn no_metrics(input: &Input) -> Finding {
    let hpa = &input.hpa;
    let status = match &hpa.status {
        Some(s) => {
            let conditions: Vec<String> = s
                .conditions
                .iter()
                .flatten()
                .map(|c| {
                    format!(
                        "{}={} {}",
                        c.type_,
                        c.status,
                        c.reason.as_deref().unwrap_or("")
                    )
                })
                .collect();
            format!(
                "the status the controller last wrote (currentReplicas {}, desiredReplicas {}{}{})",
                s.current_replicas.unwrap_or(0),
                s.desired_replicas,
                if conditions.is_empty() { "" } else { "; " },
                conditions.join(", ")
            )
        }
        None => "the status (none written yet)".to_string(),
    };
    let ready = input
        .pods
        .iter()
        .filter(|p| p.ready.as_ref().is_some_and(|r| r.status == "True"))
        .count();
    finding(
        "snapshot-without-metrics",
        Severity::Warning,
        format!(
            "the file holds no metrics (no PodMetrics, MetricValueList or ExternalMetricValueList), so the replica count cannot be recomputed. Still known: {status}; the spec (minReplicas {}, maxReplicas {}, {} metric(s)); the {} pod(s) the target selects ({ready} ready)",
            hpa.min_replicas,
            hpa.max_replicas,
            hpa.metrics.len(),
            input.pods.len()
        ),
        format!(
            "take the file with `kubectl hpa snapshot {} -n {}` (it fetches the metrics), or add them to it: kubectl get --raw /apis/metrics.k8s.io/v1beta1/namespaces/{}/pods (and the custom or external metrics the HPA reads)",
            hpa.name, hpa.namespace, hpa.namespace
        ),
    )
}

pub(super) fn uses_resource_metrics(input: &Input) -> bool {
    input.hpa.metrics.iter().any(|m| {
        matches!(
            m,
            MetricSpec::Resource { .. } | MetricSpec::ContainerResource { .. }
        )
    })
}

/// A custom or external metrics APIService that is not available, when the HPA reads its API:
/// the controller's reads fail (503) until the adapter behind it answers again.
fn other_metrics_api_findings(input: &Input, x: &Extras, out: &mut Vec<Finding>) {
    for (name, api) in &x.other_apis {
        let MetricsApi::Unavailable { reason, message } = api else {
            continue;
        };
        let group = MetricsGroup::of_apiservice(name);
        let used = input.hpa.metrics.iter().any(|m| match group {
            Some(MetricsGroup::Custom) => {
                matches!(m, MetricSpec::Pods { .. } | MetricSpec::Object { .. })
            }
            Some(MetricsGroup::External) => matches!(m, MetricSpec::External { .. }),
            _ => false,
        });
        let Some(group) = group.filter(|_| used) else {
            continue;
        };
        let words = group.words();
        out.push(finding(
            &format!("{}-api-unavailable", words.replace(' ', "-")),
            Severity::Error,
            format!("the {words} API is registered but not available: APIService {name} Available=False ({reason}: {message}); the controller's reads of {words} fail"),
            format!("check the adapter that serves it (prometheus-adapter, KEDA, a cloud adapter...): its pods and logs, the Service the APIService points to, and network policies between the API server and it (kubectl get apiservice {name} -o yaml)"),
        ));
    }
}

fn metrics_api_findings(
    input: &Input,
    d: &Decision,
    x: &Extras,
    selector: &str,
    out: &mut Vec<Finding>,
) {
    if !uses_resource_metrics(input) || input.scale.is_err() || d.current_replicas == Some(0) {
        return;
    }
    match &input.pod_metrics {
        Err(e) => {
            let (name, api) = match &x.metrics_api {
                Some((name, api)) => (name.as_str(), Some(api)),
                None => (METRICS_APISERVICE, None),
            };
            let f = match api {
                Some(MetricsApi::Absent) => finding(
                    "metrics-api-missing",
                    Severity::Error,
                    format!("the resource metrics API is not installed: APIService {name} does not exist, so cpu/memory metrics fail ({e})"),
                    "install metrics-server (kubectl apply -f https://github.com/kubernetes-sigs/metrics-server/releases/latest/download/components.yaml) or another provider of metrics.k8s.io, or use Pods/Object/External metrics".into(),
                ),
                Some(MetricsApi::Unavailable { reason, message }) => finding(
                    "metrics-api-unavailable",
                    Severity::Error,
                    format!("the resource metrics API is registered but not available: APIService {name} Available=False ({reason}: {message}); cpu/memory metrics fail ({e})"),
                    format!("check metrics-server: its pods and logs (kubectl -n kube-system logs deploy/metrics-server), the Service the APIService points to, and network policies between the API server and it (kubectl get apiservice {name} -o yaml)"),
                ),
                Some(MetricsApi::Unknown(why)) => finding(
                    "metrics-api-error",
                    Severity::Error,
                    format!("the resource metrics API failed ({e}); the APIService {name} could not be read either ({why})"),
                    format!("ask an administrator: kubectl get apiservice {name}; check metrics-server's pods and logs"),
                ),
                _ => finding(
                    "metrics-api-error",
                    Severity::Error,
                    format!("the resource metrics API failed: {e}"),
                    format!("check `kubectl get apiservice {name}` (Available?) and metrics-server's logs; a 403 means the credentials may not list pods.metrics.k8s.io"),
                ),
            };
            out.push(f);
        }
        Ok(usages) if usages.is_empty() => {
            if !input.pods.is_empty() {
                out.push(finding(
                    "metrics-empty",
                    Severity::Warning,
                    format!(
                        "the resource metrics API answered but has no sample for any of the {} pods selected by {selector}",
                        input.pods.len()
                    ),
                    format!("metrics-server needs a scrape or two after pods start; if it lasts, check its logs for kubelet scrape errors and run `kubectl top pods -n {} -l {selector}`", input.hpa.namespace),
                ));
            }
        }
        Ok(usages) => {
            let sync = input.settings.sync_period;
            let mut stale: Vec<(String, SignedDuration)> = Vec::new();
            let mut limit = SignedDuration::ZERO;
            for u in usages {
                let window = if u.window.is_zero() {
                    SignedDuration::from_secs(30)
                } else {
                    u.window
                };
                let thr = window * 2 + sync;
                limit = limit.max(thr);
                let age = d.now.duration_since(u.timestamp);
                if age > thr {
                    stale.push((u.pod.clone(), age));
                }
            }
            if !stale.is_empty() {
                stale.sort_by_key(|(_, a)| std::cmp::Reverse(*a));
                let names: Vec<String> = stale.iter().map(|(p, _)| p.clone()).collect();
                out.push(Finding {
                    details: Some(json!({"stalePods": names, "oldestAgeSeconds": stale[0].1.as_secs()})),
                    ..finding(
                        "metrics-stale",
                        Severity::Warning,
                        format!(
                            "{} of {} PodMetrics samples are older than 2 × their window + the sync period ({}): the oldest, {}, is {} old — the controller still uses them",
                            stale.len(),
                            usages.len(),
                            fmt_dur(limit),
                            stale[0].0,
                            fmt_dur(stale[0].1)
                        ),
                        "metrics-server is not refreshing these pods: check its logs for scrape errors on their nodes (kubelet unreachable, certificates) and compare with `kubectl top pods`".into(),
                    )
                });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn metrics_apiservice_states() {
        assert_eq!(MetricsApi::from_apiservice(None), MetricsApi::Absent);
        let down = json!({"status": {"conditions": [{"type": "Available", "status": "False", "reason": "FailedDiscoveryCheck", "message": "no response"}]}});
        assert_eq!(
            MetricsApi::from_apiservice(Some(&down)),
            MetricsApi::Unavailable {
                reason: "FailedDiscoveryCheck".into(),
                message: "no response".into()
            }
        );
        let up = json!({"status": {"conditions": [{"type": "Available", "status": "True"}]}});
        assert_eq!(
            MetricsApi::from_apiservice(Some(&up)),
            MetricsApi::Available
        );
    }
}
