//! Moon, Kurose & Towsley, "Packet audio playout delay adjustment:
//! performance bounds and algorithms", Multimedia Systems 6:17–28 (1998),
//! §3 — the per-talkspurt optimal playout, scored with the E-model as in
//! seed 000 §4.3 (Balan): `R(i) = R0 - I_d(0,i) - I_l(i)`, best `i`.
//!
//! # The recurrence and how it is computed
//!
//! For talkspurt `k` with `m_k` arrived packets whose network delays sorted
//! ascending are `d_k^(1) <= ... <= d_k^(m_k)`, playing `j` packets costs at
//! least `c_k(j) = j · g(d_k^(j))`: the `j` fastest packets, all played at the
//! playout point `d_k^(j)`, for any non-decreasing per-packet cost `g`
//! (`g(d) = d` gives MKT's `D`, `g(d) = Id(offset + d)` gives `I_d`). MKT's
//!
//! ```text
//! D(k,i) = min_j [ (i-j) D(k+1,i-j) + j d_k^(j) ] / i
//! ```
//!
//! is, on the *sums* `F_k(i) = i·D(k,i)`, a min-plus convolution
//! `F_k = c_k ⊕ F_{k+1}`. We run it forward over talkspurts indexed by the
//! number of *discarded* packets `L = arrived - i`, which is what pruning
//! bounds:
//!
//! * For any `i`, `F(i) >= P(i)`, the sum of the `i` smallest per-packet
//!   costs `g(n_p)` over the whole call (each played packet waits at least
//!   its own delay), so `R(i) <= score(i, P(i))`. Any feasible schedule gives
//!   a lower bound `R*` on the optimum; every `i` with `score(i, P(i)) < R*`
//!   cannot win. We take `R*` from a sweep of a common delay cap over all
//!   talkspurts (each talkspurt plays at its largest delay under the cap;
//!   `O(N log N)`), then only `L <= L_max` (the largest unpruned discard
//!   count) is ever needed, and the DP costs `O(L_max · N)` instead of `O(N²)`.
//! * The convolution inner loop runs over contiguous slices and vectorises.
//! * For the bound (not the curves) a talkspurt's options are the
//!   *realisable* ones: a playout point `d` plays every packet with delay
//!   `<= d`, so `j` must not split a group of equal delays.
//!
//! Everything is exact; pruning uses a relative slack of 1e-9 so rounding
//! cannot discard a tie.
//!
//! # What is optimised
//!
//! [`optimal_playout`]: the thesis' reduced E-model with the delay impairment
//! averaged over played packets, `R = R0 - mean_p Id(offset + d_p) - Il(e)`.
//! [`optimal_playout_generic`]: `R = r(offset + mean_p d_p, e)` for a
//! caller's `r`, e.g. the full G.107 E-model, whose delay terms are not
//! additive over packets (Idd and Idte are non-linear in delay; G.107 takes
//! one mouth-to-ear delay per call), so the only per-call delay that fits it
//! is the *mean* delay. For fixed `i`, `r` non-increasing in delay is
//! maximised by the minimum mean delay `D(0,i)`, so `max_i r(offset +
//! D(0,i), e(i))` is the exact optimum of that objective.
//!
//! Assumptions: `id` and `r`'s delay argument are monotone (non-decreasing
//! impairment, non-increasing `r`), `il` non-decreasing and `r`
//! non-increasing in the loss fraction (Ie,eff grows with Ppl, G.107 §7.5,
//! as the Cole–Rosenbluth Ie does), both return finite values, and talkspurts do
//! not collide at playout (as in MKT). `e` counts every generated packet not
//! played: network losses, sender drops and playout discards.

use super::{loss_fraction, CallTrace, NOT_ARRIVED, NS_PER_MS};

/// The playout point chosen for one talkspurt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TalkspurtChoice {
    /// Talkspurt id from the trace.
    pub talkspurt: u32,
    /// Network delay of the playout point, ns (`offset_k`; playout =
    /// `t_gen + delay`), or [`NOT_ARRIVED`] if nothing of it is played.
    pub delay: u64,
    /// Packets of the talkspurt played.
    pub played: usize,
    /// Packets of the talkspurt that arrived.
    pub arrived: usize,
}

