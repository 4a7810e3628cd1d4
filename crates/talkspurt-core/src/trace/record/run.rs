//! A block's pending run (issue 26 target 3): packets that arrive alike
//! are counted, not written.
//!
//! On a planned route with a steady delay (every packet of the headline)
//! each packet's row repeats the one before: generated one step later,
//! sent at generation, arrived after the same delay, same talkspurt,
//! frames and payload. Once three packets in a row have arrived alike
//! (`CallRecord::arm_run`), the block notes the step and the shared values
//! in its header (`Block::run`), and `push_arrived` then checks a packet
//! against them and only counts it: the rows from `from` up to the
//! record's count are implied by row `from - 1`. A block full of such
//! rows is packed from the header (`Block::uniform`) without a scan of its
//! rows. Anything else that writes the current block writes the implied
//! rows out first (`Block::fill`), so it finds the rows it always did;
//! readers synthesise them (`Block::row`, `Block::filled`). Writing a row
//! and scanning the full block for uniformity were ~40 instructions a
//! packet of the headline's loop.

use super::row::*;
use super::NetFate;
use crate::trace::slots::{Slot, Wide};
use std::borrow::Cow;

/// Bytes of a block's run header, in the style of a row (so that the
/// prefetch of the next write can be handed its bytes, `next_row`).
pub(super) const RUN: usize = 32;
/// u64: the generation time the run's next packet has; `NEVER` (u64::MAX)
/// when no run is pending (no real time reaches it).
const NEXT: usize = 0;
/// u32 each: the generation step, the arrival offset, frames and payload
/// (the raw values: the template row holds them unescaped).
const STEP: usize = 8;
const R_ARR: usize = 12;
const R_FRAMES: usize = 16;
const R_PAYLOAD: usize = 20;
/// u32: rows written; the rows from it on, up to the record's count, are
/// the run's. 0: no run (an all-zero header, as a fresh slab slot has).
const FROM: usize = 24;
/// u32: the run's wire bytes (the trace's `wire_bytes`, kept in the
/// record's cold part): a record with the trace counts a packet only if
/// its wire is this, and leaves its trace entries to
/// `CallRecord::trace_catch_up`.
const R_WIRE: usize = 28;

/// The header of a block with no run pending.
pub(super) const NO_RUN: [u8; RUN] = {
    let mut h = [0u8; RUN];
    let mut i = 0;
    while i < 8 {
        h[NEXT + i] = 0xff;
        i += 1;
    }
    h
};

#[inline(always)]
fn rd32(h: &[u8; RUN], at: usize) -> u32 {
    u32::from_le_bytes([h[at], h[at + 1], h[at + 2], h[at + 3]])
}

#[inline(always)]
fn rd64(h: &[u8; RUN], at: usize) -> u64 {
    u64::from_le_bytes(h[at..at + 8].try_into().expect("8 bytes"))
}

impl Block {
    /// Whether a packet generated at `t`, arrived `d` after, of `frames`
    /// and `payload`, continues the pending run (the talkspurt and the
    /// block's room are the record's to check). Never with no run: no
    /// packet is generated at `NEVER`. The arrival offset first: where
    /// delays vary, the test ends there.
    #[inline(always)]
    pub(super) fn run_takes(&self, t: u64, d: u64, frames: u32, payload: u32) -> bool {
        let h = &self.run;
        d == rd32(h, R_ARR) as u64 && t == rd64(h, NEXT) && frames == rd32(h, R_FRAMES) && payload == rd32(h, R_PAYLOAD)
    }

    /// Count one more packet in the pending run.
    #[inline(always)]
    pub(super) fn run_advance(&mut self) {
        let next = rd64(&self.run, NEXT) + rd32(&self.run, STEP) as u64;
        self.run[NEXT..NEXT + 8].copy_from_slice(&next.to_le_bytes());
    }

    /// Rows written while a run is pending (its template is the last of
    /// them); 0: none pending.
    #[inline(always)]
    pub(super) fn run_from(&self) -> usize {
        rd32(&self.run, FROM) as usize
    }

