//! What `simulate` resolves before the first tick ([`Plan`]) and each HPA configuration it runs
//! ([`Config`]): the run ([`super::run`]) builds them, the printers ([`super::output`],
//! [`super::text`], [`super::json`], [`super::timeline`]) read them.

use jiff::{SignedDuration, Timestamp};

use super::chart::ChartBuilder;
use super::engine::Simulation;
use super::options::Shown;
use super::summary::SummaryBuilder;
use super::svg;
use super::world::{Load, WorldParams};
use crate::core::Settings;

/// One HPA configuration to run.
pub struct Config {
    pub label: &'static str,
    pub source: String,
    pub sim: Simulation,
    pub summary: SummaryBuilder,
    pub chart: ChartBuilder,
    /// The SVG chart's data (with --chart or -o svg).
    pub track: Option<svg::Track>,
    /// Short column names of its metrics.
    pub metric_names: Vec<String>,
}

/// Everything resolved before the first tick.
pub struct Plan {
    pub settings: Settings,
    pub world: WorldParams,
    pub world_shown: Vec<(&'static str, Shown)>,
    pub start: Timestamp,
    pub start_origin: String,
    pub duration: SignedDuration,
    pub duration_origin: &'static str,
    pub ticks: u64,
    pub loads: Vec<Load>,
    pub replay: bool,
    pub source_note: String,
    /// Where the controller's memory at the start came from.
    pub memory_note: String,
}
