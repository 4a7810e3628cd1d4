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
//! block after it is full too (`LAG`): each field stored with the bits its
//! spread in the block needs, ~1.5 bytes a packet on a constant-rate call
//! with a steady delay. A late packet's write unpacks its block, which is
//! packed again when the next block starts.

use super::pack::{Packed, FIELDS};
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

/// Packets per block of generation times.
const BLOCK: usize = 64;
/// Flag on a block's base time (times stay below 2^63 ns, 292 years).
const REBASED: u64 = 1 << 63;

/// Bytes of one packet's row: generation, send and arrival offsets (u32
/// slots as in `Wide`), fate, talkspurt step, frames (one byte each),
/// payload (two).
const ROW: usize = 17;
const GEN: usize = 0;
const SENT: usize = 4;
const ARR: usize = 8;
const FATE: usize = 12;
const SPURT: usize = 13;
const FRAMES: usize = 14;
const PAYLOAD: usize = 15;
/// Side maps of the u32-slot fields (`GEN`, `SENT`, `ARR`: index 0..3)
/// and of the narrow ones (`SPURT`: the id itself, `FRAMES`, `PAYLOAD`).
const W_GEN: usize = 0;
const W_SENT: usize = 1;
const W_ARR: usize = 2;
const N_SPURT: usize = 0;
const N_FRAMES: usize = 1;
const N_PAYLOAD: usize = 2;
/// Each packed column's place in the row (`trace::pack`): offset and
/// width in bytes, column 0 the generation offsets.
const FIELD_AT: [(usize, usize); FIELDS] = [(GEN, 4), (SENT, 4), (ARR, 4), (FATE, 1), (SPURT, 1), (FRAMES, 1), (PAYLOAD, 2)];
/// Full blocks this many blocks behind the current one stay as rows; older
/// ones are packed (`settle`): their packets have been sent and have
/// arrived or been lost, except the rare late one, whose write unpacks the
/// block until the next block starts.
const LAG: usize = 1;

/// `BLOCK` packets' rows and their base time, allocated when the block's
/// first packet is recorded. Rows rather than columns: a packet's record
/// is one or two cache lines, not eight, and blocks of calls that record
/// at the same time are allocated next to each other, so a round of
/// packets across many calls writes memory in order instead of eight
/// streams a call apart (issue 14: at 10 000 calls every column write
/// was a cache miss; bench/README.md).
#[derive(Clone, Debug)]
struct Block {
    /// The first packet's generation time; `REBASED` set when a gap of
    /// 4.29 s or more inside the block started a new base (`rebase`).
    base: u64,
    rows: [[u8; ROW]; BLOCK],
}

#[inline]
fn get32(r: &[u8; ROW], at: usize) -> u32 {
    u32::from_le_bytes([r[at], r[at + 1], r[at + 2], r[at + 3]])
}

#[inline]
fn put32(r: &mut [u8; ROW], at: usize, x: u32) {
    r[at..at + 4].copy_from_slice(&x.to_le_bytes());
}

/// Field `f` (`FIELD_AT`) of a row, widened.
#[inline]
fn row_field(r: &[u8; ROW], f: usize) -> u32 {
    match FIELD_AT[f] {
        (at, 4) => get32(r, at),
        (at, 2) => u16::from_le_bytes([r[at], r[at + 1]]) as u32,
        (at, _) => r[at] as u32,
    }
}

/// A full block: rows, or packed once settled (`trace::pack`, issue 26
/// target 3: the records were most of a run's memory).
#[derive(Clone, Debug)]
enum Stored {
    Rows(Box<Block>),
    Packed(Packed),
}

