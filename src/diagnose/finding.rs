//! The finding itself: its severity, its shape in the JSON contract, and the small helpers every
//! check writes its words with.

use serde::Serialize;
use serde_json::Value;

/// How bad a finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum Severity {
    Error,
    Warning,
    Info,
}

impl Severity {
    pub fn as_str(&self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Info => "info",
        }
    }
}

/// One diagnostic.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Finding {
    /// Stable identifier: `metrics-api-missing`, `metrics-api-unavailable`, `metrics-api-error`,
    /// `metrics-empty`, `metrics-stale`, `missing-request`, `foreign-pods`, `ambiguous-selector`,
    /// `target-missing`, `target-unreadable`, `rollout-in-progress`, `min-equals-max`,
    /// `target-at-zero`, `container-absent`, `memory-scale-up`, `next-scale`, `at-max-replicas`,
    /// `at-max-satisfied`, `at-min-floor`, `at-min-satisfied`, `average-value-ratchet`,
    /// `keda-external-metrics-held`, `adapter-rule-no-match`, `adapter-rule-resource-missing`,
    /// `adapter-rules-unreadable`.
    /// `pending-pods`, `quota-exceeded`, `vpa-conflict`, `pdb-blocks-drain`,
    /// `limitrange-request`.
    /// `at-max-satisfied`, `at-min-floor`, `at-min-satisfied`, `average-value-ratchet`, `keda-generated`,
    /// `keda-unreadable`, `keda-owns-move`, `keda-fallback`, `keda-paused`, `keda-bad-field`,
    /// `keda-conflict`.
    pub id: String,
    pub severity: Severity,
    pub message: String,
    pub action: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub details: Option<Value>,
}

pub(super) fn finding(id: &str, severity: Severity, message: String, action: String) -> Finding {
    Finding {
        id: id.into(),
        severity,
        message,
        action,
        details: None,
    }
}

/// A duration in whole seconds (`268d0h`, `2m45s`): no nanoseconds in a message.
pub(super) fn fmt_dur(d: jiff::SignedDuration) -> String {
    crate::display::units::duration(d)
}

pub(super) fn list_some(names: &[String], max: usize) -> String {
    let mut s = names
        .iter()
        .take(max)
        .cloned()
        .collect::<Vec<_>>()
        .join(", ");
    if names.len() > max {
        s.push_str(&format!(" and {} more", names.len() - max));
    }
    s
}
