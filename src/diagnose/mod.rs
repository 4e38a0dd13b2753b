//! Diagnostics: the problems users actually hit, each with what to do — computed from the same
//! [`Snapshot`], [`Input`] and [`Decision`] that `explain` shows, plus a little context the core
//! does not need ([`Extras`]: ReplicaSet owners, Deployment rollout status, the metrics
//! APIService). Pure: no I/O; the cluster layer only fills [`Extras`].
//!
//! Each [`Finding`] has a stable `id`, a `severity`, a `message` (what is wrong, with names) and an
//! `action` (what to do). `details` carries numbers for programs (e.g. the thresholds of
//! `next-scale`).
//!
//! One file per check family; [`diagnose`] runs them in a fixed order (the order findings of one
//! severity are listed in), then sorts by severity:
//!
//! | file | findings |
//! |---|---|
//! | `target.rs` | the scale target and the spec: `target-missing`, `target-unreadable`, `snapshot-lacks-target`, `target-at-zero`, `min-equals-max`, `ambiguous-selector` |
//! | `bounds.rs` | bounds that bite: `at-max-replicas` (the uncapped need and what the extra pods request), `at-max-satisfied`, `at-min-floor`, `at-min-satisfied` |
//! | `behavior.rs` | behavior and memory: `held`, `memory-scale-up` |
//! | `snapshot.rs` | what reading the file noted: `hpa-field-ignored`, `snapshot-objects-ignored` |
//! | `metrics.rs` | the metrics pipeline: `snapshot-without-metrics`, `our-read-failed`, `metrics-api-*`, `metrics-empty`, `metrics-stale`, `custom-metrics-api-unavailable`, `external-metrics-api-unavailable` |
//! | `requests.rs` | the requests utilization is computed from: `missing-request`, `container-absent` |
//! | `ownership.rs` | which pods the target owns: `foreign-pods`, `rollout-in-progress` |
//! | `ratchet.rs` | `average-value-ratchet`: an Object/External AverageValue target within tolerance during a rollout keeps the surge pods (kubernetes#138505) |
//! | `next_scale.rs` | `next-scale`: the metric values at which the proposal moves by one |
//! | `chain.rs` | the metrics chain ([`crate::adapter`]): `keda-external-metrics-held`, `adapter-rule-no-match`, `adapter-rule-resource-missing`, `adapter-rules-unreadable` |
//! | `capacity.rs` | replicas that do not appear: `pending-pods` (the scheduler's reasons, the node autoscaler's words), `quota-exceeded` (a ResourceQuota's FailedCreate, how many more pods fit) |
//! | `others.rs` | other hands on the workload: `vpa-conflict`, `pdb-blocks-drain`, `limitrange-request` |
//! | `keda.rs` | KEDA's layer: `keda-generated`, `keda-unreadable`, `keda-owns-move`, `keda-fallback`, `keda-paused`, `keda-bad-field`, `keda-conflict` |
//!
//! `finding.rs` (the [`Finding`] type and the helpers every check writes with) and `extras.rs`
//! ([`Extras`]) are leaves: a check file imports from them (`super::finding::…`), never from
//! this file or from another check file, so the folder has no import cycle.
//!
//! # Adding a check
//!
//! 1. **Where.** In the file of its family (a new file when it is a new family, added to the
//!    table above and to [`diagnose`]'s order). A check is a function
//!    `fn name(input: &Input, d: &Decision, …, out: &mut Vec<Finding>)`: it reads the
//!    [`Decision`] (the verdict's `decided_by` [`crate::core::Rule`] and `action`
//!    [`crate::core::Action`] say which situation it is in: e.g. `TooManyReplicas` for a cap by
//!    maxReplicas) and the [`Input`]; anything the core does not need comes through [`Extras`]
//!    (filled offline from the List or snapshot, live by the cluster layer). No I/O here.
//! 2. **Its finding.** A new stable `id` (kebab-case; add it to the list on [`Finding::id`], which
//!    is the JSON contract: regenerate the schema with `UPDATE_SCHEMA=1 cargo test --test it
//!    contract::`), a severity (`error`: the controller cannot act; `warning`: it acts on
//!    something wrong or is stopped; `info`: it is doing what it should), a `message` with names
//!    and numbers in the user's units, and an `action` that starts with what to do. Numbers for
//!    programs go in `details` (camelCase keys).
//! 3. **Its fleet line.** The fleet overview aggregates error and warning findings by `id` (one
//!    line per cause for 500 HPAs): keep the id the same for one cause (the numbers go in the
//!    message and `details`, never in the id), and give the fleet's `cause_words` a few words
//!    for it.
//! 4. **Its test.** A unit test in the check's file (on an example of `examples/` or a small
//!    hand-built input), or an integration test in `tests/it/` against the fake API server when
//!    the live reads matter; check that it fails without the check.