impl Block {
    /// The rows as columns, in `FIELD_AT` order: field by field with fixed
    /// offsets, no match per value.
    fn cols(&self) -> [[u32; BLOCK]; FIELDS] {
        let mut cols = [[0u32; BLOCK]; FIELDS];
        for (j, r) in self.rows.iter().enumerate() {
            cols[0][j] = get32(r, GEN);
            cols[1][j] = get32(r, SENT);
            cols[2][j] = get32(r, ARR);
            cols[3][j] = r[FATE] as u32;
            cols[4][j] = r[SPURT] as u32;
            cols[5][j] = r[FRAMES] as u32;
            cols[6][j] = u16::from_le_bytes([r[PAYLOAD], r[PAYLOAD + 1]]) as u32;
        }
        cols
    }

    fn pack(&self) -> Packed {
        Packed::pack(self.base, &self.cols())
    }

    fn unpack(p: &Packed) -> Block {
        let cols = p.unpack();
        let mut b = Block { base: p.base(), rows: [[0; ROW]; BLOCK] };
        for (j, r) in b.rows.iter_mut().enumerate() {
            for (f, col) in cols.iter().enumerate() {
                let x = col[j];
                match FIELD_AT[f] {
                    (at, 4) => put32(r, at, x),
                    (at, 2) => r[at..at + 2].copy_from_slice(&(x as u16).to_le_bytes()),
                    (at, _) => r[at] = x as u8,
                }
            }
        }
        b
    }
}

impl Stored {
    fn base(&self) -> u64 {
        match self {
            Stored::Rows(b) => b.base,
            Stored::Packed(p) => p.base(),
        }
    }

    /// Pack a block of rows (a packed one stays).
    fn settle(&mut self) {
        if let Stored::Rows(b) = self {
            *self = Stored::Packed(b.pack());
        }
    }
}

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

/// A consumer of one call's packet events in place of stored records: the
/// world's calls below (`push`, `sent`, `arrived`, `set_fate`) are handed
/// to it as they happen (score::stream folds them into per-call
/// accumulators, issue 14). Times are ns.
pub trait RecordSink: Send + Sync + std::fmt::Debug {
    /// A packet generated at `t_gen`; returns its sequence number.
    fn push(&mut self, t_gen: u64, talkspurt: u32, frames: u32, payload: u32) -> u32;
    fn sent(&mut self, seq: u32, now: u64);
    fn arrived(&mut self, seq: u32, now: u64);
    fn set_fate(&mut self, seq: u32, fate: NetFate);
    /// Packets generated.
    fn len(&self) -> usize;
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// The run is over: fold what is still open (in flight).
    fn finish(&mut self);
    fn into_any(self: Box<Self>) -> Box<dyn std::any::Any>;
}

/// A call's records as plain vectors (`CallRecord::columns`).
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Columns {
    pub talkspurt: Vec<u32>,
    pub t_gen: Vec<u64>,
    pub t_sent: Vec<u64>,
    pub t_arr: Vec<u64>,
    pub fate: Vec<NetFate>,
    pub frames: Vec<u16>,
    pub payload: Vec<u32>,
    /// Trace-only columns, empty unless asked for and recorded.
    pub wire: Vec<u32>,
    pub where_: Vec<u32>,
}

impl Columns {
    pub fn len(&self) -> usize {
        self.t_gen.len()
    }
    pub fn is_empty(&self) -> bool {
        self.t_gen.is_empty()
    }
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

    /// Block `b`'s base time (`b` below the block count).
    #[inline]
    fn base_of(&self, b: usize) -> u64 {
        match self.cold.done.get(b) {
            Some(x) => x.base(),
            None => self.cur_ref().expect("a recorded packet").base,
        }
    }

    /// Field `f` (`FIELD_AT`) of packet `i`'s row, from its block's rows
    /// or packed columns.
    #[inline]
    fn field(&self, i: usize, f: usize) -> u32 {
        debug_assert!(i < self.n);
        let (b, j) = (i / BLOCK, i % BLOCK);
        match self.cold.done.get(b) {
            Some(Stored::Rows(x)) => row_field(&x.rows[j], f),
            Some(Stored::Packed(p)) => p.get(f, j),
            None => row_field(&self.cur_ref().expect("a recorded packet").rows[j], f),
        }
    }

