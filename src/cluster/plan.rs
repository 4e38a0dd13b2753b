//! Which requests one HPA or many need — pure: built from the scope and the HPAs already read,
//! testable without a server (as kube-rs builds requests without sending them). Identical
//! requests are planned once: two `spec.metrics` entries naming the same External metric and
//! selector make one request, and so do two HPAs reading the same metric.
//!
//! Rounds: every request that depends on nothing goes in the first; the second needs the HPAs
//! (targets, metrics); for one HPA a third needs its target's selector (its pods and their
//! metrics). A fleet lists pods, workloads and the HPAs' Events whole in the first round
//! instead, so its number of requests does not grow with the number of HPAs.
//!
//! One HPA's pods depend on its target's selector (HPA → target → pods: three dependent round
//! trips). The first round therefore also reads the first page ([`PAGE_ONE`] pods) of the
//! namespace's pods and the namespace's PodMetrics: when that page is the whole namespace
//! (most namespaces hold fewer than 500 pods), the pods are selected locally once the target
//! is read and the third round is not needed for them; a bigger namespace costs one page read
//! beside the other first-round requests (and its PodMetrics, ~0.3 KB a pod, unpaged: the
//! metrics API does not page), then the pods are listed by selector as before. Measured on the
//! scale bench (20 ms a request): one round trip less, ~20 ms of a ~75 ms `explain NAME`.

use std::collections::{BTreeMap, BTreeSet};

use k8s_openapi::api::autoscaling::v2::HorizontalPodAutoscaler;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector;

use crate::labels::Selector;
use crate::restmapper::group_of;

/// Which HPAs a fetch is for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Scope {
    /// `explain NAME -n NAMESPACE`, `snapshot`, `simulate`, `watch`.
    One { namespace: String, name: String },
    /// `explain -n NAMESPACE` without NAME.
    Namespace(String),
    /// `explain -A`.
    All,
}

impl Scope {
    /// The namespace a LIST is restricted to (`None`: cluster-wide).
    pub fn namespace(&self) -> Option<&str> {
        match self {
            Scope::One { namespace, .. } | Scope::Namespace(namespace) => Some(namespace),
            Scope::All => None,
        }
    }
}

/// The collections a plan lists.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Coll {
    Hpas,
    Pods,
    PodMetrics,
    Deployments,
    StatefulSets,
    ReplicaSets,
    Events,
    ResourceQuotas,
    LimitRanges,
    PodDisruptionBudgets,
    VerticalPodAutoscalers,
    /// KEDA's ScaledObjects (optional: 403/404 are recorded, never the fetch's failure).
    ScaledObjects,
}

impl Coll {
    /// `(group/version, plural, kind of an item, qualified resource)`.
    pub fn describe(self) -> (&'static str, &'static str, &'static str, &'static str) {
        match self {
            Coll::Hpas => (
                "autoscaling/v2",
                "horizontalpodautoscalers",
                "HorizontalPodAutoscaler",
                "horizontalpodautoscalers.autoscaling",
            ),
            Coll::Pods => ("v1", "pods", "Pod", "pods"),
            Coll::PodMetrics => (
                "metrics.k8s.io/v1beta1",
                "pods",
                "PodMetrics",
                "pods.metrics.k8s.io",
            ),
            Coll::Deployments => ("apps/v1", "deployments", "Deployment", "deployments.apps"),
            Coll::StatefulSets => (
                "apps/v1",
                "statefulsets",
                "StatefulSet",
                "statefulsets.apps",
            ),
            Coll::ReplicaSets => ("apps/v1", "replicasets", "ReplicaSet", "replicasets.apps"),
            Coll::Events => ("v1", "events", "Event", "events"),
            Coll::ResourceQuotas => ("v1", "resourcequotas", "ResourceQuota", "resourcequotas"),
            Coll::LimitRanges => ("v1", "limitranges", "LimitRange", "limitranges"),
            Coll::PodDisruptionBudgets => (
                "policy/v1",
                "poddisruptionbudgets",
                "PodDisruptionBudget",
                "poddisruptionbudgets.policy",
            ),
            Coll::VerticalPodAutoscalers => (
                "autoscaling.k8s.io/v1",
                "verticalpodautoscalers",
                "VerticalPodAutoscaler",
                "verticalpodautoscalers.autoscaling.k8s.io",
            ),
            Coll::ScaledObjects => (
                crate::snapshot::keda::SCALED_OBJECT_API_VERSION,
                "scaledobjects",
                crate::snapshot::keda::SCALED_OBJECT_KIND,
                "scaledobjects.keda.sh",
            ),
        }
    }

