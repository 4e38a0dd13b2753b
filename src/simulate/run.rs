//! The feature: from resolved options and a loaded source, plan the run (start, memory, loads,
//! length), build the configurations and run their syncs, streaming the output.

use std::io::Write;

use jiff::{SignedDuration, Timestamp};

use super::backtest;
use super::chart::ChartBuilder;
use super::engine::Simulation;
use super::error::{Result, SimulateError};
use super::memory::{self, HistoryChoice};
use super::observed_load;
use super::options::{Backtest, SimulateOptions};
use super::output::Sink;
use super::plan::{Config, Plan};
use super::prometheus::Endpoint;
use super::series::go;
use super::source::{compare_input, sanitize, Source};
use super::summary::{Summary, SummaryBuilder};
use super::svg;
use super::world::{metric_load_name, Load, World};
use crate::cli::simulate::SimOutput;
use crate::core::{ContainerRequests, History, Input, MetricSpec, PodInfo, Resources, Settings};
use crate::snapshot::Snapshot;

/// Direction changes within this long of the previous scale event count as flapping.
const FLAPPING_WINDOW: SignedDuration = SignedDuration::from_secs(300);
/// The largest run accepted (ticks).
const MAX_TICKS: u64 = 20_000_000;
/// Start time when neither the snapshot nor the flags give one (deterministic output).
const DEFAULT_START: &str = "2026-01-01T00:00:00Z";

/// Run `simulate` on a loaded source, writing its output to `out` as the run progresses (the
/// timeline is never held in memory). Errors happen before the first byte is written, except
/// write errors.
/// `endpoint`: the Prometheus of a backtest when the command opened it (`--prometheus-service`
/// needs the cluster's connection); else `--prometheus URL` is parsed here.
pub fn execute(
    opts: &SimulateOptions,
    source: &Source,
    endpoint: Option<&Endpoint>,
    out: &mut dyn Write,
) -> Result<()> {
    let settings = source.settings(opts.settings.clone())?;
    let (start, start_origin) = resolve_start(opts, source);
    let (base_input, compare_input, memory) = resolve_inputs(opts, source, &settings, start)?;
    let inputs: Vec<&Input> = std::iter::once(&base_input)
        .chain(compare_input.as_ref())
        .collect();
    let mut loads = opts.loads.clone();
    check_known(&loads, &inputs)?;
    for w in unused_flags(opts, &inputs) {
        // The run goes on: a flag that changes nothing is worth a line, not a failure.
        let _ = writeln!(std::io::stderr(), "warning: {w}");
    }
    if let Some(b) = &opts.backtest {
        loads.extend(prometheus_loads(
            opts,
            (b, endpoint),
            &settings,
            &loads,
            &inputs,
        )?);
    }
    let replay = !source.manifest && loads.is_empty();
    if !source.manifest {
        add_observed_loads(&mut loads, &inputs)?;
    }
    let (duration, duration_origin, ticks) = resolve_duration(opts, &settings)?;
    let mut plan = Plan {
        settings,
        world: opts.world.clone(),
        world_shown: opts.world_shown.clone(),
        start,
        start_origin,
        duration,
        duration_origin,
        ticks,
        loads,
        replay,
        memory_note: memory.note.clone(),
        source_note: source.note(opts, replay),
    };
    let mut configs = vec![build_config("base", &plan, base_input, opts, source)?];
    if let Some(ci) = compare_input {
        let mut c = build_config("compare", &plan, ci, opts, source)?;
        c.source = match &opts.compare {
            Some((p, _)) => p.display().to_string(),
            None => String::new(),
        };
        configs.push(c);
    }
    configs[0].source = plan.source_note.clone();
    if let Some(b) = &opts.backtest {
        plan.source_note.push_str(&format!(
            "; load recorded by Prometheus {} from {} to {}",
            crate::display::url::mask_userinfo(&b.target.to_string()),
            b.from,
            b.until
        ));
    }
    run_configs(opts, out, &plan, &mut configs)
}

/// Run the syncs of every configuration, streaming the output.
fn run_configs(
    opts: &SimulateOptions,
    out: &mut dyn Write,
    plan: &Plan,
    configs: &mut [Config],
) -> Result<()> {
    let mut sink = Sink::new(opts, plan, configs);
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
        // One or two configurations (`--compare`): no allocation per tick for those.
        match &*configs {
            [a] => sink.row(out, &[a.sim.record()], configs)?,
            [a, b] => sink.row(out, &[a.sim.record(), b.sim.record()], configs)?,
            more => {
                let recs: Vec<_> = more.iter().map(|c| c.sim.record()).collect();
                sink.row(out, &recs, configs)?
            }
        }
    }
    let summaries: Vec<Summary> = configs.iter().map(|c| c.summary.finish()).collect();
    if let Some(path) = &opts.chart {
        std::fs::write(path, super::output::svg_chart(plan, configs, &summaries)).map_err(
            |source| SimulateError::Chart {
                path: path.display().to_string(),
                source,
            },
        )?;
    }
    if opts.output == SimOutput::Svg {
        out.write_all(super::output::svg_chart(plan, configs, &summaries).as_bytes())?;
        return Ok(());
    }
    sink.end(out, plan, configs, &summaries)
}

