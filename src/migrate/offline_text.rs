//! The offline parts of the text report: each HPA's workload and findings, the charts, the
//! Kustomize settings, the general "next apply" table, and the one line per source when
//! nothing is to change.

use super::chart::{ChartOrigin, ChartReport};
use super::plan::Severity;
use super::report::{Layout, Mode, Report, RunAdvice};

fn chart(c: &ChartReport, width: usize, o: &mut String) {
    if c.origin == ChartOrigin::OtherTool {
        return other_tool(c, width, o);
    }
    let finding = |line: String| crate::render::layout::wrap(&line, width, "  ", "    ");
    *o += &match (c.origin, &c.values_file) {
        (ChartOrigin::UnknownChart, Some(v)) => format!(
            "Templates of an unknown chart {} (no Chart.yaml; values from {v}):\n",
            c.dir
        ),
        (ChartOrigin::UnknownChart, None) => format!(
            "Templates of an unknown chart {} (no Chart.yaml, no values.yaml beside or above):\n",
            c.dir
        ),
        _ => format!("Helm chart {}:\n", c.dir),
    };
    if c.replicas.is_empty() {
        *o += "  no template renders replicas\n";
    }
    let values = c.values_file.as_deref().unwrap_or("values.yaml");
    let at = |line: Option<usize>| line.map_or(String::new(), |l| format!(" ({values}:{l})"));
    for t in &c.replicas {
        match &t.guard {
            Some((line, cond)) => *o += &finding(format!(
                "[info] helm-chart-guarded: {}:{}: `{}` is rendered only without autoscaling (`{}`, line {line}): nothing to change in the chart; enable {}{}",
                t.file, t.line, t.text, block(cond), c.autoscaling_key, at(c.autoscaling_line)
            )),
            None => {
                let key = t.values_key.as_ref().map_or(String::new(), |k| {
                    let line = t.values_line.map_or(String::new(), |l| format!(", {values}:{l}"));
                    format!(" (values key {k}{line})")
                });
                *o += &finding(format!(
                    "[high] helm-chart-sets-replicas: {}:{}: `{}`{key} is rendered even with autoscaling; templates are not edited — guard it (the diff is advice):",
                    t.file, t.line, t.text
                ));
                let advice = t.fix_diff.as_deref().or(t.fix.as_deref());
                for l in advice.unwrap_or_default().lines() {
                    *o += &format!("      {l}\n");
                }
            }
        }
    }
    if !c.replicas.is_empty() {
        *o += &finding("the upgrade that stops rendering replicas sends replicas: null (-> 1) if the deployed release rendered it: run migrate against the cluster to read the release".into());
    }
    *o += "\n";
}

/// A guard as written: `if COND`, or the `with`/`range` block it is.
fn block(cond: &str) -> String {
    if cond.starts_with("with ") || cond.starts_with("range ") {
        cond.to_string()
    } else {
        format!("if {cond}")
    }
}

/// Templates of another tool: where they render replicas, and no Helm advice.
fn other_tool(c: &ChartReport, width: usize, o: &mut String) {
    let finding = |line: String| crate::render::layout::wrap(&line, width, "  ", "    ");
    *o += &format!(
        "Templates of another tool {} ({{{{ }}}} without Helm's functions): no Helm advice\n",
        c.dir
    );
    if c.replicas.is_empty() {
        *o += "  no template renders replicas\n";
    }
    for t in &c.replicas {
        *o += &finding(match &t.guard {
            Some((line, cond)) => format!(
                "[info] template-sets-replicas: {}:{}: `{}` looks rendered only without autoscaling (`{}`, line {line}): nothing to change if that holds",
                t.file, t.line, t.text, block(cond)
            ),
            None => format!(
                "[info] template-sets-replicas: {}:{}: `{}`: render it only without the HPA, in that tool's own terms",
                t.file, t.line, t.text
            ),
        });
    }
    *o += "\n";
}