    /// The apps/v1 workload collection of a target, when the target is one (any version of
    /// the `apps` group maps to apps/v1, as the controller's REST mapper does).
    pub fn of_target(api_version: &str, kind: &str) -> Option<Coll> {
        if group_of(api_version) != "apps" {
            return None;
        }
        match kind {
            "Deployment" => Some(Coll::Deployments),
            "StatefulSet" => Some(Coll::StatefulSets),
            "ReplicaSet" => Some(Coll::ReplicaSets),
            _ => None,
        }
    }

    /// The API path of the collection in `ns` (`None`: every namespace).
    pub fn path(self, ns: Option<&str>) -> String {
        let (gv, plural, _, _) = self.describe();
        let root = if gv == "v1" {
            "/api/v1".to_string()
        } else {
            format!("/apis/{gv}")
        };
        match ns {
            Some(ns) => format!("{root}/namespaces/{ns}/{plural}"),
            None => format!("{root}/{plural}"),
        }
    }
}

/// One request of a plan.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Request {
    /// `GET /version`.
    Version,
    /// LIST a collection (in a namespace, or everywhere), by label or field selector.
    List {
        coll: Coll,
        namespace: Option<String>,
        label_selector: String,
        field_selector: String,
    },
    /// The first page ([`PAGE_ONE`] items) of a namespace's collection, used only when it
    /// is the whole collection (the server gave no `continue` token).
    FirstPage { coll: Coll, namespace: String },
    /// GET one object of a collection.
    Get {
        coll: Coll,
        namespace: String,
        name: String,
    },
    /// GET the scale subresource of a target (after discovery for non-built-in groups).
    Scale {
        namespace: String,
        api_version: String,
        kind: String,
        name: String,
    },
    /// `custom.metrics.k8s.io` for the pods `label_selector` picks (empty: every pod).
    PodsMetric {
        namespace: String,
        metric: String,
        label_selector: String,
        metric_selector: String,
    },
    /// `custom.metrics.k8s.io` for one described object.
    ObjectMetric {
        namespace: String,
        api_version: String,
        kind: String,
        name: String,
        metric: String,
        metric_selector: String,
    },
    /// `external.metrics.k8s.io`.
    ExternalMetric {
        namespace: String,
        metric: String,
        label_selector: String,
    },
    /// LIST the kube-controller-manager Pod (kube-system, [`CONTROLLER_MANAGER_SELECTOR`], as
    /// kubeadm and RKE2 run it as a static pod), for the controller's own flags. Optional: a
    /// failure is a note, never the fetch's failure. Last in order: its Pod is the Lists'
    /// last item (a one-HPA List starts with its HPA).
    ControllerManager,
    /// A read of the metrics chain (APIServices, the Services and Deployments behind them, an
    /// adapter's rules ConfigMap), optional: see `cluster/chain.rs`.
    Chain(super::chain_request::ChainRequest),
    /// An optional LIST of what stops the replicas from appearing or fights over them
    /// ([`blocker_reads`]): a failure is a note, never the fetch's failure.
    Optional {
        coll: Coll,
        namespace: Option<String>,
        field_selector: String,
    },
}

/// The label of the kube-controller-manager static pod.
pub const CONTROLLER_MANAGER_SELECTOR: &str = "component=kube-controller-manager";

/// Page size of the LISTs of one HPA's objects: its pods by label selector are typically a few
/// dozen, so 500 (kubectl's chunk size) fits in one page almost always.
pub const PAGE_ONE: u32 = 500;

/// Page size of the fleet's cluster- or namespace-wide LISTs. Pages of one LIST are fetched one
/// after the other (each needs the previous `continue` token), so the page size sets the number
/// of sequential round trips: 20,000 pods at 500 per page are 40 round trips, at 5,000 only 4.
/// A page of 5,000 pods is ~10–20 MB of JSON, held only while it is read: its pods are reduced
/// to what the snapshot reads as the page arrives (`cluster::slim`), before the next page is
/// asked for. The API server serves such pages routinely (kube-state-metrics and the like list
/// whole clusters). The scale bench's 2,000 pods are one page: one round trip.
pub const PAGE_FLEET: u32 = 5000;

impl Request {
    /// The page size of a LIST (`None`: not paged; the metrics APIs do not page).
    pub fn page(&self) -> Option<u32> {
        if let Some(l) = self.optional_as_list() {
            return l.page();
        }
        match self {
            Request::List {
                coll: Coll::PodMetrics | Coll::Events,
                ..
            } => None,
            Request::List {
                label_selector,
                field_selector,
                ..
            } if !label_selector.is_empty() || !field_selector.is_empty() => Some(PAGE_ONE),
            Request::List {
                coll: Coll::Hpas,
                namespace: Some(_),
                ..
            } => Some(PAGE_ONE),
            Request::List { .. } => Some(PAGE_FLEET),
            Request::FirstPage { .. } => Some(PAGE_ONE),
            _ => None,
        }
    }

