//! The radix heap (Ahuja, Mehlhorn, Orlin & Tarjan 1990) behind the event
//! queue, for events that do not come in sorted runs (timers, reordering
//! links, on/off sources).
//!
//! A discrete-event simulator only ever schedules at or after the current
//! time, so the key `(time << 64) | seq` never decreases below the last key
//! popped. That makes a radix heap exact here: bucket `b` holds keys whose
//! highest bit differing from the last popped key is bit `b − 1`; push is
//! O(1), and pop only redistributes the lowest non-empty bucket. Events
//! wait in a slab; buckets hold 32-byte keys.

const BUCKETS: usize = 129;

pub(super) struct Radix<E> {
    buckets: Vec<Vec<(u128, u32)>>,
    /// Bit `b − 1` set when bucket `b ≥ 1` is non-empty.
    nonempty: u128,
    last: u128,
    slab: Vec<Option<E>>,
    free: Vec<u32>,
    /// The minimum key (`u128::MAX` when empty), or `None` after a pop
    /// until asked for again. The queue compares it with the lanes' minimum
    /// on every pop; cached, the lowest bucket is scanned once per radix
    /// pop instead of once per pop of any event.
    min: Option<u128>,
}

impl<E> Radix<E> {
    pub(super) fn new() -> Self {
        Radix {
            buckets: (0..BUCKETS).map(|_| Vec::new()).collect(),
            nonempty: 0,
            last: 0,
            slab: Vec::new(),
            free: Vec::new(),
            min: Some(u128::MAX),
        }
    }

    #[inline]
    fn put(&mut self, k: u128, slot: u32) {
        let b = (128 - (k ^ self.last).leading_zeros()) as usize;
        self.buckets[b].push((k, slot));
        if b > 0 {
            self.nonempty |= 1u128 << (b - 1);
        }
    }

    /// Add `event` under key `k`, which must not be below the last key
    /// popped (the caller's clock guarantees it).
    pub(super) fn push(&mut self, k: u128, event: E) {
        debug_assert!(k >= self.last, "radix heap key below the last popped");
        let slot = match self.free.pop() {
            Some(s) => {
                self.slab[s as usize] = Some(event);
                s
            }
            None => {
                self.slab.push(Some(event));
                (self.slab.len() - 1) as u32
            }
        };
        self.put(k, slot);
        if let Some(m) = &mut self.min {
            *m = (*m).min(k);
        }
    }

    /// The smallest key, `u128::MAX` when empty. It does not move `last`:
    /// lane events below it may still be popped, and schedule keys below
    /// it.
    #[inline]
    pub(super) fn min(&mut self) -> u128 {
        if let Some(m) = self.min {
            return m;
        }
        let m = match self.buckets[0].first() {
            Some(&(k, _)) => k,
            None if self.nonempty == 0 => u128::MAX,
            None => {
                let b = self.nonempty.trailing_zeros() as usize + 1;
                self.buckets[b].iter().map(|x| x.0).min().expect("non-empty bucket")
            }
        };
        self.min = Some(m);
        m
    }

    /// Events waiting.
    pub(super) fn len(&self) -> usize {
        self.slab.len() - self.free.len()
    }

    /// Make bucket 0 hold the minimum key (keys are unique, so exactly one).
    fn settle(&mut self) {
        if !self.buckets[0].is_empty() {
            return;
        }
        let b = self.nonempty.trailing_zeros() as usize + 1;
        self.nonempty &= !(1u128 << (b - 1));
        let items = std::mem::take(&mut self.buckets[b]);
        self.last = items.iter().map(|x| x.0).min().expect("non-empty bucket");
        for &(k, slot) in &items {
            self.put(k, slot);
        }
        // Keep the bucket's allocation for reuse.
        let mut items = items;
        items.clear();
        if self.buckets[b].is_empty() {
            self.buckets[b] = items;
        }
    }

    /// Remove and return the event with the smallest key (the heap must
    /// not be empty: `min() < u128::MAX`).
    pub(super) fn pop(&mut self) -> E {
        self.settle();
        let (_, slot) = self.buckets[0][0];
        self.buckets[0].clear();
        self.min = None;
        self.free.push(slot);
        self.slab[slot as usize].take().expect("scheduled event present")
    }
}
