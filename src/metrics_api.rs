//! Wire types of the three metrics APIs (k8s-openapi does not carry them).
//!
//! * `metrics.k8s.io/v1beta1` and `v1` (GA, same schema) `PodMetrics` / `PodMetricsList`
//! * `custom.metrics.k8s.io/v1beta2` `MetricValueList`
//! * `external.metrics.k8s.io/v1beta1` `ExternalMetricValueList`

use std::collections::BTreeMap;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::{LabelSelector, Time};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// What is known of a metrics APIService (`v1beta1.metrics.k8s.io`...).
#[derive(Debug, Clone, PartialEq)]
pub enum MetricsApi {
    /// Not registered (404).
    Absent,
    /// Registered but `Available` is not `True`: reason and message of the condition.
    Unavailable {
        reason: String,
        message: String,
    },
    Available,
    /// The APIService could not be read (e.g. 403): the error.
    Unknown(String),
}

/// The APIService that serves `metrics.k8s.io/v1beta1` (what controllers before 1.37 read).
pub const METRICS_APISERVICE: &str = "v1beta1.metrics.k8s.io";

/// The APIService that serves `metrics.k8s.io/v1` (GA; read from 1.37 when discovery offers it).
pub const METRICS_APISERVICE_V1: &str = "v1.metrics.k8s.io";

/// The APIService the controller reads resource metrics through: from 1.37 (`negotiates`) the
/// version discovery offers, v1 first (`versionedPodMetricsGetter`); before, v1beta1 only.
pub fn resource_apiservice(v1_served: bool, negotiates: bool) -> &'static str {
    match v1_served && negotiates {
        true => METRICS_APISERVICE_V1,
        false => METRICS_APISERVICE,
    }
}

impl MetricsApi {
    /// From the APIService object (`None`: absent).
    pub fn from_apiservice(v: Option<&Value>) -> MetricsApi {
        let Some(v) = v else {
            return MetricsApi::Absent;
        };
        let cond = v
            .pointer("/status/conditions")
            .and_then(Value::as_array)
            .and_then(|cs| cs.iter().find(|c| c["type"] == "Available"));
        match cond {
            Some(c) if c["status"] == "True" => MetricsApi::Available,
            Some(c) => MetricsApi::Unavailable {
                reason: c["reason"].as_str().unwrap_or_default().to_string(),
                message: c["message"].as_str().unwrap_or_default().to_string(),
            },
            None => MetricsApi::Unavailable {
                reason: "NoAvailableCondition".into(),
                message: "the APIService has no Available condition yet".into(),
            },
        }
    }
}

/// One of the three metrics APIs the controller reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum MetricsGroup {
    /// `metrics.k8s.io`: Resource and ContainerResource metrics.
    Resource,
    /// `custom.metrics.k8s.io`: Pods and Object metrics.
    Custom,
    /// `external.metrics.k8s.io`: External metrics.
    External,
}

impl MetricsGroup {
    /// The API of a fetch-errors key (`resource-metrics`, `pods-metric/…`, `object-metric/…`,
    /// `external-metric/…`).
    pub fn of_key(key: &str) -> Option<MetricsGroup> {
        match key.split('/').next()? {
            "resource-metrics" => Some(MetricsGroup::Resource),
            "pods-metric" | "object-metric" => Some(MetricsGroup::Custom),
            "external-metric" => Some(MetricsGroup::External),
            _ => None,
        }
    }

    /// Its APIServices, the version the controller prefers first.
    pub fn apiservices(self) -> &'static [&'static str] {
        match self {
            MetricsGroup::Resource => &[METRICS_APISERVICE_V1, METRICS_APISERVICE],
            MetricsGroup::Custom => &[
                "v1beta2.custom.metrics.k8s.io",
                "v1beta1.custom.metrics.k8s.io",
            ],
            MetricsGroup::External => &["v1beta1.external.metrics.k8s.io"],
        }
    }

    /// The group of an APIService name (`v1beta2.custom.metrics.k8s.io` → Custom).
    pub fn of_apiservice(name: &str) -> Option<MetricsGroup> {
        [
            MetricsGroup::Resource,
            MetricsGroup::Custom,
            MetricsGroup::External,
        ]
        .into_iter()
        .find(|g| g.apiservices().contains(&name))
    }

    /// `custom metrics`
    pub fn words(self) -> &'static str {
        match self {
            MetricsGroup::Resource => "resource metrics",
            MetricsGroup::Custom => "custom metrics",
            MetricsGroup::External => "external metrics",
        }
    }
}

/// `metrics.k8s.io/v1beta1` PodMetrics.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PodMetrics {
    #[serde(default)]
    pub metadata: Meta,
    /// RFC3339 time of the sample (end of the window).
    #[serde(default)]
    pub timestamp: Option<String>,
    /// Go duration of the sampling window, e.g. `30s`.
    #[serde(default)]
    pub window: Option<String>,
    #[serde(default)]
    pub containers: Vec<ContainerMetrics>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ContainerMetrics {
    pub name: String,
    #[serde(default)]
    pub usage: BTreeMap<String, String>,
}

