//! Snapshots: a `v1` `List` of real API objects — everything the core needs for an HPA.
//!
//! Live mode fetches a [`Snapshot`]; offline mode reads one from a file. Either way,
//! [`Snapshot::input_for`] validates it and builds the core's [`Input`], so the same decision
//! comes out of both. Every error names the object and the field.

use std::collections::{BTreeMap, HashSet};
use std::fmt;

use jiff::{SignedDuration, Timestamp};
use k8s_openapi::api::autoscaling::v1::Scale as ScaleV1;
use k8s_openapi::api::autoscaling::v2::{self as hpa_v2, HorizontalPodAutoscaler};
use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use serde_json::Value;

mod amend;
mod controller_flags;
pub mod convert;
mod index;
mod item;
mod read;
pub mod redact;
mod shape;
pub mod wire;

pub use convert::{HpaNote, NoteKind};
pub use read::STDIN;
pub use shape::from_json as from_json_maps_only;

use wire::AppsWorkload;
pub use wire::Pod;

use index::Index;
use item::Item;
use serde_json::value::RawValue;

use crate::core::model::*;
use crate::core::{selector_text, Resources, Settings};
use crate::labels::Selector;
use crate::metrics_api::{ExternalMetricValue, MetricValue, PodMetrics};
use crate::quantity::{parse_f64, parse_milli};
use crate::restmapper::{builtin_mapping, qualified_guess};

/// Annotation on the List's metadata recording when a snapshot was taken.
pub const TAKEN_AT_ANNOTATION: &str = "kubectl-hpa.dev/taken-at";
/// Annotation on a fetched List: the API server's `gitVersion` (context only).
pub const SERVER_VERSION_ANNOTATION: &str = "kubectl-hpa.dev/server-version";
/// Annotation on a fetched List: where it was fetched from (context only).
pub const SOURCE_ANNOTATION: &str = "kubectl-hpa.dev/source";

/// Annotation on the List's metadata recording the API calls that failed while the snapshot was
/// taken: a JSON object from source key to the error as the controller's metrics client words it.
///
/// Keys: `scale` (the target's scale subresource), `resource-metrics` (metrics.k8s.io),
/// `pods-metric/<metric>`, `object-metric/<kind>/<name>/<metric>`, `external-metric/<metric>`.
/// Values: `unable to fetch metrics from resource metrics API: <api error>` and the like
/// (for `scale`, the API error itself).
pub const FETCH_ERRORS_ANNOTATION: &str = "kubectl-hpa.dev/fetch-errors";

/// List annotation: which of the fetch errors are our own failures (throttled, failed,
/// timed-out, unreadable or denied requests of this tool), not what the controller would meet:
/// a JSON object from fetch-errors key to a few words (`pods.metrics.k8s.io (429 Too Many
/// Requests)`). Files without it hold only the controller's failures.
pub const OWN_FAILURES_ANNOTATION: &str = "kubectl-hpa.dev/own-fetch-failures";

/// The key of the fetch error of HPA `namespace/name`'s target (its scale could not be read).
/// Files written before per-HPA keys use `scale` for the HPA the file was taken for.
pub fn scale_error_key(namespace: &str, name: &str) -> String {
    format!("scale/{namespace}/{name}")
}

/// The key that records that the server said HPA `namespace/name`'s target does not exist
/// (value: `Kind namespace/name`).
pub fn scale_not_found_key(namespace: &str, name: &str) -> String {
    format!("scale-not-found/{namespace}/{name}")
}

/// The key of a fetch error for a Pods metric.
pub fn pods_metric_key(metric: &str) -> String {
    format!("pods-metric/{metric}")
}

/// The key of a fetch error for an Object metric.
pub fn object_metric_key(kind: &str, name: &str, metric: &str) -> String {
    format!("object-metric/{kind}/{name}/{metric}")
}

/// The key of a fetch error for an External metric.
pub fn external_metric_key(metric: &str) -> String {
    format!("external-metric/{metric}")
}

/// A bad snapshot: where, and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SnapshotError {
    pub message: String,
}

impl fmt::Display for SnapshotError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for SnapshotError {}

fn err(message: impl Into<String>) -> SnapshotError {
    SnapshotError {
        message: message.into(),
    }
}

/// A scalable workload, reduced to its scale subresource.
#[derive(Debug, Clone, PartialEq)]
pub struct Workload {
    pub kind: String,
    pub namespace: String,
    pub name: String,
    pub scale: Scale,
    /// The workload's own labels-to-pods selector, for Deployments etc.
    pub uid: Option<String>,
}

/// What the diagnostics read from a Deployment or ReplicaSet besides its scale.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorkloadStatus {
    pub kind: String,
    pub namespace: String,
    pub name: String,
    /// The controlling owner `(kind, name)` (a ReplicaSet's Deployment).
    pub owner: Option<(String, String)>,
    pub spec_replicas: i32,
    pub status_replicas: i32,
    pub updated_replicas: Option<i32>,
}

/// Everything read from a snapshot (or fetched from a cluster).
#[derive(Debug, Clone, Default)]
pub struct Snapshot {
    /// Where it came from, for error messages.
    pub source: String,
    pub taken_at: Option<Timestamp>,
    /// The server's `gitVersion` when the snapshot was taken
    /// ([`SERVER_VERSION_ANNOTATION`]): the release explain models by default.
    pub server_version: Option<String>,
    /// The flags of the kube-controller-manager Pod, when the snapshot holds it.
    pub controller_flags: Option<crate::core::settings::ClusterFlags>,
    pub hpas: Vec<HorizontalPodAutoscaler>,
    pub workloads: Vec<Workload>,
    pub pods: Vec<Pod>,
    pub pod_metrics: Vec<PodMetrics>,
    /// Whether any PodMetrics (or PodMetricsList) item was present at all.
    pub has_pod_metrics: bool,
    pub custom_metrics: Vec<MetricValue>,
    pub external_metrics: Vec<ExternalMetricValue>,
    /// Objects kept as they are (events, APIServices, CRD targets); events of one object are
    /// adjacent ([`Snapshot::events_for`]).
    pub other: Vec<Value>,
    /// Deployments and ReplicaSets as the diagnostics see them.
    pub workload_status: Vec<WorkloadStatus>,
    /// API calls that failed when the snapshot was taken (see [`FETCH_ERRORS_ANNOTATION`]).
    pub fetch_errors: BTreeMap<String, String>,
    /// The fetch errors that are our own failures (see [`OWN_FAILURES_ANNOTATION`]).
    pub own_failures: BTreeMap<String, String>,
    /// Fetch errors and own failures of one namespace's List, when several documents were
    /// merged (see [`Snapshot::errors_in`]).
    scoped_errors: BTreeMap<String, ScopedErrors>,
    /// Objects explain does not read, passed over (`ConfigMap shop/settings (v1)`).
    pub ignored: Vec<String>,
    /// What reading each HPA `(namespace, name)` involved: a version conversion, a field
    /// that does not belong to its version.
    pub hpa_notes: BTreeMap<(String, String), Vec<HpaNote>>,
    /// Whether a document carried `kubectl-hpa.dev/taken-at` (written by `kubectl hpa snapshot`,
    /// which always fetches the metrics an HPA reads).
    pub written_by_tool: bool,
    /// What merging the documents noted: objects read more than once (a later document
    /// replaces an earlier one).
    pub merge_notes: Vec<String>,
    /// Lookups by namespace, name, label and metric (built at the first lookup).
    index: std::sync::OnceLock<Index>,
}