    /// `resourceVersion=0` where a little staleness is acceptable: a real API server answers
    /// such a LIST from its watch cache instead of a quorum read of etcd (the cache is
    /// typically milliseconds behind; the controller itself reads from informers). Sent on the
    /// fleet's LISTs and on one namespace's HPAs and events, not on LISTs that rely on `limit`
    /// to bound memory (one HPA's pods by selector, a first page): an API server may serve a
    /// `resourceVersion=0` LIST whole from its cache, ignoring `limit`.
    pub fn resource_version(&self) -> Option<&'static str> {
        if let Some(l) = self.optional_as_list() {
            return l.resource_version();
        }
        match self {
            // the metrics APIs have no watch cache
            Request::List {
                coll: Coll::PodMetrics,
                ..
            } => None,
            Request::List {
                coll: Coll::Hpas | Coll::Events,
                ..
            } => Some("0"),
            Request::List { .. } if self.page() == Some(PAGE_FLEET) => Some("0"),
            _ => None,
        }
    }

    /// An [`Request::Optional`] read as the LIST it sends.
    pub fn optional_as_list(&self) -> Option<Request> {
        match self {
            Request::Optional {
                coll,
                namespace,
                field_selector,
            } => Some(Request::List {
                coll: *coll,
                namespace: namespace.clone(),
                label_selector: String::new(),
                field_selector: field_selector.clone(),
            }),
            _ => None,
        }
    }

    fn list(coll: Coll, namespace: Option<&str>) -> Request {
        Request::List {
            coll,
            namespace: namespace.map(String::from),
            label_selector: String::new(),
            field_selector: String::new(),
        }
    }
}

/// What the plan reads from one HPA.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HpaNeeds {
    pub namespace: String,
    pub name: String,
    pub target_api_version: String,
    pub target_kind: String,
    pub target_name: String,
    /// Resource or ContainerResource metrics (or none: the default cpu metric).
    pub uses_resource: bool,
    pub metrics: Vec<MetricNeed>,
    /// The ScaledObject that generated the HPA, when KEDA manages it.
    pub keda_scaled_object: Option<String>,
}

/// A custom or external metric one `spec.metrics` entry reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MetricNeed {
    Pods {
        metric: String,
        metric_selector: String,
    },
    Object {
        api_version: String,
        kind: String,
        name: String,
        metric: String,
        metric_selector: String,
    },
    External {
        metric: String,
        selector: String,
    },
}

/// A label selector as the metrics APIs take it (empty when absent or invalid).
pub fn selector_string(s: Option<&LabelSelector>) -> String {
    s.and_then(|s| Selector::from_label_selector(s).ok())
        .map(|s| s.to_string())
        .unwrap_or_default()
}

impl HpaNeeds {
    pub fn of(h: &HorizontalPodAutoscaler) -> HpaNeeds {
        let r = &h.spec.scale_target_ref;
        let specs = h.spec.metrics.as_deref().unwrap_or_default();
        let metrics = specs
            .iter()
            .filter_map(|m| {
                if let Some(p) = &m.pods {
                    return Some(MetricNeed::Pods {
                        metric: p.metric.name.clone(),
                        metric_selector: selector_string(p.metric.selector.as_ref()),
                    });
                }
                if let Some(o) = &m.object {
                    let d = &o.described_object;
                    return Some(MetricNeed::Object {
                        api_version: d.api_version.clone().unwrap_or_default(),
                        kind: d.kind.clone(),
                        name: d.name.clone(),
                        metric: o.metric.name.clone(),
                        metric_selector: selector_string(o.metric.selector.as_ref()),
                    });
                }
                let e = m.external.as_ref()?;
                Some(MetricNeed::External {
                    metric: e.metric.name.clone(),
                    selector: selector_string(e.metric.selector.as_ref()),
                })
            })
            .collect();
        HpaNeeds {
            namespace: h
                .metadata
                .namespace
                .clone()
                .unwrap_or_else(|| "default".into()),
            name: h.metadata.name.clone().unwrap_or_default(),
            target_api_version: r.api_version.clone().unwrap_or_default(),
            target_kind: r.kind.clone(),
            target_name: r.name.clone(),
            uses_resource: specs.is_empty()
                || specs
                    .iter()
                    .any(|m| m.resource.is_some() || m.container_resource.is_some()),
            metrics,
            keda_scaled_object: crate::keda::owner::owner(h).map(|o| o.scaled_object),
        }
    }

    fn scale_request(&self) -> Request {
        Request::Scale {
            namespace: self.namespace.clone(),
            api_version: self.target_api_version.clone(),
            kind: self.target_kind.clone(),
            name: self.target_name.clone(),
        }
    }

