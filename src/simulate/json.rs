//! The JSON document of `simulate` (`-o json`): the envelope (settings, world, loads,
//! configurations) written before the first sync, one timeline row per sync and
//! configuration streamed as the run goes, then the summaries and their difference.
//!
//! [`json_document`] and [`json_document_end`] are the envelope, kept as two units around the
//! streamed `timeline` array.

use std::collections::BTreeMap;
use std::io::Write;

use jiff::Timestamp;
use serde::Serialize;

use super::engine::TickRecord;
use super::error::Result;
use super::plan::{Config, Plan};
use super::series::go;
use super::summary::Summary;
use super::text::{describe_target, num_round, WORLD_NOTES};
use super::world::LoadKind;
use crate::core::Behavior;

#[derive(Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct JsonMetricTick<'a> {
    name: &'a str,
    value: Option<f64>,
    unit: &'a str,
    proposal: Option<i32>,
    failed: bool,
}

#[derive(Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct JsonRow<'a> {
    config: &'a str,
    tick: u64,
    time: Option<Timestamp>,
    offset_seconds: f64,
    loads: BTreeMap<&'a str, f64>,
    metrics: Vec<JsonMetricTick<'a>>,
    proposal: Option<i32>,
    recommendation: Option<i32>,
    replicas_before: i32,
    replicas: i32,
    ready: usize,
    needed: Option<i32>,
    over_target: bool,
    saturated: bool,
    rule: &'a str,
    action: Option<crate::core::Action>,
}

#[derive(Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct JsonConfig<'a> {
    config: &'a str,
    source: &'a str,
    namespace: &'a str,
    name: &'a str,
    target: String,
    min_replicas: i32,
    max_replicas: i32,
    start_replicas: i32,
    metrics: Vec<String>,
    behavior: Option<&'a Behavior>,
}

#[derive(Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct JsonLoad<'a> {
    metric: &'a str,
    kind: LoadKind,
    description: String,
    origin: &'a str,
}

#[derive(Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct JsonWorld {
    pod_startup: String,
    startup_cpu: String,
    startup_burst: String,
    metrics_lag: String,
    metrics_window: String,
    origins: BTreeMap<&'static str, &'static str>,
    assumptions: &'static [&'static str],
}

/// The JSON timeline: how many rows were written (they are separated by commas).
#[derive(Debug, Default)]
pub struct JsonOut {
    rows_written: u64,
}

impl JsonOut {
    /// One row per configuration of this sync.
    pub fn row(
        &mut self,
        out: &mut dyn Write,
        recs: &[&TickRecord],
        configs: &[Config],
    ) -> Result<()> {
        for (r, c) in recs.iter().zip(configs) {
            if self.rows_written > 0 {
                out.write_all(b",\n")?;
            }
            self.rows_written += 1;
            serde_json::to_writer(&mut *out, &json_row(r, c))?;
        }
        Ok(())
    }
}

fn json_row<'a>(r: &'a TickRecord, c: &'a Config) -> JsonRow<'a> {
    let loads = c
        .sim
        .loads()
        .iter()
        .map(|l| l.metric.as_str())
        .zip(r.loads.iter().copied())
        .collect();
    JsonRow {
        config: c.label,
        tick: r.tick,
        time: r.time,
        offset_seconds: r.offset_seconds,
        loads,
        metrics: r
            .metrics
            .iter()
            .zip(&c.metric_names)
            .map(|(m, n)| JsonMetricTick {
                name: n,
                value: m.value,
                unit: m.unit,
                proposal: m.proposal,
                failed: m.failed,
            })
            .collect(),
        proposal: r.proposal,
        recommendation: r.recommendation,
        replicas_before: r.replicas_before,
        replicas: r.replicas,
        ready: r.ready,
        needed: r.needed,
        over_target: r.over_target,
        saturated: r.saturated,
        rule: r.rule,
        action: r.action,
    }
}

