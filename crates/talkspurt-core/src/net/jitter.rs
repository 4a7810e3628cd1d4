//! Extra per-packet delay on a link direction, after propagation.
//!
//! - `Random`: an independent delay per packet from a bounded
//!   distribution — RFC 8868's jitter models. With reordering allowed it
//!   is "Random Bounded PDV" (RBPDV); without, "Approximately Random
//!   Subject to No-Reordering Bounded PDV" (NR-BPDV): a packet never
//!   arrives before its predecessor (its delay is raised to that
//!   predecessor's arrival when needed).
//! - `Bursty`: delivery in bursts, the way seed 003 describes the IPSTAR
//!   return link ("sends data in bursts", §5): the far end releases what
//!   has arrived only at delivery epochs, a renewal process with
//!   exponential gaps of mean `interval`, of which a fraction are long
//!   stalls of length `stall`. Order is preserved. Parameters against the
//!   paper's figures: docs/models/network.md.

use crate::rng::Rng;
use crate::time::SimTime;

#[derive(Clone, Debug, PartialEq)]
pub enum JitterDist {
    /// Uniform on [lo, hi] ns.
    Uniform { lo: f64, hi: f64 },
    /// Normal(mean, sd) truncated to [lo, hi] ns (by rejection).
    Normal { mean: f64, sd: f64, lo: f64, hi: f64 },
}

impl JitterDist {
    pub fn sample(&self, rng: &mut Rng) -> f64 {
        match *self {
            JitterDist::Uniform { lo, hi } => lo + (hi - lo) * rng.uniform(),
            JitterDist::Normal { mean, sd, lo, hi } => loop {
                // Box–Muller; one of the pair is enough here.
                let (u, v) = (rng.uniform_open0(), rng.uniform());
                let z = (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos();
                let x = mean + sd * z;
                if (lo..=hi).contains(&x) {
                    break x;
                }
            },
        }
    }

    /// The distribution function (used by the Kolmogorov–Smirnov tests).
    pub fn cdf(&self, x: f64) -> f64 {
        match *self {
            JitterDist::Uniform { lo, hi } => ((x - lo) / (hi - lo)).clamp(0.0, 1.0),
            JitterDist::Normal { mean, sd, lo, hi } => {
                let phi = |y: f64| normal_cdf((y - mean) / sd);
                ((phi(x.clamp(lo, hi)) - phi(lo)) / (phi(hi) - phi(lo))).clamp(0.0, 1.0)
            }
        }
    }
}

/// Φ(z) via erfc (W. J. Cody's rational Chebyshev fit as given in Numerical
/// Recipes §6.2, `erfcc`: fractional error < 1.2e-7 everywhere).
pub fn normal_cdf(z: f64) -> f64 {
    let x = -z / std::f64::consts::SQRT_2;
    let t = 1.0 / (1.0 + 0.5 * x.abs());
    let y = t
        * (-x * x - 1.265_512_23
            + t * (1.000_023_68
                + t * (0.374_091_96
                    + t * (0.096_784_18
                        + t * (-0.186_288_06
                            + t * (0.278_868_07
                                + t * (-1.135_203_98 + t * (1.488_515_87 + t * (-0.822_152_23 + t * 0.170_872_77)))))))))
            .exp();
    let erfc = if x >= 0.0 { y } else { 2.0 - y };
    0.5 * erfc
}

#[derive(Debug)]
pub struct RandomJitter {
    pub dist: JitterDist,
    pub reorder: bool,
    last: SimTime,
    rng: Rng,
}

/// Delivery epochs: gaps are `stall` with probability `q`, otherwise
/// exponential with mean `interval` (ns).
#[derive(Debug)]
pub struct Bursty {
    interval: f64,
    stall: u64,
    q: f64,
    next: SimTime,
    rng: Rng,
}

impl Bursty {
    /// `stall_every`: mean time between stalls (> `stall`). Stalls per
    /// second are q / E[gap] with E[gap] = (1 − q)·interval + q·stall, so
    /// q = interval / (stall_every + interval − stall).
    pub fn new(interval: f64, stall: u64, stall_every: Option<u64>, rng: Rng) -> Self {
        let q = stall_every.map_or(0.0, |m| interval / (m as f64 + interval - stall as f64));
        let mut b = Bursty { interval, stall, q, next: SimTime::ZERO, rng };
        b.next = SimTime::ZERO + crate::time::SimDuration(b.gap());
        b
    }

    fn gap(&mut self) -> u64 {
        if self.q > 0.0 && self.rng.bernoulli(self.q) {
            self.stall
        } else {
            self.rng.exponential(self.interval) as u64
        }
    }
}

#[derive(Debug)]
pub enum Jitter {
    None,
    Random(RandomJitter),
    Bursty(Bursty),
}

impl Jitter {
    pub fn random(dist: JitterDist, reorder: bool, rng: Rng) -> Jitter {
        Jitter::Random(RandomJitter { dist, reorder, last: SimTime::ZERO, rng })
    }

