//! Ramjee, Kurose, Towsley & Schulzrinne, "Adaptive playout mechanisms for
//! packetized audio applications in wide-area networks", IEEE INFOCOM 1994,
//! pp. 680–688 — algorithms 1 to 4.
//!
//! All four estimate the mean network delay `d̂` and its variation `v̂` from
//! every received packet (`n_i = a_i - t_i`, arrival order) and play the
//! first packet of a talkspurt at `p = t + d̂ + β·v̂`, β = 4; the rest of the
//! talkspurt keeps the same offset. They differ in how `d̂` is tracked:
//!
//! 1. EWMA: `d̂ ← α d̂ + (1-α) n`, `v̂ ← α v̂ + (1-α) |d̂ - n|`, α = 0.998002.
//! 2. As 1, but `d̂ ← αᵤ d̂ + (1-αᵤ) n` with αᵤ = 0.75 when `n > d̂`
//!    (react fast to increases, slowly to decreases).
//! 3. `d̂` = the smallest delay received during the previous talkspurt.
//! 4. Spike detection: normal mode is an EWMA with weight 7/8; a jump
//!    `|n_i - n_{i-1}| > 2|v̂| + 800` enters spike mode, where `d̂` follows the
//!    delay increments `d̂ ← d̂ + n_i - n_{i-1}`; a slope statistic
//!    `var ← var/2 + |2n_i - n_{i-1} - n_{i-2}|/8` falling to 63 or below ends it.
//!
//! Readings (not stated by the paper; see docs/models/playout.md):
//! * estimates work in milliseconds (f64); offsets are rounded to whole ns
//!   and clamped at 0;
//! * state starts at the first received packet: `d̂₀ = n₁` and `v̂₀ =
//!   initial_variation` when given, else `v̂₀ = n₁/2` — RFC 6298 §2.2's
//!   start of the same mean-deviation estimator (RTTVAR ← R/2 on the first
//!   sample). The paper states no start; with `v̂₀ = 0` and α = 0.998002
//!   (a memory of ~500 packets) `v̂` needs tens of seconds to grow, and a
//!   call loses a large share of its first 30 s as late (docs/models/playout.md);
//!   then the regular update runs on `n₁`;
//! * algorithm 4's thresholds 800 and 63 are in the 8 kHz timestamp units
//!   (125 µs) of the paper's NeVoT traces: 100 ms and 7.875 ms;
//! * algorithm 3 updates `v̂` at every packet against the current `d̂`; in
//!   the first talkspurt `d̂` is the first packet's delay; a previous
//!   talkspurt with no arrivals leaves `d̂` unchanged.
//!
//! Learned from the paper's summary in secondary sources (course slides,
//! SBRC 2010 "Classical playout buffer algorithm revisited" Fig. 1, a public
//! re-implementation of algorithm 4's pseudo-code), which agree on the
//! constants.

use super::online::{replay, OffsetPolicy};
use super::{ms_to_ns, CallTrace, NS_PER_MS};

/// Ramjee's α for algorithms 1–3 (the paper's 0.998002).
pub const ALPHA: f64 = 0.998002;
/// Safety factor on the variation (the paper's β = 4, "4·v̂").
pub const BETA: f64 = 4.0;

/// Algorithm 1: exponentially weighted mean and variation of network delay.
#[derive(Debug, Clone, PartialEq)]
pub struct RamjeeEwma {
    /// EWMA weight of the old estimate. Default 0.998002.
    pub alpha: f64,
    /// Multiplier of `v̂` in the offset. Default 4.
    pub beta: f64,
    /// `v̂` before the first packet, ns. Default `None`: half the first
    /// packet's delay (RFC 6298 §2.2's RTTVAR start; the paper gives none).
    pub initial_variation: Option<u64>,
}

impl Default for RamjeeEwma {
    fn default() -> Self {
        RamjeeEwma { alpha: ALPHA, beta: BETA, initial_variation: None }
    }
}

