//! The flags of `kubectl hpa history` (clap), and their resolution into plain values.

use std::path::PathBuf;

use clap::Args;
use jiff::Timestamp;

use super::{Environment, KubeFlags, UsageError};
use crate::output::Format;

/// The examples under `history --help`.
pub const HISTORY_AFTER: &str = "\
Examples:
  # Every scale change the Events still hold (kept 1 h by default), oldest first
  kubectl hpa history web -n shop

  # The last 30 minutes, as JSON (the History document of the contract)
  kubectl hpa history web -n shop --since 30m -o json

  # From a snapshot file (kubectl hpa snapshot records the Events)
  kubectl hpa history frontend --snapshot examples/held-by-window.yaml

Exit codes: 0 the history was read; 1 an error; 2 a usage error.";

/// Flags of `kubectl hpa history`.
#[derive(Debug, Clone, Args)]
pub struct HistoryArgs {
    /// Name of the HorizontalPodAutoscaler, or hpa/NAME
    #[arg(value_name = "NAME")]
    pub name: String,
    /// Only the changes of the last DURATION (Go syntax: 30m, 6h, 1h30m)
    #[arg(long, value_name = "DURATION", conflicts_with = "from")]
    pub since: Option<String>,
    /// Only the changes from this time (RFC3339)
    #[arg(long, value_name = "RFC3339")]
    pub from: Option<String>,
    /// Only the changes until this time (RFC3339); default: now
    #[arg(long, value_name = "RFC3339")]
    pub to: Option<String>,
    /// Read the HPA and its Events from snapshot files instead of a cluster (`-` reads stdin)
    #[arg(long, value_name = "FILE")]
    pub snapshot: Vec<PathBuf>,
    /// What "now" is (RFC3339); default: the snapshot's time, else the newest Event, else now
    #[arg(long, value_name = "RFC3339")]
    pub now: Option<String>,
    /// Output format
    #[arg(short = 'o', long = "output", value_parser = crate::output::only(&[Format::Text, Format::Json, Format::Yaml]), default_value = "text")]
    pub output: Format,
    #[command(flatten)]
    pub prom: ReplayFlags,
    /// Also draw the replay as an SVG chart into FILE (replicas recorded and replayed, the
    /// metric against its target and tolerance band, the scale events)
    #[arg(
        long,
        value_name = "FILE.svg",
        requires = "prometheus_source",
        help_heading = "Replay"
    )]
    pub chart: Option<PathBuf>,
    #[command(flatten)]
    pub controller: super::ControllerFlags,
    #[command(flatten)]
    pub kube: KubeFlags,
}

/// `history`, resolved.
#[derive(Debug, Clone)]
pub struct HistoryOptions {
    pub name: String,
    pub namespace: Option<String>,
    pub snapshot: Vec<PathBuf>,
    pub now: Option<Timestamp>,
    /// `--since` in seconds.
    pub since: Option<i64>,
    pub from: Option<Timestamp>,
    pub to: Option<Timestamp>,
    pub output: Format,
    pub width: usize,
    pub kube: KubeFlags,
    /// `--prometheus` and the flags of its reads.
    pub prometheus: Option<PrometheusOptions>,
    /// The controller settings of the flags (before the snapshot's release evidence).
    pub settings: crate::core::Settings,
    /// `--chart`.
    pub chart: Option<PathBuf>,
}

fn time(flag: &str, v: &Option<String>) -> Result<Option<Timestamp>, UsageError> {
    v.as_deref()
        .map(|t| {
            t.parse::<Timestamp>()
                .map_err(|e| UsageError(format!("{flag}: invalid RFC3339 time {t:?}: {e}")))
        })
        .transpose()
}

