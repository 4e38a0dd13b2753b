//! Several kubeconfig contexts (`--context a --context b`, `--all-contexts`): the fleet
//! overview of each, fetched concurrently, each context with its own connection, retries and
//! failures, then one table with a CONTEXT column under a summary line per context; and
//! `explain NAME` explained in each context in turn.
//!
//! Connections are set up one context at a time, in the order given: that is where an exec
//! credential plugin runs, so a plugin that needs the terminal (a login prompt) is asked once,
//! in turn, never two at once. The fetches then run side by side.
//!
//! A context that cannot be read (unreachable, refused, no such context) is one line of the
//! summary (`error` of its entry in `contexts[]` of the JSON), the others are shown, and the
//! run exits 3 (our read failed, the output is partial); when no context can be read, the run
//! fails with one line (exit 1).

use anyhow::{bail, Result};
use tokio::runtime::Runtime;

use super::fleet::{evaluate_fetched, FleetItem};
use super::fleet_summary::summary_line;
use crate::cli::{ExplainOptions, OutputFormat};
use crate::cluster::{self, Conn, FleetFetched, Progress};
use crate::output::contract::ContextAnswer;
use crate::output::Outcome;
use crate::render::layout::{wrap, MIN_WIDTH};

/// The contexts this run reads when it reads several (`None`: one, the usual path).
pub fn contexts(opts: &ExplainOptions) -> Result<Option<Vec<String>>> {
    let k = &opts.read.kube;
    if !k.several_contexts() {
        return Ok(None);
    }
    let names = match k.all_contexts {
        true => cluster::context_names(&k.connect_options())?,
        false => k.distinct_contexts(),
    };
    Ok(Some(names))
}

/// Progress on stderr for the text formats, on a terminal.
pub fn progress(opts: &ExplainOptions) -> Progress {
    Progress::on_terminal(
        !opts.read.kube.quiet
            && matches!(opts.view.output, OutputFormat::Text | OutputFormat::Wide),
    )
}

/// One context's connection, set up in turn (see the module's documentation).
async fn connect_each(opts: &ExplainOptions, contexts: &[String]) -> Vec<Result<Conn, String>> {
    let mut conns = Vec::with_capacity(contexts.len());
    for c in contexts {
        let mut o = opts.read.kube.connect_options();
        o.context = Some(c.clone());
        conns.push(
            cluster::connect(o)
                .await
                .map_err(|e| one_line(&e.to_string())),
        );
    }
    conns
}

/// What one context answered: its HPAs evaluated (or why it could not be read), its notes.
struct Answer {
    context: String,
    server: Option<String>,
    scope: String,
    evaluated: Result<Vec<FleetItem>, String>,
    notes: Vec<String>,
}

/// The scope of one context: `-A`, `-n`, else the context's own namespace.
fn scope_of(opts: &ExplainOptions, conn: Option<&Conn>) -> (Option<String>, String) {
    if opts.read.all_namespaces {
        return (None, "all namespaces".into());
    }
    let ns = opts
        .read
        .namespace
        .clone()
        .or_else(|| conn.map(|c| c.namespace.clone()))
        .unwrap_or_else(|| "default".into());
    (Some(ns.clone()), format!("namespace {ns}"))
}

/// A context's fetch, handed to the evaluation as soon as it is done.
type Done = (usize, Result<FleetFetched, String>);

