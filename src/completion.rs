//! Shell completion: generated scripts and the `kubectl_complete-hpa` protocol (being written).

use clap::Args;

/// `kubectl hpa completion SHELL`
#[derive(Debug, Clone, Args)]
pub struct CompletionArgs {
    /// bash, zsh or fish
    pub shell: String,
}

/// `kubectl hpa __complete WORDS...` (hidden; used by kubectl_complete-hpa)
#[derive(Debug, Clone, Args)]
pub struct CompleteArgs {
    /// The words typed so far, the last one being completed
    #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
    pub words: Vec<String>,
}

pub fn run_completion(args: &CompletionArgs) -> anyhow::Result<String> {
    anyhow::bail!("completion for {} is not available yet", args.shell)
}

pub fn run_complete(_args: &CompleteArgs) -> anyhow::Result<String> {
    Ok(String::new())
}
