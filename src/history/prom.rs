//! What the controller read, from Prometheus: the plan of queries (pure) and their answers on
//! the sync grid. The HTTP client is `simulate`'s ([`Endpoint`]); the metric queries are the
//! backtest's ([`backtest::plan`]: cAdvisor for cpu and memory, `--query NAME=PROMQL` for the
//! others).

use jiff::{SignedDuration, Timestamp};

use super::recorded::{on_grid, replicas, Recorded, RecordedMetric, SeriesKind};
use crate::core::{Input, MetricSpec};
use crate::simulate::backtest::{self, BacktestError, Range};
use crate::simulate::prometheus::{pod_regex, resource_query, Endpoint, PromError, PAGE_POINTS};
use crate::simulate::series::Interpolation;
use crate::simulate::world::{metric_load_name, LoadKind};

/// One metric's queries.
#[derive(Debug, Clone, PartialEq)]
pub struct MetricQueries {
    pub name: String,
    pub kind: SeriesKind,
    pub query: String,
    /// Resource metrics: each pod's request (kube-state-metrics).
    pub request: Option<String>,
}

/// Every query of a replay.
#[derive(Debug, Clone, PartialEq)]
pub struct Queries {
    pub desired: String,
    pub current: String,
    pub min: String,
    pub max: String,
    pub ready: String,
    /// Per `spec.metrics` entry.
    pub metrics: Vec<Option<MetricQueries>>,
}

/// The grid: from `start` (the lead included) every `step` until `end`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Grid {
    pub start: Timestamp,
    pub window_start: Timestamp,
    pub end: Timestamp,
    pub step: SignedDuration,
}

impl Grid {
    /// The window `[from, to]` at the controller's sync period, `lead` before it.
    pub fn new(from: Timestamp, to: Timestamp, step: SignedDuration, lead: SignedDuration) -> Grid {
        let lead_steps = (lead.as_secs() + step.as_secs().max(1) - 1) / step.as_secs().max(1);
        let start = from
            .checked_sub(step * lead_steps.clamp(0, i32::MAX as i64) as i32)
            .unwrap_or(from);
        Grid {
            start,
            window_start: from,
            end: to,
            step,
        }
    }

