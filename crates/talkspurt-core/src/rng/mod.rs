//! Portable, seeded randomness: one PRNG, xoshiro256** (Blackman & Vigna,
//! "Scrambled linear pseudorandom number generators", 2021), seeded through
//! SplitMix64. Every random component owns a stream derived from
//! `(seed, run, component id)`, so adding a component never shifts another
//! component's draws, and results are bit-identical on every machine.

pub mod dist;
pub use dist::DurationDist;

/// SplitMix64 step (Steele, Lea, Flood 2014): used to expand seeds.
fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Stable component identifiers: a kind tag and an index.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StreamId {
    pub kind: u32,
    pub index: u32,
}

impl StreamId {
    pub const fn new(kind: u32, index: u32) -> Self {
        StreamId { kind, index }
    }
}

/// Stream kinds. New kinds get new numbers; existing numbers never change.
pub mod kind {
    pub const SPEECH: u32 = 1;
    pub const CALL_START: u32 = 2;
    pub const LINK_LOSS: u32 = 3;
    pub const TRAFFIC: u32 = 4;
    pub const TRANSPORT: u32 = 5;
    /// RTP sessions: initial sequence number, timestamp, SSRC, RTCP timers.
    pub const RTP: u32 = 6;
    /// A link direction's AQM (RED, PIE).
    pub const QUEUE: u32 = 16;
    /// A link direction's jitter (numbered apart from the queues' kinds).
    pub const LINK_JITTER: u32 = 11;
    /// A bit-rate call's send jitter (`bitrate.random`).
    pub const SEND_JITTER: u32 = 12;
    /// A link direction's background load (net::background).
    pub const LINK_BACKGROUND: u32 = 17;
}

#[derive(Clone, Debug)]
pub struct Rng {
    s: [u64; 4],
}

impl Rng {
    /// The stream for one component of one run.
    pub fn stream(seed: u64, run: u64, id: StreamId) -> Rng {
        let mut sm = seed ^ 0x7A1C_5B0E_A11C_0DE5;
        let a = splitmix64(&mut sm);
        let mut sm = a ^ run.wrapping_mul(0xD1B5_4A32_D192_ED03);
        let b = splitmix64(&mut sm);
        let mut sm = b ^ (((id.kind as u64) << 32) | id.index as u64);
        let mut s = [0u64; 4];
        for w in &mut s {
            *w = splitmix64(&mut sm);
        }
        if s == [0; 4] {
            s[0] = 1; // xoshiro's one forbidden state
        }
        Rng { s }
    }

    pub fn next_u64(&mut self) -> u64 {
        let result = self.s[1].wrapping_mul(5).rotate_left(7).wrapping_mul(9);
        let t = self.s[1] << 17;
        self.s[2] ^= self.s[0];
        self.s[3] ^= self.s[1];
        self.s[1] ^= self.s[2];
        self.s[0] ^= self.s[3];
        self.s[2] ^= t;
        self.s[3] = self.s[3].rotate_left(45);
        result
    }

