//! Exact percentiles of a stream of integers (ns) without keeping the
//! stream (issue 26, target 4): a count per distinct value.
//!
//! The percentile of `quality::percentile_of_sorted_by` (numpy's linear
//! rule between the two closest ranks) reads the values at two ranks of
//! the sorted sample; a sorted list of (value, count) pairs gives the value
//! at any rank, so the result is the same bits as sorting every value.
//!
//! Memory: 16 bytes per *distinct* value, plus a buffer of values not yet
//! merged (at most a quarter of the distinct count, and at least
//! [`MIN_PENDING`]). It does not grow with the number of values once
//! they repeat: a delay on a path whose rates and propagation delays are
//! fixed takes a few values (its queueing is a whole number of
//! transmission times of the packets ahead), so a day-long call holds a
//! few pairs. Delays drawn from a continuous jitter model are all
//! distinct, and then this is the whole sample (16 B a value): exact
//! order statistics in one pass need that (Munro & Paterson, "Selection
//! and sorting with limited storage", TCS 12, 1980: Ω(n) memory for exact
//! selection in one pass over an unbounded universe).

/// Values merged into the sorted pairs once this many are pending (or a
/// quarter of the pairs, if more).
pub const MIN_PENDING: usize = 1024;

#[derive(Debug, Clone, Default)]
pub struct ExactCounts {
    /// Distinct values ascending, with their counts.
    pairs: Vec<(u64, u64)>,
    /// Values not yet merged into `pairs`.
    pending: Vec<u64>,
    n: u64,
}

impl ExactCounts {
    pub fn record(&mut self, v: u64) {
        self.n += 1;
        // The common case on a fixed path: the value seen last.
        if self.pending.is_empty() {
            if let Some(p) = self.pairs.iter_mut().rev().take(2).find(|p| p.0 == v) {
                p.1 += 1;
                return;
            }
        }
        self.pending.push(v);
        if self.pending.len() >= MIN_PENDING.max(self.pairs.len() / 4) {
            self.merge();
        }
    }

    /// Values recorded.
    pub fn len(&self) -> u64 {
        self.n
    }

    pub fn is_empty(&self) -> bool {
        self.n == 0
    }

    /// Elements held (distinct values + pending values): what the memory
    /// is, 16 and 8 bytes each.
    pub fn retained(&self) -> (usize, usize) {
        (self.pairs.len(), self.pending.len())
    }

    fn merge(&mut self) {
        if self.pending.is_empty() {
            return;
        }
        self.pending.sort_unstable();
        let mut add: Vec<(u64, u64)> = Vec::new();
        for &v in &self.pending {
            match add.last_mut() {
                Some((x, c)) if *x == v => *c += 1,
                _ => add.push((v, 1)),
            }
        }
        self.pending.clear();
        let old = std::mem::take(&mut self.pairs);
        let mut out = Vec::with_capacity(old.len() + add.len());
        let (mut i, mut j) = (0, 0);
        while i < old.len() && j < add.len() {
            let (a, b) = (old[i], add[j]);
            if a.0 < b.0 {
                out.push(a);
                i += 1;
            } else if b.0 < a.0 {
                out.push(b);
                j += 1;
            } else {
                out.push((a.0, a.1 + b.1));
                i += 1;
                j += 1;
            }
        }
        out.extend_from_slice(&old[i..]);
        out.extend_from_slice(&add[j..]);
        self.pairs = out;
    }

    /// `quality::percentile_of_sorted_by(n, p, |i| f(sorted[i]))` over the
    /// values recorded; None if none.
    pub fn percentile_by(&mut self, p: f64, f: impl Fn(u64) -> f64) -> Option<f64> {
        if self.n == 0 {
            return None;
        }
        self.merge();
        let pairs = &self.pairs;
        let at = |rank: usize| {
            let mut seen = 0u64;
            for &(v, c) in pairs {
                seen += c;
                if rank as u64 <= seen - 1 {
                    return v;
                }
            }
            unreachable!("rank below the count")
        };
        Some(super::percentile_of_sorted_by(self.n as usize, p, |i| f(at(i))))
    }

    /// The largest value; None if none.
    pub fn max(&mut self) -> Option<u64> {
        self.merge();
        self.pairs.last().map(|p| p.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::quality::percentile_of_sorted_by;

    /// SplitMix64.
    fn next(s: &mut u64) -> u64 {
        *s = s.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = *s;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Bit for bit the sorted sample's percentiles, for samples with few
    /// and with all-distinct values, across merges.
    #[test]
    fn percentiles_equal_the_sorted_samples() {
        for (case, (n, range)) in [(1usize, 5u64), (7, 3), (5000, 4), (20_000, 1 << 40), (3000, 900)].into_iter().enumerate() {
            let mut s = 0x2026_0000 + case as u64;
            let mut c = ExactCounts::default();
            let mut all = Vec::new();
            for _ in 0..n {
                let v = 30_000_000 + next(&mut s) % range;
                c.record(v);
                all.push(v);
            }
            all.sort_unstable();
            for p in [0.0, 1.0, 50.0, 95.0, 99.0, 99.9, 100.0] {
                let want = percentile_of_sorted_by(all.len(), p, |i| all[i] as f64 * 1e-6);
                let got = c.percentile_by(p, |v| v as f64 * 1e-6).unwrap();
                assert_eq!(got.to_bits(), want.to_bits(), "case {case} p {p}");
            }
            assert_eq!(c.max(), all.last().copied());
            assert_eq!(c.len(), n as u64);
        }
        assert_eq!(ExactCounts::default().percentile_by(50.0, |v| v as f64), None);
    }

    /// Memory is the distinct values: a million values of four kinds hold
    /// four pairs and no pending values once merged.
    #[test]
    fn retained_elements_follow_distinct_values() {
        let mut c = ExactCounts::default();
        let mut s = 7u64;
        for _ in 0..1_000_000 {
            c.record(32_019_200 + 16_000 * (next(&mut s) % 4));
        }
        let _ = c.percentile_by(50.0, |v| v as f64);
        assert_eq!(c.retained(), (4, 0));
    }
}
