//! Per-call packet records, indexed by the packet's sequence number in its
//! call, stored compactly and exactly (issue 14): 17 bytes a packet for
//! scoring, 21 with the trace's columns, against 35 / 43 as plain columns.
//!
//! - generation times: the first packet of each block of `BLOCK` packets
//!   in full, the others as a 32-bit offset from it (a gap of 4.29 s or
//!   more inside a block starts a new base there);
//! - send, arrival: 32-bit offsets from generation (4.29 s reach);
//! - talkspurt: the step from the previous packet's (one byte);
//! - frames one byte, payload, wire bytes and channel two.
//!
//! A value that does not fit its narrow slot is stored whole in a side map,
//! so decoding is exact whatever the run does; the side maps stay empty on
//! ordinary calls. The fields of a packet sit together in a 17-byte row,
//! 64 rows to a block allocated when it is first needed (`Block`: one cache
//! line touched per packet, blocks of concurrent calls side by side); the
//! trace's two columns are kept apart. `columns` expands a call into plain
//! vectors for scoring, one call at a time.
//!
//! A full block is packed (`trace::pack`, issue 26 target 3) once the
//! block after it is full too (`LAG`), or at once if every packet in it
//! arrived alike (`Block::settled`): each field stored with the bits its
//! spread in the block needs, ~1.5 bytes a packet on a constant-rate call
//! with a steady delay. A late packet's write unpacks its block, which is
//! packed again when the next block starts.

mod read;
mod row;
mod sink;

pub use read::Columns;
use row::*;
pub use sink::RecordSink;
use super::slots::{Narrow, Slot};
pub use super::slots::Wide;
use super::slab::Slab;
use crate::time::SimTime;
use std::collections::BTreeMap;
use std::ptr::NonNull;
use std::sync::Arc;

/// Sentinel time for "never happened".
pub const NEVER: u64 = u64::MAX;

/// What the network did with a packet (playout fates come later, from the
/// playout buffer applied to these records).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum NetFate {
    /// Still in a buffer or on a wire when the run ended.
    InFlight = 0,
    /// The send buffer between codec and transport was full.
    SenderDrop = 1,
    /// Tail-dropped by a queue (`where` names the link direction).
    QueueDrop = 2,
    /// Lost by a link's random loss model (`where` names it).
    LinkLoss = 3,
    /// Reached the receiving application.
    Arrived = 4,
}

pub const NO_WHERE: u32 = u32::MAX;

/// One call's records, compact (see the module note). What every packet
/// touches comes first and fits one cache line; the rest is boxed
/// (`RecordCold`).
#[derive(Debug, Default)]
#[repr(C)]
pub struct CallRecord {
    n: usize,
    /// The block being filled, kept apart from the full ones so that the
    /// latest packets' rows are one pointer from the record: a slot of the
    /// world's slab (`cold.slab`, `attach_slab`), reused block after block,
    /// or else a block of its own (from `Box::into_raw`, freed on drop).
    cur: Option<NonNull<Block>>,
    cur_base: u64,
    last_spurt: u32,
    /// Trace-only columns (wire bytes, where lost) are kept.
    pub full: bool,
    /// Packets go to `cold.sink` (streaming scoring); kept here so the
    /// per-packet test does not touch the cold part.
    streaming: bool,
    cold: Box<RecordCold>,
}

/// A record's side maps and trace columns: not touched per packet unless
/// the trace is on or a value escapes its slot.
#[derive(Debug, Default)]
struct RecordCold {
    /// The full blocks, in order: read back for scoring, and when a
    /// packet older than the current block is sent or arrives.
    done: Vec<Stored>,
    /// Packed blocks a late packet unpacked, packed again when the next
    /// block starts.
    loose: Vec<u32>,
    /// seq → time: the packet from which later ones of its block count.
    rebase: BTreeMap<u32, u64>,
    /// Escaped u32-slot values (generation, send, arrival offsets), whole.
    wide: [BTreeMap<u32, u64>; 3],
    /// Escaped narrow values (talkspurt id, frames, payload), whole.
    narrow: [BTreeMap<u32, u32>; 3],
    wire: Narrow<u16>,
    /// Channel where lost, plus one (0: none).
    where_: Narrow<u16>,
    /// Streaming scoring (`[analysis] scoring = "streaming"`): packets go
    /// to this consumer as they happen and nothing above is stored.
    sink: Option<Box<dyn RecordSink>>,
    /// The slab `cur` lies in, kept alive while this record is
    /// (`trace::slab`); `None`: `cur` is owned.
    slab: Option<Arc<Slab>>,
}

