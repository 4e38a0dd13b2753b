//! Rendering of the decision trace: text (for people), JSON and YAML (for programs).
//!
//! Every format renders the same [`Decision`]; nothing here computes a decision.

use std::fmt::Write as _;

use comfy_table::{presets, ContentArrangement, Table};
use owo_colors::OwoColorize;

use crate::cli::OutputFormat;
use crate::core::{Action, Calculation, Decision, MetricOutcome, PodGroup};
use crate::quantity::format_decimal_si;

/// Render a decision in the chosen format.
pub fn render(d: &Decision, format: OutputFormat, color: bool) -> anyhow::Result<String> {
    Ok(match format {
        OutputFormat::Json => serde_json::to_string_pretty(d)? + "\n",
        OutputFormat::Yaml => serde_yaml::to_string(d)?,
        OutputFormat::Text => text(d, color, false),
        OutputFormat::Wide => text(d, color, true),
    })
}

struct Style {
    color: bool,
}

impl Style {
    fn heading(&self, s: &str) -> String {
        if self.color {
            s.bold().underline().to_string()
        } else {
            s.to_string()
        }
    }
    fn verdict(&self, a: Action, s: &str) -> String {
        if !self.color {
            return s.to_string();
        }
        match a {
            Action::ScaleUp => s.green().bold().to_string(),
            Action::ScaleDown => s.cyan().bold().to_string(),
            Action::Hold => s.yellow().bold().to_string(),
            Action::CannotScale | Action::Disabled => s.red().bold().to_string(),
            Action::Unknown => s.magenta().bold().to_string(),
        }
    }
    fn dim(&self, s: &str) -> String {
        if self.color {
            s.dimmed().to_string()
        } else {
            s.to_string()
        }
    }
}

fn table(headers: &[&str]) -> Table {
    let mut t = Table::new();
    t.load_style(presets::UTF8_FULL_CONDENSED)
        .set_content_arrangement(ContentArrangement::Disabled)
        .set_header(headers.to_vec());
    t
}

fn opt<T: ToString>(v: Option<T>) -> String {
    v.map(|x| x.to_string()).unwrap_or_else(|| "-".into())
}

fn milli(v: i64) -> String {
    format_decimal_si(v)
}

fn ratio(r: f64) -> String {
    if r.is_finite() {
        format!("{r:.3}")
    } else {
        "-".into()
    }
}

fn band(b: [f64; 2]) -> String {
    format!("{:.3}–{:.3}", b[0], b[1])
}

/// (current, target, ratio, band, rule) of a metric for the table.
fn metric_numbers(m: &MetricOutcome) -> (String, String, String, String) {
    match &m.calculation {
        Some(Calculation::PodAverage {
            mode,
            current,
            target,
            ratio: r,
            tolerance_band,
            raw_average_milli,
            ..
        }) => {
            if mode == "Utilization" {
                (
                    if r.is_finite() {
                        format!("{current}% ({}/pod)", opt(raw_average_milli.map(milli)))
                    } else {
                        "-".into()
                    },
                    format!("{target}%"),
                    ratio(*r),
                    band(*tolerance_band),
                )
            } else {
                (
                    if r.is_finite() {
                        format!("{}/pod", milli(*current))
                    } else {
                        "-".into()
                    },
                    format!("{}/pod", milli(*target)),
                    ratio(*r),
                    band(*tolerance_band),
                )
            }
        }
        Some(Calculation::Value {
            value_milli,
            target_milli,
            ratio: r,
            tolerance_band,
            ..
        }) => (
            milli(*value_milli),
            milli(*target_milli),
            ratio(*r),
            band(*tolerance_band),
        ),
        Some(Calculation::AverageValue {
            total_milli,
            target_milli,
            status_replicas,
            ratio: r,
            tolerance_band,
            ..
        }) => (
            format!("{} ÷ {status_replicas}", milli(*total_milli)),
            format!("{}/pod", milli(*target_milli)),
            ratio(*r),
            band(*tolerance_band),
        ),
        None => ("-".into(), "-".into(), "-".into(), "-".into()),
    }
}

fn calc_rule(c: &Calculation) -> &str {
    match c {
        Calculation::PodAverage { rule, .. }
        | Calculation::Value { rule, .. }
        | Calculation::AverageValue { rule, .. } => rule,
    }
}

