//! The fleet overview: `kubectl hpa explain` without NAME (the namespace) or with `-A` — one line
//! per HPA, from one [`Snapshot`] per namespace (live: fetched with a number of requests that does
//! not grow with the number of HPAs, see [`cluster::fetch_fleet`]; offline: a snapshot file with
//! several HPAs). Every decision comes from the same [`Snapshot::input_for`] + `core::evaluate`
//! path as `explain NAME` ([`super::explain::decide_with_input`]); diagnostics are added next to it.
//!
//! JSON (`-o json`, `kind: FleetExplanation`): `{apiVersion, kind, scope, source, notes[],
//! items[]}`; each item is `{namespace, name, target{kind,name}, currentReplicas,
//! desiredReplicas, statusDesiredReplicas, minReplicas, maxReplicas, action, decidedBy, summary,
//! warnings[], error, diagnostics[], decision}` where `decision` is the full `Explanation` of
//! `explain NAME -o json` (null when the HPA could not be evaluated; `error` says why).

use std::path::Path;

use anyhow::{anyhow, Result};
use k8s_openapi::api::autoscaling::v2::HorizontalPodAutoscaler;
use owo_colors::OwoColorize;
use serde::Serialize;

use crate::cli::{ExplainOptions, OutputFormat};
use crate::cluster;
use crate::core::{Action, Decision, Rule, TargetRef, CONTRACT_VERSION};
use crate::diagnose::{self, Extras, Finding, Severity};
use crate::snapshot::Snapshot;

/// Read a snapshot file and the diagnostic context it holds (the file is parsed once).
pub fn read_snapshot_file(path: &Path) -> Result<(Snapshot, Extras)> {
    let snap = Snapshot::from_file(path).map_err(|e| anyhow!(e))?;
    let extras = Extras::from_snapshot(&snap);
    Ok((snap, extras))
}

/// One line of the overview.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FleetItem {
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
    pub decision: Option<Decision>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct FleetDoc<'a> {
    api_version: &'static str,
    kind: &'static str,
    /// `namespace shop`, `all namespaces`.
    scope: String,
    source: String,
    notes: &'a [String],
    items: &'a [FleetItem],
}

