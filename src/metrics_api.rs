//! Wire types of the three metrics APIs (k8s-openapi does not carry them).
//!
//! * `metrics.k8s.io/v1beta1` `PodMetrics` / `PodMetricsList`
//! * `custom.metrics.k8s.io/v1beta2` `MetricValueList`
//! * `external.metrics.k8s.io/v1beta1` `ExternalMetricValueList`

use std::collections::BTreeMap;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::{LabelSelector, Time};
use serde::{Deserialize, Serialize};

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

/// `external.metrics.k8s.io/v1beta1` ExternalMetricValue.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ExternalMetricValue {
    pub metric_name: String,
    #[serde(default)]
    pub metric_labels: BTreeMap<String, String>,
    #[serde(default)]
    pub timestamp: Option<String>,
    /// Window in seconds.
    #[serde(default)]
    pub window: Option<i64>,
    pub value: String,
}

/// `metadata` as the evaluation reads it (the rest — managedFields, annotations — is skipped
/// while parsing).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Meta {
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default)]
    pub namespace: Option<String>,
    #[serde(default)]
    pub uid: Option<String>,
    #[serde(default)]
    pub labels: Option<BTreeMap<String, String>>,
    #[serde(default)]
    pub owner_references: Option<Vec<OwnerReference>>,
    #[serde(default)]
    pub deletion_timestamp: Option<Time>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OwnerReference {
    #[serde(default)]
    pub kind: String,
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub controller: Option<bool>,
}
