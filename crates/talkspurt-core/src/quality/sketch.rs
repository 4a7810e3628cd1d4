//! A percentile estimator in bounded memory for streaming scoring (issue
//! 14): a log-bucket histogram of non-negative integers (ns), in the style
//! of HdrHistogram (Tene), with 128 buckets per octave.
//!
//! Values below 256 have a bucket each (exact). A value v ≥ 256 with
//! highest set bit e falls in the bucket of its top 8 bits: width
//! 2^(e−7), at least 128 widths above zero, so every value of a bucket is
//! within half a width of its midpoint: relative error ≤ 1/256 (0.39 %).
//! `percentile` follows `quality::percentile` (numpy's linear rule between
//! the two closest ranks) with each rank's value replaced by its bucket's
//! midpoint; a convex combination of two values each within 1/256 of the
//! true ones is within 1/256 of the true result.
//!
//! Memory: one u64 per bucket between the smallest and the largest value
//! seen (128 per octave spanned), whatever the number of values.

/// Relative error bound of `LogHistogram::percentile`.
pub const SKETCH_RELATIVE_ERROR: f64 = 1.0 / 256.0;

const SUB_BITS: u32 = 7;
const SUB: u64 = 1 << SUB_BITS;

#[derive(Debug, Clone, Default)]
pub struct LogHistogram {
    /// Bucket index of `counts[0]`.
    first: usize,
    counts: Vec<u64>,
    n: u64,
}

/// The bucket of `v`.
fn bucket(v: u64) -> usize {
    if v < 2 * SUB {
        return v as usize;
    }
    let e = 63 - v.leading_zeros(); // ≥ 8
    let top = (v >> (e - SUB_BITS)) & (SUB - 1);
    (2 * SUB + (e as u64 - SUB_BITS as u64 - 1) * SUB + top) as usize
}

/// The midpoint of bucket `b`'s values.
fn midpoint(b: usize) -> f64 {
    let b = b as u64;
    if b < 2 * SUB {
        return b as f64;
    }
    let e = (b - 2 * SUB) / SUB + SUB_BITS as u64 + 1;
    let top = (b - 2 * SUB) % SUB;
    let shift = e - SUB_BITS as u64;
    let lo = (SUB + top) << shift;
    let width = 1u64 << shift;
    lo as f64 + (width - 1) as f64 / 2.0
}

impl LogHistogram {
    pub fn record(&mut self, v: u64) {
        let b = bucket(v);
        if self.counts.is_empty() {
            self.first = b;
        } else if b < self.first {
            let grow = self.first - b;
            self.counts.splice(0..0, std::iter::repeat_n(0, grow));
            self.first = b;
        }
        let i = b - self.first;
        if i >= self.counts.len() {
            self.counts.resize(i + 1, 0);
        }
        self.counts[i] += 1;
        self.n += 1;
    }

    pub fn len(&self) -> u64 {
        self.n
    }

    pub fn is_empty(&self) -> bool {
        self.n == 0
    }

    /// The midpoint of the bucket holding the value of rank `r` (0-based,
    /// ascending).
    fn at_rank(&self, r: u64) -> f64 {
        let mut seen = 0;
        for (i, &c) in self.counts.iter().enumerate() {
            seen += c;
            if seen > r {
                return midpoint(self.first + i);
            }
        }
        unreachable!("rank {r} of {} values", self.n)
    }

    /// The `p`-th percentile (0 ≤ p ≤ 100) as `quality::percentile`
    /// computes it, within `SKETCH_RELATIVE_ERROR`; None when empty.
    pub fn percentile(&self, p: f64) -> Option<f64> {
        if self.n == 0 {
            return None;
        }
        let h = (self.n - 1) as f64 * p / 100.0;
        let lo = h.floor() as u64;
        let hi = (lo + 1).min(self.n - 1);
        let (a, b) = (self.at_rank(lo), self.at_rank(hi));
        Some(a + (h - lo as f64) * (b - a))
    }

    /// Heap bytes held.
    pub fn heap_bytes(&self) -> usize {
        self.counts.capacity() * 8
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::quality::percentile;

    /// Every value's bucket midpoint is within the bound, and buckets are
    /// ordered as their values.
    #[test]
    fn buckets_bound_the_relative_error() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64; // xorshift, seed printed on failure
        let mut last = (0u64, 0usize);
        for k in 0..200_000u64 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let v = if k < 5000 { k } else { x >> (x % 40) };
            let m = midpoint(bucket(v));
            assert!((m - v as f64).abs() <= v as f64 * SKETCH_RELATIVE_ERROR, "v {v}: midpoint {m}");
            if k < 5000 {
                assert!(bucket(v) >= last.1 && v >= last.0);
                last = (v, bucket(v));
            }
        }
        assert_eq!(midpoint(bucket(255)), 255.0);
        assert_eq!(bucket(256), 256);
    }

    /// Against `quality::percentile` on random samples (xorshift, seeds in
    /// the message): within 1/256 relative, exact for small integers.
    #[test]
    fn percentiles_within_the_bound() {
        for seed in 1..40u64 {
            let mut x = seed.wrapping_mul(0x2545_f491_4f6c_dd1d);
            let n = 1 + (seed * 97 % 3000) as usize;
            let mut h = LogHistogram::default();
            let mut v = Vec::new();
            for _ in 0..n {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                let d = 1_000_000 + x % 300_000_000 / (1 + seed % 5);
                h.record(d);
                v.push(d as f64);
            }
            for p in [0.0, 1.0, 50.0, 95.0, 99.0, 100.0] {
                let exact = percentile(&v, p).unwrap();
                let est = h.percentile(p).unwrap();
                assert!((est - exact).abs() <= exact * SKETCH_RELATIVE_ERROR * (1.0 + 1e-12), "seed {seed} p {p}: {est} vs {exact}");
            }
        }
        let mut small = LogHistogram::default();
        for v in [5u64, 0, 3, 200, 7] {
            small.record(v);
        }
        assert_eq!(small.percentile(50.0), percentile(&[5.0, 0.0, 3.0, 200.0, 7.0], 50.0).ok());
        assert_eq!(LogHistogram::default().percentile(50.0), None);
    }
}