/// Every context's fleet, fetched concurrently once connected; each fetch is sent on `done`
/// as it completes (so the first contexts are evaluated while the others are still read).
/// The servers and scopes, in the order of `contexts`.
async fn fetch_each(
    opts: &ExplainOptions,
    contexts: &[String],
    progress: &Progress,
    done: std::sync::mpsc::Sender<Done>,
) -> Vec<(Option<String>, String)> {
    let conns = connect_each(opts, contexts).await;
    let fetches = conns.iter().enumerate().map(|(k, conn)| {
        let done = done.clone();
        async move {
            let (ns, scope) = scope_of(opts, conn.as_ref().ok());
            let fetched = match conn {
                Ok(conn) => cluster::fetch_fleet(conn, ns.as_deref(), progress)
                    .await
                    .map_err(|e| one_line(&e.to_string())),
                Err(e) => Err(e.clone()),
            };
            // The receiver lives until every fetch is done.
            let _ = done.send((k, fetched));
            (conn.as_ref().ok().map(|c| c.server.clone()), scope)
        }
    });
    futures::future::join_all(fetches).await
}

/// A context's items (or why it could not be read) and its notes.
type Evaluated = (Result<Vec<FleetItem>, String>, Vec<String>);

/// Each context's fetch evaluated as it arrives (on this thread; the evaluation of one
/// context runs its namespaces on every core): its items, context set, and its notes.
fn evaluate_each(
    opts: &ExplainOptions,
    contexts: &[String],
    done: std::sync::mpsc::Receiver<Done>,
) -> Result<Vec<Evaluated>> {
    let mut out: Vec<_> = contexts.iter().map(|_| (Ok(vec![]), vec![])).collect();
    for (k, fetched) in done {
        let context = &contexts[k];
        out[k] = match fetched {
            Ok(f) => {
                let notes = f
                    .notes
                    .iter()
                    .map(|n| format!("context {context}: {n}"))
                    .collect();
                let mut mine =
                    evaluate_fetched(crate::explain::fleet::Evaluation::of(opts), context, f)?;
                for i in &mut mine {
                    i.context = Some(context.clone());
                }
                (Ok(mine), notes)
            }
            Err(e) => (Err(e), vec![]),
        };
    }
    Ok(out)
}

/// Fetch every context (on the runtime) while the ones fetched are evaluated (on a thread of
/// their own): the CPU work of one context overlaps the others' reading.
fn read_each(
    opts: &ExplainOptions,
    rt: &Runtime,
    contexts: &[String],
    progress: &Progress,
) -> Result<Vec<Answer>> {
    let (tx, rx) = std::sync::mpsc::channel();
    let (heads, evaluated) = std::thread::scope(|s| {
        let evaluation = s.spawn(|| evaluate_each(opts, contexts, rx));
        let heads = rt.block_on(fetch_each(opts, contexts, progress, tx));
        let evaluated = evaluation
            .join()
            .unwrap_or_else(|_| Err(anyhow::anyhow!("the evaluation of the contexts failed")));
        (heads, evaluated)
    });
    Ok(contexts
        .iter()
        .zip(heads)
        .zip(evaluated?)
        .map(|((c, (server, scope)), (evaluated, notes))| Answer {
            context: c.clone(),
            server,
            scope,
            evaluated,
            notes,
        })
        .collect())
}

/// The fleet overview of several contexts (see the module's documentation).
pub fn run(
    opts: &ExplainOptions,
    rt: &Runtime,
    contexts: &[String],
    progress: &Progress,
) -> Result<Outcome> {
    let answers = read_each(opts, rt, contexts, progress)?;
    if answers.iter().all(|a| a.evaluated.is_err()) {
        let why: Vec<String> = answers
            .iter()
            .map(|a| {
                format!(
                    "{}: {}",
                    a.context,
                    a.evaluated.as_ref().err().unwrap_or(&String::new())
                )
            })
            .collect();
        bail!("no context could be read: {}", why.join("; "));
    }
    let mut items: Vec<FleetItem> = Vec::new();
    let mut notes: Vec<String> = Vec::new();
    let mut report = Vec::new();
    for a in answers {
        let (hpas, error) = match a.evaluated {
            Ok(mine) => {
                notes.extend(a.notes);
                let n = mine.len();
                items.extend(mine);
                (n, None)
            }
            Err(e) => (0, Some(e)),
        };
        report.push(ContextAnswer {
            context: a.context,
            server: a.server,
            scope: a.scope,
            hpas,
            error,
        });
    }
    let outcome = Outcome {
        text: render(opts, &items, &notes, &report)?,
        // A context not read: the output is partial.
        own_failure: report.iter().any(|r| r.error.is_some()) || super::fleet::own_failure(&items),
    };
    // perf: the process ends once this text is written, so the items are not freed one by one
    // (as clang's `-disable-free`): five contexts of 500 HPAs spent about 40 M instructions on
    // the main thread freeing what the evaluation threads built, after every evaluation ended
    // (`cargo bench --bench fleet`). Their memory is already counted in the peak.
    std::mem::forget(items);
    Ok(outcome)
}

