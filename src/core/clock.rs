//! `t ± d` for a timestamp and a `SignedDuration`, with the result jiff's
//! `Timestamp::checked_add` / `checked_sub` give, computed directly.
//!
//! jiff's methods take any duration (a `Span` too) and dispatch on its kind; a sync does a few
//! of these additions per metric and per policy, and `simulate` runs hundreds of thousands of
//! syncs. These functions add the two as durations and check the result is a timestamp, which
//! is what jiff does for a `SignedDuration` once it has dispatched (the unit tests compare both
//! at the ends of the range).

use jiff::{SignedDuration, Timestamp};

// perf: benches/simulate. Always in line: a sync makes a few of these (the windows' cutoffs,
// the next sync's time), and as calls their frames cost about as much as their bodies.
/// `t + d`; None outside the range of timestamps.
#[inline(always)]
pub fn checked_add(t: Timestamp, d: SignedDuration) -> Option<Timestamp> {
    Timestamp::from_duration(t.as_duration().checked_add(d)?).ok()
}

/// `t - d`; None outside the range of timestamps.
#[inline(always)]
pub fn checked_sub(t: Timestamp, d: SignedDuration) -> Option<Timestamp> {
    Timestamp::from_duration(t.as_duration().checked_sub(d)?).ok()
}

/// `t + d`, saturating at the ends of time (a snapshot dated 9999-12-31 must not abort).
#[inline]
pub fn saturating_add(t: Timestamp, d: SignedDuration) -> Timestamp {
    checked_add(t, d).unwrap_or(if d.is_negative() {
        Timestamp::MIN
    } else {
        Timestamp::MAX
    })
}

/// `t - d`, or the beginning of time when that is out of range (a cutoff: everything is after
/// it).
#[inline]
pub fn sub_or_min(t: Timestamp, d: SignedDuration) -> Timestamp {
    checked_sub(t, d).unwrap_or(Timestamp::MIN)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_results_as_jiff_at_the_ends_of_the_range_and_in_between() {
        let times = [
            Timestamp::MIN,
            Timestamp::MAX,
            Timestamp::UNIX_EPOCH,
            Timestamp::new(-1, -1).unwrap(),
            Timestamp::new(0, 999_999_999).unwrap(),
            Timestamp::new(1_772_366_400, 500_000_000).unwrap(),
            Timestamp::new(-62_135_596_800, 0).unwrap(),
            Timestamp::MAX
                .checked_sub(SignedDuration::from_nanos(1))
                .unwrap(),
            Timestamp::MIN
                .checked_add(SignedDuration::from_nanos(1))
                .unwrap(),
        ];
        let durations = [
            SignedDuration::ZERO,
            SignedDuration::MIN,
            SignedDuration::MAX,
            SignedDuration::from_nanos(1),
            SignedDuration::from_nanos(-1),
            SignedDuration::from_secs(15),
            SignedDuration::from_secs(-300),
            SignedDuration::new(299, 999_999_999),
            SignedDuration::new(-1, -500_000_000),
            SignedDuration::from_hours(24 * 365 * 10_000),
            SignedDuration::from_hours(-24 * 365 * 10_000),
        ];
        for t in times {
            for d in durations {
                assert_eq!(checked_add(t, d), t.checked_add(d).ok(), "{t} + {d:?}");
                assert_eq!(checked_sub(t, d), t.checked_sub(d).ok(), "{t} - {d:?}");
            }
        }
        let t = Timestamp::MAX;
        assert_eq!(
            saturating_add(t, SignedDuration::from_secs(1)),
            Timestamp::MAX
        );
        assert_eq!(
            saturating_add(Timestamp::MIN, SignedDuration::from_secs(-1)),
            Timestamp::MIN
        );
        assert_eq!(
            sub_or_min(Timestamp::MIN, SignedDuration::from_secs(1)),
            Timestamp::MIN
        );
        assert_eq!(
            sub_or_min(Timestamp::UNIX_EPOCH, SignedDuration::from_secs(1)),
            Timestamp::new(-1, 0).unwrap()
        );
    }
}
