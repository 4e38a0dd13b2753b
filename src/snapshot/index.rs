//! Indexes over a snapshot, built once, so that each HPA finds its target, pods, metrics,
//! events and the other HPAs selecting its pods in time proportional to its own objects:
//! `explain -A` over a whole cluster stays linear in the number of HPAs.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::ops::Range;

use serde_json::Value;

use k8s_openapi::api::autoscaling::v2::HorizontalPodAutoscaler;

use super::to_core::Workload;
use super::wire::Pod;
use crate::labels::{Requirement, Selector};
use crate::metrics_api::{ExternalMetricValue, MetricValue, PodMetrics};

type Key2 = (String, String);

/// The vectors of a snapshot that the indexes point into.
#[derive(Clone, Copy)]
pub(crate) struct Parts<'a> {
    pub hpas: &'a [HorizontalPodAutoscaler],
    pub workloads: &'a [Workload],
    pub pods: &'a [Pod],
    pub other: &'a [Value],
    pub pod_metrics: &'a [PodMetrics],
    pub custom_metrics: &'a [MetricValue],
    pub external_metrics: &'a [ExternalMetricValue],
}

/// Positions in the snapshot's vectors, by what the evaluation looks up.
#[derive(Debug, Clone, Default)]
pub(crate) struct Index {
    /// The lengths of the indexed vectors when built: a snapshot changed since is indexed
    /// afresh ([`Index::sizes_of`]).
    pub sizes: [usize; 7],
    pub hpas: HashMap<Key2, usize>,
    pub pods_by_ns: HashMap<String, Vec<usize>>,
    /// `(namespace, key, value)` → pods with that label.
    pub pods_by_label: HashMap<(String, String, String), Vec<usize>>,
    pub pod_by_name: HashMap<Key2, usize>,
    pub workloads: HashMap<Key2, Vec<usize>>,
    pub pod_metrics_by_ns: HashMap<String, Vec<usize>>,
    /// `(namespace, key, value)` → PodMetrics carrying that label (the selector picks them).
    pub pod_metrics_by_label: HashMap<(String, String, String), Vec<usize>>,
    /// `(namespace, name)` → PodMetrics without labels (picked by their pod's name).
    pub pod_metrics_unlabelled: HashMap<Key2, Vec<usize>>,
    pub custom_by_metric: HashMap<String, Vec<usize>>,
    pub external_by_metric: HashMap<String, Vec<usize>>,
    /// Events by involved object `(namespace, name)`: a range of `other` (sorted by it).
    pub events: HashMap<Key2, Range<usize>>,
    /// The kept objects (`other`) by `(kind, namespace)` — the namespace of their metadata,
    /// "" for cluster-scoped ones — in file order: the checks of each HPA (quotas, budgets,
    /// VPAs, LimitRanges, FailedCreate Events, Services, ScaledObjects) read their namespace's
    /// objects, not the whole file (`explain -A` stays linear in the number of HPAs).
    pub other_by_kind: HashMap<Key2, Vec<usize>>,
    /// HPAs (positions, in file order) by `(namespace, scaleTargetRef.kind, .name)`: the other
    /// autoscalers of a target (KEDA's conflicts) without a scan of every HPA per HPA.
    pub hpas_by_target: HashMap<(String, String, String), Vec<usize>>,
    /// The Events by `(namespace, reason)` (namespace of their metadata), in the order of
    /// [`Index::other_by_kind`]: a check reading one reason (`FailedCreate`) of its namespace
    /// does not read every Event of the namespace per HPA.
    pub events_by_reason: HashMap<Key2, Vec<usize>>,
    /// Pod position → the HPAs (positions) whose target's selector picks it (filled by the
    /// snapshot, which resolves targets: [`Index::add_selecting`]).
    pub selecting: HashMap<usize, Vec<usize>>,
    /// The newest sample timestamp among the metrics, parsed once per file
    /// (`Snapshot::newest_metric_time`).
    pub newest_metric: Option<jiff::Timestamp>,
}

