//! The `explain` feature, free of command-line types: decide one HPA ([`one`]), many ([`fleet`];
//! the overview [`overview`] with its summary [`fleet_summary`], its table [`fleet_table`] and
//! `--sort-by` [`sort`]), the comparison with a live status ([`live`]) and the watches
//! ([`watch`] for one HPA, [`fleet_watch`] for many). The modules depend on each other in one
//! direction only: `fleet_targets` ← `fleet` ← `fleet_summary` ← `fleet_table` ←
//! `overview`/`fleet_watch`/`fleet_contexts` (several kubeconfig contexts), `one` ← `fleet`,
//! `live` ← `fleet_contexts`;
//! `one` ← `live`, `watch` ← `fleet_watch`; `one`/`fleet_contexts` ← `mode` (which way a
//! command line runs); `sort` stands alone.
//!
//! Every mode decides through [`one::decide_with_input`]: a fleet row, a live explain and a
//! watch line give the decision `explain NAME --snapshot FILE` gives for the same objects. The
//! command (`commands::explain`) only loads (a file or the cluster), picks the mode and prints.

pub mod fleet;
pub mod fleet_contexts;
pub mod fleet_summary;
pub mod fleet_table;
pub mod fleet_targets;
pub mod fleet_watch;
pub mod live;
pub mod mode;
pub mod one;
pub mod overview;
mod parallel;

pub mod watch;

// issue 28: bad or partial ScaledObjects, APIServices and rules ConfigMaps never panic
#[cfg(test)]
mod bad_crd_input;

/// Options and decisions from the examples, for the unit tests of the feature.
#[cfg(test)]
pub(crate) mod testing {
    use crate::cli::{Cli, Command, Environment, ExplainOptions};
    use crate::diagnose::Extras;
    use crate::snapshot::Snapshot;

    /// The evaluation time of every example.
    pub const NOW: &str = "2026-03-01T12:00:00Z";

    /// `kubectl hpa explain ARGS…`, resolved without a terminal at 100 columns.
    pub fn options(args: &[&str]) -> ExplainOptions {
        use clap::Parser;
        let mut argv = vec!["kubectl-hpa", "explain"];
        argv.extend_from_slice(args);
        let Command::Explain(a) = Cli::try_parse_from(argv).expect("parses").command else {
            panic!("not explain");
        };
        let env = Environment {
            stdout_is_tty: false,
            no_color: true,
            columns: Some(100),
        };
        a.resolve(&env).expect("resolves")
    }

    /// An example file and what it holds for diagnostics.
    pub fn example(file: &str) -> (Snapshot, Extras) {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("examples")
            .join(file);
        super::one::read_snapshot_file(std::slice::from_ref(&path)).expect("example reads")
    }
}