// SAFETY: `cur` points at memory only this record reaches (its own box,
// or its slot of a slab that its `Arc` keeps mapped), written only through
// `&mut self`; everything else in a record is Send and Sync.
unsafe impl Send for CallRecord {}
unsafe impl Sync for CallRecord {}

impl Drop for CallRecord {
    fn drop(&mut self) {
        if let (Some(p), None) = (self.cur, &self.cold.slab) {
            // SAFETY: without a slab, `cur` came from `Box::into_raw`.
            drop(unsafe { Box::from_raw(p.as_ptr()) });
        }
    }
}

impl CallRecord {
    pub fn new(full: bool, expect: usize) -> Self {
        let mut r = CallRecord::default();
        r.full = full;
        *r.cold = RecordCold {
            done: Vec::with_capacity(expect.div_ceil(BLOCK)),
            wire: Narrow::with_capacity(if full { expect } else { 0 }),
            where_: Narrow::with_capacity(if full { expect } else { 0 }),
            ..Default::default()
        };
        r
    }

    /// Records that store nothing and hand every packet to `sink`.
    pub fn streaming(sink: Box<dyn RecordSink>) -> Self {
        let mut r = CallRecord::default();
        r.streaming = true;
        r.cold.sink = Some(sink);
        r
    }

    /// A slab of `n` current blocks for `World::prime` (`trace::slab`).
    pub(crate) fn block_slab(n: usize) -> Option<Arc<Slab>> {
        Slab::new(n, std::mem::size_of::<Block>()).map(Arc::new)
    }

    /// Take slot `i` of `slab` as the current block, before the first
    /// packet; a streaming record, or one already started, keeps its own.
    pub(crate) fn attach_slab(&mut self, slab: &Arc<Slab>, i: usize) -> bool {
        if self.streaming || self.cur.is_some() || self.n > 0 {
            return false;
        }
        // Zeroed by the kernel: all-zero bytes are a valid Block (integers).
        self.cur = Some(slab.slot(i, std::mem::size_of::<Block>()).cast());
        self.cold.slab = Some(slab.clone());
        true
    }

    #[inline(always)]
    fn cur_ref(&self) -> Option<&Block> {
        // SAFETY: see `cur`; shared access through `&self`.
        self.cur.map(|p| unsafe { &*p.as_ptr() })
    }

    #[inline(always)]
    fn cur_mut(&mut self) -> Option<&mut Block> {
        // SAFETY: see `cur`; unique access through `&mut self`.
        self.cur.map(|p| unsafe { &mut *p.as_ptr() })
    }

    /// The streaming consumer, if any.
    pub fn sink(&self) -> Option<&dyn RecordSink> {
        self.cold.sink.as_deref()
    }

    pub fn sink_mut(&mut self) -> Option<&mut (dyn RecordSink + 'static)> {
        self.cold.sink.as_deref_mut()
    }

    /// The consumer when streaming: the flag sits in the record's hot line,
    /// so an exact run's per-packet test does not touch the cold part.
    #[inline(always)]
    fn streaming_sink(&mut self) -> Option<&mut (dyn RecordSink + 'static)> {
        if self.streaming {
            self.cold.sink.as_deref_mut()
        } else {
            None
        }
    }

    pub fn take_sink(&mut self) -> Option<Box<dyn RecordSink>> {
        self.streaming = false;
        self.cold.sink.take()
    }

