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
//! A call whose arrivals all lie in one talkspurt (continuous speech) skips
//! the sweeps: its DP has one stage, and its final scan is the search
//! (`optimal_one.rs`, the same bits).
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

pub use super::prepared::Prepared;
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

/// `(discards ℓ, cost of playing m-ℓ)` for every talkspurt, ℓ ascending,
/// laid out flat (a day-long call has tens of thousands of talkspurts).
struct Options {
    all: Vec<(usize, f64)>,
    ends: Vec<usize>,
}

impl Options {
    fn new() -> Self {
        Self::with_capacity(0, 0)
    }

    /// Room for `spurts` talkspurts of `groups` groups in all (the bound
    /// knows both: issue 26, regrown push by push they were ~6 reallocations
    /// a solve).
    fn with_capacity(spurts: usize, groups: usize) -> Self {
        Options { all: Vec::with_capacity(groups + spurts), ends: Vec::with_capacity(spurts) }
    }

    fn len(&self) -> usize {
        self.ends.len()
    }

    fn get(&self, k: usize) -> &[(usize, f64)] {
        let s = if k == 0 { 0 } else { self.ends[k - 1] };
        &self.all[s..self.ends[k]]
    }

    /// A talkspurt's realisable options from its distinct delays ascending
    /// and their counts: a playout point at a group's delay plays that
    /// group and every one below it, so `j` never splits a group. Returns
    /// the least per-packet cost among them.
    fn push_groups(&mut self, delays: &[u64], counts: &[u32], obj: &impl Objective) -> f64 {
        let m: usize = counts.iter().map(|&c| c as usize).sum();
        let (mut j, mut least) = (m, f64::INFINITY);
        for (&d, &c) in delays.iter().zip(counts).rev() {
            let cost = obj.packet_cost(d);
            least = least.min(cost);
            self.all.push((m - j, j as f64 * cost));
            j -= c as usize;
        }
        self.all.push((m, 0.0));
        self.ends.push(self.all.len());
        least
    }

    /// Every count `j` (any `j` packets, the curves), from the delays
    /// ascending.
    fn push_any(&mut self, delays: &[u64], obj: &impl Objective) {
        let m = delays.len();
        let mut last = None::<(u64, f64)>;
        for j in (1..=m).rev() {
            let d = delays[j - 1];
            // Equal delays share one evaluation of the cost (issue 14).
            let c = match last {
                Some((ld, lc)) if ld == d => lc,
                _ => obj.packet_cost(d),
            };
            last = Some((d, c));
            self.all.push((m - j, j as f64 * c));
        }
        self.all.push((m, 0.0));
        self.ends.push(self.all.len());
    }
}

/// Forward min-plus DP over talkspurts, indexed by discards `0..=l_max`.
/// Stage `k` is the minimum cost sum over talkspurts `0..k` (of those with
/// arrivals) for each discard count. Stages are all kept when they are
/// few ([`KEEP_ALL_CELLS`]), otherwise one in `every` (checkpoints,
/// `every` ≈ √stages); the backtrack then recomputes the stages
/// of one stretch between checkpoints at a time from its checkpoint, the
/// same bits (issue 26: keeping every stage took 8 bytes × (l_max + 1) a
/// talkspurt, and l_max grows with the call: ~250 MB for a day-long call
/// with jitter, against ~2 · √stages · (l_max + 1) · 8 bytes here, for
/// twice the DP's time).
struct Dp {
    l_max: usize,
    every: usize,
    /// Stage `c · every` for every `c · every < stages`, laid end to end
    /// (one allocation, not one a stage), with each one's end.
    ck_data: Vec<f64>,
    ck_ends: Vec<usize>,
    last: Vec<f64>,
}

/// Stage `k + 1` from stage `k` (`old`) and talkspurt `k`'s options.
/// Cells past the last one an option within `l_max` reaches are not
/// built: they are infinite (unreachable), so the values, the argmax and
/// the backtrack are the same, and a stage of a long talkspurt whose
/// "discard all" is beyond `l_max` is not `l_max + 1` cells of which one
/// is finite (a continuous call is one talkspurt).
fn step(old: &[f64], o: &[(usize, f64)], l_max: usize) -> Vec<f64> {
    let m = o.iter().map(|&(l, _)| l).take_while(|&l| l <= l_max).last().unwrap_or(0);
    let prev_len = old.len();
    let len = (prev_len + m).min(l_max + 1);
    let mut new = vec![f64::INFINITY; len];
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
    new
}

/// Every stage is kept (no recomputation) while stages × (l_max + 1) is
/// at most this many cells (8 MB): short calls, and long ones whose
/// optimum discards little.
const KEEP_ALL_CELLS: usize = 1 << 20;