    /// The pending run's wire bytes (`R_WIRE`).
    #[inline(always)]
    pub(super) fn run_wire(&self) -> u32 {
        rd32(&self.run, R_WIRE)
    }

    /// The run header's bytes, for a prefetch.
    #[inline]
    pub(super) fn run_bytes(&self) -> &[u8] {
        &self.run
    }

    /// Start a run after row `k` (written, arrived `d` after generation at
    /// `t`, unescaped `frames` and `payload`): the next packet is
    /// generated `step` later. The caller checked that the whole block's
    /// generation offsets stay below `Wide::ESC` on the run's line.
    #[inline]
    pub(super) fn arm(&mut self, k: usize, t: u64, step: u32, d: u32, frames: u32, payload: u32, wire: u32) {
        debug_assert!(frames < u8::ESC && payload < u16::ESC && d < Wide::ESC && k + 1 < BLOCK);
        let h = &mut self.run;
        h[NEXT..NEXT + 8].copy_from_slice(&(t + step as u64).to_le_bytes());
        for (at, x) in [(STEP, step), (R_ARR, d), (R_FRAMES, frames), (R_PAYLOAD, payload), (FROM, k as u32 + 1), (R_WIRE, wire)] {
            h[at..at + 4].copy_from_slice(&x.to_le_bytes());
        }
    }

    /// No run pending (a block started, or its run written out).
    #[inline]
    pub(super) fn disarm(&mut self) {
        self.run = NO_RUN;
    }

    /// Row `j` (at or past `from`) of the pending run: the template's
    /// generation offset plus a step a row, sent at generation, arrived
    /// alike, in the template's talkspurt (step 0).
    pub(super) fn implied(&self, j: usize) -> [u8; ROW] {
        let from = self.run_from();
        debug_assert!(from > 0 && j >= from);
        let h = &self.run;
        let gen = get32(&self.rows[from - 1], GEN) + rd32(h, STEP) * (j + 1 - from) as u32;
        let mut r = [0u8; ROW];
        put32(&mut r, GEN, gen);
        put32(&mut r, SENT, 0);
        put32(&mut r, ARR, rd32(h, R_ARR));
        r[FATE] = NetFate::Arrived as u8;
        r[SPURT] = 0;
        r[FRAMES] = rd32(h, R_FRAMES) as u8;
        r[PAYLOAD..PAYLOAD + 2].copy_from_slice(&(rd32(h, R_PAYLOAD) as u16).to_le_bytes());
        r
    }

    /// Row `j`, written or implied (`j` below the rows in use).
    #[inline]
    pub(super) fn row(&self, j: usize) -> [u8; ROW] {
        match self.run_from() {
            from if from > 0 && j >= from => self.implied(j),
            _ => self.rows[j],
        }
    }

    /// Write the pending run's rows, if any, up to `len` (the rows in
    /// use), and end the run.
    #[inline(always)]
    pub(super) fn fill(&mut self, len: usize) {
        if self.run_from() != 0 {
            self.fill_run(len);
        }
    }

    #[inline(never)]
    fn fill_run(&mut self, len: usize) {
        for j in self.run_from()..len {
            self.rows[j] = self.implied(j);
        }
        self.disarm();
    }

    /// The block with its first `len` rows written (a copy if a run is
    /// pending), for readers that take a block's rows whole.
    pub(super) fn filled(&self, len: usize) -> Cow<'_, Block> {
        if self.run_from() == 0 {
            return Cow::Borrowed(self);
        }
        let mut b = self.clone();
        b.fill(len);
        Cow::Owned(b)
    }

    /// For `uniform`: the rows written, and whether the pending run's
    /// rows up to the block's end continue their line at `step` alike.
    /// A run's rows repeat the template's fields but its talkspurt step,
    /// which is 0: alike if the template's is too.
    #[inline]
    pub(super) fn written_and_tail(&self, step: u32) -> (usize, bool) {
        match self.run_from() {
            0 => (BLOCK, true),
            from => (from, rd32(&self.run, STEP) == step && self.rows[from - 1][SPURT] == 0),
        }
    }
}

#[cfg(test)]
#[path = "run_tests.rs"]
mod tests;
