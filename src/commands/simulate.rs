//! `kubectl hpa simulate`: run the controller's algorithm tick by tick against a load scenario.
//!
//! Wiring only: the flags are resolved into [`SimulateOptions`], the source is loaded (a
//! snapshot or manifest file, or the live HPA), and [`crate::simulate::run`] streams the
//! timeline to stdout as it is computed, so memory does not grow with the run's length.

use std::io::Write;

use anyhow::{bail, Result};

pub use crate::cli::simulate::SimulateArgs;
use crate::cli::{Environment, UsageError};
use crate::simulate::options::{self, SimulateOptions, SourceChoice};
use crate::simulate::source::Source;
use crate::simulate::SimulateError;
use crate::snapshot::Snapshot;

/// Run `simulate`, streaming into `out`; returns the text still to print (none).
pub fn run(
    args: &SimulateArgs,
    env: &Environment,
    rt: &tokio::runtime::Runtime,
    out: &mut dyn Write,
) -> Result<String> {
    match execute(args, env, rt, out).and_then(|()| out.flush().map_err(Into::into)) {
        Ok(()) => Ok(String::new()),
        Err(e) if is_broken_pipe(&e) => Ok(String::new()),
        Err(e) => Err(e),
    }
}

fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.downcast_ref::<std::io::Error>()
        .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
}

/// Run `simulate`, writing its output to `out` as the run progresses. Errors happen before
/// the first byte is written, except write errors.
pub fn execute(
    args: &SimulateArgs,
    env: &Environment,
    rt: &tokio::runtime::Runtime,
    out: &mut dyn Write,
) -> Result<()> {
    let opts = options::resolve(args, env).map_err(edge)?;
    let source = load_source(args, &opts, rt)?;
    let endpoint = opts
        .backtest
        .as_ref()
        .map(|b| crate::simulate::prometheus::open(&b.target, &args.kube, rt))
        .transpose()?;
    crate::simulate::run::execute(&opts, &source, endpoint.as_ref(), out).map_err(edge)
}

/// A [`SimulateError`] at the command's edge: a usage error keeps exit code 2, a write error
/// stays an I/O error (a closed pipe is not reported).
pub fn edge(e: SimulateError) -> anyhow::Error {
    match e {
        SimulateError::Usage(m) => anyhow::Error::new(UsageError(m)),
        SimulateError::Write(io) => anyhow::Error::new(io),
        SimulateError::Json(j) => anyhow::Error::new(j),
        other => anyhow::Error::new(other),
    }
}

/// The source: a snapshot, a manifest with a synthetic target, or a live HPA.
fn load_source(
    args: &SimulateArgs,
    opts: &SimulateOptions,
    rt: &tokio::runtime::Runtime,
) -> Result<Source> {
    let from_file = |path: &std::path::Path| -> Result<Source> {
        let snap = Snapshot::from_file(path)?;
        Source::from_file(snap, path, opts).map_err(edge)
    };
    match &opts.source {
        SourceChoice::Snapshot(path) | SourceChoice::Manifest(path) => from_file(path),
        SourceChoice::Live => {
            let (snap, ns, name) = fetch_live(args, rt)?;
            Source::live(snap, ns, name, opts).map_err(edge)
        }
    }
}

/// The same objects `kubectl hpa snapshot NAME` would write, read from the cluster now.
fn fetch_live(
    args: &SimulateArgs,
    rt: &tokio::runtime::Runtime,
) -> Result<(Snapshot, String, String)> {
    let Some(name) = args.name.clone() else {
        bail!("name the HPA to simulate (kubectl hpa simulate NAME -n NAMESPACE), or give --snapshot FILE or --hpa FILE");
    };
    if args.kube.all_namespaces {
        bail!("simulate takes one HPA: use -n NAMESPACE, not -A");
    }
    let (list, ns) = rt.block_on(async {
        let conn = crate::cluster::connect(&args.kube).await?;
        let ns = conn.namespace.clone();
        let fetched = crate::cluster::fetch_hpa(&conn, &ns, &name).await?;
        anyhow::Ok((fetched.list, ns))
    })?;
    let snap = Snapshot::from_text(&list, &format!("cluster (HPA {ns}/{name})"))?;
    Ok((snap, ns, name))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn usage_errors_reach_the_edge_as_usage_errors() {
        let e = edge(SimulateError::Usage("--duration: invalid".into()));
        assert!(e.downcast_ref::<UsageError>().is_some());
        let io = std::io::Error::from(std::io::ErrorKind::BrokenPipe);
        assert!(is_broken_pipe(&edge(SimulateError::Write(io))));
        let e = edge(SimulateError::Source("no such file".into()));
        assert!(e.downcast_ref::<UsageError>().is_none());
    }
}
