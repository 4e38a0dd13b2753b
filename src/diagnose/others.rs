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
use crate::snapshot::blockers::limit_ranger_requests;
use crate::snapshot::{Pod, Snapshot};

use super::blocker_facts::{
    LimitRangeRequest, OtherAutoscaler, OtherHands, PdbOnTarget, VpaOnTarget,
};
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

/// The VPAs targeting the HPA's target, with the resource each rewrites that the HPA scales on
/// as a utilization.
pub(super) fn vpas_on_target(snap: &Snapshot, input: &Input) -> Vec<VpaOnTarget> {
    let hpa = &input.hpa;
    let util = utilization_resources(input);
    snap.blocker_objects("VerticalPodAutoscaler", &hpa.namespace)
        .filter(|vpa| {
            let r = &vpa["spec"]["targetRef"];
            r["kind"] == hpa.target_kind.as_str() && r["name"] == hpa.target_name.as_str()
        })
        .map(|vpa| {
            let mode = vpa
                .pointer("/spec/updatePolicy/updateMode")
                .and_then(Value::as_str)
                .unwrap_or("Auto")
                .to_string();
            let controlled: Vec<String> = vpa_controls(vpa)
                .map(|(_, c)| c.into_iter().collect())
                .unwrap_or_default();
            let conflicts_on = util.keys().find(|r| controlled.contains(r)).cloned();
            VpaOnTarget {
                name: name_of(vpa).to_string(),
                update_mode: mode,
                controlled_resources: controlled,
                conflicts_on,
            }
        })
        .collect()
}

