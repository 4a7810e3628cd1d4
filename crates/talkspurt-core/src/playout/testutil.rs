//! Test helpers: a tiny deterministic PRNG and random traces.

use super::{CallTrace, NOT_ARRIVED};

/// SplitMix64 (Steele, Lea & Flood 2014): enough for test data, portable.
pub struct SplitMix64(u64);

impl SplitMix64 {
    pub fn new(seed: u64) -> Self {
        SplitMix64(seed)
    }
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in `0..n` (n > 0); the modulo bias is irrelevant for tests.
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n
    }
    /// Uniform in [0, 1).
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
}

pub struct OwnedTrace {
    pub talkspurt: Vec<u32>,
    pub t_gen: Vec<u64>,
    pub t_arr: Vec<u64>,
}

impl OwnedTrace {
    pub fn trace(&self) -> CallTrace<'_> {
        CallTrace { talkspurt: &self.talkspurt, t_gen: &self.t_gen, t_arr: &self.t_arr }
    }
}

pub const MS: u64 = 1_000_000;

/// 1..=max_spurts talkspurts of 1..=max_len packets, 20 ms apart, a silence
/// gap between talkspurts, ids with gaps, network delays drawn from a small
/// set of half milliseconds or a 60 ms grid (so ties are common), ~15 % of
/// packets lost.
pub fn random_trace(seed: u64, max_spurts: u64, max_len: u64) -> OwnedTrace {
    let mut rng = SplitMix64::new(seed);
    let spurts = 1 + rng.below(max_spurts);
    let base = 20 + rng.below(150);
    let wide = rng.below(2) == 0;
    let spread = 1 + rng.below(if wide { 300 } else { 40 });
    let coarse = rng.below(3) == 0; // delays on a 60 ms grid: ties everywhere
    let mut out = OwnedTrace { talkspurt: vec![], t_gen: vec![], t_arr: vec![] };
    let mut t = 1_000 * MS;
    let mut id = rng.below(3) as u32;
    for _ in 0..spurts {
        let len = 1 + rng.below(max_len);
        for _ in 0..len {
            t += 20 * MS;
            out.talkspurt.push(id);
            out.t_gen.push(t);
            let delay = if coarse {
                (base + 60 * rng.below(5)) * MS
            } else if rng.below(4) == 0 {
                (base + rng.below(4)) * MS // a cluster of near-equal delays
            } else {
                (base + rng.below(spread)) * MS + rng.below(3) * (MS / 2)
            };
            out.t_arr.push(if rng.unit() < 0.15 { NOT_ARRIVED } else { t + delay });
        }
        t += (200 + rng.below(2000)) * MS;
        id += 1 + rng.below(2) as u32;
    }
    out
}

/// The thesis' (seed 000, §4.2) delay impairment, d in ms.
pub fn id_cole(d: f64) -> f64 {
    0.024 * d + if d > 177.3 { 0.11 * (d - 177.3) } else { 0.0 }
}

/// The thesis' loss impairment for G.711 (Table 4.1: λ1=0, λ2=30, λ3=15).
pub fn il_g711(e: f64) -> f64 {
    30.0 * (1.0 + 15.0 * e).ln()
}

/// G.729 (λ1=10, λ2=47.82, λ3=18).
pub fn il_g729(e: f64) -> f64 {
    10.0 + 47.82 * (1.0 + 18.0 * e).ln()
}

/// A cheap loss impairment, so that discarding on-time packets can pay.
pub fn il_cheap(e: f64) -> f64 {
    3.0 * e
}

/// A convex loss impairment: with it, splitting a group of equal delays
/// could pay, so it checks that only realisable playout points are used.
pub fn il_convex(e: f64) -> f64 {
    400.0 * e * e
}

pub fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * (1.0 + a.abs().max(b.abs()))
}
