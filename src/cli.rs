//! Command-line flags (clap) and their resolution into plain option structs.
//!
//! Flags are parsed here and the environment (`NO_COLOR`, TTY) is read here, once; the commands
//! receive plain structs and never look at `std::env` themselves.

use std::io::IsTerminal;
use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};
use jiff::{SignedDuration, Timestamp};

use crate::core::{History, KubeVersion, Settings};

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
  # Why did (or didn't) the HPA web scale? Recompute the controller's decision offline
  kubectl hpa explain web -n shop --snapshot examples/scale-up-cpu.yaml

  # The same as JSON (a stable, documented contract)
  kubectl hpa explain web -n shop --snapshot snap.yaml -o json

  # Fleet overview: every HPA of a namespace (or of the cluster with -A), one line each
  kubectl hpa explain -n shop
  kubectl hpa explain -A -o json

  # Follow one HPA: re-evaluate every sync period and print the changes
  kubectl hpa explain web -n shop --watch

  # Replay with the controller's in-memory history and another Kubernetes release
  kubectl hpa explain web -n shop --snapshot snap.yaml --history hist.yaml --kubernetes-version 1.32

Exit codes: 0 a decision was computed (scale, hold or cannot-scale), 1 unusable input or API error, 2 bad usage.";

const ROOT_AFTER: &str = "\
Examples:
  # Why did (or didn't) the HPA web in namespace shop scale?
  kubectl hpa explain web -n shop

  # The same, offline, from a snapshot file
  kubectl hpa explain web -n shop --snapshot snapshot.yaml

  # Shell completion (bash, zsh, fish, and kubectl_complete-hpa for `kubectl hpa <TAB>`)
  kubectl hpa completion --help

Use \"kubectl hpa <command> --help\" for more information about a command.";

/// kubectl hpa: explain, simulate and migrate HorizontalPodAutoscalers with the controller's own algorithm.
#[derive(Debug, Parser)]
#[command(
    name = "kubectl-hpa",
    bin_name = "kubectl hpa",
    version,
    about = "Explain why a HorizontalPodAutoscaler did or did not scale, by recomputing the controller's decision",
    override_usage = "kubectl hpa COMMAND [NAME] [flags]",
    after_help = ROOT_AFTER
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
        override_usage = "kubectl hpa explain [NAME] [-n NAMESPACE | -A] [--snapshot FILE] [--watch] [flags]",
        after_help = EXPLAIN_AFTER
    )]
    Explain(ExplainArgs),
    /// Write everything explain reads for one HPA, from the cluster, as a v1 List (YAML) to stdout
    #[command(override_usage = "kubectl hpa snapshot NAME [-n NAMESPACE] [flags] > snapshot.yaml")]
    Snapshot(crate::commands::snapshot::SnapshotArgs),
    /// Run the controller's algorithm over time against hypothetical or recorded load
    #[command(override_usage = "kubectl hpa simulate [NAME] [flags]")]
    Simulate(crate::commands::simulate::SimulateArgs),
    /// Hand spec.replicas of autoscaled workloads to their HPA without a dip (dry run by default)
    #[command(
        override_usage = "kubectl hpa migrate [NAME | -A] [-f FILE|DIR ...] [--apply] [--write] [flags]"
    )]
    Migrate(crate::commands::migrate::MigrateArgs),
    /// Print a shell completion script (bash, zsh, fish)
    #[command(
        override_usage = "kubectl hpa completion SHELL",
        after_help = crate::completion::COMPLETION_AFTER_HELP
    )]
    Completion(crate::completion::CompletionArgs),
    /// Complete a command line (used by kubectl_complete-hpa)
    #[command(name = "__complete", hide = true)]
    Complete(crate::completion::CompleteArgs),
}

/// Connection flags, as kubectl names them.
#[derive(Debug, Clone, Args, Default)]
pub struct KubeFlags {
    /// Path to the kubeconfig file to use
    #[arg(long, global = true, value_name = "FILE")]
    pub kubeconfig: Option<PathBuf>,
    /// The name of the kubeconfig context to use
    #[arg(long, global = true)]
    pub context: Option<String>,
    /// The name of the kubeconfig cluster to use
    #[arg(long, global = true)]
    pub cluster: Option<String>,
    /// The name of the kubeconfig user to use
    #[arg(long, global = true)]
    pub user: Option<String>,
    /// The namespace scope for this request
    #[arg(short = 'n', long, global = true)]
    pub namespace: Option<String>,
    /// Explain the HPAs of every namespace
    #[arg(short = 'A', long = "all-namespaces", global = true)]
    pub all_namespaces: bool,
    /// Username to impersonate for the operation
    #[arg(long = "as", global = true, value_name = "USER")]
    pub as_user: Option<String>,
    /// Group to impersonate for the operation (repeatable)
    #[arg(long = "as-group", global = true, value_name = "GROUP")]
    pub as_group: Vec<String>,
    /// The length of time to wait before giving up on a single server request (e.g. 1s, 2m; 0 = no timeout)
    #[arg(long = "request-timeout", global = true, default_value = "0")]
    pub request_timeout: String,
    /// The address and port of the Kubernetes API server (over the kubeconfig's)
    #[arg(short = 's', long, global = true, value_name = "URL")]
    pub server: Option<String>,
    /// Bearer token for authentication to the API server (over the kubeconfig user's)
    #[arg(long, global = true, value_name = "TOKEN")]
    pub token: Option<String>,
    /// Do not check the server's certificate (insecure)
    #[arg(long = "insecure-skip-tls-verify", global = true)]
    pub insecure_skip_tls_verify: bool,
    /// Log level: 6 or more writes each API request (method, URL, status, time) to stderr
    #[arg(
        short = 'v',
        long = "v",
        global = true,
        value_name = "LEVEL",
        default_value_t = 0
    )]
    pub verbosity: u8,
}