fn ns_or_default(ns: Option<&str>) -> String {
    ns.unwrap_or("default").to_string()
}

/// The `(namespace, name)` an Event is about (v1 `involvedObject`, events.k8s.io `regarding`).
pub(crate) fn event_subject(v: &Value) -> Option<(String, String)> {
    if v.get("kind").and_then(Value::as_str) != Some("Event") {
        return None;
    }
    let about = v.get("involvedObject").or_else(|| v.get("regarding"))?;
    let name = about.get("name")?.as_str()?.to_string();
    let ns = about
        .get("namespace")
        .and_then(Value::as_str)
        .or_else(|| v.pointer("/metadata/namespace").and_then(Value::as_str))
        .unwrap_or("default")
        .to_string();
    Some((ns, name))
}

/// The newest parsable sample timestamp of the PodMetrics, MetricValues and
/// ExternalMetricValues.
fn newest_metric(s: Parts<'_>) -> Option<jiff::Timestamp> {
    let a = s.pod_metrics.iter().filter_map(|m| m.timestamp.as_deref());
    let b = s
        .custom_metrics
        .iter()
        .filter_map(|m| m.timestamp.as_deref());
    let c = s
        .external_metrics
        .iter()
        .filter_map(|m| m.timestamp.as_deref());
    a.chain(b)
        .chain(c)
        .filter_map(|t| t.parse::<jiff::Timestamp>().ok())
        .max()
}

impl Index {
    pub fn sizes_of(s: Parts<'_>) -> [usize; 7] {
        [
            s.hpas.len(),
            s.workloads.len(),
            s.pods.len(),
            s.other.len(),
            s.pod_metrics.len(),
            s.custom_metrics.len(),
            s.external_metrics.len(),
        ]
    }

    /// The indexes of everything but [`Index::selecting`].
    pub fn build(s: Parts<'_>) -> Index {
        let mut ix = Index {
            sizes: Index::sizes_of(s),
            ..Default::default()
        };
        for (i, h) in s.hpas.iter().enumerate() {
            let key = (
                ns_or_default(h.metadata.namespace.as_deref()),
                h.metadata.name.clone().unwrap_or_default(),
            );
            let r = &h.spec.scale_target_ref;
            ix.hpas_by_target
                .entry((key.0.clone(), r.kind.clone(), r.name.clone()))
                .or_default()
                .push(i);
            ix.hpas.entry(key).or_insert(i);
        }
        for (i, p) in s.pods.iter().enumerate() {
            let ns = ns_or_default(p.metadata.namespace.as_deref());
            if let Some(n) = &p.metadata.name {
                ix.pod_by_name.entry((ns.clone(), n.clone())).or_insert(i);
            }
            for (k, v) in p.metadata.labels.iter().flatten() {
                ix.pods_by_label
                    .entry((ns.clone(), k.clone(), v.clone()))
                    .or_default()
                    .push(i);
            }
            ix.pods_by_ns.entry(ns).or_default().push(i);
        }
        for (i, w) in s.workloads.iter().enumerate() {
            ix.workloads
                .entry((w.namespace.clone(), w.name.clone()))
                .or_default()
                .push(i);
        }
        for (i, m) in s.pod_metrics.iter().enumerate() {
            let ns = ns_or_default(m.metadata.namespace.as_deref());
            match &m.metadata.labels {
                Some(labels) => {
                    for (k, v) in labels {
                        ix.pod_metrics_by_label
                            .entry((ns.clone(), k.clone(), v.clone()))
                            .or_default()
                            .push(i);
                    }
                }
                None => ix
                    .pod_metrics_unlabelled
                    .entry((ns.clone(), m.metadata.name.clone().unwrap_or_default()))
                    .or_default()
                    .push(i),
            }
            ix.pod_metrics_by_ns.entry(ns).or_default().push(i);
        }
        for (i, m) in s.custom_metrics.iter().enumerate() {
            ix.custom_by_metric
                .entry(m.metric.name.clone())
                .or_default()
                .push(i);
        }
        for (i, m) in s.external_metrics.iter().enumerate() {
            ix.external_by_metric
                .entry(m.metric_name.clone())
                .or_default()
                .push(i);
        }
        ix.index_events(s.other);
        for (i, o) in s.other.iter().enumerate() {
            let kind = o.get("kind").and_then(Value::as_str).unwrap_or_default();
            let ns = o
                .pointer("/metadata/namespace")
                .and_then(Value::as_str)
                .unwrap_or_default();
            ix.other_by_kind
                .entry((kind.to_string(), ns.to_string()))
                .or_default()
                .push(i);
            if let ("Event", Some(reason)) = (kind, o.get("reason").and_then(Value::as_str)) {
                ix.events_by_reason
                    .entry((ns.to_string(), reason.to_string()))
                    .or_default()
                    .push(i);
            }
        }
        ix.newest_metric = newest_metric(s);
        ix
    }

