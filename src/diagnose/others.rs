//! Other hands on the same workload: a VerticalPodAutoscaler that rewrites the requests the
//! HPA's utilization is computed from (`vpa-conflict`: a feedback loop), a
//! PodDisruptionBudget that lets no pod go at the HPA's floor (`pdb-blocks-drain`), and a
//! LimitRange whose defaults supply the request the utilization is a share of
//! (`limitrange-request`). A second HPA on the same target is the controller's own
//! AmbiguousSelector (`ambiguous-selector`, in `target.rs`).

use std::collections::{BTreeMap, BTreeSet};

use k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector;
use serde_json::{json, Value};

use crate::core::model::MetricSpec;
use crate::core::Input;
use crate::display::units::Unit;
use crate::labels::Selector;
use crate::snapshot::{Pod, Snapshot};

use super::finding::{finding, list_some, Finding, Severity};

/// The VPA update modes that change running pods' requests (`Off` and `Initial` do not).
const UPDATING: [&str; 3] = ["Auto", "Recreate", "InPlaceOrRecreate"];

/// The resources the HPA scales on as a share of the pods' requests (Utilization targets), with
/// the target (`60 %`).
fn utilization_resources(input: &Input) -> BTreeMap<String, i32> {
    input
        .hpa
        .metrics
        .iter()
        .filter_map(|m| match m {
            MetricSpec::Resource { resource, target }
            | MetricSpec::ContainerResource {
                resource, target, ..
            } => Some((resource.clone(), target.average_utilization?)),
            _ => None,
        })
        .collect()
}

fn name_of(o: &Value) -> &str {
    o.pointer("/metadata/name")
        .and_then(Value::as_str)
        .unwrap_or_default()
}

/// The resources a VPA sets on running pods (`None`: it does not update them).
fn vpa_controls(vpa: &Value) -> Option<(String, BTreeSet<String>)> {
    let mode = vpa
        .pointer("/spec/updatePolicy/updateMode")
        .and_then(Value::as_str)
        .unwrap_or("Auto");
    if !UPDATING.contains(&mode) {
        return None;
    }
    let default = || BTreeSet::from(["cpu".to_string(), "memory".to_string()]);
    let policies = vpa
        .pointer("/spec/resourcePolicy/containerPolicies")
        .and_then(Value::as_array);
    let controlled = match policies {
        None => default(),
        Some(ps) => ps
            .iter()
            .filter(|p| p["mode"] != "Off")
            .flat_map(|p| match p["controlledResources"].as_array() {
                Some(rs) => rs
                    .iter()
                    .filter_map(|r| r.as_str().map(String::from))
                    .collect(),
                None => default(),
            })
            .collect(),
    };
    Some((mode.to_string(), controlled))
}

/// `vpa-conflict`: a VPA in an updating mode sets the requests of a resource the HPA scales on
/// as a utilization.
pub(super) fn vpa_conflict(snap: &Snapshot, input: &Input, out: &mut Vec<Finding>) {
    let hpa = &input.hpa;
    let util = utilization_resources(input);
    if util.is_empty() {
        return;
    }
    for vpa in snap.blocker_objects("VerticalPodAutoscaler", &hpa.namespace) {
        let r = &vpa["spec"]["targetRef"];
        if r["kind"] != hpa.target_kind.as_str() || r["name"] != hpa.target_name.as_str() {
            continue;
        }
        let Some((mode, controlled)) = vpa_controls(vpa) else {
            continue;
        };
        let both: Vec<(&String, &i32)> = util
            .iter()
            .filter(|(res, _)| controlled.contains(*res))
            .collect();
        let Some((res, pct)) = both.first() else {
            continue;
        };
        let name = name_of(vpa);
        let keep: Vec<&str> = ["cpu", "memory"]
            .into_iter()
            .filter(|r| *r != res.as_str())
            .collect();
        out.push(Finding {
            details: Some(json!({"vpa": name, "updateMode": mode, "resource": res, "targetUtilization": pct})),
            ..finding(
                "vpa-conflict",
                Severity::Warning,
                format!(
                    "VerticalPodAutoscaler {name} (updateMode {mode}) sets the {res} requests of {} {}, and this HPA scales on {res} at {pct} % of those requests: a feedback loop — as the load rises VPA raises the requests, the utilization falls and the HPA removes pods, so the two fight over the same pods",
                    hpa.target_kind, hpa.target_name
                ),
                format!(
                    "take {res} out of the VPA's control (spec.resourcePolicy.containerPolicies[].controlledResources: [{}]) or set its updateMode to Off or Initial; or scale the HPA on a metric VPA does not rewrite (an AverageValue target, a Pods or External metric)",
                    keep.join(", ")
                ),
            )
        });
    }
}

