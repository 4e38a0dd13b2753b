//! `kubectl hpa explain`: load (a snapshot file or the cluster) → the [`crate::explain`] feature
//! → output. One [`Mode`] per way of running; each is a few lines of wiring.

use anyhow::{bail, Result};

use crate::cli::ExplainOptions;
use crate::cluster;
use crate::explain::fleet_contexts::{self as contexts, progress};
use crate::explain::mode::{mode, Mode};
use crate::explain::{fleet_watch, live, one, overview, watch};
use crate::output::Outcome;
use serde_json::Value;
use tokio::runtime::Runtime;

/// Run `explain`; the outcome carries our own failures (exit 3), as the features return them.
/// What `-o name`, `-o jsonpath=…` and `-o custom-columns=…` print the features select from the
/// typed document (a fleet watch writes its custom columns as it goes).
pub fn run_selected(
    opts: &ExplainOptions,
    rt: &Runtime,
    w: &mut dyn std::io::Write,
) -> Result<Outcome> {
    match (&opts.at, opts.read.names.len() > 1) {
        (Some(at), _) => Ok(Outcome::ok(crate::history::at::explain(opts, at, rt)?)),
        (None, true) => run_several(opts, rt, w),
        (None, false) => run(opts, rt, w),
    }
}

/// `explain web api`: each NAME explained in turn, as `kubectl describe` does with several
/// names; the text one after the other, JSON and YAML as a v1 `List` of the typed explanation
/// documents, from which `-o name|jsonpath|custom-columns` select.
fn run_several(opts: &ExplainOptions, rt: &Runtime, w: &mut dyn std::io::Write) -> Result<Outcome> {
    let mut one = opts.each_name();
    let mut own_failure = false;
    if opts.view.select.is_some() || opts.view.output.is_document() {
        let mut items = Vec::new();
        for name in &opts.read.names {
            one.read.name = Some(name.clone());
            let (doc, own) = document(&one, rt)?;
            own_failure |= own;
            items.push(doc);
        }
        let list = crate::cli::list(items);
        let text = match &opts.view.select {
            Some(sel) => sel.apply(&list)?,
            None => crate::output::document(&list, opts.view.output)?,
        };
        return Ok(Outcome { text, own_failure });
    }
    let mut outs = Vec::new();
    for name in &opts.read.names {
        one.read.name = Some(name.clone());
        let out = run(&one, rt, w)?;
        own_failure |= out.own_failure;
        outs.push(out.text);
    }
    Ok(Outcome {
        text: outs.join("\n"),
        own_failure,
    })
}

/// The explanation of NAME as a JSON value, turned from the typed document (NAME in several
/// contexts: the `List` of each context's), and whether it is our own failure.
fn document(opts: &ExplainOptions, rt: &Runtime) -> Result<(Value, bool)> {
    match mode(opts)? {
        Mode::OfflineOne { snap, extras, name } => {
            one::document(&opts.decide, &snap, &extras, one::Request::of(opts, &name))
        }
        Mode::LiveOne(name) => {
            let (context, namespace, fetched) = fetch_one(opts, rt, &name)?;
            live::document_fetched(&opts.decide, &name, &context, namespace, fetched)
        }
        Mode::Contexts(cs, Some(n)) => contexts::documents_each(opts, rt, &cs, &n, &progress(opts)),
        // A NAME is given: the other modes (a fleet, a watch) are not reached.
        _ => bail!("several NAMEs are explained one HPA at a time"),
    }
}

/// Run `explain`: the rendered output (`--watch` streams into `w`) and our own failures.
pub fn run(opts: &ExplainOptions, rt: &Runtime, w: &mut dyn std::io::Write) -> Result<Outcome> {
    match mode(opts)? {
        Mode::OfflineOne { snap, extras, name } => {
            let req = one::Request::of(opts, &name);
            one::render_one(&opts.decide, &opts.view, &snap, &extras, req)
        }
        Mode::OfflineFleet { snap, extras } => overview::run_offline(opts, &snap, &extras),
        Mode::LiveOne(name) => live_one(opts, rt, &name),
        Mode::LiveFleet => live_fleet(opts, rt),
        Mode::Watch(Some(_)) => watch::run(opts, rt, w),
        Mode::Watch(None) => fleet_watch::run(opts, rt, w),
        Mode::Contexts(cs, None) => contexts::run(opts, rt, &cs, &progress(opts)),
        Mode::Contexts(cs, Some(n)) => contexts::explain_each(opts, rt, &cs, &n, &progress(opts)),
    }
}

/// Live `explain NAME`: fetch → decide and compare → output.
fn live_one(opts: &ExplainOptions, rt: &Runtime, name: &str) -> Result<Outcome> {
    let (context, namespace, fetched) = fetch_one(opts, rt, name)?;
    live::explain_fetched(&opts.decide, &opts.view, name, &context, namespace, fetched)
}

/// What live `explain NAME` reads: the context, the namespace and the fetched objects.
fn fetch_one(
    opts: &ExplainOptions,
    rt: &Runtime,
    name: &str,
) -> Result<(String, String, cluster::Fetched)> {
    if opts.read.all_namespaces {
        bail!("-A/--all-namespaces lists a fleet (kubectl hpa explain -A); to explain one HPA use NAME -n NAMESPACE");
    }
    let progress = progress(opts);
    rt.block_on(async {
        let conn = cluster::connect(&opts.read.kube).await?;
        let ns = conn.namespace.clone();
        let f = cluster::fetch_hpa_with(&conn, &ns, name, &progress).await?;
        Ok((conn.context.clone(), ns, f))
    })
}

/// Live fleet overview: fetch (requests that do not grow with the HPAs) → decide each → output.
fn live_fleet(opts: &ExplainOptions, rt: &Runtime) -> Result<Outcome> {
    let progress = progress(opts);
    let (conn, fetched) = rt.block_on(async {
        let conn = cluster::connect(&opts.read.kube).await?;
        let ns = (!opts.read.all_namespaces).then(|| conn.namespace.clone());
        let f = cluster::fetch_fleet(&conn, ns.as_deref(), &progress).await?;
        Ok::<_, anyhow::Error>((conn, f))
    })?;
    let at = overview::LiveScope {
        context: &conn.context,
        server: &conn.server,
        namespace: (!opts.read.all_namespaces).then_some(conn.namespace.as_str()),
    };
    overview::live_overview(opts, &at, fetched)
}
