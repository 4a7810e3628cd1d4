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
        // Times on a line through the two before (a sender without a
        // buffer: a constant-rate source's send times): every sample is
        // |0| = +0.0, what `push_on_line` takes at once, after a test
        // that vectorises (issue 26: ~20 instructions a packet of the
        // mixed preset's sender column; a receiver's line usually breaks
        // at its first packet, tested alone first).
        let rest = &ts[from..];
        let step = b.wrapping_sub(a);
        if rest[0].wrapping_sub(b) == step && rest.iter().zip(&rest[1..]).fold(0, |x, (&p, &t)| x | (t.wrapping_sub(p) ^ step)) == 0 {
            let last2 = if rest.len() >= 2 { [rest[rest.len() - 2], rest[rest.len() - 1]] } else { [b, rest[0]] };
            self.last = [(talkspurt, a), (talkspurt, b)];
            self.push_on_line(talkspurt, rest.len(), last2, threshold_ns);
            return;
        }
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
#[path = "jitter_tests.rs"]
mod tests;