impl Dp {
    fn run(opts: &Options, l_max: usize) -> Dp {
        Dp::run_keeping(opts, l_max, KEEP_ALL_CELLS)
    }

    /// [`Dp::run`] keeping every stage up to `keep_all_cells` cells.
    fn run_keeping(opts: &Options, l_max: usize, keep_all_cells: usize) -> Dp {
        let n = opts.len();
        let every = if n.saturating_mul(l_max.saturating_add(1)) <= keep_all_cells {
            1
        } else {
            ((n as f64).sqrt().ceil() as usize).max(1)
        };
        let (mut ck_data, mut ck_ends) = (Vec::new(), Vec::with_capacity(n / every + 1));
        let mut stage = vec![0.0];
        for k in 0..n {
            let next = step(&stage, opts.get(k), l_max);
            if k % every == 0 {
                ck_data.extend_from_slice(&stage);
                ck_ends.push(ck_data.len());
            }
            stage = next;
        }
        Dp { l_max, every, ck_data, ck_ends, last: stage }
    }

    /// Checkpoint `c` (stage `c · every`).
    fn checkpoint(&self, c: usize) -> &[f64] {
        let s = if c == 0 { 0 } else { self.ck_ends[c - 1] };
        &self.ck_data[s..self.ck_ends[c]]
    }

    fn last(&self) -> &[f64] {
        &self.last
    }

    /// Discards per talkspurt reaching `l` discards in total at the last
    /// stage: at each talkspurt, from the last back, the fewest discards
    /// whose option reproduces the stage value.
    fn backtrack(&self, opts: &Options, mut l: usize) -> Vec<usize> {
        let n = opts.len();
        let mut out = vec![0; n];
        let pick = |k: usize, prev: &[f64], next: &[f64], l: usize| -> usize {
            let target = next[l];
            let &(lk, _) = opts
                .get(k)
                .iter()
                .find(|&&(lk, c)| lk <= l && l - lk < prev.len() && prev[l - lk] + c == target)
                .expect("DP backtrack: no option reproduces the stage value");
            lk
        };
        if self.every == 1 {
            for k in (0..n).rev() {
                let next = if k + 1 == n { &self.last[..] } else { self.checkpoint(k + 1) };
                out[k] = pick(k, self.checkpoint(k), next, l);
                l -= out[k];
            }
            return out;
        }
        let mut end = n;
        while end > 0 {
            let start = (end - 1) / self.every * self.every;
            let mut stages = Vec::with_capacity(end - start + 1);
            stages.push(self.checkpoint(start / self.every).to_vec());
            for k in start..end {
                let next = step(stages.last().expect("a stage"), opts.get(k), self.l_max);
                stages.push(next);
            }
            for k in (start..end).rev() {
                out[k] = pick(k, &stages[k - start], &stages[k + 1 - start], l);
                l -= out[k];
            }
            end = start;
        }
        out
    }
}

/// One pass in delay order over every arrived packet (issue 14: the
/// prefix sums and the cap sweep each walked the packets):
///
/// - whether the packets' costs in delay order are sorted (the cost is
///   assumed monotone), and the first cost;
/// - the common-cap sweep's `(played, cost sum)` at each distinct cap,
///   ascending: each talkspurt plays at its largest delay under the cap.
///
/// Each distinct delay's cost is evaluated once (a pure function). The
/// sums are taken a packet at a time from the counts, so they are the same
/// bits as over the packets (issue 26), without a value per packet.
struct Sweep {
    sorted: bool,
    first: f64,
    states: Vec<(usize, f64)>,
    /// `(cost, packets)` a group in delay order, for `first_passing`
    /// (issue 26: walking the groups again and evaluating their costs was
    /// ~66 instructions a group).
    costs: Vec<(f64, usize)>,
}