/// The table under one summary line per context, or the document with `contexts[]`.
fn render(
    opts: &ExplainOptions,
    items: &[FleetItem],
    notes: &[String],
    report: &[ContextAnswer],
) -> Result<String> {
    let scope = overall_scope(opts, report);
    let source = format!(
        "contexts {}",
        report
            .iter()
            .map(|r| r.context.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    );
    // The summary counts each context's rows, contiguous in `items` before any sort.
    let summary = summary_lines(items, report, &scope, opts.view.width.max(MIN_WIDTH));
    let sorted;
    let items = match &opts.view.sort_by {
        Some(key) => {
            sorted = key.sorted(items);
            &sorted[..]
        }
        None => items,
    };
    if matches!(opts.view.output, OutputFormat::Json | OutputFormat::Yaml) {
        // Cloned only when some are left out (each item holds its whole decision).
        let kept: Vec<FleetItem>;
        let shown = match opts.view.problems {
            true => {
                kept = items
                    .iter()
                    .filter(|i| super::fleet_summary::needs_attention(i))
                    .cloned()
                    .collect();
                &kept[..]
            }
            false => items,
        };
        let doc = crate::output::contract::fleet_of_contexts(scope, source, notes, shown, report);
        if let Some(sel) = &opts.view.select {
            return Ok(sel.print(&doc)?);
        }
        return Ok(crate::output::document(&doc, opts.view.output)?);
    }
    let all_ns = opts.read.all_namespaces;
    Ok(super::fleet_table::render_with(
        items, &opts.view, all_ns, notes, &summary,
    ))
}

/// `3 contexts, all namespaces`, `2 of 3 contexts, namespace shop`.
fn overall_scope(opts: &ExplainOptions, report: &[ContextAnswer]) -> String {
    let read = report.iter().filter(|r| r.error.is_none()).count();
    let of = match read == report.len() {
        true => format!("{} contexts", report.len()),
        false => format!("{read} of {} contexts", report.len()),
    };
    let what = match (opts.read.all_namespaces, &opts.read.namespace) {
        (true, _) => "all namespaces".to_string(),
        (false, Some(ns)) => format!("namespace {ns}"),
        (false, None) => "each context's namespace".to_string(),
    };
    format!("{of}, {what}")
}

/// The whole fleet's line, then one per context: its counts, or why it could not be read
/// (`items` in the order read: each context's rows together).
fn summary_lines(
    items: &[FleetItem],
    report: &[ContextAnswer],
    scope: &str,
    width: usize,
) -> String {
    let mut out = summary_line(items, scope, width);
    for r in report {
        out += &match &r.error {
            None => {
                let mine = items
                    .chunk_by(|a, b| a.context == b.context)
                    .find(|c| c[0].context.as_deref() == Some(r.context.as_str()))
                    .unwrap_or_default();
                let at = format!("context {}, {}", r.context, r.scope);
                summary_line(mine, &at, width.saturating_sub(2).max(MIN_WIDTH))
                    .lines()
                    .map(|l| format!("  {l}\n"))
                    .collect()
            }
            Some(e) => wrap(
                &format!("context {}: not read: {e}", r.context),
                width,
                "  ",
                "    ",
            ),
        };
    }
    out
}

/// An error's text on one line.
fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// `explain NAME` in each context, in turn: the explanations one after the other (each under
/// `==> context NAME <==`); JSON and YAML print, and `-o name|jsonpath=…|custom-columns=…`
/// select from, the v1 `List` of the typed documents ([`documents_each`]). A context that
/// cannot be read or lacks the HPA is one line on stderr (exit 3); none readable: one error
/// (exit 1).
pub fn explain_each(
    opts: &ExplainOptions,
    rt: &Runtime,
    contexts: &[String],
    name: &str,
    progress: &Progress,
) -> Result<Outcome> {
    if opts.view.select.is_some() || opts.view.output.is_document() {
        let (list, own_failure) = documents_each(opts, rt, contexts, name, progress)?;
        let text = match &opts.view.select {
            Some(sel) => sel.apply(&list)?,
            None => crate::output::document(&list, opts.view.output)?,
        };
        return Ok(Outcome { text, own_failure });
    }
    let (texts, failed) = each_context(opts, rt, contexts, name, progress, |c, server, ns, f| {
        let one = super::live::explain_fetched(&opts.decide, &opts.view, name, c, ns, f)?;
        let text = format!("==> context {c} ({server}) <==\n{}", one.text);
        Ok((text, one.own_failure))
    })?;
    Ok(Outcome {
        own_failure: failed || texts.iter().any(|t| t.1),
        text: texts
            .into_iter()
            .map(|t| t.0)
            .collect::<Vec<_>>()
            .join("\n"),
    })
}

/// `explain NAME` in each context as a v1 `List` of the typed explanation documents, turned
/// into a JSON value once (never printed and parsed back).
pub fn documents_each(
    opts: &ExplainOptions,
    rt: &Runtime,
    contexts: &[String],
    name: &str,
    progress: &Progress,
) -> Result<(serde_json::Value, bool)> {
    let (docs, failed) = each_context(opts, rt, contexts, name, progress, |c, _, ns, f| {
        super::live::document_fetched(&opts.decide, name, c, ns, f)
    })?;
    let own_failure = failed || docs.iter().any(|d| d.1);
    let items = docs.into_iter().map(|d| d.0).collect();
    Ok((crate::cli::list(items), own_failure))
}

/// NAME fetched in each context in turn and handed to `explained`; the contexts that fail are
/// one line each on stderr (`true`: some failed, exit 3), none that succeeds is one error.
fn each_context<T>(
    opts: &ExplainOptions,
    rt: &Runtime,
    contexts: &[String],
    name: &str,
    progress: &Progress,
    explained: impl Fn(&str, String, String, cluster::Fetched) -> Result<T>,
) -> Result<(Vec<T>, bool)> {
    if opts.read.all_namespaces {
        bail!("-A/--all-namespaces lists a fleet (kubectl hpa explain -A); to explain one HPA use NAME -n NAMESPACE");
    }
    let mut outs = Vec::new();
    let mut failed = Vec::new();
    for c in contexts {
        let one = rt.block_on(async {
            let mut o = opts.read.kube.connect_options();
            o.context = Some(c.clone());
            let conn = cluster::connect(o).await?;
            let ns = conn.namespace.clone();
            let f = cluster::fetch_hpa_with(&conn, &ns, name, progress).await?;
            Ok::<_, anyhow::Error>((conn.server.clone(), ns, f))
        });
        match one.and_then(|(server, ns, f)| explained(c, server, ns, f)) {
            Ok(out) => outs.push(out),
            Err(e) => failed.push(format!("context {c}: {}", one_line(&format!("{e:#}")))),
        }
    }
    if outs.is_empty() {
        bail!("{}", failed.join("; "));
    }
    for f in &failed {
        crate::output::stderr_line(&format!("error: {f}"));
    }
    Ok((outs, !failed.is_empty()))
}
