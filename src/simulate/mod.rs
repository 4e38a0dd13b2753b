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
//! * [`world`] — pods, readiness, load sharing, metrics lag;
//! * [`engine`] — the tick loop;
//! * [`summary`] and [`chart`] — what the run did, in constant memory.
//!
//! Everything here is pure (no I/O); `commands::simulate` reads files and writes output.

pub mod backtest;
pub mod chart;
pub mod engine;
pub mod memory;
pub mod prometheus;
pub mod scenario;
pub mod series;
pub mod summary;
pub mod svg;
pub mod world;

use std::fmt;

use crate::core::{Input, MetricData, MetricSpec, PodInfo};
use series::{Shape, Signal};
use world::{Load, LoadKind};

/// A bad scenario, series or setup: one line naming the file, line or field.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error(String);

impl Error {
    pub fn new(message: impl Into<String>) -> Error {
        Error(message.into())
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Error {}

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
