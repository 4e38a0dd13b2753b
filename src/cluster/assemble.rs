//! Pure assembly of a fetch's answers into `v1 List`s, one per namespace — the format
//! `kubectl hpa snapshot` writes and [`crate::snapshot::Snapshot`] reads. Nothing here sends a
//! request. Failed metric calls are recorded in the List's fetch-errors annotation worded as the
//! controller's metrics client words them; a target that cannot be read is recorded per HPA
//! (`scale/<namespace>/<name>`), with `scale-not-found/...` when the server said it does not
//! exist.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;
use serde_json::Value;

use super::answers::{answer_for_target, Answers, Body, Negotiated, Target, Workloads};
use super::failure::{ApiFailure, Failure, FetchError, Unmapped};
use super::obj::{self, Obj};
use super::plan::{Coll, HpaNeeds, Request, Scope, NODE_AUTOSCALER_REASONS};
use crate::snapshot::ListItem;
use crate::snapshot::{
    external_metric_key, object_metric_key, pods_metric_key, scale_error_key, scale_not_found_key,
    FETCH_ERRORS_ANNOTATION, OWN_FAILURES_ANNOTATION, TAKEN_AT_ANNOTATION,
};

pub use crate::snapshot::{SERVER_VERSION_ANNOTATION, SOURCE_ANNOTATION};

/// Where and when the answers were read, for the annotations.
pub struct Origin {
    /// `cluster CONTEXT (SERVER)`.
    pub source: String,
    pub taken_at: String,
    /// `namespace/name` of the one HPA a fetch was for (`snapshot NAME`, `explain NAME`).
    pub taken_for: Option<String>,
}

/// The Lists of a fetch and what could not be read besides metrics.
#[derive(Debug, Default)]
pub struct Assembled {
    /// One List per namespace with HPAs in the scope, namespaces in order, not yet closed:
    /// what the controller would meet too can still be told apart ([`NsList::not_ours`]).
    pub lists: Vec<(String, NsList)>,
    pub notes: Vec<String>,
    pub server_version: Option<String>,
    /// Whether the PodMetrics LIST failed while some HPA reads resource metrics.
    pub resource_metrics_failed: bool,
    /// The resource metrics API version discovery offered (see [`Negotiated`]).
    pub resource_metrics: Option<Negotiated>,
    /// The metrics APIServices the metrics chain's LIST returned (`None`: it failed).
    pub apiservices: Option<Vec<Value>>,
}

/// One namespace's List under construction.
#[derive(Debug, Default)]
pub struct NsList {
    items: Vec<Entry>,
    errors: BTreeMap<String, String>,
    /// The errors (by key) that are our own failures, not the controller's (see
    /// [`FetchError::own_failure`]), in a few words.
    own: BTreeMap<String, String>,
    /// Where the List of each metric (by fetch-errors key) is in `items`.
    metric_at: BTreeMap<String, usize>,
}

/// An item of a List: an object, or the List of a metric's values.
#[derive(Debug)]
enum Entry {
    Object(Obj),
    Metric(MetricList),
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct MetricList {
    api_version: &'static str,
    kind: &'static str,
    metadata: BTreeMap<String, String>,
    items: Vec<Obj>,
}

impl NsList {
    /// The fetch-errors keys marked as our own failures.
    pub fn own_failure_keys(&self) -> impl Iterator<Item = &String> {
        self.own.keys()
    }

    /// The failure under `key` is one the controller meets too (the metrics APIService is
    /// not available): no longer marked as ours.
    pub fn not_ours(&mut self, key: &str) {
        self.own.remove(key);
    }

    /// An object the List gains after the fetch (the APIService that explains a failure),
    /// unless the List holds it already (the metrics chain read every APIService).
    pub fn push(&mut self, v: &Value) {
        self.push_new(&obj::of_value(v));
    }

    /// Add an object unless the List holds one of its kind, namespace and name.
    pub(super) fn push_new(&mut self, o: &Obj) {
        let id = |o: &Obj| {
            let v: Value = serde_json::from_str(o.get()).unwrap_or_default();
            let s = |p: &str| {
                v.pointer(p)
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_string()
            };
            (s("/kind"), s("/metadata/namespace"), s("/metadata/name"))
        };
        let new = id(o);
        let held = self.items.iter().any(|e| match e {
            Entry::Object(x) => id(x) == new,
            Entry::Metric(_) => false,
        });
        if !held {
            self.items.push(Entry::Object(o.clone()));
        }
    }

    /// Drop an object whose identity (apiVersion group, kind, namespace, name) an earlier
    /// item of the List has, as `Snapshot::drop_replaced` does for merged files.
    fn keep_one_per_identity(&mut self) {
        let mut seen = std::collections::HashSet::new();
        self.items.retain(|e| match e {
            Entry::Object(o) => obj::identity(o).is_none_or(|id| seen.insert(id)),
            Entry::Metric(_) => true,
        });
    }

