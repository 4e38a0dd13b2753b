//! Replicas the controller asked for that do not appear: the target's Pending pods and why the
//! scheduler leaves them there (`pending-pods`: its `FailedScheduling` reasons summarised, with
//! what the cluster-autoscaler or Karpenter said about them), and pods a ResourceQuota refuses
//! to create (`quota-exceeded`: the workload's `FailedCreate` "exceeded quota" Event and the
//! quota's used/hard turned into how many more pods fit, in the pods' requests).
//!
//! The decision is the controller's; these say why `spec.replicas` pods are not all running.

use std::collections::BTreeMap;

use jiff::Timestamp;
use serde_json::{json, Map, Value};

use crate::core::{Decision, Input};
use crate::display::units::{time_ago, Unit};
use crate::snapshot::blockers::{
    parse_failed_scheduling, parse_quota_refusal, QuotaRefusal, SchedulingFailure, Unfit,
};
use crate::snapshot::Snapshot;

use super::blocker_facts::{
    Capacity, NodeAutoscalerEvent, PendingPods, QuotaRefused, RolloutSurge, SchedulingReason,
};
use super::extras::Extras;
use super::finding::{finding, list_some, Finding, Severity};

/// The resources whose requests a quota counts per pod.
const COUNTED: [&str; 2] = ["cpu", "memory"];

/// An Event's message (v1 `message`, events.k8s.io `note`), one line, printable, at most
/// 200 characters.
fn message_of(e: &Value) -> String {
    let m = e["message"].as_str().or(e["note"].as_str()).unwrap_or("");
    let mut s: String = m
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    if s.chars().count() > 200 {
        s = s.chars().take(199).collect::<String>() + "…";
    }
    s.trim().to_string()
}

/// When an Event last happened.
fn last_time(e: &Value) -> Option<Timestamp> {
    [
        "/series/lastObservedTime",
        "/lastTimestamp",
        "/eventTime",
        "/deprecatedLastTimestamp",
        "/firstTimestamp",
    ]
    .iter()
    .find_map(|p| e.pointer(p)?.as_str()?.parse().ok())
}

fn count_of(e: &Value) -> i64 {
    ["/count", "/series/count", "/deprecatedCount"]
        .iter()
        .find_map(|p| e.pointer(p)?.as_i64())
        .unwrap_or(1)
}

/// The newest Event of `reason` about `ns/name`.
fn newest<'a>(snap: &'a Snapshot, ns: &str, name: &str, reason: &str) -> Option<&'a Value> {
    snap.events_for(ns, name)
        .iter()
        .filter(|e| e["reason"] == reason)
        .max_by_key(|e| last_time(e))
}

/// What the cluster's node autoscaler said about the pending pods, newest per reason.
fn autoscaler_events(snap: &Snapshot, ns: &str, pods: &[&str]) -> Vec<NodeAutoscalerEvent> {
    let mut out = Vec::new();
    for (reason, who) in AUTOSCALER_REASONS {
        let e = pods
            .iter()
            .filter_map(|p| newest(snap, ns, p, reason))
            .max_by_key(|e| last_time(e));
        if let Some(e) = e {
            out.push(NodeAutoscalerEvent {
                reason: reason.to_string(),
                says: who.to_string(),
                message: message_of(e),
                last_seen: last_time(e),
            });
        }
    }
    out
}

/// The node autoscalers' Event reasons on pods, and what each means.
const AUTOSCALER_REASONS: [(&str, &str); 3] = [
    ("TriggeredScaleUp", "the cluster-autoscaler is adding nodes"),
    ("Nominated", "Karpenter nominated a node"),
    (
        "NotTriggerScaleUp",
        "the cluster-autoscaler will not add a node",
    ),
];

impl NodeAutoscalerEvent {
    /// `the cluster-autoscaler is adding nodes (TriggeredScaleUp, 2m ago: …)`.
    fn words(&self, now: Timestamp) -> String {
        let when = self
            .last_seen
            .map(|t| format!(", {}", time_ago(t, now)))
            .unwrap_or_default();
        format!("{} ({}{when}: {})", self.says, self.reason, self.message)
    }
}

