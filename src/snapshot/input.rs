//! Lookups on a [`Snapshot`] and the core's [`Input`] for one HPA: its target resolved as the
//! controller's REST mapper and scale client would, the pods its selector picks, their
//! metrics, the custom and external metric values, the other HPAs selecting the same pods.

use std::collections::{BTreeMap, HashSet};

use jiff::Timestamp;
use k8s_openapi::api::autoscaling::v2::{self as hpa_v2, HorizontalPodAutoscaler};
use serde_json::Value;

use super::annotations::{
    external_metric_key, object_metric_key, pods_metric_key, scale_error_key, scale_not_found_key,
};
use super::build::Snapshot;
use super::error::{err, SnapshotError};
use super::index::Index;
use super::to_core::{
    convert_external_value, convert_hpa, convert_metric_value, convert_pod, convert_pod_metrics,
    Workload,
};
use super::wire::Pod;
use crate::core::model::*;
use crate::core::Settings;
use crate::labels::Selector;
use crate::restmapper::{builtin_mapping, qualified_guess};

impl Snapshot {
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
    pub(super) fn index(&self) -> std::borrow::Cow<'_, Index> {
        let sizes = Index::sizes_of(self.parts());
        let ix = self.index.get_or_init(|| self.build_index());
        if ix.sizes == sizes {
            std::borrow::Cow::Borrowed(ix)
        } else {
            std::borrow::Cow::Owned(self.build_index())
        }
    }

    /// The indexes, with the pods each HPA's target selects (for each HPA whose target
    /// resolves).
    fn build_index(&self) -> Index {
        let mut ix = Index::build(self.parts());
        for (hi, h) in self.hpas.iter().enumerate() {
            let ns = h.metadata.namespace.as_deref().unwrap_or("default");
            let name = h.metadata.name.as_deref().unwrap_or_default();
            if self.scale_error(ns, name).is_some() {
                continue;
            }
            let Ok(t) = self.resolve_target(&ix, ns, &h.spec.scale_target_ref) else {
                continue;
            };
            let Ok(sel) = Selector::parse(&t.scale.selector) else {
                continue;
            };
            if sel.is_empty() {
                continue;
            }
            let pods = ix.select(&self.pods, ns, &sel);
            ix.add_selecting(hi, pods);
        }
        ix
    }

    /// The kept objects of `kind` whose metadata namespace is `ns` ("": cluster-scoped, or
    /// written without a namespace), in file order — by index, not a scan of the file.
    pub fn others_of<'a>(&'a self, kind: &str, ns: &str) -> impl Iterator<Item = &'a Value> + 'a {
        let ix = self.index();
        let at: Vec<usize> = ix
            .other_by_kind
            .get(&(kind.to_string(), ns.to_string()))
            .cloned()
            .unwrap_or_default();
        at.into_iter().filter_map(move |i| self.other.get(i))
    }

    /// The Events (v1 and events.k8s.io/v1) whose metadata namespace is `ns` and whose
    /// `reason` is `reason`, in the order of [`Snapshot::others_of`] — by index: a check of
    /// each HPA reads its reason's Events, not every Event of the namespace.
    pub fn events_of_reason<'a>(
        &'a self,
        ns: &str,
        reason: &str,
    ) -> impl Iterator<Item = &'a Value> + 'a {
        let ix = self.index();
        let at: Vec<usize> = ix
            .events_by_reason
            .get(&(ns.to_string(), reason.to_string()))
            .cloned()
            .unwrap_or_default();
        at.into_iter().filter_map(move |i| self.other.get(i))
    }

    /// The objects of `kind` (one of [`super::blockers::KINDS`]) in namespace `ns` among the
    /// kept objects (by the index: not a scan of the file per HPA); an object written without a
    /// namespace is in `default`.
    pub fn blocker_objects<'a>(
        &'a self,
        kind: &'a str,
        ns: &str,
    ) -> impl Iterator<Item = &'a Value> + 'a {
        let unnamespaced = (ns == "default").then(|| self.others_of(kind, ""));
        self.others_of(kind, ns)
            .chain(unnamespaced.into_iter().flatten())
            .filter(move |o| {
                super::blockers::KINDS
                    .iter()
                    .any(|(v, k)| *k == kind && o["apiVersion"] == *v)
            })
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

    /// HPA `namespace/name`, through the snapshot's index; the error names the HPAs it holds.
    pub fn hpa(
        &self,
        namespace: &str,
        name: &str,
    ) -> Result<&HorizontalPodAutoscaler, SnapshotError> {
        self.find_hpa(namespace, name)
    }

    /// The workload HPA `namespace/name` scales, resolved as the controller's REST mapper and
    /// scale client resolve it; `None` when the snapshot does not hold it.
    pub fn target_of(&self, namespace: &str, name: &str) -> Option<&Workload> {
        let raw = self.find_hpa(namespace, name).ok()?;
        let ix = self.index();
        self.resolve_target(&ix, namespace, &raw.spec.scale_target_ref)
            .ok()
    }

    /// The recorded error of reading HPA `namespace/name`'s target, if any (files written
    /// before per-HPA keys: `scale`, for the first HPA, the one the file was taken for).
    pub fn scale_error(&self, namespace: &str, name: &str) -> Option<&String> {
        let errors = self.errors_in(namespace);
        // perf: no key written when there is no error to look it up in (most namespaces).
        if errors.is_empty() {
            return None;
        }
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
            Some(sel) => ix.select(&self.pods, namespace, sel),
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
        for i in ix.select_pod_metrics(&self.pod_metrics, namespace, sel, &selected_names) {
            usages.push(convert_pod_metrics(
                &self.pod_metrics[i],
                namespace,
                &self.source,
            )?);
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
                        // An item without labels is the server's answer to the selector
                        // (KEDA's metrics server sends none): kept, as the controller keeps it.
                        if !v.metric_labels.is_empty()
                            && sel.as_ref().is_some_and(|s| !s.matches(&v.metric_labels))
                        {
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

#[cfg(test)]
mod tests {
    use super::*;

    /// An HPA, its Deployment, three pods (one of another app), their PodMetrics, a custom
    /// metric value and two Events.
    const FILE: &str = r#"
apiVersion: v1
kind: List
metadata:
  annotations: {kubectl-hpa.dev/taken-at: "2026-03-01T12:00:00Z"}
items:
- apiVersion: autoscaling/v2
  kind: HorizontalPodAutoscaler
  metadata: {name: web, namespace: shop}
  spec:
    scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
    maxReplicas: 6
    metrics:
    - type: Resource
      resource: {name: cpu, target: {type: Utilization, averageUtilization: 50}}
    - type: Pods
      pods: {metric: {name: rps}, target: {type: AverageValue, averageValue: "10"}}
- apiVersion: apps/v1
  kind: Deployment
  metadata: {name: web, namespace: shop}
  spec: {replicas: 2, selector: {matchLabels: {app: web}}}
  status: {replicas: 2}
- apiVersion: v1
  kind: Pod
  metadata: {name: web-1, namespace: shop, labels: {app: web}}
  spec: {containers: [{name: app, resources: {requests: {cpu: 200m}}}]}
  status: {phase: Running}
- apiVersion: v1
  kind: Pod
  metadata: {name: web-2, namespace: shop, labels: {app: web}}
  spec: {containers: [{name: app, resources: {requests: {cpu: 200m}}}]}
  status: {phase: Pending}
- apiVersion: v1
  kind: Pod
  metadata: {name: db-1, namespace: shop, labels: {app: db}}
- apiVersion: metrics.k8s.io/v1beta1
  kind: PodMetrics
  metadata: {name: web-1, namespace: shop}
  timestamp: "2026-03-01T11:59:30Z"
  window: 30s
  containers: [{name: app, usage: {cpu: 150m}}]
- apiVersion: metrics.k8s.io/v1beta1
  kind: PodMetrics
  metadata: {name: db-1, namespace: shop}
  timestamp: "2026-03-01T11:59:30Z"
  window: 30s
  containers: [{name: db, usage: {cpu: 900m}}]
- apiVersion: custom.metrics.k8s.io/v1beta2
  kind: MetricValueList
  items:
  - describedObject: {kind: Pod, namespace: shop, name: web-1}
    metric: {name: rps}
    timestamp: "2026-03-01T11:59:40Z"
    value: "12"
- apiVersion: v1
  kind: Event
  metadata: {name: e1, namespace: shop}
  involvedObject: {kind: HorizontalPodAutoscaler, name: web, namespace: shop}
  reason: X
- apiVersion: v1
  kind: Service
  metadata: {name: web, namespace: shop}
- apiVersion: v1
  kind: Event
  metadata: {name: e2, namespace: shop}
  involvedObject: {kind: HorizontalPodAutoscaler, name: web, namespace: shop}
  reason: Y
"#;

    fn ts(s: &str) -> Timestamp {
        s.parse().expect("timestamp")
    }

    #[test]
    fn an_hpa_with_its_deployment_pods_and_metrics_becomes_the_core_s_input() {
        let snap = Snapshot::from_text(FILE, "f").expect("snapshot");
        let now = ts("2026-03-01T12:00:00Z");
        let input = snap
            .input_for("shop", "web", Settings::default(), History::default(), now)
            .expect("input");
        assert_eq!(
            (input.hpa.namespace.as_str(), input.hpa.name.as_str()),
            ("shop", "web")
        );
        assert_eq!((input.hpa.min_replicas, input.hpa.max_replicas), (1, 6));
        assert_eq!(input.hpa.metrics.len(), 2);
        assert_eq!(
            input.scale,
            Ok(Scale {
                spec_replicas: 2,
                status_replicas: 2,
                selector: "app=web".into(),
            })
        );
        let pods: Vec<(&str, &str)> = input
            .pods
            .iter()
            .map(|p| (p.name.as_str(), p.phase.as_str()))
            .collect();
        assert_eq!(pods, [("web-1", "Running"), ("web-2", "Pending")]);
        assert_eq!(input.pods[0].containers[0].requests.get("cpu"), Some(200));
        let usage = input.pod_metrics.as_ref().expect("metrics");
        assert_eq!(usage.len(), 1, "db-1's metrics are not selected");
        assert_eq!(usage[0].pod, "web-1");
        assert_eq!(usage[0].containers[0].1.get("cpu"), Some(150));
        assert_eq!(usage[0].timestamp, ts("2026-03-01T11:59:30Z"));
        assert_eq!(input.metric_data[0], MetricData::None);
        assert_eq!(
            input.metric_data[1],
            MetricData::Pods(Ok(vec![MetricSample {
                name: "web-1".into(),
                value: 12_000,
                timestamp: ts("2026-03-01T11:59:40Z"),
                window: jiff::SignedDuration::from_secs(60),
            }]))
        );
        assert!(input.other_hpas_selecting.is_empty());
        assert_eq!(input.now, now);
        assert_eq!(snap.newest_metric_time(), Some(ts("2026-03-01T11:59:40Z")));
        assert_eq!(snap.taken_at, Some(now));
    }

    #[test]
    fn a_target_the_file_lacks_gives_the_scale_error_and_no_pods() {
        let text = FILE.replace(
            "kind: Deployment\n  metadata: {name: web",
            "kind: Deployment\n  metadata: {name: api",
        );
        let snap = Snapshot::from_text(&text, "f").expect("snapshot");
        let input = snap
            .input_for(
                "shop",
                "web",
                Settings::default(),
                History::default(),
                ts("2026-03-01T12:00:00Z"),
            )
            .expect("input");
        assert_eq!(
            input.scale,
            Err("deployments.apps \"web\" not found".to_string())
        );
        assert!(input.pods.is_empty());
        assert_eq!(input.metric_data, vec![MetricData::None; 2]);
        assert_eq!(
            snap.target_status("shop", "web"),
            TargetStatus::NotInSnapshot {
                text: "deployments.apps \"web\" not found".into()
            }
        );
    }

    #[test]
    fn the_events_of_an_object_are_one_slice() {
        let s = Snapshot::from_text(FILE, "f").expect("snapshot");
        let reasons: Vec<&str> = s
            .events_for("shop", "web")
            .iter()
            .filter_map(|e| e["reason"].as_str())
            .collect();
        assert_eq!(reasons, ["X", "Y"]);
        assert!(s.events_for("shop", "other").is_empty());
        assert_eq!(s.other.len(), 3, "events stay in `other` too");
    }

    /// `n` HPAs in one namespace, each over 4 pods with labelled PodMetrics (the bench's shape).
    fn one_namespace(n: usize) -> Snapshot {
        let mut items = Vec::new();
        for h in 0..n {
            let app = format!("app-{h}");
            items.push(serde_json::json!({"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",
                "metadata": {"name": app, "namespace": "shop"},
                "spec": {"maxReplicas": 9, "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": app}}}));
            items.push(serde_json::json!({"apiVersion": "apps/v1", "kind": "Deployment",
                "metadata": {"name": app, "namespace": "shop"},
                "spec": {"replicas": 4, "selector": {"matchLabels": {"app": app}}}, "status": {"replicas": 4}}));
            for p in 0..4 {
                let pod = format!("{app}-{p}");
                let labels = serde_json::json!({"app": app, "pod-template-hash": "5d4f"});
                items.push(serde_json::json!({"apiVersion": "v1", "kind": "Pod",
                    "metadata": {"name": pod, "namespace": "shop", "labels": labels}}));
                items.push(
                    serde_json::json!({"apiVersion": "metrics.k8s.io/v1beta1", "kind": "PodMetrics",
                    "metadata": {"name": pod, "namespace": "shop", "labels": labels},
                    "timestamp": "2026-03-01T11:59:30Z", "window": "30s",
                    "containers": [{"name": "app", "usage": {"cpu": "50m"}}]}),
                );
            }
        }
        let doc = serde_json::json!({"apiVersion": "v1", "kind": "List", "items": items});
        Snapshot::from_text(&doc.to_string(), "f").expect("snapshot")
    }

    /// The selector tests of reading every HPA of the file (its pods, their PodMetrics).
    fn matches_for_every_hpa(snap: &Snapshot) -> usize {
        let before = super::super::index::MATCHED.with(|c| c.get());
        for h in &snap.hpas {
            let name = h.metadata.name.as_deref().expect("name");
            let input = snap
                .input_for(
                    "shop",
                    name,
                    Settings::default(),
                    History::default(),
                    ts("2026-03-01T12:00:00Z"),
                )
                .expect("input");
            assert_eq!(input.pod_metrics.map(|m| m.len()), Ok(4), "{name}");
        }
        super::super::index::MATCHED.with(|c| c.get()) - before
    }

    #[test]
    fn each_hpa_reads_its_own_pods_and_metrics_not_its_namespace_s() {
        // Issue 27 item 4: offline `explain -A` is linear in the file. Counted, not timed: the
        // objects tested against a selector grow with the HPAs, not with HPAs × namespace.
        let small = matches_for_every_hpa(&one_namespace(25));
        let big = matches_for_every_hpa(&one_namespace(100));
        assert!(small > 0);
        assert!(
            big <= 100 * 16,
            "{big} selector tests for 100 HPAs of 4 pods each"
        );
        assert!(
            big * 10 <= small * 45,
            "4× the HPAs: {small} → {big} selector tests"
        );
    }

    #[test]
    fn an_unknown_hpa_names_what_the_file_holds() {
        let s = Snapshot::from_text(FILE, "f").expect("snapshot");
        let e = s
            .input_for(
                "shop",
                "api",
                Settings::default(),
                History::default(),
                ts("2026-03-01T12:00:00Z"),
            )
            .unwrap_err();
        assert_eq!(
            e.message,
            "f: no HorizontalPodAutoscaler shop/api in the snapshot (it holds: shop/web)"
        );
    }
}
