//! The answers of a fetch, keyed by their request, and what is read from them between rounds
//! (the HPAs, each target and its selector) — pure: shared by [`super::fetch`], which sends
//! the requests, and [`super::assemble`], which turns the answers into Lists.

use std::collections::{BTreeMap, HashMap};

use k8s_openapi::api::autoscaling::v2::HorizontalPodAutoscaler;
use serde::Deserialize;
use serde_json::Value;

use super::failure::FetchError;
use super::obj::{self, Obj};
use super::plan::{self, Coll, HpaNeeds, Request, Scope};

/// The answer to one request: a LIST's items, or one object.
#[derive(Debug, Clone)]
pub enum Body {
    /// Each item's JSON text (see [`super::obj`]).
    Items(Vec<Obj>),
    Object(Value),
    /// A [`Request::FirstPage`] that is not the whole collection (not used).
    MoreThanAPage,
}

pub type Answer = Result<Body, FetchError>;

/// Every answer of a fetch.
#[derive(Debug, Default)]
pub struct Answers {
    pub map: BTreeMap<Request, Answer>,
    /// The resource metrics API version discovery offered (`None`: no PodMetrics LIST).
    pub resource_metrics: Option<Negotiated>,
}

impl Answers {
    pub fn get(&self, r: &Request) -> Option<&Answer> {
        self.map.get(r)
    }
}

/// What discovery says of the resource metrics API (`metrics.k8s.io`), read once per fetch:
/// the version the controller's resource metrics client picks from 1.37 on
/// (`versionedPodMetricsGetter.fetchPreferredVersion`: v1 when served, else v1beta1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Negotiated {
    /// v1 is served; `v1beta1_too`: so is v1beta1 (what controllers before 1.37 read).
    V1 {
        v1beta1_too: bool,
    },
    V1beta1,
    /// The group is not registered: `no resource metrics API (metrics.k8s.io) registered`.
    NotRegistered,
    /// Registered without v1 or v1beta1: `no known available resource metrics API versions found`.
    NoKnownVersion,
    /// Discovery failed (not a 404): v1beta1 is read, as before 1.37.
    Unknown,
}

/// The HPAs of the first round, typed for planning; a failed HPA LIST stops the fetch.
pub fn hpas_of(answers: &Answers, scope: &Scope) -> Result<Vec<HpaNeeds>, FetchError> {
    let first = plan::first_round(scope);
    let Some(list) = first.first().and_then(|r| answers.get(r)) else {
        return Ok(vec![]);
    };
    let items = match list {
        Ok(Body::Items(items)) => items,
        Ok(Body::Object(_) | Body::MoreThanAPage) => return Ok(vec![]),
        Err(e) => return Err(e.clone()),
    };
    Ok(items
        .iter()
        .filter_map(|h| serde_json::from_str::<HorizontalPodAutoscaler>(h.get()).ok())
        .map(|h| HpaNeeds::of(&h))
        .collect())
}

/// The selector of a target as its scale reports it, from the second round's answers.
pub fn target_selector(answers: &Answers, h: &HpaNeeds) -> Option<String> {
    let target = target_object(answers, h)?;
    let target = &target;
    let sel = match target.get("kind").and_then(Value::as_str) {
        Some("Scale") => target.pointer("/status/selector")?.as_str()?.to_string(),
        _ => {
            let ls = target.pointer("/spec/selector")?;
            let ls = k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector::deserialize(ls)
                .ok()?;
            plan::selector_string(Some(&ls))
        }
    };
    (!sel.is_empty() && crate::labels::Selector::parse(&sel).is_ok()).then_some(sel)
}

/// The object the target's scale comes from: its apps/v1 workload (GET or in a LIST), or its
/// Scale.
pub fn target_object(answers: &Answers, h: &HpaNeeds) -> Option<Value> {
    let index = Workloads::of(answers);
    answer_for_target(answers, &index, h).and_then(|a| match a {
        Ok(Target::Found(v)) => Some(v.clone()),
        Ok(Target::Listed(o)) => Some(obj::to_value(o)),
        _ => None,
    })
}

pub(super) enum Target<'a> {
    /// A GET's answer.
    Found(&'a Value),
    /// In a LIST.
    Listed(&'a Obj),
    /// The LIST that should hold it does not.
    Absent(Coll),
}

/// The workloads of the LISTs without selectors, by (collection, the LIST's namespace,
/// namespace, name): each HPA finds its target at once, not by scanning the LIST (the first of
/// equal names wins, as a scan would find it).
pub(super) struct Workloads<'a> {
    map: HashMap<WorkloadKey<'a>, &'a Obj>,
}

