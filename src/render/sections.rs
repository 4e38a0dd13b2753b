//! The sections of the text output, in reading order.

use std::fmt::Write as _;

use super::layout::table_of;
use super::{Context, Style};
use crate::core::calc::Rebalance;
use crate::core::{Calculation, Decision, MetricOutcome, PodGroup, PodRow};
use crate::diagnose::Severity;
use crate::display::names;
use crate::display::units::{self, Unit};

/// Pods shown without `--pods all`/`-o wide` when every pod is ordinary.
const PODS_SHOWN: usize = 12;
/// Ordinary pods kept at each end (highest and lowest usage) when the list is cut.
const EXTREMES: usize = 3;

pub(crate) fn opt<T: ToString>(v: Option<T>) -> String {
    v.map(|x| x.to_string()).unwrap_or_else(|| "-".into())
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

/// How the table names metric `i`, and the unit of its values.
fn metric_id(d: &Decision, cx: &Context, i: usize) -> (String, Unit) {
    if cx.specs.len() == d.metrics.len() {
        if let Some(spec) = cx.specs.get(i) {
            return names::metric(spec);
        }
    }
    let m = &d.metrics[i];
    let unit = match m.description.as_deref() {
        Some(s) if s.starts_with("memory ") => Unit::Bytes,
        Some(s) if s.starts_with("cpu ") => Unit::Cpu,
        _ => Unit::Plain,
    };
    let name = m
        .description
        .clone()
        .unwrap_or_else(|| format!("{} metric #{}", m.type_, i + 1));
    (name, unit)
}

/// The ratio that decided: after the controller's re-computation with assumed values, that one.
fn deciding_ratio(c: &Calculation) -> (f64, Option<&Rebalance>) {
    match c {
        Calculation::PodAverage {
            rebalance: Some(rb),
            ..
        } => (rb.new_ratio, Some(rb)),
        Calculation::PodAverage { ratio, .. }
        | Calculation::Value { ratio, .. }
        | Calculation::AverageValue { ratio, .. } => (*ratio, None),
    }
}

fn calc_band(c: &Calculation) -> [f64; 2] {
    match c {
        Calculation::PodAverage { tolerance_band, .. }
        | Calculation::Value { tolerance_band, .. }
        | Calculation::AverageValue { tolerance_band, .. } => *tolerance_band,
    }
}

fn calc_rule(c: &Calculation) -> &str {
    match c {
        Calculation::PodAverage { rule, .. }
        | Calculation::Value { rule, .. }
        | Calculation::AverageValue { rule, .. } => rule,
    }
}

/// (current, target) of a metric in its unit.
fn values(m: &MetricOutcome, unit: Unit) -> (String, String) {
    match &m.calculation {
        Some(Calculation::PodAverage {
            mode,
            current,
            target,
            ratio: r,
            raw_average_milli,
            ..
        }) => {
            let known = r.is_finite();
            if *mode == "Utilization" {
                let cur = match (known, raw_average_milli) {
                    (false, _) => "-".into(),
                    (true, Some(raw)) => format!("{current}% ({}/pod)", unit.show(*raw)),
                    (true, None) => format!("{current}%"),
                };
                (cur, format!("{target}%"))
            } else {
                let cur = if known {
                    format!("{}/pod", unit.show(*current))
                } else {
                    "-".into()
                };
                (cur, format!("{}/pod", unit.show(*target)))
            }
        }
        Some(Calculation::Value {
            value_milli,
            target_milli,
            ..
        }) => (unit.show(*value_milli), unit.show(*target_milli)),
        Some(Calculation::AverageValue {
            total_milli,
            target_milli,
            status_replicas,
            ..
        }) => (
            format!("{} ÷ {status_replicas}", unit.show(*total_milli)),
            format!("{}/pod", unit.show(*target_milli)),
        ),
        None => ("-".into(), "-".into()),
    }
}

/// The target of a metric from its spec (for metrics that failed before any calculation).
fn spec_target(cx: &Context, i: usize, unit: Unit) -> Option<String> {
    let spec = cx.specs.get(i)?;
    let t = spec
        .resource
        .as_ref()
        .map(|r| &r.target)
        .or(spec.container_resource.as_ref().map(|r| &r.target))
        .or(spec.pods.as_ref().map(|r| &r.target))
        .or(spec.object.as_ref().map(|r| &r.target))
        .or(spec.external.as_ref().map(|r| &r.target))?;
    let milli = |q: &k8s_openapi::apimachinery::pkg::api::resource::Quantity| {
        crate::quantity::parse_milli(&q.0).ok()
    };
    if let Some(u) = t.average_utilization {
        return Some(format!("{u}%"));
    }
    if let Some(v) = t.average_value.as_ref().and_then(milli) {
        return Some(format!("{}/pod", unit.show(v)));
    }
    t.value.as_ref().and_then(milli).map(|v| unit.show(v))
}

/// "Why": the deciding facts, one per line.
pub(crate) fn why(d: &Decision, cx: &Context, st: &Style) -> String {
    let mut lines = Vec::new();
    let several = d.metrics.len() > 1;
    for (i, m) in d.metrics.iter().enumerate() {
        let (name, unit) = metric_id(d, cx, i);
        if let Some(e) = &m.error {
            lines.push(format!("{name}: failed — {e}"));
            continue;
        }
        if m.skipped.is_some() || (several && d.metrics.len() > 4 && !m.winner) {
            continue;
        }
        let Some(c) = &m.calculation else { continue };
        let (cur, tgt) = values(m, unit);
        let (r, rb) = deciding_ratio(c);
        let b = calc_band(c);
        let place = if r >= b[0] && r <= b[1] {
            "inside"
        } else {
            "outside"
        };
        let recomputed = if rb.is_some() {
            " after re-computing with assumed values for unready/missing pods"
        } else {
            ""
        };
        let deciding = if several && m.winner {
            " (the deciding metric)"
        } else {
            ""
        };
        lines.push(format!(
            "{name}{deciding} is at {cur} for a target of {tgt}: ratio {}{recomputed}, {place} the hold band {} → proposes {}",
            ratio(r),
            band(b),
            opt(m.proposed_replicas)
        ));
    }
    if let Some(n) = &d.normalization {
        let s = &n.stabilization;
        if s.stabilized != n.proposal {
            lines.push(format!(
                "stabilization: the proposal {} becomes {} ({})",
                n.proposal, s.stabilized, s.message
            ));
        }
        if n.result != s.stabilized {
            lines.push(format!(
                "limits: {} becomes {} ({})",
                s.stabilized, n.result, n.limits.message
            ));
        }
    }
    lines.push(format!(
        "bounds: minReplicas {}, maxReplicas {}; tolerance band {} ({})",
        d.min_replicas,
        d.max_replicas,
        band(d.tolerance.band()),
        d.tolerance.source
    ));
    let mut o = format!("\n{}\n", st.heading("Why"));
    for l in lines {
        o += &st.bullet(&l);
    }
    o
}

/// "What you can do": the actions of the most severe diagnostics, else where the next scale is.
pub(crate) fn what_to_do(cx: &Context, st: &Style) -> String {
    let mut problems: Vec<_> = cx
        .findings
        .iter()
        .filter(|f| f.severity != Severity::Info)
        .collect();
    problems.sort_by_key(|f| f.severity);
    let mut lines: Vec<String> = problems
        .iter()
        .take(2)
        .map(|f| format!("{} [{}]", f.action, f.id))
        .collect();
    if lines.is_empty() {
        if let Some(f) = cx.findings.iter().find(|f| f.id == "held") {
            lines.push(f.action.clone());
        } else if let Some(f) = cx.findings.iter().find(|f| f.id == "next-scale") {
            lines.push(format!("nothing to fix; {}", f.message));
        }
    }
    if lines.is_empty() {
        return String::new();
    }
    let mut o = format!("\n{}\n", st.heading("What you can do"));
    for l in lines {
        o += &st.bullet(&l);
    }
    if problems.len() > 2 {
        o += &st.line(&format!("({} more under Diagnostics)", problems.len() - 2));
    }
    o
}

fn note(m: &MetricOutcome, st: &Style) -> String {
    let recomputed = m.calculation.as_ref().and_then(|c| match c {
        Calculation::PodAverage {
            ratio: alone,
            rebalance: Some(_),
            ..
        } => Some(format!("re-computed (ready pods alone: {})", ratio(*alone))),
        _ => None,
    });
    match (&m.error, &m.skipped) {
        (Some(e), _) if st.wide => format!("failed: {e}"),
        (Some(_), _) => "failed (see Why)".into(),
        (None, Some(s)) => s.clone(),
        (None, None) => {
            let mut parts = Vec::new();
            if m.winner {
                parts.push("winner".to_string());
            }
            parts.extend(recomputed);
            parts.join("; ")
        }
    }
}

/// The metrics table and each metric's rule.
pub(crate) fn metrics(d: &Decision, cx: &Context, st: &Style) -> String {
    if d.metrics.is_empty() {
        return String::new();
    }
    let mut o = format!("\n{}\n", st.heading("Metrics"));
    // The band is in "Why"; the table shows it only where a metric's differs (or -o wide).
    let with_band = st.wide
        || d.metrics.iter().any(|m| {
            m.calculation
                .as_ref()
                .is_some_and(|c| calc_band(c) != d.tolerance.band())
        });
    let mut headers = vec!["#", "metric", "current", "target", "ratio"];
    if with_band {
        headers.push("hold band");
    }
    headers.extend(["proposal", "note"]);
    let mut rows = Vec::new();
    for (i, m) in d.metrics.iter().enumerate() {
        let (name, unit) = metric_id(d, cx, i);
        let (cur, mut tgt) = values(m, unit);
        if tgt == "-" {
            tgt = spec_target(cx, i, unit).unwrap_or(tgt);
        }
        let (r, b) = match &m.calculation {
            Some(c) => (ratio(deciding_ratio(c).0), band(calc_band(c))),
            None => ("-".into(), band(d.tolerance.band())),
        };
        let mut row = vec![(i + 1).to_string(), name, cur, tgt, r];
        if with_band {
            row.push(b);
        }
        row.extend([opt(m.proposed_replicas), note(m, st)]);
        rows.push(row);
    }
    let t = table_of(&headers, rows, st.width);
    let _ = writeln!(o, "{t}");
    for (i, m) in d.metrics.iter().enumerate() {
        let Some(c) = &m.calculation else { continue };
        o += &st.para(calc_rule(c), &format!("  {}. ", i + 1), "     ");
        if let (_, Some(rb)) = deciding_ratio(c) {
            o += &st.para(
                &rebalance_text(rb, metric_id(d, cx, i).1),
                "     ",
                "       ",
            );
        }
    }
    o += &super::chain::lines(cx, st);
    o
}

fn rebalance_text(rb: &Rebalance, unit: Unit) -> String {
    let mut parts = Vec::new();
    if let Some(v) = rb.missing_fill_milli {
        parts.push(format!(
            "{} pod(s) without metrics counted at {}",
            rb.missing_pods,
            unit.show(v)
        ));
    }
    if rb.unready_fill_milli.is_some() {
        parts.push(format!("{} unready pod(s) counted at 0", rb.unready_pods));
    }
    format!(
        "re-computation: {} → ratio {} over {} pods",
        parts.join(", "),
        ratio(rb.new_ratio),
        rb.entries
    )
}

/// Whether a pod row is one a reader must see (not counted as an ordinary ready pod).
fn matters(p: &PodRow) -> bool {
    !(p.counted && p.group == PodGroup::Ready)
}

/// The pods to show, in their order, and how many ordinary pods are left out.
fn pods_to_show(pods: &[PodRow], all: bool) -> (Vec<&PodRow>, usize) {
    if all || pods.len() <= PODS_SHOWN {
        return (pods.iter().collect(), 0);
    }
    let key = |p: &PodRow| p.utilization.or(p.usage_milli).unwrap_or(0);
    let mut ordinary: Vec<usize> = (0..pods.len()).filter(|&i| !matters(&pods[i])).collect();
    ordinary.sort_by_key(|&i| key(&pods[i]));
    let mut keep: Vec<bool> = pods.iter().map(matters).collect();
    let n = ordinary.len();
    for (rank, &i) in ordinary.iter().enumerate() {
        if rank < EXTREMES || rank + EXTREMES >= n {
            keep[i] = true;
        }
    }
    let shown: Vec<&PodRow> = pods
        .iter()
        .zip(&keep)
        .filter(|(_, k)| **k)
        .map(|(p, _)| p)
        .collect();
    let hidden = pods.len() - shown.len();
    (shown, hidden)
}

fn counted_cell(p: &PodRow, failed: bool) -> String {
    if failed {
        return "-".into();
    }
    match (p.counted, p.group) {
        (true, _) => "yes".to_string(),
        (false, PodGroup::Ignored) => "ignored".into(),
        (false, PodGroup::Unready) => "unready".into(),
        (false, PodGroup::Missing) => "missing".into(),
        (false, PodGroup::Ready) => "no".into(),
    }
}

/// The why of a pod: an ordinary counted Ready pod says `Ready` rather than a sentence (its full
/// reason, such as how its sample relates to the cpu-initialization-period, is in `-o wide` and
/// the JSON); short reasons ("has a sample") stay.
fn why_cell(p: &PodRow, failed: bool, util: bool, resource: &str, wide: bool) -> String {
    match (failed, util && p.request_milli.is_none()) {
        (true, true) => format!("no {resource} request"),
        (true, false) => "metric failed".into(),
        (false, _)
            if !wide && !matters(p) && p.why.len() > 16 && p.ready.as_deref() == Some("True") =>
        {
            "Ready".into()
        }
        (false, _) => p.why.clone(),
    }
}

/// One table of pods per pod-average metric.
pub(crate) fn pods(d: &Decision, cx: &Context, st: &Style) -> String {
    let mut o = String::new();
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
        let (name, unit) = metric_id(d, cx, i);
        let resource = name.split_whitespace().next().unwrap_or("").to_string();
        let util = *mode == "Utilization";
        let failed = m.error.is_some();
        let heading = format!("Pods for metric {} ({name})", i + 1);
        let _ = write!(o, "\n{}\n", st.heading(&heading));
        let (shown, hidden) = pods_to_show(pods, st.all_pods);
        // Narrow: phase and ready only when they say something the "why" column does not.
        let phase = !st.narrow() || shown.iter().any(|p| p.phase != "Running");
        let ready = !st.narrow();
        let mut headers = vec!["pod"];
        if phase {
            headers.push("phase");
        }
        if ready {
            headers.push("ready");
        }
        headers.push("usage");
        if util {
            headers.extend(["request", "util"]);
        }
        headers.extend(["counted", "why"]);
        if st.wide {
            headers.extend(["assumed", "owner"]);
        }
        let mut rows = Vec::new();
        for p in shown {
            let mut row = vec![p.pod.clone()];
            if phase {
                row.push(p.phase.clone());
            }
            if ready {
                row.push(opt(p.ready.clone()));
            }
            row.push(opt(p.usage_milli.map(|v| unit.show(v))));
            if util {
                row.push(opt(p.request_milli.map(|v| unit.show(v))));
                row.push(opt(p.utilization.map(|u| format!("{u}%"))));
            }
            row.push(counted_cell(p, failed));
            row.push(why_cell(p, failed, util, &resource, st.wide));
            if st.wide {
                row.push(opt(p.assumed_milli.map(|v| unit.show(v))));
                row.push(opt(p.owner.clone()));
            }
            rows.push(row);
        }
        let t = table_of(&headers, rows, st.width);
        let _ = writeln!(o, "{t}");
        if hidden > 0 {
            let by = if util { "utilization" } else { "usage" };
            o += &st.line(&format!(
                "the ready pods shown are the {EXTREMES} with the lowest and the {EXTREMES} with the highest {by}; … and {hidden} more ready pods in between, counted as usual (every pod: --pods all or -o wide)"
            ));
        }
        if *foreign_samples > 0 {
            o += &st.line(&format!(
                "{foreign_samples} sample(s) belong to pods the target's selector does not list; the controller still averages them."
            ));
        }
    }
    o
}

