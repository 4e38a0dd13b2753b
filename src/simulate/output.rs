//! The outputs of `simulate` behind one [`Sink`]: text ([`super::text`]), JSON
//! ([`super::json`]), CSV (here) and SVG (drawn at the end by [`super::svg`]).

use std::fmt::Write as _;
use std::io::Write;

use super::engine::TickRecord;
use super::error::Result;
use super::json::{self, JsonOut};
use super::options::SimulateOptions;
use super::plan::{Config, Plan};
use super::series::{self, num, push_num};
use super::summary::Summary;
use super::svg;
use super::text::{load_unit, num_round, push_opt, TextOut};
use super::timeline::Timeline;
use crate::cli::simulate::SimOutput;
use crate::core::MetricSpec;

/// Writes the run in the chosen format.
pub enum Sink {
    Text(TextOut, Timeline),
    Json(JsonOut),
    Csv(CsvOut),
    /// The SVG chart is drawn once the run is over.
    Svg,
}

impl Sink {
    /// The sink of `-o FORMAT`.
    pub fn new(opts: &SimulateOptions, plan: &Plan, configs: &[Config]) -> Sink {
        match opts.output {
            SimOutput::Text => Sink::Text(TextOut::new(opts), Timeline::new(opts, plan, configs)),
            SimOutput::Json => Sink::Json(JsonOut::default()),
            SimOutput::Csv => Sink::Csv(CsvOut::new(configs)),
            SimOutput::Svg => Sink::Svg,
        }
    }

    /// Before the first sync: the settings, the JSON envelope, the CSV header.
    pub fn begin(&mut self, out: &mut dyn Write, plan: &Plan, configs: &[Config]) -> Result<()> {
        match self {
            Sink::Svg => Ok(()),
            Sink::Text(t, timeline) => {
                t.header(out, plan, configs)?;
                timeline.head(out, plan, configs)
            }
            Sink::Json(_) => json::json_document(out, plan, configs),
            Sink::Csv(c) => c.header(out, plan),
        }
    }

    /// One sync of every configuration.
    #[inline]
    pub fn row(
        &mut self,
        out: &mut dyn Write,
        recs: &[&TickRecord],
        configs: &[Config],
    ) -> Result<()> {
        match self {
            Sink::Svg => Ok(()),
            Sink::Text(_, timeline) => timeline.row(out, recs, configs),
            Sink::Json(j) => j.row(out, recs, configs),
            Sink::Csv(c) => c.row(out, recs, configs),
        }
    }

    /// After the last sync: the chart and the summary, the end of the JSON document.
    pub fn end(
        &mut self,
        out: &mut dyn Write,
        plan: &Plan,
        configs: &[Config],
        summaries: &[Summary],
    ) -> Result<()> {
        match self {
            Sink::Csv(_) | Sink::Svg => Ok(()),
            Sink::Json(_) => json::json_document_end(out, configs, summaries),
            Sink::Text(t, _) => t.end(out, plan, configs, summaries),
        }
    }
}

/// The CSV timeline: the union of metric column names, and which metric of each config fills
/// each column.
pub struct CsvOut {
    csv_columns: Vec<String>,
    /// Per configuration, per column: the index of its metric shown there, if it has one.
    columns_of: Vec<Vec<Option<usize>>>,
    /// The row being written, kept from row to row (a row allocates nothing).
    line: String,
}

impl CsvOut {
    fn new(configs: &[Config]) -> CsvOut {
        let mut csv_columns: Vec<String> = Vec::new();
        let mut maps = Vec::new();
        for c in configs {
            let mut map = Vec::new();
            for n in &c.metric_names {
                let idx = match csv_columns.iter().position(|x| x == n) {
                    Some(i) => i,
                    None => {
                        csv_columns.push(n.clone());
                        csv_columns.len() - 1
                    }
                };
                map.push(idx);
            }
            maps.push(map);
        }
        let columns_of = maps
            .iter()
            .map(|map| {
                let mut of = vec![None; csv_columns.len()];
                for (metric, &column) in map.iter().enumerate() {
                    of[column] = Some(metric);
                }
                of
            })
            .collect();
        CsvOut {
            csv_columns,
            columns_of,
            line: String::with_capacity(256),
        }
    }

    fn header(&self, out: &mut dyn Write, plan: &Plan) -> Result<()> {
        let mut h = String::from("config,tick,time,offset_seconds");
        for l in &plan.loads {
            let _ = write!(h, ",load_{}", csv_field(&l.metric));
        }
        for m in &self.csv_columns {
            let _ = write!(h, ",{0}_value,{0}_proposal", csv_field(m));
        }
        h.push_str(",proposal,recommendation,replicas_before,replicas,ready,needed,over_target,saturated,rule\n");
        out.write_all(h.as_bytes())?;
        Ok(())
    }

