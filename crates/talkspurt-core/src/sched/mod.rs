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
//!
//! Runs: once a lane's head is popped, the queue keeps popping that lane
//! (`run`) while its head's time is before `rest`, the earliest time of
//! any other event, and leaves its entry in `heads` as it was; a tie
//! ends the run, and `pop_min` orders it by sequence. The running lane is
//! moved to `cur` meanwhile, so its pops and pushes index nothing. A lane of calls
//! with one ptime drains this way for as long as nothing else is due: per
//! packet one compare of times instead of both minima and a sift of the
//! heads (issue 26 target 3). Every event scheduled during a run lowers
//! `rest` if earlier; the run lane's stale entry is below every key
//! scheduled since (their times are not earlier and their sequence numbers
//! are later), so it stays the heads' root until the run ends.

mod heads;
mod lane;
mod radix;

use crate::time::SimTime;
use heads::Heads;
use lane::Lane;
use radix::Radix;

const MAX_LANES: u32 = 1 << 31;
/// `EventQueue::run` when no lane is being drained (not a lane id).
const NO_LANE: u32 = u32::MAX;

pub struct EventQueue<E> {
    radix: Radix<E>,
    next_seq: u64,
    now: SimTime,
    /// Events popped from the radix heap (the lanes count theirs).
    radix_popped: u64,
    lanes: Vec<Lane<E>>,
    heads: Heads,
    /// The lane being drained, whose entry in `heads` is stale, or
    /// `NO_LANE`; while one is, `rest` is the earliest time of every
    /// other lane and the radix heap (`u64::MAX` if none).
    run: u32,
    rest: u64,
    /// The run's lane, moved out of `lanes` (which holds an empty one in
    /// its place) while it runs: a pop or push of the run reaches it
    /// without indexing `lanes` (issue 26 target 3).
    cur: Lane<E>,
    /// What `pop_min` popped, for `pop_until` to return: out of line, it
    /// hands the event over here rather than by return value, which the
    /// loop would otherwise copy through memory on every pop, its run's
    /// too (callgrind, issue 26 target 3).
    held: Option<E>,
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
        EventQueue { radix: Radix::new(), next_seq: 0, now: SimTime::ZERO, radix_popped: 0, lanes: Vec::new(), heads: Heads::default(), run: NO_LANE, rest: u64::MAX, cur: Lane::new(), held: None }
    }

    /// The time of the event being processed (the scheduler alone moves it).
    pub fn now(&self) -> SimTime {
        self.now
    }

    /// Schedule `event` at `time`; scheduling before `now` is a logic error
    /// (it would break the radix heap's monotonicity).
    pub fn schedule(&mut self, time: SimTime, event: E) {
        assert!(time >= self.now, "event scheduled in the past");
        let k = key(time, self.next_seq);
        self.radix.push(k, event);
        self.rest = self.rest.min(time_of(k).0);
        self.next_seq += 1;
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
        let k = key(time, seq);
        self.radix.push(k, event);
        self.rest = self.rest.min(time_of(k).0);
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
        if lane == self.run {
            // Its entry in `heads` stays, also if it ran empty.
            if time.0 < self.cur.last_time() {
                return self.schedule(time, event);
            }
            self.cur.push_back(time.0, (key(time, self.next_seq), event));
            self.next_seq += 1;
            return;
        }
        let Some(l) = self.lanes.get_mut(lane as usize) else {
            return self.schedule_in_new(lane, time, event);
        };
        if time.0 < l.last_time() {
            return self.schedule(time, event);
        }
        let k = key(time, self.next_seq);
        let head = l.len() == 0;
        l.push_back(time.0, (k, event));
        if head {
            self.heads.push(k, lane);
            self.rest = self.rest.min(time_of(k).0);
        }
        self.next_seq += 1;
    }

    /// `schedule_in` to a lane not used before.
    #[cold]
    #[inline(never)]
    fn schedule_in_new(&mut self, lane: u32, time: SimTime, event: E) {
        assert!(lane < MAX_LANES, "lane id too large");
        self.lanes.resize_with(lane as usize + 1, Lane::new);
        let k = key(time, self.next_seq);
        self.lanes[lane as usize].push_back(time.0, (k, event));
        self.heads.push(k, lane);
        self.rest = self.rest.min(time_of(k).0);
        self.next_seq += 1;
    }

    /// Pop the earliest event not after `until`, advancing the clock to it.
    #[inline]
    pub fn pop_until(&mut self, until: SimTime) -> Option<(SimTime, E)> {
        if self.run != NO_LANE {
            if let Some(k) = self.cur.front_key() {
                if time_of(k).0 < self.rest && time_of(k) <= until {
                    let e = self.cur.take_front();
                    return Some(self.popped(k, e));
                }
            }
            self.end_run();
        }
        self.pop_min(until);
        self.held.map(|e| (self.now, e))
    }

    /// `pop_until` outside a run, into `held`: the smaller of the two
    /// minima. A lane event starts a run of its lane.
    #[inline(never)]
    fn pop_min(&mut self, until: SimTime) {
        self.held = self.pop_min_inner(until).map(|(_, e)| e);
    }

    #[inline(always)]
    fn pop_min_inner(&mut self, until: SimTime) -> Option<(SimTime, E)> {
        let lane_min = self.heads.min();
        let radix_min = self.radix.min();
        if lane_min < radix_min {
            if time_of(lane_min) > until {
                return None;
            }
            let lane = self.heads.top_lane();
            let l = &mut self.lanes[lane as usize];
            let (k, e) = l.pop_front().expect("a lane head has events");
            debug_assert_eq!(k, lane_min);
            std::mem::swap(l, &mut self.cur);
            self.run = lane;
            self.rest = time_of(self.heads.below_top().min(radix_min)).0;
            Some(self.popped(k, e))
        } else {
            if radix_min == u128::MAX || time_of(radix_min) > until {
                return None;
            }
            let e = self.radix.pop();
            self.radix_popped += 1;
            Some(self.popped(radix_min, e))
        }
    }

    /// End the run: the lane's entry in `heads` takes its head's key.
    #[inline(never)]
    fn end_run(&mut self) {
        debug_assert_eq!(self.heads.top_lane(), self.run);
        let l = &mut self.lanes[self.run as usize];
        std::mem::swap(l, &mut self.cur);
        match l.front() {
            Some(&(next, _)) => self.heads.replace_top(next),
            None => self.heads.pop_top(),
        }
        self.run = NO_LANE;
    }

    /// The clock moves to the popped event's time.
    #[inline(always)]
    fn popped(&mut self, k: u128, e: E) -> (SimTime, E) {
        let time = time_of(k);
        self.now = time;
        (time, e)
    }

    /// The event `k` places behind the head of `lane` (0: its head), if
    /// any: what is coming, for the caller to prefetch its state.
    #[inline]
    pub fn peek_lane(&self, lane: u32, k: usize) -> Option<&E> {
        let l = if lane == self.run { &self.cur } else { self.lanes.get(lane as usize)? };
        l.get(k).map(|x| &x.1)
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
        self.radix_popped + self.lanes.iter().chain([&self.cur]).map(|l| l.taken() as u64).sum::<u64>()
    }

    /// Events waiting (counted when asked: not kept per event).
    pub fn len(&self) -> usize {
        self.radix.len() + self.lanes.iter().chain([&self.cur]).map(|l| l.len()).sum::<usize>()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
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
    fn a_run_yields_to_what_is_scheduled_during_it() {
        // Lane 0 drains as a run; events scheduled meanwhile below its next
        // head (in the radix heap, in another lane, in the run's own lane
        // once it ran empty) pop in key order, and a horizon stops it.
        let mut q = EventQueue::new();
        q.schedule_in(0, SimTime(10), "a10");
        q.schedule_in(0, SimTime(20), "a20");
        q.schedule_in(0, SimTime(30), "a30");
        assert_eq!(q.pop_until(SimTime(100)), Some((SimTime(10), "a10")));
        // Lane 0 is out of `lanes` while it runs: still seen and counted.
        assert_eq!((q.peek_lane(0, 1), q.len(), q.events_processed()), (Some(&"a30"), 2, 1));
        q.schedule(SimTime(15), "r15");
        q.schedule_in(1, SimTime(20), "b20"); // after a20: a later sequence
        assert_eq!(q.pop_until(SimTime(100)), Some((SimTime(15), "r15")));
        assert_eq!(q.pop_until(SimTime(100)), Some((SimTime(20), "a20")));
        assert_eq!(q.pop_until(SimTime(100)), Some((SimTime(20), "b20")));
        assert_eq!(q.pop_until(SimTime(29)), None);
        assert_eq!(q.pop_until(SimTime(100)), Some((SimTime(30), "a30")));
        q.schedule_in(0, SimTime(40), "a40"); // lane 0 ran empty in its run
        q.schedule_in(1, SimTime(35), "b35");
        assert_eq!(q.pop_until(SimTime(100)), Some((SimTime(35), "b35")));
        assert_eq!(q.pop_until(SimTime(100)), Some((SimTime(40), "a40")));
        assert_eq!(q.pop_until(SimTime(100)), None);
        assert!(q.is_empty());
        assert_eq!(q.events_processed(), 7);
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
