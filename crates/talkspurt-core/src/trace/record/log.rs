//! Recording on a second core (issue 26, target 1): while the event loop
//! runs, the calls' records are written by another thread.
//!
//! A record's writes (`push`, `sent`, `arrived`, `set_fate`, `set_wire`)
//! return nothing the loop reads but the sequence number `push` hands out,
//! which is the count of packets pushed. So the loop's calls hold stand-in
//! records (`CallRecord::logged`) that count their packets and append each
//! write, as an [`Op`], to one log in the order the loop makes them; a
//! thread started with the real records applies the log's chunks to them
//! as they fill, through the same calls, and hands the records back when
//! the loop ends ([`RecordLog::finish`]). Each record sees the same calls
//! in the same order as when written directly, so it ends the same, bit
//! for bit; where the thread is slower, the loop waits for a chunk to free
//! (a bounded channel), so the log never holds more than a few chunks.
//!
//! Writing a row and packing full blocks (`trace::pack`) took about a
//! quarter of the loop's time on bench/tcp_mix_big.toml, for ~14 % of its
//! instructions (the blocks are memory the loop no longer walks);
//! appending an op is a few stores to a buffer written in order. Where
//! blocks pack in one pass as they fill, logging costs about what it
//! saves: `sim::records` decides when to hand off.

use super::{CallRecord, NetFate};
use crate::time::SimTime;
use std::cell::Cell;
use std::ptr::NonNull;
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};
use std::thread::JoinHandle;

/// One write of a call's record, as the loop made it.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Op {
    Push { call: u32, talkspurt: u32, frames: u32, payload: u32, wire: u32, t_gen: u64 },
    PushArrived { call: u32, talkspurt: u32, frames: u32, payload: u32, wire: u32, t_gen: u64, at: u64 },
    Sent { call: u32, seq: u32, now: u64 },
    Arrived { call: u32, seq: u32, now: u64 },
    SetFate { call: u32, seq: u32, fate: NetFate, where_: u32 },
    SetWire { call: u32, seq: u32, wire: u32 },
}

/// Ops a chunk holds (320 KB): few enough hand-offs that waking the
/// applying thread costs nothing measurable (~180 on the mixed preset).
const CHUNK: usize = 8192;
/// Full chunks waiting at most; the loop waits beyond.
const WAITING: usize = 2;

/// The loop's side of a log: the chunk being filled, the channel to the
/// applying thread and the chunks it hands back for reuse.
struct Tail {
    chunk: Vec<Op>,
    full: SyncSender<Vec<Op>>,
    empty: Receiver<Vec<Op>>,
}

thread_local! {
    /// The log the stand-ins of this thread write to, while one is open:
    /// a stand-in written on another thread, or after its log finished,
    /// finds none and panics rather than write anywhere.
    static OPEN: Cell<Option<NonNull<Tail>>> = const { Cell::new(None) };
}

/// Append `op` to the log open on this thread (a stand-in's write).
#[inline(always)]
pub(super) fn log_op(op: Op) {
    OPEN.with(|open| {
        let tail = open.get().expect("a stand-in record written away from its log's thread, or after the log finished");
        // SAFETY: `OPEN` holds a tail only while its `RecordLog` owns it
        // (set by `start`, cleared by `finish` or drop on this thread,
        // before the tail is freed); nothing else reaches it meanwhile,
        // and `Tail::op` does not re-enter.
        unsafe { (*tail.as_ptr()).op(op) }
    })
}

impl Tail {
    #[inline(always)]
    fn op(&mut self, op: Op) {
        self.chunk.push(op);
        if self.chunk.len() == CHUNK {
            self.hand_off();
        }
    }

    #[inline(never)]
    fn hand_off(&mut self) {
        let next = self.empty.try_recv().unwrap_or_else(|_| Vec::with_capacity(CHUNK));
        // The thread ends only when the channel closes, or by a panic
        // (reported by `finish`).
        let _ = self.full.send(std::mem::replace(&mut self.chunk, next));
    }
}