    /// `other` is kept sorted by event subject (`Snapshot::sort_other`): one range each.
    fn index_events(&mut self, other: &[Value]) {
        let mut i = 0;
        while i < other.len() {
            let Some(key) = event_subject(&other[i]) else {
                i += 1;
                continue;
            };
            let start = i;
            while i < other.len() && event_subject(&other[i]).as_ref() == Some(&key) {
                i += 1;
            }
            self.events.entry(key).or_insert(start..i);
        }
    }

    /// Record that HPA `hpa` (a position) selects these pods.
    pub fn add_selecting(&mut self, hpa: usize, pods: Vec<usize>) {
        for p in pods {
            self.selecting.entry(p).or_default().push(hpa);
        }
    }

    /// The pods of `ns` that `sel` picks, in snapshot order: through the label index when the
    /// selector requires a label value, else by scanning the namespace.
    pub fn select(&self, pods: &[Pod], ns: &str, sel: &Selector) -> Vec<usize> {
        let empty = BTreeMap::new();
        let pool = by_label(&self.pods_by_label, ns, sel)
            .unwrap_or_else(|| self.pods_by_ns.get(ns).cloned().unwrap_or_default());
        pool.into_iter()
            .filter(|&i| counted_match(sel, pods[i].metadata.labels.as_ref().unwrap_or(&empty)))
            .collect()
    }

    /// The PodMetrics of `ns` that `sel` picks, in snapshot order: those carrying labels by the
    /// selector, those without by the names of the `selected` pods (the pods `sel` picks).
    pub fn select_pod_metrics(
        &self,
        metrics: &[PodMetrics],
        ns: &str,
        sel: &Selector,
        selected: &HashSet<&str>,
    ) -> Vec<usize> {
        let pool = match by_label(&self.pod_metrics_by_label, ns, sel) {
            Some(mut pool) => {
                for name in selected {
                    let unlabelled = self
                        .pod_metrics_unlabelled
                        .get(&(ns.to_string(), name.to_string()));
                    pool.extend(unlabelled.into_iter().flatten());
                }
                pool.sort_unstable();
                pool.dedup();
                pool
            }
            None => self.pod_metrics_by_ns.get(ns).cloned().unwrap_or_default(),
        };
        pool.into_iter()
            .filter(|&i| {
                let m = &metrics[i].metadata;
                match &m.labels {
                    Some(l) => counted_match(sel, l),
                    None => selected.contains(m.name.as_deref().unwrap_or("")),
                }
            })
            .collect()
    }
}