/// A namespace's fetch errors and own failures.
type ScopedErrors = (BTreeMap<String, String>, BTreeMap<String, String>);

/// The List's own annotations (string values only).
fn list_annotations(doc: &Item<'_>) -> BTreeMap<String, String> {
    #[derive(serde::Deserialize, Default)]
    struct Top {
        #[serde(default)]
        metadata: Option<TopMeta>,
    }
    #[derive(serde::Deserialize, Default)]
    struct TopMeta {
        #[serde(default)]
        annotations: Option<BTreeMap<String, Value>>,
    }
    let raw = match doc {
        Item::Owned(v) => v
            .pointer("/metadata/annotations")
            .and_then(Value::as_object)
            .map(|m| m.iter().map(|(k, v)| (k.clone(), v.clone())).collect()),
        Item::Raw(r) => serde_json::from_str::<Top>(r.get())
            .unwrap_or_default()
            .metadata
            .and_then(|m| m.annotations),
    };
    raw.into_iter()
        .flatten()
        .filter_map(|(k, v)| v.as_str().map(|s| (k, s.to_string())))
        .collect()
}

/// Kinds accepted in a snapshot and passed over (context for live diagnostics).
const PASSIVE_KINDS: &[(&str, &str)] = &[
    ("v1", "Event"),
    ("events.k8s.io/v1", "Event"),
    ("v1", "Service"),
    ("v1", "Namespace"),
    ("v1", "Endpoints"),
    ("discovery.k8s.io/v1", "EndpointSlice"),
    ("apiregistration.k8s.io/v1", "APIService"),
    ("policy/v1", "PodDisruptionBudget"),
    ("apps/v1", "ControllerRevision"),
];

fn parse_time(s: &str, ctx: &str, field: &str) -> Result<Timestamp, SnapshotError> {
    s.parse::<Timestamp>().map_err(|e| {
        err(format!(
            "{ctx}: field {field}: invalid RFC3339 time {s:?}: {e}"
        ))
    })
}

fn milli(q: &str, ctx: &str, field: &str) -> Result<i64, SnapshotError> {
    parse_milli(q).map_err(|e| err(format!("{ctx}: field {field}: {e}")))
}

fn non_negative_milli(q: &str, ctx: &str, field: &str) -> Result<i64, SnapshotError> {
    let v = milli(q, ctx, field)?;
    if v < 0 {
        return Err(err(format!(
            "{ctx}: field {field}: negative quantity {q:?} is not allowed"
        )));
    }
    Ok(v)
}

impl Snapshot {
    /// Read a snapshot from an already-parsed `v1 List` (what the cluster layer builds).
    pub fn from_value(doc: &Value, source: &str) -> Result<Snapshot, SnapshotError> {
        Snapshot::from_owned(doc.clone(), source)
    }

    /// Like [`Snapshot::from_value`], consuming the list: each item is freed once converted,
    /// which keeps the peak memory of large snapshots down.
    pub fn from_owned(doc: Value, source: &str) -> Result<Snapshot, SnapshotError> {
        if !doc.is_object() {
            return Err(err(format!(
                "{source}: expected a v1 List of API objects (as `kubectl get ... -o yaml` prints), found {}",
                if doc.is_null() { "an empty document".to_string() } else { "something else".to_string() }
            )));
        }
        Snapshot::from_item(Item::Owned(doc), source)
    }

