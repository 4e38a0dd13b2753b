//! `kubectl hpa snapshot NAME`: fetch what explain reads for one HPA and print it as a `v1 List`
//! (YAML, or JSON with `-o json`) — the file `explain --snapshot` replays, with the time it was
//! taken and the API calls that failed.

use anyhow::Result;
use clap::Args;

use crate::cli::KubeFlags;
use crate::cluster;
use crate::output::Format;

/// Flags of `kubectl hpa snapshot`.
#[derive(Debug, Clone, Args)]
pub struct SnapshotArgs {
    /// Name of the HorizontalPodAutoscaler
    pub name: String,
    /// Output format
    #[arg(short = 'o', long = "output", value_parser = crate::output::only(&[Format::Yaml, Format::Json]), default_value = "yaml")]
    pub output: Format,
    #[command(flatten)]
    pub kube: KubeFlags,
}

/// Run `snapshot` and return the document.
pub fn run(args: &SnapshotArgs) -> Result<String> {
    if args.kube.all_namespaces {
        anyhow::bail!("snapshot takes one HPA: use -n NAMESPACE, not -A");
    }
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let fetched = rt.block_on(async {
        let conn = cluster::connect(&args.kube).await?;
        let ns = conn.namespace.clone();
        cluster::fetch_hpa(&conn, &ns, &args.name).await
    })?;
    // A Kubernetes v1 List, not a document of the contract; printed by the same printers.
    Ok(crate::output::document(&fetched.list, args.output)?)
}
