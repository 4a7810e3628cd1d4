//! The first key of every non-empty lane, in a binary min-heap. Keys are
//! unique (each carries its insertion sequence), so the heap compares keys
//! alone, and the end of a lane's run (`sched`) only replaces the root's
//! key (the lane's next one) and sifts it down with a hole, one move per level
//! (std's `BinaryHeap` over `Reverse<(key, lane)>` compared whole tuples
//! and always sifted through `PeekMut`).

#[derive(Default)]
pub(super) struct Heads {
    /// (first key, lane), heap-ordered by key.
    h: Vec<(u128, u32)>,
}

impl Heads {
    /// The smallest head key, `u128::MAX` when no lane has events.
    #[inline]
    pub(super) fn min(&self) -> u128 {
        self.h.first().map_or(u128::MAX, |x| x.0)
    }

    /// The lane whose head is the minimum (the heap must not be empty).
    #[inline]
    pub(super) fn top_lane(&self) -> u32 {
        self.h[0].1
    }

    /// The smallest head key but the top one, `u128::MAX` if none: the
    /// top's children hold it.
    #[inline]
    pub(super) fn below_top(&self) -> u128 {
        let k = |i: usize| self.h.get(i).map_or(u128::MAX, |x| x.0);
        k(1).min(k(2))
    }

    /// A lane became non-empty with first key `k`.
    pub(super) fn push(&mut self, k: u128, lane: u32) {
        let mut i = self.h.len();
        self.h.push((k, lane));
        while i > 0 {
            let p = (i - 1) / 2;
            if self.h[p].0 <= k {
                break;
            }
            self.h[i] = self.h[p];
            i = p;
        }
        self.h[i] = (k, lane);
    }

    /// The top lane's next key is `k` (its head was popped).
    #[inline]
    pub(super) fn replace_top(&mut self, k: u128) {
        let lane = self.h[0].1;
        self.sift_down((k, lane));
    }

    /// The top lane ran empty.
    #[inline]
    pub(super) fn pop_top(&mut self) {
        let last = self.h.pop().expect("a lane head");
        if !self.h.is_empty() {
            self.sift_down(last);
        }
    }

    /// Put `x` at the root and restore the heap order below it.
    #[inline]
    fn sift_down(&mut self, x: (u128, u32)) {
        let h = &mut self.h[..];
        let n = h.len();
        let mut i = 0;
        loop {
            let mut c = 2 * i + 1;
            if c >= n {
                break;
            }
            if c + 1 < n && h[c + 1].0 < h[c].0 {
                c += 1;
            }
            if h[c].0 >= x.0 {
                break;
            }
            h[i] = h[c];
            i = c;
        }
        h[i] = x;
    }
}
