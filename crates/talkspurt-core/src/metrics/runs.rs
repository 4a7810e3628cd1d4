//! Back-to-back lost and received runs, after seed 004 (Barberis et al.
//! §5, §5.1, Tables 4–5, Figs 7–8 and 11–12): average, variance and the
//! probability mass function of the number of consecutive packets lost, and
//! of consecutive packets "delivered and played back on time, with no packet
//! drops in between". In the figures "bursts longer than 200 packets are
//! cumulatively accounted for at the x-axis value of 200".
//!
//! Readings (see `docs/models/metrics.md`): runs are split with
//! [`crate::quality::run_lengths`] over a per-packet lost flag, by default
//! "not played" ([`not_played`]); the first and the last run of a call are
//! counted although they are cut by the call's ends; the mean and variance
//! use the true (uncapped) lengths, the cap only folds the histogram; the
//! seed does not say population or sample variance: `variance` is the
//! population variance (the variance of the empirical pmf the seed plots),
//! `sample_variance` the n − 1 form.

use crate::playout::NOT_ARRIVED;
use crate::quality::{run_lengths, RunLengths};

/// Seed 004's histogram cap: runs of 200 packets or more share the last bin.
pub const DEFAULT_RUN_CAP: usize = 200;

/// Statistics of one set of run lengths.
#[derive(Debug, Clone, PartialEq)]
pub struct RunStats {
    /// Number of runs.
    pub runs: usize,
    /// Packets in all runs together.
    pub packets: usize,
    /// Mean run length; `None` without runs.
    pub mean: Option<f64>,
    /// Population variance Σ(x − mean)²/n; `None` without runs.
    pub variance: Option<f64>,
    /// Sample variance Σ(x − mean)²/(n − 1); `None` with fewer than 2 runs.
    pub sample_variance: Option<f64>,
    /// Longest run; `None` without runs.
    pub max: Option<usize>,
    /// `histogram[k]` = number of runs of length k for 1 ≤ k < cap;
    /// `histogram[cap]` = runs of length ≥ cap; `histogram[0]` = 0.
    /// Length cap + 1.
    pub histogram: Vec<u64>,
}

impl RunStats {
    /// The histogram as a probability mass function (each bin / runs); all
    /// zeros without runs.
    pub fn pmf(&self) -> Vec<f64> {
        let n = self.runs.max(1) as f64;
        self.histogram.iter().map(|&c| c as f64 / n).collect()
    }
}

/// Statistics of `lengths` (each ≥ 1) with the histogram folded at `cap`
/// (a cap of 0 is taken as 1).
pub fn run_stats(lengths: &[usize], cap: usize) -> RunStats {
    let cap = cap.max(1);
    let mut s = run_moments(lengths);
    s.histogram = vec![0u64; cap + 1];
    for &l in lengths {
        s.histogram[l.min(cap)] += 1;
    }
    s
}

/// [`run_stats`] without the histogram (left empty): a scorer that keeps
/// many calls' statistics keeps their non-empty bins ([`histogram_bins`])
/// rather than `cap + 1` counts each (issue 14).
pub fn run_moments(lengths: &[usize]) -> RunStats {
    let packets: usize = lengths.iter().sum();
    let squares: u128 = lengths.iter().map(|&l| (l as u128) * (l as u128)).sum();
    moments_of(lengths.len(), packets, squares, lengths.iter().copied().max())
}

/// [`run_moments`] from `n` runs of `packets` packets in all, the sum of
/// their squared lengths and the longest. The sum of squared deviations
/// is n·Σx² − (Σx)² over n, in integers (exact), then divided: a call
/// folded as it runs (score::stream) and one scored from its records give
/// the same bits (issue 26; before, a two-pass f64 sum in run order).
pub fn moments_of(n: usize, packets: usize, squares: u128, max: Option<usize>) -> RunStats {
    let mean = (n > 0).then(|| packets as f64 / n as f64);
    let ss = mean.map(|_| (n as u128 * squares).saturating_sub((packets as u128).pow(2)) as f64 / n as f64);
    RunStats {
        runs: n,
        packets,
        mean,
        variance: ss.map(|s| s / n as f64),
        sample_variance: ss.filter(|_| n >= 2).map(|s| s / (n - 1) as f64),
        max,
        histogram: Vec::new(),
    }
}

