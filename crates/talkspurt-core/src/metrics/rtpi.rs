//! Real-Time Performance Index and Delayed Packets Rate of seed 002
//! (Papadimitriou & Tsaoussidis, §III.B, Algorithm 1 "Timely Received
//! Packets"), implemented literally:
//!
//! ```text
//! for each packet received, sequence number i:
//!   if threshold > 0:
//!     packetTime[i] = currentTime; packetsReceived += 1
//!     if i = 0: timelyPackets += 1
//!     else if packetTime[i] − packetTime[i−1] > threshold: delayedPackets += 1
//! timelyPackets = packetsReceived − delayedPackets
//! RTPI = timelyPackets / sentPackets ≤ 1
//! ```
//!
//! Readings (see `docs/models/metrics.md`):
//! - the `i = 0` increment is dead code (the last line overwrites
//!   `timelyPackets`), so timely = received − delayed;
//! - `i` is the sequence number, so the comparison is with packet `i − 1` by
//!   sequence number, not with the previously received packet; the
//!   comparison is strict (a gap equal to the threshold is timely);
//! - the pseudo-code does not say what happens when packet `i − 1` has not
//!   been received when packet `i` arrives (lost, or reordered behind `i`):
//!   [`MissingPredecessor`] selects the reading, default what the seed's
//!   receiver code as written gives, `packetTime[i − 1]` never set (zero):
//!   delayed;
//! - Algorithm 1 sees arrival times only, so the first packet of a
//!   talkspurt after a silence longer than the threshold is delayed:
//!   [`RtpiSilence`] selects `Count` (default, as written) or `Exclude`
//!   (a talkspurt's first packet is not compared with the previous
//!   talkspurt's last);
//! - "sent packets" is every packet the application generated (the length of
//!   the column), sender drops included;
//! - Delayed Packets Rate = delayed / sent and Packet Loss Rate =
//!   (sent − received) / sent, so RTPI + DPR + PLR = 1.

use super::{ratio, NOT_ARRIVED};

/// Algorithm 1's inter-arrival threshold used by seed 002: 300 ms.
pub const DEFAULT_RTPI_THRESHOLD_NS: u64 = 300_000_000;

/// What Algorithm 1 does with packet `i > 0` when packet `i − 1` has not
/// been received by the time `i` arrives (never arrived, or arrives later).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum MissingPredecessor {
    /// No comparison is possible; treated like the algorithm's own
    /// no-predecessor case `i = 0`: the packet is timely.
    Timely,
    /// Counted delayed: what Algorithm 1 as written gives, `packetTime[i−1]`
    /// never set (zero): `packetTime[i] − 0 > threshold` once the clock
    /// passes the threshold. Default (seed 002 §III.B, issue 24).
    #[default]
    Delayed,
    /// Compared with the packet received just before it (arrival order, ties
    /// broken by sequence number): the "inter-arrival time" reading. Timely
    /// if it is the first packet received.
    PreviousArrival,
}

/// What Algorithm 1 does with the first packet of a talkspurt, whose
/// inter-arrival time includes the speaker's silence.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum RtpiSilence {
    /// Compared like any other packet (Algorithm 1 as written: the receiver
    /// sees arrival times only), so a silence longer than the threshold
    /// makes the next packet delayed. Default.
    #[default]
    Count,
    /// Not compared: a talkspurt's first packet is timely (the gap is the
    /// speaker's, not the network's). Needs the talkspurt of each packet.
    Exclude,
}

/// Counts and rates of Algorithm 1 for one call.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RealTimePerformance {
    /// Packets sent by the application (= generated, the column length).
    pub sent: u64,
    /// `packetsReceived`: packets that arrived.
    pub received: u64,
    /// `delayedPackets`: received with inter-arrival time > threshold.
    pub delayed: u64,
    /// `timelyPackets` = received − delayed.
    pub timely: u64,
    /// Real-Time Performance Index = timely / sent; `None` if nothing was sent.
    pub index: Option<f64>,
    /// Delayed Packets Rate = delayed / sent; `None` if nothing was sent.
    pub delayed_rate: Option<f64>,
    /// Packet Loss Rate = (sent − received) / sent; `None` if nothing was sent.
    pub loss_rate: Option<f64>,
}

