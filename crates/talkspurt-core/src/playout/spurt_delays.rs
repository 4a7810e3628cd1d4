//! What the offline bounds read of a call (issue 26, target 4): for each
//! talkspurt (a run of equal ids, in trace order) its id and its arrived
//! packets' *distinct* network delays ascending, each with how many
//! packets had it.
//!
//! Both bounds depend on the packets only through these: the
//! Moon–Kurose–Towsley optimum plays, in each talkspurt, every packet
//! whose delay is at most a playout point (`optimal.rs`, realisable
//! points: `j` never splits a group of equal delays), and the best fixed
//! delay counts the packets at or under one delay (`tao_guerin.rs`). The
//! solvers add the same costs in the same order from the counts as from
//! the packets, so the bounds are the same bits.
//!
//! Memory, laid out flat: 8 bytes a talkspurt (id, end of its groups) and
//! 12 bytes a distinct delay within a talkspurt. On a path whose delays
//! take a few values (fixed rates and propagation delays) that is a few
//! groups a talkspurt, and one talkspurt for continuous speech, however
//! long it lasts; the per-packet arrays it replaces took ~48 bytes an
//! arrived packet when the call ended.

/// Distinct delays with counts, per talkspurt. Built one packet at a time
/// (`open`, `add`) in trace order: a call folded as it runs (score::stream)
/// or a trace (`Prepared::new`); or a talkspurt at a time (`push_spurt`)
/// from the delays scoring's pass collects (score::pass).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SpurtDelays {
    ids: Vec<u32>,
    /// End of each talkspurt's groups in `delays` / `counts`.
    ends: Vec<u32>,
    delays: Vec<u64>,
    counts: Vec<u32>,
    /// Delays of the open talkspurt not yet merged into its groups: with
    /// every delay distinct (a jitter model) an insertion per packet would
    /// shift the talkspurt's groups, O(n²) over a continuous call.
    pending: Vec<u64>,
}

/// Pending delays merged once this many wait (or a quarter of the open
/// talkspurt's groups, if more), as quality::counts.
const MIN_PENDING: usize = 1024;

impl SpurtDelays {
    /// Empty, with room for `talkspurts` talkspurts (their groups are
    /// reserved as each is pushed).
    pub fn with_talkspurts(talkspurts: usize) -> Self {
        SpurtDelays { ids: Vec::with_capacity(talkspurts), ends: Vec::with_capacity(talkspurts), ..Self::default() }
    }

    /// Start the next talkspurt (a new run of ids, possibly with no
    /// arrivals).
    pub fn open(&mut self, id: u32) {
        self.merge();
        self.ids.push(id);
        self.ends.push(self.delays.len() as u32);
    }

    /// An arrived packet of the talkspurt opened last, with its network
    /// delay (ns).
    pub fn add(&mut self, delay: u64) {
        let start = self.start(self.ids.len() - 1);
        // The common case: the delay of the last group (a fixed path).
        if self.pending.is_empty() && self.delays.len() > start && self.delays.last() == Some(&delay) {
            *self.counts.last_mut().expect("a group") += 1;
            return;
        }
        self.pending.push(delay);
        if self.pending.len() >= MIN_PENDING.max((self.delays.len() - start) / 4) {
            self.merge();
        }
    }

    /// A whole talkspurt: its id and its arrived packets' delays (any
    /// order; sorted here).
    pub fn push_spurt(&mut self, id: u32, delays: &mut [u64]) {
        self.open(id);
        // One delay throughout (a steady path, score::steady): found with
        // an OR of differences, which vectorises, in place of the order
        // test and the scan below (~9 instructions a packet, callgrind).
        if let Some(&d) = delays.first() {
            if delays.iter().fold(0, |a, &x| a | (x ^ d)) == 0 {
                self.delays.push(d);
                self.counts.push(delays.len() as u32);
                *self.ends.last_mut().expect("opened") = self.delays.len() as u32;
                return;
            }
        }
        if !delays.is_sorted() {
            delays.sort_unstable();
        }
        // Its groups counted and reserved (issue 26: pushed one at a time
        // they were regrown ~13 times a call on the mixed preset).
        if !delays.is_empty() {
            let groups = 1 + delays.windows(2).filter(|w| w[0] != w[1]).count();
            self.delays.reserve(groups);
            self.counts.reserve(groups);
        }
        // A run of equal delays at a time (one group; the same counts as
        // one packet at a time: issue 26, ~15 instructions a packet).
        let start = self.start(self.ids.len() - 1);
        let mut rest = &delays[..];
        while let Some(&d) = rest.first() {
            let run = rest.iter().position(|&x| x != d).unwrap_or(rest.len());
            rest = &rest[run..];
            if self.delays.len() > start && self.delays.last() == Some(&d) {
                *self.counts.last_mut().expect("a group") += run as u32;
            } else {
                self.delays.push(d);
                self.counts.push(run as u32);
            }
        }
        *self.ends.last_mut().expect("opened") = self.delays.len() as u32;
    }

