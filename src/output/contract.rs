//! The JSON contract: every JSON/YAML document the program writes, its one `apiVersion`, and the
//! JSON Schema generated from these types (`schema/kubectl-hpa.v1.schema.json`).
//!
//! A document is a [`Document`]: `apiVersion`, `kind`, then the fields of its body. Keys are
//! camelCase, as in Kubernetes. The bodies' field types (the decision trace, the migration
//! report, ...) live beside the code that computes them and derive [`JsonSchema`]; what makes
//! them a document (the envelope, the kind, the streamed layout of a simulation) is here.

use std::io::Write;

use jiff::Timestamp;
use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::Serialize;
use serde_json::value::RawValue;

use crate::core::with_memory::MemorySource;
use crate::core::{Decision, DesiredRange, History, Verdict};
use crate::diagnose::Finding;

/// The `apiVersion` of every document (the only place it is spelled).
pub const API_VERSION: &str = "kubectl-hpa.dev/v1";

/// Where the schema is published, relative to the repository.
pub const SCHEMA_PATH: &str = "schema/kubectl-hpa.v1.schema.json";

/// The kinds of document.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// `explain NAME`: one HPA's decision trace (and, live, `liveComparison`).
    Explanation,
    /// `explain` without NAME, or `-A`: one line per HPA.
    FleetExplanation,
    /// `explain --watch -o json|yaml`: one per change of the decision.
    WatchEvent,
    /// `explain --watch -o json|yaml` without NAME: one per changed fleet row.
    FleetWatchEvent,
    /// `simulate -o json`: the run, its timeline and summaries.
    Simulation,
    /// `migrate -o json`: the plan (and what `--apply` sent).
    MigrationPlan,
    /// `history NAME -o json|yaml`: the recorded scale changes and what decided them.
    History,
}

impl Kind {
    /// Every kind, in the schema's order.
    pub const ALL: [Kind; 7] = [
        Kind::Explanation,
        Kind::FleetExplanation,
        Kind::WatchEvent,
        Kind::FleetWatchEvent,
        Kind::Simulation,
        Kind::MigrationPlan,
        Kind::History,
    ];

    /// The `kind` string.
    pub const fn as_str(self) -> &'static str {
        match self {
            Kind::Explanation => "Explanation",
            Kind::FleetExplanation => "FleetExplanation",
            Kind::WatchEvent => "WatchEvent",
            Kind::FleetWatchEvent => "FleetWatchEvent",
            Kind::Simulation => "Simulation",
            Kind::MigrationPlan => "MigrationPlan",
            Kind::History => "History",
        }
    }
}

/// A document: `apiVersion`, `kind`, then the body's fields.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Document<T> {
    api_version: &'static str,
    kind: &'static str,
    #[serde(flatten)]
    body: T,
}

impl<T> Document<T> {
    /// The body as a document of this kind.
    pub fn new(kind: Kind, body: T) -> Document<T> {
        Document {
            api_version: API_VERSION,
            kind: kind.as_str(),
            body,
        }
    }

    /// The document's body.
    pub fn body(&self) -> &T {
        &self.body
    }
}

/// The body of an `Explanation`: the decision trace's fields, then (live) `liveComparison`,
/// then `diagnostics`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ExplanationBody<'a, L> {
    #[serde(flatten)]
    pub decision: &'a Decision,
    /// Live only: the HPA's status next to this recomputation.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub live_comparison: Option<&'a L>,
    pub diagnostics: &'a [Finding],
    /// The metrics chain behind each metric (APIService, Service, adapter, why a metric
    /// fails), when the snapshot or the cluster told it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub metrics_chain: Option<&'a crate::adapter::MetricsChain>,
    /// KEDA's layer, when a ScaledObject generated the HPA or targets its target.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub keda: Option<&'a crate::keda::view::KedaSection>,
    /// What keeps the replicas asked for from appearing: Pending pods and why, a ResourceQuota's
    /// refusal and how many more pods fit, a rollout's surge.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub capacity: Option<&'a crate::diagnose::Capacity>,
    /// Other hands on the same workload: VPAs, PDBs, LimitRanges supplying requests, other
    /// HPAs and ScaledObjects.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub other_hands: Option<&'a crate::diagnose::OtherHands>,
}

/// The `Explanation` of one HPA from a snapshot (no live comparison).
pub fn explanation<'a>(
    decision: &'a Decision,
    diagnostics: &'a [Finding],
) -> Document<ExplanationBody<'a, ()>> {
    live_explanation::<()>(decision, None, diagnostics, None)
}

/// The `Explanation` of one HPA, with (live) its comparison with the HPA's status.
pub fn live_explanation<'a, L>(
    decision: &'a Decision,
    live_comparison: Option<&'a L>,
    diagnostics: &'a [Finding],
    metrics_chain: Option<&'a crate::adapter::MetricsChain>,
) -> Document<ExplanationBody<'a, L>> {
    Document::new(
        Kind::Explanation,
        ExplanationBody {
            decision,
            live_comparison,
            diagnostics,
            metrics_chain,
            keda: None,
            capacity: None,
            other_hands: None,
        },
    )
}

