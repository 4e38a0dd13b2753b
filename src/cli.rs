//! Command-line flags (clap) and their resolution into plain option structs.
//!
//! Flags are parsed here and the environment (`NO_COLOR`, TTY) is read here, once; the commands
//! receive plain structs and never look at `std::env` themselves.

pub mod completion;
mod explain;
pub mod history;
mod kube;
pub mod migrate;
pub mod simulate;
pub mod snapshot;
pub mod version;

pub use explain::{DecideOptions, ExplainOptions, ReadOptions, ViewOptions, WatchOptions};

use std::io::IsTerminal;
use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};
use jiff::{SignedDuration, Timestamp};

pub use kube::KubeFlags;

use crate::core::settings::{resolve_release, FeatureGates, Given, Requested};
use crate::core::{History, HistoryMode, Settings};

/// Exit code when a decision was computed (hold and "cannot scale" are answers too).
pub const EXIT_OK: i32 = 0;
/// Exit code for unusable input or a failed API call.
pub const EXIT_ERROR: i32 = 1;
/// Exit code for bad command-line usage (clap uses 2 as well).
pub const EXIT_USAGE: i32 = 2;
/// Exit code when a decision could not be computed because a request of ours failed
/// (verdict `Unknown`, decided by `FetchFailed`): the output is printed all the same.
pub const EXIT_OWN_FAILURE: i32 = 3;

const EXPLAIN_AFTER: &str = "\
Examples:
  # Why did (or didn't) the HPA web scale? Offline, from a snapshot file
  kubectl hpa explain web -n shop --snapshot examples/scale-up-cpu.yaml

  # The same as JSON (a documented contract), or one field of it for a script
  kubectl hpa explain web -n shop --snapshot examples/scale-up-cpu.yaml -o json
  kubectl hpa explain hpa/web -n shop -o jsonpath='{.desiredReplicas}'

  # Fleet overview: every HPA of a namespace (or of all with -A), one line each
  kubectl hpa explain -n shop
  kubectl hpa explain -A -o json
  kubectl hpa explain -A -l team=checkout --sort-by=.desiredReplicas

  # Follow one HPA (or the fleet, without NAME): print the changes
  kubectl hpa explain web -n shop --watch
  kubectl hpa explain -A -w

  # Replay with the controller's memory and another Kubernetes release
  kubectl hpa explain frontend -n shop \\
      --snapshot examples/scale-down-stabilized.yaml \\
      --history examples/scale-down-stabilized.history.yaml \\
      --kubernetes-version 1.32

Exit codes: 0 a decision was computed (scale, hold or cannot-scale),
1 unusable input or API error, 2 bad usage, 3 printed, but a verdict is UNKNOWN
(a request of ours failed).";

const ROOT_AFTER: &str = "\
Examples:
  # Why did (or didn't) the HPA web in namespace shop scale?
  kubectl hpa explain web -n shop

  # The same, offline: save what it reads, then explain from the file
  kubectl hpa snapshot web -n shop > snapshot.yaml
  kubectl hpa explain web -n shop --snapshot snapshot.yaml

  # Shell completion (bash, zsh, fish, powershell; `kubectl hpa <TAB>` too)
  kubectl hpa completion --help

  # The version, and the controller releases it reproduces
  kubectl hpa version

Use \"kubectl hpa <command> --help\" for more information about a command.";

const SNAPSHOT_AFTER: &str = "\
Examples:
  # One HPA, then its replay offline
  kubectl hpa snapshot web -n shop > snapshot.yaml
  kubectl hpa explain web --snapshot snapshot.yaml

  # Every HPA of every namespace, without what a bug report must not leak
  kubectl hpa snapshot -A --redact > fleet.yaml

  # Redact a snapshot taken earlier
  kubectl hpa snapshot --redact --snapshot snapshot.yaml > redacted.yaml";