/// From the metrics' proposal to the replica count: stabilization, rate limits, bounds.
pub(crate) fn normalization(d: &Decision, st: &Style) -> String {
    let Some(n) = &d.normalization else {
        return String::new();
    };
    let mut o = format!("\n{}\n", st.heading("From proposal to replicas"));
    let s = &n.stabilization;
    o += &st.line(&format!(
        "proposal (largest metric proposal): {}",
        n.proposal
    ));
    o += &st.line(&match s.scale_up_window_seconds {
        Some(up) => format!(
            "stabilization: scale-up window {up}s (lowest {}), scale-down window {}s (highest {}) → {}  [{}]",
            opt(s.up_recommendation),
            s.scale_down_window_seconds,
            s.down_recommendation,
            s.stabilized,
            s.reason
        ),
        None => format!(
            "stabilization: scale-down window {}s, highest recommendation {} → {}  [{}]",
            s.scale_down_window_seconds, s.down_recommendation, s.stabilized, s.reason
        ),
    });
    for r in &s.considered {
        o += &st.para(
            &format!(
                "remembered {} {} {}",
                r.replicas,
                remembered_at(d),
                units::time_ago(r.time, d.now)
            ),
            "    ",
            "      ",
        );
    }
    let l = &n.limits;
    if let Some(limit) = l.scale_up_limit {
        o += &st.line(&format!(
            "scale-up limit without behavior: max(2 × current, 4) = {limit}"
        ));
    }
    for p in &l.policies {
        o += &st.line(&format!(
            "policy {:?} {} per {}s: period start {} (+{} −{} in period) → limit {}",
            p.kind,
            p.value,
            p.period_seconds,
            p.period_start_replicas,
            p.added_in_period,
            p.removed_in_period,
            p.limit
        ));
    }
    if let (Some(sp), Some(rl)) = (l.select_policy, l.rate_limit) {
        o += &st.line(&format!("selectPolicy {sp:?} → rate limit {rl}"));
    }
    o += &st.line(&format!(
        "bounds [{}, {}] → {}  [{}: {}]",
        l.min_replicas, l.max_replicas, n.result, l.reason, l.message
    ));
    o
}