/// The per-talkspurt optimal playout and its score.
#[derive(Debug, Clone, PartialEq)]
pub struct OptimalPlayout {
    /// Best R over the number of played packets.
    pub r: f64,
    /// Packets played at the optimum (the argmax `i`).
    pub played: usize,
    /// Fraction of generated packets not played (network, sender and playout losses).
    pub loss_fraction: f64,
    /// Mean mouth-to-ear delay of the played packets, ms (`offset_ms` included).
    pub mean_delay_ms: f64,
    /// `I_d(0, i)`: mean delay impairment of the played packets
    /// ([`optimal_playout`]); 0 for [`optimal_playout_generic`].
    pub mean_id: f64,
    /// One entry per talkspurt, in trace order.
    pub talkspurts: Vec<TalkspurtChoice>,
    /// Playout time per packet, [`NOT_ARRIVED`] where lost or discarded.
    pub playout: Vec<u64>,
}

/// What the DP minimises and how a (played, cost sum) pair is scored.
trait Objective {
    fn packet_cost(&self, delay_ns: u64) -> f64;
    /// R for `played` packets whose costs sum to `sum`; non-increasing in `sum`.
    fn score(&self, played: usize, sum: f64) -> f64;
}

struct Reduced<Fd, Fl> {
    total: usize,
    offset_ms: f64,
    r0: f64,
    id: Fd,
    il: Fl,
}

impl<Fd: Fn(f64) -> f64, Fl: Fn(f64) -> f64> Objective for Reduced<Fd, Fl> {
    fn packet_cost(&self, delay_ns: u64) -> f64 {
        (self.id)(self.offset_ms + delay_ns as f64 / NS_PER_MS)
    }
    fn score(&self, played: usize, sum: f64) -> f64 {
        let mean_id = if played == 0 { 0.0 } else { sum / played as f64 };
        self.r0 - mean_id - (self.il)(loss_fraction(self.total, played))
    }
}

struct Generic<Fr> {
    total: usize,
    offset_ms: f64,
    r: Fr,
}

impl<Fr: Fn(f64, f64) -> f64> Objective for Generic<Fr> {
    fn packet_cost(&self, delay_ns: u64) -> f64 {
        delay_ns as f64 / NS_PER_MS
    }
    fn score(&self, played: usize, sum: f64) -> f64 {
        let mean = if played == 0 { 0.0 } else { sum / played as f64 };
        (self.r)(self.offset_ms + mean, loss_fraction(self.total, played))
    }
}

/// One talkspurt's arrived packets, delays sorted ascending.
struct Spurt {
    id: u32,
    start: usize,
    end: usize,
    delays: Vec<u64>,
}

/// One call's arrived packets arranged for the offline bounds, built once
/// and shared by all of them (issue 14: each bound used to rebuild and
/// re-sort the same data): per talkspurt its delays sorted, and every
/// arrived packet's `(delay, talkspurt index)` sorted.
pub struct Prepared<'t, 'a> {
    /// None when built from the talkspurts' delays alone
    /// ([`Prepared::from_spurts`]): no per-packet playout column then.
    trace: Option<&'t CallTrace<'a>>,
    /// Packets generated (the loss fraction's denominator).
    total: usize,
    sps: Vec<Spurt>,
    by_delay: Vec<(u64, usize)>,
}

impl<'t, 'a> Prepared<'t, 'a> {
    /// The trace must satisfy [`CallTrace::validate`].
    pub fn new(trace: &'t CallTrace<'a>) -> Self {
        Self::of(spurts(trace), trace.len(), Some(trace))
    }

    /// From each talkspurt's id and its arrived packets' delays ascending,
    /// in trace order (talkspurts without arrivals included), and the
    /// packets generated: what `new` derives from a trace, for a call
    /// folded as it ran (score::stream, issue 26). The bounds are the same
    /// bits; the per-packet playout columns cannot be built.
    pub fn from_spurts(spurts: Vec<(u32, Vec<u64>)>, total: usize) -> Prepared<'static, 'static> {
        let sps = spurts.into_iter().map(|(id, delays)| {
            debug_assert!(delays.is_sorted());
            Spurt { id, start: 0, end: 0, delays }
        });
        Prepared::of(sps.collect(), total, None)
    }

