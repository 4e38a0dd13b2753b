//! The flags of `kubectl hpa simulate` (clap); [`crate::simulate::options`] resolves them once
//! into plain options.

use std::path::PathBuf;

use clap::{Args, ValueEnum};

/// `--interpolation`: how recorded series are read between points.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Interpolation {
    /// A point's value holds until the next point.
    Step,
    /// Straight line between neighbouring points.
    Linear,
}

/// `--history`: `auto`, `none` or a history file.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum HistoryFlag {
    /// The memory of the controller the user has (inferred).
    #[default]
    Auto,
    /// An empty memory.
    None,
    /// A history file (YAML or JSON, as for explain).
    File(PathBuf),
}

impl HistoryFlag {
    /// Parse the flag's value: `auto`, `none` or a file path.
    pub fn parse(s: &str) -> Result<HistoryFlag, super::UsageError> {
        match s.trim() {
            "" => Err("--history: expected auto, none or a history FILE".into()),
            "auto" => Ok(HistoryFlag::Auto),
            "none" => Ok(HistoryFlag::None),
            path => Ok(HistoryFlag::File(PathBuf::from(path))),
        }
    }
}

const SIMULATE_AFTER: &str = "\
Load (repeatable; METRIC is a resource such as cpu or memory, or the name
of a Pods, Object or External metric):
  --demand METRIC=LOAD    total load shared by the Ready pods (cores, rps)
  --per-pod METRIC=LOAD   each pod's value, whatever the replica count
  --value METRIC=LOAD     an Object or External metric's value
LOAD is a number or quantity (3, 1500m), step:FROM:TO:AT,
ramp:FROM:TO:START:END, spike:BASE:PEAK:AT:DURATION,
sine:MEAN:AMPLITUDE:PERIOD, csv:FILE (time,value) or prom:FILE (a
Prometheus query_range JSON export). Recorded load (csv:, prom:) is
simulated over its whole range unless --duration says otherwise.

Examples:
  # How does the HPA of a snapshot react if CPU demand ramps to 6 cores?
  kubectl hpa simulate web -n shop --snapshot examples/scale-up-cpu.yaml \\
      --demand cpu=ramp:1.25:6:5m:20m

  # A manifest, 4 pods requesting 500m, a 10-minute spike, a 90s start-up
  kubectl hpa simulate --hpa examples/backtest/hpa.yaml --replicas 4 \\
      --requests cpu=500m --demand cpu=spike:1:8:10m:10m --pod-startup 90s

  # Replay recorded traffic and compare with a candidate configuration
  kubectl hpa simulate --hpa examples/simulate/hpa.yaml \\
      --scenario examples/simulate/day.yaml \\
      --compare examples/simulate/hpa-tuned.yaml

  # Backtest: what would a candidate have done over the last day?
  kubectl hpa simulate web -n shop --prometheus http://127.0.0.1:9090 \\
      --since 24h --compare examples/backtest/hpa-candidate.yaml --chart day.svg

  # The timeline as CSV or JSON
  kubectl hpa simulate --hpa examples/simulate/hpa.yaml \\
      --demand http_requests=sine:40:20:1h -o csv

Exit codes: 0 the simulation ran, 1 unusable input, 2 bad usage.";

/// Output formats of `simulate`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Default)]
pub enum SimOutput {
    /// Settings, timeline, chart and summary for people
    #[default]
    Text,
    /// The whole run as one JSON document (timeline rows streamed)
    Json,
    /// The timeline as CSV, one row per sync
    Csv,
    /// The chart as SVG (load, target band, desired and Ready replicas, scale events)
    Svg,
}

/// Which ticks the text timeline shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Default)]
pub enum TimelineMode {
    /// Ticks where the replicas, readiness, proposal or deciding rule changed
    #[default]
    Changes,
    /// Every tick
    All,
    /// No timeline (chart and summary only)
    None,
}

