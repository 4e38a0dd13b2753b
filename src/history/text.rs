//! The history as text: the answer first (a one-line summary of the window), then one row per
//! recorded change, oldest first, fitting `width` columns; then what the evidence cannot say.

use jiff::Timestamp;

use super::rows::{ScaleChange, ScaleDirection};
use super::ScaleHistory;
use crate::display::fit;
use crate::display::units::time;
use crate::render::layout::wrap;

/// The text of `h`, as of `now`, in `width` columns.
pub fn render(h: &ScaleHistory, now: Timestamp, width: usize) -> String {
    let mut out = wrap(&headline(h, now), width, "", "  ");
    if h.summary.flapping {
        let words = format!(
            "Flapping: the direction turned {} times within one hour ({} or more is flapping).",
            h.summary.max_direction_changes_per_hour, h.tuning.flapping_threshold_per_hour
        );
        out.push_str(&wrap(&words, width, "", "  "));
        out.push_str(&super::tuning_text::render(
            &h.namespace,
            &h.name,
            &h.tuning,
            width,
        ));
    }
    if !h.rows.is_empty() {
        out.push('\n');
        out.push_str(&table(&h.rows, now, width));
    }
    for p in &h.periods {
        let since = p
            .since
            .map_or("a time not recorded".into(), |t| time(t, now));
        out.push_str(&format!(
            "{} since {since} ({}).\n",
            period_words(&p.what),
            p.condition
        ));
    }
    let unexplained: Vec<&ScaleChange> = h.rows.iter().filter(|r| !r.explained).collect();
    if !unexplained.is_empty() || !h.notes.is_empty() {
        out.push_str("\nWhat the Events cannot say:\n");
    }
    for r in unexplained {
        let why = r.not_explained.as_deref().unwrap_or("");
        out.push_str(&wrap(
            &format!("{}: {why}", when(r, now)),
            width,
            "  ",
            "    ",
        ));
    }
    for n in &h.notes {
        out.push_str(&wrap(n, width, "  ", "    "));
    }
    out
}

fn headline(h: &ScaleHistory, now: Timestamp) -> String {
    let s = &h.summary;
    let since = match (h.window.from, h.window.oldest_event) {
        (Some(f), _) => format!("since {}", time(f, now)),
        (None, Some(o)) => format!("since {} (the oldest Event)", time(o, now)),
        (None, None) => "in the Events the API server keeps".into(),
    };
    if s.scale_events == 0 {
        return format!("{}/{}: no scale event {since}.", h.namespace, h.name);
    }
    let mut line = format!(
        "{}/{}: {} scale event{} {since}: {} up, {} down",
        h.namespace,
        h.name,
        s.scale_events,
        plural(s.scale_events),
        s.up,
        s.down
    );
    if s.not_explained > 0 {
        line.push_str(&format!(
            "; {} explained, {} not (below)",
            s.explained, s.not_explained
        ));
    }
    line.push('.');
    line
}

fn plural(n: u32) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

fn period_words(what: &str) -> &'static str {
    match what {
        "atMaxReplicas" => "At maxReplicas",
        "atMinReplicas" => "At minReplicas",
        "unableToScale" => "Unable to scale",
        "metricsFailing" => "Metrics failing",
        _ => "In this state",
    }
}

fn when(r: &ScaleChange, now: Timestamp) -> String {
    match (r.time, r.earliest, r.latest) {
        (Some(t), _, _) => time(t, now),
        (None, Some(a), Some(b)) => format!("{}–{}", time(a, now), time(b, now)),
        _ => "?".into(),
    }
}

fn change(r: &ScaleChange) -> String {
    let from = r.from.map_or("?".to_string(), |f| f.to_string());
    let arrow = match r.direction {
        ScaleDirection::Up => "↑",
        ScaleDirection::Down => "↓",
        ScaleDirection::Unknown => " ",
    };
    if r.count > 1 {
        format!("{}× → {} {arrow}", r.count, r.to)
    } else {
        format!("{from} → {} {arrow}", r.to)
    }
}

fn decided(r: &ScaleChange) -> String {
    match (r.decided_by.as_str(), &r.metric) {
        ("metric", Some(m)) => format!("{m} above target"),
        ("allMetricsBelowTarget", _) => "all metrics below target".into(),
        ("maxReplicas", _) => "above maxReplicas".into(),
        ("minReplicas", _) => "below minReplicas".into(),
        ("fromZero", _) => "scaling up from 0".into(),
        _ => r.reason.clone(),
    }
}

fn table(rows: &[ScaleChange], now: Timestamp, width: usize) -> String {
    let cells: Vec<[String; 3]> = rows
        .iter()
        .map(|r| [when(r, now), change(r), decided(r)])
        .collect();
    let head = ["TIME", "CHANGE", "DECIDED BY"];
    let w0 = cells
        .iter()
        .map(|c| c[0].chars().count())
        .chain([4])
        .max()
        .unwrap_or(4);
    let w1 = cells
        .iter()
        .map(|c| c[1].chars().count())
        .chain([6])
        .max()
        .unwrap_or(6);
    let mut out = String::new();
    for c in std::iter::once(head.map(String::from)).chain(cells) {
        let line = format!("{:w0$}  {:w1$}  {}", c[0], c[1], c[2]);
        out.push_str(&fit(line.trim_end(), width));
        out.push('\n');
    }
    out
}
