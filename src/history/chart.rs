//! `history --chart FILE.svg`: the replicas recorded against the replayed ones, the metric
//! against its target and tolerance band, each scale event marked — drawn by `simulate`'s SVG
//! module, one panel for what happened and one for what the replayed controller decided.

use crate::simulate::engine::{MetricTick, TickRecord};
use crate::simulate::svg::{self, Panel, Track};

use super::replay::ReplaySync;

/// The chart of `syncs`, `tolerance` the controller's (the band around the target).
pub fn render(title: &str, metric: &str, syncs: &[ReplaySync], tolerance: f64) -> String {
    let n = syncs.len() as u64;
    let (mut recorded, mut replayed) = (Track::new(n), Track::new(n));
    let mut r = TickRecord {
        loads: vec![0.0],
        metrics: vec![MetricTick::default()],
        ..TickRecord::default()
    };
    for s in syncs {
        r.loads[0] = s.metric.unwrap_or(0.0);
        r.metrics[0].value = s.metric;
        r.replicas_before = s.current;
        r.ready = s.ready.unwrap_or(s.current).max(0) as usize;
        r.replicas = s.desired.unwrap_or(s.current);
        recorded.add(&r);
        r.replicas = s.replayed;
        replayed.add(&r);
    }
    let unit = syncs
        .iter()
        .find_map(|s| s.metric.map(|_| s.unit))
        .unwrap_or("");
    let band = syncs
        .iter()
        .find_map(|s| s.target)
        .map(|t| (t * (1.0 - tolerance), t, t * (1.0 + tolerance)));
    let label = if unit.is_empty() {
        metric.to_string()
    } else {
        format!("{metric} ({unit})")
    };
    let total = match (syncs.first(), syncs.last()) {
        (Some(a), Some(b)) => b.time.duration_since(a.time).as_secs_f64(),
        _ => 0.0,
    };
    let panels = [
        Panel {
            title: "recorded: the controller's desired replicas, the Ready pods".into(),
            track: &recorded,
            metric_label: label.clone(),
            band,
        },
        Panel {
            title: "replayed: what the controller's algorithm decides on the recorded data".into(),
            track: &replayed,
            metric_label: label.clone(),
            band,
        },
    ];
    svg::render(title, &label, total, &panels)
}
