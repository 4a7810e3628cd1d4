//! The per-talkspurt optimum of a call whose arrivals all lie in one
//! talkspurt (continuous speech): `optimal.rs`'s DP has one stage then,
//! and its final scan alone is the search.

use super::{loss_fraction, Objective, OptimalPlayout, Prepared, TalkspurtChoice, NOT_ARRIVED, NS_PER_MS};

/// [`solve`] for a call whose arrivals all lie in talkspurt `k`
/// (continuous speech, or one burst). The DP has one stage, whose value at
/// each realisable discard count is that option's cost, so its final scan
/// is the whole search: the options from the fewest discards, each scored
/// as the scan scores it, stopped once an upper bound (every played packet
/// at the cheapest cost) falls below the best so far, which no later
/// option can then reach. The same values in the same order, so the same
/// bits as [`solve_dp`] (tests: `one_talkspurt_is_the_dp_bit_for_bit`),
/// without the sweeps that bound the DP's range (issue 26: on the mixed
/// preset, ~28 000 instructions a call against ~5 000).
pub(super) fn solve_one(p: &Prepared<'_, '_>, obj: &impl Objective, offset_ms: f64, with_playout: bool, k: usize) -> OptimalPlayout {
    let sps = p.spurts();
    let (ds, cs) = sps.groups(k);
    let arrived = p.arrived();
    // Each option's cost as `Options::push_groups` computes it, and the
    // cheapest per-packet cost (the DP's `c_min`: the least cost, sorted
    // or not).
    let mut j = arrived;
    let mut c_min = f64::INFINITY;
    let costs: Vec<(usize, f64)> = ds
        .iter()
        .zip(cs)
        .rev()
        .map(|(&d, &c)| {
            let cost = obj.packet_cost(d);
            c_min = c_min.min(cost);
            let o = (j, j as f64 * cost);
            j -= c as usize;
            o
        })
        .collect();
    let (mut best_r, mut best) = (obj.score(0, 0.0), None::<(usize, f64, usize)>);
    for (g, &(played, sum)) in costs.iter().enumerate() {
        if obj.score(played, played as f64 * c_min) < best_r {
            break;
        }
        let r = obj.score(played, sum);
        if r > best_r || (best.is_none() && r >= best_r) {
            (best_r, best) = (r, Some((played, sum, ds.len() - 1 - g)));
        }
    }
    let mut talkspurts: Vec<TalkspurtChoice> = (0..sps.len())
        .map(|k| TalkspurtChoice { talkspurt: sps.id(k), delay: NOT_ARRIVED, played: 0, arrived: sps.arrived(k) })
        .collect();
    let mut playout = if with_playout { vec![NOT_ARRIVED; p.trace().len()] } else { Vec::new() };
    let (mut played, mut best_sum, mut delay_sum_ms) = (0, 0.0, 0.0);
    if let Some((j, sum, g)) = best {
        let d = ds[g];
        (talkspurts[k].delay, talkspurts[k].played) = (d, j);
        (played, best_sum) = (j, sum);
        delay_sum_ms = j as f64 * (offset_ms + d as f64 / NS_PER_MS);
        if with_playout {
            let trace = p.trace();
            let (start, end) = p.range(k);
            for (i, slot) in playout.iter_mut().enumerate().take(end).skip(start) {
                if trace.network_delay(i).is_some_and(|n| n <= d) {
                    *slot = trace.t_gen[i] + d;
                }
            }
        }
    }
    let mean = |x: f64| if played == 0 { 0.0 } else { x / played as f64 };
    OptimalPlayout {
        r: best_r,
        played,
        loss_fraction: loss_fraction(p.total(), played),
        mean_delay_ms: if played == 0 { offset_ms } else { mean(delay_sum_ms) },
        mean_id: mean(best_sum),
        talkspurts,
        playout,
    }
}

