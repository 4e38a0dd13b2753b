//! The metrics chain's reads (issue 28 items 2–4): the metrics APIServices (one cluster-wide
//! LIST in the first round), the Service behind each one an HPA of the scope reads and the
//! Deployments of its namespace (second round), and the rules ConfigMap an adapter's
//! `--config` names (third round: for one HPA beside its pods, for a fleet the one additional
//! round). Every read is optional: a failure is recorded under the List's fetch errors
//! (`metrics-chain/...`) and said in a note naming the RBAC verb, never the fetch's failure.
//! The number of requests depends on the adapters, not on the HPAs.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{json, Value};

use super::answers::{Answers, Body};
use super::chain_request::ChainRequest;
use super::failure::FetchError;
use super::obj::{self, Obj};
use super::plan::{HpaNeeds, MetricNeed, Request, Scope, PAGE_ONE};
use super::transport::{in_ns, named, Conn, What};
use crate::metrics_api::{MetricsApi, MetricsGroup};
use crate::snapshot::{rules_config_map, selects_deployment, slim_deployment};

use super::chain_request::APISERVICES;

/// The first round's read.
pub fn first_round() -> Request {
    Request::Chain(ChainRequest::ApiServices)
}

/// The metrics APIServices of the first round's answer.
fn apiservices(answers: &Answers) -> Vec<Value> {
    match answers.get(&first_round()) {
        Some(Ok(Body::Items(items))) => items
            .iter()
            .map(|o| obj::to_value(o))
            .filter(|v| {
                v.pointer("/metadata/name")
                    .and_then(Value::as_str)
                    .and_then(MetricsGroup::of_apiservice)
                    .is_some()
            })
            .collect(),
        _ => vec![],
    }
}

/// The metrics APIs the scope's HPAs read.
fn groups(scope: &Scope, hpas: &[HpaNeeds]) -> BTreeSet<MetricsGroup> {
    let mut out = BTreeSet::new();
    let of_scope = hpas.iter().filter(|h| match scope {
        Scope::One { namespace, name } => &h.namespace == namespace && &h.name == name,
        _ => true,
    });
    for h in of_scope {
        if h.uses_resource {
            out.insert(MetricsGroup::Resource);
        }
        for m in &h.metrics {
            out.insert(match m {
                MetricNeed::External { .. } => MetricsGroup::External,
                _ => MetricsGroup::Custom,
            });
        }
    }
    out
}

/// The second round: the Service behind each APIService of a group the HPAs read, and the
/// Deployments of its namespace.
pub fn second_round(answers: &Answers, scope: &Scope, hpas: &[HpaNeeds]) -> Vec<Request> {
    let used = groups(scope, hpas);
    let mut out = BTreeSet::new();
    for a in apiservices(answers) {
        let name = a.pointer("/metadata/name").and_then(Value::as_str);
        if !name
            .and_then(MetricsGroup::of_apiservice)
            .is_some_and(|g| used.contains(&g))
        {
            continue;
        }
        let s = a.pointer("/spec/service");
        let (Some(ns), Some(svc)) = (
            s.and_then(|s| s["namespace"].as_str()),
            s.and_then(|s| s["name"].as_str()),
        ) else {
            continue;
        };
        out.insert(Request::Chain(ChainRequest::Service {
            namespace: ns.into(),
            name: svc.into(),
        }));
        out.insert(Request::Chain(ChainRequest::Deployments {
            namespace: ns.into(),
        }));
    }
    out.into_iter().collect()
}

/// The Services and, per namespace, the Deployments the second round read.
fn second_answers(answers: &Answers) -> (Vec<Value>, BTreeMap<String, Vec<Value>>) {
    let mut services = Vec::new();
    let mut deployments: BTreeMap<String, Vec<Value>> = BTreeMap::new();
    for (r, a) in &answers.map {
        match (r, a) {
            (Request::Chain(ChainRequest::Service { .. }), Ok(Body::Object(v))) => {
                services.push(v.clone())
            }
            (Request::Chain(ChainRequest::Deployments { namespace }), Ok(Body::Items(i))) => {
                deployments.insert(
                    namespace.clone(),
                    i.iter().map(|o| obj::to_value(o)).collect(),
                );
            }
            _ => {}
        }
    }
    (services, deployments)
}