    fn of(sps: Vec<Spurt>, total: usize, trace: Option<&'t CallTrace<'a>>) -> Self {
        let mut by_delay: Vec<(u64, usize)> = Vec::with_capacity(sps.iter().map(|s| s.delays.len()).sum());
        for (k, sp) in sps.iter().enumerate() {
            by_delay.extend(sp.delays.iter().map(|&d| (d, k)));
        }
        // Sorted runs, one per talkspurt, with the talkspurt index rising:
        // the whole is sorted iff each non-empty talkspurt's largest delay
        // is at most the next one's smallest, checked per talkspurt, not
        // per packet. Otherwise the merging sort uses the runs; equal pairs
        // are identical, so the order is the unstable sort's.
        let mut ends = sps.iter().filter_map(|sp| Some((*sp.delays.first()?, *sp.delays.last()?)));
        let in_order = match ends.next() {
            None => true,
            Some((_, mut hi)) => ends.all(|(lo, h)| {
                let ok = hi <= lo;
                hi = h;
                ok
            }),
        };
        debug_assert_eq!(in_order, by_delay.is_sorted());
        if !in_order {
            by_delay.sort();
        }
        Prepared { trace, total, sps, by_delay }
    }

    /// The trace it was built from (`new`).
    pub fn trace(&self) -> &'t CallTrace<'a> {
        self.trace.expect("a Prepared built from a trace")
    }

    /// The trace if built from one.
    pub fn trace_opt(&self) -> Option<&'t CallTrace<'a>> {
        self.trace
    }

    /// Packets generated.
    pub fn total(&self) -> usize {
        self.total
    }

    /// Every arrived packet's `(network delay ns, talkspurt index)`, ascending.
    pub fn by_delay(&self) -> &[(u64, usize)] {
        &self.by_delay
    }
}

fn spurts(trace: &CallTrace<'_>) -> Vec<Spurt> {
    trace
        .runs()
        .into_iter()
        .map(|r| {
            // Sized once (a filtered collect grows by doubling); usually in
            // order already, then only checked (issue 14).
            let mut delays: Vec<u64> = Vec::with_capacity(r.end - r.start);
            let (arr, gen) = (&trace.t_arr[r.start..r.end], &trace.t_gen[r.start..r.end]);
            delays.extend(arr.iter().zip(gen).filter(|(&a, _)| a != NOT_ARRIVED).map(|(&a, &g)| a - g));
            if !delays.is_sorted() {
                delays.sort_unstable();
            }
            Spurt { id: r.id, start: r.start, end: r.end, delays }
        })
        .collect()
}

/// `(discards ℓ, cost of playing m-ℓ)`, ℓ ascending. `realisable`: only
/// counts that do not split a group of equal delays (and 0).
fn options(sp: &Spurt, obj: &impl Objective, realisable: bool) -> Vec<(usize, f64)> {
    let m = sp.delays.len();
    let mut out = Vec::with_capacity(m + 1);
    let mut last = None::<(u64, f64)>;
    let mut j = m;
    while j > 0 {
        let d = sp.delays[j - 1];
        // Equal delays share one evaluation of the cost (issue 14).
        let c = match last {
            Some((ld, lc)) if ld == d => lc,
            _ => obj.packet_cost(d),
        };
        last = Some((d, c));
        out.push((m - j, j as f64 * c));
        // Realisable: the next count down is the end of the next smaller
        // delay's group (the delays are sorted), found by one scan.
        j = if realisable { sp.delays[..j - 1].iter().rposition(|&x| x != d).map_or(0, |p| p + 1) } else { j - 1 };
    }
    out.push((m, 0.0));
    out
}

/// Forward min-plus DP over talkspurts, indexed by discards `0..=l_max`.
/// `stage(k)` is the minimum cost sum over talkspurts `0..=k` (of those with
/// arrivals) for each discard count; all stages are kept for backtracking.
struct Dp {
    data: Vec<f64>,
    bounds: Vec<(usize, usize)>,
}

impl Dp {
    fn run(opts: &[Vec<(usize, f64)>], l_max: usize) -> Dp {
        let mut data = Vec::new();
        let mut bounds = Vec::with_capacity(opts.len());
        data.push(0.0);
        let (mut prev_start, mut prev_len) = (0usize, 1usize);
        for o in opts {
            let m = o.last().map_or(0, |&(l, _)| l);
            let len = (prev_len + m).min(l_max + 1);
            let start = data.len();
            data.resize(start + len, f64::INFINITY);
            let (head, new) = data.split_at_mut(start);
            let old = &head[prev_start..prev_start + prev_len];
            for &(l, c) in o {
                if l >= len {
                    break;
                }
                let lim = len.min(prev_len + l);
                let dst = &mut new[l..lim];
                let src = &old[..lim - l];
                for (d, &s) in dst.iter_mut().zip(src) {
                    let cand = s + c;
                    *d = if cand < *d { cand } else { *d };
                }
            }
            bounds.push((start, len));
            prev_start = start;
            prev_len = len;
        }
        Dp { data, bounds }
    }

