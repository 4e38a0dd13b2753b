//! Deciding many HPAs: one [`FleetItem`] per HPA of one [`Snapshot`] per namespace (live: fetched
//! with a number of requests that does not grow with the number of HPAs, see
//! [`cluster::fetch_fleet`]; offline: a snapshot file with several HPAs). Every decision comes
//! from the same [`Snapshot::input_for`] + `core::evaluate` path as `explain NAME`
//! ([`super::one::decide_with_input`]); diagnostics are added next to it. `-l/--selector` picks
//! HPAs by their own labels.
//!
//! An item (`items[]` of `-o json`) is `{namespace, name, target{kind,name}, currentReplicas,
//! desiredReplicas, statusDesiredReplicas, minReplicas, maxReplicas, action, decidedBy, summary,
//! warnings[], error, diagnostics[], decision, kedaScaledObject, keda, metricsChain}` where
//! `decision` is the full `Explanation` of `explain NAME -o json` (null when the HPA could not
//! be evaluated; `error` says why) and `keda`/`metricsChain` are its sections of the same name.

use anyhow::Result;
use k8s_openapi::api::autoscaling::v2::HorizontalPodAutoscaler;
use serde::Serialize;

use crate::cli::{DecideOptions, ExplainOptions};
use crate::cluster;
use crate::core::{Action, Decision, HistoryMode, Rule, TargetRef};
use crate::diagnose::{self, Extras, Finding, Severity};
use crate::labels::Selector;
use crate::snapshot::Snapshot;

/// One line of the overview.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct FleetItem {
    /// The kubeconfig context the HPA was read from, when several were (`--context` given
    /// several times, `--all-contexts`); absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub context: Option<String>,
    pub namespace: String,
    pub name: String,
    pub target: TargetRef,
    pub current_replicas: Option<i32>,
    pub desired_replicas: Option<i32>,
    /// Every memory consistent with the evidence gives a value in this range.
    pub desired_range: Option<crate::core::DesiredRange>,
    /// `status.desiredReplicas` as the controller last wrote it.
    pub status_desired_replicas: Option<i32>,
    pub min_replicas: Option<i32>,
    pub max_replicas: Option<i32>,
    pub action: Option<Action>,
    pub decided_by: Option<Rule>,
    pub summary: Option<String>,
    /// Ids of the error and warning findings.
    pub warnings: Vec<String>,
    /// Why the HPA could not be evaluated (unusable input).
    pub error: Option<String>,
    pub diagnostics: Vec<Finding>,
    /// The TARGETS column (`cpu: 90%/60%`), one entry per `spec.metrics` entry (text only).
    #[serde(skip)]
    #[schemars(skip)]
    pub targets: Vec<String>,
    #[serde(serialize_with = "crate::output::contract::embedded_explanation")]
    #[schemars(with = "Option<crate::output::contract::EmbeddedExplanation<'static>>")]
    pub decision: Option<Decision>,
    /// The KEDA ScaledObject that generated the HPA, when KEDA manages it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub keda_scaled_object: Option<String>,
    /// KEDA's section, as in `explain NAME -o json` (absent when KEDA is not involved).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub keda: Option<crate::keda::view::KedaSection>,
    /// The metrics chain, as in `explain NAME -o json` (absent when nothing of it is known).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub metrics_chain: Option<crate::adapter::MetricsChain>,
}

