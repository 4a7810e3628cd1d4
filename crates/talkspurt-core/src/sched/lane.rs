//! One lane of the event queue (`sched`): a FIFO of `(key, event)` in a
//! ring whose capacity is a power of two, so the index of the front and
//! back is a mask, not a compare-and-subtract, and push and pop are a few
//! instructions inline. `VecDeque` did the same work in ~50 instructions a
//! voice packet of the headline (a push, a pop and two peeks; its
//! `push_back` not inlined), a tenth of the loop (bench/README.md,
//! Profiles, issue 26 target 3). Events are `Copy`: a slot past the live
//! ones holds a stale copy and is never read.

pub(super) struct Lane<E> {
    buf: Vec<(u128, E)>,
    /// Slot of the front, and how many are live from it (wrapping).
    head: usize,
    len: usize,
}

impl<E: Copy> Lane<E> {
    pub(super) const fn new() -> Self {
        Lane { buf: Vec::new(), head: 0, len: 0 }
    }

    #[inline(always)]
    fn slot(&self, k: usize) -> usize {
        // `buf.len()` is zero or a power of two, and zero only when empty.
        (self.head + k) & (self.buf.len() - 1)
    }

    #[inline(always)]
    pub(super) fn front(&self) -> Option<&(u128, E)> {
        self.get(0)
    }

    #[inline(always)]
    pub(super) fn back(&self) -> Option<&(u128, E)> {
        (self.len > 0).then(|| &self.buf[self.slot(self.len - 1)])
    }

    /// The `k`-th from the front.
    #[inline(always)]
    pub(super) fn get(&self, k: usize) -> Option<&(u128, E)> {
        (k < self.len).then(|| &self.buf[self.slot(k)])
    }

    #[inline(always)]
    pub(super) fn push_back(&mut self, x: (u128, E)) {
        if self.len == self.buf.len() {
            self.grow(x);
        }
        let i = self.slot(self.len);
        self.buf[i] = x;
        self.len += 1;
    }

    #[inline(always)]
    pub(super) fn pop_front(&mut self) -> Option<(u128, E)> {
        if self.len == 0 {
            return None;
        }
        let x = self.buf[self.head];
        self.head = self.slot(1);
        self.len -= 1;
        Some(x)
    }

    /// Double the ring (at least 8 slots), the live events first in order;
    /// `fill` pads the new slots.
    #[cold]
    #[inline(never)]
    fn grow(&mut self, fill: (u128, E)) {
        let cap = (2 * self.buf.len()).max(8);
        let mut buf = Vec::with_capacity(cap);
        buf.extend((0..self.len).map(|k| self.buf[self.slot(k)]));
        buf.resize(cap, fill);
        (self.buf, self.head) = (buf, 0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::VecDeque;

    /// Pushes and pops at random keep the order of a `VecDeque`, across
    /// growth and wrapping.
    #[test]
    fn is_a_fifo() {
        let mut rng = crate::rng::Rng::stream(7, 0, crate::rng::StreamId::new(99, 3));
        let (mut lane, mut reference) = (Lane::new(), VecDeque::new());
        for n in 0..20_000u64 {
            if rng.below(5) < 3 {
                lane.push_back((n as u128, n));
                reference.push_back((n as u128, n));
            } else {
                assert_eq!(lane.pop_front(), reference.pop_front());
            }
            assert_eq!(lane.front(), reference.front());
            assert_eq!(lane.back(), reference.back());
            let k = rng.below(12) as usize;
            assert_eq!(lane.get(k), reference.get(k));
        }
    }
}