    pub fn len(&self) -> usize {
        let span = self.end.duration_since(self.start).as_secs_f64();
        let s = self.step.as_secs_f64();
        if s <= 0.0 || span < 0.0 {
            return 0;
        }
        (span / s).floor() as usize + 1
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn window_index(&self) -> usize {
        let s = self.step.as_secs_f64();
        (self.window_start.duration_since(self.start).as_secs_f64() / s).round() as usize
    }
}

/// The queries for the HPA of `input` (its namespace, name and target), with the user's
/// `--query NAME=PROMQL` for metrics that have no derived query.
pub fn plan(
    input: &Input,
    user: &[(String, String)],
    grid: &Grid,
    rate_window: Option<SignedDuration>,
) -> Result<Queries, BacktestError> {
    let hpa = &input.hpa;
    let sel = format!(
        "namespace=\"{}\",horizontalpodautoscaler=\"{}\"",
        hpa.namespace, hpa.name
    );
    let pods = format!(
        "namespace=\"{}\",pod=~\"{}\"",
        hpa.namespace,
        pod_regex(&hpa.target_kind, &hpa.target_name)
    );
    let range = Range {
        start: grid.start,
        end: grid.end,
        step: grid.step,
        lead: SignedDuration::ZERO,
        metrics_window: SignedDuration::from_secs(30),
        interpolation: Interpolation::Step,
    };
    // cpu and memory from cAdvisor, with the rate window asked for (else four syncs).
    let rate_window = rate_window.unwrap_or(range.rate_window());
    let derived: Vec<(String, String)> = hpa
        .metrics
        .iter()
        .filter_map(|m| {
            let (resource, container) = match m {
                MetricSpec::Resource { resource, .. } => (resource, None),
                MetricSpec::ContainerResource {
                    resource,
                    container,
                    ..
                } => (resource, Some(container.as_str())),
                _ => return None,
            };
            let name = metric_load_name(m)?;
            if user.iter().any(|(n, _)| n == name) {
                return None;
            }
            let q = resource_query(
                resource,
                container,
                &hpa.namespace,
                &hpa.target_kind,
                &hpa.target_name,
                rate_window,
            )?;
            Some((name.to_string(), q))
        })
        .collect();
    let given: Vec<&str> = derived.iter().map(|(n, _)| n.as_str()).collect();
    let mut planned = backtest::plan(&[input], user, &given, &range)?;
    planned.extend(derived.iter().map(|(n, q)| backtest::Planned {
        metric: n.clone(),
        kind: LoadKind::Demand,
        query: q.clone(),
    }));
    let metrics = hpa
        .metrics
        .iter()
        .map(|m| {
            let name = metric_load_name(m)?;
            let p = planned.iter().find(|p| p.metric == name)?;
            let request = match m {
                MetricSpec::Resource { resource, .. } => Some(format!(
                    "avg(sum by (pod) (kube_pod_container_resource_requests{{{pods},resource=\"{resource}\"}}))"
                )),
                MetricSpec::ContainerResource {
                    resource,
                    container,
                    ..
                } => Some(format!(
                    "avg(sum by (pod) (kube_pod_container_resource_requests{{{pods},container=\"{container}\",resource=\"{resource}\"}}))"
                )),
                _ => None,
            };
            Some(MetricQueries {
                name: name.to_string(),
                kind: match p.kind {
                    LoadKind::Value => SeriesKind::Value,
                    _ => SeriesKind::Total,
                },
                query: p.query.clone(),
                request,
            })
        })
        .collect();
    Ok(Queries {
        desired: format!("max(kube_horizontalpodautoscaler_status_desired_replicas{{{sel}}})"),
        current: format!("max(kube_horizontalpodautoscaler_status_current_replicas{{{sel}}})"),
        min: format!("max(kube_horizontalpodautoscaler_spec_min_replicas{{{sel}}})"),
        max: format!("max(kube_horizontalpodautoscaler_spec_max_replicas{{{sel}}})"),
        ready: format!("sum(kube_pod_status_ready{{{pods},condition=\"true\"}})"),
        metrics,
    })
}

/// The answers, on the grid; series that may be absent (min, max, Ready pods, requests) are
/// notes when they are, the replicas and the metrics are errors.
pub fn fetch(
    endpoint: &Endpoint,
    q: &Queries,
    grid: &Grid,
    notes: &mut Vec<String>,
) -> Result<Recorded, PromError> {
    let len = grid.len();
    let get = |query: &str| -> Result<Vec<Option<f64>>, PromError> {
        let points = endpoint.query_range(query, grid.start, grid.end, grid.step, PAGE_POINTS)?;
        Ok(on_grid(&points, grid.start, grid.step, len))
    };
    let mut optional = |query: &str, what: &str| -> Result<Vec<Option<f64>>, PromError> {
        match get(query) {
            Ok(v) => Ok(v),
            Err(PromError::Empty { .. }) => {
                notes.push(format!(
                    "no {what} in Prometheus ({query}): the replay {}",
                    if what.contains("request") {
                        "uses the requests of the pods the HPA's snapshot shows"
                    } else {
                        "uses the HPA's spec and the replicas instead"
                    }
                ));
                Ok(vec![None; len])
            }
            Err(e) => Err(e),
        }
    };
    let min = replicas(optional(&q.min, "minReplicas series")?);
    let max = replicas(optional(&q.max, "maxReplicas series")?);
    let ready = replicas(optional(
        &q.ready,
        "Ready pods series (kube_pod_status_ready)",
    )?);
    let mut metrics = Vec::with_capacity(q.metrics.len());
    for m in &q.metrics {
        let Some(m) = m else {
            metrics.push(None);
            continue;
        };
        let request = match &m.request {
            Some(rq) => optional(rq, &format!("{} request series", m.name))?,
            None => vec![None; len],
        };
        metrics.push(Some(RecordedMetric {
            name: m.name.clone(),
            kind: m.kind,
            query: m.query.clone(),
            values: get(&m.query)?,
            request,
        }));
    }
    Ok(Recorded {
        start: grid.start,
        step: grid.step,
        window_start: grid.window_index().min(len),
        desired: replicas(get(&q.desired)?),
        current: replicas(get(&q.current)?),
        min,
        max,
        ready,
        metrics,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_grid_starts_one_lead_before_the_window() {
        let from: Timestamp = "2026-01-01T01:00:00Z".parse().unwrap();
        let to: Timestamp = "2026-01-01T02:00:00Z".parse().unwrap();
        let g = Grid::new(
            from,
            to,
            SignedDuration::from_secs(15),
            SignedDuration::from_secs(300),
        );
        assert_eq!(
            g.start,
            "2026-01-01T00:55:00Z".parse::<Timestamp>().unwrap()
        );
        assert_eq!(g.len(), 20 + 240 + 1);
        assert_eq!(g.window_index(), 20);
    }
}
