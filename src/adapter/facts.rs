//! The chain of each metric, from the snapshot: the APIService the controller reads it
//! through, its Service and availability, the adapter behind it and, when the metric failed,
//! why (prometheus-adapter's rules, metrics-server's missing samples, KEDA's trigger health).

use k8s_openapi::api::autoscaling::v2::HorizontalPodAutoscaler;
use serde::Serialize;
use serde_json::Value;

use super::rules::{self, RuleSet};
use super::who::{recognise, AdapterKind};
use crate::core::{Decision, Input, MetricSpec};
use crate::metrics_api::{resource_apiservice, MetricsApi, MetricsGroup, METRICS_APISERVICE_V1};
use crate::snapshot::Snapshot;

/// The metrics chain of one HPA (`metricsChain` in the JSON contract).
#[derive(Debug, Clone, PartialEq, Default, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct MetricsChain {
    /// Said first when set: KEDA manages the HPA but another adapter holds the external
    /// metrics APIService, so neither its metrics nor KEDA's fallback reach the HPA.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub keda_conflict: Option<KedaConflict>,
    /// One entry per `spec.metrics` entry, in order (Resource metrics included).
    pub metrics: Vec<MetricLink>,
    /// What could not be read of the chain (the RBAC verb to ask for), in words.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

/// KEDA's external metrics APIService served by another adapter.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct KedaConflict {
    pub scaled_object: String,
    pub api_service: String,
    /// The Service the APIService points to (`namespace/name`).
    pub service: Option<String>,
    pub adapter: AdapterKind,
}

/// One metric's chain.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct MetricLink {
    /// 1-based, as in the Metrics table.
    pub index: usize,
    /// The metric's name in the API (`cpu`, `http_requests`, `s0-prometheus`).
    pub metric: String,
    /// `metrics.k8s.io`, `custom.metrics.k8s.io` or `external.metrics.k8s.io`.
    pub api: String,
    /// The APIService the controller reads it through; `None`: the snapshot holds none.
    pub api_service: Option<String>,
    /// The Service behind it (`namespace/name`); `None` when the API server serves it itself.
    pub service: Option<String>,
    /// The APIService's `Available` condition (`None`: unknown).
    pub available: Option<bool>,
    pub reason: Option<String>,
    pub message: Option<String>,
    pub adapter: Option<AdapterKind>,
    /// What recognised the adapter (`Service keda/keda-operator-metrics-apiserver`).
    pub recognised_by: Option<String>,
    /// The adapter's Deployment (`namespace/name`), when the snapshot holds it.
    pub deployment: Option<String>,
    /// Whether the controller's read of this metric fails (`<unknown>` in kubectl).
    pub failed: bool,
    /// Why it fails (or why it may), in words; the diagnostics give the action.
    pub cause: Option<String>,
    /// prometheus-adapter: what its rules say of this metric's name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rules: Option<RulesFacts>,
    /// metrics-server: the target's pods it has no sample for.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub pods_without_samples: Vec<String>,
    /// KEDA: the trigger behind an `s<i>-…` metric and its health.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub keda_trigger: Option<KedaTrigger>,
}

/// prometheus-adapter's rules against one metric name.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RulesFacts {
    /// The ConfigMap (`namespace/name`) and key the adapter's `--config` names.
    pub config_map: String,
    pub key: String,
    /// `rules` or `externalRules`.
    pub list: String,
    /// How many rules the list holds (`None`: the rules could not be read).
    pub rules: Option<usize>,
    /// The rules that give the metric's name, and the series each maps to it.
    pub matched_by: Vec<rules::RuleMatch>,
    /// The names the rules give, nearest to the metric's first (`name`, `rule`).
    pub nearest: Vec<NearName>,
    /// Rules that cannot work as written, in words.
    pub broken: Vec<String>,
    /// Why the rules could not be read (the ConfigMap is missing, unreadable or not YAML).
    pub unreadable: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct NearName {
    pub name: String,
    pub rule: String,
}

