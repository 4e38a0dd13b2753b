//! The flags of `kubectl hpa snapshot` (clap).

use clap::Args;

use super::KubeFlags;
use crate::output::Format;

/// Flags of `kubectl hpa snapshot`.
#[derive(Debug, Clone, Args)]
pub struct SnapshotArgs {
    /// Name of the HorizontalPodAutoscaler (omit it for every HPA of the namespace, or of all with -A)
    pub name: Option<String>,
    /// Output format
    #[arg(short = 'o', long = "output", value_parser = crate::output::only(&[Format::Yaml, Format::Json]), default_value = "yaml")]
    pub output: Format,
    /// Replace what a bug report must not leak (env values, commands, images, annotations
    /// explain does not read, label values no selector reads, IPs); names are kept and the
    /// replay gives the same decision
    #[arg(long)]
    pub redact: bool,
    /// With --redact: redact snapshot files already taken instead of reading the cluster
    /// (printed to stdout; repeat it for several files; `-` reads standard input)
    #[arg(long, value_name = "FILE", requires = "redact", conflicts_with_all = ["name", "all_namespaces"])]
    pub snapshot: Vec<std::path::PathBuf>,
    #[command(flatten)]
    pub kube: KubeFlags,
}
