//! Sequence-number space bookkeeping shared by the reliable and the
//! acknowledging transports: a set of received (or SACKed) ranges over
//! 64-bit stream offsets, kept sorted and disjoint. TCP's receiver builds
//! its cumulative ACK and SACK blocks from it (RFC 2018 §4); the sender's
//! SACK scoreboard (RFC 6675 §2) is one; DCCP's Ack Vector is another view
//! of the same set.

/// Disjoint, sorted half-open ranges `[start, end)`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RangeSet {
    r: Vec<(u64, u64)>,
}

impl RangeSet {
    pub fn new() -> Self {
        RangeSet { r: Vec::new() }
    }

    /// Adds `[start, end)`, merging with neighbours. Returns the range as
    /// merged (the block that now contains it).
    pub fn insert(&mut self, start: u64, end: u64) -> (u64, u64) {
        if start >= end {
            return (start, end);
        }
        // First range whose end reaches start (could merge).
        let i = self.r.partition_point(|&(_, e)| e < start);
        let mut j = i;
        let (mut s, mut e) = (start, end);
        while j < self.r.len() && self.r[j].0 <= e {
            s = s.min(self.r[j].0);
            e = e.max(self.r[j].1);
            j += 1;
        }
        self.r.splice(i..j, std::iter::once((s, e)));
        (s, e)
    }

    /// `insert`, calling `new(a, b)` for each part `[a, b)` of
    /// `[start, end)` the set did not cover before, in increasing order:
    /// what a SACK block adds to the scoreboard.
    pub fn insert_new(&mut self, start: u64, end: u64, mut new: impl FnMut(u64, u64)) {
        if start >= end {
            return;
        }
        let mut at = start;
        let i = self.r.partition_point(|&(_, e)| e < start);
        for &(s, e) in &self.r[i..] {
            if s >= end {
                break;
            }
            if s > at {
                new(at, s);
            }
            at = at.max(e);
        }
        if at < end {
            new(at, end);
        }
        self.insert(start, end);
    }

    /// Whether `[start, end)` is wholly covered (one range holds it: ranges
    /// are disjoint and never adjacent).
    pub fn covers(&self, start: u64, end: u64) -> bool {
        let i = self.r.partition_point(|&(_, e)| e <= start);
        i < self.r.len() && self.r[i].0 <= start && end <= self.r[i].1
    }

    /// Whether more than `limit` bytes are covered at or above `x`, walking
    /// down from the highest range and stopping as soon as it knows.
    pub fn covered_above_exceeds(&self, x: u64, limit: u64) -> bool {
        let mut sum = 0u64;
        for &(s, e) in self.r.iter().rev() {
            if e <= x {
                return false;
            }
            sum += e - s.max(x);
            if sum > limit {
                return true;
            }
        }
        false
    }

    /// Drops everything below `point` (acknowledged cumulatively).
    pub fn remove_below(&mut self, point: u64) {
        let i = self.r.partition_point(|&(_, e)| e <= point);
        self.r.drain(..i);
        if let Some(first) = self.r.first_mut() {
            first.0 = first.0.max(point);
        }
    }

    /// The end of the range starting at or covering `point`, if any.
    pub fn contiguous_from(&self, point: u64) -> Option<u64> {
        self.r.iter().find(|&&(s, e)| s <= point && point < e).map(|&(_, e)| e)
    }

    pub fn contains(&self, x: u64) -> bool {
        let i = self.r.partition_point(|&(_, e)| e <= x);
        i < self.r.len() && self.r[i].0 <= x
    }

    /// Bytes covered in `[start, end)`.
    pub fn covered(&self, start: u64, end: u64) -> u64 {
        self.r.iter().map(|&(s, e)| e.min(end).saturating_sub(s.max(start))).sum()
    }

    pub fn ranges(&self) -> &[(u64, u64)] {
        &self.r
    }
    pub fn is_empty(&self) -> bool {
        self.r.is_empty()
    }
    /// Highest offset covered (exclusive), or 0.
    pub fn max_end(&self) -> u64 {
        self.r.last().map_or(0, |r| r.1)
    }
    pub fn clear(&mut self) {
        self.r.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn insert_merge_and_trim() {
        let mut s = RangeSet::new();
        s.insert(10, 20);
        s.insert(30, 40);
        assert_eq!(s.ranges(), &[(10, 20), (30, 40)]);
        assert_eq!(s.insert(20, 30), (10, 40));
        assert_eq!(s.ranges(), &[(10, 40)]);
        s.insert(50, 60);
        s.insert(5, 12);
        assert_eq!(s.ranges(), &[(5, 40), (50, 60)]);
        assert_eq!(s.covered(0, 55), 35 + 5);
        assert!(s.contains(5) && !s.contains(40) && s.contains(59));
        s.remove_below(45);
        assert_eq!(s.ranges(), &[(50, 60)]);
        s.remove_below(55);
        assert_eq!(s.ranges(), &[(55, 60)]);
        assert_eq!(s.contiguous_from(57), Some(60));
        assert_eq!(s.max_end(), 60);
    }

    /// Randomized against a bitmap model.
    #[test]
    fn matches_bitmap() {
        let mut rng = crate::rng::Rng::stream(9, 0, crate::rng::StreamId::new(0, 0));
        for case in 0..200 {
            let mut s = RangeSet::new();
            let mut bits = [false; 128];
            for _ in 0..20 {
                let a = rng.below(120);
                let b = a + 1 + rng.below(8);
                s.insert(a, b);
                for x in a..b {
                    bits[x as usize] = true;
                }
            }
            for x in 0..128u64 {
                assert_eq!(s.contains(x), bits[x as usize], "case {case} x {x} (seed 9)");
            }
            let w = s.ranges();
            assert!(w.windows(2).all(|p| p[0].1 < p[1].0), "disjoint, non-adjacent (case {case})");
        }
    }

    /// `insert_new` reports exactly the bits an insert turns on; `covers`
    /// and `covered_above_exceeds` agree with the bitmap (seed 11).
    #[test]
    fn insert_new_covers_and_above_match_bitmap() {
        let mut rng = crate::rng::Rng::stream(11, 0, crate::rng::StreamId::new(0, 0));
        for case in 0..300 {
            let mut s = RangeSet::new();
            let mut bits = [false; 128];
            for _ in 0..12 {
                let a = rng.below(120);
                let b = a + 1 + rng.below(8);
                let mut turned = [false; 128];
                let mut last = 0;
                s.insert_new(a, b, |x, y| {
                    assert!(x < y && x >= last, "increasing, non-empty parts (case {case})");
                    last = y;
                    for k in x..y {
                        turned[k as usize] = true;
                    }
                });
                for x in 0..128usize {
                    let on = (a as usize..b as usize).contains(&x) && !bits[x];
                    assert_eq!(turned[x], on, "case {case} bit {x} (seed 11)");
                    bits[x] |= on;
                }
            }
            for x in 0..128u64 {
                for y in [x + 1, x + 3, x + 9] {
                    let want = (x..y.min(128)).all(|k| bits[k as usize]) && y <= 128;
                    assert_eq!(s.covers(x, y), want, "case {case} [{x}, {y}) (seed 11)");
                }
                let above = bits[x as usize..].iter().filter(|&&b| b).count() as u64;
                for limit in [0, 1, 4, 10] {
                    assert_eq!(s.covered_above_exceeds(x, limit), above > limit, "case {case} x {x} limit {limit}");
                }
            }
        }
    }
}
