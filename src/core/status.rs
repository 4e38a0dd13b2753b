//! What a sync records on the HPA: conditions, events, the narration, and the status written at
//! the end (`setCondition`, the event recorder, `setCurrentReplicasAndMetricsInStatus`).

use std::fmt::{self, Write};

use jiff::Timestamp;
use k8s_openapi::api::autoscaling::v2 as hpa_v2;

use super::model::Input;
use super::{Condition, Decision, Event, MetricOutcome, Step, Word};

// perf: benches/simulate. The decision is borrowed for the sync, its conditions, events and
// steps written where they are, rather than taken out of it into a context and moved back at
// the end (the moves and the context's own moves cost more than the writes).
/// The conditions, events and steps of one sync, as it goes: written into the decision the
/// sync writes (`d`, borrowed for the sync).
pub(super) struct Ctx<'d> {
    /// Build the narration (steps)?
    narrate: bool,
    /// Write the metrics' statuses into `status.currentMetrics`?
    statuses: bool,
    /// The last selector found valid (the [`Evaluator`](super::Evaluator)'s, lent for the sync).
    pub(super) valid_selector: String,
    /// The decision being written: its conditions, events and steps are this sync's.
    pub(super) d: &'d mut Decision,
    now: Timestamp,
    /// `metadata.generation`, written into each condition set (1.37+), else None.
    generation: Option<i64>,
}

impl<'d> Ctx<'d> {
    /// Starts from the conditions of the HPA's last status, written over those of `d` (a
    /// decision of an earlier sync, see [`finish`]), its events and steps emptied.
    /// `carried`: `d` holds the HPA's conditions already (the caller's promise,
    /// [`Evaluator::set_conditions_carried`](super::Evaluator::set_conditions_carried)).
    pub(super) fn new(
        input: &Input,
        (generation, carried): (Option<i64>, bool),
        d: &'d mut Decision,
        valid_selector: &mut String,
    ) -> Ctx<'d> {
        if carried && !input.detail.narrates() {
            carried_conditions(input, &mut d.conditions);
        } else {
            previous_conditions(input, &mut d.conditions);
        }
        d.events.clear();
        d.steps.clear();
        Ctx {
            valid_selector: std::mem::take(valid_selector),
            narrate: input.detail.narrates(),
            statuses: input.detail.builds_statuses(),
            d,
            now: input.now,
            generation,
        }
    }

    /// Mirrors `setCondition`: the transition time moves only when the status changes. The
    /// strings of a condition already present are rewritten in place (no allocation per sync).
    // perf: benches/simulate. In line, and the message written out of line: a brief sync
    // sets four conditions already present, and the call with the formatting's frame cost
    // more than the update. Always in line: as a call (four per sync) its frame cost more
    // than its body.
    #[inline(always)]
    pub(super) fn set_condition(
        &mut self,
        type_: &'static str,
        status: &'static str,
        reason: &'static str,
        message: fmt::Arguments<'_>,
    ) {
        let (now, narrate, generation) = (self.now, self.narrate, self.generation);
        let Some(c) = self.d.conditions.iter_mut().find(|c| c.type_ == type_) else {
            return self.add_condition(type_, status, reason, message);
        };
        if c.status != status {
            c.last_transition_time = Some(now);
            c.status = Word::of(status);
        }
        if c.reason != reason {
            c.reason = Word::of(reason);
        }
        c.message.clear();
        if narrate {
            write_message(&mut c.message, message);
        }
        c.observed_generation = generation;
        c.set_this_sync = true;
    }

    /// [`Ctx::set_condition`] of a condition not present yet.
    #[inline(never)]
    fn add_condition(
        &mut self,
        type_: &'static str,
        status: &'static str,
        reason: &'static str,
        message: fmt::Arguments<'_>,
    ) {
        self.d.conditions.push(Condition {
            type_: Word::of(type_),
            status: Word::of(status),
            reason: Word::of(reason),
            message: if self.narrate {
                fmt::format(message)
            } else {
                String::new()
            },
            last_transition_time: Some(self.now),
            observed_generation: self.generation,
            set_this_sync: true,
        });
    }

    pub(super) fn remove_condition(&mut self, type_: &str) {
        self.d.conditions.retain(|c| c.type_ != type_);
    }

    /// Whether the condition `type_` is currently `True`.
    #[inline]
    pub(super) fn is_true(&self, type_: &str) -> bool {
        self.d
            .conditions
            .iter()
            .find(|c| c.type_ == type_)
            .is_some_and(|c| c.status == "True")
    }

    /// Mirrors `eventRecorder.Event` (recorded for the full explanation only: a brief decision
    /// carries no events).
    #[inline]
    pub(super) fn event<S: Into<String>>(
        &mut self,
        type_: &str,
        reason: &str,
        message: impl FnOnce() -> S,
    ) {
        if !self.narrate {
            return;
        }
        self.d.events.push(Event {
            type_: type_.into(),
            reason: reason.into(),
            message: message().into(),
        });
    }

    /// Whether the full explanation is built (texts nobody reads in a brief decision are not).
    #[inline]
    pub(super) fn narrates(&self) -> bool {
        self.narrate
    }

    /// Record a step of the explanation (built only for the full explanation).
    #[inline]
    pub(super) fn step<S: Into<String>>(&mut self, rule: &str, text: impl FnOnce() -> S) {
        if !self.narrate {
            return;
        }
        self.d.steps.push(Step {
            rule: rule.into(),
            text: text().into(),
        });
    }
}

