//! Run a plan: every request of a round concurrently, LISTs paged; the answers keyed by their
//! request, so each is read once whoever needs it.

use std::collections::BTreeSet;

use futures::future::join_all;
use tokio::sync::OnceCell;

use super::answers::{hpas_of, target_selector, Answer, Answers, Body, Negotiated};
use super::failure::FetchError;
use super::obj::{self, Obj};
use super::plan::{self, Coll, HpaNeeds, Request, Scope};
use super::progress::Progress;
use super::transport::{in_ns, named, whole, Conn, Reduce, What};

const CUSTOM: &str = "/apis/custom.metrics.k8s.io/v1beta2";
const EXTERNAL: &str = "/apis/external.metrics.k8s.io/v1beta1";

/// Send one request.
async fn one(conn: &Conn, r: &Request, negotiated: &OnceCell<Negotiated>) -> Answer {
    let api = FetchError::from_api;
    match r {
        Request::Version => conn.version().await.map(Body::Object).map_err(api),
        Request::ControllerManager => conn
            .list_each(
                "/api/v1/namespaces/kube-system/pods",
                &[("labelSelector", plan::CONTROLLER_MANAGER_SELECTOR.into())],
                Some(plan::PAGE_ONE),
                ("v1", "Pod"),
                What {
                    verb: "list",
                    resource: "pods",
                    object: in_ns("kube-system"),
                },
                &super::slim::controller_pod,
            )
            .await
            .map(Body::Items)
            .map_err(api),
        Request::List { .. } => list(conn, r, negotiated).await,
        Request::FirstPage { coll, namespace } => first_page(conn, r, *coll, namespace).await,
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
        Request::Chain(c) => super::chain::send(conn, c).await,
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
        Request::Optional { .. } => match r.optional_as_list() {
            Some(l) => list(conn, &l, negotiated).await,
            None => Ok(Body::Items(vec![])),
        },
    }
}

/// `metrics.k8s.io/v1` (GA, KEP-5207): the same PodMetrics as v1beta1.
const RESOURCE_METRICS_V1: &str = "metrics.k8s.io/v1";

/// GET `/apis/metrics.k8s.io` (the group's discovery document) and pick the version.
async fn negotiate(conn: &Conn) -> Negotiated {
    let doc = conn
        .get_path(
            "/apis/metrics.k8s.io",
            "metrics.k8s.io",
            "the API group".into(),
        )
        .await;
    match doc {
        Ok(group) => {
            let served = |v: &str| {
                group["versions"].as_array().is_some_and(|vs| {
                    vs.iter()
                        .any(|x| x["groupVersion"] == format!("metrics.k8s.io/{v}"))
                })
            };
            match (served("v1"), served("v1beta1")) {
                (true, v1beta1_too) => Negotiated::V1 { v1beta1_too },
                (false, true) => Negotiated::V1beta1,
                (false, false) => Negotiated::NoKnownVersion,
            }
        }
        Err(f) if f.code() == Some(404) => Negotiated::NotRegistered,
        Err(_) => Negotiated::Unknown,
    }
}

/// LIST a collection, paged as the plan says.
///
/// PodMetrics: the version discovery offers, v1 first, as the 1.37+ controller does (one
/// discovery GET per fetch, shared by every PodMetrics LIST); v1beta1 when discovery offers
/// neither, for the LIST's own error (the text before 1.37). The first PodMetrics LIST of a
/// fetch is sent at v1beta1 beside the discovery GET, and kept unless v1 is served (a request
/// count that still does not grow with the HPAs: one more LIST on a cluster serving v1).
async fn list(conn: &Conn, r: &Request, negotiated: &OnceCell<Negotiated>) -> Answer {
    let Request::List {
        coll, namespace, ..
    } = r
    else {
        return Ok(Body::Items(vec![]));
    };
    let (gv, _, _, _) = coll.describe();
    let path = coll.path(namespace.as_deref());
    if *coll != Coll::PodMetrics {
        return list_at(conn, r, &path, gv).await;
    }
    if let Some(picked) = negotiated.get() {
        return pod_metrics_at(conn, r, &path, *picked).await;
    }
    // perf: the v1beta1 LIST (what every controller before 1.37 reads, and what a cluster
    // without v1 answers) is sent beside the discovery GET rather than after it, so the
    // answer on which every HPA's resource metrics wait comes a round trip sooner. It is the
    // request discovery would pick unless v1 is served: then it is dropped (cancelled if
    // still under way) and v1 is listed, as before.
    let (picked, beta_answer) = {
        // One discovery future, polled to its end: dropping it unfinished would send another.
        let discovery = negotiated.get_or_init(|| negotiate(conn));
        let beta = list_at(conn, r, &path, gv);
        tokio::pin!(discovery, beta);
        let (picked, early) = tokio::select! {
            p = &mut discovery => (*p, None),
            a = &mut beta => (*discovery.await, Some(a)),
        };
        match (picked, early) {
            (Negotiated::V1 { .. }, _) => (picked, None),
            (_, Some(a)) => (picked, Some(a)),
            (_, None) => (picked, Some(beta.await)),
        }
        // An unfinished v1beta1 LIST is dropped here, its connection and permit freed.
    };
    match beta_answer {
        Some(a) => a,
        None => pod_metrics_at(conn, r, &path, picked).await,
    }
}