/// The trigger behind a KEDA metric.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct KedaTrigger {
    pub scaled_object: String,
    pub trigger_index: Option<usize>,
    pub trigger_type: Option<String>,
    /// `status.health[metric].status` (`Happy`, `Failing`).
    pub health: Option<String>,
    pub failures: Option<i64>,
    pub failure_threshold: Option<i64>,
    pub in_fallback: bool,
}

/// An APIService as the chain reads it.
struct ApiService<'a> {
    name: String,
    obj: &'a Value,
}

/// The chain of every metric of `input`'s HPA.
pub fn metrics_chain(snap: &Snapshot, input: &Input, d: &Decision) -> MetricsChain {
    let ns = input.hpa.namespace.as_str();
    // by the snapshot's index (cluster-scoped: no namespace), not a scan of the file per HPA
    let apiservices: Vec<ApiService<'_>> = snap
        .others_of("APIService", "")
        .filter(|o| o["apiVersion"] == "apiregistration.k8s.io/v1")
        .filter_map(|o| {
            let name = o.pointer("/metadata/name")?.as_str()?;
            MetricsGroup::of_apiservice(name)?;
            Some(ApiService {
                name: name.to_string(),
                obj: o,
            })
        })
        .collect();
    let mut chain = MetricsChain {
        notes: notes(snap, ns),
        ..MetricsChain::default()
    };
    let hpa = snap.hpa(ns, &input.hpa.name).ok();
    let keda = hpa.and_then(|h| Some((h, crate::keda::owner::owner(h)?)));
    let negotiates = input.settings.kubernetes_version.at_least(37);
    for (i, spec) in input.hpa.metrics.iter().enumerate() {
        let Some((group, metric)) = group_of(spec) else {
            continue;
        };
        let api = pick(&apiservices, group, negotiates);
        let mut link = link_of(snap, i, group, &metric, api);
        link.failed = d.metrics.get(i).is_some_and(|m| m.error.is_some());
        if let Some((h, owner)) = &keda {
            if group == MetricsGroup::External {
                link.keda_trigger = keda_trigger(snap, h, &owner.scaled_object, &metric, d.now);
                let not_keda = link.adapter.is_some_and(|a| a != AdapterKind::Keda);
                if not_keda && chain.keda_conflict.is_none() {
                    chain.keda_conflict = Some(KedaConflict {
                        scaled_object: owner.scaled_object.clone(),
                        api_service: link.api_service.clone().unwrap_or_default(),
                        service: link.service.clone(),
                        adapter: link.adapter.unwrap_or(AdapterKind::Unknown),
                    });
                }
            }
        }
        if group == MetricsGroup::Resource && link.adapter == Some(AdapterKind::MetricsServer) {
            link.pods_without_samples = without_samples(input);
        }
        if link.adapter == Some(AdapterKind::PrometheusAdapter) && group != MetricsGroup::Resource {
            link.rules = rules_facts(snap, &link, group, spec, &metric);
        }
        link.cause = cause(&link, chain.keda_conflict.as_ref());
        chain.metrics.push(link);
    }
    chain
}

impl MetricsChain {
    /// Whether anything is known of the chain: the snapshot holds a metrics APIService, or
    /// its reads failed (a file without the chain says nothing of it).
    pub fn is_known(&self) -> bool {
        self.keda_conflict.is_some()
            || !self.notes.is_empty()
            || self.metrics.iter().any(|m| m.api_service.is_some())
    }
}

/// The API and the name the controller asks for.
fn group_of(spec: &MetricSpec) -> Option<(MetricsGroup, String)> {
    match spec {
        MetricSpec::Resource { resource, .. } | MetricSpec::ContainerResource { resource, .. } => {
            Some((MetricsGroup::Resource, resource.clone()))
        }
        MetricSpec::Pods { metric, .. } | MetricSpec::Object { metric, .. } => {
            Some((MetricsGroup::Custom, metric.clone()))
        }
        MetricSpec::External { metric, .. } => Some((MetricsGroup::External, metric.clone())),
        MetricSpec::Unknown { .. } => None,
    }
}