/// `vpa-conflict`: a VPA in an updating mode sets the requests of a resource the HPA scales on
/// as a utilization.
pub(super) fn vpa_conflict(snap: &Snapshot, input: &Input, out: &mut Vec<Finding>) {
    let hpa = &input.hpa;
    let util = utilization_resources(input);
    for v in vpas_on_target(snap, input) {
        let Some(res) = &v.conflicts_on else {
            continue;
        };
        let pct = util.get(res).copied().unwrap_or_default();
        let (name, mode) = (&v.name, &v.update_mode);
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

/// The PDBs selecting the target's pods, and what each keeps at minReplicas.
pub(super) fn pdbs_on_target(
    snap: &Snapshot,
    input: &Input,
    raw_pods: &BTreeMap<&str, &Pod>,
) -> Vec<PdbOnTarget> {
    let hpa = &input.hpa;
    let min = hpa.min_replicas.max(1);
    snap.blocker_objects("PodDisruptionBudget", &hpa.namespace)
        .filter_map(|pdb| {
            let picked = selects(pdb, raw_pods);
            if picked == 0 {
                return None;
            }
            let (kept, rule) = kept_at(pdb, min)?;
            Some(PdbOnTarget {
                name: name_of(pdb).to_string(),
                rule,
                selected_pods: picked,
                min_replicas: min,
                pods_kept_at_min: kept,
                blocks_drain_at_min: kept >= min,
            })
        })
        .collect()
}

/// `pdb-blocks-drain`: at minReplicas the budget allows no eviction.
pub(super) fn pdb_blocks_drain(
    snap: &Snapshot,
    input: &Input,
    raw_pods: &BTreeMap<&str, &Pod>,
    out: &mut Vec<Finding>,
) {
    let hpa = &input.hpa;
    for p in pdbs_on_target(snap, input, raw_pods) {
        if !p.blocks_drain_at_min {
            continue;
        }
        let (name, said, kept, min, picked) = (
            &p.name,
            &p.rule,
            p.pods_kept_at_min,
            p.min_replicas,
            p.selected_pods,
        );
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

/// The containers whose `res` request the LimitRanger admission plugin set, by the target's
/// pods' `kubernetes.io/limit-ranger` annotation (`None`: no pod carries the annotation, so it
/// cannot say).
fn set_by_limit_ranger(raw_pods: &BTreeMap<&str, &Pod>, res: &str) -> Option<Vec<String>> {
    let annotated: Vec<&str> = raw_pods
        .values()
        .filter_map(|p| Some(p.metadata.annotations.as_ref()?.limit_ranger.as_str()))
        .collect();
    if annotated.is_empty() {
        return None;
    }
    let mut containers: Vec<String> = annotated
        .iter()
        .flat_map(|a| limit_ranger_requests(a))
        .filter(|(r, _)| r == res)
        .map(|(_, c)| c)
        .collect();
    containers.sort();
    containers.dedup();
    Some(containers)
}

/// The LimitRanges whose default is the request a utilization target is a share of: exactly
/// the containers the pods' `kubernetes.io/limit-ranger` annotation names, else (no pod
/// carries it: an older snapshot) those whose request equals the default.
pub(super) fn limitranges_supplying(
    snap: &Snapshot,
    input: &Input,
    raw_pods: &BTreeMap<&str, &Pod>,
) -> Vec<LimitRangeRequest> {
    let hpa = &input.hpa;
    let mut out = Vec::new();
    for (res, _) in utilization_resources(input) {
        let set = set_by_limit_ranger(raw_pods, &res);
        for lr in snap.blocker_objects("LimitRange", &hpa.namespace) {
            let Some((def, key)) = default_request(lr, &res) else {
                continue;
            };
            let mut containers: Vec<String> = input
                .pods
                .iter()
                .flat_map(|p| &p.containers)
                .filter(|c| c.requests.get(&res) == Some(def))
                .filter(|c| set.as_ref().is_none_or(|s| s.contains(&c.name)))
                .map(|c| c.name.clone())
                .collect();
            containers.sort();
            containers.dedup();
            if containers.is_empty() {
                continue;
            }
            out.push(LimitRangeRequest {
                name: name_of(lr).to_string(),
                resource: res.clone(),
                default_request: Unit::of_resource(&res).show(def),
                field: key.to_string(),
                containers,
                confirmed: set.is_some(),
            });
        }
    }
    out
}

/// `limitrange-request`: the request the utilization is a share of is a LimitRange's default —
/// set at admission (the pods' `kubernetes.io/limit-ranger` annotation says which container's),
/// or, without that annotation, equal to it.
pub(super) fn limitrange_request(
    snap: &Snapshot,
    input: &Input,
    raw_pods: &BTreeMap<&str, &Pod>,
    out: &mut Vec<Finding>,
) {
    let hpa = &input.hpa;
    let util = utilization_resources(input);
    for l in limitranges_supplying(snap, input, raw_pods) {
        let (name, res, shown, key) = (&l.name, &l.resource, &l.default_request, &l.field);
        let pct = util.get(res).copied().unwrap_or_default();
        let containers = &l.containers;
        let how = if l.confirmed {
            format!(
                "the LimitRanger admission plugin set it on {} (the pods' kubernetes.io/limit-ranger annotation): the pod template sets none",
                list_some(containers, 3)
            )
        } else {
            "if the pod template sets none, the LimitRange supplies it at admission".to_string()
        };
        out.push(Finding {
            details: Some(json!({"limitRange": name, "resource": res, "defaultRequest": shown, "containers": containers, "confirmed": l.confirmed})),
            ..finding(
                "limitrange-request",
                Severity::Info,
                format!(
                    "the {res} request the {pct} % target is a share of ({shown} for {}) is LimitRange {name}'s {key}: {how}, and a change to the LimitRange changes this HPA's scale at the pods' next restart",
                    list_some(containers, 3)
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

/// Other HPAs selecting the target's pods (the controller's AmbiguousSelector) and KEDA
/// ScaledObjects on the same target.
fn other_autoscalers(snap: &Snapshot, input: &Input, now: jiff::Timestamp) -> Vec<OtherAutoscaler> {
    let hpa = &input.hpa;
    let mut out: Vec<OtherAutoscaler> = input
        .other_hpas_selecting
        .iter()
        .map(|n| OtherAutoscaler {
            kind: "HorizontalPodAutoscaler".into(),
            name: n.clone(),
        })
        .collect();
    if let Some(k) = crate::keda::view::section_for(snap, &hpa.namespace, &hpa.name, now) {
        for c in k.conflicts {
            let o = OtherAutoscaler {
                kind: c.kind,
                name: c.name,
            };
            if !out.contains(&o) {
                out.push(o);
            }
        }
    }
    out
}

/// The `otherHands` section of an Explanation (`None`: no other hand on the workload).
pub fn other_hands(
    snap: &Snapshot,
    input: &Input,
    raw_pods: &BTreeMap<&str, &Pod>,
    now: jiff::Timestamp,
) -> Option<OtherHands> {
    let o = OtherHands {
        vpas: vpas_on_target(snap, input),
        pdbs: pdbs_on_target(snap, input, raw_pods),
        limit_ranges: limitranges_supplying(snap, input, raw_pods),
        autoscalers: other_autoscalers(snap, input, now),
    };
    (o != OtherHands::default()).then_some(o)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The LimitRanges supplying `api`'s cpu request in other-hands.yaml, its pods'
    /// `kubernetes.io/limit-ranger` annotation set to `annotation` (`None`: removed).
    fn supplying(annotation: Option<&str>) -> Vec<LimitRangeRequest> {
        let path =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/other-hands.yaml");
        let mut doc: Value =
            crate::yaml::from_str(&std::fs::read_to_string(path).expect("example")).expect("yaml");
        for item in doc["items"].as_array_mut().into_iter().flatten() {
            if item["kind"] == "Pod" {
                item["metadata"]["annotations"] = match annotation {
                    Some(a) => json!({"kubernetes.io/limit-ranger": a}),
                    None => json!({"kubectl.kubernetes.io/last-applied-configuration": "{}"}),
                };
            }
        }
        let snap = Snapshot::from_owned(doc, "other-hands").expect("snapshot");
        let (input, _) = super::super::evaluated(&snap, "api");
        let raw: BTreeMap<&str, &Pod> = input
            .pods
            .iter()
            .filter_map(|p| snap.pod("shop", &p.name).map(|r| (p.name.as_str(), r)))
            .collect();
        limitranges_supplying(&snap, &input, &raw)
    }

    #[test]
    fn the_limit_rangers_annotation_decides_which_requests_a_limitrange_supplied() {
        let set = supplying(Some(
            "LimitRanger plugin set: cpu request for container api",
        ));
        assert_eq!(
            set.iter()
                .map(|l| (l.name.as_str(), l.containers.clone(), l.confirmed))
                .collect::<Vec<_>>(),
            [("defaults", vec!["api".to_string()], true)]
        );
        // The annotation names memory only: the cpu request is the template's own.
        assert!(supplying(Some(
            "LimitRanger plugin set: memory request for container api"
        ))
        .is_empty());
        // No annotation to read (an older snapshot): the request equal to the default, unconfirmed.
        let guessed = supplying(None);
        assert_eq!(guessed.len(), 1);
        assert!(!guessed[0].confirmed);
    }

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