    /// The common case in one pass over the text: a JSON `v1 List` whose items are objects.
    /// `None` for anything else (read by the general path, which words the errors).
    fn from_json_list(text: &str, source: &str) -> Result<Option<Snapshot>, SnapshotError> {
        #[derive(serde::Deserialize)]
        #[serde(rename_all = "camelCase")]
        struct TopDoc<'a> {
            #[serde(default)]
            api_version: Option<String>,
            #[serde(default)]
            kind: Option<String>,
            #[serde(default)]
            metadata: Option<TopMeta>,
            #[serde(borrow, default)]
            items: Option<Vec<&'a RawValue>>,
        }
        #[derive(serde::Deserialize)]
        struct TopMeta {
            #[serde(default)]
            annotations: Option<BTreeMap<String, Value>>,
        }
        let Ok(top) = serde_json::from_str::<TopDoc<'_>>(text) else {
            return Ok(None);
        };
        if top.kind.as_deref() != Some("List")
            || top.api_version.as_deref().unwrap_or("").is_empty()
        {
            return Ok(None);
        }
        let annotations: BTreeMap<String, String> = top
            .metadata
            .and_then(|m| m.annotations)
            .into_iter()
            .flatten()
            .filter_map(|(k, v)| v.as_str().map(|s| (k, s.to_string())))
            .collect();
        let mut snap = Snapshot::with_annotations(source, &annotations)?;
        for (i, item) in top.items.into_iter().flatten().enumerate() {
            snap.add(Item::Raw(item), source, &format!("items[{i}] "))?;
        }
        snap.sort_other();
        Ok(Some(snap))
    }

    /// An empty snapshot with the List's annotations read (taken-at, fetch errors).
    fn with_annotations(
        source: &str,
        annotations: &BTreeMap<String, String>,
    ) -> Result<Snapshot, SnapshotError> {
        let mut snap = Snapshot {
            source: source.to_string(),
            ..Default::default()
        };
        if let Some(t) = annotations.get(TAKEN_AT_ANNOTATION) {
            snap.written_by_tool = true;
            snap.taken_at = Some(parse_time(
                t,
                &format!("{source}: List"),
                &format!("metadata.annotations.{TAKEN_AT_ANNOTATION}"),
            )?);
        }
        snap.server_version = annotations.get(SERVER_VERSION_ANNOTATION).cloned();
        if let Some(t) = annotations.get(FETCH_ERRORS_ANNOTATION) {
            snap.fetch_errors = serde_json::from_str(t).map_err(|e| {
                err(format!(
                    "{source}: List: field metadata.annotations.{FETCH_ERRORS_ANNOTATION}: expected a JSON object of strings: {e}"
                ))
            })?;
        }
        if let Some(t) = annotations.get(OWN_FAILURES_ANNOTATION) {
            snap.own_failures = serde_json::from_str(t).map_err(|e| {
                err(format!(
                    "{source}: List: field metadata.annotations.{OWN_FAILURES_ANNOTATION}: expected a JSON object of strings: {e}"
                ))
            })?;
        }
        Ok(snap)
    }

    /// Our own failures (see [`OWN_FAILURES_ANNOTATION`]) among the reads HPA
    /// `namespace/name` with these metrics depends on: its target, its metrics.
    pub fn own_failures_for(
        &self,
        namespace: &str,
        name: &str,
        metrics: &[MetricSpec],
    ) -> Vec<String> {
        let mut keys = vec![scale_error_key(namespace, name)];
        for m in metrics {
            keys.push(match m {
                MetricSpec::Resource { .. } | MetricSpec::ContainerResource { .. } => {
                    "resource-metrics".to_string()
                }
                MetricSpec::Pods { metric, .. } => pods_metric_key(metric),
                MetricSpec::Object {
                    kind,
                    object,
                    metric,
                    ..
                } => object_metric_key(kind, object, metric),
                MetricSpec::External { metric, .. } => external_metric_key(metric),
                #[allow(unreachable_patterns)]
                _ => continue,
            });
        }
        keys.dedup();
        keys.iter()
            .filter_map(|k| self.own_failures_in(namespace).get(k).cloned())
            .collect()
    }

    fn from_item(doc: Item<'_>, source: &str) -> Result<Snapshot, SnapshotError> {
        let annotations = list_annotations(&doc);
        let mut snap = Snapshot::with_annotations(source, &annotations)?;
        snap.add(doc, source, "")?;
        snap.sort_other();
        Ok(snap)
    }

    fn add(&mut self, item: Item<'_>, source: &str, position: &str) -> Result<(), SnapshotError> {
        let head = item.head();
        let (api_version, kind) = (head.api_version.as_str(), head.kind.as_str());
        let ctx = format!("{source}: {}{}", position, head.describe());
        if kind.is_empty() || api_version.is_empty() {
            return Err(err(format!(
                "{source}: {position}object has no apiVersion/kind; a snapshot is a v1 List of API objects"
            )));
        }
        match (api_version, kind) {
            (_, "List")
            | ("metrics.k8s.io/v1beta1" | "metrics.k8s.io/v1", "PodMetricsList")
            | ("custom.metrics.k8s.io/v1beta2", "MetricValueList")
            | ("custom.metrics.k8s.io/v1beta1", "MetricValueList")
            | ("external.metrics.k8s.io/v1beta1", "ExternalMetricValueList") => {
                self.add_list(item, kind, &ctx, source, position)?;
            }
            (v, "HorizontalPodAutoscaler") if convert::supported(v) => {
                self.add_hpa(item, &head, &ctx)?;
            }
            (v, "HorizontalPodAutoscaler") => {
                return Err(err(format!(
                    "{ctx}: apiVersion {v} is not supported: use autoscaling/v2 (kubectl get hpa.v2.autoscaling -o yaml), v2beta2, v2beta1 or v1"
                )))
            }
            ("apps/v1", kind @ ("Deployment" | "StatefulSet" | "ReplicaSet")) => {
                self.add_apps_workload(item, kind, &ctx)?;
            }
            ("autoscaling/v1", "Scale") => self.add_scale(item, &ctx)?,
            ("v1", "Pod") if head.namespace == "kube-system" => self.add_system_pod(item, &ctx)?,
            ("v1", "Pod") => self.pods.push(item.typed(&ctx)?),
            // metrics.k8s.io/v1 (GA, KEP-5207) has v1beta1's schema.
            ("metrics.k8s.io/v1beta1" | "metrics.k8s.io/v1", "PodMetrics") => {
                self.has_pod_metrics = true;
                self.pod_metrics.push(item.typed(&ctx)?);
            }
            (v, k) if PASSIVE_KINDS.contains(&(v, k)) => {
                item.check::<item::KeptShape>(&ctx)?;
                self.other.push(item.into_value(&ctx)?);
            }
            (v, _) => {
                // A custom-resource target (e.g. an Argo Rollout) may be included as context
                // (any named object with a spec); its scale comes from an autoscaling/v1 Scale.
                // Anything else (ConfigMaps, Secrets, Ingresses...) is passed over and noted.
                if head.has_spec && !head.name.is_empty() {
                    item.check::<item::KeptShape>(&ctx)?;
                    self.other.push(item.into_value(&ctx)?);
                } else {
                    self.ignored.push(format!("{} ({v})", head.describe()));
                }
            }
        }
        Ok(())
    }

    /// The items of a List or of a metrics API's list.
    fn add_list(
        &mut self,
        item: Item<'_>,
        kind: &str,
        ctx: &str,
        source: &str,
        position: &str,
    ) -> Result<(), SnapshotError> {
        let Some(items) = item.items(ctx)? else {
            return Ok(());
        };
        if kind == "PodMetricsList" {
            self.has_pod_metrics = true;
        }
        for (i, sub) in items.into_iter().enumerate() {
            let pos = format!("{position}items[{i}] ");
            match kind {
                "MetricValueList" => {
                    let v: MetricValue = sub.typed(&format!("{source}: {pos}MetricValue"))?;
                    self.custom_metrics.push(v);
                }
                "ExternalMetricValueList" => {
                    let v: ExternalMetricValue =
                        sub.typed(&format!("{source}: {pos}ExternalMetricValue"))?;
                    self.external_metrics.push(v);
                }
                "PodMetricsList" => {
                    let v: PodMetrics = sub.typed(&format!("{source}: {pos}PodMetrics"))?;
                    self.pod_metrics.push(v);
                }
                _ => self.add(sub, source, &pos)?,
            }
        }
        Ok(())
    }

    /// A Deployment, StatefulSet or ReplicaSet: the three share the fields the scale
    /// subresource reads.
    fn add_apps_workload(
        &mut self,
        item: Item<'_>,
        kind: &str,
        ctx: &str,
    ) -> Result<(), SnapshotError> {
        let w: AppsWorkload = item.typed(ctx)?;
        let spec = w.spec.unwrap_or_default();
        let status = w.status.unwrap_or_default();
        let md = w.metadata;
        if kind != "StatefulSet" {
            self.workload_status.push(WorkloadStatus {
                kind: kind.to_string(),
                namespace: md.namespace.clone().unwrap_or_else(|| "default".into()),
                name: md.name.clone().unwrap_or_default(),
                owner: md.owner_references.as_ref().and_then(|o| {
                    o.iter()
                        .find(|r| r.controller == Some(true))
                        .or(o.first())
                        .map(|r| (r.kind.clone(), r.name.clone()))
                }),
                spec_replicas: spec.replicas.unwrap_or(1),
                status_replicas: status.replicas.unwrap_or(0),
                updated_replicas: status.updated_replicas,
            });
        }
        self.workloads.push(workload(
            kind,
            &md,
            spec.replicas,
            status.replicas,
            Some(&spec.selector),
            ctx,
        )?);
        Ok(())
    }

    /// An `autoscaling/v1` Scale (the scale of a custom-resource target).
    fn add_scale(&mut self, item: Item<'_>, ctx: &str) -> Result<(), SnapshotError> {
        let s: ScaleV1 = item.typed(ctx)?;
        let spec_replicas = s.spec.as_ref().and_then(|s| s.replicas).unwrap_or(0);
        let status = s.status.as_ref();
        let status_replicas = status.map(|s| s.replicas).unwrap_or(0);
        if spec_replicas < 0 || status_replicas < 0 {
            return Err(err(format!(
                "{ctx}: field spec.replicas/status.replicas: negative replica count"
            )));
        }
        self.workloads.push(Workload {
            kind: "Scale".into(),
            namespace: s.metadata.namespace.clone().unwrap_or_default(),
            name: s.metadata.name.clone().unwrap_or_default(),
            scale: Scale {
                spec_replicas,
                status_replicas,
                selector: status.and_then(|s| s.selector.clone()).unwrap_or_default(),
            },
            uid: s.metadata.uid.clone(),
        });
        Ok(())
    }

    /// Read an HPA of any supported version, converted to `autoscaling/v2`.
    fn add_hpa(
        &mut self,
        item: Item<'_>,
        head: &item::Head,
        ctx: &str,
    ) -> Result<(), SnapshotError> {
        let key = (
            if head.namespace.is_empty() {
                "default".to_string()
            } else {
                head.namespace.clone()
            },
            head.name.clone(),
        );
        let plain_v2 = head.api_version == "autoscaling/v2"
            && match &item {
                Item::Raw(r) => !convert::may_hold_foreign_fields(r.get()),
                Item::Owned(v) => convert::foreign_fields("autoscaling/v2", v).is_empty(),
            };
        let h: wire::Hpa = if plain_v2 {
            item.typed(ctx)?
        } else {
            let c = convert::to_v2(&head.api_version, item.into_value(ctx)?, ctx)?;
            if !c.notes.is_empty() {
                self.hpa_notes.entry(key).or_default().extend(c.notes);
            }
            Item::Owned(c.value).typed(ctx)?
        };
        self.hpas.push(h.into());
        Ok(())
    }

    /// Names of the HPAs in a namespace (for "did you mean" messages).
    pub fn hpa_names(&self, namespace: Option<&str>) -> Vec<String> {
        self.hpas
            .iter()
            .filter(|h| {
                namespace
                    .is_none_or(|ns| h.metadata.namespace.as_deref().unwrap_or("default") == ns)
            })
            .map(|h| {
                format!(
                    "{}/{}",
                    h.metadata.namespace.as_deref().unwrap_or("default"),
                    h.metadata.name.as_deref().unwrap_or("")
                )
            })
            .collect()
    }

    /// The newest sample timestamp among the metrics (the moment the snapshot's data describe),
    /// computed once per file with the indexes: the fleet asks it once per HPA.
    pub fn newest_metric_time(&self) -> Option<Timestamp> {
        self.index().newest_metric
    }

    /// The indexes, built at the first lookup (afresh when the snapshot changed since).
    fn index(&self) -> std::borrow::Cow<'_, Index> {
        let sizes = Index::sizes_of(self);
        let ix = self.index.get_or_init(|| Index::build(self));
        if ix.sizes == sizes {
            std::borrow::Cow::Borrowed(ix)
        } else {
            std::borrow::Cow::Owned(Index::build(self))
        }
    }

    /// Keep the events of each object together (their order otherwise unchanged), so that
    /// [`Snapshot::events_for`] is a slice.
    fn sort_other(&mut self) {
        self.other.sort_by_cached_key(index::event_subject);
        self.index = std::sync::OnceLock::new();
    }

    /// The Events about object `namespace/name` (v1 and events.k8s.io/v1), in file order.
    pub fn events_for(&self, namespace: &str, name: &str) -> &[Value] {
        let ix = self.index();
        let range = ix
            .events
            .get(&(namespace.to_string(), name.to_string()))
            .cloned()
            .unwrap_or_default();
        self.other.get(range).unwrap_or(&[])
    }

    /// The Pod `namespace/name`, if the snapshot holds it.
    pub fn pod(&self, namespace: &str, name: &str) -> Option<&Pod> {
        let ix = self.index();
        let i = ix
            .pod_by_name
            .get(&(namespace.to_string(), name.to_string()))?;
        self.pods.get(*i)
    }

    fn find_hpa(
        &self,
        namespace: &str,
        name: &str,
    ) -> Result<&HorizontalPodAutoscaler, SnapshotError> {
        let at = self
            .index()
            .hpas
            .get(&(namespace.to_string(), name.to_string()))
            .copied();
        at.and_then(|i| self.hpas.get(i)).ok_or_else(|| {
            let have = self.hpa_names(None);
            err(format!(
                "{}: no HorizontalPodAutoscaler {namespace}/{name} in the snapshot ({})",
                self.source,
                if have.is_empty() {
                    "it holds no HorizontalPodAutoscaler".to_string()
                } else {
                    format!("it holds: {}", have.join(", "))
                }
            ))
        })
    }

    /// The recorded error of reading HPA `namespace/name`'s target, if any (files written
    /// before per-HPA keys: `scale`, for the first HPA, the one the file was taken for).
    pub fn scale_error(&self, namespace: &str, name: &str) -> Option<&String> {
        let errors = self.errors_in(namespace);
        errors.get(&scale_error_key(namespace, name)).or_else(|| {
            let first = self.hpas.first()?;
            let is_first = first.metadata.name.as_deref() == Some(name)
                && first.metadata.namespace.as_deref().unwrap_or("default") == namespace;
            errors.get("scale").filter(|_| is_first)
        })
    }

    /// Resolve a target as the controller's REST mapper and scale client would: by group and
    /// kind (the version does not matter), then by name in the HPA's namespace.
    fn resolve_target(
        &self,
        ix: &Index,
        namespace: &str,
        r: &hpa_v2::CrossVersionObjectReference,
    ) -> Result<&Workload, TargetStatus> {
        let api = r.api_version.as_deref().unwrap_or_default();
        if let Some(Err(u)) = builtin_mapping(api, &r.kind) {
            return Err(TargetStatus::NoKindMatch(u.to_string()));
        }
        let here: Vec<&Workload> = ix
            .workloads
            .get(&(namespace.to_string(), r.name.clone()))
            .into_iter()
            .flatten()
            .filter_map(|&i| self.workloads.get(i))
            .collect();
        here.iter()
            .find(|w| w.kind == r.kind)
            .or_else(|| here.iter().find(|w| w.kind == "Scale"))
            .copied()
            .ok_or_else(|| TargetStatus::NotInSnapshot {
                text: format!("{} {:?} not found", qualified_guess(api, &r.kind), r.name),
            })
    }

    /// Whether HPA `namespace/name`'s target can be read, and if not, why (typed, for the
    /// diagnostics).
    pub fn target_status(&self, namespace: &str, name: &str) -> TargetStatus {
        let Ok(raw) = self.find_hpa(namespace, name) else {
            return TargetStatus::Found;
        };
        let r = &raw.spec.scale_target_ref;
        if let Some(Err(u)) = builtin_mapping(r.api_version.as_deref().unwrap_or_default(), &r.kind)
        {
            return TargetStatus::NoKindMatch(u.to_string());
        }
        if let Some(e) = self.scale_error(namespace, name) {
            let not_found = self
                .errors_in(namespace)
                .contains_key(&scale_not_found_key(namespace, name));
            return TargetStatus::FetchFailed {
                text: e.clone(),
                not_found,
            };
        }
        let ix = self.index();
        match self.resolve_target(&ix, namespace, &raw.spec.scale_target_ref) {
            Ok(_) => TargetStatus::Found,
            Err(e) => e,
        }
    }

    /// Validate the snapshot for one HPA and build the core's input.
    pub fn input_for(
        &self,
        namespace: &str,
        name: &str,
        settings: Settings,
        history: History,
        now: Timestamp,
    ) -> Result<Input, SnapshotError> {
        let raw = self.find_hpa(namespace, name)?;
        let ctx = format!(
            "{}: HorizontalPodAutoscaler {namespace}/{name}",
            self.source
        );
        let hpa = convert_hpa(raw, namespace, &ctx)?;
        let ix = self.index();
        let target = match self.scale_error(namespace, name) {
            Some(e) => Err(e.clone()),
            None => self
                .resolve_target(&ix, namespace, &raw.spec.scale_target_ref)
                .map_err(|e| e.text().to_string()),
        };
        let scale = match target {
            Ok(t) => t.scale.clone(),
            Err(e) => {
                return Ok(Input {
                    metric_data: vec![MetricData::None; hpa.metrics.len()],
                    hpa,
                    scale: Err(e),
                    pods: vec![],
                    pod_metrics: Ok(vec![]),
                    other_hpas_selecting: vec![],
                    settings,
                    history,
                    now,
                    detail: Detail::Full,
                })
            }
        };
        let selector = Selector::parse(&scale.selector)
            .ok()
            .filter(|s| !s.is_empty());
        let selected: Vec<usize> = match &selector {
            Some(sel) => ix.select(self, namespace, sel),
            None => vec![],
        };
        let pods = selected
            .iter()
            .map(|&i| convert_pod(&self.pods[i], &self.source))
            .collect::<Result<Vec<_>, _>>()?;
        let usages = self.usages(&ix, namespace, selector.as_ref(), &selected)?;
        let metric_data = self.metric_data(&ix, &hpa, raw, namespace, selector.as_ref(), &ctx)?;

        // Other HPAs whose targets select any of these pods.
        let me = ix
            .hpas
            .get(&(namespace.to_string(), name.to_string()))
            .copied();
        let mut others: Vec<usize> = selected
            .iter()
            .flat_map(|p| ix.selecting.get(p).into_iter().flatten())
            .copied()
            .filter(|&h| Some(h) != me)
            .collect();
        others.sort_unstable();
        others.dedup();
        let other_hpas_selecting = others
            .into_iter()
            .filter_map(|h| self.hpas[h].metadata.name.clone())
            .filter(|n| n != name)
            .collect();

        let pod_metrics = match self.errors_in(namespace).get("resource-metrics") {
            Some(e) => Err(e.clone()),
            None => Ok(usages),
        };
        Ok(Input {
            hpa,
            scale: Ok(scale),
            pods,
            pod_metrics,
            metric_data,
            other_hpas_selecting,
            settings,
            history,
            now,
            detail: Detail::Full,
        })
    }

    /// Resource metrics: PodMetrics selected by the same selector (by their labels when they
    /// carry them, else by the selected pods' names).
    fn usages(
        &self,
        ix: &Index,
        namespace: &str,
        selector: Option<&Selector>,
        selected: &[usize],
    ) -> Result<Vec<PodUsage>, SnapshotError> {
        let Some(sel) = selector else {
            return Ok(vec![]);
        };
        let selected_names: HashSet<&str> = selected
            .iter()
            .filter_map(|&i| self.pods[i].metadata.name.as_deref())
            .collect();
        let mut usages = Vec::new();
        for &i in ix.pod_metrics_by_ns.get(namespace).into_iter().flatten() {
            let m = &self.pod_metrics[i];
            let pod_name = m.metadata.name.as_deref().unwrap_or("");
            let chosen = match &m.metadata.labels {
                Some(l) => sel.matches(l),
                None => selected_names.contains(pod_name),
            };
            if chosen {
                usages.push(convert_pod_metrics(m, namespace, &self.source)?);
            }
        }
        Ok(usages)
    }

    /// Custom and external metric data, one entry per spec metric.
    fn metric_data(
        &self,
        ix: &Index,
        hpa: &Hpa,
        raw: &HorizontalPodAutoscaler,
        namespace: &str,
        selector: Option<&Selector>,
        ctx: &str,
    ) -> Result<Vec<MetricData>, SnapshotError> {
        let mut out = Vec::with_capacity(hpa.metrics.len());
        for (i, spec) in hpa.metrics.iter().enumerate() {
            if let Some(e) = fetch_error_for(self.errors_in(namespace), spec) {
                out.push(e);
                continue;
            }
            out.push(match spec {
                MetricSpec::Pods { metric, .. } => {
                    MetricData::Pods(Ok(self.pods_metric(ix, namespace, metric, selector)?))
                }
                MetricSpec::Object {
                    kind,
                    object,
                    metric,
                    ..
                } => self.object_metric(ix, namespace, kind, object, metric)?,
                MetricSpec::External { metric, .. } => {
                    // This entry's own selector (two entries may read one metric differently).
                    let raw_sel = raw
                        .spec
                        .metrics
                        .as_ref()
                        .and_then(|m| m.get(i))
                        .and_then(|m| m.external.as_ref())
                        .and_then(|e| e.metric.selector.as_ref());
                    let sel = match raw_sel {
                        Some(s) => Some(Selector::from_label_selector(s).map_err(|e| {
                            err(format!(
                                "{ctx}: field spec.metrics[{i}].external.metric.selector: {e}"
                            ))
                        })?),
                        None => None,
                    };
                    let mut items = Vec::new();
                    for &k in ix.external_by_metric.get(metric).into_iter().flatten() {
                        let v = &self.external_metrics[k];
                        if sel.as_ref().is_some_and(|s| !s.matches(&v.metric_labels)) {
                            continue;
                        }
                        items.push(convert_external_value(v, &self.source)?);
                    }
                    MetricData::External(Ok(items))
                }
                _ => MetricData::None,
            });
        }
        Ok(out)
    }

    fn pods_metric(
        &self,
        ix: &Index,
        namespace: &str,
        metric: &str,
        selector: Option<&Selector>,
    ) -> Result<Vec<MetricSample>, SnapshotError> {
        let empty = BTreeMap::new();
        let mut items = Vec::new();
        for &k in ix.custom_by_metric.get(metric).into_iter().flatten() {
            let v = &self.custom_metrics[k];
            let d = &v.described_object;
            if d.kind != "Pod" || d.namespace.as_deref().is_some_and(|n| n != namespace) {
                continue;
            }
            // Values of pods the selector does not pick are not returned by the API.
            let pod = ix
                .pod_by_name
                .get(&(namespace.to_string(), d.name.clone()))
                .map(|&p| &self.pods[p]);
            if let (Some(p), Some(sel)) = (pod, selector) {
                if !sel.matches(p.metadata.labels.as_ref().unwrap_or(&empty)) {
                    continue;
                }
            }
            items.push(convert_metric_value(v, &self.source)?);
        }
        Ok(items)
    }

    fn object_metric(
        &self,
        ix: &Index,
        namespace: &str,
        kind: &str,
        object: &str,
        metric: &str,
    ) -> Result<MetricData, SnapshotError> {
        let found = ix
            .custom_by_metric
            .get(metric)
            .into_iter()
            .flatten()
            .map(|&k| &self.custom_metrics[k])
            .find(|v| {
                let d = &v.described_object;
                d.kind == kind
                    && d.name == object
                    && d.namespace
                        .as_deref()
                        .is_none_or(|n| n == namespace || kind == "Namespace")
            });
        Ok(match found {
            Some(v) => MetricData::Object(Ok(convert_metric_value(v, &self.source)?)),
            None => MetricData::Object(Err(format!(
                "unable to fetch metrics from custom metrics API: the server could not find the metric {metric} for {kind} {object} (not in the snapshot)"
            ))),
        })
    }
}

