//! The row layout of a call's records (see `record`): a block of `BLOCK`
//! packets' 17-byte rows, where each field sits in a row, a full block
//! stored as rows or packed (`trace::pack`), and the fate as its byte.

use super::run::{NO_RUN, RUN};
use super::NetFate;
use crate::trace::pack::{Packed, FIELDS};

/// Packets per block of generation times.
pub(super) const BLOCK: usize = 64;
/// Flag on a block's base time (times stay below 2^63 ns, 292 years).
pub(super) const REBASED: u64 = 1 << 63;

/// Bytes of one packet's row: generation, send and arrival offsets (u32
/// slots as in `Wide`), fate, talkspurt step, frames (one byte each),
/// payload (two).
pub(super) const ROW: usize = 17;
pub(super) const GEN: usize = 0;
pub(super) const SENT: usize = 4;
pub(super) const ARR: usize = 8;
pub(super) const FATE: usize = 12;
pub(super) const SPURT: usize = 13;
pub(super) const FRAMES: usize = 14;
pub(super) const PAYLOAD: usize = 15;
/// Side maps of the u32-slot fields (`GEN`, `SENT`, `ARR`: index 0..3)
/// and of the narrow ones (`SPURT`: the id itself, `FRAMES`, `PAYLOAD`).
pub(super) const W_GEN: usize = 0;
pub(super) const W_SENT: usize = 1;
pub(super) const W_ARR: usize = 2;
pub(super) const N_SPURT: usize = 0;
pub(super) const N_FRAMES: usize = 1;
pub(super) const N_PAYLOAD: usize = 2;
/// Each packed column's place in the row (`trace::pack`): offset and
/// width in bytes, column 0 the generation offsets.
pub(super) const FIELD_AT: [(usize, usize); FIELDS] = [(GEN, 4), (SENT, 4), (ARR, 4), (FATE, 1), (SPURT, 1), (FRAMES, 1), (PAYLOAD, 2)];
/// Full blocks this many blocks behind the current one stay as rows; older
/// ones are packed (`settle`): their packets have been sent and have
/// arrived or been lost, except the rare late one, whose write unpacks the
/// block until the next block starts.
pub(super) const LAG: usize = 1;

/// `BLOCK` packets' rows and their base time, allocated when the block's
/// first packet is recorded. Rows rather than columns: a packet's record
/// is one or two cache lines, not eight, and blocks of calls that record
/// at the same time are allocated next to each other, so a round of
/// packets across many calls writes memory in order instead of eight
/// streams a call apart (issue 14: at 10 000 calls every column write
/// was a cache miss; bench/README.md).
#[derive(Clone, Debug)]
pub(super) struct Block {
    /// The first packet's generation time; `REBASED` set when a gap of
    /// 4.29 s or more inside the block started a new base (`rebase`).
    pub(super) base: u64,
    /// The pending run (`run.rs`): rows counted but not written yet. Only
    /// the current block has one; full blocks are stored with every row.
    pub(super) run: [u8; RUN],
    pub(super) rows: [[u8; ROW]; BLOCK],
}

#[inline]
pub(super) fn get32(r: &[u8; ROW], at: usize) -> u32 {
    u32::from_le_bytes([r[at], r[at + 1], r[at + 2], r[at + 3]])
}

#[inline]
fn get64(r: &[u8; ROW], at: usize) -> u64 {
    u64::from_le_bytes(r[at..at + 8].try_into().expect("8 bytes"))
}

/// A u32 slot's "never" (`Wide::NONE`).
const NONE: u32 = u32::MAX;

#[inline]
pub(super) fn put32(r: &mut [u8; ROW], at: usize, x: u32) {
    r[at..at + 4].copy_from_slice(&x.to_le_bytes());
}

/// Field `f` (`FIELD_AT`) of a row, widened.
#[inline]
pub(super) fn row_field(r: &[u8; ROW], f: usize) -> u32 {
    match FIELD_AT[f] {
        (at, 4) => get32(r, at),
        (at, 2) => u16::from_le_bytes([r[at], r[at + 1]]) as u32,
        (at, _) => r[at] as u32,
    }
}

/// A full block: rows, or packed once settled (`trace::pack`, issue 26
/// target 3: the records were most of a run's memory); a uniform block as
/// its `Line`, entry `i` of the record's lines (`RecordCold::lines`).
#[derive(Clone, Debug)]
pub(super) enum Stored {
    Rows(Box<Block>),
    Packed(Packed),
    Line(u32),
}

/// A uniform block (`Block::uniform`): its base time, the line `(g0,
/// step)` of its generation offsets and every other field's one value
/// (columns 1.., none `NONE`). What `Packed::pack` stores of such a block
/// in ~70 bytes of its own allocation, in 40 bytes of a vector that grows
/// by doubling: a malloc and a free a block of the headline (~300
/// instructions) no more.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Line {
    pub(super) base: u64,
    pub(super) g0: u32,
    pub(super) step: u32,
    pub(super) vals: [u32; FIELDS - 1],
}

