//! What a call's sender adaptation did, from its log of states (seed 001
//! §5, §7; seed 004 §5): changes per minute, direction reversals, the
//! time-weighted mean ptime and bit rate, and the reaction time from a
//! congestion onset to the first decrease of the sending rate.
//!
//! Readings (docs/results.md, "Adaptation"): the **congestion onset** of a
//! call is the instant its first packet dropped by a queue left the sender
//! (`t_sent` of the first `QueueDrop`); random link loss is not congestion.
//! A **decrease** is a change that lowers the IP rate while talking
//! ((payload + overhead) × 8 / ptime): a longer ptime or a lower bit rate.
//! The reaction time is from the onset to the first decrease decided at or
//! after it.

use super::oscillation::oscillations;
use crate::trace::record::{NetFate, NEVER};
use crate::voice::adapt::AdaptPoint;

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AdaptStats {
    /// Changes after the starting state.
    pub changes: usize,
    /// Changes per minute of the call's generation period; NaN when empty.
    pub changes_per_min: f64,
    /// Direction reversals of the IP rate (`metrics::oscillation`).
    pub reversals: usize,
    /// Time-weighted means over [start, stop].
    pub ptime_mean_ms: f64,
    pub bitrate_mean_bps: f64,
    /// Seconds from simulated time 0; NaN without a queue drop.
    pub onset_s: f64,
    /// Seconds from the onset to the first decrease; NaN without either.
    pub reaction_s: f64,
}

/// The congestion onset (ns): when the first queue-dropped packet was sent.
pub fn congestion_onset(fate: &[NetFate], t_sent: &[u64]) -> Option<u64> {
    congestion_onset_by(fate, |i| t_sent[i])
}

/// [`congestion_onset`] with packet `i`'s send time given as `t_sent(i)`,
/// read for queue-dropped packets only (issue 14: the report decoded a
/// whole send column per call to find one packet).
pub fn congestion_onset_by(fate: &[NetFate], t_sent: impl Fn(usize) -> u64) -> Option<u64> {
    fate.iter()
        .enumerate()
        .filter(|(_, f)| **f == NetFate::QueueDrop)
        .map(|(i, _)| t_sent(i))
        .find(|&t| t != NEVER)
}

/// Statistics of `log` (state at `start` first, then each change in time
/// order) over the call's generation period [start, stop] (ns).
pub fn adapt_stats(log: &[AdaptPoint], start: u64, stop: u64, onset: Option<u64>) -> AdaptStats {
    let span = stop.saturating_sub(start);
    let changes = log.len().saturating_sub(1);
    let mean = |f: fn(&AdaptPoint) -> f64| {
        if span == 0 || log.is_empty() {
            return f64::NAN;
        }
        let mut acc = 0.0;
        for (i, p) in log.iter().enumerate() {
            let a = p.t.as_nanos().clamp(start, stop);
            let b = log.get(i + 1).map_or(stop, |q| q.t.as_nanos().clamp(start, stop));
            acc += f(p) * b.saturating_sub(a) as f64;
        }
        acc / span as f64
    };
    let decrease = onset.and_then(|o| {
        log.windows(2).find(|w| w[1].t.as_nanos() >= o && w[1].wire_bps < w[0].wire_bps).map(|w| w[1].t.as_nanos())
    });
    let wire: Vec<f64> = log.iter().map(|p| p.wire_bps).collect();
    AdaptStats {
        changes,
        changes_per_min: if span == 0 { f64::NAN } else { changes as f64 * 60e9 / span as f64 },
        reversals: oscillations(&wire).reversals,
        ptime_mean_ms: mean(|p| p.ptime.as_millis_f64()),
        bitrate_mean_bps: mean(|p| p.bitrate_bps),
        onset_s: onset.map_or(f64::NAN, |o| o as f64 * 1e-9),
        reaction_s: match (onset, decrease) {
            (Some(o), Some(d)) => (d - o) as f64 * 1e-9,
            _ => f64::NAN,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::{SimDuration, SimTime};

    fn pt(t_s: u64, ptime_ms: u64, bps: f64) -> AdaptPoint {
        AdaptPoint::new(SimTime(t_s * 1_000_000_000), SimDuration::from_millis(ptime_ms), bps, 40)
    }

    /// G.711 (64 kb/s, 40 B of headers) over 0–60 s: 20 ms until 10 s, 30 ms
    /// until 40 s, 20 ms to the end. Mean ptime (10·20 + 30·30 + 20·20)/60 =
    /// 25 ms; 2 changes in 1 min; one reversal. Onset at 8 s: the first
    /// decrease (20 → 30 ms: 80 → 74.67 kb/s on the wire) at 10 s, 2 s later.
    #[test]
    fn ptime_log() {
        let log = [pt(0, 20, 64e3), pt(10, 30, 64e3), pt(40, 20, 64e3)];
        assert!((log[0].wire_bps - 80e3).abs() < 1e-9);
        let s = adapt_stats(&log, 0, 60_000_000_000, Some(8_000_000_000));
        assert_eq!((s.changes, s.reversals), (2, 1));
        assert!((s.changes_per_min - 2.0).abs() < 1e-12);
        assert!((s.ptime_mean_ms - 25.0).abs() < 1e-9);
        assert_eq!(s.bitrate_mean_bps, 64e3);
        assert!((s.reaction_s - 2.0).abs() < 1e-12);
        // An onset after the last decrease: no reaction.
        assert!(adapt_stats(&log, 0, 60_000_000_000, Some(11_000_000_000)).reaction_s.is_nan());
        assert!(adapt_stats(&log, 0, 60_000_000_000, None).onset_s.is_nan());
    }

    /// A bit-rate log from a call starting at 5 s: 64 kb/s, 32 at 7 s, 40
    /// at 11 s, to 15 s: mean (2·64 + 4·32 + 4·40)/10 = 41.6 kb/s.
    #[test]
    fn bitrate_log_from_a_late_start() {
        let log = [pt(5, 125, 64e3), pt(7, 125, 32e3), pt(11, 125, 40e3)];
        let s = adapt_stats(&log, 5_000_000_000, 15_000_000_000, Some(6_000_000_000));
        assert!((s.bitrate_mean_bps - 41.6e3).abs() < 1e-6);
        assert!((s.reaction_s - 1.0).abs() < 1e-12);
        assert!((s.changes_per_min - 12.0).abs() < 1e-12);
    }

    #[test]
    fn onset_is_the_first_queue_drop_sent() {
        let fate = [NetFate::Arrived, NetFate::LinkLoss, NetFate::QueueDrop, NetFate::QueueDrop];
        assert_eq!(congestion_onset(&fate, &[1, 2, 3, 4]), Some(3));
        assert_eq!(congestion_onset(&fate[..2], &[1, 2]), None);
    }
}