/// The pods a PDB's selector picks among the target's.
fn selects(pdb: &Value, pods: &BTreeMap<&str, &Pod>) -> usize {
    let Some(sel) = pdb
        .pointer("/spec/selector")
        .and_then(|s| serde_json::from_value::<LabelSelector>(s.clone()).ok())
        .and_then(|s| Selector::from_label_selector(&s).ok())
    else {
        return 0;
    };
    // policy/v1: an empty selector selects every pod of the namespace.
    let empty = BTreeMap::new();
    pods.values()
        .filter(|p| sel.matches(p.metadata.labels.as_ref().unwrap_or(&empty)))
        .count()
}

/// How many pods a PDB keeps when `pods` run (`minAvailable`, or `pods − maxUnavailable`).
fn kept_at(pdb: &Value, pods: i32) -> Option<(i32, String)> {
    let spec = &pdb["spec"];
    let scaled = |v: &Value, round_up: bool| -> Option<i32> {
        match v {
            Value::Number(n) => n.as_i64().map(|n| n as i32),
            Value::String(s) => {
                let p: f64 = s.strip_suffix('%')?.trim().parse().ok()?;
                let x = p * f64::from(pods) / 100.0;
                Some(if round_up { x.ceil() } else { x.floor() } as i32)
            }
            _ => None,
        }
    };
    if let Some(v) = spec.get("minAvailable") {
        return Some((scaled(v, true)?, format!("minAvailable {}", plain(v))));
    }
    let v = spec.get("maxUnavailable")?;
    // maxUnavailable percentages round up as the disruption controller rounds them.
    Some((
        pods - scaled(v, true)?,
        format!("maxUnavailable {}", plain(v)),
    ))
}

fn plain(v: &Value) -> String {
    v.as_str().map_or_else(|| v.to_string(), String::from)
}

/// `pdb-blocks-drain`: at minReplicas the budget allows no eviction.
pub(super) fn pdb_blocks_drain(
    snap: &Snapshot,
    input: &Input,
    raw_pods: &BTreeMap<&str, &Pod>,
    out: &mut Vec<Finding>,
) {
    let hpa = &input.hpa;
    let min = hpa.min_replicas.max(1);
    for pdb in snap.blocker_objects("PodDisruptionBudget", &hpa.namespace) {
        let picked = selects(pdb, raw_pods);
        if picked == 0 {
            continue;
        }
        let Some((kept, said)) = kept_at(pdb, min) else {
            continue;
        };
        if kept < min {
            continue;
        }
        let name = name_of(pdb);
        out.push(Finding {
            details: Some(json!({"pdb": name, "minReplicas": min, "podsKeptAtMin": kept, "selectedPods": picked})),
            ..finding(
                "pdb-blocks-drain",
                Severity::Warning,
                format!(
                    "PodDisruptionBudget {name} ({said}) selects the target's pods and keeps {kept} of the {min} at minReplicas: when the HPA is at its floor no pod may be evicted, so node drains (upgrades, Karpenter or cluster-autoscaler consolidation) block on these pods"
                ),
                format!(
                    "let one pod go at the floor: set the budget's minAvailable to {} or maxUnavailable to 1 (kubectl edit pdb {name} -n {}), or raise the HPA's minReplicas above {kept}",
                    (min - 1).max(0),
                    hpa.namespace
                ),
            )
        });
    }
}

