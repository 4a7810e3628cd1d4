//! Jitter as seed 003 defines it (Sarwar, Boreli & Lochin §5, Tables 4 and 6):
//! "the difference in the inter-packet gap of the successive VoIP packets",
//! reported as average and maximum, at the sender and at the receiver.
//!
//! For a time column `t` (`t_sent` for the sender side, `t_arr` for the
//! receiver side) in generation order, the inter-packet gap of packets
//! `i, i+1` is `g_i = t[i+1] − t[i]` (signed: a reordered arrival gives a
//! negative gap) and the jitter sample is
//!
//! `j_i = |g_{i+1} − g_i| = |t[i+2] − 2·t[i+1] + t[i]|`.
//!
//! **Participation:** `g_i` exists only when packets `i` and `i+1` (by
//! sequence number) are both present (`t ≠ NOT_ARRIVED`) and belong to the
//! same talkspurt, so `j_i` needs the three consecutive packets `i, i+1, i+2`
//! all present and in one talkspurt. Gaps are never bridged over a missing
//! packet (that would count a lost packet's absence as jitter), and never
//! across a silence period (that would count the silence as jitter).
//!
//! This is *not* the RFC 3550 estimator; that one is
//! [`crate::quality::interarrival_jitter_ns`].

use super::NOT_ARRIVED;
use crate::quality::mean;

/// Average and maximum seed-003 jitter of one column. Values in ns.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GapJitter {
    /// Number of jitter samples `j_i` (triples of consecutive present packets).
    pub samples: usize,
    /// Mean of the samples; `None` without samples.
    pub mean_ns: Option<f64>,
    /// Largest sample; `None` without samples.
    pub max_ns: Option<f64>,
}

/// The jitter samples `j_i` (ns), in sequence order, of the packets that
/// participate (see the module documentation). `talkspurt` and `t` must have
/// equal length (panics otherwise).
pub fn gap_jitter_samples(talkspurt: &[u32], t: &[u64]) -> Vec<f64> {
    let mut out = Vec::with_capacity(t.len().saturating_sub(2));
    for_each_sample(talkspurt, t, |j| out.push(j));
    out
}

/// Calls `f` with each sample of [`gap_jitter_samples`] in order. Talkspurts
/// are taken one run of equal ids at a time, so inside a run only the
/// presence of the three packets is tested: one compare when every time is
/// below 2^62 ns, which `NOT_ARRIVED` is not (issue 14).
#[inline]
fn for_each_sample(talkspurt: &[u32], t: &[u64], mut f: impl FnMut(f64)) {
    assert_eq!(
        talkspurt.len(),
        t.len(),
        "talkspurt and time columns differ in length"
    );
    let mut start = 0;
    while start < t.len() {
        // talkspurt ids are non-decreasing: a run is a talkspurt.
        let id = talkspurt[start];
        let end = start + talkspurt[start..].iter().position(|&s| s != id).unwrap_or(t.len() - start);
        let run = &t[start..end];
        start = end;
        if run.iter().fold(0, |acc, &x| acc | x) < SAFE {
            // Every packet of the run present and below 2^62 ns (the usual
            // talkspurt): no test per sample.
            for w in run.windows(3) {
                f(second_difference_below_safe(w[0], w[1], w[2]));
            }
            continue;
        }
        for w in run.windows(3) {
            let (a, b, c) = (w[0], w[1], w[2]);
            if (a | b | c) < SAFE {
                f(second_difference_below_safe(a, b, c));
            } else if a != NOT_ARRIVED && b != NOT_ARRIVED && c != NOT_ARRIVED {
                f(second_difference(a, b, c));
            }
        }
    }
}

/// Average and maximum of [`gap_jitter_samples`]. The samples are not kept:
/// the sum runs over the same values in the same order as
/// [`crate::quality::mean`]'s, from +0.0 (samples are ≥ +0.0, so the start
/// value `Sum` picks cannot change it), so the result is bit-identical
/// (issue 14).
pub fn gap_jitter(talkspurt: &[u32], t: &[u64]) -> GapJitter {
    gap_jitter_over(talkspurt, t, f64::INFINITY).0
}

