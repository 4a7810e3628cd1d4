//! The event queue, ordered by `(time, insertion sequence)`, so events at
//! the same instant run in the order they were scheduled — the property
//! that makes runs deterministic. Events are plain values.
//!
//! Two stores, one order. A radix heap (`radix.rs`) takes any event at or
//! after the current time. But a radix heap moves a key down one bucket
//! each time the keys below it are exhausted, so an event scheduled far
//! ahead (a packet's arrival 30 ms later, a voice source's next packet
//! 20 ms later) is moved about as many times as there are bits between its
//! delay and the gap between consecutive events — some ten moves, most of
//! the queue's cost (bench/README.md). Many events come in sorted runs: a
//! FIFO channel's arrivals are scheduled in the order they happen, and
//! sources with one period schedule their next packets in the order they
//! fire. `schedule_in` appends such an event to its lane (a FIFO of
//! `(key, event)`, `lane.rs`) when its key is not below the lane's last
//! one; only each lane's first key is kept, in a small binary heap of lane heads
//! (`heads.rs`: one entry per busy lane — channels and call groups, not
//! packets). An event out of its lane's order goes to the radix heap as
//! usual; a pop takes the smaller of the two minima. Every event keeps its
//! `(time, seq)` key, so the pop order is exactly that of the plain heap.

mod heads;
mod lane;
mod radix;

use crate::time::SimTime;
use heads::Heads;
use lane::Lane;
use radix::Radix;

const MAX_LANES: u32 = 1 << 31;

pub struct EventQueue<E> {
    radix: Radix<E>,
    len: usize,
    next_seq: u64,
    now: SimTime,
    popped: u64,
    lanes: Vec<Lane<E>>,
    heads: Heads,
}

impl<E: Copy> Default for EventQueue<E> {
    fn default() -> Self {
        Self::new()
    }
}

#[inline]
fn key(time: SimTime, seq: u64) -> u128 {
    ((time.0 as u128) << 64) | seq as u128
}

#[inline]
fn time_of(k: u128) -> SimTime {
    SimTime((k >> 64) as u64)
}

/// Events are plain values (`Copy`: see `lane.rs`).
impl<E: Copy> EventQueue<E> {
    pub fn new() -> Self {
        EventQueue { radix: Radix::new(), len: 0, next_seq: 0, now: SimTime::ZERO, popped: 0, lanes: Vec::new(), heads: Heads::default() }
    }

    /// The time of the event being processed (the scheduler alone moves it).
    pub fn now(&self) -> SimTime {
        self.now
    }

    /// Schedule `event` at `time`; scheduling before `now` is a logic error
    /// (it would break the radix heap's monotonicity).
    pub fn schedule(&mut self, time: SimTime, event: E) {
        assert!(time >= self.now, "event scheduled in the past");
        self.radix.push(key(time, self.next_seq), event);
        self.next_seq += 1;
        self.len += 1;
    }

    /// Take the next insertion sequence number without scheduling: the
    /// caller schedules the event later, if at all, with `schedule_at_seq`,
    /// and it keeps its place among events at the same instant
    /// (`sim/timer.rs`).
    #[inline]
    pub fn reserve_seq(&mut self) -> u64 {
        let s = self.next_seq;
        self.next_seq += 1;
        s
    }

    /// Schedule `event` at `(time, seq)`, `seq` from `reserve_seq`. The
    /// key must not be below the event being processed.
    #[inline]
    pub fn schedule_at_seq(&mut self, time: SimTime, seq: u64, event: E) {
        assert!(time >= self.now && seq < self.next_seq, "event scheduled in the past or with an unreserved sequence");
        self.radix.push(key(time, seq), event);
        self.len += 1;
    }

    /// Schedule `event` at `time` in `lane` (numbered by the caller from
    /// 0; a lane exists from its first use): appended there when it sorts
    /// after the lane's last event, otherwise scheduled as by `schedule`.
    /// Either way it pops in `(time, insertion)` order. Always inlined:
    /// called once per packet, and as a call its register saves cost as
    /// much as its work (callgrind, bench/README.md).
    #[inline(always)]
    pub fn schedule_in(&mut self, lane: u32, time: SimTime, event: E) {
        assert!(time >= self.now, "event scheduled in the past");
        assert!(lane < MAX_LANES, "lane id too large");
        if lane as usize >= self.lanes.len() {
            self.lanes.resize_with(lane as usize + 1, Lane::new);
        }
        let k = key(time, self.next_seq);
        let l = &mut self.lanes[lane as usize];
        match l.back() {
            Some(&(last, _)) if last > k => return self.schedule(time, event),
            Some(_) => l.push_back((k, event)),
            None => {
                l.push_back((k, event));
                self.heads.push(k, lane);
            }
        }
        self.next_seq += 1;
        self.len += 1;
    }