/// Algorithm 2: algorithm 1 with a faster weight for increasing delays.
#[derive(Debug, Clone, PartialEq)]
pub struct RamjeeAsymmetric {
    /// Weight when `n <= d̂` (and for `v̂`). Default 0.998002.
    pub alpha: f64,
    /// Weight when `n > d̂`. Default 0.75.
    pub alpha_increase: f64,
    /// Default 4.
    pub beta: f64,
    /// `v̂` before the first packet, ns. Default `None`: half the first
    /// packet's delay (RFC 6298 §2.2's RTTVAR start; the paper gives none).
    pub initial_variation: Option<u64>,
}

impl Default for RamjeeAsymmetric {
    fn default() -> Self {
        RamjeeAsymmetric { alpha: ALPHA, alpha_increase: 0.75, beta: BETA, initial_variation: None }
    }
}

/// Algorithm 3: `d̂` is the minimum delay of the previous talkspurt.
#[derive(Debug, Clone, PartialEq)]
pub struct RamjeeMinDelay {
    /// EWMA weight for `v̂`. Default 0.998002.
    pub alpha: f64,
    /// Default 4.
    pub beta: f64,
    /// `v̂` before the first packet, ns. Default `None`: half the first
    /// packet's delay (RFC 6298 §2.2's RTTVAR start; the paper gives none).
    pub initial_variation: Option<u64>,
}

impl Default for RamjeeMinDelay {
    fn default() -> Self {
        RamjeeMinDelay { alpha: ALPHA, beta: BETA, initial_variation: None }
    }
}

/// Algorithm 4: spike detection.
#[derive(Debug, Clone, PartialEq)]
pub struct RamjeeSpike {
    /// EWMA weight of the old estimate in normal mode, for `d̂` and `v̂`. Default 0.875.
    pub alpha: f64,
    /// Default 4.
    pub beta: f64,
    /// Constant part of the spike-entry threshold, ns. Default 100 ms (800 × 125 µs).
    pub spike_threshold: u64,
    /// Spike ends when `var` falls to this, ns. Default 7.875 ms (63 × 125 µs).
    pub spike_end: u64,
    /// `v̂` before the first packet, ns. Default `None`: half the first
    /// packet's delay (RFC 6298 §2.2's RTTVAR start; the paper gives none).
    pub initial_variation: Option<u64>,
}

impl Default for RamjeeSpike {
    fn default() -> Self {
        RamjeeSpike {
            alpha: 0.875,
            beta: BETA,
            spike_threshold: 100_000_000,
            spike_end: 7_875_000,
            initial_variation: None,
        }
    }
}

/// Which `d̂` update rule; the shared state is in [`Estimator`].
#[derive(Debug, Clone, Copy)]
pub(crate) enum Rule {
    Ewma { alpha: f64 },
    Asymmetric { alpha: f64, alpha_increase: f64 },
    MinDelay { alpha: f64 },
    Spike { alpha: f64, threshold_ms: f64, end_ms: f64 },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    Normal,
    Spike,
}

/// Ramjee estimator state, all in ms.
struct Estimator {
    rule: Rule,
    beta: f64,
    v0: Option<f64>,
    started: bool,
    d: f64,
    v: f64,
    // algorithm 3
    min_of: Vec<f64>,
    current: Option<usize>,
    // algorithm 4
    mode: Mode,
    var: f64,
    n1: f64,
    n2: f64,
}

impl Estimator {
    fn new(rule: Rule, beta: f64, initial_variation: Option<u64>) -> Self {
        Estimator {
            rule,
            beta,
            v0: initial_variation.map(|v| v as f64 / NS_PER_MS),
            started: false,
            d: 0.0,
            v: 0.0,
            min_of: Vec::new(),
            current: None,
            mode: Mode::Normal,
            var: 0.0,
            n1: 0.0,
            n2: 0.0,
        }
    }

