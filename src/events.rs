//! The HPA's `SuccessfulRescale` Events, read as evidence of the controller's memory.
//!
//! Each rescale emits `Normal SuccessfulRescale New size: N; reason: …`. The API server
//! aggregates identical messages into one Event with a `count` and the first and last time
//! (events.k8s.io/v1: `series`). [`rescales`] reads them into [`RescaleRecord`]s; what they mean
//! for the controller's memory is decided in `core::memory`. Pure: no I/O.

use jiff::Timestamp;
use serde_json::Value;

use crate::core::RescaleRecord;

fn str_at<'a>(v: &'a Value, path: &str) -> Option<&'a str> {
    v.pointer(path)
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
}

fn time_at(v: &Value, paths: &[&str]) -> Option<Timestamp> {
    paths
        .iter()
        .find_map(|p| str_at(v, p))
        .and_then(|s| s.parse().ok())
}

fn is_about(o: &Value, namespace: &str, name: &str) -> bool {
    let about = o.get("involvedObject").or_else(|| o.get("regarding"));
    about.is_some_and(|a| {
        a.get("kind").and_then(Value::as_str) == Some("HorizontalPodAutoscaler")
            && a.get("name").and_then(Value::as_str) == Some(name)
            && a.get("namespace")
                .and_then(Value::as_str)
                .unwrap_or(namespace)
                == namespace
    })
}

fn record(o: &Value) -> Option<RescaleRecord> {
    let message = str_at(o, "/message").or_else(|| str_at(o, "/note"))?;
    let (size, reason) = message.strip_prefix("New size: ")?.split_once(';')?;
    let new_size = size.trim().parse::<i32>().ok()?;
    let last = time_at(
        o,
        &[
            "/lastTimestamp",
            "/series/lastObservedTime",
            "/deprecatedLastTimestamp",
            "/eventTime",
            "/firstTimestamp",
        ],
    )?;
    let first = time_at(
        o,
        &["/firstTimestamp", "/deprecatedFirstTimestamp", "/eventTime"],
    )
    .filter(|f| *f <= last)
    .unwrap_or(last);
    let count = o
        .get("count")
        .or_else(|| o.pointer("/series/count"))
        .or_else(|| o.get("deprecatedCount"))
        .and_then(Value::as_u64)
        .map_or(1, |c| c.clamp(1, u32::MAX as u64) as u32);
    Some(RescaleRecord {
        new_size,
        reason: reason
            .trim()
            .trim_start_matches("reason:")
            .trim()
            .to_string(),
        first,
        last,
        count,
    })
}

/// The `SuccessfulRescale` Events of HPA `namespace/name`, oldest first (v1 and events.k8s.io/v1).
pub fn rescales(objects: &[Value], namespace: &str, name: &str) -> Vec<RescaleRecord> {
    let mut out: Vec<RescaleRecord> = objects
        .iter()
        .filter(|o| o.get("kind").and_then(Value::as_str) == Some("Event"))
        .filter(|o| o.get("reason").and_then(Value::as_str) == Some("SuccessfulRescale"))
        .filter(|o| is_about(o, namespace, name))
        .filter_map(record)
        .collect();
    out.sort_by_key(|r| (r.last, r.first));
    out
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
    fn only_this_hpas_rescales_oldest_first() {
        let objects = vec![
            ev(7, "2026-03-01T11:59:40Z"),
            ev(3, "2026-03-01T11:58:00Z"),
            json!({"kind": "Event", "reason": "SuccessfulRescale", "involvedObject": {"kind": "HorizontalPodAutoscaler", "name": "other", "namespace": "shop"}, "message": "New size: 9; reason: x", "lastTimestamp": "2026-03-01T11:59:55Z"}),
            json!({"kind": "Event", "reason": "FailedGetScale", "involvedObject": {"kind": "HorizontalPodAutoscaler", "name": "web", "namespace": "shop"}, "message": "boom", "lastTimestamp": "2026-03-01T11:59:56Z"}),
        ];
        let r = rescales(&objects, "shop", "web");
        let sizes: Vec<i32> = r.iter().map(|r| r.new_size).collect();
        assert_eq!(sizes, vec![3, 7]);
        assert_eq!(r[0].count, 1);
        assert_eq!(r[0].first, r[0].last);
        assert_eq!(
            r[1].reason,
            "cpu resource utilization (percentage of request) above target"
        );
    }

    #[test]
    fn aggregation_keeps_count_first_and_last() {
        let mut o = ev(8, "2026-03-01T11:59:40Z");
        o["firstTimestamp"] = json!("2026-03-01T11:20:00Z");
        o["count"] = json!(3);
        let r = &rescales(&[o], "shop", "web")[0];
        assert_eq!(r.count, 3);
        assert_eq!(
            r.first,
            "2026-03-01T11:20:00Z".parse::<Timestamp>().unwrap()
        );
        assert_eq!(r.last, "2026-03-01T11:59:40Z".parse::<Timestamp>().unwrap());
    }

    #[test]
    fn events_k8s_io_form_is_read() {
        let o = json!({"apiVersion": "events.k8s.io/v1", "kind": "Event", "reason": "SuccessfulRescale",
                       "regarding": {"kind": "HorizontalPodAutoscaler", "name": "web", "namespace": "shop"},
                       "note": "New size: 4; reason: All metrics below target", "eventTime": "2026-03-01T11:59:00.000000Z",
                       "series": {"count": 2, "lastObservedTime": "2026-03-01T11:59:30.000000Z"}});
        let r = &rescales(&[o], "shop", "web")[0];
        assert_eq!((r.new_size, r.count), (4, 2));
        assert_eq!(
            r.first,
            "2026-03-01T11:59:00Z".parse::<Timestamp>().unwrap()
        );
        assert_eq!(r.last, "2026-03-01T11:59:30Z".parse::<Timestamp>().unwrap());
        assert_eq!(r.reason, "All metrics below target");
    }
}
