//! The loop of `stabilizeRecommendationWithBehaviors` over the remembered recommendations, and
//! the same answer kept from one sync to the next.
//!
//! The controller walks every remembered recommendation at every sync: the lowest one after the
//! scale-up cutoff, the highest one after the scale-down cutoff (each starting from the
//! proposal), and the last slot older than the earlier cutoff, which the new recommendation
//! overwrites (else it is appended). [`scan`] is that loop. [`KeptEnvelope`] gives the same
//! three answers from what it kept of the last syncs, for a caller whose syncs carry the
//! memory from one to the next with the same windows and a clock that does not go back
//! (`simulate`): a recommendation leaves a window, and becomes old, in the order of its time
//! and never comes back, and a new one enters at `now`, the latest time.

use jiff::Timestamp;

use super::model::Recommendation;

/// The cutoffs of one sync: records strictly after `up` (`down`) are in the scale-up
/// (scale-down) window, records strictly before `old` (the earlier of the two) are old.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Cutoffs {
    pub(super) up: Timestamp,
    pub(super) down: Timestamp,
    pub(super) old: Timestamp,
}

/// What the loop finds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Found {
    /// The lowest of the proposal and the recommendations in the scale-up window.
    pub(super) up: i32,
    /// The highest of the proposal and the recommendations in the scale-down window.
    pub(super) down: i32,
    /// The last slot older than `old`: the one the new recommendation overwrites.
    pub(super) old_index: Option<usize>,
}

/// The controller's loop.
#[inline]
pub(super) fn scan(recs: &[Recommendation], c: Cutoffs, proposal: i32) -> Found {
    let mut found = Found {
        up: proposal,
        down: proposal,
        old_index: None,
    };
    for (i, r) in recs.iter().enumerate() {
        if r.time > c.up {
            found.up = found.up.min(r.replicas);
        }
        if r.time > c.down {
            found.down = found.down.max(r.replicas);
        }
        if r.time < c.old {
            found.old_index = Some(i);
        }
    }
    found
}

/// The envelope kept between syncs: each recommendation that may still matter, in the order of
/// its time. Valid for the memory the last sync left (the caller's promise,
/// [`Evaluator::set_history_carried`](super::Evaluator::set_history_carried)), the same
/// windows, and a `now` not earlier than the last one; anything else derives it again from the
/// memory.
#[derive(Debug, Default)]
pub(super) struct KeptEnvelope {
    /// What it was derived for: the windows (seconds), and the length of the memory and `now`
    /// after the last sync. None: nothing kept.
    key: Option<Key>,
    /// The slots not old yet with their times, oldest first.
    pending: Queue<(Timestamp, usize)>,
    /// The old slots, ascending (the last one is overwritten next).
    old: Vec<usize>,
    /// The candidates for the scale-up window's lowest: times ascending, replicas strictly
    /// ascending (a later recommendation as low hides every earlier higher one).
    lowest: Queue<(Timestamp, i32)>,
    /// The candidates for the scale-down window's highest: times ascending, replicas strictly
    /// descending.
    highest: Queue<(Timestamp, i32)>,
    /// Debug builds: the memory the last sync left, to check the caller's promise.
    #[cfg(debug_assertions)]
    left: Vec<Recommendation>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Key {
    windows: (i64, i64),
    len: usize,
    now: Timestamp,
}

impl KeptEnvelope {
    /// Forget what was kept (the next sync derives it again).
    pub(super) fn forget(&mut self) {
        self.key = None;
    }

