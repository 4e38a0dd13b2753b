//! `kubectl hpa simulate`: run the controller's algorithm tick by tick against a load scenario.
//!
//! This module reads the files, builds the [`Simulation`]s (the world model and the tick loop
//! live in [`crate::simulate`]; the decisions come from [`crate::core::evaluate`]) and streams
//! the timeline to stdout as it is computed, so memory does not grow with the run's length.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{anyhow, bail, Context, Result};
use clap::{Args, ValueEnum};
use comfy_table::{presets, Table};
use jiff::{SignedDuration, Timestamp};
use k8s_openapi::api::autoscaling::v2::HorizontalPodAutoscaler;
use owo_colors::OwoColorize;
use serde::Serialize;

use crate::cli::{read_history, resolve_settings, ControllerFlags, Environment};
use crate::core::{
    Behavior, ContainerRequests, History, Input, MetricSpec, PodInfo, Rules, Settings,
};
use crate::duration::{format_go_duration, parse_go_duration};
use crate::quantity::parse_milli;
use crate::simulate::chart::{self, ChartBuilder, Hue};
use crate::simulate::engine::{Simulation, TickRecord};
use crate::simulate::memory::{self, HistoryChoice};
use crate::simulate::scenario::{LoadDecl, LoadSource, Scenario};
use crate::simulate::series::{self, num, parse_csv, parse_prometheus, Interpolation, SpecSource};
use crate::simulate::summary::{Summary, SummaryBuilder};
use crate::simulate::world::{metric_load_name, Load, LoadKind, World, WorldParams};
use crate::simulate::{backtest, prometheus::Endpoint, svg};
use crate::simulate::{observed_load, series::Signal};
use crate::snapshot::{Snapshot, Workload};

const SIMULATE_AFTER: &str = "\
Load (repeatable; METRIC is a resource such as cpu or memory, or a Pods/Object/External metric name):
  --demand METRIC=LOAD    total load shared by the Ready pods (cores, requests/s ...)
  --per-pod METRIC=LOAD   each pod's value, whatever the replica count
  --value METRIC=LOAD     an Object or External metric's value
  LOAD is a number or quantity (3, 1500m), step:FROM:TO:AT, ramp:FROM:TO:START:END,
  spike:BASE:PEAK:AT:DURATION, sine:MEAN:AMPLITUDE:PERIOD, csv:FILE (time,value) or
  prom:FILE (a Prometheus query_range JSON export).

Examples:
  # How does the HPA of a snapshot react if CPU demand ramps from 1.25 to 6 cores?
  kubectl hpa simulate web -n shop --snapshot examples/scale-up-cpu.yaml --demand cpu=ramp:1.25:6:5m:20m

  # A manifest, 4 pods requesting 500m, a 10-minute spike, pods that take 90s to become Ready
  kubectl hpa simulate --hpa hpa.yaml --replicas 4 --requests cpu=500m \\
      --demand cpu=spike:1:8:10m:10m --pod-startup 90s --duration 1h

  # Replay a day of recorded traffic and compare with a candidate configuration
  kubectl hpa simulate --hpa hpa.yaml --requests cpu=250m --scenario day.yaml --compare hpa-new.yaml

  # Backtest: what would a candidate have done over the last day of recorded load?
  kubectl hpa simulate web -n shop --prometheus http://127.0.0.1:9090 --since 24h \\
      --compare hpa-new.yaml --chart day.svg

  # The timeline as CSV or JSON
  kubectl hpa simulate --hpa hpa.yaml --requests cpu=500m --demand cpu=sine:4:2:1h -o csv

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
    /// Connection flags (live source) and -n, the namespace of the HPA
    #[command(flatten)]
    pub kube: crate::cli::KubeFlags,
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
    /// Read the load of the HPA's metrics from this Prometheus (http://HOST:PORT)
    #[arg(long, value_name = "URL", help_heading = "Backtest")]
    pub prometheus: Option<String>,
    /// How far back the replay starts [default: 24h]
    #[arg(
        long,
        value_name = "DURATION",
        requires = "prometheus",
        conflicts_with = "duration",
        help_heading = "Backtest"
    )]
    pub since: Option<String>,
    /// When the replay ends (RFC3339) [default: now]
    #[arg(
        long,
        value_name = "RFC3339",
        requires = "prometheus",
        conflicts_with = "now",
        help_heading = "Backtest"
    )]
    pub until: Option<String>,
    /// The PromQL of a metric's load, e.g. http_requests=sum(rate(http_requests_total{namespace="shop"}[2m])) (repeatable; required for Pods, Object and External metrics)
    #[arg(
        long,
        value_name = "METRIC=PROMQL",
        requires = "prometheus",
        help_heading = "Backtest"
    )]
    pub query: Vec<String>,
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
        value_parser = HistoryChoice::parse,
        help_heading = "World"
    )]
    pub history: HistoryChoice,

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
    pub controller: ControllerFlags,
}

/// Direction changes within this long of the previous scale event count as flapping.
const FLAPPING_WINDOW: SignedDuration = SignedDuration::from_secs(300);
/// The largest run accepted (ticks).
const MAX_TICKS: u64 = 20_000_000;
/// Start time when neither the snapshot nor the flags give one (deterministic output).
const DEFAULT_START: &str = "2026-01-01T00:00:00Z";

/// Run `simulate`, streaming into `out`; returns the text still to print (none).
pub fn run(args: &SimulateArgs, env: &Environment, out: &mut dyn Write) -> Result<String> {
    match execute(args, env, out).and_then(|()| out.flush().map_err(Into::into)) {
        Ok(()) => Ok(String::new()),
        Err(e) if is_broken_pipe(&e) => Ok(String::new()),
        Err(e) => Err(e),
    }
}

fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.downcast_ref::<std::io::Error>()
        .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
}

/// A value and where it came from, for the settings block.
struct Shown {
    text: String,
    origin: &'static str,
}

impl Shown {
    fn new(text: impl Into<String>, origin: &'static str) -> Shown {
        Shown {
            text: text.into(),
            origin,
        }
    }
}

impl std::fmt::Display for Shown {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({})", self.text, self.origin)
    }
}

fn go(d: SignedDuration) -> String {
    format_go_duration(d.as_nanos().clamp(i64::MIN as i128, i64::MAX as i128) as i64)
}

fn flag_duration(flag: &str, v: &str) -> Result<SignedDuration> {
    let usage = |m: String| anyhow::Error::new(crate::cli::UsageError(m));
    let n = parse_go_duration(v).map_err(|e| usage(format!("--{flag}: {e}")))?;
    if n < 0 {
        return Err(usage(format!("--{flag}: must not be negative, got {v:?}")));
    }
    Ok(SignedDuration::from_nanos(n))
}

/// Pick a setting: flag, then scenario, then default.
fn pick<T>(flag: Option<T>, scenario: Option<T>, default: T) -> (T, &'static str) {
    match (flag, scenario) {
        (Some(v), _) => (v, "flag"),
        (None, Some(v)) => (v, "scenario"),
        (None, None) => (default, "default"),
    }
}

/// One HPA configuration to run.
struct Config {
    label: &'static str,
    source: String,
    sim: Simulation,
    summary: SummaryBuilder,
    chart: ChartBuilder,
    /// The SVG chart's data (with --chart or -o svg).
    track: Option<svg::Track>,
    /// Short column names of its metrics.
    metric_names: Vec<String>,
}