/// [`gap_jitter`] and [`jitter_exceedance`] of its samples over
/// `threshold_ns`, in one pass without keeping the samples.
pub fn gap_jitter_over(talkspurt: &[u32], t: &[u64], threshold_ns: f64) -> (GapJitter, Option<f64>) {
    let (mut n, mut over) = (0usize, 0usize);
    let (mut sum, mut max) = (0.0f64, f64::NEG_INFINITY);
    for_each_sample(talkspurt, t, |j| {
        n += 1;
        over += (j > threshold_ns) as usize;
        sum += j;
        // f64::max without its NaN handling: samples are never NaN.
        if j > max {
            max = j;
        }
    });
    let g = GapJitter { samples: n, mean_ns: (n > 0).then(|| sum / n as f64), max_ns: (n > 0).then_some(max) };
    (g, (n > 0).then(|| over as f64 / n as f64))
}

/// Below this every partial sum of a second difference fits i64.
const SAFE: u64 = 1 << 62;

/// The samples of [`gap_jitter_samples`] found one packet at a time, in
/// sequence order (streaming scoring, issue 14; the exact scorer's one
/// pass over a call's columns, `score::pass`, issue 26), with their count,
/// sum (in the same order, so the mean is bit-identical to
/// [`gap_jitter`]'s), max and how many exceed a threshold
/// ([`jitter_exceedance`]).
#[derive(Debug, Clone)]
pub struct GapJitterStream {
    /// The previous two packets: (talkspurt, time), oldest first; a time
    /// of `NOT_ARRIVED` for a packet absent or not yet seen, which takes
    /// part in no sample (the first two packets give none).
    last: [(u32, u64); 2],
    pub samples: usize,
    sum: f64,
    /// `NEG_INFINITY` until the first sample (samples are ≥ 0, never NaN).
    max: f64,
    pub over: usize,
}

impl Default for GapJitterStream {
    fn default() -> Self {
        GapJitterStream { last: [(0, NOT_ARRIVED); 2], samples: 0, sum: 0.0, max: f64::NEG_INFINITY, over: 0 }
    }
}

impl GapJitterStream {
    /// The next packet's talkspurt and time (`NOT_ARRIVED` if absent).
    #[inline]
    pub fn push(&mut self, talkspurt: u32, t: u64, threshold_ns: f64) {
        let [(sa, a), (sb, b)] = self.last;
        if sa == sb && sb == talkspurt {
            // Three present packets of one talkspurt (module documentation);
            // below 2^62 ns one compare tests presence (NOT_ARRIVED is not).
            let j = if (a | b | t) < SAFE {
                Some(second_difference_below_safe(a, b, t))
            } else if a != NOT_ARRIVED && b != NOT_ARRIVED && t != NOT_ARRIVED {
                Some(second_difference(a, b, t))
            } else {
                None
            };
            if let Some(j) = j {
                self.samples += 1;
                self.sum += j;
                if j > self.max {
                    self.max = j;
                }
                self.over += (j > threshold_ns) as usize;
            }
        }
        self.last = [(sb, b), (talkspurt, t)];
    }

    /// `k` packets of the talkspurt of the last two pushed, whose times
    /// `t` (the last two of them given) continue the line through those
    /// two, every time below 2^62 ns: what `k` calls of [`Self::push`]
    /// do, in O(1). Every sample is |0| = +0.0, so the sum (≥ +0.0, never
    /// −0.0) is unchanged by adding them (score::steady, issue 26).
    pub fn push_on_line(&mut self, talkspurt: u32, k: usize, last2: [u64; 2], threshold_ns: f64) {
        debug_assert!(self.last.iter().all(|&(s, t)| s == talkspurt && t < SAFE) && last2.iter().all(|&t| t < SAFE));
        if k == 0 {
            return;
        }
        self.samples += k;
        if 0.0 > self.max {
            self.max = 0.0;
        }
        self.over += k * (0.0 > threshold_ns) as usize;
        self.last = if k == 1 { [self.last[1], (talkspurt, last2[1])] } else { [(talkspurt, last2[0]), (talkspurt, last2[1])] };
    }

