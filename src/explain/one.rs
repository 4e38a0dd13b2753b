//! Deciding one HPA of a [`Snapshot`] (from a file or fetched live): the evaluation time, the
//! namespace, the controller's settings and memory, then the core's decision. Every mode of
//! `explain` (one, fleet, live, watch) decides through [`decide_with_input`].

use std::path::PathBuf;

use anyhow::Result;
use jiff::Timestamp;

use crate::cli::{DecideOptions, ExplainOptions, ViewOptions};
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
fn resolve_now(decide: &DecideOptions, snap: &Snapshot) -> (Timestamp, String) {
    if let Some(t) = decide.now {
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

/// The namespace of NAME: `namespace` (`-n`) when given, else its one namespace in the
/// snapshot, else `default`.
fn resolve_namespace(namespace: Option<&str>, snap: &Snapshot, name: &str) -> String {
    if let Some(ns) = namespace {
        return ns.to_string();
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
pub fn settings_for(decide: &DecideOptions, snap: &Snapshot) -> Result<Settings> {
    let evidence = snap.server_version.as_deref().map(|v| match decide.live {
        true => Evidence::Server(v),
        false => Evidence::Snapshot(v),
    });
    let mut s = decide
        .settings
        .for_cluster(evidence, snap.controller_flags.as_ref())
        .map_err(|e| anyhow::Error::new(crate::cli::UsageError(format!("--feature-gates: {e}"))))?;
    if evidence.is_none() && decide.live && s.requested.kubernetes_version.is_none() {
        s.kubernetes_version_source += " (the server's /version could not be read)";
    }
    Ok(s)
}

/// Which HPA to decide and with what memory: what differs from one HPA to the next when a
/// fleet or a watch decides many with the same options (which are never copied per HPA).
#[derive(Debug, Clone, Copy)]
pub struct Request<'a> {
    /// The HPA's namespace (`-n`, or the fleet's); `None`: the one namespace of NAME in the
    /// snapshot, else `default`.
    pub namespace: Option<&'a str>,
    pub name: &'a str,
    /// The controller's memory of this HPA.
    pub history: &'a HistoryMode,
}

impl<'a> Request<'a> {
    /// NAME as the command line gives it (`-n`, `--history`).
    pub fn of(opts: &'a ExplainOptions, name: &'a str) -> Request<'a> {
        Request {
            namespace: opts.read.namespace.as_deref(),
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
    decide(&opts.decide, snap, Request::of(opts, name))
}

/// Compute the decision of a [`Request`].
pub fn decide(decide: &DecideOptions, snap: &Snapshot, req: Request) -> Result<Decision> {
    decide_request(decide, snap, req).map(|(_, d)| d)
}

/// NAME decided with the command line's options, also returning the core's input (the
/// controller cases and the explain bench, through `lib.rs`).
pub fn decide_with_input(
    opts: &ExplainOptions,
    snap: &Snapshot,
    name: &str,
) -> Result<(crate::core::Input, Decision)> {
    decide_request(&opts.decide, snap, Request::of(opts, name))
}

/// Like [`decide`], also returning the core's input (for diagnostics).
pub fn decide_request(
    decide: &DecideOptions,
    snap: &Snapshot,
    req: Request,
) -> Result<(crate::core::Input, Decision)> {
    let name = req.name;
    let namespace = match req.namespace {
        Some(ns) => ns.to_string(),
        None => resolve_namespace(None, snap, name),
    };
    let (now, now_note) = resolve_now(decide, snap);
    let settings = settings_for(decide, snap)?;
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
    pub fn render(&self, view: &ViewOptions) -> Result<String> {
        let cx = crate::render::Context {
            specs: &self.input.hpa.raw_metrics,
            findings: &self.findings,
            chain: self.chain(),
            keda: self.keda.as_ref(),
            capacity: self.capacity.as_ref(),
            other_hands: self.other_hands.as_ref(),
        };
        crate::render::render_explain(&self.decision, &cx, view.output, &view.text_options())
    }
}

/// Decide a [`Request`] and add the diagnostics, the metrics chain and the KEDA section.
pub fn explain(
    decide: &DecideOptions,
    snap: &Snapshot,
    extras: &Extras,
    req: Request,
) -> Result<Explained> {
    let (input, decision) = decide_request(decide, snap, req)?;
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
    decide: &DecideOptions,
    snap: &Snapshot,
    extras: &Extras,
    req: Request,
) -> Result<(serde_json::Value, bool)> {
    let e = explain(decide, snap, extras, req)?;
    let own = own_failure(&e.decision);
    Ok((serde_json::to_value(e.document::<()>(None))?, own))
}

/// The text, JSON or YAML of one HPA of a snapshot file: decision, diagnostics, trace.
pub fn render_one(
    decide: &DecideOptions,
    view: &ViewOptions,
    snap: &Snapshot,
    extras: &Extras,
    req: Request,
) -> Result<Outcome> {
    let e = explain(decide, snap, extras, req)?;
    let text = match &view.select {
        Some(sel) => sel.print(&e.document::<()>(None))?,
        None => e.render(view)?,
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
        let (t, note) = resolve_now(&options(&["--now", "2026-03-01T13:00:00Z"]).decide, &snap);
        assert_eq!(t.to_string(), "2026-03-01T13:00:00Z");
        assert!(note.ends_with("(--now)"), "{note}");
        let (t, note) = resolve_now(&options(&[]).decide, &snap);
        assert_eq!(t.to_string(), NOW);
        assert!(!note.contains("--now)"), "{note}");
    }

    #[test]
    fn the_namespace_of_a_unique_name() {
        let (snap, _) = example("scale-up-cpu.yaml");
        assert_eq!(resolve_namespace(None, &snap, "web"), "shop");
        assert_eq!(resolve_namespace(Some("x"), &snap, "web"), "x");
        assert_eq!(resolve_namespace(None, &snap, "nope"), "default");
    }

    #[test]
    fn one_decision_and_its_trace() {
        let (snap, extras) = example("scale-up-cpu.yaml");
        let opts = options(&["--now", NOW]);
        let d = decide_from_snapshot(&opts, &snap, "web").expect("decides");
        assert_eq!(d.desired_replicas, Some(5));
        assert!(d.assumptions[0].contains("(--now)"));
        let text = render_one(
            &opts.decide,
            &opts.view,
            &snap,
            &extras,
            Request::of(&opts, "web"),
        )
        .expect("renders")
        .text;
        assert!(text.starts_with("HPA shop/web"), "{text}");
        assert!(decide_from_snapshot(&opts, &snap, "nope").is_err());
    }
}