/// Everything resolved before the first tick.
struct Plan {
    settings: Settings,
    world: WorldParams,
    world_shown: Vec<(&'static str, Shown)>,
    start: Timestamp,
    start_origin: String,
    duration: SignedDuration,
    duration_origin: &'static str,
    ticks: u64,
    loads: Vec<Load>,
    replay: bool,
    source_note: String,
    /// Where the controller's memory at the start came from.
    memory_note: String,
}

/// Run `simulate`, writing its output to `out` as the run progresses (the timeline is never
/// held in memory). Errors happen before the first byte is written, except write errors.
pub fn execute(args: &SimulateArgs, env: &Environment, out: &mut dyn Write) -> Result<()> {
    let settings = resolve_settings(&args.controller)?;
    let scenario = match &args.scenario {
        Some(p) => {
            let text = std::fs::read_to_string(p)
                .with_context(|| format!("cannot read scenario {}", p.display()))?;
            let dir = p.parent().unwrap_or(Path::new("."));
            Scenario::parse(&text, &p.display().to_string(), dir)?
        }
        None => Scenario::default(),
    };
    let requests = args.requests.as_deref().map(parse_requests).transpose()?;
    let source = resolve_source(args)?;
    let settings = settings_for_source(args, &source, settings)?;
    let backtest = backtest_range(args)?;
    let (start, start_origin) = resolve_start(args, &scenario, &source, backtest.as_ref())?;
    let (base_input, compare_input, memory) = resolve_inputs(args, &source, &settings, start)?;
    let (world, world_shown) = resolve_world(args, &scenario)?;
    let interp = args
        .interpolation
        .or(scenario.interpolation)
        .unwrap_or_default();
    let inputs: Vec<&Input> = std::iter::once(&base_input)
        .chain(compare_input.as_ref())
        .collect();
    let mut loads = flag_and_scenario_loads(args, &scenario, interp)?;
    check_known(&loads, &inputs)?;
    if let (Some(url), Some((from, until, _))) = (&args.prometheus, &backtest) {
        let range = backtest::Range {
            start: *from,
            end: *until,
            step: settings.sync_period,
            lead: world.metrics_lag,
            metrics_window: world.metrics_window,
            interpolation: interp,
        };
        loads.extend(prometheus_loads(args, url, &range, &loads, &inputs)?);
    }
    let replay = !source.manifest && loads.is_empty();
    if !source.manifest {
        add_observed_loads(&mut loads, &inputs)?;
    }
    let (duration, duration_origin, ticks) =
        resolve_duration(args, &scenario, &settings, backtest.as_ref())?;
    let (snap, manifest) = (&source.snap, source.manifest);

    let mut plan = Plan {
        settings: settings.clone(),
        world,
        world_shown,
        start,
        start_origin,
        duration,
        duration_origin,
        ticks,
        loads,
        replay,
        memory_note: memory.note.clone(),
        source_note: source_note(args, &source, replay),
    };

    let mut configs = vec![build_config(
        "base",
        &plan,
        base_input,
        manifest,
        args,
        requests.as_ref(),
        snap,
    )?];
    if let Some(ci) = compare_input {
        let src = args
            .compare
            .as_deref()
            .unwrap_or(Path::new(""))
            .display()
            .to_string();
        let mut c = build_config(
            "compare",
            &plan,
            ci,
            manifest,
            args,
            requests.as_ref(),
            snap,
        )?;
        c.source = src;
        configs.push(c);
    }
    configs[0].source = plan.source_note.clone();
    if let (Some(url), Some((from, until, _))) = (&args.prometheus, &backtest) {
        plan.source_note.push_str(&format!(
            "; load recorded by Prometheus {url} from {from} to {until}"
        ));
    }
    run_configs(args, env, out, &plan, &mut configs)
}

/// How the output names the source.
fn source_note(args: &SimulateArgs, source: &Source, replay: bool) -> String {
    if source.manifest {
        return format!(
            "manifest {} with synthetic pods",
            args.hpa.as_deref().unwrap_or(Path::new("")).display()
        );
    }
    format!(
        "{}{}",
        match &args.snapshot {
            Some(p) => format!("snapshot {}", p.display()),
            None => format!(
                "live cluster, HPA {}/{} as fetched now",
                source.namespace, source.name
            ),
        },
        if replay {
            " (tick 0 replays the snapshot's own pods and samples, as explain does)"
        } else {
            ""
        }
    )
}

/// Run the syncs of every configuration, streaming the output.
fn run_configs(
    args: &SimulateArgs,
    env: &Environment,
    out: &mut dyn Write,
    plan: &Plan,
    configs: &mut [Config],
) -> Result<()> {
    let color = env.color() && args.output == SimOutput::Text;
    let mut sink = Sink::new(args, plan, configs, color);
    sink.begin(out, plan, configs)?;
    for _ in 0..plan.ticks {
        for c in configs.iter_mut() {
            let r = c.sim.step();
            c.summary.add(r);
            c.chart.add(r);
            if let Some(t) = &mut c.track {
                t.add(r);
            }
        }
        match &*configs {
            [a] => sink.row(out, &[a.sim.record()], configs)?,
            [a, b] => sink.row(out, &[a.sim.record(), b.sim.record()], configs)?,
            _ => unreachable!("one or two configurations"),
        }
    }
    let summaries: Vec<Summary> = configs.iter().map(|c| c.summary.finish()).collect();
    if let Some(path) = &args.chart {
        std::fs::write(path, svg_chart(plan, configs, &summaries))
            .with_context(|| format!("--chart: cannot write {}", path.display()))?;
    }
    if args.output == SimOutput::Svg {
        out.write_all(svg_chart(plan, configs, &summaries).as_bytes())?;
        return Ok(());
    }
    sink.end(out, plan, configs, &summaries)?;
    Ok(())
}

/// Where the HPA comes from.
struct Source {
    snap: Snapshot,
    namespace: String,
    name: String,
    /// A manifest with a synthetic target (`--hpa`), not a snapshot or a live HPA.
    manifest: bool,
}

/// The source: a snapshot, a manifest with a synthetic target, or a live HPA.
fn resolve_source(args: &SimulateArgs) -> Result<Source> {
    let (snap, namespace, name, manifest) = match (&args.snapshot, &args.hpa) {
        (Some(path), None) => {
            let snap = Snapshot::from_file(path).map_err(|e| anyhow!(e))?;
            let (ns, name) = pick_hpa(
                &snap,
                args.name.as_deref(),
                args.kube.namespace.as_deref(),
                path,
            )?;
            (snap, ns, name, false)
        }
        (None, Some(path)) => {
            let mut snap = Snapshot::from_file(path).map_err(|e| anyhow!(e))?;
            let (ns, name) = pick_hpa(
                &snap,
                args.name.as_deref(),
                args.kube.namespace.as_deref(),
                path,
            )?;
            add_synthetic_target(&mut snap, &ns, &name, args.replicas)?;
            (snap, ns, name, true)
        }
        (None, None) => {
            // Live: the same objects `kubectl hpa snapshot NAME` would write, then the snapshot path.
            let Some(name) = args.name.clone() else {
                bail!("name the HPA to simulate (kubectl hpa simulate NAME -n NAMESPACE), or give --snapshot FILE or --hpa FILE");
            };
            if args.kube.all_namespaces {
                bail!("simulate takes one HPA: use -n NAMESPACE, not -A");
            }
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()?;
            let (list, ns) = rt.block_on(async {
                let conn = crate::cluster::connect(&args.kube).await?;
                let ns = conn.namespace.clone();
                let fetched = crate::cluster::fetch_hpa(&conn, &ns, &name).await?;
                anyhow::Ok((fetched.list, ns))
            })?;
            let snap = Snapshot::from_owned(list, &format!("cluster (HPA {ns}/{name})"))
                .map_err(|e| anyhow!(e))?;
            (snap, ns, name, false)
        }
        (Some(_), Some(_)) => bail!("--snapshot and --hpa cannot be used together"),
    };
    if args.replicas.is_some() && !manifest {
        bail!("--replicas applies to --hpa; with --snapshot the starting replicas come from the snapshot");
    }
    Ok(Source {
        snap,
        namespace,
        name,
        manifest,
    })
}

/// The release: the flag, else the server's /version (live) or the one the snapshot recorded,
/// else the newest release; `--feature-gates` checked against it.
fn settings_for_source(
    args: &SimulateArgs,
    source: &Source,
    settings: Settings,
) -> Result<Settings> {
    let live = args.snapshot.is_none() && args.hpa.is_none();
    let evidence = source
        .snap
        .server_version
        .as_deref()
        .filter(|_| !source.manifest)
        .map(|v| match live {
            true => crate::core::Evidence::Server(v),
            false => crate::core::Evidence::Snapshot(v),
        });
    settings
        .for_evidence(evidence)
        .map_err(|e| anyhow::Error::new(crate::cli::UsageError(format!("--feature-gates: {e}"))))
}

/// The start time and how it was chosen.
fn resolve_start(
    args: &SimulateArgs,
    scenario: &Scenario,
    source: &Source,
    backtest: Option<&(Timestamp, Timestamp, String)>,
) -> Result<(Timestamp, String)> {
    let (snap, manifest) = (&source.snap, source.manifest);
    let flag_now = args
        .now
        .as_deref()
        .map(|t| {
            t.parse::<Timestamp>()
                .map_err(|e| anyhow!("--now: invalid RFC3339 time {t:?}: {e}"))
        })
        .transpose()?;
    let (start, start_origin) = if let Some((from, _, origin)) = backtest {
        (*from, origin.clone())
    } else if let Some(t) = flag_now {
        (t, "--now".to_string())
    } else if let Some(t) = scenario.start {
        (t, "the scenario's start".to_string())
    } else if let Some(t) = snap.taken_at.filter(|_| !manifest) {
        (t, "when the snapshot was taken".to_string())
    } else if let Some(t) = snap.newest_metric_time().filter(|_| !manifest) {
        (t, "the snapshot's newest metric sample".to_string())
    } else {
        (
            DEFAULT_START.parse().expect("valid constant"),
            "default".to_string(),
        )
    };

    Ok((start, start_origin))
}

/// The core inputs of the base and compare configurations, with the controller's memory at
/// the start.
fn resolve_inputs(
    args: &SimulateArgs,
    source: &Source,
    settings: &Settings,
    start: Timestamp,
) -> Result<(Input, Option<Input>, memory::StartingMemory)> {
    let (snap, namespace, name, manifest) = (
        &source.snap,
        &source.namespace,
        &source.name,
        source.manifest,
    );
    let file_history = match &args.history {
        HistoryChoice::File(p) => Some(read_history(p).map_err(anyhow::Error::msg)?),
        _ => None,
    };
    let mut base_input = snap
        .input_for(namespace, name, settings.clone(), History::default(), start)
        .map_err(|e| anyhow!(e))?;
    let memory = match (&args.history, file_history) {
        (HistoryChoice::File(p), Some(h)) => memory::from_file(h, p),
        (HistoryChoice::None, _) => memory::empty(),
        _ if manifest => memory::running_at_start(
            start,
            base_input
                .scale
                .as_ref()
                .map(|s| s.spec_replicas)
                .unwrap_or(0),
        ),
        // The memory explain infers from the same source (status and SuccessfulRescale Events).
        _ => {
            let rescales =
                crate::events::rescales(snap.events_for(namespace, name), namespace, name);
            let inferred = crate::core::with_memory::infer_memory(&mut base_input, &rescales);
            memory::from_source(inferred.likely, &snap.source)
        }
    };
    base_input.history = memory.history.clone();
    let history = &memory.history;

    // The compare configuration: the other manifest's spec on the same target.
    let compare_input = match &args.compare {
        Some(path) => Some(compare_input(
            snap, namespace, name, path, settings, history, start,
        )?),
        None => None,
    };

    Ok((base_input, compare_input, memory))
}

/// Loads from the scenario, overridden by the flags for the same metric; files read.
fn flag_and_scenario_loads(
    args: &SimulateArgs,
    scenario: &Scenario,
    interp: Interpolation,
) -> Result<Vec<Load>> {
    let mut decls: Vec<LoadDecl> = scenario.loads.clone();
    for (flag, kind, values) in [
        ("--demand", LoadKind::Demand, &args.demand),
        ("--per-pod", LoadKind::PerPod, &args.per_pod),
        ("--value", LoadKind::Value, &args.value),
    ] {
        for v in values {
            let (metric, spec) = v
                .split_once('=')
                .filter(|(m, s)| !m.trim().is_empty() && !s.trim().is_empty())
                .ok_or_else(|| {
                    anyhow!("{flag} {v:?}: expected METRIC=LOAD, e.g. {flag} cpu=ramp:1:6:5m:20m")
                })?;
            let source = match series::parse_spec(spec.trim())
                .map_err(|e| anyhow!("{flag} {metric}={e}"))?
            {
                SpecSource::Shape(s) => LoadSource::Signal(Signal::Shape(s)),
                SpecSource::Csv(p) => LoadSource::Csv(p, interp),
                SpecSource::Prometheus(p) => LoadSource::Prometheus(p, interp),
            };
            decls.retain(|d| d.metric != metric.trim());
            decls.push(LoadDecl {
                metric: metric.trim().to_string(),
                kind,
                source,
                origin: flag.to_string(),
            });
        }
    }
    let mut loads = Vec::with_capacity(decls.len());
    for d in decls {
        if loads.iter().any(|l: &Load| l.metric == d.metric) {
            bail!(
                "{}: a second load for metric {:?}; give one load per metric",
                d.origin,
                d.metric
            );
        }
        let signal = match d.source {
            LoadSource::Signal(s) => s,
            LoadSource::Csv(p, i) => {
                let text = std::fs::read_to_string(&p)
                    .with_context(|| format!("{}: cannot read {}", d.origin, p.display()))?;
                Signal::Series(parse_csv(&text, &p.display().to_string(), i)?)
            }
            LoadSource::Prometheus(p, i) => {
                let text = std::fs::read_to_string(&p)
                    .with_context(|| format!("{}: cannot read {}", d.origin, p.display()))?;
                Signal::Series(parse_prometheus(&text, &p.display().to_string(), i)?)
            }
        };
        loads.push(Load {
            metric: d.metric,
            kind: d.kind,
            signal,
            origin: d.origin,
        });
    }
    Ok(loads)
}

/// Every load must drive a metric of one of the configurations.
fn check_known(loads: &[Load], inputs: &[&Input]) -> Result<()> {
    let mut known: Vec<&str> = Vec::new();
    // The compare configuration usually has the same metrics: name each once.
    for m in inputs
        .iter()
        .flat_map(|i| i.hpa.metrics.iter().filter_map(metric_load_name))
    {
        if !known.contains(&m) {
            known.push(m);
        }
    }
    for l in loads {
        if !known.contains(&l.metric.as_str()) {
            bail!(
                "{}: unknown metric {:?}: the HPA's metrics are {}",
                l.origin,
                l.metric,
                if known.is_empty() {
                    "none".to_string()
                } else {
                    known.join(", ")
                }
            );
        }
    }
    Ok(())
}

/// A backtest's loads: the metrics without a load from the flags or the scenario, read from
/// Prometheus.
fn prometheus_loads(
    args: &SimulateArgs,
    url: &str,
    range: &backtest::Range,
    given: &[Load],
    inputs: &[&Input],
) -> Result<Vec<Load>> {
    let endpoint = Endpoint::parse(url)?;
    let queries = backtest::parse_queries(&args.query)?;
    let given: Vec<&str> = given.iter().map(|l| l.metric.as_str()).collect();
    let planned = backtest::plan(inputs, &queries, &given, range)?;
    Ok(backtest::fetch(&endpoint, &planned, range)?)
}

/// A snapshot's current load, held constant, for the metrics that have no other load.
fn add_observed_loads(loads: &mut Vec<Load>, inputs: &[&Input]) -> Result<()> {
    for input in inputs {
        for i in 0..input.hpa.metrics.len() {
            let Some(name) = metric_load_name(&input.hpa.metrics[i]) else {
                continue;
            };
            if loads.iter().any(|l| l.metric == name) {
                continue;
            }
            let observed = observed_load(input, i).ok_or_else(|| {
                anyhow!(
                    "no load for metric {name:?} and the snapshot holds no samples for it: give one with --demand/--per-pod/--value {name}=... or in the scenario"
                )
            })?;
            loads.push(observed);
        }
    }
    Ok(())
}

/// The run's length, where it came from, and its number of syncs.
fn resolve_duration(
    args: &SimulateArgs,
    scenario: &Scenario,
    settings: &Settings,
    backtest: Option<&(Timestamp, Timestamp, String)>,
) -> Result<(SignedDuration, &'static str, u64)> {
    let (duration, duration_origin) = match backtest {
        Some((from, until, _)) => (until.duration_since(*from), "--since"),
        None => pick(
            args.duration
                .as_deref()
                .map(|d| flag_duration("duration", d))
                .transpose()?,
            scenario.duration,
            SignedDuration::from_hours(1),
        ),
    };
    if duration.is_zero() {
        bail!("--duration: must be greater than zero");
    }
    let sync = settings.sync_period;
    let ticks = (duration.as_nanos() as u128).div_ceil(sync.as_nanos().max(1) as u128) as u64;
    if ticks > MAX_TICKS {
        bail!(
            "--duration {} at a {} sync period is {ticks} syncs; the limit is {MAX_TICKS}",
            go(duration),
            go(sync)
        );
    }

    Ok((duration, duration_origin, ticks))
}

/// The SVG chart of the run: the load, then one panel per configuration.
fn svg_chart(plan: &Plan, configs: &[Config], summaries: &[Summary]) -> String {
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

/// A backtest's range: `(start, end, how the start was chosen)`, or `None` without
/// `--prometheus`.
fn backtest_range(args: &SimulateArgs) -> Result<Option<(Timestamp, Timestamp, String)>> {
    if args.prometheus.is_none() {
        return Ok(None);
    }
    if args.now.is_some() || args.duration.is_some() {
        bail!("--now and --duration do not apply to a backtest: it replays --since (default 24h) up to --until (default now)");
    }
    let until = match &args.until {
        Some(t) => t
            .parse::<Timestamp>()
            .map_err(|e| anyhow!("--until: invalid RFC3339 time {t:?}: {e}"))?,
        None => Timestamp::now(),
    };
    let since = flag_duration("since", args.since.as_deref().unwrap_or("24h"))?;
    if since.is_zero() {
        bail!("--since: must be greater than zero");
    }
    let from = until
        .checked_sub(since)
        .map_err(|_| anyhow!("--since {}: reaches before the year -9999", go(since)))?;
    Ok(Some((
        from,
        until,
        format!(
            "--until {} minus --since {}",
            if args.until.is_some() { "" } else { "(now)" },
            go(since)
        )
        .replace("--until  minus", "--until minus"),
    )))
}

/// The world's parameters: flag, then scenario, then default; and how to show them.
fn resolve_world(
    args: &SimulateArgs,
    scenario: &Scenario,
) -> Result<(WorldParams, Vec<(&'static str, Shown)>)> {
    let w = &scenario.world;
    let fd =
        |flag: &str, v: &Option<String>| v.as_deref().map(|s| flag_duration(flag, s)).transpose();
    let defaults = WorldParams::default();
    let (pod_startup, o1) = pick(
        fd("pod-startup", &args.pod_startup)?,
        w.pod_startup,
        defaults.pod_startup,
    );
    let startup_cpu_flag = args
        .startup_cpu
        .as_deref()
        .map(|q| {
            parse_milli(q)
                .map_err(|e| anyhow!("--startup-cpu: {e}"))
                .and_then(|m| {
                    if m < 0 {
                        Err(anyhow!("--startup-cpu: must not be negative"))
                    } else {
                        Ok(m)
                    }
                })
        })
        .transpose()?;
    let (startup_cpu_milli, o2) = pick(startup_cpu_flag, w.startup_cpu_milli, 0);
    let (startup_burst, o3) = pick(
        fd("startup-burst", &args.startup_burst)?,
        w.startup_burst,
        pod_startup,
    );
    let o3 = if o3 == "default" {
        "default: the pod start-up"
    } else {
        o3
    };
    let (metrics_lag, o4) = pick(
        fd("metrics-lag", &args.metrics_lag)?,
        w.metrics_lag,
        defaults.metrics_lag,
    );
    let (metrics_window, o5) = pick(
        fd("metrics-window", &args.metrics_window)?,
        w.metrics_window,
        defaults.metrics_window,
    );
    let world = WorldParams {
        pod_startup,
        startup_cpu_milli,
        startup_burst,
        metrics_lag,
        metrics_window,
    };
    let world_shown = vec![
        ("pod start-up", Shown::new(go(pod_startup), o1)),
        (
            "start-up CPU burst",
            Shown::new(crate::quantity::format_decimal_si(startup_cpu_milli), o2),
        ),
        ("burst length", Shown::new(go(startup_burst), o3)),
        ("metrics lag", Shown::new(go(metrics_lag), o4)),
        ("metrics window", Shown::new(go(metrics_window), o5)),
    ];
    Ok((world, world_shown))
}

/// Choose the HPA of a file: NAME (and -n), or the only one.
fn pick_hpa(
    snap: &Snapshot,
    name: Option<&str>,
    ns: Option<&str>,
    path: &Path,
) -> Result<(String, String)> {
    let all = snap.hpa_names(ns);
    let found: Vec<(String, String)> = all
        .iter()
        .filter_map(|f| f.split_once('/'))
        .filter(|(_, n)| name.is_none_or(|want| want == *n))
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect();
    match found.as_slice() {
        [one] => Ok(one.clone()),
        [] if name.is_some() => {
            let ns = ns.unwrap_or("default");
            let name = name.unwrap_or_default();
            // Let the snapshot reader produce its usual message.
            snap.input_for(
                ns,
                name,
                Settings::default(),
                History::default(),
                Timestamp::UNIX_EPOCH,
            )
            .map(|_| (ns.to_string(), name.to_string()))
            .map_err(|e| anyhow!(e))
        }
        [] => bail!(
            "{}: holds no autoscaling/v2 HorizontalPodAutoscaler",
            path.display()
        ),
        many => bail!(
            "{}: holds several HPAs ({}); name one: kubectl hpa simulate NAME -n NAMESPACE ...",
            path.display(),
            many.iter()
                .map(|(a, b)| format!("{a}/{b}"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// Give a manifest's HPA a target: a scale with `replicas` (default minReplicas) and a selector.
fn add_synthetic_target(
    snap: &mut Snapshot,
    ns: &str,
    name: &str,
    replicas: Option<i32>,
) -> Result<()> {
    let hpa = snap
        .hpas
        .iter()
        .find(|h| h.metadata.name.as_deref() == Some(name))
        .ok_or_else(|| anyhow!("no HorizontalPodAutoscaler {name}"))?;
    let r = &hpa.spec.scale_target_ref;
    let min = hpa.spec.min_replicas.unwrap_or(1);
    let replicas = replicas.unwrap_or(min.max(1));
    if replicas < 0 {
        bail!("--replicas: must be >= 0, got {replicas}");
    }
    let workload = Workload {
        kind: r.kind.clone(),
        namespace: ns.to_string(),
        name: r.name.clone(),
        scale: crate::simulate::engine::synthetic_scale(
            replicas,
            &format!("app={}", sanitize(&r.name)),
        ),
        uid: None,
    };
    snap.workloads.push(workload);
    Ok(())
}

fn sanitize(s: &str) -> String {
    let v: String = s
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '.' || c == '_' {
                c
            } else {
                '-'
            }
        })
        .collect();
    if v.is_empty() {
        "sim".into()
    } else {
        v
    }
}

/// The compare manifest's spec in place of the base HPA, on the same snapshot and target.
fn compare_input(
    snap: &Snapshot,
    ns: &str,
    name: &str,
    path: &Path,
    settings: &Settings,
    history: &History,
    start: Timestamp,
) -> Result<Input> {
    let other = Snapshot::from_file(path).map_err(|e| anyhow!(e))?;
    let mut hpa: HorizontalPodAutoscaler = match other.hpas.as_slice() {
        [one] => one.clone(),
        [] => bail!(
            "--compare {}: holds no autoscaling/v2 HorizontalPodAutoscaler",
            path.display()
        ),
        _ => bail!(
            "--compare {}: holds several HPAs; give a file with one",
            path.display()
        ),
    };
    let mut snap = snap.clone();
    let idx = snap
        .hpas
        .iter()
        .position(|h| {
            h.metadata.name.as_deref() == Some(name)
                && h.metadata.namespace.as_deref().unwrap_or("default") == ns
        })
        .ok_or_else(|| anyhow!("no HorizontalPodAutoscaler {ns}/{name}"))?;
    let base = &snap.hpas[idx];
    hpa.metadata.name = base.metadata.name.clone();
    hpa.metadata.namespace = base.metadata.namespace.clone();
    hpa.spec.scale_target_ref = base.spec.scale_target_ref.clone();
    hpa.status = base.status.clone();
    snap.hpas[idx] = hpa;
    snap.source = format!("--compare {}", path.display());
    snap.input_for(ns, name, settings.clone(), history.clone(), start)
        .map_err(|e| anyhow!(e))
}

/// `cpu=500m,memory=256Mi` → milli-units.
fn parse_requests(s: &str) -> Result<BTreeMap<String, i64>> {
    let mut out = BTreeMap::new();
    for item in s.split(',').map(str::trim).filter(|i| !i.is_empty()) {
        let (k, v) = item.split_once('=').ok_or_else(|| {
            anyhow!("--requests {item:?}: expected RESOURCE=QUANTITY, e.g. cpu=500m")
        })?;
        let m = parse_milli(v.trim()).map_err(|e| anyhow!("--requests {}: {e}", k.trim()))?;
        if m < 0 {
            bail!("--requests {}: must not be negative", k.trim());
        }
        out.insert(k.trim().to_string(), m);
    }
    if out.is_empty() {
        bail!("--requests: expected RESOURCE=QUANTITY pairs, e.g. cpu=500m,memory=256Mi");
    }
    Ok(out)
}

/// The pods a configuration starts with, the template of new pods, and the world.
fn build_config(
    label: &'static str,
    plan: &Plan,
    mut input: Input,
    manifest: bool,
    args: &SimulateArgs,
    requests: Option<&BTreeMap<String, i64>>,
    snap: &Snapshot,
) -> Result<Config> {
    let prefix = format!("{}-sim", sanitize(&input.hpa.target_name));
    let synthetic_containers = |requests: &BTreeMap<String, i64>| -> Vec<ContainerRequests> {
        let mut names: Vec<String> = input
            .hpa
            .metrics
            .iter()
            .filter_map(|m| match m {
                MetricSpec::ContainerResource { container, .. } => Some(container.clone()),
                _ => None,
            })
            .collect();
        names.dedup();
        if names.is_empty() {
            names.push("app".into());
        }
        names
            .into_iter()
            .map(|name| ContainerRequests {
                name,
                requests: requests.clone(),
                restartable_init: false,
            })
            .collect()
    };
    let blank = |containers: Vec<ContainerRequests>| PodInfo {
        name: String::new(),
        phase: "Running".into(),
        deleting: false,
        start_time: None,
        ready: None,
        containers,
        init_containers: vec![],
        pod_requests: None,
        overhead: BTreeMap::new(),
        owner: None,
    };
    let (world, pods) = if manifest {
        let reqs = requests.cloned().unwrap_or_default();
        for (i, m) in input.hpa.metrics.iter().enumerate() {
            if let MetricSpec::Resource { resource, target }
            | MetricSpec::ContainerResource {
                resource, target, ..
            } = m
            {
                if target.average_value.is_none() && !reqs.contains_key(resource) {
                    bail!(
                        "spec.metrics[{i}] targets {resource} utilization, which needs a request: give --requests {resource}=QUANTITY (e.g. {})",
                        if resource == "cpu" { "500m" } else { "256Mi" }
                    );
                }
            }
        }
        let template = blank(synthetic_containers(&reqs));
        let mut world = World::new(plan.world.clone(), &[], template, &prefix, plan.start);
        let n = input.scale.as_ref().map(|s| s.spec_replicas).unwrap_or(0);
        let pods = world.initial_pods(n, plan.start);
        (world, pods)
    } else {
        // The snapshot's live pods carry on; new pods copy the first Running one.
        let mut pods: Vec<PodInfo> = input
            .pods
            .iter()
            .filter(|p| !p.deleting && p.phase != "Failed" && p.phase != "Succeeded")
            .cloned()
            .collect();
        if let Some(r) = requests {
            let cs = synthetic_containers(r);
            for p in &mut pods {
                p.containers = cs.clone();
                p.init_containers.clear();
                p.pod_requests = None;
            }
            input.pods = pods.clone();
        }
        let template = match pods.iter().find(|p| p.phase == "Running").or(pods.first()) {
            Some(p) => {
                let mut t = p.clone();
                t.owner = p.owner.clone();
                t
            }
            None => match requests {
                Some(r) => blank(synthetic_containers(r)),
                None => bail!(
                    "{}: the target of {}/{} has no pods to copy for new ones: give --requests cpu=500m,... for the simulated pods",
                    snap.source,
                    input.hpa.namespace,
                    input.hpa.name
                ),
            },
        };
        let world = World::new(plan.world.clone(), &pods, template, &prefix, plan.start);
        (world, pods)
    };
    let metric_names = short_metric_names(&input.hpa.metrics);
    let sim = Simulation::new(input, world, pods, plan.loads.clone(), plan.replay)
        .map_err(anyhow::Error::msg)?;
    Ok(Config {
        label,
        source: String::new(),
        summary: SummaryBuilder::new(
            plan.settings.sync_period.as_secs_f64(),
            FLAPPING_WINDOW.as_secs_f64(),
        ),
        chart: ChartBuilder::new(
            plan.ticks,
            args.width.clamp(10, 1000),
            plan.settings.sync_period.as_secs_f64(),
        ),
        track: (args.chart.is_some() || args.output == SimOutput::Svg)
            .then(|| svg::Track::new(plan.ticks)),
        sim,
        metric_names,
    })
}

/// Column names for the metrics (`cpu`, `memory`, `http_requests`), made unique.
fn short_metric_names(metrics: &[MetricSpec]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for m in metrics {
        let base = match m {
            MetricSpec::ContainerResource {
                resource,
                container,
                ..
            } => format!("{container}/{resource}"),
            other => metric_load_name(other)
                .unwrap_or(other.type_name())
                .to_string(),
        };
        let mut name = base.clone();
        let mut k = 2;
        while out.contains(&name) {
            name = format!("{base}#{k}");
            k += 1;
        }
        out.push(name);
    }
    out
}

fn describe_target(m: &MetricSpec) -> String {
    let t = match m {
        MetricSpec::Resource { target, .. }
        | MetricSpec::ContainerResource { target, .. }
        | MetricSpec::Pods { target, .. }
        | MetricSpec::Object { target, .. }
        | MetricSpec::External { target, .. } => target,
        MetricSpec::Unknown { type_name } => return format!("unknown type {type_name}"),
    };
    let q = crate::quantity::format_decimal_si;
    let what = if let Some(av) = t.average_value {
        format!("averageValue {}", q(av))
    } else if let Some(u) = t.average_utilization {
        format!("averageUtilization {u}%")
    } else if let Some(v) = t.value {
        format!("value {}", q(v))
    } else {
        "no target".into()
    };
    format!("{} {what}", m.type_name())
}

fn describe_rules(r: &Rules, default_window: SignedDuration) -> String {
    let window = r
        .stabilization_window_seconds
        .map(|s| go(SignedDuration::from_secs(s as i64)))
        .unwrap_or_else(|| format!("{} (--downscale-stabilization)", go(default_window)));
    let policies: Vec<String> = r
        .policies
        .iter()
        .map(|p| match p.kind {
            crate::core::PolicyKind::Pods => format!("{} pods/{}s", p.value, p.period_seconds),
            crate::core::PolicyKind::Percent => format!("{}%/{}s", p.value, p.period_seconds),
        })
        .collect();
    format!(
        "window {window}, {:?} of [{}]",
        r.select_policy,
        policies.join(", ")
    )
}

fn describe_behavior(b: Option<&Behavior>, s: &Settings) -> Vec<String> {
    match b {
        None => vec![format!(
            "none: the no-behavior path (scale-up limit max(2×current, 4) per sync, downscale stabilization {})",
            go(s.downscale_stabilization)
        )],
        Some(b) => vec![
            format!("scaleUp   {}", describe_rules(&b.scale_up, s.downscale_stabilization)),
            format!("scaleDown {}", describe_rules(&b.scale_down, s.downscale_stabilization)),
        ],
    }
}

fn controller_shown(s: &Settings) -> String {
    let d = Settings::for_version(s.kubernetes_version);
    let mark = |same: bool| if same { " (default)" } else { "" };
    format!(
        "sync period {}{}, tolerance {}{}, cpu-initialization-period {}{}, initial-readiness-delay {}{}, downscale-stabilization {}{}, Kubernetes {} ({})",
        go(s.sync_period),
        mark(s.sync_period == d.sync_period),
        s.tolerance,
        mark(s.tolerance == d.tolerance),
        go(s.cpu_initialization_period),
        mark(s.cpu_initialization_period == d.cpu_initialization_period),
        go(s.initial_readiness_delay),
        mark(s.initial_readiness_delay == d.initial_readiness_delay),
        go(s.downscale_stabilization),
        mark(s.downscale_stabilization == d.downscale_stabilization),
        s.kubernetes_version,
        s.kubernetes_version_source,
    )
}

fn load_unit(l: &Load) -> &'static str {
    match l.metric.as_str() {
        "cpu" => " cores",
        "memory" => " bytes",
        _ => "",
    }
}

/// The assumptions of the world model, for the output.
const WORLD_NOTES: &[&str] = &[
    "a new pod is Running at once and Ready after the pod start-up; it has metric samples once it has run for one metrics window",
    "a sample taken at a sync describes the load one metrics lag earlier, shared equally by the pods that were Ready then (pods removed since included); pods that are not Ready serve nothing",
    "a scale-down removes not-Ready pods first, then the newest; removed pods disappear at once",
    "pod usage is not capped by limits; 'saturated' means above 100% of the request",
];

// ---------------------------------------------------------------------------------------------
// Output

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

/// Writes the run in the chosen format.
struct Sink {
    format: SimOutput,
    timeline: TimelineMode,
    color: bool,
    rows_written: u64,
    total_ticks: u64,
    /// CSV: the union of metric column names, and each config's index map into it.
    csv_columns: Vec<String>,
    csv_maps: Vec<Vec<usize>>,
    /// Text: the last printed state, to show changes only.
    last_printed: Vec<Option<Printed>>,
    /// Text: the width of each load column and of each configuration's metric columns (wide
    /// enough for their headers, which are never cut).
    load_widths: Vec<usize>,
    metric_widths: Vec<Vec<usize>>,
}

/// The width of the RULE column: padded when a second configuration follows it, so that the
/// columns of both stay aligned (`MetricsMatchCurrent` is the longest rule).
fn rule_width(configs: usize) -> usize {
    if configs > 1 {
        19
    } else {
        0
    }
}

/// The header of a configuration's metric column in the text timeline.
fn metric_header(configs: &[Config], c: &Config, name: &str) -> String {
    if configs.len() > 1 {
        format!("{}:{name}", c.label)
    } else {
        name.to_string()
    }
}

/// What the text timeline compares to decide whether a sync is worth a row:
/// (replicas, ready pods, proposal, rule).
type Printed = (i32, usize, Option<i32>, String);

impl Sink {
    fn new(args: &SimulateArgs, plan: &Plan, configs: &[Config], color: bool) -> Sink {
        let mut csv_columns: Vec<String> = Vec::new();
        let mut csv_maps = Vec::new();
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
            csv_maps.push(map);
        }
        Sink {
            format: args.output,
            timeline: args.timeline,
            color,
            rows_written: 0,
            total_ticks: plan.ticks,
            csv_columns,
            csv_maps,
            last_printed: vec![None; configs.len()],
            load_widths: plan
                .loads
                .iter()
                .map(|l| (l.metric.chars().count() + 5).max(10))
                .collect(),
            metric_widths: configs
                .iter()
                .map(|c| {
                    c.metric_names
                        .iter()
                        .map(|n| metric_header(configs, c, n).chars().count().max(14))
                        .collect()
                })
                .collect(),
        }
    }

    fn begin(&mut self, out: &mut dyn Write, plan: &Plan, configs: &[Config]) -> Result<()> {
        match self.format {
            SimOutput::Svg => Ok(()),
            SimOutput::Text => self.text_header(out, plan, configs),
            SimOutput::Json => self.json_header(out, plan, configs),
            SimOutput::Csv => {
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
        }
    }

    fn text_header(&mut self, out: &mut dyn Write, plan: &Plan, configs: &[Config]) -> Result<()> {
        let mut s = String::new();
        let input = configs[0].sim.input();
        let h = &input.hpa;
        let bold = |t: &str| {
            if self.color {
                t.bold().to_string()
            } else {
                t.to_string()
            }
        };
        let _ = writeln!(
            s,
            "{}",
            bold(&format!(
                "Simulation of HorizontalPodAutoscaler {}/{} → {} {}",
                h.namespace, h.name, h.target_kind, h.target_name
            ))
        );
        let _ = writeln!(s, "  source      {}", plan.source_note);
        let _ = writeln!(s, "  memory      {}", plan.memory_note);
        let _ = writeln!(s, "  start       {} ({})", plan.start, plan.start_origin);
        let _ = writeln!(
            s,
            "  duration    {} ({}) = {} syncs every {}",
            go(plan.duration),
            plan.duration_origin,
            plan.ticks,
            go(plan.settings.sync_period)
        );
        for c in configs {
            let h = &c.sim.input().hpa;
            let tag = if configs.len() > 1 {
                format!("[{}] ", c.label)
            } else {
                String::new()
            };
            if configs.len() > 1 {
                let _ = writeln!(s, "  {tag}{}", c.source);
            }
            let _ = writeln!(
                s,
                "  {tag}replicas    {} at start; minReplicas {}, maxReplicas {}",
                c.sim.replicas(),
                h.min_replicas,
                h.max_replicas
            );
            for (m, n) in h.metrics.iter().zip(&c.metric_names) {
                let _ = writeln!(s, "  {tag}metric      {n}: {}", describe_target(m));
            }
            for (i, line) in describe_behavior(h.behavior.as_ref(), &plan.settings)
                .iter()
                .enumerate()
            {
                let _ = writeln!(
                    s,
                    "  {tag}{} {line}",
                    if i == 0 { "behavior   " } else { "           " }
                );
            }
        }
        for l in &plan.loads {
            let _ = writeln!(
                s,
                "  load        {}: {} {}{} (from {})",
                l.metric,
                l.kind.as_str(),
                l.signal,
                load_unit(l),
                l.origin
            );
        }
        let world: Vec<String> = plan
            .world_shown
            .iter()
            .map(|(k, v)| format!("{k} {v}"))
            .collect();
        let _ = writeln!(s, "  world       {}", world.join(", "));
        let _ = writeln!(s, "  controller  {}", controller_shown(&plan.settings));
        for n in WORLD_NOTES {
            let _ = writeln!(s, "  assumption  {n}");
        }
        if self.timeline != TimelineMode::None {
            let _ = writeln!(
                s,
                "\n{}",
                bold(if self.timeline == TimelineMode::All {
                    "Timeline"
                } else {
                    "Timeline (syncs where something changed; --timeline all shows every sync)"
                })
            );
            let mut head = format!("{:>9}", "TIME");
            for (l, w) in plan.loads.iter().zip(&self.load_widths) {
                let _ = write!(head, " {:>w$}", format!("LOAD {}", l.metric));
            }
            for (c, widths) in configs.iter().zip(&self.metric_widths) {
                for (n, w) in c.metric_names.iter().zip(widths) {
                    let _ = write!(head, " {:>w$}", metric_header(configs, c, n));
                }
                let _ = write!(
                    head,
                    " {:>5} {:>5} {:>8} {:>5} {:>6} {:<rw$}",
                    "PROP",
                    "REC",
                    "REPLICAS",
                    "READY",
                    "NEEDED",
                    "RULE",
                    rw = rule_width(configs.len())
                );
                if configs.len() > 1 {
                    head.push_str(" |");
                }
            }
            let _ = writeln!(s, "{}", head.trim_end_matches(" |").trim_end());
        }
        out.write_all(s.as_bytes())?;
        Ok(())
    }

    fn json_header(&mut self, out: &mut dyn Write, plan: &Plan, configs: &[Config]) -> Result<()> {
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

    fn row(&mut self, out: &mut dyn Write, recs: &[&TickRecord], configs: &[Config]) -> Result<()> {
        match self.format {
            SimOutput::Svg => Ok(()),
            SimOutput::Text => self.text_row(out, recs, configs),
            SimOutput::Json => {
                for (r, c) in recs.iter().zip(configs) {
                    if self.rows_written > 0 {
                        out.write_all(b",\n")?;
                    }
                    self.rows_written += 1;
                    let loads = c
                        .sim
                        .loads()
                        .iter()
                        .map(|l| l.metric.as_str())
                        .zip(r.loads.iter().copied())
                        .collect();
                    let row = JsonRow {
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
                        rule: &r.rule,
                        action: r.action,
                    };
                    serde_json::to_writer(&mut *out, &row)?;
                }
                Ok(())
            }
            SimOutput::Csv => {
                let mut line = String::with_capacity(256);
                for (ci, (r, c)) in recs.iter().zip(configs).enumerate() {
                    line.clear();
                    let _ = write!(
                        line,
                        "{},{},{},{}",
                        c.label,
                        r.tick,
                        r.time.map(|t| t.to_string()).unwrap_or_default(),
                        num(r.offset_seconds)
                    );
                    for v in &r.loads {
                        let _ = write!(line, ",{}", num(*v));
                    }
                    let mut cells = vec![(String::new(), String::new()); self.csv_columns.len()];
                    for (m, &idx) in r.metrics.iter().zip(&self.csv_maps[ci]) {
                        cells[idx] = (opt(m.value.map(num)), opt(m.proposal));
                    }
                    for (v, p) in cells {
                        let _ = write!(line, ",{v},{p}");
                    }
                    let _ = writeln!(
                        line,
                        ",{},{},{},{},{},{},{},{},{}",
                        opt(r.proposal),
                        opt(r.recommendation),
                        r.replicas_before,
                        r.replicas,
                        r.ready,
                        opt(r.needed),
                        r.over_target,
                        r.saturated,
                        csv_field(&r.rule)
                    );
                    out.write_all(line.as_bytes())?;
                }
                Ok(())
            }
        }
    }

    fn text_row(
        &mut self,
        out: &mut dyn Write,
        recs: &[&TickRecord],
        configs: &[Config],
    ) -> Result<()> {
        if self.timeline == TimelineMode::None {
            return Ok(());
        }
        let last_tick = recs.first().is_some_and(|r| r.tick + 1 == self.total_ticks);
        let mut changed = self.timeline == TimelineMode::All || last_tick;
        for (i, r) in recs.iter().enumerate() {
            let state = (r.replicas, r.ready, r.proposal, r.rule.clone());
            if r.replicas != r.replicas_before || self.last_printed[i].as_ref() != Some(&state) {
                changed = true;
            }
        }
        if !changed {
            return Ok(());
        }
        for (i, r) in recs.iter().enumerate() {
            self.last_printed[i] = Some((r.replicas, r.ready, r.proposal, r.rule.clone()));
        }
        let first = &recs[0];
        let mut line = format!("{:>9}", format!("+{}", series::secs(first.offset_seconds)));
        for (v, w) in first.loads.iter().zip(&self.load_widths) {
            let _ = write!(line, " {:>w$}", num(*v));
        }
        for (r, widths) in recs.iter().zip(&self.metric_widths) {
            for (m, w) in r.metrics.iter().zip(widths) {
                let v = match (m.value, m.failed) {
                    (_, true) => "failed".to_string(),
                    (Some(v), _) => format!("{}{}", num(v), m.unit),
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
            let _ = write!(
                line,
                " {:>5} {:>5} {} {:>5} {:>6} {:<rw$}",
                opt(r.proposal),
                opt(r.recommendation),
                replicas,
                r.ready,
                opt(r.needed),
                r.rule,
                rw = rule_width(configs.len())
            );
            if configs.len() > 1 {
                line.push_str(" |");
            }
        }
        writeln!(out, "{}", line.trim_end_matches(" |").trim_end())?;
        Ok(())
    }

    fn end(
        &mut self,
        out: &mut dyn Write,
        plan: &Plan,
        configs: &[Config],
        summaries: &[Summary],
    ) -> Result<()> {
        match self.format {
            SimOutput::Csv | SimOutput::Svg => Ok(()),
            SimOutput::Json => {
                use crate::output::contract::{write_simulation_tail, NamedSummary};
                let named: Vec<NamedSummary> = configs
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
            SimOutput::Text => {
                let mut s = String::new();
                let bold = |t: &str| {
                    if self.color {
                        t.bold().to_string()
                    } else {
                        t.to_string()
                    }
                };
                let _ = writeln!(s, "\n{}", bold("Chart (maximum per column)"));
                let cols = configs[0].chart.columns().len();
                let loads: Vec<f64> = configs[0]
                    .chart
                    .columns()
                    .iter()
                    .map(|c| c.load_max)
                    .collect();
                let max_replicas = configs
                    .iter()
                    .flat_map(|c| {
                        c.chart
                            .columns()
                            .iter()
                            .map(|x| x.replicas_max.max(x.needed_max.unwrap_or(0)))
                    })
                    .max()
                    .unwrap_or(1)
                    .max(1) as f64;
                let max_load = loads.iter().cloned().fold(0.0, f64::max);
                let w = num(max_replicas).len().max(num(max_load).len());
                for (c, hue) in configs.iter().zip([Hue::Green, Hue::Magenta]) {
                    let vals: Vec<f64> = c
                        .chart
                        .columns()
                        .iter()
                        .map(|x| x.replicas_max as f64)
                        .collect();
                    let title = if configs.len() > 1 {
                        format!("replicas [{}]", c.label)
                    } else {
                        "replicas".to_string()
                    };
                    chart::panel(&mut s, &title, &vals, max_replicas, 8, w, hue, self.color);
                }
                if let Some(l) = plan.loads.first() {
                    chart::panel(
                        &mut s,
                        &format!("load {} ({}{})", l.metric, l.kind.as_str(), load_unit(l)),
                        &loads,
                        max_load,
                        5,
                        w,
                        Hue::Blue,
                        self.color,
                    );
                }
                chart::axis(
                    &mut s,
                    cols,
                    plan.ticks as f64 * plan.settings.sync_period.as_secs_f64(),
                    w,
                );

                let _ = writeln!(s, "\n{}", bold("Summary"));
                let mut t = Table::new();
                t.load_style(presets::UTF8_FULL_CONDENSED);
                let mut header = vec![String::new()];
                header.extend(configs.iter().map(|c| c.label.to_string()));
                if configs.len() == 2 {
                    header.push("difference".into());
                }
                t.set_header(header);
                for (label, unit, f) in summary_rows() {
                    let mut row = vec![label.to_string()];
                    row.extend(summaries.iter().map(|x| f(x).0));
                    if summaries.len() == 2 {
                        let (a, b) = (f(&summaries[0]).1, f(&summaries[1]).1);
                        row.push(match (a, b) {
                            (Some(a), Some(b)) => format_difference(b - a, unit),
                            _ => String::new(),
                        });
                    }
                    t.add_row(row);
                }
                let _ = writeln!(s, "{t}");
                out.write_all(s.as_bytes())?;
                Ok(())
            }
        }
    }
}

fn num_round(v: f64) -> f64 {
    (v * 100.0).round() / 100.0
}

/// The unit of a summary row's difference column.
#[derive(Clone, Copy)]
enum Unit {
    Pods,
    Events,
    Seconds,
    PodHours,
}

/// `compare − base` with its unit: `+2 pods`, `-3m45s`, `+1.5 pod-h`, `=`.
fn format_difference(d: f64, unit: Unit) -> String {
    if d.abs() < 1e-9 {
        return "=".into();
    }
    let sign = if d > 0.0 { "+" } else { "-" };
    let a = d.abs();
    match unit {
        Unit::Pods => format!("{sign}{} pods", num(num_round(a))),
        Unit::Events => format!("{sign}{}", num(num_round(a))),
        Unit::Seconds => format!("{sign}{}", series::secs(a.round())),
        Unit::PodHours => format!("{sign}{} pod-h", num(num_round(a))),
    }
}

type Row = (&'static str, Unit, fn(&Summary) -> (String, Option<f64>));

fn summary_rows() -> Vec<Row> {
    fn dur(s: f64) -> String {
        series::secs(s.round())
    }
    fn pct(part: f64, whole: f64) -> String {
        if whole > 0.0 {
            format!("{:.1}%", part * 100.0 / whole)
        } else {
            "-".into()
        }
    }
    vec![
        ("start replicas", Unit::Pods, |s| {
            (s.start_replicas.to_string(), Some(s.start_replicas as f64))
        }),
        ("peak replicas", Unit::Pods, |s| {
            (
                format!("{} at +{}", s.peak_replicas, dur(s.peak_at_seconds)),
                Some(s.peak_replicas as f64),
            )
        }),
        ("final replicas", Unit::Pods, |s| {
            (s.final_replicas.to_string(), Some(s.final_replicas as f64))
        }),
        ("scale events (up/down)", Unit::Events, |s| {
            (
                format!("{} ({}/{})", s.scale_events, s.scale_ups, s.scale_downs),
                Some(s.scale_events as f64),
            )
        }),
        ("direction changes", Unit::Events, |s| {
            (
                s.direction_reversals.to_string(),
                Some(s.direction_reversals as f64),
            )
        }),
        ("flapping (changes within 5m)", Unit::Events, |s| {
            (s.flapping.to_string(), Some(s.flapping as f64))
        }),
        ("time to reach needed replicas", Unit::Seconds, |s| {
            let text = match s.mean_shortfall_seconds {
                Some(m) => format!(
                    "longest {}, mean {} over {} episode(s){}",
                    dur(s.longest_shortfall_seconds),
                    dur(m),
                    s.shortfalls,
                    if s.shortfall_at_end {
                        "; still short at the end"
                    } else {
                        ""
                    }
                ),
                None => "never short".into(),
            };
            (text, Some(s.longest_shortfall_seconds))
        }),
        (
            "worst under-provisioned interval",
            Unit::Seconds,
            |s| match s.worst_shortfall {
                Some(w) => (
                    format!(
                        "+{} for {}, up to {} pod(s) short",
                        dur(w.start_seconds),
                        dur(w.duration_seconds),
                        w.max_pods_short
                    ),
                    Some(w.duration_seconds),
                ),
                None => ("never short".into(), Some(0.0)),
            },
        ),
        ("time over target (beyond tolerance)", Unit::Seconds, |s| {
            (
                format!(
                    "{} ({})",
                    dur(s.over_target_seconds),
                    pct(s.over_target_seconds, s.duration_seconds)
                ),
                Some(s.over_target_seconds),
            )
        }),
        ("time saturated (>100% of request)", Unit::Seconds, |s| {
            (
                format!(
                    "{} ({})",
                    dur(s.saturated_seconds),
                    pct(s.saturated_seconds, s.duration_seconds)
                ),
                Some(s.saturated_seconds),
            )
        }),
        ("cost (pod-hours)", Unit::PodHours, |s| {
            (
                format!(
                    "{} (mean {} pods)",
                    num(num_round(s.pod_hours)),
                    num(num_round(s.mean_pods))
                ),
                Some(num_round(s.pod_hours)),
            )
        }),
    ]
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

fn opt<T: ToString>(v: Option<T>) -> String {
    v.map(|x| x.to_string()).unwrap_or_else(|| "-".into())
}

fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}