/// The APIService the controller reads a group through: resource metrics as the release
/// negotiates them, else the first of the group's that the snapshot holds.
fn pick<'a, 'b>(
    all: &'b [ApiService<'a>],
    group: MetricsGroup,
    negotiates: bool,
) -> Option<&'b ApiService<'a>> {
    let find = |n: &str| all.iter().find(|a| a.name == n);
    if group == MetricsGroup::Resource {
        let v1 = find(METRICS_APISERVICE_V1).is_some();
        return find(resource_apiservice(v1, negotiates));
    }
    group.apiservices().iter().find_map(|n| find(n))
}

fn api_words(group: MetricsGroup) -> &'static str {
    match group {
        MetricsGroup::Resource => "metrics.k8s.io",
        MetricsGroup::Custom => "custom.metrics.k8s.io",
        MetricsGroup::External => "external.metrics.k8s.io",
    }
}

/// The link of one metric: APIService, Service, availability, adapter.
fn link_of(
    snap: &Snapshot,
    i: usize,
    group: MetricsGroup,
    metric: &str,
    api: Option<&ApiService<'_>>,
) -> MetricLink {
    let mut link = MetricLink {
        index: i + 1,
        metric: metric.to_string(),
        api: api_words(group).into(),
        api_service: api.map(|a| a.name.clone()),
        service: None,
        available: None,
        reason: None,
        message: None,
        adapter: None,
        recognised_by: None,
        deployment: None,
        failed: false,
        cause: None,
        rules: None,
        pods_without_samples: vec![],
        keda_trigger: None,
    };
    let Some(api) = api else { return link };
    match MetricsApi::from_apiservice(Some(api.obj)) {
        MetricsApi::Available => link.available = Some(true),
        MetricsApi::Unavailable { reason, message } => {
            link.available = Some(false);
            link.reason = Some(reason);
            link.message = Some(message);
        }
        _ => {}
    }
    let svc = api.obj.pointer("/spec/service");
    let svc_ns = svc.and_then(|s| s["namespace"].as_str());
    let svc_name = svc.and_then(|s| s["name"].as_str());
    let (Some(svc_ns), Some(svc_name)) = (svc_ns, svc_name) else {
        return link;
    };
    link.service = Some(format!("{svc_ns}/{svc_name}"));
    let deployment = deployment_behind(snap, svc_ns, svc_name);
    link.deployment = deployment.map(|d| {
        format!(
            "{svc_ns}/{}",
            d.pointer("/metadata/name")
                .and_then(Value::as_str)
                .unwrap_or_default()
        )
    });
    let (kind, why) = recognise(link.service.as_deref(), deployment);
    link.adapter = Some(kind);
    link.recognised_by = why;
    link
}

/// The Deployment whose pods the Service selects (else the one named as the Service).
fn deployment_behind<'a>(snap: &'a Snapshot, ns: &str, name: &str) -> Option<&'a Value> {
    let in_ns: Vec<&Value> = snap
        .chain
        .deployments
        .iter()
        .filter(|d| d.pointer("/metadata/namespace").and_then(Value::as_str) == Some(ns))
        .collect();
    let service = snap
        .others_of("Service", ns)
        .find(|o| o.pointer("/metadata/name").and_then(Value::as_str) == Some(name));
    let selector = service
        .and_then(|s| s.pointer("/spec/selector"))
        .and_then(Value::as_object)
        .filter(|s| !s.is_empty());
    if let Some(sel) = selector {
        if let Some(d) = in_ns
            .iter()
            .find(|d| crate::snapshot::selects_deployment(sel, d))
        {
            return Some(d);
        }
    }
    in_ns
        .into_iter()
        .find(|d| d.pointer("/metadata/name").and_then(Value::as_str) == Some(name))
}

/// The target's pods that have no PodMetrics.
fn without_samples(input: &Input) -> Vec<String> {
    let Ok(usages) = &input.pod_metrics else {
        return vec![];
    };
    input
        .pods
        .iter()
        .filter(|p| !p.deleting && p.phase == "Running")
        .filter(|p| !usages.iter().any(|u| u.pod == p.name))
        .map(|p| p.name.clone())
        .collect()
}

