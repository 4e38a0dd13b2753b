//! `simulate`: the HPA controller's algorithm over time, against a modelled world.
//!
//! The controller's decisions come from [`core::evaluate`](crate::core::evaluate) and nothing
//! else: each sync, [`engine::Simulation`] asks the [`world::World`] to fill the core's
//! [`Input`](crate::core::Input) (pods with their start times and Ready conditions, PodMetrics,
//! custom and external metric values derived from the load), evaluates it, sets the replicas the
//! decision asks for and carries the decision's `history.after` into the next sync.
//!
//! * [`series`] — load signals: synthetic shapes, CSV and Prometheus time series;
//! * [`scenario`] — the scenario YAML file;
//! * [`world`] — pods, readiness, load sharing, metrics lag (`lives`: what it reads of the
//!   pods' lives at an instant, kept until it changes; `binding`: the loads and the metrics
//!   they drive);
//! * [`engine`] — the tick loop;
//! * [`summary`] and [`chart`] — what the run did, in constant memory;
//! * [`options`] — the flags and the scenario resolved once (it reads the small files they
//!   name: scenario, load series, history, compare manifest);
//! * [`source`] — the HPA to simulate, chosen in a snapshot or manifest;
//! * [`plan`] — what is resolved before the first tick, and each configuration run;
//! * [`run`] — the plan and the tick loop of every configuration;
//! * [`output`], [`text`], [`json`] and [`svg`] — the output formats, streamed;
//! * [`error`] — [`SimulateError`].
//!
//! Apart from [`options`] (small files), [`prometheus`] (a backtest's HTTP queries) and
//! `--chart FILE` (written by [`run`]), nothing here does I/O besides writing the output it is
//! given; `commands::simulate` loads the source.

pub mod backtest;
mod binding;
pub mod chart;
pub mod engine;
pub mod error;
pub mod json;
mod lives;
pub mod memory;
pub mod options;
pub mod output;
pub mod plan;
pub mod prometheus;
pub mod run;
pub mod scenario;
pub mod series;
mod sole;
pub mod source;
pub mod summary;
pub mod svg;
pub mod text;
pub mod timeline;
pub mod world;

pub use error::SimulateError;

use crate::core::{Input, MetricData, MetricSpec, PodInfo};
use series::{Shape, Signal};
use world::{Load, LoadKind};

fn counts(p: &PodInfo) -> bool {
    p.phase == "Running" && !p.deleting && p.ready.as_ref().is_some_and(|r| r.status == "True")
}

/// The load a snapshot shows for metric `i` of its HPA, held constant: a resource or Pods
/// metric's demand is the sum of the samples of the Running, Ready pods (of all samples if no
/// such pod has one); an Object or External metric's value is its current value.
pub fn observed_load(input: &Input, i: usize) -> Option<Load> {
    let spec = input.hpa.metrics.get(i)?;
    let ready = |name: &str| input.pods.iter().any(|p| p.name == name && counts(p));
    let sum_ready = |values: &[(&str, i64)]| -> Option<i64> {
        if values.is_empty() {
            return None;
        }
        let of_ready: Vec<i64> = values
            .iter()
            .filter(|(n, _)| ready(n))
            .map(|(_, v)| *v)
            .collect();
        Some(if of_ready.is_empty() {
            values.iter().map(|(_, v)| v).sum()
        } else {
            of_ready.iter().sum()
        })
    };
    let (name, kind, milli) = match spec {
        MetricSpec::Resource { resource, .. } | MetricSpec::ContainerResource { resource, .. } => {
            let usages = input.pod_metrics.as_ref().ok()?;
            let values: Vec<(&str, i64)> = usages
                .iter()
                .filter_map(|u| {
                    let mut sum = 0;
                    for (_, m) in &u.containers {
                        sum += m.get(resource)?;
                    }
                    (!u.containers.is_empty()).then_some((u.pod.as_str(), sum))
                })
                .collect();
            (resource, LoadKind::Demand, sum_ready(&values)?)
        }
        MetricSpec::Pods { metric, .. } => match input.metric_data.get(i)? {
            MetricData::Pods(Ok(items)) => {
                let values: Vec<(&str, i64)> =
                    items.iter().map(|s| (s.name.as_str(), s.value)).collect();
                (metric, LoadKind::Demand, sum_ready(&values)?)
            }
            _ => return None,
        },
        MetricSpec::Object { metric, .. } => match input.metric_data.get(i)? {
            MetricData::Object(Ok(s)) => (metric, LoadKind::Value, s.value),
            _ => return None,
        },
        MetricSpec::External { metric, .. } => match input.metric_data.get(i)? {
            MetricData::External(Ok(v)) if !v.is_empty() => {
                (metric, LoadKind::Value, v.iter().map(|s| s.value).sum())
            }
            _ => return None,
        },
        MetricSpec::Unknown { .. } => return None,
    };
    Some(Load {
        metric: name.clone(),
        kind,
        signal: Signal::Shape(Shape::Constant {
            value: milli as f64 / 1000.0,
        }),
        origin: "the snapshot (current load, held constant)".into(),
    })
}