/// Whether a packet arriving at `a` whose predecessor had not arrived
/// before it is delayed, under `missing`; `prev`: the arrival just before
/// it (`PreviousArrival` only).
#[cold]
fn missing_predecessor(missing: MissingPredecessor, a: u64, prev: Option<u64>, threshold_ns: u64) -> bool {
    match missing {
        MissingPredecessor::Timely => false,
        MissingPredecessor::Delayed => true,
        MissingPredecessor::PreviousArrival => prev.is_some_and(|q| a - q > threshold_ns),
    }
}

/// Runs Algorithm 1 of seed 002 over one call's arrival column `t_arr`
/// (generation order, [`NOT_ARRIVED`] where the packet never arrived) with an
/// inter-arrival `threshold_ns` (seed: 300 ms, swept 100–400 ms).
///
/// Packet `i > 0` is delayed iff its predecessor `i − 1` arrived no later
/// than it (`t_arr[i−1] ≤ t_arr[i]`) and `t_arr[i] − t_arr[i−1] >
/// threshold_ns`; otherwise `missing` decides. Packet 0 is never delayed.
///
/// Errors when `threshold_ns == 0`: the algorithm's `if threshold > 0`
/// guard then counts nothing at all, which would report RTPI = 0.
pub fn real_time_performance(
    t_arr: &[u64],
    threshold_ns: u64,
    missing: MissingPredecessor,
) -> Result<RealTimePerformance, String> {
    real_time_performance_spurts(t_arr, &[], threshold_ns, missing, RtpiSilence::Count)
}

/// [`real_time_performance`] with the talkspurt of each packet (`spurt`,
/// the same length as `t_arr`, or empty with `RtpiSilence::Count`) and the
/// treatment of a talkspurt's first packet. With `Exclude`, packet `i > 0`
/// whose talkspurt differs from packet `i − 1`'s is timely.
pub fn real_time_performance_spurts(
    t_arr: &[u64],
    spurt: &[u32],
    threshold_ns: u64,
    missing: MissingPredecessor,
    silence: RtpiSilence,
) -> Result<RealTimePerformance, String> {
    let exclude = silence == RtpiSilence::Exclude;
    if exclude && spurt.len() != t_arr.len() {
        return Err(format!("RTPI silence = exclude needs a talkspurt per packet ({} for {} packets)", spurt.len(), t_arr.len()));
    }
    if threshold_ns == 0 {
        return Err("RTPI threshold must be > 0 (Algorithm 1 counts nothing at 0)".to_string());
    }
    // Arrival time of the packet received just before each packet, for
    // MissingPredecessor::PreviousArrival only.
    let prev_arrival: Vec<Option<u64>> = if missing == MissingPredecessor::PreviousArrival {
        let mut order: Vec<usize> = (0..t_arr.len())
            .filter(|&i| t_arr[i] != NOT_ARRIVED)
            .collect();
        order.sort_by_key(|&i| (t_arr[i], i));
        let mut prev = vec![None; t_arr.len()];
        for w in order.windows(2) {
            prev[w[1]] = Some(t_arr[w[0]]);
        }
        prev
    } else {
        Vec::new()
    };
    let mut received = t_arr.first().is_some_and(|&a| a != NOT_ARRIVED) as u64;
    let mut delayed = 0u64;
    // Packet i = k + 1 with its predecessor, by windows (issue 14: no index
    // checks; the common case is two compares).
    for (k, w) in t_arr.windows(2).enumerate() {
        let (p, a) = (w[0], w[1]);
        if a == NOT_ARRIVED {
            continue;
        }
        received += 1;
        if exclude && spurt[k + 1] != spurt[k] {
            continue; // a talkspurt's first packet: the gap is the silence
        }
        // `p <= a` with `a` arrived means `p` arrived too (NOT_ARRIVED is
        // the largest u64).
        let late = if p <= a {
            a - p > threshold_ns
        } else {
            missing_predecessor(missing, a, prev_arrival.get(k + 1).copied().flatten(), threshold_ns)
        };
        delayed += late as u64;
    }
    let sent = t_arr.len() as u64;
    let timely = received - delayed;
    Ok(RealTimePerformance {
        sent,
        received,
        delayed,
        timely,
        index: ratio(timely, sent),
        delayed_rate: ratio(delayed, sent),
        loss_rate: ratio(sent - received, sent),
    })
}

