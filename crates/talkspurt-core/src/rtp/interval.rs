//! The RTCP transmission interval (RFC 3550 §6.2, §6.3.1, A.7), and the
//! fixed interval of seed 001 (§4.4.2: no reconsideration, a report every
//! 5 s). The members and senders counts are the unicast call's: two
//! members, one sender.

use crate::rng::Rng;
use crate::time::SimDuration;

/// e − 3/2: compensates timer reconsideration's bias towards short
/// intervals (RFC 3550 §6.3.1, A.7).
pub const COMPENSATION: f64 = std::f64::consts::E - 1.5;
/// Senders' share of the RTCP bandwidth when they are few (§6.2).
pub const SENDER_BW_FRACTION: f64 = 0.25;

/// How report times are chosen.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Schedule {
    /// RFC 3550 §6.3: randomised in [0.5, 1.5]·T, divided by e − 3/2, with
    /// reconsideration when the timer fires (§6.3.6). `reduced_min` uses
    /// the §6.2 reduced minimum 360 s / (session bandwidth in kb/s)
    /// instead of `min`.
    Rfc3550 { min: SimDuration, reduced_min: bool, reconsideration: bool },
    /// Exactly this period, first report one period after the start (seed
    /// 001's ns-2 RTCP agent).
    Fixed(SimDuration),
}

/// The inputs of A.7's `rtcp_interval`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct IntervalInputs {
    pub members: u32,
    pub senders: u32,
    /// RTCP bandwidth, octets per second (a fraction of the session's).
    pub rtcp_bw: f64,
    pub we_sent: bool,
    /// Average compound RTCP packet size, octets, IP and UDP included.
    pub avg_rtcp_size: f64,
    /// Before the first report (A.7: the minimum is halved).
    pub initial: bool,
    /// The minimum interval Tmin in seconds before halving.
    pub tmin: f64,
}

impl IntervalInputs {
    /// A.7's deterministic interval Td (before randomisation).
    pub fn deterministic(&self) -> f64 {
        let min = if self.initial { self.tmin / 2.0 } else { self.tmin };
        let mut n = self.members as f64;
        let mut bw = self.rtcp_bw;
        // §6.2: when senders are at most a quarter of the members, they
        // share 25 % of the RTCP bandwidth and receivers the rest.
        if self.senders as f64 <= self.members as f64 * SENDER_BW_FRACTION {
            if self.we_sent {
                bw *= SENDER_BW_FRACTION;
                n = self.senders as f64;
            } else {
                bw *= 1.0 - SENDER_BW_FRACTION;
                n -= self.senders as f64;
            }
        }
        (self.avg_rtcp_size * n / bw.max(1e-12)).max(min)
    }

    /// A.7: Td · U[0.5, 1.5] / (e − 3/2).
    pub fn draw(&self, rng: &mut Rng) -> SimDuration {
        let t = self.deterministic() * (rng.uniform() + 0.5) / COMPENSATION;
        SimDuration::from_secs_f64(t)
    }
}

/// §6.2's reduced minimum, seconds, for a session bandwidth in bit/s.
pub fn reduced_min(session_bps: f64) -> f64 {
    360.0 / (session_bps / 1000.0).max(1e-9)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::StreamId;

    fn g711_20ms(tmin: f64, initial: bool) -> IntervalInputs {
        // Seed 001 Table 6: G.711 at 20 ms is 80 kb/s with headers; 5 % of
        // it is 500 octets/s; average RTCP size 96 octets.
        IntervalInputs { members: 2, senders: 1, rtcp_bw: 0.05 * 80_000.0 / 8.0, we_sent: false, avg_rtcp_size: 96.0, initial, tmin }
    }

    /// Unicast: 1 sender of 2 members is more than a quarter, so both share
    /// the whole RTCP bandwidth: Td = 96·2/500 = 0.384 s, below the 5 s
    /// minimum; the reduced minimum is 360/80 = 4.5 s; AVPF's Tmin = 0
    /// (RFC 4585 §3.4) leaves 0.384 s; the first report uses half the
    /// minimum (2.5 s).
    #[test]
    fn deterministic_values() {
        assert_eq!(g711_20ms(5.0, false).deterministic(), 5.0);
        assert_eq!(g711_20ms(5.0, true).deterministic(), 2.5);
        assert!((reduced_min(80_000.0) - 4.5).abs() < 1e-12);
        assert!((g711_20ms(0.0, false).deterministic() - 0.384).abs() < 1e-12);
        // Many receivers: senders are ≤ 25 %, a receiver of 10 members
        // with 1 sender uses 75 % over 9: 96·9/375 = 2.304 s.
        let mut m = g711_20ms(0.0, false);
        m.members = 10;
        assert!((m.deterministic() - 96.0 * 9.0 / 375.0).abs() < 1e-12);
        m.we_sent = true;
        assert!((m.deterministic() - 96.0 / 125.0).abs() < 1e-12);
    }

    /// A.7's randomised interval lies in [0.5, 1.5]·Td/(e − 3/2) and its
    /// mean is Td/(e − 3/2): 10⁵ draws, the mean within 0.5 % (its standard
    /// error is 0.29/√10⁵ ≈ 0.09 % of Td), the range covered to within 1 %.
    #[test]
    fn randomised_interval_bounds_and_mean() {
        let seed = 42;
        let mut rng = Rng::stream(seed, 0, StreamId::new(6, 0));
        let i = g711_20ms(5.0, false);
        let td = i.deterministic();
        let (lo, hi) = (0.5 * td / COMPENSATION, 1.5 * td / COMPENSATION);
        let n = 100_000;
        let (mut sum, mut min, mut max) = (0.0, f64::MAX, 0.0f64);
        for _ in 0..n {
            let t = i.draw(&mut rng).as_secs_f64();
            assert!(t >= lo - 1e-9 && t <= hi + 1e-9, "seed {seed}: {t} outside [{lo}, {hi}]");
            sum += t;
            min = min.min(t);
            max = max.max(t);
        }
        let mean = sum / n as f64;
        assert!((mean / (td / COMPENSATION) - 1.0).abs() < 0.005, "seed {seed}: mean {mean}");
        assert!(min < lo * 1.01 && max > hi * 0.99, "seed {seed}: range [{min}, {max}]");
    }
}
