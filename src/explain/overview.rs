//! The fleet overview: `kubectl hpa explain` without NAME (the namespace) or with `-A` — the
//! items of [`super::fleet`] in `--sort-by` order ([`crate::render::sort`]), only those that
//! need someone with `--problems`, as the table ([`super::fleet_table`]) or the document.
//!
//! JSON (`-o json`, `kind: FleetExplanation`): `{apiVersion, kind, scope, source, notes[],
//! items[]}` (each item a [`FleetItem`]).

use anyhow::Result;

use super::fleet::{evaluate_fetched, evaluate_snapshot, FleetItem};
use super::fleet_summary::needs_attention;
use crate::cli::{ExplainOptions, OutputFormat, ViewOptions};
use crate::cluster;
use crate::diagnose::Extras;
use crate::output::Outcome;
use crate::snapshot::Snapshot;

/// `explain --snapshot FILE` without NAME on a file with several HPAs.
pub fn run_offline(opts: &ExplainOptions, snap: &Snapshot, extras: &Extras) -> Result<Outcome> {
    let ns = if opts.read.all_namespaces {
        None
    } else {
        opts.read.namespace.as_deref()
    };
    // A --feature-gates that the snapshot's release refuses is one error, not one per HPA.
    super::one::settings_for(&opts.decide, snap)?;
    let items = evaluate_snapshot(
        crate::explain::fleet::Evaluation::of(opts),
        snap,
        extras,
        ns,
    );
    let text = matches!(opts.view.output, OutputFormat::Text | OutputFormat::Wide);
    if items.is_empty() && text && opts.read.selector.is_none() {
        return Ok(Outcome::ok(snap.no_hpas_text(ns)));
    }
    if items.is_empty() && opts.read.selector.is_some() {
        anyhow::bail!(
            "{}: no HorizontalPodAutoscaler in namespace {:?}{} (the snapshot holds: {})",
            snap.source,
            ns.unwrap_or_default(),
            matching(opts),
            snap.hpa_names(None).join(", ")
        );
    }
    let scope = match ns {
        Some(n) => format!("namespace {n}"),
        None => "all namespaces".into(),
    };
    let mut notes = snap.merge_notes.clone();
    notes.extend(snap.unanswered_note(ns));
    let text = render_fleet(
        &items,
        &opts.view,
        opts.read.all_namespaces,
        scope,
        snap.source.clone(),
        &notes,
    )?;
    Ok(outcome(text, &items))
}

/// The fleet's output and whether some HPA's decision is our own failure (exit 3).
fn outcome(text: String, items: &[FleetItem]) -> Outcome {
    Outcome {
        text,
        own_failure: super::fleet::own_failure(items),
    }
}

/// Where a live fleet was read: the kubeconfig context, the server, the namespace (None: all).
pub struct LiveScope<'a> {
    pub context: &'a str,
    pub server: &'a str,
    pub namespace: Option<&'a str>,
}

/// Live fleet overview (`explain` without NAME, or with `-A`) once the cluster has answered.
pub fn live_overview(
    opts: &ExplainOptions,
    at: &LiveScope,
    fetched: cluster::FleetFetched,
) -> Result<Outcome> {
    let notes = fetched.notes.clone();
    let items = evaluate_fetched(
        crate::explain::fleet::Evaluation::of(opts),
        at.context,
        fetched,
    )?;
    let scope = match at.namespace {
        None => "all namespaces".to_string(),
        Some(ns) => format!("namespace {ns}"),
    };
    if items.is_empty() {
        return Ok(Outcome::ok(match opts.view.output {
            OutputFormat::Json | OutputFormat::Yaml => render_fleet(
                &items,
                &opts.view,
                opts.read.all_namespaces,
                scope,
                format!("cluster {}", at.context),
                &notes,
            )?,
            _ => format!(
                "No HorizontalPodAutoscalers found in {scope}{}.\n",
                matching(opts)
            ),
        }));
    }
    let text = render_fleet(
        &items,
        &opts.view,
        opts.read.all_namespaces,
        scope,
        format!("cluster {} ({})", at.context, at.server),
        &notes,
    )?;
    Ok(outcome(text, &items))
}

/// ` matching -l SELECTOR` when a selector was given.
fn matching(opts: &ExplainOptions) -> String {
    opts.read
        .selector
        .as_ref()
        .map(|s| format!(" matching -l {s}"))
        .unwrap_or_default()
}

/// The table (text/wide) or the document (JSON/YAML); rows in `--sort-by` order.
pub fn render_fleet(
    items: &[FleetItem],
    view: &ViewOptions,
    all_namespaces: bool,
    scope: String,
    source: String,
    notes: &[String],
) -> Result<String> {
    let sorted;
    let items = match &view.sort_by {
        Some(key) => {
            sorted = key.sorted(items);
            &sorted[..]
        }
        None => items,
    };
    match view.output {
        OutputFormat::Json | OutputFormat::Yaml => {
            // Cloned only when some are left out (each item holds its whole decision).
            let kept: Vec<FleetItem>;
            let shown = match view.problems {
                true => {
                    kept = items
                        .iter()
                        .filter(|i| needs_attention(i))
                        .cloned()
                        .collect();
                    &kept[..]
                }
                false => items,
            };
            if let Some(sel) = &view.select {
                let doc = crate::output::contract::fleet(scope, source, notes, shown);
                return Ok(sel.print(&doc)?);
            }
            fleet_document(shown, view.output, scope, source, notes)
        }
        _ => Ok(super::fleet_table::render(
            items,
            view,
            all_namespaces,
            notes,
            &scope,
        )),
    }
}

/// The `FleetExplanation` document of `-o json|yaml`.
pub fn fleet_document(
    items: &[FleetItem],
    format: OutputFormat,
    scope: String,
    source: String,
    notes: &[String],
) -> Result<String> {
    let doc = crate::output::contract::fleet(scope, source, notes, items);
    Ok(crate::output::document(&doc, format)?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::explain::fleet::evaluate_snapshot;
    use crate::explain::testing::{example, options, NOW};

    #[test]
    fn the_document_is_a_fleet_explanation() {
        let (snap, extras) = example("scale-up-cpu.yaml");
        let opts = options(&["--now", NOW]);
        let items = evaluate_snapshot(
            crate::explain::fleet::Evaluation::of(&opts),
            &snap,
            &extras,
            None,
        );
        let json = fleet_document(
            &items,
            OutputFormat::Json,
            "all namespaces".into(),
            "f".into(),
            &[],
        )
        .expect("json");
        let v: serde_json::Value = serde_json::from_str(&json).expect("JSON");
        assert_eq!(v["kind"], "FleetExplanation");
        assert_eq!(v["items"][0]["name"], "web");
        let yaml =
            fleet_document(&items, OutputFormat::Yaml, "s".into(), "f".into(), &[]).expect("yaml");
        assert!(yaml.contains("kind: FleetExplanation"), "{yaml}");
    }
}
