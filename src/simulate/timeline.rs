//! The text timeline: one line per sync where something changed (every sync with `--timeline
//! all`). With `--compare` the configurations stand side by side; when that is wider than the
//! terminal (`COLUMNS`), each sync takes one line per configuration, and the columns a narrow
//! terminal cannot hold are left out in a fixed order (REC, PROP, the loads, READY), said once
//! under the header.

use std::fmt::Write as _;
use std::io::Write;

use owo_colors::OwoColorize;

use super::engine::TickRecord;
use super::error::Result;
use super::options::SimulateOptions;
use super::plan::{Config, Plan};
use super::series;
use super::text::{in_units, metric_header, metric_resource, opt};
use crate::cli::simulate::TimelineMode;

/// The width of the RULE column: padded when a second configuration follows it, so that the
/// columns of both stay aligned (`MetricsMatchCurrent` is the longest rule).
fn rule_width(configs: usize, stacked: bool) -> usize {
    if configs > 1 && !stacked {
        19
    } else {
        0
    }
}

/// What the text timeline compares to decide whether a sync is worth a row:
/// (replicas, ready pods, proposal, rule).
type Printed = (i32, usize, Option<i32>, &'static str);

/// Which columns the timeline shows, and how the configurations are laid out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Layout {
    /// One line per configuration (a sync takes several lines), the configuration's label in
    /// its own column.
    stacked: bool,
    rec: bool,
    prop: bool,
    loads: bool,
    ready: bool,
}

impl Layout {
    const ALL: Layout = Layout {
        stacked: false,
        rec: true,
        prop: true,
        loads: true,
        ready: true,
    };

    /// The columns left out, in words (none: empty).
    fn hidden(&self) -> Vec<&'static str> {
        let mut out = vec![];
        for (shown, name) in [
            (self.rec, "REC"),
            (self.prop, "PROP"),
            (self.loads, "LOAD"),
            (self.ready, "READY"),
        ] {
            if !shown {
                out.push(name);
            }
        }
        out
    }
}

/// The text timeline's state.
pub struct Timeline {
    mode: TimelineMode,
    color: bool,
    total_ticks: u64,
    /// The last printed state, to show changes only.
    last_printed: Vec<Option<Printed>>,
    /// The width of each load column and of each configuration's metric columns (wide enough
    /// for their headers, which are never cut).
    load_widths: Vec<usize>,
    metric_widths: Vec<Vec<usize>>,
    /// The metric of each load and the resource of each configuration's metrics (`""`: not a
    /// resource), for their units.
    load_metrics: Vec<String>,
    metric_resources: Vec<Vec<String>>,
    layout: Layout,
    /// The width of the configuration column (stacked layout).
    label_width: usize,
    /// The terminal's width the layout was fitted to.
    fitted_to: Option<usize>,
}

impl Timeline {
    /// The column widths and the layout of this run.
    pub fn new(opts: &SimulateOptions, plan: &Plan, configs: &[Config]) -> Timeline {
        let mut t = Timeline {
            mode: opts.timeline,
            color: opts.color,
            total_ticks: plan.ticks,
            last_printed: vec![None; configs.len()],
            load_widths: plan
                .loads
                .iter()
                .map(|l| (l.metric.chars().count() + 5).max(10))
                .collect(),
            metric_widths: vec![],
            load_metrics: plan.loads.iter().map(|l| l.metric.clone()).collect(),
            metric_resources: configs
                .iter()
                .map(|c| {
                    let metrics = &c.sim.input().hpa.metrics;
                    metrics
                        .iter()
                        .map(|m| metric_resource(m).to_string())
                        .collect()
                })
                .collect(),
            layout: Layout::ALL,
            label_width: configs.iter().map(|c| c.label.len()).max().unwrap_or(0),
            fitted_to: None,
        };
        t.metric_widths = t.widths_of(configs, false);
        if let Some(cols) = opts.columns {
            t.fit(configs, cols);
        }
        t
    }

    /// Each configuration's metric column widths (their headers name the configuration
    /// unless stacked).
    fn widths_of(&self, configs: &[Config], stacked: bool) -> Vec<Vec<usize>> {
        configs
            .iter()
            .map(|c| {
                c.metric_names
                    .iter()
                    .map(|n| {
                        let head = if stacked {
                            n.clone()
                        } else {
                            metric_header(configs, c, n)
                        };
                        head.chars().count().max(14)
                    })
                    .collect()
            })
            .collect()
    }