    /// The first object of the List (the HPA a one-HPA List is about).
    pub fn first_object(&self) -> Option<&Obj> {
        self.items.iter().find_map(|e| match e {
            Entry::Object(o) => Some(o),
            Entry::Metric(_) => None,
        })
    }
}

fn metric_list(api_version: &'static str, kind: &'static str, items: Vec<Obj>) -> Entry {
    Entry::Metric(MetricList {
        api_version,
        kind,
        metadata: BTreeMap::new(),
        items,
    })
}

/// A note for a denied (401/403) request: names the verb and the resource.
fn denied_note(e: &FetchError, what: &str) -> Option<String> {
    let f = e.api()?;
    matches!(f.code(), Some(401 | 403)).then(|| {
        format!(
            "{} was denied ({}): {what} cannot be read with these credentials, so the controller's view (it uses its own service account) may differ; ask for `{}` on this resource",
            f.request(),
            if f.code() == Some(401) { "401 Unauthorized" } else { "403 Forbidden" },
            f.verb
        )
    })
}

/// Record why each HPA's target cannot be read (the controller's FailedGetScale text).
fn target_errors(answers: &Answers, hpas: &[HpaNeeds], by_ns: &mut BTreeMap<String, NsList>) {
    let index = Workloads::of(answers);
    for h in hpas {
        let Some(l) = by_ns.get_mut(&h.namespace) else {
            continue;
        };
        let (text, not_found) = match answer_for_target(answers, &index, h) {
            None | Some(Ok(Target::Found(_) | Target::Listed(_))) => continue,
            Some(Ok(Target::Absent(coll))) => (
                format!("{} {:?} not found", coll.describe().3, h.target_name),
                true,
            ),
            Some(Err(e)) => (
                e.client_go_text(),
                match e {
                    FetchError::Api(f) => f.code() == Some(404),
                    FetchError::Unmapped(u) => matches!(u, Unmapped::NoKindMatch { .. }),
                },
            ),
        };
        if not_found {
            l.errors.insert(
                scale_not_found_key(&h.namespace, &h.name),
                format!("{} {}/{}", h.target_kind, h.namespace, h.target_name),
            );
        }
        let key = scale_error_key(&h.namespace, &h.name);
        if let Some(own) = answer_for_target(answers, &index, h)
            .and_then(|a| a.err())
            .and_then(FetchError::own_failure)
        {
            l.own.insert(key.clone(), own);
        }
        l.errors.insert(key, text);
    }
}

/// Items of a LIST answer (a GET's object as one item); `None` when it is not there,
/// `Some(Err)` when it failed.
fn take_items(answers: &mut Answers, r: &Request) -> Option<Result<Vec<Obj>, FetchError>> {
    match answers.map.remove(r)? {
        Ok(Body::Items(i)) => Some(Ok(i)),
        Ok(Body::Object(o)) => Some(Ok(vec![obj::of_value(&o)])),
        Ok(Body::MoreThanAPage) => None,
        Err(e) => Some(Err(e)),
    }
}

fn push_by_ns(
    by_ns: &mut BTreeMap<String, NsList>,
    items: Vec<Obj>,
    keep: impl Fn(&obj::Head) -> bool,
) {
    for o in items {
        let h = obj::place(&o);
        if !keep(&h) {
            continue;
        }
        if let Some(l) = by_ns.get_mut(&h.namespace) {
            l.items.push(Entry::Object(o));
        }
    }
}

/// Assemble the answers of `scope` into Lists (consumes the answers: nothing is copied).
pub fn assemble(
    scope: &Scope,
    hpas: &[HpaNeeds],
    mut answers: Answers,
) -> Result<Assembled, FetchError> {
    let mut out = Assembled {
        resource_metrics: answers.resource_metrics,
        ..Assembled::default()
    };
    let mut by_ns: BTreeMap<String, NsList> = BTreeMap::new();
    for h in hpas {
        if scope.namespace().is_none_or(|ns| ns == h.namespace) {
            by_ns.entry(h.namespace.clone()).or_default();
        }
    }
    target_errors(&answers, hpas, &mut by_ns);
    let uses_resource = hpas.iter().any(|h| match scope {
        Scope::One { name, .. } => &h.name == name && h.uses_resource,
        _ => h.uses_resource,
    });
    let chain = super::chain::take(&mut answers);
    let requests: Vec<Request> = answers.map.keys().cloned().collect();
    for r in requests {
        add_answer(
            scope,
            hpas,
            &r,
            &mut answers,
            &mut by_ns,
            &mut out,
            uses_resource,
        )?;
    }
    // The metrics chain's objects join every List; its failures are notes.
    for l in by_ns.values_mut() {
        chain.objects.iter().for_each(|o| l.push_new(o));
        l.errors.extend(chain.errors.iter().cloned());
    }
    out.notes.extend(chain.notes);
    out.apiservices = chain.listed;
    // Two LISTs may return one object (an Event a ScaledObject's LIST and a Warnings' LIST
    // both select): the List holds it once.
    by_ns.values_mut().for_each(NsList::keep_one_per_identity);
    out.lists = by_ns.into_iter().collect();
    Ok(out)
}

/// Move one answer into its namespace's List.
fn add_answer(
    scope: &Scope,
    hpas: &[HpaNeeds],
    r: &Request,
    answers: &mut Answers,
    by_ns: &mut BTreeMap<String, NsList>,
    out: &mut Assembled,
    uses_resource: bool,
) -> Result<(), FetchError> {
    if r == &Request::Version {
        match answers.map.remove(r) {
            Some(Ok(Body::Object(v))) => {
                out.server_version = v["gitVersion"].as_str().map(String::from)
            }
            Some(Err(e)) => out.notes.push(format!(
                "the server version could not be read: {}",
                e.client_go_text()
            )),
            _ => {}
        }
        return Ok(());
    }
    let Some(got) = take_items(answers, r) else {
        return Ok(());
    };
    match r {
        Request::Version => {}
        Request::ControllerManager => controller_manager(got, by_ns, &mut out.notes),
        Request::List { coll, .. } => add_list(scope, hpas, *coll, got, by_ns, out, uses_resource)?,
        Request::FirstPage { .. } => {} // settled by the fetch (see `fetch::fetch`)
        Request::Get { .. } | Request::Scale { .. } => {
            if let Ok(v) = got {
                push_by_ns(by_ns, v, |_| true);
            }
        }
        Request::PodsMetric {
            namespace, metric, ..
        } => add_metric(
            by_ns,
            namespace,
            got,
            ("custom.metrics.k8s.io/v1beta2", "MetricValueList"),
            pods_metric_key(metric),
            "custom",
            &mut out.notes,
            &format!("pods metric {metric}"),
        ),
        Request::ObjectMetric {
            namespace,
            kind,
            name,
            metric,
            ..
        } => add_metric(
            by_ns,
            namespace,
            got,
            ("custom.metrics.k8s.io/v1beta2", "MetricValueList"),
            object_metric_key(kind, name, metric),
            "custom",
            &mut out.notes,
            &format!("object metric {metric}"),
        ),
        Request::ExternalMetric {
            namespace, metric, ..
        } => add_metric(
            by_ns,
            namespace,
            got,
            ("external.metrics.k8s.io/v1beta1", "ExternalMetricValueList"),
            external_metric_key(metric),
            "external",
            &mut out.notes,
            &format!("external metric {metric}"),
        ),
        Request::Chain(_) => {} // taken out before (see `super::chain::take`)
        Request::Optional { coll, .. } => optional(*coll, got, by_ns, &mut out.notes),
    }
    Ok(())
}

/// An optional read of what stops the replicas: its items into their namespaces' Lists. Not
/// served (404: no VerticalPodAutoscaler CRD, a server without the kind) is nothing to read;
/// any other failure is a note naming the verb it needs, never the fetch's failure.
fn optional(
    coll: Coll,
    got: Result<Vec<Obj>, FetchError>,
    by_ns: &mut BTreeMap<String, NsList>,
    notes: &mut Vec<String>,
) {
    match got {
        // Of the Events, the Warnings and the node autoscalers' Normal ones (see
        // `BLOCKER_EVENT_SELECTORS`: the server cannot select these alone).
        Ok(items) if coll == Coll::Events => {
            let kept = items
                .into_iter()
                .filter(|o| obj::warning_or_reason(o, &NODE_AUTOSCALER_REASONS))
                .collect();
            push_by_ns(by_ns, kept, |_| true)
        }
        Ok(items) => push_by_ns(by_ns, items, |_| true),
        Err(e) if e.api().and_then(|f| f.code()) == Some(404) => {}
        Err(e) => {
            let (_, plural, kind, resource) = coll.describe();
            let f = e.api();
            notes.push(format!(
                "{} failed ({}): what {plural} say about this HPA's replicas is not shown; reading them needs `{}` on {resource}",
                f.map(|f| f.request()).unwrap_or_else(|| format!("the {kind} list")),
                e.client_go_text(),
                f.map_or("list", |f| f.verb),
            ));
        }
    }
}

/// The kube-controller-manager Pod (its HPA flags) joins every List; a failed read is a note
/// (the flags are then the defaults or the command line's), never the fetch's failure.
fn controller_manager(
    got: Result<Vec<Obj>, FetchError>,
    by_ns: &mut BTreeMap<String, NsList>,
    notes: &mut Vec<String>,
) {
    match got {
        Ok(pods) => {
            for l in by_ns.values_mut() {
                l.items.extend(pods.iter().cloned().map(Entry::Object));
            }
        }
        Err(e) => notes.push(format!(
            "the kube-controller-manager pod could not be read ({}: {}): the controller's flags are assumed to be the defaults or the ones given; reading them needs `list` on pods in kube-system",
            e.api().map(|f| f.request()).unwrap_or_default(),
            e.client_go_text()
        )),
    }
}

/// A metrics answer: its items into the namespace's List, merged with an earlier List of the
/// same metric without duplicating items; a failure under its fetch-errors key.
#[allow(clippy::too_many_arguments)]
fn add_metric(
    by_ns: &mut BTreeMap<String, NsList>,
    ns: &str,
    got: Result<Vec<Obj>, FetchError>,
    (api_version, kind): (&'static str, &'static str),
    key: String,
    api: &str,
    notes: &mut Vec<String>,
    what: &str,
) {
    let Some(l) = by_ns.get_mut(ns) else {
        return;
    };
    match got {
        Ok(items) => {
            // Another request read the same metric (another selector): one List, no copies.
            let at = l.metric_at.get(&key).copied();
            match at.and_then(|i| match l.items.get_mut(i) {
                Some(Entry::Metric(m)) => Some(&mut m.items),
                _ => None,
            }) {
                Some(have) => {
                    for v in items {
                        if !have.iter().any(|h| h.get() == v.get()) {
                            have.push(v);
                        }
                    }
                }
                None => {
                    l.metric_at.insert(key, l.items.len());
                    l.items.push(metric_list(api_version, kind, items));
                }
            }
        }
        Err(e) => {
            notes.extend(denied_note(&e, what));
            if let Some(own) = e.own_failure() {
                l.own.insert(key.clone(), own);
            }
            l.errors.insert(
                key,
                format!(
                    "unable to fetch metrics from {api} metrics API: {}",
                    e.client_go_text()
                ),
            );
        }
    }
}

/// Whether the server's release negotiates the resource metrics API version (1.37+,
/// `NewVersionedPodMetricsGetter`); before, the controller reads `metrics.k8s.io/v1beta1` only.
pub(super) fn negotiates(out: &Assembled) -> bool {
    out.server_version
        .as_deref()
        .and_then(crate::core::settings::parse_major_minor)
        .is_some_and(|(major, minor)| major > 1 || minor >= 37)
}

/// What a controller before 1.37 meets on a server that serves PodMetrics only as v1: its
/// v1beta1 LIST's 404 (as client-go words a 404 without a `Status`).
fn v1beta1_not_served(server: &str) -> FetchError {
    FetchError::from_api(ApiFailure {
        verb: "list",
        resource: "pods.metrics.k8s.io".into(),
        object: String::new(),
        server: server.into(),
        attempts: 1,
        failure: Failure::Status {
            code: 404,
            reason: "NotFound".into(),
            message: String::new(),
            parsed: false,
        },
    })
}

/// The PodMetrics LIST failed: every List records it, with an empty PodMetricsList.
fn resource_metrics_failed(
    e: &FetchError,
    by_ns: &mut BTreeMap<String, NsList>,
    out: &mut Assembled,
    uses_resource: bool,
) {
    if uses_resource {
        out.notes
            .extend(denied_note(e, "resource metrics (cpu, memory)"));
        out.resource_metrics_failed = true;
    }
    // From 1.37 the controller's resource metrics client negotiates the version by
    // discovery and fails with its own text when none fits; before, the v1beta1 LIST's error.
    let text = match (negotiates(out), out.resource_metrics) {
        (true, Some(Negotiated::NotRegistered)) => {
            "no resource metrics API (metrics.k8s.io) registered".into()
        }
        (true, Some(Negotiated::NoKnownVersion)) => {
            "no known available resource metrics API versions found".into()
        }
        _ => e.client_go_text(),
    };
    for l in by_ns.values_mut() {
        if let Some(own) = e.own_failure() {
            l.own.insert("resource-metrics".into(), own);
        }
        l.errors.insert(
            "resource-metrics".into(),
            format!("unable to fetch metrics from resource metrics API: {text}"),
        );
        l.items.push(metric_list(
            "metrics.k8s.io/v1beta1",
            "PodMetricsList",
            vec![],
        ));
    }
}

/// A LIST answer: HPAs, workloads, pods, PodMetrics or events.
fn add_list(
    scope: &Scope,
    hpas: &[HpaNeeds],
    coll: Coll,
    got: Result<Vec<Obj>, FetchError>,
    by_ns: &mut BTreeMap<String, NsList>,
    out: &mut Assembled,
    uses_resource: bool,
) -> Result<(), FetchError> {
    let items = match (coll, got) {
        (Coll::PodMetrics, _)
            if out.resource_metrics == Some(Negotiated::V1 { v1beta1_too: false })
                && out.server_version.is_some()
                && !negotiates(out) =>
        {
            resource_metrics_failed(&v1beta1_not_served(""), by_ns, out, uses_resource);
            return Ok(());
        }
        (_, Ok(items)) => items,
        (Coll::Hpas | Coll::Pods, Err(e)) => return Err(e),
        (Coll::PodMetrics, Err(e)) => {
            resource_metrics_failed(&e, by_ns, out, uses_resource);
            return Ok(());
        }
        (Coll::ScaledObjects, Err(e)) => {
            scaled_objects_failed(hpas, &e, by_ns);
            return Ok(());
        }
        (Coll::Events, Err(e)) => {
            let f = e.api().map(|f| f.request()).unwrap_or_default();
            out.notes.push(format!(
                "the HPA's events could not be listed ({f}): {}",
                e.client_go_text()
            ));
            return Ok(());
        }
        (_, Err(e)) => {
            let (_, _, kind, _) = coll.describe();
            if !matches!(scope, Scope::One { .. }) {
                out.notes.push(format!(
                    "{} failed ({}): the scale of each {kind} target is read one by one instead",
                    e.api().map(|f| f.request()).unwrap_or_default(),
                    e.client_go_text()
                ));
            }
            return Ok(());
        }
    };
    match coll {
        Coll::PodMetrics => {
            let mut per: BTreeMap<String, Vec<Obj>> = BTreeMap::new();
            for m in items {
                per.entry(obj::place(&m).namespace).or_default().push(m);
            }
            for (ns, l) in by_ns.iter_mut() {
                let mine = per.remove(ns).unwrap_or_default();
                l.items.push(metric_list(
                    "metrics.k8s.io/v1beta1",
                    "PodMetricsList",
                    mine,
                ));
            }
        }
        Coll::Deployments | Coll::StatefulSets | Coll::ReplicaSets
            if matches!(scope, Scope::One { .. }) =>
        {
            // One HPA: only the workloads its namespace's HPAs target.
            let wanted: BTreeSet<(&str, &str)> = hpas
                .iter()
                .filter(|h| Coll::of_target(&h.target_api_version, &h.target_kind) == Some(coll))
                .map(|h| (h.namespace.as_str(), h.target_name.as_str()))
                .collect();
            push_by_ns(by_ns, items, |w| {
                wanted.contains(&(w.namespace.as_str(), w.name.as_str()))
            });
        }
        Coll::Hpas => {
            // The named HPA first: the List is about it.
            let first = match scope {
                Scope::One { name, .. } => Some(name.as_str()),
                _ => None,
            };
            let (mut named, others): (Vec<Obj>, Vec<Obj>) = items
                .into_iter()
                .partition(|h| first.is_some_and(|f| obj::place(h).name == f));
            named.extend(others);
            push_by_ns(by_ns, named, |_| true);
        }
        _ => push_by_ns(by_ns, items, |_| true),
    }
    Ok(())
}

/// The ScaledObjects could not be listed (404: KEDA's CRD is not installed; 403): recorded in
/// the List of each namespace with a KEDA HPA (explain says why its ScaledObject is missing),
/// never the fetch's failure, and nothing at all where no HPA is KEDA's.
fn scaled_objects_failed(hpas: &[HpaNeeds], e: &FetchError, by_ns: &mut BTreeMap<String, NsList>) {
    let text = match e.api() {
        Some(f) => format!(
            "{} failed ({}): {}",
            f.request(),
            match f.code() {
                Some(404) => "404: KEDA's CRD scaledobjects.keda.sh is not served".to_string(),
                Some(c) => format!(
                    "{c}; reading it needs `{}` on scaledobjects.keda.sh",
                    f.verb
                ),
                None => "no answer".to_string(),
            },
            e.client_go_text()
        ),
        None => e.client_go_text(),
    };
    for h in hpas.iter().filter(|h| h.keda_scaled_object.is_some()) {
        if let Some(l) = by_ns.get_mut(&h.namespace) {
            l.errors.insert(
                crate::snapshot::keda::SCALED_OBJECTS_ERROR_KEY.to_string(),
                text.clone(),
            );
        }
    }
}

/// The failure under `key` is one the controller meets too (the metrics APIService is not
/// available): it is no longer marked as ours in any List.
pub fn not_ours(lists: &mut [(String, NsList)], key: &str) {
    for (_, l) in lists {
        l.not_ours(key);
    }
}

/// A closed List: `apiVersion: v1, kind: List`, the annotations, the items' text as read.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ListOut<'a> {
    api_version: &'static str,
    kind: &'static str,
    metadata: ListMeta<'a>,
    items: &'a [Obj],
}

