//! Who serves a metrics APIService: recognised by the names of its Service and Deployment, the
//! Deployment's labels and its containers' images.

use serde::Serialize;
use serde_json::Value;

/// The adapters explain knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum AdapterKind {
    /// kubernetes-sigs/metrics-server (`metrics.k8s.io`).
    MetricsServer,
    /// kubernetes-sigs/prometheus-adapter (any of the three APIs, by its rules).
    PrometheusAdapter,
    /// KEDA's metrics server, `keda-operator-metrics-apiserver` (`external.metrics.k8s.io`).
    Keda,
    /// The Datadog Cluster Agent's external metrics provider.
    Datadog,
    /// Google's custom-metrics-stackdriver-adapter.
    Google,
    /// Azure's k8s-metrics-adapter.
    Azure,
    /// AWS's k8s-cloudwatch-adapter.
    Aws,
    /// None of the above.
    Unknown,
}

impl AdapterKind {
    /// How people call it.
    pub fn words(self) -> &'static str {
        match self {
            AdapterKind::MetricsServer => "metrics-server",
            AdapterKind::PrometheusAdapter => "prometheus-adapter",
            AdapterKind::Keda => "KEDA's metrics server",
            AdapterKind::Datadog => "the Datadog Cluster Agent",
            AdapterKind::Google => "Google's Stackdriver adapter",
            AdapterKind::Azure => "Azure's metrics adapter",
            AdapterKind::Aws => "AWS's CloudWatch adapter",
            AdapterKind::Unknown => "an unknown adapter",
        }
    }

    /// The words in names and images that give it away, the most specific adapters first.
    fn needles(self) -> &'static [&'static str] {
        match self {
            AdapterKind::Keda => &[
                "keda-operator-metrics-apiserver",
                "keda-metrics-apiserver",
                "kedacore",
            ],
            AdapterKind::Datadog => &["datadog", "cluster-agent"],
            AdapterKind::Google => &["stackdriver"],
            AdapterKind::Azure => &["azure-k8s-metrics-adapter", "k8s/metrics/adapter"],
            AdapterKind::Aws => &["cloudwatch-adapter", "cloudwatch-metrics-adapter"],
            AdapterKind::PrometheusAdapter => &["prometheus-adapter", "k8s-prometheus-adapter"],
            AdapterKind::MetricsServer => &["metrics-server"],
            AdapterKind::Unknown => &[],
        }
    }
}

const ORDER: [AdapterKind; 7] = [
    AdapterKind::Keda,
    AdapterKind::Datadog,
    AdapterKind::Google,
    AdapterKind::Azure,
    AdapterKind::Aws,
    AdapterKind::PrometheusAdapter,
    AdapterKind::MetricsServer,
];

/// The adapter behind a Service (`namespace/name`) and, when known, its Deployment; with what
/// gave it away (`Service keda/keda-operator-metrics-apiserver`).
pub fn recognise(
    service: Option<&str>,
    deployment: Option<&Value>,
) -> (AdapterKind, Option<String>) {
    let mut signals: Vec<(String, String)> = Vec::new();
    if let Some(s) = service {
        signals.push((format!("Service {s}"), s.to_lowercase()));
    }
    if let Some(d) = deployment {
        let name = d
            .pointer("/metadata/name")
            .and_then(Value::as_str)
            .unwrap_or_default();
        signals.push((format!("Deployment {name}"), name.to_lowercase()));
        for key in [
            "app.kubernetes.io/name",
            "app",
            "k8s-app",
            "app.kubernetes.io/part-of",
        ] {
            for at in ["/metadata/labels", "/spec/template/metadata/labels"] {
                if let Some(v) = d
                    .pointer(at)
                    .and_then(|l| l.get(key))
                    .and_then(Value::as_str)
                {
                    signals.push((format!("label {key}={v}"), v.to_lowercase()));
                }
            }
        }
        let containers = d
            .pointer("/spec/template/spec/containers")
            .and_then(Value::as_array);
        for c in containers.into_iter().flatten() {
            if let Some(i) = c["image"].as_str() {
                signals.push((format!("image {i}"), i.to_lowercase()));
            }
        }
    }
    for kind in ORDER {
        for (what, text) in &signals {
            if kind.needles().iter().any(|n| text.contains(n)) {
                return (kind, Some(what.clone()));
            }
        }
    }
    (AdapterKind::Unknown, None)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn adapters_are_recognised_by_names_labels_and_images() {
        let r = |s: &str| recognise(Some(s), None).0;
        assert_eq!(r("kube-system/metrics-server"), AdapterKind::MetricsServer);
        assert_eq!(r("keda/keda-operator-metrics-apiserver"), AdapterKind::Keda);
        assert_eq!(
            r("monitoring/prometheus-adapter"),
            AdapterKind::PrometheusAdapter
        );
        assert_eq!(
            r("datadog/datadog-cluster-agent-metrics-api"),
            AdapterKind::Datadog
        );
        assert_eq!(
            r("custom-metrics/custom-metrics-stackdriver-adapter"),
            AdapterKind::Google
        );
        assert_eq!(r("custom-metrics/k8s-cloudwatch-adapter"), AdapterKind::Aws);
        assert_eq!(r("default/my-metrics"), AdapterKind::Unknown);
        let d = json!({"metadata": {"name": "custom-metrics"},
            "spec": {"template": {"spec": {"containers": [{"image": "registry.k8s.io/prometheus-adapter/prometheus-adapter:v0.12.0"}]}}}});
        let (kind, why) = recognise(Some("monitoring/custom-metrics"), Some(&d));
        assert_eq!(kind, AdapterKind::PrometheusAdapter);
        assert_eq!(
            why.as_deref(),
            Some("image registry.k8s.io/prometheus-adapter/prometheus-adapter:v0.12.0")
        );
    }
}
