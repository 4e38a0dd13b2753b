//! The errors of `simulate`: one enum, grouped by what went wrong, each message one line naming
//! the flag, file, line or field and what to do.
//!
//! `commands::simulate` turns them into `anyhow` errors at the edge: [`SimulateError::Usage`]
//! becomes a [`UsageError`](crate::cli::UsageError) (exit code 2), the rest exit code 1.

use std::fmt;

use super::backtest::BacktestError;
use super::series::SeriesError;
use crate::snapshot::SnapshotError;

/// Why a simulation cannot run (or its output cannot be written).
#[derive(Debug)]
pub enum SimulateError {
    /// Bad command-line usage: a flag's value out of range or unparsable (exit code 2).
    Usage(String),
    /// A flag's value or a combination of flags that cannot be used (exit code 1).
    Flag(String),
    /// A scenario file that cannot be used: names the file and the field.
    Scenario(String),
    /// A load series that cannot be used: a shorthand shape, a CSV file or a Prometheus export.
    Series(String),
    /// A file that cannot be read; `what` names the flag and the file.
    Read {
        what: String,
        source: std::io::Error,
    },
    /// The HPA's source (snapshot, manifest, compare manifest, history) cannot be used.
    Source(String),
    /// A snapshot or manifest file that cannot be read or has no such HPA.
    Snapshot(SnapshotError),
    /// Loads that do not fit the HPA's metrics.
    Load(String),
    /// A run that is empty, too long, or that the engine refuses.
    Run(String),
    /// A backtest against Prometheus failed.
    Backtest(BacktestError),
    /// `--chart FILE` cannot be written.
    Chart {
        path: String,
        source: std::io::Error,
    },
    /// Writing the output failed (a closed pipe is not reported).
    Write(std::io::Error),
    /// Writing a JSON value of the output failed.
    Json(serde_json::Error),
}

impl From<SeriesError> for SimulateError {
    fn from(e: SeriesError) -> SimulateError {
        SimulateError::Series(e.0)
    }
}

impl fmt::Display for SimulateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SimulateError::Usage(m)
            | SimulateError::Flag(m)
            | SimulateError::Scenario(m)
            | SimulateError::Series(m)
            | SimulateError::Source(m)
            | SimulateError::Load(m)
            | SimulateError::Run(m) => f.write_str(m),
            SimulateError::Read { what, .. } => f.write_str(what),
            SimulateError::Snapshot(e) => e.fmt(f),
            SimulateError::Backtest(e) => e.fmt(f),
            SimulateError::Chart { path, .. } => write!(f, "--chart: cannot write {path}"),
            SimulateError::Write(e) => e.fmt(f),
            SimulateError::Json(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for SimulateError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            SimulateError::Read { source, .. } | SimulateError::Chart { source, .. } => {
                Some(source)
            }
            _ => None,
        }
    }
}

impl From<std::io::Error> for SimulateError {
    fn from(e: std::io::Error) -> Self {
        SimulateError::Write(e)
    }
}

impl From<serde_json::Error> for SimulateError {
    fn from(e: serde_json::Error) -> Self {
        SimulateError::Json(e)
    }
}

impl From<BacktestError> for SimulateError {
    fn from(e: BacktestError) -> Self {
        SimulateError::Backtest(e)
    }
}

impl From<SnapshotError> for SimulateError {
    fn from(e: SnapshotError) -> Self {
        SimulateError::Snapshot(e)
    }
}

impl From<crate::cli::UsageError> for SimulateError {
    fn from(e: crate::cli::UsageError) -> Self {
        SimulateError::Usage(e.0)
    }
}

/// `Result` with a [`SimulateError`].
pub type Result<T, E = SimulateError> = std::result::Result<T, E>;

impl From<crate::output::OutputError> for SimulateError {
    fn from(e: crate::output::OutputError) -> Self {
        use crate::output::OutputError;
        match e {
            OutputError::Io(io) => SimulateError::Write(io),
            OutputError::Json(j) => SimulateError::Json(j),
            other => SimulateError::Write(std::io::Error::other(other.to_string())),
        }
    }
}
