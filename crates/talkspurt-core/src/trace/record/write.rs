//! Writing a call's records: a packet generated (`push`, `push_arrived`),
//! sent, arrived, lost (`set_fate`) and its size on the wire
//! (`set_wire`), into the current block's rows; full blocks stored and
//! packed as they settle. A stand-in record (`logged`, `log.rs`) logs
//! each write instead.

use super::log::{log_op, Op};
use super::row::*;
use super::{CallRecord, NetFate, NEVER};
use crate::trace::slots::{Slot, Wide};
use crate::time::SimTime;
use std::ptr::NonNull;

impl CallRecord {
    /// Packet `i`'s row: the current block's (the usual case, a packet
    /// just sent or arriving) without a look at the full ones.
    #[inline]
    fn row_mut(&mut self, i: usize) -> &mut [u8; ROW] {
        assert!(i < self.n, "packet {i} not recorded");
        // The current block is block (n - 1) / BLOCK: told apart without
        // a look at the full ones, which live in the cold part.
        let b = i / BLOCK;
        if b == (self.n - 1) / BLOCK {
            let len = self.n - b * BLOCK;
            self.trace_catch_up();
            let cur = self.cur_mut().expect("a current block");
            cur.fill(len);
            return &mut cur.rows[i % BLOCK];
        }
        let cold = &mut *self.cold;
        if !matches!(cold.done[b], Stored::Rows(_)) {
            // A late packet: back to rows until the next block starts (a
            // line's entry stays, unused).
            let (base, cols) = cold.done[b].cols(&cold.lines);
            cold.done[b] = Stored::Rows(Box::new(Block::from_cols(base, &cols)));
            cold.loose.push(b as u32);
        }
        match &mut cold.done[b] {
            Stored::Rows(blk) => &mut blk.rows[i % BLOCK],
            _ => unreachable!("unpacked above"),
        }
    }

    /// The slot code of `x` for packet `i`'s u32 field `w` (side entry if
    /// it does not fit).
    #[inline]
    fn wide_code(&mut self, i: usize, x: u64, w: usize) -> u32 {
        if x < Wide::ESC as u64 {
            x as u32
        } else {
            self.wide_code_cold(i, x, w)
        }
    }

    #[cold]
    #[inline(never)]
    fn wide_code_cold(&mut self, i: usize, x: u64, w: usize) -> u32 {
        if x == NEVER {
            Wide::NONE
        } else {
            self.cold.wide[w].insert(i as u32, x);
            Wide::ESC
        }
    }

    #[cold]
    #[inline(never)]
    fn escape(&mut self, i: usize, x: u32, m: usize) {
        self.cold.narrow[m].insert(i as u32, x);
    }

    /// A new packet generated at `t_gen`; returns its sequence number.
    /// Generation times must not decrease within a call.
    ///
    /// Each write checks first for a stand-in (`logged`), whose whole work
    /// is to count and log, inlined where the loop writes; the record's own
    /// work stays in a function of its own, inlined as it was before
    /// stand-ins (`*_here`).
    #[inline(always)]
    pub fn push(&mut self, t_gen: SimTime, talkspurt: u32, frames: u32, payload: u32, wire: u32) -> u32 {
        if self.logged {
            let seq = self.n as u32;
            self.n += 1;
            log_op(Op::Push { call: self.last_spurt, talkspurt, frames, payload, wire, t_gen: t_gen.0 });
            return seq;
        }
        self.push_here(t_gen, talkspurt, frames, payload, wire)
    }

    #[inline]
    fn push_here(&mut self, t_gen: SimTime, talkspurt: u32, frames: u32, payload: u32, wire: u32) -> u32 {
        if let Some(s) = self.streaming_sink() {
            return s.push(t_gen.0, talkspurt, frames, payload);
        }
        self.push_row(t_gen, talkspurt, frames, payload, wire, [Wide::NONE, Wide::NONE], NetFate::InFlight)
    }

