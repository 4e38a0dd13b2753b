//! The run's summary, accumulated tick by tick in constant memory.

use serde::Serialize;

use super::engine::TickRecord;

/// What a run did, in numbers.
#[derive(Debug, Clone, Default, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Summary {
    pub ticks: u64,
    pub duration_seconds: f64,
    pub start_replicas: i32,
    pub peak_replicas: i32,
    /// Seconds since the start of the first tick at the peak.
    pub peak_at_seconds: f64,
    pub min_replicas: i32,
    pub final_replicas: i32,
    pub scale_events: u64,
    pub scale_ups: u64,
    pub scale_downs: u64,
    /// Scale events whose direction differs from the previous event's.
    pub direction_reversals: u64,
    /// Direction changes that came within `flappingWindowSeconds` of the previous scale event
    /// (flapping; a spike that goes up and, much later, down again is not flapping).
    pub flapping: u64,
    pub flapping_window_seconds: f64,
    /// Episodes where fewer pods were Ready than needed, and how long they took to close.
    pub shortfalls: u64,
    pub longest_shortfall_seconds: f64,
    pub mean_shortfall_seconds: Option<f64>,
    /// Still short of the needed replicas when the run ended (that episode is counted, up to
    /// the end of the run).
    pub shortfall_at_end: bool,
    pub over_target_seconds: f64,
    pub saturated_seconds: f64,
    /// Σ pods × sync period, in minutes (what the run costs).
    pub pod_minutes: f64,
    /// The same in hours.
    pub pod_hours: f64,
    pub mean_pods: f64,
    /// The under-provisioned episode that lacked the most pod-time.
    pub worst_shortfall: Option<Shortfall>,
    /// Seconds at `maxReplicas` (absent when the run never reached it). The shortfalls above
    /// count pods short of what `maxReplicas` allows: while capped, the metrics may want more.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub at_max_seconds: f64,
    /// The most replicas the metrics proposed above `maxReplicas` (before the cap), and when
    /// (absent when no proposal went above it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub wanted_above_max: Option<AboveMax>,
}

fn is_zero(v: &f64) -> bool {
    *v == 0.0
}

/// The largest proposal above `maxReplicas`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AboveMax {
    /// What the metrics proposed (the largest metric's proposal, before the cap).
    pub replicas: i32,
    pub max_replicas: i32,
    /// Seconds since the start of the first sync at that proposal.
    pub at_seconds: f64,
}

/// An episode with fewer Ready pods than needed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Shortfall {
    /// Seconds since the start when it began.
    pub start_seconds: f64,
    pub duration_seconds: f64,
    /// The most pods missing at one sync.
    pub max_pods_short: i32,
    /// Σ missing pods × sync period, in pod-seconds.
    pub pod_seconds_short: f64,
}

/// Accumulates a [`Summary`] from tick records.
#[derive(Debug, Clone)]
pub struct SummaryBuilder {
    s: Summary,
    sync_seconds: f64,
    last_direction: i8,
    last_event_at: f64,
    shortfall_since: Option<f64>,
    shortfall_total: f64,
    /// The open episode.
    current: Shortfall,
    /// The HPA's maxReplicas (none: not tracked).
    max_replicas: Option<i32>,
}

impl SummaryBuilder {
    /// A builder for syncs every `sync_seconds`; direction changes within `flapping_window`
    /// seconds of the previous scale event count as flapping.
    pub fn new(sync_seconds: f64, flapping_window: f64) -> SummaryBuilder {
        SummaryBuilder {
            s: Summary {
                flapping_window_seconds: flapping_window,
                ..Summary::default()
            },
            sync_seconds,
            last_direction: 0,
            last_event_at: 0.0,
            shortfall_since: None,
            shortfall_total: 0.0,
            current: Shortfall::default(),
            max_replicas: None,
        }
    }

