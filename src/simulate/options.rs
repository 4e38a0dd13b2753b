//! The flags of `simulate` and its scenario file, resolved once into [`SimulateOptions`].
//!
//! This is the one place of `simulate` that reads the environment (the clock, colours) and the
//! small files the flags name: the scenario, CSV and Prometheus load exports, the history file
//! and the `--compare` manifest. Everything after it works on plain values.

use std::path::{Path, PathBuf};

use jiff::{SignedDuration, Timestamp};

use super::error::{Result, SimulateError};
use super::memory::HistoryChoice;
use super::scenario::{LoadDecl, LoadSource, Scenario};
use super::series::{self, go, parse_csv, parse_prometheus, Interpolation, Signal, SpecSource};
use super::world::{Load, LoadKind, WorldParams};
use crate::cli::simulate::{HistoryFlag, SimOutput, SimulateArgs, TimelineMode};
use crate::cli::{read_history, resolve_settings, Environment};
use crate::core::{History, Resources, Settings};
use crate::duration::parse_go_duration;
use crate::quantity::parse_milli;
use crate::snapshot::Snapshot;

/// A value and where it came from, for the settings block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shown {
    pub text: String,
    pub origin: &'static str,
}

impl Shown {
    /// A value shown with its origin (`flag`, `scenario`, `default`).
    pub fn new(text: impl Into<String>, origin: &'static str) -> Shown {
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

/// Where the HPA comes from, as the flags name it (loaded by the command).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SourceChoice {
    /// `--snapshot FILE`.
    Snapshot(PathBuf),
    /// `--hpa FILE`: a manifest with synthetic pods.
    Manifest(PathBuf),
    /// A live HPA: NAME (checked when the source is loaded) with -n.
    Live,
}

/// A backtest against Prometheus: `--prometheus URL --since D [--until T] [--query ...]`.
#[derive(Debug, Clone, PartialEq)]
pub struct Backtest {
    /// `--prometheus URL` or `--prometheus-service`.
    pub target: crate::cli::history::PromTarget,
    /// The start of the replay (`--until` minus `--since`).
    pub from: Timestamp,
    /// The end of the replay (`--until`, else now).
    pub until: Timestamp,
    /// How the start was chosen, for the output.
    pub origin: String,
    /// The `--query METRIC=PROMQL` flags, unparsed.
    pub queries: Vec<String>,
}

/// The run's length when it is not a backtest: flag, scenario or default, with its origin.
pub type RunLength = (SignedDuration, &'static str);

/// Everything `simulate` needs from its flags, the environment and the small files.
#[derive(Debug, Clone)]
pub struct SimulateOptions {
    /// The controller settings of the flags (before the source's release evidence).
    pub settings: Settings,
    pub source: SourceChoice,
    /// NAME and -n.
    pub name: Option<String>,
    pub namespace: Option<String>,
    /// `--replicas` (with `--hpa`).
    pub replicas: Option<i32>,
    /// `--requests`, in milli-units.
    pub requests: Option<Resources>,
    pub backtest: Option<Backtest>,
    /// `--now`.
    pub now: Option<Timestamp>,
    /// The scenario's `start`.
    pub scenario_start: Option<Timestamp>,
    /// The length of a run that is not a backtest.
    pub duration: RunLength,
    pub world: WorldParams,
    pub world_shown: Vec<(&'static str, Shown)>,
    pub interpolation: Interpolation,
    /// The loads of the flags and the scenario, files read.
    pub loads: Vec<Load>,
    pub history: HistoryChoice,
    /// The history file of `--history FILE`, read.
    pub file_history: Option<History>,
    /// `--compare FILE` and its manifest, read.
    pub compare: Option<(PathBuf, Snapshot)>,
    pub output: SimOutput,
    pub timeline: TimelineMode,
    /// The chart's width in columns (clamped to 10..=1000).
    pub width: usize,
    /// `COLUMNS`, else the terminal's width: the text fits it (none: not known).
    pub columns: Option<usize>,
    /// `--chart FILE.svg`.
    pub chart: Option<PathBuf>,
    /// Colours in the text output.
    pub color: bool,
}

impl SimulateOptions {
    /// Whether the run draws an SVG chart (`--chart` or `-o svg`).
    pub fn svg(&self) -> bool {
        self.chart.is_some() || self.output == SimOutput::Svg
    }
}

/// Resolve the flags, the scenario and the files they name.
pub fn resolve(args: &SimulateArgs, env: &Environment) -> Result<SimulateOptions> {
    let settings = resolve_settings(&args.controller)?;
    let scenario = match &args.scenario {
        Some(p) => read_scenario(p)?,
        None => Scenario::default(),
    };
    let requests = args.requests.as_deref().map(parse_requests).transpose()?;
    let source = match (&args.snapshot, &args.hpa) {
        (Some(_), Some(_)) => {
            return Err(SimulateError::Flag(
                "--snapshot and --hpa cannot be used together".into(),
            ))
        }
        (Some(p), None) => SourceChoice::Snapshot(p.clone()),
        (None, Some(p)) => SourceChoice::Manifest(p.clone()),
        (None, None) => SourceChoice::Live,
    };
    let backtest = backtest(args)?;
    let now = args.now.as_deref().map(parse_now).transpose()?;
    let (world, world_shown) = resolve_world(args, &scenario)?;
    let interpolation = args
        .interpolation
        .map(|i| match i {
            crate::cli::simulate::Interpolation::Step => Interpolation::Step,
            crate::cli::simulate::Interpolation::Linear => Interpolation::Linear,
        })
        .or(scenario.interpolation)
        .unwrap_or_default();
    let loads = flag_and_scenario_loads(args, &scenario, interpolation)?;
    let duration = pick(
        args.duration
            .as_deref()
            .map(|d| flag_duration("duration", d))
            .transpose()?,
        scenario.duration,
        SignedDuration::from_hours(1),
    );
    let duration = match (duration.1, recorded_range(&loads)) {
        ("default", Some(range)) => (range, "default: the recorded load's range"),
        _ => duration,
    };
    let history = match &args.history {
        HistoryFlag::Auto => HistoryChoice::Auto,
        HistoryFlag::None => HistoryChoice::None,
        HistoryFlag::File(p) => HistoryChoice::File(p.clone()),
    };
    let file_history = match &args.history {
        HistoryFlag::File(p) => {
            Some(read_history(p).map_err(|e| SimulateError::Source(e.to_string()))?)
        }
        _ => None,
    };
    let compare = match &args.compare {
        Some(p) => Some((p.clone(), Snapshot::from_file(p)?)),
        None => None,
    };
    Ok(SimulateOptions {
        settings,
        source,
        name: args.name.clone(),
        namespace: args.kube.namespace.clone(),
        replicas: args.replicas,
        requests,
        backtest,
        now,
        scenario_start: scenario.start,
        duration,
        world,
        world_shown,
        interpolation,
        loads,
        history,
        file_history,
        compare,
        output: args.output,
        timeline: args.timeline,
        width: args.width.clamp(10, 1000),
        columns: env.columns,
        chart: args.chart.clone(),
        color: env.color() && args.output == SimOutput::Text,
    })
}

/// The longest range of the recorded loads (`csv:`, `prom:`), rounded up to a whole second:
/// a run that replays a recording covers it all unless `--duration` says otherwise.
pub fn recorded_range(loads: &[Load]) -> Option<SignedDuration> {
    loads
        .iter()
        .filter_map(|l| match &l.signal {
            Signal::Series(s) => Some(s.end()),
            Signal::Shape(_) => None,
        })
        .filter(|end| *end >= 1.0)
        .max_by(f64::total_cmp)
        .map(|end| SignedDuration::from_secs(end.ceil() as i64))
}

fn read_scenario(p: &Path) -> Result<Scenario> {
    let text = std::fs::read_to_string(p).map_err(|source| SimulateError::Read {
        what: format!("cannot read scenario {}", p.display()),
        source,
    })?;
    let dir = p.parent().unwrap_or(Path::new("."));
    Scenario::parse(&text, &p.display().to_string(), dir)
}

fn parse_now(t: &str) -> Result<Timestamp> {
    t.parse::<Timestamp>()
        .map_err(|e| SimulateError::Flag(format!("--now: invalid RFC3339 time {t:?}: {e}")))
}

/// A duration flag: a Go duration, not negative (a usage error otherwise).
pub fn flag_duration(flag: &str, v: &str) -> Result<SignedDuration> {
    let n = parse_go_duration(v).map_err(|e| SimulateError::Usage(format!("--{flag}: {e}")))?;
    if n < 0 {
        return Err(SimulateError::Usage(format!(
            "--{flag}: must not be negative, got {v:?}"
        )));
    }
    Ok(SignedDuration::from_nanos(n))
}

/// Pick a setting: flag, then scenario, then default.
pub fn pick<T>(flag: Option<T>, scenario: Option<T>, default: T) -> (T, &'static str) {
    match (flag, scenario) {
        (Some(v), _) => (v, "flag"),
        (None, Some(v)) => (v, "scenario"),
        (None, None) => (default, "default"),
    }
}

/// `cpu=500m,memory=256Mi` → milli-units.
pub fn parse_requests(s: &str) -> Result<Resources> {
    let flag = |m: String| SimulateError::Flag(m);
    let mut out = Resources::new();
    for item in s.split(',').map(str::trim).filter(|i| !i.is_empty()) {
        let (k, v) = item.split_once('=').ok_or_else(|| {
            flag(format!(
                "--requests {item:?}: expected RESOURCE=QUANTITY, e.g. cpu=500m"
            ))
        })?;
        let m = parse_milli(v.trim()).map_err(|e| flag(format!("--requests {}: {e}", k.trim())))?;
        if m < 0 {
            return Err(flag(format!(
                "--requests {}: must not be negative",
                k.trim()
            )));
        }
        out.insert(k.trim(), m);
    }
    if out.is_empty() {
        return Err(flag(
            "--requests: expected RESOURCE=QUANTITY pairs, e.g. cpu=500m,memory=256Mi".into(),
        ));
    }
    Ok(out)
}

/// A backtest's range, or `None` without `--prometheus`.
fn backtest(args: &SimulateArgs) -> Result<Option<Backtest>> {
    let Some(target) = args.prom.target().map_err(|e| SimulateError::Usage(e.0))? else {
        return Ok(None);
    };
    if args.now.is_some() || args.duration.is_some() {
        return Err(SimulateError::Flag("--now and --duration do not apply to a backtest: it replays --since (default 24h) up to --until (default now)".into()));
    }
    let until = match &args.until {
        Some(t) => t.parse::<Timestamp>().map_err(|e| {
            SimulateError::Flag(format!("--until: invalid RFC3339 time {t:?}: {e}"))
        })?,
        None => Timestamp::now(),
    };
    let since = flag_duration("since", args.since.as_deref().unwrap_or("24h"))?;
    if since.is_zero() {
        return Err(SimulateError::Flag(
            "--since: must be greater than zero".into(),
        ));
    }
    let from = until.checked_sub(since).map_err(|_| {
        SimulateError::Flag(format!(
            "--since {}: reaches before the year -9999",
            go(since)
        ))
    })?;
    Ok(Some(Backtest {
        target,
        from,
        until,
        origin: format!(
            "--until {} minus --since {}",
            if args.until.is_some() { "" } else { "(now)" },
            go(since)
        )
        .replace("--until  minus", "--until minus"),
        queries: args.prom.query.clone(),
    }))
}

/// `--startup-cpu`: a quantity, not negative.
fn startup_cpu(q: &str) -> Result<i64> {
    let m = parse_milli(q).map_err(|e| SimulateError::Flag(format!("--startup-cpu: {e}")))?;
    if m < 0 {
        return Err(SimulateError::Flag(
            "--startup-cpu: must not be negative".into(),
        ));
    }
    Ok(m)
}

/// The world's parameters: flag, then scenario, then default; and how to show them.
pub fn resolve_world(
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
    let startup_cpu_flag = args.startup_cpu.as_deref().map(startup_cpu).transpose()?;
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

/// The loads of `--demand`, `--per-pod` and `--value`, parsed (files not read yet).
fn flag_decls(args: &SimulateArgs, interp: Interpolation) -> Result<Vec<LoadDecl>> {
    let mut decls: Vec<LoadDecl> = Vec::new();
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
                    SimulateError::Flag(format!(
                        "{flag} {v:?}: expected METRIC=LOAD, e.g. {flag} cpu=ramp:1:6:5m:20m"
                    ))
                })?;
            let source = match series::parse_spec(spec.trim())
                .map_err(|e| SimulateError::Flag(format!("{flag} {metric}={e}")))?
            {
                SpecSource::Shape(s) => LoadSource::Signal(Signal::Shape(s)),
                SpecSource::Csv(p) => LoadSource::Csv(p, interp),
                SpecSource::Prometheus(p) => LoadSource::Prometheus(p, interp),
            };
            decls.push(LoadDecl {
                metric: metric.trim().to_string(),
                kind,
                source,
                origin: flag.to_string(),
            });
        }
    }
    Ok(decls)
}

