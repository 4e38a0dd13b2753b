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

/// The direction of a change of `delta` replicas.
pub fn direction(delta: i32) -> ScaleDirection {
    match delta.signum() {
        1 => ScaleDirection::Up,
        -1 => ScaleDirection::Down,
        _ => ScaleDirection::Unknown,
    }
}

/// The turns that belong to some one-hour span holding [`FLAPPING_TURNS_PER_HOUR`] or more:
/// the flaps. A load that rises and falls once makes one turn and no flap.
pub fn flapping_turns(turns: &[Timestamp]) -> u32 {
    let hour = SignedDuration::from_hours(1);
    let n = FLAPPING_TURNS_PER_HOUR as usize;
    let mut flap = vec![false; turns.len()];
    for j in 0..turns.len().saturating_sub(n - 1) {
        if turns[j + n - 1].duration_since(turns[j]) < hour {
            flap[j..j + n].iter_mut().for_each(|f| *f = true);
        }
    }
    flap.iter().filter(|f| **f).count() as u32
}