    fn row(&mut self, out: &mut dyn Write, recs: &[&TickRecord], configs: &[Config]) -> Result<()> {
        for (ci, (r, c)) in recs.iter().zip(configs).enumerate() {
            let line = &mut self.line;
            line.clear();
            let _ = write!(line, "{},{},", c.label, r.tick);
            if let Some(t) = r.time {
                let _ = write!(line, "{t}");
            }
            line.push(',');
            push_num(line, r.offset_seconds);
            for v in &r.loads {
                line.push(',');
                push_num(line, *v);
            }
            for column in &self.columns_of[ci] {
                match column.and_then(|i| r.metrics.get(i)) {
                    Some(m) => {
                        line.push(',');
                        match m.value {
                            Some(v) => push_num(line, v),
                            None => line.push('-'),
                        }
                        line.push(',');
                        push_opt(line, m.proposal);
                    }
                    None => line.push_str(",,"),
                }
            }
            for v in [r.proposal, r.recommendation] {
                line.push(',');
                push_opt(line, v);
            }
            let _ = write!(line, ",{},{},{},", r.replicas_before, r.replicas, r.ready);
            push_opt(line, r.needed);
            let _ = write!(line, ",{},{},", r.over_target, r.saturated);
            push_csv_field(line, r.rule);
            line.push('\n');
            out.write_all(line.as_bytes())?;
        }
        Ok(())
    }
}

/// A CSV field, quoted when it holds a comma, a quote or a newline.
fn csv_field(s: &str) -> String {
    let mut out = String::new();
    push_csv_field(&mut out, s);
    out
}

/// [`csv_field`], written at the end of `line`.
fn push_csv_field(line: &mut String, s: &str) {
    if s.contains([',', '"', '\n']) {
        line.push('"');
        line.push_str(&s.replace('"', "\"\""));
        line.push('"');
    } else {
        line.push_str(s);
    }
}

/// The SVG chart of the run: the load, then one panel per configuration.
pub fn svg_chart(plan: &Plan, configs: &[Config], summaries: &[Summary]) -> String {
    let panels: Vec<svg::Panel> = configs
        .iter()
        .zip(summaries)
        .filter_map(|(c, s)| {
            let track = c.track.as_ref()?;
            let hpa = &c.sim.input().hpa;
            let (band, unit) = match hpa.metrics.first() {
                Some(m) => target_band(m, c.sim.tolerances()),
                None => (None, ""),
            };
            Some(svg::Panel {
                title: format!(
                    "[{}] {}: peak {} pods, {} scale events, {} over target, {} pod-hours",
                    c.label,
                    c.source,
                    s.peak_replicas,
                    s.scale_events,
                    series::secs(s.over_target_seconds.round()),
                    num(num_round(s.pod_hours))
                ),
                track,
                metric_label: match c.metric_names.first() {
                    Some(n) if unit.is_empty() => n.clone(),
                    Some(n) => format!("{n} ({unit})"),
                    None => "no metric".into(),
                },
                band,
                marks: Vec::new(),
            })
        })
        .collect();
    let h = &configs[0].sim.input().hpa;
    let load = plan
        .loads
        .first()
        .map(|l| format!("{} ({}{})", l.metric, l.kind.as_str(), load_unit(l)))
        .unwrap_or_else(|| "none".into());
    svg::render(
        &format!(
            "kubectl hpa simulate {}/{} from {}",
            h.namespace, h.name, plan.start
        ),
        &load,
        plan.ticks as f64 * plan.settings.sync_period.as_secs_f64(),
        &panels,
    )
}

/// A metric's target and tolerance band in the unit the timeline shows it in, and that unit.
fn target_band(m: &MetricSpec, (down, up): (f64, f64)) -> (Option<svg::Band>, &'static str) {
    let t = match m {
        MetricSpec::Resource { target, .. }
        | MetricSpec::ContainerResource { target, .. }
        | MetricSpec::Pods { target, .. }
        | MetricSpec::Object { target, .. }
        | MetricSpec::External { target, .. } => target,
        MetricSpec::Unknown { .. } => return (None, ""),
    };
    let (value, unit) = if let Some(u) = t.average_utilization.filter(|_| t.average_value.is_none())
    {
        (u as f64, "%")
    } else if let Some(av) = t.average_value {
        (av as f64 / 1000.0, "")
    } else if let Some(v) = t.value {
        (v as f64 / 1000.0, "")
    } else {
        return (None, "");
    };
    (
        Some((value * (1.0 - down), value, value * (1.0 + up))),
        unit,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_read_as_the_timeline_writes_them() {
        for (v, want) in [
            (0.0, "0"),
            (-3.0, "-3"),
            (0.5, "0.5"),
            (0.0001, "0"),
            (-0.0001, "-0"),
            (1.9999999, "2"),
            (100.0004, "100"),
            (2.125, "2.125"),
            (4.0036, "4.004"),
            (1e20, "100000000000000000000"),
            (f64::NAN, "NaN"),
            (f64::INFINITY, "inf"),
        ] {
            let mut line = String::from("x,");
            push_num(&mut line, v);
            assert_eq!(line, format!("x,{want}"), "{v}");
        }
        let mut line = String::new();
        push_opt(&mut line, None::<i32>);
        push_opt(&mut line, Some(-7));
        assert_eq!(line, "--7");
        for (f, want) in [
            ("Tolerance", "Tolerance"),
            ("a,b", "\"a,b\""),
            ("say \"hi\"", "\"say \"\"hi\"\"\""),
            ("two\nlines", "\"two\nlines\""),
        ] {
            assert_eq!(csv_field(f), want);
        }
    }
}