/// The offline parts of the text report.
pub fn render(r: &Report, layout: Layout, o: &mut String) {
    for t in &r.targets {
        *o += &format!(
            "HPA {} ({}) scales {} {}\n",
            t.hpa, t.hpa_at, t.target.kind, t.target.name
        );
        for f in &t.findings {
            let sev = match f.severity {
                Severity::High => "high",
                Severity::Medium => "medium",
                Severity::Info => "info",
            };
            *o += &format!("  [{sev}] {}: {}\n", f.id, f.message);
        }
        *o += "\n";
    }
    for c in &r.charts {
        chart(c, layout.width, o);
    }
    let other: Vec<String> = r
        .kustomize
        .iter()
        .filter(|k| {
            !r.targets
                .iter()
                .any(|t| t.target.name == k.name || k.name.is_empty())
        })
        .map(|k| format!("  {}\n", k.describe()))
        .collect();
    if r.mode == Mode::Offline && !other.is_empty() {
        *o += "Kustomize settings of replicas (for workloads no HPA here scales):\n";
        *o += &other.concat();
        *o += "\n";
    }
    if !r.general.is_empty() && (layout.wide || affected(r)) {
        general_table(&r.general, layout.width, o);
    }
}

/// The general advice, each tool's text wrapped beside its name (under it when narrow).
fn general_table(general: &[RunAdvice], width: usize, o: &mut String) {
    use crate::render::layout::wrap;
    *o += "The next apply, in general (the owners are unknown offline):\n";
    let w = general.iter().map(|g| g.tool.len()).max().unwrap_or(0);
    let pad = " ".repeat(w + 4);
    for g in general {
        if width >= w + 4 + 40 {
            *o += &wrap(&g.text, width, &format!("  {:<w$}  ", g.tool), &pad);
        } else {
            *o += &format!("  {}\n", g.tool);
            *o += &wrap(&g.text, width, "      ", "      ");
        }
    }
    *o += "\n";
}

/// A workload is affected: a file to edit, a finding above info, a chart template to guard or
/// a Kustomize setting of replicas.
fn affected(r: &Report) -> bool {
    !r.edited_files().is_empty()
        || r.targets
            .iter()
            .flat_map(|t| &t.findings)
            .any(|f| f.severity > Severity::Info)
        || r.charts
            .iter()
            .flat_map(|c| &c.replicas)
            .any(|t| t.guard.is_none())
        || !r.kustomize.is_empty()
}

/// Offline with nothing to change and nothing wrong: one line per source saying so and why.
pub fn nothing_to_change(r: &Report) -> Option<Vec<String>> {
    if r.mode != Mode::Offline
        || affected(r)
        || !r.errors.is_empty()
        || !r.file_errors.is_empty()
        || (r.targets.is_empty() && r.charts.is_empty())
        || r.targets.iter().any(|t| t.occurrences.is_empty())
    {
        return None;
    }
    let mut out = Vec::new();
    for t in &r.targets {
        let at: Vec<String> = t
            .occurrences
            .iter()
            .map(|o| format!("{}:{}", o.file, o.line))
            .collect();
        out.push(format!(
            "Nothing to change: {} {} ({}) sets no spec.replicas; HPA {} at {}",
            t.target.kind,
            t.target.name,
            at.join(", "),
            t.hpa,
            t.hpa_at
        ));
    }
    for c in &r.charts {
        let why = match c.replicas.as_slice() {
            [] => format!("no template of chart {} renders spec.replicas", c.dir),
            [t, ..] => {
                let line = t.guard.as_ref().map_or(0, |g| g.0);
                let more = match c.replicas.len() - 1 {
                    0 => String::new(),
                    n => format!(" (and {n} more, guarded too)"),
                };
                format!(
                    "{}:{}: replicas only without autoscaling (line {line}){more}",
                    t.file, t.line
                )
            }
        };
        out.push(format!("Nothing to change: {why}"));
    }
    Some(out)
}