/// "at", or "about" when the memory is inferred (its times are the evidence's best guess).
fn remembered_at(d: &Decision) -> &'static str {
    use crate::core::with_memory::MemorySource;
    match d.memory.as_ref().map(|m| m.source) {
        Some(MemorySource::Inferred) => "about",
        _ => "at",
    }
}

/// Where the controller's memory came from, fact by fact.
pub(crate) fn memory_section(d: &Decision, st: &Style) -> String {
    use crate::core::with_memory::MemorySource;
    let Some(m) = &d.memory else {
        return String::new();
    };
    let source = match m.source {
        MemorySource::Inferred => {
            "inferred from the HPA's status and SuccessfulRescale Events (--history auto)"
        }
        MemorySource::None => "empty (--history none)",
        MemorySource::File => "exactly the --history file",
        MemorySource::Watched => "kept by --watch",
    };
    let mut o = format!("\n{}\n", st.heading("Controller memory"));
    o += &st.line(&format!("source: {source}"));
    let at = remembered_at(d);
    for r in &m.recommendations {
        o += &st.line(&format!(
            "recommendation {} {at} {}",
            r.replicas,
            units::time_ago(r.time, d.now)
        ));
    }
    for e in &m.scale_up_events {
        o += &st.line(&format!(
            "scale-up event +{} at {}",
            e.change,
            units::time_ago(e.time, d.now)
        ));
    }
    for e in &m.scale_down_events {
        o += &st.line(&format!(
            "scale-down event −{} at {}",
            e.change,
            units::time_ago(e.time, d.now)
        ));
    }
    for e in &m.evidence {
        o += &st.bullet(e);
    }
    o
}