    /// [`scan`]'s answer for `recs` (the memory before this sync records), from what was kept,
    /// assuming the caller then writes `(now, proposal)` into the slot found (or appends it).
    /// None when it cannot tell (a recommendation after `now`): the caller scans.
    pub(super) fn next(
        &mut self,
        recs: &[Recommendation],
        now: Timestamp,
        windows: (i64, i64),
        c: Cutoffs,
        proposal: i32,
    ) -> Option<Found> {
        let kept = self
            .key
            .is_some_and(|k| k.windows == windows && k.len == recs.len() && k.now <= now);
        #[cfg(debug_assertions)]
        if kept {
            assert_eq!(
                self.left, recs,
                "the memory is not the one the last sync left (the caller's promise)"
            );
        }
        if !kept && !self.derive(recs, now) {
            self.key = None;
            return None;
        }
        // Leaving the windows, and becoming old, in the order of time.
        while self.lowest.front().is_some_and(|(t, _)| t <= c.up) {
            self.lowest.pop_front();
        }
        while self.highest.front().is_some_and(|(t, _)| t <= c.down) {
            self.highest.pop_front();
        }
        while let Some((t, slot)) = self.pending.front() {
            if t >= c.old {
                break;
            }
            self.pending.pop_front();
            if self.old.last().is_none_or(|&last| last < slot) {
                self.old.push(slot);
            } else {
                let at = self.old.partition_point(|&s| s < slot);
                self.old.insert(at, slot);
            }
        }
        let found = Found {
            up: self
                .lowest
                .front()
                .map_or(proposal, |(_, r)| r.min(proposal)),
            down: self
                .highest
                .front()
                .map_or(proposal, |(_, r)| r.max(proposal)),
            old_index: self.old.pop(),
        };
        // The new recommendation: the latest of all.
        let slot = found.old_index.unwrap_or(recs.len());
        self.push(now, slot, proposal);
        self.key = Some(Key {
            windows,
            len: recs.len() + usize::from(found.old_index.is_none()),
            now,
        });
        #[cfg(debug_assertions)]
        {
            self.left.clear();
            self.left.extend_from_slice(recs);
            let rec = Recommendation {
                time: now,
                replicas: proposal,
            };
            match found.old_index {
                Some(i) => self.left[i] = rec,
                None => self.left.push(rec),
            }
        }
        Some(found)
    }

    /// The recommendation in `slot`, the latest so far, into the queues: pending, and a
    /// candidate for each window's extreme (dropping those it makes irrelevant).
    #[inline]
    fn push(&mut self, t: Timestamp, slot: usize, r: i32) {
        self.pending.push_back((t, slot));
        while self.lowest.back().is_some_and(|(_, x)| x >= r) {
            self.lowest.pop_back();
        }
        self.lowest.push_back((t, r));
        while self.highest.back().is_some_and(|(_, x)| x <= r) {
            self.highest.pop_back();
        }
        self.highest.push_back((t, r));
    }

    /// Derives the kept envelope from the memory (`recs`, none of it after `now`); false when a
    /// recommendation is after `now`.
    fn derive(&mut self, recs: &[Recommendation], now: Timestamp) -> bool {
        if recs.iter().any(|r| r.time > now) {
            return false;
        }
        self.old.clear();
        self.lowest.clear();
        self.highest.clear();
        let mut order: Vec<usize> = (0..recs.len()).collect();
        order.sort_by_key(|&i| (recs[i].time, i));
        self.pending.clear();
        for slot in order {
            self.push(recs[slot].time, slot, recs[slot].replicas);
        }
        true
    }
}

// perf: benches/simulate. A vector read from a moving head: `VecDeque`'s wrapping indexes
// cost more instructions than the envelope's own work.
/// A queue of a few small items: pushed at the back, taken from either end.
#[derive(Debug)]
struct Queue<T> {
    items: Vec<T>,
    /// The items before it are taken.
    head: usize,
}

impl<T> Default for Queue<T> {
    fn default() -> Self {
        Queue {
            items: Vec::new(),
            head: 0,
        }
    }
}

impl<T: Copy> Queue<T> {
    #[inline]
    fn front(&self) -> Option<T> {
        self.items.get(self.head).copied()
    }

    #[inline]
    fn back(&self) -> Option<T> {
        if self.items.len() > self.head {
            self.items.last().copied()
        } else {
            None
        }
    }

    /// Takes the front item (there is one).
    #[inline]
    fn pop_front(&mut self) {
        self.head += 1;
    }

    /// Takes the back item (there is one).
    #[inline]
    fn pop_back(&mut self) {
        self.items.pop();
    }