/// Flags of `kubectl hpa simulate`.
#[derive(Debug, Clone, Args)]
#[command(after_help = SIMULATE_AFTER)]
pub struct SimulateArgs {
    /// Name of the HorizontalPodAutoscaler (live, or in the --snapshot or --hpa file)
    pub name: Option<String>,
    /// Start from a snapshot (v1 List as for explain): HPA, replicas, pods, requests and current load
    #[arg(long, value_name = "FILE", help_heading = "Source")]
    pub snapshot: Option<PathBuf>,
    /// Start from an HPA manifest (autoscaling/v2 YAML) with synthetic pods
    #[arg(
        long = "hpa",
        value_name = "FILE",
        conflicts_with = "snapshot",
        help_heading = "Source"
    )]
    pub hpa: Option<PathBuf>,
    /// Replicas at the start (with --hpa; default: minReplicas)
    #[arg(long, value_name = "N", help_heading = "Source")]
    pub replicas: Option<i32>,
    /// Requests of each synthetic pod, e.g. cpu=500m,memory=256Mi (with --hpa; with --snapshot it replaces the pods' requests)
    #[arg(long, value_name = "RES=QTY,...", help_heading = "Source")]
    pub requests: Option<String>,

    /// Scenario file (YAML: duration, world, loads); flags override it
    #[arg(long, value_name = "FILE", help_heading = "Load")]
    pub scenario: Option<PathBuf>,
    /// Total load of a metric shared by the Ready pods, e.g. cpu=ramp:1:6:5m:20m (repeatable)
    #[arg(long, value_name = "METRIC=LOAD", help_heading = "Load")]
    pub demand: Vec<String>,
    /// Per-pod value of a metric, independent of replicas, e.g. memory=300Mi (repeatable)
    #[arg(long = "per-pod", value_name = "METRIC=LOAD", help_heading = "Load")]
    pub per_pod: Vec<String>,
    /// Value of an Object or External metric, e.g. queue_depth=step:10:200:5m (repeatable)
    #[arg(long, value_name = "METRIC=LOAD", help_heading = "Load")]
    pub value: Vec<String>,
    #[command(flatten)]
    pub prom: super::history::PrometheusFlags,
    /// How far back the replay starts [default: 24h]
    #[arg(
        long,
        value_name = "DURATION",
        requires = "prometheus_source",
        conflicts_with = "duration",
        help_heading = "Backtest"
    )]
    pub since: Option<String>,
    /// When the replay ends (RFC3339) [default: now]
    #[arg(
        long,
        value_name = "RFC3339",
        requires = "prometheus_source",
        conflicts_with = "now",
        help_heading = "Backtest"
    )]
    pub until: Option<String>,
    /// How recorded series are read between points [default: linear]
    #[arg(long, value_enum, help_heading = "Load")]
    pub interpolation: Option<Interpolation>,

    /// Length of the run [default: 1h]
    #[arg(long, value_name = "DURATION", help_heading = "World")]
    pub duration: Option<String>,
    /// Start time (RFC3339) [default: the snapshot's time, else 2026-01-01T00:00:00Z]
    #[arg(long, value_name = "RFC3339", help_heading = "World")]
    pub now: Option<String>,
    /// Time from a pod's creation until it is Ready [default: 30s]
    #[arg(long, value_name = "DURATION", help_heading = "World")]
    pub pod_startup: Option<String>,
    /// Extra CPU a starting pod burns, e.g. 500m [default: 0]
    #[arg(long, value_name = "QUANTITY", help_heading = "World")]
    pub startup_cpu: Option<String>,
    /// How long the start-up CPU burst lasts after creation [default: --pod-startup]
    #[arg(long, value_name = "DURATION", help_heading = "World")]
    pub startup_burst: Option<String>,
    /// Age of the load a metric sample describes [default: 15s]
    #[arg(long, value_name = "DURATION", help_heading = "World")]
    pub metrics_lag: Option<String>,
    /// Window of the metric samples; a new pod has samples after one window [default: 15s]
    #[arg(long, value_name = "DURATION", help_heading = "World")]
    pub metrics_window: Option<String>,
    /// The controller's memory at the start: auto (inferred from a live HPA or a snapshot; with
    /// --hpa, a controller that has been running at the start), none (empty), or a history FILE
    #[arg(
        long,
        value_name = "auto|none|FILE",
        default_value = "auto",
        value_parser = HistoryFlag::parse,
        help_heading = "World"
    )]
    pub history: HistoryFlag,

    /// Also draw the run as an SVG chart into FILE (one panel per configuration)
    #[arg(long, value_name = "FILE.svg")]
    pub chart: Option<PathBuf>,
    /// Run a second HPA manifest on the same world and load, and compare
    #[arg(long, value_name = "FILE")]
    pub compare: Option<PathBuf>,
    /// Output format
    #[arg(short = 'o', long = "output", value_enum, default_value_t = SimOutput::Text)]
    pub output: SimOutput,
    /// Which ticks the text timeline shows
    #[arg(long, value_enum, default_value_t = TimelineMode::Changes)]
    pub timeline: TimelineMode,
    /// Width of the chart in columns
    #[arg(long, default_value_t = 72, value_name = "COLUMNS")]
    pub width: usize,
    #[command(flatten)]
    pub controller: super::ControllerFlags,
    /// Connection flags (live source) and -n, the namespace of the HPA: after the simulation's own
    #[command(flatten)]
    pub kube: super::KubeFlags,
}