    fn last(&self) -> &[f64] {
        match self.bounds.last() {
            Some(&(s, n)) => &self.data[s..s + n],
            None => &self.data[..1],
        }
    }

    fn stage(&self, k: usize) -> &[f64] {
        if k == 0 {
            &self.data[..1]
        } else {
            let (s, n) = self.bounds[k - 1];
            &self.data[s..s + n]
        }
    }

    /// Discards per talkspurt reaching `l` discards in total at the last stage.
    fn backtrack(&self, opts: &[Vec<(usize, f64)>], mut l: usize) -> Vec<usize> {
        let mut out = vec![0; opts.len()];
        for k in (0..opts.len()).rev() {
            let target = self.stage(k + 1)[l];
            let prev = self.stage(k);
            let &(lk, _) = opts[k]
                .iter()
                .find(|&&(lk, c)| lk <= l && l - lk < prev.len() && prev[l - lk] + c == target)
                .expect("DP backtrack: no option reproduces the stage value");
            out[k] = lk;
            l -= lk;
        }
        out
    }
}

/// One pass in delay order over every arrived packet (issue 14: the
/// prefix sums and the cap sweep each walked the packets):
///
/// - `prefix[i]`, the sum of the first `i` packets' costs in delay order,
///   with whether those costs are sorted (the cost is assumed monotone) and
///   the first cost;
/// - the common-cap sweep's `(played, cost sum)` at each distinct cap,
///   ascending: each talkspurt plays at its largest delay under the cap.
///
/// Each distinct delay's cost is evaluated once (a pure function).
struct Sweep {
    prefix: Vec<f64>,
    sorted: bool,
    first: f64,
    states: Vec<(usize, f64)>,
}

impl Sweep {
    fn new(sps: &[Spurt], all: &[(u64, usize)], obj: &impl Objective) -> Sweep {
        // Counts kept as f64: whole numbers below 2^53 are exact, the same
        // values `count as f64` gave, without a conversion per packet.
        let mut count = vec![0.0f64; sps.len()];
        let mut contrib = vec![0.0f64; sps.len()];
        let mut prefix = Vec::with_capacity(all.len() + 1);
        prefix.push(0.0);
        let (mut sum, mut psum, mut sorted, mut prev) = (0.0f64, 0.0f64, true, None::<f64>);
        let mut states: Vec<(usize, f64)> = Vec::new();
        let mut rest = all;
        while let Some(&(d, _)) = rest.first() {
            let cost = obj.packet_cost(d);
            sorted &= prev.is_none_or(|c| c.total_cmp(&cost).is_le());
            prev = Some(cost);
            let n = rest.iter().position(|&(x, _)| x != d).unwrap_or(rest.len());
            for &(_, k) in &rest[..n] {
                count[k] += 1.0;
                sum -= contrib[k];
                contrib[k] = count[k] * cost;
                sum += contrib[k];
                psum += cost;
                prefix.push(psum);
            }
            rest = &rest[n..];
            states.push((all.len() - rest.len(), sum));
        }
        let first = all.first().map_or(0.0, |&(d, _)| obj.packet_cost(d));
        Sweep { prefix, sorted, first, states }
    }

}

/// Best R over the common-cap sweep's `states` (`Sweep`): a feasible
/// schedule, hence a lower bound. `c_min`: the smallest delay's cost.
fn cap_best(states: &[(usize, f64)], c_min: f64, obj: &impl Objective) -> f64 {
    // Scored from the largest cap down. A smaller cap plays fewer packets
    // (more loss), each costing at least c_min, so score(played, played ·
    // c_min) bounds it and every smaller cap: once below the best, stop.
    let mut best = obj.score(0, 0.0);
    for &(played, sum) in states.iter().rev() {
        if obj.score(played, played as f64 * c_min) < best - slack(best) {
            break;
        }
        best = best.max(obj.score(played, sum));
    }
    best
}

/// Tolerance for pruning comparisons, so rounding can never discard a tie.
fn slack(r: f64) -> f64 {
    1e-9 * (1.0 + r.abs())
}

