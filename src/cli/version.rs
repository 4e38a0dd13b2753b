//! `kubectl hpa version`: this plugin's version and the controller releases it reproduces, as
//! `kubectl version --client` prints the client's (no cluster is read).

use clap::{Args, ValueEnum};

use crate::core::settings::{NEWEST_MINOR, OLDEST_MINOR, PRERELEASE_MINOR};

/// `-o` of `version`, as kubectl's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Default)]
pub enum VersionOutput {
    #[default]
    Text,
    Json,
    Yaml,
}

/// `kubectl hpa version [-o json|yaml]`
#[derive(Debug, Clone, Args)]
pub struct VersionArgs {
    /// Output format
    #[arg(short = 'o', long = "output", value_enum, default_value_t = VersionOutput::Text)]
    pub output: VersionOutput,
}

impl VersionArgs {
    /// The version, in the chosen format.
    pub fn render(&self) -> anyhow::Result<String> {
        let version = concat!("v", env!("CARGO_PKG_VERSION"));
        let doc = serde_json::json!({
            "clientVersion": {"gitVersion": version},
            "controllerReleases": {
                "oldest": format!("1.{OLDEST_MINOR}"),
                "newest": format!("1.{NEWEST_MINOR}"),
                "prerelease": format!("1.{PRERELEASE_MINOR}"),
                "default": "the cluster's, else the newest",
            },
        });
        Ok(match self.output {
            VersionOutput::Text => format!(
                "Client Version: {version}\nController releases: 1.{OLDEST_MINOR} to 1.{NEWEST_MINOR} (1.{PRERELEASE_MINOR} prerelease); default: the cluster's, else 1.{NEWEST_MINOR}\n"
            ),
            VersionOutput::Json => format!("{}\n", serde_json::to_string_pretty(&doc)?),
            VersionOutput::Yaml => crate::yaml::to_string(&doc)?,
        })
    }
}
