//! Narrow slots for record columns (issue 14): a u64 column as u32 slots
//! (`Wide`) and a u32 column as one- or two-byte slots (`Narrow`). A value
//! that does not fit its slot is stored whole in a side map, so decoding is
//! exact; the side maps stay empty on ordinary calls.

use super::record::NEVER;
use std::collections::BTreeMap;

/// A u64 column (times, or `NEVER`) as u32 slots; values from `ESC` up
/// live in `wide`. Exact for every u64.
#[derive(Clone, Debug, Default)]
pub struct Wide {
    v: Vec<u32>,
    wide: BTreeMap<u32, u64>,
}

impl Wide {
    pub(super) const NONE: u32 = u32::MAX;
    pub(super) const ESC: u32 = u32::MAX - 1;

    pub fn with_capacity(n: usize) -> Self {
        Wide { v: Vec::with_capacity(n), wide: BTreeMap::new() }
    }
    pub fn len(&self) -> usize {
        self.v.len()
    }
    pub fn is_empty(&self) -> bool {
        self.v.is_empty()
    }
    /// The slot code of `x` at index `i` (side entry if it does not fit).
    #[inline]
    fn code(&mut self, i: usize, x: u64) -> u32 {
        if x < Self::ESC as u64 {
            x as u32
        } else {
            self.code_cold(i, x)
        }
    }
    #[cold]
    #[inline(never)]
    fn code_cold(&mut self, i: usize, x: u64) -> u32 {
        if x == NEVER {
            Self::NONE
        } else {
            self.wide.insert(i as u32, x);
            Self::ESC
        }
    }
    /// `played[i] − gens[i]` for each played packet, `NEVER` for the
    /// others: what pushing each would give, in a pass the compiler
    /// vectorises (the escapes, if any, found after it).
    pub fn offsets(played: &[u64], gens: &[u64]) -> Self {
        assert_eq!(played.len(), gens.len(), "a playout time a packet");
        let code = |p: u64, g: u64| if p == NEVER { Self::NONE } else { (p - g).min(Self::ESC as u64) as u32 };
        let v: Vec<u32> = played.iter().zip(gens).map(|(&p, &g)| code(p, g)).collect();
        let mut w = Wide { v, wide: BTreeMap::new() };
        if w.v.contains(&Self::ESC) {
            for i in 0..w.v.len() {
                if w.v[i] == Self::ESC {
                    w.v[i] = w.code(i, played[i] - gens[i]);
                }
            }
        }
        w
    }
    #[inline]
    pub fn push(&mut self, x: u64) {
        let c = self.code(self.v.len(), x);
        self.v.push(c);
    }
    #[inline]
    pub fn set(&mut self, i: usize, x: u64) {
        self.v[i] = self.code(i, x);
    }
    #[inline]
    pub fn is_never(&self, i: usize) -> bool {
        self.v[i] == Self::NONE
    }
    #[inline]
    pub fn get(&self, i: usize) -> u64 {
        let x = self.v[i];
        if x < Self::ESC {
            x as u64
        } else {
            self.get_cold(i, x)
        }
    }
    #[cold]
    #[inline(never)]
    fn get_cold(&self, i: usize, x: u32) -> u64 {
        if x == Self::NONE {
            NEVER
        } else {
            self.wide[&(i as u32)]
        }
    }
    /// Heap bytes held (side map entries counted at 32 bytes each).
    pub fn heap_bytes(&self) -> usize {
        self.v.capacity() * 4 + self.wide.len() * 32
    }
}

/// A narrow slot type: its escape code is its largest value.
pub(super) trait Slot: Copy {
    const ESC: u32;
}

macro_rules! slot {
    ($($t:ty),*) => {$(
        impl Slot for $t {
            const ESC: u32 = <$t>::MAX as u32;
        }
    )*};
}

slot!(u8, u16);

/// A u32 column as runs of equal values: the trace's wire bytes and loss
/// channels, which stay the same over long stretches of a call (every
/// packet of a G.711 call over UDP is 200 bytes and arrives: one run each).
/// A packet costs the loop a compare with the last value instead of a
/// column entry, and the column's memory is a few entries a call rather
/// than two bytes a packet (issue 26 target 7: the trace's cost).
/// Exact for every u32; `set` anywhere, fast at the end (where a sender's
/// `set_wire` and a loss land).
#[derive(Clone, Debug, Default)]
pub(super) struct Runs {
    /// Each run's first index (increasing, the first 0) and value.
    runs: Vec<(u32, u32)>,
    /// Values in the column.
    len: u32,
}

