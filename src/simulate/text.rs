//! The text output of `simulate`: the settings block, the timeline (streamed, one line per
//! sync that changed something), the Unicode chart and the summary table.

use std::fmt::Write as _;
use std::io::Write;

use comfy_table::{presets, Table};
use jiff::SignedDuration;
use owo_colors::OwoColorize;

use super::chart::{self, Hue};
use super::error::Result;
use super::options::SimulateOptions;
use super::plan::{Config, Plan};
use super::series::{self, go, num};
use super::summary::Summary;
use super::world::Load;
use crate::core::{Behavior, MetricSpec, Rules, Settings};

/// A metric's target: `Resource averageUtilization 60%`, quantities as the API writes them
/// (`averageValue 419430400`; the JSON's).
pub fn describe_target(m: &MetricSpec) -> String {
    describe_target_in(m, crate::display::units::Unit::Cpu)
}

/// A metric's target for people: quantities in the metric's units (`averageValue 400Mi`).
pub fn describe_target_text(m: &MetricSpec) -> String {
    describe_target_in(
        m,
        crate::display::units::Unit::of_resource(metric_resource(m)),
    )
}

/// [`describe_target`] with the quantities in `unit` (`Unit::Cpu`: decimal SI, as the API).
fn describe_target_in(m: &MetricSpec, unit: crate::display::units::Unit) -> String {
    let t = match m {
        MetricSpec::Resource { target, .. }
        | MetricSpec::ContainerResource { target, .. }
        | MetricSpec::Pods { target, .. }
        | MetricSpec::Object { target, .. }
        | MetricSpec::External { target, .. } => target,
        MetricSpec::Unknown { type_name } => return format!("unknown type {type_name}"),
    };
    let q = |milli: i64| unit.show(milli);
    let what = if let Some(av) = t.average_value {
        format!("averageValue {}", q(av))
    } else if let Some(u) = t.average_utilization {
        format!("averageUtilization {u}%")
    } else if let Some(v) = t.value {
        format!("value {}", q(v))
    } else {
        "no target".into()
    };
    format!("{} {what}", m.type_name())
}

/// A direction's rules: the window and the policies.
fn describe_rules(r: &Rules, default_window: SignedDuration) -> String {
    let window = r
        .stabilization_window_seconds
        .map(|s| go(SignedDuration::from_secs(s as i64)))
        .unwrap_or_else(|| format!("{} (--downscale-stabilization)", go(default_window)));
    let policies: Vec<String> = r
        .policies
        .iter()
        .map(|p| match p.kind {
            crate::core::PolicyKind::Pods => format!("{} pods/{}s", p.value, p.period_seconds),
            crate::core::PolicyKind::Percent => format!("{}%/{}s", p.value, p.period_seconds),
        })
        .collect();
    format!(
        "window {window}, {:?} of [{}]",
        r.select_policy,
        policies.join(", ")
    )
}

/// The behavior, one line per direction.
fn describe_behavior(b: Option<&Behavior>, s: &Settings) -> Vec<String> {
    match b {
        None => vec![format!(
            "none: the no-behavior path (scale-up limit max(2×current, 4) per sync, downscale stabilization {})",
            go(s.downscale_stabilization)
        )],
        Some(b) => vec![
            format!("scaleUp   {}", describe_rules(&b.scale_up, s.downscale_stabilization)),
            format!("scaleDown {}", describe_rules(&b.scale_down, s.downscale_stabilization)),
        ],
    }
}

/// The controller settings, each marked when it is the release's default.
fn controller_shown(s: &Settings) -> String {
    let d = Settings::for_version(s.kubernetes_version);
    let mark = |same: bool| if same { " (default)" } else { "" };
    format!(
        "sync period {}{}, tolerance {}{}, cpu-initialization-period {}{}, initial-readiness-delay {}{}, downscale-stabilization {}{}, Kubernetes {} ({})",
        go(s.sync_period),
        mark(s.sync_period == d.sync_period),
        s.tolerance,
        mark(s.tolerance == d.tolerance),
        go(s.cpu_initialization_period),
        mark(s.cpu_initialization_period == d.cpu_initialization_period),
        go(s.initial_readiness_delay),
        mark(s.initial_readiness_delay == d.initial_readiness_delay),
        go(s.downscale_stabilization),
        mark(s.downscale_stabilization == d.downscale_stabilization),
        s.kubernetes_version,
        s.kubernetes_version_source,
    )
}