#[derive(Serialize)]
struct ListMeta<'a> {
    annotations: &'a BTreeMap<String, String>,
}

/// A namespace's List closed for reading: its annotations and its items' JSON text, read by
/// [`Snapshot::from_list`](crate::snapshot::Snapshot::from_list) as the List of a file is.
pub struct Closed {
    annotations: BTreeMap<String, String>,
    items: Vec<Obj>,
}

impl Closed {
    /// The List's snapshot (`source` names it in errors), read as a file's List is, but for
    /// the pods the fetch kept typed: moved in rather than read again from their text (the
    /// same fields: debug builds compare them).
    pub fn into_snapshot(
        mut self,
        source: &str,
    ) -> Result<crate::snapshot::Snapshot, crate::snapshot::SnapshotError> {
        crate::snapshot::Snapshot::from_list(
            source,
            &self.annotations,
            self.items.iter_mut().map(|o| {
                let (text, head, pod) = o.parts();
                ListItem { text, head, pod }
            }),
        )
    }

    /// The List's JSON text (what `kubectl hpa snapshot` prints and [`NsList::finish`]
    /// returns).
    pub fn text(&self) -> String {
        let list = ListOut {
            api_version: "v1",
            kind: "List",
            metadata: ListMeta {
                annotations: &self.annotations,
            },
            items: &self.items,
        };
        // Strings, maps and JSON text only: this cannot fail.
        serde_json::to_string(&list).unwrap_or_default()
    }
}