/// `custom.metrics.k8s.io/v1beta2` MetricValue.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MetricValue {
    pub described_object: DescribedObject,
    pub metric: MetricIdentifier,
    #[serde(default)]
    pub timestamp: Option<String>,
    #[serde(default)]
    pub window_seconds: Option<i64>,
    pub value: String,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DescribedObject {
    #[serde(default)]
    pub kind: String,
    #[serde(default)]
    pub namespace: Option<String>,
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub api_version: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MetricIdentifier {
    pub name: String,
    #[serde(default)]
    pub selector: Option<LabelSelector>,
}

fn null_as_no_labels<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> Result<BTreeMap<String, String>, D::Error> {
    Ok(Option::<BTreeMap<String, String>>::deserialize(d)?.unwrap_or_default())
}

/// `external.metrics.k8s.io/v1beta1` ExternalMetricValue.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ExternalMetricValue {
    pub metric_name: String,
    /// `null` (Go's nil map, as KEDA's metrics server sends it) reads as no labels.
    #[serde(default, deserialize_with = "null_as_no_labels")]
    pub metric_labels: BTreeMap<String, String>,
    #[serde(default)]
    pub timestamp: Option<String>,
    /// Window in seconds.
    #[serde(default)]
    pub window: Option<i64>,
    pub value: String,
}

/// `metadata` as the evaluation reads it (the rest — managedFields, most annotations — is
/// skipped while parsing).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Meta {
    // The fields in the order of their JSON names, each skipped when absent: the live fetch
    // writes a pod straight from these types (cluster/slim.rs), and the text must equal the
    // one a `Value` writes (sorted keys, no nulls).
    /// Of the annotations, only `kubernetes.io/limit-ranger` (which requests a LimitRange set);
    /// absent when the object has not that one.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "kept_annotations"
    )]
    pub annotations: Option<KeptAnnotations>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deletion_timestamp: Option<Time>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub labels: Option<BTreeMap<String, String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub owner_references: Option<Vec<OwnerReference>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uid: Option<String>,
}

/// The annotations the snapshot reads (every other one is skipped while parsing).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct KeptAnnotations {
    /// The LimitRanger admission plugin's record: `LimitRanger plugin set: cpu, memory request
    /// for container app; cpu limit for container app`.
    #[serde(rename = "kubernetes.io/limit-ranger")]
    pub limit_ranger: String,
}

/// `annotations` without the `kubernetes.io/limit-ranger` one read as absent.
fn kept_annotations<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> Result<Option<KeptAnnotations>, D::Error> {
    #[derive(Deserialize)]
    struct Any {
        #[serde(default, rename = "kubernetes.io/limit-ranger")]
        limit_ranger: Option<String>,
    }
    let any: Option<Any> = Option::deserialize(d)?;
    Ok(any
        .and_then(|a| a.limit_ranger)
        .map(|limit_ranger| KeptAnnotations { limit_ranger }))
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OwnerReference {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub controller: Option<bool>,
    #[serde(default)]
    pub kind: String,
    #[serde(default)]
    pub name: String,
}

#[cfg(test)]
mod apiservice_tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn keys_and_apiservices_name_their_group() {
        assert_eq!(
            MetricsGroup::of_key("resource-metrics"),
            Some(MetricsGroup::Resource)
        );
        assert_eq!(
            MetricsGroup::of_key("pods-metric/rps"),
            Some(MetricsGroup::Custom)
        );
        assert_eq!(
            MetricsGroup::of_key("object-metric/Ingress/main/hits"),
            Some(MetricsGroup::Custom)
        );
        assert_eq!(
            MetricsGroup::of_key("external-metric/queue"),
            Some(MetricsGroup::External)
        );
        assert_eq!(MetricsGroup::of_key("scale"), None);
        assert_eq!(
            MetricsGroup::of_apiservice("v1beta1.custom.metrics.k8s.io"),
            Some(MetricsGroup::Custom)
        );
        assert_eq!(MetricsGroup::of_apiservice("v1.apps"), None);
        assert_eq!(
            MetricsGroup::of_apiservice("v1.metrics.k8s.io"),
            Some(MetricsGroup::Resource)
        );
    }

    #[test]
    fn the_resource_apiservice_is_the_version_the_release_reads() {
        assert_eq!(resource_apiservice(true, true), "v1.metrics.k8s.io");
        assert_eq!(resource_apiservice(true, false), "v1beta1.metrics.k8s.io");
        assert_eq!(resource_apiservice(false, true), "v1beta1.metrics.k8s.io");
    }

    #[test]
    fn availability_comes_from_the_available_condition() {
        assert_eq!(MetricsApi::from_apiservice(None), MetricsApi::Absent);
        let down = json!({"status": {"conditions": [{"type": "Available", "status": "False", "reason": "FailedDiscoveryCheck", "message": "503"}]}});
        assert_eq!(
            MetricsApi::from_apiservice(Some(&down)),
            MetricsApi::Unavailable {
                reason: "FailedDiscoveryCheck".into(),
                message: "503".into()
            }
        );
    }
}