/// kubectl hpa: explain, simulate and migrate HorizontalPodAutoscalers with the controller's own algorithm.
#[derive(Debug, Parser)]
#[command(
    name = "kubectl-hpa",
    bin_name = "kubectl hpa",
    version,
    about = "Explain why a HorizontalPodAutoscaler did or did not scale, by recomputing the controller's decision",
    override_usage = "kubectl hpa COMMAND [NAME] [flags]",
    after_help = ROOT_AFTER,
    args_override_self = true
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands. Parsed once per run, so the size difference between variants is irrelevant.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Recompute the HPA controller's decision and explain it step by step
    #[command(
        override_usage = "kubectl hpa explain [NAME...] [-n NAMESPACE] [--snapshot FILE] [flags]\n       \
                          kubectl hpa explain [-l SELECTOR] [-n NAMESPACE | -A] [-w] [flags]",
        after_help = EXPLAIN_AFTER,
        mut_arg("all_namespaces", |a| a.help("Explain the HPAs of every namespace (the fleet overview)"))
    )]
    Explain(ExplainArgs),
    /// Write everything explain reads, from the cluster, as v1 Lists (YAML) to stdout: one HPA,
    /// or every HPA of the namespace (or of all with -A)
    #[command(
        override_usage = "kubectl hpa snapshot [NAME] [-n NAMESPACE | -A] [flags] > snapshot.yaml\n       kubectl hpa snapshot --redact --snapshot FILE... > redacted.yaml",
        after_help = SNAPSHOT_AFTER,
        mut_arg("all_namespaces", |a| a.help("Every HPA of every namespace (one List per namespace)")),
        mut_arg("namespace", |a| a.help("The namespace of the HPA(s)"))
    )]
    Snapshot(snapshot::SnapshotArgs),
    /// Every recorded scale change of an HPA, with the metric that decided it (from its Events)
    #[command(
        override_usage = "kubectl hpa history NAME [-n NAMESPACE] [--since 6h] [--snapshot FILE]",
        after_help = history::HISTORY_AFTER,
        mut_arg("all_namespaces", |a| a.hide(true)),
        mut_arg("namespace", |a| a.help("The namespace of the HPA"))
    )]
    History(history::HistoryArgs),
    /// Run the controller's algorithm over time against hypothetical or recorded load
    #[command(
        override_usage = "kubectl hpa simulate [NAME] [flags]",
        mut_arg("all_namespaces", |a| a.hide(true)),
        mut_arg("namespace", |a| a.help("The namespace of the HPA (live simulation)"))
    )]
    Simulate(simulate::SimulateArgs),
    /// Hand spec.replicas of autoscaled workloads to their HPA without a dip (dry run by default)
    #[command(
        override_usage = "kubectl hpa migrate [NAME | -A] [-f FILE|DIR...] [flags]\n       kubectl hpa migrate NAME -n NAMESPACE [-f FILE] --apply [--write]",
        mut_arg("all_namespaces", |a| a.help("Migrate the autoscaled workloads of every namespace"))
    )]
    Migrate(migrate::MigrateArgs),
    /// Print a shell completion script (bash, zsh, fish)
    #[command(
        override_usage = "kubectl hpa completion SHELL",
        after_help = completion::COMPLETION_AFTER_HELP
    )]
    Completion(completion::CompletionArgs),
    /// Print the version of kubectl-hpa and the controller releases it reproduces
    #[command(override_usage = "kubectl hpa version [-o json|yaml]")]
    Version(version::VersionArgs),
    /// Complete a command line (used by kubectl_complete-hpa)
    #[command(name = "__complete", hide = true)]
    Complete(completion::CompleteArgs),
}

impl Command {
    /// Several contexts (`--context` twice, `--all-contexts`) are read by `explain` only.
    pub fn refuse_several_contexts(&self) -> Result<(), UsageError> {
        match self {
            Command::Snapshot(a) => a.kube.refuse_several_contexts("snapshot"),
            Command::History(a) => a.kube.refuse_several_contexts("history"),
            Command::Simulate(a) => a.kube.refuse_several_contexts("simulate"),
            Command::Migrate(a) => a.kube.refuse_several_contexts("migrate"),
            _ => Ok(()),
        }
    }
}

/// The output format: the output layer's one enum.
pub use crate::output::Format as OutputFormat;