/// The start time and how it was chosen.
fn resolve_start(opts: &SimulateOptions, source: &Source) -> (Timestamp, String) {
    let (snap, manifest) = (&source.snap, source.manifest);
    if let Some(b) = &opts.backtest {
        (b.from, b.origin.clone())
    } else if let Some(t) = opts.now {
        (t, "--now".to_string())
    } else if let Some(t) = opts.scenario_start {
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
    }
}

/// The core inputs of the base and compare configurations, with the controller's memory at
/// the start.
fn resolve_inputs(
    opts: &SimulateOptions,
    source: &Source,
    settings: &Settings,
    start: Timestamp,
) -> Result<(Input, Option<Input>, memory::StartingMemory)> {
    let (snap, namespace, name) = (&source.snap, &source.namespace, &source.name);
    let mut base_input =
        snap.input_for(namespace, name, settings.clone(), History::default(), start)?;
    let memory = match (&opts.history, &opts.file_history) {
        (HistoryChoice::File(p), Some(h)) => memory::from_file(h.clone(), p),
        (HistoryChoice::None, _) => memory::empty(),
        _ if source.manifest => memory::running_at_start(
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
    // The compare configuration: the other manifest's spec on the same target.
    let compare = match &opts.compare {
        Some((path, other)) => Some(compare_input(
            source,
            (path, other),
            settings,
            &memory.history,
            start,
        )?),
        None => None,
    };
    Ok((base_input, compare, memory))
}

/// Flags that change nothing for these HPAs: `--requests` of a resource no metric reads (a
/// Pods-only HPA), `--startup-cpu` when no metric reads cpu.
pub fn unused_flags(opts: &SimulateOptions, inputs: &[&Input]) -> Vec<String> {
    let read = |res: &str| {
        inputs.iter().any(|i| {
            i.hpa.metrics.iter().any(|m| {
                matches!(m, MetricSpec::Resource { resource, .. }
                    | MetricSpec::ContainerResource { resource, .. } if resource.as_str() == res)
            })
        })
    };
    let mut out = Vec::new();
    if let Some(r) = &opts.requests {
        let unused: Vec<String> = r
            .keys()
            .map(|k| k.as_str().to_string())
            .filter(|k| !read(k))
            .collect();
        if !unused.is_empty() {
            out.push(format!(
                "--requests {}: no metric of the HPA reads {}, so the requests change nothing",
                unused.join(","),
                unused.join(" or ")
            ));
        }
    }
    if opts.world.startup_cpu_milli > 0 && !read("cpu") {
        out.push(
            "--startup-cpu: no metric of the HPA reads cpu, so the burst changes nothing".into(),
        );
    }
    out
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
            return Err(SimulateError::Load(format!(
                "{}: unknown metric {:?}: the HPA's metrics are {}",
                l.origin,
                l.metric,
                if known.is_empty() {
                    "none".to_string()
                } else {
                    known.join(", ")
                }
            )));
        }
    }
    Ok(())
}

/// A backtest's loads: the metrics without a load from the flags or the scenario, read from
/// Prometheus.
fn prometheus_loads(
    opts: &SimulateOptions,
    (b, endpoint): (&Backtest, Option<&Endpoint>),
    settings: &Settings,
    given: &[Load],
    inputs: &[&Input],
) -> Result<Vec<Load>> {
    let range = backtest::Range {
        start: b.from,
        end: b.until,
        step: settings.sync_period,
        lead: opts.world.metrics_lag,
        metrics_window: opts.world.metrics_window,
        interpolation: opts.interpolation,
    };
    let endpoint = match (endpoint, &b.target) {
        (Some(e), _) => e.clone(),
        (None, crate::cli::history::PromTarget::Url(url)) => {
            Endpoint::parse(url).map_err(backtest::BacktestError::from)?
        }
        (None, service) => {
            return Err(SimulateError::Usage(format!(
                "{service}: the service proxy needs the cluster's connection"
            )))
        }
    };
    let queries = backtest::parse_queries(&b.queries)?;
    let given: Vec<&str> = given.iter().map(|l| l.metric.as_str()).collect();
    let planned = backtest::plan(inputs, &queries, &given, &range)?;
    Ok(backtest::fetch(&endpoint, &planned, &range)?)
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
                SimulateError::Load(format!(
                    "no load for metric {name:?} and the snapshot holds no samples for it: give one with --demand/--per-pod/--value {name}=... or in the scenario"
                ))
            })?;
            loads.push(observed);
        }
    }
    Ok(())
}