impl From<&KubeFlags> for crate::cluster::ConnectOptions {
    fn from(f: &KubeFlags) -> Self {
        crate::cluster::ConnectOptions {
            kubeconfig: f.kubeconfig.clone(),
            context: f.context.clone(),
            cluster: f.cluster.clone(),
            user: f.user.clone(),
            namespace: f.namespace.clone(),
            as_user: f.as_user.clone(),
            as_group: f.as_group.clone(),
            request_timeout: f.request_timeout.clone(),
            server: f.server.clone(),
            token: f.token.clone(),
            insecure_skip_tls_verify: f.insecure_skip_tls_verify,
            verbosity: f.verbosity,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Default)]
pub enum OutputFormat {
    #[default]
    Text,
    Wide,
    Json,
    Yaml,
}

/// The controller's settings as flags.
#[derive(Debug, Clone, Args)]
pub struct ControllerFlags {
    /// Controller tolerance (kube-controller-manager --horizontal-pod-autoscaler-tolerance)
    #[arg(long, default_value = "0.1", help_heading = "Controller settings")]
    pub tolerance: f64,
    /// --horizontal-pod-autoscaler-cpu-initialization-period
    #[arg(long, default_value = "5m", help_heading = "Controller settings")]
    pub cpu_initialization_period: String,
    /// --horizontal-pod-autoscaler-initial-readiness-delay
    #[arg(long, default_value = "30s", help_heading = "Controller settings")]
    pub initial_readiness_delay: String,
    /// --horizontal-pod-autoscaler-downscale-stabilization
    #[arg(long, default_value = "5m", help_heading = "Controller settings")]
    pub downscale_stabilization: String,
    /// --horizontal-pod-autoscaler-sync-period
    #[arg(long, default_value = "15s", help_heading = "Controller settings")]
    pub sync_period: String,
    /// Reproduce this Kubernetes release's controller (1.23 to 1.37; default: newest)
    #[arg(long, help_heading = "Controller settings")]
    pub kubernetes_version: Option<String>,
    /// Controller feature gates that change the algorithm, e.g. HPAScaleToZero=false,HPAConfigurableTolerance=true
    #[arg(long, help_heading = "Controller settings")]
    pub feature_gates: Option<String>,
}

#[derive(Debug, Clone, Args)]
pub struct ExplainArgs {
    /// Name of the HorizontalPodAutoscaler (omit it for the fleet overview of the namespace, or of all with -A)
    pub name: Option<String>,
    /// Read everything from a snapshot file (a v1 List of API objects, YAML or JSON) instead of a cluster
    #[arg(long, value_name = "FILE")]
    pub snapshot: Option<PathBuf>,
    /// Evaluation time (RFC3339); default: the snapshot's time, else the newest metric sample, else now
    #[arg(long, value_name = "RFC3339")]
    pub now: Option<String>,
    /// The controller's in-memory history (YAML/JSON: recommendations, scaleUpEvents, scaleDownEvents)
    #[arg(long, value_name = "FILE")]
    pub history: Option<PathBuf>,
    /// Output format
    #[arg(short = 'o', long = "output", value_enum, default_value_t = OutputFormat::Text)]
    pub output: OutputFormat,
    /// Live only: re-evaluate every --sync-period, keeping the controller's recommendation
    /// history ourselves, and print only the changes
    #[arg(long)]
    pub watch: bool,
    /// With --watch: stop after this many evaluations (default: run until interrupted)
    #[arg(long, value_name = "N", hide = true)]
    pub watch_count: Option<u32>,
    #[command(flatten)]
    pub controller: ControllerFlags,
    #[command(flatten)]
    pub kube: KubeFlags,
}

/// Where the objects come from.
#[derive(Debug, Clone, PartialEq)]
pub enum Source {
    Snapshot(PathBuf),
    Cluster,
}

/// `explain`, resolved.
#[derive(Debug, Clone)]
pub struct ExplainOptions {
    pub name: Option<String>,
    pub namespace: Option<String>,
    pub all_namespaces: bool,
    pub source: Source,
    pub now: Option<Timestamp>,
    pub history: History,
    pub history_given: bool,
    pub settings: Settings,
    pub output: OutputFormat,
    pub color: bool,
    pub kube: KubeFlags,
    /// `--watch`: re-evaluate every sync period (live only).
    pub watch: bool,
    /// `--watch-count`: stop after this many evaluations.
    pub watch_count: Option<u32>,
}

/// The environment, read once.
#[derive(Debug, Clone, Copy)]
pub struct Environment {
    pub stdout_is_tty: bool,
    pub no_color: bool,
}

impl Environment {
    pub fn detect() -> Environment {
        Environment {
            stdout_is_tty: std::io::stdout().is_terminal(),
            no_color: std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty()),
        }
    }

