//! The per-talkspurt optimum of a call whose arrivals all lie in one
//! talkspurt (continuous speech): `optimal.rs`'s DP has one stage then,
//! and its final scan alone is the search.

use super::{optimum, Objective, OptimalPlayout, Options, Prepared};

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
    let (ds, cs) = p.spurts().groups(k);
    let arrived = p.arrived();
    // Its options as the DP's one stage holds them, `(discards, cost sum)`
    // from the fewest discards, and the cheapest per-packet cost (the DP's
    // `c_min`: the least cost, sorted or not).
    let mut opts = Options::with_capacity(1, ds.len());
    let c_min = opts.push_groups(ds, cs, obj);
    let (mut best_r, mut best) = (obj.score(0, 0.0), None::<(usize, f64, usize)>);
    for (g, &(l, sum)) in opts.get(0).iter().enumerate() {
        let played = arrived - l;
        if played == 0 || obj.score(played, played as f64 * c_min) < best_r {
            break;
        }
        let r = obj.score(played, sum);
        if r > best_r || (best.is_none() && r >= best_r) {
            (best_r, best) = (r, Some((played, sum, ds.len() - 1 - g)));
        }
    }
    let (sum, chosen) = match best {
        Some((j, sum, g)) => (sum, Some((k, ds[g], j))),
        None => (0.0, None),
    };
    optimum(p, offset_ms, with_playout, best_r, sum, chosen.into_iter())
}