/// What to do about pods the scheduler cannot place, by the families of its reasons.
fn scheduling_action(families: &[Unfit], per_pod: &str, coming: bool) -> String {
    let mut steps = Vec::new();
    if coming {
        steps.push(
            "wait for the nodes being added (kubectl get nodes -w), then check again".to_string(),
        );
    }
    if families.contains(&Unfit::Insufficient) || families.contains(&Unfit::TooManyPods) {
        steps.push(format!(
            "add node capacity{per_pod} (a node group's maximum, the cluster-autoscaler's or Karpenter's limits), or lower the pods' requests"
        ));
    }
    if families.contains(&Unfit::Taint) {
        steps.push("give the pod template a toleration for the nodes' taint, or schedule on untainted nodes".into());
    }
    if families.contains(&Unfit::Affinity) {
        steps.push("relax the pod template's nodeSelector, affinity or topology spread constraints, or add nodes that match them".into());
    }
    if families.contains(&Unfit::Volume) {
        steps.push("check the pods' PersistentVolumeClaims (kubectl describe pvc): a volume bound in another zone, or none provisioned".into());
    }
    if families.contains(&Unfit::Cordoned) {
        steps.push("uncordon nodes (kubectl uncordon NODE) once their maintenance is over".into());
    }
    if steps.is_empty() {
        steps.push(
            "read the pods' events (kubectl describe pod POD) for what keeps them from a node"
                .into(),
        );
    }
    steps.join("; ")
}

/// " with 500m cpu, 256Mi memory free per pod" from the pods' requests.
fn per_pod_words(per_pod: &BTreeMap<String, i64>) -> String {
    if per_pod.is_empty() {
        return String::new();
    }
    let each: Vec<String> = per_pod
        .iter()
        .map(|(r, v)| format!("{} {r}", Unit::of_resource(r).show(*v)))
        .collect();
    format!(" for {} per pod", each.join(", "))
}

/// The requests of one of the target's pods, per counted resource (milli-units): the largest
/// among the pods (one template: all alike), pod-level requests when set.
fn per_pod_requests(input: &Input) -> BTreeMap<String, i64> {
    COUNTED
        .iter()
        .filter_map(|&res| {
            let v = input
                .pods
                .iter()
                .filter_map(|p| {
                    if let Some(v) = p.pod_requests.as_ref().and_then(|r| r.get(res)) {
                        return Some(v);
                    }
                    let vs: Vec<i64> = p
                        .containers
                        .iter()
                        .filter_map(|c| c.requests.get(res))
                        .collect();
                    (!vs.is_empty()).then(|| vs.iter().sum())
                })
                .max()?;
            (v > 0).then(|| (res.to_string(), v))
        })
        .collect()
}

/// `pending-pods`: after a scale-up the target's pods wait for a node.
pub(super) fn pending_pods(snap: &Snapshot, input: &Input, out: &mut Vec<Finding>) {
    let Some(p) = pending_facts(snap, input) else {
        return;
    };
    let mut msg = format!(
        "{} of the target's pods are Pending ({}): spec.replicas is {} but {} are ready",
        p.count,
        list_some(&p.pods, 3),
        p.spec_replicas,
        p.ready_pods
    );
    match &p.scheduler_says {
        Some(text) => {
            msg += &format!(
                "; the scheduler says \"{text}\" ({} pod(s))",
                p.pods_with_that_reading
            )
        }
        None => msg += "; no FailedScheduling Event on them (they may be pulling images or waiting on volumes)",
    }
    for w in &p.node_autoscaler {
        msg += &format!("; {}", w.words(input.now));
    }
    let mut details = Map::new();
    details.insert("pendingPods".into(), json!(p.count));
    details.insert("readyPods".into(), json!(p.ready_pods));
    details.insert("specReplicas".into(), json!(p.spec_replicas));
    details.insert("unscheduledPods".into(), json!(p.unscheduled_pods));
    if let (Some(available), Some(total)) = (p.nodes_available, p.nodes) {
        details.insert("nodesAvailable".into(), json!(available));
        details.insert("nodes".into(), json!(total));
        details.insert("reasons".into(), json!(p.reasons));
    }
    let words: Vec<String> = p
        .node_autoscaler
        .iter()
        .map(|w| w.words(input.now))
        .collect();
    details.insert("nodeAutoscaler".into(), json!(words));
    let action = scheduling_action(
        &p.families,
        &per_pod_words(&per_pod_requests(input)),
        p.nodes_coming,
    );
    out.push(Finding {
        details: Some(Value::Object(details)),
        ..finding(
            "pending-pods",
            if p.nodes_coming {
                Severity::Info
            } else {
                Severity::Warning
            },
            msg,
            action,
        )
    });
}

