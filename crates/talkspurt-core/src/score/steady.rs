//! Steady runs for scoring's pass (issue 26, target 3): packets that
//! continue the two before them on one line — generated a fixed step
//! apart, each sent, arrived and played a fixed time after its
//! generation, in one talkspurt, with the same frames and payload. On a
//! constant-rate call over an unloaded path (the headline: every packet of
//! every call) that is nearly every packet, and what each metric adds per
//! packet over such a run is known without reading it again:
//!
//! - the delay, sender wait, delay budget and playout delay are the same
//!   value for every packet: integer sums take `k ×` it; float sums still
//!   add it `k` times, in order, as the packet-by-packet loop does (a
//!   product would round differently);
//! - RFC 3550 §6.4.1's transit difference D(i−1, i) is the same for every
//!   packet (arrival and RTP timestamp advance by the same step): the
//!   estimator J += (|D| − J)/16 still runs once a packet, in order;
//! - seed 002's Algorithm 1 compares each arrival with its predecessor's,
//!   one step earlier: `k` received, and `k` delayed or none;
//! - seed 003's gap jitters: every second difference of a line is 0
//!   (`GapJitterStream::push_on_line`).
//!
//! Finding a run here and folding it in `pass.rs` take ~35 instructions
//! a packet where the packet-by-packet loops took ~210 (callgrind, the
//! headline); `pass.rs`'s tests check the two give the same bits (`==`
//! on f64).

use crate::trace::record::{Columns, NetFate};
use std::ops::Range;

/// Times are below this in a steady run: no value is `NOT_ARRIVED`, and
/// the i64 paths of the transit and second differences apply.
const SAFE: u64 = 1 << 62;
/// Packets tested at once.
const CHUNK: usize = 8;

/// A steady run: `k` packets from `i`, continuing packets `i − 2`, `i − 1`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Steady {
    pub k: usize,
    /// Generation step (ns, ≥ 0).
    pub step: u64,
    /// Send, arrival and playout, less generation (ns).
    pub wait: u64,
    pub delay: u64,
    pub played: u64,
}

/// The steady run starting at `i` (`i ≥ 2`), if packets `i − 2` and
/// `i − 1` start one: both arrived and played, in one talkspurt, on the
/// line. Scans to the first packet off it; `None` if there is none on it.
/// `lines`: packets known uniform (`CallRecord::columns_lined`, in order,
/// none ending before `i`), whose columns other than `played` are not
/// tested again.
#[inline]
pub(super) fn steady_run(c: &Columns, played: &[u64], i: usize, lines: &[Range<usize>]) -> Option<Steady> {
    let (p, q) = (i - 1, i - 2);
    let (g, gq) = (c.t_gen[p], c.t_gen[q]);
    if c.talkspurt[p] != c.talkspurt[q] || c.fate[p] != NetFate::Arrived || g < gq || (c.t_sent[p] | c.t_arr[p] | played[p]) >= SAFE {
        return None;
    }
    let (sent, arr, pl) = (c.t_sent[p], c.t_arr[p], played[p]);
    if sent < g || arr < g || pl < g {
        return None;
    }
    let (step, wait, delay, po) = (g - gq, sent - g, arr - g, pl - g);
    if c.t_sent[q] != gq.wrapping_add(wait) || c.t_arr[q] != gq.wrapping_add(delay) {
        return None;
    }
    let n = c.len();
    let line = Line {
        t_gen: &c.t_gen[i..n],
        t_sent: &c.t_sent[i..n],
        t_arr: &c.t_arr[i..n],
        played: &played[i..n],
        ids: &c.talkspurt[i..n],
        fate: &c.fate[i..n],
        frames: &c.frames[i..n],
        payload: &c.payload[i..n],
        g,
        step,
        wait,
        delay,
        po,
        spurt: c.talkspurt[p],
        fr: c.frames[p],
        pay: c.payload[p],
    };
    // A chunk at a time without a branch per packet, then one at a time
    // to the first packet off the line, or to where a uniform block takes
    // over: from its third packet on, the two before lie in it and on the
    // line, so every column of the block but `played` is on the line
    // (its step is theirs; its offsets, fate, frames and payload packet
    // p − 1's; its talkspurt steps 0).
    let m = n - i;
    let (mut k, mut lines) = (0, lines);
    loop {
        let p = i + k;
        while lines.first().is_some_and(|r| r.end <= p + 2) {
            lines = &lines[1..];
        }
        // Scan to `stop`: the end of a block whose playout is off the
        // line (to find where), or where the next block takes over.
        let stop = match lines.first() {
            Some(r) if r.start + 2 <= p => {
                if line.played_on(k, r.end - i) {
                    k = r.end - i;
                    continue;
                }
                r.end - i
            }
            Some(r) => (r.start + 2 - i).min(m),
            None => m,
        };
        while k + CHUNK <= stop && line.chunk_on(k) {
            k += CHUNK;
        }
        while k < stop && line.on(k) {
            k += 1;
        }
        if k < stop || k == m {
            break;
        }
    }
    // The line did not wrap and every time on it stays below SAFE: the
    // equalities above hold as integers, not modulo 2^64.
    let last = g as u128 + step as u128 * k as u128 + wait.max(delay).max(po) as u128;
    (k > 0 && last < SAFE as u128).then_some(Steady { k, step, wait, delay, played: po })
}

/// The columns from packet `i` on and the line they are tested against.
struct Line<'a> {
    t_gen: &'a [u64],
    t_sent: &'a [u64],
    t_arr: &'a [u64],
    played: &'a [u64],
    ids: &'a [u32],
    fate: &'a [NetFate],
    frames: &'a [u16],
    payload: &'a [u32],
    /// Packet i − 1's generation time, the step and the offsets.
    g: u64,
    step: u64,
    wait: u64,
    delay: u64,
    po: u64,
    spurt: u32,
    fr: u16,
    pay: u32,
}

impl Line<'_> {
    /// Packet `i + j` is on the line: every column as the line has it.
    #[inline(always)]
    fn on(&self, j: usize) -> bool {
        let t = self.g.wrapping_add(self.step.wrapping_mul(j as u64 + 1));
        (self.t_gen[j] == t)
            & (self.t_sent[j] == t.wrapping_add(self.wait))
            & (self.t_arr[j] == t.wrapping_add(self.delay))
            & (self.played[j] == t.wrapping_add(self.po))
            & (self.ids[j] == self.spurt)
            & (self.fate[j] == NetFate::Arrived)
            & (self.frames[j] == self.fr)
            & (self.payload[j] == self.pay)
    }

    /// Packets `i + k .. i + e` played on the line (their other columns
    /// known to be on it): an OR over the block, which vectorises.
    #[inline(always)]
    fn played_on(&self, k: usize, e: usize) -> bool {
        let po = self.po;
        self.played[k..e].iter().zip(&self.t_gen[k..e]).fold(0, |a, (&pl, &g)| a | (pl.wrapping_sub(g) ^ po)) == 0
    }

    /// Packets `i + k .. i + k + CHUNK` all on the line (`k + CHUNK` at
    /// most the columns' length). (OR-ing the differences a column width
    /// at a time, to vectorise, cost 10 % more, callgrind.)
    #[inline(always)]
    fn chunk_on(&self, k: usize) -> bool {
        let mut all = true;
        for j in k..k + CHUNK {
            all &= self.on(j);
        }
        all
    }
}