/// A condition's message, written into its (cleared) buffer.
#[inline(never)]
fn write_message(to: &mut String, message: fmt::Arguments<'_>) {
    let _ = to.write_fmt(message);
}

/// `*s = new`, reusing `s`'s buffer.
fn replace(s: &mut String, new: &str) {
    if s != new {
        s.clear();
        s.push_str(new);
    }
}

/// The conditions of the HPA's last status, as this sync starts from them (written over `out`,
/// reusing its messages' buffers; the words are copied as pointers).
fn previous_conditions(input: &Input, out: &mut Vec<Condition>) {
    let full = input.detail.narrates();
    let cs = &input.hpa.conditions;
    out.truncate(cs.len());
    for (i, c) in cs.iter().enumerate() {
        if i == out.len() {
            out.push(Condition {
                type_: Word::of(""),
                status: Word::of(""),
                reason: Word::of(""),
                message: String::new(),
                last_transition_time: None,
                observed_generation: None,
                set_this_sync: false,
            });
        }
        let o = &mut out[i];
        // perf: benches/simulate. Compared first: a decision written over sync after sync
        // holds the same words already (mostly the same pointers), and a word's copy costs
        // more than the comparison.
        for (to, from) in [
            (&mut o.type_, &c.type_),
            (&mut o.status, &c.status),
            (&mut o.reason, &c.reason),
        ] {
            if to != from {
                to.clone_from(from);
            }
        }
        if full {
            replace(&mut o.message, &c.message);
        } else {
            o.message.clear();
        }
        o.last_transition_time = c.last_transition_time;
        o.observed_generation = None;
        o.set_this_sync = false;
    }
}

// perf: benches/simulate. Simulate's decision holds the conditions it wrote, which are the
// ones the next sync starts from: only what the sync marks is reset, nothing compared or copied.
/// The conditions of the HPA's last status when `out` holds them already (a brief decision:
/// no messages): what a sync marks on them is reset.
fn carried_conditions(input: &Input, out: &mut [Condition]) {
    debug_assert!(
        out.len() == input.hpa.conditions.len()
            && out.iter().zip(&input.hpa.conditions).all(|(o, c)| {
                o.type_ == c.type_
                    && o.status == c.status
                    && o.reason == c.reason
                    && o.last_transition_time == c.last_transition_time
            }),
        "the decision does not hold the HPA's conditions (the caller's promise)"
    );
    for o in out {
        o.message.clear();
        o.observed_generation = None;
        o.set_this_sync = false;
    }
}

/// Mirrors `setCurrentReplicasAndMetricsInStatus`: the metric statuses of the metrics evaluated
/// and the metrics written into the sync's decision (its conditions, events, steps and the
/// memory after this sync are there already); the selector lent back.
pub(super) fn finish(ctx: Ctx<'_>, valid_selector: &mut String, mut metrics: Vec<MetricOutcome>) {
    let brief = !ctx.narrate;
    let d = ctx.d;
    d.status.current_metrics.clear();
    // A `Detail::Numbers` decision builds no metric status.
    if ctx.statuses {
        d.status
            .current_metrics
            .extend(metrics.iter_mut().filter(|m| m.skipped.is_none()).map(|m| {
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
            }));
    }
    d.metrics = metrics;
    *valid_selector = ctx.valid_selector;
}