impl NsList {
    /// Close the List with its annotations for reading ([`NsList::finish`] writes it out as
    /// text).
    pub fn close(self, origin: &Origin, server_version: Option<&str>) -> Closed {
        let annotations = self
            .annotations(origin, server_version)
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect();
        let items = self
            .items
            .into_iter()
            .map(|e| match e {
                Entry::Object(o) => o,
                // Strings, maps and JSON text only: this cannot fail.
                Entry::Metric(m) => serde_json::value::to_raw_value(&m)
                    .unwrap_or_default()
                    .into(),
            })
            .collect();
        Closed { annotations, items }
    }

    /// Close the List with its annotations: its JSON text (what `kubectl hpa snapshot` writes
    /// and the snapshot reads, as from a file).
    pub fn finish(self, origin: &Origin, server_version: Option<&str>) -> String {
        self.close(origin, server_version).text()
    }

    /// The List's annotations: where and when it was read, and what could not be.
    fn annotations(
        &self,
        origin: &Origin,
        server_version: Option<&str>,
    ) -> BTreeMap<&'static str, String> {
        let mut annotations = BTreeMap::new();
        annotations.insert(TAKEN_AT_ANNOTATION, origin.taken_at.clone());
        if let Some(hpa) = &origin.taken_for {
            annotations.insert(crate::snapshot::TAKEN_FOR_ANNOTATION, hpa.clone());
        }
        annotations.insert(SOURCE_ANNOTATION, origin.source.clone());
        if let Some(v) = server_version {
            annotations.insert(SERVER_VERSION_ANNOTATION, v.to_string());
        }
        if !self.errors.is_empty() {
            let text = serde_json::to_string(&self.errors).unwrap_or_default();
            annotations.insert(FETCH_ERRORS_ANNOTATION, text);
        }
        if !self.own.is_empty() {
            let text = serde_json::to_string(&self.own).unwrap_or_default();
            annotations.insert(OWN_FAILURES_ANNOTATION, text);
        }
        annotations
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cluster::plan::{first_round, second_round};
    use crate::snapshot::Snapshot;
    use serde_json::json;

