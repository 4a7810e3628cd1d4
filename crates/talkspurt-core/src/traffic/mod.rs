//! Generic traffic sources for cross traffic: CBR, Poisson, and on/off
//! (exponential or Pareto periods, CBR while on — ns-2's EXPOO/POO sources,
//! seed 004's interfering Pareto/UDP traffic).

pub mod bulk;

pub use bulk::{StreamAction, StreamApp};

use crate::rng::{DurationDist, Rng};
use crate::time::{SimDuration, SimTime};

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum SizeDist {
    Fixed { bytes: u32 },
    /// Exponential with the given mean, rounded to whole bytes, at least 1.
    Exponential { mean_bytes: f64 },
}

impl SizeDist {
    pub fn mean_bytes(&self) -> f64 {
        match *self {
            SizeDist::Fixed { bytes } => bytes as f64,
            SizeDist::Exponential { mean_bytes } => mean_bytes,
        }
    }
    fn sample(&self, rng: &mut Rng) -> u32 {
        match *self {
            SizeDist::Fixed { bytes } => bytes,
            SizeDist::Exponential { mean_bytes } => (rng.exponential(mean_bytes).round() as u32).max(1),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Pattern {
    Cbr,
    Poisson,
    OnOff { on: DurationDist, off: DurationDist },
}

/// Options of a packet source.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Options {
    /// CBR: each gap is the interval times 1 + U(−½, ½), ns-2's
    /// `CBR_Traffic` with `random_` set (cbr_traffic.cc, next_interval).
    pub random: bool,
    /// On/off: begin each activation with an off period.
    pub idle_first: bool,
}

/// A source emitting packets within activation windows [start, stop);
/// each window starts the pattern afresh (a source switched off mid-burst
/// loses the rest of it, as seed 004 §5.3 notes).
#[derive(Debug)]
pub struct TrafficSource {
    pattern: Pattern,
    size: SizeDist,
    rate_bps: u64,
    opts: Options,
    rng: Rng,
    stop: SimTime,
    next: SimTime,
    /// End of the current on period (on/off sources).
    on_until: SimTime,
    /// Windows still to come, last first.
    later: Vec<(SimTime, SimTime)>,
}

impl TrafficSource {
    pub fn new(pattern: Pattern, size: SizeDist, rate_bps: u64, start: SimTime, stop: SimTime, rng: Rng) -> Self {
        Self::scheduled(pattern, size, rate_bps, vec![(start, stop)], Options::default(), rng)
    }

    /// A source on during `windows` (ordered, non-overlapping).
    pub fn scheduled(pattern: Pattern, size: SizeDist, rate_bps: u64, mut windows: Vec<(SimTime, SimTime)>, opts: Options, rng: Rng) -> Self {
        windows.reverse();
        let mut s = TrafficSource {
            pattern,
            size,
            rate_bps,
            opts,
            rng,
            stop: SimTime::ZERO,
            next: SimTime::ZERO,
            on_until: SimTime::NEVER,
            later: windows,
        };
        if let Some((a, b)) = s.later.pop() {
            s.begin(a, b);
        }
        s
    }

    /// Start the pattern at `start` for a window ending at `stop`.
    fn begin(&mut self, start: SimTime, stop: SimTime) {
        self.stop = stop;
        self.next = start;
        self.on_until = SimTime::NEVER;
        match self.pattern {
            Pattern::OnOff { on, off } => {
                if self.opts.idle_first {
                    self.next = start + off.sample(&mut self.rng);
                }
                self.on_until = self.next + on.sample(&mut self.rng);
            }
            Pattern::Poisson => self.next = start + Self::exp_gap(&mut self.rng, self.size, self.rate_bps),
            Pattern::Cbr => {}
        }
    }

    fn mean_gap_s(size: SizeDist, rate_bps: u64) -> f64 {
        size.mean_bytes() * 8.0 / rate_bps as f64
    }

    fn exp_gap(rng: &mut Rng, size: SizeDist, rate_bps: u64) -> SimDuration {
        SimDuration::from_secs_f64(rng.exponential(Self::mean_gap_s(size, rate_bps)))
    }

    /// When the next packet leaves, or `None` once stopped.
    pub fn next_time(&self) -> Option<SimTime> {
        (self.next < self.stop).then_some(self.next)
    }

    /// Emit the packet due now; returns its IP size.
    pub fn emit(&mut self) -> u32 {
        let bytes = self.size.sample(&mut self.rng);
        let now = self.next;
        match self.pattern {
            Pattern::Cbr => {
                let gap = SimDuration::transmission(bytes, self.rate_bps);
                self.next = now
                    + if self.opts.random {
                        SimDuration::from_secs_f64(gap.as_secs_f64() * (0.5 + self.rng.uniform()))
                    } else {
                        gap
                    };
            }
            Pattern::Poisson => {
                self.next = now + Self::exp_gap(&mut self.rng, self.size, self.rate_bps);
            }
            Pattern::OnOff { on, off } => {
                let mut t = now + SimDuration::transmission(bytes, self.rate_bps);
                // Past the end of the on period: skip the off period and draw
                // the next on period (ns-2 POO semantics).
                while t >= self.on_until {
                    let off_end = self.on_until + off.sample(&mut self.rng);
                    self.on_until = off_end + on.sample(&mut self.rng);
                    t = off_end;
                }
                self.next = t;
            }
        }
        while self.next >= self.stop {
            let Some((a, b)) = self.later.pop() else { break };
            self.begin(a, b);
        }
        bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::StreamId;

    fn count_bits(mut s: TrafficSource) -> (u64, u64) {
        let (mut n, mut bits) = (0, 0);
        while s.next_time().is_some() {
            bits += s.emit() as u64 * 8;
            n += 1;
        }
        (n, bits)
    }

    #[test]
    fn cbr_rate_exact() {
        // 1000 B at 128 kb/s: one packet every 62.5 ms, 160 packets in 10 s.
        let s = TrafficSource::new(Pattern::Cbr, SizeDist::Fixed { bytes: 1000 }, 128_000, SimTime(0),
            SimTime(10_000_000_000), Rng::stream(1, 0, StreamId::new(4, 0)));
        assert_eq!(count_bits(s), (160, 1_280_000));
    }

    #[test]
    fn poisson_and_onoff_mean_rates() {
        // Poisson at 1 Mb/s over 2000 s with 1000 B packets: 250k packets,
        // standard error 0.2 %; 1 % tolerance.
        let s = TrafficSource::new(Pattern::Poisson, SizeDist::Fixed { bytes: 1000 }, 1_000_000, SimTime(0),
            SimTime(2_000_000_000_000), Rng::stream(1, 0, StreamId::new(4, 1)));
        let (_, bits) = count_bits(s);
        let rate = bits as f64 / 2000.0;
        assert!((rate - 1e6).abs() / 1e6 < 0.01, "poisson rate {rate}");
        // Exponential on/off 2 s / 2 s at 128 kb/s: mean 64 kb/s. Over
        // 40,000 s there are 10k cycles; the relative standard error of the
        // on fraction is about 1/√(10k)·(1/√2) ≈ 0.7 %; 3 % tolerance.
        let two = SimDuration::from_secs(2);
        let p = Pattern::OnOff { on: DurationDist::Exponential { mean: two }, off: DurationDist::Exponential { mean: two } };
        let s = TrafficSource::new(p, SizeDist::Fixed { bytes: 1000 }, 128_000, SimTime(0),
            SimTime(40_000_000_000_000), Rng::stream(1, 0, StreamId::new(4, 2)));
        let (_, bits) = count_bits(s);
        let rate = bits as f64 / 40_000.0;
        assert!((rate - 64_000.0).abs() / 64_000.0 < 0.03, "on/off rate {rate}");
    }
}