/// A value of a metric in the units of explain's tables: a resource's (`1250m` of cpu,
/// `300Mi` of memory), else a plain number with at most three decimals (`387.1`).
pub fn in_units(metric: &str, v: f64) -> String {
    let milli = (v * 1000.0).round();
    if !milli.is_finite() || milli.abs() >= 9.0e18 {
        return num(v);
    }
    crate::display::units::Unit::of_resource(metric).show(milli as i64)
}

/// The unit of a metric of the HPA: its resource's, else plain.
pub(super) fn metric_resource(m: &MetricSpec) -> &str {
    match m {
        MetricSpec::Resource { resource, .. } | MetricSpec::ContainerResource { resource, .. } => {
            resource.as_str()
        }
        _ => "",
    }
}

/// A load's shape or series in the metric's units: `ramp 300Mi → 900Mi from +5m0s to +20m0s`.
fn describe_signal(l: &Load) -> String {
    match &l.signal {
        super::series::Signal::Shape(shape) => shape.describe(|v| in_units(&l.metric, v)),
        series => series.to_string(),
    }
}

/// The unit a load is shown in.
pub fn load_unit(l: &Load) -> &'static str {
    match l.metric.as_str() {
        "cpu" => " cores",
        "memory" => " bytes",
        _ => "",
    }
}

/// The assumptions of the world model, for the output.
pub const WORLD_NOTES: &[&str] = &[
    "a new pod is Running at once and Ready after the pod start-up; it has metric samples once it has run for one metrics window",
    "a sample taken at a sync describes the load one metrics lag earlier, shared equally by the pods that were Ready then (pods removed since included); pods that are not Ready serve nothing",
    "a scale-down removes not-Ready pods first, then the newest; removed pods disappear at once",
    "pod usage is not capped by limits; 'saturated' means above 100% of the request",
];
/// The header of a configuration's metric column in the text timeline.
pub fn metric_header(configs: &[Config], c: &Config, name: &str) -> String {
    if configs.len() > 1 {
        format!("{}:{name}", c.label)
    } else {
        name.to_string()
    }
}

/// The text output's settings block, chart and summary (the timeline is [`super::timeline`]).
pub struct TextOut {
    color: bool,
    /// The terminal's width (`COLUMNS`, else the terminal's): the settings block and the summary
    /// fit it; none when unknown (piped), as before.
    columns: Option<usize>,
}

impl TextOut {
    pub fn new(opts: &SimulateOptions) -> TextOut {
        TextOut {
            color: opts.color,
            columns: opts.columns,
        }
    }

    fn strong(&self, t: &str) -> String {
        if self.color {
            t.bold().to_string()
        } else {
            t.to_string()
        }
    }

    /// The settings block.
    pub fn header(&mut self, out: &mut dyn Write, plan: &Plan, configs: &[Config]) -> Result<()> {
        let mut s = String::new();
        let h = &configs[0].sim.input().hpa;
        let _ = writeln!(
            s,
            "{}",
            self.strong(&format!(
                "Simulation of HorizontalPodAutoscaler {}/{} → {} {}",
                h.namespace, h.name, h.target_kind, h.target_name
            ))
        );
        let _ = writeln!(s, "  source      {}", plan.source_note);
        let _ = writeln!(s, "  memory      {}", plan.memory_note);
        let _ = writeln!(
            s,
            "  start       {} ({})",
            crate::display::units::full_time(plan.start),
            plan.start_origin
        );
        let _ = writeln!(
            s,
            "  duration    {} ({}) = {} syncs every {}",
            go(plan.duration),
            plan.duration_origin,
            plan.ticks,
            go(plan.settings.sync_period)
        );
        for c in configs {
            config_lines(&mut s, plan, configs, c);
        }
        world_lines(&mut s, plan);
        if let Some(cols) = self.columns {
            s = fit_settings(&s, cols);
        }
        out.write_all(s.as_bytes())?;
        Ok(())
    }