impl HistoryArgs {
    /// The plain options; a bad value is a usage error naming the flag.
    pub fn resolve(&self, env: &Environment) -> Result<HistoryOptions, UsageError> {
        if self.kube.all_namespaces {
            return Err(UsageError(
                "history takes one HPA: give NAME and -n NAMESPACE, not -A".into(),
            ));
        }
        let since = self
            .since
            .as_deref()
            .map(|s| go_duration_flag("--since", s, 1, "30m, 6h or 1h30m"))
            .transpose()?
            .map(|n| n / 1_000_000_000);
        let name = self.name.strip_prefix("hpa/").unwrap_or(&self.name);
        let name = name
            .strip_prefix("horizontalpodautoscaler/")
            .unwrap_or(name);
        Ok(HistoryOptions {
            name: name.to_string(),
            namespace: self.kube.namespace.clone(),
            snapshot: self.snapshot.clone(),
            now: time("--now", &self.now)?,
            since,
            from: time("--from", &self.from)?,
            to: time("--to", &self.to)?,
            output: self.output,
            width: env.columns.unwrap_or(crate::render::DEFAULT_WIDTH),
            kube: self.kube.clone(),
            prometheus: self.prom.resolve()?,
            settings: super::resolve_settings(&self.controller)?,
            chart: self.chart.clone(),
        })
    }
}

/// The Prometheus a run reads: one set of flags for `simulate --prometheus` (a backtest),
/// `history --prometheus` and `explain --at`.
#[derive(Debug, Clone, Args)]
pub struct PrometheusFlags {
    /// Read what this Prometheus recorded (http://HOST:PORT): history and explain --at replay
    /// the controller over the HPA's kube-state-metrics series, its Ready pods and its
    /// metrics; simulate backtests over its metrics' load
    #[arg(
        long,
        value_name = "URL",
        group = "prometheus_source",
        help_heading = "Prometheus"
    )]
    pub prometheus: Option<String>,
    /// Read the cluster's Prometheus through the API server's service proxy, over the
    /// kubeconfig's connection (--kubeconfig, --context): the Service [NAMESPACE/]NAME[:PORT]
    /// (namespace default monitoring, port default 9090; a port name works too)
    #[arg(
        long,
        value_name = "[NAMESPACE/]NAME[:PORT]",
        group = "prometheus_source",
        conflicts_with = "prometheus",
        help_heading = "Prometheus"
    )]
    pub prometheus_service: Option<String>,
    /// The PromQL of a metric's load, e.g. rps=sum(rate(http_requests_total[2m])) (repeatable; required for Pods, Object and External metrics)
    #[arg(
        long,
        value_name = "METRIC=PROMQL",
        requires = "prometheus_source",
        help_heading = "Prometheus"
    )]
    pub query: Vec<String>,
}

/// Where Prometheus is: `--prometheus URL` or `--prometheus-service [NAMESPACE/]NAME[:PORT]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PromTarget {
    Url(String),
    /// A Service behind the API server's service proxy; `port` is a number or a port name.
    Service {
        namespace: String,
        name: String,
        port: String,
    },
}

impl std::fmt::Display for PromTarget {
    /// The URL as given, or `service NAMESPACE/NAME:PORT`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PromTarget::Url(u) => f.write_str(u),
            PromTarget::Service {
                namespace,
                name,
                port,
            } => write!(f, "service {namespace}/{name}:{port}"),
        }
    }
}

/// The namespace of `--prometheus-service NAME` (kube-prometheus' and most charts').
pub const PROMETHEUS_SERVICE_NAMESPACE: &str = "monitoring";
/// The port of `--prometheus-service NAME`: Prometheus' own.
pub const PROMETHEUS_SERVICE_PORT: &str = "9090";

impl PrometheusFlags {
    /// `None` without either flag; a bad `--prometheus-service` is a usage error.
    pub fn target(&self) -> Result<Option<PromTarget>, UsageError> {
        if let Some(url) = &self.prometheus {
            return Ok(Some(PromTarget::Url(url.clone())));
        }
        let Some(s) = &self.prometheus_service else {
            return Ok(None);
        };
        let (namespace, rest) = s
            .split_once('/')
            .unwrap_or((PROMETHEUS_SERVICE_NAMESPACE, s.as_str()));
        let (name, port) = rest
            .split_once(':')
            .unwrap_or((rest, PROMETHEUS_SERVICE_PORT));
        let dns = |v: &str| {
            !v.is_empty()
                && v.len() <= 63
                && v.bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        };
        if !(dns(namespace) && dns(name) && dns(port)) {
            return Err(UsageError(format!(
                "--prometheus-service {s:?}: expected [NAMESPACE/]NAME[:PORT], e.g. monitoring/prometheus-k8s:9090 (lower-case names; PORT a number or a port name)"
            )));
        }
        Ok(Some(PromTarget::Service {
            namespace: namespace.into(),
            name: name.into(),
            port: port.into(),
        }))
    }
}