/// The controller's settings as flags.
#[derive(Debug, Clone, Args)]
pub struct ControllerFlags {
    /// Controller tolerance, 0 to below 1 (kube-controller-manager --horizontal-pod-autoscaler-tolerance; default: the cluster's when its kube-controller-manager pod is readable, else 0.1)
    #[arg(long, value_parser = tolerance_value, help_heading = "Controller settings")]
    pub tolerance: Option<f64>,
    /// --horizontal-pod-autoscaler-cpu-initialization-period (default: the cluster's, else 5m)
    #[arg(long, help_heading = "Controller settings")]
    pub cpu_initialization_period: Option<String>,
    /// --horizontal-pod-autoscaler-initial-readiness-delay (default: the cluster's, else 30s)
    #[arg(long, help_heading = "Controller settings")]
    pub initial_readiness_delay: Option<String>,
    /// --horizontal-pod-autoscaler-downscale-stabilization (default: the cluster's, else 5m)
    #[arg(long, help_heading = "Controller settings")]
    pub downscale_stabilization: Option<String>,
    /// --horizontal-pod-autoscaler-sync-period (default: the cluster's, else 15s)
    #[arg(long, help_heading = "Controller settings")]
    pub sync_period: Option<String>,
    /// Reproduce this Kubernetes release's controller (1.23 to 1.38; default: the cluster's, else 1.37)
    #[arg(long, help_heading = "Controller settings")]
    pub kubernetes_version: Option<String>,
    /// Controller feature gates that change the algorithm, e.g. HPAScaleToZero=false,HPAConfigurableTolerance=true
    #[arg(long, help_heading = "Controller settings")]
    pub feature_gates: Option<String>,
}

#[derive(Debug, Clone, Args)]
pub struct ExplainArgs {
    /// Name of the HorizontalPodAutoscaler, or hpa/NAME; several are explained one after the
    /// other (omit it for the fleet overview of the namespace, or of all with -A)
    #[arg(value_name = "NAME")]
    pub name: Vec<String>,
    /// Not a flag of explain: kubectl's -f; explain reads files with --snapshot FILE
    #[arg(short = 'f', long = "filename", value_name = "FILE", hide = true)]
    pub filename: Vec<PathBuf>,
    /// Read everything from snapshot files instead of a cluster: v1 Lists or single API objects,
    /// YAML (several documents) or JSON; repeat it for several files; `-` reads standard input
    #[arg(long, value_name = "FILE")]
    pub snapshot: Vec<PathBuf>,
    /// Evaluation time (RFC3339); default: the snapshot's time, else the newest metric sample, else now
    #[arg(long, value_name = "RFC3339")]
    pub now: Option<String>,
    /// The controller's in-memory history: `auto` (default) infers it from the HPA's status and
    /// SuccessfulRescale events; `none` assumes an empty memory; a FILE (YAML/JSON:
    /// recommendations, scaleUpEvents, scaleDownEvents) gives it exactly
    #[arg(long, value_name = "auto|none|FILE", default_value = "auto")]
    pub history: String,
    /// Output format: text, wide, json, yaml, name, jsonpath=TEMPLATE (e.g. '{.desiredReplicas}'),
    /// custom-columns=HEADER:PATH,… or custom-columns-file=FILE (kubectl's syntax, over -o json)
    #[arg(short = 'o', long = "output", value_name = "FORMAT", value_parser = OutputParser, default_value = "text")]
    pub output: OutputSpec,
    /// Which pods the text lists: `some` (the ones that matter and the extremes, when there are
    /// many) or `all` (also with -o wide)
    #[arg(long, value_enum, value_name = "some|all", default_value_t = PodsShown::Some)]
    pub pods: PodsShown,
    /// Fleet overview: leave out the table's header line
    #[arg(long)]
    pub no_headers: bool,
    /// Fleet overview: only the HPAs whose labels match this selector (e.g. -l 'team=shop,tier in (web,api)')
    #[arg(short = 'l', long, value_name = "SELECTOR")]
    pub selector: Option<String>,
    /// Fleet overview: sort the rows by this JSONPath on an item of -o json (e.g. .desiredReplicas, .decidedBy, .metadata.name)
    #[arg(long, value_name = "JSONPATH")]
    pub sort_by: Option<String>,
    /// Fleet overview: only the HPAs that need someone (a warning or worse, at max, cannot
    /// scale, unknown)
    #[arg(long)]
    pub problems: bool,
    /// Live only: re-evaluate every --sync-period, keeping the controller's recommendation
    /// history ourselves, and print only the changes (with NAME: its decisions; without: the
    /// fleet's rows, like kubectl get -w)
    #[arg(short = 'w', long)]
    pub watch: bool,
    /// With --watch: stop after this many evaluations (default: run until interrupted)
    #[arg(long, value_name = "N", hide = true)]
    pub watch_count: Option<u32>,
    #[command(flatten)]
    pub at: history::AtArgs,
    #[command(flatten)]
    pub controller: ControllerFlags,
    #[command(flatten)]
    pub kube: KubeFlags,
}