    /// `push`, then `sent` at `t_gen` and `arrived` at `at`, in one write
    /// when the arrival's offset fits its slot (the packet of a planned
    /// route, `sim/voice.rs`, that crossed it at once): the same record.
    ///
    /// A packet that continues the current block's pending run (`run.rs`)
    /// is only counted: its row is implied. A streaming record has no
    /// current block, so it never takes this way.
    #[inline(always)]
    pub fn push_arrived(&mut self, t_gen: SimTime, talkspurt: u32, frames: u32, payload: u32, wire: u32, at: SimTime) {
        assert!(at >= t_gen, "a packet arrived before it was generated");
        if self.logged {
            self.n += 1;
            return log_op(Op::PushArrived { call: self.last_spurt, talkspurt, frames, payload, wire, t_gen: t_gen.0, at: at.0 });
        }
        let (n, spurt) = (self.n, self.last_spurt);
        if let Some(b) = self.cur_mut() {
            // With the trace, its entries (this wire, no loss) are left to
            // `trace_catch_up`: writing them was most of what the trace
            // cost the loop (issue 26 target 7). The wire is compared with
            // or without: a compare, where a test of `full` cost more.
            if b.run_takes(t_gen.0, at.0 - t_gen.0, frames, payload) && talkspurt == spurt && n % BLOCK != 0
                && wire == b.run_wire()
            {
                b.run_advance();
                self.n = n + 1;
                return;
            }
        }
        self.push_arrived_here::<true>(t_gen, talkspurt, frames, payload, wire, at)
    }

    /// `push_arrived` where no run is started (a pending one is written
    /// out as usual): for the log's thread (`log.rs`), whose records are
    /// those of calls whose blocks did not settle (`sim::records`), where
    /// packets alike are too few for a run to pay (m10: two runs in three
    /// broken at their first packet, +2 % of the run's instructions).
    #[inline(always)]
    pub(super) fn push_arrived_rows(&mut self, t_gen: SimTime, talkspurt: u32, frames: u32, payload: u32, wire: u32, at: SimTime) {
        assert!(at >= t_gen, "a packet arrived before it was generated");
        debug_assert!(!self.logged);
        self.push_arrived_here::<false>(t_gen, talkspurt, frames, payload, wire, at)
    }

    // Always inlined, as `push_arrived` was before stand-ins: out of line
    // it cost the direct loop 3.7 % more instructions (m10, callgrind).
    #[inline(always)]
    fn push_arrived_here<const RUNS: bool>(&mut self, t_gen: SimTime, talkspurt: u32, frames: u32, payload: u32, wire: u32, at: SimTime) {
        if !self.streaming && at.0 - t_gen.0 < Wide::ESC as u64 {
            let d = (at.0 - t_gen.0) as u32;
            let seq = self.push_row(t_gen, talkspurt, frames, payload, wire, [0, d], NetFate::Arrived);
            if RUNS {
                self.arm_run(seq as usize, t_gen.0, d, frames, payload, wire);
            }
            return;
        }
        let seq = self.push(t_gen, talkspurt, frames, payload, wire);
        self.sent(seq, t_gen);
        self.arrived(seq, at);
    }

