//! Deciding one HPA of a [`Snapshot`] (from a file or fetched live): the evaluation time, the
//! namespace, the controller's settings and memory, then the core's decision. Every mode of
//! `explain` (one, fleet, live, watch) decides through [`decide_with_input`].

use std::path::PathBuf;

use anyhow::Result;
use jiff::Timestamp;

use crate::cli::{ExplainOptions, Source};
use crate::core::{evaluate_with_memory, Decision, Evidence, History, HistoryMode, Settings};
use crate::diagnose::Extras;
use crate::output::Outcome;
use crate::snapshot::Snapshot;

/// Read a snapshot file and the diagnostic context it holds (the file is parsed once).
pub fn read_snapshot_file(paths: &[PathBuf]) -> Result<(Snapshot, Extras)> {
    let snap = Snapshot::read_sources(paths)?;
    let extras = Extras::from_snapshot(&snap);
    Ok((snap, extras))
}

/// Where "now" came from, for the assumptions list.
fn resolve_now(opts: &ExplainOptions, snap: &Snapshot) -> (Timestamp, String) {
    if let Some(t) = opts.decide.now {
        return (t, format!("evaluated at {t} (--now)"));
    }
    if let Some(t) = snap.taken_at {
        return (t, format!("evaluated at {t}, when the snapshot was taken"));
    }
    if let Some(t) = snap.newest_metric_time() {
        return (
            t,
            format!(
                "evaluated at {t}, the newest metric sample in the snapshot (use --now to choose)"
            ),
        );
    }
    let t = Timestamp::now();
    (
        t,
        format!("evaluated at {t}, the current time (the snapshot has no timestamps)"),
    )
}

/// Pick the namespace of NAME in a snapshot when `-n` is not given.
fn resolve_namespace(opts: &ExplainOptions, snap: &Snapshot, name: &str) -> String {
    if let Some(ns) = &opts.read.namespace {
        return ns.clone();
    }
    let matching: Vec<String> = snap
        .hpa_names(None)
        .into_iter()
        .filter_map(|full| {
            let (ns, n) = full.split_once('/')?;
            (n == name).then(|| ns.to_string())
        })
        .collect();
    if matching.len() == 1 {
        matching[0].clone()
    } else {
        "default".into()
    }
}

/// The settings for a snapshot: the release of `--kubernetes-version`, else the server's
/// `/version` (live) or the version the snapshot recorded (offline), else the newest release;
/// `--feature-gates` checked against that release.
pub fn settings_for(opts: &ExplainOptions, snap: &Snapshot) -> Result<Settings> {
    let evidence = snap
        .server_version
        .as_deref()
        .map(|v| match opts.read.source {
            Source::Cluster => Evidence::Server(v),
            Source::Snapshot(_) => Evidence::Snapshot(v),
        });
    let mut s = opts
        .decide
        .settings
        .for_cluster(evidence, snap.controller_flags.as_ref())
        .map_err(|e| anyhow::Error::new(crate::cli::UsageError(format!("--feature-gates: {e}"))))?;
    if evidence.is_none()
        && opts.read.source == Source::Cluster
        && s.requested.kubernetes_version.is_none()
    {
        s.kubernetes_version_source += " (the server's /version could not be read)";
    }
    Ok(s)
}

/// Which HPA to decide and with what memory: what differs from one HPA to the next when a
/// fleet or a watch decides many with the same options (which are never copied per HPA).
#[derive(Debug, Clone, Copy)]
pub struct Request<'a> {
    /// The HPA's namespace; `None`: `-n`, else the one namespace of NAME in the snapshot.
    pub namespace: Option<&'a str>,
    pub name: &'a str,
    /// The controller's memory of this HPA.
    pub history: &'a HistoryMode,
}

impl<'a> Request<'a> {
    /// NAME as the command line gives it (`-n`, `--history`).
    pub fn of(opts: &'a ExplainOptions, name: &'a str) -> Request<'a> {
        Request {
            namespace: None,
            name,
            history: &opts.decide.history,
        }
    }
}