/// Loads from the scenario, overridden by the flags for the same metric; files read.
fn flag_and_scenario_loads(
    args: &SimulateArgs,
    scenario: &Scenario,
    interp: Interpolation,
) -> Result<Vec<Load>> {
    let mut decls: Vec<LoadDecl> = scenario.loads.clone();
    for d in flag_decls(args, interp)? {
        decls.retain(|x| x.metric != d.metric);
        decls.push(d);
    }
    let mut loads = Vec::with_capacity(decls.len());
    for d in decls {
        if loads.iter().any(|l: &Load| l.metric == d.metric) {
            return Err(SimulateError::Load(format!(
                "{}: a second load for metric {:?}; give one load per metric",
                d.origin, d.metric
            )));
        }
        let signal = match d.source {
            LoadSource::Signal(s) => s,
            LoadSource::Csv(p, i) => {
                let text = read_load(&d.origin, &p)?;
                Signal::Series(parse_csv(&text, &p.display().to_string(), i)?)
            }
            LoadSource::Prometheus(p, i) => {
                let text = read_load(&d.origin, &p)?;
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

/// A load file named by `--demand` or a scenario: a regular file under the input size cap
/// (`/dev/zero` or a FIFO is refused, never read without end).
fn read_load(origin: &str, p: &Path) -> Result<String> {
    use crate::bounded_read::{read_text, MAX_INPUT_BYTES};
    read_text(p, MAX_INPUT_BYTES).map_err(|source| SimulateError::Read {
        what: format!("{origin}: cannot read {}", p.display()),
        source,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    /// Parse `kubectl-hpa simulate ARGS...` as the binary does.
    fn args(list: &[&str]) -> SimulateArgs {
        let mut all = vec!["kubectl-hpa", "simulate"];
        all.extend(list);
        match crate::cli::Cli::try_parse_from(all)
            .expect("the flags parse")
            .command
        {
            crate::cli::Command::Simulate(a) => a,
            _ => unreachable!("simulate"),
        }
    }

    fn env() -> Environment {
        Environment {
            stdout_is_tty: false,
            no_color: true,
            columns: None,
        }
    }

    fn resolved(list: &[&str]) -> Result<SimulateOptions> {
        resolve(&args(list), &env())
    }

    fn message(list: &[&str]) -> String {
        resolved(list).expect_err("an error").to_string()
    }

    #[test]
    fn duration_flag_scenario_default() {
        let o = resolved(&["--hpa", "h.yaml"]).unwrap();
        assert_eq!(o.duration, (SignedDuration::from_hours(1), "default"));
        assert_eq!(o.source, SourceChoice::Manifest("h.yaml".into()));
        let o = resolved(&["--hpa", "h.yaml", "--duration", "1m30s"]).unwrap();
        assert_eq!(o.duration, (SignedDuration::from_secs(90), "flag"));
        let o = resolved(&[
            "--hpa",
            "h.yaml",
            "--scenario",
            "tests/simulate_data/scenario.yaml",
        ])
        .unwrap();
        assert_eq!(o.duration, (SignedDuration::from_mins(40), "scenario"));
        assert_eq!(
            o.scenario_start,
            Some("2026-03-01T12:00:00Z".parse().unwrap())
        );
        // The flag overrides the scenario's world, the scenario the default.
        let o = resolved(&[
            "--hpa",
            "h.yaml",
            "--scenario",
            "tests/simulate_data/scenario.yaml",
            "--pod-startup",
            "90s",
        ])
        .unwrap();
        assert_eq!(o.world.pod_startup, SignedDuration::from_secs(90));
        assert_eq!(o.world.startup_cpu_milli, 250);
        assert_eq!(o.world_shown[0].1, Shown::new("1m30s", "flag"));
        assert_eq!(o.world_shown[1].1, Shown::new("250m", "scenario"));
        // The burst lasts as long as the start-up unless told otherwise.
        assert_eq!(o.world.startup_burst, SignedDuration::from_secs(90));
        assert_eq!(o.world_shown[2].1.origin, "default: the pod start-up");
    }

    #[test]
    fn bad_durations_are_usage_errors() {
        for (flags, want) in [
            (
                ["--duration", "1d"],
                "--duration: invalid duration \"1d\": unknown unit \"d\"",
            ),
            (
                ["--metrics-lag=-5s", ""],
                "--metrics-lag: must not be negative",
            ),
            (["--pod-startup", "soon"], "--pod-startup: "),
        ] {
            let mut all = vec!["--hpa", "h.yaml"];
            all.extend(flags.into_iter().filter(|f| !f.is_empty()));
            let e = resolved(&all).expect_err("a usage error");
            assert!(matches!(e, SimulateError::Usage(_)), "{e:?}");
            assert!(e.to_string().starts_with(want), "{e}");
        }
        // `--now` is not a usage error (exit code 1, as before).
        let e = resolved(&["--hpa", "h.yaml", "--now", "yesterday"]).unwrap_err();
        assert!(!matches!(e, SimulateError::Usage(_)), "{e:?}");
    }

    #[test]
    fn requests_and_world_values() {
        assert_eq!(
            parse_requests("cpu=500m, memory=1Ki").unwrap(),
            Resources::from([("cpu", 500), ("memory", 1_024_000)])
        );
        assert_eq!(
            parse_requests("cpu").unwrap_err().to_string(),
            "--requests \"cpu\": expected RESOURCE=QUANTITY, e.g. cpu=500m"
        );
        assert_eq!(
            parse_requests(",").unwrap_err().to_string(),
            "--requests: expected RESOURCE=QUANTITY pairs, e.g. cpu=500m,memory=256Mi"
        );
        assert_eq!(
            message(&["--hpa", "h.yaml", "--startup-cpu=-1"]),
            "--startup-cpu: must not be negative"
        );
        let o = resolved(&["--hpa", "h.yaml", "--metrics-lag", "0s"]).unwrap();
        assert_eq!(o.world.metrics_lag, SignedDuration::ZERO);
        assert_eq!(o.world.startup_burst, o.world.pod_startup);
        assert_eq!(o.world_shown[2].1.origin, "default: the pod start-up");
    }

    #[test]
    fn loads_flags_override_the_scenario() {
        let o = resolved(&[
            "--hpa",
            "h.yaml",
            "--scenario",
            "tests/simulate_data/scenario.yaml",
            "--demand",
            "cpu=3",
        ])
        .unwrap();
        assert_eq!(o.loads.len(), 1);
        assert_eq!(o.loads[0].origin, "--demand");
        assert_eq!(o.loads[0].signal.value_at(0.0), 3.0);
        // The last flag for a metric wins.
        let o = resolved(&["--hpa", "h.yaml", "--demand", "cpu=1", "--value", "cpu=2"]).unwrap();
        assert_eq!(o.loads.len(), 1);
        assert_eq!(
            (o.loads[0].kind, o.loads[0].origin.as_str()),
            (LoadKind::Value, "--value")
        );
        assert_eq!(
            message(&["--hpa", "h.yaml", "--demand", "cpu"]),
            "--demand \"cpu\": expected METRIC=LOAD, e.g. --demand cpu=ramp:1:6:5m:20m"
        );
        assert!(message(&["--hpa", "h.yaml", "--demand", "cpu=wave:1"])
            .starts_with("--demand cpu=\"wave:1\": unknown shape"));
        let e = resolved(&["--hpa", "h.yaml", "--demand", "cpu=csv:/nonexistent.csv"]).unwrap_err();
        assert!(matches!(e, SimulateError::Read { .. }), "{e:?}");
        assert_eq!(e.to_string(), "--demand: cannot read /nonexistent.csv");
    }

    #[test]
    fn backtest_range() {
        let o = resolved(&[
            "--hpa",
            "h.yaml",
            "--prometheus",
            "http://127.0.0.1:9090",
            "--since",
            "2h",
            "--until",
            "2026-11-02T00:00:00Z",
        ])
        .unwrap();
        let b = o.backtest.expect("a backtest");
        assert_eq!(b.from, "2026-11-01T22:00:00Z".parse::<Timestamp>().unwrap());
        assert_eq!(b.origin, "--until minus --since 2h0m0s");
        assert_eq!(
            message(&[
                "--hpa",
                "h.yaml",
                "--prometheus",
                "http://x",
                "--since",
                "0s"
            ]),
            "--since: must be greater than zero"
        );
        assert!(message(&[
            "--hpa",
            "h.yaml",
            "--prometheus",
            "http://x",
            "--now",
            "2026-01-01T00:00:00Z"
        ])
        .starts_with("--now and --duration do not apply to a backtest"));
    }
}