    /// When a packet that would reach the far end at `t` is delivered.
    /// For `Bursty`, `t` must not decrease between calls (FIFO arrivals).
    #[inline]
    pub fn apply(&mut self, t: SimTime) -> SimTime {
        match self {
            Jitter::None => t,
            Jitter::Random(j) => {
                let a = t + crate::time::SimDuration(j.dist.sample(&mut j.rng).round() as u64);
                if j.reorder {
                    a
                } else {
                    j.last = j.last.max(a);
                    j.last
                }
            }
            Jitter::Bursty(b) => {
                while b.next < t {
                    let g = b.gap();
                    b.next = b.next + crate::time::SimDuration(g);
                }
                b.next
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::StreamId;

    /// Kolmogorov–Smirnov statistic of `xs` against `cdf`.
    fn ks(mut xs: Vec<f64>, cdf: impl Fn(f64) -> f64) -> f64 {
        xs.sort_by(f64::total_cmp);
        let n = xs.len() as f64;
        xs.iter()
            .enumerate()
            .map(|(i, &x)| {
                let f = cdf(x);
                (f - i as f64 / n).abs().max((((i + 1) as f64) / n - f).abs())
            })
            .fold(0.0, f64::max)
    }

    const N: usize = 100_000;
    /// KS critical value at α = 0.001 for n = 10⁵: 1.95 / √n.
    fn d_crit() -> f64 {
        1.95 / (N as f64).sqrt()
    }

    #[test]
    fn normal_cdf_matches_known_values() {
        // Φ(0) = 0.5, Φ(1) = 0.841344746, Φ(−1.96) = 0.024997895.
        assert!((normal_cdf(0.0) - 0.5).abs() < 1e-7);
        assert!((normal_cdf(1.0) - 0.841_344_746).abs() < 1e-7);
        assert!((normal_cdf(-1.96) - 0.024_997_895).abs() < 1e-7);
    }

    /// With reordering on, the extra delay of 10⁵ back-to-back packets has
    /// exactly the specified distribution (KS at α = 0.001); packets spaced
    /// wider than the bound never reorder either way.
    #[test]
    fn random_jitter_matches_its_distribution() {
        let seed = 42;
        let ms = 1e6;
        for dist in [
            JitterDist::Uniform { lo: 0.0, hi: 40.0 * ms },
            JitterDist::Normal { mean: 20.0 * ms, sd: 5.0 * ms, lo: 5.0 * ms, hi: 35.0 * ms },
            JitterDist::Normal { mean: 10.0 * ms, sd: 10.0 * ms, lo: 0.0, hi: 40.0 * ms },
        ] {
            let mut j = Jitter::random(dist.clone(), true, Rng::stream(seed, 0, StreamId::new(99, 7)));
            let t0 = SimTime(1_000_000_000);
            let xs: Vec<f64> = (0..N).map(|_| (j.apply(t0).0 - t0.0) as f64).collect();
            let d = ks(xs, |x| dist.cdf(x));
            assert!(d < d_crit(), "seed {seed}: {dist:?}: KS D = {d} ≥ {}", d_crit());
            // A shifted distribution must fail the same test (the test can fail).
            let mut j = Jitter::random(dist.clone(), true, Rng::stream(seed, 0, StreamId::new(99, 7)));
            let xs: Vec<f64> = (0..N).map(|_| (j.apply(t0).0 - t0.0) as f64 + 0.5 * ms).collect();
            assert!(ks(xs, |x| dist.cdf(x)) > d_crit(), "{dist:?}: a 0.5 ms shift passed");
        }
    }

    /// NR-BPDV: 20 ms packets with 0–60 ms jitter never reorder; with
    /// reordering on, the same draws do reorder.
    #[test]
    fn no_reordering_when_off() {
        let seed = 5;
        let dist = JitterDist::Uniform { lo: 0.0, hi: 60e6 };
        for reorder in [false, true] {
            let mut j = Jitter::random(dist.clone(), reorder, Rng::stream(seed, 0, StreamId::new(99, 8)));
            let arr: Vec<u64> = (0..N as u64).map(|i| j.apply(SimTime(i * 20_000_000)).0).collect();
            let inversions = arr.windows(2).filter(|w| w[1] < w[0]).count();
            if reorder {
                assert!(inversions > 1000, "seed {seed}: {inversions} reorderings with reorder on");
            } else {
                assert_eq!(inversions, 0, "seed {seed}");
            }
        }
    }

    /// Bursty epochs: mean gap matches (1 − q)·interval + q·stall within 2 %
    /// over 10⁵ gaps; the stall fraction matches q.
    #[test]
    fn bursty_epochs_have_the_specified_mix() {
        let seed = 9;
        let mut b = Bursty::new(26e6, 900_000_000, Some(20_000_000_000), Rng::stream(seed, 0, StreamId::new(99, 9)));
        let gaps: Vec<u64> = (0..N).map(|_| b.gap()).collect();
        let mean = gaps.iter().sum::<u64>() as f64 / N as f64;
        let want = (1.0 - b.q) * 26e6 + b.q * 9e8;
        assert!((mean - want).abs() / want < 0.02, "seed {seed}: mean gap {mean} vs {want}");
        // One stall per 20 s of epochs.
        let stalls_per_s = gaps.iter().filter(|&&g| g == 900_000_000).count() as f64 / (mean * N as f64 / 1e9);
        assert!((stalls_per_s - 0.05).abs() < 0.02, "seed {seed}: {stalls_per_s} stalls/s");
    }
}