/// The target's Pending pods after a scale-up, and why (`None`: none pending, or every
/// replica asked for is ready).
pub(super) fn pending_facts(snap: &Snapshot, input: &Input) -> Option<PendingPods> {
    let scale = input.scale.as_ref().ok()?;
    let ns = input.hpa.namespace.as_str();
    let pending: Vec<&str> = input
        .pods
        .iter()
        .filter(|p| p.phase == "Pending" && !p.deleting)
        .map(|p| p.name.as_str())
        .collect();
    let ready = input
        .pods
        .iter()
        .filter(|p| p.ready.as_ref().is_some_and(|r| r.status == "True"))
        .count() as i32;
    if pending.is_empty() || scale.spec_replicas <= ready {
        return None;
    }
    // The scheduler's newest word on each pod; the most common reading first.
    let mut readings: BTreeMap<String, (usize, Option<SchedulingFailure>)> = BTreeMap::new();
    let mut unscheduled = 0;
    for p in &pending {
        if let Some(e) = newest(snap, ns, p, "FailedScheduling") {
            unscheduled += 1;
            let m = message_of(e);
            let parsed = parse_failed_scheduling(&m);
            let key = parsed.as_ref().map_or(m, SchedulingFailure::text);
            readings.entry(key).or_insert((0, parsed)).0 += 1;
        }
    }
    let top = readings.iter().max_by_key(|(_, (n, _))| *n);
    let parsed = top.and_then(|(_, (_, f))| f.as_ref());
    let node_autoscaler = autoscaler_events(snap, ns, &pending);
    Some(PendingPods {
        count: pending.len(),
        pods: pending.iter().map(|s| s.to_string()).collect(),
        ready_pods: ready,
        spec_replicas: scale.spec_replicas,
        unscheduled_pods: unscheduled,
        scheduler_says: top.map(|(t, _)| t.clone()),
        pods_with_that_reading: top.map_or(0, |(_, (n, _))| *n),
        nodes_available: parsed.map(|f| f.available),
        nodes: parsed.map(|f| f.total),
        reasons: parsed
            .map(|f| {
                f.reasons
                    .iter()
                    .map(|r| SchedulingReason {
                        nodes: r.nodes,
                        reason: r.text.clone(),
                        family: format!("{:?}", r.family).to_lowercase(),
                    })
                    .collect()
            })
            .unwrap_or_default(),
        families: parsed
            .map(|f| f.reasons.iter().map(|r| r.family).collect())
            .unwrap_or_default(),
        nodes_coming: node_autoscaler
            .iter()
            .any(|w| w.reason == "TriggeredScaleUp" || w.reason == "Nominated"),
        node_autoscaler,
    })
}

/// How many more pods of `per_pod` requests fit in a quota (`hard` − `used`, milli-units, by
/// the quota's keys), and the key that binds first. `None`: the quota counts none of them.
pub(super) fn pods_that_fit(
    hard: &BTreeMap<String, i64>,
    used: &BTreeMap<String, i64>,
    per_pod: &BTreeMap<String, i64>,
) -> Option<(i64, String)> {
    let mut best: Option<(i64, String)> = None;
    for (key, h) in hard {
        let each = match key.as_str() {
            "pods" | "count/pods" => 1000,
            k => {
                let res = k.strip_prefix("requests.").unwrap_or(k);
                match per_pod.get(res) {
                    Some(v) if *v > 0 && COUNTED.contains(&res) => *v,
                    _ => continue,
                }
            }
        };
        let left = (h - used.get(key).copied().unwrap_or(0)).max(0);
        let fit = left / each;
        if best.as_ref().is_none_or(|(b, _)| fit < *b) {
            best = Some((fit, key.clone()));
        }
    }
    best
}