/// The controller's steps, with its own words (errors in full).
pub(crate) fn steps(d: &Decision, st: &Style) -> String {
    let mut o = format!("\n{}\n", st.heading("Steps"));
    for (i, s) in d.steps.iter().enumerate() {
        o += &st.para(
            &format!("[{}] {}", s.rule, s.text),
            &format!("  {:>2}. ", i + 1),
            "      ",
        );
    }
    o
}

/// The conditions and events the controller would write (its exact texts).
pub(crate) fn conditions(d: &Decision, st: &Style) -> String {
    if d.verdict.action == crate::core::Action::Unknown {
        return written_conditions(d, st);
    }
    let mut o = format!("\n{}\n", st.heading("Conditions the controller would set"));
    let rows = d
        .conditions
        .iter()
        .map(|c| {
            let reason = if c.set_this_sync {
                c.reason.to_string()
            } else {
                format!("{} (unchanged)", c.reason)
            };
            vec![
                c.type_.to_string(),
                c.status.to_string(),
                reason,
                c.message.clone(),
            ]
        })
        .collect();
    let t = table_of(&["type", "status", "reason", "message"], rows, st.width);
    let _ = writeln!(o, "{t}");
    if !d.events.is_empty() {
        let _ = write!(o, "\n{}\n", st.heading("Events the controller would emit"));
        for e in &d.events {
            o += &st.line(&format!("{} {} {}", e.type_, e.reason, e.message));
        }
    }
    o
}

