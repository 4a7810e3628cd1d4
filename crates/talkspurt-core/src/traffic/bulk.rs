//! Byte-stream applications for cross traffic: a greedy bulk sender
//! (FTP-like; optionally on/off) and a finite transfer. They only tell the
//! transport when data is available; the transport's window paces them.

use crate::rng::{DurationDist, Rng};
use crate::time::SimTime;

#[derive(Debug)]
pub enum StreamApp {
    /// Greedy within activation windows [next, stop); with `on_off`,
    /// greedy during on periods and silent during off periods (first
    /// period on, or off with `idle_first`).
    Bulk {
        on_off: Option<(DurationDist, DurationDist)>,
        rng: Rng,
        on: bool,
        next: SimTime,
        stop: SimTime,
        idle_first: bool,
        /// At a window's start (before its first period).
        fresh: bool,
        /// Windows still to come, last first.
        later: Vec<(SimTime, SimTime)>,
    },
    /// Writes `size` bytes once at `start`.
    Transfer { size: u64, at: SimTime, done: bool },
}

/// What the application does at its next event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StreamAction {
    Greedy(bool),
    Write(u64),
}

impl StreamApp {
    pub fn bulk(start: SimTime, stop: SimTime, on_off: Option<(DurationDist, DurationDist)>, rng: Rng) -> Self {
        Self::bulk_scheduled(vec![(start, stop)], on_off, false, rng)
    }

    /// Greedy within `windows` (ordered, non-overlapping).
    pub fn bulk_scheduled(
        mut windows: Vec<(SimTime, SimTime)>,
        on_off: Option<(DurationDist, DurationDist)>,
        idle_first: bool,
        rng: Rng,
    ) -> Self {
        windows.reverse();
        let (next, stop) = match windows.pop() {
            Some((a, b)) if a < b => (a, b),
            _ => (SimTime::NEVER, SimTime::NEVER),
        };
        StreamApp::Bulk { on_off, rng, on: false, next, stop, idle_first, fresh: true, later: windows }
    }

    pub fn next_time(&self) -> Option<SimTime> {
        match *self {
            StreamApp::Bulk { next, .. } => (next != SimTime::NEVER).then_some(next),
            StreamApp::Transfer { at, done, .. } => (!done).then_some(at),
        }
    }

    /// The event due now: toggles or writes, and plans the next one.
    pub fn fire(&mut self, now: SimTime) -> StreamAction {
        match self {
            StreamApp::Bulk { on_off, rng, on, next, stop, idle_first, fresh, later } => {
                if now >= *stop {
                    *on = false;
                    *fresh = true;
                    (*next, *stop) = later.pop().unwrap_or((SimTime::NEVER, SimTime::NEVER));
                    return StreamAction::Greedy(false);
                }
                let begin_idle = std::mem::take(fresh) && *idle_first;
                *on = !*on && !begin_idle;
                *next = match on_off {
                    None => *stop,
                    Some((on_d, off_d)) => (now + if *on { on_d.sample(rng) } else { off_d.sample(rng) }).min(*stop),
                };
                StreamAction::Greedy(*on)
            }
            StreamApp::Transfer { size, done, .. } => {
                *done = true;
                StreamAction::Write(*size)
            }
        }
    }
}
