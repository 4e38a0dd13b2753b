//! The controller's memory at the start of a simulation (`--history auto|none|FILE`).
//!
//! The real controller keeps, per HPA, its recent recommendations (for the stabilization
//! windows) and its recent scale events (for the rate policies). A simulation that starts from
//! an empty memory behaves like no real controller: even a freshly restarted one records
//! `(now, current replicas)` before its first decision, so the first sync cannot scale down
//! past the stabilization window at once.

use std::fmt;
use std::path::PathBuf;

use jiff::Timestamp;

use crate::core::{History, Recommendation};

/// What `--history` asked for.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum HistoryChoice {
    /// The memory of the controller the user has: inferred from a live HPA or a snapshot, or,
    /// for a manifest with synthetic pods, a controller that has been running at the start.
    #[default]
    Auto,
    /// An empty memory (a controller with no past at all).
    None,
    /// A history file (YAML or JSON, as for explain).
    File(PathBuf),
}

impl fmt::Display for HistoryChoice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HistoryChoice::Auto => f.write_str("auto"),
            HistoryChoice::None => f.write_str("none"),
            HistoryChoice::File(p) => write!(f, "{}", p.display()),
        }
    }
}

/// The memory a simulated controller starts from, and one line saying where it came from.
#[derive(Debug, Clone, PartialEq)]
pub struct StartingMemory {
    pub history: History,
    pub note: String,
}

/// `--history none`: no recommendations, no scale events.
pub fn empty() -> StartingMemory {
    StartingMemory {
        history: History::default(),
        note: "empty (--history none): the first sync may scale down at once, as no running controller would".into(),
    }
}

/// `--history FILE`: the file's memory as given.
pub fn from_file(history: History, path: &std::path::Path) -> StartingMemory {
    StartingMemory {
        history,
        note: format!("from {} (--history)", path.display()),
    }
}

/// `--history auto` on a live HPA or a snapshot: start from the memory inferred for the user's
/// own controller (`inferred`, as `explain` infers it from the same source). This is the one
/// place the inferred memory enters a simulation.
pub fn from_source(inferred: History, source: &str) -> StartingMemory {
    let note = if inferred.is_empty() {
        format!("inferred from {source}: nothing to infer, so empty")
    } else {
        format!(
            "inferred from {source}: {} recommendation(s), {} scale-up and {} scale-down event(s)",
            inferred.recommendations.len(),
            inferred.scale_up_events.len(),
            inferred.scale_down_events.len()
        )
    };
    StartingMemory {
        history: inferred,
        note,
    }
}

/// `--history auto` on a manifest with synthetic pods: a controller that has been running with
/// `current` replicas. Its stabilization windows hold the recommendation `current` (what a
/// controller that keeps `current` replicas has been recommending, and what even a restarted
/// one records first), and it made no scale event recently.
pub fn running_at_start(start: Timestamp, current: i32) -> StartingMemory {
    StartingMemory {
        history: History {
            recommendations: vec![Recommendation {
                time: start,
                replicas: current,
            }],
            scale_up_events: Vec::new(),
            scale_down_events: Vec::new(),
        },
        note: format!(
            "a controller that has been running with {current} replicas: its stabilization windows hold the recommendation {current} at the start, and it made no recent scale event (--history none starts empty)"
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn running_controller_remembers_the_current_replicas() {
        let t: Timestamp = "2026-01-01T00:00:00Z".parse().unwrap();
        let m = running_at_start(t, 10);
        assert_eq!(m.history.recommendations.len(), 1);
        assert_eq!(m.history.recommendations[0].replicas, 10);
        assert!(m.history.scale_down_events.is_empty());
        assert!(from_source(History::default(), "the snapshot")
            .history
            .is_empty());
    }
}