    /// Uniform in [0, 1) with 53 random bits.
    pub fn uniform(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Uniform in (0, 1]: safe under `ln`.
    pub fn uniform_open0(&mut self) -> f64 {
        1.0 - self.uniform()
    }

    pub fn bernoulli(&mut self, p: f64) -> bool {
        self.uniform() < p
    }

    /// Exponential with the given mean (inverse transform).
    pub fn exponential(&mut self, mean: f64) -> f64 {
        -mean * self.uniform_open0().ln()
    }

    /// Pareto with shape `alpha` and the given mean (alpha > 1):
    /// scale x_m = mean·(alpha−1)/alpha, X = x_m / U^(1/alpha).
    pub fn pareto_mean(&mut self, alpha: f64, mean: f64) -> f64 {
        self.pareto_scale(alpha, mean * (alpha - 1.0) / alpha)
    }

    /// Pareto with shape `alpha` > 0 and scale (minimum) `xm`.
    pub fn pareto_scale(&mut self, alpha: f64, xm: f64) -> f64 {
        xm / self.uniform_open0().powf(1.0 / alpha)
    }

    /// Weibull with shape `k` and the given mean:
    /// scale λ = mean / Γ(1 + 1/k), X = λ·(−ln U)^(1/k).
    pub fn weibull_mean(&mut self, k: f64, mean: f64) -> f64 {
        let lambda = mean / gamma(1.0 + 1.0 / k);
        lambda * (-self.uniform_open0().ln()).powf(1.0 / k)
    }

    /// Uniform integer in [0, n).
    pub fn below(&mut self, n: u64) -> u64 {
        // Lemire's multiply-shift; the tiny bias (< n/2^64) is irrelevant here.
        ((self.next_u64() as u128 * n as u128) >> 64) as u64
    }
}

/// Γ(x) for x > 0 by the Lanczos approximation (g = 7, n = 9), accurate to
/// ~1e-15 relative: used only to turn a Weibull mean into its scale.
pub fn gamma(x: f64) -> f64 {
    const G: f64 = 7.0;
    const C: [f64; 9] = [
        0.999_999_999_999_809_9,
        676.520_368_121_885_1,
        -1_259.139_216_722_402_8,
        771.323_428_777_653_1,
        -176.615_029_162_140_6,
        12.507_343_278_686_905,
        -0.138_571_095_265_720_12,
        9.984_369_578_019_572e-6,
        1.505_632_735_149_311_6e-7,
    ];
    if x < 0.5 {
        std::f64::consts::PI / ((std::f64::consts::PI * x).sin() * gamma(1.0 - x))
    } else {
        let x = x - 1.0;
        let mut a = C[0];
        let t = x + G + 0.5;
        for (i, c) in C.iter().enumerate().skip(1) {
            a += c / (x + i as f64);
        }
        (2.0 * std::f64::consts::PI).sqrt() * t.powf(x + 0.5) * (-t).exp() * a
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streams_are_reproducible_and_distinct() {
        let id = StreamId::new(kind::SPEECH, 3);
        let a: Vec<u64> = (0..4).map({ let mut r = Rng::stream(7, 0, id); move |_| r.next_u64() }).collect();
        let b: Vec<u64> = (0..4).map({ let mut r = Rng::stream(7, 0, id); move |_| r.next_u64() }).collect();
        let c: Vec<u64> = (0..4).map({ let mut r = Rng::stream(7, 0, StreamId::new(kind::SPEECH, 4)); move |_| r.next_u64() }).collect();
        let d: Vec<u64> = (0..4).map({ let mut r = Rng::stream(8, 0, id); move |_| r.next_u64() }).collect();
        assert_eq!(a, b);
        assert_ne!(a, c);
        assert_ne!(a, d);
    }

    #[test]
    fn gamma_matches_known_values() {
        // Γ(5) = 24, Γ(0.5) = √π, Γ(1.5) = √π/2.
        assert!((gamma(5.0) - 24.0).abs() < 1e-10);
        assert!((gamma(0.5) - std::f64::consts::PI.sqrt()).abs() < 1e-12);
        assert!((gamma(1.5) - std::f64::consts::PI.sqrt() / 2.0).abs() < 1e-12);
    }

    fn sample_mean(f: impl FnMut() -> f64, n: usize) -> f64 {
        let mut f = f;
        (0..n).map(|_| f()).sum::<f64>() / n as f64
    }

    #[test]
    fn distribution_means() {
        // 400k draws: the standard error of an exponential mean is 1/√n = 0.16 %,
        // so 1 % is over 6 standard errors.
        let mut r = Rng::stream(1, 0, StreamId::new(99, 0));
        let m = sample_mean(|| r.exponential(2.0), 400_000);
        assert!((m - 2.0).abs() / 2.0 < 0.01, "exp mean {m}");
        let m = sample_mean(|| r.weibull_mean(1.5, 3.0), 400_000);
        assert!((m - 3.0).abs() / 3.0 < 0.01, "weibull mean {m}");
        // Pareto with alpha 2.5 has finite variance; 2 % tolerance.
        let m = sample_mean(|| r.pareto_mean(2.5, 1.0), 400_000);
        assert!((m - 1.0).abs() < 0.02, "pareto mean {m}");
        let m = sample_mean(|| r.uniform(), 400_000);
        assert!((m - 0.5).abs() < 0.005, "uniform mean {m}");
    }
}
