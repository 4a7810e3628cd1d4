//! Loss-burst statistics from a per-packet loss sequence (`true` = lost):
//! Gilbert (two-state Markov) parameters p and q, the burst ratio BurstR of
//! ITU-T G.107 (12/2011) §7.5 / G.113, and back-to-back run lengths.
//!
//! In the two-state model, p = P(lost | previous received) and
//! q = P(received | previous lost). G.107 §7.5 gives BurstR = 1/(p + q):
//! the mean observed loss-burst length divided by the mean burst length
//! expected under random (Bernoulli) loss at the same rate. Random loss has
//! p + q = 1, hence BurstR = 1; bursty loss has BurstR > 1.

/// Lengths of the maximal runs of lost and of received packets, in order.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct RunLengths {
    /// Back-to-back lost runs (burst lengths).
    pub lost: Vec<usize>,
    /// Back-to-back received runs (gap lengths).
    pub received: Vec<usize>,
}

/// Splits `losses` into maximal runs. `[R R L L L R]` → lost `[3]`,
/// received `[2, 1]`.
pub fn run_lengths(losses: &[bool]) -> RunLengths {
    // Each run starts at the first flag or a change: counted first (a
    // compare a flag, which vectorises), both lists are allocated once
    // (issue 26: pushed one at a time they were regrown ~7 times a call
    // on the mixed preset).
    let runs = losses.first().map_or(0, |_| 1 + changes(losses));
    let first_lost = losses.first() == Some(&true);
    let (lost, received) = if first_lost { (runs.div_ceil(2), runs / 2) } else { (runs / 2, runs.div_ceil(2)) };
    let mut out = RunLengths { lost: Vec::with_capacity(lost), received: Vec::with_capacity(received) };
    let mut i = 0;
    while i < losses.len() {
        let v = losses[i];
        let start = i;
        // 16 flags at a time with a fold that vectorises (issue 26: a
        // branch a packet was ~5 instructions a packet of the headline).
        while i + 16 <= losses.len() && losses[i..i + 16].iter().fold(true, |a, &x| a & (x == v)) {
            i += 16;
        }
        while i < losses.len() && losses[i] == v {
            i += 1;
        }
        if v {
            out.lost.push(i - start)
        } else {
            out.received.push(i - start)
        }
    }
    debug_assert_eq!((out.lost.len(), out.received.len()), (lost, received));
    out
}

/// Flags differing from the one before: counted in byte lanes, 255 pairs
/// at a time (a count per pair summed as usize did not vectorise: ~6
/// instructions a flag).
fn changes(flags: &[bool]) -> usize {
    let Some(rest) = flags.get(1..) else { return 0 };
    flags.chunks(255).zip(rest.chunks(255)).map(|(a, b)| a.iter().zip(b).fold(0u8, |n, (&x, &y)| n + (x != y) as u8) as usize).sum()
}

/// Loss and burst statistics of one packet sequence. See [`burst_stats`].
#[derive(Debug, Clone, PartialEq)]
pub struct BurstStats {
    /// Number of packets in the sequence.
    pub packets: usize,
    /// Number lost.
    pub lost: usize,
    /// lost / packets (0 for an empty sequence).
    pub loss_rate: f64,
    /// Gilbert p = P(lost | previous received); `None` where undefined.
    pub p: Option<f64>,
    /// Gilbert q = P(received | previous lost); `None` where undefined.
    pub q: Option<f64>,
    /// BurstR = 1/(p + q); `None` when every packet is lost.
    pub burst_r: Option<f64>,
    /// Mean length of lost runs; `None` without loss.
    pub mean_loss_run: Option<f64>,
    /// Mean length of received runs; `None` if nothing was received.
    pub mean_received_run: Option<f64>,
}

impl BurstStats {
    /// BurstR clamped to G.107 Table 3's permitted range [1, 8], ready for
    /// `EModelParams::burst_r` (an estimate below 1 means losses more evenly
    /// spread than random, which G.107 does not model). `None` if undefined.
    pub fn emodel_burst_r(&self) -> Option<f64> {
        self.burst_r.map(|b| b.clamp(1.0, 8.0))
    }
}

