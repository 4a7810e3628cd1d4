//! One lane of the event queue (`sched`): a FIFO of `(key, event)` in a
//! ring whose capacity is a power of two, so the index of the front and
//! back is a mask, not a compare-and-subtract, and push and pop are a few
//! instructions inline. `VecDeque` did the same work in ~50 instructions a
//! voice packet of the headline (a push, a pop and two peeks; its
//! `push_back` not inlined), a tenth of the loop (bench/README.md,
//! Profiles, issue 26 target 3). Events are `Copy`: a slot past the live
//! ones holds a stale copy and is never read.

pub(super) struct Lane<E> {
    buf: Box<[(u128, E)]>,
    /// Events popped so far: the front is in slot `taken` modulo the
    /// capacity (kept whole, it also counts the lane's events processed,
    /// `EventQueue::events_processed`). `len` are live from it (wrapping).
    taken: usize,
    len: usize,
    /// Time of the last event pushed (0 before any): whether an event
    /// sorts after the lane's last one is a compare of times, as its key
    /// carries a later sequence number than every key before it. Kept
    /// when the lane runs empty: the clock is then not below it.
    last: u64,
}

impl<E: Copy> Lane<E> {
    pub(super) fn new() -> Self {
        Lane { buf: Box::new([]), taken: 0, len: 0, last: 0 }
    }

    #[inline(always)]
    fn slot(&self, k: usize) -> usize {
        // `buf.len()` is zero or a power of two, and zero only when empty.
        self.taken.wrapping_add(k) & (self.buf.len() - 1)
    }

    #[inline(always)]
    pub(super) fn len(&self) -> usize {
        self.len
    }

    /// Events popped from the lane so far.
    pub(super) fn taken(&self) -> usize {
        self.taken
    }

    #[inline(always)]
    pub(super) fn last_time(&self) -> u64 {
        self.last
    }

    #[inline(always)]
    pub(super) fn front(&self) -> Option<&(u128, E)> {
        self.get(0)
    }

    /// The `k`-th from the front.
    #[inline(always)]
    pub(super) fn get(&self, k: usize) -> Option<&(u128, E)> {
        (k < self.len).then(|| &self.buf[self.slot(k)])
    }

    /// Append `x`, whose time is `time` (not below `last_time`).
    #[inline(always)]
    pub(super) fn push_back(&mut self, time: u64, x: (u128, E)) {
        if self.len == self.buf.len() {
            self.grow(x);
        }
        let i = self.slot(self.len);
        self.buf[i] = x;
        self.len += 1;
        self.last = time;
    }

    #[inline(always)]
    pub(super) fn front_key(&self) -> Option<u128> {
        self.front().map(|x| x.0)
    }

    /// Remove the front and return its event (the lane must not be
    /// empty): after `front_key`, the event is read only if it pops.
    #[inline(always)]
    pub(super) fn take_front(&mut self) -> E {
        debug_assert!(self.len > 0);
        let e = self.buf[self.slot(0)].1;
        self.taken = self.taken.wrapping_add(1);
        self.len -= 1;
        e
    }

    #[inline(always)]
    pub(super) fn pop_front(&mut self) -> Option<(u128, E)> {
        let k = self.front_key()?;
        Some((k, self.take_front()))
    }

    /// Double the ring (at least 8 slots), each live event moved to its
    /// slot in the larger one; `fill` pads the others.
    #[cold]
    #[inline(never)]
    fn grow(&mut self, fill: (u128, E)) {
        let cap = (2 * self.buf.len()).max(8);
        let mut buf = vec![fill; cap].into_boxed_slice();
        for k in 0..self.len {
            buf[self.taken.wrapping_add(k) & (cap - 1)] = self.buf[self.slot(k)];
        }
        self.buf = buf;
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
        let (mut lane, mut reference, mut pops) = (Lane::new(), VecDeque::new(), 0);
        for n in 0..20_000u64 {
            if rng.below(5) < 3 {
                lane.push_back(n, (n as u128, n));
                reference.push_back((n as u128, n));
            } else {
                let x = reference.pop_front();
                pops += x.is_some() as usize;
                assert_eq!(lane.pop_front(), x);
            }
            assert_eq!(lane.front(), reference.front());
            assert_eq!(lane.len(), reference.len());
            assert_eq!(lane.taken(), pops);
            let k = rng.below(12) as usize;
            assert_eq!(lane.get(k), reference.get(k));
        }
    }
}