    /// The field at row offset `at`.
    #[inline]
    fn field_at(&self, i: usize, at: usize) -> u32 {
        let f = match at {
            GEN => 0,
            SENT => 1,
            ARR => 2,
            FATE => 3,
            SPURT => 4,
            FRAMES => 5,
            _ => 6,
        };
        debug_assert_eq!(FIELD_AT[f].0, at);
        self.field(i, f)
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

    /// The u32-slot field at `at` of packet `i`, whole (`NEVER` if unset).
    #[inline]
    fn wide_at(&self, i: usize, at: usize, w: usize) -> u64 {
        let x = self.field_at(i, at);
        if x < Wide::ESC {
            x as u64
        } else {
            self.wide_cold(i, x, w)
        }
    }

    #[cold]
    #[inline(never)]
    fn wide_cold(&self, i: usize, x: u32, w: usize) -> u64 {
        if x == Wide::NONE {
            NEVER
        } else {
            self.cold.wide[w][&(i as u32)]
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

    /// A narrow field's value whole: its slot, or the side entry at `esc`.
    #[inline]
    fn narrow_at(&self, i: usize, c: u32, esc: u32, m: usize) -> u32 {
        if c < esc {
            c
        } else {
            self.cold.narrow[m][&(i as u32)]
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
        put32(r, SENT, Wide::NONE);
        put32(r, ARR, Wide::NONE);
        r[FATE] = NetFate::InFlight as u8;
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
            // A slab slot stays put: the full block is copied out and the
            // slot reused (rows at or past `n` are never read; `push`
            // writes a row whole).
            (Some(p), true) => {
                // SAFETY: see `cur`.
                let cur = unsafe { &mut *p.as_ptr() };
                if self.n > 0 {
                    self.cold.done.push(Stored::Rows(Box::new(cur.clone())));
                    self.settle();
                }
                cur.base = t;
            }
            (old, _) => {
                let blk = Box::new(Block { base: t, rows: [[0; ROW]; BLOCK] });
                self.cur = Some(NonNull::from(Box::leak(blk)));
                if let Some(full) = old {
                    // SAFETY: an owned `cur` came from `Box::leak` above.
                    self.cold.done.push(Stored::Rows(unsafe { Box::from_raw(full.as_ptr()) }));
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

    #[inline]
    pub fn t_gen(&self, i: usize) -> u64 {
        let b = self.base_of(i / BLOCK);
        let base = if b & REBASED == 0 { b } else { self.rebased(i, b) };
        base + self.wide_at(i, GEN, W_GEN)
    }

    /// The base of packet `i` in a block with a long gap.
    #[cold]
    #[inline(never)]
    fn rebased(&self, i: usize, b: u64) -> u64 {
        let first = (i / BLOCK * BLOCK) as u32;
        self.cold.rebase.range(first..=i as u32).next_back().map_or(b & !REBASED, |(_, &t)| t)
    }

    fn at(&self, i: usize, at: usize, w: usize) -> u64 {
        match self.wide_at(i, at, w) {
            NEVER => NEVER,
            d => self.t_gen(i) + d,
        }
    }

    pub fn t_sent(&self, i: usize) -> u64 {
        self.at(i, SENT, W_SENT)
    }

    pub fn t_arr(&self, i: usize) -> u64 {
        self.at(i, ARR, W_ARR)
    }

    pub fn frames(&self, i: usize) -> u32 {
        self.narrow_at(i, self.field_at(i, FRAMES), u8::ESC, N_FRAMES)
    }

    pub fn payload(&self, i: usize) -> u32 {
        self.narrow_at(i, self.field_at(i, PAYLOAD), u16::ESC, N_PAYLOAD)
    }

    /// Wire bytes (trace only).
    pub fn wire(&self, i: usize) -> u32 {
        self.cold.wire.get(i)
    }

    /// Channel where lost, `NO_WHERE` if none (trace only).
    pub fn where_(&self, i: usize) -> u32 {
        self.cold.where_.get(i).wrapping_sub(1)
    }

    /// Every block with the number of its rows in use, in order, packed
    /// ones unpacked (one at a time, as the iterator reaches them).
    fn blocks(&self) -> impl Iterator<Item = (std::borrow::Cow<'_, Block>, usize)> + '_ {
        use std::borrow::Cow;
        let n = self.n;
        let done = self.cold.done.iter().map(|s| match s {
            Stored::Rows(b) => Cow::Borrowed(&**b),
            Stored::Packed(p) => Cow::Owned(Block::unpack(p)),
        });
        done.chain(self.cur_ref().map(Cow::Borrowed)).enumerate().map(move |(k, b)| (b, (n - k * BLOCK).min(BLOCK)))
    }

    /// Talkspurt ids in sequence order.
    pub fn talkspurts(&self) -> impl Iterator<Item = u32> + '_ {
        let mut out = Vec::with_capacity(self.n);
        let mut spurt = 0u32;
        for (k, (b, len)) in self.blocks().enumerate() {
            for (j, r) in b.rows[..len].iter().enumerate() {
                spurt = match r[SPURT] {
                    u8::MAX => self.cold.narrow[N_SPURT][&((k * BLOCK + j) as u32)],
                    s => spurt + s as u32,
                };
                out.push(spurt);
            }
        }
        out.into_iter()
    }

    pub fn fate(&self, i: usize) -> NetFate {
        fate_of(self.field_at(i, FATE) as u8)
    }

    /// Every packet's fate, in sequence order.
    pub fn fates(&self) -> Vec<NetFate> {
        self.blocks().flat_map(|(b, len)| b.rows[..len].iter().map(|r| fate_of(r[FATE])).collect::<Vec<_>>()).collect()
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

    /// Block `k`'s base time and its fields as columns (`FIELD_AT` order):
    /// a packed block decoded straight into columns, not into rows first.
    fn block_cols(&self, k: usize) -> (u64, [[u32; BLOCK]; FIELDS]) {
        match self.cold.done.get(k) {
            Some(Stored::Packed(p)) => (p.base(), p.unpack()),
            Some(Stored::Rows(b)) => (b.base, b.cols()),
            None => {
                let b = self.cur_ref().expect("a recorded packet");
                (b.base, b.cols())
            }
        }
    }

    /// The records as plain vectors; `trace` adds wire bytes and where
    /// lost (when recorded).
    pub fn columns(&self, trace: bool) -> Columns {
        let n = self.len();
        let trace = trace && self.full;
        // Decoded a block at a time, as the accessors above decode one
        // value (issue 14: the per-index path cost ~90 instructions a
        // packet), every field in one pass over the block's columns: a
        // packed block is unpacked once, into columns (issue 26: rows
        // first, and a second pass for the talkspurts, cost twice that).
        let mut t_gen: Vec<u64> = Vec::with_capacity(n);
        let (mut t_sent, mut t_arr) = (Vec::with_capacity(n), Vec::with_capacity(n));
        let (mut fate, mut frames, mut payload) = (Vec::with_capacity(n), Vec::with_capacity(n), Vec::with_capacity(n));
        let mut talkspurt = Vec::with_capacity(n);
        let escapes = self.cold.narrow.iter().any(|m| !m.is_empty());
        let mut spurt = 0u32;
        for k in 0..n.div_ceil(BLOCK) {
            let (i0, len) = (k * BLOCK, (n - k * BLOCK).min(BLOCK));
            let (base, c) = self.block_cols(k);
            let gen = &c[0][..len];
            if base & REBASED == 0 && gen.iter().all(|&x| x < Wide::ESC) {
                t_gen.extend(gen.iter().map(|&x| base + x as u64));
            } else {
                t_gen.extend((i0..i0 + len).map(|i| self.t_gen(i)));
            }
            let g = &t_gen[i0..];
            for (f, w, out) in [(1, W_SENT, &mut t_sent), (2, W_ARR, &mut t_arr)] {
                out.extend(c[f][..len].iter().zip(g).enumerate().map(|(j, (&x, &g))| match x {
                    x if x < Wide::ESC => g + x as u64,
                    x => match self.wide_cold(i0 + j, x, w) {
                        NEVER => NEVER,
                        d => g + d,
                    },
                }));
            }
            fate.extend(c[3][..len].iter().map(|&x| fate_of(x as u8)));
            for (j, &s) in c[4][..len].iter().enumerate() {
                spurt = match s {
                    s if s == u8::MAX as u32 => self.cold.narrow[N_SPURT][&((i0 + j) as u32)],
                    s => spurt + s,
                };
                talkspurt.push(spurt);
            }
            if escapes {
                frames.extend((i0..i0 + len).map(|i| self.frames(i) as u16));
                payload.extend((i0..i0 + len).map(|i| self.payload(i)));
            } else {
                frames.extend(c[5][..len].iter().map(|&x| x as u16));
                payload.extend_from_slice(&c[6][..len]);
            }
        }
        let (wire, where_) = if trace {
            (self.cold.wire.all(|x| x), self.cold.where_.all(|x| x.wrapping_sub(1)))
        } else {
            (Vec::new(), Vec::new())
        };
        Columns { talkspurt, t_gen, t_sent, t_arr, fate, frames, payload, wire, where_ }
    }

    /// Generation times of block `blk` (packets `i0..i0 + len`) onto `out`.
    #[inline]
    fn extend_gen(&self, out: &mut Vec<u64>, i0: usize, blk: &Block, len: usize) {
        let (b, rows) = (blk.base, &blk.rows[..len]);
        if b & REBASED == 0 && rows.iter().all(|r| get32(r, GEN) < Wide::ESC) {
            out.extend(rows.iter().map(|r| b + get32(r, GEN) as u64));
        } else {
            out.extend((i0..i0 + len).map(|i| self.t_gen(i)));
        }
    }

    /// Every packet's generation time, decoded a block at a time (the
    /// per-index `t_gen` reads a packed block's header for each packet).
    pub fn t_gens(&self) -> Vec<u64> {
        let mut out = Vec::with_capacity(self.len());
        for (k, (blk, len)) in self.blocks().enumerate() {
            self.extend_gen(&mut out, k * BLOCK, &blk, len);
        }
        out
    }

    /// Heap bytes the records hold: the run's memory per recorded packet.
    pub fn heap_bytes(&self) -> usize {
        let stored: usize = self.cold.done.iter().map(|s| match s {
            Stored::Rows(_) => std::mem::size_of::<Block>(),
            Stored::Packed(p) => p.heap_bytes(),
        }).sum();
        std::mem::size_of::<RecordCold>()
            + self.cold.done.capacity() * std::mem::size_of::<Stored>()
            + self.cold.loose.capacity() * 4
            + stored
            + self.cur.is_some() as usize * std::mem::size_of::<Block>()
            + self.cold.rebase.len() * 32
            + self.cold.wide.iter().map(|m| m.len() * 32).sum::<usize>()
            + self.cold.narrow.iter().map(|m| m.len() * 32).sum::<usize>()
            + self.cold.wire.heap_bytes()
            + self.cold.where_.heap_bytes()
    }
}

/// The fate stored as its byte.
#[inline]
fn fate_of(b: u8) -> NetFate {
    match b {
        0 => NetFate::InFlight,
        1 => NetFate::SenderDrop,
        2 => NetFate::QueueDrop,
        3 => NetFate::LinkLoss,
        _ => NetFate::Arrived,
    }
}

#[cfg(test)]
#[path = "record_tests.rs"]
mod tests;
