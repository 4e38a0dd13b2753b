//! What a sync records on the HPA: conditions, events, the narration, and the status written at
//! the end (`setCondition`, the event recorder, `setCurrentReplicasAndMetricsInStatus`).

use std::fmt::{self, Write};

use jiff::Timestamp;
use k8s_openapi::api::autoscaling::v2 as hpa_v2;

use super::model::{Detail, History, Input};
use super::{Condition, Decision, Event, MetricOutcome, Step};

/// The conditions, events and steps of one sync, as it goes.
pub(super) struct Ctx {
    /// Build the narration (steps)?
    narrate: bool,
    pub(super) conditions: Vec<Condition>,
    events: Vec<Event>,
    steps: Vec<Step>,
    now: Timestamp,
    /// `metadata.generation`, written into each condition set (1.37+), else None.
    generation: Option<i64>,
}

impl Ctx {
    /// Starts from the conditions of the HPA's last status.
    pub(super) fn new(input: &Input, generation: Option<i64>) -> Ctx {
        Ctx {
            narrate: input.detail == Detail::Full,
            conditions: previous_conditions(input),
            events: vec![],
            steps: vec![],
            now: input.now,
            generation,
        }
    }

    /// Mirrors `setCondition`: the transition time moves only when the status changes. The
    /// strings of a condition already present are rewritten in place (no allocation per sync).
    pub(super) fn set_condition(
        &mut self,
        type_: &str,
        status: &str,
        reason: &str,
        message: fmt::Arguments<'_>,
    ) {
        if let Some(c) = self.conditions.iter_mut().find(|c| c.type_ == type_) {
            if c.status != status {
                c.last_transition_time = Some(self.now);
                replace(&mut c.status, status);
            }
            replace(&mut c.reason, reason);
            c.message.clear();
            let _ = c.message.write_fmt(message);
            c.observed_generation = self.generation;
            c.set_this_sync = true;
        } else {
            self.conditions.push(Condition {
                type_: type_.into(),
                status: status.into(),
                reason: reason.into(),
                message: fmt::format(message),
                last_transition_time: Some(self.now),
                observed_generation: self.generation,
                set_this_sync: true,
            });
        }
    }

    pub(super) fn remove_condition(&mut self, type_: &str) {
        self.conditions.retain(|c| c.type_ != type_);
    }

    /// Whether the condition `type_` is currently `True`.
    pub(super) fn is_true(&self, type_: &str) -> bool {
        self.conditions
            .iter()
            .find(|c| c.type_ == type_)
            .is_some_and(|c| c.status == "True")
    }

    /// Mirrors `eventRecorder.Event`.
    pub(super) fn event(&mut self, type_: &str, reason: &str, message: impl Into<String>) {
        self.events.push(Event {
            type_: type_.into(),
            reason: reason.into(),
            message: message.into(),
        });
    }

    /// Record a step of the explanation (built only for the full explanation).
    pub(super) fn step<S: Into<String>>(&mut self, rule: &str, text: impl FnOnce() -> S) {
        if !self.narrate {
            return;
        }
        self.steps.push(Step {
            rule: rule.into(),
            text: text().into(),
        });
    }
}

/// `*s = new`, reusing `s`'s buffer.
fn replace(s: &mut String, new: &str) {
    if s != new {
        s.clear();
        s.push_str(new);
    }
}

/// The conditions of the HPA's last status, as this sync starts from them.
fn previous_conditions(input: &Input) -> Vec<Condition> {
    let Some(cs) = input
        .hpa
        .status
        .as_ref()
        .and_then(|st| st.conditions.as_ref())
    else {
        return vec![];
    };
    cs.iter()
        .map(|c| Condition {
            type_: c.type_.clone(),
            status: c.status.clone(),
            reason: c.reason.clone().unwrap_or_default(),
            message: c.message.clone().unwrap_or_default(),
            last_transition_time: c.last_transition_time.as_ref().map(|t| t.0),
            observed_generation: None,
            set_this_sync: false,
        })
        .collect()
}

/// Mirrors `setCurrentReplicasAndMetricsInStatus`: the metric statuses of the metrics evaluated,
/// with the conditions, events, steps and the memory after this sync.
pub(super) fn finish(
    mut d: Decision,
    ctx: Ctx,
    metrics: Vec<MetricOutcome>,
    history: History,
) -> Decision {
    let brief = !ctx.narrate;
    let mut metrics = metrics;
    d.status.current_metrics = metrics
        .iter_mut()
        .filter(|m| m.skipped.is_none())
        .map(|m| {
            // Brief: moved rather than copied (a brief decision's metrics carry no status).
            let status = if brief {
                m.status.take()
            } else {
                m.status.clone()
            };
            status.unwrap_or(hpa_v2::MetricStatus {
                type_: String::new(),
                ..Default::default()
            })
        })
        .collect();
    d.metrics = metrics;
    d.conditions = ctx.conditions;
    d.events = ctx.events;
    d.steps = ctx.steps;
    d.history.after = history;
    d
}