/// A quota's `status.hard` (else `spec.hard`) and `status.used`, milli-units.
fn quota_numbers(q: &Value) -> (BTreeMap<String, i64>, BTreeMap<String, i64>) {
    let read = |v: Option<&Value>| -> BTreeMap<String, i64> {
        v.and_then(Value::as_object)
            .into_iter()
            .flatten()
            .filter_map(|(k, v)| Some((k.clone(), crate::quantity::parse_milli(v.as_str()?).ok()?)))
            .collect()
    };
    let hard = read(q.pointer("/status/hard").or(q.pointer("/spec/hard")));
    (hard, read(q.pointer("/status/used")))
}

/// The numbers of a refusal's pairs, milli-units.
fn numbers(pairs: &[(String, String)]) -> BTreeMap<String, i64> {
    pairs
        .iter()
        .filter_map(|(k, v)| Some((k.clone(), crate::quantity::parse_milli(v).ok()?)))
        .collect()
}

/// The workloads whose `FailedCreate` Events are about the target's pods: the target itself
/// and, for a Deployment, its ReplicaSets — those the snapshot holds, those owning its pods, and
/// those the Events name `TARGET-HASH` (one HPA's live read lists no ReplicaSets, and a quota
/// may have refused every new pod).
fn creators(snap: &Snapshot, input: &Input, x: &Extras) -> Vec<String> {
    let hpa = &input.hpa;
    let mut names = vec![hpa.target_name.clone()];
    if hpa.target_kind == "Deployment" {
        names.extend(
            input
                .pods
                .iter()
                .filter_map(|p| p.owner.as_deref()?.strip_prefix("ReplicaSet/"))
                .map(String::from),
        );
        let prefix = format!("{}-", hpa.target_name);
        names.extend(
            snap.events_of_reason(&hpa.namespace, "FailedCreate")
                .filter_map(|e| {
                    let about = e.get("involvedObject").or_else(|| e.get("regarding"))?;
                    let name = about["name"].as_str()?;
                    let hash = name.strip_prefix(&prefix)?;
                    (about["kind"] == "ReplicaSet"
                        && !hash.is_empty()
                        && hash.chars().all(|c| c.is_ascii_alphanumeric()))
                    .then(|| name.to_string())
                }),
        );
        names.extend(
            x.replica_sets_in(&hpa.namespace)
                .iter()
                .filter(|r| {
                    r.owner
                        .as_ref()
                        .is_some_and(|(k, n)| k == "Deployment" && *n == hpa.target_name)
                })
                .map(|r| r.name.clone()),
        );
    }
    names.sort();
    names.dedup();
    names
}

/// A quota key's value in the user's units (`pods` as a count).
fn show_key(k: &str, v: i64) -> String {
    let res = k.strip_prefix("requests.").unwrap_or(k);
    if k == "pods" || k == "count/pods" {
        crate::display::units::plain(v)
    } else {
        Unit::of_resource(res).show(v)
    }
}

/// What to raise the quota to for the `missing` pods: used + missing × per pod, per counted
/// key above its hard limit.
fn quota_action(
    refusal: &QuotaRefusal,
    hard: &BTreeMap<String, i64>,
    used: &BTreeMap<String, i64>,
    per_pod: &BTreeMap<String, i64>,
    missing: i64,
    ns: &str,
) -> String {
    let raise: Vec<String> = hard
        .iter()
        .filter_map(|(k, h)| {
            let each = match k.as_str() {
                "pods" | "count/pods" => 1000,
                _ => *per_pod.get(k.strip_prefix("requests.").unwrap_or(k))?,
            };
            let need = used.get(k).copied().unwrap_or(0) + missing * each;
            (need > *h).then(|| format!("{k} to {}", show_key(k, need)))
        })
        .collect();
    let q = &refusal.quota;
    if raise.is_empty() {
        format!("lower the pods' requests or raise ResourceQuota {q} (kubectl edit resourcequota {q} -n {ns}); the HPA's decision stands but cannot take effect")
    } else {
        format!(
            "raise ResourceQuota {q}'s {} for the {missing} missing pod(s) (kubectl edit resourcequota {q} -n {ns}), or lower the pods' requests; the HPA's decision stands but cannot take effect",
            raise.join(", ")
        )
    }
}

