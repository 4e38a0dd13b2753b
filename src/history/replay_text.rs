//! The replay as text: the answer first (the window in one line: scale events, explained,
//! flaps, time at maxReplicas), then one row per recorded change with its verdict, then why the
//! ones not explained are not, with what to do.

use jiff::{SignedDuration, Timestamp};

use super::matching::{verdict_words, ReplayedChange, Verdict};
use super::replayed::Replay;
use super::rows::ScaleDirection;
use super::tuning::Tuning;
use crate::display::fit;
use crate::display::units::{duration, time};
use crate::render::layout::wrap;

/// The replay's text, as of `now`, in `width` columns.
pub fn render(
    ns: &str,
    name: &str,
    (r, tuning): (&Replay, &Tuning),
    now: Timestamp,
    width: usize,
) -> String {
    let mut out = wrap(&headline(ns, name, r, now), width, "", "  ");
    if r.summary.flapping {
        let words = format!(
            "Flapping: the direction turned {} times within one hour ({} or more is flapping).",
            r.summary.max_direction_changes_per_hour, tuning.flapping_threshold_per_hour
        );
        out.push_str(&wrap(&words, width, "", "  "));
    }
    out.push_str(&super::tuning_text::render(ns, name, tuning, width));
    if !r.changes.is_empty() {
        out.push('\n');
        out.push_str(&table(&r.changes, now, width));
    }
    let unexplained: Vec<&ReplayedChange> = r
        .changes
        .iter()
        .filter(|c| c.verdict == Verdict::NotExplained)
        .collect();
    if !unexplained.is_empty() {
        out.push_str("\nNot explained by the replay:\n");
    }
    for c in unexplained {
        let why = c.why.as_deref().unwrap_or("");
        out.push_str(&wrap(
            &format!("{}: {why}", time(c.time, now)),
            width,
            "  ",
            "    ",
        ));
    }
    if !r.notes.is_empty() {
        out.push_str("\nWhat the series could not give:\n");
    }
    for n in &r.notes {
        out.push_str(&wrap(n, width, "  ", "    "));
    }
    out
}

fn headline(ns: &str, name: &str, r: &Replay, now: Timestamp) -> String {
    let s = &r.summary;
    let span = format!(
        "{}–{} (replayed from Prometheus)",
        time(r.from, now),
        time(r.to, now)
    );
    let at_max = SignedDuration::from_secs(s.seconds_at_max.round() as i64);
    let max_words = if s.seconds_at_max > 0.0 {
        format!("{} at maxReplicas", duration(at_max))
    } else {
        "never at maxReplicas".into()
    };
    let flaps = if s.flapping {
        format!(
            "flapping ({} turns in an hour)",
            s.max_direction_changes_per_hour
        )
    } else {
        "no flapping".into()
    };
    if s.scale_events == 0 {
        return format!("{ns}/{name}: no scale event {span}; {flaps}; {max_words}.");
    }
    let explained = s.explained + s.explained_earlier + s.explained_later;
    let mut line = format!(
        "{ns}/{name}: {} scale event{} {span}: {explained} explained",
        s.scale_events,
        if s.scale_events == 1 { "" } else { "s" }
    );
    if s.not_explained > 0 {
        line.push_str(&format!(", {} not (below)", s.not_explained));
    }
    line.push_str(&format!("; {flaps}; {max_words}."));
    line
}

fn change(c: &ReplayedChange) -> String {
    let arrow = match c.direction {
        ScaleDirection::Up => "↑",
        ScaleDirection::Down => "↓",
        ScaleDirection::Unknown => " ",
    };
    format!("{} → {} {arrow}", c.from, c.to)
}

fn metric(c: &ReplayedChange) -> String {
    let num = |v: f64| {
        if (v - v.round()).abs() < 1e-9 {
            format!("{}", v.round() as i64)
        } else {
            format!("{v:.2}")
        }
    };
    match (c.by.as_str(), c.metric, c.target) {
        ("external", _, _) => "the replicas moved without the HPA".into(),
        (_, Some(v), Some(t)) => format!("{}{u} vs {}{u} ({})", num(v), num(t), c.rule, u = c.unit),
        _ => c.rule.clone(),
    }
}

fn table(changes: &[ReplayedChange], now: Timestamp, width: usize) -> String {
    let cells: Vec<[String; 4]> = changes
        .iter()
        .map(|c| [time(c.time, now), change(c), verdict_words(c), metric(c)])
        .collect();
    let head = ["TIME", "CHANGE", "REPLAY", "METRIC (RULE)"].map(String::from);
    let w = |i: usize| {
        cells
            .iter()
            .map(|c| c[i].chars().count())
            .chain([head[i].chars().count()])
            .max()
            .unwrap_or(0)
    };
    let (w0, w1, w2) = (w(0), w(1), w(2));
    let mut out = String::new();
    for c in std::iter::once(head.clone()).chain(cells) {
        let line = format!("{:w0$}  {:w1$}  {:w2$}  {}", c[0], c[1], c[2], c[3]);
        out.push_str(&fit(line.trim_end(), width));
        out.push('\n');
    }
    out
}
