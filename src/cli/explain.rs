//! `explain`'s flags resolved once into small plain structs, one per concern, so each part of
//! the feature takes only what it uses: [`ReadOptions`] (which HPAs, from where),
//! [`DecideOptions`] (how the controller's decision is computed), [`ViewOptions`] (how it is
//! shown) and [`WatchOptions`]. [`ExplainOptions`] is the bundle the command holds.

use jiff::Timestamp;

use super::{history, KubeFlags, OutputFormat, Select, Source};
use crate::core::{HistoryMode, Settings};

/// `explain`, resolved: the bundle the command (and `explain`'s mode) holds; the feature's
/// functions take its parts.
#[derive(Debug, Clone)]
pub struct ExplainOptions {
    pub read: ReadOptions,
    pub decide: DecideOptions,
    pub view: ViewOptions,
    pub watch: WatchOptions,
    /// `--at TIME --prometheus URL`: the decision of a past sync, replayed.
    pub at: Option<history::AtOptions>,
}

/// What to read: which HPAs, from a snapshot file or the cluster.
#[derive(Debug, Clone)]
pub struct ReadOptions {
    pub name: Option<String>,
    /// Every NAME given (`explain web api`); `name` is the first.
    pub names: Vec<String>,
    pub namespace: Option<String>,
    pub all_namespaces: bool,
    pub source: Source,
    pub kube: KubeFlags,
    /// `-l/--selector`: the fleet's HPAs whose labels match.
    pub selector: Option<crate::labels::Selector>,
}

/// How to decide: the evaluation time, the controller's memory and its flags.
#[derive(Debug, Clone)]
pub struct DecideOptions {
    pub now: Option<Timestamp>,
    /// Where the controller's memory comes from (`--history`).
    pub history: HistoryMode,
    pub settings: Settings,
    /// The objects come from a cluster (its `/version` is the server's, not a file's record).
    pub live: bool,
}

/// How to show: the format, the selection and the text's layout.
#[derive(Debug, Clone)]
pub struct ViewOptions {
    pub output: OutputFormat,
    /// `-o name` / `-o jsonpath=…`: what to print from the JSON output (then `output` is JSON).
    pub select: Option<Select>,
    pub color: bool,
    /// Columns the text fits (the terminal's, `COLUMNS`, else 100).
    pub width: usize,
    /// `--pods all` (or `-o wide`): every pod in the text.
    pub all_pods: bool,
    /// `--no-headers`: the fleet table without its header line.
    pub no_headers: bool,
    /// `--sort-by`: the order of the fleet's rows.
    pub sort_by: Option<crate::render::sort::SortBy>,
    /// `--problems`: only the fleet's rows that need someone.
    pub problems: bool,
}

/// `--watch`: re-evaluate every sync period (live only).
#[derive(Debug, Clone, Copy, Default)]
pub struct WatchOptions {
    pub on: bool,
    /// `--watch-count`: stop after this many evaluations.
    pub count: Option<u32>,
}

impl ExplainOptions {
    /// The options of one of several NAMEs: JSON when the whole is a document (the List is
    /// assembled from the typed documents), and no selection (`-o name|jsonpath=…` select
    /// from the List).
    pub fn each_name(&self) -> ExplainOptions {
        let mut one = self.clone();
        if self.view.output.is_document() {
            one.view.output = OutputFormat::Json;
        }
        one.view.select = None;
        one
    }
}

impl DecideOptions {
    /// The memory is exact: a `--history FILE`, or what `--watch` has kept itself.
    pub fn history_given(&self) -> bool {
        matches!(
            self.history,
            HistoryMode::File(_) | HistoryMode::Watched { .. }
        )
    }
}

impl ViewOptions {
    /// How the text output is laid out.
    pub fn text_options(&self) -> crate::render::TextOptions {
        crate::render::TextOptions {
            color: self.color,
            wide: self.output == OutputFormat::Wide,
            width: self.width,
            all_pods: self.all_pods,
        }
    }
}
