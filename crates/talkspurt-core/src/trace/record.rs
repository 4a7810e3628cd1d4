//! Per-call packet records, struct-of-arrays, indexed by the packet's
//! sequence number in its call. The columns needed for scoring are always
//! kept (about 35 bytes a packet); the rest only when the trace is on.

use crate::time::SimTime;

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

#[derive(Debug, Default)]
pub struct CallRecord {
    pub talkspurt: Vec<u32>,
    pub t_gen: Vec<u64>,
    /// First handed to the network (`NEVER` for a sender drop); the
    /// sender-side jitter of seed 003 needs it.
    pub t_sent: Vec<u64>,
    pub t_arr: Vec<u64>,
    pub fate: Vec<NetFate>,
    /// Codec frames carried (speech time = frames × frame duration).
    pub frames: Vec<u16>,
    /// Application payload bytes (goodput).
    pub payload: Vec<u32>,
    /// Trace-only columns (empty when the trace is off).
    pub full: bool,
    pub wire: Vec<u32>,
    pub where_: Vec<u32>,
}

impl CallRecord {
    pub fn new(full: bool, expect: usize) -> Self {
        let mut r = CallRecord { full, ..Default::default() };
        r.talkspurt.reserve_exact(expect);
        r.t_gen.reserve_exact(expect);
        r.t_arr.reserve_exact(expect);
        r.fate.reserve_exact(expect);
        r.t_sent.reserve_exact(expect);
        r.frames.reserve_exact(expect);
        r.payload.reserve_exact(expect);
        if full {
            r.wire.reserve_exact(expect);
            r.where_.reserve_exact(expect);
        }
        r
    }

    pub fn len(&self) -> usize {
        self.t_gen.len()
    }

    pub fn is_empty(&self) -> bool {
        self.t_gen.is_empty()
    }

    /// A new packet generated at `t_gen`; returns its sequence number.
    pub fn push(&mut self, t_gen: SimTime, talkspurt: u32, frames: u32, payload: u32, wire: u32) -> u32 {
        let seq = self.t_gen.len() as u32;
        self.talkspurt.push(talkspurt);
        self.t_gen.push(t_gen.0);
        self.t_sent.push(NEVER);
        self.t_arr.push(NEVER);
        self.fate.push(NetFate::InFlight);
        // ptime ≤ 80 ms and frames ≥ 1 ms bound this far below u16::MAX.
        self.frames.push(frames.min(u16::MAX as u32) as u16);
        self.payload.push(payload);
        if self.full {
            self.wire.push(wire);
            self.where_.push(NO_WHERE);
        }
        seq
    }

    pub fn set_fate(&mut self, seq: u32, fate: NetFate, where_: u32) {
        let i = seq as usize;
        // A unit already delivered keeps its fate (a later copy may be lost).
        if self.fate[i] == NetFate::Arrived {
            return;
        }
        self.fate[i] = fate;
        if self.full {
            self.where_[i] = where_;
        }
    }

    pub fn sent(&mut self, seq: u32, now: SimTime) {
        if self.t_sent[seq as usize] == NEVER {
            self.t_sent[seq as usize] = now.0;
        }
    }

    pub fn arrived(&mut self, seq: u32, now: SimTime) {
        let i = seq as usize;
        if self.t_arr[i] == NEVER {
            self.t_arr[i] = now.0;
            self.fate[i] = NetFate::Arrived;
            if self.full {
                self.where_[i] = NO_WHERE;
            }
        }
    }
}