fn item_from(
    decide: &DecideOptions,
    history: &HistoryMode,
    snap: &Snapshot,
    extras: &Extras,
    raw: &HorizontalPodAutoscaler,
) -> FleetItem {
    let ns = raw.metadata.namespace.as_deref().unwrap_or("default");
    let name = raw.metadata.name.as_deref().unwrap_or_default();
    let tref = &raw.spec.scale_target_ref;
    let specs = raw.spec.metrics.as_deref().unwrap_or_default();
    let req = super::one::Request {
        namespace: Some(ns),
        name,
        history,
    };
    match super::one::decide_request(decide, snap, req) {
        Ok((input, d)) => {
            let chain = crate::adapter::metrics_chain(snap, &input, &d);
            let findings = diagnose::diagnose_with_chain(snap, &input, &d, extras, &chain);
            let keda = crate::keda::view::section(snap, raw, d.now);
            FleetItem {
                context: None,
                namespace: ns.into(),
                name: name.into(),
                target: d.target.clone(),
                current_replicas: d.current_replicas,
                desired_replicas: d.desired_replicas,
                desired_range: d.desired_range,
                status_desired_replicas: input.hpa.status.as_ref().map(|s| s.desired_replicas),
                min_replicas: Some(d.min_replicas),
                max_replicas: Some(d.max_replicas),
                action: Some(d.verdict.action),
                decided_by: Some(d.verdict.decided_by),
                summary: Some(d.verdict.summary.clone()),
                warnings: warning_ids(&findings),
                error: None,
                diagnostics: findings,
                targets: super::fleet_targets::targets(specs, &d.metrics),
                decision: Some(d),
                keda_scaled_object: crate::keda::owner::owner(raw).map(|o| o.scaled_object),
                keda,
                metrics_chain: Some(chain).filter(|c| c.is_known()),
            }
        }
        Err(e) => FleetItem {
            context: None,
            namespace: ns.into(),
            name: name.into(),
            target: TargetRef {
                kind: tref.kind.clone(),
                name: tref.name.clone(),
            },
            current_replicas: None,
            desired_replicas: None,
            desired_range: None,
            status_desired_replicas: raw.status.as_ref().map(|s| s.desired_replicas),
            min_replicas: Some(raw.spec.min_replicas.unwrap_or(1)),
            max_replicas: Some(raw.spec.max_replicas),
            action: None,
            decided_by: None,
            summary: None,
            warnings: vec![],
            error: Some(format!("{e:#}")),
            diagnostics: vec![],
            targets: super::fleet_targets::targets(specs, &[]),
            decision: None,
            keda_scaled_object: crate::keda::owner::owner(raw).map(|o| o.scaled_object),
            keda: None,
            metrics_chain: None,
        },
    }
}

fn warning_ids(findings: &[Finding]) -> Vec<String> {
    let mut ids: Vec<String> = findings
        .iter()
        .filter(|f| f.severity != Severity::Info)
        .map(|f| f.id.clone())
        .collect();
    ids.dedup();
    ids
}

/// What the fleet's evaluation takes of the options: how to decide, and which HPAs (`-l`).
#[derive(Debug, Clone, Copy)]
pub struct Evaluation<'a> {
    pub decide: &'a DecideOptions,
    pub selector: Option<&'a Selector>,
}