    fn update(&mut self, k: usize, n: f64) {
        if !self.started {
            self.started = true;
            self.d = n;
            self.v = self.v0.unwrap_or(n / 2.0);
            self.n1 = n;
            self.n2 = n;
        }
        match self.rule {
            Rule::Ewma { alpha } => {
                self.d = alpha * self.d + (1.0 - alpha) * n;
                self.v = alpha * self.v + (1.0 - alpha) * (self.d - n).abs();
            }
            Rule::Asymmetric { alpha, alpha_increase } => {
                let a = if n > self.d { alpha_increase } else { alpha };
                self.d = a * self.d + (1.0 - a) * n;
                self.v = alpha * self.v + (1.0 - alpha) * (self.d - n).abs();
            }
            Rule::MinDelay { alpha } => {
                if k >= self.min_of.len() {
                    // Streaming replay (score::stream) does not know the
                    // talkspurts in advance; `begin` sized it otherwise.
                    self.min_of.resize(k + 1, f64::INFINITY);
                }
                if self.current.is_none_or(|c| k > c) {
                    // First arrival of a new talkspurt: d̂ = min of the previous one.
                    if k > 0 && self.min_of[k - 1].is_finite() {
                        self.d = self.min_of[k - 1];
                    }
                    self.current = Some(k);
                }
                self.min_of[k] = self.min_of[k].min(n);
                self.v = alpha * self.v + (1.0 - alpha) * (self.d - n).abs();
            }
            Rule::Spike { alpha, threshold_ms, end_ms } => {
                // Ramjee et al. 1994, algorithm 4, step by step.
                if self.mode == Mode::Normal {
                    if (n - self.n1).abs() > 2.0 * self.v.abs() + threshold_ms {
                        self.var = 0.0; // beginning of a spike
                        self.mode = Mode::Spike;
                    }
                } else {
                    self.var = self.var / 2.0 + ((2.0 * n - self.n1 - self.n2) / 8.0).abs();
                    if self.var <= end_ms {
                        self.mode = Mode::Normal; // end of the spike: no estimate update
                        self.n2 = self.n1;
                        self.n1 = n;
                        return;
                    }
                }
                if self.mode == Mode::Normal {
                    self.d = alpha * self.d + (1.0 - alpha) * n;
                } else {
                    self.d += n - self.n1;
                }
                self.v = alpha * self.v + (1.0 - alpha) * (n - self.d).abs();
                self.n2 = self.n1;
                self.n1 = n;
            }
        }
    }
}

impl OffsetPolicy for Estimator {
    fn begin(&mut self, talkspurts: usize) {
        self.min_of = vec![f64::INFINITY; talkspurts];
    }
    fn on_arrival(&mut self, k: usize, delay_ns: u64) {
        self.update(k, delay_ns as f64 / NS_PER_MS);
    }
    fn talkspurt_offset(&mut self, _k: usize, _first_delay_ns: u64) -> u64 {
        ms_to_ns(self.d + self.beta * self.v)
    }
}

/// The estimator of a Ramjee buffer, for the streaming replay.
pub(crate) fn policy(rule: Rule, beta: f64, initial_variation: Option<u64>) -> Box<dyn OffsetPolicy + Send + Sync> {
    Box::new(Estimator::new(rule, beta, initial_variation))
}

impl RamjeeEwma {
    pub(crate) fn rule(&self) -> Rule {
        Rule::Ewma { alpha: self.alpha }
    }
    /// Playout time per packet, `NOT_ARRIVED` where lost or late.
    pub fn playout(&self, trace: &CallTrace<'_>) -> Vec<u64> {
        replay(trace, &mut Estimator::new(self.rule(), self.beta, self.initial_variation))
    }
}

impl RamjeeAsymmetric {
    pub(crate) fn rule(&self) -> Rule {
        Rule::Asymmetric { alpha: self.alpha, alpha_increase: self.alpha_increase }
    }
    /// Playout time per packet, `NOT_ARRIVED` where lost or late.
    pub fn playout(&self, trace: &CallTrace<'_>) -> Vec<u64> {
        replay(trace, &mut Estimator::new(self.rule(), self.beta, self.initial_variation))
    }
}

impl RamjeeMinDelay {
    pub(crate) fn rule(&self) -> Rule {
        Rule::MinDelay { alpha: self.alpha }
    }
    /// Playout time per packet, `NOT_ARRIVED` where lost or late.
    pub fn playout(&self, trace: &CallTrace<'_>) -> Vec<u64> {
        replay(trace, &mut Estimator::new(self.rule(), self.beta, self.initial_variation))
    }
}