/// The PodMetrics LIST at the version discovery picked (`path` is v1beta1's).
async fn pod_metrics_at(conn: &Conn, r: &Request, path: &str, picked: Negotiated) -> Answer {
    let gv = Coll::PodMetrics.describe().0;
    match picked {
        Negotiated::V1 { .. } => {
            let v1_path = path.replacen(
                &format!("/apis/{gv}/"),
                &format!("/apis/{RESOURCE_METRICS_V1}/"),
                1,
            );
            list_at(conn, r, &v1_path, RESOURCE_METRICS_V1).await
        }
        _ => list_at(conn, r, path, gv).await,
    }
}

/// LIST `r`'s collection at `path` (its group/version `gv`).
async fn list_at(conn: &Conn, r: &Request, path: &str, gv: &'static str) -> Answer {
    let Request::List {
        coll,
        namespace,
        label_selector,
        field_selector,
    } = r
    else {
        return Ok(Body::Items(vec![]));
    };
    let (_, _, kind, resource) = coll.describe();
    let object = match namespace {
        Some(ns) => in_ns(ns),
        None => "in all namespaces".to_string(),
    };
    let rv = r.resource_version().unwrap_or_default().to_string();
    conn.list_each(
        path,
        &[
            ("labelSelector", label_selector.clone()),
            ("fieldSelector", field_selector.clone()),
            ("resourceVersion", rv),
        ],
        r.page(),
        (gv, kind),
        What {
            verb: "list",
            resource,
            object,
        },
        slimmer(*coll),
    )
    .await
    .map(Body::Items)
    .map_err(FetchError::from_api)
}

/// How the items of a collection are read as each page arrives (see [`super::slim`]).
fn slimmer(coll: Coll) -> &'static Reduce {
    match coll {
        Coll::Pods => &super::slim::pod,
        _ => &whole,
    }
}