#[cfg(test)]
mod tests {
    use super::super::{close, ms, MS, X};
    use super::*;
    use MissingPredecessor::*;


    fn counts(r: &RealTimePerformance) -> (u64, u64, u64, u64) {
        (r.sent, r.received, r.delayed, r.timely)
    }

    #[test]
    fn one_long_gap_no_loss() {
        // Gaps 20, 20, 350, 20 ms; only packet 3 exceeds 300 ms →
        // received 5, delayed 1, timely 4; RTPI 4/5, DPR 1/5, PLR 0.
        let r = real_time_performance(&ms(&[100, 120, 140, 490, 510]), 300 * MS, Timely).unwrap();
        assert_eq!(counts(&r), (5, 5, 1, 4));
        close(r.index.unwrap(), 0.8, 1e-12);
        close(r.delayed_rate.unwrap(), 0.2, 1e-12);
        close(r.loss_rate.unwrap(), 0.0, 0.0);
    }

    /// Two talkspurts, 20-ms packets, a 500-ms silence between them: as
    /// written (Count) the first packet after it is delayed (gap 520 ms >
    /// 300 ms): RTPI 5/6; Exclude does not compare it: RTPI 1. A network
    /// gap inside a talkspurt is delayed either way.
    #[test]
    fn silence_count_or_exclude() {
        let t = ms(&[0, 20, 40, 560, 580, 600]);
        let sp = [0, 0, 0, 1, 1, 1];
        let c = real_time_performance_spurts(&t, &sp, 300 * MS, Delayed, RtpiSilence::Count).unwrap();
        assert_eq!(counts(&c), (6, 6, 1, 5));
        assert_eq!(c, real_time_performance(&t, 300 * MS, Delayed).unwrap());
        let e = real_time_performance_spurts(&t, &sp, 300 * MS, Delayed, RtpiSilence::Exclude).unwrap();
        assert_eq!(counts(&e), (6, 6, 0, 6));
        let t = ms(&[0, 20, 400, 560, 580, 600]);
        let e = real_time_performance_spurts(&t, &sp, 300 * MS, Delayed, RtpiSilence::Exclude).unwrap();
        assert_eq!(e.delayed, 1, "the 380-ms gap inside talkspurt 0");
        assert!(real_time_performance_spurts(&t, &[], 300 * MS, Delayed, RtpiSilence::Exclude).is_err());
        // docs/models/metrics.md's example: packet 1 lost as well. RTPI
        // count/delayed 3/6, exclude/delayed 4/6, count/timely 4/6,
        // exclude/timely 5/6.
        let t = ms(&[0, X, 40, 560, 580, 600]);
        for (m, sil, timely) in [
            (Delayed, RtpiSilence::Count, 3),
            (Delayed, RtpiSilence::Exclude, 4),
            (Timely, RtpiSilence::Count, 4),
            (Timely, RtpiSilence::Exclude, 5),
        ] {
            let r = real_time_performance_spurts(&t, &sp, 300 * MS, m, sil).unwrap();
            assert_eq!(r.timely, timely, "{m:?} {sil:?}");
            close(r.index.unwrap(), timely as f64 / 6.0, 1e-12);
        }
    }

    /// The default reading is Algorithm 1 as written (issue 24).
    #[test]
    fn defaults_are_as_written() {
        assert_eq!(MissingPredecessor::default(), Delayed);
        assert_eq!(RtpiSilence::default(), RtpiSilence::Count);
    }

    #[test]
    fn threshold_is_strict() {
        // Gap exactly 300 ms is not "> threshold"; 300 ms + 1 ns is.
        let t = [0, 300 * MS];
        assert_eq!(
            real_time_performance(&t, 300 * MS, Timely).unwrap().delayed,
            0
        );
        let t = [0, 300 * MS + 1];
        assert_eq!(
            real_time_performance(&t, 300 * MS, Timely).unwrap().delayed,
            1
        );
    }