/// Burst statistics of `losses` (`true` = lost), in sequence-number order.
///
/// p and q are the maximum-likelihood Gilbert estimates from transition
/// counts: p = n(R→L)/(n(R→R) + n(R→L)), q = n(L→R)/(n(L→L) + n(L→R)).
/// Edge cases, chosen explicitly:
/// - **no loss** (including an empty sequence): BurstR = 1.0 (with Ppl = 0,
///   Ie,eff does not depend on BurstR, and 1 is the random-loss value);
///   p = 0 if there is at least one transition, else `None`; q = `None`.
/// - **all lost**: BurstR = `None` (the chain never leaves the loss state, so
///   p is undefined; Ppl = 100 % is outside G.107 anyway); q = 0 if there is
///   at least one transition, else `None`; p = `None`.
/// - **both present, but one state occurs only as the final packet** (no
///   transition out of it was observed, e.g. `[R R L]`): that state's exit
///   probability is estimated as 1/(mean run length), the estimate of a
///   geometric run length that treats the final run as complete.
pub fn burst_stats(losses: &[bool]) -> BurstStats {
    burst_stats_of_runs(&run_lengths(losses), losses.first().copied())
}

/// [`burst_stats`] of a sequence already split into runs
/// (`run_lengths`), whose first packet is `first` (`true` = lost; `None`
/// when empty): the transition counts follow from the runs, which
/// alternate, so the sequence is not walked again (issue 14).
pub fn burst_stats_of_runs(runs: &RunLengths, first: Option<bool>) -> BurstStats {
    let lost: usize = runs.lost.iter().sum();
    let received: usize = runs.received.iter().sum();
    // Inside a run of length k: k − 1 transitions to the same state; every
    // run but the first is entered from the other state.
    let t = Transitions {
        rr: received - runs.received.len(),
        ll: lost - runs.lost.len(),
        rl: runs.lost.len() - (first == Some(true)) as usize,
        lr: runs.received.len() - (first == Some(false)) as usize,
    };
    BurstStats::from_counts(lost + received, lost, &t, (lost, runs.lost.len()), (received, runs.received.len()))
}

/// Counts of the four transitions between consecutive packets (R: received,
/// L: lost), kept as the sequence goes (score::stream folds them).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Transitions {
    pub rr: usize,
    pub rl: usize,
    pub ll: usize,
    pub lr: usize,
}

impl Transitions {
    /// The transition from a packet lost (`true`) or not to the next.
    #[inline]
    pub fn add(&mut self, from: bool, to: bool) {
        match (from, to) {
            (false, false) => self.rr += 1,
            (false, true) => self.rl += 1,
            (true, true) => self.ll += 1,
            (true, false) => self.lr += 1,
        }
    }
}

