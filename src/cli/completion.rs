//! The flags of `kubectl hpa completion` and the hidden `__complete` (clap).

use clap::{Args, ValueEnum};

/// The shells `kubectl hpa completion` can generate a script for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum CompletionShell {
    Bash,
    Zsh,
    Fish,
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
  kubectl hpa completion bash > ~/.local/share/bash-completion/completions/kubectl-hpa

  # zsh: a file named _kubectl-hpa in a directory of $fpath (before compinit runs)
  kubectl hpa completion zsh > \"${fpath[1]}/_kubectl-hpa\"

  # fish
  kubectl hpa completion fish > ~/.config/fish/completions/kubectl-hpa.fish

  # `kubectl hpa <TAB>` (kubectl >= 1.26) runs kubectl_complete-hpa from PATH; it ships in
  # the release archive (krew installs it in the plugin's directory, not on PATH):
  cp ~/.krew/store/hpa/*/kubectl_complete-hpa ~/.krew/bin/

The scripts complete subcommands, flags and flag values; kubectl_complete-hpa also completes
HPA names and namespaces from the cluster when it is reachable.";