/// Compute the decision for one HPA of a snapshot (the unit tests).
#[cfg(test)]
pub fn decide_from_snapshot(
    opts: &ExplainOptions,
    snap: &Snapshot,
    name: &str,
) -> Result<Decision> {
    decide(opts, snap, Request::of(opts, name))
}

/// Compute the decision of a [`Request`].
pub fn decide(opts: &ExplainOptions, snap: &Snapshot, req: Request) -> Result<Decision> {
    decide_request(opts, snap, req).map(|(_, d)| d)
}

/// Like [`decide_from_snapshot`], also returning the core's input (for diagnostics).
pub fn decide_with_input(
    opts: &ExplainOptions,
    snap: &Snapshot,
    name: &str,
) -> Result<(crate::core::Input, Decision)> {
    decide_request(opts, snap, Request::of(opts, name))
}

/// Like [`decide`], also returning the core's input (for diagnostics).
pub fn decide_request(
    opts: &ExplainOptions,
    snap: &Snapshot,
    req: Request,
) -> Result<(crate::core::Input, Decision)> {
    let name = req.name;
    let namespace = match req.namespace {
        Some(ns) => ns.to_string(),
        None => resolve_namespace(opts, snap, name),
    };
    let (now, now_note) = resolve_now(opts, snap);
    let settings = settings_for(opts, snap)?;
    let mut input = snap.input_for(&namespace, name, settings, History::default(), now)?;
    // The controller's memory: inferred from the HPA's status and SuccessfulRescale Events (in
    // the snapshot, live or offline), empty, or exactly the --history file.
    let rescales = crate::events::rescales(snap.events_for(&namespace, name), &namespace, name);
    let mut d = evaluate_with_memory(&mut input, req.history, &rescales);
    d.assumptions.insert(0, now_note);
    // What the file or fetch adds: our own failed reads, conversions, missing metrics.
    snap.amend(&input, &mut d);
    Ok((input, d))
}

/// The decision says that a request of ours failed (verdict `Unknown`, exit 3): our own
/// failure, which the command's outcome carries.
pub fn own_failure(d: &Decision) -> bool {
    d.verdict.decided_by == crate::core::Rule::FetchFailed
}

/// One HPA explained: the decision and what the document and the text show beside it (live
/// adds its comparison with the status to these).
pub struct Explained {
    pub input: crate::core::Input,
    pub decision: Decision,
    pub findings: Vec<crate::diagnose::Finding>,
    /// Shown only when something is known of the chain ([`Explained::chain`]).
    chain: crate::adapter::MetricsChain,
    pub keda: Option<crate::keda::view::KedaSection>,
    /// What keeps the replicas from appearing, and the other hands on the workload.
    pub capacity: Option<crate::diagnose::Capacity>,
    pub other_hands: Option<crate::diagnose::OtherHands>,
}

impl Explained {
    /// The metrics chain when something is known of it.
    pub fn chain(&self) -> Option<&crate::adapter::MetricsChain> {
        Some(&self.chain).filter(|c| c.is_known())
    }

    /// The explanation document (JSON and YAML print it; `-o name|jsonpath|custom-columns`
    /// select from it), with the live comparison when there is one.
    pub fn document<'a, L>(
        &'a self,
        live: Option<&'a L>,
    ) -> crate::output::contract::Document<crate::output::contract::ExplanationBody<'a, L>> {
        crate::output::contract::live_explanation(
            &self.decision,
            live,
            &self.findings,
            self.chain(),
        )
        .with_keda(self.keda.as_ref())
        .with_blockers(self.capacity.as_ref(), self.other_hands.as_ref())
    }

    /// The text (or `-o wide`), JSON or YAML of the explanation, without a live comparison.
    pub fn render(&self, opts: &ExplainOptions) -> Result<String> {
        let cx = crate::render::Context {
            specs: &self.input.hpa.raw_metrics,
            findings: &self.findings,
            chain: self.chain(),
            keda: self.keda.as_ref(),
            capacity: self.capacity.as_ref(),
            other_hands: self.other_hands.as_ref(),
        };
        crate::render::render_explain(
            &self.decision,
            &cx,
            opts.view.output,
            &opts.view.text_options(),
        )
    }
}