    /// The chart and the summary table.
    pub fn end(
        &mut self,
        out: &mut dyn Write,
        plan: &Plan,
        configs: &[Config],
        summaries: &[Summary],
    ) -> Result<()> {
        let mut s = String::new();
        let _ = writeln!(s, "\n{}", self.strong("Chart (maximum per column)"));
        self.chart(&mut s, plan, configs);
        let _ = writeln!(s, "\n{}", self.strong("Summary"));
        let mut table = summary_table(configs, summaries);
        if let Some(cols) = self.columns {
            table
                .set_content_arrangement(comfy_table::ContentArrangement::Dynamic)
                .set_width(cols.clamp(20, u16::MAX as usize) as u16);
        }
        let _ = writeln!(s, "{table}");
        out.write_all(s.as_bytes())?;
        Ok(())
    }

    fn chart(&self, s: &mut String, plan: &Plan, configs: &[Config]) {
        let cols = configs[0].chart.columns().len();
        let loads: Vec<f64> = configs[0]
            .chart
            .columns()
            .iter()
            .map(|c| c.load_max)
            .collect();
        let max_replicas = configs
            .iter()
            .flat_map(|c| {
                c.chart
                    .columns()
                    .iter()
                    .map(|x| x.replicas_max.max(x.needed_max.unwrap_or(0)))
            })
            .max()
            .unwrap_or(1)
            .max(1) as f64;
        let max_load = loads.iter().cloned().fold(0.0, f64::max);
        let load_label = match plan.loads.first() {
            Some(l) => in_units(&l.metric, max_load),
            None => num(max_load),
        };
        let w = num(max_replicas)
            .chars()
            .count()
            .max(load_label.chars().count());
        for (c, hue) in configs.iter().zip([Hue::Green, Hue::Magenta]) {
            let vals: Vec<f64> = c
                .chart
                .columns()
                .iter()
                .map(|x| x.replicas_max as f64)
                .collect();
            let title = if configs.len() > 1 {
                format!("replicas [{}]", c.label)
            } else {
                "replicas".to_string()
            };
            chart::panel(s, &title, &vals, max_replicas, 8, w, hue, self.color);
        }
        if let Some(l) = plan.loads.first() {
            let at = s.len();
            chart::panel(
                s,
                &format!("load {} ({})", l.metric, l.kind.as_str()),
                &loads,
                max_load,
                5,
                w,
                Hue::Blue,
                self.color,
            );
            // The top label in the metric's units (the panel writes a plain number).
            let raw = format!("{:>w$} ┤", num(if max_load > 0.0 { max_load } else { 1.0 }));
            let shown = format!("{load_label:>w$} ┤");
            if let Some(i) = s[at..].find(&raw) {
                s.replace_range(at + i..at + i + raw.len(), &shown);
            }
        }
        chart::axis(
            s,
            cols,
            plan.ticks as f64 * plan.settings.sync_period.as_secs_f64(),
            w,
        );
    }
}

/// A configuration's lines of the settings block: replicas, metrics, behavior.
fn config_lines(s: &mut String, plan: &Plan, configs: &[Config], c: &Config) {
    let h = &c.sim.input().hpa;
    let tag = if configs.len() > 1 {
        format!("[{}] ", c.label)
    } else {
        String::new()
    };
    if configs.len() > 1 {
        let _ = writeln!(s, "  {tag}{}", c.source);
    }
    let _ = writeln!(
        s,
        "  {tag}replicas    {} at start; minReplicas {}, maxReplicas {}",
        c.sim.replicas(),
        h.min_replicas,
        h.max_replicas
    );
    for (m, n) in h.metrics.iter().zip(&c.metric_names) {
        let _ = writeln!(s, "  {tag}metric      {n}: {}", describe_target_text(m));
    }
    for (i, line) in describe_behavior(h.behavior.as_ref(), &plan.settings)
        .iter()
        .enumerate()
    {
        let _ = writeln!(
            s,
            "  {tag}{} {line}",
            if i == 0 { "behavior   " } else { "           " }
        );
    }
}

/// The settings block wrapped to `cols`: a line's continuation is indented under its value
/// (`  world       pod start-up 30s, …`), the title line is left whole.
fn fit_settings(block: &str, cols: usize) -> String {
    let mut out = String::with_capacity(block.len());
    for (i, line) in block.lines().enumerate() {
        if i == 0 || line.chars().count() <= cols {
            out.push_str(line);
            out.push('\n');
            continue;
        }
        // The value starts after the label and its run of spaces.
        let value_at = line[2..]
            .find("  ")
            .map(|k| {
                let rest = &line[2 + k..];
                2 + k + (rest.len() - rest.trim_start().len())
            })
            .filter(|&v| v <= cols / 2)
            .unwrap_or(4);
        let (head, value) = line.split_at(value_at.min(line.len()));
        let indent = " ".repeat(head.chars().count());
        out.push_str(&crate::render::layout::wrap(value, cols, head, &indent));
        if !out.ends_with('\n') {
            out.push('\n');
        }
    }
    out
}