/// Whether an HPA's target can be read from a snapshot.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TargetStatus {
    Found,
    /// The REST mapper knows no such group/kind (`extensions/v1beta1` Deployment).
    NoKindMatch(String),
    /// Offline: no item for it (the object may not exist, or the file may lack it).
    NotInSnapshot {
        text: String,
    },
    /// Live: the fetch failed; `not_found` when the server said the object does not exist.
    FetchFailed {
        text: String,
        not_found: bool,
    },
}

impl TargetStatus {
    /// The error as the controller's scale client words it.
    pub fn text(&self) -> &str {
        match self {
            TargetStatus::Found => "",
            TargetStatus::NoKindMatch(t)
            | TargetStatus::NotInSnapshot { text: t }
            | TargetStatus::FetchFailed { text: t, .. } => t,
        }
    }
}

/// The recorded fetch error of a metric, as the data the core reads.
fn fetch_error_for(errors: &BTreeMap<String, String>, spec: &MetricSpec) -> Option<MetricData> {
    match spec {
        MetricSpec::Pods { metric, .. } => errors
            .get(&pods_metric_key(metric))
            .map(|e| MetricData::Pods(Err(e.clone()))),
        MetricSpec::Object {
            kind,
            object,
            metric,
            ..
        } => errors
            .get(&object_metric_key(kind, object, metric))
            .map(|e| MetricData::Object(Err(e.clone()))),
        MetricSpec::External { metric, .. } => errors
            .get(&external_metric_key(metric))
            .map(|e| MetricData::External(Err(e.clone()))),
        _ => None,
    }
}