fn item_from(
    opts: &ExplainOptions,
    snap: &Snapshot,
    extras: &Extras,
    raw: &HorizontalPodAutoscaler,
) -> FleetItem {
    let ns = raw.metadata.namespace.as_deref().unwrap_or("default");
    let name = raw.metadata.name.as_deref().unwrap_or_default();
    let tref = &raw.spec.scale_target_ref;
    let mut o = opts.clone();
    o.namespace = Some(ns.to_string());
    o.name = Some(name.to_string());
    match super::explain::decide_with_input(&o, snap, name) {
        Ok((input, d)) => {
            let findings = diagnose::diagnose(snap, &input, &d, extras);
            FleetItem {
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
                decision: Some(d),
            }
        }
        Err(e) => FleetItem {
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
            decision: None,
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

/// Every HPA of a snapshot (optionally of one namespace), in namespace/name order (each name
/// once).
pub fn evaluate_snapshot(
    opts: &ExplainOptions,
    snap: &Snapshot,
    extras: &Extras,
    namespace: Option<&str>,
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
        .collect();
    hpas.sort_by_cached_key(|h| key(h));
    hpas.dedup_by(|a, b| key(a) == key(b));
    hpas.into_iter()
        .map(|h| item_from(opts, snap, extras, h))
        .collect()
}

/// `explain --snapshot FILE` without NAME on a file with several HPAs.
pub fn run_offline(opts: &ExplainOptions, snap: &Snapshot, extras: &Extras) -> Result<String> {
    let ns = if opts.all_namespaces {
        None
    } else {
        opts.namespace.as_deref()
    };
    // A --feature-gates that the snapshot's release refuses is one error, not one per HPA.
    super::explain::settings_for(opts, snap)?;
    let items = evaluate_snapshot(opts, snap, extras, ns);
    if items.is_empty() {
        anyhow::bail!(
            "{}: no HorizontalPodAutoscaler in namespace {:?} (the snapshot holds: {})",
            snap.source,
            ns.unwrap_or_default(),
            snap.hpa_names(None).join(", ")
        );
    }
    let scope = match ns {
        Some(n) => format!("namespace {n}"),
        None => "all namespaces".into(),
    };
    render_fleet(&items, opts, scope, snap.source.clone(), &[])
}

/// Live fleet overview: `explain` without NAME, or with `-A`.
pub fn run_live(opts: &ExplainOptions) -> Result<String> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let progress = cluster::Progress::on_terminal(
        !opts.kube.quiet && matches!(opts.output, OutputFormat::Text | OutputFormat::Wide),
    );
    let (conn, fetched) = rt.block_on(async {
        let conn = cluster::connect(&opts.kube).await?;
        let ns = (!opts.all_namespaces).then(|| conn.namespace.clone());
        let f = cluster::fetch_fleet(&conn, ns.as_deref(), &progress).await?;
        Ok::<_, anyhow::Error>((conn, f))
    })?;
    let notes = fetched.notes.clone();
    let items = evaluate_fetched(opts, &conn.context, fetched)?;
    let scope = if opts.all_namespaces {
        "all namespaces".to_string()
    } else {
        format!("namespace {}", conn.namespace)
    };
    if items.is_empty() {
        return Ok(match opts.output {
            OutputFormat::Json | OutputFormat::Yaml => render_fleet(
                &items,
                opts,
                scope,
                format!("cluster {}", conn.context),
                &notes,
            )?,
            _ => format!("No HorizontalPodAutoscalers found in {scope}.\n"),
        });
    }
    render_fleet(
        &items,
        opts,
        scope,
        format!("cluster {} ({})", conn.context, conn.server),
        &notes,
    )
}

/// Evaluate every HPA of a fleet fetch: one Snapshot per namespace (each List consumed).
pub fn evaluate_fetched(
    opts: &ExplainOptions,
    context: &str,
    fetched: cluster::FleetFetched,
) -> Result<Vec<FleetItem>> {
    let mut items = Vec::new();
    let source = format!("cluster {context}");
    for (_, list) in fetched.lists {
        let snap = Snapshot::from_owned(list, &source).map_err(|e| anyhow!(e))?;
        let mut extras = Extras::from_snapshot(&snap);
        extras.metrics_api = fetched.metrics_api.clone();
        super::explain::settings_for(opts, &snap)?;
        items.extend(evaluate_snapshot(opts, &snap, &extras, None));
    }
    Ok(items)
}

fn verdict_word(i: &FleetItem) -> String {
    match (i.action, i.current_replicas, i.desired_replicas) {
        (Some(Action::ScaleUp), Some(c), Some(d)) => format!("SCALE UP {c}→{d}"),
        (Some(Action::ScaleDown), Some(c), Some(d)) => format!("SCALE DOWN {c}→{d}"),
        (Some(Action::Hold), _, _) => "HOLD".into(),
        (Some(Action::CannotScale), _, _) => "CANNOT SCALE".into(),
        (Some(Action::Disabled), _, _) => "DISABLED".into(),
        (Some(Action::Unknown), _, _) => "UNKNOWN".into(),
        (Some(_), _, _) => "?".into(),
        (None, _, _) => "ERROR".into(),
    }
}

fn opt(v: Option<i32>) -> String {
    v.map_or("-".into(), |v| v.to_string())
}

fn truncate(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_string()
    } else {
        let mut t: String = s.chars().take(n.saturating_sub(1)).collect();
        t.push('…');
        t
    }
}

/// The table (text/wide) or the document (JSON/YAML).
pub fn render_fleet(
    items: &[FleetItem],
    opts: &ExplainOptions,
    scope: String,
    source: String,
    notes: &[String],
) -> Result<String> {
    let doc = FleetDoc {
        api_version: CONTRACT_VERSION,
        kind: "FleetExplanation",
        scope,
        source,
        notes,
        items,
    };
    match opts.output {
        OutputFormat::Json => return Ok(serde_json::to_string_pretty(&doc)? + "\n"),
        OutputFormat::Yaml => return Ok(serde_yaml::to_string(&doc)?),
        _ => {}
    }
    let wide = opts.output == OutputFormat::Wide;
    let all_ns = items
        .iter()
        .map(|i| &i.namespace)
        .collect::<std::collections::BTreeSet<_>>()
        .len()
        > 1
        || opts.all_namespaces;
    let mut rows: Vec<Vec<String>> = Vec::new();
    let mut header = vec![];
    if all_ns {
        header.push("NAMESPACE");
    }
    header.extend([
        "HPA", "TARGET", "CURRENT", "DESIRED", "MIN/MAX", "VERDICT", "REASON", "WARNINGS",
    ]);
    for i in items {
        let mut r = Vec::new();
        if all_ns {
            r.push(i.namespace.clone());
        }
        let reason = match (&i.decided_by, &i.summary, &i.error) {
            (Some(by), Some(s), _) => format!("{by}: {s}"),
            (_, _, Some(e)) => e.clone(),
            _ => String::new(),
        };
        r.extend([
            i.name.clone(),
            format!("{}/{}", i.target.kind, i.target.name),
            opt(i.current_replicas),
            match i.desired_range.filter(|r| r.min != r.max) {
                Some(r) => format!("{} ({}–{})", opt(i.desired_replicas), r.min, r.max),
                None => opt(i.desired_replicas),
            },
            format!("{}/{}", opt(i.min_replicas), opt(i.max_replicas)),
            verdict_word(i),
            if wide { reason } else { truncate(&reason, 70) },
            if i.warnings.is_empty() {
                "-".into()
            } else {
                i.warnings.join(",")
            },
        ]);
        rows.push(r);
    }
    let mut widths: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
    for r in &rows {
        for (k, c) in r.iter().enumerate() {
            widths[k] = widths[k].max(c.chars().count());
        }
    }
    let line = |cells: &[String]| -> String {
        let mut s = String::new();
        for (k, c) in cells.iter().enumerate() {
            if k + 1 == cells.len() {
                s.push_str(c);
            } else {
                s.push_str(c);
                s.push_str(&" ".repeat(widths[k] - c.chars().count() + 3));
            }
        }
        s.trim_end().to_string() + "\n"
    };
    let mut out = line(&header.iter().map(|h| h.to_string()).collect::<Vec<_>>());
    for (r, i) in rows.iter().zip(items) {
        let l = line(r);
        out += &if opts.color {
            match i.action {
                Some(Action::ScaleUp) => l.green().to_string(),
                Some(Action::ScaleDown) => l.cyan().to_string(),
                Some(Action::CannotScale | Action::Disabled) | None => l.red().to_string(),
                _ => l,
            }
        } else {
            l
        };
    }
    // The problems, one line each (with what to do in -o wide).
    let problems: Vec<(&FleetItem, &Finding)> = items
        .iter()
        .flat_map(|i| {
            i.diagnostics
                .iter()
                .filter(|f| f.severity != Severity::Info)
                .map(move |f| (i, f))
        })
        .collect();
    if !problems.is_empty() {
        out += "\nWarnings\n";
        for (i, f) in problems {
            out += &format!(
                "  {}/{} [{}] {}: {}\n",
                i.namespace,
                i.name,
                f.severity.as_str(),
                f.id,
                f.message
            );
            if wide {
                out += &format!("      → {}\n", f.action);
            }
        }
    }
    for n in notes {
        out += &format!("note: {n}\n");
    }
    out += &format!(
        "\n{} HPA(s); `kubectl hpa explain NAME -n NAMESPACE` explains one step by step{}\n",
        items.len(),
        if wide {
            ""
        } else {
            "; -o wide shows full reasons and what to do"
        }
    );
    Ok(out)
}