    /// `push` with the send and arrival slots and the fate given (`Wide`
    /// codes that fit; `where` stays "none": a fate other than in flight
    /// or arrived is set by `set_fate`).
    #[inline(always)]
    fn push_row(&mut self, t_gen: SimTime, talkspurt: u32, frames: u32, payload: u32, wire: u32, sent_arr: [u32; 2], fate: NetFate) -> u32 {
        // Before a new block replaces the run's header.
        self.trace_catch_up();
        let seq = self.n;
        if seq % BLOCK == 0 {
            self.new_block(t_gen.0);
        }
        assert!(t_gen.0 >= self.cur_base, "generation times decrease within a call");
        if t_gen.0 - self.cur_base >= Wide::ESC as u64 {
            // A long silence inside the block: count from this packet on.
            self.cur_mut().expect("a current block").base |= REBASED;
            self.cold.rebase.insert(seq as u32, t_gen.0);
            self.cur_base = t_gen.0;
        }
        let gen = (t_gen.0 - self.cur_base) as u32; // below ESC, by the rebase
        let step = talkspurt.wrapping_sub(self.last_spurt);
        let spurt = if talkspurt >= self.last_spurt && step < u8::ESC {
            step as u8
        } else {
            self.escape(seq, talkspurt, N_SPURT);
            u8::MAX
        };
        self.last_spurt = talkspurt;
        // ptime ≤ 80 ms and frames ≥ 1 ms bound this far below u16::MAX.
        let frames = frames.min(u16::MAX as u32);
        let fr = if frames < u8::ESC {
            frames as u8
        } else {
            self.escape(seq, frames, N_FRAMES);
            u8::MAX
        };
        let pl = if payload < u16::ESC {
            payload as u16
        } else {
            self.escape(seq, payload, N_PAYLOAD);
            u16::MAX
        };
        self.n += 1;
        let blk = self.cur_mut().expect("a current block");
        // The rows a pending run implies, before this one (none in a new
        // block); they read nothing above but the run's template row.
        blk.fill(seq % BLOCK);
        let r = &mut blk.rows[seq % BLOCK];
        put32(r, GEN, gen);
        put32(r, SENT, sent_arr[0]);
        put32(r, ARR, sent_arr[1]);
        r[FATE] = fate as u8;
        r[SPURT] = spurt;
        r[FRAMES] = fr;
        r[PAYLOAD..PAYLOAD + 2].copy_from_slice(&pl.to_le_bytes());
        if self.full {
            self.cold.wire.push(wire);
            self.cold.where_.push(0);
        }
        seq as u32
    }

    /// The trace's entries of the packets the pending run counted: its
    /// wire, and no loss (`push_arrived` leaves them out). Before anything
    /// writes an entry by index, or the run's header is lost (a row
    /// written out, a new block); readers add them themselves
    /// (`wire`, `where_`, `columns_lined`).
    #[inline(always)]
    fn trace_catch_up(&mut self) {
        if self.full && self.cold.wire.len() < self.n {
            self.trace_catch_up_cold();
        }
    }

    #[inline(never)]
    fn trace_catch_up_cold(&mut self) {
        let (from, wire) = self.trace_counted().expect("entries are missing");
        let k = self.n - from;
        self.cold.wire.push_n(wire, k);
        self.cold.where_.push_n(0, k);
    }

    /// After packet `seq` (row `k` of its block, written by `push_arrived`,
    /// arrived `d` after generation at `t`): start a run (`run.rs`) if the
    /// two packets before it in the block arrived alike, so that the
    /// packets after it that do too are only counted. (After one alike, a
    /// call behind a busy queue broke two runs in three at their first
    /// packet, each a start and a write-out for nothing: m10 +0.4 %.)
    #[inline(always)]
    fn arm_run(&mut self, seq: usize, t: u64, d: u32, frames: u32, payload: u32, wire: u32) {
        let k = seq % BLOCK;
        if k < 2 || k + 1 == BLOCK {
            return;
        }
        let b = self.cur_ref().expect("a current block");
        // The arrival offsets first: where delays vary, the test ends here.
        if get32(&b.rows[k - 1], ARR) == d && get32(&b.rows[k - 2], ARR) == d {
            self.arm_run_alike(k, t, d, frames, payload, wire);
        }
    }

    #[inline(never)]
    fn arm_run_alike(&mut self, k: usize, t: u64, d: u32, frames: u32, payload: u32, wire: u32) {
        let b = self.cur_mut().expect("a current block");
        let gen = get32(&b.rows[k], GEN) as u64;
        // A packet that rebased the block counts from 0, and the one before
        // it from the old base: no step, and no run.
        let step = match gen.checked_sub(get32(&b.rows[k - 1], GEN) as u64) {
            Some(s) if s > 0 => s,
            _ => return,
        };
        // The run's rows are the template's fields, unescaped, with
        // generation offsets that stay below the slot's reach to the
        // block's end.
        let reach = gen + step * (BLOCK - 1 - k) as u64;
        if frames < u8::ESC && payload < u16::ESC && reach < Wide::ESC as u64 {
            b.arm(k, t, step as u32, d, frames, payload, wire);
        }
    }