type WorkloadKey<'a> = (Coll, Option<&'a str>, String, String);

impl<'a> Workloads<'a> {
    pub(super) fn of(answers: &'a Answers) -> Workloads<'a> {
        let mut map = HashMap::new();
        for (r, a) in &answers.map {
            let (
                Request::List {
                    coll: coll @ (Coll::Deployments | Coll::StatefulSets | Coll::ReplicaSets),
                    namespace,
                    label_selector,
                    field_selector,
                },
                Ok(Body::Items(items)),
            ) = (r, a)
            else {
                continue;
            };
            if !label_selector.is_empty() || !field_selector.is_empty() {
                continue;
            }
            for w in items {
                let h = obj::place(w);
                let key = (*coll, namespace.as_deref(), h.namespace, h.name);
                map.entry(key).or_insert(w);
            }
        }
        Workloads { map }
    }
}

/// What the answers say about an HPA's target (`None`: not asked).
pub(super) fn answer_for_target<'a>(
    answers: &'a Answers,
    index: &Workloads<'a>,
    h: &HpaNeeds,
) -> Option<Result<Target<'a>, &'a FetchError>> {
    let ns = &h.namespace;
    let scale = Request::Scale {
        namespace: ns.clone(),
        api_version: h.target_api_version.clone(),
        kind: h.target_kind.clone(),
        name: h.target_name.clone(),
    };
    if let Some(a) = answers.get(&scale) {
        return Some(a.as_ref().map(|b| match b {
            Body::Object(v) => Target::Found(v),
            Body::Items(_) | Body::MoreThanAPage => Target::Absent(Coll::Pods),
        }));
    }
    let coll = Coll::of_target(&h.target_api_version, &h.target_kind)?;
    let get = Request::Get {
        coll,
        namespace: ns.clone(),
        name: h.target_name.clone(),
    };
    if let Some(a) = answers.get(&get) {
        return Some(a.as_ref().map(|b| match b {
            Body::Object(v) => Target::Found(v),
            Body::Items(_) | Body::MoreThanAPage => Target::Absent(coll),
        }));
    }
    for list_ns in [Some(ns.as_str()), None] {
        let list = Request::List {
            coll,
            namespace: list_ns.map(str::to_string),
            label_selector: String::new(),
            field_selector: String::new(),
        };
        if let Some(a) = answers.get(&list) {
            return Some(a.as_ref().map(|_| {
                let key = (coll, list_ns, ns.clone(), h.target_name.clone());
                index
                    .map
                    .get(&key)
                    .map_or(Target::Absent(coll), |w| Target::Listed(w))
            }));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn hpa(ns: &str, target: &str) -> Value {
        json!({"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",
            "metadata": {"name": "h", "namespace": ns},
            "spec": {"maxReplicas": 9, "metrics": [],
                     "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": target}}})
    }

    fn deployment(ns: &str, name: &str) -> Value {
        json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name, "namespace": ns},
            "spec": {"replicas": 2, "selector": {"matchLabels": {"app": name}}}, "status": {"replicas": 2}})
    }

    fn objs(v: Vec<Value>) -> Vec<Obj> {
        v.iter().map(obj::of_value).collect()
    }

    #[test]
    fn a_target_is_found_in_a_cluster_wide_list_by_its_own_namespace_and_name() {
        let needs = |ns: &str, target: &str| {
            HpaNeeds::of(&serde_json::from_value(hpa(ns, target)).expect("HPA"))
        };
        let mut answers = Answers::default();
        let deployments = Request::List {
            coll: Coll::Deployments,
            namespace: None,
            label_selector: String::new(),
            field_selector: String::new(),
        };
        let mut first = deployment("a", "web");
        first["spec"] = json!({"replicas": 1});
        let mut second = deployment("a", "web");
        second["spec"] = json!({"replicas": 2});
        let items = vec![
            deployment("b", "api"),
            first,
            second,
            deployment("b", "web"),
        ];
        answers
            .map
            .insert(deployments, Ok(Body::Items(objs(items))));
        let found = |ns, target| target_object(&answers, &needs(ns, target));
        // The first of equal names, as a scan finds it; the namespace counts.
        assert_eq!(
            found("a", "web").map(|w| w["spec"]["replicas"].clone()),
            Some(json!(1))
        );
        assert_eq!(
            found("b", "web").map(|w| w["metadata"]["namespace"].clone()),
            Some(json!("b"))
        );
        assert_eq!(found("a", "api"), None);
        let index = Workloads::of(&answers);
        assert!(matches!(
            answer_for_target(&answers, &index, &needs("a", "api")),
            Some(Ok(Target::Absent(Coll::Deployments)))
        ));
    }
}