use std::collections::BTreeMap;

use crate::core::{Decision, Input};
use crate::snapshot::{Pod, Snapshot};

mod behavior;
mod blocker_facts;
mod bounds;
mod capacity;
mod chain;
mod extras;
mod finding;
mod keda;
mod metrics;
mod next_scale;
mod others;
mod ownership;
mod ratchet;
mod requests;
mod snapshot;
mod target;

pub use blocker_facts::{Capacity, OtherHands};
pub use extras::Extras;
pub use finding::{Finding, Severity};

/// Every finding for one HPA, errors first.
pub fn diagnose(snap: &Snapshot, input: &Input, d: &Decision, x: &Extras) -> Vec<Finding> {
    let chain = crate::adapter::metrics_chain(snap, input, d);
    diagnose_with_chain(snap, input, d, x, &chain)
}

/// [`diagnose`] with the HPA's metrics chain already built (the explanation shows the same
/// chain in its section, so it is built once per HPA).
pub fn diagnose_with_chain(
    snap: &Snapshot,
    input: &Input,
    d: &Decision,
    x: &Extras,
    chain: &crate::adapter::MetricsChain,
) -> Vec<Finding> {
    let mut out = Vec::new();
    let hpa = &input.hpa;
    let ns = hpa.namespace.as_str();
    let raw_pods: BTreeMap<&str, &Pod> = input
        .pods
        .iter()
        .filter_map(|p| snap.pod(ns, &p.name).map(|r| (p.name.as_str(), r)))
        .collect();
    let selector = input
        .scale
        .as_ref()
        .map(|s| s.selector.clone())
        .unwrap_or_default();

    target::target_and_spec(snap, input, d, &selector, &mut out);
    bounds::bounds(input, d, &mut out);
    behavior::held(d, &mut out);
    snapshot::snapshot_findings(snap, input, &mut out);
    metrics::pipeline(input, d, x, &selector, &mut out);
    requests::missing_requests(input, d, &raw_pods, &mut out);
    requests::container_absent(input, &mut out);
    ownership::foreign_pods(input, d, x, &raw_pods, &selector, &mut out);
    ownership::rollout(input, x, &raw_pods, &mut out);
    ratchet::average_value_ratchet(input, d, &mut out);
    behavior::memory_scale_up(input, d, &mut out);
    capacity::pending_pods(snap, input, &mut out);
    capacity::quota_exceeded(snap, input, d, x, &mut out);
    others::vpa_conflict(snap, input, &mut out);
    others::pdb_blocks_drain(snap, input, &raw_pods, &mut out);
    others::limitrange_request(snap, input, &raw_pods, &mut out);
    if let Some(f) = next_scale::next_scale(input, d) {
        out.push(f);
    }
    chain::findings(chain, &input.hpa.namespace, &mut out);
    keda::keda(snap, input, d, &mut out);
    out.sort_by_key(|f| f.severity);
    out
}

/// The typed sections of what stops the replicas (`capacity`, `otherHands` of an
/// Explanation): the facts the blockers' findings are worded from.
pub fn blocker_sections(
    snap: &Snapshot,
    input: &Input,
    d: &Decision,
    x: &Extras,
) -> (Option<Capacity>, Option<OtherHands>) {
    let ns = input.hpa.namespace.as_str();
    let raw_pods: BTreeMap<&str, &Pod> = input
        .pods
        .iter()
        .filter_map(|p| snap.pod(ns, &p.name).map(|r| (p.name.as_str(), r)))
        .collect();
    (
        capacity::capacity(snap, input, d, x),
        others::other_hands(snap, input, &raw_pods, d.now),
    )
}