/// Where the objects come from.
#[derive(Debug, Clone, PartialEq)]
pub enum Source {
    /// The snapshot files, merged (`-`: standard input).
    Snapshot(Vec<PathBuf>),
    Cluster,
}

/// A v1 `List` of these items.
pub fn list(items: Vec<serde_json::Value>) -> serde_json::Value {
    serde_json::json!({"apiVersion": "v1", "kind": "List", "items": items})
}

/// A command-line usage error (exit code 2), as opposed to unusable input or a failed API call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UsageError(pub String);

impl std::fmt::Display for UsageError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for UsageError {}

impl From<String> for UsageError {
    fn from(s: String) -> UsageError {
        UsageError(s)
    }
}

impl From<&str> for UsageError {
    fn from(s: &str) -> UsageError {
        UsageError(s.to_string())
    }
}

/// Why `explain`'s flags cannot be resolved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ResolveError {
    /// Bad usage: exit 2.
    Usage(UsageError),
    /// A file a flag names cannot be read or parsed: exit 1.
    Input(String),
}

impl From<UsageError> for ResolveError {
    fn from(e: UsageError) -> ResolveError {
        ResolveError::Usage(e)
    }
}

impl From<ResolveError> for anyhow::Error {
    fn from(e: ResolveError) -> anyhow::Error {
        match e {
            ResolveError::Usage(u) => anyhow::Error::new(u),
            ResolveError::Input(s) => anyhow::Error::msg(s),
        }
    }
}

/// Which pods the text lists.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Default)]
pub enum PodsShown {
    /// With many pods: the unready, missing and ignored ones and the extremes, and a count of the rest
    #[default]
    Some,
    /// Every pod
    All,
}

/// What `-o name`, `-o jsonpath=…` and `-o custom-columns=…` print, selected from the typed
/// document ([`crate::output::select`]).
pub use crate::output::select::Select;

/// `-o FORMAT`: a format, plus what to select from the JSON for `name` and `jsonpath=`.
#[derive(Debug, Clone, PartialEq)]
pub struct OutputSpec {
    pub format: OutputFormat,
    pub select: Option<Select>,
}

impl OutputSpec {
    /// Parse `text`, `wide`, `json`, `yaml`, `name`, `jsonpath=TEMPLATE` (also `jsonpath='…'`).
    pub fn parse(s: &str) -> Result<OutputSpec, UsageError> {
        let plain = |format| OutputSpec {
            format,
            select: None,
        };
        Ok(match s {
            "text" => plain(OutputFormat::Text),
            "wide" => plain(OutputFormat::Wide),
            "json" => plain(OutputFormat::Json),
            "yaml" => plain(OutputFormat::Yaml),
            "name" => OutputSpec {
                format: OutputFormat::Json,
                select: Some(Select::Name),
            },
            _ if s.starts_with("custom-columns") => OutputSpec {
                format: OutputFormat::Json,
                select: Some(Select::CustomColumns(custom_columns(s)?)),
            },
            _ => {
                let Some(t) = s.strip_prefix("jsonpath=") else {
                    return Err(UsageError(format!(
                        "unknown output format {s:?} (text, wide, json, yaml, name, jsonpath=TEMPLATE, custom-columns=SPEC, custom-columns-file=FILE)"
                    )));
                };
                let t = t
                    .strip_prefix('\'')
                    .and_then(|x| x.strip_suffix('\''))
                    .unwrap_or(t);
                let template = crate::output::jsonpath::Template::parse(t)
                    .map_err(|e| UsageError(e.to_string()))?;
                OutputSpec {
                    format: OutputFormat::Json,
                    select: Some(Select::JsonPath(template)),
                }
            }
        })
    }
}

/// `custom-columns=SPEC` or `custom-columns-file=FILE` (read here: a usage error names it).
fn custom_columns(s: &str) -> Result<crate::output::custom_columns::Columns, UsageError> {
    use crate::output::custom_columns::Columns;
    let usage = |e: crate::output::custom_columns::ColumnsError| UsageError(e.0);
    if let Some(file) = s.strip_prefix("custom-columns-file=") {
        let text = std::fs::read_to_string(file)
            .map_err(|e| UsageError(format!("custom-columns-file={file}: cannot read it: {e}")))?;
        return Columns::parse_file(&text, file).map_err(usage);
    }
    match s.strip_prefix("custom-columns=") {
        Some(spec) => Columns::parse(spec).map_err(usage),
        None => Err(UsageError(format!(
            "unknown output format {s:?}: use custom-columns=HEADER:PATH,… or custom-columns-file=FILE"
        ))),
    }
}

