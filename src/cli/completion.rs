//! The flags of `kubectl hpa completion` and the hidden `__complete` (clap).

use clap::{Args, ValueEnum};

/// The shells `kubectl hpa completion` can generate a script for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum CompletionShell {
    Bash,
    Zsh,
    Fish,
    Powershell,
}

/// `kubectl hpa completion SHELL`
#[derive(Debug, Clone, Args)]
pub struct CompletionArgs {
    /// The shell to generate the completion script for
    #[arg(value_enum)]
    pub shell: CompletionShell,
}

/// `kubectl hpa __complete -- WORDS...` (hidden; used by kubectl_complete-hpa)
#[derive(Debug, Clone, Args)]
#[command(disable_help_flag = true)]
pub struct CompleteArgs {
    /// The words typed so far, the last one being completed
    #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
    pub words: Vec<String>,
}

/// `kubectl hpa completion --help`: examples, in kubectl's style.
pub const COMPLETION_AFTER_HELP: &str = "\
Examples:
  # bash: load into the current shell, or install for every new shell
  source <(kubectl hpa completion bash)
  kubectl hpa completion bash \\
      > ~/.local/share/bash-completion/completions/kubectl-hpa

  # zsh: a file named _kubectl-hpa in a directory of $fpath (before compinit)
  kubectl hpa completion zsh > \"${fpath[1]}/_kubectl-hpa\"

  # fish
  kubectl hpa completion fish > ~/.config/fish/completions/kubectl-hpa.fish

  # PowerShell: write the script, then dot-source it from $PROFILE
  kubectl hpa completion powershell > kubectl-hpa.ps1

  # `kubectl hpa <TAB>` (kubectl 1.26 or newer) runs kubectl_complete-hpa from
  # PATH; krew installs it in the plugin's directory, so copy it once:
  cp ~/.krew/store/hpa/*/kubectl_complete-hpa ~/.krew/bin/

Every script asks kubectl-hpa for the candidates: subcommands, flags, their
values, HPA names (from the --snapshot file on the line, else the cluster) and
namespaces.";