/// `quota-exceeded`: a ResourceQuota refuses the pods the HPA asked for.
pub(super) fn quota_exceeded(
    snap: &Snapshot,
    input: &Input,
    d: &Decision,
    x: &Extras,
    out: &mut Vec<Finding>,
) {
    let Some(q) = quota_facts(snap, input, d, x) else {
        return;
    };
    let ns = input.hpa.namespace.as_str();
    let full: Vec<String> = q
        .hard
        .iter()
        .filter(|(k, _)| q.refusal.limited.iter().any(|(l, _)| l == *k))
        .map(|(k, h)| {
            format!(
                "{k} {} used of {h}",
                q.used.get(k).cloned().unwrap_or_else(|| show_key(k, 0))
            )
        })
        .collect();
    let when = q
        .last_seen
        .map(|t| format!(", latest {}", time_ago(t, input.now)))
        .unwrap_or_default();
    let fits = match (&q.pods_that_fit, &q.binding_key) {
        (Some(n), Some(key)) => format!("{n} more pod(s) fit ({key} binds first)"),
        _ => "how many more pods fit is unknown (the quota counts no request the pods make)".into(),
    };
    let msg = format!(
        "ResourceQuota {} refuses the target's new pods ({}): {} — FailedCreate on {} ({} time(s){when}); {fits}{}; the HPA wants {}, {} exist",
        q.quota,
        if full.is_empty() { "full".to_string() } else { full.join(", ") },
        q.refusal.text(),
        q.refused_by,
        q.refusals,
        per_pod_words(&q.per_pod_milli),
        q.wanted,
        q.existing,
    );
    let action = quota_action(
        &q.refusal,
        &q.hard_milli,
        &q.used_milli,
        &q.per_pod_milli,
        q.missing_pods,
        ns,
    );
    let mut details = Map::new();
    details.insert("quota".into(), json!(q.quota));
    details.insert("refusedBy".into(), json!(q.refused_by));
    details.insert("missingPods".into(), json!(q.missing_pods));
    if let (Some(n), Some(key)) = (&q.pods_that_fit, &q.binding_key) {
        details.insert("podsThatFit".into(), json!(n));
        details.insert("bindingKey".into(), json!(key));
    }
    out.push(Finding {
        details: Some(Value::Object(details)),
        ..finding("quota-exceeded", Severity::Warning, msg, action)
    });
}

/// The newest quota refusal of the target's new pods, with the quota's numbers (`None`: no
/// `FailedCreate` "exceeded quota" Event on the target or its ReplicaSets).
pub(super) fn quota_facts(
    snap: &Snapshot,
    input: &Input,
    d: &Decision,
    x: &Extras,
) -> Option<QuotaRefused> {
    let hpa = &input.hpa;
    let ns = hpa.namespace.as_str();
    let (creator, event, refusal) = creators(snap, input, x)
        .into_iter()
        .filter_map(|w| {
            let e = snap
                .events_for(ns, &w)
                .iter()
                .filter(|e| e["reason"] == "FailedCreate")
                .filter_map(|e| Some((e, parse_quota_refusal(&message_of(e))?)))
                .max_by_key(|(e, _)| last_time(e))?;
            Some((w, e.0, e.1))
        })
        .max_by_key(|(_, e, _)| last_time(e))?;
    let quota = snap
        .blocker_objects("ResourceQuota", ns)
        .find(|q| q.pointer("/metadata/name").and_then(Value::as_str) == Some(&refusal.quota));
    let (hard, used) = match quota {
        Some(q) => quota_numbers(q),
        None => (numbers(&refusal.limited), numbers(&refusal.used)),
    };
    // The refused pod's own requests, else those of the target's pods.
    let mut per_pod: BTreeMap<String, i64> = numbers(&refusal.requested)
        .into_iter()
        .filter_map(|(k, v)| {
            let res = k.strip_prefix("requests.").unwrap_or(&k).to_string();
            COUNTED.contains(&res.as_str()).then_some((res, v))
        })
        .collect();
    for (k, v) in per_pod_requests(input) {
        per_pod.entry(k).or_insert(v);
    }
    let existing = input.pods.iter().filter(|p| !p.deleting).count() as i64;
    let wanted = input
        .scale
        .as_ref()
        .map(|s| i64::from(s.spec_replicas))
        .unwrap_or(0)
        .max(d.desired_replicas.map(i64::from).unwrap_or(0));
    let fit = pods_that_fit(&hard, &used, &per_pod);
    let shown = |m: &BTreeMap<String, i64>| -> BTreeMap<String, String> {
        m.iter()
            .map(|(k, v)| (k.clone(), show_key(k, *v)))
            .collect()
    };
    Some(QuotaRefused {
        quota: refusal.quota.clone(),
        refused_by: creator,
        refusals: count_of(event),
        last_seen: last_time(event),
        from_quota_object: quota.is_some(),
        hard: shown(&hard),
        used: shown(&used),
        per_pod_requests: per_pod
            .iter()
            .map(|(r, v)| (r.clone(), Unit::of_resource(r).show(*v)))
            .collect(),
        pods_that_fit: fit.as_ref().map(|f| f.0),
        binding_key: fit.map(|f| f.1),
        wanted,
        existing,
        missing_pods: (wanted - existing).max(0),
        refusal,
        hard_milli: hard,
        used_milli: used,
        per_pod_milli: per_pod,
    })
}

