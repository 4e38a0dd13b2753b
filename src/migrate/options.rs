//! `migrate`'s options, resolved from the flags.

use super::report;

/// `migrate`, resolved from the flags.
#[derive(Clone, Debug)]
pub struct Options {
    /// One HPA, else every HPA of the namespace (or of every namespace with `-A`).
    pub name: Option<String>,
    /// `-n`, for offline HPAs that name no namespace.
    pub namespace: Option<String>,
    pub all_namespaces: bool,
    /// `-f` inputs (`-` is stdin).
    pub files: Vec<std::path::PathBuf>,
    /// `--hpa` inputs: HPAs for offline runs.
    pub hpa_files: Vec<std::path::PathBuf>,
    pub recursive: bool,
    /// What to do: `Offline` (forced), `DryRun`, `ServerDryRun` or `Apply`.
    pub mode: report::Mode,
    pub write: bool,
    /// Confirmed up front (`--yes`): no prompt for `-A --apply`.
    pub yes: bool,
    /// Stdin is a terminal (a prompt is possible).
    pub stdin_is_tty: bool,
    /// How to reach the cluster.
    pub kube: crate::cluster::ConnectOptions,
}
