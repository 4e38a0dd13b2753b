//! `kubectl hpa migrate [NAME | -A] [-f FILE|DIR [-R] | -f -]`: flags → [`crate::migrate`] →
//! output. Offline from the manifests when no cluster is configured (or with `--offline`);
//! against a cluster a dry run by default (GET only), `--server-dry-run` (`dryRun=All`),
//! `--apply` (the planned PATCH requests, then verification); `--write` edits the files.

use std::io::{BufRead, IsTerminal, Write};

use anyhow::{anyhow, Result};

use crate::cli::Environment;
use crate::migrate::report::{Layout, Mode, Report};
use crate::migrate::report_text::{render_text, render_text_in};
use crate::migrate::{session, Options};
use crate::output::Format;

pub use crate::cli::migrate::MigrateArgs;

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
    let prompt = format!(
        "{}Send {n} PATCH request(s) in namespace(s) {}? [y/N] ",
        render_text(report),
        ns.join(", ")
    );
    let _ = write!(err, "{}", crate::output::escape_controls(&prompt));
    let _ = err.flush();
    let mut line = String::new();
    let _ = std::io::stdin().lock().read_line(&mut line);
    matches!(line.trim(), "y" | "Y" | "yes")
}

/// Run `migrate`. The report goes to `out` even when an error is returned.
pub fn run(
    args: &MigrateArgs,
    env: &Environment,
    rt: &tokio::runtime::Runtime,
    out: &mut dyn Write,
) -> Result<String> {
    let opts = args
        .resolve(std::io::stdin().is_terminal())
        .map_err(anyhow::Error::msg)?;
    let report = session::run(rt, &opts, &mut std::io::stdin().lock(), &mut ask)?;
    let text = match args.output {
        Format::Text | Format::Wide => render_text_in(
            &report,
            Layout {
                wide: args.output == Format::Wide,
                width: env
                    .columns
                    .unwrap_or(crate::render::layout::DEFAULT_WIDTH)
                    .max(crate::render::layout::MIN_WIDTH),
            },
        ),
        f => crate::output::document(&crate::output::contract::migration_plan(&report), f)?,
    };
    let mut problems: Vec<String> = report.errors.clone();
    problems.extend(report.file_errors.iter().map(|e| e.to_string()));
    if problems.is_empty() {
        return Ok(match &report.stdout {
            // `-f - --write`: the edited stream on stdout, the report on stderr
            Some(stream) => {
                let _ = write!(
                    std::io::stderr(),
                    "{}",
                    crate::output::escape_controls(&text)
                );
                stream.clone()
            }
            None => text,
        });
    }
    let _ = crate::output::write_now(out, &text);
    Err(anyhow!("{}", problems.join("; ")))
}