fn solve(p: &Prepared<'_, '_>, obj: &impl Objective, offset_ms: f64, prune: bool, with_playout: bool) -> (OptimalPlayout, usize) {
    let sps = &p.sps;
    let arrived = p.by_delay.len();

    // Upper bound per i from the i cheapest packets; lower bound on the optimum.
    // Taken in delay order the costs are already sorted when the cost is
    // monotone (as assumed); only if not are they sorted, which keeps the
    // result exact. The prefix sums and the cap sweep take one pass.
    let Sweep { mut prefix, sorted, first, states } = Sweep::new(sps, &p.by_delay, obj);
    let c_min = if sorted {
        first
    } else {
        let mut costs: Vec<f64> = p.by_delay.iter().map(|&(d, _)| obj.packet_cost(d)).collect();
        costs.sort_unstable_by(f64::total_cmp);
        for (i, c) in costs.iter().enumerate() {
            prefix[i + 1] = prefix[i] + c;
        }
        costs.first().copied().unwrap_or(0.0)
    };
    let floor = cap_best(&states, first, obj);
    let slack = slack(floor);
    // l_max = arrived − (smallest i with score(i, P(i)) >= floor). Scanned
    // from i = arrived down: every played packet costs at least c_min, so
    // score(i, i·c_min) bounds score(i, P(i)); it only falls as i falls
    // (more loss), so once it is below the floor no smaller i can pass.
    let mut l_max = if prune { 0 } else { arrived };
    for i in (1..=arrived).rev() {
        if prune && obj.score(i, i as f64 * c_min) < floor - slack {
            break;
        }
        if obj.score(i, prefix[i]) >= floor - slack {
            l_max = l_max.max(arrived - i);
        }
    }

    let active: Vec<usize> = (0..sps.len()).filter(|&k| !sps[k].delays.is_empty()).collect();
    let opts: Vec<Vec<(usize, f64)>> = active.iter().map(|&k| options(&sps[k], obj, true)).collect();
    let dp = Dp::run(&opts, l_max);

    // Best i (ties: more packets played). Playing nothing is the fallback.
    let (mut best_r, mut best_l, mut best_sum) = (obj.score(0, 0.0), None, 0.0);
    for (l, &s) in dp.last().iter().enumerate() {
        // Same bound as for l_max: nothing with more discards can win.
        if arrived - l > 0 && obj.score(arrived - l, (arrived - l) as f64 * c_min) < best_r - slack {
            break;
        }
        if s.is_finite() && arrived - l > 0 {
            let r = obj.score(arrived - l, s);
            if r > best_r || (best_l.is_none() && r >= best_r) {
                (best_r, best_l, best_sum) = (r, Some(l), s);
            }
        }
    }

    let mut talkspurts: Vec<TalkspurtChoice> = sps
        .iter()
        .map(|s| TalkspurtChoice { talkspurt: s.id, delay: NOT_ARRIVED, played: 0, arrived: s.delays.len() })
        .collect();
    let trace = if with_playout { Some(p.trace()) } else { None };
    let mut playout = trace.map_or_else(Vec::new, |t| vec![NOT_ARRIVED; t.len()]);
    let mut played = 0;
    let mut delay_sum_ms = 0.0;
    if let Some(l) = best_l {
        for (a, discards) in dp.backtrack(&opts, l).into_iter().enumerate() {
            let k = active[a];
            let sp = &sps[k];
            let j = sp.delays.len() - discards;
            if j == 0 {
                continue;
            }
            let d = sp.delays[j - 1];
            talkspurts[k].delay = d;
            talkspurts[k].played = j;
            played += j;
            delay_sum_ms += j as f64 * (offset_ms + d as f64 / NS_PER_MS);
            let Some(trace) = trace else { continue };
            for (i, slot) in playout.iter_mut().enumerate().take(sp.end).skip(sp.start) {
                if trace.network_delay(i).is_some_and(|n| n <= d) {
                    *slot = trace.t_gen[i] + d;
                }
            }
        }
    }
    let mean = |x: f64| if played == 0 { 0.0 } else { x / played as f64 };
    let out = OptimalPlayout {
        r: best_r,
        played,
        loss_fraction: loss_fraction(p.total, played),
        mean_delay_ms: if played == 0 { offset_ms } else { mean(delay_sum_ms) },
        mean_id: mean(best_sum),
        talkspurts,
        playout,
    };
    (out, l_max)
}

