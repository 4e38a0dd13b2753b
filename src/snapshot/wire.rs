//! The API objects as the evaluation reads them: only the fields it uses are deserialized
//! (serde skips the rest — managedFields, env, probes, volumes, container statuses — without
//! building them), with the field names and shapes of k8s-openapi so code reads the same.

use std::collections::BTreeMap;

use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{LabelSelector, Time};
use serde::{Deserialize, Serialize};

pub use crate::metrics_api::Meta;

/// A Pod: names, requests, phase, start time and conditions.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Pod {
    #[serde(default)]
    pub metadata: Meta,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spec: Option<PodSpec>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<PodStatus>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PodSpec {
    #[serde(default)]
    pub containers: Vec<Container>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub init_containers: Option<Vec<Container>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub overhead: Option<BTreeMap<String, Quantity>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resources: Option<Resources>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Container {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub image: Option<String>,
    #[serde(default)]
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resources: Option<Resources>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub restart_policy: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Resources {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requests: Option<BTreeMap<String, Quantity>>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PodStatus {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub conditions: Option<Vec<PodCondition>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phase: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_time: Option<Time>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PodCondition {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_transition_time: Option<Time>,
    #[serde(default)]
    pub status: String,
    #[serde(rename = "type", default)]
    pub type_: String,
}

/// A Deployment, StatefulSet or ReplicaSet: what its scale subresource reports.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct AppsWorkload {
    #[serde(default)]
    pub metadata: Meta,
    #[serde(default)]
    pub spec: Option<AppsSpec>,
    #[serde(default)]
    pub status: Option<AppsStatus>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct AppsSpec {
    #[serde(default)]
    pub replicas: Option<i32>,
    #[serde(default)]
    pub selector: LabelSelector,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AppsStatus {
    #[serde(default)]
    pub replicas: Option<i32>,
    #[serde(default)]
    pub updated_replicas: Option<i32>,
}

/// An HPA without what the evaluation never reads (managedFields, annotations such as
/// `last-applied-configuration`), converted to the k8s-openapi type the core takes.
#[derive(Debug, Deserialize)]
pub struct Hpa {
    #[serde(default)]
    metadata: HpaMeta,
    spec: k8s_openapi::api::autoscaling::v2::HorizontalPodAutoscalerSpec,
    #[serde(default)]
    status: Option<k8s_openapi::api::autoscaling::v2::HorizontalPodAutoscalerStatus>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct HpaMeta {
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    namespace: Option<String>,
    #[serde(default)]
    uid: Option<String>,
    #[serde(default)]
    generation: Option<i64>,
    #[serde(default)]
    resource_version: Option<String>,
    #[serde(default)]
    labels: Option<BTreeMap<String, String>>,
    /// Who generated the HPA (KEDA's ScaledObject); read leniently: a redacted file keeps no uid.
    #[serde(default)]
    owner_references: Option<Vec<HpaOwner>>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct HpaOwner {
    #[serde(default)]
    api_version: String,
    #[serde(default)]
    kind: String,
    #[serde(default)]
    name: String,
    #[serde(default)]
    uid: String,
    #[serde(default)]
    controller: Option<bool>,
}

impl From<Hpa> for k8s_openapi::api::autoscaling::v2::HorizontalPodAutoscaler {
    fn from(h: Hpa) -> Self {
        let m = h.metadata;
        k8s_openapi::api::autoscaling::v2::HorizontalPodAutoscaler {
            metadata: k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta {
                name: m.name,
                namespace: m.namespace,
                uid: m.uid,
                generation: m.generation,
                resource_version: m.resource_version,
                labels: m.labels,
                owner_references: m.owner_references.map(|refs| {
                    refs.into_iter()
                        .map(
                            |r| k8s_openapi::apimachinery::pkg::apis::meta::v1::OwnerReference {
                                api_version: r.api_version,
                                kind: r.kind,
                                name: r.name,
                                uid: r.uid,
                                controller: r.controller,
                                block_owner_deletion: None,
                            },
                        )
                        .collect()
                }),
                ..Default::default()
            },
            spec: h.spec,
            status: h.status,
        }
    }
}