fn workload(
    kind: &str,
    md: &wire::Meta,
    spec_replicas: Option<i32>,
    status_replicas: Option<i32>,
    selector: Option<&k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector>,
    ctx: &str,
) -> Result<Workload, SnapshotError> {
    let spec_replicas = spec_replicas.unwrap_or(1);
    let status_replicas = status_replicas.unwrap_or(0);
    if spec_replicas < 0 {
        return Err(err(format!(
            "{ctx}: field spec.replicas: negative replica count {spec_replicas}"
        )));
    }
    if status_replicas < 0 {
        return Err(err(format!(
            "{ctx}: field status.replicas: negative replica count {status_replicas}"
        )));
    }
    let selector = match selector {
        Some(s) => Selector::from_label_selector(s)
            .map_err(|e| err(format!("{ctx}: field spec.selector: {e}")))?
            .to_string(),
        None => String::new(),
    };
    Ok(Workload {
        kind: kind.into(),
        namespace: md.namespace.clone().unwrap_or_else(|| "default".into()),
        name: md.name.clone().unwrap_or_default(),
        scale: Scale {
            spec_replicas,
            status_replicas,
            selector,
        },
        uid: md.uid.clone(),
    })
}

fn target_of(t: &hpa_v2::MetricTarget, ctx: &str, field: &str) -> Result<Target, SnapshotError> {
    let value = t
        .value
        .as_ref()
        .map(|q| non_negative_milli(&q.0, ctx, &format!("{field}.value")))
        .transpose()?;
    let average_value = t
        .average_value
        .as_ref()
        .map(|q| non_negative_milli(&q.0, ctx, &format!("{field}.averageValue")))
        .transpose()?;
    if value == Some(0) || average_value == Some(0) {
        return Err(err(format!(
            "{ctx}: field {field}: a target value must be greater than zero"
        )));
    }
    if let Some(u) = t.average_utilization {
        if u <= 0 {
            return Err(err(format!(
                "{ctx}: field {field}.averageUtilization: must be greater than zero, got {u}"
            )));
        }
    }
    Ok(Target {
        type_: t.type_.clone(),
        value,
        average_value,
        average_utilization: t.average_utilization,
    })
}