    /// The requests of its Object and External metrics (and, for a fleet, Pods metrics of
    /// every pod: `pods_selector` `None`).
    fn metric_requests(&self, pods_selector: Option<&str>, out: &mut BTreeSet<Request>) {
        let ns = &self.namespace;
        for m in &self.metrics {
            match m {
                MetricNeed::Pods {
                    metric,
                    metric_selector,
                } => {
                    if let Some(sel) = pods_selector {
                        out.insert(Request::PodsMetric {
                            namespace: ns.clone(),
                            metric: metric.clone(),
                            label_selector: sel.to_string(),
                            metric_selector: metric_selector.clone(),
                        });
                    }
                }
                MetricNeed::Object {
                    api_version,
                    kind,
                    name,
                    metric,
                    metric_selector,
                } => {
                    out.insert(Request::ObjectMetric {
                        namespace: ns.clone(),
                        api_version: api_version.clone(),
                        kind: kind.clone(),
                        name: name.clone(),
                        metric: metric.clone(),
                        metric_selector: metric_selector.clone(),
                    });
                }
                MetricNeed::External { metric, selector } => {
                    out.insert(Request::ExternalMetric {
                        namespace: ns.clone(),
                        metric: metric.clone(),
                        label_selector: selector.clone(),
                    });
                }
            }
        }
    }
}

/// The first round: what depends on nothing.
pub fn first_round(scope: &Scope) -> Vec<Request> {
    let ns = scope.namespace();
    match scope {
        Scope::One { namespace, name } => vec![
            Request::list(Coll::Hpas, ns),
            Request::FirstPage {
                coll: Coll::Pods,
                namespace: namespace.clone(),
            },
            Request::list(Coll::PodMetrics, ns),
            Request::List {
                coll: Coll::Events,
                namespace: Some(namespace.clone()),
                label_selector: String::new(),
                field_selector: format!(
                    "involvedObject.kind=HorizontalPodAutoscaler,involvedObject.name={name},involvedObject.namespace={namespace}"
                ),
            },
            Request::Version,
            Request::ControllerManager,
            Request::Chain(super::chain_request::ChainRequest::ApiServices),
            Request::list(Coll::ScaledObjects, ns),
        ],
        Scope::Namespace(_) | Scope::All => vec![
            Request::list(Coll::Hpas, ns),
            Request::list(Coll::Pods, ns),
            Request::list(Coll::PodMetrics, ns),
            Request::list(Coll::Deployments, ns),
            Request::list(Coll::StatefulSets, ns),
            Request::list(Coll::ReplicaSets, ns),
            Request::Version,
            Request::ControllerManager,
            // The HPAs' SuccessfulRescale Events settle the controller's memory as for one HPA.
            Request::List {
                coll: Coll::Events,
                namespace: ns.map(String::from),
                label_selector: String::new(),
                field_selector: "involvedObject.kind=HorizontalPodAutoscaler".into(),
            },
            Request::Chain(super::chain_request::ChainRequest::ApiServices),
            Request::list(Coll::ScaledObjects, ns),
        ],
    }
}

/// The second round, from the HPAs the first round read: the targets' scales (for a fleet,
/// only those no workload LIST in `listed` holds) and the metrics, deduplicated.
pub fn second_round(scope: &Scope, hpas: &[HpaNeeds], listed: &BTreeSet<Coll>) -> Vec<Request> {
    let mut out = BTreeSet::new();
    match scope {
        Scope::One { namespace, name } => {
            let in_ns = hpas.iter().filter(|h| &h.namespace == namespace);
            // Every target of the namespace (the others' too, for AmbiguousSelector): apps/v1
            // workloads by GET when one is needed of a kind, else one LIST of the kind.
            let mut apps: BTreeMap<Coll, BTreeSet<&str>> = BTreeMap::new();
            for h in in_ns {
                match Coll::of_target(&h.target_api_version, &h.target_kind) {
                    Some(c) if !h.target_name.is_empty() => {
                        apps.entry(c).or_default().insert(&h.target_name);
                    }
                    Some(_) => {}
                    None if h.target_kind.is_empty() || h.target_name.is_empty() => {}
                    None => {
                        out.insert(h.scale_request());
                    }
                }
                if &h.name == name {
                    h.metric_requests(None, &mut out);
                }
            }
            for (coll, names) in apps {
                match names.into_iter().collect::<Vec<_>>().as_slice() {
                    [one] => out.insert(Request::Get {
                        coll,
                        namespace: namespace.clone(),
                        name: one.to_string(),
                    }),
                    _ => out.insert(Request::list(coll, Some(namespace))),
                };
            }
        }
        Scope::Namespace(_) | Scope::All => {
            for h in hpas {
                let coll = Coll::of_target(&h.target_api_version, &h.target_kind);
                if !coll.is_some_and(|c| listed.contains(&c)) && !h.target_name.is_empty() {
                    out.insert(h.scale_request());
                }
                h.metric_requests(Some(""), &mut out);
            }
        }
    }
    keda_events(scope, hpas, &mut out);
    out.into_iter().collect()
}

