//! `kubectl hpa snapshot NAME`: fetch what explain reads for one HPA and print it as a `v1 List`
//! (YAML, or JSON with `-o json`) — the file `explain --snapshot` replays, with the time it was
//! taken and the API calls that failed.

use anyhow::Result;
use clap::{Args, ValueEnum};

use crate::cli::KubeFlags;
use crate::cluster;

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Default)]
pub enum SnapshotFormat {
    #[default]
    Yaml,
    Json,
}

/// Flags of `kubectl hpa snapshot`.
#[derive(Debug, Clone, Args)]
pub struct SnapshotArgs {
    /// Name of the HorizontalPodAutoscaler
    pub name: String,
    /// Output format
    #[arg(short = 'o', long = "output", value_enum, default_value_t = SnapshotFormat::Yaml)]
    pub output: SnapshotFormat,
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
    Ok(match args.output {
        SnapshotFormat::Yaml => serde_yaml::to_string(&fetched.list)?,
        SnapshotFormat::Json => serde_json::to_string_pretty(&fetched.list)? + "\n",
    })
}