/// The first page of a namespace's collection: its items when it is the whole collection.
async fn first_page(conn: &Conn, r: &Request, coll: Coll, namespace: &str) -> Answer {
    let (gv, _, kind, resource) = coll.describe();
    let limit = r.page().unwrap_or(plan::PAGE_ONE).to_string();
    let what = What {
        verb: "list",
        resource,
        object: in_ns(namespace),
    };
    let (more, items) = conn
        .page(
            &coll.path(Some(namespace)),
            &[("limit", limit)],
            (gv, kind),
            what,
            slimmer(coll),
        )
        .await
        .map_err(FetchError::from_api)?;
    if !more.is_empty() {
        return Ok(Body::MoreThanAPage);
    }
    Ok(Body::Items(items))
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
        .get_kind(&path, &[], what, kind)
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
async fn round(
    conn: &Conn,
    reqs: Vec<Request>,
    answers: &mut Answers,
    negotiated: &OnceCell<Negotiated>,
    progress: &Progress,
) {
    let reqs: Vec<Request> = reqs
        .into_iter()
        .filter(|r| !answers.map.contains_key(r))
        .collect();
    progress.add(reqs.len());
    let got = join_all(reqs.iter().map(|r| async move {
        let a = one(conn, r, negotiated).await;
        progress.done();
        a
    }))
    .await;
    answers.map.extend(reqs.into_iter().zip(got));
}

/// The requests sent first: the plan's first round and, for a fleet, its optional reads of
/// what stops the replicas — they need nothing of the first round, so they go with it, after
/// its own requests (the permits are taken in order), and a fleet without custom metrics or
/// custom-resource targets has no second round to wait for. One HPA's go with its second.
fn first_requests(scope: &Scope) -> Vec<Request> {
    let mut first = plan::first_round(scope);
    if !matches!(scope, Scope::One { .. }) {
        first.extend(plan::blocker_reads(scope));
    }
    first
}

/// Fetch everything a scope needs, round by round; the answers and the HPAs read.
pub async fn fetch(
    conn: &Conn,
    scope: &Scope,
    progress: &Progress,
) -> Result<(Answers, Vec<HpaNeeds>), FetchError> {
    let mut answers = Answers::default();
    let negotiated = OnceCell::new();
    round(
        conn,
        first_requests(scope),
        &mut answers,
        &negotiated,
        progress,
    )
    .await;
    // perf: the HPAs are read off the runtime's thread, so the contexts of a multi-context
    // run read theirs side by side and each sends its second round sooner (five contexts of
    // 500 HPAs, `cargo bench --bench fleet`: 38 M instructions were serial on that thread).
    let read_scope = scope.clone();
    let (answers_back, hpas) = tokio::task::spawn_blocking(move || {
        let hpas = hpas_of(&answers, &read_scope);
        (answers, hpas)
    })
    .await
    // Only a panic ends the task early: it goes on as it would have here.
    .unwrap_or_else(|e| std::panic::resume_unwind(e.into_panic()));
    let mut answers = answers_back;
    let hpas = hpas?;
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
    let mut second = plan::second_round(scope, &hpas, &listed);
    second.extend(super::chain::second_round(&answers, scope, &hpas));
    second.extend(plan::blocker_reads(scope)); // one HPA's (a fleet's were sent already)
    round(conn, second, &mut answers, &negotiated, progress).await;
    // The adapters' rules ConfigMaps: beside one HPA's pods, else the one additional round.
    let mut chain_third = super::chain::third_round(&answers);
    if let Scope::One { name, .. } = scope {
        let h = hpas.iter().find(|h| &h.name == name);
        let sel = h.and_then(|h| Some((h, target_selector(&answers, h)?)));
        if let Some((h, sel)) = &sel {
            let have = matches!(namespace_pods(&answers, h), Some(Ok(Body::Items(_))));
            if !have {
                // Not used (listed by selector next): not held while the pods are read.
                settle_namespace_lists(&mut answers, h, None);
            }
            let mut third = plan::third_round(h, sel, have);
            third.append(&mut chain_third);
            round(conn, third, &mut answers, &negotiated, progress).await;
        }
        if let Some(h) = h {
            settle_namespace_lists(&mut answers, h, sel.map(|(_, s)| s).as_deref());
        }
    }
    if !chain_third.is_empty() {
        round(conn, chain_third, &mut answers, &negotiated, progress).await;
    }
    answers.resource_metrics = negotiated.get().copied();
    Ok((answers, hpas))
}

/// The first round's page of the namespace's pods, for one HPA.
fn namespace_pods<'a>(answers: &'a Answers, h: &HpaNeeds) -> Option<&'a Answer> {
    answers.get(&Request::FirstPage {
        coll: Coll::Pods,
        namespace: h.namespace.clone(),
    })
}

