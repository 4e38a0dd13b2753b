//! `kubectl hpa snapshot [NAME]`: fetch what explain reads and print it as `v1 List`s (YAML, or
//! JSON with `-o json`) — the file `explain --snapshot` replays, with the time it was taken and
//! the API calls that failed. With NAME, one HPA; without, every HPA of the namespace (`-n`, or
//! the context's), or of the cluster with `-A`: one List per namespace (YAML documents, or a
//! stream of JSON documents), fetched like the live fleet overview. `--redact` removes what a bug
//! report must not leak ([`crate::snapshot::redact`]); with `--snapshot FILE`, from files already
//! taken (read as explain reads them, refused if explain could not).

use anyhow::Result;
use serde_json::Value;

use crate::cluster;
use crate::output::Format;

pub use crate::cli::snapshot::SnapshotArgs;

/// Run `snapshot` and return the document(s).
pub fn run(args: &SnapshotArgs, rt: &tokio::runtime::Runtime) -> Result<String> {
    if !args.snapshot.is_empty() {
        let mut docs = crate::snapshot::Snapshot::redacted_documents(&args.snapshot)?;
        docs.retain(|d| !d.is_null());
        return render(&docs, args.output);
    }
    if args.kube.all_namespaces && args.name.is_some() {
        return Err(anyhow::Error::new(crate::cli::UsageError(
            "snapshot NAME takes one HPA: use -n NAMESPACE, or -A without NAME for every HPA"
                .into(),
        )));
    }
    if args.kube.all_namespaces && args.kube.namespace.is_some() {
        return Err(anyhow::Error::new(crate::cli::UsageError(
            "-A/--all-namespaces and -n/--namespace cannot be used together".into(),
        )));
    }
    let (mut lists, scope) = rt.block_on(fetch(args))?;
    if lists.is_empty() {
        note(&format!("No HorizontalPodAutoscalers found in {scope}."));
    }
    if args.redact {
        crate::snapshot::redact::redact_all(&mut lists)?;
    }
    render(&lists, args.output)
}

/// The Lists of the scope, and the scope in words.
async fn fetch(args: &SnapshotArgs) -> Result<(Vec<Value>, String)> {
    let conn = cluster::connect(&args.kube).await?;
    let ns = conn.namespace.clone();
    if let Some(name) = &args.name {
        let fetched = cluster::fetch_hpa(&conn, &ns, name).await?;
        return Ok((
            vec![serde_json::from_str(&fetched.list)?],
            format!("namespace {ns}"),
        ));
    }
    let scope = (!args.kube.all_namespaces).then_some(ns.as_str());
    let fetched = cluster::fetch_fleet(&conn, scope, &cluster::Progress::off()).await?;
    for n in &fetched.notes {
        note(&format!("note: {n}"));
    }
    let words = match scope {
        Some(ns) => format!("namespace {ns}"),
        None => "any namespace".to_string(),
    };
    let lists = fetched
        .lists
        .iter()
        .map(|(_, l)| serde_json::from_str(&l.text()));
    Ok((lists.collect::<Result<_, _>>()?, words))
}

/// YAML documents separated by `---`, or one JSON document per line group.
/// (Kubernetes v1 Lists, not documents of the contract; printed by the same printers.)
fn render(lists: &[Value], format: Format) -> Result<String> {
    let mut out = String::new();
    for (i, l) in lists.iter().enumerate() {
        if i > 0 && format == Format::Yaml {
            out += "---\n";
        }
        out += &crate::output::document(l, format)?;
    }
    Ok(out)
}

/// A line on stderr.
fn note(line: &str) {
    crate::output::stderr_line(line);
}
