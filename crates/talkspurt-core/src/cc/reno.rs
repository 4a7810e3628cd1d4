//! Reno's window adjustment (RFC 5681): one SMSS per RTT in congestion
//! avoidance, ssthresh = max(FlightSize / 2, 2·SMSS) after loss. Tahoe,
//! Reno, NewReno and SACK differ only in loss recovery, which is the
//! transport's (transport/tcp/recovery.rs).

use super::classic::WindowAdjustment;
use super::AckSample;
use crate::time::SimTime;

#[derive(Clone, Debug, Default)]
pub struct Aimd {
    /// Remainder of SMSS² not yet turned into whole bytes of window, so
    /// that RFC 5681 eq. (3) is applied exactly over many ACKs.
    acc: u64,
}

/// RFC 5681 §3.1 eq. (4).
pub fn reno_ssthresh(flight: u64, smss: u64) -> u64 {
    (flight / 2).max(2 * smss)
}

impl WindowAdjustment for Aimd {
    /// RFC 5681 §3.1 eq. (3): cwnd += SMSS·SMSS / cwnd per ACK, at least
    /// one byte per ACK as the RFC asks, with the fraction carried over.
    fn ca_increase(&mut self, cwnd: u64, smss: u64, _ack: &AckSample) -> u64 {
        self.acc += smss * smss;
        let inc = self.acc / cwnd;
        self.acc %= cwnd;
        inc.max(1)
    }
    fn ssthresh_after_loss(&mut self, _now: SimTime, _cwnd: u64, flight: u64, smss: u64) -> u64 {
        self.acc = 0;
        reno_ssthresh(flight, smss)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::classic::Classic;
    use crate::cc::WindowController;
    use crate::time::SimDuration;

    const MSS: u64 = 1000;

    fn ack(acked: u64, flight: u64) -> AckSample {
        AckSample {
            now: SimTime(0),
            acked,
            flight,
            rtt: None,
            srtt: SimDuration::from_millis(100),
            min_rtt: SimDuration::from_millis(100),
            delivered: 0,
            recovery: false,
        }
    }

    /// RFC 5681 §3.1: one ACK per segment in slow start doubles the window
    /// each round trip: 1, 2, 4, 8, 16 segments.
    #[test]
    fn slow_start_doubles_per_round() {
        let mut c = Classic::new(Aimd::default(), MSS, MSS);
        for round in 0..5u32 {
            assert_eq!(c.cwnd(), MSS << round, "round {round}");
            let segs = c.cwnd() / MSS;
            for _ in 0..segs {
                c.on_ack(&ack(MSS, c.cwnd()));
            }
        }
    }

    /// Congestion avoidance: a full window of ACKs adds one SMSS (eq. 3
    /// gives slightly less than one per RTT as cwnd grows within the
    /// round; the carried remainder keeps it within one byte per ACK).
    #[test]
    fn congestion_avoidance_one_segment_per_round() {
        let mut c = Classic::new(Aimd::default(), MSS, 10 * MSS);
        c.on_congestion_event(SimTime(0), 20 * MSS); // ssthresh = 10 MSS
        assert_eq!(c.ssthresh(), 10 * MSS);
        assert!(!c.in_slow_start());
        for _ in 0..10 {
            c.on_ack(&ack(MSS, c.cwnd()));
        }
        // Σ over 10 ACKs of 10⁶/cwnd with cwnd from 10000 to ~10950: 955.
        let grown = c.cwnd() - 10 * MSS;
        assert!((950..=1000).contains(&grown), "grew {grown} bytes");
    }

    /// RFC 5681 eq. (4): ssthresh = max(FlightSize/2, 2·SMSS); an RTO sets
    /// cwnd to the loss window of one segment.
    #[test]
    fn loss_response() {
        let mut c = Classic::new(Aimd::default(), MSS, 4 * MSS);
        c.on_congestion_event(SimTime(0), 3 * MSS);
        assert_eq!(c.ssthresh(), 2 * MSS);
        c.set_cwnd(30 * MSS);
        c.on_rto(SimTime(0), 30 * MSS);
        assert_eq!((c.cwnd(), c.ssthresh()), (MSS, 15 * MSS));
    }

    /// Recovery ACKs do not grow the window (the recovery machinery owns it).
    #[test]
    fn no_growth_in_recovery() {
        let mut c = Classic::new(Aimd::default(), MSS, 4 * MSS);
        let mut a = ack(MSS, 4 * MSS);
        a.recovery = true;
        c.on_ack(&a);
        assert_eq!(c.cwnd(), 4 * MSS);
    }
}