/// The flags of a replay (`history --prometheus`, `explain --at`): the Prometheus, and the
/// window of the CPU rate read from it.
#[derive(Debug, Clone, Args)]
pub struct ReplayFlags {
    #[command(flatten)]
    pub prom: PrometheusFlags,
    /// The window of the CPU rate read from cAdvisor (Go duration; at least two scrape
    /// intervals) [default: four sync periods, 60s]
    #[arg(
        long,
        value_name = "DURATION",
        requires = "prometheus_source",
        help_heading = "Prometheus"
    )]
    pub rate_window: Option<String>,
    /// How much older than each sync the metric the controller read was (Go duration): the
    /// replay reads each metric that long before the sync, in whole syncs. 0s reads the sample
    /// that ends at the sync's last scrape, as metrics-server's latest point does when its
    /// --metric-resolution equals the scrape interval; with metrics-server's own default
    /// resolution of 60s, give 30s (half of it, on average) [default: 0s]
    #[arg(
        long,
        value_name = "DURATION",
        requires = "prometheus_source",
        help_heading = "Prometheus"
    )]
    pub metrics_lag: Option<String>,
}

/// The Prometheus of a replay, resolved.
#[derive(Debug, Clone)]
pub struct PrometheusOptions {
    pub target: PromTarget,
    /// `--query NAME=PROMQL`, split.
    pub queries: Vec<(String, String)>,
    /// `--rate-window`.
    pub rate_window: Option<jiff::SignedDuration>,
    /// `--metrics-lag` (zero when not given).
    pub metrics_lag: jiff::SignedDuration,
}

impl ReplayFlags {
    /// `None` without `--prometheus` or `--prometheus-service`; a bad value is a usage error
    /// naming the flag.
    pub fn resolve(&self) -> Result<Option<PrometheusOptions>, UsageError> {
        let Some(target) = self.prom.target()? else {
            return Ok(None);
        };
        let queries = self
            .prom
            .query
            .iter()
            .map(|q| {
                q.split_once('=')
                    .map(|(n, p)| (n.trim().to_string(), p.trim().to_string()))
                    .filter(|(n, p)| !n.is_empty() && !p.is_empty())
                    .ok_or_else(|| {
                        UsageError(format!(
                            "--query {q:?}: expected METRIC=PROMQL, e.g. --query http_requests=sum(rate(http_requests_total[2m]))"
                        ))
                    })
            })
            .collect::<Result<_, _>>()?;
        let rate_window = self
            .rate_window
            .as_deref()
            .map(|s| go_duration_flag("--rate-window", s, 1_000_000_000, "30s or 1m (at least 1s)"))
            .transpose()?
            .map(jiff::SignedDuration::from_nanos);
        let metrics_lag = self
            .metrics_lag
            .as_deref()
            .map(|s| go_duration_flag("--metrics-lag", s, 0, "0s, 15s or 30s"))
            .transpose()?
            .map_or(jiff::SignedDuration::ZERO, jiff::SignedDuration::from_nanos);
        Ok(Some(PrometheusOptions {
            target,
            queries,
            rate_window,
            metrics_lag,
        }))
    }
}

/// `explain NAME --at TIME`: the decision of a past sync, replayed from Prometheus.
#[derive(Debug, Clone, Args)]
pub struct AtArgs {
    /// Explain the decision of the sync at this past time (RFC3339, or -DURATION before now:
    /// -2h), replayed from what --prometheus recorded
    #[arg(
        long,
        value_name = "RFC3339|-DURATION",
        allow_hyphen_values = true,
        help_heading = "Prometheus"
    )]
    pub at: Option<String>,
    #[command(flatten)]
    pub prom: ReplayFlags,
}

