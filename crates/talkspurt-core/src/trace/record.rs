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
//! A value that does not fit its narrow slot is stored whole in a side map
//! (`Wide`, `Narrow`), so decoding is exact whatever the run does; the side
//! maps stay empty on ordinary calls. `columns` expands a call into plain
//! vectors for scoring, one call at a time.

use crate::time::SimTime;
use std::collections::BTreeMap;

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

/// A u64 column (times, or `NEVER`) as u32 slots; values from `ESC` up
/// live in `wide`. Exact for every u64.
#[derive(Clone, Debug, Default)]
pub struct Wide {
    v: Vec<u32>,
    wide: BTreeMap<u32, u64>,
}

impl Wide {
    const NONE: u32 = u32::MAX;
    const ESC: u32 = u32::MAX - 1;

    pub fn with_capacity(n: usize) -> Self {
        Wide { v: Vec::with_capacity(n), wide: BTreeMap::new() }
    }
    pub fn len(&self) -> usize {
        self.v.len()
    }
    pub fn is_empty(&self) -> bool {
        self.v.is_empty()
    }
    /// The slot code of `x` at index `i` (side entry if it does not fit).
    #[inline]
    fn code(&mut self, i: usize, x: u64) -> u32 {
        if x < Self::ESC as u64 {
            x as u32
        } else {
            self.code_cold(i, x)
        }
    }
    #[cold]
    #[inline(never)]
    fn code_cold(&mut self, i: usize, x: u64) -> u32 {
        if x == NEVER {
            Self::NONE
        } else {
            self.wide.insert(i as u32, x);
            Self::ESC
        }
    }
    #[inline]
    pub fn push(&mut self, x: u64) {
        let c = self.code(self.v.len(), x);
        self.v.push(c);
    }
    #[inline]
    pub fn set(&mut self, i: usize, x: u64) {
        self.v[i] = self.code(i, x);
    }
    #[inline]
    pub fn is_never(&self, i: usize) -> bool {
        self.v[i] == Self::NONE
    }
    #[inline]
    pub fn get(&self, i: usize) -> u64 {
        let x = self.v[i];
        if x < Self::ESC {
            x as u64
        } else {
            self.get_cold(i, x)
        }
    }
    #[cold]
    #[inline(never)]
    fn get_cold(&self, i: usize, x: u32) -> u64 {
        if x == Self::NONE {
            NEVER
        } else {
            self.wide[&(i as u32)]
        }
    }
    /// Heap bytes held (side map entries counted at 32 bytes each).
    pub fn heap_bytes(&self) -> usize {
        self.v.capacity() * 4 + self.wide.len() * 32
    }
    /// `t0[i] + get(i)`, or `NEVER` where `get(i)` is: a whole column in
    /// one pass over the slots (no per-index bounds checks).
    fn plus(&self, t0: &[u64]) -> Vec<u64> {
        debug_assert_eq!(t0.len(), self.v.len());
        if self.wide.is_empty() {
            // No side entries (the usual call): every slot is an offset or
            // NONE, a select the compiler vectorises.
            return self.v.iter().zip(t0).map(|(&x, &g)| if x == Self::NONE { NEVER } else { g + x as u64 }).collect();
        }
        self.v
            .iter()
            .zip(t0)
            .enumerate()
            .map(|(i, (&x, &g))| match x {
                x if x < Self::ESC => g + x as u64,
                x => match self.get_cold(i, x) {
                    NEVER => NEVER,
                    d => g + d,
                },
            })
            .collect()
    }
}

/// A narrow slot type: its escape code is its largest value.
trait Slot: Copy {
    const ESC: u32;
    fn from32(x: u32) -> Self;
    fn to32(self) -> u32;
}

macro_rules! slot {
    ($($t:ty),*) => {$(
        impl Slot for $t {
            const ESC: u32 = <$t>::MAX as u32;
            fn from32(x: u32) -> Self {
                x as $t
            }
            fn to32(self) -> u32 {
                self as u32
            }
        }
    )*};
}

slot!(u8, u16);

/// A u32 column in one or two bytes a value; larger values live in `wide`.
#[derive(Clone, Debug, Default)]
struct Narrow<T> {
    v: Vec<T>,
    wide: BTreeMap<u32, u32>,
}

