//! Best single fixed playout delay for the whole call (Tao & Guérin style,
//! as summarised in seed 000 §4.3: "define their fixed delay value as
//! argmax R(d)").
//!
//! Every packet is played `d` after generation; packets with network delay
//! `> d` are discarded. `R(d) = R0 - Id(offset + d) - Il(e(d))` only changes
//! where `e(d)` changes, i.e. at the packets' network delays, and between two
//! such points `Id` is non-decreasing, so the best `d` is one of the arrived
//! packets' delays (or "play nothing"): an `O(N log N)` sweep is exact.

use super::optimal::Prepared;
use super::prepared::candidates;
use super::{loss_fraction, CallTrace, NOT_ARRIVED, NS_PER_MS};

/// The best fixed delay and its score.
#[derive(Debug, Clone, PartialEq)]
pub struct FixedDelayBound {
    /// Best R.
    pub r: f64,
    /// The fixed network delay budget `d`, ns (playout = `t_gen + d`);
    /// [`NOT_ARRIVED`] when playing nothing is best.
    pub delay: u64,
    /// Packets played.
    pub played: usize,
    /// Fraction of generated packets not played.
    pub loss_fraction: f64,
    /// Mouth-to-ear delay of every played packet, ms (`offset_ms + d`).
    pub mean_delay_ms: f64,
    /// Playout time per packet, [`NOT_ARRIVED`] where lost or discarded.
    pub playout: Vec<u64>,
}

/// `argmax_d R0 - id(offset_ms + d) - il(e(d))`. `id` non-decreasing.
pub fn fixed_delay_bound(
    trace: &CallTrace<'_>,
    offset_ms: f64,
    r0: f64,
    id: impl Fn(f64) -> f64,
    il: impl Fn(f64) -> f64,
) -> FixedDelayBound {
    sweep(trace.len(), Some(trace), &candidates(sorted_delays(trace).into_iter()), offset_ms, |d_ms, e| r0 - d_ms.map_or(0.0, &id) - il(e))
}

/// [`fixed_delay_bound`] on a trace already [`Prepared`]; without
/// `with_playout` the per-packet `playout` column is left empty.
pub fn fixed_delay_bound_prepared(
    p: &Prepared<'_, '_>,
    offset_ms: f64,
    r0: f64,
    id: impl Fn(f64) -> f64,
    il: impl Fn(f64) -> f64,
    with_playout: bool,
) -> FixedDelayBound {
    sweep(p.total(), p.trace_opt().filter(|_| with_playout), p.candidates(), offset_ms, |d_ms, e| r0 - d_ms.map_or(0.0, &id) - il(e))
}

/// `argmax_d r(offset_ms + d, e(d))`, e.g. with the full G.107 E-model.
/// `r` non-increasing in its delay and loss arguments. When nothing is played `r`
/// gets `offset_ms` as the delay.
pub fn fixed_delay_bound_generic(
    trace: &CallTrace<'_>,
    offset_ms: f64,
    r: impl Fn(f64, f64) -> f64,
) -> FixedDelayBound {
    sweep(trace.len(), Some(trace), &candidates(sorted_delays(trace).into_iter()), offset_ms, |d_ms, e| r(d_ms.unwrap_or(offset_ms), e))
}

/// [`fixed_delay_bound_generic`] on a trace already [`Prepared`]; without
/// `with_playout` the per-packet `playout` column is left empty.
pub fn fixed_delay_bound_generic_prepared(
    p: &Prepared<'_, '_>,
    offset_ms: f64,
    r: impl Fn(f64, f64) -> f64,
    with_playout: bool,
) -> FixedDelayBound {
    sweep(p.total(), p.trace_opt().filter(|_| with_playout), p.candidates(), offset_ms, |d_ms, e| r(d_ms.unwrap_or(offset_ms), e))
}

/// The arrived packets' network delays ascending, in the `(delay, _,
/// packets)` form [`Prepared::by_delay`] gives (the talkspurt is not read).
fn sorted_delays(trace: &CallTrace<'_>) -> Vec<(u64, u32, u32)> {
    let mut delays: Vec<(u64, u32, u32)> = (0..trace.len()).filter_map(|i| trace.network_delay(i)).map(|d| (d, 0, 1)).collect();
    delays.sort_unstable();
    delays
}