    /// The layout in `cols` columns: with `--compare`, side by side when it fits, else stacked;
    /// then columns are left out until the widest line fits (or none is left to leave out).
    fn fit(&mut self, configs: &[Config], cols: usize) {
        self.fitted_to = Some(cols);
        if self.width(configs) <= cols {
            return;
        }
        if configs.len() > 1 {
            self.layout.stacked = true;
            self.metric_widths = self.widths_of(configs, true);
        }
        let steps: [fn(&mut Layout); 4] = [
            |l| l.rec = false,
            |l| l.prop = false,
            |l| l.loads = false,
            |l| l.ready = false,
        ];
        for step in steps {
            if self.width(configs) <= cols {
                break;
            }
            step(&mut self.layout);
        }
    }

    /// The widest line of the timeline in the current layout (the longest rule included).
    fn width(&self, configs: &[Config]) -> usize {
        let l = self.layout;
        let loads: usize = self.load_widths.iter().map(|w| w + 1).sum::<usize>();
        let fixed = 9 + if l.loads { loads } else { 0 };
        let config = |widths: &Vec<usize>| {
            widths.iter().map(|w| w + 1).sum::<usize>()
                + if l.prop { 6 } else { 0 }
                + if l.rec { 6 } else { 0 }
                + 9
                + if l.ready { 6 } else { 0 }
                + 7
                + 1
                + 19
        };
        if l.stacked {
            let widest = self.metric_widths.iter().map(config).max().unwrap_or(0);
            fixed + 1 + self.label_width + widest
        } else {
            let all: usize = self.metric_widths.iter().map(config).sum();
            fixed + all + 2 * configs.len().saturating_sub(1)
        }
    }

    fn strong(&self, t: &str) -> String {
        if self.color {
            t.bold().to_string()
        } else {
            t.to_string()
        }
    }

    /// The timeline's title and column headers.
    pub fn head(&self, out: &mut dyn Write, plan: &Plan, configs: &[Config]) -> Result<()> {
        if self.mode == TimelineMode::None {
            return Ok(());
        }
        let mut s = String::new();
        let _ = writeln!(
            s,
            "\n{}",
            self.strong(if self.mode == TimelineMode::All {
                "Timeline"
            } else {
                "Timeline (syncs where something changed; --timeline all shows every sync)"
            })
        );
        let l = self.layout;
        let rw = rule_width(configs.len(), l.stacked);
        let mut head = format!("{:>9}", "TIME");
        if l.loads {
            for (load, w) in plan.loads.iter().zip(&self.load_widths) {
                let _ = write!(head, " {:>w$}", format!("LOAD {}", load.metric));
            }
        }
        if l.stacked {
            let _ = write!(head, " {:<lw$}", "", lw = self.label_width);
        }
        for (c, widths) in configs.iter().zip(&self.metric_widths) {
            for (n, w) in c.metric_names.iter().zip(widths) {
                let name = if l.stacked {
                    n.clone()
                } else {
                    metric_header(configs, c, n)
                };
                let _ = write!(head, " {name:>w$}");
            }
            self.cells(&mut head, ["PROP", "REC", "REPLICAS", "READY", "NEEDED"]);
            let _ = write!(head, " {:<rw$}", "RULE");
            if l.stacked {
                break;
            }
            if configs.len() > 1 {
                head.push_str(" |");
            }
        }
        let _ = writeln!(s, "{}", head.trim_end_matches(" |").trim_end());
        let hidden = l.hidden();
        if !hidden.is_empty() {
            let _ = writeln!(
                s,
                "({} left out to fit {} columns; -o csv has every column)",
                hidden.join(", "),
                self.fitted_to.unwrap_or(0)
            );
        }
        out.write_all(s.as_bytes())?;
        Ok(())
    }

    /// PROP, REC, REPLICAS, READY and NEEDED, those the layout shows.
    fn cells(&self, line: &mut String, [prop, rec, replicas, ready, needed]: [&str; 5]) {
        let l = self.layout;
        if l.prop {
            let _ = write!(line, " {prop:>5}");
        }
        if l.rec {
            let _ = write!(line, " {rec:>5}");
        }
        let _ = write!(line, " {replicas:>8}");
        if l.ready {
            let _ = write!(line, " {ready:>5}");
        }
        let _ = write!(line, " {needed:>6}");
    }