/// The envelope of the document up to the opening of the `timeline` array.
pub fn json_document(out: &mut dyn Write, plan: &Plan, configs: &[Config]) -> Result<()> {
    let cfgs: Vec<JsonConfig> = configs
        .iter()
        .map(|c| {
            let h = &c.sim.input().hpa;
            JsonConfig {
                config: c.label,
                source: &c.source,
                namespace: &h.namespace,
                name: &h.name,
                target: format!("{}/{}", h.target_kind, h.target_name),
                min_replicas: h.min_replicas,
                max_replicas: h.max_replicas,
                start_replicas: c.sim.replicas(),
                metrics: h
                    .metrics
                    .iter()
                    .zip(&c.metric_names)
                    .map(|(m, n)| format!("{n}: {}", describe_target(m)))
                    .collect(),
                behavior: h.behavior.as_ref(),
            }
        })
        .collect();
    let loads: Vec<JsonLoad> = plan
        .loads
        .iter()
        .map(|l| JsonLoad {
            metric: &l.metric,
            kind: l.kind,
            description: l.signal.to_string(),
            origin: &l.origin,
        })
        .collect();
    let w = &plan.world;
    let world = JsonWorld {
        pod_startup: go(w.pod_startup),
        startup_cpu: crate::quantity::format_decimal_si(w.startup_cpu_milli),
        startup_burst: go(w.startup_burst),
        metrics_lag: go(w.metrics_lag),
        metrics_window: go(w.metrics_window),
        origins: plan
            .world_shown
            .iter()
            .map(|(k, v)| (*k, v.origin))
            .collect(),
        assumptions: WORLD_NOTES,
    };
    use crate::output::contract::{write_simulation_head, Seconds, SimulationHead};
    let head = SimulationHead {
        start: plan.start,
        duration_seconds: Seconds(plan.duration.as_secs_f64()),
        sync_period_seconds: Seconds(plan.settings.sync_period.as_secs_f64()),
        ticks: plan.ticks,
        replayed_first_tick: plan.replay,
        starting_memory: &plan.memory_note,
        settings: &plan.settings,
        world: &world,
        loads: &loads,
        configs: &cfgs,
    };
    Ok(write_simulation_head(out, &head)?)
}

/// The envelope after the `timeline` array: the summaries and their difference.
pub fn json_document_end(
    out: &mut dyn Write,
    configs: &[Config],
    summaries: &[Summary],
) -> Result<()> {
    use crate::output::contract::{write_simulation_tail, NamedSummary};
    let named: Vec<NamedSummary<Summary>> = configs
        .iter()
        .zip(summaries)
        .map(|(c, s)| NamedSummary {
            config: c.label,
            summary: s,
        })
        .collect();
    let diff = (summaries.len() == 2).then(|| difference(&summaries[0], &summaries[1]));
    Ok(write_simulation_tail(out, &named, &diff)?)
}

/// `compare − base` for the numeric fields of the summary.
fn difference(a: &Summary, b: &Summary) -> BTreeMap<&'static str, f64> {
    BTreeMap::from([
        ("peakReplicas", (b.peak_replicas - a.peak_replicas) as f64),
        (
            "finalReplicas",
            (b.final_replicas - a.final_replicas) as f64,
        ),
        ("scaleEvents", b.scale_events as f64 - a.scale_events as f64),
        (
            "directionReversals",
            b.direction_reversals as f64 - a.direction_reversals as f64,
        ),
        ("flapping", b.flapping as f64 - a.flapping as f64),
        ("podHours", num_round(b.pod_hours - a.pod_hours)),
        (
            "longestShortfallSeconds",
            b.longest_shortfall_seconds - a.longest_shortfall_seconds,
        ),
        (
            "overTargetSeconds",
            b.over_target_seconds - a.over_target_seconds,
        ),
        (
            "saturatedSeconds",
            b.saturated_seconds - a.saturated_seconds,
        ),
        ("podMinutes", num_round(b.pod_minutes - a.pod_minutes)),
    ])
}