/// An `Unknown` verdict: what the controller would write now is not known; the HPA's own
/// conditions, as the controller last wrote them, are shown instead.
fn written_conditions(d: &Decision, st: &Style) -> String {
    let mut o = format!(
        "\n{}\n",
        st.heading("Conditions as the controller last wrote them")
    );
    let written = d.last_sync.as_ref().and_then(|l| l.written.as_ref());
    let rows: Vec<Vec<String>> = written
        .map(|w| &w.conditions[..])
        .unwrap_or_default()
        .iter()
        .map(|c| {
            vec![
                c.type_.clone(),
                c.status.clone(),
                c.reason.clone(),
                c.last_transition_time
                    .map(crate::display::units::full_time)
                    .unwrap_or_else(|| "-".into()),
            ]
        })
        .collect();
    if rows.is_empty() {
        o += &st.line("none (the HPA has no status conditions)");
    } else {
        let t = table_of(&["type", "status", "reason", "since"], rows, st.width);
        let _ = writeln!(o, "{t}");
    }
    o += &st
        .line("what the controller would set and emit now is not known (the verdict is UNKNOWN)");
    o
}

pub(crate) fn assumptions(d: &Decision, st: &Style) -> String {
    let mut o = format!("\n{}\n", st.heading("Assumptions"));
    for a in &d.assumptions {
        o += &st.bullet(a);
    }
    o
}