    /// Packets of one talkspurt, `ts` their times (none absent): what a
    /// call of [`Self::push`] for each does, the samples' sum still taken
    /// in order; past the first two, without testing talkspurts and
    /// presence a packet (score::pass's stretches, issue 26).
    #[inline]
    pub fn push_stretch(&mut self, talkspurt: u32, ts: &[u64], threshold_ns: f64) {
        // Where the stretch's samples start and the two times before the
        // first, from the last two pushed (as `push` decides): both of this
        // talkspurt and present, every packet a sample; only the last, the
        // second on; neither, the third on. Other cases (a time at or above
        // SAFE, not absent) one `push` a packet.
        let [(sa, a), (sb, b)] = self.last;
        let safe = ts.len() >= 3 && ts.iter().fold(0, |x, &t| x | t) < SAFE;
        let start = match () {
            _ if !safe => None,
            _ if sb != talkspurt || b == NOT_ARRIVED => Some((ts[0], ts[1], 2)),
            _ if b >= SAFE => None,
            _ if sa != talkspurt || a == NOT_ARRIVED => Some((b, ts[0], 1)),
            _ if a < SAFE => Some((a, b, 0)),
            _ => None,
        };
        let Some((mut a, mut b, from)) = start else {
            for &t in ts {
                self.push(talkspurt, t, threshold_ns);
            }
            return;
        };
        // The two before carried in registers, the sum in order.
        let (mut sum, mut max, mut over) = (self.sum, self.max, self.over);
        for &t in &ts[from..] {
            let j = second_difference_below_safe(a, b, t);
            sum += j;
            if j > max {
                max = j;
            }
            over += (j > threshold_ns) as usize;
            (a, b) = (b, t);
        }
        (self.sum, self.max, self.over) = (sum, max, over);
        self.samples += ts.len() - from;
        self.last = [(talkspurt, a), (talkspurt, b)];
    }

    pub fn jitter(&self) -> GapJitter {
        let n = self.samples;
        GapJitter { samples: n, mean_ns: (n > 0).then(|| self.sum / n as f64), max_ns: (n > 0).then_some(self.max) }
    }

    /// [`jitter_exceedance`] of the samples.
    pub fn exceedance(&self) -> Option<f64> {
        (self.samples > 0).then(|| self.over as f64 / self.samples as f64)
    }
}

/// [`second_difference`] of times below [`SAFE`]: |c − 2b + a| < 2^63, so
/// i64's abs and its one-instruction conversion give the same f64 as the
/// unsigned one.
#[inline]
fn second_difference_below_safe(a: u64, b: u64, c: u64) -> f64 {
    (c as i64 - 2 * b as i64 + a as i64).abs() as f64
}

/// `|c − 2b + a|` as f64, exact before the one rounding to f64. Times below
/// 2^62 ns (146 years) keep every partial sum inside i64, and converting the
/// same integer from i64 or i128 rounds identically, so the i128 path (a
/// software conversion, `__floattidf`) is only taken beyond that (issue 14).
#[inline]
fn second_difference(a: u64, b: u64, c: u64) -> f64 {
    if (a | b | c) < SAFE {
        (c as i64 - 2 * b as i64 + a as i64).unsigned_abs() as f64
    } else {
        (c as i128 - 2 * b as i128 + a as i128).unsigned_abs() as f64
    }
}

impl GapJitter {
    /// Average and maximum of samples already taken.
    pub fn of_samples(s: &[f64]) -> GapJitter {
        GapJitter { samples: s.len(), mean_ns: mean(s), max_ns: s.iter().cloned().reduce(f64::max) }
    }
}