/// The Deployment behind a Service: the one its selector picks, else the one of its name.
fn behind<'a>(service: &Value, in_ns: &'a [Value]) -> Option<&'a Value> {
    let name = service.pointer("/metadata/name");
    service
        .pointer("/spec/selector")
        .and_then(Value::as_object)
        .and_then(|sel| in_ns.iter().find(|d| selects_deployment(sel, d)))
        .or_else(|| in_ns.iter().find(|d| d.pointer("/metadata/name") == name))
}

/// The adapters' Deployments, by the Services the second round read.
fn adapters(answers: &Answers) -> Vec<Value> {
    let (services, deployments) = second_answers(answers);
    let mut out: Vec<Value> = Vec::new();
    for s in &services {
        let ns = s
            .pointer("/metadata/namespace")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let d = deployments.get(ns).and_then(|d| behind(s, d));
        if let Some(d) = d.filter(|d| !out.contains(d)) {
            out.push(d.clone());
        }
    }
    out
}

/// The third round: the rules ConfigMap of each adapter whose `--config` names one.
pub fn third_round(answers: &Answers) -> Vec<Request> {
    let mut out = BTreeSet::new();
    for d in adapters(answers) {
        if let Some((namespace, name, key)) = rules_config_map(&d) {
            out.insert(Request::Chain(ChainRequest::ConfigMap {
                namespace,
                name,
                key,
            }));
        }
    }
    out.into_iter().collect()
}

/// Send one read of the chain.
pub async fn send(conn: &Conn, r: &ChainRequest) -> Result<Body, FetchError> {
    let api = FetchError::from_api;
    match r {
        ChainRequest::ApiServices => conn
            .list(
                APISERVICES,
                &[],
                None,
                ("apiregistration.k8s.io/v1", "APIService"),
                What {
                    verb: "list",
                    resource: "apiservices.apiregistration.k8s.io",
                    object: String::new(),
                },
            )
            .await
            .map(Body::Items)
            .map_err(api),
        ChainRequest::Service { namespace, name } => {
            get(conn, namespace, "services", name, ("v1", "Service")).await
        }
        ChainRequest::Deployments { namespace } => conn
            .list(
                &format!("/apis/apps/v1/namespaces/{namespace}/deployments"),
                &[],
                Some(PAGE_ONE),
                ("apps/v1", "Deployment"),
                What {
                    verb: "list",
                    resource: "deployments.apps",
                    object: in_ns(namespace),
                },
            )
            .await
            .map(Body::Items)
            .map_err(api),
        ChainRequest::ConfigMap {
            namespace, name, ..
        } => get(conn, namespace, "configmaps", name, ("v1", "ConfigMap")).await,
    }
}

async fn get(
    conn: &Conn,
    ns: &str,
    plural: &'static str,
    name: &str,
    (api_version, kind): (&str, &str),
) -> Result<Body, FetchError> {
    let what = What {
        verb: "get",
        resource: plural,
        object: named(name, ns),
    };
    let path = format!("/api/v1/namespaces/{ns}/{plural}/{name}");
    let mut v = conn
        .get_kind(&path, &[], what, kind)
        .await
        .map_err(FetchError::from_api)?;
    if let Some(o) = v.as_object_mut() {
        o.insert("apiVersion".into(), api_version.into());
        o.insert("kind".into(), kind.into());
    }
    Ok(Body::Object(v))
}

/// The chain's answers, taken out of the answers before they are assembled: the objects every
/// List gains, the failures under their fetch-errors keys, and a note for each failure.
pub struct Taken {
    pub objects: Vec<Obj>,
    /// The metrics APIServices the LIST returned (`None`: the LIST failed or was not made):
    /// the APIService that explains a failed metrics read is looked up here, not read again.
    pub listed: Option<Vec<Value>>,
    pub errors: Vec<(String, String)>,
    pub notes: Vec<String>,
}

