//! Endpoint timers with one queue entry per deadline that can fire, not
//! one per re-arm.
//!
//! A TCP sender re-arms its retransmission timer on almost every ACK
//! (RFC 6298 §5.3), each time a little later. Scheduling an event per
//! re-arm filled the event queue with superseded timers — about one event
//! per ACK, each carried through the radix heap's buckets and popped only
//! to be ignored. Here a slot keeps its *logical* deadline — the
//! `(time, insertion sequence)` key the event would have had — and at most
//! one live *carrier* event in the queue, never later than it:
//!
//! - re-armed later: the sequence number is reserved (so every other event
//!   keeps its own) and nothing is scheduled; the carrier stays;
//! - re-armed earlier: a new carrier is scheduled at exactly the new key
//!   (the old one is ignored when it pops: its generation is stale);
//! - the carrier pops at its key: if that is the logical key the timer
//!   fires, otherwise a new carrier is scheduled at the logical key, with
//!   the reserved sequence number.
//!
//! So a timer fires at the same `(time, sequence)` as when every re-arm
//! was an event, and the events between run in the same order: results
//! are unchanged (results_hash). What changes is the number of events
//! processed. The run's last clock value — the span per-run averages
//! divide by — included every superseded timer's time up to the end of the
//! run; `late` keeps that maximum so `World::run` ends where it did.

use crate::sched::EventQueue;
use crate::time::SimTime;

/// One endpoint timer (module note).
#[derive(Clone, Copy, Debug)]
pub struct TimerSlot {
    /// The deadline the endpoint asked for (`NEVER`: disarmed).
    pub want: SimTime,
    /// The logical event's time (`want`, or the arming instant if that was
    /// later) and its reserved insertion sequence.
    at: SimTime,
    seq: u64,
    /// The live carrier's key, if any, and its generation.
    carrier: Option<(SimTime, u64)>,
    gen: u32,
}

impl Default for TimerSlot {
    fn default() -> Self {
        TimerSlot { want: SimTime::NEVER, at: SimTime::NEVER, seq: 0, carrier: None, gen: 0 }
    }
}

/// What a popped timer event means.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Popped {
    /// The deadline is due: handle the timeout.
    Fire,
    /// A stale carrier, or one moved on to the logical deadline.
    Nothing,
}

impl TimerSlot {
    /// Arms (or with `NEVER` disarms) the timer at `want`; `make(gen)` is
    /// the event to schedule. `late` collects the latest time any re-arm
    /// would have scheduled, up to `end`.
    #[inline]
    pub fn arm<E: Copy>(&mut self, q: &mut EventQueue<E>, now: SimTime, want: SimTime, end: SimTime, late: &mut SimTime, make: impl Fn(u32) -> E) {
        if want == self.want {
            return;
        }
        self.want = want;
        if want == SimTime::NEVER {
            return;
        }
        let at = want.max(now);
        let seq = q.reserve_seq();
        (self.at, self.seq) = (at, seq);
        if at <= end && at > *late {
            *late = at;
        }
        if self.carrier.is_none_or(|c| (at, seq) < c) {
            self.gen = self.gen.wrapping_add(1);
            self.carrier = Some((at, seq));
            q.schedule_at_seq(at, seq, make(self.gen));
        }
    }

    /// The carrier of generation `gen` popped at `now`.
    #[inline]
    pub fn popped<E: Copy>(&mut self, q: &mut EventQueue<E>, now: SimTime, gen: u32, make: impl Fn(u32) -> E) -> Popped {
        let Some((t, seq)) = self.carrier else { return Popped::Nothing };
        if gen != self.gen {
            return Popped::Nothing;
        }
        debug_assert_eq!(t, now);
        self.carrier = None;
        if self.want == SimTime::NEVER {
            return Popped::Nothing;
        }
        if (self.at, self.seq) == (t, seq) {
            self.want = SimTime::NEVER;
            return Popped::Fire;
        }
        self.gen = self.gen.wrapping_add(1);
        self.carrier = Some((self.at, self.seq));
        q.schedule_at_seq(self.at, self.seq, make(self.gen));
        Popped::Nothing
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::{Rng, StreamId};

    #[derive(Clone, Copy, Debug, PartialEq)]
    enum Ev {
        Other(u32),
        Timer(u32),
    }

    /// A driver that, on every event it handles (another event, or the
    /// timer firing), schedules a few others and re-arms (or disarms) one
    /// timer at random, the deadline sometimes already past: with
    /// `TimerSlot` it sees the same events at the same times in the same
    /// order, the timer firing at the same places, as with an event per
    /// re-arm (the scheme it replaces), in no more events, and its clock
    /// ends at the same time. Seeds 1–300.
    #[test]
    fn fires_as_an_event_per_rearm_would() {
        for seed in 1..=300 {
            let (slot, slot_events) = drive(seed, true);
            let (naive, naive_events) = drive(seed, false);
            assert_eq!(slot, naive, "seed {seed}");
            assert!(slot_events <= naive_events, "seed {seed}");
        }
    }

    /// (trace of (time, kind, id) and the clock at the end, events popped).
    fn drive(seed: u64, with_slot: bool) -> ((Vec<(u64, char, u32)>, SimTime), u64) {
        let mut rng = Rng::stream(seed, 0, StreamId::new(0, 0));
        let mut q = EventQueue::new();
        let end = SimTime(5_000);
        let mut late = SimTime::ZERO;
        let mut slot = TimerSlot::default();
        let mut naive = (SimTime::NEVER, 0u32);
        let mut trace = Vec::new();
        q.schedule(SimTime(0), Ev::Other(0));
        let mut next_id = 1;
        while let Some((now, ev)) = q.pop_until(end) {
            let fired = match ev {
                Ev::Other(id) => {
                    trace.push((now.0, 'o', id));
                    false
                }
                Ev::Timer(gen) if with_slot => slot.popped(&mut q, now, gen, Ev::Timer) == Popped::Fire,
                Ev::Timer(gen) => {
                    let due = naive.1 == gen && naive.0 <= now;
                    if due {
                        naive.0 = SimTime::NEVER;
                    }
                    due
                }
            };
            if fired {
                trace.push((now.0, 't', 0));
            } else if matches!(ev, Ev::Timer(_)) {
                continue; // superseded or moved on: the driver sees nothing
            }
            if next_id < 3000 {
                for _ in 0..rng.below(3) {
                    q.schedule(SimTime(now.0 + rng.below(40)), Ev::Other(next_id));
                    next_id += 1;
                }
            }
            if rng.below(3) > 0 {
                let want = if rng.below(6) == 0 { SimTime::NEVER } else { SimTime(now.0.saturating_sub(5) + rng.below(80)) };
                if with_slot {
                    slot.arm(&mut q, now, want, end, &mut late, Ev::Timer);
                } else if want != naive.0 {
                    naive = (want, naive.1.wrapping_add(1));
                    if want != SimTime::NEVER {
                        q.schedule(want.max(now), Ev::Timer(naive.1));
                    }
                }
            }
        }
        let clock = if with_slot { q.now().max(late) } else { q.now() };
        ((trace, clock), q.events_processed())
    }
}