/// The clap parser of `-o`, listing the formats for help and completion.
#[derive(Debug, Clone, Copy)]
pub struct OutputParser;

impl clap::builder::TypedValueParser for OutputParser {
    type Value = OutputSpec;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> Result<OutputSpec, clap::Error> {
        let text = value
            .to_str()
            .ok_or_else(|| clap::Error::new(clap::error::ErrorKind::InvalidUtf8).with_cmd(cmd))?;
        OutputSpec::parse(text).map_err(|e| {
            let name = arg.map(|a| a.to_string()).unwrap_or_else(|| "-o".into());
            clap::Error::raw(
                clap::error::ErrorKind::InvalidValue,
                format!("invalid value {text:?} for '{name}': {e}\n"),
            )
            .with_cmd(cmd)
        })
    }

    fn possible_values(
        &self,
    ) -> Option<Box<dyn Iterator<Item = clap::builder::PossibleValue> + '_>> {
        Some(Box::new(
            [
                "text",
                "wide",
                "json",
                "yaml",
                "name",
                "jsonpath=",
                "custom-columns=",
                "custom-columns-file=",
            ]
            .into_iter()
            .map(clap::builder::PossibleValue::new),
        ))
    }
}

/// `--tolerance`: a fraction in [0, 1) (a band 1 ± t; 1 or more would make the band reach 0).
fn tolerance_value(s: &str) -> Result<f64, UsageError> {
    let t: f64 = s
        .trim()
        .parse()
        .map_err(|_| UsageError(format!("{s:?} is not a number")))?;
    if !t.is_finite() || !(0.0..1.0).contains(&t) {
        return Err(UsageError(format!(
            "must be at least 0 and below 1 (e.g. 0.1), got {s}"
        )));
    }
    Ok(t)
}

/// `--request-timeout`: a Go duration (`30s`, `2m`) or a number of seconds, 0 for none, as
/// kubectl takes it; clap quotes the value, so the message does not repeat it. Resolved here,
/// once, into the `Duration` the cluster layer uses (zero: no timeout).
fn request_timeout_value(s: &str) -> Result<std::time::Duration, UsageError> {
    let t = s.trim();
    let nanos = match crate::duration::parse_go_duration(t) {
        Ok(n) => n,
        Err(e) => match t.parse::<i64>() {
            Ok(secs) => secs.saturating_mul(1_000_000_000),
            Err(_) => {
                return Err(UsageError(format!(
                    "{}; give a duration such as 30s or 2m, or 0 for no timeout",
                    e.reason
                )))
            }
        },
    };
    if nanos < 0 {
        return Err("must not be negative (0 means no timeout)".into());
    }
    Ok(std::time::Duration::from_nanos(nanos as u64))
}

/// `hpa/web`, `horizontalpodautoscaler.autoscaling/web` → `web`; another kind is a usage error.
pub fn hpa_name(name: &str) -> Result<String, UsageError> {
    let Some((kind, rest)) = name.split_once('/') else {
        return Ok(name.to_string());
    };
    let k = kind.to_ascii_lowercase();
    let k = k.strip_suffix(".autoscaling").unwrap_or(&k);
    if matches!(
        k,
        "hpa" | "horizontalpodautoscaler" | "horizontalpodautoscalers"
    ) && !rest.is_empty()
        && !rest.contains('/')
    {
        Ok(rest.to_string())
    } else {
        Err(UsageError(format!(
            "{name:?}: explain reads HorizontalPodAutoscalers; give NAME or hpa/NAME"
        )))
    }
}

/// The width to fit: `COLUMNS` when set, else the terminal's, else `None` (the caller's default).
fn detect_columns() -> Option<usize> {
    let from_env = std::env::var("COLUMNS")
        .ok()
        .and_then(|c| c.trim().parse::<usize>().ok())
        .filter(|c| *c > 0);
    // comfy-table asks the terminal (through crossterm) when stdout is one.
    from_env.or_else(|| comfy_table::Table::new().width().map(usize::from))
}

/// The environment, read once.
#[derive(Debug, Clone, Copy)]
pub struct Environment {
    pub stdout_is_tty: bool,
    pub no_color: bool,
    /// `COLUMNS`, else the terminal's width (None when neither is known).
    pub columns: Option<usize>,
}