/// Take the chain's answers out (the assembly of the other answers does not see them): the
/// metrics APIServices, the Services, the adapters' Deployments (slimmed: no environment, no
/// argument but `--config`) and the rules ConfigMaps (the rules key only).
pub fn take(answers: &mut Answers) -> Taken {
    let mut objects = apiservices(answers);
    let listed =
        matches!(answers.get(&first_round()), Some(Ok(Body::Items(_)))).then(|| objects.clone());
    let (services, _) = second_answers(answers);
    objects.extend(services);
    objects.extend(adapters(answers).iter().map(slim_deployment));
    let chain: Vec<Request> = answers
        .map
        .keys()
        .filter(|r| matches!(r, Request::Chain(_)))
        .cloned()
        .collect();
    let (mut errors, mut notes) = (Vec::new(), Vec::new());
    for r in chain {
        let Some(a) = answers.map.remove(&r) else {
            continue;
        };
        let Request::Chain(c) = r else { continue };
        match (&c, a) {
            (ChainRequest::ConfigMap { key, .. }, Ok(Body::Object(v))) => {
                let data = v["data"].get(key.as_str()).cloned();
                objects.push(json!({"apiVersion": "v1", "kind": "ConfigMap",
                    "metadata": {"name": v["metadata"]["name"], "namespace": v["metadata"]["namespace"]},
                    "data": data.map(|d| json!({ key.clone(): d })).unwrap_or(json!({}))}));
            }
            (_, Err(e)) => {
                let (verb, resource) = c.rbac();
                notes.push(format!(
                    "the metrics chain could not be read ({}): who serves the metrics may be unknown; reading it needs `{verb}` on {resource}",
                    e.client_go_text()
                ));
                errors.push((c.key(), e.client_go_text()));
            }
            _ => {}
        }
    }
    Taken {
        objects: objects.iter().map(obj::of_value).collect(),
        listed,
        errors,
        notes,
    }
}

/// The APIService `name` among the listed ones: its availability and object (absent from a
/// successful LIST: it does not exist).
pub fn listed_apiservice(listed: &[Value], name: &str) -> (MetricsApi, Option<Value>) {
    let found = listed
        .iter()
        .find(|v| v.pointer("/metadata/name").and_then(Value::as_str) == Some(name));
    (MetricsApi::from_apiservice(found), found.cloned())
}