/// The loads, the world, the controller and the assumptions of the settings block.
fn world_lines(s: &mut String, plan: &Plan) {
    for l in &plan.loads {
        let _ = writeln!(
            s,
            "  load        {}: {} {} (from {})",
            l.metric,
            l.kind.as_str(),
            describe_signal(l),
            l.origin
        );
    }
    let world: Vec<String> = plan
        .world_shown
        .iter()
        .map(|(k, v)| format!("{k} {v}"))
        .collect();
    let _ = writeln!(s, "  world       {}", world.join(", "));
    let _ = writeln!(s, "  controller  {}", controller_shown(&plan.settings));
    for n in WORLD_NOTES {
        let _ = writeln!(s, "  assumption  {n}");
    }
}

/// The summary, one column per configuration and the difference with `--compare`.
fn summary_table(configs: &[Config], summaries: &[Summary]) -> Table {
    let mut t = Table::new();
    t.load_style(presets::UTF8_FULL_CONDENSED);
    let mut header = vec![String::new()];
    header.extend(configs.iter().map(|c| c.label.to_string()));
    if configs.len() == 2 {
        header.push("difference".into());
    }
    t.set_header(header);
    let capped = summaries.iter().any(|s| s.at_max_seconds > 0.0);
    for (label, unit, f) in summary_rows() {
        // The rows about maxReplicas, only for a run that reached it.
        if !capped && label.starts_with(AT_MAX) {
            continue;
        }
        let mut row = vec![label.to_string()];
        row.extend(summaries.iter().map(|x| f(x).0));
        if summaries.len() == 2 {
            row.push(difference_cell(
                (label, unit, f),
                &summaries[0],
                &summaries[1],
            ));
        }
        t.add_row(row);
    }
    t
}

/// The difference column of a row: `compare − base` of its main number, and `=` only when the
/// two cells agree (else what differs besides the main number).
fn difference_cell((label, unit, f): Row, base: &Summary, compare: &Summary) -> String {
    let ((ta, a), (tb, b)) = (f(base), f(compare));
    let diff = match (a, b) {
        (Some(a), Some(b)) => format_difference(b - a, unit),
        _ => String::new(),
    };
    match diff == "=" && ta != tb {
        true => finer_difference(label, base, compare),
        false => diff,
    }
}

/// The difference of a summary row whose main number is the same in both configurations
/// (`longest 2m15s` both): the mean and the episodes, or the pods short and the start.
fn finer_difference(label: &str, a: &Summary, b: &Summary) -> String {
    let mut parts = Vec::new();
    let mut part = |d: f64, unit: Unit, what: &str| {
        let t = format_difference(d, unit);
        if t != "=" {
            parts.push(format!("{t} {what}").trim_end().to_string());
        }
    };
    match label {
        "peak replicas" => part(
            b.peak_at_seconds - a.peak_at_seconds,
            Unit::Seconds,
            "later",
        ),
        "time to reach needed replicas" => {
            let mean = |s: &Summary| s.mean_shortfall_seconds.unwrap_or(0.0).round();
            part(mean(b) - mean(a), Unit::Seconds, "mean");
            part(
                b.shortfalls as f64 - a.shortfalls as f64,
                Unit::Events,
                "episodes",
            );
        }
        "worst under-provisioned interval" => {
            let short = |s: &Summary| s.worst_shortfall.map_or(0.0, |w| w.max_pods_short as f64);
            let at = |s: &Summary| s.worst_shortfall.map_or(0.0, |w| w.start_seconds);
            part(short(b) - short(a), Unit::Pods, "short");
            part(at(b) - at(a), Unit::Seconds, "start");
        }
        _ => {}
    }
    match parts.is_empty() {
        true => "≠".into(),
        false => parts.join(", "),
    }
}

/// Rounded to two decimals.
pub fn num_round(v: f64) -> f64 {
    (v * 100.0).round() / 100.0
}