/// The Events of the ScaledObjects behind KEDA's HPAs, with the second round: for one HPA, its
/// ScaledObject's; for a fleet, one LIST of every ScaledObject's Events in the scope when any
/// HPA is KEDA's (so the count does not grow with the HPAs). None when no HPA is KEDA's.
fn keda_events(scope: &Scope, hpas: &[HpaNeeds], out: &mut BTreeSet<Request>) {
    let kind = "involvedObject.kind=ScaledObject";
    let field_selector = match scope {
        Scope::One { namespace, name } => {
            let Some(h) = hpas
                .iter()
                .find(|h| &h.namespace == namespace && &h.name == name)
            else {
                return;
            };
            let Some(so) = &h.keda_scaled_object else {
                return;
            };
            format!("{kind},involvedObject.name={so},involvedObject.namespace={namespace}")
        }
        _ if hpas.iter().any(|h| h.keda_scaled_object.is_some()) => kind.to_string(),
        _ => return,
    };
    out.insert(Request::List {
        coll: Coll::Events,
        namespace: scope.namespace().map(String::from),
        label_selector: String::new(),
        field_selector,
    });
}

/// The third round of one HPA: what its target's selector picks (`have_pods`: the first
/// round's page held every pod of the namespace, so its pods and PodMetrics are not listed).
pub fn third_round(hpa: &HpaNeeds, selector: &str, have_pods: bool) -> Vec<Request> {
    let ns = Some(hpa.namespace.as_str());
    let by_selector = |coll| Request::List {
        coll,
        namespace: ns.map(String::from),
        label_selector: selector.to_string(),
        field_selector: String::new(),
    };
    let mut out = BTreeSet::new();
    if !have_pods {
        out.insert(by_selector(Coll::Pods));
        if hpa.uses_resource {
            out.insert(by_selector(Coll::PodMetrics));
        }
    }
    for m in &hpa.metrics {
        if let MetricNeed::Pods {
            metric,
            metric_selector,
        } = m
        {
            out.insert(Request::PodsMetric {
                namespace: hpa.namespace.clone(),
                metric: metric.clone(),
                label_selector: selector.to_string(),
                metric_selector: metric_selector.clone(),
            });
        }
    }
    out.into_iter().collect()
}

/// The Events of what stops the replicas, in two LISTs (a field selector ANDs its terms, so the
/// Warnings and the Normal Events of a few reasons cannot be one): the Warnings of every object
/// but the HPAs (whose Events the first round reads) — the scheduler's `FailedScheduling`, a
/// ReplicaSet's `FailedCreate` — and the Normal Events of pods but the kubelet's and the
/// scheduler's everyday ones, of which the assembly keeps the node autoscalers'
/// ([`NODE_AUTOSCALER_REASONS`]). An Event another LIST also returns (a ScaledObject's, read
/// beside a KEDA HPA) is kept once: the assembly keeps one object per identity.
pub const BLOCKER_EVENT_SELECTORS: [&str; 2] = [
    "involvedObject.kind!=HorizontalPodAutoscaler,type=Warning",
    "involvedObject.kind=Pod,type=Normal,reason!=Scheduled,reason!=Pulling,reason!=Pulled,reason!=Created,reason!=Started,reason!=Killing",
];

/// The Normal Events the node autoscalers write on a pending pod: the cluster-autoscaler's
/// `TriggeredScaleUp` and `NotTriggerScaleUp`, Karpenter's `Nominated`.
pub const NODE_AUTOSCALER_REASONS: [&str; 3] =
    ["TriggeredScaleUp", "NotTriggerScaleUp", "Nominated"];

