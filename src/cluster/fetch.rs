//! Run a plan: every request of a round concurrently, LISTs paged; the answers keyed by their
//! request, so each is read once whoever needs it.

use std::collections::{BTreeMap, BTreeSet};

use futures::future::join_all;
use k8s_openapi::api::autoscaling::v2::HorizontalPodAutoscaler;
use serde::Deserialize;
use serde_json::Value;

use super::conn::{in_ns, named, Conn, FetchError, What};
use super::plan::{self, Coll, HpaNeeds, Request, Scope};
use super::progress::Progress;

const CUSTOM: &str = "/apis/custom.metrics.k8s.io/v1beta2";
const EXTERNAL: &str = "/apis/external.metrics.k8s.io/v1beta1";

/// The answer to one request: a LIST's items, or one object.
#[derive(Debug, Clone)]
pub enum Body {
    Items(Vec<Value>),
    Object(Value),
}

pub type Answer = Result<Body, FetchError>;

/// Every answer of a fetch.
#[derive(Debug, Default)]
pub struct Answers {
    pub map: BTreeMap<Request, Answer>,
}

impl Answers {
    pub fn get(&self, r: &Request) -> Option<&Answer> {
        self.map.get(r)
    }
}

/// Send one request.
async fn one(conn: &Conn, r: &Request) -> Answer {
    let api = FetchError::from_api;
    match r {
        Request::Version => conn.version().await.map(Body::Object).map_err(api),
        Request::List { .. } => list(conn, r).await,
        Request::Get {
            coll,
            namespace,
            name,
        } => get_object(conn, *coll, namespace, name).await,
        Request::Scale {
            namespace,
            api_version,
            kind,
            name,
        } => conn
            .scale(namespace, api_version, kind, name)
            .await
            .map(Body::Object),
        Request::PodsMetric {
            namespace,
            metric,
            label_selector,
            metric_selector,
        } => conn
            .list(
                &format!("{CUSTOM}/namespaces/{namespace}/pods/*/{metric}"),
                &[
                    ("labelSelector", label_selector.clone()),
                    ("metricLabelSelector", metric_selector.clone()),
                ],
                None,
                ("", ""),
                What {
                    verb: "get",
                    resource: "pods.custom.metrics.k8s.io",
                    object: in_ns(namespace),
                },
            )
            .await
            .map(Body::Items)
            .map_err(api),
        Request::ObjectMetric { .. } => object_metric(conn, r).await,
        Request::ExternalMetric {
            namespace,
            metric,
            label_selector,
        } => conn
            .list(
                &format!("{EXTERNAL}/namespaces/{namespace}/{metric}"),
                &[("labelSelector", label_selector.clone())],
                None,
                ("", ""),
                What {
                    verb: "list",
                    resource: "external.metrics.k8s.io",
                    object: format!("{metric:?} in namespace {namespace:?}"),
                },
            )
            .await
            .map(Body::Items)
            .map_err(api),
    }
}

/// LIST a collection, paged as the plan says.
async fn list(conn: &Conn, r: &Request) -> Answer {
    let Request::List {
        coll,
        namespace,
        label_selector,
        field_selector,
    } = r
    else {
        return Ok(Body::Items(vec![]));
    };
    let (gv, _, kind, resource) = coll.describe();
    let object = match namespace {
        Some(ns) => in_ns(ns),
        None => "in all namespaces".to_string(),
    };
    conn.list(
        &coll.path(namespace.as_deref()),
        &[
            ("labelSelector", label_selector.clone()),
            ("fieldSelector", field_selector.clone()),
        ],
        r.page(),
        (gv, kind),
        What {
            verb: "list",
            resource,
            object,
        },
    )
    .await
    .map(Body::Items)
    .map_err(FetchError::from_api)
}

/// GET one object of a collection, with its apiVersion and kind.
async fn get_object(conn: &Conn, coll: Coll, namespace: &str, name: &str) -> Answer {
    let (gv, _, kind, resource) = coll.describe();
    let what = What {
        verb: "get",
        resource,
        object: named(name, namespace),
    };
    let path = format!("{}/{name}", coll.path(Some(namespace)));
    let mut v = conn
        .get(&path, &[], what)
        .await
        .map_err(FetchError::from_api)?;
    if let Some(o) = v.as_object_mut() {
        o.insert("apiVersion".into(), gv.into());
        o.insert("kind".into(), kind.into());
    }
    Ok(Body::Object(v))
}

