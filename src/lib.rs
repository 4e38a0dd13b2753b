//! kubectl-hpa: explain, simulate and migrate Kubernetes HorizontalPodAutoscalers.
//!
//! The crate is a library with a thin binary (`src/main.rs`). The algorithm lives in
//! [`core`], which performs no I/O; everything else feeds it or renders its trace.

// Modules are `pub(crate)`, so the compiler reports code nothing uses. The public surface is
// the re-exports below (what `main.rs`, `tests/` and `benches/` use, each item named) and
// `yaml`, the one YAML front the tests read outputs with: all of it is used inside the crate
// too (`pub(crate)` reports nothing there), so it stays a module rather than five re-exports.
pub(crate) mod adapter;
pub(crate) mod bounded_read;
pub(crate) mod cli;
pub(crate) mod cluster;
pub(crate) mod commands;
pub(crate) mod completion;
pub(crate) mod core;
pub(crate) mod diagnose;
pub(crate) mod display;
pub(crate) mod duration;
pub(crate) mod events;
pub(crate) mod explain;
pub(crate) mod history;
pub(crate) mod keda;
pub(crate) mod labels;
pub(crate) mod metrics_api;
pub(crate) mod migrate;
pub(crate) mod output;
pub(crate) mod quantity;
pub(crate) mod render;
pub(crate) mod restmapper;
pub(crate) mod schema;
pub(crate) mod simulate;
pub(crate) mod snapshot;
pub mod yaml;

/// The command line and the process's environment, as [`run`] takes them (tests build
/// `explain`'s options from a command line).
pub use cli::{Cli, Command, Environment, OutputFormat, Source};
/// `simulate` with parsed flags, writing into a writer (the simulate bench).
pub use commands::simulate::{execute as run_simulate, SimulateArgs};
/// The controller's algorithm on one input (the explain bench).
pub use core::{evaluate, History, Settings};
/// The history bench's one entry point (`history` is private).
#[doc(hidden)]
pub use history::bench::HistoryBench;
/// The contract: the explanation document, its apiVersion and the schema's path and text.
pub use output::contract::{explanation, API_VERSION, SCHEMA_PATH};
/// A decision rendered in a format (the explain bench).
pub use render::render as render_decision;
pub use schema::schema_text;
/// The backtest's Prometheus client (the backtest tests check its paging and errors).
pub use simulate::prometheus::Endpoint as PrometheusEndpoint;

/// migrate's pieces the integration tests drive directly: the edit finder's types, a session
/// and its confirmation, the manifest reader, the chart scan, the template parser, the writer.
pub use cluster::ConnectOptions;
/// Reading a snapshot file (with what it holds for diagnostics), deciding one HPA of it and
/// diagnosing the decision (the controller cases; the explain and history benches).
pub use diagnose::diagnose;
pub use explain::one::{decide_with_input, read_snapshot_file};
pub use migrate::chart::scan as scan_chart;
pub use migrate::files::read as read_manifests;
pub use migrate::manifest::{EditAction, FileEdit, Manifest, ObjectRef};
pub use migrate::renderer::Templates;
pub use migrate::report::{FileReport, Mode as MigrateMode};
pub use migrate::session::{needs_confirmation, run as migrate_session};
pub use migrate::write::write_edits_with;
pub use migrate::Options as MigrateOptions;
pub use snapshot::Snapshot;

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