fn convert_hpa(
    raw: &HorizontalPodAutoscaler,
    namespace: &str,
    ctx: &str,
) -> Result<Hpa, SnapshotError> {
    let spec = &raw.spec;
    let min_replicas = check_bounds(spec, ctx)?;
    let mut raw_metrics = spec.metrics.clone().unwrap_or_default();
    if raw_metrics.is_empty() {
        raw_metrics.push(default_cpu_metric());
    }
    let metrics = raw_metrics
        .iter()
        .enumerate()
        .map(|(i, m)| convert_metric(m, i, ctx))
        .collect::<Result<Vec<_>, _>>()?;
    let behavior = spec
        .behavior
        .as_ref()
        .map(|b| convert_behavior(b, ctx))
        .transpose()?;
    let mut hpa = Hpa {
        namespace: namespace.to_string(),
        name: raw.metadata.name.clone().unwrap_or_default(),
        min_replicas,
        max_replicas: spec.max_replicas,
        metrics,
        behavior,
        raw_metrics,
        conditions: Vec::new(),
        status: None,
        target_kind: spec.scale_target_ref.kind.clone(),
        target_name: spec.scale_target_ref.name.clone(),
        generation: raw.metadata.generation,
    };
    hpa.set_status(raw.status.clone());
    Ok(hpa)
}