impl<T: Slot> Narrow<T> {
    fn with_capacity(n: usize) -> Self {
        Narrow { v: Vec::with_capacity(n), wide: BTreeMap::new() }
    }
    #[inline]
    fn code(&mut self, i: usize, x: u32) -> T {
        if x < T::ESC {
            T::from32(x)
        } else {
            self.wide.insert(i as u32, x);
            T::from32(T::ESC)
        }
    }
    #[inline]
    fn push(&mut self, x: u32) {
        let c = self.code(self.v.len(), x);
        self.v.push(c);
    }
    #[inline]
    fn set(&mut self, i: usize, x: u32) {
        self.v[i] = self.code(i, x);
    }
    #[inline]
    fn get(&self, i: usize) -> u32 {
        let c = self.v[i].to32();
        if c < T::ESC {
            c
        } else {
            self.wide[&(i as u32)]
        }
    }
    fn heap_bytes(&self) -> usize {
        self.v.capacity() * std::mem::size_of::<T>() + self.wide.len() * 32
    }
    /// Every value, in one pass over the slots.
    fn all<U>(&self, to: impl Fn(u32) -> U) -> Vec<U> {
        if self.wide.is_empty() {
            // No escapes: a plain widening the compiler vectorises.
            return self.v.iter().map(|&c| to(c.to32())).collect();
        }
        self.v
            .iter()
            .enumerate()
            .map(|(i, &c)| {
                let c = c.to32();
                to(if c < T::ESC { c } else { self.wide[&(i as u32)] })
            })
            .collect()
    }
}

/// One call's records, compact (see the module note).
#[derive(Debug, Default)]
pub struct CallRecord {
    /// Trace-only columns (wire bytes, where lost) are kept.
    pub full: bool,
    /// Per block: its first packet's time; `REBASED` set when a gap of
    /// 4.29 s or more inside the block started a new base (`rebase`).
    gen_base: Vec<u64>,
    /// seq → time: the packet from which later ones of its block count.
    rebase: BTreeMap<u32, u64>,
    cur_base: u64,
    gen_off: Wide,
    /// First handed to the network, from generation (`NEVER` for a
    /// sender drop); the sender-side jitter of seed 003 needs it.
    sent_off: Wide,
    arr_off: Wide,
    fate: Vec<NetFate>,
    /// Talkspurt step from the previous packet; escapes hold the id itself.
    spurt_step: Narrow<u8>,
    last_spurt: u32,
    /// Codec frames carried (speech time = frames × frame duration).
    frames: Narrow<u8>,
    /// Application payload bytes (goodput).
    payload: Narrow<u16>,
    wire: Narrow<u16>,
    /// Channel where lost, plus one (0: none).
    where_: Narrow<u16>,
    /// Streaming scoring (`[analysis] scoring = "streaming"`): packets go
    /// to this consumer as they happen and nothing above is stored.
    sink: Option<Box<dyn RecordSink>>,
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
    /// metrics::adaptation::congestion_onset over the folded packets.
    fn congestion_onset(&self) -> Option<u64>;
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

impl CallRecord {
    pub fn new(full: bool, expect: usize) -> Self {
        CallRecord {
            full,
            gen_base: Vec::with_capacity(expect.div_ceil(BLOCK)),
            rebase: BTreeMap::new(),
            cur_base: 0,
            gen_off: Wide::with_capacity(expect),
            sent_off: Wide::with_capacity(expect),
            arr_off: Wide::with_capacity(expect),
            fate: Vec::with_capacity(expect),
            spurt_step: Narrow::with_capacity(expect),
            last_spurt: 0,
            frames: Narrow::with_capacity(expect),
            payload: Narrow::with_capacity(expect),
            wire: Narrow::with_capacity(if full { expect } else { 0 }),
            where_: Narrow::with_capacity(if full { expect } else { 0 }),
            sink: None,
        }
    }

    /// Records that store nothing and hand every packet to `sink`.
    pub fn streaming(sink: Box<dyn RecordSink>) -> Self {
        CallRecord { sink: Some(sink), ..CallRecord::default() }
    }

    /// The streaming consumer, if any.
    pub fn sink(&self) -> Option<&dyn RecordSink> {
        self.sink.as_deref()
    }

    pub fn sink_mut(&mut self) -> Option<&mut (dyn RecordSink + 'static)> {
        self.sink.as_deref_mut()
    }

    pub fn take_sink(&mut self) -> Option<Box<dyn RecordSink>> {
        self.sink.take()
    }