    /// Also counts the time at `max` and the proposals above it.
    pub fn with_max_replicas(mut self, max: i32) -> SummaryBuilder {
        self.max_replicas = Some(max);
        self
    }

    fn add_max(&mut self, r: &TickRecord) {
        let Some(max) = self.max_replicas else {
            return;
        };
        let s = &mut self.s;
        if r.replicas >= max {
            s.at_max_seconds += self.sync_seconds;
        }
        if let Some(p) = r.proposal.filter(|p| *p > max) {
            if s.wanted_above_max.is_none_or(|w| p > w.replicas) {
                s.wanted_above_max = Some(AboveMax {
                    replicas: p,
                    max_replicas: max,
                    at_seconds: r.offset_seconds,
                });
            }
        }
    }

    fn close_episode(&mut self, end: f64) {
        let Some(since) = self.shortfall_since.take() else {
            return;
        };
        let d = end - since;
        let s = &mut self.s;
        s.shortfalls += 1;
        s.longest_shortfall_seconds = s.longest_shortfall_seconds.max(d);
        self.shortfall_total += d;
        let mut ep = self.current;
        ep.duration_seconds = d;
        if s.worst_shortfall
            .is_none_or(|w| ep.pod_seconds_short > w.pod_seconds_short)
        {
            s.worst_shortfall = Some(ep);
        }
    }

    /// Count one tick.
    pub fn add(&mut self, r: &TickRecord) {
        let s = &mut self.s;
        if s.ticks == 0 {
            s.start_replicas = r.replicas_before;
            s.peak_replicas = r.replicas_before;
            s.min_replicas = r.replicas_before;
        }
        s.ticks += 1;
        s.duration_seconds = s.ticks as f64 * self.sync_seconds;
        if r.replicas > s.peak_replicas {
            s.peak_replicas = r.replicas;
            s.peak_at_seconds = r.offset_seconds;
        }
        s.min_replicas = s.min_replicas.min(r.replicas);
        s.final_replicas = r.replicas;
        let dir = (r.replicas - r.replicas_before).signum() as i8;
        if dir != 0 {
            s.scale_events += 1;
            if dir > 0 {
                s.scale_ups += 1;
            } else {
                s.scale_downs += 1;
            }
            if self.last_direction != 0 && dir != self.last_direction {
                s.direction_reversals += 1;
                if r.offset_seconds - self.last_event_at <= s.flapping_window_seconds {
                    s.flapping += 1;
                }
            }
            self.last_direction = dir;
            self.last_event_at = r.offset_seconds;
        }
        let missing = r.needed.map_or(0, |n| n as i64 - r.ready as i64);
        if missing > 0 {
            if self.shortfall_since.is_none() {
                self.shortfall_since = Some(r.offset_seconds);
                self.current = Shortfall {
                    start_seconds: r.offset_seconds,
                    ..Shortfall::default()
                };
            }
            let c = &mut self.current;
            c.max_pods_short = c.max_pods_short.max(missing.min(i32::MAX as i64) as i32);
            c.pod_seconds_short += missing as f64 * self.sync_seconds;
        } else {
            self.close_episode(r.offset_seconds);
        }
        let s = &mut self.s;
        if r.over_target {
            s.over_target_seconds += self.sync_seconds;
        }
        if r.saturated {
            s.saturated_seconds += self.sync_seconds;
        }
        s.pod_minutes += r.replicas.max(0) as f64 * self.sync_seconds / 60.0;
        self.add_max(r);
    }

