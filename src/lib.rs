//! kubectl-hpa: explain, simulate and migrate Kubernetes HorizontalPodAutoscalers.
//!
//! The crate is a library with a thin binary (`src/main.rs`). The algorithm lives in
//! [`core`], which performs no I/O; everything else feeds it or renders its trace.

pub mod bounded_read;
pub mod cli;
pub mod cluster;
pub mod commands;
pub mod completion;
pub mod core;
pub mod diagnose;
pub mod display;
pub mod duration;
pub mod events;
pub mod explain;
pub mod history;
pub mod labels;
pub mod metrics_api;
pub mod migrate;
pub mod output;
pub mod quantity;
pub mod render;
pub mod restmapper;
pub mod schema;
pub mod simulate;
pub mod snapshot;
pub mod yaml;

/// Set when a verdict said that a request of ours failed (exit [`cli::EXIT_OWN_FAILURE`]).
static OWN_FAILURE: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// A decision of this run is `Unknown` because a request of ours failed.
pub fn note_own_failure() {
    OWN_FAILURE.store(true, std::sync::atomic::Ordering::Relaxed);
}

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
    OWN_FAILURE.store(false, std::sync::atomic::Ordering::Relaxed);
    let mut out = output::stdout(env.color());
    let result = dispatch(parsed.command, &env, &mut out);
    // A closed pipe: nothing to report.
    let _ = result.as_ref().map(|text| out.write_all(text.as_bytes()));
    let _ = out.flush();
    match result {
        Ok(_) => match OWN_FAILURE.load(std::sync::atomic::Ordering::Relaxed) {
            true => cli::EXIT_OWN_FAILURE,
            false => cli::EXIT_OK,
        },
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

/// Run a command: its output is returned, or (streams) written into `out`.
fn dispatch(
    command: cli::Command,
    env: &cli::Environment,
    out: &mut dyn std::io::Write,
) -> anyhow::Result<String> {
    match command {
        cli::Command::Explain(a) => commands::explain::run_selected(&a.resolve(env)?, out),
        cli::Command::Snapshot(a) => commands::snapshot::run(&a),
        cli::Command::History(a) => commands::history::run(&a.resolve(env)?),
        cli::Command::Simulate(a) => commands::simulate::run(&a, env, out),
        cli::Command::Migrate(a) => commands::migrate::run(&a, env, out),
        cli::Command::Version(a) => a.render(),
        cli::Command::Completion(a) => completion::run_completion(&a),
        cli::Command::Complete(a) => completion::run_complete(&a),
    }
}

/// Errors are printed on one line.
fn one_line(s: &str) -> String {
    s.split('\n')
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}