/// The trigger behind a KEDA metric and its health, from the ScaledObject when the snapshot
/// holds it (else only its name).
fn keda_trigger(
    snap: &Snapshot,
    hpa: &HorizontalPodAutoscaler,
    scaled_object: &str,
    metric: &str,
    now: jiff::Timestamp,
) -> Option<KedaTrigger> {
    let ns = hpa.metadata.namespace.as_deref().unwrap_or("default");
    let so = snap
        .scaled_object(ns, scaled_object)
        .filter(|o| o["apiVersion"] == crate::keda::owner::API_VERSION);
    let mut t = KedaTrigger {
        scaled_object: scaled_object.to_string(),
        trigger_index: None,
        trigger_type: None,
        health: None,
        failures: None,
        failure_threshold: None,
        in_fallback: false,
    };
    if let Some(so) = so {
        let f = crate::keda::facts::facts(so, hpa, now);
        if let Some(m) = f.metrics.iter().find(|m| m.hpa_metric == metric) {
            t.trigger_index = m.trigger_index;
            t.trigger_type = m.trigger_type.clone();
        }
        if let Some(h) = f.fallback.iter().find(|h| h.metric == metric) {
            t.health = h.status.clone();
            t.failures = Some(h.failures);
            t.failure_threshold = h.failure_threshold;
            t.in_fallback = h.in_fallback;
        }
    }
    if t.trigger_index.is_none() {
        // `s<i>-…`: trigger i (pkg/scalers/scaler.go GenerateMetricNameWithIndex).
        t.trigger_index = metric
            .strip_prefix('s')
            .and_then(|r| r.split_once('-'))
            .and_then(|(n, _)| n.parse().ok());
    }
    Some(t)
}

/// What prometheus-adapter's rules say of the metric.
fn rules_facts(
    snap: &Snapshot,
    link: &MetricLink,
    group: MetricsGroup,
    spec: &MetricSpec,
    metric: &str,
) -> Option<RulesFacts> {
    let (dep_ns, dep_name) = link.deployment.as_deref()?.split_once('/')?;
    let dep = snap.chain.deployments.iter().find(|d| {
        d.pointer("/metadata/namespace").and_then(Value::as_str) == Some(dep_ns)
            && d.pointer("/metadata/name").and_then(Value::as_str) == Some(dep_name)
    })?;
    let (ns, name, key) = crate::snapshot::rules_config_map(dep)?;
    let set = match group {
        MetricsGroup::External => RuleSet::External,
        _ => RuleSet::Custom,
    };
    let mut facts = RulesFacts {
        config_map: format!("{ns}/{name}"),
        key: key.clone(),
        list: set.field().into(),
        rules: None,
        matched_by: vec![],
        nearest: vec![],
        broken: vec![],
        unreadable: None,
    };
    let cm = snap.chain.config_maps.iter().find(|c| {
        c.pointer("/metadata/namespace").and_then(Value::as_str) == Some(ns.as_str())
            && c.pointer("/metadata/name").and_then(Value::as_str) == Some(name.as_str())
    });
    let text = cm.and_then(|c| c["data"][key.as_str()].as_str());
    let Some(text) = text else {
        facts.unreadable = Some(match cm {
            Some(_) => format!("ConfigMap {ns}/{name} has no key {key}"),
            None => format!("the snapshot does not hold ConfigMap {ns}/{name}"),
        });
        return Some(facts);
    };
    let cfg = match rules::parse(text) {
        Ok(c) => c,
        Err(e) => {
            facts.unreadable = Some(format!("ConfigMap {ns}/{name} key {key}: {e}"));
            return Some(facts);
        }
    };
    let resource = match spec {
        MetricSpec::Pods { .. } => Some("pods".to_string()),
        MetricSpec::Object { kind, .. } => Some(format!("{}s", kind.to_lowercase())),
        _ => None,
    };
    let v = rules::verdict(&cfg, set, metric, resource.as_deref());
    facts.rules = Some(v.rules);
    facts.matched_by = v.matches;
    facts.nearest = v
        .nearest
        .into_iter()
        .map(|(name, rule)| NearName { name, rule })
        .collect();
    facts.broken = v.broken;
    Some(facts)
}