/// The unit of a summary row's difference column.
#[derive(Clone, Copy)]
enum Unit {
    Pods,
    Events,
    Seconds,
    PodHours,
}

/// `compare − base` with its unit: `+2 pods`, `-3m45s`, `+1.5 pod-h`, `=`.
fn format_difference(d: f64, unit: Unit) -> String {
    if d.abs() < 1e-9 {
        return "=".into();
    }
    let sign = if d > 0.0 { "+" } else { "-" };
    let a = d.abs();
    match unit {
        Unit::Pods => format!("{sign}{} pods", num(num_round(a))),
        Unit::Events => format!("{sign}{}", num(num_round(a))),
        Unit::Seconds => format!("{sign}{}", series::secs(a.round())),
        Unit::PodHours => format!("{sign}{} pod-h", num(num_round(a))),
    }
}

/// A summary row: its label, the unit of its difference, and its text and value.
type Row = (&'static str, Unit, fn(&Summary) -> (String, Option<f64>));

fn dur(s: f64) -> String {
    series::secs(s.round())
}

fn pct(part: f64, whole: f64) -> String {
    if whole > 0.0 {
        format!("{:.1}%", part * 100.0 / whole)
    } else {
        "-".into()
    }
}

/// The rows of the summary table, in order.
fn summary_rows() -> Vec<Row> {
    let mut rows = replica_rows();
    rows.extend(time_rows());
    rows.extend(max_rows());
    rows
}

/// The start of the labels of the rows about maxReplicas.
const AT_MAX: &str = "at maxReplicas";

/// Time at maxReplicas and what the metrics wanted above it.
fn max_rows() -> Vec<Row> {
    vec![
        ("at maxReplicas", Unit::Seconds, |s| {
            (
                format!(
                    "{} ({})",
                    dur(s.at_max_seconds),
                    pct(s.at_max_seconds, s.duration_seconds)
                ),
                Some(s.at_max_seconds),
            )
        }),
        ("at maxReplicas, metrics wanted", Unit::Pods, |s| {
            match s.wanted_above_max {
                Some(w) => (
                    format!(
                        "up to {} (+{} over maxReplicas {}) at +{}",
                        w.replicas,
                        w.replicas - w.max_replicas,
                        w.max_replicas,
                        dur(w.at_seconds)
                    ),
                    Some(w.replicas as f64),
                ),
                None => ("no more".into(), None),
            }
        }),
    ]
}

/// "never short", or, when the run was capped at maxReplicas with the metrics wanting more,
/// what that means: short of nothing maxReplicas allows, but not of what the load needed.
fn never_short(s: &Summary) -> String {
    match s.wanted_above_max {
        Some(w) => format!(
            "never short of maxReplicas {}, but capped there while the metrics wanted up to {}",
            w.max_replicas, w.replicas
        ),
        None => "never short".into(),
    }
}

/// Replicas and scale events.
fn replica_rows() -> Vec<Row> {
    vec![
        ("start replicas", Unit::Pods, |s| {
            (s.start_replicas.to_string(), Some(s.start_replicas as f64))
        }),
        ("peak replicas", Unit::Pods, |s| {
            (
                format!("{} at +{}", s.peak_replicas, dur(s.peak_at_seconds)),
                Some(s.peak_replicas as f64),
            )
        }),
        ("final replicas", Unit::Pods, |s| {
            (s.final_replicas.to_string(), Some(s.final_replicas as f64))
        }),
        ("scale events (up/down)", Unit::Events, |s| {
            (
                format!("{} ({}/{})", s.scale_events, s.scale_ups, s.scale_downs),
                Some(s.scale_events as f64),
            )
        }),
        ("direction changes", Unit::Events, |s| {
            (
                s.direction_reversals.to_string(),
                Some(s.direction_reversals as f64),
            )
        }),
        ("flapping (changes within 5m)", Unit::Events, |s| {
            (s.flapping.to_string(), Some(s.flapping as f64))
        }),
    ]
}

/// Time short of the needed replicas, over target, saturated; and the cost.
fn time_rows() -> Vec<Row> {
    vec![
        ("time to reach needed replicas", Unit::Seconds, |s| {
            let text = match s.mean_shortfall_seconds {
                Some(m) => format!(
                    "longest {}, mean {} over {} episode(s){}",
                    dur(s.longest_shortfall_seconds),
                    dur(m),
                    s.shortfalls,
                    if s.shortfall_at_end {
                        "; still short at the end"
                    } else {
                        ""
                    }
                ),
                None => never_short(s),
            };
            (text, Some(s.longest_shortfall_seconds))
        }),
        (
            "worst under-provisioned interval",
            Unit::Seconds,
            |s| match s.worst_shortfall {
                Some(w) => (
                    format!(
                        "+{} for {}, up to {} pod(s) short",
                        dur(w.start_seconds),
                        dur(w.duration_seconds),
                        w.max_pods_short
                    ),
                    Some(w.duration_seconds),
                ),
                None => (never_short(s), Some(0.0)),
            },
        ),
        ("time over target (beyond tolerance)", Unit::Seconds, |s| {
            (
                format!(
                    "{} ({})",
                    dur(s.over_target_seconds),
                    pct(s.over_target_seconds, s.duration_seconds)
                ),
                Some(s.over_target_seconds),
            )
        }),
        ("time saturated (>100% of request)", Unit::Seconds, |s| {
            (
                format!(
                    "{} ({})",
                    dur(s.saturated_seconds),
                    pct(s.saturated_seconds, s.duration_seconds)
                ),
                Some(s.saturated_seconds),
            )
        }),
        ("cost (pod-hours)", Unit::PodHours, |s| {
            (
                format!(
                    "{} (mean {} pods)",
                    num(num_round(s.pod_hours)),
                    num(num_round(s.mean_pods))
                ),
                Some(num_round(s.pod_hours)),
            )
        }),
    ]
}

/// An optional value, `-` when absent.
pub fn opt<T: std::fmt::Display>(v: Option<T>) -> String {
    let mut s = String::new();
    push_opt(&mut s, v);
    s
}

/// [`opt`], written at the end of `out`.
pub fn push_opt<T: std::fmt::Display>(out: &mut String, v: Option<T>) {
    match v {
        Some(v) => {
            let _ = write!(out, "{v}");
        }
        None => out.push('-'),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn never_short_says_so_only_below_max_replicas() {
        let mut s = Summary::default();
        assert_eq!(never_short(&s), "never short");
        s.wanted_above_max = Some(crate::simulate::summary::AboveMax {
            replicas: 6,
            max_replicas: 4,
            at_seconds: 60.0,
        });
        assert_eq!(
            never_short(&s),
            "never short of maxReplicas 4, but capped there while the metrics wanted up to 6"
        );
    }

    #[test]
    fn equal_main_numbers_with_different_cells_are_not_equal() {
        let worst = |pods| crate::simulate::summary::Shortfall {
            start_seconds: 64815.0,
            duration_seconds: 135.0,
            max_pods_short: pods,
            pod_seconds_short: 0.0,
        };
        let base = Summary {
            shortfalls: 22,
            longest_shortfall_seconds: 135.0,
            mean_shortfall_seconds: Some(40.0),
            worst_shortfall: Some(worst(9)),
            ..Summary::default()
        };
        let compare = Summary {
            shortfalls: 28,
            mean_shortfall_seconds: Some(35.0),
            worst_shortfall: Some(worst(10)),
            ..base.clone()
        };
        let cell = |label: &str| {
            let row = summary_rows()
                .into_iter()
                .find(|r| r.0 == label)
                .expect(label);
            difference_cell(row, &base, &compare)
        };
        assert_eq!(
            cell("time to reach needed replicas"),
            "-5s mean, +6 episodes"
        );
        assert_eq!(cell("worst under-provisioned interval"), "+1 pods short");
        assert_eq!(cell("start replicas"), "=");
    }

    #[test]
    fn differences_carry_units() {
        assert_eq!(format_difference(0.0, Unit::Pods), "=");
        assert_eq!(format_difference(2.0, Unit::Pods), "+2 pods");
        assert_eq!(format_difference(-225.0, Unit::Seconds), "-3m45s");
        assert_eq!(format_difference(1.504, Unit::PodHours), "+1.5 pod-h");
        assert_eq!(format_difference(-3.0, Unit::Events), "-3");
        assert_eq!(go(SignedDuration::from_secs(90)), "1m30s");
        assert_eq!(opt(None::<i32>), "-");
    }
}