/// The candidates a selector's narrowest required label value allows (sorted), through a
/// `(namespace, key, value)` index; `None` when it requires no value (`!tier`, `app`).
fn by_label(
    index: &HashMap<(String, String, String), Vec<usize>>,
    ns: &str,
    sel: &Selector,
) -> Option<Vec<usize>> {
    let label = |k: &str, v: &str| {
        index
            .get(&(ns.to_string(), k.to_string(), v.to_string()))
            .map_or(&[][..], Vec::as_slice)
    };
    let mut best: Option<Vec<usize>> = None;
    for r in &sel.requirements {
        let candidates: Vec<usize> = match r {
            Requirement::Equals(k, v) => label(k, v).to_vec(),
            Requirement::In(k, vs) => {
                let mut c: Vec<usize> = vs.iter().flat_map(|v| label(k, v)).copied().collect();
                c.sort_unstable();
                c.dedup();
                c
            }
            _ => continue,
        };
        if best.as_ref().is_none_or(|b| candidates.len() < b.len()) {
            best = Some(candidates);
        }
    }
    best
}

#[cfg(test)]
thread_local! {
    /// How many objects the lookups tested against a selector on this thread (tests: the
    /// per-HPA lookups must read the HPA's own objects, not its namespace's).
    pub(crate) static MATCHED: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// `sel.matches(labels)`, counted in tests ([`MATCHED`]).
fn counted_match(sel: &Selector, labels: &BTreeMap<String, String>) -> bool {
    #[cfg(test)]
    MATCHED.with(|c| c.set(c.get() + 1));
    sel.matches(labels)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn pods() -> Vec<Pod> {
        let mut pods = vec![];
        for (i, (ns, app, tier)) in [
            ("a", "web", "front"),
            ("a", "web", "back"),
            ("a", "api", "back"),
            ("b", "web", "front"),
            ("a", "web", ""),
        ]
        .iter()
        .enumerate()
        {
            let mut labels = json!({"app": app});
            if !tier.is_empty() {
                labels["tier"] = json!(tier);
            }
            let v = json!({"apiVersion": "v1", "kind": "Pod",
                "metadata": {"name": format!("p{i}"), "namespace": ns, "labels": labels}});
            pods.push(serde_json::from_value(v).expect("pod"));
        }
        pods
    }

    fn other() -> Vec<Value> {
        let event = |name: &str, about: &str, reason: &str| {
            json!({"apiVersion": "v1", "kind": "Event", "metadata": {"name": name, "namespace": "a"},
                "involvedObject": {"kind": "HorizontalPodAutoscaler", "name": about, "namespace": "a"}, "reason": reason})
        };
        vec![
            json!({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "s", "namespace": "a"}}),
            event("e1", "web", "X"),
            event("e2", "web", "Y"),
            event("e3", "api", "Z"),
        ]
    }

    fn parts<'a>(pods: &'a [Pod], other: &'a [Value]) -> Parts<'a> {
        Parts {
            hpas: &[],
            workloads: &[],
            pods,
            other,
            pod_metrics: &[],
            custom_metrics: &[],
            external_metrics: &[],
        }
    }

    #[test]
    fn selection_through_the_label_index_equals_a_scan() {
        let pods = pods();
        let ix = Index::build(parts(&pods, &[]));
        for sel in [
            "app=web",
            "app=web,tier=front",
            "app in (web,api),tier!=front",
            "tier notin (back)",
            "!tier",
            "app",
            "",
        ] {
            let parsed = Selector::parse(sel).expect("selector");
            let scan: Vec<usize> = (0..pods.len())
                .filter(|&i| pods[i].metadata.namespace.as_deref() == Some("a"))
                .filter(|&i| parsed.matches(pods[i].metadata.labels.as_ref().expect("labels")))
                .collect();
            assert_eq!(ix.select(&pods, "a", &parsed), scan, "{sel}");
        }
    }

    #[test]
    fn the_events_of_an_object_are_one_range_of_the_sorted_list() {
        let other = other();
        let ix = Index::build(parts(&[], &other));
        assert_eq!(ix.events.get(&("a".into(), "web".into())), Some(&(1..3)));
        assert_eq!(ix.events.get(&("a".into(), "api".into())), Some(&(3..4)));
        assert_eq!(ix.events.len(), 2, "the Service is no event");
    }
}