/// Every diagnostic, with its message and action.
pub(crate) fn diagnostics(cx: &Context, st: &Style) -> String {
    if cx.findings.is_empty() {
        return String::new();
    }
    let mut o = format!("\n{}\n", st.heading("Diagnostics"));
    for f in cx.findings {
        o += &st.para(
            &format!("[{}] {}: {}", st.severity(f.severity), f.id, f.message),
            "  ",
            "      ",
        );
        o += &st.para(&format!("→ {}", f.action), "      ", "        ");
    }
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pod(name: &str, util: i64, group: PodGroup, counted: bool) -> PodRow {
        PodRow {
            pod: name.into(),
            phase: "Running".into(),
            ready: Some("True".into()),
            group,
            why: "Ready".into(),
            usage_milli: Some(util * 5),
            request_milli: Some(500),
            utilization: Some(util),
            counted,
            assumed_milli: None,
            owner: None,
        }
    }

    #[test]
    fn many_pods_show_the_ones_that_matter_and_the_extremes() {
        let mut pods: Vec<PodRow> = (0..40)
            .map(|i| pod(&format!("p{i}"), 50 + i, PodGroup::Ready, true))
            .collect();
        pods[7] = pod("unready", 0, PodGroup::Unready, false);
        pods[20] = pod("missing", 0, PodGroup::Missing, false);
        let (shown, hidden) = pods_to_show(&pods, false);
        let names: Vec<&str> = shown.iter().map(|p| p.pod.as_str()).collect();
        assert_eq!(
            names,
            ["p0", "p1", "p2", "unready", "missing", "p37", "p38", "p39"]
        );
        assert_eq!(hidden, 32);
        assert_eq!(pods_to_show(&pods, true).0.len(), 40);
        assert_eq!(pods_to_show(&pods[..10], false).0.len(), 10);
    }

    #[test]
    fn a_failed_metric_does_not_say_counted_no_because_ready() {
        let p = PodRow {
            request_milli: None,
            ..pod("a", 40, PodGroup::Ready, false)
        };
        assert_eq!(counted_cell(&p, true), "-");
        assert_eq!(why_cell(&p, true, true, "cpu", false), "no cpu request");
        assert_eq!(counted_cell(&p, false), "no");
    }
}
