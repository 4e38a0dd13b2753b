//! The flags of `kubectl hpa migrate` (clap).

use std::path::PathBuf;

use clap::Args;

use super::KubeFlags;
use crate::output::Format;

const MIGRATE_AFTER: &str = "\
Examples:
  # Offline, from the repository (no cluster needed): the edit, and what
  # each tool's next apply does
  kubectl hpa migrate -f k8s/ -R
  kubectl kustomize overlays/prod | kubectl hpa migrate -f -

  # A Helm chart: the template line and the values key
  kubectl hpa migrate -f chart/

  # Against the cluster (GET only): the owners of spec.replicas, the Helm
  # release, Argo CD / Flux
  kubectl hpa migrate web -n shop -f k8s/web.yaml

  # Let admission judge the requests (dryRun=All), then send them, verify
  # and edit the manifest
  kubectl hpa migrate web -n shop --server-dry-run
  kubectl hpa migrate web -n shop -f k8s/web.yaml --apply --write

Nothing is written to a cluster without --apply, and no file without --write.
Exit codes: 0 plan computed or applied, 1 unusable input, API error or failed verification, 2 bad usage.";

/// Flags of `kubectl hpa migrate`.
#[derive(Debug, Clone, Args)]
#[command(after_help = MIGRATE_AFTER)]
pub struct MigrateArgs {
    /// Name of the HorizontalPodAutoscaler whose target is migrated (default: every HPA of the namespace)
    pub name: Option<String>,
    /// Manifests: files, directories (a Helm chart, kustomizations) or - for stdin
    #[arg(short = 'f', long = "filename", value_name = "FILE|DIR|-")]
    pub files: Vec<PathBuf>,
    /// Process the directories of -f recursively
    #[arg(short = 'R', long)]
    pub recursive: bool,
    /// Files with the HPAs, for offline runs whose manifests hold none
    #[arg(long = "hpa", value_name = "FILE")]
    pub hpa_files: Vec<PathBuf>,
    /// Work from the files only, even when a cluster is configured
    #[arg(long, conflicts_with_all = ["apply", "server_dry_run"])]
    pub offline: bool,
    /// Send the planned requests to the cluster (default: dry run)
    #[arg(long)]
    pub apply: bool,
    /// Send the planned requests with dryRun=All: the API server's admission judges them, nothing is persisted
    #[arg(long, conflicts_with = "apply")]
    pub server_dry_run: bool,
    /// Do not ask before -A --apply writes to several namespaces (required when stdin is not a terminal)
    #[arg(short = 'y', long)]
    pub yes: bool,
    /// Edit the local files (with a cluster: only after the cluster steps succeeded)
    #[arg(long)]
    pub write: bool,
    /// Output format
    #[arg(short = 'o', long = "output", value_parser = crate::output::only(&[Format::Text, Format::Wide, Format::Json]), default_value = "text")]
    pub output: Format,
    #[command(flatten)]
    pub kube: KubeFlags,
}
