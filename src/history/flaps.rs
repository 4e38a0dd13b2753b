//! Flapping: how often the direction of the changes turns, per hour of the window.

use jiff::{SignedDuration, Timestamp};

use super::rows::{ScaleChange, ScaleDirection};
use super::HistorySummary;

/// Three or more turns within an hour is flapping (up, down, up, down).
pub const FLAPPING_TURNS_PER_HOUR: u32 = 3;

/// The window's counts.
pub fn summary(rows: &[ScaleChange]) -> HistorySummary {
    let mut s = HistorySummary::default();
    for r in rows {
        s.scale_events += r.count;
        match r.direction {
            ScaleDirection::Up => s.up += r.count,
            ScaleDirection::Down => s.down += r.count,
            ScaleDirection::Unknown => {}
        }
        if r.explained {
            s.explained += r.count;
        } else {
            s.not_explained += r.count;
        }
    }
    let turns = turns(rows.iter().filter_map(|r| r.time.map(|t| (t, r.direction))));
    s.direction_changes = turns.len() as u32;
    s.max_direction_changes_per_hour = max_per_hour(&turns);
    s.flapping = s.max_direction_changes_per_hour >= FLAPPING_TURNS_PER_HOUR;
    s
}

/// The times at which the direction turned, from `(time, direction)` in time order.
pub fn turns(changes: impl IntoIterator<Item = (Timestamp, ScaleDirection)>) -> Vec<Timestamp> {
    let mut out = Vec::new();
    let mut last: Option<ScaleDirection> = None;
    for (t, d) in changes {
        if d == ScaleDirection::Unknown {
            continue;
        }
        if last.is_some_and(|l| l != d) {
            out.push(t);
        }
        last = Some(d);
    }
    out
}

/// The most turns inside any one-hour span.
pub fn max_per_hour(turns: &[Timestamp]) -> u32 {
    let hour = SignedDuration::from_hours(1);
    let mut best = 0;
    let mut start = 0;
    for (end, t) in turns.iter().enumerate() {
        while t.duration_since(turns[start]) >= hour {
            start += 1;
        }
        best = best.max((end - start + 1) as u32);
    }
    best
}
