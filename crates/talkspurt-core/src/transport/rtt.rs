//! Round-trip time estimation and the retransmission timeout (RFC 6298),
//! shared by TCP and DCCP CCID 2. Time is integer nanoseconds; when a
//! clock granularity G is configured, samples are measured in whole ticks
//! of G as a coarse-clock implementation would (ns-2's tcpTick_).

use crate::time::{SimDuration, SimTime};

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RttConfig {
    /// RTO before any sample (RFC 6298 §2.1: 1 s).
    pub initial_rto: SimDuration,
    /// RFC 6298 §2.4 (1 s; ns-2 0.2 s).
    pub min_rto: SimDuration,
    /// RFC 6298 §2.5 (≥ 60 s).
    pub max_rto: SimDuration,
    /// Clock granularity G (RFC 6298 §2); zero for an exact clock.
    pub granularity: SimDuration,
}

#[derive(Clone, Debug)]
pub struct RttEstimator {
    cfg: RttConfig,
    srtt: Option<SimDuration>,
    rttvar: SimDuration,
    min_rtt: SimDuration,
    latest: SimDuration,
    /// RTO before backoff.
    base_rto: SimDuration,
    /// Exponential backoff exponent (RFC 6298 §5.5), reset by a new sample.
    backoff: u32,
}

impl RttEstimator {
    pub fn new(cfg: RttConfig) -> Self {
        RttEstimator {
            cfg,
            srtt: None,
            rttvar: SimDuration::ZERO,
            min_rtt: SimDuration(u64::MAX),
            latest: SimDuration::ZERO,
            base_rto: cfg.initial_rto,
            backoff: 0,
        }
    }

    /// A sample from a segment sent at `sent` and acknowledged at `now`
    /// (the caller applies Karn's rule: never a retransmitted segment,
    /// RFC 6298 §3). Returns the sample as measured.
    pub fn on_sample(&mut self, sent: SimTime, now: SimTime) -> SimDuration {
        let r = self.measure(sent, now);
        self.latest = r;
        self.min_rtt = self.min_rtt.min(r);
        match self.srtt {
            // RFC 6298 §2.2.
            None => {
                self.srtt = Some(r);
                self.rttvar = SimDuration(r.0 / 2);
            }
            // RFC 6298 §2.3 with α = 1/8, β = 1/4, in integer nanoseconds.
            Some(srtt) => {
                let err = srtt.0.abs_diff(r.0);
                self.rttvar = SimDuration((3 * self.rttvar.0 + err) / 4);
                self.srtt = Some(SimDuration((7 * srtt.0 + r.0) / 8));
            }
        }
        let srtt = self.srtt.unwrap_or(r);
        let k = (4 * self.rttvar.0).max(self.cfg.granularity.0);
        self.base_rto = self.clamp(SimDuration(srtt.0 + k));
        self.backoff = 0;
        r
    }

    /// With a coarse clock, both timestamps are read in whole ticks: the
    /// sample is the tick difference, at least one tick (as BSD and ns-2).
    fn measure(&self, sent: SimTime, now: SimTime) -> SimDuration {
        let g = self.cfg.granularity.0;
        if g == 0 {
            return now.saturating_since(sent);
        }
        let ticks = (now.0 / g).saturating_sub(sent.0 / g).max(1);
        SimDuration(ticks * g)
    }

    fn clamp(&self, d: SimDuration) -> SimDuration {
        d.max(self.cfg.min_rto).min(self.cfg.max_rto)
    }

    /// The timeout to arm now, backoff included.
    pub fn rto(&self) -> SimDuration {
        let shifted = self.base_rto.0.checked_shl(self.backoff).unwrap_or(u64::MAX);
        self.clamp(SimDuration(shifted.max(self.base_rto.0)))
    }

    /// TCP Vegas' fine-grained timeout (Brakmo & Peterson 1995 §3.1): no
    /// minimum, granularity or backoff, and — as the x-kernel / ns-2 code
    /// (`tcp-vegas.cc`: ((sa/4) + sd)/2 · 17/16) — 17/16·(SRTT + 2·RTTVAR).
    /// SRTT + 4·RTTVAR, tried first, falls to exactly SRTT on a steady
    /// path (RTTVAR decays to 0), so a segment whose ACK came a nanosecond
    /// late "expired": at 100 Mb/s that resent ~9 segments per loss. The
    /// initial RTO before any sample.
    pub fn fine_rto(&self) -> SimDuration {
        match self.srtt {
            Some(s) => SimDuration((s.0 + 2 * self.rttvar.0) / 16 * 17),
            None => self.cfg.initial_rto,
        }
    }

