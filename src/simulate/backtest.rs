//! Backtests: the loads of an HPA's metrics over a past range, from Prometheus.
//!
//! Resource metrics come from the standard cAdvisor series (see
//! [`prometheus::resource_query`]); Pods, Object and External metrics from a PromQL query the
//! user gives per metric (`--query NAME=PROMQL`). A Resource or Pods metric's series is the
//! workload's total, a *demand* the world model shares among the Ready pods; an Object or
//! External metric's series is its value.

use std::fmt;

use jiff::{SignedDuration, Timestamp};

use super::prometheus::{self, Endpoint, PromError};
use super::series::{Interpolation, Signal};
use super::world::{metric_load_name, Load, LoadKind};
use crate::core::{Input, MetricSpec};

/// Why the loads could not be read.
#[derive(Debug, Clone, PartialEq)]
pub enum BacktestError {
    Prometheus(PromError),
    /// A metric with no derived query and no `--query`.
    NoQuery {
        metric: String,
        type_name: String,
    },
    /// `--query NAME=...` for a name no configuration has.
    UnknownQuery {
        metric: String,
        known: Vec<String>,
    },
    /// A malformed `--query`.
    BadQuery(String),
    /// The series could not become a load.
    Series(String),
}

impl fmt::Display for BacktestError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BacktestError::Prometheus(e) => e.fmt(f),
            BacktestError::NoQuery { metric, type_name } => write!(
                f,
                "no Prometheus query for the {type_name} metric {metric:?}: give one with --query {metric}=PROMQL ({})",
                match type_name.as_str() {
                    "Pods" => "the workload's total, e.g. sum(rate(http_requests_total{namespace=\"shop\",pod=~\"web-.*\"}[2m]))",
                    "Resource" | "ContainerResource" => "the workload's total usage of the resource",
                    _ => "the metric's value, e.g. the expression prometheus-adapter or KEDA uses for it",
                }
            ),
            BacktestError::UnknownQuery { metric, known } => write!(
                f,
                "--query {metric}=...: the HPA has no metric {metric:?}; its metrics are {}",
                if known.is_empty() {
                    "none".to_string()
                } else {
                    known.join(", ")
                }
            ),
            BacktestError::BadQuery(q) => write!(
                f,
                "--query {q:?}: expected NAME=PROMQL, e.g. --query http_requests=sum(rate(http_requests_total[2m]))"
            ),
            BacktestError::Series(e) => f.write_str(e),
        }
    }
}

impl std::error::Error for BacktestError {}

impl From<PromError> for BacktestError {
    fn from(e: PromError) -> Self {
        BacktestError::Prometheus(e)
    }
}

/// What to replay.
#[derive(Debug, Clone)]
pub struct Range {
    /// The simulation's start (signal time 0) and end.
    pub start: Timestamp,
    pub end: Timestamp,
    /// The sync period: the `query_range` step.
    pub step: SignedDuration,
    /// The world's metrics lag: the series starts this much before `start`, so the first
    /// syncs' samples describe recorded load too.
    pub lead: SignedDuration,
    /// The world's metrics window (CPU rates use at least four steps).
    pub metrics_window: SignedDuration,
    pub interpolation: Interpolation,
}

impl Range {
    /// The window of the CPU rate: the metrics window, at least four sync periods (so that a
    /// rate spans two scrapes at the usual 15–30 s scrape intervals).
    pub fn rate_window(&self) -> SignedDuration {
        self.metrics_window.max(self.step * 4)
    }
}

/// Parse `--query NAME=PROMQL` flags.
pub fn parse_queries(flags: &[String]) -> Result<Vec<(String, String)>, BacktestError> {
    flags
        .iter()
        .map(|f| {
            f.split_once('=')
                .map(|(n, q)| (n.trim().to_string(), q.trim().to_string()))
                .filter(|(n, q)| !n.is_empty() && !q.is_empty())
                .ok_or_else(|| BacktestError::BadQuery(f.clone()))
        })
        .collect()
}

/// One metric to read: its load name, how the load applies, and the query.
#[derive(Debug, Clone, PartialEq)]
pub struct Planned {
    pub metric: String,
    pub kind: LoadKind,
    pub query: String,
}