    /// Pop the earliest event not after `until`, advancing the clock to it.
    #[inline]
    pub fn pop_until(&mut self, until: SimTime) -> Option<(SimTime, E)> {
        let lane_min = self.heads.min();
        let radix_min = self.radix.min();
        let (k, e) = if lane_min < radix_min {
            if time_of(lane_min) > until {
                return None;
            }
            let l = &mut self.lanes[self.heads.top_lane() as usize];
            let (k, e) = l.pop_front().expect("a lane head has events");
            debug_assert_eq!(k, lane_min);
            match l.front() {
                Some(&(next, _)) => self.heads.replace_top(next),
                None => self.heads.pop_top(),
            }
            (k, e)
        } else {
            if radix_min == u128::MAX || time_of(radix_min) > until {
                return None;
            }
            (radix_min, self.radix.pop())
        };
        let time = time_of(k);
        self.len -= 1;
        self.now = time;
        self.popped += 1;
        Some((time, e))
    }

    /// The event `k` places behind the head of `lane` (0: its head), if
    /// any: what is coming, for the caller to prefetch its state.
    #[inline]
    pub fn peek_lane(&self, lane: u32, k: usize) -> Option<&E> {
        self.lanes.get(lane as usize)?.get(k).map(|x| &x.1)
    }

    /// Move the clock to `t` if it is later, without an event: the caller
    /// handled what would have been events up to `t` directly (the world's
    /// cut-through, `sim/path.rs`), and the clock ends where they would
    /// have left it. Only at the end of a run: nothing may be scheduled
    /// before `t` afterwards.
    pub fn advance_to(&mut self, t: SimTime) {
        self.now = self.now.max(t);
    }

    /// Events processed so far.
    pub fn events_processed(&self) -> u64 {
        self.popped
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
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
    fn matches_a_reference_order_on_random_schedules() {
        // Interleave pops and pushes at random future times; the popped
        // sequence must equal a sort by (time, insertion order).
        for seed in 0..20u64 {
            let mut rng = crate::rng::Rng::stream(seed, 0, crate::rng::StreamId::new(99, 1));
            let mut q = EventQueue::new();
            let mut reference: Vec<(u64, u64)> = Vec::new();
            let mut got = Vec::new();
            let mut n = 0u64;
            for _ in 0..5000 {
                if rng.below(3) > 0 || q.is_empty() {
                    let t = q.now().0 + rng.below(50) * rng.below(3);
                    q.schedule(SimTime(t), n);
                    reference.push((t, n));
                    n += 1;
                } else {
                    got.push(q.pop_until(SimTime(u64::MAX)).unwrap().1);
                }
            }
            while let Some((_, e)) = q.pop_until(SimTime(u64::MAX)) {
                got.push(e);
            }
            reference.sort();
            let want: Vec<u64> = reference.iter().map(|x| x.1).collect();
            assert_eq!(got, want, "seed {seed}");
        }
    }

    #[test]
    fn lanes_keep_the_reference_order() {
        // Events go to one of three lanes (or none) with times that are
        // mostly, not always, increasing per lane: the popped sequence must
        // equal a sort by (time, insertion order), as without lanes.
        for seed in 0..20u64 {
            let mut rng = crate::rng::Rng::stream(seed, 0, crate::rng::StreamId::new(99, 2));
            let mut q = EventQueue::new();
            let lanes = [0u32, 5, 2];
            let mut last = [0u64; 3];
            let (mut reference, mut got, mut n) = (Vec::new(), Vec::new(), 0u64);
            for _ in 0..5000 {
                if rng.below(3) > 0 || q.is_empty() {
                    let which = rng.below(4) as usize;
                    let mut t = q.now().0 + rng.below(50) * rng.below(3);
                    if which < 3 {
                        if rng.below(10) > 0 {
                            t = t.max(last[which]); // mostly in order
                        }
                        last[which] = last[which].max(t);
                        q.schedule_in(lanes[which], SimTime(t), n);
                    } else {
                        q.schedule(SimTime(t), n);
                    }
                    reference.push((t, n));
                    n += 1;
                } else {
                    got.push(q.pop_until(SimTime(u64::MAX)).unwrap().1);
                }
            }
            while let Some((_, e)) = q.pop_until(SimTime(u64::MAX)) {
                got.push(e);
            }
            assert!(q.is_empty(), "seed {seed}");
            reference.sort();
            let want: Vec<u64> = reference.iter().map(|x| x.1).collect();
            assert_eq!(got, want, "seed {seed}");
        }
    }

    #[test]
    fn peek_lane_sees_what_pops_next_in_the_lane() {
        let mut q = EventQueue::new();
        for (t, e) in [(10, "a"), (20, "b"), (30, "c")] {
            q.schedule_in(3, SimTime(t), e);
        }
        q.schedule(SimTime(15), "x"); // outside the lane: not seen
        assert_eq!((q.peek_lane(3, 0), q.peek_lane(3, 2), q.peek_lane(3, 3), q.peek_lane(7, 0)), (Some(&"a"), Some(&"c"), None, None));
        assert_eq!(q.pop_until(SimTime(100)), Some((SimTime(10), "a")));
        assert_eq!(q.peek_lane(3, 0), Some(&"b"));
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
