//! Rendering of the decision trace: text (for people), JSON and YAML (for programs).
//!
//! Every format renders the same [`Decision`]; nothing here computes a decision. The text fits a
//! width (see [`TextOptions`]), puts the answer first (verdict, the controller's memory, why, what
//! you can do) and the evidence after it (metrics, pods, steps, conditions); it speaks in the
//! user's units ([`crate::display::units`]) and names metrics the way people write them
//! ([`crate::display::names`]). JSON and YAML
//! keep the controller's exact quantities, timestamps and texts.

pub mod columns;
pub mod layout;
pub mod sort;

mod chain;
mod keda;
mod sections;

use std::fmt::Write as _;

use k8s_openapi::api::autoscaling::v2 as hpa_v2;
use owo_colors::OwoColorize;

use crate::core::{Action, Decision};
use crate::diagnose::{Finding, Severity};
use crate::output::Format as OutputFormat;

pub use layout::DEFAULT_WIDTH;

/// How the text output is laid out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TextOptions {
    /// ANSI colours (a terminal without `NO_COLOR`).
    pub color: bool,
    /// `-o wide`: the long forms (every pod, the owner and assumed columns, full errors).
    pub wide: bool,
    /// Columns to fit (the terminal's, `COLUMNS`, else [`DEFAULT_WIDTH`]).
    pub width: usize,
    /// `--pods all`: every pod even without `-o wide`.
    pub all_pods: bool,
}

impl Default for TextOptions {
    fn default() -> TextOptions {
        TextOptions {
            color: false,
            wide: false,
            width: DEFAULT_WIDTH,
            all_pods: false,
        }
    }
}

/// What explain knows besides the decision: the HPA's metric specs (for names and units, also of
/// metrics that failed) and the diagnostics (for "What you can do").
#[derive(Debug, Clone, Copy, Default)]
pub struct Context<'a> {
    /// `spec.metrics` of the HPA, in the order of [`Decision::metrics`] (empty: unknown).
    pub specs: &'a [hpa_v2::MetricSpec],
    pub findings: &'a [Finding],
    /// The metrics chain behind each metric, when known (see [`crate::adapter`]).
    pub chain: Option<&'a crate::adapter::MetricsChain>,
    /// KEDA's layer over the HPA, when there is one.
    pub keda: Option<&'a crate::keda::view::KedaSection>,
    /// What keeps the replicas from appearing (JSON/YAML `capacity`).
    pub capacity: Option<&'a crate::diagnose::Capacity>,
    /// Other hands on the workload (JSON/YAML `otherHands`).
    pub other_hands: Option<&'a crate::diagnose::OtherHands>,
}

/// Render a decision in the chosen format, without diagnostics (JSON/YAML: `diagnostics: []`), at
/// the default width.
pub fn render(d: &Decision, format: OutputFormat, color: bool) -> anyhow::Result<String> {
    let o = TextOptions {
        color,
        ..TextOptions::default()
    };
    render_explain(d, &Context::default(), format, &o)
}

/// Render a decision and its diagnostics in the chosen format (JSON and YAML: the decision's
/// fields and `diagnostics`).
pub fn render_explain(
    d: &Decision,
    cx: &Context,
    format: OutputFormat,
    o: &TextOptions,
) -> anyhow::Result<String> {
    Ok(match format {
        OutputFormat::Json | OutputFormat::Yaml => crate::output::document(
            &crate::output::contract::live_explanation::<()>(d, None, cx.findings, cx.chain)
                .with_keda(cx.keda)
                .with_blockers(cx.capacity, cx.other_hands),
            format,
        )?,
        OutputFormat::Text => text(d, cx, o),
        OutputFormat::Wide => text(d, cx, &TextOptions { wide: true, ..*o }),
    })
}

/// Colours and the width, for the sections.
pub(crate) struct Style {
    pub color: bool,
    /// The evaluation time: times of its day print as `11:55:30`.
    pub now: jiff::Timestamp,
    pub width: usize,
    pub wide: bool,
    pub all_pods: bool,
}

impl Style {
    /// Narrower than 100 columns (and not `-o wide`): tables leave out what "Why" already says.
    fn narrow(&self) -> bool {
        self.width < 100 && !self.wide
    }
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
    fn severity(&self, s: Severity) -> String {
        match (s, self.color) {
            (Severity::Error, true) => "error".red().bold().to_string(),
            (Severity::Warning, true) => "warning".yellow().bold().to_string(),
            (s, _) => s.as_str().to_string(),
        }
    }
    /// A paragraph wrapped to the width, its timestamps tidied ([`crate::display::units::tidy_times`]).
    fn para(&self, text: &str, first: &str, rest: &str) -> String {
        layout::wrap(
            &crate::display::units::tidy_times(text, self.now),
            self.width,
            first,
            rest,
        )
    }
    /// A bullet (`  - text`) wrapped to the width.
    fn bullet(&self, text: &str) -> String {
        self.para(text, "  - ", "    ")
    }
    /// An indented line (`  text`) wrapped to the width.
    fn line(&self, text: &str) -> String {
        self.para(text, "  ", "      ")
    }
}