    /// Merge the open talkspurt's pending delays into its groups. Reading
    /// (`groups`, `arrived`) needs it done: the solvers take the whole
    /// after `finish`.
    pub fn finish(&mut self) {
        self.merge();
    }

    fn merge(&mut self) {
        if self.pending.is_empty() {
            return;
        }
        let start = self.start(self.ids.len() - 1);
        self.pending.sort_unstable();
        let (old_d, old_c) = (self.delays.split_off(start), self.counts.split_off(start));
        let (mut i, mut j) = (0, 0);
        let pend = std::mem::take(&mut self.pending);
        while i < old_d.len() || j < pend.len() {
            let (d, c) = if j == pend.len() || (i < old_d.len() && old_d[i] <= pend[j]) {
                i += 1;
                (old_d[i - 1], old_c[i - 1])
            } else {
                j += 1;
                (pend[j - 1], 1)
            };
            if self.delays.len() > start && self.delays.last() == Some(&d) {
                *self.counts.last_mut().expect("a group") += c;
            } else {
                self.delays.push(d);
                self.counts.push(c);
            }
        }
        self.pending = pend;
        self.pending.clear();
        *self.ends.last_mut().expect("a talkspurt opened") = self.delays.len() as u32;
    }

    /// Talkspurts.
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// Talkspurt `k`'s id.
    pub fn id(&self, k: usize) -> u32 {
        self.ids[k]
    }

    fn start(&self, k: usize) -> usize {
        if k == 0 { 0 } else { self.ends[k - 1] as usize }
    }

    /// Talkspurt `k`'s distinct delays ascending and their counts.
    pub fn groups(&self, k: usize) -> (&[u64], &[u32]) {
        debug_assert!(self.pending.is_empty() || k + 1 < self.ids.len(), "SpurtDelays::finish first");
        let (s, e) = (self.start(k), self.ends[k] as usize);
        (&self.delays[s..e], &self.counts[s..e])
    }

    /// Talkspurt `k`'s arrived packets.
    pub fn arrived(&self, k: usize) -> usize {
        self.groups(k).1.iter().map(|&c| c as usize).sum()
    }

    /// (talkspurts, groups and pending delays) held: 8 and 12 (8) bytes each.
    pub fn retained(&self) -> (usize, usize) {
        (self.ids.len(), self.delays.len() + self.pending.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Groups follow the packets: ascending, counted, per talkspurt, with
    /// talkspurts without arrivals kept (in order, empty).
    #[test]
    fn groups_count_each_talkspurts_distinct_delays() {
        let mut s = SpurtDelays::default();
        s.open(3);
        for d in [40, 42, 40, 41, 42, 42] {
            s.add(d);
        }
        s.open(4);
        s.open(7);
        s.add(5);
        s.finish();
        assert_eq!(s.len(), 3);
        assert_eq!(s.groups(0), (&[40u64, 41, 42][..], &[2u32, 1, 3][..]));
        assert_eq!(s.groups(1), (&[][..], &[][..]));
        assert_eq!(s.groups(2), (&[5u64][..], &[1u32][..]));
        assert_eq!((s.id(0), s.id(1), s.id(2)), (3, 4, 7));
        assert_eq!((s.arrived(0), s.arrived(1), s.arrived(2)), (6, 0, 1));
        assert_eq!(s.retained(), (3, 4));
    }

    /// A long talkspurt on a path of three delays holds three groups:
    /// memory follows the distinct delays, not the packets.
    #[test]
    fn a_long_talkspurt_holds_its_distinct_delays() {
        let mut s = SpurtDelays::default();
        s.open(0);
        for i in 0..1_000_000u64 {
            s.add(41_600_000 + 1_600_000 * (i * 7 % 3));
        }
        s.finish();
        assert_eq!(s.retained(), (1, 3));
        assert_eq!(s.arrived(0), 1_000_000);
    }

    /// Every delay distinct (a jitter model), added in a random order, and
    /// the same delays pushed as whole talkspurts: the same groups.
    #[test]
    fn merged_pending_delays_equal_the_sorted_talkspurt() {
        let mut x = 0x2026u64;
        let mut next = || {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            x >> 20
        };
        let (mut a, mut b) = (SpurtDelays::default(), SpurtDelays::default());
        for id in 0..5u32 {
            let n = [0usize, 1, 10, 5000, 3][id as usize];
            let mut ds: Vec<u64> = (0..n).map(|_| 30_000_000 + next() % if id == 3 { 1 << 30 } else { 4 }).collect();
            a.open(id);
            for &d in &ds {
                a.add(d);
            }
            b.push_spurt(id, &mut ds);
        }
        a.finish();
        assert_eq!(a, b);
        assert_eq!(a.arrived(3), 5000);
    }
}