impl Environment {
    pub fn detect() -> Environment {
        Environment {
            stdout_is_tty: std::io::stdout().is_terminal(),
            no_color: std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty()),
            columns: detect_columns(),
        }
    }

    pub fn color(&self) -> bool {
        self.stdout_is_tty && !self.no_color
    }
}

fn duration_flag(name: &str, value: &str) -> Result<SignedDuration, UsageError> {
    let nanos = crate::duration::parse_go_duration(value)
        .map_err(|e| UsageError(format!("--{name}: {e}")))?;
    if nanos < 0 {
        return Err(UsageError(format!(
            "--{name}: must not be negative, got {value:?}"
        )));
    }
    Ok(SignedDuration::from_nanos(nanos))
}

/// Build the controller settings from flags.
///
/// The release is the flag's, else the newest; the commands re-resolve it once they know the
/// server's version ([`Settings::for_evidence`]), which is why the requested flags are kept.
/// `--feature-gates` is checked here against the flag's release when there is one, else only
/// for its syntax and names (the release-dependent checks then run with the server's version).
pub fn resolve_settings(f: &ControllerFlags) -> Result<Settings, UsageError> {
    let release = resolve_release(f.kubernetes_version.as_deref(), None)
        .map_err(|e| UsageError(format!("--kubernetes-version: {e}")))?;
    let mut s = Settings::for_version(release.version);
    s.kubernetes_version_source = release.source.clone();
    s.requested = Requested {
        kubernetes_version: f.kubernetes_version.clone(),
        feature_gates: f.feature_gates.clone(),
        given: Given {
            tolerance: f.tolerance.is_some(),
            cpu_initialization_period: f.cpu_initialization_period.is_some(),
            initial_readiness_delay: f.initial_readiness_delay.is_some(),
            downscale_stabilization: f.downscale_stabilization.is_some(),
            sync_period: f.sync_period.is_some(),
        },
    };
    let tolerance = f.tolerance.unwrap_or(0.1);
    if !tolerance.is_finite() || !(0.0..1.0).contains(&tolerance) {
        return Err(UsageError(format!(
            "--tolerance: must be at least 0 and below 1, got {tolerance}"
        )));
    }
    s.tolerance = tolerance;
    let or = |v: &Option<String>, d: &'static str| v.clone().unwrap_or_else(|| d.to_string());
    s.cpu_initialization_period = duration_flag(
        "cpu-initialization-period",
        &or(&f.cpu_initialization_period, "5m"),
    )?;
    s.initial_readiness_delay = duration_flag(
        "initial-readiness-delay",
        &or(&f.initial_readiness_delay, "30s"),
    )?;
    s.downscale_stabilization = duration_flag(
        "downscale-stabilization",
        &or(&f.downscale_stabilization, "5m"),
    )?;
    s.sync_period = duration_flag("sync-period", &or(&f.sync_period, "15s"))?;
    if s.sync_period.is_zero() {
        return Err(UsageError(
            "--sync-period: must be greater than zero".into(),
        ));
    }
    if let Some(g) = &f.feature_gates {
        let checked = match &f.kubernetes_version {
            Some(_) => s.feature_gates.apply(g, release.version, &release.source),
            None => FeatureGates::check(g),
        };
        checked.map_err(|e| UsageError(format!("--feature-gates: {e}")))?;
    }
    Ok(s)
}

/// `--history auto|none|FILE`.
pub fn history_mode(value: &str) -> Result<HistoryMode, HistoryError> {
    Ok(match value {
        "auto" => HistoryMode::Auto,
        "none" => HistoryMode::None,
        path => HistoryMode::File(read_history(std::path::Path::new(path))?),
    })
}

/// A `--history` file that cannot be read or is not a history.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HistoryError {
    /// The file cannot be read.
    Unreadable { path: String, error: String },
    /// The text is not a valid history: where (`scaleUpEvents[0].change`) and why.
    Invalid {
        source: String,
        at: String,
        problem: String,
    },
}

impl std::fmt::Display for HistoryError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            HistoryError::Unreadable { path, error } => {
                write!(f, "cannot read history file {path}: {error}")
            }
            HistoryError::Invalid {
                source,
                at,
                problem,
            } => write!(f, "{source}: invalid history at {at}: {problem}"),
        }
    }
}

impl std::error::Error for HistoryError {}

/// Read a `--history` file.
pub fn read_history(path: &std::path::Path) -> Result<History, HistoryError> {
    let text = std::fs::read_to_string(path).map_err(|e| HistoryError::Unreadable {
        path: path.display().to_string(),
        error: e.to_string(),
    })?;
    parse_history(&text, &path.display().to_string())
}

