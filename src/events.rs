//! Rebuilding the controller's recent scale events from the HPA's Kubernetes events.
//!
//! The controller remembers every rescale (`storeScaleEvent`) for its rate policies, in memory
//! only. Each rescale also emits an event `Normal SuccessfulRescale New size: N; reason: …`, so
//! the sizes in consecutive events give the changes: `|N_i − N_{i−1}|` at the time of event `i`.
//! The oldest event's previous size is unknown, so it yields no change; what was left out is
//! said in the notes. Pure: no I/O.

use jiff::{SignedDuration, Timestamp};
use serde_json::Value;

use crate::core::{History, ScaleEvent};

/// One `SuccessfulRescale` event of the HPA.
#[derive(Debug, Clone, PartialEq)]
pub struct Rescale {
    pub time: Timestamp,
    pub new_size: i32,
}

fn str_at<'a>(v: &'a Value, path: &str) -> Option<&'a str> {
    v.pointer(path)
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
}

/// The `SuccessfulRescale` events of HPA `namespace/name`, oldest first (v1 and events.k8s.io/v1).
pub fn rescales(objects: &[Value], namespace: &str, name: &str) -> Vec<Rescale> {
    let mut out: Vec<Rescale> = objects
        .iter()
        .filter(|o| o.get("kind").and_then(Value::as_str) == Some("Event"))
        .filter(|o| o.get("reason").and_then(Value::as_str) == Some("SuccessfulRescale"))
        .filter(|o| {
            let about = o.get("involvedObject").or_else(|| o.get("regarding"));
            about.is_some_and(|a| {
                a.get("kind").and_then(Value::as_str) == Some("HorizontalPodAutoscaler")
                    && a.get("name").and_then(Value::as_str) == Some(name)
                    && a.get("namespace")
                        .and_then(Value::as_str)
                        .unwrap_or(namespace)
                        == namespace
            })
        })
        .filter_map(|o| {
            let message = str_at(o, "/message").or_else(|| str_at(o, "/note"))?;
            let size = message
                .strip_prefix("New size: ")?
                .split(';')
                .next()?
                .trim()
                .parse::<i32>()
                .ok()?;
            // The last occurrence: lastTimestamp (v1), series.lastObservedTime, eventTime.
            let time = str_at(o, "/lastTimestamp")
                .or_else(|| str_at(o, "/series/lastObservedTime"))
                .or_else(|| str_at(o, "/deprecatedLastTimestamp"))
                .or_else(|| str_at(o, "/eventTime"))
                .or_else(|| str_at(o, "/firstTimestamp"))?
                .parse::<Timestamp>()
                .ok()?;
            Some(Rescale {
                time,
                new_size: size,
            })
        })
        .collect();
    out.sort_by_key(|r| r.time);
    out
}

/// Scale events for the rate policies, from the rescales within `lookback` before `now`.
/// Returns the history (recommendations empty) and notes for the assumptions.
pub fn history_from_rescales(
    rescales: &[Rescale],
    now: Timestamp,
    lookback: SignedDuration,
) -> (History, Vec<String>) {
    let cutoff = now.checked_sub(lookback).unwrap_or(Timestamp::MIN);
    let mut history = History::default();
    let mut notes = Vec::new();
    for (i, r) in rescales.iter().enumerate() {
        if r.time <= cutoff || r.time > now {
            continue;
        }
        let Some(prev) = i.checked_sub(1).map(|p| rescales[p].new_size) else {
            notes.push(format!(
                "the rescale to {} at {} is the oldest recorded event: its size change is unknown and is not counted by the rate policies",
                r.new_size, r.time
            ));
            continue;
        };
        let change = r.new_size - prev;
        let event = ScaleEvent {
            time: r.time,
            change: change.abs(),
        };
        match change.cmp(&0) {
            std::cmp::Ordering::Greater => history.scale_up_events.push(event),
            std::cmp::Ordering::Less => history.scale_down_events.push(event),
            std::cmp::Ordering::Equal => {}
        }
    }
    if !history.is_empty() {
        notes.push(format!(
            "scale events rebuilt from the HPA's SuccessfulRescale events: {} up, {} down (pass --history to override)",
            history.scale_up_events.len(),
            history.scale_down_events.len()
        ));
    }
    (history, notes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn ev(size: i32, at: &str) -> Value {
        json!({"apiVersion": "v1", "kind": "Event", "reason": "SuccessfulRescale", "type": "Normal",
               "involvedObject": {"kind": "HorizontalPodAutoscaler", "name": "web", "namespace": "shop"},
               "message": format!("New size: {size}; reason: cpu resource utilization (percentage of request) above target"),
               "lastTimestamp": at})
    }

    #[test]
    fn consecutive_sizes_give_the_changes() {
        let objects = vec![
            ev(3, "2026-03-01T11:58:00Z"),
            ev(7, "2026-03-01T11:59:40Z"),
            ev(5, "2026-03-01T11:59:50Z"),
            json!({"kind": "Event", "reason": "SuccessfulRescale", "involvedObject": {"kind": "HorizontalPodAutoscaler", "name": "other", "namespace": "shop"}, "message": "New size: 9; reason: x", "lastTimestamp": "2026-03-01T11:59:55Z"}),
            json!({"kind": "Event", "reason": "FailedGetScale", "involvedObject": {"kind": "HorizontalPodAutoscaler", "name": "web", "namespace": "shop"}, "message": "boom", "lastTimestamp": "2026-03-01T11:59:56Z"}),
        ];
        let r = rescales(&objects, "shop", "web");
        assert_eq!(r.len(), 3);
        let now: Timestamp = "2026-03-01T12:00:00Z".parse().unwrap();
        let (h, notes) = history_from_rescales(&r, now, SignedDuration::from_mins(5));
        assert_eq!(
            h.scale_up_events,
            vec![ScaleEvent {
                time: "2026-03-01T11:59:40Z".parse().unwrap(),
                change: 4
            }]
        );
        assert_eq!(
            h.scale_down_events,
            vec![ScaleEvent {
                time: "2026-03-01T11:59:50Z".parse().unwrap(),
                change: 2
            }]
        );
        assert!(notes.iter().any(|n| n.contains("oldest recorded event")));
        // A shorter lookback keeps only the newest.
        let (h, _) = history_from_rescales(&r, now, SignedDuration::from_secs(15));
        assert!(h.scale_up_events.is_empty());
        assert_eq!(h.scale_down_events.len(), 1);
    }

    #[test]
    fn events_k8s_io_form_is_read() {
        let o = json!({"apiVersion": "events.k8s.io/v1", "kind": "Event", "reason": "SuccessfulRescale",
                       "regarding": {"kind": "HorizontalPodAutoscaler", "name": "web", "namespace": "shop"},
                       "note": "New size: 4; reason: All metrics below target", "eventTime": "2026-03-01T11:59:00.000000Z"});
        assert_eq!(
            rescales(&[o], "shop", "web"),
            vec![Rescale {
                time: "2026-03-01T11:59:00Z".parse().unwrap(),
                new_size: 4
            }]
        );
    }
}