/// Why the metric fails (or may), in words.
fn cause(link: &MetricLink, keda: Option<&KedaConflict>) -> Option<String> {
    if link.api_service.is_none() {
        return link
            .failed
            .then(|| format!("no APIService serves {} in the snapshot", link.api));
    }
    if let (Some(k), "external.metrics.k8s.io") = (keda, link.api.as_str()) {
        return Some(format!(
            "{} is held by {}{}, not KEDA's metrics server: the HPA never reaches KEDA, so neither this metric nor ScaledObject {}'s fallback works",
            k.api_service,
            k.adapter.words(),
            k.service.as_deref().map(|s| format!(" (Service {s})")).unwrap_or_default(),
            k.scaled_object
        ));
    }
    if link.available == Some(false) {
        return Some(format!(
            "APIService {} is not available ({}: {})",
            link.api_service.as_deref().unwrap_or_default(),
            link.reason.as_deref().unwrap_or_default(),
            link.message.as_deref().unwrap_or_default()
        ));
    }
    if let Some(r) = &link.rules {
        return rules_cause(r, &link.metric, link.failed);
    }
    if let Some(t) = &link.keda_trigger {
        if t.health.as_deref() == Some("Failing") || t.in_fallback {
            return Some(format!(
                "trigger {} ({}) of ScaledObject {} is failing: {} failure(s){}",
                t.trigger_index.map_or("?".into(), |i| i.to_string()),
                t.trigger_type.as_deref().unwrap_or("unknown type"),
                t.scaled_object,
                t.failures.unwrap_or(0),
                match (t.in_fallback, t.failure_threshold) {
                    (true, _) => ", in fallback: the HPA reads a synthetic value".to_string(),
                    (false, Some(n)) => format!(" of the {n} fallback allows"),
                    (false, None) => ", and no fallback".to_string(),
                }
            ));
        }
    }
    if !link.pods_without_samples.is_empty() {
        return Some(format!(
            "metrics-server has no sample for {} pod(s): {}",
            link.pods_without_samples.len(),
            some(&link.pods_without_samples, 3)
        ));
    }
    None
}

/// The rules' verdict in words.
fn rules_cause(r: &RulesFacts, metric: &str, failed: bool) -> Option<String> {
    if let Some(u) = &r.unreadable {
        return failed.then(|| format!("prometheus-adapter's rules could not be read: {u}"));
    }
    if let Some(m) = r.matched_by.iter().find(|m| m.resource_missing.is_some()) {
        if r.matched_by.iter().all(|m| m.resource_missing.is_some()) {
            return Some(format!(
                "{} of ConfigMap {} names {metric} but does not associate {} (resources), so the adapter does not list it for them",
                m.rule,
                r.config_map,
                m.resource_missing.as_deref().unwrap_or_default()
            ));
        }
    }
    match r.matched_by.first() {
        None => Some(format!(
            "no rule of ConfigMap {} ({}, {} rule(s)) names {metric}{}",
            r.config_map,
            r.list,
            r.rules.unwrap_or(0),
            match r.nearest.first() {
                Some(n) => format!("; nearest: {} ({})", n.name, n.rule),
                None => String::new(),
            }
        )),
        Some(m) if failed && !m.exact => Some(format!(
            "{} maps the series {} to {metric}: Prometheus may have no such series with the labels its seriesQuery asks for",
            m.rule, m.series
        )),
        Some(_) => None,
    }
}

/// The first `max` names, and how many more.
fn some(names: &[String], max: usize) -> String {
    let mut s = names
        .iter()
        .take(max)
        .cloned()
        .collect::<Vec<_>>()
        .join(", ");
    if names.len() > max {
        s.push_str(&format!(" and {} more", names.len() - max));
    }
    s
}

/// The chain's reads that failed when the snapshot was taken, in words.
fn notes(snap: &Snapshot, ns: &str) -> Vec<String> {
    snap.chain_errors(ns)
        .into_iter()
        .map(|(what, text)| {
            let (verb, resource) = match what.split('/').next().unwrap_or_default() {
                "apiservices" => ("list", "apiservices.apiregistration.k8s.io"),
                "service" => ("get", "services"),
                "deployments" => ("list", "deployments.apps"),
                _ => ("get", "configmaps"),
            };
            format!(
                "the metrics chain's {what} could not be read ({text}): who serves the metrics may be unknown; reading it needs `{verb}` on {resource}"
            )
        })
        .collect()
}