impl RamjeeSpike {
    pub(crate) fn rule(&self) -> Rule {
        Rule::Spike {
            alpha: self.alpha,
            threshold_ms: self.spike_threshold as f64 / NS_PER_MS,
            end_ms: self.spike_end as f64 / NS_PER_MS,
        }
    }
    /// Playout time per packet, `NOT_ARRIVED` where lost or late.
    pub fn playout(&self, trace: &CallTrace<'_>) -> Vec<u64> {
        replay(trace, &mut Estimator::new(self.rule(), self.beta, self.initial_variation))
    }
}

#[cfg(test)]
mod tests {
    use super::super::online::replay_offsets;
    use super::super::testutil::MS;
    use super::super::NOT_ARRIVED;
    use super::*;

    /// One packet per talkspurt, 1 s apart, with the given delays in ms:
    /// every packet starts a talkspurt, so each offset shows `d̂ + 4 v̂`.
    fn singles(delays_ms: &[f64]) -> (Vec<u32>, Vec<u64>, Vec<u64>) {
        let ts = (0..delays_ms.len() as u32).collect();
        let tg: Vec<u64> = (0..delays_ms.len() as u64).map(|i| (i + 1) * 1000 * MS).collect();
        let ta = tg.iter().zip(delays_ms).map(|(&g, &d)| g + (d * 1e6) as u64).collect();
        (ts, tg, ta)
    }

    fn offsets_ms(rule: Rule, delays_ms: &[f64]) -> Vec<f64> {
        let (ts, tg, ta) = singles(delays_ms);
        let t = CallTrace { talkspurt: &ts, t_gen: &tg, t_arr: &ta };
        let mut est = Estimator::new(rule, BETA, Some(0));
        replay_offsets(&t, &mut est).iter().map(|o| o.unwrap() as f64 / 1e6).collect()
    }

    fn assert_ms(got: &[f64], want: &[f64]) {
        assert_eq!(got.len(), want.len());
        for (g, w) in got.iter().zip(want) {
            assert!((g - w).abs() <= 1e-6, "got {got:?}, want {want:?}");
        }
    }

    #[test]
    fn algorithm_1_by_hand() {
        // α = 0.998002, 1-α = 0.001998, delays 50, 60, 40 ms.
        // p1: d̂ = 50 (start), v̂ = 0                         -> offset 50
        // p2: d̂ = .998002·50 + .001998·60 = 50.01998
        //     v̂ = .001998·|50.01998-60| = 0.01994008         -> 50.01998 + 4·0.01994008 = 50.09974032
        // p3: d̂ = .998002·50.01998 + .001998·40 = 49.99996008
        //     v̂ = .998002·0.01994008 + .001998·9.99996008 = 0.03988016
        //                                                    -> 49.99996008 + 0.15952064 = 50.15948072
        let rule = Rule::Ewma { alpha: ALPHA };
        assert_ms(&offsets_ms(rule, &[50.0, 60.0, 40.0]), &[50.0, 50.099740, 50.159481]);
    }

    #[test]
    fn algorithm_2_by_hand() {
        // p2: n = 60 > d̂ = 50: d̂ = .75·50 + .25·60 = 52.5; v̂ = .001998·7.5 = 0.014985
        //     -> 52.5 + 0.05994 = 52.55994
        // p3: n = 40 <= 52.5: d̂ = .998002·52.5 + .001998·40 = 52.475025
        //     v̂ = .998002·0.014985 + .001998·12.475025 = 0.03988016
        //     -> 52.475025 + 0.15952064 = 52.63454564
        let rule = Rule::Asymmetric { alpha: ALPHA, alpha_increase: 0.75 };
        assert_ms(&offsets_ms(rule, &[50.0, 60.0, 40.0]), &[50.0, 52.559940, 52.634546]);
    }