/// Decide a [`Request`] and add the diagnostics, the metrics chain and the KEDA section.
pub fn explain(
    opts: &ExplainOptions,
    snap: &Snapshot,
    extras: &Extras,
    req: Request,
) -> Result<Explained> {
    let (input, decision) = decide_request(opts, snap, req)?;
    let chain = crate::adapter::metrics_chain(snap, &input, &decision);
    let findings = crate::diagnose::diagnose_with_chain(snap, &input, &decision, extras, &chain);
    let (ns, name) = (&input.hpa.namespace, &input.hpa.name);
    let keda = crate::keda::view::section_for(snap, ns, name, decision.now);
    let (capacity, other_hands) =
        crate::diagnose::blocker_sections(snap, &input, &decision, extras);
    Ok(Explained {
        input,
        decision,
        findings,
        chain,
        keda,
        capacity,
        other_hands,
    })
}

/// The explanation document of one HPA of a snapshot file, as a JSON value (what several NAMEs'
/// `-o name|jsonpath|custom-columns` select from, in a `List`), and whether it is our own
/// failure.
pub fn document(
    opts: &ExplainOptions,
    snap: &Snapshot,
    extras: &Extras,
    name: &str,
) -> Result<(serde_json::Value, bool)> {
    let e = explain(opts, snap, extras, Request::of(opts, name))?;
    let own = own_failure(&e.decision);
    Ok((serde_json::to_value(e.document::<()>(None))?, own))
}

/// The text, JSON or YAML of one HPA of a snapshot file: decision, diagnostics, trace.
pub fn render_one(
    opts: &ExplainOptions,
    snap: &Snapshot,
    extras: &Extras,
    name: &str,
) -> Result<Outcome> {
    let e = explain(opts, snap, extras, Request::of(opts, name))?;
    let text = match &opts.view.select {
        Some(sel) => sel.print(&e.document::<()>(None))?,
        None => e.render(opts)?,
    };
    Ok(Outcome {
        text,
        own_failure: own_failure(&e.decision),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::explain::testing::{example, options, NOW};

    #[test]
    fn now_comes_from_the_flag_then_the_snapshot() {
        let (snap, _) = example("scale-up-cpu.yaml");
        let (t, note) = resolve_now(&options(&["--now", "2026-03-01T13:00:00Z"]), &snap);
        assert_eq!(t.to_string(), "2026-03-01T13:00:00Z");
        assert!(note.ends_with("(--now)"), "{note}");
        let (t, note) = resolve_now(&options(&[]), &snap);
        assert_eq!(t.to_string(), NOW);
        assert!(!note.contains("--now)"), "{note}");
    }

    #[test]
    fn the_namespace_of_a_unique_name() {
        let (snap, _) = example("scale-up-cpu.yaml");
        assert_eq!(resolve_namespace(&options(&[]), &snap, "web"), "shop");
        assert_eq!(resolve_namespace(&options(&["-n", "x"]), &snap, "web"), "x");
        assert_eq!(resolve_namespace(&options(&[]), &snap, "nope"), "default");
    }

    #[test]
    fn one_decision_and_its_trace() {
        let (snap, extras) = example("scale-up-cpu.yaml");
        let opts = options(&["--now", NOW]);
        let d = decide_from_snapshot(&opts, &snap, "web").expect("decides");
        assert_eq!(d.desired_replicas, Some(5));
        assert!(d.assumptions[0].contains("(--now)"));
        let text = render_one(&opts, &snap, &extras, "web")
            .expect("renders")
            .text;
        assert!(text.starts_with("HPA shop/web"), "{text}");
        assert!(decide_from_snapshot(&opts, &snap, "nope").is_err());
    }
}
