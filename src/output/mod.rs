//! The one output layer: the format enum, the JSON/YAML printers, the documents of the JSON
//! contract ([`contract`]) and the writer that every command's output reaches.
//!
//! Commands build a document (or text) and hand it over; [`crate::run`] owns stdout
//! ([`Stdout`]), and the commands that stream (watch, simulate, migrate's report before an
//! error) write into the `&mut dyn Write` it passes them. Nothing else writes to stdout.

pub mod contract;
mod controls;
pub mod custom_columns;
pub mod jsonpath;
pub mod path;
pub mod select;

use std::io::Write;

use serde::Serialize;

pub use controls::{escape_controls, Clean};

/// The output format of explain (`-o text|wide|json|yaml`; `name` and `jsonpath=` select from
/// the JSON) and of the printers here.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum Format {
    /// For people, fitted to the terminal.
    #[default]
    Text,
    /// Text with the long forms (every pod, every column).
    Wide,
    /// The contract's document, pretty-printed JSON.
    Json,
    /// The contract's document as YAML.
    Yaml,
}

impl Format {
    /// The name on the command line (`-o NAME`).
    pub const fn name(self) -> &'static str {
        match self {
            Format::Text => "text",
            Format::Wide => "wide",
            Format::Json => "json",
            Format::Yaml => "yaml",
        }
    }

    /// JSON or YAML: a document of the contract rather than text.
    pub fn is_document(self) -> bool {
        matches!(self, Format::Json | Format::Yaml)
    }
}

/// The `-o` parser of a command that has only some of the formats (migrate: text and json;
/// snapshot: yaml and json).
pub fn only(formats: &'static [Format]) -> impl clap::builder::TypedValueParser<Value = Format> {
    use clap::builder::TypedValueParser as _;
    clap::builder::PossibleValuesParser::new(formats.iter().map(|f| f.name())).map(|name| {
        [Format::Text, Format::Wide, Format::Json, Format::Yaml]
            .into_iter()
            .find(|f| f.name() == name)
            .unwrap_or_default()
    })
}

/// What a command did: the output still to print, and whether a verdict of the run said that a
/// request of ours failed (exit 3, UNKNOWN), so the status travels with the result.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Outcome {
    pub text: String,
    pub own_failure: bool,
}

impl Outcome {
    /// A run that ended as it should, with this output.
    pub fn ok(text: String) -> Outcome {
        Outcome {
            text,
            own_failure: false,
        }
    }
}

/// A document could not be printed.
#[derive(Debug, thiserror::Error)]
pub enum OutputError {
    /// serde_json could not serialise the document.
    #[error("cannot write the JSON output: {0}")]
    Json(#[from] serde_json::Error),
    /// The YAML writer could not serialise the document.
    #[error("cannot write the YAML output: {0}")]
    Yaml(#[from] crate::yaml::SerializeError),
    /// The writer failed (a closed pipe, a full disk).
    #[error("cannot write the output: {0}")]
    Io(#[from] std::io::Error),
    /// Text and wide are rendered per command, not by the document printers.
    #[error("{0:?} is not a document format (json or yaml)")]
    NotADocumentFormat(Format),
}

/// A document as pretty JSON with a final newline.
pub fn json<T: Serialize + ?Sized>(doc: &T) -> Result<String, OutputError> {
    Ok(serde_json::to_string_pretty(doc)? + "\n")
}

/// A document as YAML.
pub fn yaml<T: Serialize + ?Sized>(doc: &T) -> Result<String, OutputError> {
    Ok(crate::yaml::to_string(&doc)?)
}

/// A document in a document format (JSON or YAML).
pub fn document<T: Serialize + ?Sized>(doc: &T, format: Format) -> Result<String, OutputError> {
    match format {
        Format::Json => json(doc),
        Format::Yaml => yaml(doc),
        f => Err(OutputError::NotADocumentFormat(f)),
    }
}

/// One document of a stream: a compact JSON line, or a YAML document opened by `---`.
pub fn stream_item<T: Serialize + ?Sized>(doc: &T, format: Format) -> Result<String, OutputError> {
    match format {
        Format::Yaml => Ok(format!("---\n{}", crate::yaml::to_string(&doc)?)),
        Format::Json => Ok(serde_json::to_string(doc)? + "\n"),
        f => Err(OutputError::NotADocumentFormat(f)),
    }
}

/// stdout, locked and buffered, control characters escaped ([`Clean`]): the one writer of the
/// program's output (owned by [`crate::run`]).
pub type Stdout = Clean<std::io::BufWriter<std::io::StdoutLock<'static>>>;

/// Lock and buffer stdout (64 KiB: simulate streams large timelines through it); `color`: the
/// renderers' SGR colour sequences pass.
pub fn stdout(color: bool) -> Stdout {
    Clean::new(
        std::io::BufWriter::with_capacity(1 << 16, std::io::stdout().lock()),
        color,
    )
}

/// A line on stderr, its control characters escaped; a closed stderr is not a reason to abort
/// (never `eprintln!`: it panics on a closed stderr).
pub fn stderr_line(line: &str) {
    let _ = writeln!(std::io::stderr().lock(), "{}", escape_controls(line));
}

/// Write and flush: false when the reader is gone (a closed pipe ends a stream quietly).
pub fn write_now(out: &mut dyn Write, s: &str) -> bool {
    out.write_all(s.as_bytes())
        .and_then(|()| out.flush())
        .is_ok()
}
