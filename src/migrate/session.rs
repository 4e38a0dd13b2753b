//! One `migrate` run: read the inputs, decide between the cluster and offline, plan, ask for
//! confirmation where needed, send, write. The command only wires flags and output to this.

use std::io::Read;

use anyhow::{bail, Result};

use super::api::Api;
use super::files::{self, Sources};
use super::options::Options;
use super::report::{Mode, Report};
use super::{live, offline, write};

/// Does `-A --apply` need a confirmation (it writes to several namespaces)?
pub fn needs_confirmation(o: &Options) -> bool {
    o.all_namespaces && o.mode == Mode::Apply && !o.yes
}

/// Flags that name a cluster: without a usable one the run fails instead of going offline.
fn cluster_named(o: &Options) -> bool {
    o.kube.names_a_cluster()
}

/// Run. `confirm` sees the plan before `-A --apply` sends anything (only called when stdin is
/// a terminal; see [`needs_confirmation`]).
pub fn run(
    rt: &tokio::runtime::Runtime,
    o: &Options,
    stdin: &mut dyn Read,
    confirm: &mut dyn FnMut(&Report) -> bool,
) -> Result<Report> {
    let src = files::read(&o.files, o.recursive, stdin);
    let hpa_src = files::read(&o.hpa_files, o.recursive, &mut std::io::empty());
    let mut report = rt.block_on(async {
        let api = if o.mode == Mode::Offline {
            Err("--offline".to_string())
        } else {
            Api::connect(o.kube.clone())
                .await
                .map_err(|e| format!("{e:#}"))
        };
        match api {
            Ok(api) => live_run(&api, o, &src, confirm).await,
            Err(why) => offline_run(o, &src, &hpa_src, why),
        }
    })?;
    if o.write && o.files.iter().any(|f| f.as_os_str() == "-") {
        let original = src.manifests.iter().find(|m| m.file == files::STDIN);
        write::stdin_stream(&mut report, original.map(|m| m.text.as_str()));
    }
    Ok(report)
}

fn offline_run(o: &Options, src: &Sources, hpa_src: &Sources, why: String) -> Result<Report> {
    if o.mode != Mode::Offline {
        if matches!(o.mode, Mode::Apply | Mode::ServerDryRun) {
            bail!("--apply and --server-dry-run need a cluster: {why}");
        }
        if cluster_named(o) || (o.files.is_empty() && o.hpa_files.is_empty()) {
            bail!("{why}");
        }
    }
    let first = why.split(": ").next().unwrap_or_default();
    let why = if o.mode == Mode::Offline {
        "--offline".to_string()
    } else {
        format!("no cluster: {first}")
    };
    let mut r = offline::plan(o, src, hpa_src, &why);
    if o.write {
        if r.file_errors.is_empty() {
            let done = write::write_edits(&mut r.files, &src.origins);
            write::record(&mut r, done);
        } else {
            r.errors
                .push("--write: nothing written because of the file errors".into());
            r.files_effect = "none written (see the errors)".into();
        }
    }
    Ok(r)
}

async fn live_run(
    api: &Api,
    o: &Options,
    src: &Sources,
    confirm: &mut dyn FnMut(&Report) -> bool,
) -> Result<Report> {
    let planned = live::plan(api, o, src, o.mode).await?;
    if needs_confirmation(o) && planned.report.planned_writes().0 > 0 && !confirm(&planned.report) {
        let mut r = planned.report;
        r.errors
            .push("not confirmed: nothing was sent and no file written".into());
        return Ok(r);
    }
    if o.mode == Mode::Apply {
        // Name the cluster before any write (stderr: the report stays on stdout).
        use std::io::Write;
        let _ = writeln!(
            std::io::stderr(),
            "migrate --apply: writing to {}",
            api.describe()
        );
    }
    let mut report = live::execute(api, planned, o, &src.origins).await?;
    if o.mode == Mode::Apply {
        half_migrated(&mut report);
    }
    Ok(report)
}

/// A workload whose `--apply` stopped after some of its steps were written is half-migrated:
/// say so, what is left, and that running the same command again completes it (the next run
/// plans from the object as it is then and sends only the steps still needed).
fn half_migrated(report: &mut Report) {
    let mut lines = Vec::new();
    for w in &report.workloads {
        let (Some(a), Some(rep)) = (&w.analysis, &w.apply) else {
            continue;
        };
        if rep.error.is_none() {
            continue;
        }
        let done: Vec<&str> = a
            .requests
            .iter()
            .map(|st| st.id)
            .filter(|id| {
                rep.sent
                    .iter()
                    .any(|s| s.step == *id && s.status == Some(200))
            })
            .collect();
        let left: Vec<&str> = a
            .requests
            .iter()
            .map(|st| st.id)
            .filter(|id| !done.contains(id))
            .collect();
        // Nothing written, or everything written and only the check after it failed (its
        // own error says what): not half-migrated.
        if done.is_empty() || left.is_empty() {
            continue;
        }
        lines.push(format!(
            "HPA {}: the cluster is half-migrated: {} applied, {} not yet; run the same command again to complete it (it re-reads the object and sends only what is left)",
            w.hpa_ref,
            done.join(", "),
            left.join(", ")
        ));
    }
    report.errors.extend(lines);
}