impl Line {
    /// Field `f` (`FIELD_AT`) of row `j`.
    #[inline]
    pub(super) fn get(&self, f: usize, j: usize) -> u32 {
        match f {
            0 => self.g0.wrapping_add(self.step.wrapping_mul(j as u32)),
            _ => self.vals[f - 1],
        }
    }

    /// The block's columns, in `FIELD_AT` order.
    pub(super) fn cols(&self) -> [[u32; BLOCK]; FIELDS] {
        std::array::from_fn(|f| std::array::from_fn(|j| self.get(f, j)))
    }

    /// `Packed::line`'s description.
    pub(super) fn parts(&self) -> (u32, u32, [u32; FIELDS - 1]) {
        (self.g0, self.step, self.vals)
    }
}

impl Block {
    /// An empty block of base `base`, no run pending.
    pub(super) fn new(base: u64) -> Block {
        Block { base, run: NO_RUN, rows: [[0; ROW]; BLOCK] }
    }

    /// The rows as columns, in `FIELD_AT` order: field by field with fixed
    /// offsets, no match per value.
    pub(super) fn cols(&self) -> [[u32; BLOCK]; FIELDS] {
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

    /// The full block as a `Line` if it is uniform: generation offsets on
    /// a line, every other field the same in every row, sent and arrived
    /// (a constant-rate call with a steady delay: every block of the
    /// headline). Told by comparing each written row's bytes after `GEN`
    /// with the first's, two u64 loads a row, and a pending run's rows
    /// from its header (`run.rs`).
    pub(super) fn uniform(&self) -> Option<Line> {
        let r0 = &self.rows[0];
        let (g0, step) = (get32(r0, GEN), get32(&self.rows[1], GEN).wrapping_sub(get32(r0, GEN)));
        let (written, tail) = self.written_and_tail(step);
        let rest = |r: &[u8; ROW]| (get64(r, SENT), get64(r, ROW - 8));
        let first = rest(r0);
        let on = tail && self.rows[..written].iter().enumerate().all(|(j, r)| get32(r, GEN) == g0.wrapping_add(step.wrapping_mul(j as u32)) && rest(r) == first);
        (on && get32(r0, SENT) != NONE && get32(r0, ARR) != NONE).then(|| Line { base: self.base, g0, step, vals: std::array::from_fn(|f| row_field(r0, f + 1)) })
    }

    /// A full block that nothing can change any more, packed: uniform and
    /// every packet arrived (a later write to an arrived packet changes
    /// nothing: `CallRecord::sent`, `arrived`, `set_fate`). The record
    /// stores it so at once rather than as rows `LAG` blocks long.
    pub(super) fn settled(&self) -> Option<Line> {
        if self.rows[0][FATE] != NetFate::Arrived as u8 {
            return None;
        }
        self.uniform()
    }

    /// A block of rows from its base and columns (a packed block's, or a
    /// line's, for a late packet's write).
    pub(super) fn from_cols(base: u64, cols: &[[u32; BLOCK]; FIELDS]) -> Block {
        let mut b = Block::new(base);
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
    /// The block's base time (`lines`: the record's).
    pub(super) fn base(&self, lines: &[Line]) -> u64 {
        match self {
            Stored::Rows(b) => b.base,
            Stored::Packed(p) => p.base(),
            Stored::Line(i) => lines[*i as usize].base,
        }
    }

    /// Its columns (`Block::cols`) and base.
    pub(super) fn cols(&self, lines: &[Line]) -> (u64, [[u32; BLOCK]; FIELDS]) {
        match self {
            Stored::Rows(b) => (b.base, b.cols()),
            Stored::Packed(p) => (p.base(), p.unpack()),
            Stored::Line(i) => (lines[*i as usize].base, lines[*i as usize].cols()),
        }
    }

    /// A block of rows settled: a uniform one as a line (added to
    /// `lines`), any other packed (a packed one or a line stays).
    pub(super) fn settle(&mut self, lines: &mut Vec<Line>) {
        if let Stored::Rows(b) = self {
            *self = match b.uniform() {
                Some(l) => Stored::line(l, lines),
                None => Stored::Packed(Packed::pack(b.base, &b.cols())),
            };
        }
    }

    /// `l`, added to `lines`.
    pub(super) fn line(l: Line, lines: &mut Vec<Line>) -> Stored {
        lines.push(l);
        Stored::Line(lines.len() as u32 - 1)
    }
}

/// The fate stored as its byte.
#[inline]
pub(super) fn fate_of(b: u8) -> NetFate {
    match b {
        0 => NetFate::InFlight,
        1 => NetFate::SenderDrop,
        2 => NetFate::QueueDrop,
        3 => NetFate::LinkLoss,
        _ => NetFate::Arrived,
    }
}
