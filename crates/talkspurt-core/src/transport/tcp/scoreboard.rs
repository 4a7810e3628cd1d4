//! The SACK scoreboard's sums (RFC 6675 §4 SetPipe, NextSeg), kept as the
//! queue changes rather than rebuilt by a walk of the window on every send
//! in recovery. Each segment of the retransmission queue carries whether it
//! is wholly SACKed; three prefixes of the queue carry the length of the
//! segments in them that are not:
//!
//! - the whole queue (`open`);
//! - the lost prefix: RFC 6675 §4 IsLost holds for a segment when more than
//!   (DupThresh − 1)·SMSS bytes are SACKed above it, a count that falls
//!   towards the top of the queue, so the lost segments are a prefix of it,
//!   and one that only grows while SACK information is kept (it is cleared
//!   only by a timeout, RFC 6675 §5.1), so its edge only moves up;
//! - the retransmitted prefix: segments starting below HighRxt.
//!
//! SetPipe is then `open − lost + retransmitted`, and NextSeg's candidates
//! (rules 1 and 3) are the first segment at or above HighRxt not wholly
//! SACKed, lost or not. The work per ACK is proportional to what it
//! changed: the segments a SACK block newly covers, the segments the
//! cumulative ACK removes, the edges' moves (each segment crosses an edge
//! once per recovery). A timeout rebuilds the sums once.
//!
//! `recovery.rs` keeps the walk the sums replace (`scoreboard_walk`) and,
//! with debug assertions on, checks the two agree on every send.

use super::sender::Seg;
use crate::transport::seq::RangeSet;
use std::collections::VecDeque;

/// What NextSeg and SetPipe need (RFC 6675 §4): the pipe, the lowest lost
/// segment at or above HighRxt, and the lowest one not wholly SACKed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Board {
    pub pipe: u64,
    pub lost: Option<(u64, u64)>,
    pub unsacked: Option<(u64, u64)>,
}

/// The running sums over the retransmission queue (module note).
#[derive(Clone, Debug, Default)]
pub(super) struct Sums {
    /// Length of the queue's segments not wholly SACKed.
    open: u64,
    /// `segs[..lost_n]` are the lost segments; `lost_open` their open length.
    lost_n: usize,
    lost_open: u64,
    /// `segs[..rxt_n]` start below HighRxt; `rxt_open` their open length.
    rxt_n: usize,
    rxt_open: u64,
    /// Every segment in `segs[rxt_n..next_n]` is wholly SACKed.
    next_n: usize,
}

fn open_len(s: &Seg) -> u64 {
    if s.sacked { 0 } else { s.end - s.start }
}

impl Sums {
    /// A new segment appended at the top of the queue.
    pub fn pushed(&mut self, s: &Seg) {
        self.open += open_len(s);
    }

    /// The front segment removed (acknowledged cumulatively).
    pub fn popped(&mut self, s: &Seg) {
        let len = open_len(s);
        self.open -= len;
        if self.lost_n > 0 {
            self.lost_n -= 1;
            self.lost_open -= len;
        }
        if self.rxt_n > 0 {
            self.rxt_n -= 1;
            self.rxt_open -= len;
        }
        self.next_n = self.next_n.saturating_sub(1);
    }

    /// Segment `i` lost `by` bytes of open length (trimmed by a partial
    /// ACK, or now wholly SACKed).
    fn shrink(&mut self, i: usize, by: u64) {
        self.open -= by;
        if i < self.lost_n {
            self.lost_open -= by;
        }
        if i < self.rxt_n {
            self.rxt_open -= by;
        }
    }

    /// The front segment's start moved up to `ack`; it may now lie wholly
    /// in a SACKed range.
    pub fn trim_front(&mut self, segs: &mut VecDeque<Seg>, sacked: &RangeSet, ack: u64) {
        let Some(f) = segs.front_mut() else { return };
        if ack <= f.start {
            return;
        }
        let was = open_len(f);
        f.start = ack;
        if !f.sacked && sacked.covers(f.start, f.end) {
            f.sacked = true;
        }
        let now = open_len(f);
        self.shrink(0, was - now);
    }

    /// `[a, b)` has just become SACKed: mark the segments it completes.
    pub fn newly_sacked(&mut self, segs: &mut VecDeque<Seg>, sacked: &RangeSet, a: u64, b: u64) {
        let first = segs.partition_point(|s| s.end <= a);
        for i in first..segs.len() {
            let s = &mut segs[i];
            if s.start >= b {
                break;
            }
            if !s.sacked && sacked.covers(s.start, s.end) {
                let len = s.end - s.start;
                s.sacked = true;
                self.shrink(i, len);
            }
        }
    }

    /// SACK information discarded (RFC 6675 §5.1, after a timeout): no
    /// segment is SACKed or lost any more.
    pub fn reset(&mut self, segs: &mut VecDeque<Seg>) {
        *self = Sums::default();
        for s in segs.iter_mut() {
            s.sacked = false;
            self.open += s.end - s.start;
        }
    }

    /// The scoreboard now: moves the edges to HighRxt and to the SACKed
    /// bytes, then reads the sums. `lost_above` is IsLost's threshold
    /// ((DupThresh − 1)·SMSS).
    pub fn board(&mut self, segs: &VecDeque<Seg>, sacked: &RangeSet, high_rxt: u64, lost_above: u64) -> Board {
        while self.lost_n < segs.len() && sacked.covered_above_exceeds(segs[self.lost_n].end, lost_above) {
            self.lost_open += open_len(&segs[self.lost_n]);
            self.lost_n += 1;
        }
        while self.rxt_n > 0 && segs[self.rxt_n - 1].start >= high_rxt {
            self.rxt_n -= 1;
            self.rxt_open -= open_len(&segs[self.rxt_n]);
            self.next_n = self.rxt_n;
        }
        while self.rxt_n < segs.len() && segs[self.rxt_n].start < high_rxt {
            self.rxt_open += open_len(&segs[self.rxt_n]);
            self.rxt_n += 1;
        }
        self.next_n = self.next_n.max(self.rxt_n);
        while self.next_n < segs.len() && segs[self.next_n].sacked {
            self.next_n += 1;
        }
        let unsacked = segs.get(self.next_n).map(|s| (s.start, s.end));
        Board {
            pipe: self.open - self.lost_open + self.rxt_open,
            lost: unsacked.filter(|_| self.next_n < self.lost_n),
            unsacked,
        }
    }
}