/// Recording on a second thread while the loop runs (see the module
/// note). Belongs to the thread that started it (not `Send`).
pub struct RecordLog {
    /// The tail stand-ins append to (`OPEN`), owned here: from
    /// `Box::into_raw`, freed by `finish` or drop.
    tail: Option<NonNull<Tail>>,
    applier: Option<JoinHandle<Vec<CallRecord>>>,
}

impl RecordLog {
    /// Start recording on a second thread: each of `records` (call `i`'s
    /// the `i`-th) goes to the thread and is replaced by a stand-in that
    /// logs its writes, which must be made on this thread until
    /// [`RecordLog::finish`] puts the records back. One log at a time on
    /// a thread.
    pub fn start<'r>(records: impl Iterator<Item = &'r mut CallRecord>) -> RecordLog {
        assert!(OPEN.with(Cell::get).is_none(), "a record log is already open on this thread");
        let (full, chunks) = sync_channel::<Vec<Op>>(WAITING);
        let (give_back, empty) = sync_channel::<Vec<Op>>(WAITING + 2);
        let mut real = Vec::new();
        for (i, r) in records.enumerate() {
            let stand_in = CallRecord::logged(r, i as u32);
            real.push(std::mem::replace(r, stand_in));
        }
        let applier = std::thread::Builder::new()
            .name("talkspurt-records".into())
            .spawn(move || {
                for mut chunk in chunks {
                    apply(&mut real, &chunk);
                    chunk.clear();
                    // The loop may have finished and stopped taking them back.
                    let _ = give_back.try_send(chunk);
                }
                real
            })
            .expect("start the recording thread");
        let tail = NonNull::from(Box::leak(Box::new(Tail { chunk: Vec::with_capacity(CHUNK), full, empty })));
        OPEN.with(|open| open.set(Some(tail)));
        RecordLog { tail: Some(tail), applier: Some(applier) }
    }

    /// Close the log: no stand-in may write to it any more; its tail
    /// (what was not handed off yet) and its channel back.
    fn close(&mut self) -> Option<Box<Tail>> {
        let tail = self.tail.take()?;
        OPEN.with(|open| open.set(None));
        // SAFETY: from `Box::leak` in `start`, and no longer in `OPEN`.
        Some(unsafe { Box::from_raw(tail.as_ptr()) })
    }

    /// Apply what is left, and put the records back in place of the
    /// stand-ins (`records`, in the order `start` took them).
    pub fn finish<'r>(mut self, records: impl Iterator<Item = &'r mut CallRecord>) {
        let Tail { chunk, full, .. } = *self.close().expect("an open log");
        let _ = full.send(chunk);
        drop(full);
        let real = match self.applier.take().expect("finished once").join() {
            Ok(real) => real,
            Err(panic) => std::panic::resume_unwind(panic),
        };
        for (r, real) in records.zip(real) {
            *r = real;
        }
    }
}

impl Drop for RecordLog {
    /// A log dropped unfinished (the loop panicked): closed, so that no
    /// stand-in writes to it; the thread ends as its channel closes.
    fn drop(&mut self) {
        drop(self.close());
    }
}

/// Apply `ops` to the records through their own calls (`CallRecord`).
fn apply(records: &mut [CallRecord], ops: &[Op]) {
    for &op in ops {
        match op {
            Op::Push { call, talkspurt, frames, payload, wire, t_gen } => {
                let seq = records[call as usize].push(SimTime(t_gen), talkspurt, frames, payload, wire);
                debug_assert_eq!(seq as usize + 1, records[call as usize].len());
            }
            Op::PushArrived { call, talkspurt, frames, payload, wire, t_gen, at } => {
                records[call as usize].push_arrived_rows(SimTime(t_gen), talkspurt, frames, payload, wire, SimTime(at))
            }
            Op::Sent { call, seq, now } => records[call as usize].sent(seq, SimTime(now)),
            Op::Arrived { call, seq, now } => records[call as usize].arrived(seq, SimTime(now)),
            Op::SetFate { call, seq, fate, where_ } => records[call as usize].set_fate(seq, fate, where_),
            Op::SetWire { call, seq, wire } => records[call as usize].set_wire(seq, wire),
        }
    }
}

#[cfg(test)]
#[path = "log_tests.rs"]
mod tests;