/// `score(mouth-to-ear delay ms or None when nothing plays, loss fraction)`.
/// `cands`: `(d, packets with delay ≤ d)` at each distinct delay ascending
/// (`prepared::candidates`).
/// `total`: packets generated; `trace`: given, the per-packet playout
/// column is built from it.
fn sweep(
    total: usize,
    trace: Option<&CallTrace<'_>>,
    cands: &[(u64, usize)],
    offset_ms: f64,
    score: impl Fn(Option<f64>, f64) -> f64,
) -> FixedDelayBound {
    // Scored from the largest d down: a smaller d has at least the smallest
    // delay and more loss, and R is non-increasing in both, so once that
    // bound is below the best nothing smaller can win. Ties go to the
    // smaller d, as in an ascending sweep that keeps the first maximum.
    let ms = |d: u64| offset_ms + d as f64 / NS_PER_MS;
    let d_min = cands.first().map(|&(d, _)| ms(d));
    let (mut best_r, mut best_d, mut best_n) = (f64::NEG_INFINITY, NOT_ARRIVED, 0);
    for &(d, n) in cands.iter().rev() {
        if score(d_min, loss_fraction(total, n)) < best_r - 1e-9 * (1.0 + best_r.abs()) {
            break;
        }
        let r = score(Some(ms(d)), loss_fraction(total, n));
        if r >= best_r {
            (best_r, best_d, best_n) = (r, d, n);
        }
    }
    // Playing nothing wins only when strictly better than every schedule.
    let nothing = score(None, loss_fraction(total, 0));
    if best_d == NOT_ARRIVED || nothing > best_r {
        (best_r, best_d, best_n) = (nothing, NOT_ARRIVED, 0);
    }
    let playout = match trace {
        None => Vec::new(),
        Some(trace) => (0..total)
        .map(|i| match trace.network_delay(i) {
            Some(n) if best_d != NOT_ARRIVED && n <= best_d => trace.t_gen[i] + best_d,
            _ => NOT_ARRIVED,
        })
        .collect()
    };
    FixedDelayBound {
        r: best_r,
        delay: best_d,
        played: best_n,
        loss_fraction: loss_fraction(total, best_n),
        mean_delay_ms: if best_d == NOT_ARRIVED { offset_ms } else { offset_ms + best_d as f64 / NS_PER_MS },
        playout,
    }
}

#[cfg(test)]
mod tests {
    use super::super::testutil::*;
    use super::super::{optimal_playout, score, FixedDelay};
    use super::*;

    #[test]
    fn best_fixed_delay_is_exact_and_below_the_optimum() {
        for case in 0..300u64 {
            let seed = 0x7A0_0000 + case;
            let o = random_trace(seed, 8, 30);
            let t = o.trace();
            let b = fixed_delay_bound(&t, 20.0, 94.2, id_cole, il_g711);
            let s = score(&t, &b.playout, 20.0, 94.2, id_cole, il_g711);
            assert!(close(s.r, b.r), "seed {seed:#x}: schedule {} claimed {}", s.r, b.r);
            assert_eq!(s.played, b.played);
            // Grid search over every 0.5 ms (the test delays' resolution) up to 400 ms.
            for q in 0..800u64 {
                let p = FixedDelay { delay: q * MS / 2 }.playout(&t);
                let r = score(&t, &p, 20.0, 94.2, id_cole, il_g711).r;
                assert!(r <= b.r + 1e-9, "seed {seed:#x}: d = {} ms scores {r} > {}", q as f64 / 2.0, b.r);
            }
            let opt = optimal_playout(&t, 20.0, 94.2, id_cole, il_g711);
            assert!(b.r <= opt.r + 1e-9, "seed {seed:#x}: fixed {} > optimal {}", b.r, opt.r);
        }
    }

    #[test]
    fn by_hand() {
        // Delays 40, 50, lost, 200 ms of 4 packets, offset 0, Id = 0.024 d + 0.11 (d-177.3)+,
        // Il = 30 ln(1 + 15 e):
        //   d = 40:  e = 3/4 -> R = 94.2 - 0.96 - 30 ln(12.25) = 18.0173...
        //   d = 50:  e = 1/2 -> R = 94.2 - 1.2  - 30 ln(8.5)   = 28.7990...
        //   d = 200: e = 1/4 -> R = 94.2 - 4.8 - 2.497 - 30 ln(4.75) = 40.1576...
        let o = OwnedTrace {
            talkspurt: vec![0, 0, 0, 0],
            t_gen: vec![0, 20 * MS, 40 * MS, 60 * MS],
            t_arr: vec![40 * MS, 70 * MS, NOT_ARRIVED, 260 * MS],
        };
        let b = fixed_delay_bound(&o.trace(), 0.0, 94.2, id_cole, il_g711);
        assert_eq!((b.delay, b.played), (200 * MS, 3));
        let want = 94.2 - 4.8 - 0.11 * 22.7 - 30.0 * 4.75f64.ln();
        assert!(close(b.r, want), "{} vs {want}", b.r);
    }
}