fn metric_name(d: &Decision, i: usize, m: &MetricOutcome) -> String {
    if let Some(desc) = &m.description {
        return desc.clone();
    }
    // Fall back to the spec.
    match d.metrics.get(i).map(|m| m.type_.as_str()) {
        Some(t) => format!("{t} metric #{}", i + 1),
        None => format!("metric #{}", i + 1),
    }
}

fn text(d: &Decision, color: bool, wide: bool) -> String {
    let st = Style { color };
    let mut o = String::new();
    let _ = writeln!(
        o,
        "HPA {}/{} → {} {}   {}",
        d.namespace,
        d.name,
        d.target.kind,
        d.target.name,
        st.dim(&format!(
            "(controller of Kubernetes {}, evaluated at {})",
            d.settings.kubernetes_version, d.now
        ))
    );
    let head = match (d.verdict.action, d.verdict.from, d.verdict.to) {
        (Action::ScaleUp, Some(f), Some(t)) => format!("SCALE UP {f} → {t}"),
        (Action::ScaleDown, Some(f), Some(t)) => format!("SCALE DOWN {f} → {t}"),
        (Action::Hold, Some(f), _) => format!("HOLD at {f}"),
        (Action::Disabled, _, _) => "SCALING DISABLED (target at 0 replicas)".to_string(),
        (Action::Unknown, _, _) => "UNKNOWN (a request of ours failed)".to_string(),
        (_, Some(f), _) => format!("CANNOT SCALE (stays at {f})"),
        _ => "CANNOT SCALE".to_string(),
    };
    let _ = writeln!(
        o,
        "Verdict: {}   decided by: {}",
        st.verdict(d.verdict.action, &head),
        d.verdict.decided_by
    );
    let _ = writeln!(o, "  {}", d.verdict.summary);
    let _ = writeln!(
        o,
        "  bounds: minReplicas {}, maxReplicas {}; tolerance band {} ({})",
        d.min_replicas,
        d.max_replicas,
        band(d.tolerance.band()),
        d.tolerance.source
    );

    if !d.metrics.is_empty() {
        let _ = writeln!(o, "\n{}", st.heading("Metrics"));
        let mut t = table(&[
            "#",
            "metric",
            "current",
            "target",
            "ratio",
            "hold band",
            "proposal",
            "note",
        ]);
        for (i, m) in d.metrics.iter().enumerate() {
            let (cur, tgt, r, b) = metric_numbers(m);
            let note = if let Some(e) = &m.error {
                format!("error: {e}")
            } else if let Some(s) = &m.skipped {
                s.clone()
            } else if m.winner {
                "winner".into()
            } else {
                String::new()
            };
            t.add_row(vec![
                (i + 1).to_string(),
                metric_name(d, i, m),
                cur,
                tgt,
                r,
                b,
                opt(m.proposed_replicas),
                note,
            ]);
        }
        let _ = writeln!(o, "{t}");
        for (i, m) in d.metrics.iter().enumerate() {
            if let Some(c) = &m.calculation {
                let _ = writeln!(o, "  {}. {}", i + 1, calc_rule(c));
                if let Calculation::PodAverage {
                    rebalance: Some(rb),
                    ..
                } = c
                {
                    let mut parts = Vec::new();
                    if let Some(v) = rb.missing_fill_milli {
                        parts.push(format!(
                            "{} pod(s) without metrics counted at {}",
                            rb.missing_pods,
                            milli(v)
                        ));
                    }
                    if rb.unready_fill_milli.is_some() {
                        parts.push(format!("{} unready pod(s) counted at 0", rb.unready_pods));
                    }
                    let _ = writeln!(
                        o,
                        "     re-computation: {} → ratio {} over {} pods",
                        parts.join(", "),
                        ratio(rb.new_ratio),
                        rb.entries
                    );
                }
            }
        }
    }

    for (i, m) in d.metrics.iter().enumerate() {
        let Some(Calculation::PodAverage {
            pods,
            mode,
            foreign_samples,
            ..
        }) = &m.calculation
        else {
            continue;
        };
        if pods.is_empty() {
            continue;
        }
        let util = mode == "Utilization";
        let _ = writeln!(
            o,
            "\n{}",
            st.heading(&format!(
                "Pods for metric {} ({})",
                i + 1,
                metric_name(d, i, m)
            ))
        );
        let mut headers = vec!["pod", "phase", "ready", "usage"];
        if util {
            headers.extend(["request", "util"]);
        }
        headers.extend(["counted", "why"]);
        if wide {
            headers.extend(["assumed", "owner"]);
        }
        let mut t = table(&headers);
        for p in pods {
            let counted = match (p.counted, p.group) {
                (true, _) => "yes".to_string(),
                (false, PodGroup::Ignored) => "ignored".into(),
                (false, PodGroup::Unready) => "unready".into(),
                (false, PodGroup::Missing) => "missing".into(),
                (false, PodGroup::Ready) => "no".into(),
            };
            let mut row = vec![
                p.pod.clone(),
                p.phase.clone(),
                opt(p.ready.clone()),
                opt(p.usage_milli.map(milli)),
            ];
            if util {
                row.push(opt(p.request_milli.map(milli)));
                row.push(opt(p.utilization.map(|u| format!("{u}%"))));
            }
            row.push(counted);
            row.push(p.why.clone());
            if wide {
                row.push(opt(p.assumed_milli.map(milli)));
                row.push(opt(p.owner.clone()));
            }
            t.add_row(row);
        }
        let _ = writeln!(o, "{t}");
        if *foreign_samples > 0 {
            let _ = writeln!(
                o,
                "  {foreign_samples} sample(s) belong to pods the target's selector does not list; the controller still averages them."
            );
        }
    }

    if let Some(n) = &d.normalization {
        let _ = writeln!(o, "\n{}", st.heading("From proposal to replicas"));
        let s = &n.stabilization;
        let _ = writeln!(o, "  proposal (largest metric proposal): {}", n.proposal);
        match s.scale_up_window_seconds {
            Some(up) => {
                let _ = writeln!(
                    o,
                    "  stabilization: scale-up window {up}s (lowest {}), scale-down window {}s (highest {}) → {}  [{}]",
                    opt(s.up_recommendation),
                    s.scale_down_window_seconds,
                    s.down_recommendation,
                    s.stabilized,
                    s.reason
                );
            }
            None => {
                let _ = writeln!(
                    o,
                    "  stabilization: scale-down window {}s, highest recommendation {} → {}  [{}]",
                    s.scale_down_window_seconds, s.down_recommendation, s.stabilized, s.reason
                );
            }
        }
        for r in &s.considered {
            let _ = writeln!(o, "    remembered {} at {}", r.replicas, r.time);
        }
        let l = &n.limits;
        if let Some(limit) = l.scale_up_limit {
            let _ = writeln!(
                o,
                "  scale-up limit without behavior: max(2 × current, 4) = {limit}"
            );
        }
        for p in &l.policies {
            let _ = writeln!(
                o,
                "  policy {:?} {} per {}s: period start {} (+{} −{} in period) → limit {}",
                p.kind,
                p.value,
                p.period_seconds,
                p.period_start_replicas,
                p.added_in_period,
                p.removed_in_period,
                p.limit
            );
        }
        if let (Some(sp), Some(rl)) = (l.select_policy, l.rate_limit) {
            let _ = writeln!(o, "  selectPolicy {sp:?} → rate limit {rl}");
        }
        let _ = writeln!(
            o,
            "  bounds [{}, {}] → {}  [{}: {}]",
            l.min_replicas, l.max_replicas, n.result, l.reason, l.message
        );
    }

    let _ = writeln!(o, "\n{}", st.heading("Steps"));
    for (i, s) in d.steps.iter().enumerate() {
        let _ = writeln!(o, "  {:>2}. [{}] {}", i + 1, s.rule, s.text);
    }

    let _ = writeln!(o, "\n{}", st.heading("Conditions the controller would set"));
    let mut t = table(&["type", "status", "reason", "message"]);
    for c in &d.conditions {
        let reason = if c.set_this_sync {
            c.reason.clone()
        } else {
            format!("{} (unchanged)", c.reason)
        };
        t.add_row(vec![
            c.type_.clone(),
            c.status.clone(),
            reason,
            c.message.clone(),
        ]);
    }
    let _ = writeln!(o, "{t}");
    if !d.events.is_empty() {
        let _ = writeln!(o, "\n{}", st.heading("Events the controller would emit"));
        for e in &d.events {
            let _ = writeln!(o, "  {} {} {}", e.type_, e.reason, e.message);
        }
    }
    let _ = writeln!(o, "\n{}", st.heading("Assumptions"));
    for a in &d.assumptions {
        let _ = writeln!(o, "  - {a}");
    }
    o
}