/// The queries for the metrics of `inputs` (base, then compare) that have no load in `given`:
/// the user's `--query` where given, else the cAdvisor-derived one for Resource metrics.
pub fn plan(
    inputs: &[&Input],
    queries: &[(String, String)],
    given: &[&str],
    range: &Range,
) -> Result<Vec<Planned>, BacktestError> {
    let mut known: Vec<String> = Vec::new();
    let mut out: Vec<Planned> = Vec::new();
    for input in inputs {
        let hpa = &input.hpa;
        for m in &hpa.metrics {
            let Some(name) = metric_load_name(m) else {
                continue;
            };
            if !known.iter().any(|k| k == name) {
                known.push(name.to_string());
            }
            if given.contains(&name) || out.iter().any(|p| p.metric == name) {
                continue;
            }
            let user = queries
                .iter()
                .find(|(n, _)| n == name)
                .map(|(_, q)| q.clone());
            let (kind, derived) = match m {
                MetricSpec::Resource { resource, .. } => (
                    LoadKind::Demand,
                    prometheus::resource_query(
                        resource,
                        None,
                        &hpa.namespace,
                        &hpa.target_kind,
                        &hpa.target_name,
                        range.rate_window(),
                    ),
                ),
                MetricSpec::ContainerResource {
                    resource,
                    container,
                    ..
                } => (
                    LoadKind::Demand,
                    prometheus::resource_query(
                        resource,
                        Some(container),
                        &hpa.namespace,
                        &hpa.target_kind,
                        &hpa.target_name,
                        range.rate_window(),
                    ),
                ),
                MetricSpec::Pods { .. } => (LoadKind::Demand, None),
                _ => (LoadKind::Value, None),
            };
            let query = user.or(derived).ok_or_else(|| BacktestError::NoQuery {
                metric: name.to_string(),
                type_name: m.type_name().to_string(),
            })?;
            out.push(Planned {
                metric: name.to_string(),
                kind,
                query,
            });
        }
    }
    if let Some((n, _)) = queries.iter().find(|(n, _)| !known.contains(n)) {
        return Err(BacktestError::UnknownQuery {
            metric: n.clone(),
            known,
        });
    }
    Ok(out)
}

/// Run the planned queries and turn their series into loads.
pub fn fetch(
    endpoint: &Endpoint,
    planned: &[Planned],
    range: &Range,
) -> Result<Vec<Load>, BacktestError> {
    let step = range.step;
    // Whole steps before the start, so evaluation times stay on the sync grid.
    let lead_steps = if step > SignedDuration::ZERO {
        (range.lead.as_nanos() + step.as_nanos() - 1) / step.as_nanos()
    } else {
        0
    };
    let from = range
        .start
        .checked_sub(step * lead_steps.clamp(0, i32::MAX as i128) as i32)
        .unwrap_or(range.start);
    let mut loads = Vec::with_capacity(planned.len());
    for p in planned {
        let points =
            endpoint.query_range(&p.query, from, range.end, step, prometheus::PAGE_POINTS)?;
        let origin = format!(
            "Prometheus {}: {}",
            crate::display::url::mask_userinfo(&endpoint.url),
            p.query
        );
        let series = prometheus::to_series(
            &points,
            range.start,
            "Prometheus query_range",
            range.interpolation,
        )
        .map_err(|e| BacktestError::Series(e.to_string()))?;
        loads.push(Load {
            metric: p.metric.clone(),
            kind: p.kind,
            signal: Signal::Series(series),
            origin,
        });
    }
    Ok(loads)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::Target;
    use crate::simulate::engine::tests::bare_input;

    fn range() -> Range {
        Range {
            start: "2026-01-01T00:00:00Z".parse().unwrap(),
            end: "2026-01-02T00:00:00Z".parse().unwrap(),
            step: SignedDuration::from_secs(15),
            lead: SignedDuration::from_secs(15),
            metrics_window: SignedDuration::from_secs(15),
            interpolation: Interpolation::Step,
        }
    }

    #[test]
    fn plans_derived_and_user_queries() {
        let metrics = vec![
            MetricSpec::Resource {
                resource: "cpu".into(),
                target: Target::default(),
            },
            MetricSpec::External {
                metric: "queue_depth".into(),
                selector_text: String::new(),
                target: Target::default(),
            },
        ];
        let input = bare_input(metrics, vec![]);
        let e = plan(&[&input], &[], &[], &range()).unwrap_err();
        assert!(e.to_string().contains("--query queue_depth=PROMQL"), "{e}");
        let q = vec![("queue_depth".to_string(), "max(q)".to_string())];
        let p = plan(&[&input], &q, &[], &range()).unwrap();
        assert_eq!(p.len(), 2);
        assert!(p[0].query.contains("[60s]"), "{}", p[0].query);
        assert_eq!(
            (p[1].kind, p[1].query.as_str()),
            (LoadKind::Value, "max(q)")
        );
        // A metric with a load from the flags is not queried; an unknown --query is refused.
        assert_eq!(plan(&[&input], &q, &["cpu"], &range()).unwrap().len(), 1);
        let bad = [("nope".to_string(), "x".to_string())];
        let e = plan(&[&input], &[q[0].clone(), bad[0].clone()], &[], &range()).unwrap_err();
        assert!(e.to_string().contains("cpu, queue_depth"), "{e}");
        assert!(parse_queries(&["x".into()]).is_err());
    }
}