/// An Object metric: its described object mapped to a resource, then the custom metrics API.
async fn object_metric(conn: &Conn, r: &Request) -> Answer {
    let Request::ObjectMetric {
        namespace,
        api_version,
        kind,
        name,
        metric,
        metric_selector,
    } = r
    else {
        return Ok(Body::Items(vec![]));
    };
    let path = if kind == "Namespace" && api_version.split('/').next() == Some("v1") {
        format!("{CUSTOM}/namespaces/{name}/metrics/{metric}")
    } else {
        let gvr = conn
            .resource_of(api_version, kind)
            .await
            .map_err(FetchError::Unmapped)?;
        format!(
            "{CUSTOM}/namespaces/{namespace}/{}/{name}/{metric}",
            gvr.qualified()
        )
    };
    conn.list(
        &path,
        &[("metricLabelSelector", metric_selector.clone())],
        None,
        ("", ""),
        What {
            verb: "get",
            resource: "custom.metrics.k8s.io",
            object: format!("{kind} {name:?} metric {metric:?}"),
        },
    )
    .await
    .map(Body::Items)
    .map_err(FetchError::from_api)
}

/// Send a round's requests concurrently and add the answers.
async fn round(conn: &Conn, reqs: Vec<Request>, answers: &mut Answers, progress: &Progress) {
    let reqs: Vec<Request> = reqs
        .into_iter()
        .filter(|r| !answers.map.contains_key(r))
        .collect();
    progress.add(reqs.len());
    let got = join_all(reqs.iter().map(|r| async move {
        let a = one(conn, r).await;
        progress.done();
        a
    }))
    .await;
    answers.map.extend(reqs.into_iter().zip(got));
}

/// The HPAs of the first round, typed for planning; a failed HPA LIST stops the fetch.
pub fn hpas_of(answers: &Answers, scope: &Scope) -> Result<Vec<HpaNeeds>, FetchError> {
    let first = plan::first_round(scope);
    let Some(list) = first.first().and_then(|r| answers.get(r)) else {
        return Ok(vec![]);
    };
    let items = match list {
        Ok(Body::Items(items)) => items,
        Ok(Body::Object(_)) => return Ok(vec![]),
        Err(e) => return Err(e.clone()),
    };
    Ok(items
        .iter()
        .filter_map(|h| HorizontalPodAutoscaler::deserialize(h).ok())
        .map(|h| HpaNeeds::of(&h))
        .collect())
}

/// The selector of a target as its scale reports it, from the second round's answers.
pub fn target_selector(answers: &Answers, h: &HpaNeeds) -> Option<String> {
    let target = super::assemble::target_object(answers, h)?;
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

/// Fetch everything a scope needs, round by round; the answers and the HPAs read.
pub async fn fetch(
    conn: &Conn,
    scope: &Scope,
    progress: &Progress,
) -> Result<(Answers, Vec<HpaNeeds>), FetchError> {
    let mut answers = Answers::default();
    round(conn, plan::first_round(scope), &mut answers, progress).await;
    let hpas = hpas_of(&answers, scope)?;
    let listed: BTreeSet<Coll> = answers
        .map
        .iter()
        .filter_map(|(r, a)| match (r, a) {
            (
                Request::List {
                    coll,
                    label_selector,
                    ..
                },
                Ok(_),
            ) if label_selector.is_empty() => Some(*coll),
            _ => None,
        })
        .collect();
    if let Scope::One { name, .. } = scope {
        if !hpas.iter().any(|h| &h.name == name) {
            return Ok((answers, hpas)); // reported with the names there are
        }
    }
    round(
        conn,
        plan::second_round(scope, &hpas, &listed),
        &mut answers,
        progress,
    )
    .await;
    if let Scope::One { name, .. } = scope {
        let h = hpas.iter().find(|h| &h.name == name);
        if let Some((h, sel)) = h.and_then(|h| Some((h, target_selector(&answers, h)?))) {
            round(conn, plan::third_round(h, &sel), &mut answers, progress).await;
        }
    }
    Ok((answers, hpas))
}
