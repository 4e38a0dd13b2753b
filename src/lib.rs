//! kubectl-hpa: explain, simulate and migrate Kubernetes HorizontalPodAutoscalers.
//!
//! The crate is a library with a thin binary (`src/main.rs`). The algorithm lives in
//! [`core`], which performs no I/O; everything else feeds it or renders its trace.

// Modules are `pub(crate)`, so the compiler reports code nothing uses. The public surface is
// the re-exports below (what `main.rs`, `tests/` and `benches/` use) and the modules still
// `pub`: `yaml` (the one YAML front, which the tests read outputs with) and the feature and
// input folders other work is landing in now (`cluster`, `diagnose`, `explain`, `history`,
// `keda`, `migrate`, `snapshot`): their unused items are theirs to wire or remove before they
// become `pub(crate)` too.
pub mod adapter;
pub(crate) mod bounded_read;
pub(crate) mod cli;
pub mod cluster;
pub(crate) mod commands;
pub(crate) mod completion;
pub(crate) mod core;
pub mod diagnose;
pub(crate) mod display;
pub(crate) mod duration;
pub(crate) mod events;
pub mod explain;
pub mod history;
pub mod keda;
pub(crate) mod labels;
pub(crate) mod metrics_api;
pub mod migrate;
pub(crate) mod output;
pub(crate) mod quantity;
pub(crate) mod render;
pub(crate) mod restmapper;
pub(crate) mod schema;
pub(crate) mod simulate;
pub mod snapshot;
pub mod yaml;

/// The command line and the process's environment, as [`run`] takes them (tests build
/// `explain`'s options from a command line).
pub use cli::{Cli, Command, Environment, OutputFormat, Source};
/// `simulate` with parsed flags, writing into a writer (the simulate bench).
pub use commands::simulate::{execute as run_simulate, SimulateArgs};
/// The controller's algorithm on one input (the explain bench).
pub use core::{evaluate, History, Settings};
/// The contract: the explanation document, its apiVersion and the schema's path and text.
pub use output::contract::{explanation, API_VERSION, SCHEMA_PATH};
/// A decision rendered in a format (the explain bench).
pub use render::render as render_decision;
pub use schema::schema_text;
/// The backtest's Prometheus client (the backtest tests check its paging and errors).
pub use simulate::prometheus::Endpoint as PrometheusEndpoint;

/// Run the program with these arguments and environment; returns the process exit code.
///
/// Output goes to stdout, errors to stderr as one line each. stdout is locked and buffered here
/// ([`output::stdout`]): commands return their output, and the ones that stream write into it.
pub fn run(args: Vec<std::ffi::OsString>, env: cli::Environment) -> i32 {
    use clap::Parser;
    use std::io::Write;
    let parsed = match cli::Cli::try_parse_from(args) {
        Ok(c) => c,
        Err(e) => {
            let code = if e.use_stderr() {
                cli::EXIT_USAGE
            } else {
                cli::EXIT_OK
            };
            let _ = e.print();
            return code;
        }
    };
    // The one async runtime of the run (current-thread: the requests are I/O-bound and the
    // work between them is small), passed to whatever talks to a cluster.
    let rt = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            output::stderr_line(&format!("error: cannot start the async runtime: {e}"));
            return cli::EXIT_ERROR;
        }
    };
    let mut out = output::stdout(env.color());
    let result = dispatch(parsed.command, &env, &rt, &mut out);
    // A closed pipe: nothing to report.
    let _ = result.as_ref().map(|o| out.write_all(o.text.as_bytes()));
    let _ = out.flush();
    match result {
        Ok(o) if o.own_failure => cli::EXIT_OWN_FAILURE,
        Ok(_) => cli::EXIT_OK,
        Err(e) => {
            // Never `eprintln!`: it panics (an abort under panic = "abort") on a closed stderr.
            output::stderr_line(&format!("error: {}", one_line(&format!("{e:#}"))));
            if e.downcast_ref::<cli::UsageError>().is_some() {
                cli::EXIT_USAGE
            } else {
                cli::EXIT_ERROR
            }
        }
    }
}

/// Run a command: its outcome (the output still to print, and how the run ended); streams
/// write into `out`.
fn dispatch(
    command: cli::Command,
    env: &cli::Environment,
    rt: &tokio::runtime::Runtime,
    out: &mut dyn std::io::Write,
) -> anyhow::Result<output::Outcome> {
    command.refuse_several_contexts()?;
    let text = match command {
        cli::Command::Explain(a) => {
            return commands::explain::run_selected(&a.resolve(env)?, rt, out)
        }
        cli::Command::Snapshot(a) => commands::snapshot::run(&a, rt),
        cli::Command::History(a) => commands::history::run(&a.resolve(env)?, rt),
        cli::Command::Simulate(a) => commands::simulate::run(&a, env, rt, out),
        cli::Command::Migrate(a) => commands::migrate::run(&a, env, rt, out),
        cli::Command::Version(a) => a.render(),
        cli::Command::Completion(a) => completion::run_completion(&a),
        cli::Command::Complete(a) => completion::run_complete(&a, rt),
    };
    text.map(output::Outcome::ok)
}

/// Errors are printed on one line.
fn one_line(s: &str) -> String {
    s.split('\n')
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}