/// Tests: HPA `shop/name` of `snap` evaluated at the examples' time (2026-03-01T12:00:00Z) by the
/// newest release with no memory — the input and decision each check reads.
#[cfg(test)]
pub(super) fn evaluated(
    snap: &Snapshot,
    name: &str,
) -> (crate::core::Input, crate::core::Decision) {
    let input = snap
        .input_for(
            "shop",
            name,
            crate::core::Settings::for_version(crate::core::KubeVersion::NEWEST),
            crate::core::History::default(),
            "2026-03-01T12:00:00Z".parse().expect("time"),
        )
        .expect("input");
    let d = crate::core::evaluate(&input);
    (input, d)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    fn run_example(file: &str, name: &str) -> Vec<Finding> {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("examples")
            .join(file);
        let text = std::fs::read_to_string(&path).expect("example");
        let doc: Value = crate::yaml::from_str(&text).expect("yaml");
        let extras = Extras::from_list(&doc);
        let snap = Snapshot::from_owned(doc, file).expect("snapshot");
        let (input, d) = evaluated(&snap, name);
        diagnose(&snap, &input, &d, &extras)
    }

    fn ids(f: &[Finding]) -> Vec<&str> {
        f.iter().map(|f| f.id.as_str()).collect()
    }

    #[test]
    fn an_injected_sidecar_without_a_request_is_named_with_its_image() {
        let f = run_example("sidecar-without-cpu-request.yaml", "reviews");
        let m = f
            .iter()
            .find(|f| f.id == "missing-request")
            .expect("finding");
        assert_eq!(m.severity, Severity::Error);
        assert!(m.message.contains("istio-proxy"), "{}", m.message);
        assert!(
            m.message.contains("image docker.io/istio/proxyv2"),
            "{}",
            m.message
        );
        assert!(m.message.contains("injected by Istio"), "{}", m.message);
        assert!(
            m.action.contains("sidecar.istio.io/proxyCPU"),
            "{}",
            m.action
        );
    }

    #[test]
    fn next_scale_beyond_max_gives_the_thresholds_of_the_bound() {
        // at-max-replicas: 90 % for 60 % proposes 6, capped at 4; the replicas fall only once
        // the proposal is below 4: ceil(util/60 × 4) ≤ 3 → util ≤ 45 %.
        let f = run_example("at-max-replicas.yaml", "checkout");
        let n = f.iter().find(|f| f.id == "next-scale").expect("next-scale");
        assert!(n.message.contains("3 if it falls to 45%"), "{}", n.message);
        assert_eq!(n.details.as_ref().expect("details")["scaleDownAt"], 45);
    }

    #[test]
    fn memory_driving_a_scale_up_is_flagged() {
        let f = run_example("statefulset-memory.yaml", "session-cache");
        assert!(ids(&f).contains(&"memory-scale-up"), "{:?}", ids(&f));
    }

    #[test]
    fn next_scale_gives_the_utilization_for_one_more_and_one_less() {
        // scale-up-cpu: 3 pods at 83 % for a 50 % target propose 5; from there, 6 needs
        // ceil(util/50 × 3) ≥ 6 → util ≥ 84 %, and 4 needs util/50 × 3 ≤ 4 → util ≤ 66 %.
        let f = run_example("scale-up-cpu.yaml", "web");
        let n = f.iter().find(|f| f.id == "next-scale").expect("next-scale");
        let d = n.details.as_ref().expect("details");
        assert_eq!(d["scaleUpAt"], 84);
        assert_eq!(d["scaleDownAt"], 66);
        assert!(n.message.contains("is at 83%"), "{}", n.message);
        assert!(n.message.contains("6 if it reaches 84%"), "{}", n.message);
        assert!(n.message.contains("4 if it falls to 66%"), "{}", n.message);
        assert!(ids(&f).iter().all(|i| *i == "next-scale"), "{:?}", ids(&f));
    }

    #[test]
    fn the_missing_request_travels_as_a_fact() {
        let found = run_example("sidecar-without-cpu-request.yaml", "reviews");
        let f = found
            .iter()
            .find(|f| f.id == "missing-request")
            .expect("a missing-request finding");
        let d = f.details.as_ref().expect("details");
        assert_eq!(d["resource"], "cpu");
        assert_eq!(d["container"], "istio-proxy");
        assert_eq!(d["pods"].as_array().map(Vec::len), Some(3));
    }
}