/// The optional reads of what stops the replicas or fights over them, for the scope's
/// namespace (every namespace for `-A`): ResourceQuotas, LimitRanges, PodDisruptionBudgets,
/// VerticalPodAutoscalers and the Events of [`BLOCKER_EVENT_SELECTORS`]. Sent with the second
/// round (no round of their own); as many for 500 HPAs as for one.
pub fn blocker_reads(scope: &Scope) -> Vec<Request> {
    let namespace = scope.namespace().map(String::from);
    let whole = |coll| Request::Optional {
        coll,
        namespace: namespace.clone(),
        field_selector: String::new(),
    };
    let mut out = vec![
        whole(Coll::ResourceQuotas),
        whole(Coll::LimitRanges),
        whole(Coll::PodDisruptionBudgets),
        whole(Coll::VerticalPodAutoscalers),
    ];
    out.extend(BLOCKER_EVENT_SELECTORS.iter().map(|f| Request::Optional {
        coll: Coll::Events,
        namespace: namespace.clone(),
        field_selector: f.to_string(),
    }));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn hpa(
        ns: &str,
        name: &str,
        target: (&str, &str, &str),
        metrics: serde_json::Value,
    ) -> HpaNeeds {
        let h: HorizontalPodAutoscaler = serde_json::from_value(json!({
            "metadata": {"name": name, "namespace": ns},
            "spec": {"maxReplicas": 5, "metrics": metrics,
                     "scaleTargetRef": {"apiVersion": target.0, "kind": target.1, "name": target.2}}
        }))
        .expect("HPA");
        HpaNeeds::of(&h)
    }

    fn external(metric: &str, target: serde_json::Value) -> serde_json::Value {
        json!({"type": "External", "external": {"metric": {"name": metric,
            "selector": {"matchLabels": {"queue": "orders"}}}, "target": target}})
    }

    fn show(reqs: &[Request]) -> Vec<String> {
        reqs.iter()
            .map(|r| match r {
                Request::Version => "version".to_string(),
                Request::ControllerManager => format!(
                    "list /api/v1/namespaces/kube-system/pods {CONTROLLER_MANAGER_SELECTOR} (optional)"
                ),
                Request::Optional {
                    coll,
                    namespace,
                    field_selector,
                } => format!(
                    "list {} {field_selector} page={:?}{} (optional)",
                    coll.path(namespace.as_deref()),
                    r.page(),
                    r.resource_version()
                        .map_or(String::new(), |v| format!(" rv={v}"))
                ),
                Request::List {
                    coll,
                    namespace,
                    label_selector,
                    field_selector,
                } => format!(
                    "list {} {label_selector}{field_selector} page={:?}{}",
                    coll.path(namespace.as_deref()),
                    r.page(),
                    r.resource_version()
                        .map_or(String::new(), |v| format!(" rv={v}"))
                ),
                Request::Get {
                    coll,
                    namespace,
                    name,
                } => {
                    format!("get {}/{name}", coll.path(Some(namespace)))
                }
                Request::FirstPage { coll, namespace } => {
                    format!(
                        "first-page {} page={:?}",
                        coll.path(Some(namespace)),
                        r.page()
                    )
                }
                Request::Scale {
                    namespace,
                    api_version,
                    kind,
                    name,
                } => {
                    format!("scale {api_version} {kind} {namespace}/{name}")
                }
                Request::PodsMetric {
                    namespace,
                    metric,
                    label_selector,
                    ..
                } => {
                    format!("pods-metric {namespace} {metric} [{label_selector}]")
                }
                Request::ObjectMetric {
                    namespace,
                    kind,
                    name,
                    metric,
                    ..
                } => {
                    format!("object-metric {namespace} {kind}/{name} {metric}")
                }
                Request::ExternalMetric {
                    namespace,
                    metric,
                    label_selector,
                } => {
                    format!("external-metric {namespace} {metric} [{label_selector}]")
                }
                Request::Chain(c) => c.show(),
            })
            .collect()
    }

    fn one() -> Scope {
        Scope::One {
            namespace: "shop".into(),
            name: "web".into(),
        }
    }

    #[test]
    fn one_hpa_first_round_depends_on_nothing() {
        assert_eq!(
            show(&first_round(&one())),
            [
                "list /apis/autoscaling/v2/namespaces/shop/horizontalpodautoscalers  page=Some(500) rv=0",
                "first-page /api/v1/namespaces/shop/pods page=Some(500)",
                "list /apis/metrics.k8s.io/v1beta1/namespaces/shop/pods  page=None",
                "list /api/v1/namespaces/shop/events involvedObject.kind=HorizontalPodAutoscaler,involvedObject.name=web,involvedObject.namespace=shop page=None rv=0",
                "version",
                "list /api/v1/namespaces/kube-system/pods component=kube-controller-manager (optional)",
                "list /apis/apiregistration.k8s.io/v1/apiservices (optional)",
                "list /apis/keda.sh/v1alpha1/namespaces/shop/scaledobjects  page=Some(5000) rv=0",
            ]
        );
    }

    #[test]
    fn one_hpa_reads_its_target_and_each_distinct_metric_once() {
        let web = hpa(
            "shop",
            "web",
            ("apps/v1", "Deployment", "web"),
            json!([
                external("queue_depth", json!({"type": "Value", "value": "10"})),
                external("queue_depth", json!({"type": "AverageValue", "averageValue": "4"})),
                {"type": "Pods", "pods": {"metric": {"name": "rps"}, "target": {"type": "AverageValue", "averageValue": "1"}}},
                {"type": "Object", "object": {"metric": {"name": "hits"},
                    "describedObject": {"apiVersion": "networking.k8s.io/v1", "kind": "Ingress", "name": "front"},
                    "target": {"type": "Value", "value": "1"}}},
            ]),
        );
        let second = second_round(&one(), std::slice::from_ref(&web), &BTreeSet::new());
        assert_eq!(
            show(&second),
            [
                "get /apis/apps/v1/namespaces/shop/deployments/web",
                "object-metric shop Ingress/front hits",
                "external-metric shop queue_depth [queue=orders]",
            ]
        );
        assert_eq!(
            show(&third_round(&web, "app=web", false)),
            [
                "list /api/v1/namespaces/shop/pods app=web page=Some(500)",
                "pods-metric shop rps [app=web]",
            ]
        );
        // The first round's page held the whole namespace: its pods are not listed again.
        assert_eq!(
            show(&third_round(&web, "app=web", true)),
            ["pods-metric shop rps [app=web]"]
        );
    }

    #[test]
    fn one_hpa_lists_a_kind_the_namespace_targets_several_times() {
        let hpas = [
            hpa("shop", "web", ("apps/v1", "Deployment", "web"), json!([])),
            hpa("shop", "api", ("apps/v1", "Deployment", "api"), json!([])),
            hpa(
                "shop",
                "db",
                ("apps/v1beta2", "StatefulSet", "db"),
                json!([]),
            ),
            hpa(
                "shop",
                "canary",
                ("argoproj.io/v1alpha1", "Rollout", "canary"),
                json!([]),
            ),
            hpa("other", "x", ("apps/v1", "Deployment", "x"), json!([])),
        ];
        assert_eq!(
            show(&second_round(&one(), &hpas, &BTreeSet::new())),
            [
                "list /apis/apps/v1/namespaces/shop/deployments  page=Some(5000) rv=0",
                "get /apis/apps/v1/namespaces/shop/statefulsets/db",
                "scale argoproj.io/v1alpha1 Rollout shop/canary",
            ]
        );
        // The default metric (cpu) needs PodMetrics.
        assert_eq!(
            show(&third_round(&hpas[0], "app=web", false)),
            [
                "list /api/v1/namespaces/shop/pods app=web page=Some(500)",
                "list /apis/metrics.k8s.io/v1beta1/namespaces/shop/pods app=web page=None",
            ]
        );
    }

    #[test]
    fn a_namespace_and_all_namespaces_list_everything_in_the_first_round() {
        let ns = show(&first_round(&Scope::Namespace("shop".into())));
        assert_eq!(
            ns,
            [
                "list /apis/autoscaling/v2/namespaces/shop/horizontalpodautoscalers  page=Some(500) rv=0",
                "list /api/v1/namespaces/shop/pods  page=Some(5000) rv=0",
                "list /apis/metrics.k8s.io/v1beta1/namespaces/shop/pods  page=None",
                "list /apis/apps/v1/namespaces/shop/deployments  page=Some(5000) rv=0",
                "list /apis/apps/v1/namespaces/shop/statefulsets  page=Some(5000) rv=0",
                "list /apis/apps/v1/namespaces/shop/replicasets  page=Some(5000) rv=0",
                "version",
                "list /api/v1/namespaces/kube-system/pods component=kube-controller-manager (optional)",
                "list /api/v1/namespaces/shop/events involvedObject.kind=HorizontalPodAutoscaler page=None rv=0",
                "list /apis/apiregistration.k8s.io/v1/apiservices (optional)",
                "list /apis/keda.sh/v1alpha1/namespaces/shop/scaledobjects  page=Some(5000) rv=0",
            ]
        );
        let all = show(&first_round(&Scope::All));
        assert_eq!(
            all[0],
            "list /apis/autoscaling/v2/horizontalpodautoscalers  page=Some(5000) rv=0"
        );
        assert_eq!(all[1], "list /api/v1/pods  page=Some(5000) rv=0");
        assert_eq!(
            all[8],
            "list /api/v1/events involvedObject.kind=HorizontalPodAutoscaler page=None rv=0"
        );
        assert_eq!(
            all[9],
            "list /apis/apiregistration.k8s.io/v1/apiservices (optional)"
        );
        assert_eq!(
            all[10],
            "list /apis/keda.sh/v1alpha1/scaledobjects  page=Some(5000) rv=0"
        );
        assert_eq!(all.len(), 11);
    }

    #[test]
    fn a_fleet_asks_each_distinct_metric_once_and_scales_only_what_no_list_holds() {
        let q = json!([external(
            "queue_depth",
            json!({"type": "Value", "value": "10"})
        )]);
        let hpas = [
            hpa("a", "one", ("apps/v1", "Deployment", "one"), q.clone()),
            hpa("a", "two", ("apps/v1", "Deployment", "two"), q.clone()),
            hpa("b", "three", ("apps/v1", "StatefulSet", "three"), q),
            hpa(
                "b",
                "four",
                ("argoproj.io/v1alpha1", "Rollout", "four"),
                json!([
                {"type": "Pods", "pods": {"metric": {"name": "rps"}, "target": {"type": "AverageValue", "averageValue": "1"}}}]),
            ),
        ];
        let listed = BTreeSet::from([Coll::Deployments, Coll::ReplicaSets]);
        assert_eq!(
            show(&second_round(&Scope::All, &hpas, &listed)),
            [
                "scale apps/v1 StatefulSet b/three",
                "scale argoproj.io/v1alpha1 Rollout b/four",
                "pods-metric b rps []",
                "external-metric a queue_depth [queue=orders]",
                "external-metric b queue_depth [queue=orders]",
            ]
        );
        // The request count does not grow with the HPAs reading the same things.
        let many: Vec<HpaNeeds> = (0..50)
            .map(|i| {
                hpa(
                    "a",
                    &format!("h{i}"),
                    ("apps/v1", "Deployment", "d"),
                    json!([]),
                )
            })
            .collect();
        assert!(second_round(&Scope::All, &many, &listed).is_empty());
    }

    #[test]
    fn the_blocker_reads_are_one_namespace_or_the_whole_cluster_whatever_the_hpas() {
        assert_eq!(
            show(&blocker_reads(&one())),
            [
                "list /api/v1/namespaces/shop/resourcequotas  page=Some(5000) rv=0 (optional)",
                "list /api/v1/namespaces/shop/limitranges  page=Some(5000) rv=0 (optional)",
                "list /apis/policy/v1/namespaces/shop/poddisruptionbudgets  page=Some(5000) rv=0 (optional)",
                "list /apis/autoscaling.k8s.io/v1/namespaces/shop/verticalpodautoscalers  page=Some(5000) rv=0 (optional)",
                "list /api/v1/namespaces/shop/events involvedObject.kind!=HorizontalPodAutoscaler,type=Warning page=None rv=0 (optional)",
                "list /api/v1/namespaces/shop/events involvedObject.kind=Pod,type=Normal,reason!=Scheduled,reason!=Pulling,reason!=Pulled,reason!=Created,reason!=Started,reason!=Killing page=None rv=0 (optional)",
            ]
        );
        let all = show(&blocker_reads(&Scope::All));
        assert_eq!(
            all[0],
            "list /api/v1/resourcequotas  page=Some(5000) rv=0 (optional)"
        );
        assert_eq!(
            all[5],
            "list /api/v1/events involvedObject.kind=Pod,type=Normal,reason!=Scheduled,reason!=Pulling,reason!=Pulled,reason!=Created,reason!=Started,reason!=Killing page=None rv=0 (optional)"
        );
        assert_eq!(all.len(), 6);
    }

    fn keda(ns: &str, name: &str, so: &str) -> HpaNeeds {
        let h: HorizontalPodAutoscaler = serde_json::from_value(json!({
            "metadata": {"name": name, "namespace": ns, "ownerReferences": [{"apiVersion": "keda.sh/v1alpha1",
                "kind": "ScaledObject", "name": so, "uid": "u", "controller": true}]},
            "spec": {"maxReplicas": 5, "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": so},
                "metrics": [{"type": "External", "external": {"metric": {"name": "s0-prometheus",
                    "selector": {"matchLabels": {"scaledobject.keda.sh/name": so}}},
                    "target": {"type": "AverageValue", "averageValue": "10"}}}]}
        }))
        .expect("HPA");
        HpaNeeds::of(&h)
    }

    #[test]
    fn keda_s_hpa_adds_its_scaled_object_s_events_and_a_fleet_one_list() {
        let scope = Scope::One {
            namespace: "shop".into(),
            name: "keda-hpa-orders".into(),
        };
        let hpas = [keda("shop", "keda-hpa-orders", "orders")];
        assert_eq!(hpas[0].keda_scaled_object.as_deref(), Some("orders"));
        assert_eq!(
            show(&second_round(&scope, &hpas, &BTreeSet::new())),
            [
                "list /api/v1/namespaces/shop/events involvedObject.kind=ScaledObject,involvedObject.name=orders,involvedObject.namespace=shop page=None rv=0",
                "get /apis/apps/v1/namespaces/shop/deployments/orders",
                "external-metric shop s0-prometheus [scaledobject.keda.sh/name=orders]",
            ]
        );
        // Not KEDA's: no ScaledObject events.
        let plain = [hpa(
            "shop",
            "web",
            ("apps/v1", "Deployment", "web"),
            json!([]),
        )];
        assert!(!show(&second_round(&one(), &plain, &BTreeSet::new()))
            .iter()
            .any(|r| r.contains("ScaledObject")));
        // A fleet: one LIST whatever the number of KEDA HPAs, none without one.
        let listed = BTreeSet::from([Coll::Deployments]);
        let many: Vec<HpaNeeds> = (0..30)
            .map(|i| keda("a", &format!("keda-hpa-s{i}"), &format!("s{i}")))
            .collect();
        let events: Vec<String> = show(&second_round(&Scope::All, &many, &listed))
            .into_iter()
            .filter(|r| r.contains("events"))
            .collect();
        assert_eq!(
            events,
            ["list /api/v1/events involvedObject.kind=ScaledObject page=None rv=0"]
        );
        assert!(second_round(&Scope::All, &plain, &listed).is_empty());
    }
}
