//! Which pods the target owns: pods selected but owned by something else (`foreign-pods`) and
//! the ReplicaSets of a rollout in progress (`rollout-in-progress`).

use std::collections::{BTreeMap, BTreeSet};

use serde_json::json;

use crate::core::{Calculation, Decision, Input};
use crate::snapshot::Pod;

use super::extras::Extras;
use super::finding::{finding, list_some, Finding, Severity};

pub(super) fn pod_owner(p: &Pod) -> Option<(String, String)> {
    let refs = p.metadata.owner_references.as_ref()?;
    let r = refs
        .iter()
        .find(|r| r.controller == Some(true))
        .or(refs.first())?;
    Some((r.kind.clone(), r.name.clone()))
}

/// Whether the target owns a pod with this owner.
pub(super) fn owned_by_target(
    owner: &Option<(String, String)>,
    kind: &str,
    name: &str,
    ns: &str,
    x: &Extras,
) -> bool {
    let Some((ok, on)) = owner else {
        return false;
    };
    if ok == kind && on == name {
        return true;
    }
    if ok == "ReplicaSet" && kind != "ReplicaSet" && kind != "StatefulSet" {
        if let Some(rs) = x.replica_set(ns, on) {
            return rs
                .owner
                .as_ref()
                .is_some_and(|(k, n)| n == name && (k == kind || kind == "Scale"));
        }
        // No ReplicaSet known: a Deployment's (and an Argo Rollout's) ReplicaSets are named
        // `<name>-<hash>`.
        return on
            .strip_prefix(name)
            .and_then(|r| r.strip_prefix('-'))
            .is_some_and(|h| !h.is_empty() && !h.contains('-'));
    }
    false
}

pub(super) fn foreign_pods(
    input: &Input,
    d: &Decision,
    x: &Extras,
    raw_pods: &BTreeMap<&str, &Pod>,
    selector: &str,
    out: &mut Vec<Finding>,
) {
    let hpa = &input.hpa;
    let ns = hpa.namespace.as_str();
    if input.pods.is_empty() || raw_pods.is_empty() {
        return;
    }
    let mut foreign: Vec<(String, String)> = Vec::new();
    for p in &input.pods {
        let Some(raw) = raw_pods.get(p.name.as_str()) else {
            continue;
        };
        let owner = pod_owner(raw);
        if !owned_by_target(&owner, &hpa.target_kind, &hpa.target_name, ns, x) {
            foreign.push((
                p.name.clone(),
                owner
                    .map(|(k, n)| format!("owned by {k} {n}"))
                    .unwrap_or_else(|| "no owner".into()),
            ));
        }
    }
    if foreign.is_empty() {
        return;
    }
    let names: BTreeSet<&str> = foreign.iter().map(|(p, _)| p.as_str()).collect();
    // Their share of the usage the controller averages, for each pod metric.
    let mut shares = Vec::new();
    for m in &d.metrics {
        if let Some(Calculation::PodAverage { pods, .. }) = &m.calculation {
            let total: i128 = pods
                .iter()
                .filter(|r| r.counted)
                .filter_map(|r| r.usage_milli)
                .map(i128::from)
                .sum();
            let theirs: i128 = pods
                .iter()
                .filter(|r| r.counted && names.contains(r.pod.as_str()))
                .filter_map(|r| r.usage_milli)
                .map(i128::from)
                .sum();
            let counted = pods
                .iter()
                .filter(|r| r.counted && names.contains(r.pod.as_str()))
                .count();
            if total > 0 {
                shares.push(format!(
                    "{}: {counted} of their samples counted, {:.0}% of the usage",
                    m.description.as_deref().unwrap_or(&m.type_),
                    theirs as f64 * 100.0 / total as f64
                ));
            }
        }
    }
    let listed: Vec<String> = foreign.iter().map(|(p, o)| format!("{p} ({o})")).collect();
    out.push(Finding {
        details: Some(json!({"pods": foreign.iter().map(|(p, o)| json!({"pod": p, "owner": o})).collect::<Vec<_>>()})),
        ..finding(
            "foreign-pods",
            Severity::Warning,
            format!(
                "{} of {} pods selected by {selector} are not owned by {} {}: {}; the controller counts them anyway{}",
                foreign.len(),
                input.pods.len(),
                hpa.target_kind,
                hpa.target_name,
                list_some(&listed, 5),
                if shares.is_empty() {
                    String::new()
                } else {
                    format!(" — {}", shares.join("; "))
                }
            ),
            format!("make the selector of {} {} match only its own pods: a label unique to its pod template (a Deployment's selector is immutable: this needs a new Deployment), or relabel/remove the other pods", hpa.target_kind, hpa.target_name),
        )
    });
}