/// Parse history text (YAML or JSON).
pub fn parse_history(text: &str, source: &str) -> Result<History, HistoryError> {
    // YAML is read into a JSON value first (serde-saphyr has no path-tracking deserializer), so
    // the path of a wrong field is still named.
    let value: serde_json::Value =
        crate::yaml::from_str(text).map_err(|e| HistoryError::Invalid {
            source: source.to_string(),
            at: ".".to_string(),
            problem: crate::yaml::one_line(&e),
        })?;
    let h: History =
        serde_path_to_error::deserialize(value).map_err(|e| HistoryError::Invalid {
            source: source.to_string(),
            at: e.path().to_string(),
            problem: e.into_inner().to_string(),
        })?;
    for (list, events) in [
        ("scaleUpEvents", &h.scale_up_events),
        ("scaleDownEvents", &h.scale_down_events),
    ] {
        if let Some((i, e)) = events.iter().enumerate().find(|(_, e)| e.change <= 0) {
            return Err(HistoryError::Invalid {
                source: source.to_string(),
                at: format!("{list}[{i}].change"),
                problem: format!("must be a positive number of pods, got {}", e.change),
            });
        }
    }
    if let Some((i, r)) = h
        .recommendations
        .iter()
        .enumerate()
        .find(|(_, r)| r.replicas < 0)
    {
        return Err(HistoryError::Invalid {
            source: source.to_string(),
            at: format!("recommendations[{i}].replicas"),
            problem: format!("must be >= 0, got {}", r.replicas),
        });
    }
    Ok(h)
}

impl ExplainArgs {
    /// Resolve flags and environment into plain options.
    pub fn resolve(&self, env: &Environment) -> Result<ExplainOptions, ResolveError> {
        let settings = resolve_settings(&self.controller)?;
        let now = match &self.now {
            Some(t) => Some(
                t.parse::<Timestamp>()
                    .map_err(|e| UsageError(format!("--now: invalid RFC3339 time {t:?}: {e}")))?,
            ),
            None => None,
        };
        let history =
            history_mode(&self.history).map_err(|e| ResolveError::Input(e.to_string()))?;
        self.check_combinations()?;
        let names = self
            .name
            .iter()
            .map(|n| hpa_name(n))
            .collect::<Result<Vec<_>, _>>()?;
        let format = self.output.format;
        let source = match self.snapshot.is_empty() {
            false => Source::Snapshot(self.snapshot.clone()),
            true => Source::Cluster,
        };
        let watch = self.watch || self.watch_count.is_some();
        Ok(ExplainOptions {
            read: ReadOptions {
                name: names.first().cloned(),
                names,
                namespace: self.kube.namespace.clone(),
                all_namespaces: self.kube.all_namespaces,
                source,
                kube: self.kube.clone(),
                selector: self.selector()?,
            },
            decide: DecideOptions {
                now,
                history,
                settings,
                live: self.snapshot.is_empty(),
            },
            view: ViewOptions {
                output: format,
                select: match self.output.select.clone() {
                    Some(Select::CustomColumns(mut c)) => {
                        c.no_headers = self.no_headers;
                        Some(Select::CustomColumns(c))
                    }
                    other => other,
                },
                color: env.color() && matches!(format, OutputFormat::Text | OutputFormat::Wide),
                width: env.columns.unwrap_or(crate::render::DEFAULT_WIDTH),
                all_pods: self.pods == PodsShown::All,
                no_headers: self.no_headers,
                sort_by: self
                    .sort_by
                    .as_deref()
                    .map(crate::render::sort::SortBy::parse)
                    .transpose()
                    .map_err(|e| UsageError(format!("--sort-by: {e}")))?,
                problems: self.problems,
            },
            watch: WatchOptions {
                on: watch,
                count: self.watch_count,
            },
            at: self.at.resolve(self.name.len(), watch)?,
        })
    }

    /// `-l/--selector`, parsed (an empty selector picks every HPA).
    fn selector(&self) -> Result<Option<crate::labels::Selector>, UsageError> {
        self.selector
            .as_deref()
            .map(crate::labels::Selector::parse)
            .transpose()
            .map_err(|e| UsageError(format!("-l/--selector: {e}")))
    }

