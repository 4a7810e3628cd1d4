//! One call's arrived packets arranged for the offline bounds, built once
//! and shared by all four (issue 14: each bound used to rebuild and
//! re-sort the same data): per talkspurt its distinct delays with counts
//! ([`SpurtDelays`]), and every `(delay, talkspurt)` pair with its count,
//! ascending. Built from a trace, or from what a call folded as it ran
//! (score::stream, issue 26): the bounds read nothing else, so they are
//! the same bits either way.

use std::cell::OnceCell;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

use super::spurt_delays::SpurtDelays;
use super::{CallTrace, NOT_ARRIVED};

pub struct Prepared<'t, 'a> {
    /// None when built from the talkspurts' delays alone
    /// ([`Prepared::from_spurt_delays`]): no per-packet playout column then.
    trace: Option<&'t CallTrace<'a>>,
    /// Packets generated (the loss fraction's denominator).
    total: usize,
    spurts: SpurtDelays,
    /// Each talkspurt's packets in the trace, `start..end` (empty without
    /// a trace).
    ranges: Vec<(usize, usize)>,
    /// Each non-empty talkspurt's delays all at or above the previous
    /// one's: then `by_delay` is the talkspurts' groups in turn.
    in_order: bool,
    arrived: usize,
    /// The fixed delay's candidates (`candidates`), built by the first
    /// fixed bound and read by the second.
    cands: OnceCell<Vec<(u64, usize)>>,
}

impl<'t, 'a> Prepared<'t, 'a> {
    /// The trace must satisfy [`CallTrace::validate`].
    pub fn new(trace: &'t CallTrace<'a>) -> Self {
        let runs = trace.runs();
        let mut spurts = SpurtDelays::default();
        let mut buf: Vec<u64> = Vec::new();
        for r in &runs {
            buf.clear();
            let (arr, gen) = (&trace.t_arr[r.start..r.end], &trace.t_gen[r.start..r.end]);
            buf.extend(arr.iter().zip(gen).filter(|(&a, _)| a != NOT_ARRIVED).map(|(&a, &g)| a - g));
            spurts.push_spurt(r.id, &mut buf);
        }
        let ranges = runs.iter().map(|r| (r.start, r.end)).collect();
        Self::of(spurts, trace.len(), ranges, Some(trace))
    }

    /// From each talkspurt's distinct delays and counts, in trace order
    /// (talkspurts without arrivals included), and the packets generated:
    /// what `new` derives from a trace, for a call folded as it ran
    /// (score::stream, issue 26). The bounds are the same bits; the
    /// per-packet playout columns cannot be built.
    pub fn from_spurt_delays(mut spurts: SpurtDelays, total: usize) -> Prepared<'static, 'static> {
        spurts.finish();
        Prepared::of(spurts, total, Vec::new(), None)
    }

    fn of(spurts: SpurtDelays, total: usize, ranges: Vec<(usize, usize)>, trace: Option<&'t CallTrace<'a>>) -> Self {
        let arrived = (0..spurts.len()).map(|k| spurts.arrived(k)).sum();
        // Sorted runs, one per talkspurt, with the talkspurt index rising:
        // the whole is sorted iff each non-empty talkspurt's largest delay
        // is at most the next one's smallest, checked per talkspurt.
        // Otherwise `by_delay` merges the talkspurts' groups.
        let mut ends = (0..spurts.len()).filter_map(|k| {
            let ds = spurts.groups(k).0;
            Some((*ds.first()?, *ds.last()?))
        });
        let in_order = match ends.next() {
            None => true,
            Some((_, mut hi)) => ends.all(|(lo, h)| {
                let ok = hi <= lo;
                hi = h;
                ok
            }),
        };
        Prepared { trace, total, spurts, ranges, in_order, arrived, cands: OnceCell::new() }
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

    /// Packets arrived.
    pub fn arrived(&self) -> usize {
        self.arrived
    }

    /// Per talkspurt, its distinct delays and counts.
    pub fn spurts(&self) -> &SpurtDelays {
        &self.spurts
    }

    /// Talkspurt `k`'s packets in the trace (`new` only).
    pub(crate) fn range(&self, k: usize) -> (usize, usize) {
        self.ranges[k]
    }

    /// `(d, packets with delay ≤ d)` at each distinct delay `d`, ascending:
    /// what both fixed-delay bounds sweep (`tao_guerin.rs`), built once
    /// (issue 26: a walk of the groups and a vector each).
    pub fn candidates(&self) -> &[(u64, usize)] {
        self.cands.get_or_init(|| candidates(self.by_delay()))
    }

    /// Every `(network delay ns, talkspurt index, packets)`, ascending by
    /// `(delay, talkspurt)`: the arrived packets in the order the solvers
    /// sweep them, a group of equal pairs at a time. Merged from the
    /// talkspurts' groups as it goes (a heap of one entry per talkspurt),
    /// so nothing per packet or per group is built.
    pub fn by_delay(&self) -> ByDelay<'_> {
        let sp = &self.spurts;
        let heap = if self.in_order {
            BinaryHeap::new()
        } else {
            (0..sp.len()).filter_map(|k| Some(Reverse((*sp.groups(k).0.first()?, k as u32, 0u32)))).collect()
        };
        // Every talkspurt's groups, none pending after `finish`: the
        // exact count, so the solvers reserve their per-delay vectors.
        let left = sp.retained().1;
        ByDelay { sp, in_order: self.in_order, next_k: 0, k: 0, ds: &[], cs: &[], heap, left }
    }
}