/// The target reference and the replica bounds, which k8s-openapi fills with defaults when
/// absent; returns `minReplicas` (default 1).
fn check_bounds(
    spec: &hpa_v2::HorizontalPodAutoscalerSpec,
    ctx: &str,
) -> Result<i32, SnapshotError> {
    let r = &spec.scale_target_ref;
    if r.kind.is_empty() || r.name.is_empty() {
        return Err(err(format!(
            "{ctx}: field spec.scaleTargetRef: missing (needs kind and name of the workload to scale)"
        )));
    }
    let min_replicas = spec.min_replicas.unwrap_or(1);
    if min_replicas < 0 {
        return Err(err(format!(
            "{ctx}: field spec.minReplicas: must be >= 0, got {min_replicas}"
        )));
    }
    if spec.max_replicas < 1 {
        return Err(err(format!(
            "{ctx}: field spec.maxReplicas: must be >= 1, got {}",
            spec.max_replicas
        )));
    }
    if spec.max_replicas < min_replicas {
        return Err(err(format!(
            "{ctx}: field spec.maxReplicas: {} is less than spec.minReplicas {min_replicas}",
            spec.max_replicas
        )));
    }
    Ok(min_replicas)
}

/// The API server's default when an HPA has no metrics: 80% CPU utilization.
fn default_cpu_metric() -> hpa_v2::MetricSpec {
    hpa_v2::MetricSpec {
        type_: "Resource".into(),
        resource: Some(hpa_v2::ResourceMetricSource {
            name: "cpu".into(),
            target: hpa_v2::MetricTarget {
                type_: "Utilization".into(),
                average_utilization: Some(80),
                ..Default::default()
            },
        }),
        ..Default::default()
    }
}

/// `spec.metrics[i]` as the core reads it; a required field that is missing is an error naming it.
fn convert_metric(
    m: &hpa_v2::MetricSpec,
    i: usize,
    ctx: &str,
) -> Result<MetricSpec, SnapshotError> {
    let f = format!("spec.metrics[{i}]");
    let missing = |what: &str| {
        err(format!(
            "{ctx}: field {f}.{what}: missing for type {}",
            m.type_
        ))
    };
    let named = |name: &str, what: &str| -> Result<(), SnapshotError> {
        if name.is_empty() {
            Err(missing(what))
        } else {
            Ok(())
        }
    };
    let target = |t: &hpa_v2::MetricTarget, at: &str| target_of(t, ctx, &format!("{f}.{at}"));
    Ok(match m.type_.as_str() {
        "Resource" => {
            let r = m.resource.as_ref().ok_or_else(|| missing("resource"))?;
            named(&r.name, "resource.name")?;
            MetricSpec::Resource {
                resource: r.name.clone(),
                target: target(&r.target, "resource.target")?,
            }
        }
        "ContainerResource" => {
            let r = m
                .container_resource
                .as_ref()
                .ok_or_else(|| missing("containerResource"))?;
            named(&r.name, "containerResource.name")?;
            named(&r.container, "containerResource.container")?;
            MetricSpec::ContainerResource {
                resource: r.name.clone(),
                container: r.container.clone(),
                target: target(&r.target, "containerResource.target")?,
            }
        }
        "Pods" => {
            let p = m.pods.as_ref().ok_or_else(|| missing("pods"))?;
            named(&p.metric.name, "pods.metric.name")?;
            MetricSpec::Pods {
                metric: p.metric.name.clone(),
                target: target(&p.target, "pods.target")?,
            }
        }
        "Object" => {
            let o = m.object.as_ref().ok_or_else(|| missing("object"))?;
            named(&o.metric.name, "object.metric.name")?;
            named(&o.described_object.kind, "object.describedObject.kind")?;
            named(&o.described_object.name, "object.describedObject.name")?;
            MetricSpec::Object {
                kind: o.described_object.kind.clone(),
                object: o.described_object.name.clone(),
                metric: o.metric.name.clone(),
                target: target(&o.target, "object.target")?,
            }
        }
        "External" => {
            let e = m.external.as_ref().ok_or_else(|| missing("external"))?;
            named(&e.metric.name, "external.metric.name")?;
            MetricSpec::External {
                metric: e.metric.name.clone(),
                selector_text: selector_text(e.metric.selector.as_ref()),
                target: target(&e.target, "external.target")?,
            }
        }
        other => MetricSpec::Unknown {
            type_name: other.to_string(),
        },
    })
}

fn convert_behavior(
    b: &hpa_v2::HorizontalPodAutoscalerBehavior,
    ctx: &str,
) -> Result<Behavior, SnapshotError> {
    Ok(Behavior {
        scale_up: merge_rules(
            b.scale_up.as_ref(),
            Rules::default_scale_up(),
            ctx,
            "spec.behavior.scaleUp",
        )?,
        scale_down: merge_rules(
            b.scale_down.as_ref(),
            Rules::default_scale_down(),
            ctx,
            "spec.behavior.scaleDown",
        )?,
    })
}

fn merge_rules(
    r: Option<&hpa_v2::HPAScalingRules>,
    mut d: Rules,
    ctx: &str,
    field: &str,
) -> Result<Rules, SnapshotError> {
    let Some(r) = r else {
        return Ok(d);
    };
    if let Some(w) = r.stabilization_window_seconds {
        if !(0..=3600).contains(&w) {
            return Err(err(format!(
                "{ctx}: field {field}.stabilizationWindowSeconds: must be between 0 and 3600, got {w}"
            )));
        }
        d.stabilization_window_seconds = Some(w);
    }
    if let Some(p) = &r.select_policy {
        d.select_policy = match p.as_str() {
            "Max" => SelectPolicy::Max,
            "Min" => SelectPolicy::Min,
            "Disabled" => SelectPolicy::Disabled,
            other => {
                return Err(err(format!(
                    "{ctx}: field {field}.selectPolicy: {other:?} is not one of Max, Min, Disabled"
                )))
            }
        };
    }
    if let Some(ps) = &r.policies {
        let mut out = Vec::with_capacity(ps.len());
        for (i, p) in ps.iter().enumerate() {
            let pf = format!("{field}.policies[{i}]");
            let kind = match p.type_.as_str() {
                "Pods" => PolicyKind::Pods,
                "Percent" => PolicyKind::Percent,
                other => {
                    return Err(err(format!(
                        "{ctx}: field {pf}.type: {other:?} is not one of Pods, Percent"
                    )))
                }
            };
            if p.value <= 0 {
                return Err(err(format!(
                    "{ctx}: field {pf}.value: must be greater than zero, got {}",
                    p.value
                )));
            }
            if !(1..=1800).contains(&p.period_seconds) {
                return Err(err(format!(
                    "{ctx}: field {pf}.periodSeconds: must be between 1 and 1800, got {}",
                    p.period_seconds
                )));
            }
            out.push(Policy {
                kind,
                value: p.value,
                period_seconds: p.period_seconds,
            });
        }
        d.policies = out;
    }
    if let Some(Quantity(t)) = &r.tolerance {
        let v = parse_f64(t).map_err(|e| err(format!("{ctx}: field {field}.tolerance: {e}")))?;
        if v < 0.0 {
            return Err(err(format!(
                "{ctx}: field {field}.tolerance: must be >= 0, got {t}"
            )));
        }
        d.tolerance = Some(v);
    }
    Ok(d)
}