/// A rollout in progress: `status.replicas` above `spec.replicas` (the surge pods, which the
/// controller counts as current for some metrics).
pub(super) fn rollout_facts(input: &Input) -> Option<RolloutSurge> {
    let s = input.scale.as_ref().ok()?;
    (s.status_replicas > s.spec_replicas).then(|| RolloutSurge {
        spec_replicas: s.spec_replicas,
        status_replicas: s.status_replicas,
        surge_pods: s.status_replicas - s.spec_replicas,
    })
}

/// The `capacity` section of an Explanation: what keeps the replicas asked for from appearing
/// (`None`: nothing does).
pub fn capacity(snap: &Snapshot, input: &Input, d: &Decision, x: &Extras) -> Option<Capacity> {
    let c = Capacity {
        pending_pods: pending_facts(snap, input),
        quota: quota_facts(snap, input, d, x),
        rollout: rollout_facts(input),
    };
    (c.pending_pods.is_some() || c.quota.is_some() || c.rollout.is_some()).then_some(c)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(pairs: &[(&str, i64)]) -> BTreeMap<String, i64> {
        pairs.iter().map(|(k, v)| (k.to_string(), *v)).collect()
    }

    #[test]
    fn the_quota_key_that_binds_first_says_how_many_pods_fit() {
        // 4 cpu hard, 3.8 used: 200m left, 500m a pod → 0; memory 8Gi − 1Gi at 256Mi → 28.
        let gi = 1024_i64 * 1024 * 1024 * 1000;
        let hard = m(&[
            ("requests.cpu", 4000),
            ("requests.memory", 8 * gi),
            ("pods", 20_000),
        ]);
        let used = m(&[
            ("requests.cpu", 3800),
            ("requests.memory", gi),
            ("pods", 7000),
        ]);
        let per_pod = m(&[("cpu", 500), ("memory", gi / 4)]);
        assert_eq!(
            pods_that_fit(&hard, &used, &per_pod),
            Some((0, "requests.cpu".into()))
        );
        // More cpu: the pod count binds (13 left), then memory (28).
        let hard = m(&[
            ("cpu", 100_000),
            ("requests.memory", 8 * gi),
            ("pods", 20_000),
        ]);
        assert_eq!(
            pods_that_fit(&hard, &used, &per_pod),
            Some((13, "pods".into()))
        );
        // Over-used: none fit, never a negative count.
        let used = m(&[("pods", 25_000)]);
        assert_eq!(pods_that_fit(&hard, &used, &per_pod).map(|f| f.0), Some(0));
        // A quota on limits only counts nothing the pods' requests say.
        assert_eq!(
            pods_that_fit(&m(&[("limits.cpu", 8000)]), &used, &per_pod),
            None
        );
    }
}
