//! Background load on a link direction: other users' packets that share
//! the channel's FIFO (a satellite beam's other subscribers, seed 003 §4:
//! "shared access over radio channels … oversubscription on each
//! satellite channel"). They take transmitter time and queue places, and
//! are dropped at the limit like any arrival, but are not delivered
//! anywhere: only their effect on the simulated packets matters.
//!
//! The model is the interrupted Poisson process (IPP; Kuczura 1973, "The
//! interrupted Poisson process as an overflow process", BSTJ 52(3)): an
//! on/off source whose ON and OFF periods are exponential with means
//! `on` and `off`, and which emits packets of `packet` bytes as a Poisson
//! process of rate `rate / (8·packet)` packets/s while ON. It is the
//! two-state Markov-modulated Poisson process with a silent state, the
//! usual model of bursty aggregate load (Heffes & Lucantoni, IEEE JSAC
//! 4(6), 1986). Closed forms (checked in the tests below):
//!
//! - P(ON) = π_on = on / (on + off);
//! - mean offered load = rate · π_on (bits/s), utilisation of a link of
//!   capacity C by the background alone = rate · π_on / C;
//! - ON periods per second = 1 / (on + off).
//!
//! The source starts in a state drawn from its stationary distribution
//! (the sojourns are memoryless, so the residual of the first is again
//! exponential). Its arrivals are generated lazily in time order: the
//! channel asks for every arrival up to the instant of its own next
//! arrival (channel.rs `inject`), which is exact for a FIFO decided at
//! arrival. All draws come from the channel's own stream
//! `(seed, run, LINK_BACKGROUND, channel)`.

use crate::rng::Rng;
use crate::time::SimTime;

/// IPP parameters, in nanoseconds and bits/s.
#[derive(Clone, Debug, PartialEq)]
pub struct OnOffParams {
    /// Rate while ON, bits/s (> 0).
    pub rate_bps: f64,
    /// Packet size, bytes (> 0).
    pub packet: u32,
    /// Mean ON period, ns (> 0).
    pub on_ns: f64,
    /// Mean OFF period, ns (> 0).
    pub off_ns: f64,
}

impl OnOffParams {
    /// P(ON) = on / (on + off).
    pub fn p_on(&self) -> f64 {
        self.on_ns / (self.on_ns + self.off_ns)
    }

    /// Long-run mean offered load, bits/s: rate · P(ON).
    pub fn mean_rate_bps(&self) -> f64 {
        self.rate_bps * self.p_on()
    }

    /// Mean gap between packets while ON, ns.
    fn gap_ns(&self) -> f64 {
        self.packet as f64 * 8.0 * 1e9 / self.rate_bps
    }
}

/// The source: parameters, its stream, and where it stands.
#[derive(Clone, Debug)]
pub struct OnOff {
    pub params: OnOffParams,
    rng: Rng,
    /// The next arrival (ns).
    next: u64,
    /// End of the ON period the next arrival belongs to (ns).
    on_end: u64,
    /// Arrivals handed out so far.
    pub emitted: u64,
    /// ON periods begun so far (the first included).
    pub on_periods: u64,
}

impl OnOff {
    pub fn new(params: OnOffParams, mut rng: Rng) -> OnOff {
        // Stationary start: ON with probability π_on, else OFF for an
        // exponential residual, then ON.
        let on_start = if rng.bernoulli(params.p_on()) { 0.0 } else { rng.exponential(params.off_ns) };
        let on_start = on_start as u64;
        let on_end = on_start + rng.exponential(params.on_ns) as u64;
        let mut s = OnOff { params, rng, next: 0, on_end, emitted: 0, on_periods: 1 };
        s.next = s.advance(on_start);
        s
    }

    /// The first arrival after `t` (inside the ON period ending at
    /// `on_end`, or in a later one).
    fn advance(&mut self, mut t: u64) -> u64 {
        loop {
            let gap = self.rng.exponential(self.params.gap_ns()) as u64;
            if t + gap <= self.on_end {
                return t + gap;
            }
            // The ON period ends first: OFF, then a new ON period. The
            // Poisson clock is memoryless, so the unused gap is dropped.
            let on_start = self.on_end + self.rng.exponential(self.params.off_ns) as u64;
            self.on_end = on_start + self.rng.exponential(self.params.on_ns) as u64;
            self.on_periods += 1;
            t = on_start;
        }
    }

    /// The next arrival time, if it is at or before `until`; consumes it.
    #[inline]
    pub fn pop_until(&mut self, until: SimTime) -> Option<SimTime> {
        if self.next > until.0 {
            return None;
        }
        let t = self.next;
        self.next = self.advance(t);
        self.emitted += 1;
        Some(SimTime(t))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::{kind, StreamId};

    fn params() -> OnOffParams {
        // The satellite-ipstar downlink's calibrated load (docs/models/network.md).
        OnOffParams { rate_bps: 1.0e6, packet: 1500, on_ns: 3e9, off_ns: 65e9 }
    }

    /// Over 10⁷ s (≈ 10⁵ ON periods) the offered load is within 2 % of
    /// rate·π_on, and the ON periods begun within 2 % of
    /// horizon / (on + off) (an alternating renewal process; its count's
    /// standard deviation is ≈ 0.3 % here, so 2 % is > 6 sd).
    #[test]
    fn mean_rate_and_on_periods_match_the_closed_form() {
        for seed in [1u64, 2, 3] {
            let p = params();
            let mut s = OnOff::new(p.clone(), Rng::stream(seed, 0, StreamId::new(kind::LINK_BACKGROUND, 0)));
            let horizon = SimTime(10_000_000 * 1_000_000_000);
            let mut n = 0u64;
            while s.pop_until(horizon).is_some() {
                n += 1;
            }
            let rate = n as f64 * p.packet as f64 * 8.0 / 1e7;
            let want = p.mean_rate_bps();
            assert!((rate / want - 1.0).abs() < 0.02, "seed {seed}: {rate} b/s against rate·π_on = {want}");
            let want_periods = 1e7 / ((p.on_ns + p.off_ns) * 1e-9);
            let got = s.on_periods as f64;
            assert!((got / want_periods - 1.0).abs() < 0.02, "seed {seed}: {got} ON periods against {want_periods}");
        }
    }

    /// Utilisation of a 1 Mb/s link by the background alone: rate·π_on/C.
    #[test]
    fn utilisation_closed_form() {
        let p = params();
        assert!((p.mean_rate_bps() / 1e6 - 1.0 * 3.0 / 68.0).abs() < 1e-12);
    }

    /// Arrivals come in time order and the same stream gives the same
    /// arrivals (determinism).
    #[test]
    fn ordered_and_deterministic() {
        let mk = || OnOff::new(params(), Rng::stream(9, 1, StreamId::new(kind::LINK_BACKGROUND, 2)));
        let (mut a, mut b) = (mk(), mk());
        let until = SimTime(100_000 * 1_000_000_000);
        let mut prev = SimTime::ZERO;
        while let Some(t) = a.pop_until(until) {
            assert!(t >= prev);
            assert_eq!(Some(t), b.pop_until(until));
            prev = t;
        }
        assert!(a.emitted > 1000);
    }
}