fn text(d: &Decision, cx: &Context, o: &TextOptions) -> String {
    let st = Style {
        color: o.color,
        now: d.now,
        width: o.width.max(layout::MIN_WIDTH),
        wide: o.wide,
        all_pods: o.all_pods || o.wide,
    };
    let mut out = String::new();
    out += &head(d, &st);
    out += &keda::head(cx, &st);
    out += &sections::why(d, cx, &st);
    out += &sections::what_to_do(cx, &st);
    out += &sections::metrics(d, cx, &st);
    out += &keda::metrics(cx, &st);
    out += &sections::pods(d, cx, &st);
    out += &sections::normalization(d, &st);
    out += &sections::memory_section(d, &st);
    out += &sections::steps(d, &st);
    out += &sections::conditions(d, &st);
    out += &sections::assumptions(d, &st);
    out += &sections::diagnostics(cx, &st);
    out
}

/// The verdict block: who, the verdict, one sentence, and the controller's memory lines.
fn head(d: &Decision, st: &Style) -> String {
    let mut o = String::new();
    let who = format!(
        "HPA {}/{} → {} {}",
        d.namespace, d.name, d.target.kind, d.target.name
    );
    let flags = d.settings.sources.header.as_deref();
    let context = format!(
        "(controller of Kubernetes {} — {}{}; evaluated at {})",
        d.settings.kubernetes_version,
        d.settings.kubernetes_version_source,
        flags.map_or(String::new(), |f| format!("; {f}")),
        crate::display::units::full_time(d.now)
    );
    if layout::visible_width(&who) + 3 + context.chars().count() <= st.width {
        let _ = writeln!(o, "{who}   {}", st.dim(&context));
    } else {
        let _ = writeln!(o, "{who}");
        o += &st.dim(&layout::wrap(&context, st.width, "  ", "  "));
    }
    let verdict = match (d.verdict.action, d.verdict.from, d.verdict.to) {
        (Action::ScaleUp, Some(f), Some(t)) => format!("SCALE UP {f} → {t}"),
        (Action::ScaleDown, Some(f), Some(t)) => format!("SCALE DOWN {f} → {t}"),
        (Action::Hold, Some(f), _) => format!("HOLD at {f}"),
        (Action::Disabled, _, _) => "SCALING DISABLED (target at 0 replicas)".to_string(),
        (Action::Unknown, _, _) if d.verdict.decided_by == crate::core::Rule::NoMetrics => {
            "UNKNOWN (the snapshot holds no metrics)".to_string()
        }
        (Action::Unknown, _, _) if d.verdict.decided_by == crate::core::Rule::NotInSnapshot => {
            format!(
                "UNKNOWN (the file lacks {} {})",
                d.target.kind, d.target.name
            )
        }
        (Action::Unknown, _, _) => "UNKNOWN (a request of ours failed)".to_string(),
        (_, Some(f), _) => format!("CANNOT SCALE (stays at {f})"),
        _ => "CANNOT SCALE".to_string(),
    };
    let _ = writeln!(
        o,
        "Verdict: {}   decided by: {}",
        st.verdict(d.verdict.action, &verdict),
        d.verdict.decided_by
    );
    o += &st.line(&summary(d));
    o += &memory_head(d, st);
    o
}

/// The verdict's sentence; the controller's long error chain is left to the steps.
fn summary(d: &Decision) -> String {
    let s = &d.verdict.summary;
    match s.split_once(", first error is: ") {
        Some((short, _)) => format!("{short}: the controller's full error is under Steps"),
        None => s.clone(),
    }
}

/// The first detail of a last sync not reproduced; a metric that moved is shown in the units of
/// the Metrics table (`734Mi/pod`, not the status's `751598Ki`).
fn last_sync_detail(ls: &crate::core::with_memory::LastSync) -> Option<String> {
    use crate::display::units::{status_value, unit_of_metric_name};
    let shown = |v: Option<&hpa_v2::MetricValueStatus>, unit| match v {
        Some(v) => status_value(
            v.average_utilization,
            v.average_value.as_ref().map(|q| q.0.as_str()),
            v.value.as_ref().map(|q| q.0.as_str()),
            unit,
        ),
        None => "-".into(),
    };
    match ls.metrics.iter().find(|m| !m.matches) {
        Some(m) if ls.cause == Some(crate::core::with_memory::LastSyncCause::MetricsChanged) => {
            let unit = unit_of_metric_name(&m.metric);
            Some(format!(
                "{}: written {}, now {}",
                m.metric,
                shown(m.written.as_ref(), unit),
                shown(m.now.as_ref(), unit)
            ))
        }
        _ => ls.details.first().cloned(),
    }
}

/// The lines under the verdict: the last sync, the range when the evidence does not settle the
/// answer, and when a hold ends.
fn memory_head(d: &Decision, st: &Style) -> String {
    let mut o = String::new();
    if let Some(ls) = &d.last_sync {
        let check = match (ls.reproduced, ls.cause) {
            (Some(true), _) => " — reproduced here".to_string(),
            (Some(false), Some(c)) => format!(
                " — not reproduced here (likely cause: {}{})",
                serde_json::to_value(c)
                    .ok()
                    .and_then(|v| v.as_str().map(String::from))
                    .unwrap_or_default(),
                last_sync_detail(ls)
                    .map(|x| format!(": {x}"))
                    .unwrap_or_default()
            ),
            _ => String::new(),
        };
        o += &st.line(&format!("last sync: the controller {}{check}", ls.did));
    }
    if let Some(r) = d.desired_range.filter(|r| r.min != r.max) {
        o += &st.line(&format!(
            "range: {}–{} — the evidence does not settle the controller's memory; {} is the most likely (see Controller memory)",
            r.min,
            r.max,
            sections::opt(d.desired_replicas)
        ));
    }
    if let Some(n) = &d.next_change {
        o += &st.line(&format!("next change: {}", n.text));
    }
    o
}