    /// The summary so far.
    pub fn finish(&self) -> Summary {
        let mut b = self.clone();
        if b.shortfall_since.is_some() {
            b.s.shortfall_at_end = true;
            let end = b.s.duration_seconds;
            b.close_episode(end);
        }
        let mut s = b.s;
        let total = b.shortfall_total;
        s.mean_shortfall_seconds = (s.shortfalls > 0).then(|| total / s.shortfalls as f64);
        s.pod_hours = s.pod_minutes / 60.0;
        s.mean_pods = if s.duration_seconds > 0.0 {
            s.pod_minutes * 60.0 / s.duration_seconds
        } else {
            0.0
        };
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tick(t: f64, before: i32, after: i32, ready: usize, needed: Option<i32>) -> TickRecord {
        TickRecord {
            offset_seconds: t,
            replicas_before: before,
            replicas: after,
            ready,
            needed,
            ..Default::default()
        }
    }

    #[test]
    fn counts_events_reversals_shortfalls_and_cost() {
        let mut b = SummaryBuilder::new(15.0, 300.0);
        b.add(&tick(0.0, 2, 4, 2, Some(4)));
        b.add(&tick(15.0, 4, 4, 2, Some(4)));
        b.add(&tick(30.0, 4, 3, 4, Some(3)));
        b.add(&tick(45.0, 3, 5, 3, Some(3)));
        let s = b.finish();
        assert_eq!((s.scale_events, s.scale_ups, s.scale_downs), (3, 2, 1));
        assert_eq!(s.direction_reversals, 2);
        assert_eq!(s.flapping, 2, "both changes came within 5 minutes");
        assert_eq!(
            (s.peak_replicas, s.final_replicas, s.min_replicas),
            (5, 5, 2)
        );
        assert_eq!(s.shortfalls, 1);
        assert_eq!(s.longest_shortfall_seconds, 30.0);
        assert!(!s.shortfall_at_end);
        assert_eq!(s.pod_minutes, (4 + 4 + 3 + 5) as f64 * 0.25);
        // An episode still open at the end counts up to the end of the run.
        b.add(&tick(60.0, 5, 5, 3, Some(6)));
        let s = b.finish();
        assert!(s.shortfall_at_end);
        assert_eq!((s.shortfalls, s.longest_shortfall_seconds), (2, 30.0));
        // The first episode lacked 2 pods for two syncs (60 pod-seconds), the last one 3 pods
        // for one sync (45): the first is the worst.
        let w = s.worst_shortfall.unwrap();
        assert_eq!((w.start_seconds, w.max_pods_short), (0.0, 2));
        assert_eq!(w.pod_seconds_short, 60.0);
    }

    #[test]
    fn time_at_max_and_the_largest_proposal_above_it() {
        let mut b = SummaryBuilder::new(15.0, 300.0).with_max_replicas(4);
        let at = |t: f64, before: i32, after: i32, proposal: i32| TickRecord {
            proposal: Some(proposal),
            ..tick(t, before, after, after as usize, Some(after))
        };
        b.add(&at(0.0, 2, 4, 6));
        b.add(&at(15.0, 4, 4, 9));
        b.add(&at(30.0, 4, 4, 7));
        b.add(&at(45.0, 4, 3, 3));
        let s = b.finish();
        assert_eq!(s.at_max_seconds, 45.0);
        assert_eq!(
            s.wanted_above_max,
            Some(AboveMax {
                replicas: 9,
                max_replicas: 4,
                at_seconds: 15.0
            })
        );
        // Never at max: nothing.
        let mut b = SummaryBuilder::new(15.0, 300.0).with_max_replicas(10);
        b.add(&at(0.0, 2, 3, 3));
        let s = b.finish();
        assert_eq!((s.at_max_seconds, s.wanted_above_max), (0.0, None));
    }

    #[test]
    fn a_spike_is_not_flapping() {
        let mut b = SummaryBuilder::new(15.0, 300.0);
        b.add(&tick(0.0, 2, 6, 2, None));
        b.add(&tick(600.0, 6, 2, 6, None));
        b.add(&tick(615.0, 2, 3, 2, None));
        let s = b.finish();
        assert_eq!(s.direction_reversals, 2);
        assert_eq!(
            s.flapping, 1,
            "only the change 15 s after the previous event"
        );
    }
}