impl<'a> Evaluation<'a> {
    /// The command line's.
    pub fn of(opts: &'a ExplainOptions) -> Evaluation<'a> {
        Evaluation {
            decide: &opts.decide,
            selector: opts.read.selector.as_ref(),
        }
    }

    /// Does `-l/--selector` pick this HPA (by its own labels)? Everything without a selector.
    pub fn selected(&self, h: &HorizontalPodAutoscaler) -> bool {
        let none = std::collections::BTreeMap::new();
        self.selector
            .is_none_or(|s| s.matches(h.metadata.labels.as_ref().unwrap_or(&none)))
    }
}

/// Some HPA's decision says that a request of ours failed (exit 3; see
/// [`super::one::own_failure`]).
pub fn own_failure(items: &[FleetItem]) -> bool {
    items
        .iter()
        .any(|i| i.decided_by == Some(Rule::FetchFailed))
}

/// An HPA's own memory, by namespace and name (what the fleet watch kept); None: `--history`.
pub type Memory<'a> = &'a (dyn Fn(&str, &str) -> Option<HistoryMode> + Sync);

/// Every HPA of a snapshot (optionally of one namespace) that `-l` picks, in namespace/name
/// order (each name once).
pub fn evaluate_snapshot(
    ev: Evaluation,
    snap: &Snapshot,
    extras: &Extras,
    namespace: Option<&str>,
) -> Vec<FleetItem> {
    evaluate_snapshot_with(ev, snap, extras, namespace, &|_, _| None)
}

/// [`evaluate_snapshot`], each HPA with the memory `memory` has for it.
pub fn evaluate_snapshot_with(
    ev: Evaluation,
    snap: &Snapshot,
    extras: &Extras,
    namespace: Option<&str>,
    memory: Memory,
) -> Vec<FleetItem> {
    let key = |h: &HorizontalPodAutoscaler| {
        (
            h.metadata
                .namespace
                .as_deref()
                .unwrap_or("default")
                .to_string(),
            h.metadata.name.clone().unwrap_or_default(),
        )
    };
    let mut hpas: Vec<&HorizontalPodAutoscaler> = snap
        .hpas
        .iter()
        .filter(|h| namespace.is_none_or(|ns| key(h).0 == ns))
        .filter(|h| ev.selected(h))
        .filter(|h| snap.answers_for(&key(h).0, &key(h).1))
        .collect();
    hpas.sort_by_cached_key(|h| key(h));
    hpas.dedup_by(|a, b| key(a) == key(b));
    super::parallel::map(hpas, |h| {
        let (ns, name) = key(h);
        match memory(&ns, &name) {
            Some(m) => item_from(ev.decide, &m, snap, extras, h),
            None => item_from(ev.decide, &ev.decide.history, snap, extras, h),
        }
    })
}

/// Evaluate every HPA of a fleet fetch: one Snapshot per namespace (each List consumed).
pub fn evaluate_fetched(
    ev: Evaluation,
    context: &str,
    fetched: cluster::FleetFetched,
) -> Result<Vec<FleetItem>> {
    evaluate_fetched_with(ev, context, fetched, &|_, _| None)
}

/// [`evaluate_fetched`], each HPA with the memory `memory` has for it.
pub fn evaluate_fetched_with(
    ev: Evaluation,
    context: &str,
    fetched: cluster::FleetFetched,
    memory: Memory,
) -> Result<Vec<FleetItem>> {
    let source = format!("cluster {context}");
    let api = &fetched.metrics_api;
    let lists: Vec<cluster::Closed> = fetched.lists.into_iter().map(|(_, l)| l).collect();
    let per_namespace = super::parallel::map(lists, |list| -> Result<Vec<FleetItem>> {
        let snap = list.into_snapshot(&source)?;
        let mut extras = Extras::from_snapshot(&snap);
        extras.metrics_api = api.clone();
        super::one::settings_for(ev.decide, &snap)?;
        Ok(evaluate_snapshot_with(ev, &snap, &extras, None, memory))
    });
    let mut items = Vec::new();
    for ns in per_namespace {
        items.extend(ns?);
    }
    Ok(items)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::explain::testing::{example, options, NOW};

    #[test]
    fn the_selector_picks_hpas_by_their_labels() {
        let (mut snap, extras) = example("scale-up-cpu.yaml");
        let (other, _) = example("hold-within-tolerance.yaml");
        snap.hpas.extend(other.hpas);
        snap.hpas[0].metadata.labels = Some([("tier".to_string(), "web".to_string())].into());
        let names = |args: &[&str]| -> Vec<String> {
            evaluate_snapshot(Evaluation::of(&options(args)), &snap, &extras, None)
                .into_iter()
                .map(|i| i.name)
                .collect()
        };
        assert_eq!(names(&["--now", NOW]), ["api", "web"]);
        assert_eq!(names(&["--now", NOW, "-l", "tier=web"]), ["web"]);
        assert_eq!(names(&["--now", NOW, "-l", "tier!=web"]), ["api"]);
        assert_eq!(names(&["--now", NOW, "-l", "!tier"]), ["api"]);
        assert!(names(&["--now", NOW, "-l", "tier in (api)"]).is_empty());
    }

    #[test]
    fn each_hpa_can_have_its_own_memory() {
        let (snap, extras) = example("scale-down-stabilized.yaml");
        let opts = options(&["--now", NOW]);
        let auto = evaluate_snapshot(Evaluation::of(&opts), &snap, &extras, None);
        let asked = std::sync::atomic::AtomicUsize::new(0);
        let none =
            evaluate_snapshot_with(Evaluation::of(&opts), &snap, &extras, None, &|ns, name| {
                asked.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                assert_eq!((ns, name), ("shop", "frontend"));
                Some(HistoryMode::None)
            });
        assert_eq!(asked.into_inner(), 1);
        // The inferred memory holds the scale-down back; an empty one does not.
        assert_eq!(auto[0].desired_replicas, Some(8));
        assert_ne!(none[0].desired_replicas, auto[0].desired_replicas);
    }
}

#[cfg(test)]
mod sort_tests {
    use crate::render::sort::SortBy;

    #[test]
    fn rows_sort_by_any_field_of_the_item() {
        use super::evaluate_snapshot;
        use crate::explain::testing::{example, options, NOW};
        let opts = options(&["--now", NOW]);
        let mut items = Vec::new();
        for f in [
            "scale-up-cpu.yaml",
            "hold-within-tolerance.yaml",
            "statefulset-memory.yaml",
        ] {
            let (snap, extras) = example(f);
            items.extend(evaluate_snapshot(
                super::Evaluation::of(&opts),
                &snap,
                &extras,
                None,
            ));
        }
        let names = |by: &str| -> Vec<String> {
            SortBy::parse(by)
                .expect(by)
                .sorted(&items)
                .into_iter()
                .map(|i| i.name)
                .collect()
        };
        // 5, 4, 4 desired: ties keep their order.
        assert_eq!(names(".desiredReplicas"), ["api", "session-cache", "web"]);
        assert_eq!(names("currentReplicas"), ["web", "session-cache", "api"]);
        assert_eq!(names(".metadata.name"), ["api", "session-cache", "web"]);
        assert_eq!(names("{.target.kind}"), ["web", "api", "session-cache"]);
        // Missing everywhere: the order stays.
        assert_eq!(names(".nothing"), ["web", "api", "session-cache"]);
    }
}