impl Sweep {
    fn new(n_spurts: usize, all: impl Iterator<Item = (u64, u32, u32)>, obj: &impl Objective) -> Sweep {
        // Counts kept as f64: whole numbers below 2^53 are exact, the same
        // values `count as f64` gave, without a conversion per packet.
        let mut count = vec![0.0f64; n_spurts];
        let mut contrib = vec![0.0f64; n_spurts];
        let (mut sum, mut sorted, mut prev) = (0.0f64, true, None::<(u64, f64)>);
        let mut first = None;
        // One state a distinct delay, at most one a group: reserved, not
        // regrown push by push (issue 26).
        let mut states: Vec<(usize, f64)> = Vec::with_capacity(all.size_hint().0);
        let mut costs: Vec<(f64, usize)> = Vec::with_capacity(all.size_hint().0);
        let mut i = 0usize;
        let mut all = all.peekable();
        while let Some((d, k, c)) = all.next() {
            let cost = obj.packet_cost(d);
            sorted &= prev.is_none_or(|(_, p)| p.total_cmp(&cost).is_le());
            prev = Some((d, cost));
            first.get_or_insert(cost);
            let mut group = Some((k, c));
            while let Some((k, c)) = group {
                costs.push((cost, c as usize));
                let k = k as usize;
                // Talkspurt k's share alone in the sum (one talkspurt so
                // far: continuous speech), a finite cost ≥ +0: each step
                // below gives (s − s) + b = +0 + b = b exactly, b = count ·
                // cost ≥ +0, so the sum ends at the last b. Taken at once
                // (issue 26: a packet's dependent adds were ~8 cycles).
                let n = count[k] + c as f64;
                if sum.is_finite() && sum.to_bits() == contrib[k].to_bits() && (cost > 0.0 || cost.to_bits() == 0) && (n * cost).is_finite() {
                    (count[k], contrib[k], sum) = (n, n * cost, n * cost);
                    i += c as usize;
                    group = all.next_if(|&(x, _, _)| x == d).map(|(_, k, c)| (k, c));
                    continue;
                }
                for _ in 0..c {
                    count[k] += 1.0;
                    sum -= contrib[k];
                    contrib[k] = count[k] * cost;
                    sum += contrib[k];
                }
                i += c as usize;
                group = all.next_if(|&(x, _, _)| x == d).map(|(_, k, c)| (k, c));
            }
            states.push((i, sum));
        }
        Sweep { sorted, first: first.unwrap_or(0.0), states, costs }
    }
}