/// `--at`, resolved.
#[derive(Debug, Clone)]
pub struct AtOptions {
    pub at: Timestamp,
    pub prometheus: PrometheusOptions,
}

impl AtArgs {
    /// `None` without `--at`; `--at` without `--prometheus` (or with `--watch`, several NAMEs, no
    /// NAME) is a one-line usage error saying what is needed.
    pub fn resolve(&self, names: usize, watch: bool) -> Result<Option<AtOptions>, UsageError> {
        let prometheus = self.prom.resolve()?;
        let Some(at) = &self.at else {
            return match prometheus {
                Some(_) => Err(UsageError(format!("{} is read by --at TIME (the decision of a past sync); without --at, explain reads the cluster as it is now", match self.prom.prom.prometheus {
                    Some(_) => "--prometheus",
                    None => "--prometheus-service",
                }))),
                None => Ok(None),
            };
        };
        let at = match at.strip_prefix('-') {
            Some(d) => {
                let ns = crate::duration::parse_go_duration(d)
                    .ok()
                    .filter(|n| *n > 0)
                    .ok_or_else(|| UsageError(format!("--at {at:?}: expected an RFC3339 time or -DURATION before now, e.g. --at 2026-03-01T03:12:00Z or --at -2h")))?;
                Timestamp::now()
                    .checked_sub(jiff::SignedDuration::from_nanos(ns))
                    .map_err(|e| UsageError(format!("--at {at:?}: {e}")))?
            }
            None => time("--at", &Some(at.clone()))?.unwrap_or_else(Timestamp::now),
        };
        let Some(prometheus) = prometheus else {
            return Err("--at replays the controller over what Prometheus recorded: give --prometheus URL too (e.g. http://127.0.0.1:9090 after kubectl port-forward -n monitoring svc/prometheus 9090), or --prometheus-service [NAMESPACE/]NAME[:PORT]".into());
        };
        if watch {
            return Err("--at explains one past sync; it cannot be used with --watch".into());
        }
        if names != 1 {
            return Err("--at explains one HPA's past sync: give one NAME".into());
        }
        Ok(Some(AtOptions { at, prometheus }))
    }
}

/// A Go duration given to `flag`, in nanoseconds, at least `min_nanos`; otherwise a usage error
/// naming the flag with `examples` of the syntax.
fn go_duration_flag(
    flag: &str,
    value: &str,
    min_nanos: i64,
    examples: &str,
) -> Result<i64, UsageError> {
    crate::duration::parse_go_duration(value)
        .ok()
        .filter(|n| *n >= min_nanos)
        .ok_or_else(|| {
            UsageError(format!(
                "{flag}: invalid duration {value:?}: use Go syntax such as {examples}"
            ))
        })
}

#[cfg(test)]
mod tests {
    use super::go_duration_flag;

    #[test]
    fn a_go_duration_flag_keeps_its_lower_bound_and_names_the_flag() {
        assert_eq!(
            go_duration_flag("--x", "1m30s", 0, "1m").unwrap(),
            90_000_000_000
        );
        assert_eq!(go_duration_flag("--x", "0s", 0, "0s").unwrap(), 0);
        let below = go_duration_flag(
            "--rate-window",
            "500ms",
            1_000_000_000,
            "30s or 1m (at least 1s)",
        );
        assert_eq!(
            below.unwrap_err().0,
            "--rate-window: invalid duration \"500ms\": use Go syntax such as 30s or 1m (at least 1s)"
        );
        let zero = go_duration_flag("--since", "0s", 1, "30m");
        assert!(zero
            .unwrap_err()
            .0
            .starts_with("--since: invalid duration \"0s\""));
        let junk = go_duration_flag("--metrics-lag", "-5s", 0, "0s, 15s or 30s");
        assert!(junk.is_err());
    }
}