    /// Flags that cannot be used together.
    fn check_combinations(&self) -> Result<(), UsageError> {
        let watch = self.watch || self.watch_count.is_some();
        if let Some(f) = self.filename.first() {
            return Err(UsageError(format!(
                "-f {}: explain reads files with --snapshot, as in --snapshot {0}",
                f.display()
            )));
        }
        if watch && self.name.len() > 1 {
            return Err(
                "--watch follows one HPA: give one NAME (or none to watch the fleet)".into(),
            );
        }
        if watch && !self.snapshot.is_empty() {
            return Err(
                "--watch re-reads the cluster every sync period; it cannot be used with --snapshot"
                    .into(),
            );
        }
        if watch && !self.name.is_empty() && self.kube.all_namespaces {
            return Err("--watch follows one HPA: use NAME -n NAMESPACE, not -A (or -A without NAME to watch the fleet)".into());
        }
        if !self.name.is_empty() && self.selector.is_some() {
            return Err(
                "-l/--selector picks the HPAs of the fleet overview; it cannot be used with NAME"
                    .into(),
            );
        }
        if !self.name.is_empty() && self.sort_by.is_some() {
            return Err(
                "--sort-by orders the rows of the fleet overview; it cannot be used with NAME"
                    .into(),
            );
        }
        if watch && self.now.is_some() {
            return Err(
                "--watch evaluates at the time of each fetch; --now cannot be used with it".into(),
            );
        }
        if !self.name.is_empty() && self.problems {
            return Err(
                "--problems picks rows of the fleet overview; it cannot be used with NAME".into(),
            );
        }
        let columns = matches!(self.output.select, Some(Select::CustomColumns(_)));
        if watch && self.output.select.is_some() && !(columns && self.name.is_empty()) {
            return Err("--watch prints changes as they come; -o name and -o jsonpath cannot be used with it".into());
        }
        if self.kube.all_namespaces && self.kube.namespace.is_some() {
            return Err("-A/--all-namespaces and -n/--namespace cannot be used together".into());
        }
        if watch {
            self.kube.refuse_several_contexts("explain --watch")?;
        }
        if self.kube.several_contexts() && !self.snapshot.is_empty() {
            return Err(
                "--context/--all-contexts read clusters; they cannot be used with --snapshot"
                    .into(),
            );
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hpa_names_as_kubectl_spells_them() {
        assert_eq!(hpa_name("web").unwrap(), "web");
        assert_eq!(hpa_name("hpa/web").unwrap(), "web");
        assert_eq!(hpa_name("HorizontalPodAutoscaler/web").unwrap(), "web");
        assert_eq!(
            hpa_name("horizontalpodautoscalers.autoscaling/web").unwrap(),
            "web"
        );
        assert!(hpa_name("deploy/web").is_err());
        assert!(hpa_name("hpa/").is_err());
        assert!(hpa_name("hpa/a/b").is_err());
    }

    #[test]
    fn output_formats_and_selections() {
        assert_eq!(
            OutputSpec::parse("wide").unwrap().format,
            OutputFormat::Wide
        );
        let name = OutputSpec::parse("name").unwrap();
        assert_eq!(name.format, OutputFormat::Json);
        let one = serde_json::json!({"name": "web", "desiredReplicas": 5});
        let fleet = serde_json::json!({"items": [{"name": "a"}, {"name": "b"}]});
        let sel = name.select.unwrap();
        assert_eq!(
            sel.print(&one).unwrap(),
            "horizontalpodautoscaler.autoscaling/web\n"
        );
        assert_eq!(
            sel.print(&fleet).unwrap(),
            "horizontalpodautoscaler.autoscaling/a\nhorizontalpodautoscaler.autoscaling/b\n"
        );
        let jp = OutputSpec::parse("jsonpath='{.desiredReplicas}'").unwrap();
        assert_eq!(jp.select.unwrap().print(&one).unwrap(), "5");
        assert!(OutputSpec::parse("table").is_err());
        assert!(OutputSpec::parse("jsonpath={.a").is_err());
    }

    #[test]
    fn tolerance_is_a_fraction_below_one() {
        assert_eq!(tolerance_value("0.1"), Ok(0.1));
        assert_eq!(tolerance_value("0"), Ok(0.0));
        assert!(tolerance_value("1").is_err());
        assert!(tolerance_value("2").is_err());
        assert!(tolerance_value("-0.1").is_err());
        assert!(tolerance_value("NaN").is_err());
        assert!(tolerance_value("ten").is_err());
    }
}