pub(super) fn rollout(
    input: &Input,
    x: &Extras,
    raw_pods: &BTreeMap<&str, &Pod>,
    out: &mut Vec<Finding>,
) {
    let hpa = &input.hpa;
    if hpa.target_kind != "Deployment" {
        return;
    }
    let ns = hpa.namespace.as_str();
    // ReplicaSets of the target that have selected pods.
    let mut by_rs: BTreeMap<String, usize> = BTreeMap::new();
    for p in &input.pods {
        let Some(raw) = raw_pods.get(p.name.as_str()) else {
            continue;
        };
        let owner = pod_owner(raw);
        if let Some((k, n)) = &owner {
            if k == "ReplicaSet" && owned_by_target(&owner, "Deployment", &hpa.target_name, ns, x) {
                *by_rs.entry(n.clone()).or_default() += 1;
            }
        }
    }
    let dep = x.deployment(ns, &hpa.target_name);
    // Old pods beside the updated ones, or surge pods: a rollout. Fewer pods than
    // spec.replicas, all of them updated, is a scale-up whose pods have not all appeared yet
    // (`pending-pods`, `quota-exceeded`), not a rollout.
    let status_says = dep.is_some_and(|d| {
        d.updated_replicas.is_some_and(|u| u < d.status_replicas)
            || d.status_replicas > d.spec_replicas
    });
    if by_rs.len() < 2 && !status_says {
        return;
    }
    let mut msg = format!("a rollout of Deployment {} is in progress", hpa.target_name);
    if let Some(d) = dep {
        msg += &format!(
            " (spec.replicas {}, status.replicas {}, updatedReplicas {})",
            d.spec_replicas,
            d.status_replicas,
            d.updated_replicas.map_or("-".into(), |u| u.to_string())
        );
    }
    if by_rs.len() >= 2 {
        msg += &format!(
            ": pods of {} ReplicaSets are selected — {}",
            by_rs.len(),
            by_rs
                .iter()
                .map(|(n, c)| format!("{n} ({c})"))
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    msg += "; the controller counts every one of them (new pods start unready, old ones go away)";
    out.push(finding(
        "rollout-in-progress",
        Severity::Warning,
        msg,
        format!("expect the decision to settle when the rollout completes (kubectl rollout status deployment/{} -n {ns}); surge pods raise the pod count the ratios multiply", hpa.target_name),
    ));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnose::extras::ReplicaSetInfo;

    #[test]
    fn ownership_by_replica_set_name_or_list() {
        let x = Extras::default();
        let rs = |n: &str| Some(("ReplicaSet".to_string(), n.to_string()));
        assert!(owned_by_target(
            &rs("web-6d8f7b9c54"),
            "Deployment",
            "web",
            "shop",
            &x
        ));
        assert!(!owned_by_target(
            &rs("web-canary-6d8f7b9c54"),
            "Deployment",
            "web",
            "shop",
            &x
        ));
        assert!(!owned_by_target(&None, "Deployment", "web", "shop", &x));
        let x = Extras {
            replica_sets: vec![ReplicaSetInfo {
                namespace: "shop".into(),
                name: "web-canary-1".into(),
                owner: Some(("Deployment".into(), "web".into())),
                spec_replicas: 1,
            }],
            ..Default::default()
        };
        assert!(owned_by_target(
            &rs("web-canary-1"),
            "Deployment",
            "web",
            "shop",
            &x
        ));
        let ss = Some(("StatefulSet".to_string(), "db".to_string()));
        assert!(owned_by_target(&ss, "StatefulSet", "db", "shop", &x));
    }
}
