//! The metrics chain behind an HPA's metrics (issue 28 items 2–3), pure: which APIService
//! serves each metric, its Service and `Available` condition, the adapter behind it
//! ([`who`]: metrics-server, prometheus-adapter, KEDA's metrics server, Datadog, the
//! Google/Azure/AWS adapters), and why a metric is `<unknown>`: prometheus-adapter's rules
//! ([`rules`]), metrics-server's missing samples, the KEDA trigger's health. Read from the
//! [`crate::snapshot::Snapshot`] (live and offline alike); [`facts::metrics_chain`] builds the
//! `metricsChain` section.

pub mod facts;
pub mod rules;
pub mod who;

pub use facts::{metrics_chain, MetricsChain};
/// The diagnose tests name adapters by kind.
#[cfg(test)]
pub use who::AdapterKind;