    /// The bytes the next packet will write, when its block exists: for
    /// the caller to prefetch (the run's header while one is pending).
    #[inline]
    pub fn next_row(&self) -> Option<&[u8]> {
        match (self.n % BLOCK, self.cur_ref()) {
            (0, _) | (_, None) => None,
            (_, Some(b)) if b.run_from() != 0 => Some(b.run_bytes()),
            (k, Some(b)) => Some(&b.rows[k]),
        }
    }

    /// Start a block at packet `self.n`, generated at `t`.
    #[inline(never)]
    fn new_block(&mut self, t: u64) {
        match (self.cur, self.cold.slab.is_some()) {
            // A slab slot stays put: the full block is copied out (or
            // packed, if settled) and the slot reused (rows at or past `n`
            // are never read; `push` writes a row whole).
            (Some(p), true) => {
                // SAFETY: see `cur`.
                let cur = unsafe { &mut *p.as_ptr() };
                if self.n > 0 {
                    let full = match cur.settled() {
                        Some(line) => Stored::line(line, &mut self.cold.lines),
                        None => {
                            self.cold.kept += 1;
                            cur.fill(BLOCK);
                            Stored::Rows(Box::new(cur.clone()))
                        }
                    };
                    self.cold.done.push(full);
                    self.settle();
                }
                cur.base = t;
                cur.disarm();
            }
            (old, _) => {
                let blk = Box::new(Block::new(t));
                self.cur = Some(NonNull::from(Box::leak(blk)));
                if let Some(full) = old {
                    // SAFETY: an owned `cur` came from `Box::leak` above.
                    let mut full = unsafe { Box::from_raw(full.as_ptr()) };
                    let full = match full.settled() {
                        Some(line) => Stored::line(line, &mut self.cold.lines),
                        None => {
                            self.cold.kept += 1;
                            full.fill(BLOCK);
                            Stored::Rows(full)
                        }
                    };
                    self.cold.done.push(full);
                    self.settle();
                }
            }
        }
        self.cur_base = t;
    }

    /// Pack the full block `LAG` behind the newest and any that late
    /// packets unpacked.
    fn settle(&mut self) {
        let cold = &mut *self.cold;
        let d = cold.done.len();
        if d > LAG {
            cold.done[d - 1 - LAG].settle(&mut cold.lines);
        }
        for b in cold.loose.drain(..) {
            cold.done[b as usize].settle(&mut cold.lines);
        }
    }

    /// Packet `seq` left the sender in an IP packet of `wire` bytes: the
    /// size its transport built (`Packet::size`), which the first link
    /// carries (trace only; the `wire_bytes` column). A packet that never
    /// leaves the sender keeps the 0 it was pushed with.
    #[inline(always)]
    pub fn set_wire(&mut self, seq: u32, wire: u32) {
        if self.logged {
            if self.full {
                log_op(Op::SetWire { call: self.last_spurt, seq, wire });
            }
            return;
        }
        if self.full && !self.streaming {
            self.trace_catch_up();
            self.cold.wire.set(seq as usize, wire);
        }
    }

    #[inline(always)]
    pub fn set_fate(&mut self, seq: u32, fate: NetFate, where_: u32) {
        if self.logged {
            return log_op(Op::SetFate { call: self.last_spurt, seq, fate, where_ });
        }
        self.set_fate_here(seq, fate, where_)
    }