impl Runs {
    #[inline]
    pub(super) fn push(&mut self, x: u32) {
        if self.runs.last().map(|r| r.1) != Some(x) {
            self.runs.push((self.len, x));
        }
        self.len += 1;
    }

    pub(super) fn len(&self) -> usize {
        self.len as usize
    }

    /// `push(x)` `k` times.
    pub(super) fn push_n(&mut self, x: u32, k: usize) {
        if k > 0 {
            self.push(x);
            self.len += k as u32 - 1;
        }
    }

    /// The run holding value `i`.
    fn run_of(&self, i: usize) -> usize {
        assert!(i < self.len as usize, "index {i} of a column of {}", self.len);
        self.runs.partition_point(|r| r.0 as usize <= i) - 1
    }

    /// End (exclusive) of run `k`.
    fn end_of(&self, k: usize) -> u32 {
        self.runs.get(k + 1).map_or(self.len, |r| r.0)
    }

    #[inline]
    pub(super) fn get(&self, i: usize) -> u32 {
        // The last run first: where lookups of the packets in flight go.
        match self.runs.last() {
            Some(&(s, x)) if s as usize <= i && i < self.len as usize => x,
            _ => self.runs[self.run_of(i)].1,
        }
    }

    pub(super) fn set(&mut self, i: usize, x: u32) {
        if self.get(i) == x {
            return;
        }
        let k = self.run_of(i);
        let ((s, old), e, i) = (self.runs[k], self.end_of(k), i as u32);
        // Run k becomes [s, i) old, [i, i + 1) x, [i + 1, e) old, the empty
        // parts left out; then x joins an equal neighbour.
        let parts = [(s, old), (i, x), (i + 1, old)];
        let (lo, hi) = (usize::from(s == i), if i + 1 < e { 3 } else { 2 });
        self.runs.splice(k..k + 1, parts[lo..hi].iter().copied());
        let at = k + 1 - lo; // the run now holding x
        if self.runs.get(at + 1).is_some_and(|r| r.1 == x) {
            self.runs.remove(at + 1);
        }
        if at > 0 && self.runs[at - 1].1 == x {
            self.runs.remove(at);
        }
    }

    pub(super) fn heap_bytes(&self) -> usize {
        self.runs.capacity() * std::mem::size_of::<(u32, u32)>()
    }

    /// Every value, in order.
    pub(super) fn all<U: Copy>(&self, to: impl Fn(u32) -> U) -> Vec<U> {
        let mut out = Vec::with_capacity(self.len as usize);
        for (k, &(_, v)) in self.runs.iter().enumerate() {
            out.resize(self.end_of(k) as usize, to(v));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::Runs;
    use crate::rng::Rng;

    /// Pushes and sets at random (values from a small set, so runs form
    /// and join) keep the column equal to a plain vector, and its runs
    /// minimal.
    #[test]
    fn runs_read_back_as_a_plain_column() {
        for seed in 0..200u64 {
            let mut rng = Rng::stream(seed, 0, crate::rng::StreamId::new(99, 4));
            let (mut r, mut v) = (Runs::default(), Vec::new());
            for _ in 0..300 {
                let x = [0, 200, 201, u32::MAX][rng.below(4) as usize];
                if v.is_empty() || rng.below(3) == 0 {
                    r.push(x);
                    v.push(x);
                } else {
                    // Most sets at the end, as a sender's and a loss's do.
                    let i = if rng.below(2) == 0 { v.len() - 1 } else { rng.below(v.len() as u64) as usize };
                    r.set(i, x);
                    v[i] = x;
                }
                assert_eq!(r.len(), v.len(), "seed {seed}");
            }
            assert_eq!(r.all(|x| x), v, "seed {seed}");
            assert!((0..v.len()).all(|i| r.get(i) == v[i]), "seed {seed}");
            let runs = 1 + v.windows(2).filter(|w| w[0] != w[1]).count();
            assert_eq!(r.runs.len(), runs, "seed {seed}: runs not minimal");
        }
    }

    #[test]
    fn a_uniform_call_is_one_run() {
        let mut r = Runs::default();
        for _ in 0..3000 {
            r.push(200);
        }
        r.set(2999, 200);
        assert_eq!((r.runs.len(), r.len(), r.get(1234)), (1, 3000, 200));
    }
}
