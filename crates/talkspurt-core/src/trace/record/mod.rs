//! Per-call packet records, indexed by the packet's sequence number in its
//! call, stored compactly and exactly (issue 14): 17 bytes a packet for
//! scoring as rows, against 35 / 43 as plain columns; the trace's two
//! columns add a few bytes a run of equal values (`slots::Runs`).
//!
//! - generation times: the first packet of each block of `BLOCK` packets
//!   in full, the others as a 32-bit offset from it (a gap of 4.29 s or
//!   more inside a block starts a new base there);
//! - send, arrival: 32-bit offsets from generation (4.29 s reach);
//! - talkspurt: the step from the previous packet's (one byte);
//! - frames one byte, payload two; wire bytes and channel (trace only)
//!   as runs of equal values.
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
//! spread in the block needs, and a uniform block (a constant-rate call
//! with a steady delay) as its `Line`, 40 bytes in the record's vector of
//! them. A late packet's write unpacks its block, which is packed again
//! when the next block starts. Packets that arrive alike are not even
//! written as they come: the current block counts them (`run.rs`).
//!
//! While a run's loop goes, the records may be written on another thread
//! (`log.rs`: the calls hold stand-ins that log their writes).
//!
//! Files: `row.rs` the rows and blocks; `run.rs` a block's pending run;
//! `write.rs` the writes; `read.rs` reading back; `log.rs` the stand-ins'
//! log; `sink.rs` streaming scoring's consumer.

mod log;
mod read;
mod row;
mod run;
mod sink;
mod write;

pub use log::RecordLog;
pub use read::Columns;
use row::*;
pub use sink::RecordSink;
use super::slots::Runs;
pub use super::slots::Wide;
use super::slab::Slab;
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
    /// The previous packet's talkspurt; for a stand-in (`logged`), the
    /// call's index in the log.
    last_spurt: u32,
    /// Trace-only columns (wire bytes, where lost) are kept.
    pub full: bool,
    /// Packets go to `cold.sink` (streaming scoring); kept here so the
    /// per-packet test does not touch the cold part.
    streaming: bool,
    /// A stand-in while the loop runs (`logged`): its writes go to the
    /// log open on this thread (`log.rs`), and only `n` is kept here. (The
    /// three flags sit in what was padding: `Call`'s hot cache lines hold
    /// this head whole, a test in `sim/world.rs`.)
    logged: bool,
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
    /// The uniform blocks' descriptions (`Stored::Line`).
    lines: Vec<Line>,
    /// seq → time: the packet from which later ones of its block count.
    rebase: BTreeMap<u32, u64>,
    /// Escaped u32-slot values (generation, send, arrival offsets), whole.
    wide: [BTreeMap<u32, u64>; 3],
    /// Escaped narrow values (talkspurt id, frames, payload), whole.
    narrow: [BTreeMap<u32, u32>; 3],
    /// Wire bytes (trace only), as runs: one a call when every packet is
    /// the same size.
    wire: Runs,
    /// Channel where lost, plus one (0: none).
    where_: Runs,
    /// Streaming scoring (`[analysis] scoring = "streaming"`): packets go
    /// to this consumer as they happen and nothing above is stored.
    sink: Option<Box<dyn RecordSink>>,
    /// The slab `cur` lies in, kept alive while this record is
    /// (`trace::slab`); `None`: `cur` is owned.
    slab: Option<Arc<Slab>>,
    /// Full blocks kept as rows when they filled, to be packed later:
    /// not every packet had arrived alike (`Block::settled`). What
    /// recording costs the loop (`block_counts`).
    kept: u32,
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

    /// A stand-in for `real`, call `call`'s record, while the loop runs
    /// with a log open (`log.rs`): it hands out the sequence numbers
    /// `real` would, and appends every write to the log.
    fn logged(real: &CallRecord, call: u32) -> CallRecord {
        assert!(!real.logged && !real.streaming, "a stand-in for a record that is written directly");
        let mut r = CallRecord::default();
        (r.n, r.full, r.last_spurt, r.logged) = (real.n, real.full, call, true);
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

    /// (Full blocks stored, those of them kept as rows to be packed
    /// later): the latter copy a block and pack it field by field, the
    /// others are packed in one pass as they fill (`sim::records`).
    pub fn block_counts(&self) -> (usize, u32) {
        (self.cold.done.len(), self.cold.kept)
    }
}

#[cfg(test)]
mod tests;
