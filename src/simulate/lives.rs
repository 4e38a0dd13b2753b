//! The pods' lives, and what the world reads of them at an instant (which pods are Ready, which
//! have a sample), kept until the next instant any of it changes.

use jiff::{SignedDuration, Timestamp};

use crate::core::clock;

/// Times of one pod's life.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct PodLife {
    pub(super) created: Timestamp,
    pub(super) ready_at: Timestamp,
}

/// The instants between which flags derived at `from` hold.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Span {
    /// The world's generation of its pods (bumped when a pod comes or goes).
    generation: u64,
    window: SignedDuration,
    from: Timestamp,
    /// The first instant after `from` at which a pod's flag changes (None: never).
    until: Option<Timestamp>,
}

// perf: benches/simulate. A pod turns Ready and gets its first sample at instants known from
// its life, so the flags of every pod are derived once per such instant rather than at every
// sync (a pass over the pods per sync and per instant read, and their counts).
/// Per pod at an instant `t`: whether it was Ready (`ready_at <= t`) and whether it has a sample
/// (it was created one `window` before `t` or earlier), and how many of each. [`PodsAt::at`]
/// derives them again only when the pods changed, `t` went back, or `t` reached the next
/// instant a pod's flag changes (a debug build compares the kept flags with fresh ones).
#[derive(Debug, Clone, Default)]
pub(super) struct PodsAt {
    span: Option<Span>,
    pub(super) ready: Vec<bool>,
    pub(super) sampled: Vec<bool>,
    pub(super) ready_count: usize,
    pub(super) sampled_count: usize,
}

impl PodsAt {
    /// The flags of `lives` (of the world's `generation`) at `t`, a sample taken `window` after
    /// a pod's creation.
    #[inline]
    pub(super) fn at(
        &mut self,
        lives: &[PodLife],
        generation: u64,
        t: Timestamp,
        window: SignedDuration,
    ) {
        let kept = self.span.is_some_and(|s| {
            s.generation == generation
                && s.window == window
                && t >= s.from
                && s.until.is_none_or(|u| t < u)
        });
        if !kept {
            self.derive(lives, generation, t, window);
        }
        if cfg!(debug_assertions) {
            let mut fresh = PodsAt::default();
            fresh.derive(lives, generation, t, window);
            debug_assert!(
                fresh.ready == self.ready
                    && fresh.sampled == self.sampled
                    && fresh.ready_count == self.ready_count
                    && fresh.sampled_count == self.sampled_count,
                "the pods' flags kept for generation {generation} are not the ones at {t}"
            );
        }
    }

    #[inline(never)]
    fn derive(&mut self, lives: &[PodLife], generation: u64, t: Timestamp, window: SignedDuration) {
        // A pod has a sample once `t - window` reached its creation; before the beginning of
        // time nobody has one, and nothing is kept (`until` is `t` itself).
        let sampled_by = clock::checked_sub(t, window);
        let mut until: Option<Timestamp> = if sampled_by.is_none() { Some(t) } else { None };
        let mut earliest = |x: Timestamp| until = Some(until.map_or(x, |u| u.min(x)));
        self.ready.clear();
        self.sampled.clear();
        let (mut ready_count, mut sampled_count) = (0, 0);
        for l in lives {
            let ready = l.ready_at <= t;
            if !ready {
                earliest(l.ready_at);
            }
            let sampled = sampled_by.is_some_and(|s| l.created <= s);
            if !sampled && sampled_by.is_some() {
                // created <= t' - window  ⟺  t' >= created + window (never, past the end).
                if let Some(x) = clock::checked_add(l.created, window) {
                    earliest(x);
                }
            }
            ready_count += usize::from(ready);
            sampled_count += usize::from(sampled);
            self.ready.push(ready);
            self.sampled.push(sampled);
        }
        self.ready_count = ready_count;
        self.sampled_count = sampled_count;
        self.span = Some(Span {
            generation,
            window,
            from: t,
            until,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn life(created: i64, ready_at: i64) -> PodLife {
        PodLife {
            created: Timestamp::from_second(created).unwrap(),
            ready_at: Timestamp::from_second(ready_at).unwrap(),
        }
    }

    /// Kept flags, stepped through time, are at every instant the ones derived afresh.
    #[test]
    fn kept_flags_are_the_fresh_ones_at_every_instant() {
        let lives = [life(0, 30), life(100, 130), life(95, 200), life(-50, -20)];
        let window = SignedDuration::from_secs(15);
        let mut kept = PodsAt::default();
        let mut derived = 0;
        for t in (-100..400).step_by(5) {
            let t = Timestamp::from_second(t).unwrap();
            let before = kept.span;
            kept.at(&lives, 1, t, window);
            derived += usize::from(kept.span != before);
            let mut fresh = PodsAt::default();
            fresh.derive(&lives, 1, t, window);
            assert_eq!(
                (
                    &kept.ready,
                    &kept.sampled,
                    kept.ready_count,
                    kept.sampled_count
                ),
                (
                    &fresh.ready,
                    &fresh.sampled,
                    fresh.ready_count,
                    fresh.sampled_count
                ),
                "at {t}"
            );
        }
        // Derived at the instants something changes (8 of them here, and the first), not at
        // each of the 100 instants.
        assert!(derived <= 10, "derived {derived} times");
        // Another generation, or time going back, derives again.
        let before = kept.span;
        kept.at(&lives, 2, Timestamp::from_second(395).unwrap(), window);
        assert_ne!(kept.span, before);
        let before = kept.span;
        kept.at(&lives[..2], 2, Timestamp::from_second(0).unwrap(), window);
        assert_ne!(kept.span, before);
        assert_eq!(kept.ready, [false, false]);
    }

    #[test]
    fn nothing_has_a_sample_before_the_beginning_of_time() {
        let lives = [PodLife {
            created: Timestamp::MIN,
            ready_at: Timestamp::MIN,
        }];
        let mut kept = PodsAt::default();
        kept.at(&lives, 1, Timestamp::MIN, SignedDuration::from_secs(15));
        assert_eq!((kept.ready_count, kept.sampled_count), (1, 0));
        assert_eq!(kept.span.unwrap().until, Some(Timestamp::MIN));
    }
}