    pub fn len(&self) -> usize {
        match &self.sink {
            Some(s) => s.len(),
            None => self.fate.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// A new packet generated at `t_gen`; returns its sequence number.
    /// Generation times must not decrease within a call.
    #[inline]
    pub fn push(&mut self, t_gen: SimTime, talkspurt: u32, frames: u32, payload: u32, wire: u32) -> u32 {
        if let Some(s) = &mut self.sink {
            return s.push(t_gen.0, talkspurt, frames, payload);
        }
        let seq = self.fate.len();
        if seq % BLOCK == 0 {
            self.gen_base.push(t_gen.0);
            self.cur_base = t_gen.0;
        }
        assert!(t_gen.0 >= self.cur_base, "generation times decrease within a call");
        if t_gen.0 - self.cur_base >= Wide::ESC as u64 {
            // A long silence inside the block: count from this packet on.
            self.gen_base[seq / BLOCK] |= REBASED;
            self.rebase.insert(seq as u32, t_gen.0);
            self.cur_base = t_gen.0;
        }
        self.gen_off.push(t_gen.0 - self.cur_base);
        self.sent_off.v.push(Wide::NONE);
        self.arr_off.v.push(Wide::NONE);
        self.fate.push(NetFate::InFlight);
        let step = talkspurt.wrapping_sub(self.last_spurt);
        if talkspurt >= self.last_spurt && step < u8::ESC {
            self.spurt_step.push(step);
        } else {
            self.spurt_step.v.push(u8::MAX);
            self.spurt_step.wide.insert(seq as u32, talkspurt);
        }
        self.last_spurt = talkspurt;
        // ptime ≤ 80 ms and frames ≥ 1 ms bound this far below u16::MAX.
        self.frames.push(frames.min(u16::MAX as u32));
        self.payload.push(payload);
        if self.full {
            self.wire.push(wire);
            self.where_.push(0);
        }
        seq as u32
    }

    #[inline]
    pub fn t_gen(&self, i: usize) -> u64 {
        let b = self.gen_base[i / BLOCK];
        let base = if b & REBASED == 0 { b } else { self.rebased(i, b) };
        base + self.gen_off.get(i)
    }

    /// The base of packet `i` in a block with a long gap.
    #[cold]
    #[inline(never)]
    fn rebased(&self, i: usize, b: u64) -> u64 {
        let first = (i / BLOCK * BLOCK) as u32;
        self.rebase.range(first..=i as u32).next_back().map_or(b & !REBASED, |(_, &t)| t)
    }

    fn at(&self, i: usize, off: &Wide) -> u64 {
        match off.get(i) {
            NEVER => NEVER,
            d => self.t_gen(i) + d,
        }
    }

    pub fn t_sent(&self, i: usize) -> u64 {
        self.at(i, &self.sent_off)
    }

    pub fn t_arr(&self, i: usize) -> u64 {
        self.at(i, &self.arr_off)
    }

    pub fn frames(&self, i: usize) -> u32 {
        self.frames.get(i)
    }

    pub fn payload(&self, i: usize) -> u32 {
        self.payload.get(i)
    }

    /// Wire bytes (trace only).
    pub fn wire(&self, i: usize) -> u32 {
        self.wire.get(i)
    }

    /// Channel where lost, `NO_WHERE` if none (trace only).
    pub fn where_(&self, i: usize) -> u32 {
        self.where_.get(i).wrapping_sub(1)
    }

    /// Talkspurt ids in sequence order.
    pub fn talkspurts(&self) -> impl Iterator<Item = u32> + '_ {
        self.spurt_step.v.iter().enumerate().scan(0u32, |spurt, (i, &s)| {
            *spurt = match s {
                u8::MAX => self.spurt_step.wide[&(i as u32)],
                s => *spurt + s as u32,
            };
            Some(*spurt)
        })
    }

    pub fn fate(&self, i: usize) -> NetFate {
        self.fate[i]
    }

    pub fn fates(&self) -> &[NetFate] {
        &self.fate
    }

    #[inline]
    pub fn set_fate(&mut self, seq: u32, fate: NetFate, where_: u32) {
        if let Some(s) = &mut self.sink {
            return s.set_fate(seq, fate);
        }
        let i = seq as usize;
        // A unit already delivered keeps its fate (a later copy may be lost).
        if self.fate[i] == NetFate::Arrived {
            return;
        }
        self.fate[i] = fate;
        if self.full {
            self.where_.set(i, where_.wrapping_add(1));
        }
    }

    /// Offset of `now` from packet `i`'s generation.
    #[inline]
    fn since_gen(&self, i: usize, now: SimTime) -> u64 {
        let g = self.t_gen(i);
        assert!(now.0 >= g, "packet {i} handled before it was generated");
        now.0 - g
    }

    #[inline]
    pub fn sent(&mut self, seq: u32, now: SimTime) {
        if let Some(s) = &mut self.sink {
            return s.sent(seq, now.0);
        }
        let i = seq as usize;
        if self.sent_off.is_never(i) {
            let d = self.since_gen(i, now);
            self.sent_off.set(i, d);
        }
    }

    #[inline]
    pub fn arrived(&mut self, seq: u32, now: SimTime) {
        if let Some(s) = &mut self.sink {
            return s.arrived(seq, now.0);
        }
        let i = seq as usize;
        if self.arr_off.is_never(i) {
            let d = self.since_gen(i, now);
            self.arr_off.set(i, d);
            self.fate[i] = NetFate::Arrived;
            if self.full {
                self.where_.set(i, 0);
            }
        }
    }

    /// The records as plain vectors; `trace` adds wire bytes and where
    /// lost (when recorded).
    pub fn columns(&self, trace: bool) -> Columns {
        let n = self.len();
        let trace = trace && self.full;
        // Decoded a block or a column at a time, as the accessors above
        // decode one value (issue 14: the per-index path cost ~90
        // instructions a packet).
        let mut t_gen: Vec<u64> = Vec::with_capacity(n);
        for (k, (offs, &b)) in self.gen_off.v.chunks(BLOCK).zip(&self.gen_base).enumerate() {
            if b & REBASED == 0 && offs.iter().all(|&x| x < Wide::ESC) {
                t_gen.extend(offs.iter().map(|&x| b + x as u64));
            } else {
                t_gen.extend((k * BLOCK..k * BLOCK + offs.len()).map(|i| self.t_gen(i)));
            }
        }
        let (t_sent, t_arr) = (self.sent_off.plus(&t_gen), self.arr_off.plus(&t_gen));
        let (wire, where_) = if trace {
            (self.wire.all(|x| x), self.where_.all(|x| x.wrapping_sub(1)))
        } else {
            (Vec::new(), Vec::new())
        };
        let mut talkspurt = Vec::with_capacity(n);
        if self.spurt_step.wide.is_empty() {
            // Steps only: a running sum, no side-map test per packet.
            let mut spurt = 0u32;
            talkspurt.extend(self.spurt_step.v.iter().map(|&s| {
                spurt += s as u32;
                spurt
            }));
        } else {
            talkspurt.extend(self.talkspurts());
        }
        Columns {
            talkspurt,
            t_gen,
            t_sent,
            t_arr,
            fate: self.fate.clone(),
            frames: self.frames.all(|x| x as u16),
            payload: self.payload.all(|x| x),
            wire,
            where_,
        }
    }

    /// Heap bytes the records hold: the run's memory per recorded packet.
    pub fn heap_bytes(&self) -> usize {
        self.gen_base.capacity() * 8
            + self.rebase.len() * 32
            + self.gen_off.heap_bytes()
            + self.sent_off.heap_bytes()
            + self.arr_off.heap_bytes()
            + self.fate.capacity()
            + self.spurt_step.heap_bytes()
            + self.frames.heap_bytes()
            + self.payload.heap_bytes()
            + self.wire.heap_bytes()
            + self.where_.heap_bytes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Values at and beyond every narrow slot's reach decode exactly.
    #[test]
    fn escapes_decode_exactly() {
        let mut r = CallRecord::new(true, 4);
        let big = 5_000_000_000u64; // beyond a u32 of ns
        let gens = [0u64, 20_000_000, 20_000_000 + big, 20_000_000 + 2 * big];
        let spurts = [0u32, 300, 2, 2];
        for (k, (&g, &s)) in gens.iter().zip(&spurts).enumerate() {
            let seq = r.push(SimTime(g), s, [1, 70_000, 255, 254][k], [160, 65_535, 70_000, 0][k], [200, 65_534, 1 << 20, 40][k]);
            assert_eq!(seq as usize, k);
        }
        r.sent(0, SimTime(5));
        r.sent(1, SimTime(gens[1] + big));
        r.arrived(1, SimTime(gens[1] + 2 * big));
        r.set_fate(2, NetFate::QueueDrop, 70_000);
        r.set_fate(3, NetFate::LinkLoss, 3);
        r.set_fate(1, NetFate::LinkLoss, 9); // delivered: keeps its fate
        let c = r.columns(true);
        assert_eq!(c.t_gen, gens);
        assert_eq!(c.talkspurt, spurts);
        assert_eq!(c.frames, [1, u16::MAX, 255, 254]);
        assert_eq!(c.payload, [160, 65_535, 70_000, 0]);
        assert_eq!(c.wire, [200, 65_534, 1 << 20, 40]);
        assert_eq!(c.t_sent, [5, gens[1] + big, NEVER, NEVER]);
        assert_eq!(c.t_arr, [NEVER, gens[1] + 2 * big, NEVER, NEVER]);
        assert_eq!(c.fate, [NetFate::InFlight, NetFate::Arrived, NetFate::QueueDrop, NetFate::LinkLoss]);
        assert_eq!(c.where_, [NO_WHERE, NO_WHERE, 70_000, 3]);
        assert_eq!(r.t_arr(1), gens[1] + 2 * big);
    }

    /// A call without escapes (the columns' fast paths) decodes as the
    /// per-index accessors do, lost, unsent and in-flight packets included.
    #[test]
    fn plain_calls_decode_as_the_accessors() {
        for full in [false, true] {
            let mut r = CallRecord::new(full, 300);
            for i in 0..300u64 {
                let g = i * 20_000_000 + (i / 7) * 1_000;
                let seq = r.push(SimTime(g), (i / 40) as u32 * 3, 1 + (i % 3) as u32, 160 + i as u32, 200 + i as u32);
                if i % 5 != 0 {
                    r.sent(seq, SimTime(g + i * 10));
                }
                match i % 11 {
                    0 => r.set_fate(seq, NetFate::QueueDrop, 2),
                    1 => {}
                    _ => r.arrived(seq, SimTime(g + 30_000_000 + i * 1_000)),
                }
            }
            let c = r.columns(true);
            let n = r.len();
            assert_eq!(c.t_gen, (0..n).map(|i| r.t_gen(i)).collect::<Vec<_>>());
            assert_eq!(c.t_sent, (0..n).map(|i| r.t_sent(i)).collect::<Vec<_>>());
            assert_eq!(c.t_arr, (0..n).map(|i| r.t_arr(i)).collect::<Vec<_>>());
            assert_eq!(c.talkspurt, r.talkspurts().collect::<Vec<_>>());
            assert_eq!(c.talkspurt, (0..n).map(|i| (i / 40) as u32 * 3).collect::<Vec<_>>());
            assert_eq!(c.frames, (0..n).map(|i| r.frames(i) as u16).collect::<Vec<_>>());
            assert_eq!(c.payload, (0..n).map(|i| r.payload(i)).collect::<Vec<_>>());
            if full {
                assert_eq!(c.wire, (0..n).map(|i| r.wire(i)).collect::<Vec<_>>());
                assert_eq!(c.where_, (0..n).map(|i| r.where_(i)).collect::<Vec<_>>());
            }
        }
    }

    /// Long silences inside a block rebase it: one side entry per gap,
    /// exact times before and after.
    #[test]
    fn long_gaps_rebase_the_block() {
        let mut r = CallRecord::new(false, 200);
        let mut t = Vec::new();
        for i in 0..200u64 {
            let g = i * 20_000_000 + (i / 10) * 6_000_000_000; // a 6 s silence every 10 packets
            t.push(g);
            r.push(SimTime(g), (i / 10) as u32, 1, 160, 0);
            r.arrived(i as u32, SimTime(g + 1));
        }
        assert_eq!(r.columns(false).t_gen, t);
        assert!((0..200).all(|i| r.t_gen(i) == t[i] && r.t_arr(i) == t[i] + 1));
        assert_eq!(r.rebase.len(), 19, "one per silence (none at a block start here)");
    }

    /// Scoring records cost 17 bytes a packet (plus a block base per 64),
    /// the trace's 21: the bound the memory targets rest on.
    #[test]
    fn bytes_per_packet() {
        for (full, bytes) in [(false, 17.0), (true, 21.0)] {
            let n = 64_000;
            let mut r = CallRecord::new(full, n);
            for i in 0..n as u64 {
                let seq = r.push(SimTime(i * 20_000_000), (i / 50) as u32, 1, 160, 200);
                r.sent(seq, SimTime(i * 20_000_000));
                r.arrived(seq, SimTime(i * 20_000_000 + 32_019_200));
            }
            let per = r.heap_bytes() as f64 / n as f64;
            assert!((per - bytes - 8.0 / BLOCK as f64).abs() < 1e-9, "full={full}: {per} bytes a packet");
        }
    }
}