/// The non-empty bins of [`run_stats`]'s histogram of `lengths` folded at
/// `cap` (0 taken as 1), as (bin, count) in ascending bin order: the
/// histogram without its zeros.
pub fn histogram_bins(lengths: impl Iterator<Item = usize>, cap: usize) -> Vec<(u32, u64)> {
    let cap = cap.max(1);
    let mut lengths = lengths.map(|l| l.min(cap) as u32).peekable();
    // None or one run (a call without loss has one received run): its bin
    // without the sort's buffer (issue 26).
    let Some(&first) = lengths.peek() else { return Vec::new() };
    lengths.next();
    if lengths.peek().is_none() {
        return vec![(first, 1)];
    }
    let mut bins: Vec<u32> = std::iter::once(first).chain(lengths).collect();
    bins.sort_unstable();
    // One bin a distinct length, counted first (issue 26: regrown push by
    // push otherwise).
    let mut out: Vec<(u32, u64)> = Vec::with_capacity(1 + bins.windows(2).filter(|w| w[0] != w[1]).count());
    for b in bins {
        match out.last_mut() {
            Some((k, n)) if *k == b => *n += 1,
            _ => out.push((b, 1)),
        }
    }
    out
}

/// The non-empty bins of a dense histogram, as [`histogram_bins`] gives them.
pub fn nonzero_bins(histogram: &[u64]) -> Vec<(u32, u64)> {
    histogram.iter().enumerate().filter(|(_, &n)| n > 0).map(|(k, &n)| (k as u32, n)).collect()
}

/// Lost-run and received-run statistics of one call.
#[derive(Debug, Clone, PartialEq)]
pub struct BackToBack {
    /// Runs of consecutive lost packets (Table 4, Figs 11–12).
    pub lost: RunStats,
    /// Runs of consecutive received packets (Table 5, Figs 7–8).
    pub received: RunStats,
}

/// Back-to-back statistics of a per-packet `lost` flag in sequence order.
pub fn back_to_back(lost: &[bool], cap: usize) -> BackToBack {
    back_to_back_of_runs(&run_lengths(lost), cap)
}

/// [`back_to_back`] of a flag already split into runs (`run_lengths`).
pub fn back_to_back_of_runs(r: &RunLengths, cap: usize) -> BackToBack {
    BackToBack {
        lost: run_stats(&r.lost, cap),
        received: run_stats(&r.received, cap),
    }
}

/// The lost flag "not played" from a playout column (`NOT_ARRIVED` = not played).
pub fn not_played(played: &[u64]) -> Vec<bool> {
    played.iter().map(|&p| p == NOT_ARRIVED).collect()
}

#[cfg(test)]
mod tests {
    use super::super::close;
    use super::*;

    fn seq(s: &str) -> Vec<bool> {
        s.chars()
            .filter(|c| !c.is_whitespace())
            .map(|c| c == 'L')
            .collect()
    }

