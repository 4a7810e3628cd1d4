//! Oscillation count of a series, for seed 001's "QoS oscillations" (Avella
//! & Kakani §5 criterion "QoS Oscillations should not be present", §7.2:
//! "the packetization time varies from 10 ms to 20 ms to 30 ms … This cycle
//! repeats"). The seed gives no formula; here an oscillation is a **reversal
//! of direction**: after repeated values are collapsed, the number of times
//! the sign of the step changes. 20 → 30 → 20 has one reversal, 10 → 20 → 30
//! none. A full cycle (up then down then up) is two reversals.
//!
//! Generic over any `PartialOrd` value (ptime per packet or per report,
//! codec rate, smoothed loss). Values incomparable with themselves (NaN) are
//! skipped. No dead band: on a noisy float series every wiggle counts, so
//! quantise such a series first.

use std::cmp::Ordering;

/// Changes and reversals of a series.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Oscillations {
    /// Steps to a different value (repeats collapsed).
    pub changes: usize,
    /// Steps whose direction differs from the previous step's.
    pub reversals: usize,
}

/// Counts the changes and direction reversals of `series`.
pub fn oscillations<T: PartialOrd + Copy>(series: &[T]) -> Oscillations {
    let mut out = Oscillations::default();
    let mut prev: Option<T> = None;
    let mut last_dir: Option<Ordering> = None;
    for &x in series {
        if x.partial_cmp(&x).is_none() {
            continue; // NaN
        }
        let Some(p) = prev else {
            prev = Some(x);
            continue;
        };
        let dir = match x.partial_cmp(&p) {
            Some(Ordering::Equal) | None => continue,
            Some(d) => d,
        };
        out.changes += 1;
        if last_dir.is_some_and(|d| d != dir) {
            out.reversals += 1;
        }
        last_dir = Some(dir);
        prev = Some(x);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn o(changes: usize, reversals: usize) -> Oscillations {
        Oscillations { changes, reversals }
    }

    #[test]
    fn ptime_series() {
        // 20 20 30 30 20 10 10 20 30: steps up, down, down, up, up →
        // 5 changes; direction flips at 30→20 and at 10→20 → 2 reversals.
        assert_eq!(
            oscillations(&[20u32, 20, 30, 30, 20, 10, 10, 20, 30]),
            o(5, 2)
        );
        // Seed 001 §7.2 cycle 20 → 30 → 20 → 30 → 20: 4 changes, 3 reversals.
        assert_eq!(oscillations(&[20u32, 30, 20, 30, 20]), o(4, 3));
    }

    #[test]
    fn monotone_and_constant() {
        assert_eq!(oscillations(&[10u32, 20, 30, 80]), o(3, 0));
        assert_eq!(oscillations(&[80i64, 30, 30, 10]), o(2, 0));
        assert_eq!(oscillations(&[20u32; 6]), o(0, 0));
    }

    #[test]
    fn edge_cases_and_nan() {
        assert_eq!(oscillations::<u32>(&[]), o(0, 0));
        assert_eq!(oscillations(&[7u32]), o(0, 0));
        // NaN skipped: 1 → 2 (up), 2 → 1 (down) → 2 changes, 1 reversal.
        assert_eq!(oscillations(&[1.0, f64::NAN, 2.0, 1.0]), o(2, 1));
        assert_eq!(oscillations(&[f64::NAN, f64::NAN]), o(0, 0));
    }
}