/// The run's length, where it came from, and its number of syncs.
fn resolve_duration(
    opts: &SimulateOptions,
    settings: &Settings,
) -> Result<(SignedDuration, &'static str, u64)> {
    let (duration, duration_origin) = match &opts.backtest {
        Some(b) => (b.until.duration_since(b.from), "--since"),
        None => opts.duration,
    };
    if duration.is_zero() {
        return Err(SimulateError::Run(
            "--duration: must be greater than zero".into(),
        ));
    }
    let sync = settings.sync_period;
    let ticks = (duration.as_nanos() as u128).div_ceil(sync.as_nanos().max(1) as u128) as u64;
    if ticks > MAX_TICKS {
        return Err(SimulateError::Run(format!(
            "--duration {} at a {} sync period is {ticks} syncs; the limit is {MAX_TICKS}",
            go(duration),
            go(sync)
        )));
    }
    Ok((duration, duration_origin, ticks))
}

/// The containers of a synthetic pod: one per ContainerResource metric's container, else `app`.
fn synthetic_containers(input: &Input, requests: &Resources) -> Vec<ContainerRequests> {
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
}

/// A Running pod with these containers and nothing else: the template of synthetic pods.
fn blank(containers: Vec<ContainerRequests>) -> PodInfo {
    PodInfo {
        name: String::new(),
        phase: "Running".into(),
        deleting: false,
        start_time: None,
        ready: None,
        containers,
        init_containers: vec![],
        pod_requests: None,
        overhead: Resources::new(),
        owner: None,
    }
}

/// A manifest's world: synthetic pods with `--requests`, the starting replicas of them.
fn manifest_world(
    plan: &Plan,
    input: &Input,
    requests: Option<&Resources>,
    prefix: &str,
) -> Result<(World, Vec<PodInfo>)> {
    let reqs = requests.cloned().unwrap_or_default();
    for (i, m) in input.hpa.metrics.iter().enumerate() {
        if let MetricSpec::Resource { resource, target }
        | MetricSpec::ContainerResource {
            resource, target, ..
        } = m
        {
            if target.average_value.is_none() && !reqs.contains_key(resource) {
                return Err(SimulateError::Source(format!(
                    "spec.metrics[{i}] targets {resource} utilization, which needs a request: give --requests {resource}=QUANTITY (e.g. {})",
                    if resource == "cpu" { "500m" } else { "256Mi" }
                )));
            }
        }
    }
    let template = blank(synthetic_containers(input, &reqs));
    let mut world = World::new(plan.world.clone(), &[], template, prefix, plan.start);
    let n = input.scale.as_ref().map(|s| s.spec_replicas).unwrap_or(0);
    let pods = world.initial_pods(n, plan.start);
    Ok((world, pods))
}

/// A snapshot's world: its live pods carry on (with `--requests` in place of theirs); new pods
/// copy the first Running one.
fn snapshot_world(
    plan: &Plan,
    input: &mut Input,
    requests: Option<&Resources>,
    prefix: &str,
    snap: &Snapshot,
) -> Result<(World, Vec<PodInfo>)> {
    let mut pods: Vec<PodInfo> = input
        .pods
        .iter()
        .filter(|p| !p.deleting && p.phase != "Failed" && p.phase != "Succeeded")
        .cloned()
        .collect();
    if let Some(r) = requests {
        let cs = synthetic_containers(input, r);
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
            Some(r) => blank(synthetic_containers(input, r)),
            None => return Err(SimulateError::Source(format!(
                "{}: the target of {}/{} has no pods to copy for new ones: give --requests cpu=500m,... for the simulated pods",
                snap.source,
                input.hpa.namespace,
                input.hpa.name
            ))),
        },
    };
    let world = World::new(plan.world.clone(), &pods, template, prefix, plan.start);
    Ok((world, pods))
}

/// The pods a configuration starts with, the template of new pods, and the world.
fn build_config(
    label: &'static str,
    plan: &Plan,
    mut input: Input,
    opts: &SimulateOptions,
    source: &Source,
) -> Result<Config> {
    let prefix = format!("{}-sim", sanitize(&input.hpa.target_name));
    let requests = opts.requests.as_ref();
    let (world, pods) = if source.manifest {
        manifest_world(plan, &input, requests, &prefix)?
    } else {
        snapshot_world(plan, &mut input, requests, &prefix, &source.snap)?
    };
    let metric_names = short_metric_names(&input.hpa.metrics);
    let sim = Simulation::new(input, world, pods, plan.loads.clone(), plan.replay)
        .map_err(SimulateError::Run)?;
    let sync = plan.settings.sync_period.as_secs_f64();
    let max_replicas = sim.input().hpa.max_replicas;
    Ok(Config {
        label,
        source: String::new(),
        summary: SummaryBuilder::new(sync, FLAPPING_WINDOW.as_secs_f64())
            .with_max_replicas(max_replicas),
        chart: ChartBuilder::new(plan.ticks, opts.width),
        track: opts.svg().then(|| svg::Track::new(plan.ticks)),
        sim,
        metric_names,
    })
}

/// Column names for the metrics (`cpu`, `memory`, `http_requests`), made unique.
pub fn short_metric_names(metrics: &[MetricSpec]) -> Vec<String> {
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