    #[test]
    fn hand_computed_runs() {
        // RRRR LLL RRRRR LLL R L → lost [3, 3, 1], received [4, 5, 1].
        // Lost: mean 7/3; deviations 2/3, 2/3, −4/3 → Σ² = 24/9 →
        //   population 8/9, sample 4/3.
        // Received: mean 10/3; deviations 2/3, 5/3, −7/3 → Σ² = 78/9 →
        //   population 26/9, sample 13/3.
        let b = back_to_back(&seq("RRRR LLL RRRRR LLL R L"), 4);
        assert_eq!((b.lost.runs, b.lost.packets, b.lost.max), (3, 7, Some(3)));
        close(b.lost.mean.unwrap(), 7.0 / 3.0, 1e-12);
        close(b.lost.variance.unwrap(), 8.0 / 9.0, 1e-12);
        close(b.lost.sample_variance.unwrap(), 4.0 / 3.0, 1e-12);
        close(b.received.mean.unwrap(), 10.0 / 3.0, 1e-12);
        close(b.received.variance.unwrap(), 26.0 / 9.0, 1e-12);
        close(b.received.sample_variance.unwrap(), 13.0 / 3.0, 1e-12);
        // Cap 4: lost lengths 1, 3, 3 → [0, 1, 0, 2, 0];
        // received 4, 5, 1 → 4 and 5 both in bin 4 → [0, 1, 0, 0, 2].
        assert_eq!(b.lost.histogram, vec![0, 1, 0, 2, 0]);
        assert_eq!(b.received.histogram, vec![0, 1, 0, 0, 2]);
        let pmf = b.received.pmf();
        assert_eq!(pmf.len(), 5);
        close(pmf[1], 1.0 / 3.0, 1e-12);
        close(pmf[4], 2.0 / 3.0, 1e-12);
    }

    #[test]
    fn cap_folds_histogram_not_moments() {
        // Runs 250, 200, 199 with cap 200: bins 199 → 1, 200 → 2;
        // mean (250 + 200 + 199)/3 = 216.333…, max 250 (uncapped).
        let s = run_stats(&[250, 200, 199], DEFAULT_RUN_CAP);
        assert_eq!(s.histogram.len(), 201);
        assert_eq!((s.histogram[199], s.histogram[200]), (1, 2));
        assert_eq!(s.histogram.iter().sum::<u64>(), 3);
        close(s.mean.unwrap(), 649.0 / 3.0, 1e-9);
        assert_eq!(s.max, Some(250));
        // Cap 0 behaves as cap 1: everything in bin 1.
        assert_eq!(run_stats(&[1, 7], 0).histogram, vec![0, 2]);
    }

    #[test]
    fn edge_cases() {
        // Empty: no runs at all.
        let e = back_to_back(&[], DEFAULT_RUN_CAP);
        assert_eq!(
            (e.lost.runs, e.lost.mean, e.lost.variance, e.lost.max),
            (0, None, None, None)
        );
        assert!(e.received.pmf().iter().all(|&p| p == 0.0));
        // No loss: one received run of 5, no lost run; one run → no sample variance.
        let n = back_to_back(&seq("RRRRR"), 10);
        assert_eq!(n.lost.runs, 0);
        assert_eq!(
            (n.received.runs, n.received.mean, n.received.variance),
            (1, Some(5.0), Some(0.0))
        );
        assert_eq!(n.received.sample_variance, None);
        // All lost.
        let a = back_to_back(&seq("LLL"), 2);
        assert_eq!(
            (a.lost.runs, a.lost.histogram.clone(), a.received.runs),
            (1, vec![0, 0, 1], 0)
        );
    }

    #[test]
    fn sparse_bins_are_the_histograms_non_zero_bins() {
        // Seeded lengths 1..=300 around cap 200 (and the cap-0 case): the
        // sparse bins equal the dense histogram without its zeros, and the
        // moments equal run_stats's.
        let mut rng = crate::rng::Rng::stream(14, 0, crate::rng::StreamId::new(0, 0));
        for (cap, n) in [(200, 0), (200, 1), (200, 57), (4, 30), (0, 9), (1, 5)] {
            let lengths: Vec<usize> = (0..n).map(|_| 1 + rng.below(300) as usize).collect();
            let dense = run_stats(&lengths, cap);
            assert_eq!(histogram_bins(lengths.iter().copied(), cap), nonzero_bins(&dense.histogram), "cap {cap}, {n} runs");
            assert_eq!(RunStats { histogram: dense.histogram.clone(), ..run_moments(&lengths) }, dense, "cap {cap}, {n} runs");
        }
    }

    #[test]
    fn not_played_flags() {
        assert_eq!(not_played(&[5, NOT_ARRIVED, 7]), vec![false, true, false]);
    }
}
