//! `history --chart FILE.svg`: the replicas recorded against the replayed ones, the metric
//! against its target and tolerance band, each scale event marked with its reason (`3 → 6
//! explained`, `4 → 8 not explained: manual scale`) — drawn by `simulate`'s SVG module, one
//! panel for what happened and one for what the replayed controller decided.

use crate::simulate::engine::{MetricTick, TickRecord};
use crate::simulate::svg::{self, Mark, Panel, Track};

use super::matching::{verdict_words, ReplayedChange};
use super::replay::ReplaySync;

/// The chart of `syncs`, `tolerance` the controller's (the band around the target), the
/// recorded `changes` marked on the recorded panel with their verdict.
pub fn render(
    title: &str,
    metric: &str,
    syncs: &[ReplaySync],
    changes: &[ReplayedChange],
    tolerance: f64,
) -> String {
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
    let start = syncs.first().map(|s| s.time);
    let marks = changes
        .iter()
        .map(|c| Mark {
            seconds: start.map_or(0.0, |t| c.time.duration_since(t).as_secs_f64()),
            label: format!("{} → {} {}", c.from, c.to, verdict_words(c)),
        })
        .collect();
    let panels = [
        Panel {
            title: "recorded: the controller's desired replicas, the Ready pods".into(),
            track: &recorded,
            metric_label: label.clone(),
            band,
            marks,
        },
        Panel {
            title: "replayed: what the controller's algorithm decides on the recorded data".into(),
            track: &replayed,
            metric_label: label.clone(),
            band,
            marks: Vec::new(),
        },
    ];
    svg::render(title, &label, total, &panels)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::history::matching::match_changes;

    /// A metric name with markup in it, and a manual scale: the SVG parses as XML, each
    /// recorded change is marked with its reason, the title escaped.
    #[test]
    fn every_change_is_marked_with_its_reason_and_the_svg_parses() {
        // (recorded current, recorded desired, replayed): the controller scales 2 → 4, the
        // replicas move to 7 by hand, the controller scales back to 4.
        let rows = [(2, 2, 2), (2, 4, 4), (4, 4, 4), (7, 4, 4), (4, 4, 4)];
        let mut syncs = crate::history::replay::test_syncs(&rows);
        for s in &mut syncs {
            (s.metric, s.target, s.unit) = (Some(60.0), Some(50.0), "%");
        }
        let changes = match_changes(&syncs, 4);
        assert_eq!(changes.len(), 3, "{changes:#?}");
        let svg = render("ns/<web> & \"x\"", "q<&\"", &syncs, &changes, 0.1);
        let doc = roxmltree::Document::parse(&svg).expect("well-formed XML");
        let labels: Vec<&str> = doc
            .descendants()
            .filter(|n| n.attribute("class") == Some("mark-label"))
            .filter_map(|n| n.text())
            .collect();
        assert_eq!(
            labels,
            [
                "2 → 4 explained",
                "4 → 7 not explained: manual scale",
                "7 → 4 explained"
            ]
        );
        let title = doc
            .descendants()
            .find(|n| n.attribute("class") == Some("chart-title"))
            .and_then(|n| n.text());
        assert_eq!(title, Some("ns/<web> & \"x\""));
        assert!(
            svg.contains("q&lt;&amp;&quot;"),
            "the metric's label escaped"
        );
    }
}