    pub fn len(&self) -> usize {
        match self.sink() {
            Some(s) => s.len(),
            None => self.n,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Packet `i`'s row: the current block's (the usual case, a packet
    /// just sent or arriving) without a look at the full ones.
    #[inline]
    fn row_mut(&mut self, i: usize) -> &mut [u8; ROW] {
        assert!(i < self.n, "packet {i} not recorded");
        // The current block is block (n - 1) / BLOCK: told apart without
        // a look at the full ones, which live in the cold part.
        let b = i / BLOCK;
        if b == (self.n - 1) / BLOCK {
            return &mut self.cur_mut().expect("a current block").rows[i % BLOCK];
        }
        let cold = &mut *self.cold;
        if let Stored::Packed(p) = &cold.done[b] {
            // A late packet: back to rows until the next block starts.
            cold.done[b] = Stored::Rows(Box::new(Block::unpack(p)));
            cold.loose.push(b as u32);
        }
        match &mut cold.done[b] {
            Stored::Rows(blk) => &mut blk.rows[i % BLOCK],
            Stored::Packed(_) => unreachable!("unpacked above"),
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
    #[inline]
    pub fn push(&mut self, t_gen: SimTime, talkspurt: u32, frames: u32, payload: u32, wire: u32) -> u32 {
        if let Some(s) = self.streaming_sink() {
            return s.push(t_gen.0, talkspurt, frames, payload);
        }
        self.push_row(t_gen, talkspurt, frames, payload, wire, [Wide::NONE, Wide::NONE], NetFate::InFlight)
    }

    /// `push`, then `sent` at `t_gen` and `arrived` at `at`, in one write
    /// when the arrival's offset fits its slot (the packet of a planned
    /// route, `sim/voice.rs`, that crossed it at once): the same record.
    #[inline]
    pub fn push_arrived(&mut self, t_gen: SimTime, talkspurt: u32, frames: u32, payload: u32, wire: u32, at: SimTime) {
        assert!(at >= t_gen, "a packet arrived before it was generated");
        if !self.streaming && at.0 - t_gen.0 < Wide::ESC as u64 {
            self.push_row(t_gen, talkspurt, frames, payload, wire, [0, (at.0 - t_gen.0) as u32], NetFate::Arrived);
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
        let r = &mut self.cur_mut().expect("a current block").rows[seq % BLOCK];
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

    /// The row the next packet will take, when its block exists: for the
    /// caller to prefetch.
    #[inline]
    pub fn next_row(&self) -> Option<&[u8]> {
        match (self.n % BLOCK, self.cur_ref()) {
            (0, _) | (_, None) => None,
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
                        Some(packed) => Stored::Packed(packed),
                        None => Stored::Rows(Box::new(cur.clone())),
                    };
                    self.cold.done.push(full);
                    self.settle();
                }
                cur.base = t;
            }
            (old, _) => {
                let blk = Box::new(Block { base: t, rows: [[0; ROW]; BLOCK] });
                self.cur = Some(NonNull::from(Box::leak(blk)));
                if let Some(full) = old {
                    // SAFETY: an owned `cur` came from `Box::leak` above.
                    let full = unsafe { Box::from_raw(full.as_ptr()) };
                    self.cold.done.push(match full.settled() {
                        Some(packed) => Stored::Packed(packed),
                        None => Stored::Rows(full),
                    });
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
            cold.done[d - 1 - LAG].settle();
        }
        for b in cold.loose.drain(..) {
            cold.done[b as usize].settle();
        }
    }

    /// Packet `seq` left the sender in an IP packet of `wire` bytes: the
    /// size its transport built (`Packet::size`), which the first link
    /// carries (trace only; the `wire_bytes` column). A packet that never
    /// leaves the sender keeps the 0 it was pushed with.
    #[inline]
    pub fn set_wire(&mut self, seq: u32, wire: u32) {
        if self.full && !self.streaming {
            self.cold.wire.set(seq as usize, wire);
        }
    }

    #[inline]
    pub fn set_fate(&mut self, seq: u32, fate: NetFate, where_: u32) {
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
        let (base, n) = (self.cur_base, self.n);
        match self.cur_mut() {
            Some(b) if i + 1 == n => {
                let r = &mut b.rows[i % BLOCK];
                let g = base + get32(r, GEN) as u64;
                Some((r, g))
            }
            _ => None,
        }
    }

    #[inline]
    pub fn sent(&mut self, seq: u32, now: SimTime) {
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

    #[inline]
    pub fn arrived(&mut self, seq: u32, now: SimTime) {
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

#[cfg(test)]
mod tests;