/// The APIService of a metrics API that tells (the first of its APIServices, the preferred
/// version first, that exists) among the listed ones: its name, availability and object.
pub fn listed_group_apiservice(
    listed: &[Value],
    group: MetricsGroup,
) -> Option<(String, MetricsApi, Option<Value>)> {
    let mut last = None;
    for name in group.apiservices() {
        let (api, obj) = listed_apiservice(listed, name);
        let absent = api == MetricsApi::Absent;
        last = Some((name.to_string(), api, obj));
        if !absent {
            break;
        }
    }
    last
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answers(items: Vec<(Request, Body)>) -> Answers {
        let mut a = Answers::default();
        for (r, b) in items {
            a.map.insert(r, Ok(b));
        }
        a
    }

    fn objs(v: Vec<Value>) -> Body {
        Body::Items(v.iter().map(obj::of_value).collect())
    }

    fn apiservice(name: &str, ns: &str, svc: &str) -> Value {
        json!({"apiVersion": "apiregistration.k8s.io/v1", "kind": "APIService", "metadata": {"name": name},
            "spec": {"service": {"namespace": ns, "name": svc}}})
    }

    fn needs(uses_resource: bool, metrics: Vec<MetricNeed>) -> HpaNeeds {
        HpaNeeds {
            namespace: "shop".into(),
            name: "web".into(),
            target_api_version: "apps/v1".into(),
            target_kind: "Deployment".into(),
            target_name: "web".into(),
            uses_resource,
            metrics,
            keda_scaled_object: None,
        }
    }

    fn show(r: &[Request]) -> Vec<String> {
        r.iter()
            .map(|r| match r {
                Request::Chain(c) => c.show(),
                other => format!("{other:?}"),
            })
            .collect()
    }

    #[test]
    fn the_services_and_deployments_behind_the_apiservices_the_hpas_read() {
        let a = answers(vec![(
            first_round(),
            objs(vec![
                apiservice("v1beta1.metrics.k8s.io", "kube-system", "metrics-server"),
                apiservice(
                    "v1beta2.custom.metrics.k8s.io",
                    "monitoring",
                    "prometheus-adapter",
                ),
                apiservice(
                    "v1beta1.custom.metrics.k8s.io",
                    "monitoring",
                    "prometheus-adapter",
                ),
                apiservice(
                    "v1beta1.external.metrics.k8s.io",
                    "keda",
                    "keda-operator-metrics-apiserver",
                ),
                apiservice("v1.apps", "x", "y"),
            ]),
        )]);
        let scope = Scope::One {
            namespace: "shop".into(),
            name: "web".into(),
        };
        let pods = MetricNeed::Pods {
            metric: "rps".into(),
            metric_selector: String::new(),
        };
        assert_eq!(
            show(&second_round(&a, &scope, &[needs(true, vec![pods])])),
            [
                "get /api/v1/namespaces/kube-system/services/metrics-server (optional)",
                "get /api/v1/namespaces/monitoring/services/prometheus-adapter (optional)",
                "list /apis/apps/v1/namespaces/kube-system/deployments page=Some(500) (optional)",
                "list /apis/apps/v1/namespaces/monitoring/deployments page=Some(500) (optional)",
            ]
        );
        // 50 HPAs reading the same APIs: the same requests.
        let many: Vec<HpaNeeds> = (0..50).map(|_| needs(true, vec![])).collect();
        assert_eq!(second_round(&a, &Scope::All, &many).len(), 2);
        // Without the APIServices (403), nothing more.
        assert!(second_round(&Answers::default(), &scope, &many).is_empty());
    }

    #[test]
    fn the_rules_configmap_of_the_deployment_the_service_selects() {
        let svc = json!({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "prometheus-adapter", "namespace": "monitoring"},
            "spec": {"selector": {"app": "adapter"}}});
        let dep = |name: &str, app: &str| {
            json!({"metadata": {"name": name, "namespace": "monitoring"},
            "spec": {"template": {"metadata": {"labels": {"app": app}}, "spec": {
                "containers": [{"name": "a", "args": ["--config=/etc/adapter/config.yaml"], "env": [{"name": "T", "value": "secret"}],
                    "volumeMounts": [{"name": "config", "mountPath": "/etc/adapter"}]}],
                "volumes": [{"name": "config", "configMap": {"name": format!("{name}-config")}}]}}}})
        };
        let mut a = answers(vec![
            (
                Request::Chain(ChainRequest::Service {
                    namespace: "monitoring".into(),
                    name: "prometheus-adapter".into(),
                }),
                Body::Object(svc),
            ),
            (
                Request::Chain(ChainRequest::Deployments {
                    namespace: "monitoring".into(),
                }),
                objs(vec![
                    dep("grafana", "grafana"),
                    dep("custom-metrics", "adapter"),
                ]),
            ),
        ]);
        assert_eq!(
            show(&third_round(&a)),
            ["get /api/v1/namespaces/monitoring/configmaps/custom-metrics-config [config.yaml] (optional)"]
        );
        let cm = Request::Chain(ChainRequest::ConfigMap {
            namespace: "monitoring".into(),
            name: "custom-metrics-config".into(),
            key: "config.yaml".into(),
        });
        a.map.insert(
            cm,
            Ok(Body::Object(
                json!({"metadata": {"name": "custom-metrics-config", "namespace": "monitoring"},
                "data": {"config.yaml": "rules: []", "token": "secret"}}),
            )),
        );
        let taken = take(&mut a);
        assert!(a.map.is_empty());
        let text: String = taken.objects.iter().map(|o| o.get().to_string()).collect();
        assert!(!text.contains("secret"), "{text}");
        assert!(!text.contains("grafana"), "{text}");
        assert!(text.contains("rules: []"), "{text}");
    }
}