    #[inline]
    fn set_fate_here(&mut self, seq: u32, fate: NetFate, where_: u32) {
        if let Some(s) = self.streaming_sink() {
            return s.set_fate(seq, fate);
        }
        let i = seq as usize;
        let r = self.row_mut(i);
        // A unit already delivered keeps its fate (a later copy may be lost).
        if r[FATE] == NetFate::Arrived as u8 {
            return;
        }
        r[FATE] = fate as u8;
        if self.full {
            self.cold.where_.set(i, where_.wrapping_add(1));
        }
    }

    /// Offset of `now` from packet `i`'s generation.
    #[inline]
    fn since_gen(&self, i: usize, now: SimTime) -> u64 {
        let g = self.t_gen(i);
        assert!(now.0 >= g, "packet {i} handled before it was generated");
        now.0 - g
    }

    /// The latest packet's row and its generation time, when `seq` is
    /// the latest (the usual case: sent and arrived just after it was
    /// generated): its base is `cur_base`, and its offset never escapes
    /// (`push` rebases instead).
    #[inline(always)]
    fn latest(&mut self, seq: u32) -> Option<(&mut [u8; ROW], u64)> {
        let i = seq as usize;
        if i + 1 != self.n {
            return None;
        }
        self.trace_catch_up();
        let base = self.cur_base;
        let b = self.cur_mut()?;
        b.fill(i % BLOCK + 1);
        let r = &mut b.rows[i % BLOCK];
        let g = base + get32(r, GEN) as u64;
        Some((r, g))
    }

    #[inline(always)]
    pub fn sent(&mut self, seq: u32, now: SimTime) {
        if self.logged {
            return log_op(Op::Sent { call: self.last_spurt, seq, now: now.0 });
        }
        self.sent_here(seq, now)
    }

    #[inline]
    fn sent_here(&mut self, seq: u32, now: SimTime) {
        if let Some(s) = self.streaming_sink() {
            return s.sent(seq, now.0);
        }
        if let Some((r, g)) = self.latest(seq) {
            if get32(r, SENT) != Wide::NONE {
                return;
            }
            assert!(now.0 >= g, "packet {seq} handled before it was generated");
            if now.0 - g < Wide::ESC as u64 {
                return put32(r, SENT, (now.0 - g) as u32);
            }
        }
        self.sent_any(seq, now)
    }

    #[inline(never)]
    fn sent_any(&mut self, seq: u32, now: SimTime) {
        let i = seq as usize;
        if get32(self.row_mut(i), SENT) == Wide::NONE {
            let d = self.since_gen(i, now);
            let c = self.wide_code(i, d, W_SENT);
            put32(self.row_mut(i), SENT, c);
        }
    }

    #[inline(always)]
    pub fn arrived(&mut self, seq: u32, now: SimTime) {
        if self.logged {
            return log_op(Op::Arrived { call: self.last_spurt, seq, now: now.0 });
        }
        self.arrived_here(seq, now)
    }

    #[inline]
    fn arrived_here(&mut self, seq: u32, now: SimTime) {
        if let Some(s) = self.streaming_sink() {
            return s.arrived(seq, now.0);
        }
        if let Some((r, g)) = self.latest(seq) {
            if get32(r, ARR) != Wide::NONE {
                return;
            }
            assert!(now.0 >= g, "packet {seq} handled before it was generated");
            if now.0 - g < Wide::ESC as u64 {
                put32(r, ARR, (now.0 - g) as u32);
                r[FATE] = NetFate::Arrived as u8;
                if self.full {
                    // As `arrived_any`: an earlier copy's loss is undone.
                    self.cold.where_.set(seq as usize, 0);
                }
                return;
            }
        }
        self.arrived_any(seq, now)
    }

    #[inline(never)]
    fn arrived_any(&mut self, seq: u32, now: SimTime) {
        let i = seq as usize;
        if get32(self.row_mut(i), ARR) == Wide::NONE {
            let d = self.since_gen(i, now);
            let c = self.wide_code(i, d, W_ARR);
            let r = self.row_mut(i);
            put32(r, ARR, c);
            r[FATE] = NetFate::Arrived as u8;
            if self.full {
                self.cold.where_.set(i, 0);
            }
        }
    }
}