impl BurstStats {
    /// [`burst_stats`] from counts: `packets`, `lost`, the transitions and
    /// (packets, runs) of the lost and of the received runs.
    pub fn from_counts(packets: usize, lost: usize, t: &Transitions, lost_runs: (usize, usize), received_runs: (usize, usize)) -> BurstStats {
        let loss_rate = if packets == 0 {
            0.0
        } else {
            lost as f64 / packets as f64
        };
        let mean_run = |(sum, n): (usize, usize)| (n > 0).then(|| sum as f64 / n as f64);
        let mean_loss_run = mean_run(lost_runs);
        let mean_received_run = mean_run(received_runs);
        let ratio = |num: usize, den: usize| {
            if den > 0 {
                Some(num as f64 / den as f64)
            } else {
                None
            }
        };
        let (p, q, burst_r) = if lost == 0 {
            (ratio(t.rl, t.rr + t.rl), None, Some(1.0))
        } else if lost == packets {
            (None, ratio(t.lr, t.ll + t.lr), None)
        } else {
            let p = ratio(t.rl, t.rr + t.rl)
                .or(mean_received_run.map(|m| 1.0 / m))
                .unwrap();
            let q = ratio(t.lr, t.ll + t.lr)
                .or(mean_loss_run.map(|m| 1.0 / m))
                .unwrap();
            (Some(p), Some(q), Some(1.0 / (p + q)))
        };
        BurstStats {
            packets,
            lost,
            loss_rate,
            p,
            q,
            burst_r,
            mean_loss_run,
            mean_received_run,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(got: f64, want: f64, tol: f64) {
        assert!((got - want).abs() <= tol, "got {got}, want {want} ± {tol}");
    }

    fn seq(s: &str) -> Vec<bool> {
        s.chars()
            .filter(|c| !c.is_whitespace())
            .map(|c| c == 'L')
            .collect()
    }

    /// Transition counts from the runs equal those of a walk over the
    /// sequence: every field of `burst_stats` against the literal count.
    #[test]
    fn runs_give_the_walked_transitions() {
        let mut x = 0x2545_F491_4F6C_DD1Du64;
        for case in 0..500 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let n = (x % 40) as usize;
            let bias = (x >> 8) % 5;
            let losses: Vec<bool> = (0..n)
                .map(|i| {
                    let h = x.wrapping_mul(0x9E37_79B9_7F4A_7C15).rotate_left(i as u32 * 7 % 64);
                    h % 5 < bias
                })
                .collect();
            let (mut rr, mut rl, mut ll, mut lr) = (0usize, 0usize, 0usize, 0usize);
            for w in losses.windows(2) {
                match (w[0], w[1]) {
                    (false, false) => rr += 1,
                    (false, true) => rl += 1,
                    (true, true) => ll += 1,
                    (true, false) => lr += 1,
                }
            }
            let runs = run_lengths(&losses);
            let first = losses.first().copied();
            let (lost, received) = (runs.lost.iter().sum::<usize>(), runs.received.iter().sum::<usize>());
            assert_eq!((received - runs.received.len(), lost - runs.lost.len()), (rr, ll), "case {case} {losses:?}");
            assert_eq!(runs.lost.len() - (first == Some(true)) as usize, rl, "case {case} {losses:?}");
            assert_eq!(runs.received.len() - (first == Some(false)) as usize, lr, "case {case} {losses:?}");
            assert_eq!(burst_stats(&losses), burst_stats_of_runs(&runs, first));
            assert_eq!(burst_stats(&losses).lost, losses.iter().filter(|&&l| l).count());
        }
    }

    /// xorshift64* — test-only uniform source in [0, 1).
    fn uniform(state: &mut u64) -> f64 {
        *state ^= *state >> 12;
        *state ^= *state << 25;
        *state ^= *state >> 27;
        (state.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 11) as f64 / (1u64 << 53) as f64
    }

    /// `changes` (byte lanes, 255 pairs a chunk) against a pair at a time,
    /// across chunk boundaries: lengths 0–1300, every change density.
    #[test]
    fn changes_counts_each_pair_once() {
        let mut x = 0x2026u64;
        for len in (0..1300).step_by(7).chain([254, 255, 256, 510, 511, 512]) {
            let bias = uniform(&mut x);
            let flags: Vec<bool> = (0..len).map(|_| uniform(&mut x) < bias).collect();
            assert_eq!(changes(&flags), flags.windows(2).filter(|w| w[0] != w[1]).count(), "len {len}");
        }
    }

    #[test]
    fn runs() {
        let r = run_lengths(&seq("RRRR LLL RRRRR LLL R"));
        assert_eq!(r.lost, vec![3, 3]);
        assert_eq!(r.received, vec![4, 5, 1]);
        assert_eq!(run_lengths(&[]), RunLengths::default());
        assert_eq!(run_lengths(&seq("LLL")).lost, vec![3]);
    }

    #[test]
    fn hand_counted_bursty_sequence() {
        // RRRR LLL RRRRR LLL R: n(R→R) = 7, n(R→L) = 2, n(L→L) = 4, n(L→R) = 2
        // → p = 2/9, q = 1/3, BurstR = 1/(5/9) = 1.8 (by hand).
        let s = burst_stats(&seq("RRRR LLL RRRRR LLL R"));
        assert_eq!((s.packets, s.lost), (16, 6));
        close(s.loss_rate, 0.375, 1e-12);
        close(s.p.unwrap(), 2.0 / 9.0, 1e-12);
        close(s.q.unwrap(), 1.0 / 3.0, 1e-12);
        close(s.burst_r.unwrap(), 1.8, 1e-12);
        close(s.mean_loss_run.unwrap(), 3.0, 1e-12);
        close(s.mean_received_run.unwrap(), 10.0 / 3.0, 1e-12);
    }

    #[test]
    fn isolated_losses_give_one() {
        // RRLLRRRLRR: p = 2/6, q = 2/3 → BurstR = 1.0 (by hand).
        let s = burst_stats(&seq("RRLLRRRLRR"));
        close(s.burst_r.unwrap(), 1.0, 1e-12);
        // Strict alternation is "more regular than random": p = q = 1 → 0.5,
        // which emodel_burst_r clamps to G.107's minimum 1.
        let s = burst_stats(&seq("RLRLRLRL"));
        close(s.burst_r.unwrap(), 0.5, 1e-12);
        close(s.emodel_burst_r().unwrap(), 1.0, 0.0);
    }

    #[test]
    fn edge_cases() {
        let e = burst_stats(&[]);
        assert_eq!(
            (e.burst_r, e.p, e.q, e.loss_rate),
            (Some(1.0), None, None, 0.0)
        );
        let none_lost = burst_stats(&seq("RRR"));
        assert_eq!(
            (none_lost.burst_r, none_lost.p, none_lost.q),
            (Some(1.0), Some(0.0), None)
        );
        assert_eq!(burst_stats(&seq("R")).p, None);
        let all = burst_stats(&seq("LL"));
        assert_eq!((all.burst_r, all.p, all.q), (None, None, Some(0.0)));
        assert_eq!(all.emodel_burst_r(), None);
        close(all.loss_rate, 1.0, 0.0);
        assert_eq!(burst_stats(&seq("L")).q, None);
        // Final-packet-only state: RRL → p = 1/2, q = 1/(mean loss run 1) = 1 → 2/3.
        let tail = burst_stats(&seq("RRL"));
        close(tail.q.unwrap(), 1.0, 1e-12);
        close(tail.burst_r.unwrap(), 2.0 / 3.0, 1e-12);
        // LLR → q = 1/2, p = 1/(mean received run 1) = 1 → 2/3.
        let head = burst_stats(&seq("LLR"));
        close(head.p.unwrap(), 1.0, 1e-12);
        close(head.burst_r.unwrap(), 2.0 / 3.0, 1e-12);
        // Losses only before receptions: LLRR → p = 0/1, q = 1/2 → BurstR 2.
        close(burst_stats(&seq("LLRR")).burst_r.unwrap(), 2.0, 1e-12);
    }

    #[test]
    fn bernoulli_loss_is_near_one() {
        // 200 000 packets, Bernoulli 10 %: sd(BurstR) ≈ 0.002, tolerance 0.02.
        let mut st = 0x9E37_79B9_7F4A_7C15u64;
        let v: Vec<bool> = (0..200_000).map(|_| uniform(&mut st) < 0.1).collect();
        let s = burst_stats(&v);
        close(s.loss_rate, 0.1, 0.005);
        close(s.burst_r.unwrap(), 1.0, 0.02);
    }

    #[test]
    fn gilbert_loss_recovers_one_over_p_plus_q() {
        // Gilbert chain p = 0.05, q = 0.25 → BurstR = 1/0.3 = 3.333…;
        // sd of the estimate ≈ 0.03 at 200 000 packets, tolerance 0.15.
        let mut st = 0xD1B5_4A32_D192_ED03u64;
        let mut lost = false;
        let v: Vec<bool> = (0..200_000)
            .map(|_| {
                let u = uniform(&mut st);
                lost = if lost { u >= 0.25 } else { u < 0.05 };
                lost
            })
            .collect();
        let s = burst_stats(&v);
        close(s.p.unwrap(), 0.05, 0.005);
        close(s.q.unwrap(), 0.25, 0.02);
        close(s.burst_r.unwrap(), 1.0 / 0.3, 0.15);
    }
}
