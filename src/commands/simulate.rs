//! `kubectl hpa simulate`: the controller's algorithm over time (being written).

use clap::Args;

/// Flags of `kubectl hpa simulate`.
#[derive(Debug, Clone, Args)]
pub struct SimulateArgs {
    /// Name of the HorizontalPodAutoscaler (with --snapshot)
    pub name: Option<String>,
}

pub fn run(_args: &SimulateArgs, _env: &crate::cli::Environment) -> anyhow::Result<String> {
    anyhow::bail!("simulate is not available yet")
}