/// A LimitRange's default request of `res` for containers (`defaultRequest`, else `default`:
/// a request defaults to the limit).
fn default_request(lr: &Value, res: &str) -> Option<(i64, &'static str)> {
    lr.pointer("/spec/limits")?
        .as_array()?
        .iter()
        .filter(|l| l["type"] == "Container")
        .find_map(|l| {
            for key in ["defaultRequest", "default"] {
                if let Some(q) = l[key][res].as_str() {
                    return Some((crate::quantity::parse_milli(q).ok()?, key));
                }
            }
            None
        })
}

/// `limitrange-request`: the request the utilization is a share of equals a LimitRange's
/// default — the template most likely sets none and the LimitRange supplies it at admission.
pub(super) fn limitrange_request(snap: &Snapshot, input: &Input, out: &mut Vec<Finding>) {
    let hpa = &input.hpa;
    for (res, pct) in utilization_resources(input) {
        for lr in snap.blocker_objects("LimitRange", &hpa.namespace) {
            let Some((def, key)) = default_request(lr, &res) else {
                continue;
            };
            let mut containers: Vec<String> = input
                .pods
                .iter()
                .flat_map(|p| &p.containers)
                .filter(|c| c.requests.get(&res) == Some(def))
                .map(|c| c.name.clone())
                .collect();
            containers.sort();
            containers.dedup();
            if containers.is_empty() {
                continue;
            }
            let name = name_of(lr);
            let shown = Unit::of_resource(&res).show(def);
            out.push(Finding {
                details: Some(json!({"limitRange": name, "resource": res, "defaultRequest": shown, "containers": containers})),
                ..finding(
                    "limitrange-request",
                    Severity::Info,
                    format!(
                        "the {res} request the {pct} % target is a share of ({shown} for {}) is LimitRange {name}'s {key}: if the pod template sets none, the LimitRange supplies it at admission, and a change to the LimitRange changes this HPA's scale at the pods' next restart",
                        list_some(&containers, 3)
                    ),
                    format!(
                        "set resources.requests.{res} in the pod template so the target means what you chose (kubectl set resources {}/{} -n {} -c {} --requests={res}={shown})",
                        hpa.target_kind.to_lowercase(),
                        hpa.target_name,
                        hpa.namespace,
                        containers[0]
                    ),
                )
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_budget_keeps_its_pods_by_count_or_share() {
        let pdb = |spec: Value| json!({"spec": spec});
        assert_eq!(
            kept_at(&pdb(json!({"minAvailable": 2})), 2).map(|k| k.0),
            Some(2)
        );
        assert_eq!(
            kept_at(&pdb(json!({"minAvailable": "50%"})), 3).map(|k| k.0),
            Some(2)
        );
        assert_eq!(
            kept_at(&pdb(json!({"minAvailable": "100%"})), 3).map(|k| k.0),
            Some(3)
        );
        assert_eq!(
            kept_at(&pdb(json!({"maxUnavailable": 0})), 3).map(|k| k.0),
            Some(3)
        );
        assert_eq!(
            kept_at(&pdb(json!({"maxUnavailable": "0%"})), 3).map(|k| k.0),
            Some(3)
        );
        assert_eq!(
            kept_at(&pdb(json!({"maxUnavailable": 1})), 3).map(|k| k.0),
            Some(2)
        );
    }

    #[test]
    fn only_updating_modes_on_a_resource_control_it() {
        let vpa = |spec: Value| json!({"spec": spec});
        let (mode, rs) = vpa_controls(&vpa(json!({}))).expect("Auto by default");
        assert_eq!((mode.as_str(), rs.len()), ("Auto", 2));
        assert!(vpa_controls(&vpa(json!({"updatePolicy": {"updateMode": "Initial"}}))).is_none());
        assert!(vpa_controls(&vpa(json!({"updatePolicy": {"updateMode": "Off"}}))).is_none());
        let (_, rs) = vpa_controls(&vpa(json!({"updatePolicy": {"updateMode": "InPlaceOrRecreate"},
            "resourcePolicy": {"containerPolicies": [{"containerName": "*", "controlledResources": ["memory"]}]}})))
        .expect("updating");
        assert_eq!(rs, BTreeSet::from(["memory".to_string()]));
    }
}
