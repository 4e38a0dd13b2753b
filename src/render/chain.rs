//! The metrics chain under the Metrics table: for each metric, the APIService it is read
//! through, the Service and adapter behind it, and why it fails; KEDA's APIService held by
//! another adapter first.

use super::{Context, Style};
use crate::adapter::facts::MetricLink;

/// The chain's lines (nothing when the chain is unknown).
pub(super) fn lines(cx: &Context, st: &Style) -> String {
    let Some(chain) = cx.chain else {
        return String::new();
    };
    let mut o = String::from("\n  Metrics chain:\n");
    if let Some(k) = &chain.keda_conflict {
        o += &st.para(
            &format!(
                "KEDA's APIService {} is held by {}{}: neither the External metrics nor KEDA's fallback reach this HPA (see What you can do)",
                k.api_service,
                k.adapter.words(),
                k.service.as_deref().map(|s| format!(" (Service {s})")).unwrap_or_default()
            ),
            "  ! ",
            "    ",
        );
    }
    for m in &chain.metrics {
        o += &st.para(&link_text(m), &format!("  {}. ", m.index), "     ");
        if let Some(c) = &m.cause {
            let head = if m.failed { "why it fails: " } else { "note: " };
            o += &st.para(&format!("{head}{c}"), "     ", "       ");
        }
    }
    for n in &chain.notes {
        o += &st.para(n, "  - ", "    ");
    }
    o
}

/// `cpu ← v1beta1.metrics.k8s.io → Service kube-system/metrics-server (metrics-server), Available`
fn link_text(m: &MetricLink) -> String {
    let Some(api) = &m.api_service else {
        return format!("{} ← {}: no APIService in the snapshot", m.metric, m.api);
    };
    let who = match (&m.service, m.adapter) {
        (Some(s), Some(a)) => format!(" → Service {s} ({})", a.words()),
        (Some(s), None) => format!(" → Service {s}"),
        (None, _) => " (served by the API server itself)".to_string(),
    };
    let state = match (m.available, &m.reason) {
        (Some(true), _) => "Available".to_string(),
        (Some(false), Some(r)) => format!("NOT available ({r})"),
        (Some(false), None) => "NOT available".to_string(),
        (None, _) => "availability unknown".to_string(),
    };
    let trigger = m
        .keda_trigger
        .as_ref()
        .and_then(|t| {
            let i = t.trigger_index?;
            Some(format!(
                "; trigger {i}{} of ScaledObject {}{}",
                t.trigger_type
                    .as_deref()
                    .map(|t| format!(" ({t})"))
                    .unwrap_or_default(),
                t.scaled_object,
                t.health
                    .as_deref()
                    .map(|h| format!(", health {h}"))
                    .unwrap_or_default()
            ))
        })
        .unwrap_or_default();
    let rules = m
        .rules
        .as_ref()
        .map(|r| match r.matched_by.first() {
            Some(h) => format!(
                "; {} of ConfigMap {} maps series {} to it",
                h.rule, r.config_map, h.series
            ),
            None => String::new(),
        })
        .unwrap_or_default();
    format!("{} ← {api}{who}, {state}{trigger}{rules}", m.metric)
}