impl<'a, L> Document<ExplanationBody<'a, L>> {
    /// The explanation with KEDA's section.
    pub fn with_keda(mut self, keda: Option<&'a crate::keda::view::KedaSection>) -> Self {
        self.body.keda = keda;
        self
    }

    /// The explanation with the typed sections of what stops the replicas.
    pub fn with_blockers(
        mut self,
        capacity: Option<&'a crate::diagnose::Capacity>,
        other_hands: Option<&'a crate::diagnose::OtherHands>,
    ) -> Self {
        self.body.capacity = capacity;
        self.body.other_hands = other_hands;
        self
    }
}

/// A decision trace inside another document (a fleet item's `decision`): an `Explanation`
/// without `diagnostics` (the item has them).
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct EmbeddedExplanation<'a> {
    api_version: &'static str,
    kind: &'static str,
    #[serde(flatten)]
    decision: &'a Decision,
}

/// Serialise a fleet item's decision as an [`EmbeddedExplanation`] (`serialize_with`).
pub fn embedded_explanation<S: serde::Serializer>(
    d: &Option<Decision>,
    s: S,
) -> Result<S::Ok, S::Error> {
    d.as_ref()
        .map(|decision| EmbeddedExplanation {
            api_version: API_VERSION,
            kind: Kind::Explanation.as_str(),
            decision,
        })
        .serialize(s)
}

/// The body of a `FleetExplanation`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct FleetBody<'a, I> {
    /// `namespace shop`, `all namespaces`.
    pub scope: String,
    pub source: String,
    pub notes: &'a [String],
    pub items: &'a [I],
    /// The kubeconfig contexts read (`--context` given several times, `--all-contexts`), in
    /// order; absent when one context (or a file) was read.
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    pub contexts: &'a [ContextAnswer],
}

/// How one kubeconfig context of a several-context fleet answered.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ContextAnswer {
    /// The context's name in the kubeconfig.
    pub context: String,
    /// The API server's URL (null when no connection could be set up).
    pub server: Option<String>,
    /// `namespace shop`, `all namespaces`.
    pub scope: String,
    /// How many HPAs it holds in the scope (before `--problems` and `-l`).
    pub hpas: usize,
    /// Why it could not be read (its HPAs are then absent from `items`); null when read.
    pub error: Option<String>,
}

/// The `FleetExplanation` of several HPAs.
pub fn fleet<'a, I>(
    scope: String,
    source: String,
    notes: &'a [String],
    items: &'a [I],
) -> Document<FleetBody<'a, I>> {
    Document::new(
        Kind::FleetExplanation,
        FleetBody {
            scope,
            source,
            notes,
            items,
            contexts: &[],
        },
    )
}

/// The `FleetExplanation` of the HPAs of several contexts, with how each context answered.
pub fn fleet_of_contexts<'a, I>(
    scope: String,
    source: String,
    notes: &'a [String],
    items: &'a [I],
    contexts: &'a [ContextAnswer],
) -> Document<FleetBody<'a, I>> {
    let mut doc = fleet(scope, source, notes, items);
    doc.body.contexts = contexts;
    doc
}

/// The body of a `WatchEvent`: what changed at one evaluation of `explain --watch`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct WatchBody<'a> {
    /// When this evaluation ran.
    pub time: Timestamp,
    pub current_replicas: Option<i32>,
    pub desired_replicas: Option<i32>,
    pub proposal: Option<i32>,
    pub verdict: &'a Verdict,
    /// Each metric's value against its target, in one line.
    pub metrics: String,
    /// The watch has seen a whole stabilization window: its memory is its own.
    pub history_complete: bool,
    pub desired_range: Option<DesiredRange>,
    pub memory_source: Option<MemorySource>,
    /// The controller's memory after this evaluation.
    pub history: &'a History,
}

/// The `WatchEvent` for a decision of the watch.
pub fn watch_event<'a>(
    d: &'a Decision,
    metrics: String,
    history_complete: bool,
) -> Document<WatchBody<'a>> {
    Document::new(
        Kind::WatchEvent,
        WatchBody {
            time: d.now,
            current_replicas: d.current_replicas,
            desired_replicas: d.desired_replicas,
            proposal: d.proposal,
            verdict: &d.verdict,
            metrics,
            history_complete,
            desired_range: d.desired_range,
            memory_source: d.memory.as_ref().map(|m| m.source),
            history: &d.history.after,
        },
    )
}

/// The `FleetWatchEvent` of a fleet row that changed.
pub fn fleet_watch_event<I>(item: &I) -> Document<&I> {
    Document::new(Kind::FleetWatchEvent, item)
}