    #[test]
    fn lost_predecessor_three_readings() {
        // Packet 1 and 4 lost; packet 2 arrives 400 ms after packet 0.
        // Timely: 2 not compared → delayed 0, timely 3 → RTPI 3/5, PLR 2/5.
        // Delayed: 2 counted → delayed 1, timely 2 → RTPI 2/5, DPR 1/5.
        // PreviousArrival: 2 vs packet 0: 400 > 300 → delayed 1.
        let t = ms(&[100, X, 500, 520, X]);
        let a = real_time_performance(&t, 300 * MS, Timely).unwrap();
        assert_eq!(counts(&a), (5, 3, 0, 3));
        close(a.index.unwrap(), 0.6, 1e-12);
        close(a.loss_rate.unwrap(), 0.4, 1e-12);
        let b = real_time_performance(&t, 300 * MS, Delayed).unwrap();
        assert_eq!(counts(&b), (5, 3, 1, 2));
        close(b.index.unwrap(), 0.4, 1e-12);
        close(b.delayed_rate.unwrap(), 0.2, 1e-12);
        let c = real_time_performance(&t, 300 * MS, PreviousArrival).unwrap();
        assert_eq!(counts(&c), (5, 3, 1, 2));
        // With the previous arrival only 100 ms earlier it is timely.
        let c = real_time_performance(&ms(&[100, X, 200]), 300 * MS, PreviousArrival).unwrap();
        assert_eq!(c.delayed, 0);
        // RTPI + DPR + PLR = 1 (2/5 + 1/5 + 2/5).
        close(
            b.index.unwrap() + b.delayed_rate.unwrap() + b.loss_rate.unwrap(),
            1.0,
            1e-12,
        );
    }

    #[test]
    fn reordered_predecessor() {
        // Arrivals 100, 200, 150, 170 ms, threshold 60 ms.
        // pkt 1: 200 − 100 = 100 > 60 → delayed (all readings).
        // pkt 2: predecessor 1 arrives later (200 > 150) → missing:
        //   Timely no; Delayed yes; PreviousArrival: previous arrival is
        //   pkt 0 at 100 → 50 ≤ 60 → no.
        // pkt 3: 170 − 150 = 20 → timely.
        let t = ms(&[100, 200, 150, 170]);
        assert_eq!(
            real_time_performance(&t, 60 * MS, Timely).unwrap().delayed,
            1
        );
        assert_eq!(
            real_time_performance(&t, 60 * MS, Delayed).unwrap().delayed,
            2
        );
        assert_eq!(
            real_time_performance(&t, 60 * MS, PreviousArrival)
                .unwrap()
                .delayed,
            1
        );
        // Threshold 40: PreviousArrival now flags pkt 2 (50 > 40) → 2.
        assert_eq!(
            real_time_performance(&t, 40 * MS, PreviousArrival)
                .unwrap()
                .delayed,
            2
        );
    }

    #[test]
    fn first_packet_lost_and_ties() {
        // Packet 0 lost; packet 1 is the first arrival.
        let t = ms(&[X, 1000, 1020]);
        assert_eq!(
            real_time_performance(&t, 300 * MS, Timely).unwrap().delayed,
            0
        );
        assert_eq!(
            real_time_performance(&t, 300 * MS, Delayed)
                .unwrap()
                .delayed,
            1
        );
        assert_eq!(
            real_time_performance(&t, 300 * MS, PreviousArrival)
                .unwrap()
                .delayed,
            0
        );
        // Equal arrival times: the predecessor counts as received, gap 0.
        let r = real_time_performance(&[5, 5], 1, Delayed).unwrap();
        assert_eq!(counts(&r), (2, 2, 0, 2));
    }

    #[test]
    fn edge_cases() {
        let e = real_time_performance(&[], 300 * MS, Timely).unwrap();
        assert_eq!(counts(&e), (0, 0, 0, 0));
        assert_eq!((e.index, e.delayed_rate, e.loss_rate), (None, None, None));
        let all = real_time_performance(&[X, X, X], 300 * MS, Delayed).unwrap();
        assert_eq!(counts(&all), (3, 0, 0, 0));
        assert_eq!((all.index, all.loss_rate), (Some(0.0), Some(1.0)));
        assert!(real_time_performance(&[1, 2], 0, Timely)
            .unwrap_err()
            .contains("> 0"));
        // Single packet: timely by the i = 0 rule.
        let one = real_time_performance(&[7], 1, Timely).unwrap();
        assert_eq!(one.index, Some(1.0));
    }
}
