//! ns-2's retransmission-timeout estimator as Agent/TFRC uses it for the
//! equation's t_RTO (`rto = "ns2"`): the 4.4BSD fixed-point form of
//! Jacobson's estimator (Jacobson 1988, appendix A; RFC 6298 §2 in
//! integers) on a coarse clock of `tick` seconds (ns-2's `tcp_tick_`,
//! 100 ms for Agent/TFRC), with SRTT kept in eighths and RTTVAR in
//! quarters of a tick, and t_RTO = ⌊SRTT + 4·RTTVAR⌋ ticks.
//!
//! The integer shifts matter, not just the tick: an RTTVAR smaller than one
//! tick never decays (RTTVAR/4 truncates to 0), so on a path with a steady
//! RTT t_RTO stays at three times the first sample's ticks, where the
//! real-valued RFC 6298 form tends to SRTT + G.

/// SRTT is held in 1/8 tick (2^3), RTTVAR in 1/4 tick (2^2): ns-2's
/// `T_SRTT_BITS` and `T_RTTVAR_BITS`, and 4.4BSD's.
const SRTT_BITS: u32 = 3;
const RTTVAR_BITS: u32 = 2;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Ns2Rto {
    /// Scaled SRTT (ticks · 8); 0 until the first sample.
    srtt: i64,
    /// Scaled RTTVAR (ticks · 4).
    rttvar: i64,
}

impl Ns2Rto {
    /// One RTT sample of `sample` seconds, rounded to whole ticks (at
    /// least one).
    pub fn sample(&mut self, sample: f64, tick: f64) {
        let m = ((sample / tick + 0.5) as i64).max(1);
        if self.srtt == 0 {
            self.srtt = m << SRTT_BITS;
            self.rttvar = m << (RTTVAR_BITS - 1);
            return;
        }
        let mut delta = m - (self.srtt >> SRTT_BITS);
        self.srtt = (self.srtt + delta).max(1);
        delta = delta.abs() - (self.rttvar >> RTTVAR_BITS);
        self.rttvar = (self.rttvar + delta).max(1);
    }

    /// t_RTO in seconds: ⌊SRTT + 4·RTTVAR⌋ ticks (0 before any sample).
    pub fn rto(&self, tick: f64) -> f64 {
        // RTTVAR·4 in the SRTT's eighths is RTTVAR << (2 + SRTT_BITS − RTTVAR_BITS).
        let eighths = (self.rttvar << (2 + SRTT_BITS - RTTVAR_BITS)) + self.srtt;
        (eighths >> SRTT_BITS) as f64 * tick
    }

    /// t_RTO after one sample of `r` seconds: 3·⌊r/tick + ½⌋ ticks.
    pub fn first(r: f64, tick: f64) -> f64 {
        let mut e = Ns2Rto::default();
        e.sample(r, tick);
        e.rto(tick)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Worked by hand from the shifts: samples of 105 ms on a 100 ms clock
    /// are one tick; SRTT = 8/8, RTTVAR = 2/4 tick, t_RTO = ⌊1 + 4·½⌋ = 3
    /// ticks, and RTTVAR (2 quarters, 2 >> 2 = 0) never decays.
    #[test]
    fn steady_rtt_keeps_three_ticks() {
        let mut e = Ns2Rto::default();
        for _ in 0..1000 {
            e.sample(0.105, 0.1);
            assert!((e.rto(0.1) - 0.3).abs() < 1e-12, "{}", e.rto(0.1));
        }
        assert_eq!(Ns2Rto::first(0.105, 0.1), e.rto(0.1));
        // 0.04 s rounds to 0 ticks and is counted as one.
        assert!((Ns2Rto::first(0.04, 0.1) - 0.3).abs() < 1e-12);
    }

    /// A jump from 1 to 5 ticks: delta = 4, SRTT 8 → 12 (1.5 ticks),
    /// |delta| − RTTVAR/4 = 4 − 0 → RTTVAR 2 → 6 (1.5 ticks), t_RTO =
    /// ⌊(6·8 + 12)/8⌋ = ⌊7.5⌋ = 7 ticks. Then 5 again: delta = 5 − 1 = 4,
    /// SRTT 16, |4| − 6/4 (= 1) = 3, RTTVAR 9, t_RTO = ⌊(72 + 16)/8⌋ = 11.
    #[test]
    fn jump_follows_the_shifts() {
        let mut e = Ns2Rto::default();
        e.sample(0.1, 0.1);
        e.sample(0.5, 0.1);
        assert!((e.rto(0.1) - 0.7).abs() < 1e-12, "{}", e.rto(0.1));
        e.sample(0.5, 0.1);
        assert!((e.rto(0.1) - 1.1).abs() < 1e-12, "{}", e.rto(0.1));
    }
}