/// [`Prepared::by_delay`].
pub struct ByDelay<'p> {
    sp: &'p SpurtDelays,
    in_order: bool,
    /// In order: the talkspurt read next, the one being given and its
    /// groups not yet given (issue 26: reading them through `groups` for
    /// every group was ~75 instructions a group on the mixed preset).
    next_k: usize,
    k: u32,
    ds: &'p [u64],
    cs: &'p [u32],
    /// Otherwise: each talkspurt's next group, `(delay, talkspurt, group)`.
    heap: BinaryHeap<Reverse<(u64, u32, u32)>>,
    /// Groups not yet given (`size_hint`).
    left: usize,
}

impl Iterator for ByDelay<'_> {
    type Item = (u64, u32, u32);

    // The merge kept out of line: its registers made every call save and
    // restore them (issue 26). The in-order way inlined: out of line it
    // was ~22 instructions a group, six sweeps a call (mixed preset).
    #[inline]
    fn next(&mut self) -> Option<(u64, u32, u32)> {
        if self.in_order {
            while self.ds.is_empty() {
                if self.next_k >= self.sp.len() {
                    return None;
                }
                (self.ds, self.cs) = self.sp.groups(self.next_k);
                (self.k, self.next_k) = (self.next_k as u32, self.next_k + 1);
            }
            let (d, c) = (self.ds[0], self.cs[0]);
            (self.ds, self.cs) = (&self.ds[1..], &self.cs[1..]);
            self.left -= 1;
            return Some((d, self.k, c));
        }
        self.next_merged()
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.left, Some(self.left))
    }
}

impl ByDelay<'_> {
    /// `next` when the talkspurts' groups interleave: the heap's least.
    #[inline(never)]
    fn next_merged(&mut self) -> Option<(u64, u32, u32)> {
        let Reverse((d, k, g)) = self.heap.pop()?;
        let (ds, cs) = self.sp.groups(k as usize);
        if let Some(&next) = ds.get(g as usize + 1) {
            self.heap.push(Reverse((next, k, g + 1)));
        }
        self.left -= 1;
        Some((d, k, cs[g as usize]))
    }
}

/// `(d, packets with delay ≤ d)` at each distinct delay, from `(delay, _,
/// packets)` ascending by delay (equal delays may take several entries).
pub(super) fn candidates(delays: impl Iterator<Item = (u64, u32, u32)>) -> Vec<(u64, usize)> {
    // At most one a group (issue 26: pushed one at a time, ~6 regrowths a
    // call on the mixed preset).
    let mut cands: Vec<(u64, usize)> = Vec::with_capacity(delays.size_hint().0);
    let mut n = 0;
    for (d, _, c) in delays {
        n += c as usize;
        match cands.last_mut() {
            Some(last) if last.0 == d => last.1 = n,
            _ => cands.push((d, n)),
        }
    }
    cands
}
