//! Building a [`Snapshot`] from API objects: each document's items are read into their typed
//! shapes (HPAs of any supported version converted to `autoscaling/v2`, Deployments reduced to
//! their scale, metrics, Events kept as they are), and the List's annotations are read.

use std::collections::BTreeMap;

use jiff::Timestamp;
use k8s_openapi::api::autoscaling::v1::Scale as ScaleV1;
use k8s_openapi::api::autoscaling::v2::HorizontalPodAutoscaler;
use serde_json::value::RawValue;
use serde_json::Value;

use super::annotations::{
    list_annotations, FETCH_ERRORS_ANNOTATION, OWN_FAILURES_ANNOTATION, SERVER_VERSION_ANNOTATION,
    TAKEN_AT_ANNOTATION, TAKEN_FOR_ANNOTATION,
};
use super::convert::{self, HpaNote};
use super::error::{err, SnapshotError};
use super::head::TextHead;
use super::index::{self, Index, Parts};
use super::item::{self, Item};
use super::to_core::{parse_time, workload, Workload, WorkloadStatus};
use super::wire::{self, AppsWorkload, Pod};
use crate::core::model::Scale;
use crate::metrics_api::{ExternalMetricValue, MetricValue, PodMetrics};

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
    pub(super) scoped_errors: BTreeMap<String, ScopedErrors>,
    /// Objects explain does not read, passed over (`ConfigMap shop/settings (v1)`).
    pub ignored: Vec<String>,
    /// What reading each HPA `(namespace, name)` involved: a version conversion, a field
    /// that does not belong to its version.
    pub hpa_notes: BTreeMap<(String, String), Vec<HpaNote>>,
    /// Whether a document carried `kubectl-hpa.dev/taken-at` (written by `kubectl hpa snapshot`,
    /// which always fetches the metrics an HPA reads).
    pub written_by_tool: bool,
    /// The HPAs `(namespace, name)` a `kubectl hpa snapshot NAME` file was taken for
    /// ([`TAKEN_FOR_ANNOTATION`]); `None`: every HPA the file holds (a fleet snapshot, any
    /// other file, or documents merged with one of those).
    pub taken_for: Option<std::collections::BTreeSet<(String, String)>>,
    /// What merging the documents noted: objects read more than once (a later document
    /// replaces an earlier one).
    pub merge_notes: Vec<String>,
    /// Lookups by namespace, name, label and metric (built at the first lookup).
    pub(super) index: std::sync::OnceLock<Index>,
    /// The metrics chain's adapter Deployments and rules ConfigMaps ([`super::chain`]).
    pub chain: super::chain::ChainObjects,
}

/// A namespace's fetch errors and own failures.
pub(super) type ScopedErrors = (BTreeMap<String, String>, BTreeMap<String, String>);

/// Kinds accepted in a snapshot and passed over (context for live diagnostics).
pub(super) const PASSIVE_KINDS: &[(&str, &str)] = &[
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

/// An item of a List: its JSON text and, where its reader already has them, its head (read
/// from the text without labels) and, for a pod, the fields the snapshot keeps of it (the
/// live fetch writes a pod's text from them: see `cluster::slim`).
pub struct ListItem<'a> {
    pub text: &'a RawValue,
    pub head: Option<&'a TextHead>,
    pub pod: Option<Pod>,
}

/// What the reader of an item knows of it already (see [`ListItem`]).
#[derive(Default)]
struct Known {
    head: Option<item::Head>,
    pod: Option<Pod>,
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
    pub(super) fn from_json_list(
        text: &str,
        source: &str,
    ) -> Result<Option<Snapshot>, SnapshotError> {
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
        let items = top.items.into_iter().flatten().map(|text| ListItem {
            text,
            head: None,
            pod: None,
        });
        Snapshot::from_list(source, &annotations, items).map(Some)
    }