/// The smallest `i >= lo` with `pass(i, prefix[i])`, where `prefix[i]` is
/// the sum of the `i` cheapest packets' costs added one at a time, from
/// the costs ascending as `(cost, packets)`: the per-packet sums' bits,
/// recomputed instead of kept (8 bytes a packet).
fn first_passing(costs: impl Iterator<Item = (f64, usize)>, lo: usize, mut pass: impl FnMut(usize, f64) -> bool) -> Option<usize> {
    let (mut i, mut p) = (0usize, 0.0f64);
    for (cost, n) in costs {
        // The packets that take the prefix below `lo` are only added, in
        // the same order (issue 26: ~9 instructions a packet with the test).
        let quiet = n.min(lo.saturating_sub(i + 1));
        for _ in 0..quiet {
            p += cost;
        }
        i += quiet;
        for _ in quiet..n {
            p += cost;
            i += 1;
            if i >= lo && pass(i, p) {
                return Some(i);
            }
        }
    }
    None
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

/// The optimum (and the DP's discard bound `l_max`, or the arrivals when
/// one talkspurt holds them all: `one.rs`).
fn solve(p: &Prepared<'_, '_>, obj: &impl Objective, offset_ms: f64, prune: bool, with_playout: bool) -> (OptimalPlayout, usize) {
    let sps = p.spurts();
    let mut active = (0..sps.len()).filter(|&k| !sps.groups(k).0.is_empty());
    if let (true, Some(k), None) = (prune, active.next(), active.next()) {
        return (solve_one(p, obj, offset_ms, with_playout, k), p.arrived());
    }
    solve_dp(p, obj, offset_ms, prune, with_playout)
}

/// [`solve`] by the DP over talkspurts (the general case).
fn solve_dp(p: &Prepared<'_, '_>, obj: &impl Objective, offset_ms: f64, prune: bool, with_playout: bool) -> (OptimalPlayout, usize) {
    let sps = p.spurts();
    let arrived = p.arrived();

    // Upper bound per i from the i cheapest packets; lower bound on the optimum.
    // Taken in delay order the costs are already sorted when the cost is
    // monotone (as assumed); only if not are they sorted, which keeps the
    // result exact. The prefix sums and the cap sweep take one pass.
    let Sweep { sorted, first, states, mut costs } = Sweep::new(sps.len(), p.by_delay(), obj);
    // Unsorted costs (a cost not monotone in delay, against the stated
    // assumption) are sorted once for the bound P(i); the pruning itself
    // still assumes monotone costs (an option's cost j·c(d_j) can then be
    // below P(j)) and can miss the optimum without it
    // (`one_talkspurt_is_the_dp_bit_for_bit`).
    if !sorted {
        costs.sort_unstable_by(|a, b| a.0.total_cmp(&b.0));
    }
    let c_min = if sorted { first } else { costs.first().map_or(0.0, |c| c.0) };
    let floor = cap_best(&states, first, obj);
    let slack = slack(floor);
    // l_max = arrived − (smallest i with score(i, P(i)) >= floor). Every
    // played packet costs at least c_min, so score(i, i·c_min) bounds
    // score(i, P(i)); it only falls as i falls (more loss), so below the
    // largest i where it is under the floor no i can pass.
    let mut l_max = if prune { 0 } else { arrived };
    let mut lo = 1;
    if prune {
        if let Some(i) = (1..=arrived).rev().find(|&i| obj.score(i, i as f64 * c_min) < floor - slack) {
            lo = i + 1;
        }
    }
    let pass = |i: usize, s: f64| obj.score(i, s) >= floor - slack;
    let i_min = first_passing(costs.iter().copied(), lo, pass);
    if let Some(i) = i_min {
        l_max = l_max.max(arrived - i);
    }

    let active: Vec<usize> = (0..sps.len()).filter(|&k| !sps.groups(k).0.is_empty()).collect();
    let mut opts = Options::with_capacity(active.len(), sps.retained().1);
    for &k in &active {
        let (ds, cs) = sps.groups(k);
        opts.push_groups(ds, cs, obj);
    }
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

    // Each talkspurt's playout point: the delay of the group ending at the
    // count it plays.
    let chosen = best_l.map(|l| dp.backtrack(&opts, l)).unwrap_or_default().into_iter().enumerate().filter_map(|(a, discards)| {
        let k = active[a];
        let (ds, cs) = sps.groups(k);
        let j = sps.arrived(k) - discards;
        let mut seen = 0;
        let g = cs.iter().position(|&c| {
            seen += c as usize;
            seen == j
        });
        (j > 0).then(|| (k, ds[g.expect("a realisable count ends a group")], j))
    });
    (optimum(p, offset_ms, with_playout, best_r, best_sum, chosen), l_max)
}

/// The optimum of score `r` and cost sum `sum` from each talkspurt's
/// choice, `(talkspurt, playout point's network delay, packets played)`
/// for those that play any (both solvers, `optimal_one.rs`).
fn optimum(p: &Prepared<'_, '_>, offset_ms: f64, with_playout: bool, r: f64, sum: f64, chosen: impl Iterator<Item = (usize, u64, usize)>) -> OptimalPlayout {
    let sps = p.spurts();
    let mut talkspurts: Vec<TalkspurtChoice> = (0..sps.len())
        .map(|k| TalkspurtChoice { talkspurt: sps.id(k), delay: NOT_ARRIVED, played: 0, arrived: sps.arrived(k) })
        .collect();
    let trace = if with_playout { Some(p.trace()) } else { None };
    let mut playout = trace.map_or_else(Vec::new, |t| vec![NOT_ARRIVED; t.len()]);
    let mut played = 0;
    let mut delay_sum_ms = 0.0;
    for (k, d, j) in chosen {
        talkspurts[k].delay = d;
        talkspurts[k].played = j;
        played += j;
        delay_sum_ms += j as f64 * (offset_ms + d as f64 / NS_PER_MS);
        let Some(trace) = trace else { continue };
        let (start, end) = p.range(k);
        for (i, slot) in playout.iter_mut().enumerate().take(end).skip(start) {
            if trace.network_delay(i).is_some_and(|n| n <= d) {
                *slot = trace.t_gen[i] + d;
            }
        }
    }
    let mean = |x: f64| if played == 0 { 0.0 } else { x / played as f64 };
    OptimalPlayout {
        r,
        played,
        loss_fraction: loss_fraction(p.total(), played),
        mean_delay_ms: if played == 0 { offset_ms } else { mean(delay_sum_ms) },
        mean_id: mean(sum),
        talkspurts,
        playout,
    }
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
    let obj = Reduced { total: p.total(), offset_ms, r0, id, il };
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
    let obj = Generic { total: p.total(), offset_ms, r };
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
    let mut opts = Options::new();
    let mut arrived = 0;
    for r in trace.runs() {
        let mut delays: Vec<u64> = (r.start..r.end).filter_map(|i| trace.network_delay(i)).collect();
        if delays.is_empty() {
            continue;
        }
        delays.sort_unstable();
        arrived += delays.len();
        opts.push_any(&delays, obj);
    }
    let dp = Dp::run(&opts, arrived);
    let last = dp.last();
    (0..=arrived).map(|i| if i == 0 { 0.0 } else { last[arrived - i] / i as f64 }).collect()
}

#[path = "optimal_one.rs"]
mod one;
use one::solve_one;

#[cfg(test)]
#[path = "optimal_tests.rs"]
mod tests;