    fn objs(v: Vec<Value>) -> Vec<Obj> {
        v.iter().map(obj::of_value).collect()
    }

    /// The closed List of each namespace, as a Value.
    fn closed(out: Assembled) -> Vec<(String, Value)> {
        let version = out.server_version.clone();
        out.lists
            .into_iter()
            .map(|(ns, l)| {
                let text = l.finish(&origin(), version.as_deref());
                (ns, serde_json::from_str(&text).expect("JSON"))
            })
            .collect()
    }

    fn hpa(ns: &str, name: &str, target: &str, metrics: Value) -> Value {
        json!({"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",
            "metadata": {"name": name, "namespace": ns},
            "spec": {"maxReplicas": 9, "metrics": metrics,
                     "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": target}}})
    }

    fn deployment(ns: &str, name: &str) -> Value {
        json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name, "namespace": ns},
            "spec": {"replicas": 2, "selector": {"matchLabels": {"app": name}}}, "status": {"replicas": 2}})
    }

    fn external(selector: Value) -> Value {
        json!({"type": "External", "external": {"metric": {"name": "queue", "selector": selector},
            "target": {"type": "Value", "value": "10"}}})
    }

    fn origin() -> Origin {
        Origin {
            source: "cluster test (https://x)".into(),
            taken_at: "2026-03-01T12:00:00Z".into(),
            taken_for: None,
        }
    }

    /// A fleet of two namespaces: `a` with two HPAs on one metric (two selectors), `b` with an
    /// HPA whose Deployment does not exist.
    fn fleet_answers() -> (Vec<HpaNeeds>, Answers) {
        let hpas = vec![
            hpa(
                "a",
                "one",
                "one",
                json!([external(json!({"matchLabels": {"q": "x"}}))]),
            ),
            hpa("a", "two", "two", json!([external(json!(null))])),
            hpa("b", "ghost", "ghost", json!([])),
        ];
        let needs: Vec<HpaNeeds> = hpas
            .iter()
            .map(|h| HpaNeeds::of(&serde_json::from_value(h.clone()).expect("HPA")))
            .collect();
        let mut answers = Answers::default();
        let mut first = first_round(&Scope::All).into_iter();
        let items = |v: Vec<Value>| Ok(Body::Items(objs(v)));
        let mut put = |r: Request, a: Result<Body, FetchError>| {
            answers.map.insert(r, a);
        };
        put(first.next().expect("hpas"), items(hpas));
        put(first.next().expect("pods"), items(vec![]));
        let pm = first.next().expect("podmetrics");
        put(
            pm,
            Err(FetchError::from_api(ApiFailure {
                verb: "list",
                resource: "pods.metrics.k8s.io".into(),
                object: String::new(),
                server: "https://x".into(),
                attempts: 1,
                failure: Failure::Status {
                    code: 403,
                    reason: "Forbidden".into(),
                    message: "pods.metrics.k8s.io is forbidden".into(),
                    parsed: true,
                },
            })),
        );
        put(
            first.next().expect("deployments"),
            items(vec![deployment("a", "one"), deployment("a", "two")]),
        );
        put(first.next().expect("statefulsets"), items(vec![]));
        put(first.next().expect("replicasets"), items(vec![]));
        put(
            first.next().expect("version"),
            Ok(Body::Object(json!({"gitVersion": "v1.33.1"}))),
        );
        let listed = BTreeSet::from([Coll::Deployments, Coll::StatefulSets, Coll::ReplicaSets]);
        let value =
            |labels: Value| json!({"metricName": "queue", "metricLabels": labels, "value": "12"});
        for r in second_round(&Scope::All, &needs, &listed) {
            // Both selectors see the item labelled q=x: it must be in the List once.
            let got = match &r {
                Request::ExternalMetric { label_selector, .. } if label_selector.is_empty() => {
                    vec![value(json!({"q": "x"})), value(json!({"q": "y"}))]
                }
                _ => vec![value(json!({"q": "x"}))],
            };
            put(r, items(got));
        }
        (needs, answers)
    }

    /// The live path reads a namespace's List without writing it out: the same snapshot as
    /// from the text `kubectl hpa snapshot` writes of it.
    #[test]
    fn a_closed_list_reads_as_its_text() {
        let (needs, answers) = fleet_answers();
        let fetched = assemble(&Scope::All, &needs, answers).expect("assembled");
        let version = fetched.server_version.clone();
        assert_eq!(fetched.lists.len(), 2);
        for (_, l) in fetched.lists {
            let c = l.close(&origin(), version.as_deref());
            let read = Snapshot::from_text(&c.text(), "s").expect("snapshot");
            let live = c.into_snapshot("s").expect("snapshot");
            assert_eq!(format!("{live:?}"), format!("{read:?}"));
        }
    }

    #[test]
    fn no_resource_metrics_api_is_worded_as_the_release_words_it() {
        let not_found = v1beta1_not_served("https://x");
        let text = |version: &str, negotiated: Negotiated| {
            let mut out = Assembled {
                server_version: Some(version.into()),
                resource_metrics: Some(negotiated),
                ..Assembled::default()
            };
            let mut by_ns = BTreeMap::from([("shop".to_string(), NsList::default())]);
            resource_metrics_failed(&not_found, &mut by_ns, &mut out, true);
            by_ns["shop"].errors["resource-metrics"].clone()
        };
        let prefix = "unable to fetch metrics from resource metrics API: ";
        let list_404 = "the server could not find the requested resource (get pods.metrics.k8s.io)";
        // 1.37+: the versioned client negotiates by discovery (v1, then v1beta1).
        assert_eq!(
            text("v1.37.2", Negotiated::NotRegistered),
            format!("{prefix}no resource metrics API (metrics.k8s.io) registered")
        );
        assert_eq!(
            text("v1.38.0", Negotiated::NoKnownVersion),
            format!("{prefix}no known available resource metrics API versions found")
        );
        // Before: the v1beta1 LIST's 404, whatever discovery says.
        for n in [Negotiated::NotRegistered, Negotiated::NoKnownVersion] {
            assert_eq!(text("v1.36.4", n), format!("{prefix}{list_404}"));
        }
        // A LIST that failed although discovery offered it: its own error.
        assert_eq!(
            text("v1.37.2", Negotiated::V1beta1),
            format!("{prefix}{list_404}")
        );
    }

    #[test]
    fn a_v1_only_server_fails_only_controllers_before_1_37() {
        let got = |version: &str| {
            let mut out = Assembled {
                server_version: Some(version.into()),
                resource_metrics: Some(Negotiated::V1 { v1beta1_too: false }),
                ..Assembled::default()
            };
            let mut by_ns = BTreeMap::from([("shop".to_string(), NsList::default())]);
            let scope = Scope::Namespace("shop".into());
            add_list(
                &scope,
                &[],
                Coll::PodMetrics,
                Ok(vec![]),
                &mut by_ns,
                &mut out,
                true,
            )
            .unwrap();
            by_ns["shop"].errors.get("resource-metrics").cloned()
        };
        assert_eq!(got("v1.37.0"), None);
        assert_eq!(
            got("v1.36.4").as_deref(),
            Some("unable to fetch metrics from resource metrics API: the server could not find the requested resource (get pods.metrics.k8s.io)")
        );
    }

    #[test]
    fn a_fleet_is_one_list_per_namespace_with_the_failures_recorded() {
        let (needs, answers) = fleet_answers();
        let out = assemble(&Scope::All, &needs, answers).expect("assembled");
        assert_eq!(out.server_version.as_deref(), Some("v1.33.1"));
        assert!(out.resource_metrics_failed);
        assert!(
            out.notes.iter().any(|n| n.contains("403 Forbidden")),
            "{:?}",
            out.notes
        );
        let lists = closed(out);
        let names: Vec<&str> = lists.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["a", "b"]);
        assert_eq!(
            lists[0].1["metadata"]["annotations"][SERVER_VERSION_ANNOTATION],
            "v1.33.1"
        );
        let (_, a) = &lists[0];
        let snap = Snapshot::from_value(a, "a").expect("snapshot a");
        assert_eq!(snap.hpas.len(), 2);
        assert_eq!(snap.workloads.len(), 2);
        // One external List, each item once although two requests returned q=x.
        assert_eq!(
            snap.external_metrics.len(),
            2,
            "{:?}",
            snap.external_metrics
        );
        assert!(snap.fetch_errors["resource-metrics"].contains("forbidden"));
        let (_, b) = &lists[1];
        let snap = Snapshot::from_value(b, "b").expect("snapshot b");
        assert_eq!(
            snap.scale_error("b", "ghost").map(String::as_str),
            Some("deployments.apps \"ghost\" not found")
        );
        assert_eq!(
            snap.target_status("b", "ghost"),
            crate::snapshot::TargetStatus::FetchFailed {
                text: "deployments.apps \"ghost\" not found".into(),
                not_found: true
            }
        );
    }

    #[test]
    fn one_hpa_is_named_first_and_keeps_only_the_targets_of_its_namespace() {
        let scope = Scope::One {
            namespace: "a".into(),
            name: "two".into(),
        };
        let hpas = vec![
            hpa("a", "one", "one", json!([])),
            hpa("a", "two", "two", json!([])),
        ];
        let needs: Vec<HpaNeeds> = hpas
            .iter()
            .map(|h| HpaNeeds::of(&serde_json::from_value(h.clone()).expect("HPA")))
            .collect();
        let mut answers = Answers::default();
        let first = first_round(&scope);
        answers
            .map
            .insert(first[0].clone(), Ok(Body::Items(objs(hpas))));
        for r in second_round(&scope, &needs, &BTreeSet::new()) {
            let body = Body::Items(objs(vec![
                deployment("a", "one"),
                deployment("a", "two"),
                deployment("a", "unrelated"),
            ]));
            answers.map.insert(r, Ok(body));
        }
        let out = assemble(&scope, &needs, answers).expect("assembled");
        let lists = closed(out);
        assert_eq!(lists.len(), 1);
        let items = lists[0].1["items"].as_array().expect("items");
        assert_eq!(items[0]["metadata"]["name"], "two");
        let deployments: Vec<&str> = items
            .iter()
            .filter(|i| i["kind"] == "Deployment")
            .filter_map(|i| i["metadata"]["name"].as_str())
            .collect();
        assert_eq!(deployments, ["one", "two"]);
    }
}