    /// RFC 6298 §5.5: double the RTO after a timeout.
    pub fn back_off(&mut self) {
        if self.rto() < self.cfg.max_rto {
            self.backoff += 1;
        }
    }

    pub fn srtt(&self) -> Option<SimDuration> {
        self.srtt
    }
    /// Smoothed RTT, or the initial RTO's worth before any sample.
    pub fn srtt_or_initial(&self) -> SimDuration {
        self.srtt.unwrap_or(self.cfg.initial_rto)
    }
    pub fn rttvar(&self) -> SimDuration {
        self.rttvar
    }
    pub fn min_rtt(&self) -> SimDuration {
        if self.srtt.is_some() { self.min_rtt } else { SimDuration::ZERO }
    }
    pub fn latest(&self) -> SimDuration {
        self.latest
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg(g_ms: u64) -> RttConfig {
        RttConfig {
            initial_rto: SimDuration::from_secs(1),
            min_rto: SimDuration::from_millis(200),
            max_rto: SimDuration::from_secs(60),
            granularity: SimDuration::from_millis(g_ms),
        }
    }
    fn ms(x: u64) -> SimTime {
        SimTime(x * 1_000_000)
    }

    /// RFC 6298 §2.2–2.3 by hand: R = 100 ms → SRTT 100, RTTVAR 50,
    /// RTO = 100 + 4·50 = 300 ms; then R = 200 ms → RTTVAR = 3/4·50 +
    /// 1/4·100 = 62.5, SRTT = 112.5, RTO = 112.5 + 250 = 362.5 ms.
    #[test]
    fn rfc6298_first_samples() {
        let mut e = RttEstimator::new(cfg(0));
        assert_eq!(e.rto(), SimDuration::from_secs(1));
        e.on_sample(ms(0), ms(100));
        assert_eq!((e.srtt().unwrap(), e.rttvar()), (SimDuration::from_millis(100), SimDuration::from_millis(50)));
        assert_eq!(e.rto(), SimDuration::from_millis(300));
        e.on_sample(ms(1000), ms(1200));
        assert_eq!(e.srtt().unwrap(), SimDuration(112_500_000));
        assert_eq!(e.rttvar(), SimDuration(62_500_000));
        assert_eq!(e.rto(), SimDuration(362_500_000));
    }

    /// Backoff doubles (§5.5) up to the maximum (§2.5), and a new sample
    /// collapses it (§5.7 keeps the backed-off value until then).
    #[test]
    fn backoff_and_bounds() {
        let mut e = RttEstimator::new(cfg(0));
        e.on_sample(ms(0), ms(100));
        e.back_off();
        assert_eq!(e.rto(), SimDuration::from_millis(600));
        for _ in 0..20 {
            e.back_off();
        }
        assert_eq!(e.rto(), SimDuration::from_secs(60));
        e.on_sample(ms(0), ms(100));
        assert!(e.rto() < SimDuration::from_secs(1));
        // min RTO: a 1 ms path still waits 200 ms.
        let mut f = RttEstimator::new(cfg(0));
        f.on_sample(ms(0), ms(1));
        assert_eq!(f.rto(), SimDuration::from_millis(200));
    }

    /// A 10 ms clock measures 95 ms from t = 3 ms as ticks 0 → 9: 90 ms;
    /// G enters the RTO as max(G, 4·RTTVAR).
    #[test]
    fn coarse_clock() {
        let mut e = RttEstimator::new(RttConfig { min_rto: SimDuration::ZERO, ..cfg(10) });
        let r = e.on_sample(ms(3), ms(98));
        assert_eq!(r, SimDuration::from_millis(90));
        let mut f = RttEstimator::new(RttConfig { min_rto: SimDuration::ZERO, ..cfg(10) });
        f.on_sample(ms(0), ms(2)); // one tick at least
        assert_eq!(f.srtt().unwrap(), SimDuration::from_millis(10));
    }
}