    /// A timeline line, when something changed (or every sync with `--timeline all`).
    // perf: benches/simulate (`--timeline none`): the check in line, the row's formatting (and
    // the registers it saves) only for a row printed.
    #[inline]
    pub fn row(
        &mut self,
        out: &mut dyn Write,
        recs: &[&TickRecord],
        configs: &[Config],
    ) -> Result<()> {
        if self.mode == TimelineMode::None || !self.changed(recs) {
            return Ok(());
        }
        self.write_row(out, recs, configs)
    }

    /// The row of these syncs.
    #[inline(never)]
    fn write_row(
        &mut self,
        out: &mut dyn Write,
        recs: &[&TickRecord],
        configs: &[Config],
    ) -> Result<()> {
        let l = self.layout;
        let first = &recs[0];
        let mut line = format!("{:>9}", format!("+{}", series::secs(first.offset_seconds)));
        if l.loads {
            for ((v, w), m) in first
                .loads
                .iter()
                .zip(&self.load_widths)
                .zip(&self.load_metrics)
            {
                let _ = write!(line, " {:>w$}", in_units(m, *v));
            }
        }
        let lead = line.chars().count();
        for (i, r) in recs.iter().enumerate() {
            if l.stacked {
                if i > 0 {
                    writeln!(out, "{}", line.trim_end())?;
                    line = " ".repeat(lead);
                }
                let _ = write!(line, " {:<lw$}", configs[i].label, lw = self.label_width);
            }
            self.config_row(&mut line, r, i, configs.len());
            if configs.len() > 1 && !l.stacked {
                line.push_str(" |");
            }
        }
        writeln!(out, "{}", line.trim_end_matches(" |").trim_end())?;
        Ok(())
    }

    /// Whether these syncs are worth a row; records what is printed.
    fn changed(&mut self, recs: &[&TickRecord]) -> bool {
        let last_tick = recs.first().is_some_and(|r| r.tick + 1 == self.total_ticks);
        let mut changed = self.mode == TimelineMode::All || last_tick;
        for (i, r) in recs.iter().enumerate() {
            let state = (r.replicas, r.ready, r.proposal, r.rule);
            if r.replicas != r.replicas_before || self.last_printed[i].as_ref() != Some(&state) {
                changed = true;
            }
        }
        if changed {
            for (i, r) in recs.iter().enumerate() {
                self.last_printed[i] = Some((r.replicas, r.ready, r.proposal, r.rule));
            }
        }
        changed
    }

    /// One configuration's cells of a sync.
    fn config_row(&self, line: &mut String, r: &TickRecord, i: usize, configs: usize) {
        for ((m, w), res) in r
            .metrics
            .iter()
            .zip(&self.metric_widths[i])
            .zip(&self.metric_resources[i])
        {
            let v = match (m.value, m.failed) {
                (_, true) => "failed".to_string(),
                (Some(v), _) if m.unit.is_empty() => in_units(res, v),
                (Some(v), _) => format!("{}{}", super::series::num(v), m.unit),
                (None, _) => "-".to_string(),
            };
            let _ = write!(line, " {:>w$}", format!("{v}→{}", opt(m.proposal)));
        }
        let replicas = if r.replicas != r.replicas_before {
            format!("{}→{}", r.replicas_before, r.replicas)
        } else {
            r.replicas.to_string()
        };
        let replicas = if self.color && r.replicas > r.replicas_before {
            format!("{:>8}", replicas).green().to_string()
        } else if self.color && r.replicas < r.replicas_before {
            format!("{:>8}", replicas).cyan().to_string()
        } else {
            format!("{:>8}", replicas)
        };
        let (prop, rec) = (opt(r.proposal), opt(r.recommendation));
        let (ready, needed) = (r.ready.to_string(), opt(r.needed));
        self.cells(line, [&prop, &rec, &replicas, &ready, &needed]);
        let rw = rule_width(configs, self.layout.stacked);
        let _ = write!(line, " {:<rw$}", r.rule);
    }
}