/// Fraction of jitter samples strictly greater than `threshold_ns`: seed
/// 003 §7.2's P_J, "the probability that a packet will have a jitter greater
/// than the buffer value" (400 ms there). `None` without samples.
pub fn jitter_exceedance(samples: &[f64], threshold_ns: f64) -> Option<f64> {
    if samples.is_empty() {
        None
    } else {
        let over = samples.iter().filter(|&&j| j > threshold_ns).count();
        Some(over as f64 / samples.len() as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::super::{close, ms, MS, X};
    use super::*;


    #[test]
    fn hand_computed_receiver() {
        // Arrivals 0, 20, 45, 60, 80 ms: gaps 20, 25, 15, 20 →
        // samples |25−20| = 5, |15−25| = 10, |20−15| = 5 ms;
        // mean 20/3 ms, max 10 ms.
        let t = ms(&[0, 20, 45, 60, 80]);
        let ts = [0u32; 5];
        assert_eq!(gap_jitter_samples(&ts, &t), vec![5e6, 10e6, 5e6]);
        let j = gap_jitter(&ts, &t);
        assert_eq!(j.samples, 3);
        close(j.mean_ns.unwrap(), 20e6 / 3.0, 1e-6);
        close(j.max_ns.unwrap(), 10e6, 0.0);
    }

    #[test]
    fn regular_sender_is_zero() {
        let t: Vec<u64> = (0..50).map(|i| 1_000 + i * 20 * MS).collect();
        let j = gap_jitter(&[3u32; 50], &t);
        assert_eq!(j.samples, 48);
        assert_eq!((j.mean_ns, j.max_ns), (Some(0.0), Some(0.0)));
    }

    #[test]
    fn missing_packets_are_not_bridged() {
        // 0, 20, X, 60, 85, 100: only triple (3, 4, 5) is complete →
        // gaps 25, 15 → one sample of 10 ms. (Bridging the hole would give
        // gaps 20, 40, 25, 15 and samples 20, 15, 10.)
        let t = ms(&[0, 20, X, 60, 85, 100]);
        assert_eq!(gap_jitter_samples(&[0; 6], &t), vec![10e6]);
        // Sender drops in t_sent are handled the same way.
        assert!(gap_jitter_samples(&[0; 4], &ms(&[0, X, 40, X])).is_empty());
    }

    #[test]
    fn talkspurt_boundaries_are_not_crossed() {
        // Talkspurts [0 0 0 | 1 1 1]: triples (0,1,2) → |20−20| = 0 and
        // (3,4,5) → |25−20| = 5 ms; the two triples spanning the silence are out.
        let t = ms(&[0, 20, 40, 1000, 1020, 1045]);
        assert_eq!(gap_jitter_samples(&[0, 0, 0, 1, 1, 1], &t), vec![0.0, 5e6]);
    }

    #[test]
    fn reordering_gives_negative_gap() {
        // Arrivals 0, 30, 20, 60 ms: gaps 30, −10, 40 → samples 40, 50 ms.
        let j = gap_jitter(&[0; 4], &ms(&[0, 30, 20, 60]));
        close(j.mean_ns.unwrap(), 45e6, 0.0);
        close(j.max_ns.unwrap(), 50e6, 0.0);
    }

    /// The run-at-a-time loop and the one-pass statistics equal the
    /// definition taken literally (every triple tested, samples collected,
    /// `mean`, `reduce(max)`, `jitter_exceedance`), bit for bit, on random
    /// columns with losses, talkspurt changes, reordering and huge times.
    #[test]
    fn streaming_equals_the_definition() {
        let mut x = 0x51ED_5EEDu64;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for case in 0..400 {
            let n = (next() % 60) as usize;
            let (mut ts, mut t) = (Vec::new(), Vec::new());
            let (mut spurt, mut now) = (0u32, next() % 1000);
            if case % 7 == 0 {
                now += (1 << 62) - 500; // crosses the i64 fast path's limit
            }
            for _ in 0..n {
                spurt += (next() % 9 == 0) as u32;
                now += next() % 50;
                ts.push(spurt);
                t.push(if next() % 6 == 0 { NOT_ARRIVED } else { now.saturating_sub(next() % 30) });
            }
            let mut want = Vec::new();
            for i in 0..n.saturating_sub(2) {
                let (a, b, c) = (t[i], t[i + 1], t[i + 2]);
                if a != NOT_ARRIVED && b != NOT_ARRIVED && c != NOT_ARRIVED && ts[i] == ts[i + 2] {
                    want.push((c as i128 - 2 * b as i128 + a as i128).unsigned_abs() as f64);
                }
            }
            let got = gap_jitter_samples(&ts, &t);
            assert_eq!(got.iter().map(|v| v.to_bits()).collect::<Vec<_>>(), want.iter().map(|v| v.to_bits()).collect::<Vec<_>>(), "case {case}");
            let thr = (next() % 40) as f64;
            let (g, over) = gap_jitter_over(&ts, &t, thr);
            let w = GapJitter::of_samples(&want);
            assert_eq!(g.samples, w.samples, "case {case}");
            assert_eq!(g.mean_ns.map(f64::to_bits), w.mean_ns.map(f64::to_bits), "case {case}");
            assert_eq!(g.max_ns.map(f64::to_bits), w.max_ns.map(f64::to_bits), "case {case}");
            assert_eq!(over.map(f64::to_bits), jitter_exceedance(&want, thr).map(f64::to_bits), "case {case}");
            assert_eq!(gap_jitter(&ts, &t), g, "case {case}");
        }
    }

    #[test]
    fn second_difference_matches_i128_across_the_limit() {
        // Below, at and above 2^62, up to just under NOT_ARRIVED: the fast
        // path and the 128-bit one must give the same f64.
        let wide = |a: u64, b: u64, c: u64| (c as i128 - 2 * b as i128 + a as i128).unsigned_abs() as f64;
        let edges = [0u64, 1, 7, (1 << 53) + 1, (1 << 62) - 3, (1 << 62) - 1, 1 << 62, (1 << 62) + 5, u64::MAX - 1];
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for &a in &edges {
            for &b in &edges {
                for &c in &edges {
                    assert_eq!(second_difference(a, b, c).to_bits(), wide(a, b, c).to_bits(), "{a} {b} {c}");
                }
            }
        }
        for _ in 0..100_000 {
            let (a, b, c) = (next() >> (next() % 3), next() >> (next() % 3), next() >> (next() % 3));
            assert_eq!(second_difference(a, b, c).to_bits(), wide(a, b, c).to_bits(), "{a} {b} {c}");
        }
    }

    /// The streaming summary equals the summary of the collected samples,
    /// bit for bit, on random columns with losses and talkspurt changes.
    #[test]
    fn streaming_equals_collected() {
        let mut x = 0x2545_F491_4F6C_DD1Du64;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for case in 0..300 {
            let n = (next() % 80) as usize;
            let mut ts = Vec::with_capacity(n);
            let mut t = Vec::with_capacity(n);
            let (mut spurt, mut now) = (0u32, 0u64);
            for _ in 0..n {
                spurt += (next() % 10 == 0) as u32;
                now += 20 * MS;
                ts.push(spurt);
                t.push(if next() % 7 == 0 { X } else { now + next() % (50 * MS) });
            }
            let a = gap_jitter(&ts, &t);
            let b = GapJitter::of_samples(&gap_jitter_samples(&ts, &t));
            assert_eq!(a.samples, b.samples, "case {case}");
            assert_eq!(a.mean_ns.map(f64::to_bits), b.mean_ns.map(f64::to_bits), "case {case}");
            assert_eq!(a.max_ns.map(f64::to_bits), b.max_ns.map(f64::to_bits), "case {case}");
        }
    }

    #[test]
    fn edge_cases() {
        let e = gap_jitter(&[], &[]);
        assert_eq!((e.samples, e.mean_ns, e.max_ns), (0, None, None));
        assert_eq!(gap_jitter(&[0, 0], &[0, 5]).samples, 0);
        assert_eq!(gap_jitter(&[0; 3], &[X, X, X]).samples, 0);
    }

    #[test]
    fn exceedance() {
        // Samples 5, 10, 5 ms: > 6 ms → 1 of 3; > 10 ms (strict) → 0.
        let s = [5e6, 10e6, 5e6];
        close(jitter_exceedance(&s, 6e6).unwrap(), 1.0 / 3.0, 1e-12);
        close(jitter_exceedance(&s, 10e6).unwrap(), 0.0, 0.0);
        close(jitter_exceedance(&s, 0.0).unwrap(), 1.0, 0.0);
        assert_eq!(jitter_exceedance(&[], 1.0), None);
    }

    /// `push_stretch` against one `push` a packet on random streams:
    /// talkspurt changes, absent packets, times at and above SAFE, stretches
    /// of every length; every field the same bits (seed printed).
    #[test]
    fn push_stretch_equals_pushes() {
        for seed in 1..400u64 {
            let mut x = seed;
            let mut r = |m: u64| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x % m
            };
            let (mut a, mut b) = (GapJitterStream::default(), GapJitterStream::default());
            let (mut spurt, mut t) = (0u32, if r(8) == 0 { SAFE - 50_000_000 } else { 1_000_000 });
            for _ in 0..60 {
                if r(6) == 0 {
                    spurt += 1;
                }
                let k = r(9) as usize;
                let ts: Vec<u64> = (0..k)
                    .map(|_| {
                        t += 15_000_000 + r(10_000_000);
                        t
                    })
                    .collect();
                let thr = [f64::INFINITY, 3e6, 0.0][r(3) as usize];
                if r(5) == 0 {
                    // An absent packet between stretches.
                    a.push(spurt, NOT_ARRIVED, thr);
                    b.push(spurt, NOT_ARRIVED, thr);
                }
                for &t in &ts {
                    a.push(spurt, t, thr);
                }
                b.push_stretch(spurt, &ts, thr);
                let same = a.samples == b.samples && a.sum.to_bits() == b.sum.to_bits() && a.max.to_bits() == b.max.to_bits();
                assert!(same && a.over == b.over && a.last == b.last, "seed {seed}: {a:?} vs {b:?}");
            }
        }
    }
}