    #[inline]
    fn push_back(&mut self, item: T) {
        if self.head == self.items.len() {
            self.clear();
        } else if self.head >= 64 {
            self.items.drain(..self.head);
            self.head = 0;
        }
        self.items.push(item);
    }

    fn clear(&mut self) {
        self.items.clear();
        self.head = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use jiff::SignedDuration;

    /// A small deterministic generator (xorshift64).
    struct Rng(u64);

    impl Rng {
        fn below(&mut self, n: u64) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0 % n
        }
    }

    fn cutoffs(now: Timestamp, (up, down): (i64, i64)) -> Cutoffs {
        let up = now - SignedDuration::from_secs(up);
        let down = now - SignedDuration::from_secs(down);
        Cutoffs {
            up,
            down,
            old: up.min(down),
        }
    }

    /// Runs of syncs from random memories (times on the cutoffs, with nanoseconds, some after
    /// the first sync's `now`), random windows of different lengths, periods (zero included)
    /// and proposals: the kept envelope finds what the controller's loop finds at every sync,
    /// and the memories it leaves are the same.
    #[test]
    fn the_kept_envelope_is_the_loop_over_random_runs() {
        let mut rng = Rng(0x2545_F491_4F6C_DD1D);
        let start: Timestamp = "2026-03-01T12:00:00Z".parse().unwrap();
        let mut kept_syncs = 0;
        for _ in 0..3_000 {
            let windows = (
                [0, 15, 60, 300][rng.below(4) as usize],
                [0, 30, 300, 600][rng.below(4) as usize],
            );
            let mut recs: Vec<Recommendation> = (0..rng.below(30))
                .map(|_| Recommendation {
                    time: start
                        - SignedDuration::new(rng.below(700) as i64 - 10, rng.below(3) as i32 * 7),
                    replicas: rng.below(12) as i32,
                })
                .collect();
            let mut kept = KeptEnvelope::default();
            let mut now = start;
            for _ in 0..40 {
                let c = cutoffs(now, windows);
                let proposal = rng.below(12) as i32;
                let expected = scan(&recs, c, proposal);
                if let Some(found) = kept.next(&recs, now, windows, c, proposal) {
                    assert_eq!(found, expected);
                    kept_syncs += 1;
                }
                let rec = Recommendation {
                    time: now,
                    replicas: proposal,
                };
                match expected.old_index {
                    Some(i) => recs[i] = rec,
                    None => recs.push(rec),
                }
                now += SignedDuration::new([0, 1, 15, 15, 15, 61][rng.below(6) as usize], 0);
            }
        }
        // Most syncs were answered from what was kept.
        assert!(kept_syncs > 100_000, "{kept_syncs}");
    }

    /// A change of windows, a clock that goes back, or another memory derive it again.
    #[test]
    fn what_was_kept_is_derived_again_when_it_no_longer_holds() {
        let start: Timestamp = "2026-03-01T12:00:00Z".parse().unwrap();
        let mut recs = vec![];
        let mut kept = KeptEnvelope::default();
        let mut now = start;
        for (i, windows) in [(0, 300), (0, 300), (60, 300), (60, 300)]
            .iter()
            .enumerate()
        {
            let c = cutoffs(now, *windows);
            let found = kept.next(&recs, now, *windows, c, i as i32).unwrap();
            assert_eq!(found, scan(&recs, c, i as i32));
            recs.push(Recommendation {
                time: now,
                replicas: i as i32,
            });
            now += SignedDuration::from_secs(15);
        }
        // The clock goes back: derived again, the same answer.
        now -= SignedDuration::from_secs(45);
        let c = cutoffs(now, (60, 300));
        let back = kept.next(&recs[..3], now, (60, 300), c, 9);
        assert_eq!(back, None, "a recommendation after now: the caller scans");
        kept.forget();
        let c = cutoffs(start, (60, 300));
        assert_eq!(
            kept.next(&recs[..1], start, (60, 300), c, 9),
            Some(scan(&recs[..1], c, 9))
        );
    }
}
