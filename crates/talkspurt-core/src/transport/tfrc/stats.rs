//! Counters and time-weighted means of a rate sender, over the whole flow
//! and over the measurement interval (`[analysis] interval`).

use crate::time::SimTime;

/// The time integral of a piecewise-constant value, clipped to a window.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TimeMean {
    /// When the value was first set: the mean starts there.
    start: Option<SimTime>,
    value: f64,
    since: SimTime,
    integral: f64,
}

impl TimeMean {
    /// The value changes to `v` at `now`.
    pub fn set(&mut self, now: SimTime, v: f64, window: (SimTime, SimTime)) {
        self.start.get_or_insert(now);
        self.integral += self.value * overlap(self.since, now, window);
        self.value = v;
        self.since = now;
    }
    /// Mean over the window, counting the current value up to `end`.
    pub fn mean(&self, end: SimTime, window: (SimTime, SimTime)) -> f64 {
        let Some(start) = self.start else { return f64::NAN };
        let span = overlap(start, end, window);
        if span <= 0.0 {
            return f64::NAN;
        }
        (self.integral + self.value * overlap(self.since, end, window)) / span
    }
}

fn overlap(a: SimTime, b: SimTime, w: (SimTime, SimTime)) -> f64 {
    let (lo, hi) = (a.max(w.0), b.min(w.1));
    if hi > lo {
        hi.saturating_since(lo).as_secs_f64()
    } else {
        0.0
    }
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct RateStats {
    pub window: (SimTime, SimTime),
    pub packets_sent: u64,
    /// Units refused by a full send buffer (sender drops, seed 003's P_TP).
    pub sender_drops: u64,
    pub feedback: u64,
    pub nofeedback_expiries: u64,
    /// DCCP teardown: Resets received (RFC 4340 §8.3, §8.5 step 9). The
    /// teardown packets sent are counted by the connection (`teardown`).
    pub resets: u64,
    /// Allowed rate X (bytes/s) and loss event rate p over time.
    pub x: TimeMean,
    pub p: TimeMean,
}