/// One HPA: the first round's namespace-wide pods and PodMetrics become the answers of the
/// LISTs by the target's selector (the pods it picks, and their PodMetrics by name, as
/// metrics-server picks a pod's metrics by its pod), or are dropped when those LISTs were sent
/// (a namespace of more than a page) or the selector is unknown — so what follows sees exactly
/// what the LISTs by selector would have answered.
fn settle_namespace_lists(answers: &mut Answers, h: &HpaNeeds, selector: Option<&str>) {
    let ns = Some(h.namespace.clone());
    let first = Request::FirstPage {
        coll: Coll::Pods,
        namespace: h.namespace.clone(),
    };
    let metrics = Request::List {
        coll: Coll::PodMetrics,
        namespace: ns.clone(),
        label_selector: String::new(),
        field_selector: String::new(),
    };
    let pods = answers.map.remove(&first);
    let pod_metrics = answers.map.remove(&metrics);
    let Some(sel) = selector else { return };
    let by = |coll| Request::List {
        coll,
        namespace: ns.clone(),
        label_selector: sel.to_string(),
        field_selector: String::new(),
    };
    let Some(Ok(Body::Items(pods))) = pods else {
        return;
    };
    if answers.map.contains_key(&by(Coll::Pods)) {
        return;
    }
    let Ok(parsed) = crate::labels::Selector::parse(sel) else {
        return;
    };
    // Each pod's head is read once: its labels pick it, its name picks its PodMetrics.
    let mut names: BTreeSet<String> = BTreeSet::new();
    let picked: Vec<Obj> = pods
        .into_iter()
        .filter(|p| {
            let head = obj::head(p);
            let pick = parsed.matches(&head.labels);
            if pick {
                names.insert(head.name);
            }
            pick
        })
        .collect();
    if h.uses_resource {
        let m = pod_metrics.map(|a| match a {
            Ok(Body::Items(items)) => Ok(Body::Items(
                items
                    .into_iter()
                    .filter(|m| names.contains(&obj::place(m).name))
                    .collect(),
            )),
            other => other,
        });
        if let Some(m) = m {
            answers.map.insert(by(Coll::PodMetrics), m);
        }
    }
    answers.map.insert(by(Coll::Pods), Ok(Body::Items(picked)));
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn needs(uses_resource: bool) -> HpaNeeds {
        HpaNeeds {
            namespace: "shop".into(),
            name: "web".into(),
            target_api_version: "apps/v1".into(),
            target_kind: "Deployment".into(),
            target_name: "web".into(),
            uses_resource,
            metrics: vec![],
            keda_scaled_object: None,
        }
    }

    fn pod(name: &str, app: &str) -> Obj {
        obj::of_value(
            &json!({"kind": "Pod", "metadata": {"name": name, "namespace": "shop", "labels": {"app": app}}}),
        )
    }

    fn by(coll: Coll, sel: &str) -> Request {
        Request::List {
            coll,
            namespace: Some("shop".into()),
            label_selector: sel.into(),
            field_selector: String::new(),
        }
    }

    fn answers(first: Body) -> Answers {
        let mut a = Answers::default();
        let first_page = Request::FirstPage {
            coll: Coll::Pods,
            namespace: "shop".into(),
        };
        a.map.insert(first_page, Ok(first));
        let metrics = vec![
            obj::of_value(&json!({"metadata": {"name": "web-1"}})),
            obj::of_value(&json!({"metadata": {"name": "api-1"}})),
        ];
        a.map
            .insert(by(Coll::PodMetrics, ""), Ok(Body::Items(metrics)));
        a
    }

    fn names(a: &Answers, r: &Request) -> Vec<String> {
        match a.get(r) {
            Some(Ok(Body::Items(i))) => i.iter().map(|v| obj::head(v).name).collect(),
            other => panic!("{r:?}: {other:?}"),
        }
    }

    #[test]
    fn a_fleet_sends_its_optional_reads_with_the_first_round() {
        for scope in [Scope::All, Scope::Namespace("shop".into())] {
            let first = first_requests(&scope);
            assert_eq!(
                first[..plan::first_round(&scope).len()],
                plan::first_round(&scope)
            );
            for r in plan::blocker_reads(&scope) {
                assert!(first.contains(&r), "{r:?} not in the first round");
            }
        }
        // One HPA: the first round only (its reads go with the second).
        let one = Scope::One {
            namespace: "shop".into(),
            name: "web".into(),
        };
        assert_eq!(first_requests(&one), plan::first_round(&one));
    }

    #[test]
    fn a_whole_first_page_answers_the_lists_by_selector() {
        let mut a = answers(Body::Items(vec![pod("web-1", "web"), pod("api-1", "api")]));
        settle_namespace_lists(&mut a, &needs(true), Some("app=web"));
        assert_eq!(names(&a, &by(Coll::Pods, "app=web")), ["web-1"]);
        assert_eq!(names(&a, &by(Coll::PodMetrics, "app=web")), ["web-1"]);
        assert_eq!(a.map.len(), 2, "the namespace-wide answers are gone: {a:?}");
        // No resource metric: no PodMetrics (as no PodMetrics LIST would have been sent).
        let mut a = answers(Body::Items(vec![pod("web-1", "web")]));
        settle_namespace_lists(&mut a, &needs(false), Some("app=web"));
        assert!(a.get(&by(Coll::PodMetrics, "app=web")).is_none());
    }

    #[test]
    fn more_than_a_page_or_no_selector_leaves_only_what_was_listed_by_selector() {
        let mut a = answers(Body::MoreThanAPage);
        a.map.insert(
            by(Coll::Pods, "app=web"),
            Ok(Body::Items(vec![pod("web-1", "web")])),
        );
        settle_namespace_lists(&mut a, &needs(true), Some("app=web"));
        assert_eq!(a.map.len(), 1);
        let mut a = answers(Body::Items(vec![pod("web-1", "web")]));
        settle_namespace_lists(&mut a, &needs(true), None);
        assert!(a.map.is_empty());
    }
}