    pub fn color(&self) -> bool {
        self.stdout_is_tty && !self.no_color
    }
}

fn duration_flag(name: &str, value: &str) -> Result<SignedDuration, String> {
    let nanos = crate::duration::parse_go_duration(value).map_err(|e| format!("--{name}: {e}"))?;
    if nanos < 0 {
        return Err(format!("--{name}: must not be negative, got {value:?}"));
    }
    Ok(SignedDuration::from_nanos(nanos))
}

/// Build the controller settings from flags.
pub fn resolve_settings(f: &ControllerFlags) -> Result<Settings, String> {
    let version = match &f.kubernetes_version {
        Some(v) => v.parse::<KubeVersion>()?,
        None => KubeVersion::NEWEST,
    };
    let mut s = Settings::for_version(version);
    if !f.tolerance.is_finite() || f.tolerance < 0.0 {
        return Err(format!(
            "--tolerance: must be a number >= 0, got {}",
            f.tolerance
        ));
    }
    s.tolerance = f.tolerance;
    s.cpu_initialization_period =
        duration_flag("cpu-initialization-period", &f.cpu_initialization_period)?;
    s.initial_readiness_delay =
        duration_flag("initial-readiness-delay", &f.initial_readiness_delay)?;
    s.downscale_stabilization =
        duration_flag("downscale-stabilization", &f.downscale_stabilization)?;
    s.sync_period = duration_flag("sync-period", &f.sync_period)?;
    if s.sync_period.is_zero() {
        return Err("--sync-period: must be greater than zero".into());
    }
    if let Some(g) = &f.feature_gates {
        s.feature_gates
            .apply(g)
            .map_err(|e| format!("--feature-gates: {e}"))?;
    }
    Ok(s)
}

/// Read a `--history` file.
pub fn read_history(path: &std::path::Path) -> Result<History, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read history file {}: {e}", path.display()))?;
    parse_history(&text, &path.display().to_string())
}

/// Parse history text (YAML or JSON).
pub fn parse_history(text: &str, source: &str) -> Result<History, String> {
    let de = serde_yaml::Deserializer::from_str(text);
    let h: History = serde_path_to_error::deserialize(de).map_err(|e| {
        let path = e.path().to_string();
        format!("{source}: invalid history at {path}: {}", e.into_inner())
    })?;
    for (list, events) in [
        ("scaleUpEvents", &h.scale_up_events),
        ("scaleDownEvents", &h.scale_down_events),
    ] {
        if let Some((i, e)) = events.iter().enumerate().find(|(_, e)| e.change <= 0) {
            return Err(format!(
                "{source}: invalid history at {list}[{i}].change: must be a positive number of pods, got {}",
                e.change
            ));
        }
    }
    if let Some((i, r)) = h
        .recommendations
        .iter()
        .enumerate()
        .find(|(_, r)| r.replicas < 0)
    {
        return Err(format!(
            "{source}: invalid history at recommendations[{i}].replicas: must be >= 0, got {}",
            r.replicas
        ));
    }
    Ok(h)
}

impl ExplainArgs {
    /// Resolve flags and environment into plain options.
    pub fn resolve(&self, env: &Environment) -> Result<ExplainOptions, String> {
        let settings = resolve_settings(&self.controller)?;
        let now = match &self.now {
            Some(t) => Some(
                t.parse::<Timestamp>()
                    .map_err(|e| format!("--now: invalid RFC3339 time {t:?}: {e}"))?,
            ),
            None => None,
        };
        let (history, history_given) = match &self.history {
            Some(p) => (read_history(p)?, true),
            None => (History::default(), false),
        };
        if (self.watch || self.watch_count.is_some()) && self.snapshot.is_some() {
            return Err(
                "--watch re-reads the cluster every sync period; it cannot be used with --snapshot"
                    .into(),
            );
        }
        if self.kube.all_namespaces && self.kube.namespace.is_some() {
            return Err("-A/--all-namespaces and -n/--namespace cannot be used together".into());
        }
        Ok(ExplainOptions {
            name: self.name.clone(),
            namespace: self.kube.namespace.clone(),
            all_namespaces: self.kube.all_namespaces,
            source: match &self.snapshot {
                Some(p) => Source::Snapshot(p.clone()),
                None => Source::Cluster,
            },
            now,
            history,
            history_given,
            settings,
            output: self.output,
            color: env.color() && matches!(self.output, OutputFormat::Text | OutputFormat::Wide),
            kube: self.kube.clone(),
            watch: self.watch || self.watch_count.is_some(),
            watch_count: self.watch_count,
        })
    }
}