    /// A `v1 List` from its annotations and its items' JSON text: how a JSON file's List is
    /// read ([`Snapshot::from_text`]) and how a live fetch's List of a namespace is, without
    /// writing it out as text and reading it back — live and offline are one reader. An item
    /// may come with its head already read from its text ([`super::read_head`] without
    /// labels), which is then not read again.
    pub fn from_list<'a>(
        source: &str,
        annotations: &BTreeMap<String, String>,
        items: impl IntoIterator<Item = ListItem<'a>>,
    ) -> Result<Snapshot, SnapshotError> {
        let mut snap = Snapshot::with_annotations(source, annotations)?;
        for (i, it) in items.into_iter().enumerate() {
            let pos = item::Nested { outer: &"", i };
            let known = Known {
                head: it.head.map(item::Head::of_text),
                pod: it.pod,
            };
            snap.add(Item::Raw(it.text), source, &pos, known)?;
        }
        snap.sort_other();
        Ok(snap)
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
        if let Some(t) = annotations.get(TAKEN_FOR_ANNOTATION) {
            let (ns, name) = t.split_once('/').filter(|(n, m)| !n.is_empty() && !m.is_empty()).ok_or_else(|| {
                err(format!(
                    "{source}: List: field metadata.annotations.{TAKEN_FOR_ANNOTATION}: expected NAMESPACE/NAME, got {t:?}"
                ))
            })?;
            snap.taken_for = Some([(ns.to_string(), name.to_string())].into());
        }
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

    pub(super) fn from_item(doc: Item<'_>, source: &str) -> Result<Snapshot, SnapshotError> {
        let annotations = list_annotations(&doc);
        let mut snap = Snapshot::with_annotations(source, &annotations)?;
        snap.add(doc, source, &"", Known::default())?;
        snap.sort_other();
        Ok(snap)
    }

    fn add(
        &mut self,
        item: Item<'_>,
        source: &str,
        position: &dyn std::fmt::Display,
        known: Known,
    ) -> Result<(), SnapshotError> {
        let head = known.head.unwrap_or_else(|| item.head());
        let (api_version, kind) = (head.api_version.as_str(), head.kind.as_str());
        let ctx = item::Ctx {
            source,
            position,
            what: &head,
        };
        if kind.is_empty() || api_version.is_empty() {
            return Err(err(format!(
                "{source}: {position}object has no apiVersion/kind; a snapshot is a v1 List of API objects"
            )));
        }
        if self.chain.keep(&item, &head) {
            return Ok(());
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
            ("autoscaling/v1", "Scale") => self.add_scale(item, &ctx.to_string())?,
            ("v1", "Pod") if head.namespace == "kube-system" => self.add_system_pod(item, &ctx.to_string())?,
            ("v1", "Pod") => self.pods.push(match known.pod {
                Some(p) => {
                    debug_assert_eq!(item.typed::<Pod, _>(&ctx).ok().as_ref(), Some(&p));
                    p
                }
                None => item.typed(&ctx)?,
            }),
            // metrics.k8s.io/v1 (GA, KEP-5207) has v1beta1's schema.
            ("metrics.k8s.io/v1beta1" | "metrics.k8s.io/v1", "PodMetrics") => {
                self.has_pod_metrics = true;
                self.pod_metrics.push(item.typed(&ctx)?);
            }
            // KEDA's ScaledObjects, kept whole (snapshot/keda.rs)
            ("keda.sh/v1alpha1", "ScaledObject") => self.add_scaled_object(item, &ctx.to_string())?,
            (v, k) if PASSIVE_KINDS.contains(&(v, k)) || super::blockers::KINDS.contains(&(v, k)) => {
                item.check::<item::KeptShape, _>(&ctx)?;
                self.other.push(item.into_value(&ctx)?);
            }
            (v, _) => {
                // A custom-resource target (e.g. an Argo Rollout) may be included as context
                // (any named object with a spec); its scale comes from an autoscaling/v1 Scale.
                // Anything else (ConfigMaps, Secrets, Ingresses...) is passed over and noted.
                if !head.name.is_empty() && item.has_spec() {
                    item.check::<item::KeptShape, _>(&ctx)?;
                    self.other.push(item.into_value(&ctx)?);
                } else {
                    self.ignored.push(format!("{head} ({v})"));
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
        ctx: &item::Ctx<'_>,
        source: &str,
        position: &dyn std::fmt::Display,
    ) -> Result<(), SnapshotError> {
        let Some(items) = item.items(ctx)? else {
            return Ok(());
        };
        if kind == "PodMetricsList" {
            self.has_pod_metrics = true;
        }
        for (i, sub) in items.into_iter().enumerate() {
            let pos = item::Nested { outer: position, i };
            match kind {
                "MetricValueList" => {
                    let v: MetricValue = sub.typed(&item::Ctx {
                        source,
                        position: &pos,
                        what: &"MetricValue",
                    })?;
                    self.custom_metrics.push(v);
                }
                "ExternalMetricValueList" => {
                    let v: ExternalMetricValue = sub.typed(&item::Ctx {
                        source,
                        position: &pos,
                        what: &"ExternalMetricValue",
                    })?;
                    self.external_metrics.push(v);
                }
                "PodMetricsList" => {
                    let v: PodMetrics = sub.typed(&item::Ctx {
                        source,
                        position: &pos,
                        what: &"PodMetrics",
                    })?;
                    self.pod_metrics.push(v);
                }
                _ => self.add(sub, source, &pos, Known::default())?,
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
        ctx: &item::Ctx<'_>,
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
        ctx: &item::Ctx<'_>,
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
            let c = convert::to_v2(&head.api_version, item.into_value(ctx)?, &ctx.to_string())?;
            if !c.notes.is_empty() {
                self.hpa_notes.entry(key).or_default().extend(c.notes);
            }
            Item::Owned(c.value).typed(ctx)?
        };
        self.hpas.push(h.into());
        Ok(())
    }

    /// The fetch errors that apply to namespace `ns` (its List's, else the file's).
    pub(super) fn errors_in(&self, ns: &str) -> &BTreeMap<String, String> {
        self.scoped_errors
            .get(ns)
            .map(|s| &s.0)
            .unwrap_or(&self.fetch_errors)
    }

    /// The metrics chain's read failures that apply to namespace `ns` (key without the
    /// `metrics-chain/` prefix, text).
    pub fn chain_errors(&self, ns: &str) -> Vec<(String, String)> {
        self.errors_in(ns)
            .iter()
            .filter_map(|(k, v)| {
                let k = k.strip_prefix(super::chain::CHAIN_KEY_PREFIX)?;
                Some((k.to_string(), v.clone()))
            })
            .collect()
    }

    /// Our own failures that apply to namespace `ns`.
    pub(super) fn own_failures_in(&self, ns: &str) -> &BTreeMap<String, String> {
        self.scoped_errors
            .get(ns)
            .map(|s| &s.1)
            .unwrap_or(&self.own_failures)
    }

    /// The vectors the indexes point into.
    pub(super) fn parts(&self) -> Parts<'_> {
        Parts {
            hpas: &self.hpas,
            workloads: &self.workloads,
            pods: &self.pods,
            other: &self.other,
            pod_metrics: &self.pod_metrics,
            custom_metrics: &self.custom_metrics,
            external_metrics: &self.external_metrics,
        }
    }

    /// Keep the events of each object together (their order otherwise unchanged), so that
    /// [`Snapshot::events_for`] is a slice.
    pub(super) fn sort_other(&mut self) {
        self.other.sort_by_cached_key(index::event_subject);
        self.index = std::sync::OnceLock::new();
    }
}
