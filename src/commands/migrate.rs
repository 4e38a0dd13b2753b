//! `kubectl hpa migrate [NAME | -A] [-f FILE|DIR [-R] | -f -]`: flags → [`crate::migrate`] →
//! output. Offline from the manifests when no cluster is configured (or with `--offline`);
//! against a cluster a dry run by default (GET only), `--server-dry-run` (`dryRun=All`),
//! `--apply` (the planned PATCH requests, then verification); `--write` edits the files.

use std::io::{BufRead, IsTerminal, Write};
use std::path::PathBuf;

use anyhow::{anyhow, Result};
use clap::Args;

use crate::cli::{Environment, KubeFlags};
use crate::migrate::report::{render_text, Mode, Report};
use crate::migrate::{session, Options};
use crate::output::Format;

const MIGRATE_AFTER: &str = "\
Examples:
  # Offline, from the repository (no cluster needed): the edit and what each tool's next apply does
  kubectl hpa migrate -f k8s/ -R
  kubectl kustomize overlays/prod | kubectl hpa migrate -f -
  kubectl hpa migrate -f chart/              # a Helm chart: the template line and values key

  # Against the cluster: owners of spec.replicas, Helm release, Argo CD / Flux (GET only)
  kubectl hpa migrate web -n shop -f k8s/web.yaml

  # Let admission judge the requests (dryRun=All), then send them, verify, edit the manifest
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
    #[arg(short = 'o', long = "output", value_parser = crate::output::only(&[Format::Text, Format::Json]), default_value = "text")]
    pub output: Format,
    #[command(flatten)]
    pub kube: KubeFlags,
}

impl MigrateArgs {
    pub fn resolve(&self, stdin_is_tty: bool) -> Result<Options, String> {
        let k = &self.kube;
        if k.all_namespaces && k.namespace.is_some() {
            return Err("-A/--all-namespaces and -n/--namespace cannot be used together".into());
        }
        if k.all_namespaces && self.name.is_some() {
            return Err("give an HPA NAME or -A, not both".into());
        }
        if k.all_namespaces && self.apply && !self.yes && !stdin_is_tty {
            return Err("-A --apply writes to several namespaces: pass --yes to confirm (stdin is not a terminal, so there is no prompt)".into());
        }
        let mode = match (self.offline, self.server_dry_run, self.apply) {
            (true, _, _) => Mode::Offline,
            (_, true, _) => Mode::ServerDryRun,
            (_, _, true) => Mode::Apply,
            _ => Mode::DryRun,
        };
        Ok(Options {
            name: self.name.clone(),
            namespace: k.namespace.clone(),
            all_namespaces: k.all_namespaces,
            files: self.files.clone(),
            hpa_files: self.hpa_files.clone(),
            recursive: self.recursive,
            mode,
            write: self.write,
            yes: self.yes,
            stdin_is_tty,
            kube: k.connect_options(),
        })
    }
}

/// Print the plan to stderr and ask on the terminal.
fn ask(report: &Report) -> bool {
    let (n, ns) = report.planned_writes();
    let mut err = std::io::stderr().lock();
    let _ = write!(
        err,
        "{}Send {n} PATCH request(s) in namespace(s) {}? [y/N] ",
        render_text(report),
        ns.join(", ")
    );
    let _ = err.flush();
    let mut line = String::new();
    let _ = std::io::stdin().lock().read_line(&mut line);
    matches!(line.trim(), "y" | "Y" | "yes")
}

/// Run `migrate`. The report goes to `out` even when an error is returned.
pub fn run(args: &MigrateArgs, _env: &Environment, out: &mut dyn Write) -> Result<String> {
    let opts = args
        .resolve(std::io::stdin().is_terminal())
        .map_err(anyhow::Error::msg)?;
    let report = session::run(&opts, &mut std::io::stdin().lock(), &mut ask)?;
    let text = match args.output {
        Format::Text | Format::Wide => render_text(&report),
        f => crate::output::document(&crate::output::contract::migration_plan(&report), f)?,
    };
    let mut problems: Vec<String> = report.errors.clone();
    problems.extend(report.file_errors.iter().map(|e| e.to_string()));
    if problems.is_empty() {
        return Ok(text);
    }
    let _ = crate::output::write_now(out, &text);
    Err(anyhow!("{}", problems.join("; ")))
}