/// A `MigrationPlan`.
pub fn migration_plan<R>(report: &R) -> Document<&R> {
    Document::new(Kind::MigrationPlan, report)
}

/// Seconds as a JSON number written the way people write them (`1800`, `0.5`).
/// JSON only (it serialises through serde_json's raw value); non-finite values are written as 0.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Seconds(pub f64);

impl Serialize for Seconds {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let finite = if self.0.is_finite() { self.0 } else { 0.0 };
        match RawValue::from_string(finite.to_string()) {
            Ok(raw) => raw.serialize(s),
            Err(_) => s.serialize_f64(finite),
        }
    }
}

impl JsonSchema for Seconds {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Seconds".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        schemars::json_schema!({"type": "number", "description": "Seconds."})
    }
}

/// The fields of a `Simulation` before its timeline (the document is streamed: this head, the
/// timeline rows, then [`write_simulation_tail`]).
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SimulationHead<'a, W, L, C> {
    pub start: Timestamp,
    pub duration_seconds: Seconds,
    pub sync_period_seconds: Seconds,
    pub ticks: u64,
    pub replayed_first_tick: bool,
    /// The controller's memory at the start, in words.
    pub starting_memory: &'a str,
    pub settings: &'a crate::core::Settings,
    pub world: &'a W,
    pub loads: &'a [L],
    pub configs: &'a [C],
}

/// One configuration's summary (`summaries[]` of a `Simulation`).
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct NamedSummary<'a, S> {
    /// The configuration's label (`A`, `B`).
    pub config: &'a str,
    #[serde(flatten)]
    pub summary: &'a S,
}

/// The whole `Simulation` as one type, for the schema (it is written as a stream).
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SimulationSchema<W: 'static, L: 'static, C: 'static, R, S: 'static> {
    #[serde(flatten)]
    head: SimulationHead<'static, W, L, C>,
    timeline: Vec<R>,
    summaries: Vec<NamedSummary<'static, S>>,
    /// B − A of each summary figure, with `--compare`.
    difference: Option<std::collections::BTreeMap<String, f64>>,
}

/// Write the head of a `Simulation`: `{`, one field per line, and the opening of `timeline`.
pub fn write_simulation_head<W, L, C>(
    out: &mut dyn Write,
    head: &SimulationHead<W, L, C>,
) -> Result<(), super::OutputError>
where
    W: Serialize,
    L: Serialize,
    C: Serialize,
{
    let doc = Document::new(Kind::Simulation, head);
    writeln!(out, "{{")?;
    for (key, value) in fields(&doc)? {
        writeln!(out, "{}: {},", serde_json::to_string(&key)?, value.get())?;
    }
    writeln!(out, "\"timeline\": [")?;
    Ok(())
}

/// Close a `Simulation`'s timeline and write its summaries and (two configurations) difference.
pub fn write_simulation_tail<S: Serialize, D: Serialize>(
    out: &mut dyn Write,
    summaries: &[NamedSummary<S>],
    difference: &Option<D>,
) -> Result<(), super::OutputError> {
    writeln!(out, "\n],")?;
    writeln!(out, "\"summaries\": {},", serde_json::to_string(summaries)?)?;
    writeln!(
        out,
        "\"difference\": {}",
        serde_json::to_string(difference)?
    )?;
    writeln!(out, "}}")?;
    Ok(())
}

/// The top-level fields of a struct, in order, each as compact JSON.
fn fields<T: Serialize>(doc: &T) -> Result<Vec<(String, Box<RawValue>)>, serde_json::Error> {
    struct Fields(Vec<(String, Box<RawValue>)>);
    impl<'de> serde::Deserialize<'de> for Fields {
        fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Fields, D::Error> {
            struct V;
            impl<'de> serde::de::Visitor<'de> for V {
                type Value = Fields;
                fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                    f.write_str("an object")
                }
                fn visit_map<A: serde::de::MapAccess<'de>>(
                    self,
                    mut m: A,
                ) -> Result<Fields, A::Error> {
                    let mut v = Vec::new();
                    while let Some(kv) = m.next_entry::<String, Box<RawValue>>()? {
                        v.push(kv);
                    }
                    Ok(Fields(v))
                }
            }
            d.deserialize_map(V)
        }
    }
    let text = serde_json::to_string(doc)?;
    serde_json::from_str::<Fields>(&text).map(|f| f.0)
}

impl JsonSchema for crate::core::Rule {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Rule".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        schemars::json_schema!({
            "type": "string",
            "description": "The rule of the controller's algorithm that decided, named as the controller names it (ScaleUpLimit, ScaleDownStabilized, ...)."
        })
    }
}

impl JsonSchema for crate::core::KubeVersion {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "KubeVersion".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        schemars::json_schema!({
            "type": "string",
            "description": "A Kubernetes minor release, e.g. 1.37."
        })
    }
}
