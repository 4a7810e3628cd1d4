//! The event queue: a binary heap ordered by `(time, insertion sequence)`, so
//! events at the same instant run in the order they were scheduled — the
//! property that makes runs deterministic. Events are plain values.

use crate::time::SimTime;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

struct Entry<E> {
    time: SimTime,
    seq: u64,
    event: E,
}

impl<E> PartialEq for Entry<E> {
    fn eq(&self, o: &Self) -> bool {
        self.time == o.time && self.seq == o.seq
    }
}
impl<E> Eq for Entry<E> {}
impl<E> PartialOrd for Entry<E> {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl<E> Ord for Entry<E> {
    // Reversed: BinaryHeap is a max-heap and we pop the earliest.
    fn cmp(&self, o: &Self) -> Ordering {
        o.time.cmp(&self.time).then_with(|| o.seq.cmp(&self.seq))
    }
}

pub struct EventQueue<E> {
    heap: BinaryHeap<Entry<E>>,
    next_seq: u64,
    now: SimTime,
    popped: u64,
}

impl<E> Default for EventQueue<E> {
    fn default() -> Self {
        Self::new()
    }
}

impl<E> EventQueue<E> {
    pub fn new() -> Self {
        EventQueue { heap: BinaryHeap::new(), next_seq: 0, now: SimTime::ZERO, popped: 0 }
    }

    /// The time of the event being processed (the scheduler alone moves it).
    pub fn now(&self) -> SimTime {
        self.now
    }

    /// Schedule `event` at `time`; scheduling in the past is a logic error.
    pub fn schedule(&mut self, time: SimTime, event: E) {
        debug_assert!(time >= self.now, "event scheduled in the past");
        let seq = self.next_seq;
        self.next_seq += 1;
        self.heap.push(Entry { time, seq, event });
    }

    /// Pop the earliest event not after `until`, advancing the clock to it.
    pub fn pop_until(&mut self, until: SimTime) -> Option<(SimTime, E)> {
        if self.heap.peek()?.time > until {
            return None;
        }
        let e = self.heap.pop()?;
        self.now = e.time;
        self.popped += 1;
        Some((e.time, e.event))
    }

    pub fn peek_time(&self) -> Option<SimTime> {
        self.heap.peek().map(|e| e.time)
    }

    /// Events processed so far.
    pub fn events_processed(&self) -> u64 {
        self.popped
    }

    pub fn len(&self) -> usize {
        self.heap.len()
    }

    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_time_events_pop_in_insertion_order() {
        let mut q = EventQueue::new();
        q.schedule(SimTime(10), "b1");
        q.schedule(SimTime(5), "a");
        q.schedule(SimTime(10), "b2");
        q.schedule(SimTime(10), "b3");
        let order: Vec<_> = std::iter::from_fn(|| q.pop_until(SimTime(100)).map(|e| e.1)).collect();
        assert_eq!(order, vec!["a", "b1", "b2", "b3"]);
        assert_eq!(q.events_processed(), 4);
    }

    #[test]
    fn pop_until_stops_at_horizon() {
        let mut q = EventQueue::new();
        q.schedule(SimTime(10), 1);
        q.schedule(SimTime(20), 2);
        assert_eq!(q.pop_until(SimTime(15)), Some((SimTime(10), 1)));
        assert_eq!(q.pop_until(SimTime(15)), None);
        assert_eq!(q.now(), SimTime(10));
    }
}