    #[test]
    fn algorithm_3_by_hand() {
        // Talkspurt 0: p0 (gen 0, delay 50), p1 (gen 20, delay 45).
        // Talkspurt 1: p2 (gen 1000, delay 70), p3 (gen 1020, delay 30);
        // arrival order p0 (50), p1 (65), p3 (1050), p2 (1070).
        // p0: d̂ = 50 (first talkspurt), v̂ = 0                -> offset0 = 50
        //     p1 delay 45 <= 50: played at 70.
        // p1: v̂ = .001998·|50-45| = 0.00999
        // p3 arrives first in talkspurt 1: d̂ = min(50, 45) = 45,
        //     v̂ = .998002·0.00999 + .001998·|45-30| = 0.03994004
        //     -> offset1 = 45 + 4·0.03994004 = 45.15976016 ms
        //     p3 played at 1020 + 45.159760; p2 (delay 70) is late.
        let ts = [0u32, 0, 1, 1];
        let tg = [0, 20 * MS, 1000 * MS, 1020 * MS];
        let ta = [50 * MS, 65 * MS, 1070 * MS, 1050 * MS];
        let t = CallTrace { talkspurt: &ts, t_gen: &tg, t_arr: &ta };
        let mut est = Estimator::new(Rule::MinDelay { alpha: ALPHA }, BETA, Some(0));
        let off = replay_offsets(&t, &mut est);
        assert_eq!(off[0], Some(50 * MS));
        assert_eq!(off[1], Some(45_159_760));
        let p = RamjeeMinDelay { initial_variation: Some(0), ..RamjeeMinDelay::default() }.playout(&t);
        assert_eq!(p, vec![50 * MS, 70 * MS, NOT_ARRIVED, 1020 * MS + 45_159_760]);
    }

    #[test]
    fn algorithm_4_by_hand() {
        // Weight 7/8, thresholds 100 ms (entry, + 2|v̂|) and 7.875 ms (end).
        // n:      50  50  200  190  180  170  160  150  140   60
        // p1,p2: normal, d̂ = 50, v̂ = 0                          -> 50, 50
        // p3: |200-50| = 150 > 100: spike, var = 0; d̂ = 50+200-50 = 200, v̂ = 0 -> 200
        // p4: var = 0/2 + |380-200-50|/8 = 16.25 > 7.875: d̂ = 190      -> 190
        // p5: var = 8.125 + |360-190-200|/8 = 11.875: d̂ = 180           -> 180
        // p6: var = 5.9375 + 3.75 = 9.6875: d̂ = 170                     -> 170
        // p7: var = 4.84375 + 3.75 = 8.59375: d̂ = 160                   -> 160
        // p8: var = 4.296875 + 3.75 = 8.046875: d̂ = 150                 -> 150
        // p9: var = 4.0234375 + 3.75 = 7.7734375 <= 7.875: normal, no update -> 150
        // p10: |60-140| = 80 <= 100: d̂ = .125·60 + .875·150 = 138.75,
        //      v̂ = .125·|60-138.75| = 9.84375                -> 138.75 + 39.375 = 178.125
        let rule = Rule::Spike { alpha: 0.875, threshold_ms: 100.0, end_ms: 7.875 };
        let n = [50.0, 50.0, 200.0, 190.0, 180.0, 170.0, 160.0, 150.0, 140.0, 60.0];
        let want = [50.0, 50.0, 200.0, 190.0, 180.0, 170.0, 160.0, 150.0, 150.0, 178.125];
        assert_ms(&offsets_ms(rule, &n), &want);
        // The public config gives the same schedule.
        let (ts, tg, ta) = singles(&n);
        let t = CallTrace { talkspurt: &ts, t_gen: &tg, t_arr: &ta };
        let p = RamjeeSpike { initial_variation: Some(0), ..RamjeeSpike::default() }.playout(&t);
        assert_eq!(p[9], tg[9] + 178_125_000);
        assert_eq!(p[8], tg[8] + 150 * MS, "140 ms against a 150 ms offset: in time");
        assert_eq!(p[2], tg[2] + 200 * MS, "arriving exactly at the playout time is in time");
    }
}