fn quantities(
    map: Option<&BTreeMap<String, Quantity>>,
    ctx: &str,
    field: &str,
) -> Result<Resources, SnapshotError> {
    let mut out = Resources::new();
    for (k, q) in map.into_iter().flatten() {
        out.insert(
            k.clone(),
            non_negative_milli(&q.0, ctx, &format!("{field}.{k}"))?,
        );
    }
    Ok(out)
}

/// A Pod as the core sees it.
pub fn convert_pod(p: &Pod, source: &str) -> Result<PodInfo, SnapshotError> {
    let name = p.metadata.name.clone().unwrap_or_default();
    let ns = p.metadata.namespace.as_deref().unwrap_or("default");
    let ctx = format!("{source}: Pod {ns}/{name}");
    if name.is_empty() {
        return Err(err(format!(
            "{source}: a Pod in namespace {ns}: field metadata.name: missing"
        )));
    }
    let status = p.status.as_ref();
    let ready = status
        .and_then(|s| s.conditions.as_ref())
        .and_then(|cs| cs.iter().find(|c| c.type_ == "Ready"))
        .map(|c| ReadyCondition {
            status: c.status.clone(),
            last_transition_time: c
                .last_transition_time
                .as_ref()
                .map(|t| t.0)
                .unwrap_or_else(crate::core::calc::go_zero_time),
        });
    let mut containers = Vec::new();
    let mut init_containers = Vec::new();
    let spec = p.spec.as_ref();
    for (i, c) in spec
        .map(|s| s.containers.as_slice())
        .unwrap_or(&[])
        .iter()
        .enumerate()
    {
        containers.push(ContainerRequests {
            name: c.name.clone(),
            requests: quantities(
                c.resources.as_ref().and_then(|r| r.requests.as_ref()),
                &ctx,
                &format!("spec.containers[{i}].resources.requests"),
            )?,
            restartable_init: false,
        });
    }
    for (i, c) in spec
        .and_then(|s| s.init_containers.as_deref())
        .unwrap_or(&[])
        .iter()
        .enumerate()
    {
        let requests = quantities(
            c.resources.as_ref().and_then(|r| r.requests.as_ref()),
            &ctx,
            &format!("spec.initContainers[{i}].resources.requests"),
        )?;
        let entry = ContainerRequests {
            name: c.name.clone(),
            requests,
            restartable_init: c.restart_policy.as_deref() == Some("Always"),
        };
        if entry.restartable_init {
            containers.push(entry.clone());
        }
        init_containers.push(entry);
    }
    let pod_requests = match spec
        .and_then(|s| s.resources.as_ref())
        .and_then(|r| r.requests.as_ref())
    {
        Some(r) => Some(quantities(Some(r), &ctx, "spec.resources.requests")?),
        None => None,
    };
    let overhead = quantities(
        spec.and_then(|s| s.overhead.as_ref()),
        &ctx,
        "spec.overhead",
    )?;
    let owner = p
        .metadata
        .owner_references
        .as_ref()
        .and_then(|o| o.iter().find(|r| r.controller == Some(true)).or(o.first()))
        .map(|o| format!("{}/{}", o.kind, o.name));
    Ok(PodInfo {
        name,
        phase: status.and_then(|s| s.phase.clone()).unwrap_or_default(),
        deleting: p.metadata.deletion_timestamp.is_some(),
        start_time: status.and_then(|s| s.start_time.as_ref()).map(|t| t.0),
        ready,
        containers,
        init_containers,
        pod_requests,
        overhead,
        owner,
    })
}

fn window(s: Option<&str>, ctx: &str) -> Result<SignedDuration, SnapshotError> {
    match s {
        None => Ok(SignedDuration::ZERO),
        Some(w) => crate::duration::parse_go_duration(w)
            .map(SignedDuration::from_nanos)
            .map_err(|e| err(format!("{ctx}: field window: {e}"))),
    }
}

fn timestamp(s: Option<&str>, ctx: &str) -> Result<Timestamp, SnapshotError> {
    match s {
        None => Ok(crate::core::calc::go_zero_time()),
        Some(t) => parse_time(t, ctx, "timestamp"),
    }
}

/// A PodMetrics object as the core sees it.
pub fn convert_pod_metrics(
    m: &PodMetrics,
    namespace: &str,
    source: &str,
) -> Result<PodUsage, SnapshotError> {
    let pod = m.metadata.name.clone().unwrap_or_default();
    let ctx = format!("{source}: PodMetrics {namespace}/{pod}");
    if pod.is_empty() {
        return Err(err(format!(
            "{source}: a PodMetrics in namespace {namespace}: field metadata.name: missing"
        )));
    }
    let mut containers = Vec::with_capacity(m.containers.len());
    for (i, c) in m.containers.iter().enumerate() {
        let mut usage = Resources::new();
        for (k, q) in &c.usage {
            usage.insert(
                k.as_str(),
                non_negative_milli(q, &ctx, &format!("containers[{i}].usage.{k}"))?,
            );
        }
        containers.push((c.name.clone(), usage));
    }
    Ok(PodUsage {
        pod,
        timestamp: timestamp(m.timestamp.as_deref(), &ctx)?,
        window: window(m.window.as_deref(), &ctx)?,
        containers,
    })
}

/// A custom metrics value as the core sees it.
pub fn convert_metric_value(v: &MetricValue, source: &str) -> Result<MetricSample, SnapshotError> {
    let d = &v.described_object;
    let ctx = format!(
        "{source}: MetricValue {} of {} {}",
        v.metric.name, d.kind, d.name
    );
    let secs = v.window_seconds.unwrap_or(60);
    if secs < 0 {
        return Err(err(format!(
            "{ctx}: field windowSeconds: negative window {secs}"
        )));
    }
    Ok(MetricSample {
        name: d.name.clone(),
        value: milli(&v.value, &ctx, "value")?,
        timestamp: timestamp(v.timestamp.as_deref(), &ctx)?,
        window: SignedDuration::from_secs(secs),
    })
}

/// An external metrics value as the core sees it.
pub fn convert_external_value(
    v: &ExternalMetricValue,
    source: &str,
) -> Result<MetricSample, SnapshotError> {
    let ctx = format!("{source}: ExternalMetricValue {}", v.metric_name);
    Ok(MetricSample {
        name: v.metric_name.clone(),
        value: milli(&v.value, &ctx, "value")?,
        timestamp: timestamp(v.timestamp.as_deref(), &ctx)?,
        window: SignedDuration::from_secs(v.window.unwrap_or(0).max(0)),
    })
}