/// Per-talkspurt optimal playout under the thesis' reduced E-model
/// (seed 000 §4.3): maximises `r0 - I_d(0,i) - il(e(i))` over `i`, where
/// `I_d(0,i)` is the minimum over realisable per-talkspurt playout points of
/// the mean of `id(offset_ms + network delay of the playout point in ms)`
/// over the `i` played packets, and `e(i) = 1 - i / trace.len()`.
///
/// `id` must be non-decreasing; `offset_ms` is the constant part of the
/// mouth-to-ear delay (packetization, look-ahead, ...). Cole & Rosenbluth:
/// `r0 = 94.2`, `id(d) = 0.024 d + 0.11 (d - 177.3) H(d - 177.3)`,
/// `il(e) = λ1 + λ2 ln(1 + λ3 e)`. The trace must satisfy
/// [`CallTrace::validate`].
pub fn optimal_playout(
    trace: &CallTrace<'_>,
    offset_ms: f64,
    r0: f64,
    id: impl Fn(f64) -> f64,
    il: impl Fn(f64) -> f64,
) -> OptimalPlayout {
    optimal_playout_prepared(&Prepared::new(trace), offset_ms, r0, id, il, true)
}

/// [`optimal_playout`] on a trace already [`Prepared`]; without
/// `with_playout` the per-packet `playout` column is left empty.
pub fn optimal_playout_prepared(
    p: &Prepared<'_, '_>,
    offset_ms: f64,
    r0: f64,
    id: impl Fn(f64) -> f64,
    il: impl Fn(f64) -> f64,
    with_playout: bool,
) -> OptimalPlayout {
    let obj = Reduced { total: p.total, offset_ms, r0, id, il };
    solve(p, &obj, offset_ms, true, with_playout).0
}

/// Per-talkspurt optimal playout for a caller's `r(mean mouth-to-ear delay
/// ms, loss fraction)`, e.g. the full G.107 E-model: maximises
/// `r(offset_ms + D(0,i), e(i))` over `i`, with `D(0,i)` MKT's minimum mean
/// network delay (realisable playout points). `r` must be non-increasing in
/// its loss argument and
/// its delay argument.
pub fn optimal_playout_generic(
    trace: &CallTrace<'_>,
    offset_ms: f64,
    r: impl Fn(f64, f64) -> f64,
) -> OptimalPlayout {
    optimal_playout_generic_prepared(&Prepared::new(trace), offset_ms, r, true)
}

/// [`optimal_playout_generic`] on a trace already [`Prepared`]; without
/// `with_playout` the per-packet `playout` column is left empty.
pub fn optimal_playout_generic_prepared(
    p: &Prepared<'_, '_>,
    offset_ms: f64,
    r: impl Fn(f64, f64) -> f64,
    with_playout: bool,
) -> OptimalPlayout {
    let obj = Generic { total: p.total, offset_ms, r };
    solve(p, &obj, offset_ms, true, with_playout).0
}

/// MKT's `D(0,i)` for `i = 0..=arrived`: the minimum mean network delay (ms)
/// of the playout points when exactly `i` packets are played (any `i`
/// packets, as in the paper; `D(0,0) = 0`). Full curve: `O(N²)` worst case
/// (about 0.1–0.5 s for a 30 000-packet call); the bound does not need it.
pub fn min_average_delay_curve(trace: &CallTrace<'_>) -> Vec<f64> {
    let obj = Generic { total: trace.len(), offset_ms: 0.0, r: |_: f64, _: f64| 0.0 };
    curve(trace, &obj)
}

/// `I_d(0,i)` for `i = 0..=arrived`: the minimum mean of
/// `id(offset_ms + playout-point network delay in ms)` over exactly `i`
/// played packets (seed 000 §4.3; `I_d(0,0) = 0`). `id` non-decreasing.
pub fn min_average_impairment_curve(
    trace: &CallTrace<'_>,
    offset_ms: f64,
    id: impl Fn(f64) -> f64,
) -> Vec<f64> {
    let obj = Reduced { total: trace.len(), offset_ms, r0: 0.0, id, il: |_: f64| 0.0 };
    curve(trace, &obj)
}

fn curve(trace: &CallTrace<'_>, obj: &impl Objective) -> Vec<f64> {
    let sps = spurts(trace);
    let opts: Vec<Vec<(usize, f64)>> =
        sps.iter().filter(|s| !s.delays.is_empty()).map(|s| options(s, obj, false)).collect();
    let arrived: usize = sps.iter().map(|s| s.delays.len()).sum();
    let dp = Dp::run(&opts, arrived);
    let last = dp.last();
    (0..=arrived).map(|i| if i == 0 { 0.0 } else { last[arrived - i] / i as f64 }).collect()
}

#[cfg(test)]
#[path = "optimal_tests.rs"]
mod tests;
